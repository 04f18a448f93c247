//! Moving colliders (`shaders/move_colliders.wgsl`, mirrored by
//! `cpu::move_colliders`): kinematic planets and half-planes posed at each
//! substep as functions of time, contacts relative to their surface's
//! velocity (`collider_velocity` in `shaders/colliders.wgsl`), and the
//! sleepers they reach woken; on both paths.

use crate::common::{both, centroid, gpu};
use crate::gpu_check::assert_close;
use softbody::cpu::move_colliders::{plane_at, planet_at};
use softbody::gpu::Stage;
use softbody::layout::{Colliders, PlanetInfo};
use softbody::prelude::*;
use softbody::solver::Solver;

/// The centroid of `shape` in the solver's state.
fn centre(s: &Solver, shape: &Shape) -> Vec2 {
    centroid(&s.state().unwrap().0, shape)
}

/// The mean velocity of `shape`'s points.
fn velocity(s: &Solver, shape: &Shape) -> Vec2 {
    centroid(&s.state().unwrap().1, shape)
}

/// A half-plane at time `t` is `normal0` turned by `spin t`, keeping its
/// distance from a pivot moved by `velocity t` (here 1 m off the
/// boundary); a planet's centre moves by `velocity t`: the closed form,
/// and a collider that does not move is returned bit for bit.
#[test]
fn poses_are_the_closed_form_of_time() {
    let mut world = World::default();
    world
        .add_planet(Planet::new(Vec2::new(1.0, 2.0), 1.0).velocity(Vec2::new(3.0, -1.0)))
        .unwrap();
    world
        .add_planet(Planet::new(Vec2::new(5.0, 5.0), 2.0))
        .unwrap();
    world
        .add_plane(
            HalfPlane::new(Vec2::Y, 1.0)
                .spin(0.5)
                .velocity(Vec2::new(0.0, 2.0))
                .pivot(Vec2::new(3.0, 0.0)),
        )
        .unwrap();
    world.add_plane(HalfPlane::new(Vec2::X, -4.0)).unwrap();
    let packed = softbody::pack::Packed::from_world(&world).unwrap();
    let t = 1.5f32;
    let planet = planet_at(&packed.planets[0], t);
    assert_eq!(planet.center, [1.0 + 4.5, 2.0 - 1.5]);
    assert_eq!(planet_at(&packed.planets[1], t), packed.planets[1]);
    let plane = plane_at(&packed.planes[0], t);
    let a = 0.5 * t;
    let n = Vec2::new(-a.sin(), a.cos());
    let pivot = Vec2::new(3.0, 2.0 * t);
    assert!((Vec2::from_array(plane.normal) - n).length() < 1e-6);
    assert!((Vec2::from_array(plane.pivot) - pivot).length() < 1e-6);
    assert!((plane.offset - (n.dot(pivot) + 1.0)).abs() < 1e-5);
    assert_eq!(plane_at(&packed.planes[1], t), packed.planes[1]);
}

