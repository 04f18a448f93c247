//! Builders for the shapes users make all the time: a box, a grid of boxes
//! sharing corners (the modular spaceships of seed 001), a wheel, a round
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
//! A builder checks everything before it adds anything: when `build` fails,
//! the world is unchanged. Errors about an item the builder would create use
//! the same variant and index the world would report (`point 12: mass is
//! negative`). Errors about a builder's own arguments (counts, sizes, radii)
//! name the first point the builder would have created, and spell the field
//! `Builder.argument`, e.g. `BoxGrid.nx`.
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
    ALL_LAYERS, Body, BodyHandle, MAX_ITEMS, MaterialHandle, Point, PointHandle, Spring,
    SpringHandle, SpringKind, World,
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

/// What a builder is about to add, in indices local to the shape.
struct Plan {
    pos: Vec<Vec2>,
    /// Points whose mass differs from the style's (pinned rope ends, hub).
    mass_overrides: Vec<(u32, f32)>,
    springs: Vec<[u32; 2]>,
    bodies: Vec<PlanBody>,
}

/// A body a builder is about to add, in indices local to the shape.
struct PlanBody {
    points: Vec<u32>,
    /// Its outline when `points` in order is not one (a hub inside).
    boundary: Option<Vec<u32>>,
}

impl PlanBody {
    /// A body whose points, in order, are its outline.
    fn outlined(points: Vec<u32>) -> Self {
        Self {
            points,
            boundary: None,
        }
    }
}

impl Plan {
    fn with_points(n: usize) -> Self {
        Self {
            pos: Vec::with_capacity(n),
            mass_overrides: Vec::new(),
            springs: Vec::new(),
            bodies: Vec::new(),
        }
    }

    fn mass_of(&self, style: &ShapeStyle, k: u32) -> f32 {
        self.mass_overrides
            .iter()
            .rev()
            .find(|(i, _)| *i == k)
            .map_or(style.mass, |(_, m)| *m)
    }

    /// Everything [`World::add_point`], [`World::add_spring`] and
    /// [`World::add_body`] would check, with the indices they would report.
    fn check(&self, world: &World, style: &ShapeStyle) -> Result<(), WorldError> {
        let base_p = world.points().len() as u64;
        let base_s = world.springs().len() as u64;
        let base_b = world.bodies().len() as u64;
        for (what, base, n) in [
            ("points", base_p, self.pos.len()),
            ("springs", base_s, self.springs.len()),
            ("bodies", base_b, self.bodies.len()),
        ] {
            if base + n as u64 > MAX_ITEMS {
                return Err(WorldError::TooMany {
                    what,
                    count: base + n as u64,
                    limit: MAX_ITEMS,
                });
            }
        }
        let point = |k: usize| Item::Point((base_p + k as u64) as u32);
        if !self.pos.is_empty() {
            crate::validate::check_velocity(point(0), "vel", style.vel)?;
            if style.material.index() >= world.materials().len() {
                return Err(WorldError::IndexOutOfRange {
                    item: point(0),
                    field: "material",
                    index: style.material.0,
                    len: world.materials().len() as u32,
                });
            }
        }
        for (k, p) in self.pos.iter().enumerate() {
            crate::validate::check_position(point(k), "pos", *p)?;
            crate::validate::check_mass(point(k), self.mass_of(style, k as u32))?;
        }
        if !self.springs.is_empty() {
            let item = Item::Spring(base_s as u32);
            crate::validate::check_opt_non_negative(item, "stiffness", style.spring_stiffness)?;
            crate::validate::check_opt_non_negative(item, "damping", style.spring_damping)?;
        }
        for (k, &[a, b]) in self.springs.iter().enumerate() {
            let item = Item::Spring((base_s + k as u64) as u32);
            let d = self.pos[a as usize].distance(self.pos[b as usize]);
            // Finite and within MAX_LENGTH: the positions were checked
            // within MAX_COORD above.
            if d == 0.0 {
                return Err(WorldError::ZeroLengthSpring {
                    item,
                    a: (base_p + a as u64) as u32,
                    b: (base_p + b as u64) as u32,
                });
            }
        }
        if !self.bodies.is_empty() {
            let item = Item::Body(base_b as u32);
            crate::validate::check_opt_non_negative(item, "stiffness", style.body_stiffness)?;
            crate::validate::check_opt_non_negative(item, "damping", style.body_damping)?;
            crate::validate::check_opt_non_negative(
                item,
                "area_stiffness",
                style.body_area_stiffness,
            )?;
            crate::validate::check_inflation(item, style.inflation)?;
        }
        for (k, body) in self.bodies.iter().enumerate() {
            let first = self.pos[body.points[0] as usize];
            if body.points.iter().all(|&i| self.pos[i as usize] == first) {
                return Err(WorldError::DegenerateBody {
                    item: Item::Body((base_b + k as u64) as u32),
                    reason: "rest shape has fewer than 2 distinct positions".into(),
                });
            }
        }
        Ok(())
    }

