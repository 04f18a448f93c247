//! Builders for the shapes users make all the time: a box, a grid of boxes
//! sharing corners (the modular spaceships of Lisitsa 2023), a wheel, a round
//! blob and a rope.
//!
//! Every builder is a `#[must_use]` value with documented defaults. Its
//! `build` adds points, springs and bodies to a [`World`] and returns their
//! handles as a [`Shape`]. Look and feel shared by all builders (mass,
//! material, layers, collision category and mask, initial velocity, body
//! and spring settings) lives in a [`ShapeStyle`]; each builder has the
//! style's setters too, so
//! `BoxShape::new(c, s).mass(2.0)` and
//! `BoxShape::new(c, s).style(ShapeStyle::new().mass(2.0))` are the same.
//!
//! A builder adds its items with the world's own `add_*` calls, in one
//! [`World::transaction`]: when `build` fails, the world is truncated back
//! to what it was. Errors about an item the builder creates are the world's
//! own, with that item's index (`point 12: mass is negative`). Errors about
//! a builder's own arguments (counts, sizes, radii) name the first point the
//! builder would have created, and spell the field `Builder.argument`, e.g.
//! `BoxGrid.nx`.
//!
//! Polygons are counter-clockwise in the usual y-up frame (positive signed
//! area), rotations are counter-clockwise in radians. Every body's outline
//! in body-body collisions ([`Body::outline`]) is such a polygon: a box's
//! or a grid cell's 4 corners, a blob's perimeter, a wheel's rim (the hub
//! or centre point is inside, left out of the outline by an explicit
//! `Body::boundary`).

use glam::Vec2;

use crate::error::{Item, WorldError};
use crate::frequency::Frequency;
use crate::world::{
    ALL_LAYERS, Body, BodyHandle, MaterialHandle, Point, PointHandle, Spring, SpringHandle,
    SpringKind, World,
};

/// Most points one builder call may create (2^24, about 16.7 million). A
/// larger request fails with [`WorldError::TooMany`] before anything is
/// allocated.
pub const MAX_SHAPE_POINTS: u64 = 1 << 24;

/// The handles of everything one builder added, in the order documented by
/// the builder.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// The points.
    pub points: Vec<PointHandle>,
    /// The springs (empty when the style has springs off).
    pub springs: Vec<SpringHandle>,
    /// The shape-matched bodies.
    pub bodies: Vec<BodyHandle>,
}

/// Settings shared by every shape builder.
///
/// | field | default |
/// |---|---|
/// | `mass` (of each point) | `1.0` kg |
/// | `material` (of each point and body) | `MaterialHandle(0)`, which follows [`Params`](crate::Params) |
/// | `layers` (of each point, against planets and planes) | [`ALL_LAYERS`] |
/// | `category` (of each body, in body-body collisions) | `1` |
/// | `mask` (of each body, in body-body collisions) | [`ALL_LAYERS`] |
/// | `vel` (of each point) | zero |
/// | `body_stiffness`, `body_damping` | `None`: the [`Params`](crate::Params) defaults |
/// | `body_area_stiffness` | `None`: the [`Params`](crate::Params) default, at most the body's shape stiffness |
/// | `inflation` (target area over rest area of each body) | `1` |
/// | `springs` | `true`: add the builder's springs |
/// | `spring_kind` | [`SpringKind::Spring`] |
/// | `spring_stiffness`, `spring_damping` | `None`: the [`Params`](crate::Params) defaults |
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeStyle {
    /// Mass of each point in kg, `>= 0` (`0` pins).
    pub mass: f32,
    /// Contact material of each point (against planets and planes) and of
    /// each body (in body-body contacts, `Body::material`).
    pub material: MaterialHandle,
    /// Collision layers of each point, against planets and planes.
    pub layers: u32,
    /// Collision category bits of each body, `Body::category`: two bodies
    /// collide only when each one's `mask` has a bit of the other's
    /// `category`.
    pub category: u32,
    /// The categories each body collides with, `Body::mask`.
    pub mask: u32,
    /// Initial velocity of each point, in m/s.
    pub vel: Vec2,
    /// Shape-matching stiffness of the bodies; `None` follows
    /// [`Params::shape_stiffness`](crate::Params::shape_stiffness)
    /// (split between bodies that share points, see [`Body::stiffness`]).
    pub body_stiffness: Option<f32>,
    /// Damping toward rigid motion of the bodies; `None` follows
    /// [`Params::shape_damping`](crate::Params::shape_damping).
    pub body_damping: Option<f32>,
    /// Area stiffness of the bodies ([`Body::area_stiffness`]); `None`
    /// follows [`Params::area_stiffness`](crate::Params::area_stiffness),
    /// at most the body's shape stiffness.
    pub body_area_stiffness: Option<f32>,
    /// Target area over rest area of the bodies ([`Body::inflation`]): a
    /// ring with springs, a low `body_stiffness` and an inflation above 1
    /// is a balloon.
    pub inflation: f32,
    /// Whether to add the builder's springs at all; bodies alone keep a
    /// shape too, springs make it stiffer against shear and stretch.
    pub springs: bool,
    /// Gravity scale of each point ([`Point::gravity_scale`]).
    pub gravity_scale: f32,
    /// Kind of every spring.
    pub spring_kind: SpringKind,
    /// Stiffness of every spring; `None` follows
    /// [`Params::spring_stiffness`](crate::Params::spring_stiffness).
    pub spring_stiffness: Option<f32>,
    /// Damping of every spring; `None` follows
    /// [`Params::spring_damping`](crate::Params::spring_damping).
    pub spring_damping: Option<f32>,
}

