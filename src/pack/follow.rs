//! Following a removal in place: the packed arrays edited where the
//! removal touched them, found through the world's links (each point's
//! springs and bodies), so that the edit costs in proportion to what was
//! removed and what moved rather than to the world.
//!
//! The result is what [`Packed::from_world`] makes of the edited world,
//! the points' state kept, but for where each point's records lie: a
//! point whose records are made again writes them over its old ones (a
//! removal never adds records), and the records of removed points stay
//! behind, named by no range. [`Packed::compacted`] lays them out as a
//! fresh pack does (`tests/edits.rs` compares the two after every kind of
//! removal). Each body's members stay where they lie, a removed body's
//! left as a hole, until the holes outnumber the members kept; then they
//! are laid out body by body again (the renderer's fill follows them,
//! `Topology::fill_at`). The contact data follows in place when the bodies
//! the removal takes or moves are each alone in their assembly
//! (`follow_contacts.rs`), else it is packed again whole.

use super::changed::{Array, Changed};
use super::items::*;
use super::stability::check_body;
use super::{HalfSprings, Packed, PerPoint, PointMembers};
use crate::error::WorldError;
use crate::layout::*;
use crate::world::{Remap, Removal, World};

/// What a removal touched in a packed world, found before anything
/// changes (every index new unless it says otherwise).
pub(crate) struct Touched {
    /// Points whose spring and rod records are made again: the ends of
    /// removed and moved springs, and the neighbours of moved points.
    spring_points: Vec<u32>,
    /// Points whose memberships are made again: the survivors of removed
    /// bodies and the points of moved and reshaped bodies.
    member_points: Vec<u32>,
    /// Bodies whose stiffness, impacts and reach are resolved again, with
    /// their new info (`first` set when the members are laid out), and the
    /// members of the reshaped ones.
    bodies: Vec<(u32, BodyInfo, Option<Vec<Member>>)>,
    /// The places in the body order, before the removal, of the bodies
    /// it takes and of those it places anew ([`placed`]).
    order_places: Vec<usize>,
    /// Packed rods the removal took.
    rods: u32,
    /// How the contact data follows in place, if it can.
    contacts: Option<super::follow_contacts::ContactPlan>,
}

impl Touched {
    /// Whether the contact data follows the removal in place
    /// ([`Packed::follow_plan`] then names the bodies it moved).
    pub(crate) fn follows_contacts(&self) -> bool {
        self.contacts.is_some()
    }
}

/// A removal that does not fit the packed world.
fn foreign(what: String) -> WorldError {
    WorldError::OutOfSync(format!(
        "the removal does not fit the packed world: {what}; was the solver built from this world?"
    ))
}

impl<T: Copy> PerPoint<T> {
    /// Sets point `p`'s records to `records`: over its old ones when they
    /// fit, else behind every record. Returns where they lie now.
    /// `unnamed` counts the records no range names, these left behind.
    fn put(&mut self, p: u32, records: &[T], unnamed: &mut usize) -> std::ops::Range<usize> {
        let Some(range) = self.ranges.get_mut(p as usize) else {
            // No point has records: a removal adds none.
            debug_assert!(records.is_empty(), "records for a point without a range");
            return 0..0;
        };
        let count = records.len() as u32;
        if count > range.count {
            *unnamed += range.count as usize;
            range.start = self.records.len() as u32;
            self.records.extend_from_slice(records);
        } else {
            *unnamed += (range.count - count) as usize;
            let at = range.start as usize;
            self.records[at..at + records.len()].copy_from_slice(records);
        }
        range.count = count;
        range.start as usize..(range.start + count) as usize
    }

    /// Records that some range names.
    pub(super) fn named(&self) -> usize {
        self.ranges.iter().map(|r| r.count as usize).sum()
    }