    /// Checks, then adds everything.
    fn commit(self, world: &mut World, style: &ShapeStyle) -> Result<Shape, WorldError> {
        self.check(world, style)?;
        let mut shape = Shape {
            points: Vec::with_capacity(self.pos.len()),
            springs: Vec::with_capacity(self.springs.len()),
            bodies: Vec::with_capacity(self.bodies.len()),
        };
        for (k, &pos) in self.pos.iter().enumerate() {
            let p = Point::new(pos)
                .mass(self.mass_of(style, k as u32))
                .vel(style.vel)
                .material(style.material)
                .layers(style.layers);
            shape.points.push(world.add_point(p)?);
        }
        for &[a, b] in &self.springs {
            let s = Spring {
                stiffness: style.spring_stiffness,
                damping: style.spring_damping,
                ..Spring::new(shape.points[a as usize], shape.points[b as usize])
                    .kind(style.spring_kind)
            };
            shape.springs.push(world.add_spring(s)?);
        }
        for body in &self.bodies {
            let handles = |local: &[u32]| -> Vec<PointHandle> {
                local.iter().map(|&i| shape.points[i as usize]).collect()
            };
            let b = Body {
                stiffness: style.body_stiffness,
                damping: style.body_damping,
                area_stiffness: style.body_area_stiffness,
                inflation: style.inflation,
                boundary: body.boundary.as_deref().map(handles),
                material: style.material,
                category: style.category,
                mask: style.mask,
                ..Body::new(handles(&body.points))
            };
            shape.bodies.push(world.add_body(b)?);
        }
        Ok(shape)
    }
}

// ---------------------------------------------------------------------------

/// A box of 4 points: one shape-matched body plus springs on its 4 edges and
/// 2 diagonals.
///
/// Defaults: centre at the origin, rotation `0`, diagonals on, the
/// [`ShapeStyle`] defaults.
///
/// The [`Shape`] holds points `[bottom-left, bottom-right, top-right,
/// top-left]` of the unrotated box (counter-clockwise), springs `[0-1, 1-2,
/// 2-3, 3-0, 0-2, 1-3]` (edges, then diagonals) and the one body, over the
/// 4 points in that order, which are its outline (no explicit
/// `Body::boundary`).
///
/// ```
/// use softbody::prelude::*;
///
/// let mut world = World::default();
/// let crate_box = BoxShape::new(Vec2::new(0.0, 2.0), Vec2::new(1.0, 0.5))
///     .rotation(0.3)
///     .mass(2.0)
///     .build(&mut world)?;
/// assert_eq!(crate_box.points.len(), 4);
/// assert_eq!(crate_box.springs.len(), 6);
/// assert_eq!(crate_box.bodies.len(), 1);
/// # Ok::<(), WorldError>(())
/// ```
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxShape {
    /// Centre, in metres.
    pub center: Vec2,
    /// Width and height, in metres, both `> 0`.
    pub size: Vec2,
    /// Counter-clockwise rotation about the centre, in radians.
    pub rotation: f32,
    /// Whether to add the 2 diagonal springs.
    pub diagonals: bool,
    /// Points, bodies and springs.
    pub style: ShapeStyle,
}

