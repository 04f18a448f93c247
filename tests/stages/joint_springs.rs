//! Angular springs (`Command::BodySpring`, `Joint::spring`; `body_joint`
//! in `shaders/commands.wgsl` and `src/cpu/commands.rs`): a body's
//! best-fit angle relative to another body's or the world's pulled
//! toward a target, one implicit Euler substep of a damped oscillator at
//! the start of each substep. Checked against closed forms on both paths
//! (the kernel against the CPU is in `commands.rs`).

use crate::commands::free_world;
use crate::common::both;
use crate::common::closed_form::period;
use crate::joints::hinged_arm;
use crate::limits::{fit_angle, joint_kick, relative, spin_the_ring, spins};
use softbody::commands::Command;
use softbody::prelude::*;
use softbody::solver::Solver;

/// A free hubless 10-point ring (no gravity, nothing else) sprung to the
/// world toward 0.5 rad from rest, undamped: its angle swings about 0.5
/// at the spring's frequency whatever the ring's size and inertia (1%:
/// implicit Euler's own shift at `omega h` of 0.03 is 0.03%) and keeps
/// most of its swing over three periods (implicit Euler loses
/// `(omega h)^2 / 2` a substep); critically damped it comes to 0.5
/// without passing it. In metres at dt 1/60 (1.5 Hz, a 0.4 m ring), in
/// centimetres at dt 1/120 (3 Hz, a 2 m ring), on both paths.
#[test]
fn a_spring_swings_a_free_ring_at_its_frequency_and_damps_it_as_told() {
    for (k, dt, hertz, radius) in [(1.0, 1.0 / 60.0, 1.5, 0.4), (100.0, 1.0 / 120.0, 3.0, 2.0)] {
        let mut world = World::new(Params {
            dt,
            gravity: Vec2::ZERO,
            ..Params::with_length_unit(k).unwrap()
        });
        let ring = Blob::new(Vec2::new(0.3, -0.2) * k, radius * k, 10)
            .center_point(false)
            .build(&mut world)
            .unwrap()
            .bodies[0];
        for damping_ratio in [0.0, 1.0] {
            for mut s in both(&world) {
                let name = s.name();
                let steps = (3.0 / hertz / dt).round() as u32;
                let mut samples = vec![];
                let (mut highest, mut last) = (0.0f64, 0.0);
                for i in 0..steps {
                    s.queue(Command::BodySpring {
                        body: ring,
                        other: None,
                        hertz,
                        damping_ratio,
                        target: 0.5,
                    })
                    .unwrap();
                    s.step(1).unwrap();
                    let (pos, _) = s.state().unwrap();
                    let angle = fit_angle(&world, &pos, ring);
                    samples.push(((i + 1) as f64 * dt as f64, angle));
                    if i * 3 >= steps * 2 {
                        highest = highest.max(angle);
                    }
                    last = angle;
                }
                let peak = samples.iter().map(|s| s.1).fold(0.0, f64::max);
                if damping_ratio == 0.0 {
                    let t = period(&samples, 0.5, 3);
                    eprintln!(
                        "{name} in 1/{k} m at dt {dt:.4}, undamped: period {t:.5} s against {:.5}, highest in the last period {highest:.4} rad (from 1.0)",
                        1.0 / hertz
                    );
                    assert!((t * hertz as f64 - 1.0).abs() < 0.01, "{name}: {t}");
                    assert!(highest > 0.9 && highest < 1.0 + 1e-3, "{name}: {highest}");
                } else {
                    eprintln!(
                        "{name} in 1/{k} m at dt {dt:.4}, critically damped: highest {peak:.5} rad, at 3 periods {last:.5}"
                    );
                    assert!(peak < 0.5 + 1e-4, "{name}: {peak}");
                    assert!((last - 0.5).abs() < 0.005, "{name}: {last}");
                }
            }
        }
    }
}

/// A servo holds a 1 m arm (a box with diagonal springs hinged at a corner
/// of a base held by two pinned points, `joints::hinged_arm`) level
/// against gravity: it sags to where the spring's torque about the hinge
/// takes gravity's, `tau / (I_p omega^2)` below its target, `tau` and
/// `I_p` the arm's weight's torque and its inertia about the hinge (2 m g
/// and 2.08 m m^2 for its free points). Within 3% in metres at dt 1/60,
/// centimetres at dt 1/120 and millimetres at dt 1/30, at 2 and 4 Hz,
/// critically damped, after 3 s, on both paths; without the spring the
/// arm falls to the floor.
#[test]
fn a_servo_holds_an_arm_against_gravity_where_the_closed_form_says() {
    for (k, dt, hertz) in [
        (1.0, 1.0 / 60.0, 2.0),
        (100.0, 1.0 / 120.0, 4.0),
        (1000.0, 1.0 / 30.0, 2.0),
    ] {
        let (world, base, arm, ..) = hinged_arm(k, dt);
        let g = world.params.gravity.length() as f64 / k as f64;
        let omega = std::f64::consts::TAU * hertz as f64;
        let h = (dt / world.params.substeps as f32) as f64;
        // The implicit step's factor: the spring's change is `s` of the
        // oscillator's.
        let s_factor = 1.0 / (1.0 + 2.0 * omega * h + (omega * h).powi(2));
        let sag = 2.0 * g / (2.08 * omega * omega * s_factor);
        for mut s in both(&world) {
            let name = s.name();
            for _ in 0..(3.0 / dt).round() as u32 {
                s.queue(Command::BodySpring {
                    body: arm,
                    other: Some(base),
                    hertz,
                    damping_ratio: 1.0,
                    target: 0.0,
                })
                .unwrap();
                s.step(1).unwrap();
            }
            let (pos, _) = s.state().unwrap();
            let angle = relative(fit_angle(&world, &pos, arm), fit_angle(&world, &pos, base));
            eprintln!(
                "{name} in 1/{k} m at dt {dt:.4}, {hertz} Hz: the arm at {angle:.5} rad, closed form {:.5}",
                -sag
            );
            assert!(
                (angle + sag).abs() < 0.03 * sag,
                "{name}: {angle} against {}",
                -sag
            );
        }
        let mut s = Solver::cpu(&world).unwrap();
        s.step((3.0 / dt).round() as u64).unwrap();
        let (pos, _) = s.state().unwrap();
        let fallen = relative(fit_angle(&world, &pos, arm), fit_angle(&world, &pos, base));
        assert!(fallen < -0.45, "without the spring: {fallen}");
    }
}

