//! The items a world holds: points, springs, bodies, colliders and
//! materials, with their handles and builders.

use glam::Vec2;

#[cfg(doc)]
use super::{MAX_COORD, MAX_MASS, MIN_MASS, World};
#[cfg(doc)]
use crate::params::Params;

macro_rules! handle {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        impl $name {
            /// The index of the item in its world.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

handle!(
    /// A point of a [`World`].
    PointHandle
);
handle!(
    /// A spring of a [`World`].
    SpringHandle
);
handle!(
    /// A shape-matched soft body of a [`World`].
    BodyHandle
);
handle!(
    /// A planet of a [`World`].
    PlanetHandle
);
handle!(
    /// A half-plane of a [`World`].
    PlaneHandle
);
handle!(
    /// A terrain polyline of a [`World`].
    TerrainHandle
);
handle!(
    /// A joint of a [`World`] ([`Joint`](super::Joint)).
    JointHandle
);
handle!(
    /// A material of a [`World`]. Material 0 always exists: it follows
    /// [`Params::elasticity`] and [`Params::friction`].
    MaterialHandle
);

/// The layer mask that collides with everything.
pub const ALL_LAYERS: u32 = u32::MAX;

/// Contact response of a point or a body: restitution, Coulomb friction
/// and Lisitsa's viscous (exponential) friction. Every field left `None`
/// follows the [`Params`] default of the same name. Build one with struct
/// update syntax from [`Material::DEFAULT`], so that new fields keep
/// following the defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Material {
    /// Coefficient of restitution, `[0, 1]`; `None` follows [`Params::elasticity`].
    pub elasticity: Option<f32>,
    /// Viscous friction rate in 1/s, `>= 0`; `None` follows [`Params::friction`].
    pub friction: Option<f32>,
    /// Coulomb coefficient of static friction, unitless, `>= 0`; `None`
    /// follows [`Params::static_friction`].
    pub static_friction: Option<f32>,
    /// Coulomb coefficient of dynamic friction, unitless, `>= 0`; `None`
    /// follows [`Params::dynamic_friction`].
    pub dynamic_friction: Option<f32>,
}

impl Material {
    /// The material that follows the parameters' defaults.
    pub const DEFAULT: Material = Material {
        elasticity: None,
        friction: None,
        static_friction: None,
        dynamic_friction: None,
    };
}

/// A point mass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Position, in metres.
    pub pos: Vec2,
    /// Velocity, in m/s.
    pub vel: Vec2,
    /// Mass, in kg: `0`, or in [`MIN_MASS`]`..=`[`MAX_MASS`]. `0` pins the point: it never moves and has
    /// infinite inertia in collisions and springs. In shape matching a pinned
    /// point weighs [`PINNED_WEIGHT_RATIO`] times its body's free mass (see
    /// docs/physics.md).
    pub mass: f32,
    /// Contact material.
    pub material: MaterialHandle,
    /// Collision layers: the point collides with a collider when the masks
    /// intersect. Default [`ALL_LAYERS`].
    pub layers: u32,
    /// How much of the gravity (the world's vector and the attracting
    /// planets' pull) the point feels: `1` (default) all, `0` none (it
    /// floats), within `±`[`MAX_GRAVITY_SCALE`].
    pub gravity_scale: f32,
}

/// The largest gravity scale a point may have, either sign
/// ([`Point::gravity_scale`]).
pub const MAX_GRAVITY_SCALE: f32 = 1.0e3;

/// Shape-matching weight of a pinned point relative to its body: it weighs
/// this many times the summed mass of the body's free points (1 kg when it
/// has none), a finite stand-in for its infinite mass. Large enough that a
/// body hangs from a pinned point with an extra sag of 1e-4 of its elastic
/// sag, whatever its masses; small enough that f32 sums stay accurate.
pub const PINNED_WEIGHT_RATIO: f32 = 1.0e4;

/// A fixed pinned-point weight of 1e4 kg, whatever the body's mass: a heavy
/// body hanging from a pin would sag by up to its mass / 1e4 times its
/// elastic sag. Replaced by [`PINNED_WEIGHT_RATIO`].
#[deprecated(note = "a pinned point now weighs PINNED_WEIGHT_RATIO times its body's free mass")]
pub const PINNED_SHAPE_WEIGHT: f32 = 1.0e4;

