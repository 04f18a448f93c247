//! Sleeping (`shaders/sleep.wgsl`, `src/cpu/sleep.rs`): assemblies at rest
//! stop exactly, wake when something lands on them or the world is
//! changed, resume from a checkpoint as they were, and the GPU decides as
//! the CPU does. (A version 1 checkpoint, from before sleeping, is read
//! in `src/checkpoint/tests.rs`.)

use crate::body_collide::record_stages;
use crate::common::{both, centroid, farthest, gpu};
use softbody::checkpoint::Checkpoint;
use softbody::gpu::Stage;
use softbody::prelude::*;
use softbody::solver::Solver;
use softbody::{Params, samples};

/// Movable points (pinned ones never count as asleep).
fn movable(world: &World) -> usize {
    world.points().iter().filter(|p| p.mass > 0.0).count()
}

/// A box resting on the floor and, `height` m above it, a second box that
/// falls onto it: `(world, resting, falling)`.
fn landing(height: f32) -> (World, Shape, Shape) {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let resting = BoxShape::new(Vec2::new(0.0, 0.55), Vec2::splat(1.0))
        .build(&mut world)
        .unwrap();
    let falling = BoxShape::new(Vec2::new(0.2, 1.6 + height), Vec2::splat(1.0))
        .build(&mut world)
        .unwrap();
    (world, resting, falling)
}

#[test]
fn a_settled_stack_sleeps_and_stops_exactly() {
    let (world, _) = samples::stack(3, 1.0).unwrap();
    let n = movable(&world);
    for mut s in both(&world) {
        s.step(180).unwrap();
        assert_eq!(
            s.sleeping_points().unwrap(),
            n,
            "{}: all asleep after 3 s",
            s.name()
        );
        let (pos, vel) = s.state().unwrap();
        assert!(vel.iter().all(|v| *v == [0.0; 2]), "{}", s.name());
        s.step(60).unwrap();
        let (later, vel) = s.state().unwrap();
        assert_eq!(pos, later, "{}: no drift while asleep", s.name());
        assert!(vel.iter().all(|v| *v == [0.0; 2]), "{}", s.name());
    }
}

#[test]
fn without_sleeping_the_stack_keeps_its_last_motion() {
    let (mut world, _) = samples::stack(3, 1.0).unwrap();
    world.params.sleep_speed = 0.0;
    for mut s in both(&world) {
        s.step(180).unwrap();
        assert_eq!(s.sleeping_points().unwrap(), 0, "{}", s.name());
        let (_, vel) = s.state().unwrap();
        assert!(vel.iter().any(|v| *v != [0.0; 2]), "{}", s.name());
    }
}

#[test]
fn a_body_landing_on_a_sleeping_one_wakes_it() {
    // The falling box lands after about 1.9 s at about 18 m/s; the resting
    // one sleeps within 1 s.
    let (world, resting, _) = landing(17.0);
    let ids: Vec<usize> = resting.points.iter().map(|p| p.index()).collect();
    for mut s in both(&world) {
        s.step(90).unwrap();
        let asleep = s.sleeping_points().unwrap();
        assert_eq!(
            asleep,
            ids.len(),
            "{}: only the resting box sleeps",
            s.name()
        );
        // Just after the landing: the impact woke the resting box (which
        // it met as a side that does not move, and bounced off).
        s.step(30).unwrap();
        let asleep = s.sleeping_points().unwrap();
        assert_eq!(
            asleep,
            0,
            "{}: the landing woke the resting box ({asleep} points asleep)",
            s.name()
        );
    }
}

#[test]
fn a_body_set_down_gently_rests_on_a_sleeping_one_and_sleeps_too() {
    // Dropped 0.1 m: lands at 1.4 m/s, below the wake speed.
    let (world, resting, falling) = landing(0.1);
    let n = movable(&world);
    for mut s in both(&world) {
        let (start, _) = s.state().unwrap();
        s.step(300).unwrap();
        assert_eq!(
            s.sleeping_points().unwrap(),
            n,
            "{}: both asleep after 5 s",
            s.name()
        );
        let (pos, _) = s.state().unwrap();
        let top = centroid(&pos, &falling).y - centroid(&pos, &resting).y;
        assert!(
            (top - 1.0).abs() < 0.1,
            "{}: the top box rests on the bottom one ({top} m above it)",
            s.name()
        );
        assert!(centroid(&pos, &falling).y < centroid(&start, &falling).y);
    }
}

