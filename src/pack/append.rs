//! Appending items that link no earlier point (a spawned body, a free
//! point, a rope of its own): the per-point records, the body order, the
//! impact bodies and the stability check for the new items alone, so that
//! such an edit costs in proportion to what it adds (plus a merge of the
//! few per-body lists kept in order). [`Packed::append_from`] takes this
//! path whenever it can, and packing a world is appending all of it.

use glam::Vec2;

use super::{HalfSprings, Packed, PerPoint, PointMembers};
use crate::layout::*;
use crate::params::Params;
use crate::world::World;

impl<T: Copy> PerPoint<T> {
    /// Appends the records of points `n0..n` from `(point, record)` pairs
    /// of those points alone: what [`PerPoint::from_pairs`] makes of all.
    pub(super) fn append(&mut self, n0: usize, n: usize, pairs: impl Iterator<Item = (u32, T)>) {
        let part = Self::from_pairs(n - n0, pairs.map(|(p, r)| (p - n0 as u32, r)));
        if part.ranges.is_empty() {
            // No new records: the new points have none, after the last.
            if !self.ranges.is_empty() {
                let start = self.records.len() as u32;
                self.ranges.resize(n, RecordRange { start, count: 0 });
            }
            return;
        }
        if self.ranges.is_empty() {
            self.ranges = vec![RecordRange::default(); n0];
        }
        let base = self.records.len() as u32;
        self.ranges.extend(part.ranges.iter().map(|r| RecordRange {
            start: r.start + base,
            ..*r
        }));
        self.records.extend(part.records);
    }

    /// Back to the records of the first `n0` points, `records` of them.
    fn truncate(&mut self, n0: usize, records: usize) {
        if records == 0 {
            *self = Self::default();
        } else {
            self.ranges.truncate(n0);
            self.records.truncate(records);
        }
    }
}

/// Merges two lists in the order `before` gives (each in that order
/// already): an item of `b` goes after the items of `a` it does not come
/// before, so the merge is stable.
/// Each item of `b` finds its place by a binary search and the items of
/// `a` before it are copied as a run, so that merging a few items into a
/// long list (an edit's bodies into the world's order) costs a copy of
/// the list and a few searches rather than a comparison per item.
pub(super) fn merge_sorted<T: Copy>(a: &[T], b: &[T], before: impl Fn(&T, &T) -> bool) -> Vec<T> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let mut i = 0;
    for y in b {
        let run = a[i..].partition_point(|x| !before(y, x));
        out.extend_from_slice(&a[i..i + run]);
        out.push(*y);
        i += run;
    }
    out.extend_from_slice(&a[i..]);
    out
}

/// The lengths of a packed world's lists, and copies of the few that an
/// append reorders: what [`Packed::restore`] takes it back to when an
/// append fails after it began.
pub(crate) struct Mark {
    points: usize,
    springs: usize,
    bodies: usize,
    members: usize,
    materials: usize,
    kinematic: usize,
    spring_records: usize,
    rod_records: usize,
    member_records: usize,
    outline_points: usize,
    filters: usize,
    body_filters: u32,
    sim: SimParams,
    num_rods: u32,
    body_order: Vec<u32>,
    colliders: Vec<u32>,
    collider_extents: Vec<f32>,
    planets: Vec<PlanetInfo>,
    planes: Vec<PlaneInfo>,
    joints: Vec<crate::world::Joint>,
    prefix: [u64; 3],
}

impl Packed {
    /// Whether appending what `world` has past the packed items can take
    /// the path of this module: the packed items are the world's first
    /// ones, unchanged (their fingerprint), they were packed and resolved
    /// with the world's parameters (`resolved`, `None` when not known),
    /// no new spring or body links a packed point, and the terrain is the
    /// packed one. A packed world with nothing in it takes it too: packing
    /// a world is this append.
    pub(crate) fn appends_locally(&self, world: &World, resolved: Option<&Params>) -> bool {
        let (n0, s0, b0) = (self.pos.len(), self.springs.len(), self.bodies.len());
        let fresh = n0 == 0 && s0 == 0 && b0 == 0 && self.materials.is_empty();
        if fresh {
            return true;
        }
        let n0 = n0 as u32;
        resolved == Some(&world.params)
            && world.prefix_fingerprint(n0 as usize, s0, b0) == Some(self.prefix)
            && world.terrains().len() == self.terrains as usize
            && world
                .springs()
                .get(s0..)
                .is_some_and(|s| s.iter().all(|s| s.a.0 >= n0 && s.b.0 >= n0))
            && world
                .bodies()
                .get(b0..)
                .is_some_and(|b| b.iter().all(|b| b.points.iter().all(|p| p.0 >= n0)))
    }