/// A floor moving along itself at 1 m/s (a conveyor, or a platform that
/// slides sideways) carries a box resting on it, and a floor rising at
/// 0.5 m/s lifts one, each within 1% of the surface's speed after 2 s, on
/// both paths. A hubless ring (a blob) on the conveyor rolls: the points
/// touching the belt move with it within 2%, its centre at about half
/// the belt's speed, as a hoop's does (a friction impulse J gives it
/// J/m of speed and J r^2/I = J/m of rim speed, which add at the contact).
#[test]
fn a_moving_floor_carries_what_rests_on_it() {
    for (floor_velocity, shape_kind) in [
        (Vec2::new(1.0, 0.0), "box"),
        (Vec2::new(0.0, 0.5), "box"),
        (Vec2::new(1.0, 0.0), "ring"),
    ] {
        let mut world = World::default();
        world
            .add_plane(HalfPlane::floor(0.0).velocity(floor_velocity))
            .unwrap();
        let shape = if shape_kind == "box" {
            BoxShape::new(Vec2::new(0.0, 0.27), Vec2::splat(0.5))
                .build(&mut world)
                .unwrap()
        } else {
            Blob::new(Vec2::new(0.0, 0.32), 0.3, 10)
                .build(&mut world)
                .unwrap()
        };
        for mut s in both(&world) {
            s.step(120).unwrap();
            let v = velocity(&s, &shape);
            let c = centre(&s, &shape);
            let (pos, vel) = s.state().unwrap();
            let lowest = (0..pos.len())
                .min_by(|&a, &b| pos[a][1].total_cmp(&pos[b][1]))
                .unwrap();
            let v_low = Vec2::from_array(vel[lowest]);
            eprintln!(
                "{} {shape_kind} on a floor moving at {floor_velocity}: velocity {v} after 2 s, centre {c}, lowest point at {:?} moving at {v_low}",
                s.name(),
                pos[lowest]
            );
            if shape_kind == "ring" {
                assert!(
                    (v_low - floor_velocity).length() < 0.02,
                    "{}: {v_low}",
                    s.name()
                );
                assert!(
                    (0.35..0.8).contains(&v.x),
                    "{}: ring centre at {v}",
                    s.name()
                );
                continue;
            }
            let along = v.dot(floor_velocity.normalize());
            assert!(
                (along / floor_velocity.length() - 1.0).abs() < 0.01,
                "{}: {shape_kind} moves at {v}, the floor at {floor_velocity}",
                s.name()
            );
            let across = v - floor_velocity.normalize() * along;
            assert!(
                across.length() < 0.02 * floor_velocity.length(),
                "{}: {v}",
                s.name()
            );
            if floor_velocity.y > 0.0 {
                // Still on the floor, which rose 1 m.
                assert!(
                    (pos[lowest][1] - 1.0).abs() < 0.03,
                    "{}: lowest point at {:?}",
                    s.name(),
                    pos[lowest]
                );
            }
        }
    }
}

/// A box resting on top of a planet that turns at 0.5 rad/s (its own pull
/// holding the box on) is carried around: once it has caught up (by 1 s;
/// Coulomb friction takes about 0.25 s to bring it to the surface's
/// 1.5 m/s), its angle about the centre grows at the planet's rate within
/// 5% and it stays on the surface, on both paths. Another rests on a
/// planet that does not turn and stays where it is.
#[test]
fn a_turning_planet_carries_a_box_around() {
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    let (a, b) = (Vec2::new(0.0, 0.0), Vec2::new(20.0, 0.0));
    world
        .add_planet(Planet::new(a, 3.0).surface_gravity(9.8).spin(0.5))
        .unwrap();
    world
        .add_planet(Planet::new(b, 3.0).surface_gravity(9.8))
        .unwrap();
    let turning = BoxShape::new(a + Vec2::new(0.0, 3.26), Vec2::splat(0.5))
        .build(&mut world)
        .unwrap();
    let still = BoxShape::new(b + Vec2::new(0.0, 3.26), Vec2::splat(0.5))
        .build(&mut world)
        .unwrap();
    let angle = |s: &Solver| {
        let d = centre(s, &turning) - a;
        (d.y.atan2(d.x), d.length())
    };
    for mut s in both(&world) {
        s.step(60).unwrap();
        let (a1, _) = angle(&s);
        s.step(60).unwrap();
        let (a2, r) = angle(&s);
        let rate = a2 - a1;
        let still_at = centre(&s, &still) - b;
        eprintln!(
            "{}: the box on the turning planet turns {rate:.4} rad/s (the planet 0.5), at radius {r:.4}; the other box is at {still_at}",
            s.name(),
        );
        assert!(
            (rate / 0.5 - 1.0).abs() < 0.05,
            "{}: turns at {rate}",
            s.name()
        );
        assert!((r - 3.25).abs() < 0.03, "{}: radius {r}", s.name());
        assert!(
            (still_at - Vec2::new(0.0, 3.25)).length() < 0.02,
            "{}: {still_at}",
            s.name()
        );
    }
}

/// A scene with every kind of motion: a conveyor floor, a turning planet
/// with boxes on it, a planet moving through a row of boxes, a half-plane
/// tilting about a pivot with a ring wheel on it, at the default
/// parameters with sleeping on.
fn moving_world() -> World {
    let mut world = World::default();
    world
        .add_plane(HalfPlane::floor(0.0).velocity(Vec2::new(0.7, 0.0)))
        .unwrap();
    world
        .add_planet(Planet::new(Vec2::new(-8.0, 4.0), 1.5).spin(-0.8))
        .unwrap();
    world
        .add_planet(Planet::new(Vec2::new(-3.0, 1.0), 0.8).velocity(Vec2::new(2.0, 0.0)))
        .unwrap();
    world
        .add_plane(
            HalfPlane::new(Vec2::new(0.2, 1.0), 0.3)
                .spin(0.3)
                .pivot(Vec2::new(8.0, 2.0)),
        )
        .unwrap();
    for k in 0..6 {
        BoxShape::new(Vec2::new(-1.0 + 0.7 * k as f32, 0.3), Vec2::splat(0.5))
            .build(&mut world)
            .unwrap();
    }
    BoxShape::new(Vec2::new(-8.0, 5.8), Vec2::splat(0.6))
        .build(&mut world)
        .unwrap();
    Blob::new(Vec2::new(8.0, 3.0), 0.4, 10)
        .build(&mut world)
        .unwrap();
    world
}