#[test]
fn set_state_wakes_everything() {
    let (world, _) = samples::stack(2, 1.0).unwrap();
    let n = movable(&world);
    for mut s in both(&world) {
        s.step(180).unwrap();
        assert_eq!(s.sleeping_points().unwrap(), n, "{}", s.name());
        let (pos, mut vel) = s.state().unwrap();
        vel[0] = [1.0, 0.0];
        s.set_state(&pos, &vel).unwrap();
        assert_eq!(s.sleeping_points().unwrap(), 0, "{}", s.name());
        s.step(1).unwrap();
        let (later, _) = s.state().unwrap();
        assert!(later[0][0] > pos[0][0], "{}: the kick took", s.name());
    }
}

#[test]
fn the_gpu_puts_the_same_assemblies_to_sleep_as_the_cpu() {
    let Some(ctx) = gpu() else { return };
    // No gravity: the boxes given no velocity stay where they are and
    // sleep after one step; the others move and stay awake.
    let (mut world, boxes) = samples::stack(6, 0.5).unwrap();
    world.params.gravity = Vec2::ZERO;
    world.params.sleep_time = 0.0;
    let mut cpu = CpuSolver::new(&world).unwrap();
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    let pos = cpu.positions().to_vec();
    let mut vel = vec![[0.0; 2]; pos.len()];
    for b in boxes.iter().step_by(2) {
        for p in &b.points {
            vel[p.index()] = [0.0, 3.0];
        }
    }
    cpu.set_state(&pos, &vel).unwrap();
    gpu.set_state(&ctx.queue, &pos, &vel).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    gpu.record_stage(&mut encoder, Stage::IntegrateCollide);
    gpu.record_stage(&mut encoder, Stage::Sleep);
    ctx.queue.submit([encoder.finish()]);
    cpu.stage_integrate();
    cpu.stage_collide();
    cpu.stage_sleep();
    let asleep = boxes.len() / 2 * boxes[0].points.len();
    assert_eq!(cpu.sleeping_points(), asleep);
    assert_eq!(
        gpu.read_sleeping_points(&ctx.device, &ctx.queue).unwrap(),
        asleep
    );
    assert_eq!(
        gpu.read_rest_steps(&ctx.device, &ctx.queue).unwrap(),
        cpu.rest_steps()
    );
    let state = gpu.read_state(&ctx.device, &ctx.queue).unwrap();
    assert_eq!(state.vel, cpu.velocities());
}

#[test]
fn a_run_resumed_from_a_checkpoint_sleeps_as_the_run_in_one_go() {
    let (world, _) = samples::stack(3, 1.0).unwrap();
    // On the CPU: 70 steps (some assemblies asleep), save, 80 more.
    let mut a = CpuSolver::new(&world).unwrap();
    for _ in 0..70 {
        a.step();
    }
    let saved = Checkpoint::from_bytes(&Checkpoint::of_cpu(&a, 0.0).to_bytes().unwrap()).unwrap();
    assert!(saved.rest_steps.iter().any(|&s| s > 0));
    for _ in 0..80 {
        a.step();
    }
    let mut b = CpuSolver::new(&world).unwrap();
    saved.restore_cpu(&mut b).unwrap();
    for _ in 0..80 {
        b.step();
    }
    assert_eq!(a.positions(), b.positions());
    assert_eq!(a.velocities(), b.velocities());
    assert_eq!(a.rest_steps(), b.rest_steps());
    // On the GPU, the same.
    let Some(ctx) = gpu() else { return };
    let mut a = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    a.step(&ctx.device, &ctx.queue, 70).unwrap();
    let saved = Checkpoint::of_gpu(&a, &ctx.device, &ctx.queue, 0.0).unwrap();
    a.step(&ctx.device, &ctx.queue, 80).unwrap();
    let mut b = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    saved.restore_gpu(&mut b, &ctx.queue).unwrap();
    b.step(&ctx.device, &ctx.queue, 80).unwrap();
    assert_eq!(
        a.read_state(&ctx.device, &ctx.queue).unwrap(),
        b.read_state(&ctx.device, &ctx.queue).unwrap()
    );
    assert_eq!(
        a.read_rest_steps(&ctx.device, &ctx.queue).unwrap(),
        b.read_rest_steps(&ctx.device, &ctx.queue).unwrap()
    );
}

