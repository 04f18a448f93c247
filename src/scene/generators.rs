//! The shape generators of a scene (`box`, `grid`, `wheel`, `blob`,
//! `rope`) and how each maps onto its builder.

use super::*;

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
            /// Gravity scale of each point.
            #[serde(default = "one", deserialize_with = "present")]
            pub gravity_scale: f32,
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
            /// Make its bodies kinematic.
            #[serde(default, deserialize_with = "some")]
            pub kinematic: Option<KinematicSpec>,
        }

        impl $name {
            /// The style, with the stiffnesses given as frequencies
            /// converted; the error names the key at fault.
            pub(super) fn style(&self) -> Result<ShapeStyle, KeyError> {
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
                    gravity_scale: self.gravity_scale,
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

impl ShapeSpec {
    pub(super) fn key(&self) -> &'static str {
        match self {
            ShapeSpec::Box(_) => "box",
            ShapeSpec::Grid(_) => "grid",
            ShapeSpec::Wheel(_) => "wheel",
            ShapeSpec::Blob(_) => "blob",
            ShapeSpec::Rope(_) => "rope",
        }
    }

    pub(super) fn kinematic(&self) -> Option<&KinematicSpec> {
        match self {
            ShapeSpec::Box(s) => s.kinematic.as_ref(),
            ShapeSpec::Grid(s) => s.kinematic.as_ref(),
            ShapeSpec::Wheel(s) => s.kinematic.as_ref(),
            ShapeSpec::Blob(s) => s.kinematic.as_ref(),
            ShapeSpec::Rope(s) => s.kinematic.as_ref(),
        }
    }

    pub(super) fn array(&self) -> Option<&ArraySpec> {
        match self {
            ShapeSpec::Box(s) => s.array.as_ref(),
            ShapeSpec::Grid(s) => s.array.as_ref(),
            ShapeSpec::Wheel(s) => s.array.as_ref(),
            ShapeSpec::Blob(s) => s.array.as_ref(),
            ShapeSpec::Rope(s) => s.array.as_ref(),
        }
    }

    /// Points one copy asks for, saturating.
    pub(super) fn points_per_copy(&self) -> u128 {
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

    pub(super) fn copies(&self) -> u128 {
        self.array().map_or(1, |a| {
            (a.count.0[0] as u128).saturating_mul(a.count.0[1] as u128)
        })
    }

    /// The generator's style (see the generators' `style`).
    pub(super) fn style(&self) -> Result<ShapeStyle, KeyError> {
        match self {
            ShapeSpec::Box(s) => s.style(),
            ShapeSpec::Grid(s) => s.style(),
            ShapeSpec::Wheel(s) => s.style(),
            ShapeSpec::Blob(s) => s.style(),
            ShapeSpec::Rope(s) => s.style(),
        }
    }

    /// Builds copy `offset` of the shape with its `style`.
    pub(super) fn build_at(
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
    pub(super) fn json_field(&self, e: &WorldError, base: usize, offset: Vec2) -> Option<String> {
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
