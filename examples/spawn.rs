//! The cost of spawning one body into a sleeping pile, and what it wakes.
//!
//! `cargo run --release --example spawn -- [--bodies N] [--pile rows|pour] [--backend cpu|cpu1|gpu] [--settle S] [--edits K]`
//!
//! Builds `--bodies` bodies: rows of 0.5 m boxes and 10-point hubless
//! rings, 100 to a row, resting on a floor (`--pile rows`), or poured into
//! the basin of `samples::pour` (`--pile pour`); steps until 99% of the
//! points sleep (at most `--settle` seconds), then measures a
//! sleeping step (the median of 60), the sync that adds one box above the
//! pile's middle, and the steps after it (the median of the 60 while the
//! box falls and lands) against those of a twin of the sleeping pile
//! (restored from a checkpoint) stepped in turn with it, so that both
//! meet the same load of the host, and counts the pile's bodies that
//! moved at all in those 60 steps (a sleeping point does not move: it is
//! pinned); then
//! the sync of a second box, into buffers that have room for it, and its
//! removal; then the removal of the pile's highest body over its middle,
//! the steps after it and the bodies that moved in them. The figures are
//! BENCHMARKS.md's "Spawning into a sleeping pile".

use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, ValueEnum};
use softbody::checkpoint::Checkpoint;
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
    /// Only the edits' cost, in the pile as built (one step, no
    /// settling): the syncs of `--edits` boxes one after the other, then
    /// removals of bodies in the middle, one at a time and five at once.
    #[arg(long)]
    edits: Option<usize>,
}

/// The cost of `n` syncs of one box each into the world of `s`, built
/// from `world`, then of five removals of one body each and of five
/// bodies at once, in the world and in the solver.
fn edits(s: &mut Solver, world: &World, n: usize) -> Result<(), Box<dyn std::error::Error>> {
    s.step(1)?;
    s.wait()?;
    let mut w = world.clone();
    let mut times = Vec::new();
    for k in 0..n {
        BoxShape::new(Vec2::new(k as f32, 500.0), Vec2::splat(0.3)).build(&mut w)?;
        let t = Instant::now();
        s.sync(&w)?;
        s.wait()?;
        times.push(format!("{:.2}", t.elapsed().as_secs_f64() * 1e3));
    }
    // Five removals of one body near the middle, a step after each (the
    // first compiles the GPU's remap kernels), then five bodies at once.
    let (mut world_ms, mut solver_ms) = (Vec::new(), Vec::new());
    let remove = |s: &mut Solver,
                  w: &mut World,
                  bodies: &[BodyHandle]|
     -> Result<(f64, f64), Box<dyn std::error::Error>> {
        let t = Instant::now();
        let removal = w.remove_bodies(bodies)?;
        let t1 = Instant::now();
        s.apply_removal(w, &removal)?;
        s.wait()?;
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
        let done = (ms(t, t1), ms(t1, Instant::now()));
        s.step(1)?;
        s.wait()?;
        Ok(done)
    };
    for k in 0..5 {
        let middle = BodyHandle(w.bodies().len() as u32 / 2 + 7 * k);
        let (a, b) = remove(s, &mut w, &[middle])?;
        world_ms.push(a);
        solver_ms.push(b);
    }
    let middle = w.bodies().len() as u32 / 2;
    let five: Vec<BodyHandle> = (0..5).map(|k| BodyHandle(middle + 11 * k)).collect();
    let (five_world, five_solver) = remove(s, &mut w, &five)?;
    println!(
        "{}, {} bodies: syncs of one box {} ms; the removal of a body in the middle (median of 5) {:.3} ms in the world, {:.1} ms in the solver; of five at once (remove_bodies) {:.3} and {:.1} ms",
        s.describe(),
        world.bodies().len(),
        times.join(", "),
        median(world_ms),
        median(solver_ms),
        five_world,
        five_solver,
    );
    Ok(())
}

/// Milliseconds of one step, waited for.
fn step_ms(s: &mut Solver) -> Result<f64, Box<dyn std::error::Error>> {
    let t = Instant::now();
    s.step(1)?;
    s.wait()?;
    Ok(t.elapsed().as_secs_f64() * 1e3)
}

/// The median of some milliseconds.
fn median(mut ms: Vec<f64>) -> f64 {
    ms.sort_by(f64::total_cmp);
    ms[ms.len() / 2]
}