    /// The same records, each point's behind the previous point's and
    /// none unnamed, as [`PerPoint::from_pairs`] lays them out (no ranges
    /// when there are no records).
    pub fn compacted(&self) -> Self {
        let named = self.named();
        if named == 0 {
            return Self::default();
        }
        let mut records = Vec::with_capacity(named);
        let ranges = (0..self.ranges.len())
            .map(|i| {
                let start = records.len() as u32;
                records.extend_from_slice(self.of(i));
                RecordRange {
                    start,
                    count: records.len() as u32 - start,
                }
            })
            .collect();
        Self { ranges, records }
    }

    /// Removes the ranges of the points `points` removes (applying it to
    /// the ranges), counting their records in `unnamed`.
    fn drop_ranges(&mut self, points: &Remap, unnamed: &mut usize) {
        if self.ranges.is_empty() {
            return;
        }
        let n = self.ranges.len();
        *unnamed += (points.removed())
            .filter(|&p| (p as usize) < n)
            .map(|p| self.ranges[p as usize].count as usize)
            .sum::<usize>();
        points.apply_in_place(&mut self.ranges);
    }

    /// Lays the records out again once the `unnamed` ones outnumber the
    /// named, so that removals leave at most as much behind as is kept;
    /// notes its arrays (`[ranges, records]`) as changed whole when it
    /// does.
    fn compact_when_sparse(
        &mut self,
        changed: &mut Changed,
        arrays: [Array; 2],
        unnamed: &mut usize,
    ) {
        debug_assert_eq!(*unnamed, self.records.len() - self.named(), "{arrays:?}");
        if *unnamed > self.records.len() - *unnamed + 64 {
            *self = self.compacted();
            *unnamed = 0;
            for a in arrays {
                changed.whole(a);
            }
        }
    }
}

impl Packed {
    /// This packed world with each point's records laid out as
    /// [`Packed::from_world`] lays them out: what it steps is the same,
    /// record for record. A packed world that followed removals
    /// ([`Packed::apply_removal`]) equals a fresh pack of the edited
    /// world, the state aside, once compacted.
    pub fn compacted(&self) -> Packed {
        let mut packed = Packed {
            spring_halves: self.spring_halves.compacted(),
            rod_halves: self.rod_halves.compacted(),
            point_members: self.point_members.compacted(),
            unnamed_records: [0; 3],
            ..self.clone()
        };
        packed.compact_members();
        packed.compact_outlines();
        packed
    }

    /// Follows `removal`, made on `world` right after the items packed
    /// here (which it must keep as a prefix: [`Packed::follows_removal`]),
    /// in place. With `check`, refuses a body whose new stiffness (fewer
    /// bodies share its points) diverges at the world's substep, before
    /// anything changes; a refused or foreign removal changes nothing.
    /// Returns what [`Packed::follow_plan`] returns.
    pub(super) fn follow_removal(
        &mut self,
        world: &World,
        removal: &Removal,
        check: bool,
    ) -> Result<Option<Vec<u32>>, WorldError> {
        let touched = self.touched_by(world, removal, check)?;
        Ok(self.follow_plan(world, removal, touched, &mut Changed::off()))
    }

