//! Kinematic bodies (`shaders/move_bodies.wgsl`, mirrored by
//! `cpu::move_bodies`): bodies posed each substep as rigid bodies in their
//! rest shape, at the motion their points' velocities give, steered by the
//! body commands; what rests on them is carried by friction and wakes when
//! they move off; on both paths.

use crate::common::{both, centroid, gpu, shared_gpu};
use crate::gpu_check::assert_close;
use softbody::commands::Command;
use softbody::gpu::Stage;
use softbody::prelude::*;
use softbody::solver::Solver;

fn centre(s: &Solver, shape: &Shape) -> Vec2 {
    centroid(&s.state().unwrap().0, shape)
}

fn velocity(s: &Solver, shape: &Shape) -> Vec2 {
    centroid(&s.state().unwrap().1, shape)
}

/// The angle of the line from `shape`'s first point to its second.
fn heading(s: &Solver, shape: &Shape) -> f32 {
    let pos = s.state().unwrap().0;
    let d = Vec2::from_array(pos[shape.points[1].index()])
        - Vec2::from_array(pos[shape.points[0].index()]);
    d.y.atan2(d.x)
}

/// A 6 m platform, kinematic, at rest at height 0.
fn platform(world: &mut World, velocity: Vec2, spin: f32) -> Shape {
    let shape = BoxShape::new(Vec2::ZERO, Vec2::new(6.0, 0.4))
        .build(world)
        .unwrap();
    world
        .set_kinematic(shape.bodies[0], velocity, spin)
        .unwrap();
    shape
}

/// A kinematic platform moving at 1 m/s carries a box resting on it (a
/// box with diagonal springs) within 1% of its speed after 2 s, and a
/// hubless ring rolls on it, its touching point at the platform's speed
/// (1%); a rising one lifts both at its speed; the platform itself keeps its
/// speed exactly (nothing pushes a kinematic body) and its shape; on both
/// paths.
#[test]
fn a_kinematic_platform_carries_what_rests_on_it() {
    for platform_velocity in [Vec2::new(1.0, 0.0), Vec2::new(0.0, 0.5)] {
        let mut world = World::default();
        let deck = platform(&mut world, platform_velocity, 0.0);
        let crate_ = BoxShape::new(Vec2::new(-1.0, 0.46), Vec2::splat(0.5))
            .build(&mut world)
            .unwrap();
        let ring = Blob::new(Vec2::new(1.0, 0.52), 0.3, 8)
            .build(&mut world)
            .unwrap();
        for mut s in both(&world) {
            s.step(120).unwrap();
            let t = 2.0;
            let deck_at = centre(&s, &deck);
            let expected = platform_velocity * t;
            assert!(
                (deck_at - expected).length() < 1e-3,
                "{}: the platform is at {deck_at}, not {expected}",
                s.name()
            );
            let pos = s.state().unwrap().0;
            let width = Vec2::from_array(pos[deck.points[1].index()])
                - Vec2::from_array(pos[deck.points[0].index()]);
            assert!((width.length() - 6.0).abs() < 1e-4, "{}: {width}", s.name());
            let vel = s.state().unwrap().1;
            for (name, shape) in [("box", &crate_), ("ring", &ring)] {
                let v = velocity(&s, shape);
                let c = centre(&s, shape);
                let low = *shape
                    .points
                    .iter()
                    .min_by(|a, b| pos[a.index()][1].total_cmp(&pos[b.index()][1]))
                    .unwrap();
                let v_low = Vec2::from_array(vel[low.index()]);
                eprintln!(
                    "{}: {name} on a platform moving at {platform_velocity}: velocity {v}, centre {c} after 2 s; its lowest point moves at {v_low}",
                    s.name()
                );
                // A ring set rolling by the platform's start (a hoop's
                // centre first takes half the surface's speed) rolls on:
                // its touching point goes with the platform.
                let v = if name == "ring" && platform_velocity.x != 0.0 {
                    v_low
                } else {
                    v
                };
                let speed = platform_velocity.length();
                let dir = platform_velocity / speed;
                // Along the platform's motion within 1%; across it, a
                // ring rocks a little on a rising deck.
                let across = if name == "ring" { 0.1 } else { 0.01 };
                assert!(
                    (v.dot(dir) - speed).abs() < 0.01 * speed
                        && v.perp_dot(dir).abs() < across * speed,
                    "{}: the {name} moves at {v}, the platform at {platform_velocity}",
                    s.name()
                );
                // Still on the deck (its top at 0.2 + the platform's travel).
                let lowest = shape
                    .points
                    .iter()
                    .map(|p| pos[p.index()][1])
                    .fold(f32::INFINITY, f32::min);
                assert!(
                    (lowest - (0.2 + expected.y)).abs() < 0.03,
                    "{}: the {name}'s lowest point at {lowest}",
                    s.name()
                );
            }
        }
    }
}

