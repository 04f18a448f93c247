//! The window program starts, renders frames and exits on its own.
//!
//! Needs an X display: with `DISPLAY` unset the test starts `Xvfb` itself
//! (and stops it afterwards). Without `Xvfb` it is skipped with a message,
//! except under `CI=true`, where that is a failure (CI installs `xvfb`, see
//! `.ci/run`). Like every GPU test it fails under `CI=true` without an
//! adapter (`common::gpu`).

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use softbody::app::{AppOptions, run};

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// An `Xvfb` this test started; stopped when dropped.
struct Xvfb(Child);

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `Xvfb` on a free display and points `DISPLAY` at it; `None` when
/// there is no `Xvfb` to run.
fn start_xvfb() -> Option<Xvfb> {
    let n = (90..200).find(|n| {
        !Path::new(&format!("/tmp/.X{n}-lock")).exists()
            && !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
    })?;
    let child = Command::new("Xvfb")
        .args([
            &format!(":{n}"),
            "-screen",
            "0",
            "1024x768x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let xvfb = Xvfb(child);
    let socket = format!("/tmp/.X11-unix/X{n}");
    let start = Instant::now();
    while !Path::new(&socket).exists() {
        if start.elapsed() > Duration::from_secs(20) {
            panic!("Xvfb :{n} did not come up within 20 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: this file holds a single test, so no other thread of this
    // process reads or writes the environment while we do.
    unsafe {
        std::env::set_var("DISPLAY", format!(":{n}"));
        std::env::remove_var("WAYLAND_DISPLAY");
    }
    eprintln!("started Xvfb on :{n}");
    Some(xvfb)
}

#[test]
fn the_window_opens_renders_frames_and_exits() {
    let _xvfb = if std::env::var_os("DISPLAY").is_some() {
        None
    } else {
        match start_xvfb() {
            Some(x) => Some(x),
            None if in_ci() => {
                panic!("CI=true but DISPLAY is unset and Xvfb could not be started; install xvfb")
            }
            None => {
                eprintln!("SKIPPED: DISPLAY is unset and there is no Xvfb (apt-get install xvfb)");
                return;
            }
        }
    };
    // An adapter at all (fails under CI=true without one).
    if common::gpu().is_none() {
        return;
    }
    let start = Instant::now();
    let frames = 12;
    let result = run(AppOptions {
        bodies: 400,
        frames: Some(frames),
        size: (480, 320),
        vsync: false,
        report: true,
        ..Default::default()
    });
    if let Err(e) = &result {
        panic!("the window program failed: {e}");
    }
    eprintln!(
        "presented {frames} frames in {:.1} s",
        start.elapsed().as_secs_f64()
    );
}

/// The ship sample's window: its lights collect contact events every
/// frame without waiting (the debris resting on the home planet begin
/// touching it at once) and light the bodies; it runs and exits cleanly.
#[test]
fn the_ship_sample_window_runs_with_its_lights() {
    let _xvfb = if std::env::var_os("DISPLAY").is_some() {
        None
    } else {
        match start_xvfb() {
            Some(x) => Some(x),
            None if in_ci() => {
                panic!("CI=true but DISPLAY is unset and Xvfb could not be started; install xvfb")
            }
            None => {
                eprintln!("SKIPPED: DISPLAY is unset and there is no Xvfb (apt-get install xvfb)");
                return;
            }
        }
    };
    if common::gpu().is_none() {
        return;
    }
    let game = softbody::ship::ship_game().unwrap();
    let result = run(AppOptions {
        world: Some(game.world),
        ship: Some(game.ship),
        frames: Some(20),
        size: (480, 320),
        vsync: false,
        ..Default::default()
    });
    if let Err(e) = &result {
        panic!("the ship sample's window failed: {e}");
    }
}

/// Shapes asked for within one frame go in with one readback and one
/// upload (`Sim::spawn` takes them all): a key held down on lavapipe used
/// to re-upload the world once per shape and freeze the window for
/// seconds. Every shape arrives, at rest, where it was asked for, except
/// one asked for where another already is: it goes on top of it.
#[test]
fn shapes_asked_for_in_one_frame_arrive_together() {
    use softbody::app::sim::{Sim, SpawnKind};
    use softbody::prelude::*;
    use softbody::render::{OFFSCREEN_FORMAT, Renderer};
    let Some(ctx) = common::gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut world = World::default();
    BoxShape::new(Vec2::ZERO, Vec2::ONE)
        .build(&mut world)
        .unwrap();
    let mut renderer = Renderer::new(d, q, OFFSCREEN_FORMAT, 1).unwrap();
    let mut sim = Sim::new(d, q, &mut renderer, world).unwrap();
    let shapes = [
        (SpawnKind::Box, Vec2::new(5.0, 5.0)),
        (SpawnKind::Wheel, Vec2::new(-5.0, 5.0)),
        (SpawnKind::Box, Vec2::new(0.0, 9.0)),
    ];
    sim.spawn(d, q, &mut renderer, &shapes).unwrap();
    // The same spot again: the key held with the cursor still.
    sim.spawn(d, q, &mut renderer, &shapes[..1]).unwrap();
    let world = sim.current_world(d, q).unwrap();
    assert_eq!(world.bodies().len(), 5);
    assert_eq!(sim.solver.num_points(), world.points().len());
    let centre = |b: usize| {
        let pts = &world.bodies()[b].points;
        pts.iter()
            .map(|p| world.points()[p.index()].pos)
            .sum::<Vec2>()
            / pts.len() as f32
    };
    for (b, (_, at)) in shapes.iter().enumerate() {
        assert!(
            (centre(b + 1) - *at).length() < 0.3,
            "shape {b} at {}",
            centre(b + 1)
        );
    }
    // Above the first, clear of it (unit boxes, gravity down).
    let above = centre(4) - centre(1);
    assert!(above.x.abs() < 1e-4 && above.y > 1.0, "{above}");
}