    /// Follows `removal` in place as `touched`, what
    /// [`Packed::removal_plan`] found it touches: nothing can fail here.
    /// Returns the bodies the removal moved when the contact data followed
    /// it in place (their points' assemblies alone were renamed, each body
    /// its own assembly), `None` when it was packed again. Notes in
    /// `changed` what it changed of the arrays a GPU solver uploads.
    pub(crate) fn follow_plan(
        &mut self,
        world: &World,
        removal: &Removal,
        touched: Touched,
        changed: &mut Changed,
    ) -> Option<Vec<u32>> {
        let (points, springs) = (&removal.points, &removal.springs);
        let (n0, s0, b0) = (self.pos.len(), self.springs.len(), self.bodies.len());
        points.apply_in_place(&mut self.pos);
        points.apply_in_place(&mut self.vel);
        points.apply_in_place(&mut self.point_info);
        points.apply_in_place(&mut self.gravity_scale);
        let links = world.links();
        let ns = springs.prefix_len(s0) as u32;
        springs.apply_in_place(&mut self.springs);
        // The springs whose ends or places moved take them from the world.
        let moved: Vec<(u32, u32)> = moved_within(points, n0).collect();
        changed.points(moved.iter().map(|&(_, p)| p));
        let renamed = moved.iter().flat_map(|&(_, p)| links.springs_of(p));
        let renamed = renamed
            .copied()
            .chain(moved_within(springs, s0).map(|(_, s)| s));
        for s in renamed.filter(|&s| s < ns) {
            let w = &world.springs()[s as usize];
            let info = &mut self.springs[s as usize];
            (info.a, info.b) = (w.a.0, w.b.0);
        }
        self.num_rods -= touched.rods;
        self.follow_spring_records(world, points, &touched.spring_points, changed);
        self.follow_members(world, removal, &touched, &moved, changed);
        self.follow_body_indices(world, removal, &touched, changed);
        let followed = (touched.contacts)
            .map(|plan| self.follow_contacts(world, removal, plan, (n0, b0), changed));
        if followed.is_none() {
            self.pack_contacts(world);
            for array in [
                Array::ContactPoints,
                Array::Outlines,
                Array::OutlinePoints,
                Array::ContactFilters,
                Array::Colliders,
            ] {
                changed.whole(array);
            }
        }
        self.note_packed(world);
        let [springs, rods, members] = &mut self.unnamed_records;
        let spring_arrays = [Array::SpringRanges, Array::SpringHalves];
        (self.spring_halves).compact_when_sparse(changed, spring_arrays, springs);
        let rod_arrays = [Array::RodRanges, Array::RodHalves];
        (self.rod_halves).compact_when_sparse(changed, rod_arrays, rods);
        let member_arrays = [Array::MemberRanges, Array::PointMembers];
        (self.point_members).compact_when_sparse(changed, member_arrays, members);
        if self.member_holes > self.members.len() - self.member_holes + 64 {
            self.compact_members();
            changed.whole(Array::Members);
            changed.whole(Array::Bodies);
        }
        followed
    }

    /// The members laid out body by body, as [`Packed::from_world`] lays
    /// them out, each body's `first` following its members.
    fn compact_members(&mut self) {
        let mut members = Vec::with_capacity(self.members.len() - self.member_holes);
        for body in &mut self.bodies {
            let span = body.span();
            body.first = members.len() as u32;
            members.extend_from_slice(&self.members[span]);
        }
        self.members = members;
        self.member_holes = 0;
    }