/// A kinematic ring turning at 2 rad/s in free space keeps its rest shape
/// exactly and turns 4 rad in 2 s (1e-3), its centre still; on both paths.
#[test]
fn a_turning_kinematic_ring_keeps_its_shape() {
    let mut world = World::default();
    let ring = Blob::new(Vec2::new(3.0, -2.0), 1.5, 12)
        .build(&mut world)
        .unwrap();
    world
        .set_kinematic(ring.bodies[0], Vec2::ZERO, 2.0)
        .unwrap();
    let rest: Vec<Vec2> = ring.points.iter().map(|p| world.point(*p).pos).collect();
    for mut s in both(&world) {
        let h0 = heading(&s, &ring);
        s.step(120).unwrap();
        let turned = heading(&s, &ring) - h0;
        let expected = 4.0 - std::f32::consts::TAU * 0.0;
        let wrapped = (turned - expected + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU)
            - std::f32::consts::PI;
        let c = centre(&s, &ring);
        let pos = s.state().unwrap().0;
        let mut worst = 0.0f32;
        for (i, p) in ring.points.iter().enumerate() {
            for (j, q) in ring.points.iter().enumerate() {
                let now =
                    (Vec2::from_array(pos[p.index()]) - Vec2::from_array(pos[q.index()])).length();
                worst = worst.max((now - (rest[i] - rest[j]).length()).abs());
            }
        }
        eprintln!(
            "{}: turned {turned} rad (4 expected), centre {c}, shape off by {worst:e} m",
            s.name()
        );
        assert!(wrapped.abs() < 1e-3, "{}: turned {turned}", s.name());
        assert!(
            (c - Vec2::new(3.0, -2.0)).length() < 1e-4,
            "{}: {c}",
            s.name()
        );
        assert!(worst < 1e-4, "{}: shape off by {worst}", s.name());
    }
}

/// `BodyTarget` queued every step moves a kinematic box along a circle,
/// turning it to face along the path: after each step its centre is at
/// the target (1e-3 m) and its heading at the target angle (1e-3 rad);
/// impulses and forces leave it alone. A dynamic box given a target
/// takes the velocity that reaches it in one step (no gravity). Both paths.
#[test]
fn a_target_steers_a_kinematic_body() {
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    let lift = BoxShape::new(Vec2::new(2.0, 0.0), Vec2::new(1.0, 0.5))
        .build(&mut world)
        .unwrap();
    world
        .set_kinematic(lift.bodies[0], Vec2::ZERO, 0.0)
        .unwrap();
    let free = BoxShape::new(Vec2::new(-5.0, 0.0), Vec2::splat(0.5))
        .build(&mut world)
        .unwrap();
    let dt = world.params.dt;
    for mut s in both(&world) {
        let h0 = heading(&s, &lift);
        for k in 1..=60 {
            let a = k as f32 * 0.05;
            let target = Vec2::new(2.0 * a.cos(), 2.0 * a.sin());
            s.queue(Command::BodyTarget {
                body: lift.bodies[0],
                position: target,
                angle: Some(a),
            })
            .unwrap();
            s.queue(Command::BodyImpulse {
                body: lift.bodies[0],
                impulse: Vec2::new(50.0, 0.0),
                at: target,
            })
            .unwrap();
            s.step(1).unwrap();
            let at = centre(&s, &lift);
            let turned = heading(&s, &lift) - h0;
            assert!(
                (at - target).length() < 1e-3,
                "{} step {k}: at {at}, target {target}",
                s.name()
            );
            assert!(
                (turned - a).abs() < 1e-3,
                "{} step {k}: heading {turned}, target {a}",
                s.name()
            );
        }
        let goal = Vec2::new(-4.0, 1.0);
        s.queue(Command::BodyTarget {
            body: free.bodies[0],
            position: goal,
            angle: None,
        })
        .unwrap();
        s.step(1).unwrap();
        let v = velocity(&s, &free);
        let expected = (goal - Vec2::new(-5.0, 0.0)) / dt;
        eprintln!(
            "{}: the dynamic box moves at {v} ({expected} asked)",
            s.name()
        );
        assert!(
            (v - expected).length() < 1e-3 * expected.length(),
            "{}: {v}",
            s.name()
        );
    }
}

