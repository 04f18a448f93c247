//! `softbody`: the command-line program (cargo feature `cli`).
//!
//! With no subcommand it opens the window on the built-in default scene, or,
//! built without the `window` feature, simulates it headless and prints
//! what happened ([`default_command`]). Subcommands: `simulate`,
//! `check`, and (with the `window` feature) `render` and `run`; see
//! `softbody --help` and README.md.
//!
//! Exit codes: 0 success; 1 failure (no GPU, a GPU error, `check` beyond
//! its tolerance, a simulation whose state went non-finite, a command this
//! build does not have); 2 bad input (usage,
//! scene file, a world the solver refuses, checkpoint of another scene or a
//! damaged one).

use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use softbody::checkpoint::{Checkpoint, CheckpointError};
use softbody::diagnostics::{body_frames, frame_angle, totals};
use softbody::pack::Packed;
use softbody::prelude::*;
use softbody::scene;
use softbody::scenes::{MAX_DEFAULT_SCENE_BODIES, default_scene};
use softbody::solver::Solver;

#[derive(Parser)]
#[command(
    name = "softbody",
    version,
    about = "A 2-D soft-body engine on the GPU. Without a subcommand: the window on the built-in default scene (or, built without the `window` feature, a headless run of it).",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    default: DefaultArgs,
}

/// The options of `softbody` without a subcommand: the window on the
/// default scene (feature `window`), else a headless run of it.
#[derive(Args, Clone, Debug)]
struct DefaultArgs {
    /// Bodies in the default scene (default 20,000 in the window, 2,000
    /// headless).
    #[arg(long, value_parser = bodies)]
    bodies: Option<usize>,
    #[cfg(feature = "window")]
    #[command(flatten)]
    window: WindowArgs,
    /// Steps to simulate (1/60 s each by default).
    #[cfg(not(feature = "window"))]
    #[arg(long, default_value_t = 600)]
    steps: u64,
    /// Where to run the simulation.
    #[cfg(not(feature = "window"))]
    #[arg(long, value_enum, default_value_t = Backend::Gpu)]
    backend: Backend,
}

const DEFAULT_BODIES: usize = 2000;

#[derive(Subcommand)]
enum Command {
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
enum Backend {
    /// The WGSL kernels, on the adapter wgpu picks (WGPU_BACKEND, WGPU_ADAPTER_NAME).
    Gpu,
    /// The CPU reference path (one thread).
    Cpu,
}

#[derive(Args, Clone, Debug)]
struct SceneArgs {
    /// Scene file (JSON, docs/scene-format.md); without it, the built-in default scene.
    #[arg(long, value_name = "FILE")]
    scene: Option<PathBuf>,
    /// Bodies in the built-in default scene (default 2,000; 20,000 for
    /// `run`, as in the window without a subcommand).
    #[arg(long, conflicts_with = "scene", value_parser = bodies)]
    bodies: Option<usize>,
}

impl SceneArgs {
    /// `--bodies`, or the headless commands' default.
    fn bodies(&self) -> usize {
        self.bodies.unwrap_or(DEFAULT_BODIES)
    }
}

#[derive(Args, Clone, Debug)]
struct SimulateArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Steps to simulate (after the loaded checkpoint, if any).
    #[arg(long, default_value_t = 600)]
    steps: u64,
    /// Where to run the simulation.
    #[arg(long, value_enum, default_value_t = Backend::Gpu)]
    backend: Backend,
    /// Write the final state as JSON: time, step, points (pos, vel), bodies (centroid, angle).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write a CSV trace: energies, momenta and the largest speed.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// One trace row every K steps.
    #[arg(long, value_name = "K", default_value_t = 1, requires = "trace", value_parser = every)]
    every: u64,
    /// Write a checkpoint of the final state (exact, atomic).
    #[arg(long, value_name = "FILE")]
    save_state: Option<PathBuf>,
    /// Start from a checkpoint of the same scene.
    #[arg(long, value_name = "FILE")]
    load_state: Option<PathBuf>,
}

