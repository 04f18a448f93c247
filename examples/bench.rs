//! Whole-step benchmark of the GPU path against the CPU reference.
//!
//! `cargo run --release --example bench -- [--points N | --bodies N] [--json] [--steps N] [--settle N | --load-state FILE] [--runs N] [--gpu-only] [--peak-gbs G] [--narrow each|batched] [--contact-points all|active] [--grid every|moved] [--passes]`
//!
//! Two scenes: the core solver's (`scenes::bench_scene`, 1k to 1M points,
//! body collisions off) and the contact-heavy one (`scenes::contact_scene`,
//! 10k and 100k bodies piled on planets, body collisions on; stepped
//! `--settle` steps on the GPU first, default 60, or started from a
//! checkpoint of it, `--load-state`, such as `softbody simulate --bodies N
//! --save-state FILE` writes). Every path starts from the same whole state,
//! sleeping's counts and anchors and the warm starts included, so a piled
//! scene is timed asleep as it was left. `--points N` runs the first at
//! one size only, `--bodies N` the second.
//!
//! For each scene size: GPU ms/step (wall clock around submit + wait, no
//! readback inside the timed loop) and per stage (timestamp queries when the
//! adapter has them: one step profiled after each run, each stage's median),
//! CPU reference ms/step on one thread and on all threads,
//! point-substeps per second, GPU memory per point and an estimate of bytes
//! moved per substep, with the achieved GB/s against the device's peak
//! memory bandwidth when it is known (the GPUs this project targets, by
//! adapter name, or `--peak-gbs`); not for the contact scene, whose grid
//! walks the estimate does not model (`-`, `null` in JSON). The three
//! paths are timed in turns (GPU, CPU 1 thread, CPU all threads, then
//! again), `--runs` rounds (default 5), and each reports its median: on a
//! shared machine a burst of other work then falls on all three rather
//! than on whichever happened to be running.
//!
//! `--passes` adds, under each row, one more profiled step's GPU time
//! stage by stage (`GpuSolver::profile_passes`), summed per kind of stage:
//! how many passes of it a step runs, their total and the time of one.
//!
//! `--json` prints one object per line and path (`gpu`, `cpu1`, `cpu_all`)
//! with `scene`, `body_collisions`, `points`, `bodies`, `springs`,
//! `substeps`, `path`, `ms_per_step`, `point_substeps_per_s`, `threads`,
//! `speedup_over_cpu1` and `stages_ms` (GPU line), `gpu_bytes_per_point`,
//! `bytes_moved_per_substep`, `gb_per_s`, `peak_gb_per_s`, `adapter`,
//! `backend`, `device_type`, `driver` and `host_cpu`; what was not
//! measured is `null`, and `--gpu-only` leaves out the CPU lines. `--help`
//! lists the options; bad values are refused with a message.

use std::time::Instant;

use clap::Parser;
use serde_json::json;
use softbody::checkpoint::Checkpoint;
use softbody::gpu::{GpuContext, GridBuild, NarrowWalk, PointDispatch, Stage, StageTimes};
use softbody::prelude::*;
use softbody::scenes::{bench_scene, contact_scene};

