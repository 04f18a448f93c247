//! The pile samples (`softbody::samples`) on the default parameters, on
//! the CPU and the GPU path: a stack of ten 1 m boxes and Box2D's 20-row
//! pyramid of 0.5 m boxes stand for 10 s, and a pour of 480 small bodies
//! into a basin piles up and comes to rest without bodies inside each
//! other or crushed, also when it lands at 28 m/s; landing whole at 50
//! m/s it leaves under 0.1% of its points inside, and bodies landing on
//! it at 50 m/s stay out of it; a pour of 1,000 comes wholly to rest, and
//! pours started a micrometre otherwise come to rest too (CPU).
//! Bodies that sag too far to pile are warned of and hold once stiffened
//! as the warning says, and a pile 40 deep sleeps whole at 16 substeps;
//! in a power-of-two length unit a pour is the metre pour scaled, bit
//! for bit.
//! What they do not meet is in docs/physics.md, "Limits we measured".

mod common;

use common::{centroid, gpu};
use softbody::measure::{PileReport, motion, pile_report};
use softbody::pack::Packed;
use softbody::prelude::*;
use softbody::samples;
use softbody::solver::Solver;

/// Positions and velocities after `steps` steps on one path.
type State = (Vec<[f32; 2]>, Vec<[f32; 2]>);

fn run_cpu(world: &World, steps: u32) -> State {
    let mut s = CpuSolver::new(world).unwrap().parallel(true);
    for _ in 0..steps {
        s.step();
    }
    (s.positions().to_vec(), s.velocities().to_vec())
}

fn run_gpu(ctx: &GpuContext, world: &World, steps: u32) -> State {
    let mut s = GpuSolver::new(&ctx.device, &ctx.queue, world).unwrap();
    let mut left = steps;
    while left > 0 {
        let n = left.min(60);
        s.step(&ctx.device, &ctx.queue, n).unwrap();
        left -= n;
    }
    let state = s.read_state(&ctx.device, &ctx.queue).unwrap();
    (state.pos, state.vel)
}

/// 10 s at the default 60 steps per second.
const TEN_SECONDS: u32 = 600;

/// The top box is within `tol` of where it started, and the pile has no
/// point inside another body and no body below half its area.
fn assert_stands(what: &str, world: &World, top: &Shape, (pos, vel): &State, tol: f32) {
    let packed = Packed::from_world(world).unwrap();
    let start = centroid(&packed.pos, top);
    let moved = centroid(pos, top) - start;
    let report = pile_report(&packed, pos, vel);
    eprintln!(
        "{what}: top box moved {moved} ({:.3} m); {report}",
        moved.length()
    );
    assert!(moved.length() < tol, "{what}: the top box moved {moved}");
    assert_sound(what, &report);
}

fn assert_sound(what: &str, r: &PileReport) {
    assert_eq!(r.inside_out, 0, "{what}: {r}");
    assert!(r.inside_fraction() < 0.005, "{what}: {r}");
    assert!(r.below_half_fraction() < 0.01, "{what}: {r}");
    assert!(r.max_speed.is_finite(), "{what}: {r}");
}

/// The top box of `boxes` stands for 10 s within 0.25 m of where it
/// started, on the CPU path and then the GPU path.
fn stands_for_ten_seconds(what: &str, world: &World, boxes: &[Shape]) {
    let top = boxes.last().unwrap();
    let cpu = run_cpu(world, TEN_SECONDS);
    assert_stands(&format!("CPU {what}"), world, top, &cpu, 0.25);
    let Some(ctx) = gpu() else { return };
    let gpu = run_gpu(&ctx, world, TEN_SECONDS);
    assert_stands(&format!("GPU {what}"), world, top, &gpu, 0.25);
}

/// Measured: the top box sinks 3 cm as the stack settles (each of the 10
/// contacts and boxes gives a few millimetres under the weight above), and
/// does not move sideways.
#[test]
fn a_stack_of_ten_boxes_stands_for_ten_seconds() {
    let (world, boxes) = samples::stack(10, 1.0).unwrap();
    stands_for_ten_seconds("stack", &world, &boxes);
}

/// Box2D's pyramid, 20 rows (210 boxes of 0.5 m): the top box stays
/// within 0.25 m of where it started. Measured: it sinks 8 cm (the
/// rows compress) and moves sideways by 2 mm.
#[test]
fn a_twenty_row_pyramid_stands_for_ten_seconds() {
    let (world, boxes) = samples::pyramid(20, 0.5).unwrap();
    stands_for_ten_seconds("pyramid", &world, &boxes);
}

