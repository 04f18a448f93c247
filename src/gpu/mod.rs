//! The GPU path: state in storage buffers, one compute kernel per stage.
//!
//! Each stage has a WGSL file in `shaders/`, a pipeline wrapper here with the
//! same name, and a CPU mirror in [`crate::cpu`]. [`GpuSolver`] owns the
//! buffers and pipelines, never the device: it takes the caller's device and
//! queue and records steps into the caller's command encoder.

mod buffers;
mod collide;
mod context;
mod integrate;
mod rods;
pub mod shaders;
mod shape_match;
mod solver;
mod springs;

pub use buffers::Buffers;
pub use context::{GpuContext, adapter_summary, request_device};
pub use solver::{GpuSolver, Stage, State, read_buffer};

use crate::error::WorldError;

/// What can go wrong on the GPU path.
#[derive(Debug, thiserror::Error)]
pub enum SolverError {
    /// The world itself is invalid.
    #[error(transparent)]
    World(#[from] WorldError),
    /// No adapter was found.
    #[error("no GPU adapter found: {0}")]
    NoAdapter(String),
    /// The adapter refused the device.
    #[error("could not create a device: {0}")]
    RequestDevice(String),
    /// A buffer would exceed the device's limits.
    #[error(
        "{buffer} needs {bytes} bytes, more than the device's limit of {limit} bytes ({limit_name})"
    )]
    TooLarge {
        buffer: &'static str,
        bytes: u64,
        limit: u64,
        limit_name: &'static str,
    },
    /// Reading a buffer back failed.
    #[error("reading back from the GPU failed: {0}")]
    Readback(String),
}