impl Point {
    /// A free point of unit mass at rest.
    pub fn new(pos: Vec2) -> Self {
        Self {
            pos,
            vel: Vec2::ZERO,
            mass: 1.0,
            material: MaterialHandle(0),
            layers: ALL_LAYERS,
            gravity_scale: 1.0,
        }
    }
    /// With a velocity.
    #[must_use]
    pub fn vel(mut self, vel: Vec2) -> Self {
        self.vel = vel;
        self
    }
    /// With a mass (`0` pins).
    #[must_use]
    pub fn mass(mut self, mass: f32) -> Self {
        self.mass = mass;
        self
    }
    /// Pinned (mass `0`).
    #[must_use]
    pub fn pinned(mut self) -> Self {
        self.mass = 0.0;
        self
    }
    /// With a material.
    #[must_use]
    pub fn material(mut self, material: MaterialHandle) -> Self {
        self.material = material;
        self
    }
    /// With collision layers.
    #[must_use]
    pub fn layers(mut self, layers: u32) -> Self {
        self.layers = layers;
        self
    }
    /// With a gravity scale ([`Point::gravity_scale`]; `0` floats).
    #[must_use]
    pub fn gravity_scale(mut self, scale: f32) -> Self {
        self.gravity_scale = scale;
        self
    }
    /// Whether the point is pinned.
    pub fn is_pinned(&self) -> bool {
        self.mass == 0.0
    }
}

/// The three kinds of two-point links of Lisitsa 2023.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SpringKind {
    /// Force-based damped spring (velocity level): `stiffness` in N/m,
    /// `damping` in 1/s.
    #[default]
    Spring,
    /// Soft distance constraint (position level): each substep closes the
    /// fraction `1 - exp(-stiffness h)` of the length error and of the
    /// relative velocity along it; `stiffness` is a rate in 1/s.
    Soft,
    /// Hard rod: Jacobi projection with mass splitting, iterated
    /// [`Params::rod_iterations`] times; each iteration moves the ends to
    /// the rest length and removes the relative velocity along the rod at
    /// the same time (docs/physics.md, "Stage 3b"). `stiffness` and
    /// `damping` are unused.
    Rod,
}

impl SpringKind {
    pub(crate) fn code(self) -> u32 {
        match self {
            SpringKind::Spring => 0,
            SpringKind::Soft => 1,
            SpringKind::Rod => 2,
        }
    }
}

/// A link between two points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spring {
    /// First end.
    pub a: PointHandle,
    /// Second end.
    pub b: PointHandle,
    /// Rest length in metres; `None`: the distance between the points when
    /// the spring is added.
    pub rest_length: Option<f32>,
    /// `None` follows [`Params::spring_stiffness`].
    pub stiffness: Option<f32>,
    /// `None` follows [`Params::spring_damping`].
    pub damping: Option<f32>,
    /// Spring, soft constraint or rod.
    pub kind: SpringKind,
}

impl Spring {
    /// A default spring between two points, resting at their distance.
    pub fn new(a: PointHandle, b: PointHandle) -> Self {
        Self {
            a,
            b,
            rest_length: None,
            stiffness: None,
            damping: None,
            kind: SpringKind::Spring,
        }
    }
    /// With a rest length.
    #[must_use]
    pub fn rest_length(mut self, l: f32) -> Self {
        self.rest_length = Some(l);
        self
    }
    /// With a stiffness.
    #[must_use]
    pub fn stiffness(mut self, k: f32) -> Self {
        self.stiffness = Some(k);
        self
    }
    /// With a damping rate.
    #[must_use]
    pub fn damping(mut self, c: f32) -> Self {
        self.damping = Some(c);
        self
    }
    /// Of a kind.
    #[must_use]
    pub fn kind(mut self, kind: SpringKind) -> Self {
        self.kind = kind;
        self
    }
}

