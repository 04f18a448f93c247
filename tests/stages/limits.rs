//! Angle limits (`Command::BodyAngleLimit`; `body_joint` in
//! `shaders/commands.wgsl` and `src/cpu/commands.rs`): a body's best-fit
//! angle from rest kept within a range relative to another body's or the
//! world's, by a change of the pair's spins about their pivot. Both paths
//! (the kernel against the CPU is in `commands.rs`).

use crate::commands::{free_world, run_commands};
use crate::common::both;
use crate::joints::{hinged_arm, motion};
use softbody::commands::Command;
use softbody::prelude::*;
use softbody::solver::Solver;

/// Body `body`'s best-fit angle from its rest shape, from the state, as
/// the kernel measures it: `atan2(sum m q x d, sum m q . d)` over its
/// members with their own masses (pinned members count for nothing), `d`
/// from the centre of mass and `q` the rest position.
pub(crate) fn fit_angle(world: &World, pos: &[[f32; 2]], body: BodyHandle) -> f64 {
    let points = &world.bodies()[body.index()].points;
    let rest = &world.rest_shapes()[body.index()];
    let mass = |h: &PointHandle| world.point(*h).mass as f64;
    let m: f64 = points.iter().map(mass).sum();
    let at = |h: &PointHandle| pos[h.index()].map(|x| x as f64);
    let c = points.iter().fold([0.0; 2], |c, h| {
        let x = at(h);
        [c[0] + mass(h) * x[0] / m, c[1] + mass(h) * x[1] / m]
    });
    let (mut cross, mut dot) = (0.0, 0.0);
    for (h, q) in points.iter().zip(rest) {
        let x = at(h);
        let d = [x[0] - c[0], x[1] - c[1]];
        let q = [q.x as f64, q.y as f64];
        cross += mass(h) * (q[0] * d[1] - q[1] * d[0]);
        dot += mass(h) * (q[0] * d[0] + q[1] * d[1]);
    }
    cross.atan2(dot)
}

/// `a - b` wrapped into `[-pi, pi]`.
pub(crate) fn relative(a: f64, b: f64) -> f64 {
    let tau = std::f64::consts::TAU;
    let d = a - b;
    d - tau * (d / tau + 0.5).floor()
}

/// Queues limits of `[-limit, limit]` between each link of a chain and
/// the one before it.
pub(crate) fn queue_chain_limits(s: &mut Solver, links: &[BodyHandle], limit: f32) {
    for pair in links.windows(2) {
        s.queue(Command::BodyAngleLimit {
            body: pair[1],
            other: Some(pair[0]),
            lower: -limit,
            upper: limit,
        })
        .unwrap();
    }
}

/// The largest bend between neighbouring links of a chain, from the
/// state.
pub(crate) fn largest_bend(world: &World, pos: &[[f32; 2]], links: &[BodyHandle]) -> f64 {
    links
        .windows(2)
        .map(|pair| {
            relative(
                fit_angle(world, pos, pair[1]),
                fit_angle(world, pos, pair[0]),
            )
            .abs()
        })
        .fold(0.0, f64::max)
}

/// The arm of `joints::hinged_arm` (a 1 m arm hinged at the corner of a
/// base pinned to the floor) falls from level under gravity; a limit of
/// `[-0.3, 0.3]` rad relative to the base stops it at -0.3 rad, where it
/// stays: it passes the limit by at most 0.004 rad (gravity's turn within
/// a substep against the limit's push back: 0.0003 at dt 1/60, 0.0007 at
/// 1/30; solved once a step rather than in every substep, 0.0045 and
/// 0.009), and rests there after 2 s; without the limit it falls to the
/// floor (below -0.45). In metres, centimetres and millimetres, at dt 1/30
/// to 1/240, on both paths.
#[test]
fn an_angle_limit_stops_a_falling_arm_at_its_angle() {
    for (k, dt) in [
        (1.0, 1.0 / 60.0),
        (100.0, 1.0 / 120.0),
        (1.0, 1.0 / 30.0),
        (1000.0, 1.0 / 240.0),
    ] {
        let (world, base, arm, ..) = hinged_arm(k, dt);
        for limited in [true, false] {
            for mut s in both(&world) {
                let steps = (2.0 / dt).round() as u32;
                let (mut lowest, mut last) = (0.0f64, 0.0f64);
                let mut spin = 0.0f64;
                for _ in 0..steps {
                    if limited {
                        s.queue(Command::BodyAngleLimit {
                            body: arm,
                            other: Some(base),
                            lower: -0.3,
                            upper: 0.3,
                        })
                        .unwrap();
                    }
                    s.step(1).unwrap();
                    let (pos, _) = s.state().unwrap();
                    let now = relative(fit_angle(&world, &pos, arm), fit_angle(&world, &pos, base));
                    lowest = lowest.min(now);
                    spin = (now - last) / dt as f64;
                    last = now;
                }
                eprintln!(
                    "{} in 1/{k} m at dt {dt:.4}, limit {limited}: lowest {lowest:.4} rad, at 2 s {last:.4} rad turning at {spin:.4} rad/s",
                    s.name()
                );
                if limited {
                    assert!(lowest > -0.304, "{}: {lowest}", s.name());
                    assert!((last + 0.3).abs() < 0.004, "{}: {last}", s.name());
                    assert!(spin.abs() < 0.05, "{}: {spin}", s.name());
                } else {
                    assert!(lowest < -0.45, "{}: {lowest}", s.name());
                }
            }
        }
    }
}

