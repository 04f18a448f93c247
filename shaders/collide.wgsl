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

// The warm starts (the _placed kernels: a world with body contacts),
// whose settled bits the stage reads and whose skin bits it notes
// (placed.wgsl, placed_at and note_skin).
@group(0) @binding(7) var<storage, read_write> warm: array<vec4<u32>>;

// Notes in `moved` that point i, with info `pi` and state `s`, may move
// (shared.wgsl, may_move); the load first, so that only the first such
// point of a substep stores.
fn note_moved(pi: PointInfo, s: vec4<f32>) {
    if (may_move(pi.inv_mass, s.zw) && atomicLoad(&moved) == 0u) {
        atomicStore(&moved, 1u);
    }
}

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

// `main` in a world with body contacts: a point not yet settled is lifted
// out of the skin slowly, and whether it is still in it noted
// (placed.wgsl).
@compute @workgroup_size(WORKGROUP_SIZE)
fn main_placed(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = spread_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let pi = point_info(info[i]);
    if (pi.inv_mass == 0.0) {
        return;
    }
    let s = state[i];
    state[i] = collide_placed(i, pi, s.xy, s.zw);
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
    note_moved(pi, s);
    state[i] = integrate_collide_point(i, pi, s.xy, s.zw);
}

// integrate_collide in a world with body contacts (main_placed's rule).
@compute @workgroup_size(WORKGROUP_SIZE)
fn integrate_collide_placed(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = spread_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let s = state[i];
    let pi = point_info(info[i]);
    note_moved(pi, s);
    state[i] = integrate_collide_placed_at(i, pi, s.xy, s.zw);
}
