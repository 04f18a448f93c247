//! Stage 1, mirror of `shaders/integrate.wgsl`: symplectic Euler (Lisitsa
//! 2023), with the gravity of `shaders/collide_point.wgsl`'s `gravity_at`.

use super::{par, v2};
use crate::layout::{PlanetInfo, PointInfo, SimParams};
use glam::Vec2;

/// The gravity a point at `p` with gravity scale `scale` feels (WGSL
/// `gravity_at`): the world's vector plus each planet's pull `G M d /
/// max(|d|, radius)^3` toward its centre (`d` from the point to the
/// centre: inverse square outside, the field of a uniform ball inside),
/// in planet order, times `scale`.
pub fn gravity_at(sim: &SimParams, planets: &[PlanetInfo], scale: f32, p: Vec2) -> Vec2 {
    let mut g = v2(sim.gravity);
    for planet in &planets[..sim.num_planets as usize] {
        if planet.gravity > 0.0 {
            let d = v2(planet.center) - p;
            let r = d.length().max(planet.radius);
            if r > 0.0 {
                g += d * (planet.gravity / (r * r * r));
            }
        }
    }
    g * scale
}

/// Whether a point may move in a substep (WGSL `may_move`): it is awake
/// (its own inverse mass) or carries a velocity (a kinematic body's).
pub fn may_move(inv_mass: f32, v: [f32; 2]) -> bool {
    inv_mass != 0.0 || v != [0.0, 0.0]
}

/// `v += g h; p += v h` for every point that is not pinned, `g` its
/// `gravity_at`. A point of inverse mass 0 is left as it is: a pinned
/// point has no velocity (it is packed at rest, and nothing gives it any),
/// a kinematic body's point the velocity `move_bodies` posed it with, a
/// sleeping point none.
pub fn integrate(
    sim: &SimParams,
    info: &[PointInfo],
    planets: &[PlanetInfo],
    gravity_scale: &[f32],
    pos: &mut [[f32; 2]],
    vel: &mut [[f32; 2]],
    parallel: bool,
) {
    let n = sim.num_points as usize;
    par::zip_mut(parallel, &mut pos[..n], &mut vel[..n], |i, p, v| {
        if info[i].inv_mass == 0.0 {
            return;
        }
        let g = gravity_at(sim, planets, gravity_scale[i], v2(*p));
        let nv = v2(*v) + g * sim.h;
        *p = (v2(*p) + nv * sim.h).to_array();
        *v = nv.to_array();
    });
}
