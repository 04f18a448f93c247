//! JSON scene files (cargo feature `scene`), documented in
//! `docs/scene-format.md`.
//!
//! A scene file lists parameters, materials, colliders, points, springs and
//! bodies by hand, and shapes by generator (`box`, `grid`, `wheel`, `blob`,
//! `rope`, each optionally repeated in an `array`), which map onto the
//! builders of [`crate::shapes`].
//!
//! Every error names the JSON path of what is wrong (`springs[3].a`,
//! `shapes[0].grid.cells[1]`, `params.dt`) and says what is wrong; unknown
//! fields are errors too, so a misspelt key never goes unnoticed, and so is
//! `null` (a key left out takes its default; `null` never does). Loading
//! never panics and never allocates for a generator before checking that
//! the whole scene stays under [`MAX_SCENE_POINTS`].
//!
//! ```
//! use softbody::scene::Scene;
//!
//! let world = Scene::parse(r#"{
//!     "params": { "substeps": 10, "gravity": [0, -9.81] },
//!     "planes": [{ "normal": [0, 1], "offset": 0 }],
//!     "shapes": [
//!         { "box": { "center": [0, 2], "size": [0.5, 0.5],
//!                    "array": { "count": [10, 3], "spacing": [0.6, 0.6] } } },
//!         { "rope": { "a": [-3, 5], "b": [-1, 5], "n": 9, "pin_first": true } }
//!     ]
//! }"#)?.build()?;
//! assert_eq!(world.bodies().len(), 30);
//! assert_eq!(world.points().len(), 30 * 4 + 9);
//!
//! let err = Scene::parse(r#"{ "springs": [{ "a": 0, "b": "one" }] }"#).unwrap_err();
//! assert_eq!(err.path, "springs[0].b");
//! # Ok::<(), softbody::scene::SceneError>(())
//! ```

use std::fmt;
use std::path::Path;

use glam::Vec2;
use serde::de::value::MapAccessDeserializer;
use serde::de::{Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

use crate::error::{Item, WorldError};
use crate::frequency::{DEFAULT_SHAPE, DEFAULT_SPRING, Frequency};
use crate::params::Params;
use crate::shapes::{Blob, BoxGrid, BoxShape, Rope, ShapeStyle, Wheel};
use crate::world::{
    ALL_LAYERS, Body, HalfPlane, Material, MaterialHandle, Planet, Point, PointHandle, Spring,
    SpringKind, World,
};

/// Most points a scene may have in all (2^24, about 16.7 million: some
/// 3 GiB across the world, the packed arrays and the GPU buffers). A scene
/// asking for more is refused before anything is generated.
pub const MAX_SCENE_POINTS: u64 = 1 << 24;

/// Most bytes a scene file may have (2 GiB): room for a scene of
/// [`MAX_SCENE_POINTS`] points written out one per line. A larger file, or
/// one that does not end (`/dev/zero`), is refused after reading at most
/// this much, with an error naming the file and this limit.
pub const MAX_SCENE_BYTES: u64 = 2 << 30;

/// What is wrong with a scene file, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneError {
    /// The JSON path, e.g. `springs[3].a`; empty for the file as a whole.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl SceneError {
    fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for SceneError {}

/// Two values as JSON writes them: a vector `[x, y]` ([`V2`]) or a count
/// per axis `[nx, ny]` ([`Counts`]). Exactly two: an array of any other
/// length is an error that says so (serde's `[T; 2]` reports a third
/// number as `trailing characters`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pair<T>(pub [T; 2]);

/// A 2-vector, `[x, y]`.
pub type V2 = Pair<f32>;
/// A count per axis, `[nx, ny]`.
pub type Counts = Pair<u64>;

fn v2(a: V2) -> Vec2 {
    Vec2::from_array(a.0)
}

/// `Deserialize` for a [`Pair`] of `$t`, which `expecting` describes.
macro_rules! pair {
    ($t:ty, $expecting:literal) => {
        impl<'de> Deserialize<'de> for Pair<$t> {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct Two;
                impl<'de> Visitor<'de> for Two {
                    type Value = Pair<$t>;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_seq<A: SeqAccess<'de>>(
                        self,
                        mut seq: A,
                    ) -> Result<Self::Value, A::Error> {
                        let Some(x) = seq.next_element()? else {
                            return Err(A::Error::invalid_length(0, &self));
                        };
                        let Some(y) = seq.next_element()? else {
                            return Err(A::Error::invalid_length(1, &self));
                        };
                        // Count the rest, to say how many there were.
                        let mut len = 2;
                        while seq.next_element::<IgnoredAny>()?.is_some() {
                            len += 1;
                        }
                        if len > 2 {
                            return Err(A::Error::invalid_length(len, &self));
                        }
                        Ok(Pair([x, y]))
                    }
                }
                deserializer.deserialize_seq(Two)
            }
        }
    };
}

pair!(f32, "two numbers [x, y]");
pair!(u64, "two whole numbers [nx, ny]");

/// Implements `Deserialize` for structs derived with
/// `#[serde(remote = "Self")]`, which makes the derived code an inherent
/// `Type::deserialize` instead: from a JSON object only. The derived impl
/// would also take the fields in order from an array (`[0.5, 8]` for
/// `{"dt": 0.5, "substeps": 8}`), which the format does not have, and name
/// the Rust type in its errors (`expected struct ParamsSpec`).
macro_rules! from_object {
    ($($ty:ident),* $(,)?) => {$(
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct Object;
                impl<'de> Visitor<'de> for Object {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("a JSON object")
                    }
                    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<$ty, A::Error> {
                        // The inherent function that `remote = "Self"` derived.
                        $ty::deserialize(MapAccessDeserializer::new(map))
                    }
                }
                deserializer.deserialize_map(Object)
            }
        }
    )*};
}

