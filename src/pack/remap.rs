//! Following a removal: the per-point records of the survivors renumbered
//! rather than made again, since a record's coefficients (an `exp` each)
//! do not change when other items go. What [`Packed::from_world`] makes
//! of the edited world (`tests/edits.rs` checks it).

use super::{HalfSprings, Packed, PerPoint, PointMembers};
use crate::layout::*;
use crate::world::{Remap, Removal, World};

impl<T: Copy> PerPoint<T> {
    /// The records of the points `points` keeps, in their new order, each
    /// passed through `keep` (`None`: dropped, its other side removed),
    /// but for the points `fresh` gives records made again (sorted by new
    /// point).
    fn remapped(
        &self,
        points: &Remap,
        fresh: &[(u32, Vec<T>)],
        mut keep: impl FnMut(&T) -> Option<T>,
    ) -> Self {
        if self.ranges.is_empty() {
            return Self::default();
        }
        let n = points.prefix_len(self.ranges.len()) as u32;
        let mut ranges = Vec::with_capacity(n as usize);
        let mut records = Vec::with_capacity(self.records.len());
        let mut fresh = fresh.iter().peekable();
        for new in 0..n {
            let start = records.len() as u32;
            if let Some((_, made)) = fresh.next_if(|(p, _)| *p == new) {
                records.extend_from_slice(made);
                let count = records.len() as u32 - start;
                ranges.push(RecordRange { start, count });
                continue;
            }
            let old = points.old_of(new).expect("below the new end") as usize;
            records.extend(self.of(old).iter().filter_map(&mut keep));
            let count = records.len() as u32 - start;
            ranges.push(RecordRange { start, count });
        }
        if records.is_empty() {
            return Self::default();
        }
        Self { ranges, records }
    }
}

impl HalfSprings {
    /// The records of the springs that survive `points`' removal: a spring
    /// goes with either end. The points in `fresh` get those records.
    fn after_removal(&self, points: &Remap, fresh: &[(u32, Vec<HalfSpring>)]) -> Self {
        self.remapped(points, fresh, |r| {
            let other = points.get(r.other & HALF_INDEX)?;
            Some(HalfSpring {
                other: other | (r.other & !HALF_INDEX),
                ..*r
            })
        })
    }
}

impl Packed {
    /// The per-point records, body order, rod count and impact bodies
    /// after `removal`, whose survivors are packed here already (bodies and
    /// members, reshaped ones included) from `old`, the packed world it
    /// was made on: the per-point records of the survivors renumbered,
    /// those of the reshaped bodies given their new rest offsets, the
    /// per-body lists made again (a few words a body).
    pub(super) fn remap_indices(&mut self, old: &Packed, world: &World, removal: &Removal) {
        let params = &world.params;
        let points = removal.point_remap();
        let bodies = removal.body_remap();
        // Springs removed whole (`World::remove_springs`) leave both ends
        // with a record to drop that the points' remap does not name:
        // those records are made again from the springs that are left.
        let cut = (removal.spring_remap().removed())
            .filter_map(|s| old.springs.get(s as usize))
            .any(|s| points.get(s.a).is_some() && points.get(s.b).is_some());
        if cut {
            let (info, springs, h) = (&self.point_info, &self.springs, params.h());
            self.spring_halves = HalfSprings::build(info, springs, h, |s| s.kind != KIND_ROD);
            self.rod_halves = HalfSprings::build(info, springs, h, |s| s.kind == KIND_ROD);
        } else {
            // A point's records are in spring order: those of the ends of
            // the springs that moved are made again in their new order.
            let (springs, rods) = self.moved_springs_records(world, removal, params.h());
            self.spring_halves = old.spring_halves.after_removal(points, &springs);
            self.rod_halves = old.rod_halves.after_removal(points, &rods);
        }
        // Likewise a point's memberships are in body order.
        let fresh = self.moved_bodies_records(world, removal, params.h());
        let mut members: PointMembers = old.point_members.remapped(points, &fresh, |m| {
            Some(PointMember {
                body: bodies.get(m.body)?,
                ..*m
            })
        });
        for b in removal.reshaped() {
            let Some(info) = self.bodies.get(b.index()) else {
                continue;
            };
            for m in &self.members[info.first as usize..(info.first + info.count) as usize] {
                let Some(range) = members.ranges.get(m.point as usize) else {
                    continue;
                };
                for r in &mut members.records[range.span()] {
                    if r.body == b.0 {
                        r.rest = m.rest;
                    }
                }
            }
        }
        self.point_members = members;
        self.num_rods = self.springs.iter().filter(|s| s.kind == KIND_ROD).count() as u32;
        self.body_order.clear();
        self.sim.num_small_bodies = 0;
        self.sim.num_large_bodies = 0;
        self.impact_home.clear();
        self.impact_inv_mass.clear();
        self.append_body_indices(params, 0, 0);
    }
}

impl Packed {
    /// The spring and rod records, in spring order, of the ends of the
    /// packed springs `removal` moved (by new point, sorted).
    #[allow(clippy::type_complexity)]
    fn moved_springs_records(
        &self,
        world: &World,
        removal: &Removal,
        h: f32,
    ) -> (Vec<(u32, Vec<HalfSpring>)>, Vec<(u32, Vec<HalfSpring>)>) {
        let n = self.springs.len() as u32;
        let mut ends: Vec<u32> = (removal.spring_remap().moves())
            .filter(|&(_, new)| new < n)
            .flat_map(|(_, new)| [self.springs[new as usize].a, self.springs[new as usize].b])
            .collect();
        ends.sort_unstable();
        ends.dedup();
        let (mut springs, mut rods) = (Vec::new(), Vec::new());
        for p in ends {
            let mut mine: Vec<u32> = (world.links().springs_of(p).iter().copied())
                .filter(|&s| s < n)
                .collect();
            mine.sort_unstable();
            let (mut s_records, mut r_records) = (Vec::new(), Vec::new());
            for s in mine {
                let spring = &self.springs[s as usize];
                let halves = HalfSprings::halves(&self.point_info, spring, h);
                let (_, half) = halves.into_iter().find(|(at, _)| *at == p).expect("an end");
                match spring.kind {
                    KIND_ROD => r_records.push(half),
                    _ => s_records.push(half),
                }
            }
            springs.push((p, s_records));
            rods.push((p, r_records));
        }
        (springs, rods)
    }

    /// The memberships, in body order, of the points of the packed bodies
    /// `removal` moved (by new point, sorted).
    fn moved_bodies_records(
        &self,
        world: &World,
        removal: &Removal,
        h: f32,
    ) -> Vec<(u32, Vec<PointMember>)> {
        let n = self.bodies.len() as u32;
        let span = |b: &BodyInfo| b.first as usize..(b.first + b.count) as usize;
        let mut points: Vec<u32> = (removal.body_remap().moves())
            .filter(|&(_, new)| new < n)
            .flat_map(|(_, new)| self.members[span(&self.bodies[new as usize])].iter())
            .map(|m| m.point)
            .collect();
        points.sort_unstable();
        points.dedup();
        points
            .into_iter()
            .map(|p| {
                let mut mine: Vec<u32> = (world.links().bodies_of(p).iter().copied())
                    .filter(|&b| b < n)
                    .collect();
                mine.sort_unstable();
                let records = mine.into_iter().filter_map(|b| {
                    let body = &self.bodies[b as usize];
                    let m = self.members[span(body)].iter().find(|m| m.point == p)?;
                    Some(PointMembers::record(body, b, m, h))
                });
                (p, records.collect())
            })
            .collect()
    }
}