#[test]
fn sleeping_parameters_are_checked() {
    for (field, f) in [
        (
            "sleep_speed",
            (|p: &mut Params| p.sleep_speed = -1.0) as fn(&mut Params),
        ),
        ("sleep_time", |p| p.sleep_time = f32::NAN),
        ("wake_speed", |p| p.wake_speed = -0.5),
        ("sleep_time", |p| p.sleep_time = 1e9),
    ] {
        let mut p = Params::default();
        f(&mut p);
        let e = p.validate().unwrap_err().to_string();
        assert!(e.contains(field), "{field}: {e}");
    }
    let p = Params::default();
    assert_eq!(p.sleep_steps(), 30);
    let off = Params {
        sleep_speed: 0.0,
        ..Params::default()
    };
    assert_eq!(off.sleep_steps(), 0);
}

/// The contact stage with some assemblies asleep, on both paths: sleeping
/// points are immovable sides, two sleeping sides are not tested, and a
/// fast approach wakes the sleeper at the step's end.
#[test]
fn contacts_with_sleeping_bodies_match_the_cpu_and_wake_the_one_hit() {
    let Some(ctx) = gpu() else { return };
    let (world, boxes) = samples::stack(4, 1.0).unwrap();
    let mut cpu = CpuSolver::new(&world).unwrap();
    for _ in 0..120 {
        cpu.step();
    }
    // The two lower boxes asleep; the third hits the second at 1.5 times
    // the wake speed.
    let (pos, mut vel) = (cpu.positions().to_vec(), cpu.velocities().to_vec());
    let hit = 1.5 * world.params.wake_speed;
    for p in &boxes[2].points {
        vel[p.index()] = [0.0, -hit];
    }
    let group = |b: usize| cpu.packed().contact_points[boxes[b].points[0].index()].group as usize;
    let (g0, g1) = (group(0), group(1));
    let mut rest = vec![0u32; pos.len()];
    let sleep_steps = world.params.sleep_steps();
    rest[g0] = sleep_steps;
    rest[g1] = sleep_steps;
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    cpu.set_state(&pos, &vel).unwrap();
    cpu.set_rest_steps(&rest).unwrap();
    gpu.set_state(&ctx.queue, &pos, &vel).unwrap();
    gpu.set_rest_steps(&ctx.queue, &rest).unwrap();
    assert_eq!(cpu.sleeping_points(), 8);
    assert_eq!(
        gpu.read_sleeping_points(&ctx.device, &ctx.queue).unwrap(),
        8
    );
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    gpu.record_stage(&mut encoder, Stage::IntegrateCollide);
    gpu.record_stage(&mut encoder, Stage::BroadPhase);
    gpu.record_stage(&mut encoder, Stage::BodyCollide);
    ctx.queue.submit([encoder.finish()]);
    cpu.stage_integrate();
    cpu.stage_collide();
    cpu.stage_broad_phase();
    cpu.stage_body_collide();
    let state = gpu.read_state(&ctx.device, &ctx.queue).unwrap();
    // As in tests/stages/body_collide.rs: a driver that fuses multiply-adds moves
    // integrate's result by an ulp.
    assert!(farthest(&state.pos, cpu.positions()) <= 1e-5);
    assert!(farthest(&state.vel, cpu.velocities()) <= 1e-3);
    // The sleeping boxes did not move; the falling one was stopped.
    for b in &boxes[..2] {
        for p in &b.points {
            assert_eq!(cpu.positions()[p.index()], pos[p.index()]);
            assert_eq!(state.pos[p.index()], pos[p.index()]);
            assert_eq!(cpu.velocities()[p.index()], [0.0; 2]);
        }
    }
    let falling = boxes[2].points[0].index();
    assert!(
        cpu.velocities()[falling][1] > -hit / 3.0,
        "stopped by the sleeping box"
    );
    // The step's end: the box hit wakes; the one under it sleeps on.
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    gpu.record_stage(&mut encoder, Stage::Sleep);
    ctx.queue.submit([encoder.finish()]);
    cpu.stage_sleep();
    let gpu_rest = gpu.read_rest_steps(&ctx.device, &ctx.queue).unwrap();
    assert_eq!(gpu_rest, cpu.rest_steps());
    assert_eq!(cpu.rest_steps()[g1], 0, "woken");
    assert_eq!(cpu.rest_steps()[g0], sleep_steps, "still asleep");
    assert_eq!(cpu.sleeping_points(), 4);
    assert_eq!(
        gpu.read_sleeping_points(&ctx.device, &ctx.queue).unwrap(),
        4
    );
}

