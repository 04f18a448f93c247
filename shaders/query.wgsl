// Queries: ray casts against the bodies' outlines (as body contacts see
// them) and the planets and half-planes, batched, one workgroup a ray.
// CPU mirror: src/cpu/query.rs (docs/physics.md, "Queries").
//
//   body_boxes one thread a body (of the list): its outline's box, once a
//            batch, which the rays and points test first (grown by
//            QUERY_BOX_SLACK): a body whose box the ray misses, or enters
//            beyond the thread's nearest hit so far, or whose box does
//            not hold the point, is not walked.
//   cast_rays  each thread tests the bodies numbered like it: a body's
//            distance is the least over the outline's edges the ray
//            enters (crosses against their outward normal, the winding's
//            sign taken from the outline's signed area), so a ray from
//            inside a body leaves it unseen, as Box2D's ray casts do. The
//            workgroup takes the least distance (atomicMin on the bits of
//            a float >= 0, which order as the values do), then the lowest
//            body at it; thread 0 finds that body's edge again (the
//            lowest at the distance), then tests the planets and planes in
//            order, which win only when nearer. The result does not
//            depend on the order the threads run in.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> state: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> outlines: array<BodyOutline>;
@group(0) @binding(3) var<storage, read> outline_points: array<u32>;
@group(0) @binding(4) var<uniform> colliders: Colliders;
@group(0) @binding(5) var<storage, read> rays: array<RayQuery>;
@group(0) @binding(6) var<storage, read_write> hits: array<RayHitRecord>;
// The terrain's segments (one zeroed stand-in without terrain) and their
// count.
@group(0) @binding(12) var<storage, read> segments: array<SegmentInfo>;
@group(0) @binding(13) var<uniform> terrain: TerrainGrid;

// Where a ray enters terrain segment `s` from its open side, or -1: a ray
// from behind it, or along it, does not see it. CPU mirror:
// cpu::query::segment_entry.
fn segment_entry(s: SegmentInfo, origin: vec2<f32>, dir: vec2<f32>) -> f32 {
    let toward = dot(s.normal, dir);
    let above = dot(s.normal, origin - s.a);
    if (!(above > 0.0 && toward < 0.0)) {
        return -1.0;
    }
    let tp = -above / toward;
    let ab = s.b - s.a;
    let u = dot(origin + tp * dir - s.a, ab) / dot(ab, ab);
    if (u >= 0.0 && u <= 1.0) {
        return tp;
    }
    return -1.0;
}
// The bodies with an outline of 3 points or more (Packed::colliders).
@group(0) @binding(7) var<storage, read> body_list: array<u32>;
// Each listed body's outline box (min, max), by its place in body_list.
@group(0) @binding(14) var<storage, read_write> boxes: array<vec4<f32>>;

// How much a body's box grows, relative to 1 m plus its largest
// coordinate, before a ray or point is tested against it: more than the
// rounding of the edge tests, so that no hit is culled.
const QUERY_BOX_SLACK: f32 = 1e-4;