    /// The per-point records, body order, rod count and impact bodies of
    /// points `n0..`, springs `s0..` and bodies `b0..`, which link no
    /// earlier point, behind those of the earlier ones; and the counts of
    /// `sim`.
    pub(super) fn append_indices(&mut self, params: &Params, n0: usize, s0: usize, b0: usize) {
        self.append_point_records(params.h(), n0, s0, b0);
        self.append_body_indices(params, n0, b0);
    }

    /// The per-point spring and membership records of points `n0..`,
    /// springs `s0..` and bodies `b0..` for a substep `h`, and the rod
    /// count.
    fn append_point_records(&mut self, h: f32, n0: usize, s0: usize, b0: usize) {
        let n = self.point_info.len();
        let (info, springs) = (&self.point_info, &self.springs[s0..]);
        self.spring_halves.append(
            n0,
            n,
            HalfSprings::pairs(info, springs, h, |s| s.kind != KIND_ROD),
        );
        self.rod_halves.append(
            n0,
            n,
            HalfSprings::pairs(info, springs, h, |s| s.kind == KIND_ROD),
        );
        self.point_members.append(
            n0,
            n,
            PointMembers::pairs(&self.bodies[b0..], &self.members, h, b0 as u32),
        );
        self.num_rods += springs.iter().filter(|s| s.kind == KIND_ROD).count() as u32;
    }

    /// The body order and impact bodies of points `n0..` and bodies `b0..`
    /// (their per-point records made), and the counts of `sim`.
    pub(super) fn append_body_indices(&mut self, params: &Params, n0: usize, b0: usize) {
        let n = self.point_info.len();
        // The order `body_order.rs` describes: small bodies by member
        // count, then index; then the large ones by index. The new ones
        // are merged in, not inserted one by one, as a fresh pack appends
        // every body.
        let bodies = &self.bodies;
        let (small, large): (Vec<u32>, Vec<u32>) = (b0 as u32..bodies.len() as u32)
            .partition(|&b| bodies[b as usize].count <= SMALL_BODY_MAX_POINTS);
        let old_small = self.sim.num_small_bodies as usize;
        // The new ones (indices above every old one) sorted by count,
        // stable, then merged behind the old of their count.
        let count = |b: &u32| bodies[*b as usize].count;
        let mut small = small;
        small.sort_by_key(count);
        let mut order = merge_sorted(&self.body_order[..old_small], &small, |x, y| {
            count(x) < count(y)
        });
        order.extend_from_slice(&self.body_order[old_small..]);
        order.extend_from_slice(&large);
        self.body_order = order;
        self.sim = SimParams {
            num_points: n as u32,
            num_springs: self.springs.len() as u32,
            num_bodies: bodies.len() as u32,
            num_planets: self.planets.len() as u32,
            num_planes: self.planes.len() as u32,
            num_small_bodies: (old_small + small.len()) as u32,
            num_large_bodies: self.sim.num_large_bodies + large.len() as u32,
            ..super::sim_params(params, self)
        };
        self.append_impact_bodies(n0, b0);
    }

