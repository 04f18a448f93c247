// Stage 1: symplectic Euler (Lisitsa 2023). CPU mirror: src/cpu/integrate.rs.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> info: array<PointInfo>;
// Per point (position, velocity).
@group(0) @binding(2) var<storage, read_write> state: array<vec4<f32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = spread_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let s = state[i];
    state[i] = euler_point(info[i].inv_mass, s.xy, s.zw, sim.gravity, sim.h);
}