/// Whole-step benchmark of the GPU path against the CPU reference.
#[derive(Parser, Debug)]
#[command(name = "bench")]
struct Opts {
    /// Run the core scene at this many points only (default: 1k, 10k, 100k,
    /// 1M points, then the contact scene at 10k and 100k bodies).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least_one, conflicts_with = "bodies")]
    points: Option<usize>,
    /// Run the contact scene at this many bodies only.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least_one)]
    bodies: Option<usize>,
    /// One JSON object per line and path instead of the table.
    #[arg(long)]
    json: bool,
    /// Steps per timed run (default: about 0.3 s of GPU work, 2 to 200).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..))]
    steps: Option<u32>,
    /// Steps the contact scene takes on the GPU before timing, so that its
    /// bodies have piled up (the pile is built by about 300).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 60,
        allow_negative_numbers = true
    )]
    settle: u32,
    /// Start the contact scene from this checkpoint (of `--bodies N`'s
    /// scene) instead of settling it.
    #[arg(
        long,
        value_name = "FILE",
        requires = "bodies",
        conflicts_with = "settle"
    )]
    load_state: Option<std::path::PathBuf>,
    /// Timed rounds of each path; each path reports its median.
    #[arg(long, value_name = "N", default_value_t = 5, allow_negative_numbers = true, value_parser = at_least_one)]
    runs: usize,
    /// Time the GPU path only (no CPU reference rows or columns).
    #[arg(long)]
    gpu_only: bool,
    /// The device's peak memory bandwidth, GB/s, when the adapter is not
    /// one this harness knows.
    #[arg(long, value_name = "G", allow_negative_numbers = true, value_parser = positive_gbs)]
    peak_gbs: Option<f64>,
    /// How the narrow phase walks the grid (default: the adapter's,
    /// `NarrowWalk::for_device`).
    #[arg(long, value_enum)]
    narrow: Option<Walk>,
    /// Which points the contact passes run over (default: the adapter's,
    /// `PointDispatch::for_device`).
    #[arg(long, value_enum)]
    contact_points: Option<Points>,
    /// When the broad phase builds its grid (default: in a substep where
    /// a point may have moved, `GridBuild::WhenMoved`).
    #[arg(long, value_enum)]
    grid: Option<GridArg>,
    /// Under each row, one step's GPU time stage by stage, summed per kind
    /// of stage (needs timestamp queries).
    #[arg(long, conflicts_with = "json")]
    passes: bool,
}

/// `--contact-points`: `softbody::gpu::PointDispatch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Points {
    /// One thread per point.
    All,
    /// The points that are not quiet, listed each substep.
    Active,
}

/// `--grid`: `softbody::gpu::GridBuild`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum GridArg {
    /// In every substep.
    Every,
    /// In a step's first substep and where a point may have moved.
    Moved,
}

/// `--narrow`: `softbody::gpu::NarrowWalk`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Walk {
    /// Each grid entry tested in full as the walk meets it.
    Each,
    /// Bodies collected in batches, then tested.
    Batched,
}

impl Opts {
    /// The scenes to run, in order: (scene name, points or bodies).
    fn scenes(&self) -> Vec<(&'static str, usize)> {
        match (self.points, self.bodies) {
            (Some(n), _) => vec![("core", n)],
            (None, Some(b)) => vec![("contacts", b)],
            (None, None) => [1_000, 10_000, 100_000, 1_000_000]
                .map(|n| ("core", n))
                .into_iter()
                .chain([10_000, 100_000].map(|b| ("contacts", b)))
                .collect(),
        }
    }
}

fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        Ok(_) => Err("must be at least 1".into()),
        Err(e) => Err(format!("not a whole number: {e}")),
    }
}

fn positive_gbs(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(g) if g.is_finite() && g > 0.0 => Ok(g),
        Ok(_) => Err("must be a positive number of GB/s".into()),
        Err(e) => Err(format!("not a number: {e}")),
    }
}

/// Peak memory bandwidth, GB/s, of the GPUs this project targets (vendor
/// datasheets), matched on the adapter's name, most specific first.
fn known_peak_gbs(adapter: &str) -> Option<f64> {
    const KNOWN: [(&str, f64); 7] = [
        ("H200", 4800.0),
        ("H100 NVL", 3900.0),
        ("H100 PCIe", 2000.0),
        // SXM ("NVIDIA H100 80GB HBM3").
        ("H100", 3350.0),
        ("A100-SXM4-80GB", 2039.0),
        ("A100 80GB PCIe", 1935.0),
        ("A100", 1555.0),
    ];
    KNOWN
        .iter()
        .find(|(name, _)| adapter.contains(name))
        .map(|&(_, gbs)| gbs)
}

/// The host processor's model name, on Linux.
fn host_cpu() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find_map(|l| l.strip_prefix("model name")?.split_once(':'))
        .map(|(_, name)| name.trim().to_string())
}

