//! What a removal followed in place (`follow.rs`, `follow_contacts.rs`)
//! changed in the arrays a GPU solver uploads, noted as it changes them,
//! so that the GPU writes those places without a copy of the arrays from
//! before the removal to compare with.
//!
//! Point-indexed arrays share one set of points, body-indexed arrays one
//! set of bodies; every other array has its own element ranges. Where an
//! array is laid out again (a list made anew) the follow
//! compares the new elements with the old ones it is about to overwrite
//! ([`Changed::diff`]), which costs no more than the layout itself.

use std::ops::Range;

/// The arrays a GPU solver uploads from a packed world: the static arrays
/// in the order of `gpu::buffers::static_arrays`, then the contact data's
/// in the order of `ContactBuffers::static_buffers` (a test checks both
/// orders by name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Array {
    PointInfo,
    GravityScale,
    Materials,
    SpringRanges,
    SpringHalves,
    RodRanges,
    RodHalves,
    Bodies,
    Members,
    MemberRanges,
    PointMembers,
    BodyOrder,
    ImpactHome,
    ImpactInvMass,
    Kinematic,
    ContactPoints,
    Outlines,
    OutlinePoints,
    ContactFilters,
    Colliders,
}

/// How many [`Array`]s there are.
pub(crate) const ARRAYS: usize = 20;

impl Array {
    /// Every array, in order.
    pub(crate) const ALL: [Array; ARRAYS] = [
        Array::PointInfo,
        Array::GravityScale,
        Array::Materials,
        Array::SpringRanges,
        Array::SpringHalves,
        Array::RodRanges,
        Array::RodHalves,
        Array::Bodies,
        Array::Members,
        Array::MemberRanges,
        Array::PointMembers,
        Array::BodyOrder,
        Array::ImpactHome,
        Array::ImpactInvMass,
        Array::Kinematic,
        Array::ContactPoints,
        Array::Outlines,
        Array::OutlinePoints,
        Array::ContactFilters,
        Array::Colliders,
    ];

    /// The name of the array's buffer (`PackedArray::name`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Array::PointInfo => "point_info",
            Array::GravityScale => "gravity_scale",
            Array::Materials => "materials",
            Array::SpringRanges => "spring_ranges",
            Array::SpringHalves => "spring_halves",
            Array::RodRanges => "rod_ranges",
            Array::RodHalves => "rod_halves",
            Array::Bodies => "bodies",
            Array::Members => "members",
            Array::MemberRanges => "member_ranges",
            Array::PointMembers => "point_members",
            Array::BodyOrder => "body_order",
            Array::ImpactHome => "impact_home",
            Array::ImpactInvMass => "impact_inv_mass",
            Array::Kinematic => "kinematic",
            Array::ContactPoints => "contact_points",
            Array::Outlines => "outlines",
            Array::OutlinePoints => "outline_points",
            Array::ContactFilters => "contact_filters",
            Array::Colliders => "colliders",
        }
    }

    /// What indexes the array: points, bodies, or neither.
    fn index(self) -> Index {
        match self {
            Array::PointInfo
            | Array::GravityScale
            | Array::SpringRanges
            | Array::RodRanges
            | Array::MemberRanges
            | Array::ImpactHome
            | Array::ContactPoints => Index::Point,
            Array::Bodies | Array::ImpactInvMass | Array::Outlines => Index::Body,
            _ => Index::Other,
        }
    }
}

#[derive(PartialEq)]
enum Index {
    Point,
    Body,
    Other,
}

/// The places a removal followed in place changed, in new indices. Off
/// ([`Changed::off`]) it notes nothing and costs nothing; with
/// [`Changed::points_only`] (the CPU solver's) it notes the points alone.
#[derive(Debug, Default)]
pub(crate) struct Changed {
    on: bool,
    /// Notes the points even when not `on`.
    points_on: bool,
    points: Vec<u32>,
    bodies: Vec<u32>,
    spans: [Vec<Range<usize>>; ARRAYS],
    whole: [bool; ARRAYS],
}

impl Changed {
    /// Notes what changes.
    pub(crate) fn on() -> Self {
        Self {
            on: true,
            ..Self::default()
        }
    }

    /// Notes nothing.
    pub(crate) fn off() -> Self {
        Self::default()
    }

    /// Notes the points whose entries change and nothing else: what a
    /// solver that settles the points a removal rewrote
    /// (`cpu::sleep::settle` with a list) needs, at the cost of a list of them.
    pub(crate) fn points_only() -> Self {
        Self {
            points_on: true,
            ..Self::default()
        }
    }

