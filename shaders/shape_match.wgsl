// Stage 4: shape matching with damping toward rigid motion (Lisitsa 2023).
// `frames` / `frames_large` reduce each body to its best-fit rigid frame
// and list the bodies that may have half-plane or planet impacts
// (`list_plane_impact`); `plane_impacts`, one thread per listed body,
// dispatched indirectly with the workgroup counts the list's head holds,
// solves them. The search for a body's impact collider and the member
// loops thus run only for the bodies listed, not under a lane mask for
// every body in the frames kernels (a software adapter runs every branch
// and every loop at least once). `apply`
// gathers, per point, the pull of every body it belongs to. The frames
// hold everything `apply` needs from other points, so `apply` reads only
// its own point's state and updates the velocity in place. CPU mirror:
// src/cpu/shape_match.rs (same functions, same summation order).

// Sums below this count as zero (a collapsed body keeps the identity rotation).
const TINY_SUM: f32 = 1e-30;

@group(0) @binding(0) var<uniform> sim: SimParams;
// PointInfo records as vec4 (point_info in shared.wgsl): the fused kernel
// needs all of one, the others a single field.
@group(0) @binding(1) var<storage, read> info: array<vec4<u32>>;
// BodyInfo records as two vec4 each, Member records as one (see
// half_spring in shared.wgsl).
@group(0) @binding(2) var<storage, read> bodies: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> members: array<vec4<u32>>;
// Small bodies first, then large ones.
@group(0) @binding(4) var<storage, read> body_order: array<u32>;
// Per point (position, velocity); plane_impacts changes the velocities
// of a body that has half-plane or planet impacts.
@group(0) @binding(5) var<storage, read_write> state_in: array<vec4<f32>>;
// The frames, two vec4 per BodyFrame: stored as two vec4 rather than six
// fields (lavapipe stores a struct member by member, each a scatter).
@group(0) @binding(7) var<storage, read_write> frames_out: array<vec4<f32>>;
// PointMember records (see half_spring in shared.wgsl), and each point's
// range of them (RecordRange).
@group(0) @binding(6) var<storage, read> point_members: array<vec4<u32>>;
@group(0) @binding(8) var<storage, read> member_ranges: array<vec2<u32>>;
// The frames as apply reads them, two vec4 per BodyFrame.
@group(0) @binding(9) var<storage, read> frames_in: array<vec4<f32>>;
// apply's view of the state, updated in place.
@group(0) @binding(10) var<storage, read_write> state: array<vec4<f32>>;
// For the fused kernel's collide (collide_point.wgsl, appended to this file).
@group(0) @binding(11) var<storage, read> materials: array<MaterialInfo>;
@group(0) @binding(12) var<uniform> colliders: Colliders;
// Each point's gravity scale (the fused kernel; read where SCALED_GRAVITY).
@group(0) @binding(19) var<storage, read> gravity_scale: array<f32>;
// apply_integrate_collide_noted: whether a point that may move came by
// this substep (shared.wgsl, may_move).
@group(0) @binding(20) var<storage, read_write> moved: atomic<u32>;
// The warm starts (apply_integrate_collide_placed: a world with body
// contacts): the collide's settled bits and skin bits
// (placed.wgsl, placed_at and note_skin).
@group(0) @binding(21) var<storage, read_write> warm: array<vec4<u32>>;
// Each body's area dilation rate d, 1/s (docs/physics.md, "Area"): written
// with the frames, read by apply.
// Beside it, the inflation its area term aimed at (ramp_inflation), which
// the frames kernels read back the substep after: one buffer of vec2
// (dilation, inflation), so that the frames kernels stay within the 8
// storage buffers a stage may bind.
@group(0) @binding(13) var<storage, read_write> dilation_out: array<vec2<f32>>;
@group(0) @binding(14) var<storage, read> dilation_in: array<vec2<f32>>;
// The plane-impact list: a head (src/layout, ListHead:
// plane_impacts's workgroup counts, then the count) and the entries, body
// indices. The frames kernels fill it through `impact_head` and
// `impacts`. A head is plane_impacts's indirect arguments, which its own
// dispatch must not write: plane_impacts reads its list's head through
// `impact_head_in`, and empties, through `impact_head`, the head of the
// next substep's list, one of three that the substeps take in turn
// (src/gpu/shape_match.rs, `PlaneImpactHeads`). The entries serve every
// head. plane_impacts reads its head as a uniform, which keeps it within
// the 8 storage buffers a stage may bind (and reads it once for all lanes
// on a software adapter).
struct PlaneImpactHeadAtomic {
    groups: array<atomic<u32>, 3>,
    count: atomic<u32>,
}
@group(0) @binding(15) var<storage, read_write> impact_head: PlaneImpactHeadAtomic;
@group(0) @binding(16) var<storage, read_write> impacts: array<u32>;
@group(0) @binding(17) var<uniform> impact_head_in: ListHeadUniform;
@group(0) @binding(18) var<storage, read> impacts_in: array<u32>;

