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

mod append;
mod body_order;
mod changed;
mod consistency;
mod contacts;
mod edit;
mod follow;
mod follow_contacts;
mod hash;
mod items;
mod joins;
mod params;
mod split_list;
mod stability;
mod terrain;
pub(crate) use changed::{ARRAYS, Array, Changed};
pub(crate) use follow::Touched;
pub use hash::scene_hash;
pub use params::{ParamChange, sim_params};
pub use stability::{SAG_LIMIT, Stability};
pub use terrain::{PackedTerrain, thickness as terrain_thickness};

impl From<&Planet> for PlanetInfo {
    fn from(p: &Planet) -> Self {
        PlanetInfo {
            center: p.center.to_array(),
            velocity: p.velocity.to_array(),
            radius: p.radius,
            layers: p.layers,
            gravity: p.gravity,
            spin: p.spin,
            origin: p.center.to_array(),
            ..Default::default()
        }
    }
}

impl From<&HalfPlane> for PlaneInfo {
    fn from(p: &HalfPlane) -> Self {
        let pivot = p.pivot.unwrap_or(p.normal * p.offset).to_array();
        PlaneInfo {
            normal: p.normal.to_array(),
            offset: p.offset,
            layers: p.layers,
            velocity: p.velocity.to_array(),
            pivot,
            normal0: p.normal.to_array(),
            pivot0: pivot,
            spin: p.spin,
            offset0: p.offset,
            ..Default::default()
        }
    }
}

/// Records grouped by point, the form every per-point gather reads: point
/// `i`'s records are `records[ranges[i].span()]`, contiguous. Built when
/// the world is packed (a counting sort), so that each gather sums in a
/// fixed order. A range says where its records lie rather than the next
/// point's range saying where they end, so that an edit may move a point's
/// range or leave records no range names. Both vectors are empty when
/// there are no records: their stage is then skipped, and `n` empty
/// ranges would cost 8 bytes per point for nothing.
#[derive(Clone, Debug, PartialEq)]
pub struct PerPoint<T> {
    /// One range per point, or none.
    pub ranges: Vec<RecordRange>,
    pub records: Vec<T>,
}

impl<T> Default for PerPoint<T> {
    fn default() -> Self {
        Self {
            ranges: Vec::new(),
            records: Vec::new(),
        }
    }
}

impl<T: Copy> PerPoint<T> {
    /// The records of `n` points from `(point, record)` pairs; each point's
    /// records keep the order in which they are given, and the points'
    /// ranges follow one another in point order.
    pub fn from_pairs(n: usize, pairs: impl Iterator<Item = (u32, T)>) -> Self {
        // Made once (a record's coefficients cost an exp), then placed by
        // a counting sort.
        let pairs: Vec<(u32, T)> = pairs.collect();
        let Some(&(_, filler)) = pairs.first() else {
            return Self::default();
        };
        let mut ranges = vec![RecordRange::default(); n];
        for &(p, _) in &pairs {
            ranges[p as usize].count += 1;
        }
        let mut start = 0;
        for r in &mut ranges {
            r.start = start;
            start += r.count;
        }
        let mut cursor: Vec<u32> = ranges.iter().map(|r| r.start).collect();
        let mut records = vec![filler; pairs.len()];
        for (p, r) in pairs {
            let c = &mut cursor[p as usize];
            records[*c as usize] = r;
            *c += 1;
        }
        Self { ranges, records }
    }

    /// Number of records of point `i`.
    pub fn count(&self, i: usize) -> u32 {
        self.ranges.get(i).map_or(0, |r| r.count)
    }

    /// The records of point `i`.
    pub fn of(&self, i: usize) -> &[T] {
        match self.ranges.get(i) {
            Some(r) => &self.records[r.span()],
            None => &[],
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
        want: impl Fn(&SpringInfo) -> bool + Clone,
    ) -> Self {
        Self::from_pairs(info.len(), Self::pairs(info, springs, h, want))
    }

    /// The `(point, record)` pairs of the springs `want` selects, in
    /// spring order.
    fn pairs<'a>(
        info: &'a [PointInfo],
        springs: &'a [SpringInfo],
        h: f32,
        want: impl Fn(&SpringInfo) -> bool + Clone + 'a,
    ) -> impl Iterator<Item = (u32, HalfSpring)> + Clone + 'a {
        (springs.iter().filter(move |s| want(s))).flat_map(move |s| Self::halves(info, s, h))
    }

    /// Spring `s` seen from its end `a` and from its end `b`.
    fn halves(info: &[PointInfo], s: &SpringInfo, h: f32) -> [(u32, HalfSpring); 2] {
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
        Self::from_pairs(n, Self::pairs(bodies, members, h, 0))
    }

    /// The `(point, record)` pairs of `bodies`, the first of which is body
    /// `first`, in member order.
    fn pairs<'a>(
        bodies: &'a [BodyInfo],
        members: &'a [Member],
        h: f32,
        first: u32,
    ) -> impl Iterator<Item = (u32, PointMember)> + Clone + 'a {
        body_members(bodies, members)
            .map(move |(b, m)| (m.point, Self::record(&bodies[b as usize], first + b, m, h)))
    }

    /// Member `m` of body `body` (at index `index`) seen from its point.
    fn record(body: &BodyInfo, index: u32, m: &Member, h: f32) -> PointMember {
        PointMember {
            rest: m.rest,
            body: index,
            relax: 1.0 - (-body.damping * h).exp(),
        }
    }
}