/// A box asleep on a kinematic platform (48, item 3) falls when the
/// platform moves off: the platform is sent down at 3 m/s, faster than
/// anything falls in the first 0.3 s, and within 0.1 s the box is awake
/// and falling after it (at more than half of g t). A box asleep on a
/// platform that slides sideways wakes and is carried. Both paths.
#[test]
fn a_box_asleep_on_a_kinematic_platform_falls_when_it_moves_away() {
    for (away, falls) in [(Vec2::new(0.0, -3.0), true), (Vec2::new(1.0, 0.0), false)] {
        let mut world = World::default();
        let deck = platform(&mut world, Vec2::ZERO, 0.0);
        let crate_ = BoxShape::new(Vec2::new(0.5, 0.46), Vec2::new(0.8, 0.5))
            .build(&mut world)
            .unwrap();
        for mut s in both(&world) {
            s.step(240).unwrap();
            // The box's 4 points (a pinned platform's are never counted).
            let asleep = s.sleeping_points().unwrap();
            assert_eq!(asleep, 4, "{}: {asleep} points asleep after 4 s", s.name());
            assert_eq!(velocity(&s, &crate_), Vec2::ZERO, "{}", s.name());
            s.queue(Command::BodyVelocity {
                body: deck.bodies[0],
                linear: away,
                angular: 0.0,
            })
            .unwrap();
            s.step(6).unwrap();
            let v = velocity(&s, &crate_);
            eprintln!(
                "{}: 0.1 s after the platform left at {away}, the box moves at {v}",
                s.name()
            );
            if falls {
                assert!(v.y < -0.5 * 9.81 * 0.1, "{}: the box hangs: {v}", s.name());
            } else {
                s.step(54).unwrap();
                let v = velocity(&s, &crate_);
                assert!((v - away).length() < 0.02, "{}: {v}", s.name());
            }
        }
    }
}

