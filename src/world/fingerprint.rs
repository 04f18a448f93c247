//! Fingerprints of the items a solver packs: per kind (points, springs,
//! bodies), a wrapping sum over the items of a hash of each. A point
//! hashes its key, mass, material, layers and gravity scale; a spring its
//! ends' keys and its kind; a body whether it is kinematic and its points'
//! keys. Items are hashed by their keys ([`keys.rs`](super::keys)), not by
//! their indices, so a removal, which renumbers the survivors, changes the
//! sums only by the items it removes or reshapes: it costs in proportion
//! to them, not to the world.
//!
//! A solver that packed the first `n` items keeps the sum of their hashes,
//! and a sync compares it with the world's sum less the items after `n`
//! (those it appends, which it reads anyway), see
//! `pack::Packed::check_prefix`: an unrelated world, or a clone that went
//! its own way, has other items or other keys. A sum does not see order;
//! no edit reorders items (removals keep the survivors' order, additions
//! append), so the items' keys are what it needs to see.

use super::keys::Keys;
use super::{Body, Point, Spring};

/// `words`, each mixed in whole (the finaliser of SplitMix64, a bijection
/// of 64 bits), a word at a time, after `seed` (which tells the kinds
/// apart).
fn hash(seed: u64, words: impl IntoIterator<Item = u64>) -> u64 {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    words.into_iter().fold(mix(seed), |h, w| {
        mix(h.wrapping_add(w).wrapping_mul(0x9e37_79b9_7f4a_7c15))
    })
}

/// Point `index`'s hash.
fn point_hash(keys: &Keys, index: usize, p: &Point) -> u64 {
    let words = [
        keys.word(index),
        p.mass.to_bits() as u64,
        p.material.0 as u64,
        p.layers as u64,
        p.gravity_scale.to_bits() as u64,
    ];
    hash(1, words)
}

/// A spring's hash, by its ends' keys.
fn spring_hash(points: &Keys, s: &Spring) -> u64 {
    let words = [
        points.word(s.a.index()),
        points.word(s.b.index()),
        s.kind.code() as u64,
    ];
    hash(2, words)
}

/// A body's hash, by its points' keys.
fn body_hash(points: &Keys, b: &Body) -> u64 {
    let words = b.points.iter().map(|p| points.word(p.index()));
    hash(3, std::iter::once(b.kinematic as u64).chain(words))
}

/// Whether an item's hash goes into the sums or out of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Edit {
    /// The item is added, or is as it is after a change.
    Add,
    /// The item is removed, or is as it was before a change.
    Take,
}

fn apply(sum: &mut u64, hash: u64, edit: Edit) {
    *sum = match edit {
        Edit::Add => sum.wrapping_add(hash),
        Edit::Take => sum.wrapping_sub(hash),
    };
}

/// The sums of the points', springs' and bodies' hashes. The hashes name
/// points by their keys in `keys` (the world's point keys), which must
/// be those of the items as they are when a hash goes in or out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Fingerprints {
    points: u64,
    springs: u64,
    bodies: u64,
}

impl Fingerprints {
    /// The sums over these items, hashed afresh: what the sums kept up to
    /// date by each edit must equal.
    pub(crate) fn of(keys: &Keys, points: &[Point], springs: &[Spring], bodies: &[Body]) -> Self {
        let mut f = Self::default();
        for (i, p) in points.iter().enumerate() {
            f.point(keys, i, p, Edit::Add);
        }
        springs.iter().for_each(|s| f.spring(keys, s, Edit::Add));
        bodies.iter().for_each(|b| f.body(keys, b, Edit::Add));
        f
    }

    /// Point `index`, `p`, into the sums or out of them.
    pub(crate) fn point(&mut self, keys: &Keys, index: usize, p: &Point, edit: Edit) {
        apply(&mut self.points, point_hash(keys, index, p), edit);
    }

    /// Spring `s` into the sums or out of them.
    pub(crate) fn spring(&mut self, keys: &Keys, s: &Spring, edit: Edit) {
        apply(&mut self.springs, spring_hash(keys, s), edit);
    }

    /// Body `b` into the sums or out of them.
    pub(crate) fn body(&mut self, keys: &Keys, b: &Body, edit: Edit) {
        apply(&mut self.bodies, body_hash(keys, b), edit);
    }

