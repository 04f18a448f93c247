// Contact events: which pairs of bodies began and ended touching, once a
// step after the substeps (docs/physics.md, "Contact events"). CPU
// mirror: src/cpu/events.rs.
//
//   clear    this step's pair slots and their points empty.
//   gather   one thread a point: its contact from the step's last narrow
//            phase joins its own body (its first membership) and the body
//            it touches; the pair (lower, higher) takes a slot of the
//            lower body (compare and exchange: a set, whatever the order),
//            and its point is the lowest-numbered point in it (atomicMin).
//            A pair past PAIR_SLOTS is counted lost.
//   keep     one thread a body: a pair of the last step stays while the
//            bodies' boxes (the broad phase's, grown by point_radius) still
//            meet: a resting contact is found in some narrow phases and not
//            in others, and two sleeping bodies are not tested against each
//            other at all. So a pair ends once the bodies are apart by more
//            than the boxes' growth, not at the first narrow phase that
//            misses it.
//   compare  one thread a body: a partner now that was not one before
//            begins, one before that is not now ends; each event is
//            appended to the event_log (atomicAdd), or counted lost past
//            EVENT_CAPACITY. The host sorts what it collects.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> state: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> hits: array<ContactHit>;
@group(0) @binding(3) var<storage, read> outlines: array<BodyOutline>;
@group(0) @binding(4) var<storage, read> member_offsets: array<u32>;
@group(0) @binding(5) var<storage, read> point_members: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read> rest_steps: array<u32>;
@group(0) @binding(7) var<storage, read_write> pairs: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read> last_pairs: array<u32>;
@group(0) @binding(9) var<storage, read_write> pair_point: array<atomic<u32>>;
@group(0) @binding(10) var<storage, read> last_pair_point: array<u32>;
@group(0) @binding(11) var<storage, read_write> event_log: EventLog;
@group(0) @binding(12) var<storage, read> aabbs: array<vec4<f32>>;

struct ContactEvent {
    kind: u32,
    a: u32,
    b: u32,
    point_index: u32,
    point: vec2<f32>,
    _pad0: u32,
    _pad1: u32,
}

struct EventLog {
    count: atomic<u32>,
    lost: atomic<u32>,
    _pad0: u32,
    _pad1: u32,
    events: array<ContactEvent>,
}

const EVENT_BEGIN: u32 = 1u;
const EVENT_END: u32 = 2u;
const PAIR_SLOTS: u32 = 4u;
const EVENT_CAPACITY: u32 = 4096u;
const NO_PAIR: u32 = 0xffffffffu;

@compute @workgroup_size(WORKGROUP_SIZE)
fn clear(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_bodies * PAIR_SLOTS) {
        return;
    }
    atomicStore(&pairs[i], NO_PAIR);
    atomicStore(&pair_point[i], NO_PAIR);
}

// Puts `b` among body `a`'s partners (a set) and lowers the pair's point
// to `p`; counts the pair lost when every slot holds another.
fn insert(a: u32, b: u32, p: u32) {
    for (var k = 0u; k < PAIR_SLOTS; k++) {
        let slot = a * PAIR_SLOTS + k;
        var held = atomicLoad(&pairs[slot]);
        if (held == NO_PAIR) {
            let r = atomicCompareExchangeWeak(&pairs[slot], NO_PAIR, b);
            held = select(r.old_value, b, r.exchanged);
            // A spurious failure leaves it empty: try the slot again.
            if (!r.exchanged && r.old_value == NO_PAIR) {
                k -= 1u;
                continue;
            }
        }
        if (held == b) {
            atomicMin(&pair_point[slot], p);
            return;
        }
    }
    atomicAdd(&event_log.lost, 1u);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn gather(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let other = hits[i].body;
    let first = member_offsets[i];
    if (other >= sim.num_bodies || first >= member_offsets[i + 1u]) {
        return;
    }
    let own = point_members[first].z;
    if (own == other) {
        return;
    }
    insert(min(own, other), max(own, other), i);
}

// Whether bodies `a` and `b`'s boxes meet.
fn boxes_meet(a: u32, b: u32) -> bool {
    let p = aabbs[a];
    let q = aabbs[b];
    return all(p.xy <= q.zw) && all(q.xy <= p.zw);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn keep(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let a = linear_index(gid, groups);
    if (a >= sim.num_bodies) {
        return;
    }
    for (var k = 0u; k < PAIR_SLOTS; k++) {
        let b = last_pairs[a * PAIR_SLOTS + k];
        if (b != NO_PAIR && boxes_meet(a, b)) {
            insert(a, b, last_pair_point[a * PAIR_SLOTS + k]);
        }
    }
}

fn emit(kind: u32, a: u32, b: u32, p: u32) {
    let at = atomicAdd(&event_log.count, 1u);
    if (at >= EVENT_CAPACITY) {
        atomicAdd(&event_log.lost, 1u);
        return;
    }
    event_log.events[at] = ContactEvent(kind, a, b, p, state[p].xy, 0u, 0u);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn compare(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let a = linear_index(gid, groups);
    if (a >= sim.num_bodies) {
        return;
    }
    let base = a * PAIR_SLOTS;
    for (var k = 0u; k < PAIR_SLOTS; k++) {
        let now = atomicLoad(&pairs[base + k]);
        if (now == NO_PAIR) {
            continue;
        }
        var was = false;
        for (var j = 0u; j < PAIR_SLOTS; j++) {
            was = was || last_pairs[base + j] == now;
        }
        if (!was) {
            emit(EVENT_BEGIN, a, now, atomicLoad(&pair_point[base + k]));
        }
    }
    for (var k = 0u; k < PAIR_SLOTS; k++) {
        let before = last_pairs[base + k];
        if (before == NO_PAIR) {
            continue;
        }
        var is = false;
        for (var j = 0u; j < PAIR_SLOTS; j++) {
            is = is || atomicLoad(&pairs[base + j]) == before;
        }
        if (!is) {
            emit(EVENT_END, a, before, last_pair_point[base + k]);
        }
    }
}