from_object!(
    Scene,
    ParamsSpec,
    MaterialSpec,
    PlanetSpec,
    PlaneSpec,
    PointSpec,
    SpringSpec,
    BodySpec,
    ArraySpec,
    BoxSpec,
    GridSpec,
    WheelSpec,
    BlobSpec,
    RopeSpec,
);

/// A parsed scene file, before it is built into a [`World`]. Fields are
/// the file's keys; see `docs/scene-format.md`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct Scene {
    /// Global parameters; missing ones take [`Params::default`].
    #[serde(default, deserialize_with = "present")]
    pub params: ParamsSpec,
    /// Materials `1, 2, ...` (material `0` follows the parameters).
    #[serde(default, deserialize_with = "present")]
    pub materials: Vec<MaterialSpec>,
    #[serde(default, deserialize_with = "present")]
    pub planets: Vec<PlanetSpec>,
    #[serde(default, deserialize_with = "present")]
    pub planes: Vec<PlaneSpec>,
    /// Points `0 .. points.len()`; generated points follow them.
    #[serde(default, deserialize_with = "present")]
    pub points: Vec<PointSpec>,
    /// Generators, built in order after the points.
    #[serde(default, deserialize_with = "present")]
    pub shapes: Vec<ShapeSpec>,
    /// Springs between any points, listed or generated.
    #[serde(default, deserialize_with = "present")]
    pub springs: Vec<SpringSpec>,
    /// Bodies over any points, listed or generated.
    #[serde(default, deserialize_with = "present")]
    pub bodies: Vec<BodySpec>,
}

/// `params`: every field optional.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct ParamsSpec {
    #[serde(default, deserialize_with = "some")]
    pub dt: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub substeps: Option<u32>,
    #[serde(default, deserialize_with = "some")]
    pub gravity: Option<V2>,
    #[serde(default, deserialize_with = "some")]
    pub point_radius: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub elasticity: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub friction: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub static_friction: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub dynamic_friction: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub restitution_threshold: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub spring_stiffness: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub spring_damping: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub shape_stiffness: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub shape_damping: Option<f32>,
    /// `shape_stiffness` as a frequency, Hz.
    #[serde(default, deserialize_with = "some")]
    pub shape_frequency: Option<f32>,
    /// `shape_damping` as a damping ratio (with `shape_frequency`).
    #[serde(default, deserialize_with = "some")]
    pub shape_damping_ratio: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub area_stiffness: Option<f32>,
    /// `area_stiffness` as a frequency, Hz.
    #[serde(default, deserialize_with = "some")]
    pub area_frequency: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub rod_iterations: Option<u32>,
    #[serde(default, deserialize_with = "some")]
    pub body_collisions: Option<bool>,
    #[serde(default, deserialize_with = "some")]
    pub contact_iterations: Option<u32>,
    #[serde(default, deserialize_with = "some")]
    pub contact_relax_iterations: Option<u32>,
    #[serde(default, deserialize_with = "some")]
    pub collision_cell: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub sleep_speed: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub sleep_time: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub wake_speed: Option<f32>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct MaterialSpec {
    #[serde(default, deserialize_with = "some")]
    pub elasticity: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub friction: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub static_friction: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub dynamic_friction: Option<f32>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct PlanetSpec {
    pub center: V2,
    pub radius: f32,
    #[serde(default = "all_layers", deserialize_with = "present")]
    pub layers: u32,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct PlaneSpec {
    pub normal: V2,
    pub offset: f32,
    #[serde(default = "all_layers", deserialize_with = "present")]
    pub layers: u32,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct PointSpec {
    pub pos: V2,
    #[serde(default, deserialize_with = "present")]
    pub vel: V2,
    #[serde(default = "one", deserialize_with = "present")]
    pub mass: f32,
    #[serde(default, deserialize_with = "present")]
    pub material: u32,
    #[serde(default = "all_layers", deserialize_with = "present")]
    pub layers: u32,
}

/// `kind` of a spring, in lower case.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KindSpec {
    #[default]
    Spring,
    Soft,
    Rod,
}

/// A string only: the derived impl would also take `{"rod": null}`.
impl<'de> Deserialize<'de> for KindSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        const KINDS: &[&str] = &["spring", "soft", "rod"];
        struct Kind;
        impl Visitor<'_> for Kind {
            type Value = KindSpec;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"spring\", \"soft\" or \"rod\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<KindSpec, E> {
                match v {
                    "spring" => Ok(KindSpec::Spring),
                    "soft" => Ok(KindSpec::Soft),
                    "rod" => Ok(KindSpec::Rod),
                    _ => Err(E::unknown_variant(v, KINDS)),
                }
            }
        }
        deserializer.deserialize_str(Kind)
    }
}

