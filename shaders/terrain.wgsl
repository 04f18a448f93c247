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

// The cell `p` is in, or NO_COLLIDER outside the grid. CPU mirror:
// cpu::terrain::terrain_cell.
fn terrain_cell(p: vec2<f32>) -> u32 {
    let f = (p - terrain.origin) * terrain.inv_cell;
    if (f.x >= 0.0 && f.y >= 0.0 && f.x < f32(terrain.cols) && f.y < f32(terrain.rows)) {
        return u32(f.y) * terrain.cols + u32(f.x);
    }
    return NO_COLLIDER;
}

// The terrain's contact with a disk of `radius` at `p` with layers
// `layers`, as (normal, depth); no contact when depth <= 0. The nearest
// segment listed in p's cell (ties: the first) decides: nearest its face,
// a half-plane's contact; nearest an end, outside (on the side of the
// vertex's normal) in contact within `radius`, inside within the
// thickness. CPU mirror: cpu::terrain::terrain_contact.
fn terrain_contact(layers: u32, p: vec2<f32>, radius: f32) -> vec3<f32> {
    if (terrain.num_segments == 0u) {
        return vec3<f32>(0.0);
    }
    let c = terrain_cell(p);
    if (c == NO_COLLIDER) {
        return vec3<f32>(0.0);
    }
    let base = terrain.cols * terrain.rows + 1u;
    let end = terrain_cells[c + 1u];
    var best_d = 0.0;
    var best_k = NO_COLLIDER;
    var best_q = vec2<f32>(0.0);
    var best_u = 0.0;
    for (var j = terrain_cells[c]; j < end; j++) {
        let k = terrain_cells[base + j];
        let s = segments[k];
        if ((s.layers & layers) == 0u) {
            continue;
        }
        let ab = s.b - s.a;
        let u = clamp(dot(p - s.a, ab) / dot(ab, ab), 0.0, 1.0);
        var q = s.a + ab * u;
        if (u <= 0.0) {
            q = s.a;
        } else if (u >= 1.0) {
            q = s.b;
        }
        let d = length(p - q);
        if (best_k == NO_COLLIDER || d < best_d) {
            best_d = d;
            best_k = k;
            best_q = q;
            best_u = u;
        }
    }
    if (best_k == NO_COLLIDER) {
        return vec3<f32>(0.0);
    }
    let s = segments[best_k];
    var side = s.normal;
    if (best_u <= 0.0) {
        side = s.normal_a;
    } else if (best_u >= 1.0) {
        side = s.normal_b;
    }
    if (best_u > 0.0 && best_u < 1.0) {
        // Along the face: a half-plane's contact (its normal, not the
        // direction from the nearest point, which rounding turns).
        let sd = dot(p - s.a, s.normal);
        if (sd >= radius || sd <= -s.thickness) {
            return vec3<f32>(0.0);
        }
        return vec3<f32>(s.normal, radius - sd);
    }
    let off = p - best_q;
    var dir = side;
    if (best_d > 0.0) {
        dir = off / best_d;
    }
    if (dot(off, side) >= 0.0) {
        if (best_d >= radius) {
            return vec3<f32>(0.0);
        }
        return vec3<f32>(dir, radius - best_d);
    }
    if (best_d >= s.thickness) {
        return vec3<f32>(0.0);
    }
    return vec3<f32>(-dir, radius + best_d);
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
    let c = terrain_contact(pi.layers, s.xy, sim.point_radius);
    if (c.z <= 0.0) {
        return;
    }
    state[i] = respond(pi, s.xy, s.zw, vec2<f32>(0.0), c.xy, c.z);
}