    /// The sums as the array a solver keeps.
    pub(crate) fn to_array(self) -> [u64; 3] {
        [self.points, self.springs, self.bodies]
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use crate::shapes::{BoxGrid, BoxShape, Rope, Wheel};
    use crate::world::{BodyHandle, Point, PointHandle, SpringHandle, World};

    /// The fingerprints each edit keeps up to date are the items' hashed
    /// afresh, and the prefix a solver that packed the world before an
    /// append compares is the fingerprint it noted.
    #[test]
    fn edits_keep_the_fingerprints_of_the_items() {
        let mut w = World::default();
        let grid = BoxGrid::new(3, 2, Vec2::splat(0.5)).build(&mut w).unwrap();
        Wheel::new(Vec2::new(4.0, 0.0), 0.5, 10)
            .build(&mut w)
            .unwrap();
        Rope::new(Vec2::new(-3.0, 2.0), Vec2::new(-1.0, 2.0), 6)
            .build(&mut w)
            .unwrap();
        BoxShape::new(Vec2::new(8.0, 0.0), Vec2::ONE)
            .build(&mut w)
            .unwrap();
        assert!(w.fingerprints_hold());
        let full =
            |w: &World| w.prefix_fingerprint(w.points().len(), w.springs().len(), w.bodies().len());
        let noted = full(&w).unwrap();

        // An append leaves the earlier items' fingerprint as it was.
        let (n, s, b) = (w.points().len(), w.springs().len(), w.bodies().len());
        BoxShape::new(Vec2::new(12.0, 0.0), Vec2::ONE)
            .build(&mut w)
            .unwrap();
        assert_eq!(w.prefix_fingerprint(n, s, b), Some(noted));
        assert_ne!(full(&w), Some(noted));
        assert_eq!(w.prefix_fingerprint(n + 100, s, b), None);

        // A failed transaction restores them.
        let before = full(&w);
        let failed = w.transaction(|tx| {
            tx.add_point(Point::new(Vec2::ZERO))?;
            tx.add_point(Point::new(Vec2::X).mass(-1.0))
        });
        assert!(failed.is_err());
        assert_eq!(full(&w), before);

        // Removals: a whole body, a grid cell with shared corners (its
        // neighbours reshaped), springs alone, points; and a body made
        // kinematic.
        let edits: [&dyn Fn(&mut World); 5] = [
            &|w| drop(w.remove_body(BodyHandle(1)).unwrap()),
            &|w| drop(w.remove_points(&[grid.points[0]]).unwrap()),
            &|w| drop(w.remove_springs(&[SpringHandle(2)]).unwrap()),
            &|w| {
                let middle = PointHandle(w.points().len() as u32 / 2);
                drop(w.remove_points(&[middle]).unwrap())
            },
            &|w| {
                let last = BodyHandle(w.bodies().len() as u32 - 1);
                w.set_kinematic(last, Vec2::X, 0.5).unwrap()
            },
        ];
        for edit in edits {
            let before = full(&w);
            edit(&mut w);
            assert!(w.fingerprints_hold());
            assert_ne!(full(&w), before);
        }
    }

    /// On the default scene (grids of boxes sharing corners, wheels,
    /// blobs, hubless rings): removals of bodies spread through it keep
    /// the fingerprints of the items, and a body appended afterwards
    /// leaves the survivors' prefix as it was after the removals.
    #[test]
    fn removals_in_the_default_scene_keep_the_fingerprints() {
        let mut w = crate::scenes::default_scene(300).unwrap();
        for k in [7u32, 150, 151, 2, 280, 0] {
            let body = BodyHandle(k % w.bodies().len() as u32);
            w.remove_body(body).unwrap();
            assert!(w.fingerprints_hold(), "after removing body {k}");
        }
        let (n, s, b) = (w.points().len(), w.springs().len(), w.bodies().len());
        let noted = w.prefix_fingerprint(n, s, b);
        Wheel::new(Vec2::new(0.0, 90.0), 0.3, 8)
            .build(&mut w)
            .unwrap();
        assert_eq!(w.prefix_fingerprint(n, s, b), noted);
        assert!(w.fingerprints_hold());
    }
}
