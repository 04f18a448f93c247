//! A list of indices in two sorted parts, as the body order and the
//! collider lists are laid out (small bodies, then large ones): an edit
//! takes entries out and puts others back where they sort, each place
//! found by a binary search, so that it costs in proportion to the
//! entries it moves rather than to the list.

use std::ops::Range;

/// Where `e` stands (`Ok`) or would stand (`Err`) in `list[part]`, which
/// is sorted by `key`.
pub(super) fn place<K: Ord>(
    list: &[u32],
    part: Range<usize>,
    e: u32,
    key: impl Fn(u32) -> K,
) -> Result<usize, usize> {
    let at = list[part.clone()].binary_search_by_key(&key(e), |&x| key(x));
    at.map(|k| part.start + k).map_err(|k| part.start + k)
}

/// `list[..split]` and `list[split..end]`, each sorted by its key; what
/// lies past `end` is not its to sort.
pub(super) struct SplitList<'a> {
    pub list: &'a mut Vec<u32>,
    pub split: usize,
    pub end: usize,
}

impl SplitList<'_> {
    /// The first part's range, or the second's.
    pub fn part(&self, first: bool) -> Range<usize> {
        if first {
            0..self.split
        } else {
            self.split..self.end
        }
    }

    /// Where `e` stands in the first part or the second, sorted by `key`.
    pub fn find<K: Ord>(&self, first: bool, e: u32, key: impl Fn(u32) -> K) -> Option<usize> {
        place(self.list, self.part(first), e, key).ok()
    }

    /// Takes out the entry at `at`, below `end`.
    pub fn take(&mut self, at: usize) {
        self.list.remove(at);
        self.split -= usize::from(at < self.split);
        self.end -= 1;
    }

    /// Puts `e` into the first part or the second where it sorts by
    /// `key`, unless it is there.
    pub fn put<K: Ord>(&mut self, first: bool, e: u32, key: impl Fn(u32) -> K) {
        if let Err(at) = place(self.list, self.part(first), e, key) {
            self.list.insert(at, e);
            self.split += usize::from(first);
            self.end += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries taken out of either part and put back keep each part
    /// sorted, and the parts' bounds follow.
    #[test]
    fn taking_and_putting_keep_both_parts_sorted() {
        let mut v = vec![1, 4, 9, 2, 3, 8, 100];
        let mut l = SplitList {
            list: &mut v,
            split: 3,
            end: 6,
        };
        let key = |e: u32| e;
        let at = l.find(false, 3, key).expect("3 in the second part");
        l.take(at);
        let at = l.find(true, 4, key).expect("4 in the first part");
        l.take(at);
        assert_eq!(l.find(true, 3, key), None);
        l.put(true, 5, key);
        l.put(false, 1, key);
        l.put(false, 1, key);
        assert_eq!((l.split, l.end), (3, 6));
        assert_eq!(v, vec![1, 5, 9, 1, 2, 8, 100]);
    }
}
