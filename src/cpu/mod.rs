//! The CPU reference path: one function per GPU kernel, same name, same
//! formulas, same order of operations and of summation, in plain f32 Rust.
//!
//! It is the oracle the GPU is checked against (tests/gpu_vs_cpu.rs), and is
//! itself checked against closed-form physics (tests/physics.rs). Every stage
//! works on the flat arrays of [`Packed`](crate::pack::Packed), like a kernel
//! on its bindings, and reads its inputs from the state at the start of the
//! stage (Jacobi), so the order in which items are visited never matters.

pub mod body_collide;
pub mod broad_phase;
mod collide;
mod integrate;
mod par;
mod rods;
pub mod shape_match;
mod solver;
mod springs;

pub use collide::collide;
pub use integrate::integrate;
pub use rods::rods;
pub use solver::CpuSolver;
pub use springs::springs;

use glam::Vec2;

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

/// Restitution and Coulomb friction at a contact (WGSL `coulomb`): the
/// relative velocity has the normal part `vn` (negative approaching) and a
/// tangential part of length `vt_len`. An approach faster than `threshold`
/// is reflected with elasticity `e`, a slower one stopped; the normal
/// velocity change `dvn` bounds the friction: within the static cone
/// (`vt_len <= mu_s dvn`) the tangential velocity stops, else it loses
/// `mu_k dvn`. `dvn` is at least `push`, the speed of the contact's
/// push-out (`depth / h`): a resting contact held by its push alone still
/// has friction. Returns the new normal velocity and the fraction of the
/// tangential velocity kept.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn coulomb(
    vn: f32,
    vt_len: f32,
    push: f32,
    e: f32,
    mu_s: f32,
    mu_k: f32,
    threshold: f32,
) -> (f32, f32) {
    let mut vn_after = vn;
    if vn < 0.0 {
        vn_after = 0.0;
        if vn < -threshold {
            vn_after = -e * vn;
        }
    }
    let dvn = (vn_after - vn).max(push);
    let mut keep = 0.0;
    if vt_len > mu_s * dvn {
        keep = (1.0 - mu_k * dvn / vt_len).max(0.0);
    }
    (vn_after, keep)
}
