// The contact of one point with the static planets and half-planes
// (Lisitsa 2023: deepest penetration, push-out, elasticity, exponential
// friction; Gaul 2013: layers; Firth 2011: half-planes). A fragment, not a
// stage: src/gpu/shaders.rs puts it in collide.wgsl's module and in
// shape_match.wgsl's (whose fused kernel ends with a substep's integrate
// and collide, and whose half-plane and planet impacts test its
// colliders). The including file declares `sim`, `materials`,
// `colliders` and `gravity_scale`. CPU mirror: src/cpu/collide.rs (and
// src/cpu/integrate.rs for the gravity).

// The number of planets and half-planes, set when the pipeline is made
// (src/gpu/collide.rs, `ColliderCounts`; the same as `sim.num_planets` and
// `sim.num_planes`). With a constant trip count the driver can unroll the
// loops below and read each collider at a constant address, once for all
// lanes: on lavapipe the collide pass costs 0.7x what it does with the
// counts read from `sim`. A world whose collider counts change gets new
// pipelines.
override NUM_PLANETS: u32 = 0u;
override NUM_PLANES: u32 = 0u;
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

// Stages 1 and 2 for point `i`, as (p, v): symplectic Euler
// (integrate.wgsl), then the contact, without storing the state in
// between; a pinned point keeps its position and has no velocity.
fn integrate_collide_point(i: u32, pi: PointInfo, p: vec2<f32>, v0: vec2<f32>) -> vec4<f32> {
    if (pi.inv_mass == 0.0) {
        return vec4<f32>(p, 0.0, 0.0);
    }
    let s = euler_point(pi.inv_mass, p, v0, gravity_at(i, p), sim.h);
    return collide_point(pi, s.xy, s.zw);
}

// Colliders are numbered planets first, then half-planes: collider k is
// planet k when k < NUM_PLANETS, else plane k - NUM_PLANETS.
const NO_COLLIDER: u32 = 0xffffffffu;
// A restitution threshold no approach passes (the largest f32).
const NO_BOUNCE: f32 = 3.40282347e38;

// A planet's contact with a disk of `radius` at `p` with layers `layers`,
// as (normal, depth); no contact when depth <= 0.
fn planet_contact(planet: PlanetInfo, layers: u32, p: vec2<f32>, radius: f32) -> vec3<f32> {
    if ((planet.layers & layers) == 0u) {
        return vec3<f32>(0.0);
    }
    let d = p - planet.center;
    let reach = planet.radius + radius;
    // Far from this planet: no contact, and no square root needed.
    if (dot(d, d) >= reach * reach) {
        return vec3<f32>(0.0);
    }
    let dist = length(d);
    return vec3<f32>(safe_dir(d, dist), reach - dist);
}

// A half-plane's contact, as planet_contact's.
fn plane_contact(plane: PlaneInfo, layers: u32, p: vec2<f32>, radius: f32) -> vec3<f32> {
    if ((plane.layers & layers) == 0u) {
        return vec3<f32>(0.0);
    }
    return vec3<f32>(plane.normal, plane.offset + radius - dot(plane.normal, p));
}

// Collider k's contact. CPU mirror: collider_contact.
fn collider_contact(k: u32, layers: u32, p: vec2<f32>, radius: f32) -> vec3<f32> {
    if (k < NUM_PLANETS) {
        return planet_contact(colliders.planets[k], layers, p, radius);
    }
    return plane_contact(colliders.planes[k - NUM_PLANETS], layers, p, radius);
}

// The deepest contact of a disk of `radius` at `p` with layers `layers`,
// as (normal, depth); no contact when depth <= 0. Ties keep the first
// collider. CPU mirror: deepest_contact.
fn deepest_contact(layers: u32, p: vec2<f32>, radius: f32) -> vec3<f32> {
    var best = vec3<f32>(0.0);
    for (var k = 0u; k < NUM_PLANETS; k++) {
        let c = planet_contact(colliders.planets[k], layers, p, radius);
        if (c.z > best.z) {
            best = c;
        }
    }
    for (var k = 0u; k < NUM_PLANES; k++) {
        let c = plane_contact(colliders.planes[k], layers, p, radius);
        if (c.z > best.z) {
            best = c;
        }
    }
    return best;
}

// The restitution threshold of a point's contact with a collider at
// depth `depth` along `n`, the point moving at `v` (after this substep's
// motion): a contact that persists (the point stood within RESTING_SLOP
// radii of the surface at the substep's start, at p - v h) bounces at no
// speed, so that a point its own body presses into the ground is stopped,
// not thrown back up every substep. CPU mirror: cpu::collide::collider_threshold.
fn collider_threshold(v: vec2<f32>, n: vec2<f32>, depth: f32) -> f32 {
    if (depth + dot(v, n) * sim.h > -RESTING_SLOP * sim.point_radius) {
        return NO_BOUNCE;
    }
    return sim.restitution_threshold;
}

// The point after its deepest contact, as (p, v).
fn collide_point(pi: PointInfo, p: vec2<f32>, v: vec2<f32>) -> vec4<f32> {
    let c = deepest_contact(pi.layers, p, sim.point_radius);
    let best_normal = c.xy;
    let best_depth = c.z;
    if (best_depth <= 0.0) {
        return vec4<f32>(p, v);
    }
    // Restitution and friction (shared.wgsl, contact_response) against a
    // side that does not move.
    let mat = materials[pi.material];
    let m = ContactMaterial(mat.elasticity, mat.static_friction, mat.dynamic_friction, exp(-mat.friction * sim.h));
    let r = contact_response(v, best_normal, best_depth, m, sim.h, collider_threshold(v, best_normal, best_depth));
    return vec4<f32>(p + best_normal * best_depth + r.zw, v + r.xy);
}
