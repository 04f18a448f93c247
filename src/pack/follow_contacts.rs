//! The contact data following a removal in place, when every body the
//! removal takes or moves is alone in its assembly (no point shared with
//! another body, no spring to a point outside it, no joins): the
//! assemblies then go or move whole, and their groups, outlines and
//! collider entries are renamed rather than found again by a union-find
//! over the world. Each body's segment of `outline_points` stays where it
//! lies, so other bodies may be joined: their lists, and their points'
//! `joins`, stand. Any other removal packs the contact data again
//! (`pack_contacts`), as does one after which the filters would be
//! numbered otherwise than a fresh pack numbers them, or after which the
//! segments' holes would outnumber what they keep.

use super::Packed;
use super::changed::{Array, Changed};
use super::contacts::rest_extent;
use super::split_list::SplitList;
use crate::layout::*;
use crate::world::{Remap, Removal, World};

/// What the contact data needs from the packed world before a removal
/// changes it: the rest extents of the colliders it removes, and the
/// holes its removed segments leave.
pub(crate) struct ContactPlan {
    extents: Vec<f32>,
    /// The outline segments' holes after it.
    holes: usize,
}

impl Packed {
    /// The plan for following `removal` in the contact data in place, or
    /// `None` (pack it again) when a body it takes or moves shares its
    /// assembly, a point without a body goes or moves, a body is
    /// reshaped, the filters would be numbered otherwise than a fresh
    /// pack numbers them, or the segments' holes would outnumber what they
    /// keep. Read before anything changes.
    pub(super) fn contact_plan(&self, world: &World, removal: &Removal) -> Option<ContactPlan> {
        let (points, springs, bodies) = (&removal.points, &removal.springs, &removal.bodies);
        let (n0, s0, b0) = (self.pos.len(), self.springs.len(), self.bodies.len());
        if !removal.reshaped.is_empty()
            || self.contact_points.len() != n0
            || self.outlines.len() != b0
        {
            return None;
        }
        // What goes, goes whole: no spring from it to a survivor, and no
        // point of it or of a body it takes shared or joined.
        for s in springs.removed().filter(|&s| (s as usize) < s0) {
            let s = &self.springs[s as usize];
            if points.get(s.a).is_some() || points.get(s.b).is_some() {
                return None;
            }
        }
        let alone = |p: u32| {
            self.point_members.count(p as usize) == 1
                && self.contact_points[p as usize].joins == NO_JOINS
        };
        if !points.removed().filter(|&p| (p as usize) < n0).all(alone) {
            return None;
        }
        for b in bodies.removed().filter(|&b| (b as usize) < b0) {
            if !self.members[self.bodies[b as usize].span()]
                .iter()
                .all(|m| alone(m.point))
            {
                return None;
            }
        }
        // What moves, moves whole.
        let (n, nb) = (points.prefix_len(n0) as u32, bodies.prefix_len(b0) as u32);
        let links = world.links();
        for b in moved_bodies(world, removal, n0, b0) {
            let body = world.bodies().get(b as usize)?;
            for p in &body.points {
                let old = points.old_of(p.0)?;
                let ours = links.bodies_of(p.0).iter().filter(|&&x| x < nb).count() == 1;
                let inside = links.springs_of(p.0).iter().all(|&s| {
                    let s = &world.springs()[s as usize];
                    body.points.contains(&s.a) && body.points.contains(&s.b)
                });
                if !ours || !inside || !alone(old) {
                    return None;
                }
            }
        }
        let free_moved = (points.moves()).any(|(old, p)| {
            (old as usize) < n0 && p < n && links.bodies_of(p).iter().all(|&b| b >= nb)
        });
        if free_moved {
            return None;
        }
        if !self.filters_kept(bodies, nb) {
            return None;
        }
        let small = &self.colliders[..self.sim.num_small_colliders as usize];
        let large = &self.colliders[small.len()..self.sim.num_colliders as usize];
        let collides = |b: &u32| small.binary_search(b).is_ok() || large.binary_search(b).is_ok();
        let extents = (bodies.removed())
            .filter(|&b| (b as usize) < b0 && collides(&b))
            .map(|b| rest_extent(&self.members[self.bodies[b as usize].span()]))
            .collect();
        // The segments it leaves behind, and those left before: once they
        // outnumber what is kept, the contact data is packed again.
        let holes = self.outline_holes
            + (bodies.removed())
                .filter(|&b| (b as usize) < b0)
                .map(|b| self.outlines[b as usize].count as usize + 2)
                .sum::<usize>();
        if holes > self.outline_points.len() - holes + 64 {
            return None;
        }
        Some(ContactPlan { extents, holes })
    }