/// Median milliseconds per step of `n` steps, each waited for: the host's
/// load moves lavapipe's steps by a tenth to a third in bursts of a few
/// dozen steps, which a mean takes in and a median mostly leaves out.
fn timed(s: &mut Solver, n: u64) -> Result<f64, Box<dyn std::error::Error>> {
    let ms = (0..n).map(|_| step_ms(s)).collect::<Result<Vec<_>, _>>()?;
    Ok(median(ms))
}

/// Steps `a` and `b` one step each in turn, `n` times: the medians of
/// their steps, measured under the same load of the host.
fn paired(
    a: &mut Solver,
    b: &mut Solver,
    n: u64,
) -> Result<(f64, f64), Box<dyn std::error::Error>> {
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for _ in 0..n {
        ta.push(step_ms(a)?);
        tb.push(step_ms(b)?);
    }
    Ok((median(ta), median(tb)))
}

fn run(opts: &Opts) -> Result<(), Box<dyn std::error::Error>> {
    let world = match opts.pile {
        Pile::Rows => rows(opts.bodies)?,
        Pile::Pour => samples::pour(opts.bodies, 2.0)?,
    };
    let build = |world: &World| match opts.backend {
        Backend::Cpu => Solver::cpu_parallel(world),
        Backend::Cpu1 => Solver::cpu(world),
        Backend::Gpu => Solver::gpu(world),
    };
    let mut s = build(&world)?;
    if let Some(n) = opts.edits {
        return edits(&mut s, &world, n);
    }
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
    // A twin of the sleeping pile, to step alongside the one spawned into.
    let mut twin = build(&world)?;
    Checkpoint::of(&s, 0.0)?.restore(&mut twin)?;
    // One box above the pile's highest point, over its middle.
    let top = before.iter().map(|p| p[1]).fold(f32::MIN, f32::max);
    let mut spawned = world.clone();
    BoxShape::new(Vec2::new(0.0, top + 1.0), Vec2::splat(0.3)).build(&mut spawned)?;
    let t = Instant::now();
    s.sync(&spawned)?;
    s.wait()?;
    let sync_ms = t.elapsed().as_secs_f64() * 1e3;
    let awake_after_sync = movable + 4 - s.sleeping_points()?;
    let (twin_ms, after_ms) = paired(&mut twin, &mut s, 60)?;
    drop(twin);
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
    // A body of the pile, 2 s later: the highest over its middle, with
    // what rests on it and what it rests on; the bodies that move after it.
    s.step(2 * steps_per_second)?;
    let (before, _) = s.state()?;
    let height = |b: &Body| {
        b.points
            .iter()
            .map(|p| before[p.index()][1])
            .fold(f32::MIN, f32::max)
    };
    let middle = |b: &Body| b.points.iter().all(|p| before[p.index()][0].abs() < 1.0);
    let gone = (0..world.bodies().len())
        .filter(|&b| middle(&spawned.bodies()[b]))
        .max_by(|&a, &b| height(&spawned.bodies()[a]).total_cmp(&height(&spawned.bodies()[b])))
        .ok_or("no body over the pile's middle")?;
    let removal = spawned.remove_body(BodyHandle(gone as u32))?;
    let t = Instant::now();
    s.apply_removal(&spawned, &removal)?;
    s.wait()?;
    let pile_removal_ms = t.elapsed().as_secs_f64() * 1e3;
    let after_removal_ms = timed(&mut s, 60)?;
    let (after, _) = s.state()?;
    let kept = removal.point_remap().apply(&before);
    let moved_after_removal = spawned
        .bodies()
        .iter()
        .filter(|b| b.points.iter().any(|p| after[p.index()] != kept[p.index()]))
        .count();
    println!(
        "{}, {} bodies, {asleep_points} of {movable} points asleep after {waited} s ({} bodies asleep): first second {awake_ms:.2} ms a step, sleeping step {asleep_ms:.2} ms; sync of one box {sync_ms:.1} ms ({awake_after_sync} points awake after it); the 60 steps after {after_ms:.2} ms a step, the sleeping twin's {twin_ms:.2} ({:+.0}%); {woken} of the sleeping bodies moved",
        s.describe(),
        world.bodies().len(),
        slept.len(),
        100.0 * (after_ms / twin_ms - 1.0)
    );
    println!(
        "a second box's sync {second_ms:.1} ms (the buffers have room), its removal {removal_ms:.1} ms"
    );
    println!(
        "the removal of pile body {gone} {pile_removal_ms:.1} ms; the 60 steps after {after_removal_ms:.2} ms a step; {moved_after_removal} bodies moved"
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
