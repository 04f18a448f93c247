// Stage 1: symplectic Euler (Lisitsa 2023), with the gravity of
// collide_point.wgsl's gravity_at (the world's vector, the planets' pull,
// the point's scale); that fragment is part of this module for it. CPU
// mirror: src/cpu/integrate.rs.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> info: array<PointInfo>;
// Per point (position, velocity).
@group(0) @binding(2) var<storage, read_write> state: array<vec4<f32>>;
// The fragment's contact needs these declared; this kernel reads only the
// planets and the scales.
@group(0) @binding(3) var<storage, read> materials: array<MaterialInfo>;
@group(0) @binding(4) var<uniform> colliders: Colliders;
@group(0) @binding(5) var<storage, read> gravity_scale: array<f32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = spread_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let inv_mass = info[i].inv_mass;
    // A point of inverse mass 0 is left as it is (euler_point).
    if (inv_mass == 0.0) {
        return;
    }
    let s = state[i];
    state[i] = euler_point(inv_mass, s.xy, s.zw, gravity_at(i, s.xy), sim.h);
}
