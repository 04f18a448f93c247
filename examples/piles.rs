//! Steps one of the pile samples (`softbody::samples`) and measures it.
//!
//! `cargo run --release --example piles -- <slope|stack|pyramid|pour|pour-rings|scene> [--scene FILE] [--seconds S] [--backend cpu|cpu1|gpu] [--png out.png] [--peer-scene out.json] [--bodies N] [--height H] [--angle A] [--rows R] [--size M] [--area-frequency HZ] [--substeps N] [--grid-every-substep]`
//!
//! Once per simulated second (and at the start and the end) it prints the
//! [`PileReport`](softbody::measure::PileReport) of the state (points
//! inside other bodies, bodies below half their area or inside out, rms
//! and largest speed), how fast the points moved over the last step (rms
//! and largest, from positions), for slope, stack and pyramid the displacement of
//! the tracked box (the slope's box, the top box) from where it started,
//! and the wall-clock milliseconds per step of the last second (GPU: from
//! submit to done, read-back excluded). At the end it prints the stepping
//! time in all and the median milliseconds per step after step 300 (each
//! CPU step timed on its own; on the GPU the mean of each second), the
//! measure of the rapier2d comparison in BENCHMARKS.md. `--png` draws the
//! final state with the offscreen renderer (needs a GPU adapter, whatever
//! the backend). `--peer-scene` writes the sample as a scene file of
//! points and polygon bodies for that comparison: each body's collision
//! outline as its points (a wheel without its hub).
//! The samples use the default parameters: issue 25 lists what they
//! should show.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, ValueEnum};
use serde_json::json;
use softbody::gpu::{ContactKernels, GridBuild};
use softbody::measure::{motion, pile_report};
use softbody::pack::Packed;
use softbody::prelude::*;
use softbody::render::{RenderOptions, render_png};
use softbody::samples;
use softbody::solver::Solver;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Sample {
    /// A 0.5 m box on a tilted floor (`--angle`).
    Slope,
    /// Boxes stacked one on another (`--rows` boxes of `--size`).
    Stack,
    /// Box2D's pyramid (`--rows` rows of `--size` boxes).
    Pyramid,
    /// Small boxes and wheels poured into a basin (`--bodies`, `--height`).
    Pour,
    /// The pour with hubless rings for the wheels (`samples::pour_rings`).
    PourRings,
    /// A scene file (`--scene`), measured like the samples.
    Scene,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Backend {
    /// The CPU reference path, on all threads.
    Cpu,
    /// The CPU reference path on one thread.
    Cpu1,
    /// The wgpu compute path, on a headless device.
    Gpu,
}

/// Steps a pile sample and measures how it holds.
#[derive(Parser, Debug)]
#[command(name = "piles")]
struct Opts {
    sample: Sample,
    /// Simulated seconds.
    #[arg(long, default_value_t = 5.0, value_parser = non_negative, allow_negative_numbers = true)]
    seconds: f32,
    #[arg(long, value_enum, default_value_t = Backend::Cpu)]
    backend: Backend,
    /// Draw the final state to this PNG (1280 x 720).
    #[arg(long, value_name = "PATH")]
    png: Option<PathBuf>,
    /// Write the sample's points and body outlines as a scene file (JSON)
    /// for a peer engine, and exit.
    #[arg(long, value_name = "PATH")]
    peer_scene: Option<PathBuf>,
    /// scene: the scene file (docs/scene-format.md).
    #[arg(long, value_name = "PATH")]
    scene: Option<PathBuf>,
    /// pour: number of bodies.
    #[arg(long, default_value_t = 480)]
    bodies: usize,
    /// pour: height of the lowest slots above the floor, m.
    #[arg(long, default_value_t = 2.0, allow_negative_numbers = true)]
    height: f32,
    /// slope: the floor's tilt, degrees.
    #[arg(long, default_value_t = 20.0, allow_negative_numbers = true)]
    angle: f32,
    /// stack: boxes (default 10); pyramid: rows (default 20).
    #[arg(long)]
    rows: Option<usize>,
    /// stack, pyramid: box side, m (default 1 and 0.5).
    #[arg(long, allow_negative_numbers = true)]
    size: Option<f32>,
    /// `Params::sleep_speed`, m/s (0: no sleeping).
    #[arg(long)]
    sleep_speed: Option<f32>,
    /// `Params::sleep_time`, s.
    #[arg(long)]
    sleep_time: Option<f32>,
    /// `Params::contact_iterations`.
    #[arg(long)]
    contact_iterations: Option<u32>,
    /// `Params::substeps`.
    #[arg(long)]
    substeps: Option<u32>,
    /// `Params::area_stiffness` as a frequency, Hz (0: no area term).
    #[arg(long, value_parser = non_negative)]
    area_frequency: Option<f32>,
    /// GPU: build the broad phase's grid in every substep
    /// (`GridBuild::EverySubstep`) rather than where a point may have
    /// moved.
    #[arg(long)]
    grid_every_substep: bool,
}

fn non_negative(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        Ok(_) => Err("must be finite and at least 0".into()),
        Err(e) => Err(format!("not a number: {e}")),
    }
}

