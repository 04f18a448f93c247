// Contact events: which pairs of bodies, and which bodies and colliders
// (planets, half-planes and terrain polylines), began and ended
// touching, once a step after the substeps, with the speed at which they
// met (docs/physics.md, "Contact events"). CPU mirror: src/cpu/events.rs.
//
//   snapshot (at the step's start, after the commands) every point's
//            position and velocity, from which a new contact's approach
//            speed is taken.
//   clear    this step's pair slots, their points and speeds empty.
//   gather   one thread a point: its last contact with a body in the
//            step's contact passes (`touched`, which it clears) joins its
//            own body (its first membership) and the body it touched; the
//            pair (lower, higher) takes a slot of the lower body (compare
//            and exchange: a set, whatever the order), its point is the
//            lowest-numbered point in it (atomicMin) and its speed the
//            largest approach of its points (atomicMax of the bits of a
//            non-negative f32): -(v0 - v0_edge) . n at the step's start,
//            n from the edge's nearest point to the point then. Then its
//            deepest collider within EVENT_KEEP_RADII point radii: within EVENT_TOUCH_RADII it
//            touches (and so does a point whose start position moved by
//            its start velocity for a step, x0 + v0 dt, is within
//            EVENT_TOUCH_RADII of a collider: it reached it within the
//            step, though the collider may have thrown it back since), and
//            the pair (body, EVENT_COLLIDER | k) takes a slot of the body,
//            its speed -(v0 - u_s) . n (u_s the surface's velocity);
//            the same for its terrain contact (terrain_contact.wgsl), the
//            pair (body, EVENT_COLLIDER | (planets + planes + polyline));
//            further out, within EVENT_KEEP_RADII, a pair of the last step
//            stays (a resting point is at the contact distance and would
//            flicker at it). A pair past PAIR_SLOTS is counted lost.
//   keep     one thread a body: a body pair of the last step stays while
//            the bodies' boxes (the broad phase's, grown by point_radius)
//            still meet: a resting contact is found in some narrow phases
//            and not in others, and two sleeping bodies are not tested
//            against each other at all. So a pair ends once the bodies are
//            apart by more than the boxes' growth, not at the first narrow
//            phase that misses it.
//   remap_pairs (on a removal, not in a step; once per step parity, one
//            thread an old slot) a kept body's slot moves to its new index
//            with its partner and point renumbered, into the new buffers,
//            which start empty: what keeps touching raises no new event.
//            A pair with a removed body or point is dropped, without an
//            end event.
//   compare  one thread a body: a partner now that was not one before
//            begins, one before that is not now ends; each event is
//            appended to the event_log (atomicAdd), or counted lost past
//            EVENT_CAPACITY. The host sorts what it collects.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> state: array<vec4<f32>>;
// Each point's last contact of the step with a body, (body + 1, edge),
// noted by the contact passes (shaders/body_collide.wgsl); gather reads
// and clears it.
@group(0) @binding(2) var<storage, read_write> touched: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> outlines: array<BodyOutline>;
// Each point's range of `point_members` (RecordRange).
@group(0) @binding(4) var<storage, read> member_ranges: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read> point_members: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read> rest_steps: array<u32>;
@group(0) @binding(7) var<storage, read_write> pairs: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read> last_pairs: array<u32>;
@group(0) @binding(9) var<storage, read_write> pair_point: array<atomic<u32>>;
@group(0) @binding(10) var<storage, read> last_pair_point: array<u32>;
@group(0) @binding(11) var<storage, read_write> event_log: EventLog;
@group(0) @binding(12) var<storage, read> aabbs: array<vec4<f32>>;
@group(0) @binding(13) var<storage, read_write> start: array<vec4<f32>>;
@group(0) @binding(14) var<storage, read_write> pair_speed: array<atomic<u32>>;
@group(0) @binding(15) var<storage, read> info: array<PointInfo>;
@group(0) @binding(16) var<uniform> colliders: Colliders;
@group(0) @binding(17) var<storage, read> outline_points: array<u32>;
// The terrain (one zeroed stand-in segment without terrain):
// terrain_contact.wgsl reads them.
@group(0) @binding(18) var<uniform> terrain: TerrainGrid;
@group(0) @binding(19) var<storage, read> segments: array<SegmentInfo>;
@group(0) @binding(20) var<storage, read> terrain_cells: array<u32>;
// remap_pairs: a removal's maps (removal_map.wgsl), and the old slots of
// one step parity.
@group(0) @binding(21) var<storage, read> removal_words: array<u32>;
@group(0) @binding(22) var<uniform> removal_spans: array<vec4<u32>, 4>;
@group(0) @binding(23) var<storage, read> old_pairs: array<u32>;
@group(0) @binding(24) var<storage, read> old_pair_point: array<u32>;