// One pass of sums over a body's members about a reference member (p0, v0),
// the body's first: with r = p - p0, u = v - v0,
//   a = (W, sum w r, sum w u.x)
//   b = (sum w u.y, sum w q, sum w r.q)
//   c = (sum w r x q, sum w r x u, sum w |r|^2, sum w (r.x q.x - r.y q.y))
//   d = sum w (r.x q.y + r.y q.x)
// r.q and r x q give the rotation; with the last two they give the whole
// matrix sum w r q^T, whose determinant is the area ratio.
struct Sums {
    a: vec4<f32>,
    b: vec4<f32>,
    c: vec4<f32>,
    d: f32,
}

fn member_sums(m: Member, p0: vec2<f32>, v0: vec2<f32>) -> Sums {
    return terms(m, state_in[m.point], p0, v0);
}

// The terms of member `m` whose state is `s`.
fn terms(m: Member, s: vec4<f32>, p0: vec2<f32>, v0: vec2<f32>) -> Sums {
    let w = m.weight;
    let r = s.xy - p0;
    let u = s.zw - v0;
    let q = m.rest;
    return Sums(
        vec4<f32>(w, w * r.x, w * r.y, w * u.x),
        vec4<f32>(w * u.y, w * q.x, w * q.y, w * dot(r, q)),
        vec4<f32>(w * cross2(r, q), w * cross2(r, u), w * dot(r, r), w * (r.x * q.x - r.y * q.y)),
        w * (r.x * q.y + r.y * q.x),
    );
}

fn add_sums(x: Sums, y: Sums) -> Sums {
    return Sums(x.a + y.a, x.b + y.b, x.c + y.c, x.d + y.d);
}

// det(sum w (r - c) q^T) / det(A_qq) from the matrix's entries scaled by
// 1 / sqrt(det A_qq): a = m00 + m11, b = m01 - m10, d1 = m00 - m11,
// d2 = m01 + m10 (CPU mirror: cpu::shape_match::area_ratio).
fn area_ratio(a: f32, b: f32, d1: f32, d2: f32) -> f32 {
    return 0.25 * (a * a + b * b - d1 * d1 - d2 * d2);
}

// The inflation body b's area term aims at this substep: its set
// inflation `set_to`, approached from the one it aimed at the substep
// before (stored beside the dilation) by at most the factor
// exp(INFLATION_RATE h). CPU mirror: cpu::shape_match::ramp_inflation.
fn ramp_inflation(b: u32, set_to: f32) -> f32 {
    let now = dilation_out[b].y;
    let step = exp(INFLATION_RATE * sim.h);
    return clamp(set_to, now / step, now * step);
}