/// The moving-colliders scene on the GPU against the CPU: the collider
/// table each substep poses matches the CPU's, and the points stay within
/// 1 mm over half a second.
#[test]
fn moving_colliders_match_the_cpu() {
    let Some(ctx) = gpu() else { return };
    let world = moving_world();
    let mut cpu = CpuSolver::new(&world).unwrap();
    let mut g = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    assert!(g.step_plan().contains(&Stage::MoveColliders));
    for _ in 0..30 {
        cpu.step();
    }
    g.step(&ctx.device, &ctx.queue, 30).unwrap();
    let state = g.read_state(&ctx.device, &ctx.queue).unwrap();
    let table: Vec<Colliders> =
        softbody::gpu::read_buffer(&ctx.device, &ctx.queue, g.colliders_buffer(), 1).unwrap();
    let p = cpu.packed();
    let flat = |planets: &[PlanetInfo], planes: &[softbody::layout::PlaneInfo]| -> Vec<[f32; 2]> {
        planets
            .iter()
            .map(|c| c.center)
            .chain(
                planes
                    .iter()
                    .flat_map(|c| [c.normal, c.pivot, [c.offset, 0.0]]),
            )
            .collect()
    };
    let n = (p.planets.len(), p.planes.len());
    assert_close(
        "posed colliders",
        &flat(&table[0].planets[..n.0], &table[0].planes[..n.1]),
        &flat(&p.planets, &p.planes),
        1e-5,
    );
    // Posed at the last substep's start: 30 steps of 8 substeps, less one.
    let t = (30.0 * 8.0 - 1.0) * world.params.h();
    assert!((p.planets[1].center[0] - (-3.0 + 2.0 * t)).abs() < 1e-5);
    let dp = assert_close("moving colliders pos", &state.pos, cpu.positions(), 1e-3);
    let dv = assert_close("moving colliders vel", &state.vel, cpu.velocities(), 0.05);
    eprintln!("after 30 steps: pos {dp:e} m, vel {dv:e} m/s apart");
}

/// Boxes asleep on a floor are woken by a planet that moves into them (a
/// sleeping point is pinned, so without waking the planet would pass
/// through), and none is left inside it, on both paths.
#[test]
fn a_moving_planet_wakes_and_pushes_a_sleeping_row() {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    world
        .add_planet(Planet::new(Vec2::new(-12.0, 0.9), 0.8).velocity(Vec2::new(1.5, 0.0)))
        .unwrap();
    let boxes: Vec<Shape> = (0..4)
        .map(|k| {
            BoxShape::new(Vec2::new(0.6 * k as f32, 0.26), Vec2::splat(0.5))
                .build(&mut world)
                .unwrap()
        })
        .collect();
    for mut s in both(&world) {
        // Asleep before the planet arrives (it reaches the first box at
        // about 7 s).
        s.step(300).unwrap();
        let asleep = s.sleeping_points().unwrap();
        assert_eq!(asleep, 16, "{}: {asleep} points asleep at 5 s", s.name());
        let mut deepest = 0.0f32;
        for _ in 0..60 {
            s.step(5).unwrap();
            let t = s.steps() as f32 * world.params.dt;
            let c = Vec2::new(-12.0 + 1.5 * t, 0.9);
            for p in s.state().unwrap().0 {
                deepest = deepest.max(0.8 - (Vec2::from_array(p) - c).length());
            }
        }
        let first = centre(&s, &boxes[0]);
        eprintln!(
            "{}: first box at {first} after 10 s, deepest point inside the planet {deepest:.4} m",
            s.name()
        );
        assert!(
            first.x > 1.5,
            "{}: the first box was not pushed: {first}",
            s.name()
        );
        assert!(
            deepest < 0.03,
            "{}: a point {deepest} m inside the planet",
            s.name()
        );
    }
}