impl BoxShape {
    /// A box of this size centred here.
    pub fn new(center: Vec2, size: Vec2) -> Self {
        Self {
            center,
            size,
            rotation: 0.0,
            diagonals: true,
            style: ShapeStyle::DEFAULT,
        }
    }
    /// Rotated counter-clockwise by `angle` radians about its centre.
    pub fn rotation(mut self, angle: f32) -> Self {
        self.rotation = angle;
        self
    }
    /// With or without the 2 diagonal springs.
    pub fn diagonals(mut self, on: bool) -> Self {
        self.diagonals = on;
        self
    }
    style_setters!();

    /// Adds the box to the world.
    pub fn build(self, world: &mut World) -> Result<Shape, WorldError> {
        arg_vec(world, "BoxShape.center", self.center)?;
        arg_size(world, "BoxShape.size", self.size)?;
        arg_finite(world, "BoxShape.rotation", self.rotation)?;
        let rot = Vec2::from_angle(self.rotation);
        let half = self.size * 0.5;
        let mut plan = Plan::with_points(4);
        for corner in [
            Vec2::new(-half.x, -half.y),
            Vec2::new(half.x, -half.y),
            Vec2::new(half.x, half.y),
            Vec2::new(-half.x, half.y),
        ] {
            plan.pos.push(self.center + rot.rotate(corner));
        }
        if self.style.springs {
            plan.springs = vec![[0, 1], [1, 2], [2, 3], [3, 0]];
            if self.diagonals {
                plan.springs.extend([[0, 2], [1, 3]]);
            }
        }
        plan.bodies.push(PlanBody::outlined(vec![0, 1, 2, 3]));
        plan.commit(world, &self.style)
    }
}

/// Where a [`BoxGrid`] is placed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GridAnchor {
    /// The grid's centre is here; it rotates about its centre.
    Center(Vec2),
    /// Corner `(0, 0)` (the bottom-left of the unrotated grid) is here; the
    /// grid rotates about that corner.
    Origin(Vec2),
}

/// An `nx` x `ny` grid of boxes that share their corners, like the modular
/// spaceships of seed 001: `(nx + 1) (ny + 1)` points, one 4-point body per
/// cell, springs on every edge once and on each cell's 2 diagonals.
///
/// Defaults: centred at the origin, rotation `0`, diagonals on, the
/// [`ShapeStyle`] defaults.
///
/// The [`Shape`] holds:
/// - points row by row: corner `(i, j)`, `i` in `0..=nx` along the grid's x
///   axis and `j` in `0..=ny` along its y axis, is `points[j * (nx + 1) + i]`;
/// - bodies row by row: cell `(i, j)` is `bodies[j * nx + i]`, over corners
///   `(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)` (counter-clockwise,
///   whatever the rotation: the cell's outline, no explicit
///   `Body::boundary`);
/// - springs: the `nx (ny + 1)` edges along x (row by row), then the
///   `(nx + 1) ny` edges along y (row by row), then per cell (row by row) the
///   diagonals `(i, j)-(i + 1, j + 1)` and `(i + 1, j)-(i, j + 1)`.
///
/// ```
/// use softbody::prelude::*;
///
/// let mut world = World::default();
/// let ship = BoxGrid::new(3, 2, Vec2::splat(0.5))
///     .origin(Vec2::new(-0.75, 1.0))
///     .build(&mut world)?;
/// assert_eq!(ship.points.len(), 4 * 3);
/// assert_eq!(ship.bodies.len(), 6);
/// // 3 * 3 edges along x, 4 * 2 along y, 2 diagonals per cell.
/// assert_eq!(ship.springs.len(), 9 + 8 + 12);
/// # Ok::<(), WorldError>(())
/// ```
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxGrid {
    /// Cells along x, `>= 1`.
    pub nx: usize,
    /// Cells along y, `>= 1`.
    pub ny: usize,
    /// Width and height of one cell, in metres, both `> 0`.
    pub cell: Vec2,
    /// Placement, and the point the rotation turns about.
    pub anchor: GridAnchor,
    /// Counter-clockwise rotation about the anchor, in radians.
    pub rotation: f32,
    /// Whether to add each cell's 2 diagonal springs.
    pub diagonals: bool,
    /// Points, bodies and springs.
    pub style: ShapeStyle,
}

