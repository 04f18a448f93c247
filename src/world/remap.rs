//! Where the items of one kind went in a removal: the removed items leave
//! holes, and the survivors past the new end fill them.

/// Where the items that survived a removal went: old index to new index.
///
/// A removal fills each hole below the new end with a survivor from past
/// it: the lowest hole takes the first such survivor, the next hole the
/// next one. Every other survivor keeps its index. So a removal moves at
/// most as many items as it removes, and a solver follows it by moving
/// those alone ([`Remap::moves`]). The map is held in that form too: the
/// holes and the items past the new end, not a word per item.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Remap {
    old_len: usize,
    /// The removed items below the new end, in order: the holes.
    holes: Vec<u32>,
    /// The new index of each old item from the new end on, or
    /// [`Remap::REMOVED`].
    tail: Vec<u32>,
    /// The old index of the survivor that fills each hole.
    fillers: Vec<u32>,
}

impl Remap {
    /// Marks a removed item in [`Remap::to_vec`].
    pub const REMOVED: u32 = u32::MAX;

    /// The remap of `old_len` items that removes `removed` (in any order,
    /// repeats allowed, each below `old_len`).
    pub fn from_removed(old_len: usize, removed: &[u32]) -> Self {
        let mut removed = removed.to_vec();
        removed.sort_unstable();
        removed.dedup();
        debug_assert!(removed.last().is_none_or(|&r| (r as usize) < old_len));
        let new_len = old_len - removed.len();
        let split = removed.partition_point(|&r| (r as usize) < new_len);
        let holes = removed[..split].to_vec();
        let mut tail = vec![0; old_len - new_len];
        for &r in &removed[split..] {
            tail[r as usize - new_len] = Self::REMOVED;
        }
        let mut fillers = Vec::with_capacity(holes.len());
        let mut next = holes.iter();
        for (i, t) in tail.iter_mut().enumerate() {
            if *t != Self::REMOVED {
                *t = *next
                    .next()
                    .expect("as many survivors past the end as holes");
                fillers.push((new_len + i) as u32);
            }
        }
        Self {
            old_len,
            holes,
            tail,
            fillers,
        }
    }

    /// The remap that keeps the items whose flag is `true`.
    pub fn from_kept(kept: &[bool]) -> Self {
        let removed: Vec<u32> = (0..kept.len() as u32)
            .filter(|&i| !kept[i as usize])
            .collect();
        Self::from_removed(kept.len(), &removed)
    }

    /// The new index of old item `old`, or `None` if it was removed (or
    /// never existed).
    pub fn get(&self, old: u32) -> Option<u32> {
        let i = old as usize;
        if i >= self.old_len {
            return None;
        }
        let new_len = self.new_len();
        if i >= new_len {
            return Some(self.tail[i - new_len]).filter(|&n| n != Self::REMOVED);
        }
        self.holes.binary_search(&old).is_err().then_some(old)
    }

    /// The old index of the item now at `new`, or `None` past the new end.
    pub fn old_of(&self, new: u32) -> Option<u32> {
        if new as usize >= self.new_len() {
            return None;
        }
        Some(match self.holes.binary_search(&new) {
            Ok(k) => self.fillers[k],
            Err(_) => new,
        })
    }

    /// New index of every old item, [`Remap::REMOVED`] for removed ones
    /// (a word per item: for code that reads the map at every index).
    pub fn to_vec(&self) -> Vec<u32> {
        let new_len = self.new_len() as u32;
        let mut map: Vec<u32> = (0..new_len).collect();
        for &h in &self.holes {
            map[h as usize] = Self::REMOVED;
        }
        map.extend_from_slice(&self.tail);
        map
    }

    /// The lowest index whose item the removal changed (removed, or moved
    /// into its place), or the new end: every item below it kept its
    /// index.
    pub fn first_changed(&self) -> u32 {
        let new_len = self.new_len() as u32;
        self.holes.first().map_or(new_len, |&h| h.min(new_len))
    }

    /// The removed items below the new end, sorted: the holes the
    /// survivors past it fill.
    pub fn holes(&self) -> &[u32] {
        &self.holes
    }

    /// The old index of the survivor that fills each of
    /// [`holes`](Remap::holes).
    pub fn fillers(&self) -> &[u32] {
        &self.fillers
    }

    /// The new index of each old item from the new end on, or
    /// [`Remap::REMOVED`]: as many as were removed.
    pub fn tail(&self) -> &[u32] {
        &self.tail
    }

    /// Items before the removal.
    pub fn old_len(&self) -> usize {
        self.old_len
    }

    /// Items after the removal.
    pub fn new_len(&self) -> usize {
        self.old_len - self.tail.len()
    }

    /// Whether nothing was removed.
    pub fn is_identity(&self) -> bool {
        self.tail.is_empty()
    }

    /// The items that moved, as `(old, new)`, in the order of their new
    /// indices: every other survivor kept its index.
    pub fn moves(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.fillers.iter().copied().zip(self.holes.iter().copied())
    }