impl From<KindSpec> for SpringKind {
    fn from(k: KindSpec) -> Self {
        match k {
            KindSpec::Spring => SpringKind::Spring,
            KindSpec::Soft => SpringKind::Soft,
            KindSpec::Rod => SpringKind::Rod,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct SpringSpec {
    pub a: u32,
    pub b: u32,
    #[serde(default, deserialize_with = "some")]
    pub rest_length: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub stiffness: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub damping: Option<f32>,
    #[serde(default, deserialize_with = "present")]
    pub kind: KindSpec,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct BodySpec {
    pub points: Vec<u32>,
    #[serde(default, deserialize_with = "some")]
    pub rest: Option<Vec<V2>>,
    #[serde(default, deserialize_with = "some")]
    pub stiffness: Option<f32>,
    #[serde(default, deserialize_with = "some")]
    pub damping: Option<f32>,
    /// Area stiffness, 1/s^2; `None`: the parameter's.
    #[serde(default, deserialize_with = "some")]
    pub area_stiffness: Option<f32>,
    /// Target area over rest area (a pressure body's gas), default 1.
    #[serde(default = "one", deserialize_with = "present")]
    pub inflation: f32,
    /// Outline in body-body collisions, point indices; `None`: `points`.
    #[serde(default, deserialize_with = "some")]
    pub boundary: Option<Vec<u32>>,
    /// Contact material index in body-body collisions.
    #[serde(default, deserialize_with = "present")]
    pub material: u32,
    #[serde(default = "category_one", deserialize_with = "present")]
    pub category: u32,
    #[serde(default = "all_layers", deserialize_with = "present")]
    pub mask: u32,
}

/// `array`: the shape repeated `count[0] x count[1]` times, copy `(i, j)`
/// moved by `(i spacing[0], j spacing[1])`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct ArraySpec {
    pub count: Counts,
    pub spacing: V2,
}

/// A key at fault and what is wrong with it.
type KeyError = (&'static str, String);

/// A stiffness and damping given as rates or as a frequency and damping
/// ratio (docs/scene-format.md, "Stiffness as a frequency").
struct Stiffness {
    rate: Option<f32>,
    damping: Option<f32>,
    hz: Option<f32>,
    ratio: Option<f32>,
}

/// The keys of one stiffness: rate, damping, frequency, damping ratio.
type StiffnessKeys = [&'static str; 4];
const SHAPE_KEYS: StiffnessKeys = [
    "shape_stiffness",
    "shape_damping",
    "shape_frequency",
    "shape_damping_ratio",
];
/// The area stiffness has a frequency but no damping of its own (shape
/// matching's damps it): its damping keys are never given.
const AREA_KEYS: StiffnessKeys = [
    "area_stiffness",
    "area_damping",
    "area_frequency",
    "area_damping_ratio",
];
const BODY_KEYS: StiffnessKeys = [
    "body_stiffness",
    "body_damping",
    "body_frequency",
    "body_damping_ratio",
];
const SPRING_KEYS: StiffnessKeys = [
    "spring_stiffness",
    "spring_damping",
    "spring_frequency",
    "spring_damping_ratio",
];

impl Stiffness {
    /// The stiffness and damping rates: as given, or from the frequency
    /// (`to_rate` turns it into a stiffness) and the damping ratio
    /// (`default_ratio` when only the frequency is given). A quantity given
    /// both ways, or a ratio without a frequency, is an error.
    fn resolve(
        &self,
        [rate, damping, hz, ratio]: StiffnessKeys,
        default_ratio: f32,
        to_rate: impl Fn(Frequency) -> f32,
    ) -> Result<(Option<f32>, Option<f32>), KeyError> {
        if self.rate.is_some() && self.hz.is_some() {
            return Err((hz, format!("give `{rate}` or `{hz}`, not both")));
        }
        if self.damping.is_some() && self.ratio.is_some() {
            return Err((ratio, format!("give `{damping}` or `{ratio}`, not both")));
        }
        let Some(f) = self.hz else {
            if self.ratio.is_some() {
                return Err((
                    ratio,
                    format!("needs `{hz}`: a damping ratio is relative to a frequency"),
                ));
            }
            return Ok((self.rate, self.damping));
        };
        let f = Frequency::new(f, self.ratio.unwrap_or(default_ratio));
        f.check(Item::Params, hz, ratio).map_err(|e| {
            let (_, field) = item_field(&e);
            (field.unwrap_or(hz), describe(&e))
        })?;
        let (k, c) = (to_rate(f), f.damping_rate());
        if !(k.is_finite() && c.is_finite()) {
            return Err((
                hz,
                format!(
                    "{} Hz gives a stiffness or damping too large for f32 (stiffness {k}, damping {c})",
                    f.hz
                ),
            ));
        }
        Ok((Some(k), Some(self.damping.unwrap_or(c))))
    }
}

/// The style fields every generator takes, as in [`ShapeStyle`].
macro_rules! generator {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Deserialize)]
        #[serde(remote = "Self", deny_unknown_fields)]
        pub struct $name {
            $($(#[$fdoc])* pub $field: $ty,)*
            /// Mass of each point (`0` pins).
            #[serde(default = "one", deserialize_with = "present")]
            pub mass: f32,
            /// Material index.
            #[serde(default, deserialize_with = "present")]
            pub material: u32,
            #[serde(default = "all_layers", deserialize_with = "present")]
            pub layers: u32,
            /// Collision category bits of each body.
            #[serde(default = "category_one", deserialize_with = "present")]
            pub category: u32,
            /// Collision mask of each body.
            #[serde(default = "all_layers", deserialize_with = "present")]
            pub mask: u32,
            /// Initial velocity of each point.
            #[serde(default, deserialize_with = "present")]
            pub vel: V2,
            #[serde(default, deserialize_with = "some")]
            pub body_stiffness: Option<f32>,
            #[serde(default, deserialize_with = "some")]
            pub body_damping: Option<f32>,
            /// Whether to add the shape's springs.
            #[serde(default = "yes", deserialize_with = "present")]
            pub springs: bool,
            #[serde(default, deserialize_with = "present")]
            pub spring_kind: KindSpec,
            #[serde(default, deserialize_with = "some")]
            pub spring_stiffness: Option<f32>,
            #[serde(default, deserialize_with = "some")]
            pub spring_damping: Option<f32>,
            /// `body_stiffness` as a frequency, Hz.
            #[serde(default, deserialize_with = "some")]
            pub body_frequency: Option<f32>,
            /// The bodies' area stiffness, 1/s^2.
            #[serde(default, deserialize_with = "some")]
            pub body_area_stiffness: Option<f32>,
            /// The bodies' target area over rest area.
            #[serde(default = "one", deserialize_with = "present")]
            pub inflation: f32,
            /// `body_damping` as a damping ratio (with `body_frequency`).
            #[serde(default, deserialize_with = "some")]
            pub body_damping_ratio: Option<f32>,
            /// `spring_stiffness` as a frequency, Hz, for two points of
            /// the style's `mass`.
            #[serde(default, deserialize_with = "some")]
            pub spring_frequency: Option<f32>,
            /// `spring_damping` as a damping ratio (with `spring_frequency`).
            #[serde(default, deserialize_with = "some")]
            pub spring_damping_ratio: Option<f32>,
            /// Repeat the shape on a lattice.
            #[serde(default, deserialize_with = "some")]
            pub array: Option<ArraySpec>,
        }

        impl $name {
            /// The style, with the stiffnesses given as frequencies
            /// converted; the error names the key at fault.
            fn style(&self) -> Result<ShapeStyle, KeyError> {
                let (body_stiffness, body_damping) = Stiffness {
                    rate: self.body_stiffness,
                    damping: self.body_damping,
                    hz: self.body_frequency,
                    ratio: self.body_damping_ratio,
                }
                .resolve(BODY_KEYS, DEFAULT_SHAPE.damping_ratio, |f| f.shape_stiffness())?;
                let mass = self.mass;
                let (spring_stiffness, spring_damping) = Stiffness {
                    rate: self.spring_stiffness,
                    damping: self.spring_damping,
                    hz: self.spring_frequency,
                    ratio: self.spring_damping_ratio,
                }
                .resolve(SPRING_KEYS, DEFAULT_SPRING.damping_ratio, |f| {
                    f.spring_stiffness(mass, mass)
                })?;
                Ok(ShapeStyle {
                    mass,
                    material: MaterialHandle(self.material),
                    layers: self.layers,
                    category: self.category,
                    mask: self.mask,
                    vel: v2(self.vel),
                    body_stiffness,
                    body_damping,
                    body_area_stiffness: self.body_area_stiffness,
                    inflation: self.inflation,
                    springs: self.springs,
                    spring_kind: self.spring_kind.into(),
                    spring_stiffness,
                    spring_damping,
                })
            }
        }
    };
}

generator!(
    /// `box`: [`BoxShape`].
    BoxSpec {
        center: V2,
        size: V2,
        #[serde(default, deserialize_with = "present")]
        rotation: f32,
        #[serde(default = "yes", deserialize_with = "present")]
        diagonals: bool,
    }
);

generator!(
    /// `grid`: [`BoxGrid`] of `cells[0] x cells[1]` cells, placed by
    /// `center` or by `origin` (corner `(0, 0)`), not both; neither centres
    /// it at the origin.
    GridSpec {
        cells: Counts,
        cell: V2,
        #[serde(default, deserialize_with = "some")]
        center: Option<V2>,
        #[serde(default, deserialize_with = "some")]
        origin: Option<V2>,
        #[serde(default, deserialize_with = "present")]
        rotation: f32,
        #[serde(default = "yes", deserialize_with = "present")]
        diagonals: bool,
    }
);

generator!(
    /// `wheel`: [`Wheel`] with `n` rim points.
    WheelSpec {
        center: V2,
        radius: f32,
        n: u64,
        #[serde(default, deserialize_with = "present")]
        rotation: f32,
        #[serde(default, deserialize_with = "some")]
        hub_mass: Option<f32>,
    }
);

generator!(
    /// `blob`: [`Blob`] with `n` perimeter points.
    BlobSpec {
        center: V2,
        radius: f32,
        n: u64,
        #[serde(default, deserialize_with = "present")]
        rotation: f32,
        #[serde(default, deserialize_with = "present")]
        center_point: bool,
    }
);

generator!(
    /// `rope`: [`Rope`] of `n` points from `a` to `b`.
    RopeSpec {
        a: V2,
        b: V2,
        n: u64,
        #[serde(default, deserialize_with = "present")]
        pin_first: bool,
        #[serde(default, deserialize_with = "present")]
        pin_last: bool,
    }
);

/// One generator, keyed by its name: `{"box": {...}}`.
#[derive(Clone, Debug, PartialEq)]
pub enum ShapeSpec {
    Box(BoxSpec),
    Grid(GridSpec),
    Wheel(WheelSpec),
    Blob(BlobSpec),
    Rope(RopeSpec),
}

/// What a `shapes` entry is, for errors.
const SHAPE: &str = "an object with exactly one key, the generator: box, grid, wheel, blob or rope";

/// An object with one key, the generator, whose value is the generator's
/// object. serde's externally tagged enum says only `expected value` for
/// `{}` or a second key.
impl<'de> Deserialize<'de> for ShapeSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        const GENERATORS: [&str; 5] = ["box", "grid", "wheel", "blob", "rope"];
        struct Shape;
        impl<'de> Visitor<'de> for Shape {
            type Value = ShapeSpec;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(SHAPE)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ShapeSpec, A::Error> {
                let Some(key) = map.next_key::<String>()? else {
                    return Err(A::Error::custom(format_args!(
                        "a shape is {SHAPE}; found none"
                    )));
                };
                let shape = match key.as_str() {
                    "box" => ShapeSpec::Box(map.next_value()?),
                    "grid" => ShapeSpec::Grid(map.next_value()?),
                    "wheel" => ShapeSpec::Wheel(map.next_value()?),
                    "blob" => ShapeSpec::Blob(map.next_value()?),
                    "rope" => ShapeSpec::Rope(map.next_value()?),
                    _ => {
                        let names = GENERATORS.map(|g| format!("`{g}`")).join(", ");
                        return Err(A::Error::custom(format_args!(
                            "unknown generator `{key}`, expected one of {names}"
                        )));
                    }
                };
                if let Some(second) = map.next_key::<String>()? {
                    return Err(A::Error::custom(format_args!(
                        "a shape is {SHAPE}; found a second key `{second}`"
                    )));
                }
                Ok(shape)
            }
        }
        deserializer.deserialize_map(Shape)
    }
}

/// What a `null` gets: the format has none (a key left out takes its
/// default), and serde's derived impls took it for some keys (`Option`)
/// and not for others.
const NULL: &str = "null is not a value: leave the key out to take its default";

/// `deserialize_with` of a key with a default: anything but `null`.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<T, D::Error> {
    Option::<T>::deserialize(deserializer)?.ok_or_else(|| D::Error::custom(NULL))
}

/// `deserialize_with` of an optional key: absent is `None`, `null` an error.
fn some<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    present(deserializer).map(Some)
}