    /// Whether it notes what changes (made [`on`](Self::on)).
    pub(crate) fn noting(&self) -> bool {
        self.on
    }

    /// These points' entries in every point-indexed array changed.
    pub(crate) fn points(&mut self, points: impl IntoIterator<Item = u32>) {
        if self.on || self.points_on {
            self.points.extend(points);
        }
    }

    /// The points noted, below `len`, sorted and each once: whose point
    /// info a GPU solver writes from its mirror (with their awake inverse
    /// masses) after a removal followed in place.
    pub(crate) fn noted_points(&self, len: usize) -> Vec<u32> {
        let mut points: Vec<u32> = (self.points.iter())
            .copied()
            .filter(|&p| (p as usize) < len)
            .collect();
        points.sort_unstable();
        points.dedup();
        points
    }

    /// These bodies' entries in every body-indexed array changed.
    pub(crate) fn bodies(&mut self, bodies: impl IntoIterator<Item = u32>) {
        if self.on {
            self.bodies.extend(bodies);
        }
    }

    /// Elements `span` of `array` changed.
    pub(crate) fn span(&mut self, array: Array, span: Range<usize>) {
        if self.on && !span.is_empty() {
            self.spans[array as usize].push(span);
        }
    }

    /// All of `array` changed (it was laid out anew).
    pub(crate) fn whole(&mut self, array: Array) {
        self.whole[array as usize] = true;
    }

    /// Notes the elements of `array` from `at` on where `new` differs
    /// from `old`, which it replaces there (the elements past either's end
    /// differ).
    pub(crate) fn diff<T: PartialEq>(&mut self, array: Array, at: usize, old: &[T], new: &[T]) {
        if !self.on {
            return;
        }
        let same = |i: usize| old.get(i) == Some(&new[i]);
        let mut i = 0;
        while i < new.len() {
            if same(i) {
                i += 1;
                continue;
            }
            let start = i;
            while i < new.len() && !same(i) {
                i += 1;
            }
            self.span(array, at + start..at + i);
        }
    }

    /// The element ranges of `array`, `len` elements long now, that
    /// changed: sorted, merged, within `0..len`.
    pub(crate) fn ranges(&self, array: Array, len: usize) -> Vec<Range<usize>> {
        if self.whole[array as usize] {
            return std::iter::once(0..len).filter(|r| !r.is_empty()).collect();
        }
        let slots = match array.index() {
            Index::Point => &self.points[..],
            Index::Body => &self.bodies[..],
            Index::Other => &[],
        };
        let mut ranges: Vec<Range<usize>> = (slots.iter())
            .map(|&i| i as usize..i as usize + 1)
            .chain(self.spans[array as usize].iter().cloned())
            .map(|r| r.start.min(len)..r.end.min(len))
            .filter(|r| !r.is_empty())
            .collect();
        ranges.sort_unstable_by_key(|r| r.start);
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
        for r in ranges {
            match merged.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => merged.push(r),
            }
        }
        merged
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_points_spans_and_diffs() {
        let mut c = Changed::on();
        c.points([5, 3, 4, 9]);
        c.span(Array::PointInfo, 10..12);
        assert_eq!(c.ranges(Array::PointInfo, 11), vec![3..6, 9..11]);
        c.diff(Array::Members, 2, &[1, 2, 3, 4], &[1, 9, 9, 4, 5]);
        assert_eq!(c.ranges(Array::Members, 100), vec![3..5, 6..7]);
        assert!(c.ranges(Array::Bodies, 10).is_empty());
        c.whole(Array::Bodies);
        assert_eq!(c.ranges(Array::Bodies, 10), vec![0..10]);
        let mut only = Changed::points_only();
        only.points([7, 2, 7, 30]);
        only.diff(Array::Members, 0, &[1], &[2]);
        assert_eq!(only.noted_points(10), vec![2, 7]);
        assert!(only.ranges(Array::Members, 10).is_empty());
        assert_eq!(c.noted_points(100), vec![3, 4, 5, 9]);
        let mut off = Changed::off();
        off.points([1]);
        assert!(off.noted_points(10).is_empty());
        off.diff(Array::Members, 0, &[1], &[2]);
        assert!(off.ranges(Array::PointInfo, 10).is_empty());
        assert!(off.ranges(Array::Members, 10).is_empty());
    }
}
