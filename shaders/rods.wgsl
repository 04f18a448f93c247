// Stage 3b: one Jacobi iteration of hard rods (Lisitsa's hard constraint,
// Firth's impulse-level distance constraint) with mass splitting: each
// point moves by the average of its rods' projections, and every rod splits
// its correction by inverse masses scaled by the rod counts of its ends, so
// the two halves stay equal and opposite. CPU mirror: src/cpu/rods.rs.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> info: array<PointInfo>;
// Each point's range of `halves` (RecordRange).
@group(0) @binding(2) var<storage, read> ranges: array<vec2<u32>>;
// HalfSpring records, fetched as one vec4 each (see half_spring).
@group(0) @binding(3) var<storage, read> halves: array<vec4<u32>>;
// Per point (position, velocity): one copy in, the other out.
@group(0) @binding(4) var<storage, read> state_in: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> state_out: array<vec4<f32>>;

// (dp, dv) of end a in .xy/.zw of `a`, of end b in `b`; both zero when the
// two ends are pinned.
struct Deltas {
    a: vec4<f32>,
    b: vec4<f32>,
}

fn rod_deltas(rest: f32, pa: vec2<f32>, pb: vec2<f32>, va: vec2<f32>, vb: vec2<f32>, wa: f32, wb: f32) -> Deltas {
    let w = wa + wb;
    if (w == 0.0) {
        return Deltas(vec4<f32>(0.0), vec4<f32>(0.0));
    }
    let d = pb - pa;
    let dist = length(d);
    let dir = safe_dir(d, dist);
    let dp = dir * ((rest - dist) / w);
    let dv = dir * (dot(vb - va, dir) / w);
    return Deltas(vec4<f32>(-dp * wa, dv * wa), vec4<f32>(dp * wb, -dv * wb));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = spread_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let si = state_in[i];
    var p = si.xy;
    var v = si.zw;
    let range = record_range(ranges[i]);
    let count = range.count;
    let w = info[i].inv_mass * f32(count);
    var dpv = vec4<f32>(0.0);
    for (var e = range.start; e < range.start + count; e++) {
        let s = half_spring(halves[e]);
        let o = s.other & HALF_INDEX;
        let wo = info[o].inv_mass * f32(ranges[o].y);
        let so = state_in[o];
        // In the rod's own (a, b) order, selected rather than branched on
        // (see springs.wgsl).
        let is_b = (s.other & HALF_IS_B) != 0u;
        let sa = select(si, so, is_b);
        let sb = select(so, si, is_b);
        let d = rod_deltas(s.rest, sa.xy, sb.xy, sa.zw, sb.zw, select(w, wo, is_b), select(wo, w, is_b));
        dpv += select(d.a, d.b, is_b);
    }
    if (count > 0u) {
        let inv = 1.0 / f32(count);
        p += dpv.xy * inv;
        v += dpv.zw * inv;
    }
    state_out[i] = vec4<f32>(p, v);
}