fn one() -> f32 {
    1.0
}
fn yes() -> bool {
    true
}
fn all_layers() -> u32 {
    ALL_LAYERS
}
fn category_one() -> u32 {
    1
}

/// A count from the file as `usize`, saturating (builders cap it).
fn count(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

impl ShapeSpec {
    fn key(&self) -> &'static str {
        match self {
            ShapeSpec::Box(_) => "box",
            ShapeSpec::Grid(_) => "grid",
            ShapeSpec::Wheel(_) => "wheel",
            ShapeSpec::Blob(_) => "blob",
            ShapeSpec::Rope(_) => "rope",
        }
    }

    fn array(&self) -> Option<&ArraySpec> {
        match self {
            ShapeSpec::Box(s) => s.array.as_ref(),
            ShapeSpec::Grid(s) => s.array.as_ref(),
            ShapeSpec::Wheel(s) => s.array.as_ref(),
            ShapeSpec::Blob(s) => s.array.as_ref(),
            ShapeSpec::Rope(s) => s.array.as_ref(),
        }
    }

    /// Points one copy asks for, saturating.
    fn points_per_copy(&self) -> u128 {
        match self {
            ShapeSpec::Box(_) => 4,
            ShapeSpec::Grid(s) => {
                (s.cells.0[0] as u128 + 1).saturating_mul(s.cells.0[1] as u128 + 1)
            }
            ShapeSpec::Wheel(s) => s.n as u128 + 1,
            ShapeSpec::Blob(s) => s.n as u128 + s.center_point as u128,
            ShapeSpec::Rope(s) => s.n as u128,
        }
    }

    /// Which argument put a generated point out of the world's square:
    /// the anchor (a rope's `a` first, then its `b`) when it is out
    /// itself, else the array's spacing when the copy's offset takes the
    /// anchor out, else the extent (`size`, `cell`, `radius`).
    fn position_field(&self, offset: Vec2) -> &'static str {
        // The world's own bound (the item named is not reported).
        let inside = |p: Vec2| crate::validate::check_position(Item::Params, "pos", p).is_ok();
        let (anchor, name, extent) = match self {
            ShapeSpec::Box(s) => (v2(s.center), "center", "size"),
            ShapeSpec::Grid(s) => match (s.origin, s.center) {
                (Some(o), _) => (v2(o), "origin", "cell"),
                (None, c) => (c.map_or(Vec2::ZERO, v2), "center", "cell"),
            },
            ShapeSpec::Wheel(s) => (v2(s.center), "center", "radius"),
            ShapeSpec::Blob(s) => (v2(s.center), "center", "radius"),
            ShapeSpec::Rope(s) => {
                if !inside(v2(s.a)) {
                    return "a";
                }
                (v2(s.a), "a", "b")
            }
        };
        if !inside(anchor) {
            name
        } else if !inside(anchor + offset) {
            "array.spacing"
        } else {
            extent
        }
    }

    fn copies(&self) -> u128 {
        self.array().map_or(1, |a| {
            (a.count.0[0] as u128).saturating_mul(a.count.0[1] as u128)
        })
    }

    /// The generator's style (see the generators' `style`).
    fn style(&self) -> Result<ShapeStyle, KeyError> {
        match self {
            ShapeSpec::Box(s) => s.style(),
            ShapeSpec::Grid(s) => s.style(),
            ShapeSpec::Wheel(s) => s.style(),
            ShapeSpec::Blob(s) => s.style(),
            ShapeSpec::Rope(s) => s.style(),
        }
    }

    /// Builds copy `offset` of the shape with its `style`.
    fn build_at(
        &self,
        world: &mut World,
        offset: Vec2,
        style: ShapeStyle,
    ) -> Result<(), WorldError> {
        match self {
            ShapeSpec::Box(s) => BoxShape::new(v2(s.center) + offset, v2(s.size))
                .rotation(s.rotation)
                .diagonals(s.diagonals)
                .style(style)
                .build(world)
                .map(drop),
            ShapeSpec::Grid(s) => {
                let grid = BoxGrid::new(count(s.cells.0[0]), count(s.cells.0[1]), v2(s.cell))
                    .rotation(s.rotation)
                    .diagonals(s.diagonals)
                    .style(style);
                let grid = match s.origin {
                    Some(o) => grid.origin(v2(o) + offset),
                    None => grid.center(s.center.map_or(Vec2::ZERO, v2) + offset),
                };
                grid.build(world).map(drop)
            }
            ShapeSpec::Wheel(s) => {
                let mut w = Wheel::new(v2(s.center) + offset, s.radius, count(s.n))
                    .rotation(s.rotation)
                    .style(style);
                w.hub_mass = s.hub_mass;
                w.build(world).map(drop)
            }
            ShapeSpec::Blob(s) => Blob::new(v2(s.center) + offset, s.radius, count(s.n))
                .rotation(s.rotation)
                .center_point(s.center_point)
                .style(style)
                .build(world)
                .map(drop),
            ShapeSpec::Rope(s) => Rope::new(v2(s.a) + offset, v2(s.b) + offset, count(s.n))
                .pin_first(s.pin_first)
                .pin_last(s.pin_last)
                .style(style)
                .build(world)
                .map(drop),
        }
    }

    /// The JSON name of a builder's argument or of a field of an item it
    /// creates, for error paths; `base` is the number of points in the
    /// world before the builder ran, `offset` the copy's offset.
    fn json_field(&self, e: &WorldError, base: usize, offset: Vec2) -> Option<String> {
        let (item, field) = item_field(e);
        let field = field?;
        // Builder arguments are spelt `Builder.argument`.
        if let Some((_, arg)) = field.split_once('.') {
            return Some(match arg {
                "nx" => "cells[0]".into(),
                "ny" => "cells[1]".into(),
                "anchor" => match self {
                    ShapeSpec::Grid(g) if g.origin.is_some() => "origin".into(),
                    _ => "center".into(),
                },
                "n" if matches!(self, ShapeSpec::Grid(_)) => "cells".into(),
                other => other.to_string(),
            });
        }
        Some(match (item, field) {
            (Some(Item::Point(_)), "pos") => self.position_field(offset).into(),
            // A wheel's points are its `n` rim points, then the hub.
            (Some(Item::Point(p)), "mass")
                if matches!(self, ShapeSpec::Wheel(w)
                    if (p as usize).checked_sub(base) == Some(count(w.n))) =>
            {
                "hub_mass".into()
            }
            (Some(Item::Point(_)), f) => f.into(),
            (Some(Item::Spring(_)), "rest_length") => return None,
            (Some(Item::Spring(_)), f) => format!("spring_{f}"),
            (Some(Item::Body(_)), "inflation") => "inflation".into(),
            (Some(Item::Body(_)), f) => format!("body_{f}"),
            (_, f) => f.into(),
        })
    }
}