/// The momentum and angular momentum about the origin of `points`.
pub(crate) fn momenta(world: &World, s: &Solver, points: &[PointHandle]) -> (Vec2, f64) {
    let m = motion(world, s, points, Some(Vec2::ZERO));
    (m.momentum, m.angular as f64)
}

/// Each shape's inertia and spin about its own centre.
pub(crate) fn spins(world: &World, s: &Solver, shapes: [&Shape; 2]) -> [(f64, f64); 2] {
    shapes.map(|shape| {
        let m = motion(world, s, &shape.points, None);
        (m.inertia as f64, m.omega as f64)
    })
}

/// Spins `pair[1]` (`free_world`'s ring) at 3 rad/s, `pair[0]` (its box)
/// at rest, by the commands alone: the pair's angular momentum about the
/// origin, and the spin that keeps `I_a w_a + I_b w_b` for both.
pub(crate) fn spin_the_ring(world: &World, s: &mut Solver, pair: [&Shape; 2]) -> (f64, f64) {
    s.queue(Command::BodyVelocity {
        body: pair[1].bodies[0],
        linear: Vec2::ZERO,
        angular: 3.0,
    })
    .unwrap();
    run_commands(s);
    let points = [&pair[0].points[..], &pair[1].points[..]].concat();
    let [(ia, wa), (ib, wb)] = spins(world, s, pair);
    (
        momenta(world, s, &points).1,
        (ia * wa + ib * wb) / (ia + ib),
    )
}

/// What `joint`, run alone, changes of the momentum and angular momentum
/// of `points`: apart from a step's own rounding.
pub(crate) fn joint_kick(
    world: &World,
    s: &mut Solver,
    points: &[PointHandle],
    joint: Command,
) -> f64 {
    s.queue(joint).unwrap();
    let (p0, l0) = momenta(world, s, points);
    run_commands(s);
    let (p, l) = momenta(world, s, points);
    (p - p0).abs().element_sum() as f64 + (l - l0).abs()
}

/// Two free bodies apart (a box and a hubless ring, no gravity), the ring
/// spun at 3 rad/s against the box at rest, with a limit of `[-0.2, 0.2]`
/// rad between them: the ring stops turning against the box at 0.2 rad,
/// inelastically, and from then the two turn together at the spin that
/// keeps `I_a w_a + I_b w_b` (to 1%); each limit changes the pair's
/// momentum and angular momentum about a fixed point by nothing (1e-5 of
/// the angular momentum: f32's rounding), on both paths.
#[test]
fn an_angle_limit_stops_a_pair_and_keeps_its_momenta() {
    let (world, shapes) = free_world();
    let (bx, ring) = (&shapes[0], &shapes[1]);
    let points = [&bx.points[..], &ring.points[..]].concat();
    let dt = world.params.dt as f64;
    let limit = Command::BodyAngleLimit {
        body: ring.bodies[0],
        other: Some(bx.bodies[0]),
        lower: -0.2,
        upper: 0.2,
    };
    for mut s in both(&world) {
        // The spin set, before the limit acts.
        let (l0, together) = spin_the_ring(&world, &mut s, [bx, ring]);
        let (mut highest, mut kick) = (0.0f64, 0.0f64);
        for _ in 0..60 {
            kick = kick.max(joint_kick(&world, &mut s, &points, limit));
            s.step(1).unwrap();
            let (pos, _) = s.state().unwrap();
            let a = relative(
                fit_angle(&world, &pos, ring.bodies[0]),
                fit_angle(&world, &pos, bx.bodies[0]),
            );
            highest = highest.max(a);
        }
        let [(_, wa), (_, wb)] = spins(&world, &s, [bx, ring]);
        eprintln!(
            "{}: highest {highest:.4} rad; spins {wa:.4} and {wb:.4} rad/s, closed form {together:.4}; the limit's largest change of momenta {kick:e} (angular momentum {l0:.4})",
            s.name()
        );
        assert!(
            highest > 0.19 && highest < 0.2 + 3.0 * dt,
            "{}: {highest}",
            s.name()
        );
        for w in [wa, wb] {
            assert!((w - together).abs() < 0.01 * together, "{}: {w}", s.name());
        }
        assert!(kick < 1e-5 * l0, "{}: {kick}", s.name());
    }
}