    /// The segments of `outline_points` laid out body by body, as a fresh
    /// pack lays them out, the outlines' `first`s and the points' `joins`
    /// following them. A body's segment is its outline, its list, and the
    /// unions behind it: the lists that some point's `joins` names there.
    pub(super) fn compact_outlines(&mut self) {
        let len = self.outline_points.len();
        let mut named: Vec<u32> = (self.contact_points.iter())
            .map(|c| c.joins)
            .filter(|&j| j != NO_JOINS)
            .collect();
        named.sort_unstable();
        named.dedup();
        let mut out = Vec::with_capacity(len - self.outline_holes.min(len));
        let mut moves = Vec::with_capacity(self.outlines.len());
        for o in &mut self.outlines {
            let first = o.first as usize;
            let mut end = first + o.count as usize;
            end += 1 + self.outline_points[end] as usize;
            while end < len && named.binary_search(&(end as u32)).is_ok() {
                end += 1 + self.outline_points[end] as usize;
            }
            moves.push((o.first, end as u32, out.len() as u32));
            o.first = out.len() as u32;
            out.extend_from_slice(&self.outline_points[first..end]);
        }
        moves.sort_unstable();
        for c in &mut self.contact_points {
            if c.joins != NO_JOINS {
                let k = moves.partition_point(|&(from, ..)| from <= c.joins) - 1;
                let (from, _, to) = moves[k];
                c.joins = c.joins - from + to;
            }
        }
        self.outline_points = out;
        self.outline_holes = 0;
    }

    /// Whether the filters keep their numbers after a removal that remaps
    /// the bodies by `bodies` (`nb` kept): they follow the bodies' first
    /// uses, in the order the bodies take after it, and every filter keeps
    /// a user. Read up to the body where the last filter is first used,
    /// which in a world of few materials and layers is one of the first.
    fn filters_kept(&self, bodies: &Remap, nb: u32) -> bool {
        let kept = bodies.first_changed();
        let mut seen = vec![false; self.filter_keys.len()];
        let mut next = 0;
        for k in 0..nb {
            let old = match k < kept {
                true => k,
                false => bodies.old_of(k).expect("a kept body"),
            };
            let f = self.outlines[old as usize].filter_id as usize;
            if !std::mem::replace(&mut seen[f], true) {
                if f != next {
                    return false;
                }
                next += 1;
            }
            if next == self.body_filters as usize {
                return true;
            }
        }
        next == self.body_filters as usize
    }

    /// Follows `removal` in the contact data as `plan` says, after the
    /// bodies and members have followed it, with `n0` points and `b0`
    /// bodies packed before it; notes what it changes in `changed`.
    /// Returns the bodies it moved (new indices, sorted: whose points'
    /// assemblies are renamed, and the only ones).
    pub(super) fn follow_contacts(
        &mut self,
        world: &World,
        removal: &Removal,
        plan: ContactPlan,
        (n0, b0): (usize, usize),
        changed: &mut Changed,
    ) -> Vec<u32> {
        let (points, bodies) = (&removal.points, &removal.bodies);
        let moved = moved_bodies(world, removal, n0, b0);
        // Each body's segment of `outline_points` (its outline, its list
        // and the unions behind it, `joins.rs`) stays where it lies: a
        // removed body's (alone: its outline and `[1, b]`) becomes a hole,
        // a moved body's is renamed in place. No list another body's
        // points name moves, so their `joins` stand.
        self.outline_holes = plan.holes;
        points.apply_in_place(&mut self.contact_points);
        bodies.apply_in_place(&mut self.outlines);
        for &b in &moved {
            let body = &world.bodies()[b as usize];
            let group = body.points.iter().map(|p| p.0).min().unwrap_or(0);
            for p in &body.points {
                self.contact_points[p.index()].group = group;
            }
            let o = &mut self.outlines[b as usize];
            o.group = group;
            let (first, end) = (o.first as usize, (o.first + o.count) as usize);
            for q in &mut self.outline_points[first..end] {
                *q = points.get(*q).expect("a kept body keeps its points");
            }
            self.outline_points[end..end + 2].copy_from_slice(&[1, b]);
            changed.span(Array::OutlinePoints, first..end + 2);
            changed.points(body.points.iter().map(|p| p.0));
            changed.bodies([b]);
        }
        self.follow_collider_lists(removal, &moved, b0, changed);
        for e in plan.extents {
            if let Ok(k) = self.collider_extents.binary_search_by(|x| x.total_cmp(&e)) {
                self.collider_extents.remove(k);
            }
        }
        self.size_grid(&world.params);
        moved
    }
}

