// Stage 3a: force springs and soft distance constraints (Lisitsa 2023), Jacobi:
// every point gathers the changes of the springs that touch it, all computed
// from state_in, reading its own spring records contiguously.
// CPU mirror: src/cpu/springs.rs.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> info: array<PointInfo>;
// Each point's range of `halves` (RecordRange).
@group(0) @binding(2) var<storage, read> ranges: array<vec2<u32>>;
// HalfSpring records, fetched as one vec4 each (see half_spring).
@group(0) @binding(3) var<storage, read> halves: array<vec4<u32>>;
// Per point (position, velocity): one copy in, the other out.
@group(0) @binding(4) var<storage, read> state_in: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> state_out: array<vec4<f32>>;

// The change (dp, dv) the spring gives its end b per unit of that end's
// inverse mass; end a gets the opposite. The record's coefficients carry
// what depends on the ends' masses (src/layout, HalfSpring::coefficients:
// a force spring's pull is k h E, its damping and a soft constraint's pull
// are divided by the spring's summed inverse mass), so neither the other
// end's mass nor a division is needed.
fn spring_push(s: HalfSpring, pa: vec2<f32>, pb: vec2<f32>, va: vec2<f32>, vb: vec2<f32>) -> vec4<f32> {
    let d = pb - pa;
    let dist = length(d);
    let dir = safe_dir(d, dist);
    let err = s.rest - dist;
    let vrel = dot(vb - va, dir);
    if ((s.other & HALF_SOFT) == 0u) {
        return vec4<f32>(0.0, 0.0, dir * (s.pull * err + s.damp * vrel));
    }
    return vec4<f32>(dir * (err * s.pull), -dir * (vrel * s.pull));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = spread_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let si = state_in[i];
    let w = info[i].inv_mass;
    var dpv = vec4<f32>(0.0);
    // A pinned or sleeping point takes no change: its springs are not
    // evaluated (the other ends evaluate them for themselves).
    let range = record_range(ranges[i]);
    let end = select(range.start + range.count, range.start, w == 0.0);
    for (var e = range.start; e < end; e++) {
        let s = half_spring(halves[e]);
        let so = state_in[s.other & HALF_INDEX];
        // Evaluate in the spring's own (a, b) order, so both ends agree.
        // Selecting the arguments rather than branching: neighbouring
        // threads hold either end, and a divergent branch would run the
        // function twice.
        let is_b = (s.other & HALF_IS_B) != 0u;
        let sa = select(si, so, is_b);
        let sb = select(so, si, is_b);
        let g = spring_push(s, sa.xy, sb.xy, sa.zw, sb.zw);
        dpv = select(dpv - g, dpv + g, is_b);
    }
    // Per unit inverse mass until here.
    state_out[i] = si + dpv * w;
}
