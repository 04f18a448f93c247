//! The CPU reference path: one function per GPU kernel, same name, same
//! formulas, same order of operations and of summation, in plain f32 Rust.
//!
//! It is the oracle the GPU is checked against (tests/stages/, a module per stage), and is
//! itself checked against closed-form physics (the same modules). Every stage
//! works on the flat arrays of [`Packed`](crate::pack::Packed), like a kernel
//! on its bindings, and reads its inputs from the state at the start of the
//! stage (Jacobi), so the order in which items are visited never matters.

pub mod body_collide;
pub mod broad_phase;
mod collide;
pub mod commands;
pub mod events;
pub mod impact;
mod integrate;
pub mod move_bodies;
pub mod move_colliders;
mod par;
pub mod query;
pub use par::MIN_PARALLEL_ITEMS;
mod rods;
pub mod shape_match;
pub mod sleep;
mod solver;
mod springs;
pub mod terrain;

pub use collide::collide;
pub use integrate::integrate;
pub use rods::rods;
pub use solver::CpuSolver;
pub use springs::springs;

use glam::Vec2;

use crate::layout::{RESTING_SLOP, SKIN_PUSH_SHARE, SimParams};

/// Squared distance below which two points count as coincident (WGSL `TINY_DIST2`).
pub const TINY_DIST2: f32 = 1e-24;

/// Unit direction of `d` (whose length is `dist`), or +x when `d` is
/// (nearly) zero: never NaN. Mirrors WGSL `safe_dir`.
#[inline]
pub fn safe_dir(d: Vec2, dist: f32) -> Vec2 {
    if dist * dist > TINY_DIST2 {
        d / dist
    } else {
        Vec2::X
    }
}

#[inline]
pub(crate) fn v2(a: [f32; 2]) -> Vec2 {
    Vec2::from_array(a)
}

/// 2-D cross product (WGSL `cross2`).
#[inline]
pub fn cross2(a: Vec2, b: Vec2) -> f32 {
    a.x * b.y - a.y * b.x
}

/// `a` rotated by +90 degrees (WGSL `perp`).
#[inline]
pub fn perp(a: Vec2) -> Vec2 {
    Vec2::new(-a.y, a.x)
}

/// The material of one contact (WGSL `ContactMaterial`): elasticity, the
/// Coulomb coefficients, and the viscous decay factor `exp(-friction h)`
/// of one substep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactMaterial {
    pub elasticity: f32,
    pub static_friction: f32,
    pub dynamic_friction: f32,
    pub decay: f32,
}

/// The restitution threshold of a point's contact at `depth` along `n`
/// (with a collider, another body's outline or another free point), the
/// point moving at `vrel` relative to the other side after this substep's
/// motion (WGSL `contact_threshold`): a contact that persists, the point
/// having stood within [`RESTING_SLOP`] radii of the contact at the
/// substep's start (its depth then, `depth + (vrel . n) h`), bounces at no
/// speed, so that a point its own body presses into the ground or into a
/// neighbour is stopped rather than thrown back every substep.
#[inline]
pub fn contact_threshold(sim: &SimParams, vrel: Vec2, n: Vec2, depth: f32) -> f32 {
    if depth + vrel.dot(n) * sim.h > -RESTING_SLOP * sim.point_radius {
        f32::MAX
    } else {
        sim.restitution_threshold
    }
}

/// The depth a contact pushes out in this substep (WGSL `push_depth`;
/// docs/physics.md, "Deep overlaps"): all of it, unless the point was
/// more than `slop` (the point radius for a collider,
/// [`BODY_PUSH_SLOP`](crate::layout::BODY_PUSH_SLOP) radii for a body's
/// outline) or a push speed's step deep at the substep's start
/// (`depth + (vrel . n) h`, as in [`contact_threshold`]); then only
/// toward that depth less the step (`push_speed h`: `SimParams::push_speed`
/// for a collider, `body_push_speed` for one body contact pass), so that a
/// body placed inside a collider or another body leaves it at the push
/// speed instead of being flung out by its shape's springs.
#[inline]
pub fn push_depth(
    sim: &SimParams,
    (vrel, n): (Vec2, Vec2),
    depth: f32,
    slop: f32,
    push_speed: f32,
) -> f32 {
    let before = depth + vrel.dot(n) * sim.h;
    let step = push_speed * sim.h;
    if before <= slop.max(step) {
        depth
    } else {
        (depth - before + step).max(0.0)
    }
}

