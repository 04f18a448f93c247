// The near list of stage 5b's narrow phase (body_collide.wgsl,
// narrow.wgsl): the bodies a substep's first narrow phase notes per
// point, which its later narrow phases test instead of walking the grid.
// No CPU mirror: the list does not change the contacts.

// The near list: a substep's first narrow phase (WARM_PASS) notes, for
// each awake point, the bodies that pass may_touch's tests with their box
// grown by NEAR_NOTE point radii (at most NEAR_SLOTS of them, each marked
// NEAR_HELD when its box itself holds the point), with the broad phase's
// stamp and the point's position. The substep's later narrow phases test
// those bodies rather than walk the grid while the grid, the boxes and the
// other tests are the same (the stamp) and the point has moved within its
// cell by at most NEAR_REACH radii on each axis (near_walk): every body
// whose box holds it then is on the list (the notes reach further than
// that, so rounding cannot leave one off), and keep_deepest does not
// depend on the order, so the contacts are the walk's. On a CPU adapter,
// where a load is a loop over the lanes, a walk of a few grid entries
// costs several times the list. The record lives in `warm` after the
// points' warm starts, NEAR_RECORD_WORDS words a point from vec4
// num_points + 2 i: the stamp, the count (NEAR_NO_LIST: none kept), the
// position's bits, then the bodies. With point_radius 0 no list is kept
// (note_near_list) and the later narrow phases walk the grid. The walk's
// CPU mirror is cpu::body_collide::deepest, whose contacts the list does
// not change.
// The top bit of a noted body (a body index is below 2^30, MAX_ITEMS).
const NEAR_HELD: u32 = 0x80000000u;
const NEAR_NO_LIST: u32 = 0xffffffffu;
const NEAR_NOTE: f32 = 1.5;
const NEAR_REACH: f32 = 1.0;

// The list a walk notes, or near_walk read.
var<private> near_n: u32;
var<private> near_ids: vec4<u32>;

fn near_record(i: u32) -> u32 {
    return sim.num_points + (NEAR_RECORD_WORDS / 4u) * i;
}

// This substep's broad phase's stamp (broad_phase.wgsl, `clear`).
fn grid_stamp() -> u32 {
    return slot_awake[sim.table_mask + 1u];
}

// How far the walk of a substep's first narrow phase grows the boxes of
// the bodies it notes (none for a sleeping point, nor with point_radius
// 0: neither keeps a list).
fn near_grow(sleeping: bool) -> f32 {
    if (WARM_PASS && !sleeping) {
        return NEAR_NOTE * sim.point_radius;
    }
    return 0.0;
}

// Whether body `b`, met on the walk, may touch the point (may_touch); with
// WARM_PASS it also notes the body on the near list when its box grown
// by `grow` holds the point and the other tests pass.
fn walk_touch(b: u32, p: vec2<f32>, group: u32, joins: u32, pf: ContactFilter, sleeping: bool, grow: f32) -> bool {
    if (!WARM_PASS || grow == 0.0) {
        return may_touch(b, p, group, joins, pf, sleeping);
    }
    // An awake point (grow > 0): may_meet's sleeping test passes.
    let bb = aabbs[b];
    if (!box_holds(bb + vec4<f32>(-grow, -grow, grow, grow), p) || !may_meet(b, group, joins, pf, false)) {
        return false;
    }
    let held = box_holds(bb, p);
    if (near_n < NEAR_SLOTS) {
        near_ids[near_n] = select(b, b | NEAR_HELD, held);
    }
    near_n++;
    return held;
}

// Stores the near list the walk of point i at `p`, which grew the boxes by
// `grow` (near_grow), noted. A walk that grew none (a sleeping point, or
// point_radius 0) noted nothing and keeps no list: an empty one would
// tell a later narrow phase that no body may touch a point that has not
// moved, even one inside another body.
fn note_near_list(i: u32, p: vec2<f32>, grow: f32) {
    var n = near_n;
    if (grow == 0.0 || n > NEAR_SLOTS) {
        n = NEAR_NO_LIST;
    }
    let r = near_record(i);
    warm[r] = vec4<u32>(grid_stamp(), n, bitcast<u32>(p.x), bitcast<u32>(p.y));
    if (n != NEAR_NO_LIST && n > 0u) {
        warm[r + 1u] = near_ids;
    }
}

// A later narrow phase's near list for awake point i, now at `p`: false
// (walk the grid) unless the list is this substep's and whole, and `p` is
// in its cell within NEAR_REACH radii of where it was noted; else true, with
// the bodies that may touch `p` in near_ids[0 .. near_n].
fn near_walk(i: u32, p: vec2<f32>, sleeping: bool) -> bool {
    let r = near_record(i);
    let head = warm[r];
    if (sleeping || head.y == NEAR_NO_LIST || head.x != grid_stamp()) {
        return false;
    }
    let was = vec2<f32>(bitcast<f32>(head.z), bitcast<f32>(head.w));
    let moved = abs(p - was);
    if (!(max(moved.x, moved.y) <= NEAR_REACH * sim.point_radius) || any(grid_cell(p, sim.inv_cell) != grid_cell(was, sim.inv_cell))) {
        return false;
    }
    near_n = 0u;
    if (head.y == 0u) {
        return true;
    }
    let ids = warm[r + 1u];
    let still = all(p == was);
    for (var k = 0u; k < head.y; k++) {
        let b = ids[k] & ~NEAR_HELD;
        var held = (ids[k] & NEAR_HELD) != 0u;
        if (!still) {
            held = box_holds(aabbs[b], p);
        }
        if (held) {
            near_ids[near_n] = b;
            near_n++;
        }
    }
    return true;
}
