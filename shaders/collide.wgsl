// Stage 2: points against static planets and half-planes (seed 001: deepest
// penetration, push-out, elasticity, exponential friction; seed 002: layers;
// seed 003: half-planes). CPU mirror: src/cpu/collide.rs.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> info: array<PointInfo>;
@group(0) @binding(2) var<storage, read> materials: array<MaterialInfo>;
// Every point reads every collider: a uniform buffer, read once per batch.
@group(0) @binding(3) var<uniform> colliders: Colliders;
@group(0) @binding(4) var<storage, read_write> pos: array<vec2<f32>>;
@group(0) @binding(5) var<storage, read_write> vel: array<vec2<f32>>;

// The point after its deepest contact, as (p, v).
fn collide_point(pi: PointInfo, p: vec2<f32>, v: vec2<f32>) -> vec4<f32> {
    // Deepest contact; ties keep the first collider, planets before planes.
    var best_depth = 0.0;
    var best_normal = vec2<f32>(0.0, 0.0);
    for (var k = 0u; k < sim.num_planets; k++) {
        let planet = colliders.planets[k];
        if ((planet.layers & pi.layers) == 0u) {
            continue;
        }
        let d = p - planet.center;
        let reach = planet.radius + sim.point_radius;
        // Far from this planet: no contact, and no square root needed.
        if (dot(d, d) >= reach * reach) {
            continue;
        }
        let dist = length(d);
        let depth = reach - dist;
        if (depth > best_depth) {
            best_depth = depth;
            best_normal = safe_dir(d, dist);
        }
    }
    for (var k = 0u; k < sim.num_planes; k++) {
        let plane = colliders.planes[k];
        if ((plane.layers & pi.layers) == 0u) {
            continue;
        }
        let depth = plane.offset + sim.point_radius - dot(plane.normal, p);
        if (depth > best_depth) {
            best_depth = depth;
            best_normal = plane.normal;
        }
    }
    if (best_depth <= 0.0) {
        return vec4<f32>(p, v);
    }
    let n = best_normal;
    let mat = materials[pi.material];
    var vn = dot(n, v);
    let vt = (v - n * vn) * exp(-mat.friction * sim.h);
    if (vn < 0.0) {
        vn = vn * -mat.elasticity;
    }
    return vec4<f32>(p + n * best_depth, n * vn + vt);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let pi = info[i];
    if (pi.inv_mass == 0.0) {
        return;
    }
    let r = collide_point(pi, pos[i], vel[i]);
    pos[i] = r.xy;
    vel[i] = r.zw;
}

// Stages 1 and 2 in one pass over the points, as the step runs them: the
// integrate stage's symplectic Euler (shaders/integrate.wgsl), then the
// contact, without storing the state in between. Bitwise the same as the
// two kernels in turn (tests/gpu_vs_cpu.rs).
@compute @workgroup_size(WORKGROUP_SIZE)
fn integrate_collide(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let pi = info[i];
    if (pi.inv_mass == 0.0) {
        vel[i] = vec2<f32>(0.0, 0.0);
        return;
    }
    let v = vel[i] + sim.gravity * sim.h;
    let r = collide_point(pi, pos[i] + v * sim.h, v);
    pos[i] = r.xy;
    vel[i] = r.zw;
}
