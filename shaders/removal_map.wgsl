
// A removal's maps, in the form the world holds them (CPU: world::Remap;
// written by src/gpu/remap_contacts.rs, `RemapTable`): a word per removed
// item, not a word per item, so that a removal uploads in proportion to
// what it removed. The stage that appends this fragment binds
// `removal_words` and `removal_spans`.
//
// Per kind (MAP_POINTS, MAP_BODIES) two vec4 of `removal_spans`:
//   [2k]      (packed: the old items the kernels cover, new_len: the
//             world's items after the removal, holes, base: where the
//             kind's words start)
//   [2k + 1]  (first: the lowest index the removal changed, packed_new:
//             the items packed after it, holes_end: one past the last
//             hole (first where there is none), 0)
// and from `base` the words: the holes (removed items below new_len,
// sorted), the fillers (the old index of the survivor that fills each
// hole), then each old item's new index from new_len on (REMOVED for what
// went).

const MAP_POINTS: u32 = 0u;
const MAP_BODIES: u32 = 1u;

// Where `i` (first <= i < new_len) is among the kind's holes, or the hole
// count if it is none: a binary search, as the holes are sorted, for the
// lanes between the first and the last hole only.
fn map_hole(kind: u32, span: vec4<u32>, i: u32) -> u32 {
    if (i >= removal_spans[2u * kind + 1u].z) {
        return span.z;
    }
    var lo = 0u;
    var hi = span.z;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        if (removal_words[span.w + mid] < i) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    if (lo < span.z && removal_words[span.w + lo] == i) {
        return lo;
    }
    return span.z;
}

// Old item `i`'s new index, or REMOVED where it went or was never packed
// (CPU: world::Remap::get).
fn map_new(kind: u32, i: u32) -> u32 {
    let span = removal_spans[2u * kind];
    if (i >= span.x) {
        return REMOVED;
    }
    if (i < removal_spans[2u * kind + 1u].x) {
        return i;
    }
    if (i >= span.y) {
        return removal_words[span.w + 2u * span.z + i - span.y];
    }
    if (map_hole(kind, span, i) < span.z) {
        return REMOVED;
    }
    return i;
}

// The old index of the item now at `i` (below new_len): the filler where
// `i` was a hole, else `i` (CPU: world::Remap::old_of).
fn map_old(kind: u32, i: u32) -> u32 {
    let span = removal_spans[2u * kind];
    if (i < removal_spans[2u * kind + 1u].x) {
        return i;
    }
    let k = map_hole(kind, span, i);
    if (k < span.z) {
        return removal_words[span.w + span.z + k];
    }
    return i;
}

// The items of the kind packed after the removal.
fn map_packed_new(kind: u32) -> u32 {
    return removal_spans[2u * kind + 1u].y;
}
