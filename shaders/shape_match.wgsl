// Stage 4: shape matching with damping toward rigid motion (seed 001).
// `frames` / `frames_large` reduce each body to its best-fit rigid frame;
// `apply` gathers, per point, the pull of every body it belongs to. The
// frames hold everything `apply` needs from other points, so `apply` reads
// only its own point's state and updates the velocity in place.
// CPU mirror: src/cpu/shape_match.rs (same functions, same summation order).

// Sums below this count as zero (a collapsed body keeps the identity rotation).
const TINY_SUM: f32 = 1e-30;

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> info: array<PointInfo>;
@group(0) @binding(2) var<storage, read> bodies: array<BodyInfo>;
@group(0) @binding(3) var<storage, read> members: array<Member>;
// Small bodies first, then large ones.
@group(0) @binding(4) var<storage, read> body_order: array<u32>;
@group(0) @binding(5) var<storage, read> pos_in: array<vec2<f32>>;
@group(0) @binding(6) var<storage, read> vel_in: array<vec2<f32>>;
@group(0) @binding(7) var<storage, read_write> frames_out: array<BodyFrame>;
// n + 1 offsets, then the membership indices of each point.
@group(0) @binding(8) var<storage, read> member_adj: array<u32>;
@group(0) @binding(9) var<storage, read> frames_in: array<BodyFrame>;
@group(0) @binding(10) var<storage, read_write> vel: array<vec2<f32>>;

// (sum w, sum w p) and (sum w v) of the first pass.
struct Moments {
    w_p: vec3<f32>,
    wv: vec2<f32>,
}

fn finish(body: BodyInfo, c: vec2<f32>, vc: vec2<f32>, fit: vec4<f32>) -> BodyFrame {
    // fit = (sum w r.q, sum w r x q, sum w r x (v - V), sum w |r|^2)
    let m = max(abs(fit.x), abs(fit.y));
    var rot = vec2<f32>(1.0, 0.0);
    if (m > TINY_SUM) {
        let a = fit.x / m;
        let b = fit.y / m;
        let len = sqrt(a * a + b * b);
        rot = vec2<f32>(a / len, -b / len);
    }
    var omega = 0.0;
    if (fit.w > TINY_SUM) {
        omega = fit.z / fit.w;
    }
    // Per-substep coefficients, once per body rather than once per member.
    let pull = body.stiffness * sim.h;
    let relax = 1.0 - exp(-body.damping * sim.h);
    return BodyFrame(c, vc, rot, omega, pull, relax, 0u);
}

fn fit_term(w: f32, r: vec2<f32>, q: vec2<f32>, dv: vec2<f32>) -> vec4<f32> {
    return vec4<f32>(w * dot(r, q), w * cross2(r, q), w * cross2(r, dv), w * dot(r, r));
}

// One thread per small body.
@compute @workgroup_size(WORKGROUP_SIZE)
fn frames(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = linear_index(gid, groups);
    if (k >= sim.num_small_bodies) {
        return;
    }
    let b = body_order[k];
    let body = bodies[b];
    let end = body.first + body.count;
    var sw = 0.0;
    var swp = vec2<f32>(0.0, 0.0);
    var swv = vec2<f32>(0.0, 0.0);
    for (var j = body.first; j < end; j++) {
        let p = members[j].point;
        let w = info[p].weight;
        sw += w;
        swp += pos_in[p] * w;
        swv += vel_in[p] * w;
    }
    let c = swp / sw;
    let vc = swv / sw;
    var fit = vec4<f32>(0.0);
    for (var j = body.first; j < end; j++) {
        let m = members[j];
        fit += fit_term(info[m.point].weight, pos_in[m.point] - c, m.rest, vel_in[m.point] - vc);
    }
    frames_out[b] = finish(body, c, vc, fit);
}

var<workgroup> red_a: array<vec4<f32>, LARGE_BODY_THREADS>;
var<workgroup> red_b: array<f32, LARGE_BODY_THREADS>;

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
    let body = bodies[b];
    var sw = 0.0;
    var swp = vec2<f32>(0.0, 0.0);
    var swv = vec2<f32>(0.0, 0.0);
    for (var j = t; j < body.count; j += LARGE_BODY_THREADS) {
        let p = members[body.first + j].point;
        let w = info[p].weight;
        sw += w;
        swp += pos_in[p] * w;
        swv += vel_in[p] * w;
    }
    red_a[t] = vec4<f32>(sw, swp, swv.x);
    red_b[t] = swv.y;
    workgroupBarrier();
    for (var stride = LARGE_BODY_THREADS / 2u; stride > 0u; stride /= 2u) {
        if (t < stride) {
            red_a[t] += red_a[t + stride];
            red_b[t] += red_b[t + stride];
        }
        workgroupBarrier();
    }
    let tot = red_a[0];
    let c = tot.yz / tot.x;
    let vc = vec2<f32>(tot.w, red_b[0]) / tot.x;
    workgroupBarrier();
    var fit = vec4<f32>(0.0);
    for (var j = t; j < body.count; j += LARGE_BODY_THREADS) {
        let m = members[body.first + j];
        fit += fit_term(info[m.point].weight, pos_in[m.point] - c, m.rest, vel_in[m.point] - vc);
    }
    red_a[t] = fit;
    workgroupBarrier();
    for (var stride = LARGE_BODY_THREADS / 2u; stride > 0u; stride /= 2u) {
        if (t < stride) {
            red_a[t] += red_a[t + stride];
        }
        workgroupBarrier();
    }
    if (t == 0u) {
        frames_out[b] = finish(body, c, vc, red_a[0]);
    }
}

// Per point: the sum over its bodies of the pull toward the target c + R q
// and the relaxation toward the body's rigid motion; pinned points stay.
@compute @workgroup_size(WORKGROUP_SIZE)
fn apply(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    let n = sim.num_points;
    if (i >= n || info[i].inv_mass == 0.0) {
        return;
    }
    let p = pos_in[i];
    let v = vel[i];
    var dv = vec2<f32>(0.0, 0.0);
    let start = member_adj[i];
    let end = member_adj[i + 1u];
    for (var e = start; e < end; e++) {
        let m = members[member_adj[n + 1u + e]];
        let f = frames_in[m.body];
        let q = m.rest;
        let target_pos = f.centroid + vec2<f32>(f.rot.x * q.x - f.rot.y * q.y, f.rot.y * q.x + f.rot.x * q.y);
        let rigid = f.vel + perp(p - f.centroid) * f.omega;
        dv += (target_pos - p) * f.pull + (rigid - v) * f.relax;
    }
    vel[i] = v + dv;
}