// Body `index`'s frame; stores its dilation rate and ramped inflation too.
fn finish(index: u32, body: BodyInfo, p0: vec2<f32>, v0: vec2<f32>, s: Sums) -> BodyFrame {
    let total = s.a.x;
    let c_rel = s.a.yz / total;
    let v_rel = vec2<f32>(s.a.w, s.b.x) / total;
    let sq = s.b.yz;
    // About the centroid: A = sum w (r - c).q, B = sum w (r - c) x q,
    // L = sum w (r - c) x (u - V), I = sum w |r - c|^2.
    let a = s.b.w - dot(c_rel, sq);
    let b = s.c.x - cross2(c_rel, sq);
    let l = s.c.y - total * cross2(c_rel, v_rel);
    let i = s.c.z - total * dot(c_rel, c_rel);
    let m = max(abs(a), abs(b));
    var rot = vec2<f32>(1.0, 0.0);
    if (m > TINY_SUM) {
        let an = a / m;
        let bn = b / m;
        let len = sqrt(an * an + bn * bn);
        rot = vec2<f32>(an / len, -bn / len);
    }
    var omega = 0.0;
    if (i > TINY_SUM) {
        omega = l / i;
    }
    // Area: the fitted deformation's determinant over the rest shape's,
    // from the four entries of sum w (r - c) q^T (a and b above, d1 and
    // d2), each scaled by 1 / sqrt(det A_qq) first so that nothing
    // overflows. The points are pulled toward the dilation about the
    // centroid that gives the target area (docs/physics.md, "Area").
    // A body turned inside out (ratio <= 0) gets none: pushing it out
    // would hold it inverted against shape matching's proper rotation,
    // which turns it back through a flat shape.
    var dilation = 0.0;
    let inflation = ramp_inflation(index, body.inflation);
    if (body.area_norm > 0.0) {
        let n = body.area_norm;
        let an = a * n;
        let bn = b * n;
        let d1 = (s.c.w - (c_rel.x * sq.x - c_rel.y * sq.y)) * n;
        let d2 = (s.d - (c_rel.x * sq.y + c_rel.y * sq.x)) * n;
        let ratio = area_ratio(an, bn, d1, d2);
        if (ratio > 0.0) {
            let scale = sqrt(inflation / max(ratio, AREA_MIN_RATIO));
            dilation = body.area_stiffness * sim.h * (scale - 1.0);
        }
    }
    dilation_out[index] = vec2<f32>(dilation, inflation);
    // The pull per substep, once per body rather than once per member.
    return BodyFrame(p0 + c_rel, v0 + v_rel, rot, omega, body.stiffness * sim.h);
}

fn store_frame(b: u32, f: BodyFrame) {
    frames_out[2u * b] = vec4<f32>(f.centroid, f.vel);
    frames_out[2u * b + 1u] = vec4<f32>(f.rot, f.omega, f.pull);
}

// The collider a body whose centroid is at `near` one substep ahead and
// moves at `v` has its impacts with: of the colliders the centroid
// reaches within twice the body's rest reach (as a disk) and approaches
// faster than the restitution threshold, the deepest (ties: the first);
// NO_COLLIDER when none. CPU mirror: cpu::shape_match::impact_collider.
fn impact_collider(near: vec2<f32>, v: vec2<f32>, reach: f32) -> u32 {
    let radius = sim.point_radius + 2.0 * reach;
    var best = NO_COLLIDER;
    var best_depth = 0.0;
    for (var k = 0u; k < NUM_PLANETS + NUM_PLANES; k++) {
        let c = collider_contact(k, 0xffffffffu, near, radius);
        // The approach to a moving collider is relative to its surface.
        var vk = v;
        if (MOVING_COLLIDERS) {
            vk = v - collider_velocity(k, near);
        }
        if (c.z > best_depth && is_impact(-dot(vk, c.xy), sim.restitution_threshold)) {
            best_depth = c.z;
            best = k;
        }
    }
    return best;
}

// Whether a body moving at `v` (its frame's velocity) may have half-plane
// and planet impacts (docs/physics.md, "Impacts"): it takes part
// (`reach >= 0`) and moves faster than the restitution threshold. CPU
// mirror: cpu::shape_match::may_have_plane_impacts.
fn may_have_plane_impacts(body: BodyInfo, v: vec2<f32>) -> bool {
    let t = sim.restitution_threshold;
    return !(body.reach < 0.0 || dot(v, v) <= t * t);
}

