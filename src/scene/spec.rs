//! The scene file's objects, one struct per kind of item, as serde reads
//! them.

use super::*;

/// Declares [`ParamsSpec`] from one list of its keys, each with how it
/// enters [`Params`]: `plain` (the field of that name, when given),
/// `optional` (an `Option` field of `Params`, when given), or `resolved`
/// (by `Scene::params`: gravity's pair, and the stiffness keys, which come
/// as a rate or a frequency).
macro_rules! params_spec {
    ($($(#[$doc:meta])* $field:ident: $ty:ty => $how:ident),* $(,)?) => {
        /// `params`: every field optional.
        #[derive(Clone, Debug, Default, PartialEq, Deserialize)]
        #[serde(remote = "Self", deny_unknown_fields)]
        pub struct ParamsSpec {
            $(
                $(#[$doc])*
                #[serde(default, deserialize_with = "some")]
                pub $field: Option<$ty>,
            )*
        }

        impl ParamsSpec {
            /// Puts the `plain` and `optional` keys given into `params`.
            pub(super) fn apply_given(spec: &Self, params: &mut Params) {
                $(params_spec!(@given spec, params, $field, $how);)*
            }
        }
    };
    (@given $spec:ident, $params:ident, $field:ident, plain) => {
        if let Some(v) = $spec.$field {
            $params.$field = v;
        }
    };
    (@given $spec:ident, $params:ident, $field:ident, optional) => {
        if $spec.$field.is_some() {
            $params.$field = $spec.$field;
        }
    };
    (@given $spec:ident, $params:ident, $field:ident, resolved) => {};
}

params_spec! {
    /// Length units per metre: the defaults of the other keys that are
    /// lengths or speeds follow it (`Params::with_length_unit`).
    length_unit: f32 => resolved,
    dt: f32 => plain,
    substeps: u32 => plain,
    gravity: V2 => resolved,
    point_radius: f32 => plain,
    elasticity: f32 => plain,
    friction: f32 => plain,
    static_friction: f32 => plain,
    dynamic_friction: f32 => plain,
    restitution_threshold: f32 => plain,
    push_speed: f32 => plain,
    spring_stiffness: f32 => plain,
    spring_damping: f32 => plain,
    shape_stiffness: f32 => resolved,
    shape_damping: f32 => resolved,
    /// `shape_stiffness` as a frequency, Hz.
    shape_frequency: f32 => resolved,
    /// `shape_damping` as a damping ratio (with `shape_frequency`).
    shape_damping_ratio: f32 => resolved,
    area_stiffness: f32 => resolved,
    /// `area_stiffness` as a frequency, Hz.
    area_frequency: f32 => resolved,
    rod_iterations: u32 => plain,
    body_collisions: bool => plain,
    contact_iterations: u32 => plain,
    contact_relax_iterations: u32 => plain,
    collision_cell: f32 => optional,
    sleep_speed: f32 => plain,
    sleep_time: f32 => plain,
    wake_speed: f32 => plain,
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
    /// Its pull `G M`, m^3/s^2.
    #[serde(default, deserialize_with = "some")]
    pub gravity: Option<f32>,
    /// Its pull as the gravity at its surface, m/s^2.
    #[serde(default, deserialize_with = "some")]
    pub surface_gravity: Option<f32>,
    /// Its velocity, m/s (kinematic).
    #[serde(default, deserialize_with = "present")]
    pub velocity: V2,
    /// Its angular velocity, rad/s.
    #[serde(default, deserialize_with = "present")]
    pub spin: f32,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct PlaneSpec {
    pub normal: V2,
    pub offset: f32,
    #[serde(default = "all_layers", deserialize_with = "present")]
    pub layers: u32,
    /// Its velocity, m/s (kinematic).
    #[serde(default, deserialize_with = "present")]
    pub velocity: V2,
    /// Its angular velocity about `pivot`, rad/s.
    #[serde(default, deserialize_with = "present")]
    pub spin: f32,
    /// The point it turns about, m.
    #[serde(default, deserialize_with = "some")]
    pub pivot: Option<V2>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct TerrainSpec {
    /// The vertices, m.
    pub points: Vec<V2>,
    #[serde(default, deserialize_with = "present")]
    pub closed: bool,
    #[serde(default = "all_layers", deserialize_with = "present")]
    pub layers: u32,
    /// How deep behind a segment a point still counts as inside, m.
    #[serde(default, deserialize_with = "some")]
    pub thickness: Option<f32>,
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
    #[serde(default = "one", deserialize_with = "present")]
    pub gravity_scale: f32,
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
    /// Kinematic ([`Body::kinematic`](crate::world::Body::kinematic)):
    /// every point pinned (mass 0), moving at the points' velocities.
    #[serde(default, deserialize_with = "present")]
    pub kinematic: bool,
}

/// `joints`: a spring, a motor, an angle limit or any of them together
/// between `body` and `other` (body indices; the world when `other` is
/// left out).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct JointSpec {
    pub body: u32,
    #[serde(default, deserialize_with = "some")]
    pub other: Option<u32>,
    #[serde(default, deserialize_with = "some")]
    pub spring: Option<AngularSpringSpec>,
    #[serde(default, deserialize_with = "some")]
    pub motor: Option<MotorSpec>,
    /// `[lower, upper]`, rad.
    #[serde(default, deserialize_with = "some")]
    pub limits: Option<V2>,
}

/// A joint's `spring`: its natural frequency `hertz` (Hz), its
/// `damping_ratio` (default 1: critically damped) and its `target`
/// angle (rad, default 0).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct AngularSpringSpec {
    pub hertz: f32,
    #[serde(default = "one", deserialize_with = "present")]
    pub damping_ratio: f32,
    #[serde(default, deserialize_with = "present")]
    pub target: f32,
}

/// A joint's `motor`: its target `speed` (rad/s) and `max_torque` (N m).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct MotorSpec {
    pub speed: f32,
    pub max_torque: f32,
}

/// `kinematic`: the shape's bodies kinematic
/// ([`World::set_kinematic`](crate::world::World::set_kinematic)), moving
/// at `velocity` (m/s) and turning at `spin` (rad/s).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct KinematicSpec {
    #[serde(default, deserialize_with = "present")]
    pub velocity: V2,
    #[serde(default, deserialize_with = "present")]
    pub spin: f32,
}

/// `array`: the shape repeated `count[0] x count[1]` times, copy `(i, j)`
/// moved by `(i spacing[0], j spacing[1])`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct ArraySpec {
    pub count: Counts,
    pub spacing: V2,
}
