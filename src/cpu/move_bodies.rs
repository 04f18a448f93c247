//! Stage 0b of a substep in worlds with kinematic bodies, mirror of
//! `shaders/move_bodies.wgsl`: each kinematic body posed at the substep's
//! end, a rigid body in its rest shape moving at the velocity and spin its
//! points have (docs/physics.md, "Kinematic bodies").

use glam::Vec2;

use super::commands::reduce;
use super::v2;
use crate::layout::{BodyInfo, Member, SimParams};

/// Poses every body of `kinematic` (body indices) for the substep's end.
pub fn move_bodies(
    sim: &SimParams,
    kinematic: &[u32],
    bodies: &[BodyInfo],
    members: &[Member],
    pos: &mut [[f32; 2]],
    vel: &mut [[f32; 2]],
) {
    for &b in kinematic {
        let body = &bodies[b as usize];
        let members = &members[body.first as usize..(body.first + body.count) as usize];
        move_body(sim.h, members, pos, vel);
    }
}

/// `a` turned by the rotation `(cos, sin)` in `r`.
fn turn(r: Vec2, a: Vec2) -> Vec2 {
    Vec2::new(r.x * a.x - r.y * a.y, r.y * a.x + r.x * a.y)
}

/// WGSL `move_body`: the body's motion and pose from its members
/// (weighted by their shape-matching weights): the centre `c`, the mean
/// velocity `u`, the best-fit rotation `R` from rest and the spin
/// `w = sum m d x v / sum m |d|^2` (`d = x - c`); then every member at
/// `c + u h + R(w h) R q` with the velocity `u + w x (R(w h) R q)`. A body
/// whose points are all at rest is left as it is.
fn move_body(h: f32, members: &[Member], pos: &mut [[f32; 2]], vel: &mut [[f32; 2]]) {
    let count = members.len() as u32;
    let first = reduce(count, |j| {
        let m = &members[j as usize];
        let (x, v) = (v2(pos[m.point as usize]), v2(vel[m.point as usize]));
        [
            m.weight,
            m.weight * x.x,
            m.weight * x.y,
            m.weight * v.dot(v),
        ]
    });
    if first[3] == 0.0 || first[0] <= 0.0 {
        return;
    }
    let c = Vec2::new(first[1], first[2]) / first[0];
    let second = reduce(count, |j| {
        let m = &members[j as usize];
        let (x, v) = (v2(pos[m.point as usize]), v2(vel[m.point as usize]));
        let (d, q) = (x - c, v2(m.rest));
        [
            m.weight * v.x,
            m.weight * v.y,
            m.weight * q.perp_dot(d),
            m.weight * q.dot(d),
        ]
    });
    let third = reduce(count, |j| {
        let m = &members[j as usize];
        let (x, v) = (v2(pos[m.point as usize]), v2(vel[m.point as usize]));
        let d = x - c;
        [m.weight * d.perp_dot(v), m.weight * d.dot(d), 0.0, 0.0]
    });
    let u = Vec2::new(second[0], second[1]) / first[0];
    let fit = Vec2::new(second[3], second[2]);
    let r = if fit.length() > 0.0 {
        fit / fit.length()
    } else {
        Vec2::X
    };
    let w = if third[1] > 0.0 {
        third[0] / third[1]
    } else {
        0.0
    };
    let (s, co) = (w * h).sin_cos();
    let r = turn(Vec2::new(co, s), r);
    let center = c + u * h;
    for m in members {
        let d = turn(r, v2(m.rest));
        pos[m.point as usize] = (center + d).to_array();
        vel[m.point as usize] = (u + w * d.perp()).to_array();
    }
}