/// A sleeping point with nothing to test is quiet: the substep's first
/// narrow phase marks it, and the later passes skip it at one load. On a
/// stack whose two lower boxes sleep under a falling third, the bottom
/// box's lower corners are quiet (no awake body enters their slots), the
/// box the third lands on is not, and a whole substep's contact passes end as on the CPU.
#[test]
fn quiet_sleeping_points_are_skipped_and_change_nothing() {
    let Some(ctx) = gpu() else { return };
    let (world, boxes) = samples::stack(4, 1.0).unwrap();
    let mut cpu = CpuSolver::new(&world).unwrap();
    for _ in 0..120 {
        cpu.step();
    }
    let (pos, mut vel) = (cpu.positions().to_vec(), cpu.velocities().to_vec());
    for p in &boxes[2].points {
        vel[p.index()] = [0.0, -1.0];
    }
    let group = |b: usize| cpu.packed().contact_points[boxes[b].points[0].index()].group as usize;
    let mut rest = vec![0u32; pos.len()];
    rest[group(0)] = world.params.sleep_steps();
    rest[group(1)] = world.params.sleep_steps();
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    cpu.set_state(&pos, &vel).unwrap();
    gpu.set_state(&ctx.queue, &pos, &vel).unwrap();
    cpu.set_rest_steps(&rest).unwrap();
    gpu.set_rest_steps(&ctx.queue, &rest).unwrap();
    record_stages(
        &ctx,
        &mut gpu,
        &[
            Stage::IntegrateCollide,
            Stage::BroadPhase,
            Stage::Narrow,
            Stage::Impact,
            Stage::Resolve,
            Stage::BodyCollide,
            Stage::ContactRelax,
        ],
    );
    cpu.stage_integrate();
    cpu.stage_collide();
    cpu.stage_broad_phase();
    cpu.stage_narrow();
    cpu.stage_impact();
    cpu.stage_resolve();
    cpu.stage_body_collide();
    cpu.stage_contact_relax();
    let quiet = gpu.read_quiet_points(&ctx.device, &ctx.queue).unwrap();
    let quiet_in = |b: usize| boxes[b].points.iter().filter(|p| quiet[p.index()]).count();
    // Its lower corners at least: its upper ones share cells with the
    // box above, whose slots the falling box's box reaches.
    assert!(quiet_in(0) >= 2, "the bottom box is quiet: {}", quiet_in(0));
    assert!(
        quiet_in(1) < boxes[1].points.len(),
        "the box hit is not all quiet"
    );
    assert_eq!(quiet_in(2) + quiet_in(3), 0, "awake boxes are never quiet");
    let state = gpu.read_state(&ctx.device, &ctx.queue).unwrap();
    // As in contacts_with_sleeping_bodies_match_the_cpu_and_wake_the_one_hit.
    assert!(farthest(&state.pos, cpu.positions()) <= 1e-5);
    assert!(farthest(&state.vel, cpu.velocities()) <= 1e-3);
    if ctx.adapter.get_info().device_type == wgpu::DeviceType::Cpu {
        assert_eq!(state.pos, cpu.positions(), "bitwise on a CPU adapter");
        assert_eq!(state.vel, cpu.velocities(), "bitwise on a CPU adapter");
    }
    let falling = boxes[2].points[0].index();
    assert!(
        cpu.velocities()[falling][1] > -1.0,
        "the falling box was stopped"
    );
}