struct ContactEvent {
    kind: u32,
    a: u32,
    b: u32,
    point_index: u32,
    point: vec2<f32>,
    approach: f32,
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
const PAIR_SLOTS: u32 = 6u;
const EVENT_COLLIDER: u32 = 0x80000000u;
const EVENT_TOUCH_RADII: f32 = 1.25;
const EVENT_KEEP_RADII: f32 = 2.0;
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
    atomicStore(&pair_speed[i], 0u);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn snapshot(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    start[i] = state[i];
}

// Puts `b` among body `a`'s partners (a set), lowers the pair's point to
// `p` and raises its speed to `speed` (>= 0); counts the pair lost when
// every slot holds another.
fn insert(a: u32, b: u32, p: u32, speed: f32) {
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
            // abs: a speed of -0 (max(0, -0) may give it) would outrank
            // every positive speed by its sign bit.
            atomicMax(&pair_speed[slot], bitcast<u32>(abs(speed)));
            return;
        }
    }
    atomicAdd(&event_log.lost, 1u);
}

// How fast a point (x, v) = p at the step's start closes on the edge
// from a to b (each (x, v) then), along the direction from the edge's
// nearest point to it; >= 0.
fn approach(p: vec4<f32>, a: vec4<f32>, b: vec4<f32>) -> f32 {
    let e = b.xy - a.xy;
    let l2 = dot(e, e);
    let s = select(0.0, clamp(dot(p.xy - a.xy, e) / l2, 0.0, 1.0), l2 > 0.0);
    let d = p.xy - (a.xy + e * s);
    let n = safe_dir(d, length(d));
    let ve = a.zw * (1.0 - s) + b.zw * s;
    return max(0.0, -dot(p.zw - ve, n));
}

// Body `a`'s last step had partner `b`.
fn was_pair(a: u32, b: u32) -> bool {
    var was = false;
    for (var k = 0u; k < PAIR_SLOTS; k++) {
        was = was || last_pairs[a * PAIR_SLOTS + k] == b;
    }
    return was;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn gather(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let range = record_range(member_ranges[i]);
    if (range.count == 0u) {
        return;
    }
    let own = point_members[range.start].z;
    let t = touched[i];
    touched[i] = vec2<u32>(0u);
    if (t.x > 0u && t.x - 1u < sim.num_bodies && t.x - 1u != own) {
        let other = t.x - 1u;
        let o = outlines[other];
        let next = select(t.y + 1u, 0u, t.y + 1u == o.count);
        let speed = approach(start[i], start[outline_points[o.first + t.y]], start[outline_points[o.first + next]]);
        insert(min(own, other), max(own, other), i, speed);
    }
    // Touching at the step's end, or headed into a collider at the
    // step's start so fast that it reached it within the step (a body
    // the collider stopped or threw back within one step): its deepest
    // planet or half-plane, and the terrain.
    let layers = info[i].layers;
    let s0 = start[i];
    let p = state[i].xy;
    let keep = sim.point_radius * EVENT_KEEP_RADII;
    let touch = sim.point_radius * EVENT_TOUCH_RADII;
    let ahead = s0.xy + s0.zw * sim.dt;
    var c = deepest_contact(layers, p, keep);
    var touching = c.depth > keep - touch;
    if (!touching) {
        let next = deepest_contact(layers, ahead, touch);
        if (next.k != NO_COLLIDER) {
            c = next;
            touching = true;
        }
    }
    if (c.k != NO_COLLIDER) {
        let pair = EVENT_COLLIDER | c.k;
        if (touching || was_pair(own, pair)) {
            let speed = max(0.0, -dot(s0.zw - collider_velocity(c.k, p), c.normal));
            insert(own, pair, i, speed);
        }
    }
    if (terrain.num_segments == 0u) {
        return;
    }
    var hit = terrain_hit(layers, p, keep);
    var on_terrain = hit.depth > keep - touch;
    if (!on_terrain) {
        let next = terrain_hit(layers, ahead, touch);
        if (next.depth > 0.0) {
            hit = next;
            on_terrain = true;
        }
    }
    if (hit.depth > 0.0) {
        // Terrain follows the planets and half-planes in the collider
        // numbering, by polyline.
        let pair = EVENT_COLLIDER | (NUM_PLANETS + NUM_PLANES + segments[hit.k].terrain);
        if (on_terrain || was_pair(own, pair)) {
            insert(own, pair, i, max(0.0, -dot(s0.zw, hit.normal)));
        }
    }
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
        // Collider pairs are kept by gather.
        if (b < EVENT_COLLIDER && boxes_meet(a, b)) {
            insert(a, b, last_pair_point[a * PAIR_SLOTS + k], 0.0);
        }
    }
}

