//! `check`: the GPU and the CPU reference side by side.

use super::*;

// ---------------------------------------------------------------------------
// check

/// Largest and summed distances between two states, point by point.
#[derive(Default)]
pub(crate) struct Deviation {
    max: f32,
    worst: usize,
    sum: f64,
}

/// Of two finite states (`check` stops at a non-finite one first).
pub(crate) fn deviation(a: &[[f32; 2]], b: &[[f32; 2]]) -> Deviation {
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

pub(crate) fn check(args: &CheckArgs) -> Result<ExitCode> {
    let (world, name, unit) = load_world(&args.scene)?;
    let (len, speed) = (unit.length(), unit.speed());
    // 5 mm in the scene's unit.
    let tolerance = args.tolerance.unwrap_or(5e-3 * unit.0);
    let n = world.points().len();
    println!(
        "{name}: {} bodies, {n} points, {} springs; {} steps on the GPU and the CPU{}",
        world.bodies().len(),
        world.springs().len(),
        args.steps,
        unit.note()
    );
    let mut cpu = solver_for(&world, Backend::Cpu)?;
    let mut gpu = solver_for(&world, Backend::Gpu)?;
    println!("backend: {}", gpu.describe());
    if args.resync > 0 {
        println!(
            "the CPU restarts from the GPU's state every {} steps (--resync)",
            args.resync
        );
    }
    let dt = world.params.dt as f64;
    let (mut max_p, mut max_v) = ((0.0f32, 0u64, 0usize), (0.0f32, 0u64, 0usize));
    let (mut sum_p, mut sum_v) = (0.0f64, 0.0f64);
    let mut first_exceeded: Option<(u64, String)> = None;
    // A path whose state went NaN or infinite has nothing left to compare
    // (both blowing up alike would otherwise read as a deviation of inf,
    // or pass).
    let mut non_finite: Option<(u64, &str)> = None;
    let mut compared = 0u64;
    let mut unsynced = false;
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
            if dp.max > tolerance {
                first_exceeded = Some((
                    step,
                    format!(
                        "position of point {} off by {:.3e} {len} > {tolerance:.1e} {len}",
                        dp.worst, dp.max
                    ),
                ));
            } else if let Some(tol) = args.vel_tolerance
                && dv.max > tol
            {
                first_exceeded = Some((
                    step,
                    format!(
                        "velocity of point {} off by {:.3e} {speed} > {tol:.1e} {speed}",
                        dv.worst, dv.max
                    ),
                ));
            }
        }
        // A state beyond what a checkpoint takes (a run blowing up) is
        // not restarted from: each path goes on alone, to its non-finite
        // state.
        if args.resync > 0 && step % args.resync == 0 {
            let at = Checkpoint::of(&gpu, step as f64 * dt).map_err(failed)?;
            if let Err(e) = at.restore(&mut cpu)
                && !unsynced
            {
                unsynced = true;
                bar.suspend(|| println!("step {step}: not restarting the CPU: {e}"));
            }
        }
        bar.set_position(step);
    }
    bar.finish_and_clear();
    let samples = (n as u64 * compared).max(1) as f64;
    println!(
        "positions:  max deviation {:.3e} {len} (step {}, point {}), mean {:.3e} {len}",
        max_p.0,
        max_p.1,
        max_p.2,
        sum_p / samples
    );
    println!(
        "velocities: max deviation {:.3e} {speed} (step {}, point {}), mean {:.3e} {speed}",
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
