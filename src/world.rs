//! The world: points, springs, soft bodies, colliders and materials.
//!
//! A [`World`] is the description both solver paths start from. Every `add_*`
//! call validates its item and returns a typed handle, so a world that was
//! built without error is always valid for [`Params`] that validate.

use glam::Vec2;

use crate::error::{Item, WorldError};
use crate::layout::MaterialInfo;
use crate::params::Params;
pub use crate::validate::{MAX_COORD, MAX_LENGTH, MAX_MASS, MAX_SPEED, MAX_STATE, MIN_MASS};
use crate::validate::{
    check_bounded, check_capacity, check_elasticity, check_inflation, check_length, check_mass,
    check_opt_non_negative, check_position, check_state, check_vec, check_velocity,
};

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
    /// A material of a [`World`]. Material 0 always exists: it follows
    /// [`Params::elasticity`] and [`Params::friction`].
    MaterialHandle
);

/// The layer mask that collides with everything.
pub const ALL_LAYERS: u32 = u32::MAX;

/// Contact response of a point or a body: restitution, Coulomb friction
/// and seed 001's viscous (exponential) friction. Every field left `None`
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
}

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
    /// Whether the point is pinned.
    pub fn is_pinned(&self) -> bool {
        self.mass == 0.0
    }
}

/// The three kinds of two-point links of seed 001.
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
    /// Collision category bits (seed 002's layers): two bodies collide only
    /// when each one's `mask` has a bit of the other's `category`. Default `1`.
    pub category: u32,
    /// The categories this body collides with. Default [`ALL_LAYERS`].
    pub mask: u32,
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
        }
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
}

impl Planet {
    /// A planet on all layers.
    pub fn new(center: Vec2, radius: f32) -> Self {
        Self {
            center,
            radius,
            layers: ALL_LAYERS,
        }
    }
}

/// A static half-plane collider: points with `normal . p >= offset` are outside.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalfPlane {
    /// Outward normal; normalised when added.
    pub normal: Vec2,
    /// Offset along the normal, in metres.
    pub offset: f32,
    /// Collision layers, default [`ALL_LAYERS`].
    pub layers: u32,
}

impl HalfPlane {
    /// A half-plane on all layers.
    pub fn new(normal: Vec2, offset: f32) -> Self {
        Self {
            normal,
            offset,
            layers: ALL_LAYERS,
        }
    }
    /// The floor `y >= height`.
    pub fn floor(height: f32) -> Self {
        Self::new(Vec2::Y, height)
    }
}

/// Largest number of points, springs, bodies or memberships: indices are u32
/// and the top two bits carry flags in the GPU's spring records.
pub const MAX_ITEMS: u64 = 1 << 30;

/// Everything the solvers simulate.
///
/// Items are added with the `add_*` methods (or the shape builders of
/// [`crate::shapes`]), each validated as it comes, and removed with
/// [`World::remove_body`] and [`World::remove_points`].
///
/// ```
/// use softbody::prelude::*;
///
/// let mut world = World::default();
/// world.params.substeps = 12;
/// world.add_plane(HalfPlane::floor(0.0))?;
/// let a = world.add_point(Point::new(Vec2::new(0.0, 1.0)))?;
/// let b = world.add_point(Point::new(Vec2::new(1.0, 1.0)).mass(2.0))?;
/// world.add_spring(Spring::new(a, b).stiffness(500.0))?;
/// assert_eq!(world.rest_lengths(), &[1.0]);
/// // Every item is checked as it is added:
/// let err = world.add_spring(Spring::new(a, PointHandle(7))).unwrap_err();
/// assert_eq!(err.to_string(), "spring 1: b refers to index 7, but there are only 2");
/// # Ok::<(), WorldError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct World {
    /// The global parameters; change them freely, they are validated when a
    /// solver is built or updated.
    pub params: Params,
    points: Vec<Point>,
    springs: Vec<Spring>,
    /// Resolved rest length of each spring.
    rest_lengths: Vec<f32>,
    bodies: Vec<Body>,
    /// Resolved rest shape of each body.
    rest_shapes: Vec<Vec<Vec2>>,
    planets: Vec<Planet>,
    planes: Vec<HalfPlane>,
    materials: Vec<Material>,
    /// Changes with every removal (see [`World::generation`]): solvers
    /// compare it to notice a removal they were not told about.
    generation: u64,
}