/// A chain of `n` links, level, in 1/`k` m, no floor: boxes (0.4 by 0.1,
/// diagonal springs) hinged at their bottom corners, the first pinned at
/// the hinge on its left; or hubless 8-point rings (0.3 across) tied to
/// the next by two springs across a gap of a tenth of a ring, the first
/// hung by two springs from a pinned point at its left. Returns the world and the links.
pub(crate) fn hanging_chain(k: f32, dt: f32, n: usize, rings: bool) -> (World, Vec<BodyHandle>) {
    let mut world = World::new(Params {
        dt,
        ..Params::with_length_unit(k).unwrap()
    });
    let y0 = 5.0 * k;
    let add = |world: &mut World, x: f32, y: f32, mass: f32| {
        world
            .add_point(Point::new(Vec2::new(x, y)).mass(mass))
            .unwrap()
    };
    let mut links = vec![];
    if rings {
        let r = 0.15 * k;
        let mut last: Option<Shape> = None;
        for i in 0..n {
            let c = Vec2::new(r + 2.2 * r * i as f32, y0);
            let ring = Blob::new(c, r, 8).build(&mut world).unwrap();
            if let Some(prev) = &last {
                // Points 0 (right) and 4 (left) of 8, counter-clockwise
                // from the right; 1 and 3 above them.
                for (a, b) in [(0, 4), (1, 3)] {
                    let spring = Spring::new(prev.points[a], ring.points[b]);
                    world.add_spring(spring).unwrap();
                }
            } else {
                // Hung from a pinned point at its left by two springs.
                let pin = add(&mut world, c.x - 1.2 * r, y0, 0.0);
                for b in [3, 5] {
                    world.add_spring(Spring::new(pin, ring.points[b])).unwrap();
                }
            }
            links.push(ring.bodies[0]);
            last = Some(ring);
        }
        return (world, links);
    }
    let (l, w) = (0.4 * k, 0.1 * k);
    let mut hinge = add(&mut world, 0.0, y0, 0.0);
    for i in 0..n {
        let x0 = l * i as f32;
        let br = add(&mut world, x0 + l, y0, 1.0);
        let tr = add(&mut world, x0 + l, y0 + w, 1.0);
        let tl = add(&mut world, x0, y0 + w, 1.0);
        world.add_spring(Spring::new(hinge, tr)).unwrap();
        world.add_spring(Spring::new(br, tl)).unwrap();
        links.push(world.add_body(Body::new(vec![hinge, br, tr, tl])).unwrap());
        hinge = br;
    }
    (world, links)
}

