//! The scene file's objects, one struct per kind of item, as serde reads
//! them.

use super::*;

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
