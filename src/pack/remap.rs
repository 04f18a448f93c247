//! Following a removal: the per-point records of the survivors renumbered
//! rather than made again, since a record's coefficients (an `exp` each)
//! do not change when other items go. What [`Packed::from_world`] makes
//! of the edited world (`tests/edits.rs` checks it).

use super::{HalfSprings, Packed, PerPoint, PointMembers};
use crate::layout::*;
use crate::params::Params;
use crate::world::{Remap, Removal};

impl<T: Copy> PerPoint<T> {
    /// The records of the points `points` keeps, in order, each passed
    /// through `keep` (`None`: dropped, its other side removed).
    fn remapped(&self, points: &Remap, mut keep: impl FnMut(&T) -> Option<T>) -> Self {
        if self.ranges.is_empty() {
            return Self::default();
        }
        let n = self.ranges.len();
        let mut ranges = Vec::with_capacity(points.new_len().min(n));
        let mut records = Vec::with_capacity(self.records.len());
        for (old, &new) in points.as_slice()[..n].iter().enumerate() {
            if new == Remap::REMOVED {
                continue;
            }
            let start = records.len() as u32;
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
    /// goes with either end.
    fn after_removal(&self, points: &Remap) -> Self {
        self.remapped(points, |r| {
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
    pub(super) fn remap_indices(&mut self, old: &Packed, params: &Params, removal: &Removal) {
        let points = removal.point_remap();
        let bodies = removal.body_remap();
        // Springs removed whole (`World::remove_springs`) leave both ends
        // with a record to drop that the points' remap does not name:
        // those records are made again from the springs that are left.
        let cut = old
            .springs
            .iter()
            .zip(removal.spring_remap().as_slice())
            .any(|(s, &m)| {
                m == Remap::REMOVED && points.get(s.a).is_some() && points.get(s.b).is_some()
            });
        if cut {
            let (info, springs, h) = (&self.point_info, &self.springs, params.h());
            self.spring_halves = HalfSprings::build(info, springs, h, |s| s.kind != KIND_ROD);
            self.rod_halves = HalfSprings::build(info, springs, h, |s| s.kind == KIND_ROD);
        } else {
            self.spring_halves = old.spring_halves.after_removal(points);
            self.rod_halves = old.rod_halves.after_removal(points);
        }
        let mut members: PointMembers = old.point_members.remapped(points, |m| {
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
