//! Whole-step benchmark of the GPU path against the CPU reference.
//!
//! `cargo run --release --example bench -- [--points N | --bodies N] [--json] [--steps N] [--settle N] [--runs N] [--gpu-only] [--peak-gbs G]`
//!
//! Two scenes: the core solver's (`scenes::bench_scene`, 1k to 1M points,
//! body collisions off) and the contact-heavy one (`scenes::contact_scene`,
//! 10k and 100k bodies piled on planets, body collisions on; stepped
//! `--settle` steps on the GPU first, default 60). `--points N` runs the
//! first at one size only, `--bodies N` the second.
//!
//! For each scene size: GPU ms/step (wall clock around submit + wait, no
//! readback inside the timed loop) and per stage (timestamp queries when the
//! adapter has them), CPU reference ms/step on one thread and on all threads,
//! point-substeps per second, GPU memory per point and an estimate of bytes
//! moved per substep, with the achieved GB/s against the device's peak
//! memory bandwidth when it is known (the GPUs this project targets, by
//! adapter name, or `--peak-gbs`); not for the contact scene, whose grid
//! walks the estimate does not model (`-`, `null` in JSON). The three
//! paths are timed in turns (GPU, CPU 1 thread, CPU all threads, then
//! again), `--runs` rounds (default 5), and each reports its median: on a
//! shared machine a burst of other work then falls on all three rather
//! than on whichever happened to be running.

use std::time::Instant;

use softbody::gpu::{GpuContext, StageTimes};
use softbody::prelude::*;
use softbody::scenes::{bench_scene, contact_scene};

struct Opts {
    /// Point counts of the core scene.
    sizes: Vec<usize>,
    /// Body counts of the contact scene.
    bodies: Vec<usize>,
    json: bool,
    steps: Option<u32>,
    settle: u32,
    runs: usize,
    gpu_only: bool,
    peak_gbs: Option<f64>,
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

fn parse() -> Opts {
    let mut o = Opts {
        sizes: vec![1_000, 10_000, 100_000, 1_000_000],
        bodies: vec![10_000, 100_000],
        json: false,
        steps: None,
        settle: 60,
        runs: 5,
        gpu_only: false,
        peak_gbs: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--points" => {
                o.sizes = vec![it.next().and_then(|s| s.parse().ok()).expect("--points N")];
                o.bodies.clear();
            }
            "--bodies" => {
                o.bodies = vec![it.next().and_then(|s| s.parse().ok()).expect("--bodies N")];
                o.sizes.clear();
            }
            "--settle" => o.settle = it.next().and_then(|s| s.parse().ok()).expect("--settle N"),
            "--steps" => o.steps = it.next().and_then(|s| s.parse().ok()),
            "--runs" => {
                o.runs = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .filter(|&r| r > 0)
                    .expect("--runs N (N > 0)")
            }
            "--peak-gbs" => {
                o.peak_gbs = Some(
                    it.next()
                        .and_then(|s| s.parse().ok())
                        .filter(|&g: &f64| g > 0.0)
                        .expect("--peak-gbs G (G > 0)"),
                )
            }
            "--json" => o.json = true,
            "--gpu-only" => o.gpu_only = true,
            other => panic!(
                "unknown argument {other}; usage: bench [--points N | --bodies N] [--steps N] [--settle N] [--json] [--gpu-only]"
            ),
        }
    }
    o
}

