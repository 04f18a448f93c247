//! Hinged chains with angle limits (`Command::BodyAngleLimit`), and what
//! the limits cost.
//!
//! `cargo run --release --example chains -- [--chains N] [--backend cpu|gpu] [--limit RAD] [--seconds S] [--png out.png]`
//!
//! Each chain is eight boxes (0.4 by 0.1 m, diagonal springs) hinged at
//! shared corners, released level from a pinned end, in rows of 25 one
//! above another. Every other chain
//! queues limits of `[-limit, limit]` between neighbours each step; the
//! others swing free. It prints each kind's largest bend between
//! neighbours and the median step with the limits (queueing them
//! included) and without, and draws
//! the last state to `--png` (the limited chains are the first, third,
//! ...).

use clap::{Parser, ValueEnum};
use softbody::commands::Command;
use softbody::prelude::*;
use softbody::render::{Camera, RenderOptions, render_png};
use softbody::solver::Solver;
use std::time::Instant;

#[derive(Clone, Copy, ValueEnum)]
enum Backend {
    Cpu,
    Gpu,
}

#[derive(Parser)]
struct Args {
    /// How many chains.
    #[arg(long, default_value_t = 4)]
    chains: usize,
    /// Which path steps the world.
    #[arg(long, value_enum, default_value = "cpu")]
    backend: Backend,
    /// The limit between neighbours, radians either way.
    #[arg(long, default_value_t = 0.4)]
    limit: f32,
    /// Simulated time.
    #[arg(long, default_value_t = 3.0)]
    seconds: f32,
    /// Draw the last state to this PNG.
    #[arg(long)]
    png: Option<std::path::PathBuf>,
}

/// Adds a chain of eight hinged boxes, pinned at its left end at `at`.
fn chain(world: &mut World, at: Vec2) -> Result<Vec<BodyHandle>, WorldError> {
    let (l, w) = (0.4, 0.1);
    let mut hinge = world.add_point(Point::new(at).mass(0.0))?;
    let mut links = vec![];
    for i in 0..8 {
        let x = at.x + l * i as f32;
        let br = world.add_point(Point::new(Vec2::new(x + l, at.y)))?;
        let tr = world.add_point(Point::new(Vec2::new(x + l, at.y + w)))?;
        let tl = world.add_point(Point::new(Vec2::new(x, at.y + w)))?;
        world.add_spring(Spring::new(hinge, tr))?;
        world.add_spring(Spring::new(br, tl))?;
        links.push(world.add_body(Body::new(vec![hinge, br, tr, tl]))?);
        hinge = br;
    }
    Ok(links)
}

/// The best-fit angle of `body` from rest, from the state (as the
/// kernels measure it).
fn angle(world: &World, pos: &[[f32; 2]], body: BodyHandle) -> f32 {
    let points = &world.bodies()[body.index()].points;
    let rest = &world.rest_shapes()[body.index()];
    let mass = |h: &PointHandle| world.point(*h).mass;
    let m: f32 = points.iter().map(mass).sum();
    let c = points
        .iter()
        .map(|h| mass(h) * Vec2::from(pos[h.index()]))
        .sum::<Vec2>()
        / m;
    let (mut cross, mut dot) = (0.0, 0.0);
    for (h, q) in points.iter().zip(rest) {
        let d = Vec2::from(pos[h.index()]) - c;
        cross += mass(h) * q.perp_dot(d);
        dot += mass(h) * q.dot(d);
    }
    cross.atan2(dot)
}

/// Where chain `i` is pinned: rows of 25, 4 m apart, one above another.
fn pin(i: usize) -> Vec2 {
    Vec2::new(4.0 * (i % 25) as f32, 5.0 + 5.0 * (i / 25) as f32)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    unsafe { softbody::gpu::quiet_display_probe() };
    let args = Args::parse();
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0))?;
    let chains = (0..args.chains)
        .map(|i| chain(&mut world, pin(i)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut solver = match args.backend {
        Backend::Cpu => Solver::cpu(&world)?,
        Backend::Gpu => Solver::gpu(&world)?,
    };
    let dt = world.params.dt;
    let steps = (args.seconds / dt).round() as usize;
    let mut worst = [0.0f32; 2];
    // Steps timed with the limits, and a twin's without any.
    let mut times: [Vec<f64>; 2] = [vec![], vec![]];
    for step in 0..steps {
        // The even chains' limits, every step: queueing them is timed with
        // the step.
        let t = Instant::now();
        for (links, _) in chains.iter().zip(0..).filter(|(_, i)| i % 2 == 0) {
            for pair in links.windows(2) {
                solver.queue(Command::BodyAngleLimit {
                    body: pair[1],
                    other: Some(pair[0]),
                    lower: -args.limit,
                    upper: args.limit,
                })?;
            }
        }
        solver.step(1)?;
        solver.wait()?;
        times[0].push(t.elapsed().as_secs_f64() * 1e3);
        let (pos, _) = solver.state()?;
        for (i, links) in chains.iter().enumerate() {
            for pair in links.windows(2) {
                let bend = angle(&world, &pos, pair[1]) - angle(&world, &pos, pair[0]);
                let bend = (bend + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU)
                    - std::f32::consts::PI;
                worst[i % 2] = worst[i % 2].max(bend.abs());
            }
        }
        if step == steps / 2 {
            // One stretch of steps without any limit, for the cost.
            let mut twin = match args.backend {
                Backend::Cpu => Solver::cpu(&world)?,
                Backend::Gpu => Solver::gpu(&world)?,
            };
            let (pos, vel) = solver.state()?;
            twin.set_state(&pos, &vel)?;
            for _ in 0..30 {
                let t = Instant::now();
                twin.step(1)?;
                twin.wait()?;
                times[1].push(t.elapsed().as_secs_f64() * 1e3);
            }
        }
    }
    let limits = (args.chains.div_ceil(2)) * 7;
    for t in &mut times {
        t.sort_by(|a, b| a.total_cmp(b));
    }
    let median = |t: &[f64]| t[t.len() / 2];
    println!(
        "{}: {} chains, {limits} limits of {} rad: largest bend {:.3} rad limited, {:.3} free; median step {:.2} ms with the limits, {:.2} without",
        solver.name(),
        args.chains,
        args.limit,
        worst[0],
        worst[1],
        median(&times[0]),
        median(&times[1]),
    );
    if let Some(path) = &args.png {
        let (pos, vel) = solver.state()?;
        let v = |x: &[[f32; 2]]| x.iter().map(|&p| Vec2::from(p)).collect::<Vec<_>>();
        world.set_state(&v(&pos), &v(&vel))?;
        // The first row; the chains swing 3.2 m either side of their pins.
        let row = args.chains.min(25);
        let width = 4.0 * row as f32 + 4.0;
        let opts = RenderOptions {
            camera: Some(Camera {
                center: Vec2::new(2.0 * (row as f32 - 1.0), 3.0),
                pixels_per_metre: 1200.0 / width,
            }),
            ..RenderOptions::default()
        };
        render_png(
            &world,
            0,
            (1200, (7.0 * 1200.0 / width) as u32),
            path,
            &opts,
        )?;
        println!("drew the last state to {}", path.display());
    }
    Ok(())
}
