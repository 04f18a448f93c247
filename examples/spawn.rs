//! The cost of spawning one body into a sleeping pile, and what it wakes.
//!
//! `cargo run --release --example spawn -- [--bodies N] [--pile rows|pour] [--backend cpu|cpu1|gpu] [--settle S]`
//!
//! Builds `--bodies` bodies: rows of 0.5 m boxes and 10-point hubless
//! rings, 100 to a row, resting on a floor (`--pile rows`), or poured into
//! the basin of `samples::pour` (`--pile pour`); steps until 99% of the
//! points sleep (at most `--settle` seconds), then measures a
//! sleeping step (the mean of 60), the sync that adds one box above the
//! pile's middle, and the steps after it (the mean of the 60 while the box
//! falls and lands), and counts the pile's bodies that moved at all in
//! those 60 steps (a sleeping point does not move: it is pinned); then
//! the sync of a second box, into buffers that have room for it, and its
//! removal. The figures are BENCHMARKS.md's "Spawning into a sleeping
//! pile".

use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, ValueEnum};
use softbody::prelude::*;
use softbody::samples;
use softbody::solver::Solver;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Backend {
    /// The CPU reference path, on all threads.
    Cpu,
    /// The CPU reference path on one thread.
    Cpu1,
    /// The wgpu compute path, on a headless device.
    Gpu,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Pile {
    /// Rows of boxes and rings on a floor.
    Rows,
    /// `samples::pour`.
    Pour,
}

/// The rows pile: `n` bodies, 100 to a row, every third a ring.
fn rows(n: usize) -> Result<World, WorldError> {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0))?;
    for k in 0..n {
        let (row, col) = (k / 100, k % 100);
        let at = Vec2::new(
            0.62 * (col as f32 - 50.0) + 0.31 * (row % 2) as f32,
            0.27 + 0.55 * row as f32,
        );
        if (row + col) % 3 == 0 {
            Blob::new(at, 0.26, 10).build(&mut world)?;
        } else {
            BoxShape::new(at, Vec2::splat(0.5)).build(&mut world)?;
        }
    }
    Ok(world)
}

/// Measures a spawn into a sleeping pile.
#[derive(Parser, Debug)]
struct Opts {
    /// Bodies in the pile.
    #[arg(long, default_value_t = 2000)]
    bodies: usize,
    #[arg(long, value_enum, default_value_t = Pile::Rows)]
    pile: Pile,
    #[arg(long, value_enum, default_value_t = Backend::Cpu)]
    backend: Backend,
    /// The most seconds to wait for the pile to sleep.
    #[arg(long, default_value_t = 30.0)]
    settle: f32,
}

/// Mean milliseconds per step of `n` steps (the GPU's waited for).
fn timed(s: &mut Solver, n: u64) -> Result<f64, Box<dyn std::error::Error>> {
    let t = Instant::now();
    for _ in 0..n {
        s.step(1)?;
    }
    s.wait()?;
    Ok(t.elapsed().as_secs_f64() * 1e3 / n as f64)
}

fn run(opts: &Opts) -> Result<(), Box<dyn std::error::Error>> {
    let world = match opts.pile {
        Pile::Rows => rows(opts.bodies)?,
        Pile::Pour => samples::pour(opts.bodies, 2.0)?,
    };
    let mut s = match opts.backend {
        Backend::Cpu => Solver::cpu_parallel(&world)?,
        Backend::Cpu1 => Solver::cpu(&world)?,
        Backend::Gpu => Solver::gpu(&world)?,
    };
    let movable = world.points().iter().filter(|p| p.mass > 0.0).count();
    let steps_per_second = (1.0 / world.params.dt).round() as u64;
    let awake_ms = timed(&mut s, 60)?;
    let mut waited = 1.0;
    // Until 99% of the points sleep (a pour may keep a few bodies wedged
    // awake for long).
    while 100 * s.sleeping_points()? < 99 * movable {
        if waited >= opts.settle {
            return Err(format!(
                "{} of {movable} points asleep after {waited} s",
                s.sleeping_points()?
            )
            .into());
        }
        s.step(steps_per_second)?;
        waited += 1.0;
    }
    let asleep_points = s.sleeping_points()?;
    let (p0, _) = s.state()?;
    let asleep_ms = timed(&mut s, 60)?;
    let (before, _) = s.state()?;
    // One box above the pile's highest point, over its middle.
    let top = before.iter().map(|p| p[1]).fold(f32::MIN, f32::max);
    let mut spawned = world.clone();
    BoxShape::new(Vec2::new(0.0, top + 1.0), Vec2::splat(0.3)).build(&mut spawned)?;
    let t = Instant::now();
    s.sync(&spawned)?;
    s.wait()?;
    let sync_ms = t.elapsed().as_secs_f64() * 1e3;
    let awake_after_sync = movable + 4 - s.sleeping_points()?;
    let after_ms = timed(&mut s, 60)?;
    let (after, _) = s.state()?;
    // The bodies asleep all through the 60 steps before the spawn (their
    // points did not move), and of those the ones that moved after it.
    let still = |b: &Body, a: &[[f32; 2]], c: &[[f32; 2]]| {
        b.points.iter().all(|p| a[p.index()] == c[p.index()])
    };
    let slept: Vec<&Body> = world
        .bodies()
        .iter()
        .filter(|b| still(b, &p0, &before))
        .collect();
    let woken = slept.iter().filter(|b| !still(b, &before, &after)).count();
    // A second box, into buffers that have room now, then its removal.
    BoxShape::new(Vec2::new(2.0, top + 1.0), Vec2::splat(0.3)).build(&mut spawned)?;
    let t = Instant::now();
    s.sync(&spawned)?;
    s.wait()?;
    let second_ms = t.elapsed().as_secs_f64() * 1e3;
    let last = BodyHandle(spawned.bodies().len() as u32 - 1);
    let removal = spawned.remove_body(last)?;
    let t = Instant::now();
    s.apply_removal(&spawned, &removal)?;
    s.wait()?;
    let removal_ms = t.elapsed().as_secs_f64() * 1e3;
    println!(
        "{}, {} bodies, {asleep_points} of {movable} points asleep after {waited} s ({} bodies asleep): first second {awake_ms:.2} ms a step, sleeping step {asleep_ms:.2} ms; sync of one box {sync_ms:.1} ms ({awake_after_sync} points awake after it); the 60 steps after {after_ms:.2} ms a step ({:+.0}%); {woken} of the sleeping bodies moved",
        s.describe(),
        world.bodies().len(),
        slept.len(),
        100.0 * (after_ms / asleep_ms - 1.0)
    );
    println!(
        "a second box's sync {second_ms:.1} ms (the buffers have room), its removal {removal_ms:.1} ms"
    );
    Ok(())
}

fn main() -> ExitCode {
    env_logger::init();
    let opts = Opts::parse();
    match run(&opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