// Outline `o`'s box, (min, max).
fn outline_box(o: BodyOutline) -> vec4<f32> {
    var lo = vec2<f32>(3.4e38);
    var hi = vec2<f32>(-3.4e38);
    for (var k = 0u; k < o.count; k++) {
        let a = state[outline_points[o.first + k]].xy;
        lo = min(lo, a);
        hi = max(hi, a);
    }
    return vec4<f32>(lo, hi);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn body_boxes(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let b = linear_index(gid, groups);
    if (b >= sim.num_colliders) {
        return;
    }
    boxes[b] = outline_box(outlines[body_list[b]]);
}

// Box `b` grown by QUERY_BOX_SLACK.
fn grown(b: vec4<f32>) -> vec4<f32> {
    let m = QUERY_BOX_SLACK * (1.0 + max(max(abs(b.x), abs(b.y)), max(abs(b.z), abs(b.w))));
    return vec4<f32>(b.xy - m, b.zw + m);
}

// One axis of the slab test: the span [t0, t1] narrowed to where the ray
// (origin o, direction d along the axis) is within [lo, hi]; empty (t0 >
// t1) when it never is.
fn slab(span: vec2<f32>, o: f32, d: f32, lo: f32, hi: f32) -> vec2<f32> {
    if (d == 0.0) {
        return select(vec2<f32>(1.0, 0.0), span, o >= lo && o <= hi);
    }
    let ta = (lo - o) / d;
    let tb = (hi - o) / d;
    return vec2<f32>(max(span.x, min(ta, tb)), min(span.y, max(ta, tb)));
}

// Where along the ray (within [0, max]) it enters box `b` grown, or -1
// when it misses it.
fn ray_box(r: RayQuery, b: vec4<f32>) -> f32 {
    let g = grown(b);
    var span = vec2<f32>(0.0, r.max);
    span = slab(span, r.origin.x, r.dir.x, g.x, g.z);
    span = slab(span, r.origin.y, r.dir.y, g.y, g.w);
    return select(span.x, -1.0, span.x > span.y);
}

struct RayQuery {
    origin: vec2<f32>,
    dir: vec2<f32>,
    max: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

struct RayHitRecord {
    t: f32,
    kind: u32,
    index: u32,
    _pad: u32,
    point: vec2<f32>,
    normal: vec2<f32>,
}

const RAY_NONE: u32 = 0u;
const RAY_BODY: u32 = 1u;
const RAY_PLANET: u32 = 2u;
const RAY_PLANE: u32 = 3u;
const RAY_TERRAIN: u32 = 4u;
const QUERY_THREADS: u32 = 64u;
// No hit yet: the bits of +inf.
const FAR: u32 = 0x7f800000u;

var<workgroup> best_t: atomic<u32>;
var<workgroup> best_body: atomic<u32>;

// The outline's winding: 1 counter-clockwise, -1 clockwise (its signed
// area's sign; 1 for none). The area is taken about the first corner, so
// that far from the origin its sign is not lost in rounding.
fn winding(o: BodyOutline) -> f32 {
    let first = state[outline_points[o.first]].xy;
    var area = 0.0;
    for (var k = 1u; k + 1u < o.count; k++) {
        let a = state[outline_points[o.first + k]].xy - first;
        let b = state[outline_points[o.first + k + 1u]].xy - first;
        area += cross2(a, b);
    }
    return select(1.0, -1.0, area < 0.0);
}

// Where along the ray it enters edge a-b of an outline of winding `w`, or
// +inf: crossing it against its outward normal, within the edge and
// within [0, max].
fn enter_edge(r: RayQuery, a: vec2<f32>, b: vec2<f32>, w: f32) -> f32 {
    let e = b - a;
    let outward = w * vec2<f32>(e.y, -e.x);
    let toward = dot(r.dir, outward);
    if (toward >= 0.0) {
        return bitcast<f32>(FAR);
    }
    let denom = cross2(r.dir, e);
    let ap = a - r.origin;
    let t = cross2(ap, e) / denom;
    let s = cross2(ap, r.dir) / denom;
    if (t < 0.0 || t > r.max || s < 0.0 || s > 1.0) {
        return bitcast<f32>(FAR);
    }
    // +0 for -0: the workgroup's least distance is an atomicMin on the
    // bits, where -0's sign bit would rank it after every other distance.
    return abs(t);
}

// Body `b`'s entry along the ray: (t, edge), t = +inf for none.
fn body_entry(r: RayQuery, b: u32) -> vec2<f32> {
    let o = outlines[b];
    let w = winding(o);
    var best = bitcast<f32>(FAR);
    var edge = 0u;
    for (var k = 0u; k < o.count; k++) {
        let next = select(k + 1u, 0u, k + 1u == o.count);
        let a = state[outline_points[o.first + k]].xy;
        let c = state[outline_points[o.first + next]].xy;
        let t = enter_edge(r, a, c, w);
        if (t < best) {
            best = t;
            edge = k;
        }
    }
    return vec2<f32>(best, f32(edge));
}

@compute @workgroup_size(QUERY_THREADS)
fn cast_rays(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let q = wg.x;
    let r = rays[q];
    if (t == 0u) {
        atomicStore(&best_t, FAR);
        atomicStore(&best_body, 0xffffffffu);
    }
    workgroupBarrier();
    var mine = bitcast<f32>(FAR);
    var mine_body = 0xffffffffu;
    for (var b = t; b < sim.num_colliders; b += QUERY_THREADS) {
        // A body whose box the ray misses, or enters past this thread's
        // nearest hit, cannot be nearer (nor tie it).
        let enter = ray_box(r, boxes[b]);
        if (enter < 0.0 || enter > mine) {
            continue;
        }
        let body = body_list[b];
        let e = body_entry(r, body);
        if (e.x < mine || (e.x == mine && body < mine_body)) {
            mine = e.x;
            mine_body = body;
        }
    }
    atomicMin(&best_t, bitcast<u32>(mine));
    workgroupBarrier();
    if (bitcast<u32>(mine) == atomicLoad(&best_t) && mine_body != 0xffffffffu) {
        atomicMin(&best_body, mine_body);
    }
    workgroupBarrier();
    if (t != 0u) {
        return;
    }
    var hit = RayHitRecord(bitcast<f32>(FAR), RAY_NONE, 0u, 0u, vec2<f32>(0.0), vec2<f32>(0.0));
    let body = atomicLoad(&best_body);
    if (body != 0xffffffffu && atomicLoad(&best_t) != FAR) {
        let o = outlines[body];
        let w = winding(o);
        let e = body_entry(r, body);
        let k = u32(e.y);
        let next = select(k + 1u, 0u, k + 1u == o.count);
        let a = state[outline_points[o.first + k]].xy;
        let c = state[outline_points[o.first + next]].xy;
        let edge = c - a;
        let n = normalize(w * vec2<f32>(edge.y, -edge.x));
        hit = RayHitRecord(e.x, RAY_BODY, body, 0u, r.origin + e.x * r.dir, n);
    }
    for (var k = 0u; k < sim.num_planets; k++) {
        let p = colliders.planets[k];
        let d = r.origin - p.center;
        let a = dot(r.dir, r.dir);
        let half_b = dot(d, r.dir);
        let c = dot(d, d) - p.radius * p.radius;
        let disc = half_b * half_b - a * c;
        if (c > 0.0 && half_b < 0.0 && disc >= 0.0) {
            let tp = (-half_b - sqrt(disc)) / a;
            if (tp <= r.max && tp < hit.t) {
                let at = r.origin + tp * r.dir;
                hit = RayHitRecord(tp, RAY_PLANET, k, 0u, at, normalize(at - p.center));
            }
        }
    }
    for (var k = 0u; k < sim.num_planes; k++) {
        let p = colliders.planes[k];
        let toward = dot(p.normal, r.dir);
        let above = dot(p.normal, r.origin) - p.offset;
        if (above > 0.0 && toward < 0.0) {
            let tp = -above / toward;
            if (tp <= r.max && tp < hit.t) {
                hit = RayHitRecord(tp, RAY_PLANE, k, 0u, r.origin + tp * r.dir, p.normal);
            }
        }
    }
    for (var k = 0u; k < terrain.num_segments; k++) {
        let sg = segments[k];
        let tp = segment_entry(sg, r.origin, r.dir);
        if (tp >= 0.0 && tp <= r.max && tp < hit.t) {
            hit = RayHitRecord(tp, RAY_TERRAIN, k, 0u, r.origin + tp * r.dir, sg.normal);
        }
    }
    hits[q] = hit;
}

// --- The body under a point, and the bodies in a box ---
//
//   bodies_at     one workgroup a point: the lowest body (of those with
//                 an outline) whose outline holds the point (crossing
//                 number, as the narrow phase's point in polygon), by an
//                 atomicMin over the threads; 0xffffffff for none. After
//                 body_boxes: a body whose grown box does not hold the
//                 point is passed over.
//   bodies_in_box one thread a body: a body whose outline's box meets the
//                 query box (both closed) appends its index; the host
//                 sorts the list, whose order the appends' atomics gave.

@group(0) @binding(8) var<storage, read> probes: array<vec2<f32>>;
@group(0) @binding(9) var<storage, read_write> under: array<u32>;
// The query box, (min, max).
@group(0) @binding(10) var<uniform> area: vec4<f32>;
// The count, then the bodies.
@group(0) @binding(11) var<storage, read_write> found: array<atomic<u32>>;

var<workgroup> lowest: atomic<u32>;

// Whether outline `o` holds `p` (crossing number).
fn holds(o: BodyOutline, p: vec2<f32>) -> bool {
    var inside = false;
    for (var k = 0u; k < o.count; k++) {
        let next = select(k + 1u, 0u, k + 1u == o.count);
        let a = state[outline_points[o.first + k]].xy;
        let b = state[outline_points[o.first + next]].xy;
        if ((a.y > p.y) != (b.y > p.y)) {
            let x = a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y);
            if (p.x < x) {
                inside = !inside;
            }
        }
    }
    return inside;
}

@compute @workgroup_size(QUERY_THREADS)
fn bodies_at(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let q = wg.x;
    let p = probes[q];
    if (t == 0u) {
        atomicStore(&lowest, 0xffffffffu);
    }
    workgroupBarrier();
    for (var b = t; b < sim.num_colliders; b += QUERY_THREADS) {
        let g = grown(boxes[b]);
        if (any(p < g.xy) || any(p > g.zw)) {
            continue;
        }
        let body = body_list[b];
        if (holds(outlines[body], p)) {
            atomicMin(&lowest, body);
        }
    }
    workgroupBarrier();
    if (t == 0u) {
        under[q] = atomicLoad(&lowest);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn bodies_in_box(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let b = linear_index(gid, groups);
    if (b >= sim.num_colliders) {
        return;
    }
    let body = body_list[b];
    let bx = outline_box(outlines[body]);
    if (all(bx.xy <= area.zw) && all(bx.zw >= area.xy)) {
        let slot = atomicAdd(&found[0], 1u);
        atomicStore(&found[slot + 1u], body);
    }
}