/// A chain of eight hinged boxes released level from a pinned end swings
/// down; unlimited, neighbours fold against each other by more than 2
/// rad, and with limits of `[-0.4, 0.4]` rad between neighbours (queued
/// every step, solved in every substep) no pair passes its limit by more
/// than `dt` rad (what the links' whip turns them by within a substep,
/// as the passes leave it: 0.0097 rad at dt 1/60, 0.020 at 1/30, 0.0048
/// in centimetres at 1/120; solved once a step, 0.048, 0.085 and 0.026),
/// in metres at dt 1/60 and 1/30 and centimetres at dt 1/120. A
/// chain of six hubless rings tied by two springs each (no shared points:
/// the limits turn a pair about the mean of the ties' ends; the soft ties
/// and rings give way) passes its limits of `[-0.3, 0.3]` by at most
/// 0.06 rad (0.036 measured; 0.155 solved once a step), where it bends by
/// more than 0.6 unlimited (1.9). Both paths.
#[test]
fn limits_keep_a_swinging_chain_within_its_angles() {
    let cases = [
        (1.0, 1.0 / 60.0, false),
        (100.0, 1.0 / 120.0, false),
        (1.0, 1.0 / 30.0, false),
        (1.0, 1.0 / 60.0, true),
    ];
    for (k, dt, rings) in cases {
        let (world, links) = hanging_chain(k, dt, if rings { 6 } else { 8 }, rings);
        let limit = if rings { 0.3 } else { 0.4 };
        for limited in [true, false] {
            for mut s in both(&world) {
                let mut worst = 0.0f64;
                for _ in 0..(3.0 / dt).round() as u32 {
                    if limited {
                        queue_chain_limits(&mut s, &links, limit);
                    }
                    s.step(1).unwrap();
                    let (pos, _) = s.state().unwrap();
                    worst = worst.max(largest_bend(&world, &pos, &links));
                }
                eprintln!(
                    "{} {} in 1/{k} m at dt {dt:.4}, limits {limited}: largest bend {worst:.4} rad",
                    s.name(),
                    if rings { "rings" } else { "boxes" },
                );
                let limit = limit as f64;
                match (limited, rings) {
                    (true, false) => {
                        assert!(worst < limit + dt as f64, "{}: {worst}", s.name())
                    }
                    (true, true) => assert!(worst < limit + 0.06, "{}: {worst}", s.name()),
                    (false, false) => assert!(worst > 2.0, "{}: {worst}", s.name()),
                    (false, true) => assert!(worst > 2.0 * limit, "{}: {worst}", s.name()),
                }
            }
        }
    }
}

/// Six hinged boxes (0.4 by 0.1 m, diagonal springs) dropped from 5 cm
/// onto a floor, bent a little at each hinge; with limits of `[-0.2,
/// 0.2]` between neighbours queued every step the chain comes to rest and
/// every point sleeps by 4 s, on both paths (a limit wakes nothing).
#[test]
fn a_limited_chain_on_a_floor_falls_asleep() {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let at = |i: usize, top: bool| {
        let x = 0.4 * i as f32;
        Vec2::new(
            x,
            0.05 + 0.02 * (i % 2) as f32 + if top { 0.1 } else { 0.0 },
        )
    };
    let mut bottom = world.add_point(Point::new(at(0, false))).unwrap();
    let mut top = world.add_point(Point::new(at(0, true))).unwrap();
    let mut links = vec![];
    for i in 1..=6 {
        let b = world.add_point(Point::new(at(i, false))).unwrap();
        let t = world.add_point(Point::new(at(i, true))).unwrap();
        // Hinged at the bottom corner: the first link's top-left is its
        // own, the others' lie on their left neighbour's top-right.
        let tl = if i == 1 {
            top
        } else {
            world.add_point(Point::new(at(i - 1, true))).unwrap()
        };
        world.add_spring(Spring::new(bottom, t)).unwrap();
        world.add_spring(Spring::new(b, tl)).unwrap();
        links.push(world.add_body(Body::new(vec![bottom, b, t, tl])).unwrap());
        (bottom, top) = (b, t);
    }
    let n = world.points().len();
    for mut s in both(&world) {
        for _ in 0..240 {
            queue_chain_limits(&mut s, &links, 0.2);
            s.step(1).unwrap();
        }
        let asleep = s.sleeping_points().unwrap();
        eprintln!("{}: {asleep} of {n} points asleep at 4 s", s.name());
        assert_eq!(asleep, n, "{}", s.name());
    }
}