/// A solver, and how its steps are timed.
struct Stepper(Solver);

impl Stepper {
    fn new(
        backend: Backend,
        world: &World,
        grid_every_substep: bool,
    ) -> Result<Self, Box<dyn std::error::Error>> {
        let mut solver = match backend {
            Backend::Cpu => Solver::Cpu(Box::new(CpuSolver::new(world)?.parallel(true))),
            Backend::Cpu1 => Solver::cpu(world)?,
            Backend::Gpu => Solver::gpu(world)?,
        };
        if let (Solver::Gpu { ctx, solver }, true) = (&mut solver, grid_every_substep)
            && let Some(kernels) = solver.contact_kernels()
        {
            let grid = GridBuild::EverySubstep;
            solver.set_contact_kernels(&ctx.device, ContactKernels { grid, ..kernels })?;
        }
        Ok(Self(solver))
    }

    /// The device the steps run on.
    fn device(&self) -> String {
        match &self.0 {
            Solver::Cpu(s) if s.is_parallel() => {
                let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
                format!("CPU, {threads} threads")
            }
            Solver::Cpu(_) => "CPU, 1 thread".into(),
            Solver::Gpu { ctx, .. } => {
                let info = ctx.adapter.get_info();
                format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type)
            }
        }
    }

    /// Runs `steps` steps and waits until they are done; the milliseconds
    /// of each go to `times` (on the GPU the mean of them all).
    fn step(&mut self, steps: u32, times: &mut Vec<f64>) -> Result<(), SolverError> {
        if let Solver::Cpu(_) = self.0 {
            for _ in 0..steps {
                let t = Instant::now();
                self.0.step(1)?;
                times.push(t.elapsed().as_secs_f64() * 1e3);
            }
        } else {
            let t = Instant::now();
            self.0.step(steps.into())?;
            self.0.wait()?;
            let ms = t.elapsed().as_secs_f64() * 1e3 / steps.max(1) as f64;
            times.extend(std::iter::repeat_n(ms, steps as usize));
        }
        Ok(())
    }
}

/// The stepping time in all and the median milliseconds per step after
/// step 300 (all steps when there are no more).
fn stepping_summary(times: &[f64]) -> String {
    let total: f64 = times.iter().sum();
    let mut tail = times[times.len().min(300)..].to_vec();
    if tail.is_empty() {
        tail = times.to_vec();
    }
    tail.sort_by(f64::total_cmp);
    let median = tail.get(tail.len() / 2).copied().unwrap_or(0.0);
    format!(
        "stepped {} steps in {:.2} s; median {median:.2} ms/step after step 300",
        times.len(),
        total / 1e3
    )
}

/// The sample's points and body outlines as a scene file for a peer
/// engine: `points` with `pos` and `mass`, `bodies` with their collision
/// outline as `points` (a closed polygon; a wheel's hub is left out).
fn peer_scene(world: &World) -> String {
    let points: Vec<_> = world
        .points()
        .iter()
        .map(|p| json!({ "pos": [p.pos.x, p.pos.y], "mass": p.mass }))
        .collect();
    let bodies: Vec<_> = world
        .bodies()
        .iter()
        .map(|b| {
            let outline = b.boundary.as_ref().unwrap_or(&b.points);
            json!({ "points": outline.iter().map(|h| h.index()).collect::<Vec<_>>() })
        })
        .collect();
    json!({ "points": points, "bodies": bodies }).to_string() + "\n"
}

/// Mean position of a shape's points.
fn centroid(shape: &Shape, pos: &[[f32; 2]]) -> Vec2 {
    let sum: Vec2 = shape
        .points
        .iter()
        .map(|h| Vec2::from(pos[h.index()]))
        .sum();
    sum / shape.points.len().max(1) as f32
}

