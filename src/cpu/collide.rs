//! Stage 2, mirror of `shaders/collide.wgsl`: points against static planets
//! and half-planes (Lisitsa 2023: deepest penetration, push-out, elasticity,
//! exponential friction; Gaul 2013: layer masks; Firth 2011: half-planes).

use glam::Vec2;

use super::body_collide::Warm;
use super::{
    ContactMaterial, collider_push, contact_response, contact_threshold, par, perp, safe_dir, v2,
};
use crate::layout::{
    MaterialInfo, PlaneInfo, PlanetInfo, PointInfo, SimParams, WARM_SETTLED, WARM_SKIN,
};

/// Collider `k`'s contact with a disk of `radius` at `p` with layers
/// `layers` (WGSL `collider_contact`): `(normal, depth)`, no contact when
/// `depth <= 0`. Colliders are numbered planets first, then half-planes:
/// `k < num_planets` is planet `k`, the others plane `k - num_planets`.
#[inline]
pub fn collider_contact(
    sim: &SimParams,
    k: u32,
    layers: u32,
    p: Vec2,
    planets: &[PlanetInfo],
    planes: &[PlaneInfo],
    radius: f32,
) -> (Vec2, f32) {
    if k < sim.num_planets {
        let planet = &planets[k as usize];
        if planet.layers & layers == 0 {
            return (Vec2::ZERO, 0.0);
        }
        let d = p - v2(planet.center);
        let reach = planet.radius + radius;
        // Far from this planet: no contact, and no square root needed.
        if d.dot(d) >= reach * reach {
            return (Vec2::ZERO, 0.0);
        }
        let dist = d.length();
        return (safe_dir(d, dist), reach - dist);
    }
    let plane = &planes[(k - sim.num_planets) as usize];
    if plane.layers & layers == 0 {
        return (Vec2::ZERO, 0.0);
    }
    let n = v2(plane.normal);
    (n, plane.offset + radius - n.dot(p))
}

/// The deepest contact of a disk of `radius` (a point's is
/// `SimParams::point_radius`) at `p` with layers `layers`: `(normal,
/// depth, collider)` with `depth > 0`, or `None`. Ties keep the first
/// collider (planets before planes, in index order).
pub fn deepest_contact(
    sim: &SimParams,
    layers: u32,
    p: Vec2,
    c: &Colliders,
    radius: f32,
) -> Option<(Vec2, f32, u32)> {
    let mut best = (Vec2::ZERO, 0.0f32, u32::MAX);
    for k in 0..sim.num_planets + sim.num_planes {
        let (n, depth) = collider_contact(sim, k, layers, p, c.planets, c.planes, radius);
        if depth > best.1 {
            best = (n, depth, k);
        }
    }
    (best.1 > 0.0).then_some(best)
}

/// The colliders the collide stage meets: planets and half-planes.
#[derive(Clone, Copy)]
pub struct Colliders<'a> {
    pub planets: &'a [PlanetInfo],
    pub planes: &'a [PlaneInfo],
}

/// The velocity of collider `k`'s surface at `p`, a point on or near it
/// (WGSL `collider_velocity`): its velocity plus its spin about its centre
/// (planet) or pivot (half-plane). Exactly zero for one that does not
/// move.
#[inline]
pub fn collider_velocity(
    sim: &SimParams,
    k: u32,
    p: Vec2,
    planets: &[PlanetInfo],
    planes: &[PlaneInfo],
) -> Vec2 {
    if k < sim.num_planets {
        let planet = &planets[k as usize];
        return v2(planet.velocity) + perp(p - v2(planet.center)) * planet.spin;
    }
    let plane = &planes[(k - sim.num_planets) as usize];
    v2(plane.velocity) + perp(p - v2(plane.pivot)) * plane.spin
}