impl BoxGrid {
    /// `nx` x `ny` cells of size `cell`, centred at the origin.
    pub fn new(nx: usize, ny: usize, cell: Vec2) -> Self {
        Self {
            nx,
            ny,
            cell,
            anchor: GridAnchor::Center(Vec2::ZERO),
            rotation: 0.0,
            diagonals: true,
            style: ShapeStyle::DEFAULT,
        }
    }
    /// Centred here, rotating about its centre.
    pub fn center(mut self, center: Vec2) -> Self {
        self.anchor = GridAnchor::Center(center);
        self
    }
    /// With corner `(0, 0)` here, rotating about that corner.
    pub fn origin(mut self, origin: Vec2) -> Self {
        self.anchor = GridAnchor::Origin(origin);
        self
    }
    /// Rotated counter-clockwise by `angle` radians about its anchor.
    pub fn rotation(mut self, angle: f32) -> Self {
        self.rotation = angle;
        self
    }
    /// With or without each cell's 2 diagonal springs.
    pub fn diagonals(mut self, on: bool) -> Self {
        self.diagonals = on;
        self
    }
    style_setters!();

    /// Adds the grid to the world.
    pub fn build(self, world: &mut World) -> Result<Shape, WorldError> {
        let (nx, ny) = (self.nx, self.ny);
        arg_count(world, "BoxGrid.nx", nx, 1, ">= 1")?;
        arg_count(world, "BoxGrid.ny", ny, 1, ">= 1")?;
        let n = cap_points(
            "points in one BoxGrid",
            (nx as u128 + 1).saturating_mul(ny as u128 + 1),
        )?;
        arg_size(world, "BoxGrid.cell", self.cell)?;
        let (anchor, local_anchor) = match self.anchor {
            GridAnchor::Center(c) => (c, self.cell * Vec2::new(nx as f32, ny as f32) * 0.5),
            GridAnchor::Origin(o) => (o, Vec2::ZERO),
        };
        arg_vec(world, "BoxGrid.anchor", anchor)?;
        arg_finite(world, "BoxGrid.rotation", self.rotation)?;

        let rot = Vec2::from_angle(self.rotation);
        let mut plan = Plan::with_points(n);
        for j in 0..=ny {
            for i in 0..=nx {
                let local = Vec2::new(i as f32, j as f32) * self.cell - local_anchor;
                plan.pos.push(anchor + rot.rotate(local));
            }
        }
        // n <= 2^24, so every local index fits in u32.
        let id = |i: usize, j: usize| (j * (nx + 1) + i) as u32;
        if self.style.springs {
            let diagonals = if self.diagonals { 2 * nx * ny } else { 0 };
            plan.springs
                .reserve(nx * (ny + 1) + (nx + 1) * ny + diagonals);
            for j in 0..=ny {
                for i in 0..nx {
                    plan.springs.push([id(i, j), id(i + 1, j)]);
                }
            }
            for j in 0..ny {
                for i in 0..=nx {
                    plan.springs.push([id(i, j), id(i, j + 1)]);
                }
            }
            if self.diagonals {
                for j in 0..ny {
                    for i in 0..nx {
                        plan.springs.push([id(i, j), id(i + 1, j + 1)]);
                        plan.springs.push([id(i + 1, j), id(i, j + 1)]);
                    }
                }
            }
        }
        plan.bodies.reserve(nx * ny);
        for j in 0..ny {
            for i in 0..nx {
                plan.bodies.push(PlanBody::outlined(vec![
                    id(i, j),
                    id(i + 1, j),
                    id(i + 1, j + 1),
                    id(i, j + 1),
                ]));
            }
        }
        plan.commit(world, &self.style)
    }
}