    /// [`Packed::impact_home`] and [`Packed::impact_inv_mass`] of points
    /// `n0..` and bodies `b0..`, which hold no earlier point, from the
    /// packed points, bodies, members and kinematic bodies.
    fn append_impact_bodies(&mut self, n0: usize, b0: usize) {
        // Each point's body, or SHARED when two or more bodies have it
        // (its memberships, from the per-point records).
        const SHARED: u32 = IMPACT_NONE - 1;
        let mut home: Vec<u32> = (n0..self.point_info.len())
            .map(|i| match self.point_members.of(i) {
                [] => IMPACT_NONE,
                [m] => m.body,
                _ => SHARED,
            })
            .collect();
        // A body takes part unless one of its points is shared, or pinned
        // in a body that is not kinematic (a kinematic body's are all).
        let nb = self.bodies.len() - b0;
        let mut kinematic = vec![false; nb];
        for &b in self.kinematic.iter().filter(|&&b| b as usize >= b0) {
            kinematic[b as usize - b0] = true;
        }
        let mut mass = vec![0.0f32; nb];
        let mut apart = vec![true; nb];
        for (b, body) in self.bodies[b0..].iter().enumerate() {
            for m in &self.members[body.first as usize..(body.first + body.count) as usize] {
                let w = self.point_info[m.point as usize].inv_mass;
                if home[m.point as usize - n0] == SHARED || (w == 0.0 && !kinematic[b]) {
                    apart[b] = false;
                } else if w > 0.0 {
                    mass[b] += 1.0 / w;
                }
            }
        }
        self.impact_inv_mass
            .extend((0..nb).map(|b| match (apart[b], kinematic[b]) {
                (false, _) => 0.0,
                (true, true) => IMPACT_KINEMATIC,
                (true, false) if mass[b] > 0.0 => 1.0 / mass[b],
                (true, false) => 0.0,
            }));
        for h in &mut home {
            if *h == SHARED || (*h != IMPACT_NONE && self.impact_inv_mass[*h as usize] == 0.0) {
                *h = IMPACT_NONE;
            }
        }
        self.impact_home.extend(home);
        // Shape matching's half-plane and planet impacts read it here.
        for (body, &w) in self.bodies[b0..]
            .iter_mut()
            .zip(&self.impact_inv_mass[b0..])
        {
            let members = &self.members[body.first as usize..(body.first + body.count) as usize];
            // Kinematic bodies have no half-plane and planet impacts.
            body.reach = if w <= 0.0 {
                -1.0
            } else {
                members
                    .iter()
                    .map(|m| Vec2::from(m.rest).length())
                    .fold(0.0, f32::max)
            };
        }
    }

    /// What [`Packed::restore`] takes an append back to.
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            points: self.pos.len(),
            springs: self.springs.len(),
            bodies: self.bodies.len(),
            members: self.members.len(),
            materials: self.materials.len(),
            kinematic: self.kinematic.len(),
            spring_records: self.spring_halves.records.len(),
            rod_records: self.rod_halves.records.len(),
            member_records: self.point_members.records.len(),
            outline_points: self.outline_points.len(),
            filters: self.contact_filters.len(),
            body_filters: self.body_filters,
            sim: self.sim,
            num_rods: self.num_rods,
            body_order: self.body_order.clone(),
            colliders: self.colliders.clone(),
            collider_extents: self.collider_extents.clone(),
            planets: self.planets.clone(),
            planes: self.planes.clone(),
            joints: self.joints.clone(),
            prefix: self.prefix,
        }
    }

    /// Takes back an append from the local path (`appends_locally`) to
    /// what it was at `mark`.
    pub(crate) fn restore(&mut self, mark: Mark) {
        let n = mark.points;
        self.pos.truncate(n);
        self.vel.truncate(n);
        self.point_info.truncate(n);
        self.gravity_scale.truncate(n);
        self.impact_home.truncate(n);
        self.contact_points.truncate(n);
        self.springs.truncate(mark.springs);
        self.bodies.truncate(mark.bodies);
        self.impact_inv_mass.truncate(mark.bodies);
        self.outlines.truncate(mark.bodies);
        self.members.truncate(mark.members);
        self.materials.truncate(mark.materials);
        self.kinematic.truncate(mark.kinematic);
        self.spring_halves.truncate(n, mark.spring_records);
        self.rod_halves.truncate(n, mark.rod_records);
        self.point_members.truncate(n, mark.member_records);
        self.outline_points.truncate(mark.outline_points);
        self.contact_filters.truncate(mark.filters);
        self.filter_keys.truncate(mark.filters);
        self.body_filters = mark.body_filters;
        self.sim = mark.sim;
        self.num_rods = mark.num_rods;
        self.body_order = mark.body_order;
        self.colliders = mark.colliders;
        self.collider_extents = mark.collider_extents;
        self.planets = mark.planets;
        self.planes = mark.planes;
        self.joints = mark.joints;
        self.prefix = mark.prefix;
    }
}

#[cfg(test)]
mod tests {
    use super::merge_sorted;
    use proptest::prelude::*;

    proptest! {
        /// The merge is the stable sort of the two lists by key, `a`'s
        /// items before `b`'s among equal keys.
        #[test]
        fn merge_sorted_is_a_stable_sort(
            mut a in proptest::collection::vec((0u8..8, 0u16..1000), 0..40),
            mut b in proptest::collection::vec((0u8..8, 0u16..1000), 0..10),
        ) {
            a.sort_by_key(|x| x.0);
            b.sort_by_key(|x| x.0);
            let merged = merge_sorted(&a, &b, |x, y| x.0 < y.0);
            let mut want: Vec<(u8, u16)> = a.iter().chain(&b).copied().collect();
            want.sort_by_key(|x| x.0);
            prop_assert_eq!(merged, want);
        }
    }
}