// Lists body b, at its frame f, for plane_impacts when it may have
// half-plane and planet impacts. The entry that starts a workgroup raises
// plane_impacts's workgroup counts to include it (atomicMax: entries are
// numbered in any order). In whatever order the bodies are listed, each
// one's impacts touch only its own points and frame, so the results do not
// depend on it.
fn list_plane_impact(b: u32, body: BodyInfo, f: BodyFrame) {
    if (!may_have_plane_impacts(body, f.vel)) {
        return;
    }
    let n = atomicAdd(&impact_head.count, 1u);
    impacts[n] = b;
    if (n % WORKGROUP_SIZE == 0u) {
        let g = n / WORKGROUP_SIZE + 1u;
        atomicMax(&impact_head.groups[0], min(g, LIST_ROW));
        atomicMax(&impact_head.groups[1], (g + LIST_ROW - 1u) / LIST_ROW);
    }
}

// Empties `impact_head`'s list: no entries, and the one workgroup of
// plane_impacts that empties the next list (ListHead::EMPTY).
fn empty_plane_impacts() {
    atomicStore(&impact_head.groups[0], 1u);
    atomicStore(&impact_head.groups[1], 1u);
    atomicStore(&impact_head.count, 0u);
}

// Where no plane_impacts dispatch follows to empty a list (a world of one
// substep, shape matching recorded alone), one thread does.
@compute @workgroup_size(1)
fn clear_plane_impacts() {
    empty_plane_impacts();
}

// One thread per small body.
@compute @workgroup_size(WORKGROUP_SIZE)
fn frames(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = spread_index(gid, groups);
    if (k >= sim.num_small_bodies) {
        return;
    }
    let b = body_order[k];
    let body = body_info(bodies[2u * b], bodies[2u * b + 1u]);
    let m0 = member_of(members[body.first]);
    let s0 = state_in[m0.point];
    let p0 = s0.xy;
    let v0 = s0.zw;
    // The reference member's terms from the loads above: the same sums as
    // starting the loop at `first`, two loads fewer.
    let zero = Sums(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), 0.0);
    var sums = add_sums(zero, terms(m0, s0, p0, v0));
    let end = body.first + body.count;
    for (var j = body.first + 1u; j < end; j++) {
        sums = add_sums(sums, member_sums(member_of(members[j]), p0, v0));
    }
    let f = finish(b, body, p0, v0, sums);
    store_frame(b, f);
    list_plane_impact(b, body, f);
}

var<workgroup> red_a: array<vec4<f32>, LARGE_BODY_THREADS>;
var<workgroup> red_b: array<vec4<f32>, LARGE_BODY_THREADS>;
var<workgroup> red_c: array<vec4<f32>, LARGE_BODY_THREADS>;
var<workgroup> red_d: array<f32, LARGE_BODY_THREADS>;

// One workgroup per large body: strided partial sums, then a tree reduction.
@compute @workgroup_size(LARGE_BODY_THREADS)
fn frames_large(
    @builtin(local_invocation_index) t: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let k = wid.x + wid.y * groups.x;
    if (k >= sim.num_large_bodies) {
        return;
    }
    let b = body_order[sim.num_small_bodies + k];
    let body = body_info(bodies[2u * b], bodies[2u * b + 1u]);
    let s0 = state_in[member_of(members[body.first]).point];
    let p0 = s0.xy;
    let v0 = s0.zw;
    var sums = Sums(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), 0.0);
    for (var j = t; j < body.count; j += LARGE_BODY_THREADS) {
        sums = add_sums(sums, member_sums(member_of(members[body.first + j]), p0, v0));
    }
    red_a[t] = sums.a;
    red_b[t] = sums.b;
    red_c[t] = sums.c;
    red_d[t] = sums.d;
    workgroupBarrier();
    for (var stride = LARGE_BODY_THREADS / 2u; stride > 0u; stride /= 2u) {
        if (t < stride) {
            red_a[t] += red_a[t + stride];
            red_b[t] += red_b[t + stride];
            red_c[t] += red_c[t + stride];
            red_d[t] += red_d[t + stride];
        }
        workgroupBarrier();
    }
    if (t == 0u) {
        let f = finish(b, body, p0, v0, Sums(red_a[0], red_b[0], red_c[0], red_d[0]));
        store_frame(b, f);
        list_plane_impact(b, body, f);
    }
}

// Rounds of a body's half-plane or planet impact, each friction then the
// normal impulses (CPU mirror: cpu::shape_match::PLANE_IMPACT_ROUNDS).
const PLANE_IMPACT_ROUNDS: u32 = 8u;