/// A point at `p` moving at `v` after its contact with a collider whose
/// surface moves at `vs` (WGSL `respond`): pushed out along `n` by `push`
/// of its `depth` ([`collider_push`]), then restitution and friction
/// relative to the surface ([`contact_response`], with material `mat`).
/// The collide and terrain stages share it.
#[allow(clippy::too_many_arguments)]
pub fn respond(
    sim: &SimParams,
    mat: &MaterialInfo,
    p: Vec2,
    v: Vec2,
    vs: Vec2,
    n: Vec2,
    depth: f32,
    push: f32,
) -> (Vec2, Vec2) {
    let m = ContactMaterial {
        elasticity: mat.elasticity,
        static_friction: mat.static_friction,
        dynamic_friction: mat.dynamic_friction,
        decay: (-mat.friction * sim.h).exp(),
    };
    let vrel = v - vs;
    let threshold = contact_threshold(sim, vrel, n, depth);
    let (dv, dp) = contact_response(vrel, n, push, &m, sim.h, threshold);
    (p + n * push + dp, v + dv)
}

/// Whether a point with warm-start state `warm` (`None` in a world
/// without body contacts, which has none) has not settled
/// ([`WARM_SETTLED`]): the collider stages lift such a point out of their
/// skin slowly ([`collider_push`]).
#[inline]
pub fn placed(warm: Option<&Warm>) -> bool {
    warm.is_some_and(|w| w[2] & WARM_SETTLED == 0)
}

/// Notes in a point's warm-start state whether a collider stage found it
/// in its skin this substep ([`WARM_SKIN`]): the collide stage, the
/// substep's first, sets or clears the bit (`first`), the terrain stage
/// after it only sets it.
#[inline]
pub fn note_skin(warm: &mut Warm, skin: bool, first: bool) {
    if first {
        warm[3] &= !WARM_SKIN;
    }
    if skin {
        warm[3] |= WARM_SKIN;
    }
}

/// Whether a disk of `point_radius` at `p` with layers `layers` is within
/// a step's travel of a moving collider's surface (WGSL
/// `near_moving_collider`): in contact with it, grown by the surface's
/// speed there times `dt`. Sleeping wakes such a point.
pub fn near_moving_collider(
    sim: &SimParams,
    layers: u32,
    p: Vec2,
    planets: &[PlanetInfo],
    planes: &[PlaneInfo],
) -> bool {
    (0..sim.num_planets + sim.num_planes).any(|k| {
        let vs = collider_velocity(sim, k, p, planets, planes);
        vs != Vec2::ZERO && {
            let radius = sim.point_radius + vs.length() * sim.dt;
            collider_contact(sim, k, layers, p, planets, planes, radius).1 > 0.0
        }
    })
}

/// Resolves each point's deepest contact: push out along the normal, then
/// restitution and friction relative to the collider's surface, which a
/// moving collider moves ([`contact_response`], with the point's
/// material). `warm`, the points' warm-start states where the world has
/// body contacts (WGSL `collide_placed`): a point in contact that has not
/// settled is lifted out of the skin slowly, and whether it is still in
/// it is noted (`note_skin`).
#[allow(clippy::too_many_arguments)]
pub fn collide(
    sim: &SimParams,
    info: &[PointInfo],
    materials: &[MaterialInfo],
    colliders: Colliders,
    pos: &mut [[f32; 2]],
    vel: &mut [[f32; 2]],
    warm: Option<&mut [Warm]>,
    parallel: bool,
) {
    let count = sim.num_points as usize;
    // Point i's contact; `warm`, its warm start in a world with body
    // contacts, read (and its skin bit noted) only in contact.
    let point = |i: usize, pos: &mut [f32; 2], vel: &mut [f32; 2], warm: Option<&mut Warm>| {
        let pi = info[i];
        if pi.inv_mass == 0.0 {
            return;
        }
        let p = v2(*pos);
        let Some((n, depth, k)) = deepest_contact(sim, pi.layers, p, &colliders, sim.point_radius)
        else {
            return;
        };
        let v = v2(*vel);
        // Relative to the collider's surface, which a kinematic one moves.
        let vs = collider_velocity(sim, k, p, colliders.planets, colliders.planes);
        let mat = &materials[pi.material as usize];
        let placed = placed(warm.as_deref());
        let (push, skin) = collider_push(sim, (v - vs, n), depth, placed);
        let (p, v) = respond(sim, mat, p, v, vs, n, depth, push);
        *pos = p.to_array();
        *vel = v.to_array();
        if let (true, Some(w)) = (placed, warm) {
            note_skin(w, skin, true);
        }
    };
    let warm = warm.map(|w| &mut w[..count]);
    par::zip_mut_with(parallel, &mut pos[..count], &mut vel[..count], warm, point);
}
