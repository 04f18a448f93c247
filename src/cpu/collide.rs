//! Stage 2, mirror of `shaders/collide.wgsl`: points against static planets
//! and half-planes (seed 001: deepest penetration, push-out, elasticity,
//! exponential friction; seed 002: layer masks; seed 003: half-planes).

use glam::Vec2;

use super::{coulomb, par, safe_dir, v2};
use crate::layout::{MaterialInfo, PlaneInfo, PlanetInfo, PointInfo, SimParams};

/// The deepest contact of a point at `p` with layers `layers`: `(normal,
/// depth)` with `depth > 0`, or `None`. Ties keep the first collider
/// (planets before planes, in index order).
pub fn deepest_contact(
    sim: &SimParams,
    layers: u32,
    p: Vec2,
    planets: &[PlanetInfo],
    planes: &[PlaneInfo],
) -> Option<(Vec2, f32)> {
    let mut best_depth = 0.0f32;
    let mut best_normal = Vec2::ZERO;
    for planet in &planets[..sim.num_planets as usize] {
        if planet.layers & layers == 0 {
            continue;
        }
        let d = p - v2(planet.center);
        let reach = planet.radius + sim.point_radius;
        // Far from this planet: no contact, and no square root needed.
        if d.dot(d) >= reach * reach {
            continue;
        }
        let dist = d.length();
        let depth = reach - dist;
        if depth > best_depth {
            best_depth = depth;
            best_normal = safe_dir(d, dist);
        }
    }
    for plane in &planes[..sim.num_planes as usize] {
        if plane.layers & layers == 0 {
            continue;
        }
        let n = v2(plane.normal);
        let depth = plane.offset + sim.point_radius - n.dot(p);
        if depth > best_depth {
            best_depth = depth;
            best_normal = n;
        }
    }
    (best_depth > 0.0).then_some((best_normal, best_depth))
}

#[allow(clippy::too_many_arguments)]
/// Resolves each point's deepest contact: push out along the normal, reflect
/// an approaching normal velocity faster than the restitution threshold
/// with the point's elasticity (stop a slower one), apply Coulomb friction
/// bounded by that normal velocity change (the tangential drift it removes
/// is taken back from the position too), then decay the tangential
/// velocity by `exp(-friction h)`.
pub fn collide(
    sim: &SimParams,
    info: &[PointInfo],
    materials: &[MaterialInfo],
    planets: &[PlanetInfo],
    planes: &[PlaneInfo],
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
            let Some((n, depth)) = deepest_contact(sim, pi.layers, p, planets, planes) else {
                return;
            };
            let mat = materials[pi.material as usize];
            let v = v2(*vel);
            let vn = n.dot(v);
            let vt = v - n * vn;
            let (vn_after, keep) = coulomb(
                vn,
                vt.length(),
                depth / sim.h,
                mat.elasticity,
                mat.static_friction,
                mat.dynamic_friction,
                sim.restitution_threshold,
            );
            let vt_kept = vt * keep;
            *pos = (p + n * depth - (vt - vt_kept) * sim.h).to_array();
            *vel = (n * vn_after + vt_kept * (-mat.friction * sim.h).exp()).to_array();
        },
    );
}