impl Default for ShapeStyle {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl ShapeStyle {
    /// The defaults listed on [`ShapeStyle`].
    pub const DEFAULT: ShapeStyle = ShapeStyle {
        mass: 1.0,
        material: MaterialHandle(0),
        layers: ALL_LAYERS,
        category: 1,
        mask: ALL_LAYERS,
        vel: Vec2::ZERO,
        body_stiffness: None,
        body_damping: None,
        body_area_stiffness: None,
        inflation: 1.0,
        springs: true,
        gravity_scale: 1.0,
        spring_kind: SpringKind::Spring,
        spring_stiffness: None,
        spring_damping: None,
    };

    /// The defaults.
    pub fn new() -> Self {
        Self::DEFAULT
    }
    /// With this mass per point (`0` pins every point).
    pub fn mass(mut self, mass: f32) -> Self {
        self.mass = mass;
        self
    }
    /// With this material.
    pub fn material(mut self, material: MaterialHandle) -> Self {
        self.material = material;
        self
    }
    /// With this gravity scale for every point ([`Point::gravity_scale`]:
    /// `0` floats).
    pub fn gravity_scale(mut self, scale: f32) -> Self {
        self.gravity_scale = scale;
        self
    }
    /// With these collision layers (points against planets and planes).
    pub fn layers(mut self, layers: u32) -> Self {
        self.layers = layers;
        self
    }
    /// With these collision category bits for the bodies.
    pub fn category(mut self, category: u32) -> Self {
        self.category = category;
        self
    }
    /// With this collision mask for the bodies.
    pub fn mask(mut self, mask: u32) -> Self {
        self.mask = mask;
        self
    }
    /// With this initial velocity for every point.
    pub fn vel(mut self, vel: Vec2) -> Self {
        self.vel = vel;
        self
    }
    /// With this body stiffness, in 1/s^2.
    pub fn body_stiffness(mut self, k: f32) -> Self {
        self.body_stiffness = Some(k);
        self
    }
    /// With this body damping, in 1/s.
    pub fn body_damping(mut self, c: f32) -> Self {
        self.body_damping = Some(c);
        self
    }
    /// With or without springs.
    pub fn springs(mut self, on: bool) -> Self {
        self.springs = on;
        self
    }
    /// With springs of this kind.
    pub fn spring_kind(mut self, kind: SpringKind) -> Self {
        self.spring_kind = kind;
        self
    }
    /// With this spring stiffness (N/m for springs, 1/s for soft constraints).
    pub fn spring_stiffness(mut self, k: f32) -> Self {
        self.spring_stiffness = Some(k);
        self
    }
    /// With this spring damping, in 1/s.
    pub fn spring_damping(mut self, c: f32) -> Self {
        self.spring_damping = Some(c);
        self
    }
    /// With this area stiffness of the bodies, in 1/s^2.
    pub fn body_area_stiffness(mut self, k: f32) -> Self {
        self.body_area_stiffness = Some(k);
        self
    }
    /// With this inflation (target area over rest area) of the bodies.
    pub fn inflation(mut self, ratio: f32) -> Self {
        self.inflation = ratio;
        self
    }
    /// With the bodies' stiffness and damping from a frequency and damping
    /// ratio ([`Frequency::shape_stiffness`], [`Frequency::damping_rate`]).
    pub fn body_frequency(mut self, f: Frequency) -> Self {
        self.body_stiffness = Some(f.shape_stiffness());
        self.body_damping = Some(f.damping_rate());
        self
    }
    /// With the springs' stiffness and damping from a frequency and
    /// damping ratio, for two points of this style's `mass`
    /// ([`Frequency::spring_stiffness`]): set the mass first.
    pub fn spring_frequency(mut self, f: Frequency) -> Self {
        self.spring_stiffness = Some(f.spring_stiffness(self.mass, self.mass));
        self.spring_damping = Some(f.damping_rate());
        self
    }
}

/// The [`ShapeStyle`] setters, forwarded on a builder with a `style` field.
macro_rules! style_setters {
    () => {
        /// With this whole style.
        pub fn style(mut self, style: ShapeStyle) -> Self {
            self.style = style;
            self
        }
        /// See [`ShapeStyle::mass`].
        pub fn mass(mut self, mass: f32) -> Self {
            self.style = self.style.mass(mass);
            self
        }
        /// See [`ShapeStyle::material`].
        pub fn material(mut self, material: MaterialHandle) -> Self {
            self.style = self.style.material(material);
            self
        }
        /// See [`ShapeStyle::layers`].
        pub fn layers(mut self, layers: u32) -> Self {
            self.style = self.style.layers(layers);
            self
        }
        /// See [`ShapeStyle::category`].
        pub fn category(mut self, category: u32) -> Self {
            self.style = self.style.category(category);
            self
        }
        /// See [`ShapeStyle::mask`].
        pub fn mask(mut self, mask: u32) -> Self {
            self.style = self.style.mask(mask);
            self
        }
        /// See [`ShapeStyle::vel`].
        pub fn vel(mut self, vel: Vec2) -> Self {
            self.style = self.style.vel(vel);
            self
        }
        /// See [`ShapeStyle::body_stiffness`].
        pub fn body_stiffness(mut self, k: f32) -> Self {
            self.style = self.style.body_stiffness(k);
            self
        }
        /// See [`ShapeStyle::body_damping`].
        pub fn body_damping(mut self, c: f32) -> Self {
            self.style = self.style.body_damping(c);
            self
        }
        /// See [`ShapeStyle::springs`].
        pub fn springs(mut self, on: bool) -> Self {
            self.style = self.style.springs(on);
            self
        }
        /// See [`ShapeStyle::spring_kind`].
        pub fn spring_kind(mut self, kind: SpringKind) -> Self {
            self.style = self.style.spring_kind(kind);
            self
        }
        /// See [`ShapeStyle::spring_stiffness`].
        pub fn spring_stiffness(mut self, k: f32) -> Self {
            self.style = self.style.spring_stiffness(k);
            self
        }
        /// See [`ShapeStyle::body_frequency`].
        pub fn body_frequency(mut self, f: Frequency) -> Self {
            self.style = self.style.body_frequency(f);
            self
        }
        /// See [`ShapeStyle::spring_frequency`].
        pub fn spring_frequency(mut self, f: Frequency) -> Self {
            self.style = self.style.spring_frequency(f);
            self
        }
        /// See [`ShapeStyle::spring_damping`].
        pub fn spring_damping(mut self, c: f32) -> Self {
            self.style = self.style.spring_damping(c);
            self
        }
        /// See [`ShapeStyle::body_area_stiffness`].
        pub fn body_area_stiffness(mut self, k: f32) -> Self {
            self.style = self.style.body_area_stiffness(k);
            self
        }
        /// See [`ShapeStyle::inflation`].
        pub fn inflation(mut self, ratio: f32) -> Self {
            self.style = self.style.inflation(ratio);
            self
        }
    };
}

// ---------------------------------------------------------------------------
// Argument checks. Builder arguments have no item of their own: they name the
// first point the builder would create.

fn first_point(world: &World) -> Item {
    Item::Point(world.points().len() as u32)
}

fn arg_finite(world: &World, field: &'static str, v: f32) -> Result<(), WorldError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(WorldError::NonFinite {
            item: first_point(world),
            field,
        })
    }
}