/// A shape-matched soft body over a list of points.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    /// Its points, in boundary order for bodies drawn as polygons. Bodies
    /// may share points.
    pub points: Vec<PointHandle>,
    /// Rest shape, one position per point, in any placement and rotation,
    /// each within [`MAX_COORD`]; `None`: the points' positions when the
    /// body is added (held to the same range).
    pub rest: Option<Vec<Vec2>>,
    /// Shape stiffness in 1/s^2; `None` follows [`Params::shape_stiffness`],
    /// divided by the most bodies that share one of this body's points.
    pub stiffness: Option<f32>,
    /// Damping toward rigid motion in 1/s; `None` follows [`Params::shape_damping`].
    pub damping: Option<f32>,
    /// Area stiffness in 1/s^2 (how hard the body keeps its area, see
    /// [`Params::area_stiffness`]); `None` follows it.
    pub area_stiffness: Option<f32>,
    /// Target area over rest area, unitless, in
    /// [`MIN_INFLATION`](crate::layout::MIN_INFLATION)`..=`
    /// [`MAX_INFLATION`](crate::layout::MAX_INFLATION). Default `1`. A pressure
    /// body (JellyPhysics' gas body) is one whose inflation changes: set
    /// it at run time with the solvers' `set_inflation`, and give it a low
    /// shape stiffness so that its shape does not hold it at its rest size.
    pub inflation: f32,
    /// Its outline in body-body collisions, a closed polygon through these
    /// points in order (at least 3 distinct members of the body); `None`:
    /// `points` in order. Give it for bodies with interior points, such as
    /// a wheel's hub. A body whose outline has fewer than 3 points is not
    /// hit by other points (its points still hit other bodies).
    pub boundary: Option<Vec<PointHandle>>,
    /// Elasticity and friction of the body in body-body contacts (combined
    /// with the other side's, see docs/physics.md). Default material 0.
    pub material: MaterialHandle,
    /// Collision category bits (Gaul's layers): two bodies collide only
    /// when each one's `mask` has a bit of the other's `category`. Default `1`.
    pub category: u32,
    /// The categories this body collides with. Default [`ALL_LAYERS`].
    pub mask: u32,
    /// Kinematic: the body moves as a rigid body in its rest shape, at the
    /// velocity and spin its points are given (at the start, by
    /// [`World::set_kinematic`](crate::world::World::set_kinematic), and by
    /// the body commands), whatever pushes on it; what rests on it is
    /// carried by friction. Every point of a kinematic body is pinned
    /// (mass `0`) and in no other kinematic body. Default `false`.
    pub kinematic: bool,
}

impl Body {
    /// A body over these points, resting in their current shape.
    pub fn new(points: Vec<PointHandle>) -> Self {
        Self {
            points,
            rest: None,
            stiffness: None,
            damping: None,
            area_stiffness: None,
            inflation: 1.0,
            boundary: None,
            material: MaterialHandle(0),
            category: 1,
            mask: ALL_LAYERS,
            kinematic: false,
        }
    }
    /// Kinematic ([`Body::kinematic`]): every point must be pinned.
    #[must_use]
    pub fn kinematic(mut self) -> Self {
        self.kinematic = true;
        self
    }
    /// With an explicit outline for body-body collisions.
    #[must_use]
    pub fn boundary(mut self, boundary: Vec<PointHandle>) -> Self {
        self.boundary = Some(boundary);
        self
    }
    /// With a contact material for body-body collisions.
    #[must_use]
    pub fn material(mut self, material: MaterialHandle) -> Self {
        self.material = material;
        self
    }
    /// With collision category bits.
    #[must_use]
    pub fn category(mut self, category: u32) -> Self {
        self.category = category;
        self
    }
    /// With a collision mask.
    #[must_use]
    pub fn mask(mut self, mask: u32) -> Self {
        self.mask = mask;
        self
    }
    /// The outline used in body-body collisions: `boundary`, or `points`.
    pub fn outline(&self) -> &[PointHandle] {
        self.boundary.as_deref().unwrap_or(&self.points)
    }
    /// With an explicit rest shape.
    #[must_use]
    pub fn rest(mut self, rest: Vec<Vec2>) -> Self {
        self.rest = Some(rest);
        self
    }
    /// With a stiffness.
    #[must_use]
    pub fn stiffness(mut self, k: f32) -> Self {
        self.stiffness = Some(k);
        self
    }
    /// With a damping rate.
    #[must_use]
    pub fn damping(mut self, c: f32) -> Self {
        self.damping = Some(c);
        self
    }
    /// With an area stiffness, 1/s^2.
    #[must_use]
    pub fn area_stiffness(mut self, k: f32) -> Self {
        self.area_stiffness = Some(k);
        self
    }
    /// With a target area over rest area.
    #[must_use]
    pub fn inflation(mut self, ratio: f32) -> Self {
        self.inflation = ratio;
        self
    }
}

