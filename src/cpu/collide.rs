//! Stage 2, mirror of `shaders/collide.wgsl`: points against static planets
//! and half-planes (Lisitsa 2023: deepest penetration, push-out, elasticity,
//! exponential friction; Gaul 2013: layer masks; Firth 2011: half-planes).

use glam::Vec2;

use super::{
    ContactMaterial, contact_response, contact_threshold, par, perp, push_depth, safe_dir, v2,
};
use crate::layout::{MaterialInfo, PlaneInfo, PlanetInfo, PointInfo, SimParams};

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
/// surface moves at `vs` (WGSL `respond`): pushed out along `n` by
/// `depth`, then restitution and friction relative to the surface
/// ([`contact_response`], with material `mat`). The collide and terrain
/// stages share it.
pub fn respond(
    sim: &SimParams,
    mat: &MaterialInfo,
    p: Vec2,
    v: Vec2,
    vs: Vec2,
    n: Vec2,
    depth: f32,
) -> (Vec2, Vec2) {
    let m = ContactMaterial {
        elasticity: mat.elasticity,
        static_friction: mat.static_friction,
        dynamic_friction: mat.dynamic_friction,
        decay: (-mat.friction * sim.h).exp(),
    };
    let vrel = v - vs;
    let threshold = contact_threshold(sim, vrel, n, depth);
    let depth = push_depth(sim, (vrel, n), depth, sim.point_radius, sim.push_speed);
    let (dv, dp) = contact_response(vrel, n, depth, &m, sim.h, threshold);
    (p + n * depth + dp, v + dv)
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

#[allow(clippy::too_many_arguments)]
/// Resolves each point's deepest contact: push out along the normal, then
/// restitution and friction relative to the collider's surface, which a
/// moving collider moves ([`contact_response`], with the point's
/// material).
pub fn collide(
    sim: &SimParams,
    info: &[PointInfo],
    materials: &[MaterialInfo],
    colliders: Colliders,
    pos: &mut [[f32; 2]],
    vel: &mut [[f32; 2]],
    parallel: bool,
) {
    let count = sim.num_points as usize;
    par::zip_mut(
        parallel,
        &mut pos[..count],
        &mut vel[..count],
        |i, pos, vel| {
            let pi = info[i];
            if pi.inv_mass == 0.0 {
                return;
            }
            let p = v2(*pos);
            let Some((n, depth, k)) =
                deepest_contact(sim, pi.layers, p, &colliders, sim.point_radius)
            else {
                return;
            };
            let v = v2(*vel);
            // Relative to the collider's surface, which a kinematic one moves.
            let vs = collider_velocity(sim, k, p, colliders.planets, colliders.planes);
            let mat = &materials[pi.material as usize];
            let (p, v) = respond(sim, mat, p, v, vs, n, depth);
            *pos = p.to_array();
            *vel = v.to_array();
        },
    );
}