/// At rest, as seen on screen (issue 25's targets for the pour): the
/// points moved over the last step at under 5 cm/s rms and none faster
/// than 0.5 m/s (`measure::motion`); and the velocities, which in the few
/// wedged points that stay awake also hold what their contacts take back
/// within the step (docs/physics.md, "Limits we measured"), at under 1.5
/// cm/s rms and none above 0.8 m/s. Without warm starting the velocities
/// read 0.020 and 1.0 m/s on the CPU, 0.042 and 1.5 on the GPU.
fn assert_at_rest(what: &str, r: &PileReport, before: &[[f32; 2]], after: &[[f32; 2]]) {
    let (rms, max) = motion(before, after, 1.0 / 60.0);
    eprintln!("{what}: moved over the last step at rms {rms:.3}, largest {max:.3} m/s");
    assert!(
        rms < 0.05 && max < 0.5,
        "{what}: moved at rms {rms}, largest {max} m/s; {r}"
    );
    assert!(
        r.rms_speed < 0.015 && r.max_speed < 0.8,
        "{what}: velocities at rms {}, largest {} m/s; {r}",
        r.rms_speed,
        r.max_speed
    );
}

/// The state after `steps` steps and the positions a step before.
fn run_last(world: &World, steps: u32, gpu: Option<&GpuContext>) -> (State, Vec<[f32; 2]>) {
    match gpu {
        None => {
            let mut s = CpuSolver::new(world).unwrap().parallel(true);
            for _ in 0..steps - 1 {
                s.step();
            }
            let before = s.positions().to_vec();
            s.step();
            ((s.positions().to_vec(), s.velocities().to_vec()), before)
        }
        Some(ctx) => {
            let mut s = GpuSolver::new(&ctx.device, &ctx.queue, world).unwrap();
            let mut left = steps - 1;
            while left > 0 {
                let n = left.min(60);
                s.step(&ctx.device, &ctx.queue, n).unwrap();
                left -= n;
            }
            let before = s.read_state(&ctx.device, &ctx.queue).unwrap().pos;
            s.step(&ctx.device, &ctx.queue, 1).unwrap();
            let state = s.read_state(&ctx.device, &ctx.queue).unwrap();
            ((state.pos, state.vel), before)
        }
    }
}

/// 480 boxes and wheels poured from 2 m into a basin: after 15 s, under
/// 0.5% of the points inside another body, under 1% of the bodies below
/// half their area, none inside out, no body's centre inside another, at
/// rest, and every point asleep. Measured: no point inside, smallest area
/// 0.91 of rest, every point asleep from 6 s, on both paths. Measured
/// step by step rather than over sleeping's window (docs/physics.md,
/// "Sleeping"), one box on the CPU and a cluster of 14 bodies on the GPU
/// (to 16 s) shake by a millimetre a step and stay awake.
#[test]
fn a_pour_piles_up_without_overlap_or_crushing() {
    let world = samples::pour(480, 2.0).unwrap();
    let packed = Packed::from_world(&world).unwrap();
    let steps = 15 * 60;
    let ((pos, vel), before) = run_last(&world, steps, None);
    let r = pile_report(&packed, &pos, &vel);
    eprintln!("CPU pour: {r}");
    assert_sound("CPU pour", &r);
    assert_eq!(r.bodies_overlapped, 0, "CPU pour: {r}");
    assert_at_rest("CPU pour", &r, &before, &pos);
    assert_eq!(awake(&vel), 0, "CPU pour");
    // It fell into the basin: no body is still up where it started.
    let top = pos.iter().map(|p| p[1]).fold(f32::MIN, f32::max);
    assert!(top < 3.0, "CPU pour: a point is still at {top} m");
    let Some(ctx) = gpu() else { return };
    let ((pos, vel), before) = run_last(&world, steps, Some(&ctx));
    let r = pile_report(&packed, &pos, &vel);
    eprintln!("GPU pour: {r}");
    assert_sound("GPU pour", &r);
    assert_eq!(r.bodies_overlapped, 0, "GPU pour: {r}");
    assert_at_rest("GPU pour", &r, &before, &pos);
    assert_eq!(awake(&vel), 0, "GPU pour");
}