fn arg_vec(world: &World, field: &'static str, v: Vec2) -> Result<(), WorldError> {
    arg_finite(world, field, v.x)?;
    arg_finite(world, field, v.y)
}

fn arg_positive(world: &World, field: &'static str, v: f32) -> Result<(), WorldError> {
    arg_finite(world, field, v)?;
    if v > 0.0 {
        Ok(())
    } else {
        Err(WorldError::OutOfRange {
            item: first_point(world),
            field,
            value: v as f64,
            expected: "> 0",
        })
    }
}

fn arg_size(world: &World, field: &'static str, v: Vec2) -> Result<(), WorldError> {
    arg_positive(world, field, v.x)?;
    arg_positive(world, field, v.y)
}

fn arg_count(
    world: &World,
    field: &'static str,
    n: usize,
    min: usize,
    expected: &'static str,
) -> Result<(), WorldError> {
    if n >= min {
        Ok(())
    } else {
        Err(WorldError::OutOfRange {
            item: first_point(world),
            field,
            value: n as f64,
            expected,
        })
    }
}

/// Refuses a request for more than [`MAX_SHAPE_POINTS`] points; callers
/// compute `count` in saturating `u128`, so that no request overflows.
fn cap_points(what: &'static str, count: u128) -> Result<usize, WorldError> {
    if count > MAX_SHAPE_POINTS as u128 {
        return Err(WorldError::TooMany {
            what,
            count: count.min(u64::MAX as u128) as u64,
            limit: MAX_SHAPE_POINTS,
        });
    }
    Ok(count as usize)
}