/// A limit wakes nothing: a box asleep on a floor, limited against the
/// world to a range that holds its angle, stays asleep with its velocity
/// exactly 0, and one whose range it is outside stays asleep too (a
/// sleeping body against the world is left as it is). Bad limits are
/// refused, naming what is wrong: a lower limit above the upper, one past
/// pi, one not finite, the body itself as the other, an unknown body.
#[test]
fn an_angle_limit_wakes_nothing_and_bad_ones_are_refused() {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let bx = BoxShape::new(Vec2::new(0.0, 0.25), Vec2::splat(0.5))
        .build(&mut world)
        .unwrap();
    let b = bx.bodies[0];
    for mut s in both(&world) {
        for _ in 0..240 {
            s.step(1).unwrap();
        }
        assert_eq!(s.sleeping_points().unwrap(), 4, "{}", s.name());
        for (lower, upper) in [(-0.1, 0.1), (0.5, 0.6)] {
            for _ in 0..10 {
                s.queue(Command::BodyAngleLimit {
                    body: b,
                    other: None,
                    lower,
                    upper,
                })
                .unwrap();
                s.step(1).unwrap();
            }
            let (_, vel) = s.state().unwrap();
            assert_eq!(s.sleeping_points().unwrap(), 4, "{}", s.name());
            assert!(
                vel.iter().all(|v| *v == [0.0, 0.0]),
                "{}: {vel:?}",
                s.name()
            );
        }
        let refused = |s: &mut Solver, c: Command| s.queue(c).unwrap_err().to_string();
        let limit = |lower: f32, upper: f32, other| Command::BodyAngleLimit {
            body: b,
            other,
            lower,
            upper,
        };
        let e = refused(&mut s, limit(0.3, 0.2, None));
        assert!(e.contains("lower limit") && e.contains("upper"), "{e}");
        let e = refused(&mut s, limit(-0.3, 3.5, None));
        assert!(e.contains("upper limit") && e.contains("pi"), "{e}");
        let e = refused(&mut s, limit(f32::NAN, 0.2, None));
        assert!(e.contains("lower limit") && e.contains("not finite"), "{e}");
        let e = refused(&mut s, limit(-0.3, 0.2, Some(b)));
        assert!(e.contains("body itself"), "{e}");
        let e = refused(&mut s, limit(-0.3, 0.2, Some(BodyHandle(7))));
        assert!(e.contains("body 7"), "{e}");
    }
}

/// A hubless ring hung from a pin by two springs at its left (the first
/// link of `hanging_chain`) swings down from level about the pin; a limit
/// of `[-0.3, 0.3]` rad against the world turns it about the pin (the
/// pinned ends of its ties are the pivot), so it stops within 0.006 rad
/// of -0.3 (0.0015 at dt 1/60, 0.0030 at 1/30; turned about its own
/// centre, 0.082 at 1/60; solved once a step, 0.017 and 0.036);
/// unlimited it swings past -1. In metres at dt 1/60 and 1/30 and
/// millimetres at 1/120, both paths.
#[test]
fn an_angle_limit_holds_a_ring_hung_by_springs_about_its_pin() {
    for (k, dt) in [(1.0, 1.0 / 60.0), (1.0, 1.0 / 30.0), (1000.0, 1.0 / 120.0)] {
        let (world, links) = hanging_chain(k, dt, 1, true);
        for limited in [true, false] {
            for mut s in both(&world) {
                let mut lowest = 0.0f64;
                for _ in 0..(2.0 / dt).round() as u32 {
                    if limited {
                        s.queue(Command::BodyAngleLimit {
                            body: links[0],
                            other: None,
                            lower: -0.3,
                            upper: 0.3,
                        })
                        .unwrap();
                    }
                    s.step(1).unwrap();
                    let (pos, _) = s.state().unwrap();
                    lowest = lowest.min(fit_angle(&world, &pos, links[0]));
                }
                eprintln!(
                    "{} ring in 1/{k} m at dt {dt:.4}, limit {limited}: lowest {lowest:.4} rad",
                    s.name()
                );
                if limited {
                    assert!(lowest > -0.306, "{}: {lowest}", s.name());
                } else {
                    assert!(lowest < -1.0, "{}: {lowest}", s.name());
                }
            }
        }
    }
}