/// The pour is not one lucky start: started with every point moved by up
/// to a micrometre (six seeds, CPU), each pile is sound at 15 s (no body's
/// centre inside another, under 0.5% of the points inside one), at most
/// one keeps points awake, and that one fewer than 1% of them. Measured:
/// start 6 keeps 4 of 3,120 points awake, the others none; of 12 other
/// such starts, 11 slept whole. The default scene, by contrast, comes to
/// rest from its own start only (docs/physics.md, "Limits we measured").
#[test]
fn pours_started_a_micrometre_apart_all_come_to_rest() {
    let world = samples::pour(480, 2.0).unwrap();
    let packed = Packed::from_world(&world).unwrap();
    let mut restless = 0;
    for seed in 1..=6u64 {
        let mut s = CpuSolver::new(&world).unwrap().parallel(true);
        let mut rng = common::Rng(0x9E37_79B9_7F4A_7C15 ^ seed);
        let pos: Vec<[f32; 2]> = s
            .positions()
            .iter()
            .map(|p| [p[0] + rng.range(-1e-6, 1e-6), p[1] + rng.range(-1e-6, 1e-6)])
            .collect();
        let vel = s.velocities().to_vec();
        s.set_state(&pos, &vel).unwrap();
        for _ in 0..15 * 60 {
            s.step();
        }
        let what = format!("pour, start {seed}");
        let r = pile_report(&packed, s.positions(), s.velocities());
        let woke = awake(s.velocities());
        eprintln!("{what}: {woke} points awake; {r}");
        assert_sound(&what, &r);
        assert_eq!(r.bodies_overlapped, 0, "{what}: {r}");
        assert!(woke * 100 < pos.len(), "{what}: {woke} points awake; {r}");
        restless += usize::from(woke > 0);
    }
    assert!(restless <= 1, "{restless} of 6 pours keep points awake");
}

/// Points that move: a sleeping point's velocity is exactly 0.
fn awake(vel: &[[f32; 2]]) -> usize {
    vel.iter().filter(|v| **v != [0.0, 0.0]).count()
}

/// No point tunnelled below the floor at 0 (to within 1 cm).
fn assert_above_floor(what: &str, pos: &[[f32; 2]]) {
    let low = pos.iter().map(|p| p[1]).fold(f32::MAX, f32::min);
    assert!(
        low > -0.01,
        "{what}: a point is below the floor, at {low} m"
    );
}

/// The same pour released 40 m higher, landing at 28 m/s: after 8 s (the
/// pile has landed and its bodies bounce back up to 3 m), nothing
/// tunnelled into the floor or through another body, under 0.5% of the
/// points inside another body, under 1% of the bodies below half their
/// area, none inside out, and no body's centre inside another. Measured:
/// no point inside, smallest area 0.95 (both paths). Without tangle
/// recovery 60 of the 480 bodies (57 on the GPU) pressed into another as
/// the column landed and stayed there, their points on or near each
/// other's outlines (docs/physics.md, "Tangle recovery"). With 20 Hz shape
/// matching a third of the bodies end below half their area
/// (docs/physics.md, "Stiffness as a frequency").
#[test]
fn a_pour_landing_at_28_m_s_neither_tunnels_nor_crushes() {
    let world = samples::pour(480, 42.0).unwrap();
    let packed = Packed::from_world(&world).unwrap();
    let steps = 8 * 60;
    let check = |what: &str, (pos, vel): &State| {
        let r = pile_report(&packed, pos, vel);
        eprintln!("{what}: {r}");
        assert_sound(what, &r);
        assert_eq!(r.bodies_overlapped, 0, "{what}: {r}");
        assert_above_floor(what, pos);
    };
    check("CPU pour from 42 m", &run_cpu(&world, steps));
    let Some(ctx) = gpu() else { return };
    check("GPU pour from 42 m", &run_gpu(&ctx, &world, steps));
}

/// The same pour released from 127 m, the whole column landing at 50 m/s
/// (10 cm, half a body, a substep): after 15 s fewer than 0.1% of its
/// points are inside another body (issue 48), nothing below the floor,
/// on both paths.
#[test]
fn a_whole_pour_landing_at_50_m_s_leaves_under_a_thousandth_inside() {
    let world = samples::pour(480, 127.0).unwrap();
    let packed = Packed::from_world(&world).unwrap();
    let steps = 15 * 60;
    let check = |what: &str, (pos, vel): &State| {
        let r = pile_report(&packed, pos, vel);
        eprintln!("{what}: {r}");
        assert!(
            r.points_inside * 1000 < pos.len(),
            "{what}: {} of {} points inside: {r}",
            r.points_inside,
            pos.len()
        );
        assert_above_floor(what, pos);
    };
    check("CPU pour from 127 m", &run_cpu(&world, steps));
    let Some(ctx) = gpu() else { return };
    check("GPU pour from 127 m", &run_gpu(&ctx, &world, steps));
}