/// A kinematic body that closes in on a sleeping body wakes it and
/// pushes it, on both paths: a flat paddle (its edge against the body's
/// corners) driven into a box asleep on the floor, and a kinematic
/// diamond (its tip against the body's edge) driven into a hubless ring
/// asleep there, both at 0.5 m/s, below the wake speed. Neither side has
/// mass for the contact to act on while the body sleeps, so before the
/// rule that wakes sides closing in, both passed through the sleeper,
/// which stayed asleep where it lay.
#[test]
fn a_kinematic_body_pushes_a_sleeping_body_it_closes_in_on() {
    use std::f32::consts::FRAC_PI_4;
    for tip in [false, true] {
        let mut world = World::default();
        world.add_plane(HalfPlane::floor(0.0)).unwrap();
        let lander = if tip {
            Blob::new(Vec2::new(0.0, 0.25), 0.25, 10).build(&mut world)
        } else {
            BoxShape::new(Vec2::new(0.0, 0.25), Vec2::splat(0.5)).build(&mut world)
        }
        .unwrap();
        let pusher = if tip {
            BoxShape::new(Vec2::new(-0.7, 0.25), Vec2::splat(0.3))
                .rotation(FRAC_PI_4)
                .build(&mut world)
        } else {
            BoxShape::new(Vec2::new(-0.6, 0.3), Vec2::new(0.2, 0.5)).build(&mut world)
        }
        .unwrap();
        world
            .set_kinematic(pusher.bodies[0], Vec2::ZERO, 0.0)
            .unwrap();
        let xs = |s: &Solver, shape: &Shape| {
            let pos = s.state().unwrap().0;
            let x = shape.points.iter().map(|h| pos[h.index()][0]);
            (
                x.clone().fold(f32::MAX, f32::min),
                x.fold(f32::MIN, f32::max),
            )
        };
        let mut moves = Vec::new();
        for mut s in both(&world) {
            s.step(120).unwrap();
            let asleep = s.sleeping_points().unwrap();
            assert_eq!(asleep, lander.points.len(), "{}: {asleep} asleep", s.name());
            s.queue(Command::BodyVelocity {
                body: pusher.bodies[0],
                linear: Vec2::new(0.5, 0.0),
                angular: 0.0,
            })
            .unwrap();
            // 1 m in 2 s: 0.6 m past first touching.
            s.step(120).unwrap();
            let (lander_left, _) = xs(&s, &lander);
            let (_, pusher_right) = xs(&s, &pusher);
            let moved = centre(&s, &lander).x;
            eprintln!(
                "{}: tip {tip}: the sleeper moved {moved} m, its left side at {lander_left}, the pusher's right at {pusher_right}",
                s.name()
            );
            assert!(
                moved > 0.4 && lander_left > pusher_right - 0.03,
                "{}: tip {tip}: the pusher passed into the sleeper (moved {moved} m, left side {lander_left}, pusher {pusher_right})",
                s.name()
            );
            moves.push(moved);
        }
        if let [cpu, gpu] = moves[..] {
            assert!((cpu - gpu).abs() < 5e-3, "tip {tip}: cpu {cpu}, gpu {gpu}");
        }
    }
}

/// A kinematic paddle that hits a sleeping box fast sends it off at the
/// elasticity's speed, as it does an awake box: the contact that finds
/// them closing in wakes the box at the next substep (`wake_flagged`)
/// rather than after the step, during which the paddle pressed into the
/// box and the push-out sent it off at 7.5 m/s whatever the elasticity.
/// A paddle at 6 m/s, elasticity 0.5: the box leaves at 9 m/s (within 5%)
/// on both paths, and the paths wake it in the same step.
#[test]
fn a_kinematic_paddle_hitting_a_sleeping_box_fast_sends_it_off_at_its_elasticity() {
    let mut world = World::default();
    world.params.elasticity = 0.5;
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let crate_ = BoxShape::new(Vec2::new(0.0, 0.25), Vec2::splat(0.5))
        .build(&mut world)
        .unwrap();
    let paddle = BoxShape::new(Vec2::new(-1.0, 0.3), Vec2::new(0.2, 0.5))
        .build(&mut world)
        .unwrap();
    world
        .set_kinematic(paddle.bodies[0], Vec2::ZERO, 0.0)
        .unwrap();
    let mut woken = Vec::new();
    for mut s in both(&world) {
        s.step(120).unwrap();
        assert_eq!(s.sleeping_points().unwrap(), 4, "{}", s.name());
        s.queue(Command::BodyVelocity {
            body: paddle.bodies[0],
            linear: Vec2::new(6.0, 0.0),
            angular: 0.0,
        })
        .unwrap();
        let (mut fastest, mut woke) = (0.0f32, None);
        for step in 0..30 {
            s.step(1).unwrap();
            fastest = fastest.max(velocity(&s, &crate_).x);
            if woke.is_none() && s.sleeping_points().unwrap() == 0 {
                woke = Some(step);
            }
        }
        eprintln!(
            "{}: the box woke after {woke:?} steps and left at {fastest} m/s",
            s.name()
        );
        assert!(
            (fastest - 9.0).abs() < 0.45,
            "{}: the box left at {fastest} m/s",
            s.name()
        );
        woken.push(woke);
    }
    if let [cpu, gpu] = woken[..] {
        assert_eq!(cpu, gpu, "the paths woke the box in different steps");
    }
}