#[derive(Args, Clone, Debug)]
struct CheckArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Steps to run on both paths.
    #[arg(long, default_value_t = 300)]
    steps: u64,
    /// Largest position deviation allowed, in metres (distance between the
    /// GPU's and the CPU's position of a point). Contact decisions that
    /// the paths round differently part them by millimetres while bodies
    /// land (1.6 mm in scenes/boxes.json).
    #[arg(long, value_name = "METRES", default_value_t = 5e-3, value_parser = tolerance, allow_negative_numbers = true)]
    tolerance: f32,
    /// Largest velocity deviation allowed, in m/s (default: not checked).
    #[arg(long, value_name = "M/S", value_parser = tolerance, allow_negative_numbers = true)]
    vel_tolerance: Option<f32>,
}

/// Samples per pixel: 1 or 4, the counts WebGPU guarantees for the
/// window's formats (2 and 3 are not, and wgpu would panic on them).
#[cfg(feature = "window")]
fn msaa(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n @ (1 | 4)) => Ok(n),
        Ok(n) => Err(format!("{n}: 1, or 4 for anti-aliasing")),
        Err(e) => Err(e.to_string()),
    }
}

/// `--bodies N`: at most [`MAX_DEFAULT_SCENE_BODIES`], refused before a
/// scene is built (a count near `usize::MAX` would overflow an
/// allocation).
fn bodies(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|e| format!("{e}"))?;
    if n > MAX_DEFAULT_SCENE_BODIES {
        return Err(format!(
            "{n} is more than the default scene's {MAX_DEFAULT_SCENE_BODIES} bodies"
        ));
    }
    Ok(n)
}

/// `--every K`: at least 1.
fn every(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(0) => Err("a row every 0 steps: K must be at least 1".into()),
        Ok(k) => Ok(k),
        Err(e) => Err(e.to_string()),
    }
}

/// A tolerance: a finite number `>= 0`.
fn tolerance(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        Ok(t) => Err(format!("{t} is not a finite number >= 0")),
        Err(e) => Err(e.to_string()),
    }
}

#[derive(Args, Clone, Debug)]
struct RenderArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Steps to simulate before rendering.
    #[arg(long, default_value_t = 0)]
    steps: u64,
    /// The PNG to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Image size in pixels, WxH.
    #[arg(long, default_value = "1280x800", value_parser = parse_size)]
    size: (u32, u32),
}

