// The contact of one point with the planets and half-planes (Lisitsa
// 2023: push-out, elasticity, exponential friction), and the gravity it
// feels. A fragment, not a stage: src/gpu/shaders.rs puts it, after
// colliders.wgsl, in collide.wgsl's module and in shape_match.wgsl's
// (whose fused kernel ends with a substep's integrate and collide, and
// whose half-plane and planet impacts test its colliders). The including
// file declares `sim`, `materials`, `colliders` and `gravity_scale`. CPU
// mirror: src/cpu/collide.rs (and src/cpu/integrate.rs for the gravity).

// Whether some point's gravity scale is not 1 (src/gpu/collide.rs,
// ColliderCounts): without, no kernel loads the scales.
override SCALED_GRAVITY: bool = false;

// The gravity point `i` at `p` feels: the world's vector plus every
// planet's pull (G M d / max(|d|, radius)^3 toward its centre: inverse
// square outside, a uniform ball's field inside), in planet order, times
// the point's gravity scale. CPU mirror: cpu::integrate::gravity_at.
fn gravity_at(i: u32, p: vec2<f32>) -> vec2<f32> {
    var g = sim.gravity;
    for (var k = 0u; k < NUM_PLANETS; k++) {
        let planet = colliders.planets[k];
        if (planet.gravity > 0.0) {
            let d = planet.center - p;
            let r = max(length(d), planet.radius);
            if (r > 0.0) {
                g += d * (planet.gravity / (r * r * r));
            }
        }
    }
    if (SCALED_GRAVITY) {
        g *= gravity_scale[i];
    }
    return g;
}

// A point after its collider contact, as (p, v), and whether it is still
// being lifted out of the collider's skin (collider_push).
struct Collided {
    state: vec4<f32>,
    skin: bool,
}

// Stages 1 and 2 for point `i`, as (p, v): symplectic Euler
// (integrate.wgsl), then the contact, without storing the state in
// between; a point of inverse mass 0 is left as it is (euler_point).
// placed.wgsl's integrate_collide_placed_at is the same for a world with
// body contacts.
fn integrate_collide_point(i: u32, pi: PointInfo, p: vec2<f32>, v0: vec2<f32>) -> vec4<f32> {
    if (pi.inv_mass == 0.0) {
        return vec4<f32>(p, v0);
    }
    let s = euler_point(pi.inv_mass, p, v0, gravity_at(i, p), sim.h);
    return collide_point(pi, s.xy, s.zw);
}

// The point after its deepest contact, as (p, v): pushed out, then
// restitution and friction relative to the collider's surface (a moving
// collider's velocity there), the point counted as settled:
// placed.wgsl's collide_placed is the same for a world with body
// contacts.
fn collide_point(pi: PointInfo, p: vec2<f32>, v: vec2<f32>) -> vec4<f32> {
    let c = deepest_contact(pi.layers, p, sim.point_radius);
    if (c.depth <= 0.0) {
        return vec4<f32>(p, v);
    }
    return collide_hit(pi, p, v, c, false).state;
}

// The point after contact `c` (depth > 0), as collide_point; `placed`:
// it has not settled (collider_push).
fn collide_hit(pi: PointInfo, p: vec2<f32>, v: vec2<f32>, c: ColliderHit, placed: bool) -> Collided {
    var vs = vec2<f32>(0.0);
    if (MOVING_COLLIDERS) {
        vs = collider_velocity(c.k, p);
    }
    let push = collider_push(v - vs, c.normal, c.depth, placed);
    return Collided(respond(pi, p, v, vs, c.normal, c.depth, push.x), push.y > 0.0);
}

// The depth a collider's contact pushes out this substep, and 1 where the
// point is still being lifted out of the skin (else 0): a settled point
// follows push_depth (slop the point radius, the push speed); one not
// yet settled (`placed`) that stood more than a skin step
// (SKIN_PUSH_SHARE push_speed h) deep at the substep's start is pushed
// toward that depth less the skin step, or less the push speed's step
// where that leaves it deeper; from a skin step or less, all of it.
// CPU mirror: cpu::collider_push.
fn collider_push(vrel: vec2<f32>, n: vec2<f32>, depth: f32, placed: bool) -> vec2<f32> {
    if (!placed) {
        return vec2<f32>(push_depth(vrel, n, depth, sim.h, sim.point_radius, sim.push_speed), 0.0);
    }
    let before = depth + dot(vrel, n) * sim.h;
    let slow = SKIN_PUSH_SHARE * sim.push_speed * sim.h;
    if (before <= slow) {
        return vec2<f32>(depth, 0.0);
    }
    let fast = sim.push_speed * sim.h;
    let target_depth = max(max(before - fast, min(before, sim.point_radius) - slow), 0.0);
    return vec2<f32>(max(depth - target_depth, 0.0), 1.0);
}

// The point at `p` moving at `v` after its contact with a collider whose
// surface moves at `vs`, as (p, v): pushed out along `n` by `push` of its
// `depth` (collider_push), then restitution and friction relative to the
// surface (shared.wgsl, contact_response). The collide and terrain stages
// share it. CPU mirror: cpu::collide::respond.
fn respond(pi: PointInfo, p: vec2<f32>, v: vec2<f32>, vs: vec2<f32>, n: vec2<f32>, depth: f32, push: f32) -> vec4<f32> {
    let vrel = v - vs;
    let mat = materials[pi.material];
    let m = ContactMaterial(mat.elasticity, mat.static_friction, mat.dynamic_friction, exp(-mat.friction * sim.h));
    let threshold = contact_threshold(vrel, n, depth, sim.h, sim.point_radius, sim.restitution_threshold);
    let r = contact_response(vrel, n, push, m, sim.h, threshold);
    return vec4<f32>(p + n * push + r.zw, v + r.xy);
}
