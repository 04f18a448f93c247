//! # softbody
//!
//! A 2-D point-mass soft-body engine whose whole simulation runs in WGSL
//! compute kernels (wgpu), with a plain-Rust CPU reference path that mirrors
//! every kernel.
//!
//! Build a [`World`] (points, springs, shape-matched bodies, planets and
//! half-planes), then step it with [`gpu::GpuSolver`] on your own device and
//! queue, or with [`cpu::CpuSolver`]. The physics, with the seed each formula
//! comes from, is written down in `docs/physics.md`.

#[cfg(feature = "window")]
pub mod app;
pub mod cpu;
pub mod error;
pub mod gpu;
pub mod layout;
pub mod pack;
pub mod params;
#[cfg(feature = "render")]
pub mod render;
pub mod scenes;
pub mod shapes;
pub mod world;

pub use error::{Item, WorldError};
pub use glam::Vec2;
pub use params::Params;
pub use world::*;

/// The types most programs need.
pub mod prelude {
    pub use crate::cpu::CpuSolver;
    pub use crate::gpu::{GpuContext, GpuSolver, SolverError};
    pub use crate::shapes::*;
    pub use crate::world::*;
    pub use crate::{Params, Vec2, WorldError};
}