    /// The removed items' old indices, in order.
    pub fn removed(&self) -> impl Iterator<Item = u32> + '_ {
        let new_len = self.new_len() as u32;
        let past = self.tail.iter().enumerate();
        let past = past.filter(|(_, t)| **t == Self::REMOVED);
        (self.holes.iter().copied()).chain(past.map(move |(i, _)| new_len + i as u32))
    }

    /// `items` after the removal, in place: the movers copied into the
    /// holes, the end cut. `items` may hold only the first items the map
    /// covers (those a solver has packed), as long as every item that
    /// moves from them lands among them ([`Remap::keeps_prefix`]).
    pub fn apply_in_place<T: Clone>(&self, items: &mut Vec<T>) {
        let n = items.len();
        for (old, new) in self.moves() {
            if (old as usize) < n {
                items[new as usize] = items[old as usize].clone();
            }
        }
        items.truncate(self.prefix_len(n));
    }

    /// [`Remap::apply_in_place`] on a copy.
    pub fn apply<T: Clone>(&self, items: &[T]) -> Vec<T> {
        let mut v = items[..items.len().min(self.old_len)].to_vec();
        self.apply_in_place(&mut v);
        v
    }

    /// How many of the first `n` old items survive.
    pub fn prefix_len(&self, n: usize) -> usize {
        let n = n.min(self.old_len);
        let below = self.holes.partition_point(|&h| (h as usize) < n);
        let new_len = self.new_len();
        let past = self.tail[..n.saturating_sub(new_len)]
            .iter()
            .filter(|&&t| t == Self::REMOVED)
            .count();
        n - below - past
    }

    /// Whether the survivors among the first `n` old items are, after the
    /// removal, the first [`prefix_len(n)`](Remap::prefix_len) items:
    /// true when `n` is every item, and whenever no item past `n` fills a
    /// hole among the first `n`. A solver that has packed `n` items
    /// follows the removal by moving items when it holds, and packs the
    /// world again when it does not.
    pub fn keeps_prefix(&self, n: usize) -> bool {
        let kept = self.prefix_len(n) as u32;
        let n = n as u32;
        self.moves().all(|(old, new)| (old < n) == (new < kept))
            && (kept..n.min(self.new_len() as u32)).all(|i| self.holes.binary_search(&i).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::Remap;

    /// The map against one made by brute force: survivors past the new
    /// end fill the holes in order.
    #[test]
    fn holes_are_filled_from_past_the_new_end_in_order() {
        let r = Remap::from_removed(8, &[1, 6, 3, 3]);
        assert_eq!(r.new_len(), 5);
        // Holes 1 and 3 (below 5); past the end: 5 stays, 6 goes, 7 stays.
        assert_eq!(
            r.to_vec(),
            vec![
                0,
                Remap::REMOVED,
                2,
                Remap::REMOVED,
                4,
                1,
                Remap::REMOVED,
                3
            ]
        );
        assert_eq!(r.moves().collect::<Vec<_>>(), vec![(5, 1), (7, 3)]);
        assert_eq!(r.removed().collect::<Vec<_>>(), vec![1, 3, 6]);
        for new in 0..5 {
            let old = r.old_of(new).unwrap();
            assert_eq!(r.get(old), Some(new));
        }
        assert_eq!(r.old_of(5), None);
        assert_eq!(r.get(8), None);
        let items: Vec<u32> = (0..8).collect();
        assert_eq!(r.apply(&items), vec![0, 5, 2, 7, 4]);
        assert_eq!(
            Remap::from_kept(&[true, false, true]).to_vec(),
            vec![0, Remap::REMOVED, 1]
        );
    }

    /// A solver that packed only the first items follows by moving them
    /// when no later item fills one of their holes.
    #[test]
    fn a_prefix_is_kept_unless_a_later_item_fills_its_holes() {
        // 6 items, item 1 removed: item 5 fills the hole.
        let r = Remap::from_removed(6, &[1]);
        assert!(r.keeps_prefix(6));
        assert!(!r.keeps_prefix(4), "item 5 (not packed) fills hole 1");
        // Items 4 and 5 removed: nothing moves.
        let r = Remap::from_removed(6, &[4, 5]);
        assert!(r.keeps_prefix(3) && r.keeps_prefix(5) && r.keeps_prefix(6));
        assert_eq!(r.prefix_len(5), 4);
        // Item 2 of 4 packed removed, items 4 and 5 appended: 5 fills 2.
        let r = Remap::from_removed(6, &[2]);
        assert!(!r.keeps_prefix(4));
        // Items 2 and 3 of 4 packed removed: 4 and 5 fill their holes, past
        // the packed survivors 0 and 1, for the next sync to append.
        let r = Remap::from_removed(6, &[2, 3]);
        assert!(r.keeps_prefix(4));
        assert!(Remap::from_removed(6, &[0]).keeps_prefix(6));
        let mut packed = vec![10, 11, 12, 13, 14, 15];
        Remap::from_removed(6, &[0, 2]).apply_in_place(&mut packed);
        assert_eq!(packed, vec![14, 11, 15, 13]);
    }
}
