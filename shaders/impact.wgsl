// Stage 5c: impacts act on whole bodies (docs/physics.md, "Impacts"). A
// contact whose bodies approach faster than the restitution threshold is
// an impact, solved as between rigid bodies from their mean velocities
// (their frames): the impulse that reverses the approach v with the
// elasticity, J = (1 + e) v / (k_a w_a + k_b w_b), changes the velocity of
// every point of each side's body by J w n (w the body's inverse mass, k
// its impacts this substep: mass splitting). One thread per point, then
// per body:
//
//   count    each point's impacts (its half-plane or planet contact one
//            substep ahead, and the body contact the narrow phase stored)
//            are counted per body with integer atomics; body impacts
//            faster than the wake speed wake both assemblies.
//   resolve  each impact adds its velocity changes, in fixed point, into
//            its bodies' accumulators: the sums do not depend on order.
//   apply    each awake point of a body that had impacts gets the body's
//            velocity change.
//   clear    the counts and accumulators back to zero, per body.
//
// `count_planes` and `resolve_planes` are the same without body contacts
// (a world whose substeps run no narrow phase). collide_point.wgsl is
// appended for `deepest_contact`. CPU mirror: src/cpu/impact.rs.

@group(0) @binding(0) var<uniform> sim: SimParams;
// PointInfo records, fetched as one vec4 each; the solver's copy (inverse
// mass 0 while asleep).
@group(0) @binding(1) var<storage, read> info: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> materials: array<MaterialInfo>;
@group(0) @binding(3) var<uniform> colliders: Colliders;
// Per point (position, velocity).
@group(0) @binding(4) var<storage, read_write> state: array<vec4<f32>>;
// The bodies' frames of this substep (their mean velocities).
@group(0) @binding(5) var<storage, read> frames_in: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> impact_home: array<u32>;
@group(0) @binding(7) var<storage, read> impact_inv_mass: array<f32>;
// Per body: impacts this substep, and velocity changes (x, y).
@group(0) @binding(8) var<storage, read_write> impact_counts: array<atomic<u32>>;
@group(0) @binding(9) var<storage, read_write> impact_acc: array<atomic<i32>>;
// The body contacts (body_collide.wgsl's narrow phase).
@group(0) @binding(10) var<storage, read> hits: array<ContactHit>;
@group(0) @binding(11) var<storage, read> contact_points: array<ContactPoint>;
@group(0) @binding(12) var<storage, read> outlines: array<BodyOutline>;
@group(0) @binding(13) var<storage, read> filters: array<ContactFilter>;
@group(0) @binding(14) var<storage, read> rest_steps: array<u32>;
@group(0) @binding(15) var<storage, read_write> sleep_speed: array<atomic<u32>>;

// One side of an impact: the body and its inverse mass (w = 0 for a side
// that does not move, a sleeping body).
struct ImpactSide {
    body: u32,
    w: f32,
}

struct Impact {
    found: bool,
    n: vec2<f32>,
    approach: f32,
    elasticity: f32,
    a: ImpactSide,
    b: ImpactSide,
    // The two assemblies a body impact wakes.
    groups: vec2<u32>,
}

fn no_impact() -> Impact {
    let none = ImpactSide(IMPACT_NONE, 0.0);
    return Impact(false, vec2<f32>(0.0), 0.0, 0.0, none, none, vec2<u32>(0u));
}

// The mean velocity of a side's body (zero for a side that does not move).
fn side_vel(s: ImpactSide) -> vec2<f32> {
    if (s.w > 0.0) {
        return frames_in[2u * s.body].zw;
    }
    return vec2<f32>(0.0);
}

// Point i's impact with a half-plane or planet: its body takes part, is
// awake, moves faster than the restitution threshold, and approaches its
// deepest contact one substep ahead (the point moved by the body's
// velocity over a substep) faster than that.
fn plane_impact(i: u32) -> Impact {
    var out = no_impact();
    let body = impact_home[i];
    if (body == IMPACT_NONE) {
        return out;
    }
    let pi = point_info(info[i]);
    if (pi.inv_mass == 0.0) {
        return out;
    }
    let v = frames_in[2u * body].zw;
    let t = sim.restitution_threshold;
    if (dot(v, v) <= t * t) {
        return out;
    }
    let c = deepest_contact(pi.layers, state[i].xy + v * sim.h);
    if (c.z <= 0.0) {
        return out;
    }
    let approach = -dot(v, c.xy);
    if (!(approach > t)) {
        return out;
    }
    out.found = true;
    out.n = c.xy;
    out.approach = approach;
    out.elasticity = materials[pi.material].elasticity;
    out.a = ImpactSide(body, impact_inv_mass[body]);
    return out;
}