/// A static disk collider.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Planet {
    /// Centre, in metres.
    pub center: Vec2,
    /// Radius, in metres, `>= 0`.
    pub radius: f32,
    /// Collision layers, default [`ALL_LAYERS`].
    pub layers: u32,
    /// Its pull, `G M` in m^3/s^2 (default `0`: none): a point at distance
    /// `d` from the centre is accelerated toward it by `G M / d^2`, and
    /// inside the radius by `G M d / radius^3` (the field inside a uniform
    /// ball, which softens the pull to zero at the centre), times the
    /// point's [`gravity_scale`](Point::gravity_scale). Finite, `>= 0`.
    pub gravity: f32,
    /// Its velocity, m/s (default zero): a kinematic planet moves
    /// `center + velocity t` at time `t` (the substeps run times `h`), pushes what
    /// it meets and carries what rests on it by friction; nothing pushes
    /// it back. Within `|vx|, |vy| <= 1e7`.
    pub velocity: Vec2,
    /// Its angular velocity about the centre, rad/s, counter-clockwise
    /// positive (default 0): the disk looks the same turned, but friction
    /// sees its surface move at `spin` times the radius. Finite.
    pub spin: f32,
}

impl Planet {
    /// A planet on all layers that pulls nothing and stands still.
    pub fn new(center: Vec2, radius: f32) -> Self {
        Self {
            center,
            radius,
            layers: ALL_LAYERS,
            gravity: 0.0,
            velocity: Vec2::ZERO,
            spin: 0.0,
        }
    }
    /// Moving at `v` m/s ([`Planet::velocity`]).
    #[must_use]
    pub fn velocity(mut self, v: Vec2) -> Self {
        self.velocity = v;
        self
    }
    /// Turning at `w` rad/s ([`Planet::spin`]).
    #[must_use]
    pub fn spin(mut self, w: f32) -> Self {
        self.spin = w;
        self
    }
    /// With a pull of `gm` m^3/s^2 ([`Planet::gravity`]).
    #[must_use]
    pub fn gravity(mut self, gm: f32) -> Self {
        self.gravity = gm;
        self
    }
    /// With the pull that gives `g` m/s^2 at its surface: `G M = g
    /// radius^2`. Set the radius first.
    #[must_use]
    pub fn surface_gravity(mut self, g: f32) -> Self {
        self.gravity = g * self.radius * self.radius;
        self
    }
}

/// A half-plane collider: points with `normal . p >= offset` are outside.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalfPlane {
    /// Outward normal; normalised when added.
    pub normal: Vec2,
    /// Offset along the normal, in metres.
    pub offset: f32,
    /// Collision layers, default [`ALL_LAYERS`].
    pub layers: u32,
    /// Its velocity, m/s (default zero): a kinematic half-plane moves its
    /// pivot by `velocity t` at time `t` (the substeps run times `h`). A velocity
    /// along the boundary moves nothing but the surface: a conveyor belt.
    /// Within `|vx|, |vy| <= 1e7`.
    pub velocity: Vec2,
    /// Its angular velocity about the pivot, rad/s, counter-clockwise
    /// positive (default 0). Finite.
    pub spin: f32,
    /// The point it turns about and whose motion `velocity` is, m: the
    /// half-plane moves as if fixed to a frame there, keeping its distance
    /// from it, so half-planes that share a pivot off their boundaries
    /// turn as one shape (four make a turning box, a tumbler). `None` (the
    /// default): the boundary's point nearest the origin, `normal *
    /// offset`.
    pub pivot: Option<Vec2>,
}

impl HalfPlane {
    /// A half-plane on all layers that stands still.
    pub fn new(normal: Vec2, offset: f32) -> Self {
        Self {
            normal,
            offset,
            layers: ALL_LAYERS,
            velocity: Vec2::ZERO,
            spin: 0.0,
            pivot: None,
        }
    }
    /// Moving at `v` m/s ([`HalfPlane::velocity`]).
    #[must_use]
    pub fn velocity(mut self, v: Vec2) -> Self {
        self.velocity = v;
        self
    }
    /// Turning at `w` rad/s about its pivot ([`HalfPlane::spin`]).
    #[must_use]
    pub fn spin(mut self, w: f32) -> Self {
        self.spin = w;
        self
    }
    /// Turning about `p` ([`HalfPlane::pivot`]).
    #[must_use]
    pub fn pivot(mut self, p: Vec2) -> Self {
        self.pivot = Some(p);
        self
    }
    /// The floor `y >= height`.
    pub fn floor(height: f32) -> Self {
        Self::new(Vec2::Y, height)
    }
}