/// A settled pour (480 bodies, 12 s on the CPU) and 24 more boxes and
/// wheels set 0.3 m above its top, moving down at 50 m/s, a quarter of a
/// body per substep: through the landing (3 s, checked every 5 steps) no
/// more than 0.2% of the points (6) are inside another body and no more
/// than 1% of the bodies below half their area, and the new bodies end in
/// the pile, above the floor. Measured on both paths: at worst 3 points
/// inside (0.09%), no body below half its area, and 2 bodies whose centre
/// is inside another, just after the impact; 9 points inside (0.27%) when
/// a point inside is pushed out through its nearest edge rather than the
/// one it came in by (`ENTRY_SUBSTEPS` 0), 34 (1%) for bodies landing at
/// 120 m/s.
#[test]
fn bodies_landing_at_50_m_s_on_a_settled_pile_stay_out_of_it() {
    let mut world = samples::pour(480, 0.0).unwrap();
    let (pos, vel) = run_cpu(&world, 720);
    let v2s = |v: &[[f32; 2]]| v.iter().map(|&p| Vec2::from(p)).collect::<Vec<_>>();
    world.set_state(&v2s(&pos), &v2s(&vel)).unwrap();
    let top = pos.iter().map(|p| p[1]).fold(0.0f32, f32::max);
    let first = world.points().len();
    for k in 0..24 {
        let c = Vec2::new(-6.0 + k as f32 * 0.5, top + 0.3);
        if k % 2 == 0 {
            BoxShape::new(c, Vec2::splat(0.22))
                .rotation(0.3 * k as f32)
                .build(&mut world)
                .unwrap();
        } else {
            Wheel::new(c, 0.12, 8).build(&mut world).unwrap();
        }
    }
    let (mut pos, mut vel) = (v2s(&pos), v2s(&vel));
    for p in &world.points()[first..] {
        pos.push(p.pos);
        vel.push(Vec2::new(0.0, -50.0));
    }
    world.set_state(&pos, &vel).unwrap();
    let packed = Packed::from_world(&world).unwrap();
    // The CPU reference on all threads, then the GPU when there is one.
    let mut solvers = vec![Solver::Cpu(Box::new(
        CpuSolver::new(&world).unwrap().parallel(true),
    ))];
    if let Some(ctx) = gpu() {
        solvers.push(Solver::gpu_on(ctx, &world).unwrap());
    }
    for mut s in solvers {
        let what = s.name();
        let mut worst = (0.0f64, 0.0f64, 0usize);
        for step in 1..=180 {
            s.step(1).unwrap();
            if step % 5 == 0 || step < 5 {
                let (pos, vel) = s.state().unwrap();
                let r = pile_report(&packed, &pos, &vel);
                worst.0 = worst.0.max(r.inside_fraction());
                worst.1 = worst.1.max(r.below_half_fraction());
                worst.2 = worst.2.max(r.bodies_overlapped);
                assert!(r.inside_fraction() <= 0.002, "{what}, step {step}: {r}");
                assert!(r.below_half_fraction() <= 0.01, "{what}, step {step}: {r}");
                assert_eq!(r.inside_out, 0, "{what}, step {step}: {r}");
            }
        }
        eprintln!(
            "{what}: at worst {:.2}% of the points inside, {:.2}% of the bodies below half their area, {} bodies overlapped",
            100.0 * worst.0,
            100.0 * worst.1,
            worst.2
        );
        let (pos, _) = s.state().unwrap();
        let new = &pos[first..];
        let low = new.iter().map(|p| p[1]).fold(f32::MAX, f32::min);
        let high = new.iter().map(|p| p[1]).fold(f32::MIN, f32::max);
        assert!(
            low > 0.0 && high < top + 1.0,
            "{what}: new bodies span {low} to {high} m"
        );
    }
}

