//! Flattening a [`World`] into the arrays both solver paths run on.
//!
//! The GPU uploads these arrays into storage buffers as they are; the CPU
//! reference path steps them directly. Per-point adjacency (which springs and
//! which body memberships touch each point) is built here, once, so that every
//! reduction on the GPU is a gather with a fixed summation order.

use crate::error::{Item, WorldError};
use crate::layout::*;
pub use crate::validate::{check_rest_steps, check_state, check_state_len};
use crate::world::{HalfPlane, Planet, World};

mod contacts;
mod edit;
mod params;
pub use edit::scene_hash;
pub use params::{ParamChange, sim_params};

impl From<&Planet> for PlanetInfo {
    fn from(p: &Planet) -> Self {
        PlanetInfo {
            center: p.center.to_array(),
            radius: p.radius,
            layers: p.layers,
        }
    }
}

impl From<&HalfPlane> for PlaneInfo {
    fn from(p: &HalfPlane) -> Self {
        PlaneInfo {
            normal: p.normal.to_array(),
            offset: p.offset,
            layers: p.layers,
        }
    }
}

/// Records grouped by point, the form every per-point gather reads:
/// `offsets[i] .. offsets[i + 1]` index `records`, point `i`'s records
/// being contiguous. Built once when the world is packed (a counting sort),
/// so that each gather sums in a fixed order. Both vectors are empty when
/// there are no records: their stage is then skipped, and `n + 1` zero
/// offsets would cost 4 bytes per point for nothing.
#[derive(Clone, Debug, PartialEq)]
pub struct PerPoint<T> {
    /// `n + 1` offsets, or none.
    pub offsets: Vec<u32>,
    pub records: Vec<T>,
}

impl<T> Default for PerPoint<T> {
    fn default() -> Self {
        Self {
            offsets: Vec::new(),
            records: Vec::new(),
        }
    }
}