/// A box of 100 kg a point dropped 0.3 m onto a sleeping box of 1 kg a
/// point lands at 2.4 m/s, below the wake speed, but its impulse would
/// move the light box a hundred times faster than itself: the landing
/// wakes it, and it gives under the load as with sleeping off, within 2%
/// of its height, on both paths (issue 48: it stayed asleep, a support
/// that does not move, and kept its height).
#[test]
fn a_heavy_body_landing_gently_on_a_sleeping_light_one_wakes_and_presses_it() {
    let mut world = World::default();
    world.params.sleep_time = 0.1;
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let low = BoxShape::new(Vec2::new(0.0, 0.27), Vec2::splat(0.5))
        .build(&mut world)
        .unwrap();
    BoxShape::new(Vec2::new(0.0, 1.07), Vec2::splat(0.5))
        .style(ShapeStyle::new().mass(100.0))
        .build(&mut world)
        .unwrap();
    let height = |s: &Solver| {
        let (pos, _) = s.state().unwrap();
        let ys: Vec<f32> = low.points.iter().map(|h| pos[h.index()][1]).collect();
        (ys.iter().copied().fold(f32::MIN, f32::max) - ys.iter().copied().fold(f32::MAX, f32::min))
            / 0.5
    };
    let mut awake = world.clone();
    awake.params.sleep_speed = 0.0;
    for (mut s, mut off) in both(&world).into_iter().zip(both(&awake)) {
        s.step(9).unwrap();
        assert_eq!(
            s.sleeping_points().unwrap(),
            4,
            "{}: the light box sleeps",
            s.name()
        );
        s.step(9).unwrap();
        assert_eq!(
            s.sleeping_points().unwrap(),
            0,
            "{}: the landing woke it",
            s.name()
        );
        s.step(240).unwrap();
        off.step(258).unwrap();
        let (kept, pressed) = (height(&s), height(&off));
        eprintln!(
            "{}: the light box keeps {kept:.3} of its height, {pressed:.3} with sleeping off",
            s.name()
        );
        assert!(
            (kept - pressed).abs() < 0.02 * pressed,
            "{}: the light box keeps {kept} of its height, {pressed} with sleeping off",
            s.name()
        );
    }
}

/// A platform of four pinned points (one body, 3 m by 0.2 m, its top at
/// y = 2) with a box of 0.3 m (diagonal springs) and a hubless 10-point
/// ring of radius 0.2 m resting on it, above a floor: `(world, platform
/// points, the two resting shapes)`.
fn platform_world() -> (World, Vec<PointHandle>, [Shape; 2]) {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let corners = [(-1.5, 1.8), (1.5, 1.8), (1.5, 2.0), (-1.5, 2.0)];
    let platform: Vec<PointHandle> = corners
        .iter()
        .map(|&(x, y)| {
            world
                .add_point(Point::new(Vec2::new(x, y)).mass(0.0))
                .unwrap()
        })
        .collect();
    world.add_body(Body::new(platform.clone())).unwrap();
    let cube = BoxShape::new(Vec2::new(-0.6, 2.16), Vec2::splat(0.3))
        .rotation(0.05)
        .build(&mut world)
        .unwrap();
    let ring = Blob::new(Vec2::new(0.7, 2.22), 0.2, 10)
        .center_point(false)
        .build(&mut world)
        .unwrap();
    (world, platform, [cube, ring])
}

/// Steps `s` until every movable point sleeps (at most 10 s); the steps
/// taken.
fn until_asleep(s: &mut Solver, movable: usize) -> u64 {
    for k in 1..=600 {
        s.step(1).unwrap();
        if k % 10 == 0 && s.sleeping_points().unwrap() == movable {
            return k;
        }
    }
    panic!("{}: not asleep after 10 s", s.name());
}

