//! A car on motored wheels: joints made of shared points, motors, and a
//! joint that breaks.
//!
//! `cargo run --release --example car -- [--backend cpu|gpu] [--png out.png]`
//!
//! The chassis is a body of its own whose points include the hubs of two
//! wheels, so each wheel turns about its hub as on an axle. Every step
//! queues a motor on each wheel against the chassis (`Command::BodyMotor`),
//! and the car drives over a terrain bump into a stack of crates. After
//! 4 s the front axle breaks (`World::remove_points` of the shared hub):
//! the wheel rolls on alone. It prints the car's progress and draws the
//! end to `--png`.

use clap::{Parser, ValueEnum};
use softbody::commands::Command;
use softbody::prelude::*;
use softbody::render::{Camera, RenderOptions, render_png};
use softbody::solver::Solver;

#[derive(Clone, Copy, ValueEnum)]
enum Backend {
    Cpu,
    Gpu,
}

#[derive(Parser)]
struct Args {
    /// Which path steps the world.
    #[arg(long, value_enum, default_value = "cpu")]
    backend: Backend,
    /// Draw the last state to this PNG.
    #[arg(long)]
    png: Option<std::path::PathBuf>,
}

/// The car's parts: the wheels, their hubs (points of the chassis body
/// too) and the chassis' outline.
struct Car {
    wheels: Vec<BodyHandle>,
    hubs: Vec<PointHandle>,
    corners: Vec<PointHandle>,
    chassis: BodyHandle,
}

fn build(world: &mut World) -> Result<Car, WorldError> {
    let radius = 0.35;
    let (mut wheels, mut hubs) = (vec![], vec![]);
    for x in [-0.7f32, 0.7] {
        let at = Vec2::new(x, radius + 0.02);
        let wheel = Wheel::new(at, radius, 12).build(world)?;
        // The Wheel's points are its rim, then its hub.
        hubs.push(*wheel.points.last().expect("a wheel has a hub"));
        wheels.push(wheel.bodies[0]);
    }
    let corners = [(-1.0, 0.8), (1.0, 0.8), (1.0, 1.1), (-1.0, 1.1)]
        .map(|(x, y)| world.add_point(Point::new(Vec2::new(x, y)).mass(3.0)))
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    let chassis =
        world.add_body(Body::new([&corners[..], &hubs[..]].concat()).boundary(corners.clone()))?;
    Ok(Car {
        wheels,
        hubs,
        corners,
        chassis,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    unsafe { softbody::gpu::quiet_display_probe() };
    let args = Args::parse();
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0))?;
    // A bump, from right to left: solid below (a polyline's solid side
    // is on the left of its direction).
    world.add_terrain(Terrain::new(vec![
        Vec2::new(8.0, 0.0),
        Vec2::new(6.0, 0.35),
        Vec2::new(5.0, 0.35),
        Vec2::new(3.0, 0.0),
    ]))?;
    let mut car = build(&mut world)?;
    for row in 0..3 {
        for col in 0..2 {
            let at = Vec2::new(11.0 + 0.52 * col as f32, 0.26 + 0.52 * row as f32);
            BoxShape::new(at, Vec2::splat(0.5)).build(&mut world)?;
        }
    }
    let mut solver = match args.backend {
        Backend::Cpu => Solver::cpu(&world)?,
        Backend::Gpu => Solver::gpu(&world)?,
    };
    let dt = world.params.dt;
    for step in 0..360u32 {
        if step == 240 {
            let removal = world.remove_points(&[car.hubs[1]])?;
            solver.apply_removal(&world, &removal)?;
            let moved = |h: PointHandle| removal.point(h).expect("kept");
            car.corners = car.corners.iter().map(|&h| moved(h)).collect();
            car.hubs = vec![moved(car.hubs[0])];
            car.chassis = removal.body(car.chassis).expect("kept");
            car.wheels = vec![removal.body(car.wheels[0]).expect("kept")];
            println!("{:.1} s: the front axle breaks", step as f32 * dt);
        }
        for &wheel in &car.wheels {
            solver.queue(Command::BodyMotor {
                body: wheel,
                other: Some(car.chassis),
                speed: -10.0,
                max_torque: 40.0,
            })?;
        }
        solver.step(1)?;
        if (step + 1) % 60 == 0 {
            let (pos, vel) = solver.state()?;
            let mean = |v: &[[f32; 2]]| {
                car.corners
                    .iter()
                    .map(|h| Vec2::from(v[h.index()]))
                    .sum::<Vec2>()
                    / 4.0
            };
            let (at, v) = (mean(&pos), mean(&vel));
            println!(
                "{:.1} s: chassis at ({:.2}, {:.2}) m, moving at {:.2} m/s",
                (step + 1) as f32 * dt,
                at.x,
                at.y,
                v.length()
            );
        }
    }
    if let Some(path) = &args.png {
        let (pos, vel) = solver.state()?;
        let v = |x: &[[f32; 2]]| x.iter().map(|&p| Vec2::from(p)).collect::<Vec<_>>();
        world.set_state(&v(&pos), &v(&vel))?;
        let opts = RenderOptions {
            camera: Some(Camera {
                center: Vec2::new(10.0, 1.5),
                pixels_per_metre: 60.0,
            }),
            ..RenderOptions::default()
        };
        render_png(&world, 0, (1200, 360), path, &opts)?;
        println!("drew the last state to {}", path.display());
    }
    Ok(())
}