/// The item and field a world error names, where it names them.
fn item_field(e: &WorldError) -> (Option<Item>, Option<&'static str>) {
    match e {
        WorldError::IndexOutOfRange { item, field, .. }
        | WorldError::NonFinite { item, field }
        | WorldError::Negative { item, field, .. }
        | WorldError::OutOfRange { item, field, .. } => (Some(*item), Some(field)),
        WorldError::ZeroLengthSpring { item, .. }
        | WorldError::SelfSpring { item, .. }
        | WorldError::DegenerateBody { item, .. }
        | WorldError::ZeroNormal { item }
        | WorldError::UnknownHandle { item, .. }
        | WorldError::NotPinned { item, .. } => (Some(*item), None),
        _ => (None, None),
    }
}

/// A world error's message without its leading item (`spring 12: `): the
/// JSON path says where, and world indices of listed items need not match
/// the file's (generated springs come first, material 0 is implicit).
fn describe(e: &WorldError) -> String {
    let text = e.to_string();
    match item_field(e).0 {
        Some(item) => text
            .strip_prefix(&format!("{item}: "))
            .map_or(text.clone(), str::to_string),
        None => text,
    }
}

/// The JSON path of a world error about the listed item at `path`.
fn at(path: String, e: WorldError) -> SceneError {
    let field = match item_field(&e).1 {
        Some("gravity.x") => Some("gravity[0]"),
        Some("gravity.y") => Some("gravity[1]"),
        f => f,
    };
    match field {
        Some(f) => SceneError::new(format!("{path}.{f}"), describe(&e)),
        None => SceneError::new(path, describe(&e)),
    }
}

