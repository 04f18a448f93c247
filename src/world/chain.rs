//! Running fingerprints of the items a solver packs: entry `i` of each
//! chain hashes items `0..=i` (a point's mass, material, layers and
//! gravity scale; a spring's ends and kind; a body's points and whether it
//! is kinematic). A solver that packed the first `n` items keeps the
//! chain's value at `n`, and a sync compares it with the world's in
//! constant time (`pack::Packed::check_prefix`): an unrelated world, or a
//! clone that went its own way, has another chain.

use super::{Body, Point, Spring};

/// The value of an empty chain.
const EMPTY: u64 = 0;

/// The chains of points, springs and bodies.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Chains {
    points: Vec<u64>,
    springs: Vec<u64>,
    bodies: Vec<u64>,
}

/// `prev` followed by `words`: each word mixed in whole (the finaliser of
/// SplitMix64, a bijection of 64 bits), a word at a time rather than
/// FNV's byte at a time, since a removal chains again what follows it.
fn link(prev: u64, words: impl IntoIterator<Item = u32>) -> u64 {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    words
        .into_iter()
        .fold(mix(prev ^ 0x9e37_79b9_7f4a_7c15), |h, w| {
            mix(h.wrapping_add(w as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
        })
}

/// The last value of `chain`.
fn last(chain: &[u64]) -> u64 {
    chain.last().copied().unwrap_or(EMPTY)
}

fn point_words(p: &Point) -> [u32; 4] {
    [
        p.mass.to_bits(),
        p.material.0,
        p.layers,
        p.gravity_scale.to_bits(),
    ]
}

fn spring_words(s: &Spring) -> [u32; 3] {
    [s.a.0, s.b.0, s.kind.code()]
}

fn body_words(b: &Body) -> impl Iterator<Item = u32> + '_ {
    std::iter::once(b.kinematic as u32).chain(b.points.iter().map(|p| p.0))
}

impl Chains {
    /// The chains of these items.
    pub(crate) fn of(points: &[Point], springs: &[Spring], bodies: &[Body]) -> Self {
        let mut c = Self::default();
        points.iter().for_each(|p| c.push_point(p));
        springs.iter().for_each(|s| c.push_spring(s));
        bodies.iter().for_each(|b| c.push_body(b));
        c
    }

    pub(crate) fn push_point(&mut self, p: &Point) {
        self.points.push(link(last(&self.points), point_words(p)));
    }

    pub(crate) fn push_spring(&mut self, s: &Spring) {
        self.springs
            .push(link(last(&self.springs), spring_words(s)));
    }

    pub(crate) fn push_body(&mut self, b: &Body) {
        self.bodies.push(link(last(&self.bodies), body_words(b)));
    }

    /// The chains of these items, of which the first `kept` (points,
    /// springs, bodies) are the items this chain was made of: only the
    /// items after them are hashed again, so a removal costs in proportion
    /// to what follows its first removed item.
    pub(crate) fn rechain_from(
        &mut self,
        kept: [usize; 3],
        points: &[Point],
        springs: &[Spring],
        bodies: &[Body],
    ) {
        let [p0, s0, b0] = kept;
        self.truncate(p0, s0, b0);
        points[p0..].iter().for_each(|p| self.push_point(p));
        springs[s0..].iter().for_each(|s| self.push_spring(s));
        bodies[b0..].iter().for_each(|b| self.push_body(b));
        debug_assert_eq!(*self, Self::of(points, springs, bodies), "kept {kept:?}");
    }

    /// Back to the first `points`, `springs` and `bodies` items.
    pub(crate) fn truncate(&mut self, points: usize, springs: usize, bodies: usize) {
        self.points.truncate(points);
        self.springs.truncate(springs);
        self.bodies.truncate(bodies);
    }

    /// The fingerprint of the first `points`, `springs` and `bodies`
    /// items, or `None` past the ends.
    pub(crate) fn at(&self, points: usize, springs: usize, bodies: usize) -> Option<[u64; 3]> {
        let at = |c: &[u64], n: usize| match n {
            0 => Some(EMPTY),
            n => c.get(n - 1).copied(),
        };
        Some([
            at(&self.points, points)?,
            at(&self.springs, springs)?,
            at(&self.bodies, bodies)?,
        ])
    }
}
