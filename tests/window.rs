//! The window program starts, renders frames and exits on its own.
//!
//! Needs an X display: with `DISPLAY` unset the test starts `Xvfb` itself
//! (and stops it afterwards). Without `Xvfb` it is skipped with a message,
//! except under `CI=true`, where that is a failure (CI installs `xvfb`, see
//! `.ci/run`). Like every GPU test it fails under `CI=true` without an
//! adapter (`common::gpu`).

mod common;

use std::time::Instant;

use common::display;

use softbody::app::{AppOptions, run};

#[test]
fn the_window_opens_renders_frames_and_exits() {
    let Some(_xvfb) = display::display() else {
        return;
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

/// A shape spawned from the window goes in by a sync, not a new solver: a
/// sleeping row of boxes stays asleep and keeps its state when a box is
/// spawned away from it, and the box falls.
#[test]
fn a_spawn_from_the_window_leaves_a_sleeping_pile_asleep() {
    use softbody::app::sim::{Sim, SpawnKind};
    use softbody::prelude::*;
    use softbody::render::{OFFSCREEN_FORMAT, Renderer};
    let Some(ctx) = common::gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    for k in 0..6 {
        BoxShape::new(Vec2::new(0.7 * k as f32, 0.26), Vec2::splat(0.5))
            .build(&mut world)
            .unwrap();
    }
    let mut renderer = Renderer::new(d, q, OFFSCREEN_FORMAT, 1).unwrap();
    let mut sim = Sim::new(d, q, &mut renderer, world).unwrap();
    sim.solver.step(d, q, 240).unwrap();
    let asleep = sim.solver.read_sleeping_points(d, q).unwrap();
    assert_eq!(asleep, 24, "the row sleeps before the spawn");
    let before = sim.solver.read_state(d, q).unwrap();
    let steps = sim.solver.steps();
    sim.spawn(
        d,
        q,
        &mut renderer,
        &[(SpawnKind::Box, Vec2::new(-20.0, 5.0))],
    )
    .unwrap();
    assert_eq!(sim.solver.steps(), steps);
    assert_eq!(sim.world.bodies().len(), 7);
    assert_eq!(sim.solver.read_sleeping_points(d, q).unwrap(), 24);
    sim.solver.step(d, q, 30).unwrap();
    let after = sim.solver.read_state(d, q).unwrap();
    assert_eq!(&after.positions()[..24], &before.positions()[..24]);
    assert_eq!(sim.solver.read_sleeping_points(d, q).unwrap(), 24);
    // Half a second of free fall: about 1.2 m.
    let centre = after.positions()[24..].iter().sum::<Vec2>() / 4.0;
    assert!(centre.y < 4.0, "the spawned box falls: {centre}");
}
