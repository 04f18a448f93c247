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
    check_opt_non_negative, check_position, check_spin, check_state, check_vec, check_velocity,
};

mod fingerprint;
use fingerprint::Edit;
mod items;
mod joints;
mod keys;
pub(crate) mod links;
mod remap;
mod removal;
mod terrain;
mod transaction;

pub use items::*;
pub use joints::{AngularSpring, Joint, Motor};
pub use keys::{BodyKey, PointKey};
pub use remap::Remap;
pub use removal::Removal;
pub use terrain::{TERRAIN_THICKNESS_RADII, Terrain};
pub use transaction::Transaction;

/// Largest number of points, springs, bodies or memberships: indices are u32
/// and the top two bits carry flags in the GPU's spring records.
pub const MAX_ITEMS: u64 = 1 << 30;

/// Everything the solvers simulate.
///
/// Items are added with the `add_*` methods (or the shape builders of
/// [`crate::shapes`]), each validated as it comes, several at once or none
/// with [`World::transaction`], and removed with
/// [`World::remove_body`], [`World::remove_bodies`] and [`World::remove_points`].
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
    terrains: Vec<Terrain>,
    materials: Vec<Material>,
    /// Motors, springs and angle limits the solvers apply every step
    /// (`joints.rs`).
    joints: Vec<Joint>,
    /// Lasting names of the points and bodies (`keys.rs`).
    point_keys: keys::Keys,
    body_keys: keys::Keys,
    /// Each point's springs and bodies (`links.rs`).
    links: links::Links,
    /// Fingerprints of the points, springs and bodies (`fingerprint.rs`).
    fingerprints: fingerprint::Fingerprints,
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
            terrains: Vec::new(),
            materials: vec![Material::DEFAULT],
            joints: Vec::new(),
            point_keys: Default::default(),
            body_keys: Default::default(),
            links: Default::default(),
            fingerprints: Default::default(),
            generation: 0,
        }
    }

    /// Each point's springs and bodies.
    pub(crate) fn links(&self) -> &links::Links {
        &self.links
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
    /// The box `(min, max)` around every point, planet and terrain vertex
    /// whose position (a planet's centre) `keep` accepts, planets whole;
    /// half-planes are unbounded and left out. `None` when nothing is kept.
    pub fn bounds(&self, keep: impl Fn(Vec2) -> bool) -> Option<(Vec2, Vec2)> {
        let mut min = Vec2::splat(f32::INFINITY);
        let mut max = Vec2::splat(f32::NEG_INFINITY);
        for p in self.points.iter().filter(|p| keep(p.pos)) {
            min = min.min(p.pos);
            max = max.max(p.pos);
        }
        for planet in self.planets.iter().filter(|p| keep(p.center)) {
            min = min.min(planet.center - Vec2::splat(planet.radius));
            max = max.max(planet.center + Vec2::splat(planet.radius));
        }
        for p in self
            .terrains
            .iter()
            .flat_map(|t| &t.points)
            .filter(|p| keep(**p))
        {
            min = min.min(*p);
            max = max.max(*p);
        }
        (min.x <= max.x).then_some((min, max))
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
        crate::validate::check_gravity_scale(item, p.gravity_scale)?;
        if p.material.index() >= self.materials.len() {
            return Err(WorldError::IndexOutOfRange {
                item,
                field: "material",
                index: p.material.0,
                len: self.materials.len() as u32,
            });
        }
        self.point_keys.push();
        let keys = &self.point_keys;
        self.fingerprints.point(keys, index as usize, &p, Edit::Add);
        self.links.add_point();
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
        self.fingerprints.spring(&self.point_keys, &s, Edit::Add);
        self.links.add_spring(index, s.a.0, s.b.0);
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
        if b.kinematic {
            self.check_kinematic_points(item, &b.points, None)?;
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
        self.fingerprints.body(&self.point_keys, &b, Edit::Add);
        self.links.add_body(index, b.points.iter().map(|p| p.0));
        self.bodies.push(b);
        self.body_keys.push();
        self.rest_shapes.push(rest);
        Ok(BodyHandle(index))
    }

    /// Makes `body` kinematic ([`Body::kinematic`]): pins its points and
    /// gives them the velocity of a rigid body moving at `velocity` (m/s)
    /// and turning at `spin` (rad/s, counter-clockwise) about the mean of
    /// its points. A solver takes it when it is made, or at a sync if the
    /// body was added since the last one; afterwards, steer the body with
    /// the body commands (`BodyVelocity`, `BodyTarget`, `BodyTeleport`).
    /// Refuses a body with a point in another kinematic body, or a motion
    /// that is not finite or past the velocity limit.
    pub fn set_kinematic(
        &mut self,
        body: BodyHandle,
        velocity: Vec2,
        spin: f32,
    ) -> Result<(), WorldError> {
        let item = Item::Body(body.0);
        let Some(b) = self.bodies.get(body.index()) else {
            return Err(WorldError::UnknownHandle {
                item,
                len: self.bodies.len() as u32,
            });
        };
        let points = b.points.clone();
        self.check_kinematic_points(item, &points, Some(body))?;
        crate::validate::check_velocity(item, "velocity", velocity)?;
        crate::validate::check_finite(item, "spin", spin)?;
        let n = points.len() as f32;
        let center = points
            .iter()
            .map(|p| self.points[p.index()].pos)
            .sum::<Vec2>()
            / n;
        for p in &points {
            let d = self.points[p.index()].pos - center;
            let v = velocity + spin * d.perp();
            crate::validate::check_velocity(item, "spin", v)?;
        }
        // The body and its points change: their hashes, not the world's.
        self.hash_body_and_points(body, Edit::Take);
        for p in &points {
            let point = &mut self.points[p.index()];
            point.vel = velocity + spin * (point.pos - center).perp();
            point.mass = 0.0;
        }
        self.bodies[body.index()].kinematic = true;
        self.hash_body_and_points(body, Edit::Add);
        debug_assert!(self.fingerprints_hold());
        Ok(())
    }

    /// Whether the fingerprints kept up to date by the edits are those of
    /// the items hashed afresh.
    fn fingerprints_hold(&self) -> bool {
        let keys = &self.point_keys;
        let fresh = fingerprint::Fingerprints::of(keys, &self.points, &self.springs, &self.bodies);
        self.fingerprints == fresh
    }

    /// `body` and its points into the fingerprints or out of them, around
    /// a change to them.
    fn hash_body_and_points(&mut self, body: BodyHandle, edit: Edit) {
        let (b, keys, f) = (
            &self.bodies[body.index()],
            &self.point_keys,
            &mut self.fingerprints,
        );
        for p in &b.points {
            f.point(keys, p.index(), &self.points[p.index()], edit);
        }
        f.body(keys, b, edit);
    }

    /// The fingerprint of the first `points`, `springs` and `bodies`
    /// items (`fingerprint.rs`), `None` past the ends: what a solver that
    /// packed them compares on a sync. It hashes the items after them.
    pub(crate) fn prefix_fingerprint(
        &self,
        points: usize,
        springs: usize,
        bodies: usize,
    ) -> Option<[u64; 3]> {
        let (mut f, keys) = (self.fingerprints, &self.point_keys);
        for (i, p) in self.points.get(points..)?.iter().enumerate() {
            f.point(keys, points + i, p, Edit::Take);
        }
        for s in self.springs.get(springs..)? {
            f.spring(keys, s, Edit::Take);
        }
        for b in self.bodies.get(bodies..)? {
            f.body(keys, b, Edit::Take);
        }
        Some(f.to_array())
    }

    /// A kinematic body's points (body `own`, if added already) are in no
    /// other kinematic body, and, for a body being added, all pinned.
    fn check_kinematic_points(
        &self,
        item: Item,
        points: &[PointHandle],
        own: Option<BodyHandle>,
    ) -> Result<(), WorldError> {
        for p in points {
            if own.is_none() && !self.points[p.index()].is_pinned() {
                return Err(WorldError::DegenerateBody {
                    item,
                    reason: format!(
                        "kinematic, but its point {} is not pinned (mass 0); World::set_kinematic pins them",
                        p.0
                    ),
                });
            }
        }
        for (k, other) in self.bodies.iter().enumerate() {
            if !other.kinematic || own.is_some_and(|o| o.index() == k) {
                continue;
            }
            if let Some(p) = points.iter().find(|p| other.points.contains(p)) {
                return Err(WorldError::DegenerateBody {
                    item,
                    reason: format!(
                        "kinematic, but its point {} is also in kinematic body {k}",
                        p.0
                    ),
                });
            }
        }
        Ok(())
    }

    /// Adds a planet (at most [`MAX_PLANETS`](crate::layout::MAX_PLANETS)).
    pub fn add_planet(&mut self, p: Planet) -> Result<PlanetHandle, WorldError> {
        let index = next_index(self.planets.len(), "planets")?;
        check_capacity("planets", self.planets.len(), crate::layout::MAX_PLANETS)?;
        let item = Item::Planet(index);
        check_position(item, "center", p.center)?;
        check_length(item, "radius", p.radius)?;
        crate::validate::check_planet_gravity(item, p.gravity)?;
        check_velocity(item, "velocity", p.velocity)?;
        check_spin(item, p.spin)?;
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
        check_velocity(item, "velocity", p.velocity)?;
        check_spin(item, p.spin)?;
        if let Some(pivot) = p.pivot {
            check_position(item, "pivot", pivot)?;
        }
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