fn emit(kind: u32, a: u32, b: u32, p: u32, speed: f32) {
    let at = atomicAdd(&event_log.count, 1u);
    if (at >= EVENT_CAPACITY) {
        atomicAdd(&event_log.lost, 1u);
        return;
    }
    event_log.events[at] = ContactEvent(kind, a, b, p, state[p].xy, speed, 0u);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn compare(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let a = linear_index(gid, groups);
    if (a >= sim.num_bodies) {
        return;
    }
    // The body's slots, now and before, loaded once each.
    let base = a * PAIR_SLOTS;
    var now: array<u32, PAIR_SLOTS>;
    var before: array<u32, PAIR_SLOTS>;
    var any_pair = false;
    for (var k = 0u; k < PAIR_SLOTS; k++) {
        now[k] = atomicLoad(&pairs[base + k]);
        before[k] = last_pairs[base + k];
        any_pair = any_pair || now[k] != NO_PAIR || before[k] != NO_PAIR;
    }
    if (!any_pair) {
        return;
    }
    for (var k = 0u; k < PAIR_SLOTS; k++) {
        if (now[k] == NO_PAIR) {
            continue;
        }
        var was = false;
        for (var j = 0u; j < PAIR_SLOTS; j++) {
            was = was || before[j] == now[k];
        }
        if (!was) {
            let speed = bitcast<f32>(atomicLoad(&pair_speed[base + k]));
            emit(EVENT_BEGIN, a, now[k], atomicLoad(&pair_point[base + k]), speed);
        }
    }
    for (var k = 0u; k < PAIR_SLOTS; k++) {
        if (before[k] == NO_PAIR) {
            continue;
        }
        var is = false;
        for (var j = 0u; j < PAIR_SLOTS; j++) {
            is = is || now[j] == before[k];
        }
        if (!is) {
            emit(EVENT_END, a, before[k], last_pair_point[base + k], 0.0);
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn remap_pairs(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let s = linear_index(gid, groups);
    if (s >= removal_spans[2u * MAP_BODIES].x * PAIR_SLOTS) {
        return;
    }
    let b = map_new(MAP_BODIES, s / PAIR_SLOTS);
    var partner = old_pairs[s];
    let point = old_pair_point[s];
    if (b == REMOVED || partner == NO_PAIR || point == NO_PAIR) {
        return;
    }
    if (partner < EVENT_COLLIDER) {
        partner = map_new(MAP_BODIES, partner);
    }
    let q = map_new(MAP_POINTS, point);
    if (partner == REMOVED || q == REMOVED) {
        return;
    }
    let t = b * PAIR_SLOTS + s % PAIR_SLOTS;
    atomicStore(&pairs[t], partner);
    atomicStore(&pair_point[t], q);
}
