//! `softbody`: simulates the built-in default scene headless on the GPU (or
//! the CPU reference path) and prints what happened.

use std::process::ExitCode;
use std::time::Instant;

use softbody::prelude::*;
use softbody::scenes::default_scene;

struct Args {
    bodies: usize,
    steps: u32,
    cpu: bool,
}

const USAGE: &str = "usage: softbody [--bodies N] [--steps N] [--backend gpu|cpu]";

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        bodies: 2000,
        steps: 600,
        cpu: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--bodies" => args.bodies = value()?.parse().map_err(|e| format!("--bodies: {e}"))?,
            "--steps" => args.steps = value()?.parse().map_err(|e| format!("--steps: {e}"))?,
            "--backend" => {
                args.cpu = match value()?.as_str() {
                    "gpu" => false,
                    "cpu" => true,
                    other => return Err(format!("--backend: unknown backend {other:?}")),
                }
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(args)
}

/// Kinetic energy, mean height, max speed and whether all is finite.
fn summary(pos: &[[f32; 2]], vel: &[[f32; 2]]) -> (f64, f64, f32, bool) {
    let mut ke = 0.0f64;
    let mut height = 0.0f64;
    let mut vmax = 0.0f32;
    let mut finite = true;
    for (p, v) in pos.iter().zip(vel) {
        let v = Vec2::from_array(*v);
        ke += 0.5 * v.length_squared() as f64;
        height += p[1] as f64;
        vmax = vmax.max(v.length());
        finite &= p.iter().chain(v.as_ref()).all(|x| x.is_finite());
    }
    (ke, height / pos.len().max(1) as f64, vmax, finite)
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let world = default_scene(args.bodies)?;
    let params = world.params.clone();
    println!(
        "default scene: {} bodies, {} points, {} springs, {} planets, {} half-planes; dt {:.4} s, {} substeps",
        world.bodies().len(),
        world.points().len(),
        world.springs().len(),
        world.planets().len(),
        world.planes().len(),
        params.dt,
        params.substeps
    );
    let report_every = (args.steps / 6).max(1);
    let print = |step: u32, pos: &[[f32; 2]], vel: &[[f32; 2]], ms: f64| {
        let (ke, h, vmax, finite) = summary(pos, vel);
        println!(
            "t = {:6.2} s  kinetic {:10.1} J  mean height {:6.2} m  max speed {:6.2} m/s  {:7.2} ms/step{}",
            step as f32 * params.dt,
            ke,
            h,
            vmax,
            ms,
            if finite { "" } else { "  NON-FINITE STATE" }
        );
    };
    if args.cpu {
        let mut solver = CpuSolver::new(&world)?;
        println!("backend: CPU reference (1 thread)");
        print(0, solver.positions(), solver.velocities(), 0.0);
        let mut done = 0;
        while done < args.steps {
            let n = report_every.min(args.steps - done);
            let t = Instant::now();
            for _ in 0..n {
                solver.step();
            }
            done += n;
            let ms = t.elapsed().as_secs_f64() * 1e3 / n as f64;
            print(done, solver.positions(), solver.velocities(), ms);
        }
    } else {
        let ctx = GpuContext::new_headless()?;
        println!("backend: GPU, {}", ctx.adapter_summary());
        let mut solver = GpuSolver::new(&ctx.device, &ctx.queue, &world)?;
        println!(
            "GPU memory: {:.1} MiB",
            solver.gpu_bytes() as f64 / (1 << 20) as f64
        );
        let s = solver.read_state(&ctx.device, &ctx.queue)?;
        print(0, &s.pos, &s.vel, 0.0);
        let mut done = 0;
        while done < args.steps {
            let n = report_every.min(args.steps - done);
            let t = Instant::now();
            solver.step(&ctx.device, &ctx.queue, n);
            // Reading back waits for the GPU, so the time covers the steps.
            let s = solver.read_state(&ctx.device, &ctx.queue)?;
            done += n;
            let ms = t.elapsed().as_secs_f64() * 1e3 / n as f64;
            print(done, &s.pos, &s.vel, ms);
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    // Issue 3: no subcommand opens the window, `render` writes a PNG (see
    // src/app/cli.rs); anything else is the headless run below. Issue 4
    // turns these into clap subcommands.
    #[cfg(feature = "window")]
    if let Some(code) = softbody::app::cli::main(std::env::args().skip(1).collect()) {
        return code;
    }
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("error: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