/// Bodies asleep on a pinned platform wake when it moves (its assembly
/// counts as moved, and a sleeping point remembers the body it rested on
/// as its support): teleported away, they fall within 0.1 s; lowered at
/// 0.02 m/s, below the sleep speed, they ride down with it rather than
/// hang where they slept (issue 48: both hung in the air).
#[test]
fn bodies_asleep_on_a_pinned_platform_fall_or_ride_when_it_moves() {
    let (world, platform, shapes) = platform_world();
    let n = movable(&world);
    let start: Vec<Vec2> = platform.iter().map(|h| world.point(*h).pos).collect();
    for mut s in both(&world) {
        let slept = until_asleep(&mut s, n);
        let (before, _) = s.state().unwrap();
        // Lowered 0.02 m/s for 3 s: 6 cm.
        let steps = 180;
        for k in 1..=steps {
            let drop = Vec2::new(0.0, -0.02 * k as f32 / 60.0);
            for (h, p) in platform.iter().zip(&start) {
                s.move_pinned_point(*h, *p + drop).unwrap();
            }
            s.step(1).unwrap();
        }
        let (pos, _) = s.state().unwrap();
        for shape in &shapes {
            let fell = centroid(&before, shape).y - centroid(&pos, shape).y;
            assert!(
                (fell - 0.06).abs() < 0.015,
                "{}: a body on the lowered platform went down {fell} m with its 0.06",
                s.name()
            );
        }
        // Teleported 5 m aside: what it held falls at once.
        until_asleep(&mut s, n);
        let (before, _) = s.state().unwrap();
        for (h, p) in platform.iter().zip(&start) {
            s.move_pinned_point(*h, *p + Vec2::new(5.0, -0.06)).unwrap();
        }
        s.step(6).unwrap();
        assert_eq!(s.sleeping_points().unwrap(), 0, "{}: woken", s.name());
        let (pos, vel) = s.state().unwrap();
        for shape in &shapes {
            let v = centroid(&vel, shape).y;
            let fell = centroid(&before, shape).y - centroid(&pos, shape).y;
            eprintln!(
                "{}: asleep after {slept} steps; 0.1 s after the platform left, a body falls at {v:.2} m/s ({fell:.3} m)",
                s.name()
            );
            assert!(
                v < -0.5 && fell > 0.01,
                "{}: 0.1 s after the platform left a body moves at {v} m/s, {fell} m down",
                s.name()
            );
        }
    }
}

/// A pressure body inflated under a sleeping box lifts it: its own wake
/// counts as motion, and the box's support is the pressure body (issue
/// 48: the box stayed where it slept, the balloon growing into it).
#[test]
fn an_inflating_pressure_body_lifts_a_sleeping_box() {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let ring: Vec<PointHandle> = (0..16)
        .map(|k| {
            let a = std::f32::consts::TAU * k as f32 / 16.0;
            let p = Vec2::new(0.0, 0.3) + 0.3 * Vec2::new(a.cos(), a.sin());
            world.add_point(Point::new(p).mass(0.25)).unwrap()
        })
        .collect();
    for k in 0..16 {
        world
            .add_spring(Spring::new(ring[k], ring[(k + 1) % 16]))
            .unwrap();
    }
    let k = world.params.area_stiffness;
    let balloon = world
        .add_body(Body::new(ring.clone()).stiffness(0.0).area_stiffness(k))
        .unwrap();
    let cube = BoxShape::new(Vec2::new(0.05, 0.78), Vec2::splat(0.35))
        .build(&mut world)
        .unwrap();
    let n = movable(&world);
    for mut s in both(&world) {
        until_asleep(&mut s, n);
        let (before, _) = s.state().unwrap();
        s.set_inflation(balloon, 2.0).unwrap();
        // The highest the box gets in 1 s (later it rolls off the round
        // top).
        let mut rise = f32::MIN;
        for _ in 0..12 {
            s.step(5).unwrap();
            let (pos, _) = s.state().unwrap();
            rise = rise.max(centroid(&pos, &cube).y - centroid(&before, &cube).y);
        }
        eprintln!("{}: the box rose {rise:.3} m", s.name());
        // Twice the area, the ring squashed under the box before: its top
        // goes up by about 0.3 m.
        assert!(rise > 0.15, "{}: the box rose {rise} m", s.name());
    }
}

