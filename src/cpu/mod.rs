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
