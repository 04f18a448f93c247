//! Drawing a world straight from the solver's buffers (feature `render`).
//!
//! The vertex shaders bind the [`GpuSolver`](crate::gpu::GpuSolver)'s
//! positions, velocities and body memberships as storage buffers, as wgpu's
//! boids example binds its compute output: no per-frame copy through the
//! CPU. What does not move (which members outline and fill each body, a
//! colour per body, the springs' ends, the static colliders) is a
//! [`Topology`], built once per upload from the [`World`](crate::World).
//!
//! Layers, bottom to top: grid, half-planes, planets, body fills with their
//! outlines, springs, points, the mouse spring. Rendering interpolates
//! between the previous and the current step on the GPU
//! ([`Renderer::snapshot_previous`], [`FrameView::alpha`]).
//!
//! Headless: [`render_png`] simulates and writes a PNG; [`render_image`]
//! draws a bound scene into an [`RgbaImage`].
//!
//! ```no_run
//! use softbody::render::{RenderOptions, render_png};
//!
//! let world = softbody::scenes::default_scene(2000)?;
//! render_png(&world, 120, (1280, 800), "frame.png".as_ref(), &RenderOptions::default())?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod camera;
mod interact;
mod offscreen;
mod renderer;
pub mod shaders;
mod topology;

use std::path::Path;

pub use camera::{Camera, ZOOM_RANGE, scene_bounds};
pub use interact::{
    DRAG_DAMPING, DRAG_STIFFNESS, DragParams, Dragger, PickQuery, PickResult, Picker,
};
pub use offscreen::{
    OFFSCREEN_FORMAT, RenderOptions, RgbaImage, render_image, render_png, simulate_and_render,
};
pub use renderer::{ColorMode, DrawOptions, FrameView, NONE, Renderer, ViewUniform};
pub use topology::{
    BodyKind, EAR_CLIP_MAX_POINTS, OUTLINE_EDGE, SpringLine, Topology, outline, triangulate,
};

use crate::error::WorldError;
use crate::gpu::SolverError;

/// What can go wrong when rendering.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The world, the device or the solver.
    #[error(transparent)]
    Solver(#[from] SolverError),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// A PNG could not be encoded or decoded.
    #[error("{path}: {message}")]
    Png { path: String, message: String },
    /// An image size of zero or above the device's texture limit.
    #[error("image size {width}x{height} is not between 1x1 and the device's limit of {max}")]
    BadSize { width: u32, height: u32, max: u32 },
    /// A format the renderer cannot handle.
    #[error("{0}")]
    Format(String),
    /// Reading the image back from the GPU failed.
    #[error("reading the image back from the GPU failed: {0}")]
    Readback(String),
    /// A sample count other than 1 or 4 (the counts WebGPU guarantees for
    /// every renderable format; wgpu panics on others it lacks).
    #[error("{0} samples per pixel: 1, or 4 for anti-aliasing")]
    Msaa(u32),
    /// A topology that does not describe the solver's world.
    #[error("the topology does not fit the solver: {0}")]
    Topology(String),
    /// The solver was edited (`sync`, `apply_removal`) since its scene was
    /// set: call `Renderer::set_scene` again with a new `Topology`.
    #[error(
        "the solver was edited since Renderer::set_scene (edit generation {bound}, now {now}): set the scene again with a new Topology"
    )]
    StaleScene { bound: u64, now: u64 },
    /// A camera that cannot draw: zoom not finite and positive, or a
    /// centre not finite.
    #[error("camera: {0}")]
    BadCamera(String),
    /// The state went non-finite (NaN or infinite) while simulating ahead
    /// of the render (found where the camera is fitted to the state, with
    /// no camera given).
    #[error(
        "the simulation diverged: the state is not finite (NaN or infinite) after {steps} steps"
    )]
    Diverged { steps: u32 },
}

impl From<WorldError> for RenderError {
    fn from(e: WorldError) -> Self {
        RenderError::Solver(SolverError::World(e))
    }
}

impl RenderError {
    fn io(path: &Path, source: std::io::Error) -> Self {
        RenderError::Io {
            path: path.display().to_string(),
            source,
        }
    }

    fn png(path: &Path, e: impl std::fmt::Display) -> Self {
        RenderError::Png {
            path: path.display().to_string(),
            message: e.to_string(),
        }
    }
}