/// The pivots the host gives joints (`commands::joint_pivot`): the point
/// a hinged arm shares with its base; against the world, a base's pinned
/// corners; rings tied by two springs, both ends of both ties (their mean
/// lies between the rings); a ring hung by springs from a pin, the pin
/// (once per tie); bodies with nothing between them, none.
#[test]
fn joints_turn_about_the_points_that_join_their_bodies() {
    use softbody::commands::joint_pivot;
    use softbody::layout::PIVOT_NONE as N;
    use softbody::pack::Packed;
    let (world, base, arm, hinge, _) = hinged_arm(1.0, 1.0 / 60.0);
    let packed = Packed::from_world(&world).unwrap();
    let pinned: Vec<u32> = world.bodies()[base.index()].points[..2]
        .iter()
        .map(|p| p.0)
        .collect();
    assert_eq!(
        joint_pivot(&packed, arm.0, Some(base.0)),
        [hinge.0, N, N, N]
    );
    assert_eq!(
        joint_pivot(&packed, base.0, Some(arm.0)),
        [hinge.0, N, N, N]
    );
    assert_eq!(
        joint_pivot(&packed, base.0, None),
        [pinned[0], pinned[1], N, N]
    );
    assert_eq!(joint_pivot(&packed, arm.0, None), [N; 4]);

    let (world, rings) = hanging_chain(1.0, 1.0 / 60.0, 3, true);
    let packed = Packed::from_world(&world).unwrap();
    let points = |b: BodyHandle| world.bodies()[b.index()].points.clone();
    let (first, second) = (points(rings[0]), points(rings[1]));
    // The second ring's ties to the first: its points 4 and 3 to the
    // first's 0 and 1, seen from the second ring's members in order.
    let tied = joint_pivot(&packed, rings[1].0, Some(rings[0].0));
    let mut ends = tied.to_vec();
    ends.sort();
    let mut want = vec![first[0].0, first[1].0, second[3].0, second[4].0];
    want.sort();
    assert_eq!(ends, want);
    let pos = |p: u32| world.points()[p as usize].pos;
    let mid = tied.iter().map(|&p| pos(p)).sum::<Vec2>() / 4.0;
    let center = |ps: &[PointHandle]| ps.iter().map(|p| pos(p.0)).sum::<Vec2>() / ps.len() as f32;
    let (c0, c1) = (center(&first), center(&second));
    assert!(mid.x > c0.x && mid.x < c1.x, "{mid} between {c0} and {c1}");
    let pin = world.points().iter().position(|p| p.is_pinned()).unwrap() as u32;
    assert_eq!(joint_pivot(&packed, rings[0].0, None), [pin, pin, N, N]);
    assert_eq!(joint_pivot(&packed, rings[2].0, Some(rings[0].0)), [N; 4]);
}

/// A chain of seven hinged links (0.3 by 0.06, diagonal springs) in
/// millimetres at dt 1/90, dropped level from 0.4 m onto a 0.5 m box
/// resting on the floor under its middle: the box and the floor press
/// the links as the chain drapes over the box's edges, and limits of
/// `[-0.35, 0.35]` rad between neighbours hold against them: no pair
/// passes its limit by more than 0.035 rad while it lands (0.020
/// measured), nor by 0.008 at rest at 3 s (0.003: gravity's and the
/// contacts' turn within a substep against the push back; Box2D's angular
/// slop is 2 degrees); solved once a step, 0.082 and 0.028.
/// Unlimited, the chain folds round the box's edges past 0.6 rad. Both
/// paths.
#[test]
fn limits_hold_a_chain_draped_over_a_box_against_its_contacts() {
    let k = 1000.0;
    let mut world = World::new(Params {
        dt: 1.0 / 90.0,
        ..Params::with_length_unit(k).unwrap()
    });
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    BoxShape::new(Vec2::new(0.0, 0.25) * k, Vec2::splat(0.5 * k))
        .build(&mut world)
        .unwrap();
    let (l, w, n) = (0.3 * k, 0.06 * k, 7);
    let (x0, y0) = (-0.5 * l * n as f32, 0.9 * k);
    let mut add = |x: f32, y: f32| world.add_point(Point::new(Vec2::new(x, y))).unwrap();
    let mut bl = add(x0, y0);
    let mut tl = add(x0, y0 + w);
    let mut parts = vec![];
    for i in 1..=n {
        let x = x0 + l * i as f32;
        let (br, tr) = (add(x, y0), add(x, y0 + w));
        parts.push([bl, br, tr, tl]);
        (bl, tl) = (br, tr);
    }
    // Hinged at the bottom corners: each link's bottom-left is its left
    // neighbour's bottom-right; the top corners are each link's own.
    let mut links = vec![];
    for (i, p) in parts.iter().enumerate() {
        let top_left = if i == 0 {
            p[3]
        } else {
            world
                .add_point(Point::new(Vec2::new(x0 + l * i as f32, y0 + w)))
                .unwrap()
        };
        world.add_spring(Spring::new(p[0], p[2])).unwrap();
        world.add_spring(Spring::new(p[1], top_left)).unwrap();
        links.push(
            world
                .add_body(Body::new(vec![p[0], p[1], p[2], top_left]))
                .unwrap(),
        );
    }
    let limit = 0.35;
    let steps = 270;
    for limited in [true, false] {
        for mut s in both(&world) {
            let (mut worst, mut last) = (0.0f64, 0.0f64);
            for _ in 0..steps {
                if limited {
                    queue_chain_limits(&mut s, &links, limit);
                }
                s.step(1).unwrap();
                let (pos, _) = s.state().unwrap();
                last = largest_bend(&world, &pos, &links);
                worst = worst.max(last);
            }
            eprintln!(
                "{} draped chain, limits {limited}: largest bend {worst:.4} rad, at 3 s {last:.4}",
                s.name()
            );
            let limit = limit as f64;
            if limited {
                assert!(worst < limit + 0.035, "{}: {worst}", s.name());
                assert!(last < limit + 0.008, "{}: {last}", s.name());
            } else {
                assert!(worst > limit + 0.25, "{}: {worst}", s.name());
            }
        }
    }
}

