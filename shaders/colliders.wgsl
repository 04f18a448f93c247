// The planets and half-planes as colliders: the contact of a disk with
// each, the deepest contact, and a collider's surface velocity (Lisitsa
// 2023: deepest penetration; Gaul 2013: layers; Firth 2011: half-planes).
// A fragment: src/gpu/shaders.rs puts it in the modules of the stages
// that test colliders (integrate, collide, shape_match, sleep, terrain).
// The including file declares `sim` and `colliders`. CPU mirror: src/cpu/collide.rs.

// The number of planets and half-planes, set when the pipeline is made
// (src/gpu/collide.rs, `ColliderCounts`; the same as `sim.num_planets` and
// `sim.num_planes`). With a constant trip count the driver can unroll the
// loops below and read each collider at a constant address, once for all
// lanes: on lavapipe the collide pass costs 0.7x what it does with the
// counts read from `sim`. A world whose collider counts change gets new
// pipelines.
override NUM_PLANETS: u32 = 0u;
override NUM_PLANES: u32 = 0u;
// Whether some planet or half-plane moves or turns (src/gpu/collide.rs,
// ColliderCounts): without, no kernel reads a collider's velocity, and a
// static world runs exactly as before colliders could move.
override MOVING_COLLIDERS: bool = false;

// Colliders are numbered planets first, then half-planes: collider k is
// planet k when k < NUM_PLANETS, else plane k - NUM_PLANETS.
const NO_COLLIDER: u32 = 0xffffffffu;

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

// A disk's deepest collider contact: the collider's normal there, the
// depth (no contact when <= 0) and the collider (NO_COLLIDER: none).
struct ColliderHit {
    normal: vec2<f32>,
    depth: f32,
    k: u32,
}

// The deepest contact of a disk of `radius` at `p` with layers `layers`.
// Ties keep the first collider. CPU mirror: deepest_contact.
fn deepest_contact(layers: u32, p: vec2<f32>, radius: f32) -> ColliderHit {
    var best = ColliderHit(vec2<f32>(0.0), 0.0, NO_COLLIDER);
    for (var k = 0u; k < NUM_PLANETS; k++) {
        let c = planet_contact(colliders.planets[k], layers, p, radius);
        if (c.z > best.depth) {
            best = ColliderHit(c.xy, c.z, k);
        }
    }
    for (var k = 0u; k < NUM_PLANES; k++) {
        let c = plane_contact(colliders.planes[k], layers, p, radius);
        if (c.z > best.depth) {
            best = ColliderHit(c.xy, c.z, NUM_PLANETS + k);
        }
    }
    return best;
}

// The velocity of collider k's surface at `p` (a point on or near it):
// its velocity plus its spin about its centre (planet) or pivot
// (half-plane). CPU mirror: cpu::collide::collider_velocity.
fn collider_velocity(k: u32, p: vec2<f32>) -> vec2<f32> {
    if (k < NUM_PLANETS) {
        let planet = colliders.planets[k];
        return planet.velocity + perp(p - planet.center) * planet.spin;
    }
    let plane = colliders.planes[k - NUM_PLANETS];
    return plane.velocity + perp(p - plane.pivot) * plane.spin;
}

// Whether a disk of point_radius at `p` with layers `layers` is within a
// step's travel of a moving collider's surface: in contact with it, grown
// by the surface's speed there times dt. CPU mirror:
// cpu::collide::near_moving_collider.
fn near_moving_collider(layers: u32, p: vec2<f32>) -> bool {
    for (var k = 0u; k < NUM_PLANETS + NUM_PLANES; k++) {
        let vs = collider_velocity(k, p);
        if (any(vs != vec2<f32>(0.0))) {
            let c = collider_contact(k, layers, p, sim.point_radius + length(vs) * sim.dt);
            if (c.z > 0.0) {
                return true;
            }
        }
    }
    return false;
}