/// A spring between two free bodies apart (a turned box and a hubless
/// ring, no gravity, no pivot), the ring spun at 3 rad/s: each spring
/// changes the pair's momentum and angular momentum about a fixed point
/// by nothing (1e-5 of the angular momentum: f32's rounding), and,
/// critically damped at 2 Hz, it brings the ring to its target of -0.4
/// rad from the box within 0.01 rad by 4 s, the two then turning
/// together at the spin that keeps `I_a w_a + I_b w_b` (1%); on both
/// paths.
#[test]
fn a_spring_between_free_bodies_keeps_their_momenta() {
    let (world, shapes) = free_world();
    let (bx, ring) = (&shapes[0], &shapes[1]);
    let points = [&bx.points[..], &ring.points[..]].concat();
    let dt = world.params.dt;
    let spring = Command::BodySpring {
        body: ring.bodies[0],
        other: Some(bx.bodies[0]),
        hertz: 2.0,
        damping_ratio: 1.0,
        target: -0.4,
    };
    for mut s in both(&world) {
        let name = s.name();
        let (l0, together) = spin_the_ring(&world, &mut s, [bx, ring]);
        let mut kick = 0.0f64;
        for i in 0..(4.0 / dt).round() as u32 {
            // What the spring changes over its first half second.
            if i < 30 {
                kick = kick.max(joint_kick(&world, &mut s, &points, spring));
            }
            s.queue(spring).unwrap();
            s.step(1).unwrap();
        }
        let (pos, _) = s.state().unwrap();
        let bend = relative(
            fit_angle(&world, &pos, ring.bodies[0]),
            fit_angle(&world, &pos, bx.bodies[0]),
        );
        let [(_, wa), (_, wb)] = spins(&world, &s, [bx, ring]);
        eprintln!(
            "{name}: the ring at {bend:.4} rad from the box; spins {wa:.4} and {wb:.4} rad/s, closed form {together:.4}; the spring's largest change of momenta {kick:e} (angular momentum {l0:.4})"
        );
        assert!((bend + 0.4).abs() < 0.01, "{name}: {bend}");
        for w in [wa, wb] {
            assert!((w - together).abs() < 0.01 * together, "{name}: {w}");
        }
        assert!(kick < 1e-5 * l0, "{name}: {kick}");
    }
}

/// A spring wakes nothing: a hubless ring asleep on a floor (in
/// centimetres), sprung to the world toward 0.4 rad, stays asleep with its
/// velocity exactly 0 (a sleeping body against the world is left as it
/// is). Bad springs are refused, naming what is wrong: a negative or
/// non-finite frequency, a damping ratio past 1e6, a target past pi, the
/// body itself as the other, an unknown body.
#[test]
fn a_spring_wakes_nothing_and_bad_ones_are_refused() {
    let mut world = World::new(Params::with_length_unit(100.0).unwrap());
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let b = Blob::new(Vec2::new(0.0, 31.0), 30.0, 9)
        .center_point(false)
        .build(&mut world)
        .unwrap()
        .bodies[0];
    let spring = |hertz: f32, damping_ratio: f32, target: f32, other| Command::BodySpring {
        body: b,
        other,
        hertz,
        damping_ratio,
        target,
    };
    for mut s in both(&world) {
        let name = s.name();
        let mut steps = 0;
        while s.sleeping_points().unwrap() < 9 && steps < 1200 {
            s.step(30).unwrap();
            steps += 30;
        }
        eprintln!("{name}: asleep after {steps} steps");
        assert_eq!(s.sleeping_points().unwrap(), 9, "{name}");
        for _ in 0..10 {
            s.queue(spring(3.0, 1.0, 0.4, None)).unwrap();
            s.step(1).unwrap();
        }
        let (_, vel) = s.state().unwrap();
        assert_eq!(s.sleeping_points().unwrap(), 9, "{name}");
        assert!(vel.iter().all(|v| *v == [0.0, 0.0]), "{name}: {vel:?}");
        let mut refused = |c: Command| s.queue(c).unwrap_err().to_string();
        for (c, what) in [
            (spring(-1.0, 1.0, 0.0, None), "spring hertz is negative"),
            (
                spring(f32::NAN, 1.0, 0.0, None),
                "spring hertz is not finite",
            ),
            (spring(1.0, 2e6, 0.0, None), "spring damping ratio"),
            (spring(1.0, 1.0, 3.5, None), "spring target"),
            (spring(1.0, 1.0, 0.0, Some(b)), "the body itself"),
            (spring(1.0, 1.0, 0.0, Some(BodyHandle(7))), "body 7"),
        ] {
            let e = refused(c);
            assert!(e.contains(what), "{name}: {e}");
        }
    }
}
