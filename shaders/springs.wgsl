// Stage 3a: force springs and soft distance constraints (seed 001), Jacobi:
// every point gathers the changes of the springs that touch it, all computed
// from state_in, reading its own spring records contiguously.
// CPU mirror: src/cpu/springs.rs.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> info: array<PointInfo>;
// n + 1 offsets into `halves`.
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
// HalfSpring records, fetched as one vec4 each (see half_spring).
@group(0) @binding(3) var<storage, read> halves: array<vec4<u32>>;
// Per point (position, velocity): one copy in, the other out.
@group(0) @binding(4) var<storage, read> state_in: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> state_out: array<vec4<f32>>;

// (dp_a, dv_a) in .xy/.zw of the first result, (dp_b, dv_b) of the second.
struct Deltas {
    a: vec4<f32>,
    b: vec4<f32>,
}

fn spring_deltas(s: HalfSpring, pa: vec2<f32>, pb: vec2<f32>, va: vec2<f32>, vb: vec2<f32>, wa: f32, wb: f32) -> Deltas {
    let w = wa + wb;
    if (w == 0.0) {
        return Deltas(vec4<f32>(0.0), vec4<f32>(0.0));
    }
    let d = pb - pa;
    let dist = length(d);
    let dir = safe_dir(d, dist);
    let err = s.rest - dist;
    if ((s.other & HALF_SOFT) == 0u) {
        let impulse = dir * (s.pull * err);
        var dva = -impulse * wa;
        var dvb = impulse * wb;
        let vrel = dot((vb + dvb) - (va + dva), dir);
        let change = vrel * s.damp;
        dva -= dir * (change * wa / w);
        dvb += dir * (change * wb / w);
        return Deltas(vec4<f32>(0.0, 0.0, dva), vec4<f32>(0.0, 0.0, dvb));
    }
    let alpha = s.pull;
    let dp = dir * (err * alpha / w);
    let vrel = dot(vb - va, dir);
    let dv = dir * (vrel * alpha / w);
    return Deltas(vec4<f32>(-dp * wa, dv * wa), vec4<f32>(dp * wb, -dv * wb));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let si = state_in[i];
    let w = info[i].inv_mass;
    var dpv = vec4<f32>(0.0);
    let end = offsets[i + 1u];
    for (var e = offsets[i]; e < end; e++) {
        let s = half_spring(halves[e]);
        let o = s.other & HALF_INDEX;
        let so = state_in[o];
        let wo = info[o].inv_mass;
        // Evaluate in the spring's own (a, b) order, so both ends agree.
        // Selecting the arguments rather than branching: neighbouring
        // threads hold either end, and a divergent branch would run the
        // function twice.
        let is_b = (s.other & HALF_IS_B) != 0u;
        let sa = select(si, so, is_b);
        let sb = select(so, si, is_b);
        let d = spring_deltas(s, sa.xy, sb.xy, sa.zw, sb.zw, select(w, wo, is_b), select(wo, w, is_b));
        dpv += select(d.a, d.b, is_b);
    }
    state_out[i] = si + dpv;
}