/// The last removal token handed out ([`World::generation`]): unique in the
/// process, so that a removal made on one world (or on a clone) is never
/// taken for a removal made on another.
static REMOVAL_TOKENS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Default for World {
    fn default() -> Self {
        Self::new(Params::default())
    }
}

fn next_index(len: usize, what: &'static str) -> Result<u32, WorldError> {
    if len as u64 >= MAX_ITEMS {
        return Err(WorldError::TooMany {
            what,
            count: len as u64 + 1,
            limit: MAX_ITEMS,
        });
    }
    Ok(len as u32)
}

impl World {
    /// An empty world with these parameters.
    pub fn new(params: Params) -> Self {
        Self {
            params,
            points: Vec::new(),
            springs: Vec::new(),
            rest_lengths: Vec::new(),
            bodies: Vec::new(),
            rest_shapes: Vec::new(),
            planets: Vec::new(),
            planes: Vec::new(),
            materials: vec![Material::DEFAULT],
            generation: 0,
        }
    }

    /// The points.
    pub fn points(&self) -> &[Point] {
        &self.points
    }
    /// The springs.
    pub fn springs(&self) -> &[Spring] {
        &self.springs
    }
    /// The resolved rest length of each spring, in metres.
    pub fn rest_lengths(&self) -> &[f32] {
        &self.rest_lengths
    }
    /// The soft bodies.
    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }
    /// Sets a body's [`inflation`](Body::inflation) (target area over rest
    /// area). A running solver takes it with its own `set_inflation`; the
    /// world's copy is what a removal repacks and a scene saves.
    pub fn set_inflation(&mut self, body: BodyHandle, ratio: f32) -> Result<(), WorldError> {
        let item = Item::Body(body.0);
        let len = self.bodies.len() as u32;
        let b = self
            .bodies
            .get_mut(body.index())
            .ok_or(WorldError::UnknownHandle { item, len })?;
        check_inflation(item, ratio)?;
        b.inflation = ratio;
        Ok(())
    }
    /// The resolved rest shape of each body (one position per point, as
    /// given or as the points were when the body was added).
    pub fn rest_shapes(&self) -> &[Vec<Vec2>] {
        &self.rest_shapes
    }
    /// The planets.
    pub fn planets(&self) -> &[Planet] {
        &self.planets
    }
    /// The half-planes.
    pub fn planes(&self) -> &[HalfPlane] {
        &self.planes
    }
    /// The materials; index 0 is the default material.
    pub fn materials(&self) -> &[Material] {
        &self.materials
    }

    /// The point's current state. Panics on a handle from another world;
    /// see [`World::try_point`].
    pub fn point(&self, h: PointHandle) -> &Point {
        &self.points[h.index()]
    }
    /// The point, or `None` for an unknown handle.
    pub fn try_point(&self, h: PointHandle) -> Option<&Point> {
        self.points.get(h.index())
    }

    /// Overwrites positions and velocities, e.g. with a solver's read-back
    /// state. Both slices must have one entry per point.
    pub fn set_state(&mut self, pos: &[Vec2], vel: &[Vec2]) -> Result<(), WorldError> {
        check_state(
            self.points.len(),
            bytemuck::cast_slice(pos),
            bytemuck::cast_slice(vel),
        )?;
        for ((pt, p), v) in self.points.iter_mut().zip(pos).zip(vel) {
            pt.pos = *p;
            pt.vel = *v;
        }
        Ok(())
    }

    /// Adds a material.
    pub fn add_material(&mut self, m: Material) -> Result<MaterialHandle, WorldError> {
        let index = next_index(self.materials.len(), "materials")?;
        let item = Item::Material(index);
        if let Some(e) = m.elasticity {
            check_elasticity(item, e)?;
        }
        check_opt_non_negative(item, "friction", m.friction)?;
        check_opt_non_negative(item, "static_friction", m.static_friction)?;
        check_opt_non_negative(item, "dynamic_friction", m.dynamic_friction)?;
        self.materials.push(m);
        Ok(MaterialHandle(index))
    }

    /// Adds a point.
    pub fn add_point(&mut self, p: Point) -> Result<PointHandle, WorldError> {
        let index = next_index(self.points.len(), "points")?;
        let item = Item::Point(index);
        check_position(item, "pos", p.pos)?;
        check_velocity(item, "vel", p.vel)?;
        check_mass(item, p.mass)?;
        if p.material.index() >= self.materials.len() {
            return Err(WorldError::IndexOutOfRange {
                item,
                field: "material",
                index: p.material.0,
                len: self.materials.len() as u32,
            });
        }
        self.points.push(p);
        Ok(PointHandle(index))
    }

    fn check_point_ref(
        &self,
        item: Item,
        field: &'static str,
        h: PointHandle,
    ) -> Result<(), WorldError> {
        if h.index() >= self.points.len() {
            return Err(WorldError::IndexOutOfRange {
                item,
                field,
                index: h.0,
                len: self.points.len() as u32,
            });
        }
        Ok(())
    }

    /// Adds a spring, soft constraint or rod.
    pub fn add_spring(&mut self, s: Spring) -> Result<SpringHandle, WorldError> {
        let index = next_index(self.springs.len(), "springs")?;
        let item = Item::Spring(index);
        self.check_point_ref(item, "a", s.a)?;
        self.check_point_ref(item, "b", s.b)?;
        if s.a == s.b {
            return Err(WorldError::SelfSpring { item, a: s.a.0 });
        }
        check_opt_non_negative(item, "stiffness", s.stiffness)?;
        check_opt_non_negative(item, "damping", s.damping)?;
        let distance = self.points[s.a.index()]
            .pos
            .distance(self.points[s.b.index()].pos);
        let rest = s.rest_length.unwrap_or(distance);
        if rest == 0.0 && distance == 0.0 {
            return Err(WorldError::ZeroLengthSpring {
                item,
                a: s.a.0,
                b: s.b.0,
            });
        }
        // A given rest length (a distance is within MAX_LENGTH, its points
        // being within MAX_COORD).
        check_length(item, "rest_length", rest)?;
        self.springs.push(s);
        self.rest_lengths.push(rest);
        Ok(SpringHandle(index))
    }

    /// Adds a shape-matched soft body.
    pub fn add_body(&mut self, b: Body) -> Result<BodyHandle, WorldError> {
        let index = next_index(self.bodies.len(), "bodies")?;
        let item = Item::Body(index);
        for &p in &b.points {
            self.check_point_ref(item, "points", p)?;
        }
        let mut sorted: Vec<u32> = b.points.iter().map(|p| p.0).collect();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(WorldError::DegenerateBody {
                item,
                reason: format!("point {} is listed twice", w[0]),
            });
        }
        if b.points.len() < 2 {
            return Err(WorldError::DegenerateBody {
                item,
                reason: format!("needs at least 2 distinct points, has {}", b.points.len()),
            });
        }
        check_opt_non_negative(item, "stiffness", b.stiffness)?;
        check_opt_non_negative(item, "damping", b.damping)?;
        check_opt_non_negative(item, "area_stiffness", b.area_stiffness)?;
        check_inflation(item, b.inflation)?;
        if b.material.index() >= self.materials.len() {
            return Err(WorldError::IndexOutOfRange {
                item,
                field: "material",
                index: b.material.0,
                len: self.materials.len() as u32,
            });
        }
        if let Some(boundary) = &b.boundary {
            if boundary.len() < 3 {
                return Err(WorldError::DegenerateBody {
                    item,
                    reason: format!("boundary needs at least 3 points, has {}", boundary.len()),
                });
            }
            let mut seen: Vec<u32> = boundary.iter().map(|p| p.0).collect();
            seen.sort_unstable();
            if let Some(w) = seen.windows(2).find(|w| w[0] == w[1]) {
                return Err(WorldError::DegenerateBody {
                    item,
                    reason: format!("boundary lists point {} twice", w[0]),
                });
            }
            if let Some(p) = boundary
                .iter()
                .find(|p| sorted.binary_search(&p.0).is_err())
            {
                return Err(WorldError::DegenerateBody {
                    item,
                    reason: format!("boundary point {} is not one of the body's points", p.0),
                });
            }
        }
        let rest = match &b.rest {
            Some(rest) => {
                if rest.len() != b.points.len() {
                    return Err(WorldError::DegenerateBody {
                        item,
                        reason: format!(
                            "rest shape has {} positions for {} points",
                            rest.len(),
                            b.points.len()
                        ),
                    });
                }
                for r in rest {
                    check_position(item, "rest", *r)?;
                }
                rest.clone()
            }
            // The points' positions, held to the same range as a given
            // shape: a state written back may lie out to `MAX_STATE`, where
            // the rest offsets' squares overflow.
            None => {
                let rest: Vec<Vec2> = b
                    .points
                    .iter()
                    .map(|p| self.points[p.index()].pos)
                    .collect();
                for r in &rest {
                    check_position(item, "rest (the points' positions)", *r)?;
                }
                rest
            }
        };
        let first = rest[0];
        if rest.iter().all(|r| *r == first) {
            return Err(WorldError::DegenerateBody {
                item,
                reason: "rest shape has fewer than 2 distinct positions".into(),
            });
        }
        self.bodies.push(b);
        self.rest_shapes.push(rest);
        Ok(BodyHandle(index))
    }

    /// Adds a planet (at most [`MAX_PLANETS`](crate::layout::MAX_PLANETS)).
    pub fn add_planet(&mut self, p: Planet) -> Result<PlanetHandle, WorldError> {
        let index = next_index(self.planets.len(), "planets")?;
        check_capacity("planets", self.planets.len(), crate::layout::MAX_PLANETS)?;
        let item = Item::Planet(index);
        check_position(item, "center", p.center)?;
        check_length(item, "radius", p.radius)?;
        self.planets.push(p);
        Ok(PlanetHandle(index))
    }

    /// Adds a half-plane (at most [`MAX_PLANES`](crate::layout::MAX_PLANES));
    /// its normal is normalised.
    pub fn add_plane(&mut self, mut p: HalfPlane) -> Result<PlaneHandle, WorldError> {
        let index = next_index(self.planes.len(), "planes")?;
        check_capacity("planes", self.planes.len(), crate::layout::MAX_PLANES)?;
        let item = Item::Plane(index);
        check_vec(item, "normal", p.normal)?;
        check_bounded(item, "offset", p.offset, MAX_COORD, "|offset| <= 1e7 m")?;
        // Scale first so that huge or tiny finite normals normalise too.
        let scale = p.normal.abs().max_element();
        if scale == 0.0 {
            return Err(WorldError::ZeroNormal { item });
        }
        let n = p.normal / scale;
        p.normal = n / n.length();
        self.planes.push(p);
        Ok(PlaneHandle(index))
    }

    /// Validates the parameters (items are validated when added).
    pub fn validate(&self) -> Result<(), WorldError> {
        self.params.validate()
    }

    /// A material with every default resolved.
    ///
    /// # Panics
    ///
    /// On a handle this world did not make; see
    /// [`try_resolve_material`](Self::try_resolve_material).
    pub fn resolve_material(&self, m: MaterialHandle) -> MaterialInfo {
        self.try_resolve_material(m)
            .unwrap_or_else(|| panic!("unknown material handle {}", m.0))
    }
    /// A material with every default resolved, or `None` for an unknown
    /// handle.
    pub fn try_resolve_material(&self, m: MaterialHandle) -> Option<MaterialInfo> {
        let mat = self.materials.get(m.index())?;
        let p = &self.params;
        Some(MaterialInfo {
            elasticity: mat.elasticity.unwrap_or(p.elasticity),
            friction: mat.friction.unwrap_or(p.friction),
            static_friction: mat.static_friction.unwrap_or(p.static_friction),
            dynamic_friction: mat.dynamic_friction.unwrap_or(p.dynamic_friction),
        })
    }
}