/// Median of a non-empty list of finite times.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Each stage's name (as in `--json`'s `stages_ms`) and field, in the
/// order of [`StageTimes`]'s fields.
type StageField = fn(&mut StageTimes) -> &mut f64;
const STAGES: [(&str, StageField); 11] = [
    ("integrate", |s| &mut s.integrate),
    ("collide", |s| &mut s.collide),
    ("integrate_collide", |s| &mut s.integrate_collide),
    ("apply_integrate_collide", |s| {
        &mut s.apply_integrate_collide
    }),
    ("springs", |s| &mut s.springs),
    ("rods", |s| &mut s.rods),
    ("shape_match", |s| &mut s.shape_match),
    ("broad_phase", |s| &mut s.broad_phase),
    ("body_collide", |s| &mut s.body_collide),
    ("impact", |s| &mut s.impact),
    ("sleep", |s| &mut s.sleep),
];

/// Each stage's median over profiled steps (`None` without any: no
/// timestamp queries).
fn median_stages(runs: &[StageTimes]) -> Option<StageTimes> {
    if runs.is_empty() {
        return None;
    }
    let mut out = StageTimes::default();
    for (_, field) in STAGES {
        *field(&mut out) = median(runs.iter().map(|&(mut r)| *field(&mut r)).collect());
    }
    Some(out)
}

/// What every row is measured on.
struct Machine {
    /// The adapter's name, backend, device type and driver.
    adapter: String,
    backend: String,
    device_type: String,
    driver: String,
    /// The host's processor (`model name` of /proc/cpuinfo, where there is
    /// one): the CPU reference runs on it, and so does a software adapter.
    host_cpu: Option<String>,
    /// The CPU reference's threads on the all-threads path.
    threads: usize,
    peak_gbs: Option<f64>,
}

/// One scene size, measured.
struct Row {
    scene: &'static str,
    body_collisions: bool,
    points: usize,
    bodies: usize,
    springs: usize,
    substeps: u32,
    /// Median GPU wall time per step, ms.
    gpu_ms: f64,
    /// Median CPU reference time per step on one thread and on all threads,
    /// ms; `None` with `--gpu-only`.
    cpu_ms: Option<(f64, f64)>,
    /// GPU time per stage (each stage's median over one profiled step per
    /// run), when the adapter has timestamps.
    stages: Option<StageTimes>,
    /// With `--passes`: per kind of stage, in the order a step first runs
    /// it, the passes a step runs and their total GPU time, ms.
    passes: Vec<(Stage, u32, f64)>,
    gpu_bytes_per_point: f64,
    /// Estimated bytes moved per substep; `None` for the contact scene,
    /// whose grid walks the estimate does not model.
    moved: Option<f64>,
}

impl Row {
    fn point_substeps_per_s(&self, ms: f64) -> f64 {
        self.points as f64 * self.substeps as f64 / (ms * 1e-3)
    }

    /// Achieved GB/s of the GPU path, by the estimate of bytes moved.
    fn gb_per_s(&self) -> Option<f64> {
        self.moved
            .map(|m| m * self.substeps as f64 / (self.gpu_ms * 1e-3) / 1e9)
    }

    /// One JSON object per measured path: `gpu`, then `cpu1` and `cpu_all`
    /// unless the CPU was not timed.
    fn json_lines(&self, m: &Machine) -> Vec<serde_json::Value> {
        let mut paths = vec![("gpu", self.gpu_ms, 1)];
        if let Some((one, all)) = self.cpu_ms {
            paths.push(("cpu1", one, 1));
            paths.push(("cpu_all", all, m.threads));
        }
        paths
            .into_iter()
            .map(|(path, ms, threads)| {
                let gpu = path == "gpu";
                json!({
                    "scene": self.scene,
                    "body_collisions": self.body_collisions,
                    "points": self.points,
                    "bodies": self.bodies,
                    "springs": self.springs,
                    "substeps": self.substeps,
                    "path": path,
                    "ms_per_step": ms,
                    "point_substeps_per_s": self.point_substeps_per_s(ms),
                    "threads": threads,
                    "speedup_over_cpu1": self.cpu_ms.filter(|_| gpu).map(|(one, _)| one / self.gpu_ms),
                    "stages_ms": self.stages.filter(|_| gpu).map(stages_json),
                    "gpu_bytes_per_point": self.gpu_bytes_per_point,
                    "bytes_moved_per_substep": self.moved,
                    "gb_per_s": self.gb_per_s().filter(|_| gpu),
                    "peak_gb_per_s": m.peak_gbs,
                    "adapter": m.adapter,
                    "backend": m.backend,
                    "device_type": m.device_type,
                    "driver": m.driver,
                    "host_cpu": m.host_cpu,
                })
            })
            .collect()
    }