// One contact of a body's impact manifold: the member's offset from the
// centroid, the collider's normal, the separation speed asked (e times
// the approach) and the Coulomb coefficient.
struct ImpactContact {
    r: vec2<f32>,
    n: vec2<f32>,
    target_speed: f32,
    mu: f32,
}

// A 2-point manifold's block is solved whole while det K is above this
// fraction of k11 k22 (CPU mirror: cpu::shape_match::BLOCK_CONDITION).
const BLOCK_CONDITION: f32 = 1e-3;

// The total normal impulses of a body's impact manifold (a, and b when
// `count` is 2) from the totals `prev` so far, the body moving at v and w:
// the impulses x >= 0 that leave each point's normal velocity at its
// target, or above it where its impulse is 0, found by trying the four
// cases of the two-unknown complementarity problem in turn (Box2D's
// 2-point block solver). CPU mirror: cpu::shape_match::normal_impulses.
fn normal_impulses(a: ImpactContact, b: ImpactContact, count: u32, v: vec2<f32>, w: f32, inv_m: f32, inv_i: f32, prev: vec2<f32>) -> vec2<f32> {
    let rn1 = cross2(a.r, a.n);
    let k11 = inv_m + rn1 * rn1 * inv_i;
    let vn1 = dot(v + perp(a.r) * w, a.n) - a.target_speed;
    if (count == 1u) {
        return vec2<f32>(max(prev.x - vn1 / k11, 0.0), 0.0);
    }
    let rn2 = cross2(b.r, b.n);
    let k22 = inv_m + rn2 * rn2 * inv_i;
    let k12 = inv_m * dot(a.n, b.n) + rn1 * rn2 * inv_i;
    let vn2 = dot(v + perp(b.r) * w, b.n) - b.target_speed;
    let b1 = vn1 - (k11 * prev.x + k12 * prev.y);
    let b2 = vn2 - (k12 * prev.x + k22 * prev.y);
    let det = k11 * k22 - k12 * k12;
    if (det > BLOCK_CONDITION * k11 * k22) {
        let x1 = (k12 * b2 - k22 * b1) / det;
        let x2 = (k12 * b1 - k11 * b2) / det;
        if (x1 >= 0.0 && x2 >= 0.0) {
            return vec2<f32>(x1, x2);
        }
    }
    let x1 = -b1 / k11;
    if (x1 >= 0.0 && k12 * x1 + b2 >= 0.0) {
        return vec2<f32>(x1, 0.0);
    }
    let x2 = -b2 / k22;
    if (x2 >= 0.0 && k12 * x2 + b1 >= 0.0) {
        return vec2<f32>(0.0, x2);
    }
    if (b1 >= 0.0 && b2 >= 0.0) {
        return vec2<f32>(0.0);
    }
    return prev;
}