fn main() -> ExitCode {
    // SAFETY: first thing in main, before any other thread starts.
    unsafe { softbody::gpu::quiet_display_probe() };
    match run(&Opts::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("piles: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(opts: &Opts) -> Result<(), Box<dyn std::error::Error>> {
    let (mut world, tracked) = match opts.sample {
        Sample::Slope => {
            let (w, b) = samples::slope(opts.angle)?;
            (w, Some(b))
        }
        Sample::Stack => {
            let (w, b) = samples::stack(opts.rows.unwrap_or(10), opts.size.unwrap_or(1.0))?;
            (w, b.last().cloned())
        }
        Sample::Pyramid => {
            let (w, b) = samples::pyramid(opts.rows.unwrap_or(20), opts.size.unwrap_or(0.5))?;
            (w, b.last().cloned())
        }
        Sample::Pour => (samples::pour(opts.bodies, opts.height)?, None),
        Sample::PourRings => (samples::pour_rings(opts.bodies, opts.height)?, None),
        Sample::Scene => {
            let path = opts
                .scene
                .as_ref()
                .ok_or("the scene sample needs --scene PATH")?;
            (softbody::scene::Scene::load(path)?.build()?, None)
        }
    };
    if let Some(v) = opts.sleep_speed {
        world.params.sleep_speed = v;
    }
    if let Some(t) = opts.sleep_time {
        world.params.sleep_time = t;
    }
    if let Some(n) = opts.contact_iterations {
        world.params.contact_iterations = n;
    }
    if let Some(n) = opts.substeps {
        world.params.substeps = n;
    }
    if let Some(hz) = opts.area_frequency {
        world.params.set_area_frequency(hz);
    }
    if let Some(path) = &opts.peer_scene {
        std::fs::write(path, peer_scene(&world))?;
        println!(
            "wrote the sample's points and outlines to {}",
            path.display()
        );
        return Ok(());
    }
    let packed = Packed::from_world(&world)?;
    let start = tracked.as_ref().map(|s| centroid(s, &packed.pos));
    let dt = world.params.dt;
    let per_second = (1.0 / dt).round().max(1.0) as u32;
    let total = (opts.seconds / dt).round() as u64;
    println!(
        "{:?} on the {:?} backend: {} points, {} bodies, {total} steps of {:.4} s ({} substeps)",
        opts.sample,
        opts.backend,
        world.points().len(),
        world.bodies().len(),
        dt,
        world.params.substeps
    );
    let mut stepper = Stepper::new(opts.backend, &world, opts.grid_every_substep)?;
    println!("stepping on {}", stepper.device());
    let (mut done, mut ms_per_step) = (0u64, None);
    let mut times = Vec::with_capacity(total as usize);
    // The positions one step before the state reported, for `motion`.
    let mut before: Option<Vec<[f32; 2]>> = None;
    loop {
        let (pos, vel) = stepper.0.state()?;
        let t = Instant::now();
        let report = pile_report(&packed, &pos, &vel);
        let report_ms = t.elapsed().as_secs_f64() * 1e3;
        let mut line = format!("t={:6.2}s  {report}", done as f32 * dt);
        if let (Some(shape), Some(start)) = (&tracked, start) {
            let d = centroid(shape, &pos) - start;
            line += &format!(
                " | box moved {:.3} m ({:+.3}, {:+.3})",
                d.length(),
                d.x,
                d.y
            );
        }
        if let Some(before) = &before {
            let (rms, max) = motion(before, &pos, dt);
            line += &format!(" | last step moved rms {rms:.3} max {max:.3} m/s");
        }
        line += &format!(" | {} asleep", stepper.0.sleeping_points()?);
        match ms_per_step {
            Some(ms) => line += &format!(" | {ms:.2} ms/step"),
            None => line += &format!(" | report {report_ms:.1} ms"),
        }
        println!("{line}");
        if done >= total {
            println!("{}", stepping_summary(&times));
            if let Some(path) = &opts.png {
                let vec2s = |v: &[[f32; 2]]| v.iter().map(|&p| Vec2::from(p)).collect::<Vec<_>>();
                world.set_state(&vec2s(&pos), &vec2s(&vel))?;
                render_png(&world, 0, (1280, 720), path, &RenderOptions::default())?;
                println!("drew the final state to {}", path.display());
            }
            return Ok(());
        }
        let steps = (total - done).min(per_second as u64) as u32;
        // All but the last step, the positions, the last step; the
        // read-back is left out of the time.
        let from = times.len();
        if steps > 1 {
            stepper.step(steps - 1, &mut times)?;
        }
        before = Some(stepper.0.state()?.0);
        stepper.step(1, &mut times)?;
        ms_per_step = Some(times[from..].iter().sum::<f64>() / steps as f64);
        done += steps as u64;
    }
}