/// `n` points on a circle, counter-clockwise from angle `rotation`, plus an
/// optional centre point: the layout of [`Wheel`] and [`Blob`]. `hub` is
/// `None` for no centre point, `Some(mass)` for one, whose mass is `mass` or
/// the style's.
#[allow(clippy::too_many_arguments)]
fn ring(
    world: &mut World,
    what: &'static str,
    fields: [&'static str; 4],
    center: Vec2,
    radius: f32,
    n: usize,
    rotation: f32,
    hub: Option<Option<f32>>,
    style: &ShapeStyle,
) -> Result<Shape, WorldError> {
    let [f_n, f_center, f_radius, f_rotation] = fields;
    arg_count(world, f_n, n, 3, ">= 3")?;
    let total = cap_points(what, n as u128 + hub.is_some() as u128)?;
    arg_vec(world, f_center, center)?;
    arg_positive(world, f_radius, radius)?;
    arg_finite(world, f_rotation, rotation)?;

    let mut plan = Plan::with_points(total);
    for k in 0..n {
        // f64 keeps the angles of a fine ring evenly spaced.
        let a = rotation as f64 + std::f64::consts::TAU * k as f64 / n as f64;
        plan.pos
            .push(center + Vec2::new(a.cos() as f32, a.sin() as f32) * radius);
    }
    let n32 = n as u32;
    if let Some(hub_mass) = hub {
        plan.pos.push(center);
        if let Some(m) = hub_mass {
            plan.mass_overrides.push((n32, m));
        }
    }
    if style.springs {
        plan.springs.reserve(if hub.is_some() { 2 * n } else { n });
        for k in 0..n32 {
            plan.springs.push([k, (k + 1) % n32]);
        }
        if hub.is_some() {
            for k in 0..n32 {
                plan.springs.push([k, n32]);
            }
        }
    }
    // With a centre point, the outline is the ring alone.
    plan.bodies.push(PlanBody {
        points: (0..total as u32).collect(),
        boundary: hub.is_some().then(|| (0..n32).collect()),
    });
    plan.commit(world, style)
}

/// A wheel: `n` rim points around a hub point, one body over the rim (in
/// counter-clockwise order) and the hub, springs along the rim and from
/// every rim point to the hub (spokes). The body's outline in body-body
/// collisions (`Body::boundary`) is the rim.
///
/// Defaults: rotation `0` (rim point 0 on the +x side of the hub), hub mass
/// the style's mass, the [`ShapeStyle`] defaults.
///
/// The [`Shape`] holds points `[rim 0, .., rim n-1, hub]`, springs `[rim
/// 0-1, .., rim (n-1)-0, spoke 0, .., spoke n-1]` and the one body, whose
/// points are the shape's points in the same order and whose `boundary` is
/// `[rim 0, .., rim n-1]`.
///
/// ```
/// use softbody::prelude::*;
///
/// let mut world = World::default();
/// let wheel = Wheel::new(Vec2::new(0.0, 1.0), 0.4, 12)
///     .hub_mass(3.0)
///     .build(&mut world)?;
/// assert_eq!(wheel.points.len(), 13);
/// assert_eq!(wheel.springs.len(), 24);
/// let hub = wheel.points[12];
/// assert_eq!(world.point(hub).mass, 3.0);
/// // The hub is inside: the outline in body-body collisions is the rim.
/// let body = &world.bodies()[wheel.bodies[0].index()];
/// assert_eq!(body.outline(), &wheel.points[..12]);
/// # Ok::<(), WorldError>(())
/// ```
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wheel {
    /// Hub position, in metres.
    pub center: Vec2,
    /// Rim radius, in metres, `> 0`.
    pub radius: f32,
    /// Rim points, `>= 3`.
    pub n: usize,
    /// Angle of rim point 0, in radians, counter-clockwise from +x.
    pub rotation: f32,
    /// Mass of the hub; `None`: the style's mass. `Some(0.0)` pins the hub,
    /// making an axle.
    pub hub_mass: Option<f32>,
    /// Points, bodies and springs.
    pub style: ShapeStyle,
}

impl Wheel {
    /// A wheel of `n` rim points of this radius around a hub here.
    pub fn new(center: Vec2, radius: f32, n: usize) -> Self {
        Self {
            center,
            radius,
            n,
            rotation: 0.0,
            hub_mass: None,
            style: ShapeStyle::DEFAULT,
        }
    }
    /// With rim point 0 at this angle (radians, counter-clockwise from +x).
    pub fn rotation(mut self, angle: f32) -> Self {
        self.rotation = angle;
        self
    }
    /// With this hub mass (`0` pins the hub).
    pub fn hub_mass(mut self, mass: f32) -> Self {
        self.hub_mass = Some(mass);
        self
    }
    style_setters!();

    /// Adds the wheel to the world.
    pub fn build(self, world: &mut World) -> Result<Shape, WorldError> {
        ring(
            world,
            "points in one Wheel",
            ["Wheel.n", "Wheel.center", "Wheel.radius", "Wheel.rotation"],
            self.center,
            self.radius,
            self.n,
            self.rotation,
            Some(self.hub_mass),
            &self.style,
        )
    }
}

/// A round soft body: `n` points on a circle (counter-clockwise), one body,
/// springs along the perimeter and, optionally, from every perimeter point
/// to a centre point. The body's outline in body-body collisions is the
/// perimeter: its points in order without a centre point, an explicit
/// `Body::boundary` with one.
///
/// Defaults: no centre point, rotation `0` (point 0 on the +x side), the
/// [`ShapeStyle`] defaults.
///
/// The [`Shape`] holds points `[perimeter 0, .., perimeter n-1]` then the
/// centre point if any, springs `[0-1, .., (n-1)-0]` then the `n` springs
/// to the centre if any, and the one body over all the points, in that
/// order; with a centre point its `boundary` is `[perimeter 0, ..,
/// perimeter n-1]`, without one it has none.
///
/// ```
/// use softbody::prelude::*;
///
/// let mut world = World::default();
/// let blob = Blob::new(Vec2::new(0.0, 1.0), 0.5, 16)
///     .body_stiffness(800.0)
///     .build(&mut world)?;
/// assert_eq!(blob.points.len(), 16);
/// assert_eq!(blob.springs.len(), 16);
/// assert_eq!(blob.bodies.len(), 1);
/// # Ok::<(), WorldError>(())
/// ```
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Blob {
    /// Centre, in metres.
    pub center: Vec2,
    /// Radius, in metres, `> 0`.
    pub radius: f32,
    /// Perimeter points, `>= 3`.
    pub n: usize,
    /// Angle of point 0, in radians, counter-clockwise from +x.
    pub rotation: f32,
    /// Whether to add a centre point, in the body (not its outline) and
    /// linked to every perimeter point.
    pub center_point: bool,
    /// Points, bodies and springs.
    pub style: ShapeStyle,
}

impl Blob {
    /// A blob of `n` points on a circle of this radius.
    pub fn new(center: Vec2, radius: f32, n: usize) -> Self {
        Self {
            center,
            radius,
            n,
            rotation: 0.0,
            center_point: false,
            style: ShapeStyle::DEFAULT,
        }
    }
    /// With point 0 at this angle (radians, counter-clockwise from +x).
    pub fn rotation(mut self, angle: f32) -> Self {
        self.rotation = angle;
        self
    }
    /// With or without a centre point.
    pub fn center_point(mut self, on: bool) -> Self {
        self.center_point = on;
        self
    }
    style_setters!();

    /// Adds the blob to the world.
    pub fn build(self, world: &mut World) -> Result<Shape, WorldError> {
        ring(
            world,
            "points in one Blob",
            ["Blob.n", "Blob.center", "Blob.radius", "Blob.rotation"],
            self.center,
            self.radius,
            self.n,
            self.rotation,
            self.center_point.then_some(None),
            &self.style,
        )
    }
}

/// A rope: `n` evenly spaced points from `a` to `b`, each linked to the
/// next, and no body.
///
/// Defaults: both ends free, the [`ShapeStyle`] defaults; in particular the
/// links are force springs ([`SpringKind::Spring`]), which stretch under
/// load. Use `.spring_kind(SpringKind::Rod)` for an inextensible chain
/// (stiffer with more [`Params::rod_iterations`](crate::Params::rod_iterations)).
/// The style's body settings are unused.
///
/// The [`Shape`] holds points `[a, .., b]`, springs `[0-1, .., (n-2)-(n-1)]`
/// and no body.
///
/// ```
/// use softbody::prelude::*;
///
/// let mut world = World::default();
/// let rope = Rope::new(Vec2::new(0.0, 3.0), Vec2::new(2.0, 3.0), 21)
///     .pin_first(true)
///     .spring_kind(SpringKind::Rod)
///     .build(&mut world)?;
/// assert_eq!(rope.springs.len(), 20);
/// assert!(world.point(rope.points[0]).is_pinned());
/// # Ok::<(), WorldError>(())
/// ```
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rope {
    /// First end, in metres.
    pub a: Vec2,
    /// Last end, in metres; must differ from `a`.
    pub b: Vec2,
    /// Points, `>= 2`.
    pub n: usize,
    /// Whether the first point is pinned (mass `0`).
    pub pin_first: bool,
    /// Whether the last point is pinned (mass `0`).
    pub pin_last: bool,
    /// Points and springs.
    pub style: ShapeStyle,
}

impl Rope {
    /// A rope of `n` points from `a` to `b`.
    pub fn new(a: Vec2, b: Vec2, n: usize) -> Self {
        Self {
            a,
            b,
            n,
            pin_first: false,
            pin_last: false,
            style: ShapeStyle::DEFAULT,
        }
    }
    /// With the first point pinned or free.
    pub fn pin_first(mut self, on: bool) -> Self {
        self.pin_first = on;
        self
    }
    /// With the last point pinned or free.
    pub fn pin_last(mut self, on: bool) -> Self {
        self.pin_last = on;
        self
    }
    style_setters!();

    /// Adds the rope to the world. Fails with
    /// [`WorldError::ZeroLengthSpring`] when `a == b` (or when the points
    /// are so close that two neighbours coincide in `f32`).
    pub fn build(self, world: &mut World) -> Result<Shape, WorldError> {
        let n = self.n;
        arg_count(world, "Rope.n", n, 2, ">= 2")?;
        let n = cap_points("points in one Rope", n as u128)?;
        arg_vec(world, "Rope.a", self.a)?;
        arg_vec(world, "Rope.b", self.b)?;

        let mut plan = Plan::with_points(n);
        let last = n - 1;
        for k in 0..n {
            let p = if k == last {
                self.b
            } else {
                self.a.lerp(self.b, (k as f64 / last as f64) as f32)
            };
            plan.pos.push(p);
        }
        if self.pin_first {
            plan.mass_overrides.push((0, 0.0));
        }
        if self.pin_last {
            plan.mass_overrides.push((last as u32, 0.0));
        }
        if self.style.springs {
            plan.springs = (0..last as u32).map(|k| [k, k + 1]).collect();
        }
        plan.commit(world, &self.style)
    }
}

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