// The change (dv, domega) of body `body`'s rigid motion (frame centroid
// `centre`, velocity `v0`, angular velocity `w0`) from its impact with
// collider k; w = 0 (and no change) without one. The manifold is the
// two outermost touching members along the surface (the least and
// greatest r x n), solved as a rigid body by rounds of Coulomb friction
// by sequential impulses and the normal impulses as a block. CPU mirror: cpu::shape_match::plane_impact.
fn plane_impact(body: BodyInfo, centre: vec2<f32>, v0: vec2<f32>, w0: f32, k: u32) -> vec4<f32> {
    var mass = 0.0;
    var inertia = 0.0;
    var count = 0u;
    var s_lo = 0.0;
    var s_hi = 0.0;
    var a = ImpactContact(vec2<f32>(0.0), vec2<f32>(0.0), 0.0, 0.0);
    var b = a;
    let end = body.first + body.count;
    for (var j = body.first; j < end; j++) {
        let m = member_of(members[j]);
        let i = m.point;
        let p = state_in[i].xy;
        let r = p - centre;
        mass += m.weight;
        inertia += m.weight * dot(r, r);
        let pi = point_info(info[i]);
        if (pi.inv_mass == 0.0) {
            continue;
        }
        let u = v0 + perp(r) * w0;
        let c = collider_contact(k, pi.layers, p + u * sim.h, sim.point_radius);
        if (c.z <= 0.0) {
            continue;
        }
        let approach = -dot(u, c.xy);
        if (!is_impact(approach, sim.restitution_threshold)) {
            continue;
        }
        let mat = materials[pi.material];
        let contact = ImpactContact(r, c.xy, mat.elasticity * approach, mat.dynamic_friction);
        let s = cross2(r, c.xy);
        if (count == 0u || s < s_lo) {
            s_lo = s;
            a = contact;
        }
        if (count == 0u || s > s_hi) {
            s_hi = s;
            b = contact;
        }
        count += 1u;
    }
    if (count == 0u) {
        return vec4<f32>(0.0);
    }
    var n_contacts = 1u;
    if (s_hi > s_lo) {
        n_contacts = 2u;
    }
    let inv_m = 1.0 / mass;
    var inv_i = 0.0;
    if (inertia > TINY_SUM) {
        inv_i = 1.0 / inertia;
    }
    var v = v0;
    var w = w0;
    var jn = vec2<f32>(0.0);
    var jt = vec2<f32>(0.0);
    for (var round = 0u; round < PLANE_IMPACT_ROUNDS; round++) {
        // Friction first, within the normal impulses so far; then the
        // normal impulses, which matter more, as a block.
        for (var q = 0u; q < n_contacts; q++) {
            var c = a;
            if (q == 1u) {
                c = b;
            }
            let t = perp(c.n);
            let rt = cross2(c.r, t);
            let dt_want = -dot(v + perp(c.r) * w, t) / (inv_m + rt * rt * inv_i);
            let limit = c.mu * jn[q];
            let t_total = clamp(jt[q] + dt_want, -limit, limit);
            let dt = t_total - jt[q];
            jt[q] = t_total;
            v += t * (dt * inv_m);
            w += rt * dt * inv_i;
        }
        let x = normal_impulses(a, b, n_contacts, v, w, inv_m, inv_i, jn);
        let d = x - jn;
        jn = x;
        v += a.n * (d.x * inv_m);
        w += cross2(a.r, a.n) * d.x * inv_i;
        if (n_contacts == 2u) {
            v += b.n * (d.y * inv_m);
            w += cross2(b.r, b.n) * d.y * inv_i;
        }
    }
    return vec4<f32>(v - v0, w - w0, 1.0);
}

// One thread per listed body (list_plane_impact), dispatched with the
// workgroup counts the frames kernels left in the list's head (at least
// one workgroup: its first thread empties the next substep's list): body
// b's half-plane and planet impacts, at its frame, with impact_collider's
// collider k (plane_impact). The change of its rigid motion is added to
// its awake points (dv + domega x r) and to its frame. Its points are its
// own (a body that shares one takes no part), so no other thread reads
// them. CPU mirror: cpu::shape_match::plane_impacts.
@compute @workgroup_size(WORKGROUP_SIZE)
fn plane_impacts(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = indirect_index(gid, impact_head_in.groups[0]);
    if (n == 0u) {
        empty_plane_impacts();
    }
    if (n >= impact_head_in.count) {
        return;
    }
    let b = impacts_in[n];
    let body = body_info(bodies[2u * b], bodies[2u * b + 1u]);
    let f0 = frames_out[2u * b];
    let f1 = frames_out[2u * b + 1u];
    let centre = f0.xy;
    let v = f0.zw;
    let k = impact_collider(centre + v * sim.h, v, body.reach);
    if (k == NO_COLLIDER) {
        return;
    }
    // Solved in the frame of the collider's surface where the centroid is.
    var vs = vec2<f32>(0.0);
    if (MOVING_COLLIDERS) {
        vs = collider_velocity(k, centre);
    }
    let d = plane_impact(body, centre, v - vs, f1.z, k);
    if (d.w == 0.0) {
        return;
    }
    let end = body.first + body.count;
    for (var j = body.first; j < end; j++) {
        let i = member_of(members[j]).point;
        if (point_info(info[i]).inv_mass != 0.0) {
            let s = state_in[i];
            state_in[i] = vec4<f32>(s.xy, s.zw + d.xy + perp(s.xy - centre) * d.z);
        }
    }
    frames_out[2u * b] = vec4<f32>(centre, v + d.xy);
    frames_out[2u * b + 1u] = vec4<f32>(f1.xy, f1.z + d.z, f1.w);
}