impl<T: Copy> PerPoint<T> {
    /// The records of `n` points from `(point, record)` pairs; each point's
    /// records keep the order in which they are given.
    pub fn from_pairs(n: usize, pairs: impl Iterator<Item = (u32, T)> + Clone) -> Self {
        let mut offsets = vec![0u32; n + 1];
        for (p, _) in pairs.clone() {
            offsets[p as usize + 1] += 1;
        }
        if offsets[1..].iter().all(|&c| c == 0) {
            return Self::default();
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut cursor = offsets[..n].to_vec();
        let mut slots = vec![None; offsets[n] as usize];
        for (p, r) in pairs {
            let c = &mut cursor[p as usize];
            slots[*c as usize] = Some(r);
            *c += 1;
        }
        Self {
            offsets,
            records: slots.into_iter().flatten().collect(),
        }
    }

    /// Number of records of point `i`.
    pub fn count(&self, i: usize) -> u32 {
        self.of(i).len() as u32
    }

    /// The records of point `i`.
    pub fn of(&self, i: usize) -> &[T] {
        match self.offsets.get(i..i + 2) {
            Some(&[a, b]) => &self.records[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// Per-point spring records: each the [`HalfSpring`] of one spring seen
/// from point `i`, in spring order.
pub type HalfSprings = PerPoint<HalfSpring>;

impl HalfSprings {
    /// Builds the records of the springs `want` selects, with the
    /// coefficients of a substep `h` for the points' inverse masses.
    fn build(
        info: &[PointInfo],
        springs: &[SpringInfo],
        h: f32,
        want: impl Fn(&SpringInfo) -> bool,
    ) -> Self {
        let pairs = springs.iter().filter(|s| want(s)).flat_map(|s| {
            let soft = if s.kind == KIND_SOFT { HALF_SOFT } else { 0 };
            let w = info[s.a as usize].inv_mass + info[s.b as usize].inv_mass;
            let (pull, damp) = HalfSpring::coefficients(s.kind, s.stiffness, s.damping, h, w);
            let half = |other: u32, flags: u32| HalfSpring {
                other: other | flags,
                rest: s.rest,
                pull,
                damp,
            };
            [(s.a, half(s.b, soft)), (s.b, half(s.a, soft | HALF_IS_B))]
        });
        Self::from_pairs(info.len(), pairs)
    }
}

/// Every membership in `members` with the index of its body, body by body.
fn body_members<'a>(
    bodies: &'a [BodyInfo],
    members: &'a [Member],
) -> impl Iterator<Item = (u32, &'a Member)> + Clone {
    bodies.iter().zip(0u32..).flat_map(move |(b, index)| {
        members[b.first as usize..(b.first + b.count) as usize]
            .iter()
            .map(move |m| (index, m))
    })
}

/// Per-point body memberships: each the [`PointMember`] of one body holding
/// point `i`, in member order (so in body order). The shape-matching gather
/// reads a point's memberships contiguously; the frames reduction reads
/// [`Packed::members`], body by body.
pub type PointMembers = PerPoint<PointMember>;

impl PointMembers {
    /// Builds the records of `n` points from the bodies' members, with the
    /// bodies' damping fractions for a substep `h`.
    fn build(n: usize, bodies: &[BodyInfo], members: &[Member], h: f32) -> Self {
        let relax: Vec<f32> = bodies
            .iter()
            .map(|b| 1.0 - (-b.damping * h).exp())
            .collect();
        let pairs = body_members(bodies, members).map(|(b, m)| {
            let record = PointMember {
                rest: m.rest,
                body: b,
                relax: relax[b as usize],
            };
            (m.point, record)
        });
        Self::from_pairs(n, pairs)
    }
}

impl<T> PerPoint<T> {
    /// Checks the offsets of `n` points against the records: none, or
    /// `n + 1` of them, rising, from 0 to the number of records.
    fn check(&self, n: usize, what: &str) -> Result<(), String> {
        if self.offsets.is_empty() && self.records.is_empty() {
            return Ok(());
        }
        if self.offsets.len() != n + 1 {
            return Err(format!(
                "{what}: {} offsets for {n} points",
                self.offsets.len()
            ));
        }
        if self.offsets[0] != 0
            || self.offsets.windows(2).any(|w| w[0] > w[1])
            || self.offsets[n] as usize != self.records.len()
        {
            return Err(format!(
                "{what}: offsets do not rise from 0 to the {} records",
                self.records.len()
            ));
        }
        Ok(())
    }
}

/// A world flattened into GPU-layout arrays.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Packed {
    pub sim: SimParams,
    pub pos: Vec<[f32; 2]>,
    pub vel: Vec<[f32; 2]>,
    pub point_info: Vec<PointInfo>,
    pub materials: Vec<MaterialInfo>,
    /// Every spring as the world has it (the GPU gets only their ends, for
    /// drawing; the kernels read the per-point records below).
    pub springs: Vec<SpringInfo>,
    /// Force springs and soft constraints, seen from each point.
    pub spring_halves: HalfSprings,
    /// Rods, seen from each point.
    pub rod_halves: HalfSprings,
    pub bodies: Vec<BodyInfo>,
    pub members: Vec<Member>,
    /// The same memberships, seen from each point.
    pub point_members: PointMembers,
    /// Small bodies (one thread each) first, then large ones (a workgroup each).
    pub body_order: Vec<u32>,
    /// Each point's body in impacts (`cpu::impact`), or
    /// [`IMPACT_NONE`]: a body takes part when
    /// none of its points is pinned or a member of another body.
    pub impact_home: Vec<u32>,
    /// Each body's inverse mass in impacts: one over the mass of its
    /// points, or 0 when it takes no part.
    pub impact_inv_mass: Vec<f32>,
    pub planets: Vec<PlanetInfo>,
    pub planes: Vec<PlaneInfo>,
    /// Number of rods (the rod stage is skipped when zero).
    pub num_rods: u32,
    /// Body-body collisions: each point's assembly and filter.
    pub contact_points: Vec<ContactPoint>,
    /// Each body's outline, assembly and filter.
    pub outlines: Vec<BodyOutline>,
    /// The outlines' points, body by body.
    pub outline_points: Vec<u32>,
    /// The colliders: bodies whose outline has at least 3 points, small
    /// outlines first (`SimParams::num_colliders`, `num_small_colliders`),
    /// then the free points that collide as disks (`num_free`).
    pub colliders: Vec<u32>,
    /// Distinct (category, mask, material) of the contact sides.
    pub contact_filters: Vec<ContactFilter>,
    /// Whether body collisions were on when the contact data was packed
    /// (`Params::body_collisions`).
    pub packed_body_collisions: bool,
    /// Whether free points were packed as disks (body collisions on and a
    /// `Params::point_radius` above 0).
    pub packed_free_disks: bool,
}

impl Packed {
    /// Checks that the arrays fit each other: every index within the array
    /// it indexes, the per-point records and the counts in `sim` matching
    /// the arrays. [`Packed::from_world`] and the edits always give such a
    /// `Packed`; one edited by hand (its fields are public) may not be, and
    /// without this check makes `GpuSolver::from_packed` panic on an index
    /// out of bounds.
    pub fn check_consistent(&self) -> Result<(), WorldError> {
        self.consistency().map_err(WorldError::InconsistentPacked)
    }

    fn consistency(&self) -> Result<(), String> {
        let n = self.pos.len();
        let nb = self.bodies.len();
        let sim = &self.sim;
        for (what, len, want) in [
            ("vel", self.vel.len(), n),
            ("point_info", self.point_info.len(), n),
            ("sim.num_points", sim.num_points as usize, n),
            (
                "sim.num_springs",
                sim.num_springs as usize,
                self.springs.len(),
            ),
            ("sim.num_bodies", sim.num_bodies as usize, nb),
            (
                "sim.num_planets",
                sim.num_planets as usize,
                self.planets.len(),
            ),
            ("sim.num_planes", sim.num_planes as usize, self.planes.len()),
            (
                "small and large bodies",
                sim.num_small_bodies as usize + sim.num_large_bodies as usize,
                nb,
            ),
            ("body_order", self.body_order.len(), nb),
        ] {
            if len != want {
                return Err(format!("{what} has {len}, expected {want}"));
            }
        }
        for (what, len, max) in [
            ("planets", self.planets.len(), MAX_PLANETS),
            ("planes", self.planes.len(), MAX_PLANES),
        ] {
            if len > max {
                return Err(format!("{len} {what}, more than the {max} a solver holds"));
            }
        }
        let point = |what: &str, i: usize, p: u32| {
            if p as usize >= n {
                Err(format!("{what} {i} refers to point {p} of {n}"))
            } else {
                Ok(())
            }
        };
        for (i, info) in self.point_info.iter().enumerate() {
            if info.material as usize >= self.materials.len() {
                return Err(format!(
                    "point {i} has material {} of {}",
                    info.material,
                    self.materials.len()
                ));
            }
        }
        let rods = self.springs.iter().filter(|s| s.kind == KIND_ROD).count();
        if rods != self.num_rods as usize {
            return Err(format!(
                "num_rods is {}, the springs have {rods}",
                self.num_rods
            ));
        }
        for (i, s) in self.springs.iter().enumerate() {
            point("spring", i, s.a)?;
            point("spring", i, s.b)?;
            if s.a == s.b || s.kind > KIND_ROD {
                return Err(format!("spring {i} is not a spring between two points"));
            }
        }
        for (what, halves) in [
            ("spring_halves", &self.spring_halves),
            ("rod_halves", &self.rod_halves),
        ] {
            halves.check(n, what)?;
            for (i, h) in halves.records.iter().enumerate() {
                point(what, i, h.other & HALF_INDEX)?;
            }
        }
        let mut members = 0u64;
        for (i, b) in self.bodies.iter().enumerate() {
            if b.first as u64 + b.count as u64 > self.members.len() as u64 {
                return Err(format!(
                    "body {i}'s members run past the {} members",
                    self.members.len()
                ));
            }
            members += b.count as u64;
        }
        if members != self.members.len() as u64 {
            return Err(format!(
                "the bodies hold {members} members, there are {}",
                self.members.len()
            ));
        }
        for (i, m) in self.members.iter().enumerate() {
            point("member", i, m.point)?;
        }
        self.point_members.check(n, "point_members")?;
        if self.point_members.records.len() != self.members.len() {
            return Err("point_members does not hold every member".into());
        }
        for (i, m) in self.point_members.records.iter().enumerate() {
            if m.body as usize >= nb {
                return Err(format!(
                    "point member {i} refers to body {} of {nb}",
                    m.body
                ));
            }
        }
        let mut seen = vec![false; nb];
        for &b in &self.body_order {
            match seen.get_mut(b as usize) {
                Some(s) if !*s => *s = true,
                _ => return Err(format!("body_order lists body {b} twice or out of range")),
            }
        }
        // The contact data, when there is any.
        if !self.contact_points.is_empty() || !self.outlines.is_empty() {
            if self.contact_points.len() != n || self.outlines.len() != nb {
                return Err("the contact data does not have one entry per point and body".into());
            }
            let filters = self.contact_filters.len();
            for (i, c) in self.contact_points.iter().enumerate() {
                if (c.filter_id & !CONTACT_FREE) as usize >= filters {
                    return Err(format!(
                        "contact point {i} has filter {} of {filters}",
                        c.filter_id
                    ));
                }
            }
            for (i, o) in self.outlines.iter().enumerate() {
                if o.first as u64 + o.count as u64 > self.outline_points.len() as u64
                    || o.filter_id as usize >= filters
                {
                    return Err(format!(
                        "outline {i} runs past the outline points or filters"
                    ));
                }
            }
            for (i, &p) in self.outline_points.iter().enumerate() {
                point("outline point", i, p)?;
            }
        }
        let colliders = sim.num_colliders as usize;
        if self.colliders.len() != colliders + sim.num_free as usize
            || sim.num_small_colliders > sim.num_colliders
        {
            return Err(format!(
                "{} colliders, sim counts {} bodies and {} free points",
                self.colliders.len(),
                sim.num_colliders,
                sim.num_free
            ));
        }
        for (i, &c) in self.colliders.iter().enumerate() {
            let (kind, len) = if i < colliders {
                ("body", nb)
            } else {
                ("point", n)
            };
            if c as usize >= len {
                return Err(format!("collider {i} refers to {kind} {c} of {len}"));
            }
        }
        Ok(())
    }

    /// Flattens a world. Fails only if the parameters are invalid (items are
    /// validated when added to the world).
    pub fn from_world(world: &World) -> Result<Self, WorldError> {
        world.validate()?;
        // Packing a world is appending all of it to an empty one: one code
        // path for both, so an edited solver steps what a new one would.
        let mut packed = Self::default();
        packed.append_from(world)?;
        Ok(packed)
    }
}

/// The worst point of a world for each stability bound (see
/// docs/physics.md, "Stability bounds"). Loads are dimensionless.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stability {
    /// `max_i sum_springs k h^2 (w_a + w_b)` over the force springs at a
    /// free point, and that point; keep below 1. A pinned point carries no
    /// load: it does not move, whatever pulls on it.
    pub spring_load: (f32, u32),
    /// `max_i sum_bodies k h^2` over the bodies containing a point; keep
    /// below 1.
    pub shape_load: (f32, u32),
    /// `max_i` of the summed damping fractions at a free point: each spring,
    /// soft constraint and body at it adds its `alpha = 1 - exp(-c h)`
    /// (soft constraints: `1 - exp(-k h)`). Each link is `alpha` times a
    /// projector in the mass-weighted metric, so this bounds the damping
    /// operator's largest eigenvalue: monotone at or below 1, unstable only
    /// above 2. A spring adds its whole `alpha` at each end: splitting it
    /// between its ends by inverse mass would read half the true value for
    /// equal masses.
    pub damping_load: (f32, u32),
    /// The first force spring, else the first body, that diverges on its
    /// own at this substep ([`WorldError::Unstable`]: a spring past
    /// `2 (1 + E) / E`, a body past `2 (1 + E)`, `E = exp(-c h)` its damping
    /// factor); solvers refuse a world that has one.
    pub diverging: Option<WorldError>,
}

/// The largest undamped `w^2 h^2` a force spring with damping factor
/// `e = exp(-c h)` per substep takes before it diverges on its own. Its
/// damping scales the whole new velocity, kick included: one substep is the
/// matrix `[[1, h], [-e w^2 h, e (1 - w^2 h^2)]]` (docs/physics.md, "Exact
/// discrete behaviour of a two-body spring"), with determinant `e < 1` and
/// trace `1 + e (1 - x)`, which has an eigenvalue beyond -1 exactly when
/// `x > 2 (1 + e) / e`.
fn spring_limit(e: f32) -> f32 {
    2.0 * (1.0 + e) / e
}

/// The same for a body: its pull `k h (target - x)` and its relaxation
/// `alpha (rigid - v)` are both added to the old velocity, so the damping
/// does not scale the pull: one substep of a member relative to the rigid
/// motion is `v' = e v - k h x`, `x' = x + h v'`, with determinant `e` and
/// trace `1 + e - x`, past -1 exactly when `x = k h^2 > 2 (1 + e)`.
fn body_limit(e: f32) -> f32 {
    2.0 * (1.0 + e)
}

impl Stability {
    /// The link that diverges on its own, if any, as an error.
    pub fn check(&self) -> Result<(), WorldError> {
        match &self.diverging {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// One line per bound the world exceeds (empty when all is well).
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        let (s, i) = self.spring_load;
        if s >= 1.0 {
            out.push(format!(
                "point {i}: spring load sum k h^2 (1/m_a + 1/m_b) = {s:.3} >= 1: its springs may blow up; raise substeps or lower stiffness"
            ));
        }
        let (s, i) = self.shape_load;
        if s >= 1.0 {
            out.push(format!(
                "point {i}: shape load sum k h^2 = {s:.3} >= 1 over its bodies: may blow up; raise substeps or lower shape stiffness"
            ));
        }
        let (s, i) = self.damping_load;
        if s > 1.0 {
            out.push(format!(
                "point {i}: summed damping fraction {s:.3} > 1: its velocity overshoots (unstable above 2); lower damping or raise substeps"
            ));
        }
        out
    }
}

impl Packed {
    /// Every membership with the index of its body, in member order.
    pub fn body_members(&self) -> impl Iterator<Item = (u32, &Member)> {
        body_members(&self.bodies, &self.members)
    }

    /// The world's worst points against the stability bounds, at substep `h`.
    pub fn stability(&self, h: f32) -> Stability {
        let n = self.pos.len();
        let mut spring = vec![0.0f32; n];
        let mut shape = vec![0.0f32; n];
        let mut damping = vec![0.0f32; n];
        // The first link found past its own limit (see `spring_limit` and
        // `body_limit`).
        let mut diverging = None;
        let mut flag = |item, what, value: f32, limit: f32| {
            if diverging.is_none() && value > limit {
                diverging = Some(WorldError::Unstable {
                    item,
                    what,
                    value,
                    limit,
                    h,
                });
            }
        };
        for (index, s) in self.springs.iter().enumerate() {
            let (a, b) = (s.a as usize, s.b as usize);
            let (wa, wb) = (self.point_info[a].inv_mass, self.point_info[b].inv_mass);
            let w = wa + wb;
            if w == 0.0 {
                continue;
            }
            // Stiffness load and damping fraction of the link.
            let (load, alpha) = match s.kind {
                KIND_SPRING => {
                    let load = s.stiffness * h * h * w;
                    let e = (-s.damping * h).exp();
                    flag(
                        Item::Spring(index as u32),
                        "k (1/m_a + 1/m_b) h^2",
                        load,
                        spring_limit(e),
                    );
                    (load, 1.0 - e)
                }
                KIND_SOFT => (0.0, 1.0 - (-s.stiffness * h).exp()),
                _ => (0.0, 0.0),
            };
            // A pinned end does not move: the link loads and damps the free
            // ends alone.
            for (i, wi) in [(a, wa), (b, wb)] {
                if wi > 0.0 {
                    spring[i] += load;
                    damping[i] += alpha;
                }
            }
        }
        for (b, m) in self.body_members() {
            let body = &self.bodies[b as usize];
            let i = m.point as usize;
            if self.point_info[i].inv_mass == 0.0 {
                continue;
            }
            // The area term stiffens the body's breathing mode by its own k.
            let area = if body.area_norm > 0.0 {
                body.area_stiffness
            } else {
                0.0
            };
            let load = (body.stiffness + area) * h * h;
            shape[i] += load;
            let e = (-body.damping * h).exp();
            damping[i] += 1.0 - e;
            flag(Item::Body(b), "(k + k_area) h^2", load, body_limit(e));
        }
        let worst = |v: &[f32]| {
            v.iter().enumerate().fold((0.0f32, 0u32), |best, (i, &x)| {
                if x > best.0 { (x, i as u32) } else { best }
            })
        };
        Stability {
            spring_load: worst(&spring),
            shape_load: worst(&shape),
            damping_load: worst(&damping),
            diverging,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::*;

    /// Two boxes of a grid share an edge, so two points are in both bodies;
    /// a loose box with its own damping is in one.
    fn world() -> World {
        let mut w = World::default();
        BoxGrid::new(2, 1, Vec2::splat(0.5))
            .body_damping(3.0)
            .build(&mut w)
            .unwrap();
        BoxShape::new(Vec2::new(3.0, 0.0), Vec2::splat(0.4))
            .body_damping(7.0)
            .build(&mut w)
            .unwrap();
        w
    }

    #[test]
    fn point_members_list_every_membership_from_its_point_in_body_order() {
        let w = world();
        let p = Packed::from_world(&w).unwrap();
        let h = w.params.h();
        let pm = &p.point_members;
        assert_eq!(pm.offsets.len(), p.pos.len() + 1);
        assert_eq!(pm.records.len(), p.members.len());
        for (b, m) in p.body_members() {
            let body = &p.bodies[b as usize];
            let want = PointMember {
                rest: m.rest,
                body: b,
                relax: 1.0 - (-body.damping * h).exp(),
            };
            assert!(pm.of(m.point as usize).contains(&want), "{m:?}");
        }
        let shared = (0..p.pos.len()).filter(|&i| pm.count(i) == 2).count();
        assert_eq!(shared, 2, "the grid's middle edge");
        for i in 0..p.pos.len() {
            let bodies: Vec<u32> = pm.of(i).iter().map(|r| r.body).collect();
            assert!(bodies.is_sorted(), "point {i}: {bodies:?}");
        }
        // The damping fractions follow h.
        let mut q = p.clone();
        q.refresh_step_coefficients(2.0 * h);
        let r = &q.point_members.records[0];
        let c = q.bodies[r.body as usize].damping;
        assert_eq!(r.relax, 1.0 - (-c * 2.0 * h).exp());
    }

    #[test]
    fn a_world_without_rods_keeps_no_rod_offsets() {
        let p = Packed::from_world(&world()).unwrap();
        assert_eq!(p.num_rods, 0);
        assert!(p.rod_halves.offsets.is_empty());
        assert!(p.rod_halves.records.is_empty());
        assert_eq!(p.rod_halves.of(3), &[]);
        assert_eq!(p.rod_halves.count(3), 0);
        assert_eq!(p.spring_halves.offsets.len(), p.pos.len() + 1);
    }
}