/// A kinematic body slower than the sleep speed never sleeps while it
/// moves (its motion lives in its points' velocities, which sleeping
/// zeroes: a platform at 0.03 m/s stopped for good half a second in), and
/// what rides on it rides on: a platform at 0.03 m/s with a box on it,
/// and a ring turning at 0.02 rad/s, after 6 s, on both paths.
#[test]
fn a_slow_kinematic_body_keeps_moving() {
    let mut world = World::default();
    let deck = platform(&mut world, Vec2::new(0.03, 0.0), 0.0);
    let crate_ = BoxShape::new(Vec2::new(0.0, 0.46), Vec2::splat(0.5))
        .build(&mut world)
        .unwrap();
    let wheel = Blob::new(Vec2::new(10.0, 0.0), 1.0, 12)
        .build(&mut world)
        .unwrap();
    world
        .set_kinematic(wheel.bodies[0], Vec2::ZERO, 0.02)
        .unwrap();
    for mut s in both(&world) {
        let start = heading(&s, &wheel);
        s.step(360).unwrap();
        let (deck_at, crate_at) = (centre(&s, &deck), centre(&s, &crate_));
        let turned = heading(&s, &wheel) - start;
        eprintln!(
            "{}: after 6 s the platform is at {deck_at}, the box at {crate_at}; the wheel turned {turned} rad",
            s.name()
        );
        assert!(
            (deck_at.x - 0.18).abs() < 1e-3,
            "{}: the platform stopped at {deck_at}",
            s.name()
        );
        assert!(
            (crate_at.x - 0.18).abs() < 0.01,
            "{}: the box is at {crate_at}",
            s.name()
        );
        assert!(
            (turned - 0.12).abs() < 1e-3,
            "{}: the wheel turned {turned} rad",
            s.name()
        );
    }
}

/// What lands on a kinematic platform in [`platform_rebound`].
#[derive(Clone, Copy, Debug)]
enum Lander {
    /// A 0.7 x 0.3 m box with diagonal springs.
    Box,
    /// A hubless 10-point ring of radius 0.3 m.
    Ring,
}

/// A body of elasticity `e` landing at `speed` on the 6 m platform, which
/// moves at `platform_velocity` and turns at `spin`, without gravity,
/// stepped at `dt`: its rebound speed over its landing speed, both
/// relative to the platform, from the centroids' motion over a step.
fn platform_rebound(
    s_of: fn(&World) -> Solver,
    lander: Lander,
    (platform_velocity, spin): (Vec2, f32),
    (speed, dt, e): (f32, f32, f32),
) -> f32 {
    let mut world = World::default();
    world.params.elasticity = e;
    world.params.dt = dt;
    world.params.gravity = Vec2::ZERO;
    let deck = BoxShape::new(Vec2::new(0.0, -0.2), Vec2::new(6.0, 0.4))
        .build(&mut world)
        .unwrap();
    world
        .set_kinematic(deck.bodies[0], platform_velocity, spin)
        .unwrap();
    // Three steps above the deck.
    let at = Vec2::new(0.0, 0.35 + 3.0 * speed * dt);
    let style = ShapeStyle::new().vel(platform_velocity - Vec2::new(0.0, speed));
    let body = match lander {
        Lander::Box => BoxShape::new(at, Vec2::new(0.7, 0.3))
            .style(style)
            .build(&mut world),
        Lander::Ring => Blob::new(at, 0.3, 10).style(style).build(&mut world),
    }
    .unwrap();
    let mut s = s_of(&world);
    let height = |s: &Solver| centre(s, &body).y - centre(s, &deck).y;
    let mut prev = height(&s);
    let (mut v_in, mut v_out, mut hit) = (0.0f32, 0.0f32, false);
    for _ in 0..(0.4 / dt) as usize {
        s.step(1).unwrap();
        let y = height(&s);
        let vy = (y - prev) / dt;
        prev = y;
        hit |= vy > 0.0;
        if hit {
            v_out = v_out.max(vy);
        } else {
            v_in = v_in.min(vy);
        }
    }
    v_out / -v_in
}