// Point i's velocity after shape matching: the sum over its bodies of the
// pull toward the target c + R q, the area term's dilation about the
// centroid, and the relaxation toward the body's rigid motion. A
// membership costs three vec4 loads and a scalar: the point's own record
// (with the body's damping fraction), the body's frame and its dilation.
fn matched_velocity(i: u32, p: vec2<f32>, v: vec2<f32>) -> vec2<f32> {
    var dv = vec2<f32>(0.0, 0.0);
    let range = record_range(member_ranges[i]);
    for (var e = range.start; e < range.start + range.count; e++) {
        let m = point_member(point_members[e]);
        let f0 = frames_in[2u * m.body];
        let f1 = frames_in[2u * m.body + 1u];
        let centroid = f0.xy;
        let rot = f1.xy;
        let q = m.rest;
        let target_pos = centroid + vec2<f32>(rot.x * q.x - rot.y * q.y, rot.y * q.x + rot.x * q.y);
        let rigid = f0.zw + perp(p - centroid) * f1.z;
        dv += (target_pos - p) * f1.w + (p - centroid) * dilation_in[m.body].x + (rigid - v) * m.relax;
    }
    return v + dv;
}

// Per point, in place; pinned points stay.
@compute @workgroup_size(WORKGROUP_SIZE)
fn apply(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = spread_index(gid, groups);
    if (i >= sim.num_points || bitcast<f32>(info[i].x) == 0.0) {
        return;
    }
    let s = state[i];
    state[i] = vec4<f32>(s.xy, matched_velocity(i, s.xy, s.zw));
}

// Point i's velocity after `apply` (pi, its info; s, its state): points
// of inverse mass 0 keep theirs.
fn applied_velocity(i: u32, pi: PointInfo, s: vec4<f32>) -> vec2<f32> {
    if (pi.inv_mass != 0.0) {
        return matched_velocity(i, s.xy, s.zw);
    }
    return s.zw;
}

// `apply`, then integrate and collide (collide.wgsl's integrate_collide)
// at point i, without storing the state in between; returns whether the
// point may move (shared.wgsl, may_move).
fn apply_integrate_collide_at(i: u32) -> bool {
    let pi = point_info(info[i]);
    let s = state[i];
    state[i] = integrate_collide_point(i, pi, s.xy, applied_velocity(i, pi, s));
    return may_move(pi.inv_mass, s.zw);
}

// apply_integrate_collide_at over the points: one pass instead of two,
// bitwise the same as apply, integrate and collide in turn
// (tests/stages/shape_match.rs). Every substep of a world with bodies
// runs it after the frames: this kernel on a device of 8 storage buffers
// per stage (too few for body contacts), the one below on any other.
@compute @workgroup_size(WORKGROUP_SIZE)
fn apply_integrate_collide(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = spread_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    apply_integrate_collide_at(i);
}

// apply_integrate_collide, noting in `moved` that a point that may move
// came by (for the broad phase's clear_if_moved); the load first, so
// that only the first such point of a substep stores.
@compute @workgroup_size(WORKGROUP_SIZE)
fn apply_integrate_collide_noted(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = spread_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    if (apply_integrate_collide_at(i) && atomicLoad(&moved) == 0u) {
        atomicStore(&moved, 1u);
    }
}

// apply_integrate_collide_noted in a world with body contacts: a point
// not yet settled is lifted out of the colliders' skin slowly, and
// whether it is still in it noted in its warm start (placed.wgsl).
@compute @workgroup_size(WORKGROUP_SIZE)
fn apply_integrate_collide_placed(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = spread_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let pi = point_info(info[i]);
    let s = state[i];
    state[i] = integrate_collide_placed_at(i, pi, s.xy, applied_velocity(i, pi, s));
    if (may_move(pi.inv_mass, s.zw) && atomicLoad(&moved) == 0u) {
        atomicStore(&moved, 1u);
    }
}
