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

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use softbody::checkpoint::{Checkpoint, CheckpointError};
use softbody::diagnostics::{body_frames, frame_angle, totals};
use softbody::pack::Packed;
use softbody::prelude::*;
use softbody::scene;
use softbody::scenes::default_scene;
use softbody::solver::Solver;

mod args;
mod check;
mod outputs;
mod simulate;
mod unit;

use args::*;
use check::check;
use outputs::*;
use simulate::simulate;
use unit::Unit;

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
            sample: None,
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
        let (world, name, _) = load_world(&args.scene)?;
        let steps = u32::try_from(args.steps)
            .map_err(|_| CliError::Input(format!("--steps {} is too many", args.steps)))?;
        // The default scene as the window opens on it, the ship sample
        // about its home planet.
        let default_view = match (&args.scene.scene, args.scene.sample) {
            (_, Some(super::args::Sample::Ship)) => Some(softbody::ship::view()),
            (None, None) => softbody::scenes::default_scene_view(&world),
            (Some(_), None) => None,
        };
        softbody::render::render_png(
            &world,
            steps,
            args.size,
            &args.out,
            &softbody::render::RenderOptions {
                draw: softbody::render::DrawOptions::for_bodies(world.bodies().len()),
                camera: default_view.map(|(min, max)| {
                    softbody::render::Camera::fit(
                        min,
                        max,
                        args.size,
                        softbody::render::Camera::FIT_MARGIN,
                    )
                }),
                ..Default::default()
            },
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
        if args.scene.sample == Some(super::args::Sample::Ship) {
            let game = softbody::ship::ship_game()
                .map_err(|e| CliError::Input(format!("ship sample: {e}")))?;
            opts.world = Some(game.world);
            opts.ship = Some(game.ship);
            opts.view = Some(softbody::ship::view());
        } else if args.scene.scene.is_some() {
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
/// The world `args` name, what to call it, and its length unit.
fn load_world(args: &SceneArgs) -> Result<(World, String, Unit)> {
    let (world, name) = if let Some(args::Sample::Ship) = args.sample {
        let game = softbody::ship::ship_game()
            .map_err(|e| CliError::Input(format!("ship sample: {e}")))?;
        (game.world, "the ship sample".into())
    } else if let Some(path) = &args.scene {
        let world = scene::load_world(path)
            .map_err(|e| CliError::Input(format!("{}: {e}", path.display())))?;
        (world, path.display().to_string())
    } else {
        let bodies = args.bodies();
        let world =
            default_scene(bodies).map_err(|e| CliError::Input(format!("default scene: {e}")))?;
        (world, format!("default scene (--bodies {bodies})"))
    };
    let unit = Unit::of(&world.params);
    Ok((world, name, unit))
}

/// The solver `--backend` asks for.
fn solver_for(world: &World, backend: Backend) -> Result<Solver> {
    match backend {
        Backend::Cpu => Solver::cpu_parallel(world),
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