/// `WxH` in pixels.
fn parse_size(s: &str) -> std::result::Result<(u32, u32), String> {
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
struct RunArgs {
    #[command(flatten)]
    scene: SceneArgs,
    #[cfg(feature = "window")]
    #[command(flatten)]
    window: WindowArgs,
}

/// How the window runs.
#[cfg(feature = "window")]
#[derive(Args, Clone, Debug)]
struct WindowArgs {
    /// Close the window after this many frames (at least 1).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    frames: Option<u64>,
    /// Print the frame rate and simulation time to stderr every few seconds.
    #[arg(long)]
    report: bool,
    /// Present as fast as frames are made (for measuring).
    #[arg(long)]
    no_vsync: bool,
    /// Start with the overlay hidden.
    #[arg(long)]
    no_overlay: bool,
    /// Start paused.
    #[arg(long)]
    paused: bool,
    /// Samples per pixel: 1, or 4 for multisampled anti-aliasing.
    #[arg(long, default_value_t = 1, value_parser = msaa)]
    msaa: u32,
}

#[cfg(feature = "window")]
impl WindowArgs {
    fn options(&self) -> softbody::app::AppOptions {
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

/// A failure, with the exit code it maps to.
#[derive(Debug)]
enum CliError {
    /// Bad input: exit code 2.
    Input(String),
    /// Anything else: exit code 1.
    Failed(String),
}

impl CliError {
    fn code(&self) -> u8 {
        match self {
            CliError::Input(_) => 2,
            CliError::Failed(_) => 1,
        }
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::Input(m) | CliError::Failed(m) => f.write_str(m),
        }
    }
}

fn failed(e: impl std::fmt::Display) -> CliError {
    CliError::Failed(e.to_string())
}

/// A solver's error: a world it refuses (one that would only diverge, say)
/// is bad input, as a bad scene file is; a device that fails is not.
fn solver_failed(e: SolverError) -> CliError {
    match e {
        SolverError::World(w) => CliError::Input(w.to_string()),
        e => failed(e),
    }
}

type Result<T, E = CliError> = std::result::Result<T, E>;

fn main() -> ExitCode {
    // SAFETY: first thing in main, before any other thread starts.
    unsafe { softbody::gpu::quiet_display_probe() };
    // The library reports through `log`: stability warnings when a world is
    // uploaded (`Packed::stability`), and wgpu's own. Warnings and errors by
    // default; RUST_LOG chooses others (`RUST_LOG=info`, `RUST_LOG=off`).
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let result = match cli.command {
        None => default_command(&cli.default),
        Some(Command::Simulate(a)) => simulate(&a),
        Some(Command::Check(a)) => check(&a),
        Some(Command::Render(a)) => window::render(&a),
        Some(Command::Run(a)) => window::run(&a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.code())
        }
    }
}

/// What `softbody` does without a subcommand: the window on the default
/// scene, or without the `window` feature the headless summary.
#[cfg(feature = "window")]
fn default_command(args: &DefaultArgs) -> Result<ExitCode> {
    let mut opts = args.window.options();
    if let Some(bodies) = args.bodies {
        opts.bodies = bodies;
    }
    window::open(opts)
}

/// What `softbody` does without a subcommand: the window on the default
/// scene, or without the `window` feature the headless summary.
#[cfg(not(feature = "window"))]
fn default_command(args: &DefaultArgs) -> Result<ExitCode> {
    simulate(&SimulateArgs {
        scene: SceneArgs {
            scene: None,
            bodies: args.bodies,
        },
        steps: args.steps,
        backend: args.backend,
        out: None,
        trace: None,
        every: 1,
        save_state: None,
        load_state: None,
    })
}

/// `render` and `run`: the window program (`softbody::app`) and the
/// offscreen renderer (`softbody::render`).
#[cfg(feature = "window")]
mod window {
    use super::{CliError, RenderArgs, Result, RunArgs, load_world, solver_failed};
    use softbody::app::{AppError, AppOptions};
    use softbody::render::RenderError;
    use std::process::ExitCode;

    pub fn render(args: &RenderArgs) -> Result<ExitCode> {
        super::check_output("--out", &args.out)?;
        super::check_distinct(
            &[("--out", &args.out)],
            &super::given(&[("--scene", &args.scene.scene)]),
        )?;
        let (world, name) = load_world(&args.scene)?;
        let steps = u32::try_from(args.steps)
            .map_err(|_| CliError::Input(format!("--steps {} is too many", args.steps)))?;
        softbody::render::render_png(
            &world,
            steps,
            args.size,
            &args.out,
            &softbody::render::RenderOptions::default(),
        )
        .map_err(|e| match e {
            RenderError::Solver(e) => solver_failed(e),
            e => CliError::Failed(e.to_string()),
        })?;
        println!(
            "rendered {name} after {steps} steps at {}x{} to {}",
            args.size.0,
            args.size.1,
            args.out.display()
        );
        Ok(ExitCode::SUCCESS)
    }

    pub fn run(args: &RunArgs) -> Result<ExitCode> {
        let mut opts = args.window.options();
        if args.scene.scene.is_some() {
            opts.world = Some(load_world(&args.scene)?.0);
        } else if let Some(bodies) = args.scene.bodies {
            opts.bodies = bodies;
        }
        open(opts)
    }

    pub fn open(opts: AppOptions) -> Result<ExitCode> {
        softbody::app::run(opts).map_err(|e| match e {
            AppError::Solver(e) => solver_failed(e),
            e => CliError::Failed(e.to_string()),
        })?;
        Ok(ExitCode::SUCCESS)
    }
}

/// `render` and `run` come with the window program (issue 3), which
/// provides this module under `#[cfg(feature = "window")]`.
#[cfg(not(feature = "window"))]
mod window {
    use super::{CliError, RenderArgs, Result, RunArgs};
    use std::process::ExitCode;

    fn unavailable(command: &str) -> CliError {
        CliError::Failed(format!(
            "`softbody {command}` is not available: this softbody was built without the `window` feature"
        ))
    }

    pub fn render(_: &RenderArgs) -> Result<ExitCode> {
        Err(unavailable("render"))
    }

    pub fn run(_: &RunArgs) -> Result<ExitCode> {
        Err(unavailable("run"))
    }
}

// ---------------------------------------------------------------------------
// Scenes and solvers

/// The scene file's world, or the default scene's.
fn load_world(args: &SceneArgs) -> Result<(World, String)> {
    match &args.scene {
        Some(path) => {
            let world = scene::load_world(path)
                .map_err(|e| CliError::Input(format!("{}: {e}", path.display())))?;
            Ok((world, path.display().to_string()))
        }
        None => {
            let bodies = args.bodies();
            let world = default_scene(bodies)
                .map_err(|e| CliError::Input(format!("default scene: {e}")))?;
            Ok((world, format!("default scene (--bodies {bodies})")))
        }
    }
}

/// The solver `--backend` asks for.
fn solver_for(world: &World, backend: Backend) -> Result<Solver> {
    match backend {
        Backend::Cpu => Solver::cpu(world),
        Backend::Gpu => Solver::gpu(world),
    }
    .map_err(solver_failed)
}

/// A progress bar on stderr when it is a terminal; hidden otherwise.
fn progress(total: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() || total < 2 {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} steps  {per_sec}  eta {eta}")
    {
        bar.set_style(style);
    }
    bar
}

/// Refuses an output path that cannot be written, before a run spends its
/// time: a directory, a file in a directory that does not exist or does
/// not accept a new file (proved by creating and removing one: a
/// read-only directory, `/proc`), or an existing file that cannot be
/// opened for writing. (The state and checkpoint are written after the
/// run: a bad path found only then would lose them.) Symbolic links are
/// followed, as the writes follow them.
fn check_output(option: &str, path: &Path) -> Result<()> {
    let bad = |why: String| {
        Err(CliError::Input(format!(
            "{option} {}: {why}",
            path.display()
        )))
    };
    if path.is_dir() {
        return bad("is a directory".into());
    }
    if path.file_name().is_none() {
        return bad("is not a file name".into());
    }
    let target = match softbody::files::resolve_links(path) {
        Ok(t) => t,
        Err(e) => return bad(e.to_string()),
    };
    let via = if target == path {
        String::new()
    } else {
        format!(" (it links to {})", target.display())
    };
    match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => {
            bad(format!("directory {} does not exist{via}", dir.display()))
        }
        _ => softbody::files::check_writable(&target).or_else(|e| bad(format!("{e}{via}"))),
    }
}