/// A body landing on a kinematic platform rebounds at its elasticity, as
/// off the floor or another body: the platform is a side of infinite mass
/// in the whole-body impacts, moving at its rigid velocity (a box of the
/// default 0.5 m landing at 40 m/s on a moving platform rebounded at
/// 0.34, 0.31 and 0.48 of its speed for elasticities 0, 0.5 and 0.9 when
/// the platform took no part: the body's own springing back). A box and a
/// hubless ring; a platform sliding, sinking and turning; two landing
/// speeds and two time steps; on both paths. With elasticity 0 the body
/// still springs back a little from the depth its points reach before
/// the impact is found (a substep's travel).
#[test]
fn a_body_landing_on_a_kinematic_platform_rebounds_at_its_elasticity() {
    let paths: [fn(&World) -> Solver; 2] = [
        |w| Solver::cpu(w).unwrap(),
        |w| Solver::gpu_on(shared_gpu().unwrap(), w).unwrap(),
    ];
    let runs = [
        ((Vec2::new(1.0, 0.0), 0.0), 20.0, 1.0 / 60.0),
        ((Vec2::new(0.0, -1.0), 0.0), 4.4, 1.0 / 120.0),
        ((Vec2::ZERO, 0.2), 20.0, 1.0 / 60.0),
    ];
    for (k, s_of) in paths.into_iter().enumerate() {
        if k == 1 && gpu().is_none() {
            continue;
        }
        for lander in [Lander::Box, Lander::Ring] {
            for (platform, speed, dt) in runs {
                for e in [0.0, 0.5, 0.9] {
                    let r = platform_rebound(s_of, lander, platform, (speed, dt, e));
                    let path = ["cpu", "gpu"][k];
                    eprintln!(
                        "{path}: {lander:?} landing at {speed} m/s (dt {dt:.4}) on a platform at {platform:?}, elasticity {e}: rebound {r:.3}"
                    );
                    if e == 0.0 {
                        assert!(r < 0.2, "{path}: {lander:?}, {platform:?}: rebound {r}");
                    } else {
                        assert!(
                            (r - e).abs() < 0.05,
                            "{path}: {lander:?}, {platform:?}, e = {e}: rebound {r}"
                        );
                    }
                }
            }
        }
    }
}

/// The whole-body impacts with kinematic bodies on the GPU against the
/// CPU, from the same state, in the first contact pass of a substep
/// (narrow phase, impacts, resolve): a box and a ring landing fast on a
/// sliding, turning platform, a box thrown at a turning kinematic ring
/// wheel, and a kinematic diamond whose tip drives into a box (the
/// kinematic body on the point's side). Every dynamic body takes an
/// impact, and the paths agree (bitwise on lavapipe, within a few
/// fixed-point units of rounding elsewhere).
#[test]
fn kinematic_impacts_match_the_cpu() {
    use crate::body_collide::{record_stages, start_contact_substep};
    let Some(ctx) = gpu() else { return };
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    world.params.elasticity = 0.5;
    let mut dynamic = Vec::new();
    platform(&mut world, Vec2::new(1.0, 0.0), 0.2);
    // 5 mm above the deck, landing at 6 m/s: inside it once integrated.
    let fall = ShapeStyle::new().vel(Vec2::new(0.3, -6.0));
    dynamic.push(
        BoxShape::new(Vec2::new(-1.0, 0.355), Vec2::new(0.7, 0.3))
            .style(fall)
            .build(&mut world)
            .unwrap(),
    );
    dynamic.push(
        Blob::new(Vec2::new(1.5, 0.505), 0.3, 10)
            .style(fall)
            .build(&mut world)
            .unwrap(),
    );
    let wheel = Blob::new(Vec2::new(-8.0, 0.0), 1.0, 12)
        .build(&mut world)
        .unwrap();
    world
        .set_kinematic(wheel.bodies[0], Vec2::ZERO, -3.0)
        .unwrap();
    dynamic.push(
        BoxShape::new(Vec2::new(-8.0, 1.255), Vec2::splat(0.5))
            .style(ShapeStyle::new().vel(Vec2::new(0.0, -5.0)))
            .build(&mut world)
            .unwrap(),
    );
    // A diamond's right tip 5 mm inside a box's left side, driving in.
    let diamond = BoxShape::new(Vec2::new(7.0, 0.0), Vec2::splat(0.5))
        .rotation(std::f32::consts::FRAC_PI_4)
        .build(&mut world)
        .unwrap();
    world
        .set_kinematic(diamond.bodies[0], Vec2::new(4.0, 0.0), 0.0)
        .unwrap();
    let tip = 7.0 + 0.5 * std::f32::consts::SQRT_2 / 2.0;
    dynamic.push(
        BoxShape::new(Vec2::new(tip - 0.005 + 0.25, 0.0), Vec2::splat(0.5))
            .build(&mut world)
            .unwrap(),
    );
    let mut cpu = CpuSolver::new(&world).unwrap();
    let mut g = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    start_contact_substep(&ctx, &mut g, &mut cpu);
    record_stages(
        &ctx,
        &mut g,
        &[Stage::Narrow, Stage::Impact, Stage::Resolve],
    );
    cpu.stage_narrow();
    let before = cpu.velocities().to_vec();
    cpu.stage_impact();
    for (k, shape) in dynamic.iter().enumerate() {
        let changed = shape
            .points
            .iter()
            .filter(|h| before[h.index()] != cpu.velocities()[h.index()])
            .count();
        assert_eq!(
            changed,
            shape.points.len(),
            "body {k}: {changed} of its points took an impact"
        );
    }
    cpu.stage_resolve();
    let state = g.read_state(&ctx.device, &ctx.queue).unwrap();
    let dp = assert_close("kinematic impacts pos", &state.pos, cpu.positions(), 1e-5);
    let dv = assert_close("kinematic impacts vel", &state.vel, cpu.velocities(), 1e-3);
    eprintln!("GPU - CPU after the contact pass: pos {dp:e} m, vel {dv:e} m/s");
}