    /// What `removal` touches here, and the new info of the bodies it
    /// touches, checked (`check`) for stability; refused when the removal
    /// does not fit the packed world.
    pub(super) fn touched_by(
        &self,
        world: &World,
        removal: &Removal,
        check: bool,
    ) -> Result<Touched, WorldError> {
        let (points, springs, bodies) = (&removal.points, &removal.springs, &removal.bodies);
        let (n0, s0, b0) = (self.pos.len(), self.springs.len(), self.bodies.len());
        let (n, ns, nb) = (
            points.prefix_len(n0) as u32,
            springs.prefix_len(s0) as u32,
            bodies.prefix_len(b0) as u32,
        );
        for (what, kept, world) in [
            ("points", n, world.points().len()),
            ("springs", ns, world.springs().len()),
            ("bodies", nb, world.bodies().len()),
        ] {
            if kept as usize > world {
                return Err(foreign(format!(
                    "{kept} {what} kept, the world has {world}"
                )));
            }
        }
        let links = world.links();
        let new_point = |old: u32| points.get(old).filter(|&p| p < n);
        let mut spring_points = Vec::new();
        let mut rods = 0;
        for s in springs.removed().filter(|&s| s < s0 as u32) {
            let s = &self.springs[s as usize];
            rods += u32::from(s.kind == KIND_ROD);
            spring_points.extend([s.a, s.b].into_iter().filter_map(new_point));
        }
        let moved_springs = moved_within(springs, s0).map(|(_, s)| s);
        let moved_points = moved_within(points, n0).map(|(_, p)| p);
        let renamed = moved_points.flat_map(|p| links.springs_of(p).iter().copied());
        for s in moved_springs.chain(renamed.filter(|&s| s < ns)) {
            let s = &world.springs()[s as usize];
            spring_points.extend([s.a.0, s.b.0]);
        }
        sort_dedup(&mut spring_points);

        let packed_bodies = |p: u32| links.bodies_of(p).iter().copied().filter(move |&b| b < nb);
        let mut member_points = Vec::new();
        let mut hit = Vec::new();
        for b in bodies.removed().filter(|&b| b < b0 as u32) {
            for p in self.members[self.bodies[b as usize].span()]
                .iter()
                .filter_map(|m| new_point(m.point))
            {
                member_points.push(p);
                hit.extend(packed_bodies(p));
            }
        }
        let moved_bodies = moved_within(bodies, b0).map(|(_, b)| b);
        for b in moved_bodies.chain(removal.reshaped.iter().map(|b| b.0)) {
            let body = (world.bodies().get(b as usize))
                .filter(|_| b < nb)
                .ok_or_else(|| foreign(format!("body {b} is not packed")))?;
            if let Some(p) = body.points.iter().find(|p| p.0 >= n) {
                return Err(foreign(format!("body {b}'s point {} is not packed", p.0)));
            }
            member_points.extend(body.points.iter().map(|p| p.0));
            hit.push(b);
        }
        sort_dedup(&mut member_points);
        sort_dedup(&mut hit);

        let params = &world.params;
        let old_info = |p: usize| {
            let old = points.old_of(p as u32).expect("a kept point") as usize;
            self.point_info[old]
        };
        let mut touched_bodies = Vec::with_capacity(hit.len());
        for b in hit {
            let body = &world.bodies()[b as usize];
            let (mut info, members) = if removal.reshaped.iter().any(|r| r.0 == b) {
                let rest = &world.rest_shapes()[b as usize];
                let (info, members) = pack_body(body, rest, 0, old_info, params);
                (info, Some(members))
            } else {
                let old = bodies.old_of(b).expect("a kept body");
                (self.bodies[old as usize], None)
            };
            let most = (body.points.iter())
                .map(|p| packed_bodies(p.0).count() as u32)
                .max()
                .unwrap_or(1);
            info.stiffness = (body.stiffness)
                .unwrap_or_else(|| default_shape_stiffness(params.shape_stiffness, most));
            info.area_stiffness =
                area_stiffness(body.area_stiffness, info.stiffness, params.area_stiffness);
            let pinned = body
                .points
                .iter()
                .all(|p| old_info(p.index()).inv_mass == 0.0);
            if check && !pinned {
                check_body(b, &info, params.h())?;
            }
            touched_bodies.push((b, info, members));
        }
        let old = |b: u32| bodies.old_of(b).expect("a kept body");
        let out = (bodies.removed().filter(|&b| b < b0 as u32))
            .chain(placed(&touched_bodies, bodies).map(old));
        Ok(Touched {
            spring_points,
            member_points,
            order_places: self.order_places(out),
            bodies: touched_bodies,
            rods,
            contacts: self.contact_plan(world, removal),
        })
    }

    /// The spring and rod records of `touched` made again from the
    /// world's links, in spring order, the other points' ranges moved
    /// with their points.
    fn follow_spring_records(
        &mut self,
        world: &World,
        points: &Remap,
        touched: &[u32],
        changed: &mut Changed,
    ) {
        let [springs_unnamed, rods_unnamed, _] = &mut self.unnamed_records;
        (self.spring_halves).drop_ranges(points, springs_unnamed);
        (self.rod_halves).drop_ranges(points, rods_unnamed);
        let (ns, h) = (self.springs.len() as u32, world.params.h());
        let (mut springs, mut rods) = (Vec::new(), Vec::new());
        for &p in touched {
            let mut mine: Vec<u32> = (world.links().springs_of(p).iter().copied())
                .filter(|&s| s < ns)
                .collect();
            mine.sort_unstable();
            springs.clear();
            rods.clear();
            for s in mine {
                let spring = &self.springs[s as usize];
                let halves = HalfSprings::halves(&self.point_info, spring, h);
                let (_, half) = halves.into_iter().find(|(at, _)| *at == p).expect("an end");
                match spring.kind {
                    KIND_ROD => rods.push(half),
                    _ => springs.push(half),
                }
            }
            changed.points([p]);
            let [s, r, _] = &mut self.unnamed_records;
            changed.span(Array::SpringHalves, self.spring_halves.put(p, &springs, s));
            changed.span(Array::RodHalves, self.rod_halves.put(p, &rods, r));
        }
    }