/// Where the items that survived a removal went: old index to new index.
///
/// Removal keeps the order of the surviving items and closes the gaps, like
/// [`Vec::retain`], so every index after a removed item moves down.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Remap {
    /// New index of each old item, or [`Remap::REMOVED`].
    map: Vec<u32>,
    new_len: usize,
}

impl Remap {
    /// Marks a removed item in [`Remap::as_slice`].
    pub const REMOVED: u32 = u32::MAX;

    /// The remap that keeps the items whose flag is `true`.
    pub fn from_kept(kept: &[bool]) -> Self {
        let mut next = 0u32;
        let map = kept
            .iter()
            .map(|&k| {
                if k {
                    next += 1;
                    next - 1
                } else {
                    Self::REMOVED
                }
            })
            .collect();
        Self {
            map,
            new_len: next as usize,
        }
    }
    /// The new index of old item `old`, or `None` if it was removed (or
    /// never existed).
    pub fn get(&self, old: u32) -> Option<u32> {
        self.map
            .get(old as usize)
            .copied()
            .filter(|&i| i != Self::REMOVED)
    }
    /// New index of every old item, [`Remap::REMOVED`] for removed ones.
    pub fn as_slice(&self) -> &[u32] {
        &self.map
    }
    /// Items before the removal.
    pub fn old_len(&self) -> usize {
        self.map.len()
    }
    /// Items after the removal.
    pub fn new_len(&self) -> usize {
        self.new_len
    }
    /// Whether nothing was removed.
    pub fn is_identity(&self) -> bool {
        self.new_len == self.map.len()
    }
    /// The runs of consecutive survivors, as `(old start, new start, length)`:
    /// moving each run is the whole compaction (a solver copies them on the
    /// GPU instead of reading the state back).
    pub fn kept_runs(&self) -> Vec<(usize, usize, usize)> {
        let mut runs: Vec<(usize, usize, usize)> = Vec::new();
        for (old, &new) in self.map.iter().enumerate() {
            if new == Self::REMOVED {
                continue;
            }
            match runs.last_mut() {
                Some((o, _, len)) if *o + *len == old => *len += 1,
                _ => runs.push((old, new as usize, 1)),
            }
        }
        runs
    }
    /// Keeps the survivors of `items`, in order.
    pub fn retain<T: Clone>(&self, items: &[T]) -> Vec<T> {
        items
            .iter()
            .zip(&self.map)
            .filter(|(_, m)| **m != Self::REMOVED)
            .map(|(t, _)| t.clone())
            .collect()
    }
}