/// The built-in default scene with 2,000 bodies, its curtain landing at
/// 30 to 47 m/s: after 30 s every point is asleep, its velocity exactly
/// zero (issue 48: no point faster than 0.01 m/s), under 0.5% of the
/// points are inside another body, and no body's centre is inside another
/// (the GPU, whose pile is another, may keep one or two pairs). Measured:
/// every point asleep from 22 s on the CPU and 21 s on the GPU
/// (lavapipe), no point inside, no body overlapped. Before corners met at
/// their tips (docs/physics.md, "Body-body collisions"), two wheels of the
/// GPU's pile resting apex on apex jolted each other at up to 2.8 m/s and
/// kept 25 points awake at 30 s; without tangle recovery 25 pairs (23 on
/// the GPU) stayed passed into each other from the landing. This start
/// only: started a micrometre otherwise, or rounded as NVIDIA's GPU
/// rounds, half the piles keep interlocked ships shaking at 30 s
/// (docs/physics.md, "Limits we measured").
#[test]
fn the_default_scene_comes_to_rest_in_30_seconds() {
    let world = softbody::scenes::default_scene(2000).unwrap();
    let packed = Packed::from_world(&world).unwrap();
    let steps = 30 * 60;
    let check = |what: &str, (pos, vel): &State, overlapped: usize| {
        let r = pile_report(&packed, pos, vel);
        eprintln!("{what}: {r}");
        assert_sound(what, &r);
        assert!(r.max_speed <= 0.01, "{what}: {r}");
        assert_eq!(awake(vel), 0, "{what}: {r}");
        assert!(r.bodies_overlapped <= overlapped, "{what}: {r}");
    };
    check("CPU default scene", &run_cpu(&world, steps), 0);
    let Some(ctx) = gpu() else { return };
    check("GPU default scene", &run_gpu(&ctx, &world, steps), 2);
}

/// A pour twice as deep as the sample's: 1,000 boxes and wheels in the
/// same basin come wholly to rest within 20 s on the CPU, every velocity
/// exactly 0, no body inside another. Measured: asleep from 13 s (24 s on
/// the GPU). Before persisting body contacts stopped bouncing (issue 48;
/// docs/physics.md, "Friction and restitution"), two wheels that the pile
/// pressed tip to tip threw each other back every other substep at 1.9
/// m/s and kept 142 of the 6,500 points awake at 40 s.
#[test]
fn a_pour_of_1000_bodies_comes_wholly_to_rest() {
    let world = samples::pour(1000, 2.0).unwrap();
    let packed = Packed::from_world(&world).unwrap();
    let (pos, vel) = run_cpu(&world, 20 * 60);
    let r = pile_report(&packed, &pos, &vel);
    eprintln!("CPU pour of 1,000: {r}");
    assert_sound("CPU pour of 1,000", &r);
    assert_eq!(awake(&vel), 0, "CPU pour of 1,000: {r}");
}

/// A pour of `n` bodies of other shapes than the samples' (boxes of
/// 0.22 m with two diagonal springs, and 8-point rings of 0.24 m without
/// a hub) into a 4 m basin, in a world measured in `1 / k` m and stepped
/// at `dt`: only positions, sizes, the length unit and the step differ.
fn other_pour(n: usize, k: f32, dt: f32) -> World {
    let mut w = World::new(Params {
        dt,
        ..Params::with_length_unit(k).unwrap()
    });
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    w.add_plane(HalfPlane::new(Vec2::X, -2.0 * k)).unwrap();
    w.add_plane(HalfPlane::new(Vec2::NEG_X, -2.0 * k)).unwrap();
    let columns = 12;
    for i in 0..n {
        let (row, col) = (i / columns, i % columns);
        let at = Vec2::new(-1.65 + 0.3 * col as f32, 0.4 + 0.3 * row as f32) * k;
        let angle = 0.7 * i as f32;
        if i % 2 == 0 {
            BoxShape::new(at, Vec2::splat(0.22 * k))
                .rotation(angle)
                .diagonals(true)
                .build(&mut w)
                .unwrap();
        } else {
            Blob::new(at, 0.12 * k, 8)
                .rotation(angle)
                .center_point(false)
                .build(&mut w)
                .unwrap();
        }
    }
    w
}

/// The share of points asleep after `steps` steps on the CPU.
fn asleep_after(world: &World, steps: u32) -> f32 {
    let (_, vel) = run_cpu(world, steps);
    (vel.len() - awake(&vel)) as f32 / vel.len() as f32
}