    /// The bodies and members after the removal, and the memberships of
    /// the touched points made again from them. Each body's members stay
    /// where they lie (a removed body's become a hole, a reshaped body's
    /// new ones are written over its old ones when they fit, else behind
    /// every member) until the holes outnumber the members kept.
    fn follow_members(
        &mut self,
        world: &World,
        removal: &Removal,
        touched: &Touched,
        moved: &[(u32, u32)],
        changed: &mut Changed,
    ) {
        let (points, bodies) = (&removal.points, &removal.bodies);
        let b0 = self.bodies.len();
        let gone: usize = (bodies.removed())
            .filter(|&b| (b as usize) < b0)
            .map(|b| self.bodies[b as usize].count as usize)
            .sum();
        bodies.apply_in_place(&mut self.bodies);
        let nb = self.bodies.len();
        changed.bodies(moved_within(bodies, b0).map(|(_, b)| b));
        self.member_holes += gone;
        let reshaped = (touched.bodies.iter())
            .filter_map(|(b, info, members)| Some((*b as usize, info, members.as_ref()?)));
        for (b, new, members) in reshaped {
            let old = self.bodies[b];
            let fits = members.len() <= old.count as usize;
            let first = if fits {
                old.first as usize
            } else {
                self.members.len()
            };
            let span = first..first + members.len();
            if fits {
                self.members[span.clone()].copy_from_slice(members);
                self.member_holes += old.count as usize - members.len();
            } else {
                self.members.extend_from_slice(members);
                self.member_holes += old.count as usize;
            }
            changed.span(Array::Members, span);
            self.bodies[b] = BodyInfo {
                first: first as u32,
                ..*new
            };
            changed.bodies([b as u32]);
        }
        for &(old, p) in moved {
            for &b in world.links().bodies_of(p) {
                let Some(info) = self.bodies.get(b as usize) else {
                    continue;
                };
                let span = info.span();
                let first = span.start;
                for (k, m) in self.members[span].iter_mut().enumerate() {
                    if m.point == old {
                        m.point = p;
                        changed.span(Array::Members, first + k..first + k + 1);
                    }
                }
            }
        }
        for (b, info, _) in &touched.bodies {
            let body = &mut self.bodies[*b as usize];
            (body.stiffness, body.area_stiffness) = (info.stiffness, info.area_stiffness);
            changed.bodies([*b]);
        }
        // The memberships, in body order.
        (self.point_members).drop_ranges(points, &mut self.unnamed_records[2]);
        let h = world.params.h();
        let mut records = Vec::new();
        for &p in &touched.member_points {
            let mut mine: Vec<u32> = (world.links().bodies_of(p).iter().copied())
                .filter(|&b| (b as usize) < nb)
                .collect();
            mine.sort_unstable();
            records.clear();
            for b in mine {
                let body = &self.bodies[b as usize];
                let span = body.span();
                let m = self.members[span].iter().find(|m| m.point == p);
                records.push(PointMembers::record(body, b, m.expect("a member"), h));
            }
            changed.points([p]);
            let unnamed = &mut self.unnamed_records[2];
            changed.span(
                Array::PointMembers,
                self.point_members.put(p, &records, unnamed),
            );
        }
    }