/// A motor and a limit on one hinge, as Box2D's revolute joint has both:
/// the arm of `joints::hinged_arm` driven up at 2 rad/s (a torque well
/// above its weight's) with a limit of `[-0.3, 0.5]` rad rises at the
/// motor's speed, stops at 0.5 within 0.01 rad and holds there with the
/// motor still pushing; then driven down at 2 rad/s it stops at -0.3. In
/// metres at dt 1/60 and centimetres at dt 1/144, on both paths.
#[test]
fn a_motor_drives_an_arm_into_its_limit_where_it_stops() {
    for (k, dt) in [(1.0, 1.0 / 60.0), (100.0, 1.0 / 144.0)] {
        let (world, base, arm, ..) = hinged_arm(k, dt);
        for mut s in both(&world) {
            let steps = (1.0 / dt).round() as u32;
            let run = |s: &mut Solver, speed: f32| {
                let (mut far, mut last, mut rate) = (0.0f64, 0.0f64, 0.0f64);
                for i in 0..steps {
                    s.queue(Command::BodyMotor {
                        body: arm,
                        other: Some(base),
                        speed,
                        max_torque: 200.0 * k * k,
                    })
                    .unwrap();
                    s.queue(Command::BodyAngleLimit {
                        body: arm,
                        other: Some(base),
                        lower: -0.3,
                        upper: 0.5,
                    })
                    .unwrap();
                    s.step(1).unwrap();
                    let (pos, _) = s.state().unwrap();
                    let now = relative(fit_angle(&world, &pos, arm), fit_angle(&world, &pos, base));
                    if i == steps / 8 {
                        rate = (now - last) / dt as f64;
                    }
                    far = if speed > 0.0 {
                        far.max(now)
                    } else {
                        far.min(now)
                    };
                    last = now;
                }
                (far, last, rate)
            };
            let (up, up_last, up_rate) = run(&mut s, 2.0);
            let (down, down_last, down_rate) = run(&mut s, -2.0);
            eprintln!(
                "{} in 1/{k} m at dt {dt:.4}: up at {up_rate:.3} rad/s to {up:.4}, resting at {up_last:.4}; down at {down_rate:.3} to {down:.4}, resting at {down_last:.4}",
                s.name()
            );
            assert!((up_rate - 2.0).abs() < 0.1, "{}: {up_rate}", s.name());
            assert!((down_rate + 2.0).abs() < 0.1, "{}: {down_rate}", s.name());
            assert!(
                up < 0.51 && (up_last - 0.5).abs() < 0.01,
                "{}: {up}, {up_last}",
                s.name()
            );
            assert!(
                down > -0.31 && (down_last + 0.3).abs() < 0.01,
                "{}: {down}, {down_last}",
                s.name()
            );
        }
    }
}