/// A JSON number, or `null` for none (or a NaN).
fn json_num(x: Option<f64>) -> String {
    match x {
        Some(x) if x.is_finite() => format!("{x:.3}"),
        _ => "null".into(),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let opts = parse();
    let ctx = GpuContext::new_headless()?;
    let info = ctx.adapter.get_info();
    let adapter = ctx.adapter_summary();
    let threads = rayon::current_num_threads();
    let peak_gbs = opts.peak_gbs.or_else(|| known_peak_gbs(&info.name));
    if !opts.json {
        println!("adapter: {adapter}");
        match peak_gbs {
            Some(g) => println!("peak memory bandwidth: {g} GB/s"),
            None => println!("peak memory bandwidth: unknown (--peak-gbs G to give it)"),
        }
        println!(
            "CPU threads: {threads}; 8 substeps per step; median of {} runs after warm-up, paths in turns",
            opts.runs
        );
        if info.name.contains("llvmpipe") {
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
    let scenes = opts
        .sizes
        .iter()
        .map(|&n| ("core", n))
        .chain(opts.bodies.iter().map(|&b| ("contacts", b)));
    for (scene, n) in scenes {
        let mut world = if scene == "core" {
            bench_scene(n)?
        } else {
            contact_scene(n)?
        };
        if scene == "contacts" && opts.settle > 0 {
            // Let the bodies pile up first (on the GPU, reading back once).
            let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world)?;
            for _ in 0..opts.settle.div_ceil(10) {
                gpu.step(&ctx.device, &ctx.queue, 10);
                gpu.wait(&ctx.device)?;
            }
            let state = gpu.read_state(&ctx.device, &ctx.queue)?;
            let v2 = |v: &[[f32; 2]]| v.iter().map(|p| Vec2::from(*p)).collect::<Vec<_>>();
            world.set_state(&v2(&state.pos), &v2(&state.vel))?;
        }
        let points = world.points().len();
        let substeps = world.params.substeps;
        // Enough steps for ~0.3 s of GPU work per run, at least 2.
        let steps = opts
            .steps
            .unwrap_or(((3_000_000 / points.max(1)) as u32).clamp(2, 200));
        let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world)?;
        gpu.step(&ctx.device, &ctx.queue, 2); // warm-up
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
            cpu.step(); // warm-up
        }
        // Rounds of GPU, CPU 1 thread, CPU all threads.
        let mut times = vec![Vec::new(); 1 + cpus.len()];
        for _ in 0..opts.runs {
            let t = Instant::now();
            gpu.step(&ctx.device, &ctx.queue, steps);
            gpu.wait(&ctx.device)?;
            times[0].push(t.elapsed().as_secs_f64() * 1e3 / steps as f64);
            for (cpu, times) in cpus.iter_mut().zip(&mut times[1..]) {
                let t = Instant::now();
                for _ in 0..cpu_steps {
                    cpu.step();
                }
                times.push(t.elapsed().as_secs_f64() * 1e3 / cpu_steps as f64);
            }
        }
        let mut medians = times.into_iter().map(median);
        let gpu_ms = medians.next().unwrap_or(f64::NAN);
        let cpu1_ms = medians.next().unwrap_or(f64::NAN);
        let cpun_ms = medians.next().unwrap_or(f64::NAN);
        let stages: Option<StageTimes> = gpu.profile_step(&ctx.device, &ctx.queue)?;
        let pss = points as f64 * substeps as f64 / (gpu_ms * 1e-3);
        let bytes_per_point = gpu.gpu_bytes() as f64 / points as f64;
        // Body contacts' traffic depends on how the bodies pile up (the
        // grid walks), which the estimate does not model: no GB/s for them.
        let moved = (!gpu.has_contacts()).then(|| gpu.bytes_moved_per_substep() as f64);
        let gbs = moved.map(|m| m * substeps as f64 / (gpu_ms * 1e-3) / 1e9);
        let of_peak = gbs.zip(peak_gbs).map(|(g, p)| 100.0 * g / p);
        let stage_text = stages
            .as_ref()
            .map(|s| s.to_string())
            .unwrap_or_else(|| "n/a".into());
        if opts.json {
            for (path, ms) in [("gpu", gpu_ms), ("cpu1", cpu1_ms), ("cpu_all", cpun_ms)] {
                println!(
                    "{{\"scene\":\"{scene}\",\"body_collisions\":{},\"points\":{points},\"bodies\":{},\"springs\":{},\"substeps\":{substeps},\"path\":\"{path}\",\"ms_per_step\":{ms:.4},\"point_substeps_per_s\":{:.0},\"threads\":{},\"gpu_bytes_per_point\":{bytes_per_point:.1},\"bytes_moved_per_substep\":{},\"gb_per_s\":{},\"peak_gb_per_s\":{},\"adapter\":\"{}\",\"backend\":\"{:?}\",\"device_type\":\"{:?}\"}}",
                    world.params.body_collisions,
                    world.bodies().len(),
                    world.springs().len(),
                    points as f64 * substeps as f64 / (ms * 1e-3),
                    if path == "cpu_all" { threads } else { 1 },
                    moved.map_or("null".into(), |m| format!("{m:.0}")),
                    json_num(gbs.filter(|_| path == "gpu")),
                    json_num(peak_gbs),
                    info.name,
                    info.backend,
                    info.device_type,
                );
            }
        } else {
            println!(
                "{:>8} {:>9} {:>7} {:>8} {:>9.3} {:>9.3} {:>9.3} {:>9.2} {:>10.1} {:>7.1} {:>7} {:>6}  {}",
                scene,
                points,
                world.bodies().len(),
                world.springs().len(),
                gpu_ms,
                cpu1_ms,
                cpun_ms,
                cpu1_ms / gpu_ms,
                pss / 1e6,
                bytes_per_point,
                gbs.map_or("-".into(), |g| format!("{g:.2}")),
                of_peak.map_or("-".into(), |p| format!("{p:.1}%")),
                stage_text
            );
        }
    }
    Ok(())
}