/// A pour of other shapes in centimetres falls asleep as in metres (the
/// share asleep after 12 s within 1%), and at 30 and 120 steps a second
/// it comes to rest too (issue 48: a scene in another length unit or
/// time step needed its thresholds rescaled by hand).
#[test]
fn a_pour_of_other_shapes_rests_in_any_length_unit_and_time_step() {
    let n = 120;
    let metres = asleep_after(&other_pour(n, 1.0, 1.0 / 60.0), 720);
    let centimetres = asleep_after(&other_pour(n, 100.0, 1.0 / 60.0), 720);
    let coarse = asleep_after(&other_pour(n, 1.0, 1.0 / 30.0), 360);
    let fine = asleep_after(&other_pour(n, 1.0, 1.0 / 120.0), 1440);
    eprintln!(
        "asleep after 12 s: metres {metres:.3}, centimetres {centimetres:.3}, dt 1/30 {coarse:.3}, dt 1/120 {fine:.3}"
    );
    assert!(metres > 0.99, "metres: {metres} asleep");
    assert!(
        (metres - centimetres).abs() <= 0.01,
        "{metres} against {centimetres}"
    );
    assert!(
        coarse > 0.99 && fine > 0.99,
        "dt 1/30: {coarse}, dt 1/120: {fine}"
    );
}

/// Every rule scales with the length unit, none hides a metre: in a unit
/// that is a power of two (1/64 m and 64 m), where scaling every length is
/// exact in floating point, a pour of other shapes runs as the metre pour
/// scaled, bit for bit, for 15 s and through its sleep, on both paths. A
/// threshold or epsilon left in metres would part them at once; in
/// centimetres the scaling rounds, so a chaotic pour can be compared only
/// by its share asleep (above).
#[test]
fn a_pour_in_a_power_of_two_unit_is_the_metre_pour_scaled_bit_for_bit() {
    let n = 60;
    let steps = 900;
    let ctx = gpu();
    let run = |path: &str, world: &World| match (path, &ctx) {
        ("GPU", Some(ctx)) => run_gpu(ctx, world, steps),
        _ => run_cpu(world, steps),
    };
    let paths: &[&str] = if ctx.is_some() {
        &["CPU", "GPU"]
    } else {
        &["CPU"]
    };
    let metres = other_pour(n, 1.0, 1.0 / 60.0);
    let asleep = |vel: &[[f32; 2]]| vel.len() - awake(vel);
    for &path in paths {
        let (pos_m, vel_m) = run(path, &metres);
        assert_eq!(
            asleep(&vel_m),
            vel_m.len(),
            "{path}: the metre pour did not sleep whole"
        );
        for k in [64.0f32, 1.0 / 64.0] {
            let (pos, vel) = run(path, &other_pour(n, k, 1.0 / 60.0));
            let parted = pos
                .iter()
                .zip(&pos_m)
                .filter(|(p, q)| [p[0] / k, p[1] / k] != **q)
                .count();
            assert_eq!(
                parted, 0,
                "{path}, 1 unit = 1/{k} m: {parted} points parted from the metre run"
            );
            assert_eq!(
                asleep(&vel),
                vel.len(),
                "{path}, 1 unit = 1/{k} m: not all asleep"
            );
        }
    }
}

/// A box of 100 kg a point resting on one of 1 kg a point, on both paths:
/// shape stiffness is a frequency (an acceleration per metre), so a body
/// resists a load in proportion to its own mass, and the light box gives
/// 10% of its height under a hundred times its weight; the heavy box stays
/// on top (docs/physics.md, "Mass ratios").
#[test]
fn a_box_under_one_a_hundred_times_heavier_gives_a_tenth_of_its_height() {
    let mut w = World::default();
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    let low = BoxShape::new(Vec2::new(0.0, 0.27), Vec2::splat(0.5))
        .build(&mut w)
        .unwrap();
    let top = BoxShape::new(Vec2::new(0.0, 0.8), Vec2::splat(0.5))
        .style(ShapeStyle::new().mass(100.0))
        .build(&mut w)
        .unwrap();
    let mut runs = vec![("CPU", run_cpu(&w, 300))];
    if let Some(ctx) = gpu() {
        runs.push(("GPU", run_gpu(&ctx, &w, 300)));
    }
    for (what, (pos, _)) in runs {
        let ys: Vec<f32> = low.points.iter().map(|h| pos[h.index()][1]).collect();
        let height = ys.iter().copied().fold(f32::MIN, f32::max)
            - ys.iter().copied().fold(f32::MAX, f32::min);
        let (lc, tc) = (centroid(&pos, &low), centroid(&pos, &top));
        eprintln!(
            "{what}: the light box keeps {:.3} of its height; the heavy one at {tc}",
            height / 0.5
        );
        assert!(
            (0.85..0.95).contains(&(height / 0.5)),
            "{what}: the light box keeps {} of its height",
            height / 0.5
        );
        assert!(
            tc.y > lc.y + 0.4 && (tc.x - lc.x).abs() < 0.05,
            "{what}: the heavy box at {tc}, the light one at {lc}"
        );
    }
}