/// A world with every kind of kinematic motion: a sliding platform with
/// boxes, a turning ring wheel with a box on top, a platform that rises
/// and turns with a ring on it, at the default parameters with sleeping
/// on; a box on the floor and a rod besides.
pub fn kinematic_world() -> World {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(-3.0)).unwrap();
    platform(&mut world, Vec2::new(0.8, 0.0), 0.0);
    for k in 0..3 {
        BoxShape::new(Vec2::new(-2.0 + 1.2 * k as f32, 0.46), Vec2::splat(0.5))
            .build(&mut world)
            .unwrap();
    }
    let wheel = Blob::new(Vec2::new(-8.0, 0.0), 1.0, 12)
        .build(&mut world)
        .unwrap();
    world
        .set_kinematic(wheel.bodies[0], Vec2::ZERO, -0.7)
        .unwrap();
    BoxShape::new(Vec2::new(-8.0, 1.3), Vec2::splat(0.5))
        .build(&mut world)
        .unwrap();
    let lift = BoxShape::new(Vec2::new(8.0, -1.0), Vec2::new(2.0, 0.3))
        .diagonals(false)
        .build(&mut world)
        .unwrap();
    world
        .set_kinematic(lift.bodies[0], Vec2::new(0.0, 0.4), 0.1)
        .unwrap();
    Blob::new(Vec2::new(8.0, -0.5), 0.3, 8)
        .build(&mut world)
        .unwrap();
    // Landing on the floor, free points on it and a rod: every stage has
    // something to do here.
    BoxShape::new(Vec2::new(4.0, -2.72), Vec2::splat(0.5))
        .rotation(0.3)
        .style(ShapeStyle::new().vel(Vec2::new(1.0, -6.0)))
        .build(&mut world)
        .unwrap();
    for k in 0..3 {
        world
            .add_point(
                Point::new(Vec2::new(10.0 + 0.3 * k as f32, -2.99)).vel(Vec2::new(0.0, -2.0)),
            )
            .unwrap();
    }
    let a = world.add_point(Point::new(Vec2::new(12.0, -2.0))).unwrap();
    let b = world
        .add_point(Point::new(Vec2::new(12.5, -1.5)).vel(Vec2::new(1.0, 0.0)))
        .unwrap();
    world
        .add_spring(Spring::new(a, b).kind(SpringKind::Rod))
        .unwrap();
    world
}