    /// The table's line.
    fn table_line(&self, m: &Machine) -> String {
        let gbs = self.gb_per_s();
        let cpu =
            |f: fn((f64, f64)) -> f64| self.cpu_ms.map_or("-".into(), |c| format!("{:.3}", f(c)));
        format!(
            "{:>8} {:>9} {:>7} {:>8} {:>9.3} {:>9} {:>9} {:>9} {:>10.1} {:>7.1} {:>7} {:>6}  {}",
            self.scene,
            self.points,
            self.bodies,
            self.springs,
            self.gpu_ms,
            cpu(|c| c.0),
            cpu(|c| c.1),
            self.cpu_ms
                .map_or("-".into(), |(one, _)| format!("{:.2}", one / self.gpu_ms)),
            self.point_substeps_per_s(self.gpu_ms) / 1e6,
            self.gpu_bytes_per_point,
            gbs.map_or("-".into(), |g| format!("{g:.2}")),
            gbs.zip(m.peak_gbs)
                .map_or("-".into(), |(g, p)| format!("{:.1}%", 100.0 * g / p)),
            self.stages.map_or("n/a".into(), |s| s.to_string()),
        )
    }
}

fn stages_json(mut s: StageTimes) -> serde_json::Value {
    STAGES
        .iter()
        .map(|(name, field)| (name.to_string(), json!(*field(&mut s))))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// The state every path of a contact scene starts from, when not the
/// scene's own: `--load-state`'s checkpoint, or the scene stepped
/// `--settle` steps on the GPU (read back once), sleeping and warm starts
/// included.
fn start_state(
    ctx: &GpuContext,
    opts: &Opts,
    scene: &str,
    world: &World,
) -> Result<Option<Checkpoint>, Box<dyn std::error::Error>> {
    if scene != "contacts" {
        return Ok(None);
    }
    if let Some(path) = &opts.load_state {
        let points = world.points().len() as u64;
        let hash = CpuSolver::new(world)?.scene_hash();
        return Checkpoint::read_for(path, hash, points)
            .map(Some)
            .map_err(|e| format!("--load-state {}: {e}", path.display()).into());
    }
    if opts.settle == 0 {
        return Ok(None);
    }
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, world)?;
    let mut left = opts.settle;
    while left > 0 {
        let k = left.min(10);
        gpu.step(&ctx.device, &ctx.queue, k)?;
        gpu.wait(&ctx.device)?;
        left -= k;
    }
    let time = f64::from(opts.settle) * f64::from(world.params.dt);
    Ok(Some(Checkpoint::of_gpu(
        &gpu,
        &ctx.device,
        &ctx.queue,
        time,
    )?))
}