/// Refuses, before any work, an output that names the same file as
/// another output (one would replace the other: `--trace x --out x` lost
/// the trace) or as an input (`--scene p.json --out p.json` replaced the
/// scene). Existing character devices (`/dev/null`, a terminal) are
/// written in place and can take several outputs.
fn check_distinct(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<()> {
    let show = |(option, path): (&str, &Path)| format!("{option} {}", path.display());
    for (i, &a) in outputs.iter().enumerate() {
        for &b in &outputs[i + 1..] {
            if same_file(a.1, b.1) {
                return Err(CliError::Input(format!(
                    "{} and {} name the same file: one output would replace the other",
                    show(a),
                    show(b)
                )));
            }
        }
        for &b in inputs {
            if same_file(a.1, b.1) {
                return Err(CliError::Input(format!(
                    "{} names the same file as {}: the output would replace the input",
                    show(a),
                    show(b)
                )));
            }
        }
    }
    Ok(())
}

/// The options of `list` that were given, with their paths.
fn given<'a>(list: &[(&'a str, &'a Option<PathBuf>)]) -> Vec<(&'a str, &'a Path)> {
    list.iter()
        .filter_map(|&(option, path)| Some((option, path.as_deref()?)))
        .collect()
}

/// Whether two paths name one file that writing would replace or
/// truncate: the same device and inode where both exist (hard and
/// symbolic links, any spelling; not for a character device), else the
/// same canonical path, links followed (a file that does not exist yet,
/// spelled `./a.json` and `dir/../a.json`, or reached through a dangling
/// link).
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        if let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return ma.dev() == mb.dev()
                && ma.ino() == mb.ino()
                && !ma.file_type().is_char_device();
        }
    }
    match (canonical(a), canonical(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// `path` absolute, with its links and its `.` and `..` resolved, also
/// for a file that does not exist yet (its directory resolved, the name
/// kept); `None` where even the directory cannot be resolved.
fn canonical(path: &Path) -> Option<PathBuf> {
    let path = softbody::files::resolve_links(path).ok()?;
    if let Ok(c) = std::fs::canonicalize(&path) {
        return Some(c);
    }
    let name = path.file_name()?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(dir).ok()?.join(name))
}

fn create(path: &Path) -> Result<std::io::BufWriter<std::fs::File>> {
    std::fs::File::create(path)
        .map(std::io::BufWriter::new)
        .map_err(|e| failed(format!("cannot write {}: {e}", path.display())))
}

fn io_failed(path: &Path) -> impl Fn(std::io::Error) -> CliError + '_ {
    move |e| failed(format!("writing {}: {e}", path.display()))
}