impl Scene {
    /// Parses a scene from JSON text. Errors name the JSON path, and the
    /// line and column in the message.
    pub fn parse(json: &str) -> Result<Self, SceneError> {
        let de = &mut serde_json::Deserializer::from_str(json);
        let scene: Scene = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
            // The path ends in `?` where serde met a key it could not read.
            let path = e.path().to_string();
            let path = path.trim_end_matches('?').trim_end_matches('.');
            let path = if path == "." { "" } else { path }.to_string();
            SceneError::new(path, e.into_inner().to_string())
        })?;
        de.end()
            .map_err(|e| SceneError::new("", format!("after the scene: {e}")))?;
        Ok(scene)
    }

    /// Reads and parses a scene file of at most [`MAX_SCENE_BYTES`].
    pub fn load(path: &Path) -> Result<Self, SceneError> {
        Self::parse(&read_text(path, MAX_SCENE_BYTES)?)
    }

    /// The parameters: the file's, over the defaults, checked
    /// ([`Params::validate`]); `shape_frequency` and `shape_damping_ratio`
    /// are converted to `shape_stiffness` and `shape_damping`. The error's
    /// path names the key at fault (`params.shape_frequency`).
    pub fn params(&self) -> Result<Params, SceneError> {
        let p = &self.params;
        let d = Params::default();
        let (shape_stiffness, shape_damping) = Stiffness {
            rate: p.shape_stiffness,
            damping: p.shape_damping,
            hz: p.shape_frequency,
            ratio: p.shape_damping_ratio,
        }
        .resolve(SHAPE_KEYS, DEFAULT_SHAPE.damping_ratio, |f| {
            f.shape_stiffness()
        })
        .map_err(|(key, why)| SceneError::new(format!("params.{key}"), why))?;
        let (area_stiffness, _) = Stiffness {
            rate: p.area_stiffness,
            damping: None,
            hz: p.area_frequency,
            ratio: None,
        }
        .resolve(AREA_KEYS, 0.0, |f| f.shape_stiffness())
        .map_err(|(key, why)| SceneError::new(format!("params.{key}"), why))?;
        let params = Params {
            dt: p.dt.unwrap_or(d.dt),
            substeps: p.substeps.unwrap_or(d.substeps),
            gravity: p.gravity.map_or(d.gravity, v2),
            point_radius: p.point_radius.unwrap_or(d.point_radius),
            elasticity: p.elasticity.unwrap_or(d.elasticity),
            friction: p.friction.unwrap_or(d.friction),
            static_friction: p.static_friction.unwrap_or(d.static_friction),
            dynamic_friction: p.dynamic_friction.unwrap_or(d.dynamic_friction),
            restitution_threshold: p.restitution_threshold.unwrap_or(d.restitution_threshold),
            spring_stiffness: p.spring_stiffness.unwrap_or(d.spring_stiffness),
            spring_damping: p.spring_damping.unwrap_or(d.spring_damping),
            shape_stiffness: shape_stiffness.unwrap_or(d.shape_stiffness),
            shape_damping: shape_damping.unwrap_or(d.shape_damping),
            area_stiffness: area_stiffness.unwrap_or(d.area_stiffness),
            rod_iterations: p.rod_iterations.unwrap_or(d.rod_iterations),
            body_collisions: p.body_collisions.unwrap_or(d.body_collisions),
            contact_iterations: p.contact_iterations.unwrap_or(d.contact_iterations),
            contact_relax_iterations: p
                .contact_relax_iterations
                .unwrap_or(d.contact_relax_iterations),
            collision_cell: p.collision_cell.or(d.collision_cell),
            sleep_speed: p.sleep_speed.unwrap_or(d.sleep_speed),
            sleep_time: p.sleep_time.unwrap_or(d.sleep_time),
            wake_speed: p.wake_speed.unwrap_or(d.wake_speed),
        };
        params.validate().map_err(|e| at("params".into(), e))?;
        Ok(params)
    }

    /// Points the scene asks for in all, saturating.
    pub fn total_points(&self) -> u128 {
        self.shapes.iter().fold(self.points.len() as u128, |n, s| {
            n.saturating_add(s.points_per_copy().saturating_mul(s.copies()))
        })
    }

    /// Where most of the scene's points come from, for the error of a scene
    /// over the limit: the generator that asks for the most, or the listed
    /// points where they are more (`points`).
    fn largest_source(&self) -> String {
        let (k, worst) = self
            .shapes
            .iter()
            .enumerate()
            .map(|(k, s)| (k, s.points_per_copy().saturating_mul(s.copies())))
            .max_by_key(|&(_, n)| n)
            .unwrap_or((0, 0));
        if worst > self.points.len() as u128 {
            format!("shapes[{k}]")
        } else {
            "points".into()
        }
    }

    /// Builds the world: parameters, materials, planets, planes, points,
    /// then the generators in order, then springs and bodies (which may
    /// refer to generated points).
    pub fn build(&self) -> Result<World, SceneError> {
        let params = self.params()?;
        let total = self.total_points();
        if total > MAX_SCENE_POINTS as u128 {
            return Err(SceneError::new(
                self.largest_source(),
                format!(
                    "the scene asks for {total} points in all, more than the limit of {MAX_SCENE_POINTS}"
                ),
            ));
        }
        let mut world = World::new(params);
        for (i, m) in self.materials.iter().enumerate() {
            world
                .add_material(Material {
                    elasticity: m.elasticity,
                    friction: m.friction,
                    static_friction: m.static_friction,
                    dynamic_friction: m.dynamic_friction,
                })
                .map_err(|e| at(format!("materials[{i}]"), e))?;
        }
        for (i, p) in self.planets.iter().enumerate() {
            world
                .add_planet(Planet {
                    layers: p.layers,
                    ..Planet::new(v2(p.center), p.radius)
                })
                .map_err(|e| at(format!("planets[{i}]"), e))?;
        }
        for (i, p) in self.planes.iter().enumerate() {
            world
                .add_plane(HalfPlane {
                    layers: p.layers,
                    ..HalfPlane::new(v2(p.normal), p.offset)
                })
                .map_err(|e| at(format!("planes[{i}]"), e))?;
        }
        for (i, p) in self.points.iter().enumerate() {
            world
                .add_point(
                    Point::new(v2(p.pos))
                        .vel(v2(p.vel))
                        .mass(p.mass)
                        .material(MaterialHandle(p.material))
                        .layers(p.layers),
                )
                .map_err(|e| at(format!("points[{i}]"), e))?;
        }
        for (k, shape) in self.shapes.iter().enumerate() {
            let path = format!("shapes[{k}].{}", shape.key());
            let style = shape
                .style()
                .map_err(|(key, why)| SceneError::new(format!("{path}.{key}"), why))?;
            let (counts, spacing) = shape
                .array()
                .map_or(([1, 1], Vec2::ZERO), |a| (a.count.0, v2(a.spacing)));
            if let ShapeSpec::Grid(GridSpec {
                center: Some(_),
                origin: Some(_),
                ..
            }) = shape
            {
                return Err(SceneError::new(
                    format!("{path}.origin"),
                    "give `center` or `origin`, not both",
                ));
            }
            if !spacing.is_finite() {
                return Err(SceneError::new(
                    format!("{path}.array.spacing"),
                    "is not finite (NaN or infinite)",
                ));
            }
            let build = |world: &mut World, offset: Vec2, copy: String| {
                let base = world.points().len();
                shape.build_at(world, offset, style).map_err(|e| {
                    let path = match shape.json_field(&e, base, offset) {
                        Some(f) => format!("{path}.{f}"),
                        None => path.clone(),
                    };
                    SceneError::new(path, format!("{}{copy}", describe(&e)))
                })
            };
            if shape.copies() == 0 {
                // It generates nothing, but its arguments are checked like
                // those of any other entry: one copy built aside (the
                // limit above did not count it).
                let per_copy = shape.points_per_copy();
                if per_copy > MAX_SCENE_POINTS as u128 {
                    return Err(SceneError::new(
                        path,
                        format!(
                            "one copy asks for {per_copy} points, more than the limit of {MAX_SCENE_POINTS}"
                        ),
                    ));
                }
                build(
                    &mut world.clone(),
                    Vec2::ZERO,
                    " (in the copy checked: the array makes none)".into(),
                )?;
                continue;
            }
            for j in 0..counts[1] {
                for i in 0..counts[0] {
                    let offset = Vec2::new(i as f32, j as f32) * spacing;
                    let copy = if shape.array().is_some() {
                        format!(" (copy [{i}, {j}] of the array)")
                    } else {
                        String::new()
                    };
                    build(&mut world, offset, copy)?;
                }
            }
        }
        let n = world.points().len() as u32;
        let check_index = |path: String, index: u32| {
            if index >= n {
                Err(SceneError::new(
                    path,
                    format!("point index {index} is out of range: the scene has {n} points"),
                ))
            } else {
                Ok(())
            }
        };
        for (i, s) in self.springs.iter().enumerate() {
            check_index(format!("springs[{i}].a"), s.a)?;
            check_index(format!("springs[{i}].b"), s.b)?;
            world
                .add_spring(Spring {
                    rest_length: s.rest_length,
                    stiffness: s.stiffness,
                    damping: s.damping,
                    ..Spring::new(PointHandle(s.a), PointHandle(s.b)).kind(s.kind.into())
                })
                .map_err(|e| at(format!("springs[{i}]"), e))?;
        }
        let handles = |indices: &[u32]| -> Vec<PointHandle> {
            indices.iter().map(|&p| PointHandle(p)).collect()
        };
        for (i, b) in self.bodies.iter().enumerate() {
            for (k, &p) in b.points.iter().enumerate() {
                check_index(format!("bodies[{i}].points[{k}]"), p)?;
            }
            for (k, &p) in b.boundary.iter().flatten().enumerate() {
                check_index(format!("bodies[{i}].boundary[{k}]"), p)?;
            }
            let body = Body {
                rest: b.rest.as_ref().map(|r| r.iter().copied().map(v2).collect()),
                stiffness: b.stiffness,
                damping: b.damping,
                area_stiffness: b.area_stiffness,
                inflation: b.inflation,
                boundary: b.boundary.as_deref().map(handles),
                material: MaterialHandle(b.material),
                category: b.category,
                mask: b.mask,
                ..Body::new(handles(&b.points))
            };
            world.add_body(body).map_err(|e| match &e {
                // A degenerate body names no field; its reason says which.
                WorldError::DegenerateBody { reason, .. } => {
                    let field = if reason.starts_with("boundary") {
                        "boundary"
                    } else if reason.starts_with("rest shape") && b.rest.is_some() {
                        "rest"
                    } else {
                        // A point listed twice, fewer than 2 points, or
                        // (with no `rest`) points that all coincide.
                        "points"
                    };
                    SceneError::new(format!("bodies[{i}].{field}"), describe(&e))
                }
                _ => at(format!("bodies[{i}]"), e),
            })?;
        }
        Ok(world)
    }
}