/// Sleeping's touch on both paths from the same state: the platform
/// moved under two sleeping bodies wakes both through their supports, and
/// the GPU's counts and supports after the step's end are the CPU's.
#[test]
fn touch_wakes_what_a_moved_support_held_as_on_the_cpu() {
    let Some(ctx) = gpu() else { return };
    let (world, platform, _) = platform_world();
    let n = movable(&world);
    let mut cpu = CpuSolver::new(&world).unwrap();
    let mut steps = 0;
    while cpu.sleeping_points() < n {
        cpu.step();
        steps += 1;
        assert!(steps < 600, "not asleep after 10 s");
    }
    let rest = cpu.rest_steps().to_vec();
    let anchors = cpu.sleep_anchors().to_vec();
    let supports = cpu.sleep_supports().to_vec();
    assert!(
        supports.contains(&0),
        "some points rest on the platform (body 0)"
    );
    let (pos, vel) = (cpu.positions().to_vec(), cpu.velocities().to_vec());
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    cpu.set_state(&pos, &vel).unwrap();
    gpu.set_state(&ctx.queue, &pos, &vel).unwrap();
    cpu.set_rest_steps(&rest).unwrap();
    gpu.set_rest_steps(&ctx.queue, &rest).unwrap();
    cpu.set_sleep_anchors(&anchors).unwrap();
    gpu.set_sleep_anchors(&ctx.queue, &anchors).unwrap();
    cpu.set_sleep_supports(&supports).unwrap();
    gpu.set_sleep_supports(&ctx.queue, &supports).unwrap();
    assert_eq!(
        gpu.read_sleep_supports(&ctx.device, &ctx.queue).unwrap(),
        supports
    );
    for h in &platform {
        let p = Vec2::from_array(pos[h.index()]) + Vec2::new(4.0, 0.0);
        cpu.move_pinned_point(*h, p).unwrap();
        gpu.move_pinned_point(&ctx.queue, *h, p).unwrap();
    }
    record_stages(
        &ctx,
        &mut gpu,
        &[
            Stage::IntegrateCollide,
            Stage::BroadPhase,
            Stage::BodyCollide,
            Stage::Sleep,
        ],
    );
    cpu.stage_integrate();
    cpu.stage_collide();
    cpu.stage_broad_phase();
    cpu.stage_body_collide();
    cpu.stage_sleep();
    assert_eq!(cpu.sleeping_points(), 0, "the moved platform woke both");
    assert_eq!(
        gpu.read_rest_steps(&ctx.device, &ctx.queue).unwrap(),
        cpu.rest_steps()
    );
    assert_eq!(
        gpu.read_sleep_supports(&ctx.device, &ctx.queue).unwrap(),
        cpu.sleep_supports()
    );
    assert_eq!(
        gpu.read_sleeping_points(&ctx.device, &ctx.queue).unwrap(),
        0
    );
}

/// Three rows of 40 bodies on a floor, 0.5 m boxes and 10-point hubless
/// rings, one row's bodies resting on two of the row below.
fn rows() -> World {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    add_rows(&mut world);
    world
}

/// Adds [`rows`]' bodies to `world`.
fn add_rows(world: &mut World) {
    for row in 0..3 {
        for k in 0..40 {
            let at = Vec2::new(
                0.62 * k as f32 + 0.31 * (row % 2) as f32,
                0.27 + 0.55 * row as f32,
            );
            if (k + row) % 3 == 0 {
                Blob::new(at, 0.26, 10).build(world).unwrap();
            } else {
                BoxShape::new(at, Vec2::splat(0.5)).build(world).unwrap();
            }
        }
    }
}

/// A box spawned (appended and synced) above a sleeping pile wakes only
/// its neighbourhood: rows of 120 boxes and hubless rings asleep on a
/// floor, a box dropped on one end wakes fewer than 12 bodies over 2 s and
/// comes to rest on top, while the far end sleeps on, on both paths.
/// Before, every sync woke every body.
#[test]
fn a_body_spawned_on_a_sleeping_pile_wakes_only_its_neighbourhood() {
    let world = rows();
    let n = movable(&world);
    for mut s in both(&world) {
        until_asleep(&mut s, n);
        let mut spawned = world.clone();
        let b = BoxShape::new(Vec2::new(1.86, 2.2), Vec2::splat(0.4))
            .build(&mut spawned)
            .unwrap();
        s.sync(&spawned).unwrap();
        let asleep_at_start = s.sleeping_points().unwrap();
        assert_eq!(asleep_at_start, n, "{}: the sync woke the pile", s.name());
        let total = n + 4;
        let mut most_awake = 0;
        for _ in 0..24 {
            s.step(5).unwrap();
            most_awake = most_awake.max(total - s.sleeping_points().unwrap());
        }
        let (pos, _) = s.state().unwrap();
        let c = crate::common::centroid(&pos, &b);
        eprintln!(
            "{}: at most {most_awake} of {total} points awake after the spawn (the box's 4 included); the box rests at {c}",
            s.name()
        );
        assert!(
            most_awake < 4 + 12 * 10,
            "{}: {most_awake} points woke",
            s.name()
        );
        assert!(c.y > 1.3, "{}: the box fell into the pile: {c}", s.name());
    }
}

