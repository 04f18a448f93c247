//! The GPU path: state in storage buffers, one compute kernel per stage.
//!
//! Each stage has a WGSL file in `shaders/`, a pipeline wrapper here with the
//! same name, and a CPU mirror in [`crate::cpu`]. [`GpuSolver`] owns the
//! buffers and pipelines, never the device: it takes the caller's device and
//! queue and records steps into the caller's command encoder.

mod body_collide;
mod broad_phase;
mod buffers;
mod collide;
mod commands;
mod contact_buffers;
mod context;
mod events;
mod impact;
mod integrate;
mod move_bodies;
mod move_colliders;
mod placed;
mod query;
mod remap_contacts;
mod rods;
pub mod shaders;
mod shape_match;
mod sleep;
mod solver;
mod springs;
mod terrain;

pub use body_collide::{ContactKernels, GridBuild, NarrowWalk, PointDispatch};
pub use buffers::{ANCHOR_BYTES, Buffers, STATE_BYTES, deinterleave, interleave};
pub use context::{
    GpuContext, adapter_summary, instance_flags, quiet_display_probe, request_device,
};
pub use remap_contacts::map_words;
pub use solver::{
    ContactGrid, EditReport, GpuSolver, Pending, PendingBodies, PendingBox, PendingEvents,
    PendingRays, PendingState, Stage, StageTimes, State, read_buffer,
};

use crate::error::WorldError;
use crate::layout::LARGE_BODY_THREADS;

/// The least limits the solver's kernels need: wgpu's downlevel defaults
/// (so a 2048-pixel texture limit, among others) raised where the kernels
/// need more, notably 16 storage buffers per shader stage for the
/// body-contact kernels, twice WebGPU's default of 8 (a world without body
/// contacts needs only 8, [`STORAGE_BUFFERS_WITHOUT_CONTACTS`]). These are
/// the solver's minimums, not a renderer's: combine them with your own
/// needs when requesting a device (e.g. `.using_resolution(adapter.limits())`
/// for render targets as large as the adapter allows, as
/// `examples/embed.rs` does), and raise the buffer-size limits for large
/// worlds.
pub fn required_limits() -> wgpu::Limits {
    wgpu::Limits {
        // The body-contact narrow phase binds 16 storage buffers.
        max_storage_buffers_per_shader_stage: 16,
        max_compute_workgroup_size_x: LARGE_BODY_THREADS,
        max_compute_invocations_per_workgroup: LARGE_BODY_THREADS,
        // The large-body reduction: 256 x (3 vec4 + 1 f32).
        max_compute_workgroup_storage_size: LARGE_BODY_THREADS * 52,
        ..wgpu::Limits::downlevel_defaults()
    }
}

/// Storage buffers per stage the kernels need without body-body contacts
/// (WebGPU's default); [`required_limits`] asks for what the contact
/// kernels need.
pub const STORAGE_BUFFERS_WITHOUT_CONTACTS: u32 = 8;

/// Whether `device` has the storage buffers per stage that the body-contact
/// kernels need ([`required_limits`]).
pub(crate) fn can_run_contacts(device: &wgpu::Device) -> bool {
    device.limits().max_storage_buffers_per_shader_stage
        >= required_limits().max_storage_buffers_per_shader_stage
}

/// Checks a device against [`required_limits`]; a world without body-body
/// contacts (`contacts` false) needs only
/// [`STORAGE_BUFFERS_WITHOUT_CONTACTS`] storage buffers per stage.
pub fn check_device_limits(device: &wgpu::Device, contacts: bool) -> Result<(), SolverError> {
    let have = device.limits();
    let mut need = required_limits();
    if !contacts {
        need.max_storage_buffers_per_shader_stage = STORAGE_BUFFERS_WITHOUT_CONTACTS;
    }
    let checks = [
        (
            "max_storage_buffers_per_shader_stage",
            need.max_storage_buffers_per_shader_stage,
            have.max_storage_buffers_per_shader_stage,
        ),
        (
            "max_compute_workgroup_size_x",
            need.max_compute_workgroup_size_x,
            have.max_compute_workgroup_size_x,
        ),
        (
            "max_compute_invocations_per_workgroup",
            need.max_compute_invocations_per_workgroup,
            have.max_compute_invocations_per_workgroup,
        ),
        (
            "max_compute_workgroup_storage_size",
            need.max_compute_workgroup_storage_size,
            have.max_compute_workgroup_storage_size,
        ),
    ];
    for (limit, required, available) in checks {
        if available < required {
            return Err(SolverError::DeviceLimit {
                limit,
                required: required as u64,
                available: available as u64,
            });
        }
    }
    Ok(())
}

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
    /// The device's limits are below what the kernels need; request at
    /// least [`required_limits`].
    #[error(
        "device limit {limit} is {available}, the solver needs at least {required}; request softbody::gpu::required_limits()"
    )]
    DeviceLimit {
        limit: &'static str,
        required: u64,
        available: u64,
    },
    /// Reading a buffer back failed.
    #[error("reading back from the GPU failed: {0}")]
    Readback(String),
    /// A solver was given a device or queue other than the ones it was
    /// created with (its buffers and pipelines live on those; without this
    /// check wgpu panics deep inside). wgpu tells devices apart by their id
    /// within one `wgpu::Instance`: a device of another instance can carry
    /// the same id, and is not caught.
    #[error(
        "{call}: the {what} given is not the one the solver was created with; a solver's buffers live on its own device"
    )]
    WrongDevice {
        call: &'static str,
        what: &'static str,
    },
}