/// What a removal did: the remaps of points, springs and bodies, and which
/// surviving bodies lost points. Pass it to the solvers' `apply_removal`
/// so that they follow the world without being rebuilt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removal {
    /// Old point index to new.
    pub(crate) points: Remap,
    /// Old spring index to new.
    pub(crate) springs: Remap,
    /// Old body index to new.
    pub(crate) bodies: Remap,
    /// Surviving bodies (new indices) that lost some of their points: their
    /// rest shape is the rest shape of the points they kept.
    pub(crate) reshaped: Vec<BodyHandle>,
    /// The world's generation before and after.
    pub(crate) generation: (u64, u64),
}

impl Removal {
    /// Where a point went, or `None` if it was removed.
    pub fn point(&self, h: PointHandle) -> Option<PointHandle> {
        self.points.get(h.0).map(PointHandle)
    }
    /// Where a spring went, or `None` if it was removed.
    pub fn spring(&self, h: SpringHandle) -> Option<SpringHandle> {
        self.springs.get(h.0).map(SpringHandle)
    }
    /// Where a body went, or `None` if it was removed.
    pub fn body(&self, h: BodyHandle) -> Option<BodyHandle> {
        self.bodies.get(h.0).map(BodyHandle)
    }
    /// Old point index to new, for every point.
    pub fn point_remap(&self) -> &Remap {
        &self.points
    }
    /// Old spring index to new, for every spring.
    pub fn spring_remap(&self) -> &Remap {
        &self.springs
    }
    /// Old body index to new, for every body.
    pub fn body_remap(&self) -> &Remap {
        &self.bodies
    }
    /// Surviving bodies (new indices) that lost some of their points: their
    /// rest shape is now the rest shape of the points they kept.
    pub fn reshaped(&self) -> &[BodyHandle] {
        &self.reshaped
    }
    /// The world's [`generation`](World::generation) before and after this
    /// removal.
    pub fn generations(&self) -> (u64, u64) {
        self.generation
    }
}