/// An f32 written exactly: the shortest decimal that reads back as the
/// same f32 (`null` for NaN and infinities, which JSON lacks).
fn json_f32(x: f32) -> String {
    serde_json::to_string(&x).unwrap_or_else(|_| "null".into())
}

fn json_v2(v: [f32; 2]) -> String {
    format!("[{}, {}]", json_f32(v[0]), json_f32(v[1]))
}

/// `{"time", "step", "points": [{"pos", "vel"}], "bodies": [{"centroid", "angle"}]}`,
/// one point or body per line.
fn write_state(
    path: &Path,
    time: f64,
    step: u64,
    packed: &Packed,
    pos: &[[f32; 2]],
    vel: &[[f32; 2]],
) -> Result<()> {
    let frames = body_frames(packed, pos, vel).map_err(failed)?;
    let mut s = String::with_capacity(64 * (pos.len() + frames.len()) + 64);
    let _ = write!(
        s,
        "{{\n\"time\": {},\n\"step\": {step},\n\"points\": [",
        serde_json::to_string(&time).unwrap_or_else(|_| "null".into())
    );
    for (i, (p, v)) in pos.iter().zip(vel).enumerate() {
        let sep = if i == 0 { "\n" } else { ",\n" };
        let _ = write!(
            s,
            "{sep}{{\"pos\": {}, \"vel\": {}}}",
            json_v2(*p),
            json_v2(*v)
        );
    }
    s.push_str("\n],\n\"bodies\": [");
    for (i, f) in frames.iter().enumerate() {
        let sep = if i == 0 { "\n" } else { ",\n" };
        let _ = write!(
            s,
            "{sep}{{\"centroid\": {}, \"angle\": {}}}",
            json_v2(f.centroid),
            json_f32(frame_angle(f))
        );
    }
    s.push_str("\n]\n}\n");
    softbody::files::write_atomically(path, s.as_bytes()).map_err(io_failed(path))
}

/// `x` with `decimals` decimals, or in exponent notation where that would
/// not fit in `width` characters (a blown-up state's energy would otherwise
/// print all of its 70-odd digits).
fn column(x: f64, width: usize, decimals: usize) -> String {
    let fixed = format!("{x:.decimals$}");
    if fixed.len() <= width || !x.is_finite() {
        fixed
    } else {
        format!("{x:.3e}")
    }
}

const TRACE_HEADER: &str =
    "step,time,kinetic_energy,potential_energy,momentum_x,momentum_y,angular_momentum,max_speed";

fn trace_row(step: u64, time: f64, t: &softbody::diagnostics::Totals) -> String {
    format!(
        "{step},{time},{},{},{},{},{},{}",
        t.kinetic, t.potential, t.momentum[0], t.momentum[1], t.angular_momentum, t.max_speed
    )
}

// ---------------------------------------------------------------------------
// simulate

/// Where the run loop stops next, from `step` (`< last`): the next trace
/// point (the next multiple of `every`, `None` without a trace or past
/// `u64::MAX`), the next report (`to_report` steps on, saturating) and the
/// stop itself, the nearest of those, `last`, and 240 steps on; always
/// after `step` and at most `last`. (The arithmetic is checked or
/// saturating: with a checkpoint near `u64::MAX`, unchecked arithmetic
/// would wrap to a stop before `step`, and the loop would run for ever.)
fn next_stop(step: u64, last: u64, every: Option<u64>, to_report: u64) -> (Option<u64>, u64, u64) {
    let next_trace = every.and_then(|k| (step / k).checked_add(1)?.checked_mul(k));
    let next_report = step.saturating_add(to_report);
    let target = last
        .min(next_trace.unwrap_or(u64::MAX))
        .min(next_report)
        .min(step.saturating_add(240));
    (next_trace, next_report, target)
}