/// The kinematic stage on the GPU against the CPU on the kinematic scene
/// (one of `gpu_check`'s, so every other stage is checked on it too), and the kinematic scene stepped on both: the points
/// stay within 1 mm over half a second.
#[test]
fn kinematic_bodies_match_the_cpu() {
    let Some(ctx) = gpu() else { return };
    let world = kinematic_world();
    crate::gpu_check::check_stage(&ctx, "kinematic", &world, &None, Stage::MoveBodies);
    let mut cpu = CpuSolver::new(&world).unwrap();
    let mut g = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    assert!(g.step_plan().contains(&Stage::MoveBodies));
    for _ in 0..30 {
        cpu.step();
    }
    g.step(&ctx.device, &ctx.queue, 30).unwrap();
    let state = g.read_state(&ctx.device, &ctx.queue).unwrap();
    let dp = assert_close("kinematic pos", &state.pos, cpu.positions(), 1e-3);
    let dv = assert_close("kinematic vel", &state.vel, cpu.velocities(), 0.05);
    eprintln!("after 30 steps: pos {dp:e} m, vel {dv:e} m/s apart");
}

/// A kinematic body's points must be pinned and in no other kinematic
/// body: refused by name.
#[test]
fn kinematic_bodies_are_checked() {
    let mut world = World::default();
    let a = BoxShape::new(Vec2::ZERO, Vec2::ONE)
        .build(&mut world)
        .unwrap();
    let err = world
        .add_body(Body::new(a.points.clone()).kinematic())
        .unwrap_err();
    assert!(err.to_string().contains("not pinned"), "{err}");
    world.set_kinematic(a.bodies[0], Vec2::X, 0.0).unwrap();
    assert!(world.point(a.points[0]).is_pinned());
    let err = world
        .add_body(Body::new(a.points[..3].to_vec()).kinematic())
        .unwrap_err();
    assert!(
        err.to_string().contains("also in kinematic body 0"),
        "{err}"
    );
    let err = world
        .set_kinematic(a.bodies[0], Vec2::new(f32::NAN, 0.0), 0.0)
        .unwrap_err();
    assert!(err.to_string().contains("velocity"), "{err}");
    assert!(world.set_kinematic(BodyHandle(7), Vec2::ZERO, 0.0).is_err());
}

/// A run restored from a checkpoint moves its kinematic bodies as the run
/// it was saved from (their motion is their points' velocities, which
/// the checkpoint keeps): bitwise on the CPU, and the GPU restored from
/// it matches the CPU.
#[test]
fn a_checkpoint_restores_kinematic_motion() {
    crate::gpu_check::assert_checkpoint_resumes(&kinematic_world());
}

/// A removal of a body listed before a kinematic one, and a kinematic
/// body added while running (a sync), keep every kinematic body moving at
/// its own velocity, on both paths.
#[test]
fn edits_keep_kinematic_bodies_moving() {
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    let doomed = BoxShape::new(Vec2::new(-5.0, 0.0), Vec2::ONE)
        .build(&mut world)
        .unwrap();
    let lift = platform(&mut world, Vec2::new(0.0, 1.0), 0.0);
    let mut solvers = both(&world);
    for s in &mut solvers {
        s.step(30).unwrap();
    }
    let removal = world.remove_body(doomed.bodies[0]).unwrap();
    let slider = BoxShape::new(Vec2::new(8.0, 0.0), Vec2::ONE)
        .build(&mut world)
        .unwrap();
    world
        .set_kinematic(slider.bodies[0], Vec2::new(-2.0, 0.0), 0.0)
        .unwrap();
    let lift_points: Vec<PointHandle> = lift
        .points
        .iter()
        .map(|p| removal.point(*p).unwrap())
        .collect();
    for mut s in solvers {
        s.apply_removal(&world, &removal).unwrap();
        s.sync(&world).unwrap();
        s.step(30).unwrap();
        let pos = s.state().unwrap().0;
        let at = |points: &[PointHandle]| {
            points
                .iter()
                .map(|p| Vec2::from_array(pos[p.index()]))
                .sum::<Vec2>()
                / points.len() as f32
        };
        let (l, r) = (at(&lift_points), at(&slider.points));
        eprintln!("{}: the lift at {l}, the slider at {r} after 1 s", s.name());
        assert!(
            (l - Vec2::new(0.0, 1.0)).length() < 1e-3,
            "{}: {l}",
            s.name()
        );
        assert!(
            (r - Vec2::new(7.0, 0.0)).length() < 1e-3,
            "{}: {r}",
            s.name()
        );
    }
}