// Point i's body-contact impact: the contact the narrow phase stored,
// between two bodies that take part (one of them awake) and whose mean
// velocities approach faster than the restitution threshold.
fn body_impact(i: u32) -> Impact {
    var out = no_impact();
    let hit = hits[i];
    if (hit.body == IMPACT_NONE) {
        return out;
    }
    let a_body = impact_home[i];
    if (a_body == IMPACT_NONE) {
        return out;
    }
    let wb = impact_inv_mass[hit.body];
    if (wb == 0.0) {
        return out;
    }
    var a = ImpactSide(a_body, impact_inv_mass[a_body]);
    if (point_info(info[i]).inv_mass == 0.0) {
        a = ImpactSide(IMPACT_NONE, 0.0);
    }
    let o = outlines[hit.body];
    var b = ImpactSide(hit.body, wb);
    if (sleeps(rest_steps[o.group], sim.sleep_steps)) {
        b = ImpactSide(IMPACT_NONE, 0.0);
    }
    if (a.w == 0.0 && b.w == 0.0) {
        return out;
    }
    let approach = -dot(side_vel(a) - side_vel(b), hit.n);
    if (!(approach > sim.restitution_threshold)) {
        return out;
    }
    let cp = contact_points[i];
    let pf = filters[cp.filter_id & ~CONTACT_FREE];
    let bf = filters[o.filter_id];
    out.found = true;
    out.n = hit.n;
    out.approach = approach;
    out.elasticity = pair_material(pf, bf).elasticity;
    out.a = a;
    out.b = b;
    out.groups = vec2<u32>(cp.group, o.group);
    return out;
}

fn count_impact(imp: Impact) {
    if (!imp.found) {
        return;
    }
    if (imp.a.w > 0.0) {
        atomicAdd(&impact_counts[imp.a.body], 1u);
    }
    if (imp.b.w > 0.0) {
        atomicAdd(&impact_counts[imp.b.body], 1u);
    }
}

// A side's inverse mass times its impact count.
fn split_impacts(s: ImpactSide) -> f32 {
    if (s.w > 0.0) {
        return s.w * f32(atomicLoad(&impact_counts[s.body]));
    }
    return 0.0;
}

fn add_side(s: ImpactSide, dv: vec2<f32>) {
    if (s.w > 0.0) {
        let q = fixed(dv, sim.contact_scale);
        atomicAdd(&impact_acc[2u * s.body], q.x);
        atomicAdd(&impact_acc[2u * s.body + 1u], q.y);
    }
}

fn resolve_impact(imp: Impact) {
    if (!imp.found) {
        return;
    }
    let j = (1.0 + imp.elasticity) * imp.approach / (split_impacts(imp.a) + split_impacts(imp.b));
    add_side(imp.a, imp.n * (j * imp.a.w));
    add_side(imp.b, imp.n * (-j * imp.b.w));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn count_planes(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = spread_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    count_impact(plane_impact(i));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn count(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = spread_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    count_impact(plane_impact(i));
    let imp = body_impact(i);
    count_impact(imp);
    if (imp.found && sim.sleep_steps > 0u && imp.approach * imp.approach > sim.wake_speed_sq) {
        atomicMax(&sleep_speed[imp.groups.x], SLEEP_WAKE);
        atomicMax(&sleep_speed[imp.groups.y], SLEEP_WAKE);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn resolve_planes(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = spread_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    resolve_impact(plane_impact(i));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn resolve(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = spread_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    resolve_impact(plane_impact(i));
    resolve_impact(body_impact(i));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn apply(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = spread_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let body = impact_home[i];
    if (body == IMPACT_NONE) {
        return;
    }
    if (atomicLoad(&impact_counts[body]) == 0u || point_info(info[i]).inv_mass == 0.0) {
        return;
    }
    let a = vec2<f32>(f32(atomicLoad(&impact_acc[2u * body])), f32(atomicLoad(&impact_acc[2u * body + 1u])));
    let s = state[i];
    state[i] = vec4<f32>(s.xy, s.zw + a * (1.0 / sim.contact_scale));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn clear(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let b = spread_index(gid, groups);
    if (b >= sim.num_bodies) {
        return;
    }
    atomicStore(&impact_counts[b], 0u);
    atomicStore(&impact_acc[2u * b], 0);
    atomicStore(&impact_acc[2u * b + 1u], 0);
}