impl World {
    /// Which removals the world has seen: 0 for a world that has seen none,
    /// and after each removal a number no other removal in this process has
    /// had (so a removal made on a clone of the world is not taken for one
    /// made on the world itself). A solver remembers the generation it
    /// follows, and refuses to follow a world whose generation moved
    /// without being told how (see `GpuSolver::apply_removal`).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Removes a body and the points no other body contains, with every
    /// spring that touches a removed point.
    ///
    /// Points shared with other bodies stay, and so do springs between
    /// surviving points (a removed cell of a [`BoxGrid`](crate::shapes::BoxGrid)
    /// whose four corners are all shared keeps its diagonal springs). The
    /// indices of everything after a removed item move down; the returned
    /// [`Removal`] says where each item went.
    ///
    /// ```
    /// use softbody::prelude::*;
    ///
    /// let mut world = World::default();
    /// let a = BoxShape::new(Vec2::ZERO, Vec2::ONE).build(&mut world)?;
    /// let b = BoxShape::new(Vec2::new(3.0, 0.0), Vec2::ONE).build(&mut world)?;
    /// let removal = world.remove_body(a.bodies[0])?;
    /// assert_eq!(world.points().len(), 4);
    /// assert_eq!(removal.body(b.bodies[0]), Some(BodyHandle(0)));
    /// assert_eq!(removal.point(a.points[0]), None);
    /// # Ok::<(), WorldError>(())
    /// ```
    pub fn remove_body(&mut self, body: BodyHandle) -> Result<Removal, WorldError> {
        if body.index() >= self.bodies.len() {
            return Err(WorldError::UnknownHandle {
                item: Item::Body(body.0),
                len: self.bodies.len() as u32,
            });
        }
        let mut in_other_body = vec![false; self.points.len()];
        for (b, other) in self.bodies.iter().enumerate() {
            if b != body.index() {
                for p in &other.points {
                    in_other_body[p.index()] = true;
                }
            }
        }
        let mut remove_point = vec![false; self.points.len()];
        for p in &self.bodies[body.index()].points {
            remove_point[p.index()] = !in_other_body[p.index()];
        }
        let mut remove_body = vec![false; self.bodies.len()];
        remove_body[body.index()] = true;
        Ok(self.remove_marked(&remove_point, &remove_body))
    }

