// Stage 2: points against static planets and half-planes (Lisitsa 2023: deepest
// penetration, push-out, elasticity, exponential friction; Gaul 2013: layers;
// Firth 2011: half-planes). CPU mirror: src/cpu/collide.rs. The contact
// itself, `collide_point`, is in collide_point.wgsl, which is also part of
// shape_match.wgsl's fused kernel.

@group(0) @binding(0) var<uniform> sim: SimParams;
// PointInfo records, fetched as one vec4 each (point_info in shared.wgsl).
@group(0) @binding(1) var<storage, read> info: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> materials: array<MaterialInfo>;
// Every point reads every collider: a uniform buffer, read once per batch.
@group(0) @binding(3) var<uniform> colliders: Colliders;
// Per point (position, velocity).
@group(0) @binding(4) var<storage, read_write> state: array<vec4<f32>>;
// Each point's gravity scale (read where SCALED_GRAVITY).
@group(0) @binding(5) var<storage, read> gravity_scale: array<f32>;
// integrate_collide: whether a point may have moved this substep
// (shared.wgsl, may_move).
@group(0) @binding(6) var<storage, read_write> moved: atomic<u32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = spread_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let pi = point_info(info[i]);
    if (pi.inv_mass == 0.0) {
        return;
    }
    let s = state[i];
    state[i] = collide_point(pi, s.xy, s.zw);
}

// Stages 1 and 2 in one pass over the points, as the step runs them: the
// integrate stage's symplectic Euler (shaders/integrate.wgsl), then the
// contact, without storing the state in between. Bitwise the same as the
// two kernels in turn (tests/stages/collide.rs).
@compute @workgroup_size(WORKGROUP_SIZE)
fn integrate_collide(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = spread_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let s = state[i];
    let pi = point_info(info[i]);
    if (may_move(pi.inv_mass, s.zw) && atomicLoad(&moved) == 0u) {
        atomicStore(&moved, 1u);
    }
    state[i] = integrate_collide_point(i, pi, s.xy, s.zw);
}