/// The depth a collider's contact pushes out in this substep, and whether
/// the point is still being lifted out of the collider's skin (WGSL
/// `collider_push`; docs/physics.md, "Bodies built on colliders"). A
/// settled point follows [`push_depth`] (slop the point radius, the push
/// speed). One that has not (`placed`: no
/// [`WARM_SETTLED`](crate::layout::WARM_SETTLED)) and stood more than a
/// skin step `SKIN_PUSH_SHARE push_speed h` deep at the substep's start
/// is pushed toward that depth less the skin step, or less the push
/// speed's step where that leaves it deeper, and is reported in the skin
/// ([`WARM_SKIN`](crate::layout::WARM_SKIN)); from a skin step or less,
/// all of it.
#[inline]
pub fn collider_push(
    sim: &SimParams,
    (vrel, n): (Vec2, Vec2),
    depth: f32,
    placed: bool,
) -> (f32, bool) {
    if !placed {
        let push = push_depth(sim, (vrel, n), depth, sim.point_radius, sim.push_speed);
        return (push, false);
    }
    let before = depth + vrel.dot(n) * sim.h;
    let slow = SKIN_PUSH_SHARE * sim.push_speed * sim.h;
    if before <= slow {
        return (depth, false);
    }
    let fast = sim.push_speed * sim.h;
    let target = (before - fast)
        .max(before.min(sim.point_radius) - slow)
        .max(0.0);
    ((depth - target).max(0.0), true)
}

/// Restitution and friction at a contact (WGSL `contact_response`;
/// docs/physics.md, "Friction and restitution"): the relative velocity
/// `vrel` of the side pushed along `n`, `depth` to push out, substep `h`,
/// restitution threshold `threshold`. Returns the change of the relative
/// velocity and the relative position change friction asks for.
///
/// An approach faster than `threshold` is reflected with the elasticity,
/// a slower one stopped. The normal impulse per unit mass `dvn`, the
/// normal velocity change or the push-out speed `depth / h` where that is
/// more, bounds Coulomb friction: within the static cone
/// (`|vt| <= mu_s dvn`) the tangential velocity stops, else it loses
/// `mu_k dvn`; the drift this substep made with what friction removed is
/// taken back. Then the viscous decay (Lisitsa 2023).
#[inline]
pub fn contact_response(
    vrel: Vec2,
    n: Vec2,
    depth: f32,
    m: &ContactMaterial,
    h: f32,
    threshold: f32,
) -> (Vec2, Vec2) {
    let vn = vrel.dot(n);
    let vt = vrel - n * vn;
    let mut vn_after = vn;
    if vn < 0.0 {
        vn_after = 0.0;
        if vn < -threshold {
            vn_after = -m.elasticity * vn;
        }
    }
    let dvn = (vn_after - vn).max(depth / h);
    let vt_len = vt.length();
    let mut keep = 0.0;
    if vt_len > m.static_friction * dvn {
        keep = (1.0 - m.dynamic_friction * dvn / vt_len).max(0.0);
    }
    let vt_kept = vt * keep;
    (
        n * (vn_after - vn) + (vt_kept * m.decay - vt),
        (vt_kept - vt) * h,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A point not yet settled is lifted out of a collider's skin a skin
    /// step a substep (and noted in it), from deeper than the point
    /// radius at the push speed first, and is pushed whole within a skin
    /// step of the surface; a settled one follows `push_depth`; no push
    /// leaves a point outside the surface, whatever the radius.
    #[test]
    fn collider_push_lifts_unsettled_points_out_of_the_skin_slowly() {
        let sim = SimParams {
            h: 1.0 / 480.0,
            point_radius: 0.02,
            push_speed: 3.0,
            ..SimParams::default()
        };
        let (slow, fast) = (
            sim.push_speed * SKIN_PUSH_SHARE * sim.h,
            sim.push_speed * sim.h,
        );
        let (n, rest) = (Vec2::Y, Vec2::ZERO);
        let close = |a: f32, b: f32| (a - b).abs() < 1e-7;
        // In the skin, at rest: a skin step, noted.
        let (d, skin) = collider_push(&sim, (rest, n), 0.02, true);
        assert!(close(d, slow) && skin, "{d}");
        // Settled: all of it.
        assert_eq!(collider_push(&sim, (rest, n), 0.02, false), (0.02, false));
        // Within a skin step: all of it, not noted.
        assert_eq!(
            collider_push(&sim, (rest, n), 0.5 * slow, true),
            (0.5 * slow, false)
        );
        // Sinking this substep: what it sank, plus the skin step.
        let sinking = Vec2::new(0.0, -0.1);
        let (d, _) = collider_push(&sim, (sinking, n), 0.01 + 0.1 * sim.h, true);
        assert!(close(d, 0.1 * sim.h + slow), "{d}");
        // Deep: at the push speed, down to the radius less a skin step.
        let (d, skin) = collider_push(&sim, (rest, n), 0.3, true);
        assert!(close(d, fast) && skin, "{d}");
        let (d, _) = collider_push(&sim, (rest, n), 0.021, true);
        assert!(close(d, 0.001 + slow), "{d}");
        // No radius: never out past the surface.
        let bare = SimParams {
            point_radius: 0.0,
            ..sim
        };
        let (d, _) = collider_push(&bare, (rest, n), 0.5 * fast, true);
        assert!(d <= 0.5 * fast, "{d}");
    }
}