/// A body removed from a sleeping pile wakes only its neighbourhood: a
/// column of three boxes beside the rows of [`rows`], its middle box
/// removed (the rows' last body takes its place and sleeps on, its
/// count carried to its new root): the top box
/// wakes and falls onto the bottom one, which wakes too (it carried the
/// removed one), and the rows sleep on without moving, on both paths.
/// Given the same pile, the two paths hold the same sleeping records
/// bitwise right after the removal (`remap_supports`, the compaction, the
/// changed assemblies woken, the rewritten points settled).
#[test]
fn a_body_removed_from_a_sleeping_pile_wakes_only_its_neighbourhood() {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    for k in 0..3 {
        BoxShape::new(Vec2::new(-2.0, 0.27 + 0.55 * k as f32), Vec2::splat(0.5))
            .build(&mut world)
            .unwrap();
    }
    add_rows(&mut world);
    let n = movable(&world);
    let mut w = world.clone();
    let removal = w.remove_body(BodyHandle(1)).unwrap();
    let left = movable(&w);
    let (bottom, top) = (BodyHandle(0), removal.body(BodyHandle(2)).unwrap());
    assert_eq!(
        removal.body(BodyHandle(world.bodies().len() as u32 - 1)),
        Some(BodyHandle(1))
    );
    let centre = |pos: &[[f32; 2]], b: BodyHandle| -> Vec2 {
        let points = &w.bodies()[b.index()].points;
        points
            .iter()
            .map(|p| Vec2::from(pos[p.index()]))
            .sum::<Vec2>()
            / points.len() as f32
    };
    let column: Vec<usize> = [bottom, top]
        .iter()
        .flat_map(|b| w.bodies()[b.index()].points.iter().map(|p| p.index()))
        .collect();
    let rows_of = |pos: &[[f32; 2]]| -> Vec<[f32; 2]> {
        (0..pos.len())
            .filter(|i| !column.contains(i))
            .map(|i| pos[i])
            .collect()
    };
    for mut s in both(&world) {
        until_asleep(&mut s, n);
        s.apply_removal(&w, &removal).unwrap();
        // The woken boxes get their inverse masses back at the end of the
        // step that follows, as any woken assembly.
        assert_eq!(s.sleeping_points().unwrap(), left, "{}", s.name());
        s.step(1).unwrap();
        let asleep = s.sleeping_points().unwrap();
        eprintln!(
            "{}: {asleep} of {left} points asleep a step after the removal",
            s.name()
        );
        assert_eq!(
            asleep,
            left - 8,
            "{}: only the column's two boxes wake",
            s.name()
        );
        let (pos, _) = s.state().unwrap();
        let (rows, high) = (rows_of(&pos), centre(&pos, top).y);
        s.step(119).unwrap();
        let (after, _) = s.state().unwrap();
        assert_eq!(rows_of(&after), rows, "{}: the rows moved", s.name());
        let (low, under) = (centre(&after, top).y, centre(&after, bottom).y);
        eprintln!("{}: the top box from {high} m to {low} m", s.name());
        assert!(
            (low - under - 0.5).abs() < 0.05 && high - low > 0.45,
            "{}: the top box at {low} m, the bottom one at {under} m",
            s.name()
        );
    }
    // The same pile on both paths: the CPU's, handed to the GPU.
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut cpu = CpuSolver::new(&world).unwrap();
    while cpu.sleeping_points() < n {
        cpu.step();
    }
    let mut g = GpuSolver::new(d, q, &world).unwrap();
    g.set_state(q, cpu.positions(), cpu.velocities()).unwrap();
    g.set_rest_steps(q, cpu.rest_steps()).unwrap();
    g.set_sleep_anchors(q, cpu.sleep_anchors()).unwrap();
    g.set_sleep_supports(q, cpu.sleep_supports()).unwrap();
    cpu.apply_removal(&w, &removal).unwrap();
    g.apply_removal(d, q, &w, &removal).unwrap();
    assert_eq!(g.read_rest_steps(d, q).unwrap(), cpu.rest_steps());
    assert_eq!(g.read_sleep_supports(d, q).unwrap(), cpu.sleep_supports());
    assert_eq!(g.read_sleep_anchors(d, q).unwrap(), cpu.sleep_anchors());
    assert_eq!(g.read_sleeping_points(d, q).unwrap(), cpu.sleeping_points());
    let (pos, vel) = (
        g.read_state(d, q).unwrap().pos,
        g.read_state(d, q).unwrap().vel,
    );
    assert_eq!((&pos[..], &vel[..]), (cpu.positions(), cpu.velocities()));
}
