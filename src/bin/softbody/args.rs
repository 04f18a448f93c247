//! The command line: every subcommand's options and their parsers.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use softbody::scenes::MAX_DEFAULT_SCENE_BODIES;

#[derive(Parser)]
#[command(
    name = "softbody",
    version,
    about = "A 2-D soft-body engine on the GPU. Without a subcommand: the window on the built-in default scene (or, built without the `window` feature, a headless run of it).",
    args_conflicts_with_subcommands = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    #[command(flatten)]
    pub(crate) default: DefaultArgs,
}

/// The options of `softbody` without a subcommand: the window on the
/// default scene (feature `window`), else a headless run of it.
#[derive(Args, Clone, Debug)]
pub(crate) struct DefaultArgs {
    /// Bodies in the default scene (default 20,000 in the window, 2,000
    /// headless).
    #[arg(long, value_parser = bodies)]
    pub(crate) bodies: Option<usize>,
    #[cfg(feature = "window")]
    #[command(flatten)]
    pub(crate) window: WindowArgs,
    /// Steps to simulate (1/60 s each by default).
    #[cfg(not(feature = "window"))]
    #[arg(long, default_value_t = 600)]
    pub(crate) steps: u64,
    /// Where to run the simulation.
    #[cfg(not(feature = "window"))]
    #[arg(long, value_enum, default_value_t = Backend::Gpu)]
    pub(crate) backend: Backend,
}

pub(crate) const DEFAULT_BODIES: usize = 2000;

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Simulate a scene headless; write the final state, a trace and checkpoints.
    ///
    /// Outputs are checked before the run: no two may name the same file,
    /// nor --scene or --load-state. Symbolic links are written through; a
    /// FIFO or a device is written in place.
    ///
    /// A state that goes non-finite (NaN or infinite) stops the run at that
    /// report or trace point: the trace and --out are written there,
    /// --save-state is not, and the exit code is 1.
    Simulate(SimulateArgs),
    /// Run a scene on the GPU and the CPU side by side and compare them step by step.
    Check(CheckArgs),
    /// Render a scene after N steps to a PNG (needs the `window` feature).
    Render(RenderArgs),
    /// Open the interactive window (needs the `window` feature).
    Run(RunArgs),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Backend {
    /// The WGSL kernels, on the adapter wgpu picks (WGPU_BACKEND, WGPU_ADAPTER_NAME).
    Gpu,
    /// The CPU reference path, on all cores (bitwise the same as one).
    Cpu,
}

#[derive(Args, Clone, Debug)]
pub(crate) struct SceneArgs {
    /// Scene file (JSON, docs/scene-format.md); without it, the built-in default scene.
    #[arg(long, value_name = "FILE")]
    pub(crate) scene: Option<PathBuf>,
    /// Bodies in the built-in default scene (default 2,000; 20,000 for
    /// `run`, as in the window without a subcommand).
    #[arg(long, conflicts_with = "scene", value_parser = bodies)]
    pub(crate) bodies: Option<usize>,
    /// A built-in sample instead: `ship`, the seed's game (a soft ship
    /// around planets that pull it; in the window the arrow keys fly it).
    #[arg(long, value_enum, conflicts_with_all = ["scene", "bodies"])]
    pub(crate) sample: Option<Sample>,
}

/// The built-in samples `--sample` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Sample {
    /// The seed's game (`softbody::ship`).
    Ship,
}

impl SceneArgs {
    /// `--bodies`, or the headless commands' default.
    pub(crate) fn bodies(&self) -> usize {
        self.bodies.unwrap_or(DEFAULT_BODIES)
    }
}

#[derive(Args, Clone, Debug)]
pub(crate) struct SimulateArgs {
    #[command(flatten)]
    pub(crate) scene: SceneArgs,
    /// Steps to simulate (after the loaded checkpoint, if any).
    #[arg(long, default_value_t = 600)]
    pub(crate) steps: u64,
    /// Where to run the simulation.
    #[arg(long, value_enum, default_value_t = Backend::Gpu)]
    pub(crate) backend: Backend,
    /// Write the final state as JSON: time, step, points (pos, vel), bodies (centroid, angle).
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
    /// Write a CSV trace: energies, momenta and the largest speed.
    #[arg(long, value_name = "FILE")]
    pub(crate) trace: Option<PathBuf>,
    /// One trace row every K steps.
    #[arg(long, value_name = "K", default_value_t = 1, requires = "trace", value_parser = every)]
    pub(crate) every: u64,
    /// Write a checkpoint of the final state (exact, atomic).
    #[arg(long, value_name = "FILE")]
    pub(crate) save_state: Option<PathBuf>,
    /// Start from a checkpoint of the same scene.
    #[arg(long, value_name = "FILE")]
    pub(crate) load_state: Option<PathBuf>,
}

