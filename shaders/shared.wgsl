// Structs and helpers shared by every kernel. Prepended to each stage's file
// (see src/gpu/shaders.rs); the Rust twins live in src/layout.rs and
// tests/layout.rs checks that both agree field by field.

const WORKGROUP_SIZE: u32 = 64u;
const LARGE_BODY_THREADS: u32 = 256u;

const MAX_PLANETS: u32 = 256u;
const MAX_PLANES: u32 = 64u;

const KIND_SPRING: u32 = 0u;
const KIND_SOFT: u32 = 1u;
const KIND_ROD: u32 = 2u;

// Squared distance below which two points count as coincident and a fixed
// direction is used instead of normalising (never NaN).
const TINY_DIST2: f32 = 1e-24;

struct SimParams {
    gravity: vec2<f32>,
    h: f32,
    point_radius: f32,
    num_points: u32,
    num_springs: u32,
    num_bodies: u32,
    num_planets: u32,
    num_planes: u32,
    num_small_bodies: u32,
    num_large_bodies: u32,
    _pad: u32,
}

struct PointInfo {
    inv_mass: f32,
    weight: f32,
    material: u32,
    layers: u32,
}

struct MaterialInfo {
    elasticity: f32,
    friction: f32,
}

struct SpringInfo {
    a: u32,
    b: u32,
    rest: f32,
    stiffness: f32,
    damping: f32,
    kind: u32,
}

const HALF_IS_B: u32 = 0x80000000u;
const HALF_SOFT: u32 = 0x40000000u;
const HALF_INDEX: u32 = 0x3fffffffu;

struct HalfSpring {
    other: u32,
    rest: f32,
    stiffness: f32,
    damping: f32,
}

struct BodyInfo {
    first: u32,
    count: u32,
    stiffness: f32,
    damping: f32,
}

struct Member {
    rest: vec2<f32>,
    point: u32,
    body: u32,
}

struct BodyFrame {
    centroid: vec2<f32>,
    vel: vec2<f32>,
    rot: vec2<f32>,
    omega: f32,
    pull: f32,
    relax: f32,
    _pad: u32,
}

struct PlanetInfo {
    center: vec2<f32>,
    radius: f32,
    layers: u32,
}

struct PlaneInfo {
    normal: vec2<f32>,
    offset: f32,
    layers: u32,
}

struct Colliders {
    planets: array<PlanetInfo, MAX_PLANETS>,
    planes: array<PlaneInfo, MAX_PLANES>,
}

// Linear invocation index of a 1-D problem dispatched as a 2-D grid of
// workgroups (a grid row holds at most 65535 workgroups).
fn linear_index(gid: vec3<u32>, num_groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * num_groups.x * WORKGROUP_SIZE;
}

// Unit direction from `d`, or +x when `d` is (nearly) zero.
fn safe_dir(d: vec2<f32>, dist: f32) -> vec2<f32> {
    if (dist * dist > TINY_DIST2) {
        return d / dist;
    }
    return vec2<f32>(1.0, 0.0);
}

fn cross2(a: vec2<f32>, b: vec2<f32>) -> f32 {
    return a.x * b.y - a.y * b.x;
}

fn perp(a: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(-a.y, a.x);
}