/// The text of the file at `path`, reading at most `limit` bytes of it: a
/// longer file is refused (at once where its length is known), and so is
/// a NUL byte (`/dev/zero`), which JSON does not allow anywhere.
fn read_text(path: &Path, limit: u64) -> Result<String, SceneError> {
    use std::io::Read;
    let cannot =
        |why: String| SceneError::new("", format!("cannot read {}: {why}", path.display()));
    let too_long = || {
        cannot(format!(
            "it is longer than the limit of {limit} bytes for a scene file"
        ))
    };
    let mut file = std::fs::File::open(path).map_err(|e| cannot(e.to_string()))?;
    if file
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() > limit)
    {
        return Err(too_long());
    }
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let k = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(k) => k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(cannot(e.to_string())),
        };
        if (bytes.len() + k) as u64 > limit {
            return Err(too_long());
        }
        if let Some(i) = chunk[..k].iter().position(|&b| b == 0) {
            return Err(cannot(format!(
                "byte {} is NUL: it is not JSON text",
                bytes.len() + i
            )));
        }
        bytes.extend_from_slice(&chunk[..k]);
    }
    String::from_utf8(bytes)
        .map_err(|e| cannot(format!("it is not UTF-8 text: {}", e.utf8_error())))
}

/// Parses and builds a scene file.
pub fn load_world(path: &Path) -> Result<World, SceneError> {
    Scene::load(path)?.build()
}