mod add;
mod boxes;
mod rope;
mod round;

use add::*;
pub use boxes::*;
pub use rope::*;
pub use round::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_build_leaves_world_unchanged() {
        let mut world = World::default();
        BoxShape::new(Vec2::ZERO, Vec2::ONE)
            .build(&mut world)
            .unwrap();
        let before = world.clone();
        let err = BoxGrid::new(2, 2, Vec2::ONE)
            .mass(-1.0)
            .build(&mut world)
            .unwrap_err();
        assert!(matches!(
            err,
            WorldError::Negative {
                item: Item::Point(4),
                field: "mass",
                ..
            }
        ));
        let err = Rope::new(Vec2::ONE, Vec2::ONE, 3)
            .build(&mut world)
            .unwrap_err();
        assert_eq!(
            err,
            WorldError::ZeroLengthSpring {
                item: Item::Spring(6),
                a: 4,
                b: 5
            }
        );
        let err = Blob::new(Vec2::ZERO, 1.0, 8)
            .material(MaterialHandle(7))
            .build(&mut world)
            .unwrap_err();
        assert!(matches!(
            err,
            WorldError::IndexOutOfRange {
                field: "material",
                ..
            }
        ));
        assert_eq!(world, before);
    }

    #[test]
    fn masses_the_world_refuses_are_refused_before_anything_is_added() {
        let mut world = World::default();
        BoxShape::new(Vec2::ZERO, Vec2::ONE)
            .build(&mut world)
            .unwrap();
        let before = world.clone();
        for mass in [1e13, 1e-13, -1.0, f32::INFINITY] {
            // The world's own error for the hub, point 4 + 8.
            let mut direct = world.clone();
            for _ in 0..8 {
                direct.add_point(Point::new(Vec2::ZERO)).unwrap();
            }
            let expected = direct
                .add_point(Point::new(Vec2::ZERO).mass(mass))
                .unwrap_err();
            assert!(matches!(
                expected,
                WorldError::NonFinite {
                    item: Item::Point(12),
                    ..
                } | WorldError::Negative {
                    item: Item::Point(12),
                    ..
                } | WorldError::OutOfRange {
                    item: Item::Point(12),
                    ..
                }
            ));
            let err = Wheel::new(Vec2::new(3.0, 0.0), 1.0, 8)
                .hub_mass(mass)
                .build(&mut world)
                .unwrap_err();
            assert_eq!(err, expected);
            assert_eq!(world, before, "hub mass {mass}");
            // A rope's pinned ends are fine; its other points have the style's.
            let err = Rope::new(Vec2::ZERO, Vec2::ONE, 3)
                .pin_first(true)
                .mass(mass)
                .build(&mut world)
                .unwrap_err();
            assert!(format!("{err}").starts_with("point 5: mass"), "{err}");
            assert_eq!(world, before, "rope mass {mass}");
        }
        Wheel::new(Vec2::new(3.0, 0.0), 1.0, 8)
            .hub_mass(1e12)
            .build(&mut world)
            .unwrap();
    }

    #[test]
    fn ring_angles_are_ccw() {
        let mut world = World::default();
        let s = Blob::new(Vec2::ZERO, 1.0, 4).build(&mut world).unwrap();
        let p: Vec<Vec2> = s.points.iter().map(|&h| world.point(h).pos).collect();
        assert!((p[0] - Vec2::X).length() < 1e-6);
        assert!((p[1] - Vec2::Y).length() < 1e-6);
    }
}
