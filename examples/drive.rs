//! What driving the world from code costs: contact events and queries,
//! per step, on the default scene, on both paths.
//!
//! `cargo run --release --example drive -- [--bodies N] [--settle S] [--steps K] [--rays R] [--path both|cpu|gpu]`
//!
//! The scene is stepped `--settle` steps (events off), then `--steps`
//! steps with events off and `--steps` with events on, collecting the
//! events (between bodies, and with the colliders) after every step; then `--steps` batches of `--rays` ray casts
//! (and as many body-under-a-point queries). It prints milliseconds per
//! step or per batch: on the CPU timed as it runs, on the GPU from submit
//! to the answer (the non-blocking readbacks polled until they answer).

use std::time::Instant;

use clap::Parser;
use softbody::query::Ray;
use softbody::scenes::default_scene;

#[derive(Parser)]
struct Args {
    /// Bodies in the default scene.
    #[arg(long, default_value_t = 2000)]
    bodies: usize,
    /// Steps before measuring.
    #[arg(long, default_value_t = 120)]
    settle: u32,
    /// Steps (and query batches) measured each way.
    #[arg(long, default_value_t = 30)]
    steps: u32,
    /// Rays (and points) per batch.
    #[arg(long, default_value_t = 64)]
    rays: usize,
    /// Which paths to measure: `both`, `cpu` or `gpu`.
    #[arg(long, default_value = "both")]
    path: String,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    unsafe { softbody::gpu::quiet_display_probe() };
    let args = Args::parse();
    let world = default_scene(args.bodies)?;
    let rays: Vec<Ray> = (0..args.rays)
        .map(|k| {
            let x = -60.0 + 120.0 * k as f32 / args.rays as f32;
            Ray::new(glam::Vec2::new(x, 40.0), glam::Vec2::new(0.1, -1.0), 200.0)
        })
        .collect();
    let probes: Vec<glam::Vec2> = rays
        .iter()
        .map(|r| r.origin - glam::Vec2::new(0.0, 38.0))
        .collect();
    if args.path != "gpu" {
        cpu_path(&args, &world, &rays, &probes)?;
    }
    if args.path != "cpu" {
        gpu_path(&args, &world, &rays, &probes)?;
    }
    Ok(())
}

fn cpu_path(
    args: &Args,
    world: &softbody::world::World,
    rays: &[Ray],
    probes: &[glam::Vec2],
) -> Result<(), Box<dyn std::error::Error>> {
    let per = |t: Instant| t.elapsed().as_secs_f64() * 1e3 / args.steps as f64;
    let mut cpu = softbody::cpu::CpuSolver::new(world)?.parallel(true);
    for _ in 0..args.settle {
        cpu.step();
    }
    let t = Instant::now();
    for _ in 0..args.steps {
        cpu.step();
    }
    let off = per(t);
    cpu.set_contact_events(true);
    let mut events = 0;
    let t = Instant::now();
    for _ in 0..args.steps {
        cpu.step();
        let e = cpu.take_contact_events();
        events += e.events.len() + e.colliders.len();
    }
    let on = per(t);
    let t = Instant::now();
    for _ in 0..args.steps {
        std::hint::black_box(cpu.cast_rays(rays)?);
        std::hint::black_box(cpu.bodies_at(probes)?);
    }
    let queries = per(t);
    println!(
        "CPU (all threads), {} bodies: step {off:.2} ms, with events {on:.2} ms ({events} events); {} rays and points {queries:.3} ms a batch",
        args.bodies, args.rays
    );
    Ok(())
}

fn gpu_path(
    args: &Args,
    world: &softbody::world::World,
    rays: &[Ray],
    probes: &[glam::Vec2],
) -> Result<(), Box<dyn std::error::Error>> {
    let per = |t: Instant| t.elapsed().as_secs_f64() * 1e3 / args.steps as f64;
    let ctx = softbody::gpu::GpuContext::new_headless()?;
    let (device, queue) = (&ctx.device, &ctx.queue);
    let mut gpu = softbody::gpu::GpuSolver::new(device, queue, world)?;
    gpu.step(device, queue, args.settle)?;
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let wait = || device.poll(wgpu::PollType::wait_indefinitely()).map(|_| ());
    let t = Instant::now();
    for _ in 0..args.steps {
        gpu.step(device, queue, 1)?;
        wait()?;
    }
    let off = per(t);
    gpu.set_contact_events(device, true)?;
    let mut events = 0;
    let t = Instant::now();
    for _ in 0..args.steps {
        let mut encoder = device.create_command_encoder(&Default::default());
        gpu.record_step(&mut encoder);
        let mut pending = gpu.request_contact_events(device, &mut encoder)?;
        queue.submit([encoder.finish()]);
        events += loop {
            if let Some(r) = pending.poll(device) {
                let e = r?;
                break e.events.len() + e.colliders.len();
            }
        };
    }
    let on = per(t);
    let t = Instant::now();
    for _ in 0..args.steps {
        let mut encoder = device.create_command_encoder(&Default::default());
        let mut hits = gpu.request_ray_casts(device, &mut encoder, rays)?;
        let mut under = gpu.request_bodies_at(device, &mut encoder, probes)?;
        queue.submit([encoder.finish()]);
        let (mut a, mut b) = (None, None);
        while a.is_none() || b.is_none() {
            a = a.or_else(|| hits.poll(device));
            b = b.or_else(|| under.poll(device));
        }
        std::hint::black_box((a.unwrap()?, b.unwrap()?));
    }
    let queries = per(t);
    println!(
        "GPU ({}), {} bodies: step {off:.2} ms, with events {on:.2} ms ({events} events); {} rays and points {queries:.3} ms a batch",
        ctx.adapter_summary(),
        args.bodies,
        args.rays
    );
    Ok(())
}
