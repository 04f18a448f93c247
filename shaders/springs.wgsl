// Stage 3a: force springs and soft distance constraints (seed 001), Jacobi:
// every point gathers the changes of the springs that touch it, all computed
// from (pos_in, vel_in), reading its own spring records contiguously.
// CPU mirror: src/cpu/springs.rs.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> info: array<PointInfo>;
// n + 1 offsets into `halves`.
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
@group(0) @binding(3) var<storage, read> halves: array<HalfSpring>;
@group(0) @binding(4) var<storage, read> pos_in: array<vec2<f32>>;
@group(0) @binding(5) var<storage, read> vel_in: array<vec2<f32>>;
@group(0) @binding(6) var<storage, read_write> pos_out: array<vec2<f32>>;
@group(0) @binding(7) var<storage, read_write> vel_out: array<vec2<f32>>;

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
        let impulse = dir * (s.stiffness * err * sim.h);
        var dva = -impulse * wa;
        var dvb = impulse * wb;
        let vrel = dot((vb + dvb) - (va + dva), dir);
        let change = vrel * (exp(-s.damping * sim.h) - 1.0);
        dva -= dir * (change * wa / w);
        dvb += dir * (change * wb / w);
        return Deltas(vec4<f32>(0.0, 0.0, dva), vec4<f32>(0.0, 0.0, dvb));
    }
    let alpha = 1.0 - exp(-s.stiffness * sim.h);
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
    let p = pos_in[i];
    let v = vel_in[i];
    let w = info[i].inv_mass;
    var dpv = vec4<f32>(0.0);
    let end = offsets[i + 1u];
    for (var e = offsets[i]; e < end; e++) {
        let s = halves[e];
        let o = s.other & HALF_INDEX;
        let po = pos_in[o];
        let vo = vel_in[o];
        let wo = info[o].inv_mass;
        // Evaluate in the spring's own (a, b) order, so both ends agree.
        if ((s.other & HALF_IS_B) == 0u) {
            dpv += spring_deltas(s, p, po, v, vo, w, wo).a;
        } else {
            dpv += spring_deltas(s, po, p, vo, v, wo, w).b;
        }
    }
    pos_out[i] = p + dpv.xy;
    vel_out[i] = v + dpv.zw;
}