#[cfg(test)]
mod tests {
    use super::{Scene, read_text};

    /// A scene over the point limit names where most of its points come
    /// from: the listed points are named whenever they are the most, even
    /// when a generator made some too. (At the real limit, this takes 2^24
    /// listed points.)
    #[test]
    fn the_largest_source_of_points_is_blamed() {
        let points = |n: usize| vec![r#"{"pos": [0, 0]}"#; n].join(", ");
        let boxes = r#"{"box": {"center": [0, 0], "size": [1, 1], "array": {"count": [2, 1], "spacing": [2, 0]}}}"#;
        let wheel = r#"{"wheel": {"center": [0, 0], "radius": 1, "n": 8}}"#;
        for (listed, source) in [(9, "points"), (8, "shapes[1]"), (0, "shapes[1]")] {
            let json = format!(
                r#"{{"points": [{}], "shapes": [{boxes}, {wheel}]}}"#,
                points(listed)
            );
            let scene = Scene::parse(&json).unwrap();
            assert_eq!(scene.largest_source(), source, "{listed} points listed");
        }
    }

    /// A scene file is read up to a limit: it was read whole, so
    /// `--scene /dev/zero` read until memory ran out.
    #[test]
    fn a_scene_file_is_read_up_to_a_limit() {
        let d = std::env::temp_dir().join(format!("softbody-scene-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let path = d.join("s.json");
        std::fs::write(&path, "[1, 2, 3]\n").unwrap();
        assert_eq!(read_text(&path, 10).unwrap(), "[1, 2, 3]\n");
        let e = read_text(&path, 9).unwrap_err().to_string();
        assert!(e.contains("s.json"), "{e}");
        assert!(e.contains("limit of 9 bytes"), "{e}");
        // A stream, whose length is not known up front.
        #[cfg(unix)]
        {
            let fifo = d.join("fifo");
            if std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .is_ok_and(|s| s.success())
            {
                let writer = {
                    let fifo = fifo.clone();
                    std::thread::spawn(move || {
                        use std::io::Write;
                        let mut f = std::fs::OpenOptions::new().write(true).open(fifo)?;
                        // Far more than the limit; the reader stops early.
                        for _ in 0..1000 {
                            f.write_all(&[b' '; 1000])?;
                        }
                        Ok::<_, std::io::Error>(())
                    })
                };
                let e = read_text(&fifo, 4096).unwrap_err().to_string();
                assert!(e.contains("limit of 4096 bytes"), "{e}");
                // The writer sees the reader gone (a broken pipe).
                assert!(writer.join().unwrap().is_err());
            }
        }
        if std::path::Path::new("/dev/zero").exists() {
            let e = read_text("/dev/zero".as_ref(), 1 << 20).unwrap_err();
            assert!(e.to_string().contains("byte 0 is NUL"), "{e}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
