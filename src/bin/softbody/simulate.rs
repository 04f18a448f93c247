//! `simulate`: a headless run with reports, trace, state and checkpoints.

use super::*;

// ---------------------------------------------------------------------------
// simulate

/// Where the run loop stops next, from `step` (`< last`): the next trace
/// point (the next multiple of `every`, `None` without a trace or past
/// `u64::MAX`), the next report (`to_report` steps on, saturating) and the
/// stop itself, the nearest of those, `last`, and 240 steps on; always
/// after `step` and at most `last`. (The arithmetic is checked or
/// saturating: with a checkpoint near `u64::MAX`, unchecked arithmetic
/// would wrap to a stop before `step`, and the loop would run for ever.)
pub(crate) fn next_stop(
    step: u64,
    last: u64,
    every: Option<u64>,
    to_report: u64,
) -> (Option<u64>, u64, u64) {
    let next_trace = every.and_then(|k| (step / k).checked_add(1)?.checked_mul(k));
    let next_report = step.saturating_add(to_report);
    let target = last
        .min(next_trace.unwrap_or(u64::MAX))
        .min(next_report)
        .min(step.saturating_add(240));
    (next_trace, next_report, target)
}

pub(crate) fn simulate(args: &SimulateArgs) -> Result<ExitCode> {
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
    let (world, name, unit) = load_world(&args.scene)?;
    let (len, speed, energy) = (unit.length(), unit.speed(), unit.energy());
    let params = world.params.clone();
    println!(
        "{name}: {} bodies, {} points, {} springs, {} planets, {} half-planes; dt {:.4} s, {} substeps{}",
        world.bodies().len(),
        world.points().len(),
        world.springs().len(),
        world.planets().len(),
        world.planes().len(),
        params.dt,
        params.substeps,
        unit.note()
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
                "t = {:7.2} s  kinetic {:>12} {energy}  mean height {:>7} {len}  max speed {:>7} {speed}  {ms} ms/step{}",
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

#[cfg(test)]
mod tests {
    use super::next_stop;

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
}