/// A world flattened into GPU-layout arrays.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Packed {
    pub sim: SimParams,
    pub pos: Vec<[f32; 2]>,
    pub vel: Vec<[f32; 2]>,
    pub point_info: Vec<PointInfo>,
    /// Each point's gravity scale ([`Point::gravity_scale`](crate::world::Point::gravity_scale)).
    pub gravity_scale: Vec<f32>,
    pub materials: Vec<MaterialInfo>,
    /// Every spring as the world has it (the GPU gets only their ends, for
    /// drawing; the kernels read the per-point records below).
    pub springs: Vec<SpringInfo>,
    /// Force springs and soft constraints, seen from each point.
    pub spring_halves: HalfSprings,
    /// Rods, seen from each point.
    pub rod_halves: HalfSprings,
    pub bodies: Vec<BodyInfo>,
    /// Each body's points and rest offsets, at its `first .. first +
    /// count`: body by body when packed; removals leave holes behind
    /// (`follow.rs`) until they outnumber the members kept.
    pub members: Vec<Member>,
    /// How many of `members` no body names.
    pub member_holes: usize,
    /// How many records of `spring_halves`, `rod_halves` and
    /// `point_members` no range names (left by removals).
    pub unnamed_records: [usize; 3],
    /// The same memberships, seen from each point.
    pub point_members: PointMembers,
    /// Small bodies (one thread each) first, then large ones (a workgroup each).
    pub body_order: Vec<u32>,
    /// Each point's body in impacts (`cpu::impact`), or
    /// [`IMPACT_NONE`]: a body takes part when none of its points is a
    /// member of another body and none is pinned, or all are, in a
    /// kinematic body.
    pub impact_home: Vec<u32>,
    /// Each body's inverse mass in impacts: one over the mass of its
    /// points, [`IMPACT_KINEMATIC`] for a
    /// kinematic body that takes part, or 0 when it takes no part.
    pub impact_inv_mass: Vec<f32>,
    pub planets: Vec<PlanetInfo>,
    pub planes: Vec<PlaneInfo>,
    /// The kinematic bodies ([`Body::kinematic`](crate::world::Body::kinematic)),
    /// in body order: the bodies `cpu::move_bodies` poses each substep.
    pub kinematic: Vec<u32>,
    /// The terrain polylines' segments and their grid.
    pub terrain: PackedTerrain,
    /// How many terrain polylines `terrain` holds.
    pub terrains: u32,
    /// Number of rods (the rod stage is skipped when zero).
    pub num_rods: u32,
    /// Body-body collisions: each point's assembly and filter.
    pub contact_points: Vec<ContactPoint>,
    /// Each body's outline, assembly and filter.
    pub outlines: Vec<BodyOutline>,
    /// Each body's segment: its outline's points, then its list of joined
    /// bodies and the unions behind it (`joins.rs`). Body by body when
    /// packed; removals leave holes behind (`follow_contacts.rs`) until
    /// they outnumber what is kept.
    pub outline_points: Vec<u32>,
    /// How many of `outline_points` no segment holds.
    pub outline_holes: usize,
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
    /// The `(category, mask, material)` of each contact filter: the
    /// bodies' first, in body order, then the free points' (`pack_contacts`).
    pub filter_keys: Vec<[u32; 3]>,
    /// How many of the filters bodies use first.
    pub body_filters: u32,
    /// The colliders' rest extents, sorted (the grid's cell and the
    /// contact scale follow their 95th percentile).
    pub collider_extents: Vec<f32>,
    /// The world's joints ([`World::joints`](crate::world::World::joints)),
    /// which the solvers make into commands at every step
    /// ([`standing_joints`](crate::commands::standing_joints)).
    pub joints: Vec<crate::world::Joint>,
    /// The fingerprint of the world's items packed here
    /// (`World::prefix_fingerprint`), for a sync's check that the world is
    /// the one packed.
    pub prefix: [u64; 3],
}

impl Packed {
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

impl Packed {
    /// Every membership with the index of its body, in member order.
    pub fn body_members(&self) -> impl Iterator<Item = (u32, &Member)> {
        body_members(&self.bodies, &self.members)
    }

    /// Each body's set inflation, where its area term's ramp starts
    /// (`shape_match::ramp_inflation`): a new or edited solver's bodies
    /// aim at their targets at once.
    pub fn inflations(&self) -> Vec<f32> {
        self.bodies.iter().map(|b| b.inflation).collect()
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
        assert_eq!(pm.ranges.len(), p.pos.len());
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
    fn a_world_without_rods_keeps_no_rod_ranges() {
        let p = Packed::from_world(&world()).unwrap();
        assert_eq!(p.num_rods, 0);
        assert!(p.rod_halves.ranges.is_empty());
        assert!(p.rod_halves.records.is_empty());
        assert_eq!(p.rod_halves.of(3), &[]);
        assert_eq!(p.rod_halves.count(3), 0);
        assert_eq!(p.spring_halves.ranges.len(), p.pos.len());
    }
}
