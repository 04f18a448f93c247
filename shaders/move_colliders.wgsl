// Stage 0 of a substep, in worlds where a planet or half-plane moves:
// every collider's pose at the substep's start, as a function of the
// time t = clock h (the substeps run, counted by this kernel), written to
// `moved` (a storage copy of the collider table), which the solver then
// copies into the uniform table the other stages read (src/gpu/
// move_colliders.rs). A pose that is a function of time and not a sum of
// steps is the same after a checkpoint's restore as in the run it was
// saved from. One workgroup. CPU mirror: src/cpu/move_colliders.rs.
//
//   planet      center = origin + velocity t
//   half-plane  normal = normal0 turned by spin t, pivot = pivot0 +
//               velocity t, offset = normal . pivot
//
// Colliders that do not move are copied as they are.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<uniform> colliders: Colliders;
@group(0) @binding(2) var<storage, read_write> moved: Colliders;
// The substeps run (wrapping at 2^32); this kernel counts one.
@group(0) @binding(3) var<storage, read_write> clock: array<u32>;

fn planet_at(p: PlanetInfo, t: f32) -> PlanetInfo {
    var q = p;
    if (any(p.velocity != vec2<f32>(0.0)) || p.spin != 0.0) {
        q.center = p.origin + p.velocity * t;
    }
    return q;
}

fn plane_at(p: PlaneInfo, t: f32) -> PlaneInfo {
    var q = p;
    if (any(p.velocity != vec2<f32>(0.0)) || p.spin != 0.0) {
        let a = p.spin * t;
        let c = cos(a);
        let s = sin(a);
        q.normal = vec2<f32>(c * p.normal0.x - s * p.normal0.y, s * p.normal0.x + c * p.normal0.y);
        q.pivot = p.pivot0 + p.velocity * t;
        // The boundary keeps its distance from the pivot (which need not
        // lie on it).
        let gap = p.offset0 - dot(p.normal0, p.pivot0);
        q.offset = dot(q.normal, q.pivot) + gap;
    }
    return q;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(local_invocation_index) lane: u32) {
    let n = clock[0];
    let t = f32(n) * sim.h;
    for (var k = lane; k < sim.num_planets; k += WORKGROUP_SIZE) {
        moved.planets[k] = planet_at(colliders.planets[k], t);
    }
    for (var k = lane; k < sim.num_planes; k += WORKGROUP_SIZE) {
        moved.planes[k] = plane_at(colliders.planes[k], t);
    }
    // Every lane has read the clock before it is counted.
    storageBarrier();
    if (lane == 0u) {
        clock[0] = n + 1u;
    }
}