/// 80 turned boxes of 8 mm (diagonal springs) and 24 hubless 9-point rings
/// of 5 mm radius, with a 1 mm point radius, in a 12 cm basin: the pile
/// of `scale1` in the sweep behind `SAG_LIMIT`. Its shape and area
/// frequencies are the defaults' times `stiffen`, stepped at `substeps`.
fn small_pile(stiffen: f32, substeps: u32) -> World {
    let mut params = Params {
        point_radius: 0.001,
        substeps,
        ..Params::default()
    };
    let shape = params.shape_frequency();
    params.set_shape_frequency(Frequency::new(shape.hz * stiffen, shape.damping_ratio));
    params.set_area_frequency(params.area_frequency() * stiffen);
    let mut w = World::new(params);
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    w.add_plane(HalfPlane::new(Vec2::X, -0.06)).unwrap();
    w.add_plane(HalfPlane::new(Vec2::NEG_X, -0.06)).unwrap();
    for i in 0..80 {
        let at = Vec2::new(
            -0.05 + 0.011 * (i % 10) as f32,
            0.01 + 0.011 * (i / 10) as f32,
        );
        BoxShape::new(at, Vec2::splat(0.008))
            .rotation(0.4)
            .build(&mut w)
            .unwrap();
    }
    for i in 0..24 {
        let at = Vec2::new(
            -0.045 + 0.012 * (i % 8) as f32,
            0.11 + 0.012 * (i / 8) as f32,
        );
        Blob::new(at, 0.005, 9).build(&mut w).unwrap();
    }
    w
}

/// Bodies so small or soft that they sag more than `SAG_LIMIT` of their
/// size under their own weight get a warning that names one, and their
/// pile crushes: a fifth of its points end inside other bodies. Stiffened
/// as the warning says (the frequencies and substeps by the square root of
/// its factor), the same pile holds with no point inside, on both paths
/// (docs/physics.md, "Small bodies and deep piles").
#[test]
fn small_bodies_that_sag_are_warned_of_and_hold_once_stiffened_as_told() {
    use softbody::pack::SAG_LIMIT;
    let soft = small_pile(1.0, 8);
    let h = soft.params.h();
    let stability = Packed::from_world(&soft).unwrap().stability(h);
    let (sag, body) = stability.sag;
    let warning = stability.warnings().join("\n");
    eprintln!("default stiffness: {warning}");
    assert!(sag > 3.0 * SAG_LIMIT, "sag {sag}");
    assert!(warning.contains(&format!("body {body}: sags")), "{warning}");
    let packed = Packed::from_world(&soft).unwrap();
    let (pos, vel) = run_cpu(&soft, 60);
    let r = pile_report(&packed, &pos, &vel);
    eprintln!("CPU, default stiffness, 1 s: {r}");
    assert!(r.inside_fraction() > 0.05, "{r}");

    let root = (sag / SAG_LIMIT).sqrt();
    let stiff = small_pile(root, (8.0 * root).ceil() as u32);
    let h = stiff.params.h();
    let stability = Packed::from_world(&stiff).unwrap().stability(h);
    assert!(stability.sag.0 <= SAG_LIMIT * 1.001, "{:?}", stability.sag);
    assert!(
        stability.warnings().is_empty(),
        "{:?}",
        stability.warnings()
    );
    let mut runs = vec![("CPU", run_cpu(&stiff, 60))];
    if let Some(ctx) = gpu() {
        runs.push(("GPU", run_gpu(&ctx, &stiff, 60)));
    }
    for (what, (pos, vel)) in runs {
        let r = pile_report(&packed, &pos, &vel);
        eprintln!("{what}, stiffened {root:.2}-fold in frequency, 1 s: {r}");
        assert_eq!(r.points_inside, 0, "{what}: {r}");
        assert_sound(what, &r);
    }
}

/// A silo 3.2 m wide of 400 hubless 10-point rings (0.26 m) in 40 rows,
/// stepped at `substeps`.
fn ring_silo(substeps: u32) -> World {
    let mut w = World::new(Params {
        substeps,
        ..Params::default()
    });
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    w.add_plane(HalfPlane::new(Vec2::X, -1.6)).unwrap();
    w.add_plane(HalfPlane::new(Vec2::NEG_X, -1.6)).unwrap();
    for i in 0..400 {
        let at = Vec2::new(-1.35 + 0.3 * (i % 10) as f32, 0.3 + 0.3 * (i / 10) as f32);
        Blob::new(at, 0.13, 10).build(&mut w).unwrap();
    }
    w
}