    /// Removes points, every spring that touches one of them, and the
    /// points from the bodies that contain them. A body left with fewer
    /// than 2 points, or whose remaining rest positions coincide, is
    /// removed too; a body that keeps enough points keeps their rest
    /// positions (it is listed in [`Removal::reshaped`]). Repeated handles
    /// are fine.
    pub fn remove_points(&mut self, points: &[PointHandle]) -> Result<Removal, WorldError> {
        let mut remove_point = vec![false; self.points.len()];
        for p in points {
            if p.index() >= self.points.len() {
                return Err(WorldError::UnknownHandle {
                    item: Item::Point(p.0),
                    len: self.points.len() as u32,
                });
            }
            remove_point[p.index()] = true;
        }
        let remove_body = vec![false; self.bodies.len()];
        Ok(self.remove_marked(&remove_point, &remove_body))
    }

    fn remove_marked(&mut self, remove_point: &[bool], remove_body: &[bool]) -> Removal {
        let points = Remap::from_kept(&remove_point.iter().map(|r| !r).collect::<Vec<_>>());
        let kept_springs: Vec<bool> = self
            .springs
            .iter()
            .map(|s| !remove_point[s.a.index()] && !remove_point[s.b.index()])
            .collect();
        let springs = Remap::from_kept(&kept_springs);

        // Bodies: drop removed points with their rest positions.
        let mut kept_bodies = Vec::with_capacity(self.bodies.len());
        let mut new_bodies = Vec::new();
        let mut new_rest = Vec::new();
        let mut reshaped = Vec::new();
        for ((body, rest), &removed) in self.bodies.iter().zip(&self.rest_shapes).zip(remove_body) {
            if removed {
                kept_bodies.push(false);
                continue;
            }
            let (pts, rs): (Vec<PointHandle>, Vec<Vec2>) = body
                .points
                .iter()
                .zip(rest)
                .filter_map(|(p, r)| points.get(p.0).map(|i| (PointHandle(i), *r)))
                .unzip();
            let lost = pts.len() < body.points.len();
            let degenerate = pts.len() < 2 || rs.iter().all(|r| *r == rs[0]);
            if degenerate {
                kept_bodies.push(false);
                continue;
            }
            kept_bodies.push(true);
            if lost {
                reshaped.push(BodyHandle(new_bodies.len() as u32));
            }
            let mut b = body.clone();
            b.points = pts;
            if let Some(boundary) = &mut b.boundary {
                boundary.retain(|p| !remove_point[p.index()]);
                for p in boundary.iter_mut() {
                    *p = PointHandle(points.get(p.0).expect("kept above"));
                }
            }
            if b.rest.is_some() {
                b.rest = Some(rs.clone());
            }
            new_bodies.push(b);
            new_rest.push(rs);
        }
        let bodies = Remap::from_kept(&kept_bodies);

        let mut new_springs = springs.retain(&self.springs);
        for s in &mut new_springs {
            s.a = PointHandle(points.get(s.a.0).expect("kept springs have kept ends"));
            s.b = PointHandle(points.get(s.b.0).expect("kept springs have kept ends"));
        }
        self.rest_lengths = springs.retain(&self.rest_lengths);
        self.springs = new_springs;
        self.points = points.retain(&self.points);
        self.bodies = new_bodies;
        self.rest_shapes = new_rest;
        let before = self.generation;
        self.generation = REMOVAL_TOKENS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        Removal {
            points,
            springs,
            bodies,
            reshaped,
            generation: (before, self.generation),
        }
    }
}
