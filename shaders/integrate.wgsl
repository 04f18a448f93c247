// Stage 1: symplectic Euler (seed 001). CPU mirror: src/cpu/integrate.rs.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> info: array<PointInfo>;
@group(0) @binding(2) var<storage, read_write> pos: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read_write> vel: array<vec2<f32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    // Pinned points never move, whatever velocity they were given.
    if (info[i].inv_mass == 0.0) {
        vel[i] = vec2<f32>(0.0, 0.0);
        return;
    }
    let v = vel[i] + sim.gravity * sim.h;
    vel[i] = v;
    pos[i] = pos[i] + v * sim.h;
}
