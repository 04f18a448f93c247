// Stage 3a: force springs and soft distance constraints (seed 001), Jacobi:
// every point gathers the changes of the springs that touch it, all computed
// from (pos_in, vel_in). CPU mirror: src/cpu/springs.rs.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> info: array<PointInfo>;
@group(0) @binding(2) var<storage, read> springs: array<SpringInfo>;
// n + 1 offsets, then the spring indices of each point.
@group(0) @binding(3) var<storage, read> adj: array<u32>;
@group(0) @binding(4) var<storage, read> pos_in: array<vec2<f32>>;
@group(0) @binding(5) var<storage, read> vel_in: array<vec2<f32>>;
@group(0) @binding(6) var<storage, read_write> pos_out: array<vec2<f32>>;
@group(0) @binding(7) var<storage, read_write> vel_out: array<vec2<f32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    let n = sim.num_points;
    if (i >= n) {
        return;
    }
    var dp = vec2<f32>(0.0, 0.0);
    var dv = vec2<f32>(0.0, 0.0);
    let start = adj[i];
    let end = adj[i + 1u];
    for (var e = start; e < end; e++) {
        let s = springs[adj[n + 1u + e]];
        let wa = info[s.a].inv_mass;
        let wb = info[s.b].inv_mass;
        let w = wa + wb;
        if (w == 0.0) {
            continue;
        }
        let pa = pos_in[s.a];
        let pb = pos_in[s.b];
        let va = vel_in[s.a];
        let vb = vel_in[s.b];
        let d = pb - pa;
        let dist = length(d);
        let dir = safe_dir(d, dist);
        let err = s.rest - dist;
        var dpa = vec2<f32>(0.0, 0.0);
        var dpb = vec2<f32>(0.0, 0.0);
        var dva: vec2<f32>;
        var dvb: vec2<f32>;
        if (s.kind == KIND_SPRING) {
            let impulse = dir * (s.stiffness * err * sim.h);
            dva = -impulse * wa;
            dvb = impulse * wb;
            let vrel = dot((vb + dvb) - (va + dva), dir);
            let change = vrel * (exp(-s.damping * sim.h) - 1.0);
            dva -= dir * (change * wa / w);
            dvb += dir * (change * wb / w);
        } else {
            let alpha = 1.0 - exp(-s.stiffness * sim.h);
            let dpk = dir * (err * alpha / w);
            let vrel = dot(vb - va, dir);
            let dvk = dir * (vrel * alpha / w);
            dpa = -dpk * wa;
            dpb = dpk * wb;
            dva = dvk * wa;
            dvb = -dvk * wb;
        }
        if (s.a == i) {
            dp += dpa;
            dv += dva;
        } else {
            dp += dpb;
            dv += dvb;
        }
    }
    pos_out[i] = pos_in[i] + dp;
    vel_out[i] = vel_in[i] + dv;
}