fn simulate(args: &SimulateArgs) -> Result<ExitCode> {
    for (option, path) in [
        ("--out", &args.out),
        ("--trace", &args.trace),
        ("--save-state", &args.save_state),
    ] {
        if let Some(path) = path {
            check_output(option, path)?;
        }
    }
    check_distinct(
        &given(&[
            ("--out", &args.out),
            ("--trace", &args.trace),
            ("--save-state", &args.save_state),
        ]),
        &given(&[
            ("--scene", &args.scene.scene),
            ("--load-state", &args.load_state),
        ]),
    )?;
    let (world, name) = load_world(&args.scene)?;
    let params = world.params.clone();
    println!(
        "{name}: {} bodies, {} points, {} springs, {} planets, {} half-planes; dt {:.4} s, {} substeps",
        world.bodies().len(),
        world.points().len(),
        world.springs().len(),
        world.planets().len(),
        world.planes().len(),
        params.dt,
        params.substeps
    );
    let mut runner = solver_for(&world, args.backend)?;
    println!("backend: {}", runner.describe());
    if let Some(path) = &args.load_state {
        // Of this scene, and no more points than its: a damaged header
        // cannot make it read more than a checkpoint of this scene holds.
        let hash = runner.scene_hash();
        let points = world.points().len() as u64;
        let c = Checkpoint::read_for(path, hash, points).map_err(|e| {
            CliError::Input(match e {
                CheckpointError::Io { .. } => format!("--load-state {e}"),
                e => format!("--load-state {}: {e}", path.display()),
            })
        })?;
        // A checkpoint that does not fit the scene (wrong scene, wrong
        // point count, a non-finite state) is bad input like a damaged one.
        c.restore(&mut runner)
            .map_err(|e| CliError::Input(format!("--load-state {}: {e}", path.display())))?;
        println!("resumed from {} at step {}", path.display(), c.step);
    }
    let time_at = |step: u64| step as f64 * params.dt as f64;
    let first = runner.steps();
    let last = first.checked_add(args.steps).ok_or_else(|| {
        CliError::Input(format!(
            "--steps {} after step {first} passes the largest step count",
            args.steps
        ))
    })?;
    let report_every = (args.steps / 6).max(1);

    let mut trace = match &args.trace {
        Some(path) => {
            let mut w = create(path)?;
            writeln!(w, "{TRACE_HEADER}").map_err(io_failed(path))?;
            Some((w, path))
        }
        None => None,
    };
    let bar = progress(args.steps);
    let say = |line: String| bar.suspend(|| println!("{line}"));
    let mut step = first;
    let mut started = Instant::now();
    let mut since_report = 0u64;
    let mut emit = |runner: &Solver,
                    step: u64,
                    report: Option<Option<f64>>,
                    trace_due: bool|
     -> Result<bool> {
        let (pos, vel) = runner.state().map_err(failed)?;
        let t = totals(runner.packed(), params.gravity, &pos, &vel).map_err(failed)?;
        // The run stops at a non-finite state, which gets its line.
        if report.is_some() || !t.finite {
            // The starting line has no steps to time.
            let ms = report
                .flatten()
                .map_or("       -".into(), |ms| format!("{ms:8.3}"));
            say(format!(
                "t = {:7.2} s  kinetic {:>12} J  mean height {:>7} m  max speed {:>7} m/s  {ms} ms/step{}",
                time_at(step),
                column(t.kinetic, 12, 1),
                column(t.mean_height, 7, 2),
                column(t.max_speed, 7, 2),
                if t.finite { "" } else { "  NON-FINITE STATE" }
            ));
        }
        if trace_due && let Some((w, path)) = &mut trace {
            writeln!(w, "{}", trace_row(step, time_at(step), &t)).map_err(io_failed(path))?;
        }
        Ok(t.finite)
    };
    // The step at which the state was found non-finite: the run stops
    // there (it only stays NaN), and fails.
    let mut diverged = (!emit(&runner, step, Some(None), true)?).then_some(step);
    while diverged.is_none() && step < last {
        let (next_trace, next_report, target) =
            next_stop(step, last, args.trace.is_some().then_some(args.every), {
                report_every - since_report
            });
        let n = target - step;
        let report_due = target == next_report || target == last;
        let trace_due = next_trace == Some(target);
        // Waiting for the GPU makes the timings and the bar truthful.
        runner.step(n).map_err(failed)?;
        if report_due || !bar.is_hidden() {
            runner.wait().map_err(failed)?;
        }
        step = target;
        since_report += n;
        bar.set_position(step - first);
        if report_due || trace_due {
            let ms = report_due
                .then(|| Some(started.elapsed().as_secs_f64() * 1e3 / since_report as f64));
            if !emit(&runner, step, ms, trace_due)? {
                diverged = Some(step);
            }
            if report_due {
                since_report = 0;
                started = Instant::now();
            }
        }
    }
    bar.finish_and_clear();
    if let Some((mut w, path)) = trace {
        w.flush().map_err(io_failed(path))?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &args.out {
        let (pos, vel) = runner.state().map_err(failed)?;
        write_state(path, time_at(step), step, runner.packed(), &pos, &vel)?;
        println!("wrote {}", path.display());
    }
    match (&args.save_state, diverged) {
        (Some(path), None) => {
            Checkpoint::of(&runner, time_at(step))
                .map_err(failed)?
                .write(path)
                .map_err(|e| failed(format!("--save-state {}: {e}", path.display())))?;
            println!("wrote checkpoint {} (step {step})", path.display());
        }
        (Some(path), Some(_)) => eprintln!(
            "not writing --save-state {}: the state is not finite, and no solver would load it back",
            path.display()
        ),
        (None, _) => {}
    }
    match diverged {
        None => Ok(ExitCode::SUCCESS),
        Some(step) => Err(failed(format!(
            "the simulation diverged: the state is not finite (NaN or infinite) at step {step} (t = {:.3} s); the run stopped there",
            time_at(step)
        ))),
    }
}

// ---------------------------------------------------------------------------
// check

/// Largest and summed distances between two states, point by point.
#[derive(Default)]
struct Deviation {
    max: f32,
    worst: usize,
    sum: f64,
}

/// Of two finite states (`check` stops at a non-finite one first).
fn deviation(a: &[[f32; 2]], b: &[[f32; 2]]) -> Deviation {
    let mut d = Deviation::default();
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let e = Vec2::from_array(*x).distance(Vec2::from_array(*y));
        d.sum += e as f64;
        if e > d.max {
            d.max = e;
            d.worst = i;
        }
    }
    d
}