/// Builds one scene size and times its paths in turns.
fn measure(
    ctx: &GpuContext,
    opts: &Opts,
    scene: &'static str,
    n: usize,
) -> Result<Row, Box<dyn std::error::Error>> {
    let world = if scene == "core" {
        bench_scene(n)?
    } else {
        contact_scene(n)?
    };
    let start = start_state(ctx, opts, scene, &world)?;
    let points = world.points().len();
    let substeps = world.params.substeps;
    // Enough steps for ~0.3 s of GPU work per run, at least 2.
    let steps = opts
        .steps
        .unwrap_or(((3_000_000 / points.max(1)) as u32).clamp(2, 200));
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world)?;
    if let Some(mut kernels) = gpu.contact_kernels() {
        if let Some(walk) = opts.narrow {
            kernels.walk = match walk {
                Walk::Each => NarrowWalk::EachEntry,
                Walk::Batched => NarrowWalk::Batched,
            };
        }
        if let Some(points) = opts.contact_points {
            kernels.points = match points {
                Points::All => PointDispatch::AllPoints,
                Points::Active => PointDispatch::ActiveList,
            };
        }
        if let Some(grid) = opts.grid {
            kernels.grid = match grid {
                GridArg::Every => GridBuild::EverySubstep,
                GridArg::Moved => GridBuild::WhenMoved,
            };
        }
        gpu.set_contact_kernels(&ctx.device, kernels)?;
    }
    if let Some(start) = &start {
        start.restore_gpu(&mut gpu, &ctx.queue)?;
    }
    gpu.step(&ctx.device, &ctx.queue, 2)?; // warm-up
    gpu.wait(&ctx.device)?;
    let cpu_steps = (steps / 4).max(1);
    let mut cpus = if opts.gpu_only {
        Vec::new()
    } else {
        vec![
            CpuSolver::new(&world)?.parallel(false),
            CpuSolver::new(&world)?.parallel(true),
        ]
    };
    for cpu in &mut cpus {
        if let Some(start) = &start {
            start.restore_cpu(cpu)?;
        }
        cpu.step(); // warm-up
    }
    // Rounds of GPU, CPU 1 thread, CPU all threads. No readback and no CPU
    // work inside the GPU's timed span: submit the steps, wait once.
    // One step per round is profiled stage by stage (after the timed span,
    // so that the timestamps' passes stay out of it).
    let mut times = vec![Vec::new(); 1 + cpus.len()];
    let mut profiles = Vec::new();
    for _ in 0..opts.runs {
        let t = Instant::now();
        gpu.step(&ctx.device, &ctx.queue, steps)?;
        gpu.wait(&ctx.device)?;
        times[0].push(t.elapsed().as_secs_f64() * 1e3 / steps as f64);
        profiles.extend(gpu.profile_step(&ctx.device, &ctx.queue)?);
        for (cpu, times) in cpus.iter_mut().zip(&mut times[1..]) {
            let t = Instant::now();
            for _ in 0..cpu_steps {
                cpu.step();
            }
            times.push(t.elapsed().as_secs_f64() * 1e3 / cpu_steps as f64);
        }
    }
    let medians: Vec<f64> = times.into_iter().map(median).collect();
    let stages = median_stages(&profiles);
    let passes = if opts.passes {
        sum_passes(
            &gpu.profile_passes(&ctx.device, &ctx.queue)?
                .unwrap_or_default(),
        )
    } else {
        Vec::new()
    };
    Ok(Row {
        scene,
        body_collisions: world.params.body_collisions,
        points,
        bodies: world.bodies().len(),
        springs: world.springs().len(),
        substeps,
        gpu_ms: medians[0],
        cpu_ms: (medians.len() == 3).then(|| (medians[1], medians[2])),
        stages,
        passes,
        gpu_bytes_per_point: gpu.gpu_bytes() as f64 / points as f64,
        moved: (!gpu.has_contacts()).then(|| gpu.bytes_moved_per_substep() as f64),
    })
}