/// A pile 40 bodies deep, which the default 8 substeps leave churning in
/// its lower half (2,240 of 4,000 points asleep at 30 s on the CPU),
/// sleeps whole at 16 substeps by 15 s with no point inside another
/// body, on both paths (measured: by 10 s on both), as docs/physics.md
/// ("Small bodies and deep piles") tells users to do.
#[test]
fn a_pile_forty_deep_sleeps_whole_at_sixteen_substeps() {
    let world = ring_silo(16);
    let packed = Packed::from_world(&world).unwrap();
    let mut runs = vec![("CPU", run_cpu(&world, 900))];
    if let Some(ctx) = gpu() {
        runs.push(("GPU", run_gpu(&ctx, &world, 900)));
    }
    for (what, (pos, vel)) in runs {
        let r = pile_report(&packed, &pos, &vel);
        eprintln!(
            "{what}, 16 substeps, 15 s: {r}; {} points moving",
            awake(&vel)
        );
        assert_eq!(awake(&vel), 0, "{what}: {r}");
        assert_eq!(r.points_inside, 0, "{what}: {r}");
        assert_sound(what, &r);
    }
}

/// A single column of `rows` 0.4 m boxes (diagonal springs), 2 mm apart,
/// on a floor, in 1/`k` m at time step `dt`, its bodies' shape and area
/// stiffness `stiffen` times the default and `substeps` substeps; and
/// its top box.
fn column(rows: usize, k: f32, dt: f32, stiffen: f32, substeps: u32) -> (World, Shape) {
    let mut w = World::new(Params {
        dt,
        substeps,
        ..Params::with_length_unit(k).unwrap()
    });
    w.params.shape_stiffness *= stiffen;
    w.params.area_stiffness *= stiffen;
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    let boxes: Vec<Shape> = (0..rows)
        .map(|row| {
            let at = Vec2::new(0.0, 0.21 + 0.42 * row as f32) * k;
            BoxShape::new(at, Vec2::splat(0.4) * k)
                .build(&mut w)
                .unwrap()
        })
        .collect();
    (w, boxes.last().unwrap().clone())
}

/// A column of soft boxes holds as high as its stiffness allows: the load
/// that bends it at its foot grows as the square of its height, and the
/// boxes' stiffness against that bending as their frequency squared
/// (docs/physics.md, "Small bodies and deep piles"). 15 boxes stand at the
/// default stiffness in centimetres at dt 1/120 (20 buckle, measured),
/// and 25 in metres at dt 1/60 once the frequencies and the substeps are
/// doubled (80 Hz, 16 substeps): at 10 s the top box is within a tenth
/// of its size of where it stood sideways and has sunk under 10 cm, every
/// point is asleep, on both paths.
#[test]
fn a_column_of_boxes_stands_as_high_as_its_stiffness_allows() {
    for (rows, k, dt, stiffen, substeps) in [
        (15, 100.0, 1.0 / 120.0, 1.0, 8),
        (25, 1.0, 1.0 / 60.0, 4.0, 16),
    ] {
        let (world, top) = column(rows, k, dt, stiffen, substeps);
        let steps = (10.0 / dt).round() as u32;
        let mut runs = vec![("CPU", run_cpu(&world, steps))];
        if let Some(ctx) = gpu() {
            runs.push(("GPU", run_gpu(&ctx, &world, steps)));
        }
        let packed = Packed::from_world(&world).unwrap();
        let built = centroid(&packed.pos, &top) / k;
        for (what, (pos, vel)) in runs {
            let now = centroid(&pos, &top) / k;
            let r = pile_report(&packed, &pos, &vel);
            eprintln!(
                "{what}, {rows} boxes in 1/{k} m, {stiffen}x stiffness: the top box at {now} m (built at {built}); {r}; {} points moving",
                awake(&vel)
            );
            // Each of its contacts and boxes gives a few millimetres under
            // the weight above (measured: the top sinks 3.6 and 2.9 cm).
            let (sideways, sunk) = ((now.x - built.x).abs(), built.y - now.y);
            assert!(
                sideways < 0.04 && (0.0..0.1).contains(&sunk),
                "{what}: {now} against {built}"
            );
            assert_eq!(awake(&vel), 0, "{what}: {r}");
            assert_sound(what, &r);
        }
    }
}