impl Packed {
    /// The collider lists after `removal` (`b0` bodies packed before it,
    /// `moved` the bodies [`follow_contacts`](Self::follow_contacts)
    /// moved): the bodies it takes and those it renames taken out of the
    /// small and large lists, each sorted by index, and the renamed put
    /// back where their new indices sort (`split_list.rs`); every other
    /// entry keeps its index. The free points are renamed.
    fn follow_collider_lists(
        &mut self,
        removal: &Removal,
        moved: &[u32],
        b0: usize,
        changed: &mut Changed,
    ) {
        let (points, bodies) = (&removal.points, &removal.bodies);
        let old = changed.noting().then(|| self.colliders.clone());
        let mut list = SplitList {
            list: &mut self.colliders,
            split: self.sim.num_small_colliders as usize,
            end: self.sim.num_colliders as usize,
        };
        let index = |b: u32| b;
        let renamed = (moved.iter())
            .map(|&b| (bodies.old_of(b).expect("a kept body"), b))
            .filter(|(old, b)| old != b);
        let gone = (bodies.removed())
            .filter(|&b| (b as usize) < b0)
            .map(|b| (b, Remap::REMOVED));
        let mut came = Vec::new();
        for (old, new) in gone.chain(renamed) {
            let found = [true, false]
                .into_iter()
                .find_map(|small| Some((small, list.find(small, old, index)?)));
            if let Some((small, at)) = found {
                list.take(at);
                if new != Remap::REMOVED {
                    came.push((small, new));
                }
            }
        }
        for (small, b) in came {
            list.put(small, b, index);
        }
        let (small, large) = (list.split, list.end);
        let free: Vec<u32> = (self.colliders[large..].iter())
            .filter_map(|&p| points.get(p))
            .collect();
        self.colliders.truncate(large);
        self.colliders.extend_from_slice(&free);
        self.sim.num_small_colliders = small as u32;
        self.sim.num_colliders = large as u32;
        self.sim.num_free = free.len() as u32;
        if let Some(old) = old {
            changed.diff(Array::Colliders, 0, &old, &self.colliders);
        }
    }

    /// The sleeping records, before `removal` (made on `world`) is
    /// followed, of the points it takes and of the points of the bodies it
    /// moves (`Packed::follow_contacts`): by old index, sorted. What a
    /// solver that follows the removal in place needs of the world before
    /// it to compare sleeping (`cpu::sleep::removal_sleep_over`).
    pub(crate) fn sleep_before_removal(
        &self,
        world: &World,
        removal: &Removal,
    ) -> Vec<(u32, SleepPoint)> {
        let (n0, b0) = (self.pos.len(), self.bodies.len());
        let points = &removal.points;
        let mut olds: Vec<u32> = points.removed().filter(|&p| (p as usize) < n0).collect();
        for b in moved_bodies(world, removal, n0, b0) {
            let body = &world.bodies()[b as usize];
            olds.extend(body.points.iter().filter_map(|p| points.old_of(p.0)));
        }
        olds.sort_unstable();
        olds.dedup();
        (olds.into_iter())
            .filter_map(|o| Some((o, self.sleep_point(o)?)))
            .collect()
    }
}

/// The packed bodies (new indices) that `removal` moved, or whose points
/// it moved, sorted.
fn moved_bodies(world: &World, removal: &Removal, n0: usize, b0: usize) -> Vec<u32> {
    let (points, bodies) = (&removal.points, &removal.bodies);
    let nb = bodies.prefix_len(b0) as u32;
    let n = points.prefix_len(n0) as u32;
    let links = world.links();
    let mut moved: Vec<u32> = (bodies.moves())
        .filter(|&(old, new)| (old as usize) < b0 && new < nb)
        .map(|(_, new)| new)
        .collect();
    for (old, p) in points.moves() {
        if (old as usize) < n0 && p < n {
            moved.extend(links.bodies_of(p).iter().filter(|&&b| b < nb));
        }
    }
    moved.sort_unstable();
    moved.dedup();
    moved
}
