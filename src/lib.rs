//! # softbody
//!
//! A 2-D point-mass soft-body engine whose whole simulation runs in WGSL
//! compute kernels (wgpu), with a plain-Rust CPU reference path that mirrors
//! every kernel.
//!
//! Build a [`World`] (points, springs, shape-matched bodies, planets and
//! half-planes), by hand, with the builders of [`shapes`], or from a JSON
//! scene file ([`scene`], cargo feature `scene`), then step it with
//! [`gpu::GpuSolver`] on your own device and queue, or with
//! [`cpu::CpuSolver`]. Change it while it runs with the solvers' `sync`,
//! `apply_removal` and `move_pinned_point`; save and resume runs exactly
//! with [`checkpoint`]. The physics, with the source of each formula,
//! is written down in `docs/physics.md`.
//!
//! ## Embedding in your own renderer
//!
//! The solver never owns the device: it is created from your
//! `wgpu::Device` and `wgpu::Queue` (request them with at least
//! [`gpu::required_limits`]), records its compute passes into your
//! `wgpu::CommandEncoder`, and hands out its buffers for your pipelines to
//! read, so nothing comes back to the CPU between frames:
//!
//! | buffer | WGSL type | usages | what |
//! |---|---|---|---|
//! | [`state_buffer`](gpu::GpuSolver::state_buffer) | `array<vec4<f32>>` | STORAGE, VERTEX, COPY_SRC, COPY_DST | per point: position (m) in `xy`, velocity (m/s) in `zw` |
//! | [`frames_buffer`](gpu::GpuSolver::frames_buffer) | `array<BodyFrame>` ([`layout::BodyFrame`], 32 bytes) | STORAGE, COPY_SRC | each body's transform: centroid, velocity, rotation `(cos, sin)`, angular velocity |
//! | [`spring_index_buffer`](gpu::GpuSolver::spring_index_buffer) | `array<u32>` | INDEX, STORAGE, COPY_SRC | line list of the springs' points (made on first request) |
//! | [`body_edge_index_buffer`](gpu::GpuSolver::body_edge_index_buffer) | `array<u32>` | INDEX, STORAGE, COPY_SRC | line list of the bodies' outlines (made on first request) |
//! | [`bodies_buffer`](gpu::GpuSolver::bodies_buffer), [`members_buffer`](gpu::GpuSolver::members_buffer) | [`layout`] structs | STORAGE | the bodies themselves: each body's member range; members' rest offsets, point indices and weights |
//! | [`colliders_buffer`](gpu::GpuSolver::colliders_buffer) | `Colliders` ([`layout::Colliders`]) | UNIFORM | planets and half-planes |
//!
//! Buffers can hold more than the world (an edit that outgrows one grows it
//! to at least double, and a removal leaves the tail unused): size draws
//! and dispatches by `num_points()`, `num_bodies()`,
//! `spring_index_count()` and `body_edge_index_count()`, not by a buffer's
//! size or WGSL's `arrayLength`.
//!
//! The state is valid between steps; as a vertex buffer its stride is
//! [`gpu::STATE_BYTES`] (16), positions at offset 0, velocities at 8. An edit that outgrows
//! the buffers replaces them and bumps
//! [`buffer_generation`](gpu::GpuSolver::buffer_generation): rebuild your
//! bind groups when it changes. Every edit (a `sync` or `apply_removal`
//! that went through) bumps
//! [`edit_generation`](gpu::GpuSolver::edit_generation): counts such as
//! `num_points` and what you derived from the world (the `render` module's
//! `Topology` and scene) are then another world's. `examples/embed.rs` is
//! a complete renderer of its own (device, pipelines, WGSL) drawing points,
//! springs, outlines and body frames from these buffers; the core of it:
//!
//! ```
//! use softbody::prelude::*;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let Ok(ctx) = GpuContext::new_headless() else { return Ok(()) };
//! # let (device, queue) = (&ctx.device, &ctx.queue);
//! // `device` and `queue` are yours.
//! let mut world = World::default();
//! world.add_plane(HalfPlane::floor(0.0))?;
//! BoxGrid::new(3, 2, Vec2::splat(0.5)).center(Vec2::new(0.0, 3.0)).build(&mut world)?;
//! let mut solver = GpuSolver::new(device, queue, &world)?;
//!
//! // Your pipeline's layout, with the solver's positions as a storage buffer
//! // in the vertex stage (they are also a vertex buffer).
//! let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
//!     label: Some("particles"),
//!     entries: &[wgpu::BindGroupLayoutEntry {
//!         binding: 0,
//!         visibility: wgpu::ShaderStages::VERTEX,
//!         ty: wgpu::BindingType::Buffer {
//!             ty: wgpu::BufferBindingType::Storage { read_only: true },
//!             has_dynamic_offset: false,
//!             min_binding_size: None,
//!         },
//!         count: None,
//!     }],
//! });
//! let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
//!     label: Some("particles"),
//!     layout: &layout,
//!     entries: &[wgpu::BindGroupEntry {
//!         binding: 0,
//!         resource: solver.state_buffer().as_entire_binding(),
//!     }],
//! });
//!
//! // Every frame: the step goes into your encoder, before your render pass.
//! let mut encoder = device.create_command_encoder(&Default::default());
//! solver.record_step(&mut encoder);
//! // ... begin your render pass, set_bind_group(0, &bind_group, &[]), and
//! // e.g. set_vertex_buffer(0, solver.state_buffer().slice(..)) (stride 16) with
//! // set_index_buffer(solver.spring_index_buffer().slice(..), Uint32) and
//! // draw_indexed(0..solver.spring_index_count(), 0, 0..1) for the springs.
//! queue.submit([encoder.finish()]);
//! # drop(bind_group);
//! # Ok(())
//! # }
//! ```
//!
//! ## Cargo features
//!
//! | feature | adds | dependencies |
//! |---|---|---|
//! | `scene` | [`scene`]: JSON scene files | serde, serde_json, serde_path_to_error |
//! | `cli` (default) | the `softbody` program | clap, indicatif, env_logger, and `scene` |
//! | `parallel` (default) | the CPU reference on all cores, bitwise identical to one | rayon |
//! | `render` | `render`: offscreen drawing from the solver's buffers, PNG | png |
//! | `window` (default) | `app`: the window program, and `render` | winit, egui, egui-winit, egui-wgpu |
//!
//! With `default-features = false` the library depends on wgpu, glam and
//! bytemuck, plus three small crates: pollster (to block on wgpu's futures
//! in [`gpu::GpuContext::new_headless`] and read-backs), thiserror (the
//! error types) and log (stability warnings).

#[cfg(feature = "window")]
pub mod app;
pub mod checkpoint;
pub mod commands;
pub mod cpu;
pub mod diagnostics;
pub mod error;
pub mod events;
pub mod files;
mod fnv;
pub mod frequency;
pub mod gpu;
pub mod layout;
pub mod measure;
pub mod pack;
pub mod params;
pub mod query;
#[cfg(feature = "render")]
pub mod render;
pub mod samples;
#[cfg(feature = "scene")]
pub mod scene;
pub mod scenes;
pub mod shapes;
pub mod ship;
pub mod solver;
mod validate;
pub mod world;

pub use error::{Item, WorldError};
pub use frequency::Frequency;
pub use glam::Vec2;
pub use params::Params;
pub use world::*;

/// The types most programs need.
pub mod prelude {
    pub use crate::cpu::CpuSolver;
    pub use crate::gpu::{GpuContext, GpuSolver, SolverError};
    pub use crate::shapes::*;
    pub use crate::world::*;
    pub use crate::{Frequency, Params, Vec2, WorldError};
}
