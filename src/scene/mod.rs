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
    ALL_LAYERS, AngularSpring, Body, BodyHandle, HalfPlane, Joint, Material, MaterialHandle, Motor,
    Planet, Point, PointHandle, Spring, SpringKind, World,
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
    TerrainSpec,
    PointSpec,
    SpringSpec,
    BodySpec,
    JointSpec,
    AngularSpringSpec,
    MotorSpec,
    ArraySpec,
    KinematicSpec,
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
    /// Terrain polylines.
    #[serde(default, deserialize_with = "present")]
    pub terrain: Vec<TerrainSpec>,
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
    /// Motors and angle limits between bodies, generated or listed
    /// ([`Joint`]).
    #[serde(default, deserialize_with = "present")]
    pub joints: Vec<JointSpec>,
}

mod build;
mod generators;
mod spec;
mod stiffness;

pub use generators::*;
pub use spec::*;
use stiffness::*;

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
        | WorldError::DegenerateTerrain { item, .. }
        | WorldError::UnknownHandle { item, .. }
        | WorldError::NotPinned { item, .. }
        | WorldError::SelfMotor { item } => (Some(*item), None),
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
        Some("lower limit") => Some("limits[0]"),
        Some("upper limit") => Some("limits[1]"),
        Some("motor speed") => Some("motor.speed"),
        Some("max torque") => Some("motor.max_torque"),
        Some("spring hertz") => Some("spring.hertz"),
        Some("spring damping ratio") => Some("spring.damping_ratio"),
        Some("spring target") => Some("spring.target"),
        f => f,
    };
    match field {
        Some(f) => SceneError::new(format!("{path}.{f}"), describe(&e)),
        None => SceneError::new(path, describe(&e)),
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