#[derive(Args, Clone, Debug)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub(crate) scene: SceneArgs,
    /// Steps to run on both paths.
    #[arg(long, default_value_t = 300)]
    pub(crate) steps: u64,
    /// Largest position deviation allowed, in the scene's length unit
    /// (distance between the GPU's and the CPU's position of a point).
    /// Default: 5 mm, 5e-3 for a scene in metres, 0.5 for one in
    /// centimetres (`params.length_unit` 100). Contact decisions that
    /// the paths round differently can part them by millimetres within a
    /// step in a pile (docs/cli.md, `check`).
    #[arg(long, value_name = "LENGTH", value_parser = tolerance, allow_negative_numbers = true)]
    pub(crate) tolerance: Option<f32>,
    /// Largest velocity deviation allowed, in the scene's length unit per
    /// second (default: not checked).
    #[arg(long, value_name = "SPEED", value_parser = tolerance, allow_negative_numbers = true)]
    pub(crate) vel_tolerance: Option<f32>,
    /// Every K steps the CPU restarts from the GPU's state (positions,
    /// velocities, warm starts, tangles, sleeping; a checkpoint), so that
    /// what is compared is how far the paths part in K steps; 0: never,
    /// one run from the scene on each path. In a pile a last-bit
    /// difference grows about 1.6 times a step through the contacts, so
    /// over a whole run the paths part however alike their kernels are.
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub(crate) resync: u64,
}

/// Samples per pixel: 1 or 4, the counts WebGPU guarantees for the
/// window's formats (2 and 3 are not, and wgpu would panic on them).
#[cfg(feature = "window")]
pub(crate) fn msaa(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n @ (1 | 4)) => Ok(n),
        Ok(n) => Err(format!("{n}: 1, or 4 for anti-aliasing")),
        Err(e) => Err(e.to_string()),
    }
}

/// `--bodies N`: at most [`MAX_DEFAULT_SCENE_BODIES`], refused before a
/// scene is built (a count near `usize::MAX` would overflow an
/// allocation).
pub(crate) fn bodies(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|e| format!("{e}"))?;
    if n > MAX_DEFAULT_SCENE_BODIES {
        return Err(format!(
            "{n} is more than the default scene's {MAX_DEFAULT_SCENE_BODIES} bodies"
        ));
    }
    Ok(n)
}

/// `--every K`: at least 1.
pub(crate) fn every(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(0) => Err("a row every 0 steps: K must be at least 1".into()),
        Ok(k) => Ok(k),
        Err(e) => Err(e.to_string()),
    }
}

/// A tolerance: a finite number `>= 0`.
pub(crate) fn tolerance(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        Ok(t) => Err(format!("{t} is not a finite number >= 0")),
        Err(e) => Err(e.to_string()),
    }
}

#[derive(Args, Clone, Debug)]
pub(crate) struct RenderArgs {
    #[command(flatten)]
    pub(crate) scene: SceneArgs,
    /// Steps to simulate before rendering.
    #[arg(long, default_value_t = 0)]
    pub(crate) steps: u64,
    /// The PNG to write.
    #[arg(long, value_name = "FILE")]
    pub(crate) out: PathBuf,
    /// Image size in pixels, WxH.
    #[arg(long, default_value = "1280x800", value_parser = parse_size)]
    pub(crate) size: (u32, u32),
}

/// `WxH` in pixels.
pub(crate) fn parse_size(s: &str) -> std::result::Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or(format!("expected WxH, got {s:?}"))?;
    let w: u32 = w.parse().map_err(|e| format!("width: {e}"))?;
    let h: u32 = h.parse().map_err(|e| format!("height: {e}"))?;
    if w == 0 || h == 0 || w > 8192 || h > 8192 {
        return Err(format!("{w}x{h}: each side must be 1..=8192"));
    }
    Ok((w, h))
}

#[derive(Args, Clone, Debug)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    pub(crate) scene: SceneArgs,
    #[cfg(feature = "window")]
    #[command(flatten)]
    pub(crate) window: WindowArgs,
}

/// How the window runs.
#[cfg(feature = "window")]
#[derive(Args, Clone, Debug)]
pub(crate) struct WindowArgs {
    /// Close the window after this many frames (at least 1).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) frames: Option<u64>,
    /// Print the frame rate and simulation time to stderr every few seconds.
    #[arg(long)]
    pub(crate) report: bool,
    /// Present as fast as frames are made (for measuring).
    #[arg(long)]
    pub(crate) no_vsync: bool,
    /// Start with the overlay hidden.
    #[arg(long)]
    pub(crate) no_overlay: bool,
    /// Start paused.
    #[arg(long)]
    pub(crate) paused: bool,
    /// Samples per pixel: 1, or 4 for multisampled anti-aliasing.
    #[arg(long, default_value_t = 1, value_parser = msaa)]
    pub(crate) msaa: u32,
}

#[cfg(feature = "window")]
impl WindowArgs {
    pub(crate) fn options(&self) -> softbody::app::AppOptions {
        softbody::app::AppOptions {
            frames: self.frames,
            report: self.report,
            vsync: !self.no_vsync,
            overlay: !self.no_overlay,
            paused: self.paused,
            msaa: self.msaa,
            ..Default::default()
        }
    }
}
