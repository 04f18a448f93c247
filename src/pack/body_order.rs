//! The body order the frames and area kernels walk: the small bodies (at
//! most [`SMALL_BODY_MAX_POINTS`] members) by member count, then index, so
//! that the threads of one SIMD batch loop equally often; then the large
//! ones by index. The order is a function of the bodies' member counts, so
//! an edit moves only the entries of the bodies it removes, moves or
//! reshapes (`split_list.rs`): taken out, and put back where their new
//! index and count sort.

use super::Packed;
use super::changed::{Array, Changed};
use super::split_list::{SplitList, place};
use crate::layout::SMALL_BODY_MAX_POINTS;

impl Packed {
    /// Whether body `b` is small, by its count in [`bodies`](Packed::bodies).
    fn small(&self, b: u32) -> bool {
        self.bodies[b as usize].count <= SMALL_BODY_MAX_POINTS
    }

    /// The body order's key in the small part (count, then index) or the
    /// large one (index), the counts read from [`bodies`](Packed::bodies).
    fn order_key(&self, small: bool) -> impl Fn(u32) -> (u32, u32) + '_ {
        move |b| {
            (
                if small {
                    self.bodies[b as usize].count
                } else {
                    0
                },
                b,
            )
        }
    }

    /// The places in the body order of `bodies` (indices into
    /// [`bodies`](Packed::bodies) as it stands), sorted: read before an
    /// edit changes their counts or indices, for
    /// [`reorder`](Packed::reorder) to take them out.
    pub(super) fn order_places(&self, bodies: impl IntoIterator<Item = u32>) -> Vec<usize> {
        let (split, len) = (self.sim.num_small_bodies as usize, self.body_order.len());
        let mut places: Vec<usize> = (bodies.into_iter())
            .filter(|&b| (b as usize) < self.bodies.len())
            .filter_map(|b| {
                let small = self.small(b);
                let part = if small { 0..split } else { split..len };
                let found = place(&self.body_order, part, b, self.order_key(small)).ok();
                debug_assert!(found.is_some(), "body {b} in the body order");
                found
            })
            .collect();
        places.sort_unstable();
        places.dedup();
        places
    }

    /// The body order after an edit: the entries at `places` (from
    /// [`order_places`](Packed::order_places) before it) taken out, and
    /// `placed`, bodies as they are now, put where they sort. Every other
    /// entry must name a body whose index and count the edit kept.
    pub(super) fn reorder(&mut self, places: &[usize], placed: &[u32], changed: &mut Changed) {
        let old = changed.noting().then(|| self.body_order.clone());
        let mut order = std::mem::take(&mut self.body_order);
        let (split, end) = (self.sim.num_small_bodies as usize, order.len());
        let mut list = SplitList {
            list: &mut order,
            split,
            end,
        };
        for &at in places.iter().rev() {
            list.take(at);
        }
        for &b in placed {
            let small = self.small(b);
            list.put(small, b, self.order_key(small));
        }
        let split = list.split;
        self.sim.num_small_bodies = split as u32;
        self.sim.num_large_bodies = (order.len() - split) as u32;
        self.body_order = order;
        debug_assert!(self.order_is_sorted());
        if let Some(old) = old {
            changed.diff(Array::BodyOrder, 0, &old, &self.body_order);
        }
    }

    /// Whether the body order sorts as the module says, each part strictly.
    fn order_is_sorted(&self) -> bool {
        let (head, tail) = (self.body_order).split_at(self.sim.num_small_bodies as usize);
        let sorted = |part: &[u32], small: bool| {
            let key = self.order_key(small);
            part.iter().all(|&b| self.small(b) == small)
                && part.windows(2).all(|w| key(w[0]) < key(w[1]))
        };
        sorted(head, true) && sorted(tail, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::*;

    /// Boxes (4 points), blobs of 10 and of 40 (large), mixed.
    fn packed() -> Packed {
        let mut w = World::default();
        for k in 0..24 {
            let at = Vec2::new(3.0 * k as f32, 0.0);
            match k % 3 {
                0 => BoxShape::new(at, Vec2::splat(0.5))
                    .build(&mut w)
                    .map(|_| ()),
                1 => Blob::new(at, 0.5, 10).build(&mut w).map(|_| ()),
                _ => Blob::new(at, 1.0, 40).build(&mut w).map(|_| ()),
            }
            .unwrap();
        }
        Packed::from_world(&w).unwrap()
    }

    /// The order sorted afresh from the bodies' counts.
    fn sorted(p: &Packed) -> Vec<u32> {
        let count = |b: &u32| p.bodies[*b as usize].count;
        let n = p.bodies.len() as u32;
        let (mut small, large): (Vec<u32>, Vec<u32>) =
            (0..n).partition(|b| count(b) <= SMALL_BODY_MAX_POINTS);
        small.sort_by_key(|b| (count(b), *b));
        small.extend(large);
        small
    }

    /// Each body removed in turn, the last one filling its place (as a
    /// `Remap` fills it): the order taken out and put back equals the
    /// order sorted afresh, and the counts of small and large bodies follow.
    #[test]
    fn a_removal_moves_only_its_bodies_entries_to_where_they_sort() {
        let fresh = packed();
        assert_eq!(fresh.body_order, sorted(&fresh));
        for gone in 0..fresh.bodies.len() as u32 {
            let mut p = fresh.clone();
            let last = p.bodies.len() as u32 - 1;
            let places = p.order_places([gone, last]);
            assert_eq!(places.len(), if gone == last { 1 } else { 2 });
            p.bodies.swap_remove(gone as usize);
            let placed: Vec<u32> = (gone < last).then_some(gone).into_iter().collect();
            p.reorder(&places, &placed, &mut Changed::off());
            assert_eq!(p.body_order, sorted(&p), "body {gone} removed");
            let small = p
                .body_order
                .iter()
                .filter(|&&b| p.bodies[b as usize].count <= SMALL_BODY_MAX_POINTS);
            assert_eq!(p.sim.num_small_bodies as usize, small.count());
            let all = p.sim.num_small_bodies + p.sim.num_large_bodies;
            assert_eq!(all as usize, p.bodies.len());
        }
    }
}