    /// The kinematic bodies, joints, body order, impact bodies and
    /// uniform counts after the removal.
    fn follow_body_indices(
        &mut self,
        world: &World,
        removal: &Removal,
        touched: &Touched,
        changed: &mut Changed,
    ) {
        let bodies = &removal.bodies;
        let nb = self.bodies.len() as u32;
        let mut kinematic: Vec<u32> = (self.kinematic.iter())
            .filter_map(|&b| bodies.get(b))
            .collect();
        kinematic.sort_unstable();
        changed.diff(Array::Kinematic, 0, &self.kinematic, &kinematic);
        self.kinematic = kinematic;
        self.joints = super::edit::packed_joints(world, nb as usize);
        // The moved and reshaped bodies take their places in the order
        // anew (`body_order.rs`), out of theirs before the removal.
        let placed: Vec<u32> = placed(&touched.bodies, bodies).collect();
        self.reorder(&touched.order_places, &placed, changed);
        self.sim = SimParams {
            num_points: self.pos.len() as u32,
            num_springs: self.springs.len() as u32,
            num_bodies: nb,
            ..super::sim_params(&world.params, self)
        };
        self.follow_impacts(removal, touched, changed);
    }

    /// Impact bodies after the removal (the rules of
    /// `append_impact_bodies`): the points' and bodies' entries moved,
    /// those of the touched bodies and points resolved again.
    fn follow_impacts(&mut self, removal: &Removal, touched: &Touched, changed: &mut Changed) {
        removal.points.apply_in_place(&mut self.impact_home);
        removal.bodies.apply_in_place(&mut self.impact_inv_mass);
        for &(b, ..) in &touched.bodies {
            let kinematic = self.kinematic.binary_search(&b).is_ok();
            let members = &self.members[self.bodies[b as usize].span()];
            let (mut apart, mut mass) = (true, 0.0f32);
            for m in members {
                let w = self.point_info[m.point as usize].inv_mass;
                if self.point_members.count(m.point as usize) > 1 || (w == 0.0 && !kinematic) {
                    apart = false;
                } else if w > 0.0 {
                    mass += 1.0 / w;
                }
            }
            let inv = match (apart, kinematic) {
                (false, _) => 0.0,
                (true, true) => IMPACT_KINEMATIC,
                (true, false) if mass > 0.0 => 1.0 / mass,
                (true, false) => 0.0,
            };
            self.impact_inv_mass[b as usize] = inv;
            self.bodies[b as usize].reach = if inv <= 0.0 {
                -1.0
            } else {
                (members.iter())
                    .map(|m| glam::Vec2::from(m.rest).length())
                    .fold(0.0, f32::max)
            };
        }
        let home = |p: &Packed, i: u32| match p.point_members.of(i as usize) {
            [m] if p.impact_inv_mass[m.body as usize] != 0.0 => m.body,
            _ => IMPACT_NONE,
        };
        for &(b, ..) in &touched.bodies {
            for k in self.bodies[b as usize].span() {
                let i = self.members[k].point;
                self.impact_home[i as usize] = home(self, i);
                changed.points([i]);
            }
        }
        for &i in &touched.member_points {
            self.impact_home[i as usize] = home(self, i);
        }
    }
}

/// The touched bodies that take a new place in the body order: the moved
/// and the reshaped ones, by their indices after the removal.
fn placed<'a>(
    touched: &'a [(u32, BodyInfo, Option<Vec<Member>>)],
    bodies: &'a Remap,
) -> impl Iterator<Item = u32> + 'a {
    (touched.iter())
        .filter(|(b, _, members)| members.is_some() || bodies.old_of(*b) != Some(*b))
        .map(|(b, ..)| *b)
}

/// The moves of a remap from the first `packed` items.
fn moved_within(remap: &Remap, packed: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
    remap
        .moves()
        .filter(move |&(old, _)| (old as usize) < packed)
}

fn sort_dedup(v: &mut Vec<u32>) {
    v.sort_unstable();
    v.dedup();
}
