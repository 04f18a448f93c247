// Stage 3b: one Jacobi iteration of hard rods (seed 001's hard constraint,
// seed 003's impulse-level distance constraint) with mass splitting: each
// point moves by the average of its rods' projections, and every rod splits
// its correction by inverse masses scaled by the rod counts of its ends, so
// the two halves stay equal and opposite. CPU mirror: src/cpu/rods.rs.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> info: array<PointInfo>;
@group(0) @binding(2) var<storage, read> springs: array<SpringInfo>;
// n + 1 offsets, then the rod indices of each point.
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
        let wa = info[s.a].inv_mass * f32(adj[s.a + 1u] - adj[s.a]);
        let wb = info[s.b].inv_mass * f32(adj[s.b + 1u] - adj[s.b]);
        let w = wa + wb;
        if (w == 0.0) {
            continue;
        }
        let pa = pos_in[s.a];
        let pb = pos_in[s.b];
        let d = pb - pa;
        let dist = length(d);
        let dir = safe_dir(d, dist);
        let dpk = dir * ((s.rest - dist) / w);
        let dvk = dir * (dot(vel_in[s.b] - vel_in[s.a], dir) / w);
        if (s.a == i) {
            dp += -dpk * wa;
            dv += dvk * wa;
        } else {
            dp += dpk * wb;
            dv += -dvk * wb;
        }
    }
    var p = pos_in[i];
    var v = vel_in[i];
    let count = end - start;
    if (count > 0u) {
        let inv = 1.0 / f32(count);
        p += dp * inv;
        v += dv * inv;
    }
    pos_out[i] = p;
    vel_out[i] = v;
}
