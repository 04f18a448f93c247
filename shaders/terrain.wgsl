// Stage 2b, in worlds with terrain: points against the terrain's
// polylines (docs/physics.md, "Terrain"), after the planets and
// half-planes in each substep: the nearest segment listed in the point's
// cell of the terrain's grid, and the contact of a half-plane with it
// (push-out, restitution and friction: collide_point.wgsl's rules). A
// stage of its own rather than part of the collide kernels: the fused
// shape-matching kernel has no storage binding to spare on a device with
// 8 per stage. CPU mirror: src/cpu/terrain.rs.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> info: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> materials: array<MaterialInfo>;
// The planets and half-planes (collide_point.wgsl's functions read them;
// this stage does not).
@group(0) @binding(3) var<uniform> colliders: Colliders;
@group(0) @binding(4) var<storage, read_write> state: array<vec4<f32>>;
// Declared for collide_point.wgsl's gravity; never read here.
@group(0) @binding(5) var<storage, read> gravity_scale: array<f32>;
@group(0) @binding(6) var<uniform> terrain: TerrainGrid;
@group(0) @binding(7) var<storage, read> segments: array<SegmentInfo>;
// cols rows + 1 offsets into the lists, then the lists of segment indices.
@group(0) @binding(8) var<storage, read> terrain_cells: array<u32>;

// The warm starts (main_placed: a world with body contacts), whose
// settled bits the stage reads and whose skin bits it sets
// (placed.wgsl, placed_at and note_skin).
@group(0) @binding(9) var<storage, read_write> warm: array<vec4<u32>>;

// terrain_contact: shaders/terrain_contact.wgsl.

// Point i (info `pi`, state `s`) after its terrain contact `c` (normal,
// depth > 0); `placed`: it has not settled. Returns whether it is still
// being lifted out of the skin (collide_point.wgsl, collider_push).
fn terrain_respond(i: u32, pi: PointInfo, s: vec4<f32>, c: vec3<f32>, placed: bool) -> bool {
    let push = collider_push(s.zw, c.xy, c.z, placed);
    state[i] = respond(pi, s.xy, s.zw, vec2<f32>(0.0), c.xy, c.z, push.x);
    return push.y > 0.0;
}

// The stage in a world without body contacts.
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
    let c = terrain_contact(pi.layers, s.xy, sim.point_radius);
    if (c.z > 0.0) {
        terrain_respond(i, pi, s, c, false);
    }
}

// The stage in a world with body contacts: a point in contact that has
// not settled is lifted out of the skin slowly, and its skin bit set
// while it is in it (placed.wgsl).
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
    let c = terrain_contact(pi.layers, s.xy, sim.point_radius);
    if (c.z > 0.0 && terrain_respond(i, pi, s, c, placed_at(i))) {
        note_skin(i, true, false);
    }
}