/// A step's passes summed per kind of stage, in the order the step first
/// runs each: (stage, passes, total ms).
fn sum_passes(passes: &[(Stage, f64)]) -> Vec<(Stage, u32, f64)> {
    let mut sums: Vec<(Stage, u32, f64)> = Vec::new();
    for &(stage, ms) in passes {
        match sums.iter_mut().find(|(s, _, _)| *s == stage) {
            Some((_, count, total)) => {
                *count += 1;
                *total += ms;
            }
            None => sums.push((stage, 1, ms)),
        }
    }
    sums
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // SAFETY: first thing in main, before any other thread starts.
    unsafe { softbody::gpu::quiet_display_probe() };
    let opts = Opts::parse();
    let ctx = GpuContext::new_headless()?;
    let info = ctx.adapter.get_info();
    let machine = Machine {
        peak_gbs: opts.peak_gbs.or_else(|| known_peak_gbs(&info.name)),
        host_cpu: host_cpu(),
        threads: rayon::current_num_threads(),
        backend: format!("{:?}", info.backend),
        device_type: format!("{:?}", info.device_type),
        driver: format!("{} {}", info.driver, info.driver_info),
        adapter: info.name,
    };
    if !opts.json {
        println!("adapter: {}", ctx.adapter_summary());
        match machine.peak_gbs {
            Some(g) => println!("peak memory bandwidth: {g} GB/s"),
            None => println!("peak memory bandwidth: unknown (--peak-gbs G to give it)"),
        }
        println!(
            "host CPU: {}; CPU threads: {}; 8 substeps per step; median of {} runs after warm-up, paths in turns",
            machine.host_cpu.as_deref().unwrap_or("unknown"),
            machine.threads,
            opts.runs
        );
        if machine.adapter.contains("llvmpipe") {
            // llvmpipe's worker threads (lavapipe, or Mesa's GL): how much
            // of the machine the GPU path gets (BENCHMARKS.md, on a noisy
            // host).
            let lp =
                std::env::var("LP_NUM_THREADS").unwrap_or_else(|_| "unset (one per core)".into());
            println!("LP_NUM_THREADS: {lp}");
        }
        println!(
            "{:>8} {:>9} {:>7} {:>8} {:>9} {:>9} {:>9} {:>9} {:>10} {:>7} {:>7} {:>6} {:>8}",
            "scene",
            "points",
            "bodies",
            "springs",
            "gpu ms",
            "cpu1 ms",
            "cpuN ms",
            "speedup",
            "gpu Mpt-s/s",
            "B/pt",
            "GB/s",
            "%peak",
            "stages"
        );
    }
    for (scene, n) in opts.scenes() {
        let row = measure(&ctx, &opts, scene, n)?;
        if opts.json {
            for line in row.json_lines(&machine) {
                println!("{line}");
            }
        } else {
            println!("{}", row.table_line(&machine));
            for (stage, count, ms) in &row.passes {
                let each = ms / *count as f64;
                println!("    {stage:?}: {count} a step, {ms:.3} ms ({each:.3} each)");
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "../tests/common/mod.rs"]
mod common;

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(args: &[&str]) -> Result<Opts, clap::Error> {
        Opts::try_parse_from(std::iter::once("bench").chain(args.iter().copied()))
    }

    #[test]
    fn bad_arguments_are_refused_with_a_message() {
        for (args, says) in [
            (&["--points", "0"][..], "at least 1"),
            (&["--points", "ten"], "not a whole number"),
            (&["--bodies", "0"], "at least 1"),
            (&["--runs", "0"], "at least 1"),
            (&["--steps", "0"], "--steps"),
            (&["--steps", "x"], "--steps"),
            (&["--points", "-5"], "not a whole number"),
            (&["--settle", "-1"], "--settle"),
            (&["--peak-gbs", "-3"], "positive"),
            (&["--peak-gbs", "NaN"], "positive"),
            (&["--points", "10", "--bodies", "5"], "cannot be used with"),
            (&["--load-state", "pile.ckpt"], "--bodies"),
            (
                &["--bodies", "5", "--load-state", "p", "--settle", "9"],
                "cannot be used with",
            ),
            (&["--frobnicate"], "--frobnicate"),
        ] {
            let e = opts(args).expect_err(&format!("{args:?} refused"));
            assert!(e.to_string().contains(says), "{args:?}: {e}");
        }
    }

    #[test]
    fn passes_are_summed_per_stage_in_the_order_first_run() {
        let passes = [
            (Stage::Springs, 1.0),
            (Stage::Narrow, 2.0),
            (Stage::Springs, 0.5),
            (Stage::Sleep, 0.25),
        ];
        assert_eq!(
            sum_passes(&passes),
            vec![
                (Stage::Springs, 2, 1.5),
                (Stage::Narrow, 1, 2.0),
                (Stage::Sleep, 1, 0.25)
            ]
        );
        assert!(opts(&["--passes", "--json"]).is_err());
        assert!(opts(&["--passes"]).unwrap().passes);
    }

    #[test]
    fn stage_times_are_the_median_of_each_stage() {
        assert_eq!(median_stages(&[]), None);
        let run = |k: f64| StageTimes {
            integrate: k,
            collide: 2.0 * k,
            integrate_collide: 3.0 * k,
            apply_integrate_collide: 4.0 * k,
            springs: 5.0 * k,
            rods: 6.0 * k,
            shape_match: 7.0 * k,
            broad_phase: 8.0 * k,
            body_collide: 9.0 * k,
            impact: 9.5 * k,
            sleep: 10.0 * k,
        };
        // Each stage on its own: an outlier in one run's springs and
        // another run's shape matching leave both stages' medians alone.
        let mut slow_springs = run(1.0);
        slow_springs.springs = 100.0;
        let mut fast_frames = run(1.0);
        fast_frames.shape_match = 0.0;
        assert_eq!(
            median_stages(&[slow_springs, run(1.0), fast_frames]),
            Some(run(1.0))
        );
        assert_eq!(
            median_stages(&[run(2.0), run(1.0), run(3.0)]),
            Some(run(2.0))
        );
    }

    #[test]
    fn the_arguments_pick_the_scenes() {
        assert_eq!(
            opts(&["--points", "5000"]).unwrap().scenes(),
            [("core", 5000)]
        );
        assert_eq!(
            opts(&["--bodies", "30"]).unwrap().scenes(),
            [("contacts", 30)]
        );
        let all = opts(&[]).unwrap();
        assert_eq!(
            all.scenes(),
            [
                ("core", 1_000),
                ("core", 10_000),
                ("core", 100_000),
                ("core", 1_000_000),
                ("contacts", 10_000),
                ("contacts", 100_000)
            ]
        );
        assert_eq!((all.runs, all.settle, all.steps), (5, 60, None));
    }

    fn machine() -> Machine {
        Machine {
            // A name that needs escaping in JSON.
            adapter: "Test \"GPU\" \\ 1".into(),
            backend: "Vulkan".into(),
            device_type: "DiscreteGpu".into(),
            driver: "drv 1.0".into(),
            host_cpu: Some("Test CPU".into()),
            threads: 16,
            peak_gbs: Some(3350.0),
        }
    }

    fn row(cpu: bool, contacts: bool) -> Row {
        Row {
            scene: if contacts { "contacts" } else { "core" },
            body_collisions: contacts,
            points: 1000,
            bodies: 400,
            springs: 2000,
            substeps: 8,
            gpu_ms: 2.0,
            cpu_ms: cpu.then_some((4.0, 1.0)),
            stages: None,
            passes: Vec::new(),
            gpu_bytes_per_point: 227.0,
            moved: (!contacts).then_some(450_000.0),
        }
    }

    /// Each line parsed back from its text, as a script would.
    fn lines(r: &Row) -> Vec<serde_json::Value> {
        r.json_lines(&machine())
            .iter()
            .map(|v| serde_json::from_str(&v.to_string()).expect("valid JSON"))
            .collect()
    }

    #[test]
    fn json_lines_carry_the_documented_fields_for_each_path() {
        let mut r = row(true, false);
        r.stages = Some(StageTimes {
            springs: 1.5,
            shape_match: 0.25,
            ..StageTimes::default()
        });
        let l = lines(&r);
        let paths: Vec<_> = l.iter().map(|v| v["path"].as_str().unwrap()).collect();
        assert_eq!(paths, ["gpu", "cpu1", "cpu_all"]);
        for v in &l {
            for key in [
                "points",
                "bodies",
                "springs",
                "substeps",
                "path",
                "ms_per_step",
                "point_substeps_per_s",
                "adapter",
            ] {
                assert!(!v[key].is_null(), "{key} in {v}");
            }
            assert_eq!(v["adapter"], "Test \"GPU\" \\ 1");
            assert_eq!(v["backend"], "Vulkan");
            assert_eq!(v["device_type"], "DiscreteGpu");
            assert_eq!(v["host_cpu"], "Test CPU");
        }
        assert_eq!(l[0]["ms_per_step"], 2.0);
        assert_eq!(l[0]["point_substeps_per_s"], 4e6);
        assert_eq!(l[0]["speedup_over_cpu1"], 2.0);
        // 450 kB per substep, 8 substeps in 2 ms.
        assert_eq!(l[0]["gb_per_s"], 1.8);
        assert_eq!(l[1]["ms_per_step"], 4.0);
        assert!(l[1]["gb_per_s"].is_null() && l[1]["speedup_over_cpu1"].is_null());
        // Every stage by name on the GPU line only.
        let stages = l[0]["stages_ms"]
            .as_object()
            .expect("stages on the GPU line");
        assert_eq!(stages.len(), 11, "{stages:?}");
        assert_eq!(
            (stages["springs"].as_f64(), stages["shape_match"].as_f64()),
            (Some(1.5), Some(0.25))
        );
        assert_eq!(stages["integrate"].as_f64(), Some(0.0));
        assert!(l[1]["stages_ms"].is_null() && l[2]["stages_ms"].is_null());
        assert_eq!(
            (l[1]["threads"].as_u64(), l[2]["threads"].as_u64()),
            (Some(1), Some(16))
        );
    }

    #[test]
    fn gpu_only_and_contact_rows_leave_out_what_was_not_measured() {
        let l = lines(&row(false, true));
        assert_eq!(l.len(), 1, "no CPU lines without CPU times: {l:?}");
        let v = &l[0];
        assert_eq!(v["path"], "gpu");
        for key in [
            "speedup_over_cpu1",
            "bytes_moved_per_substep",
            "gb_per_s",
            "stages_ms",
        ] {
            assert!(v[key].is_null(), "{key} in {v}");
        }
        let t = row(false, true).table_line(&machine());
        assert!(!t.contains("NaN") && t.contains(" - "), "{t}");
    }

    /// The whole harness on the GPU: a small core scene and a small contact
    /// scene, every path timed, numbers finite and consistent.
    #[test]
    fn a_small_run_measures_every_path() {
        let Some(ctx) = common::gpu() else { return };
        let o = opts(&["--runs", "1", "--steps", "2", "--settle", "3"]).unwrap();
        for (scene, n) in [("core", 1_000), ("contacts", 20)] {
            let r = measure(&ctx, &o, scene, n).unwrap();
            assert_eq!(r.scene, scene);
            assert!(r.points >= n.min(1_000) && r.substeps == 8, "{scene}");
            let (one, all) = r.cpu_ms.expect("CPU timed");
            for ms in [r.gpu_ms, one, all] {
                assert!(ms.is_finite() && ms > 0.0, "{scene}: {ms}");
            }
            assert!(
                r.gpu_bytes_per_point > 16.0,
                "{scene}: {}",
                r.gpu_bytes_per_point
            );
            assert_eq!(r.moved.is_some(), scene == "core");
            assert_eq!(r.body_collisions, scene == "contacts");
            if let Some(s) = r.stages {
                assert!(s.total() > 0.0 && s.springs > 0.0, "{scene}: {s:?}");
                assert_eq!(s.body_collide > 0.0, scene == "contacts", "{s:?}");
            }
        }
    }

    #[test]
    fn a_contact_scene_starts_from_its_whole_settled_or_saved_state() {
        let Some(ctx) = common::gpu() else { return };
        let world = contact_scene(20).unwrap();
        let settled = opts(&["--bodies", "20", "--settle", "400"]).unwrap();
        let start = start_state(&ctx, &settled, "contacts", &world)
            .unwrap()
            .expect("settled");
        assert_eq!(start.step, 400);
        // Sleeping's counts and the warm starts come along, not just the
        // positions: the bodies have landed and some have been at rest.
        assert!(
            start.rest_steps.iter().any(|&r| r > 0),
            "{:?}",
            start.rest_steps
        );
        assert!(start.warm.iter().any(|w| w.iter().any(|&x| x != 0)));
        assert!(
            start_state(&ctx, &settled, "core", &world)
                .unwrap()
                .is_none()
        );

        let dir = std::env::temp_dir().join(format!("bench-start-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("pile.ckpt");
        start.write(&file).unwrap();
        let arg = file.to_str().unwrap();
        let loaded = opts(&["--bodies", "20", "--load-state", arg]).unwrap();
        let read = start_state(&ctx, &loaded, "contacts", &world)
            .unwrap()
            .unwrap();
        assert_eq!(
            (read.step, &read.pos, &read.rest_steps),
            (400, &start.pos, &start.rest_steps)
        );
        // A checkpoint of another scene is refused, naming the file.
        let other = contact_scene(30).unwrap();
        let e = start_state(&ctx, &loaded, "contacts", &other).unwrap_err();
        assert!(e.to_string().contains("pile.ckpt"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