/// A run restored from a checkpoint poses its moving colliders where the
/// run it was saved from has them (poses are functions of time, not sums
/// of steps): bitwise the same on the CPU, and the GPU restored from it
/// matches the CPU.
#[test]
fn a_checkpoint_restores_moving_colliders() {
    let (straight, resumed) = crate::gpu_check::assert_checkpoint_resumes(&moving_world());
    assert_eq!(resumed.packed().planets, straight.packed().planets);
    assert_eq!(resumed.packed().planes, straight.packed().planes);
}

/// Box2D's tumbler: four half-planes turning about their common centre
/// (a pivot off every boundary) are a turning box. 18 boxes with diagonal
/// springs and 18 hubless rings tumble in it for a turn and a half: no
/// point leaves the box, none is crushed (area kept within 20%), and the
/// contents turn with it (positive angular momentum about the centre), on
/// both paths, in metres at dt 1/60 and in centimetres at dt 1/120 with
/// a box off the origin. Walls that turned about their own midpoints
/// (the pivot moved onto each boundary) closed to 71% of the width at
/// each eighth of a turn and crushed every body.
#[test]
fn half_planes_turning_about_a_common_centre_are_a_tumbler() {
    use softbody::measure::pile_report;
    for (unit, dt, spin, centre) in [
        (1.0f32, 1.0 / 60.0, 1.5f32, Vec2::ZERO),
        (100.0, 1.0 / 120.0, -1.0, Vec2::new(300.0, -150.0)),
    ] {
        let mut params = Params::with_length_unit(unit).unwrap();
        params.dt = dt;
        let mut world = World::new(params);
        let half = 2.0 * unit;
        for n in [Vec2::X, Vec2::NEG_X, Vec2::Y, Vec2::NEG_Y] {
            let plane = HalfPlane::new(n, n.dot(centre) - half)
                .pivot(centre)
                .spin(spin);
            world.add_plane(plane).unwrap();
        }
        for k in 0..36 {
            let at =
                centre + Vec2::new(-1.5 + 0.5 * (k % 7) as f32, -1.5 + 0.5 * (k / 7) as f32) * unit;
            if k % 2 == 0 {
                BoxShape::new(at, Vec2::splat(0.36 * unit))
                    .rotation(0.3 * k as f32)
                    .build(&mut world)
                    .unwrap();
            } else {
                Blob::new(at, 0.18 * unit, 9).build(&mut world).unwrap();
            }
        }
        let packed = softbody::pack::Packed::from_world(&world).unwrap();
        let turn_and_a_half = (3.0 * std::f32::consts::PI / spin.abs() / dt).round() as u64;
        let slack = world.params.point_radius * 2.0;
        for mut s in both(&world) {
            let (mut outside, mut min_area, mut momentum) = (-half, 1.0f32, 0.0f32);
            let chunks = 30;
            for _ in 0..chunks {
                s.step(turn_and_a_half / chunks).unwrap();
                let t = s.steps() as f32 * dt;
                let (pos, vel) = s.state().unwrap();
                let turn = glam::Mat2::from_angle(-spin * t);
                for p in &pos {
                    let local = turn * (Vec2::from_array(*p) - centre);
                    outside = outside.max(local.abs().max_element() - half);
                }
                min_area = min_area.min(pile_report(&packed, &pos, &vel).min_area_ratio);
                momentum += pos
                    .iter()
                    .zip(&vel)
                    .map(|(p, v)| (Vec2::from_array(*p) - centre).perp_dot(Vec2::from_array(*v)))
                    .sum::<f32>()
                    * spin.signum();
            }
            eprintln!(
                "{} unit {unit} dt {dt:.4} spin {spin}: farthest outside the box {:.4} point radii, smallest area {min_area:.3}, mean angular momentum {:.3} along the spin",
                s.name(),
                outside / world.params.point_radius,
                momentum / chunks as f32 / (unit * unit),
            );
            assert!(
                outside < slack,
                "{}: a point {outside} outside the box",
                s.name()
            );
            assert!(
                min_area > 0.8,
                "{}: a body kept {min_area} of its area",
                s.name()
            );
            assert!(
                momentum > 0.0,
                "{}: the contents turn against the box",
                s.name()
            );
        }
    }
}