fn check(args: &CheckArgs) -> Result<ExitCode> {
    let (world, name) = load_world(&args.scene)?;
    let n = world.points().len();
    println!(
        "{name}: {} bodies, {n} points, {} springs; {} steps on the GPU and the CPU",
        world.bodies().len(),
        world.springs().len(),
        args.steps
    );
    let mut cpu = solver_for(&world, Backend::Cpu)?;
    let mut gpu = solver_for(&world, Backend::Gpu)?;
    println!("backend: {}", gpu.describe());
    let dt = world.params.dt as f64;
    let (mut max_p, mut max_v) = ((0.0f32, 0u64, 0usize), (0.0f32, 0u64, 0usize));
    let (mut sum_p, mut sum_v) = (0.0f64, 0.0f64);
    let mut first_exceeded: Option<(u64, String)> = None;
    // A path whose state went NaN or infinite has nothing left to compare
    // (both blowing up alike would otherwise read as a deviation of inf,
    // or pass).
    let mut non_finite: Option<(u64, &str)> = None;
    let mut compared = 0u64;
    let bar = progress(args.steps);
    for step in 1..=args.steps {
        cpu.step(1).map_err(failed)?;
        gpu.step(1).map_err(failed)?;
        let (gp, gv) = gpu.state().map_err(failed)?;
        let (cp, cv) = cpu.state().map_err(failed)?;
        let finite =
            |p: &[[f32; 2]], v: &[[f32; 2]]| p.iter().chain(v).flatten().all(|x| x.is_finite());
        let paths = match (finite(&gp, &gv), finite(&cp, &cv)) {
            (true, true) => None,
            (false, true) => Some("GPU path"),
            (true, false) => Some("CPU path"),
            (false, false) => Some("GPU and CPU paths"),
        };
        if let Some(paths) = paths {
            non_finite = Some((step, paths));
            break;
        }
        compared = step;
        let (dp, dv) = (deviation(&gp, &cp), deviation(&gv, &cv));
        sum_p += dp.sum;
        sum_v += dv.sum;
        if dp.max > max_p.0 {
            max_p = (dp.max, step, dp.worst);
        }
        if dv.max > max_v.0 {
            max_v = (dv.max, step, dv.worst);
        }
        if first_exceeded.is_none() {
            if dp.max > args.tolerance {
                first_exceeded = Some((
                    step,
                    format!(
                        "position of point {} off by {:.3e} m > {:.1e} m",
                        dp.worst, dp.max, args.tolerance
                    ),
                ));
            } else if let Some(tol) = args.vel_tolerance
                && dv.max > tol
            {
                first_exceeded = Some((
                    step,
                    format!(
                        "velocity of point {} off by {:.3e} m/s > {tol:.1e} m/s",
                        dv.worst, dv.max
                    ),
                ));
            }
        }
        bar.set_position(step);
    }
    bar.finish_and_clear();
    let samples = (n as u64 * compared).max(1) as f64;
    println!(
        "positions:  max deviation {:.3e} m (step {}, point {}), mean {:.3e} m",
        max_p.0,
        max_p.1,
        max_p.2,
        sum_p / samples
    );
    println!(
        "velocities: max deviation {:.3e} m/s (step {}, point {}), mean {:.3e} m/s",
        max_v.0,
        max_v.1,
        max_v.2,
        sum_v / samples
    );
    if let Some((step, paths)) = non_finite {
        println!(
            "FAILED: NON-FINITE STATE on the {paths} at step {step} (t = {:.3} s); deviations above are over the {compared} steps before",
            step as f64 * dt
        );
        return Ok(ExitCode::FAILURE);
    }
    match first_exceeded {
        None => {
            println!(
                "ok: within tolerance over {} steps ({:.2} s)",
                args.steps,
                args.steps as f64 * dt
            );
            Ok(ExitCode::SUCCESS)
        }
        Some((step, what)) => {
            println!(
                "FAILED: tolerance first exceeded at step {step} (t = {:.3} s): {what}",
                step as f64 * dt
            );
            Ok(ExitCode::FAILURE)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{column, next_stop};

    /// Near `u64::MAX` the next trace point does not exist, and the stop
    /// is still after the current step (it wrapped to before it).
    #[test]
    fn the_run_loop_stops_after_the_current_step_near_the_largest_count() {
        let max = u64::MAX;
        let big = (1u64 << 63) + 1;
        // A checkpoint at 2^63 + 5, `--every 2^63 + 1`: the next multiple
        // is past u64::MAX.
        let at = (1u64 << 63) + 5;
        assert_eq!(next_stop(at, at + 3, Some(big), 1), (None, at + 1, at + 1));
        assert_eq!(next_stop(max - 1, max, Some(2), 1), (None, max, max));
        assert_eq!(
            next_stop(max - 3, max, Some(2), 5),
            (Some(max - 1), max, max - 1)
        );
        assert_eq!(next_stop(max - 2, max, None, 9), (None, max, max));
        // Away from the end: the nearest of the trace, the report and 240.
        assert_eq!(next_stop(10, 1000, Some(7), 20), (Some(14), 30, 14));
        assert_eq!(next_stop(10, 1000, None, 500), (None, 510, 250));
    }

    #[test]
    fn summary_columns_switch_to_exponents_only_when_too_wide() {
        assert_eq!(column(95171.63, 12, 1), "95171.6");
        assert_eq!(column(-0.004, 7, 2), "-0.00");
        assert_eq!(column(1234.5, 7, 2), "1234.50");
        assert_eq!(column(12345.5, 7, 2), "1.235e4");
        assert_eq!(column(4.5e76, 12, 1), "4.500e76");
        assert_eq!(column(f64::NAN, 7, 2), "NaN");
        assert_eq!(column(f64::INFINITY, 7, 2), "inf");
    }
}