/// A ragdoll of ten boxes (diagonal springs) hinged at shared corners:
/// torso, head, two arms of two parts and two legs of two parts, nine
/// limits of 0.5 to 1.2 rad a side (a tree of joints: the torso's five
/// take five colours), thrown up and spinning onto a floor. No joint
/// passes its limit by more than 0.07 rad as it tumbles and lands (0.047
/// measured), and every point sleeps by 5 s (by 4 s measured), on both
/// paths; unlimited (CPU), a joint folds more than 0.3 rad past.
#[test]
fn a_ragdoll_tumbles_within_its_limits_and_falls_asleep() {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    // A box from its corners (bottom-left, bottom-right, top-right,
    // top-left), some of them another box's points.
    let mut part = |corners: [(f32, f32); 4], shared: &[(usize, PointHandle)]| {
        let points: Vec<PointHandle> = (0..4)
            .map(|i| match shared.iter().find(|(k, _)| *k == i) {
                Some((_, p)) => *p,
                None => {
                    let (x, y) = corners[i];
                    world.add_point(Point::new(Vec2::new(x, 2.0 + y))).unwrap()
                }
            })
            .collect();
        world.add_spring(Spring::new(points[0], points[2])).unwrap();
        world.add_spring(Spring::new(points[1], points[3])).unwrap();
        let body = world.add_body(Body::new(points.clone())).unwrap();
        (body, points)
    };
    let (torso, t) = part([(-0.15, 0.0), (0.15, 0.0), (0.15, 0.6), (-0.15, 0.6)], &[]);
    let (head, _) = part(
        [(-0.15, 0.6), (0.05, 0.6), (0.05, 0.85), (-0.15, 0.85)],
        &[(0, t[3])],
    );
    let (lua, la) = part(
        [(-0.45, 0.5), (-0.15, 0.5), (-0.15, 0.6), (-0.45, 0.6)],
        &[(2, t[3])],
    );
    let (lfa, _) = part(
        [(-0.75, 0.5), (-0.45, 0.5), (-0.45, 0.6), (-0.75, 0.6)],
        &[(1, la[0])],
    );
    let (rua, ra) = part(
        [(0.15, 0.5), (0.45, 0.5), (0.45, 0.6), (0.15, 0.6)],
        &[(3, t[2])],
    );
    let (rfa, _) = part(
        [(0.45, 0.5), (0.75, 0.5), (0.75, 0.6), (0.45, 0.6)],
        &[(0, ra[1])],
    );
    let (lth, lt) = part(
        [(-0.15, -0.4), (-0.05, -0.4), (-0.05, 0.0), (-0.15, 0.0)],
        &[(3, t[0])],
    );
    let (lsh, _) = part(
        [(-0.15, -0.8), (-0.05, -0.8), (-0.05, -0.4), (-0.15, -0.4)],
        &[(3, lt[0])],
    );
    let (rth, rt) = part(
        [(0.05, -0.4), (0.15, -0.4), (0.15, 0.0), (0.05, 0.0)],
        &[(2, t[1])],
    );
    let (rsh, _) = part(
        [(0.05, -0.8), (0.15, -0.8), (0.15, -0.4), (0.05, -0.4)],
        &[(2, rt[1])],
    );
    let joints = [
        (head, torso, 0.5),
        (lua, torso, 1.2),
        (lfa, lua, 1.0),
        (rua, torso, 1.2),
        (rfa, rua, 1.0),
        (lth, torso, 0.8),
        (lsh, lth, 0.8),
        (rth, torso, 0.8),
        (rsh, rth, 0.8),
    ];
    let n = world.points().len();
    for (limited, mut s) in both(&world)
        .into_iter()
        .map(|s| (true, s))
        .chain(std::iter::once((false, Solver::cpu(&world).unwrap())))
    {
        s.queue(Command::BodyVelocity {
            body: torso,
            linear: Vec2::new(2.0, 3.0),
            angular: 3.0,
        })
        .unwrap();
        let mut worst = 0.0f64;
        for _ in 0..300 {
            for (a, b, limit) in joints.iter().filter(|_| limited) {
                s.queue(Command::BodyAngleLimit {
                    body: *a,
                    other: Some(*b),
                    lower: -limit,
                    upper: *limit,
                })
                .unwrap();
            }
            s.step(1).unwrap();
            let (pos, _) = s.state().unwrap();
            for (a, b, limit) in joints {
                let bend = relative(fit_angle(&world, &pos, a), fit_angle(&world, &pos, b));
                worst = worst.max(bend.abs() - limit as f64);
            }
        }
        let asleep = s.sleeping_points().unwrap();
        eprintln!(
            "{}, limits {limited}: the ragdoll's joints at most {worst:.4} rad past their limits; {asleep} of {n} points asleep at 5 s",
            s.name()
        );
        if limited {
            assert!(worst < 0.07, "{}: {worst}", s.name());
            assert_eq!(asleep, n, "{}", s.name());
        } else {
            assert!(worst > 0.3, "{}: {worst}", s.name());
        }
    }
}
