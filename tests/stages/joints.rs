//! Joints and motors: bodies joined by shared points (an axle) or by
//! springs, driven by motors (`Command::BodyMotor`; `body_joint` in
//! `shaders/commands.wgsl` and `src/cpu/commands.rs`: a body's spin driven
//! toward a speed, relative to the world or to another body, with a
//! bounded torque), and broken by removing what joins them. Both paths
//! (the motor kernel against the CPU is in `commands.rs`).

use crate::commands::{free_world, run_commands};
use crate::common::both;
use softbody::commands::Command;
use softbody::prelude::*;
use softbody::solver::Solver;

/// The spin `L / I` about the centre of mass of `shape`'s points, their
/// inertia `I`, and their momentum and angular momentum about `about`.
pub(crate) struct Motion {
    pub(crate) omega: f32,
    pub(crate) inertia: f32,
    pub(crate) momentum: Vec2,
    pub(crate) angular: f32,
}

pub(crate) fn motion(
    world: &World,
    s: &Solver,
    points: &[PointHandle],
    about: Option<Vec2>,
) -> Motion {
    let (pos, vel) = s.state().unwrap();
    let mass = |h: &PointHandle| world.point(*h).mass as f64;
    let at = |h: &PointHandle| pos[h.index()].map(|x| x as f64);
    let m: f64 = points.iter().map(mass).sum();
    let c = points.iter().fold([0.0; 2], |c, h| {
        let x = at(h);
        [c[0] + mass(h) * x[0] / m, c[1] + mass(h) * x[1] / m]
    });
    let o = about.map_or(c, |a| [a.x as f64, a.y as f64]);
    let (mut inertia, mut l, mut l_about, mut p) = (0.0, 0.0, 0.0, [0.0f64; 2]);
    for h in points {
        let (x, v) = (at(h), vel[h.index()].map(|x| x as f64));
        let d = [x[0] - c[0], x[1] - c[1]];
        let e = [x[0] - o[0], x[1] - o[1]];
        inertia += mass(h) * (d[0] * d[0] + d[1] * d[1]);
        l += mass(h) * (d[0] * v[1] - d[1] * v[0]);
        l_about += mass(h) * (e[0] * v[1] - e[1] * v[0]);
        p = [p[0] + mass(h) * v[0], p[1] + mass(h) * v[1]];
    }
    Motion {
        omega: (l / inertia) as f32,
        inertia: inertia as f32,
        momentum: Vec2::new(p[0] as f32, p[1] as f32),
        angular: l_about as f32,
    }
}

/// A motor against the world turns a free ring by `max_torque h` each
/// time it acts (in every substep of a step; once, as in one substep, when
/// the commands run alone; the angular impulse exact to 1e-5) until it
/// spins at the motor's speed, which it then holds to 1e-5, and its
/// momentum stays 0 (to f32 rounding); a step turns it by `max_torque dt`.
/// On both paths.
#[test]
fn a_motor_turns_a_free_body_at_its_torque_up_to_its_speed() {
    let (world, shapes) = free_world();
    let ring = &shapes[1];
    let (dt, h) = (
        world.params.dt,
        world.params.dt / world.params.substeps as f32,
    );
    let (speed, torque) = (5.0f32, 20.0f32);
    for mut s in both(&world) {
        let motor = Command::BodyMotor {
            body: ring.bodies[0],
            other: None,
            speed,
            max_torque: torque,
        };
        let start = motion(&world, &s, &ring.points, None);
        let mut steps = 0;
        loop {
            let before = motion(&world, &s, &ring.points, None);
            s.queue(motor).unwrap();
            run_commands(&mut s);
            let after = motion(&world, &s, &ring.points, None);
            let gained = (after.omega - before.omega) * start.inertia;
            let left = (speed - before.omega) * start.inertia;
            let want = left.min(torque * h);
            assert!(
                (gained - want).abs() <= 1e-5 * torque * h + 1e-5 * speed * start.inertia,
                "{} command {steps}: angular impulse {gained}, want {want}",
                s.name()
            );
            // f32's rounding: 9 points at up to 3.5 m/s, over 530 commands.
            assert!(
                after.momentum.length() < 5e-5,
                "{} {steps}: {}",
                s.name(),
                after.momentum
            );
            steps += 1;
            if left <= torque * h || steps > 1000 {
                break;
            }
        }
        let end = motion(&world, &s, &ring.points, None);
        let want_steps = (speed * start.inertia / (torque * h)).ceil() as i32;
        eprintln!(
            "{}: spin {} rad/s after {steps} commands (I {:.4} kg m^2; closed form {want_steps})",
            s.name(),
            end.omega,
            start.inertia
        );
        assert_eq!(steps, want_steps, "{}", s.name());
        assert!((end.omega - speed).abs() <= 1e-5 * speed, "{}", s.name());
        // A step against the spin, the motor asking for -speed: `torque
        // dt` off its angular momentum, `torque h` in each substep.
        let before = motion(&world, &s, &ring.points, None);
        s.queue(Command::BodyMotor {
            body: ring.bodies[0],
            other: None,
            speed: -speed,
            max_torque: torque,
        })
        .unwrap();
        s.step(1).unwrap();
        let after = motion(&world, &s, &ring.points, None);
        let lost = before.angular - after.angular;
        assert!(
            (lost - torque * dt).abs() < 1e-3 * torque * dt,
            "{}: a step took {lost} off, want {}",
            s.name(),
            torque * dt
        );
        // Steps with the motor on hold the speed against the ring's
        // stretching (it widens as it spins).
        for _ in 0..60 {
            s.queue(motor).unwrap();
            s.step(1).unwrap();
        }
        let held = motion(&world, &s, &ring.points, None);
        assert!(
            (held.omega - speed).abs() < 0.01 * speed,
            "{}: {} rad/s after a second",
            s.name(),
            held.omega
        );
    }
}

/// A motor between two bodies turns them against each other: the pair's
/// momentum and angular momentum (about a fixed point) stay as they were
/// to 1e-5 of the impulse, and their spins part by the motor's speed once
/// the torque allows. So for two bodies apart (a box and a ring) and for
/// two cells of a grid that share corners, whose shared points take both
/// turns; both paths.
#[test]
fn a_motor_between_two_bodies_keeps_the_pairs_momenta() {
    let (world, shapes) = free_world();
    let (bx, ring, grid) = (&shapes[0], &shapes[1], &shapes[2]);
    let pairs = [
        (
            bx.bodies[0],
            ring.bodies[0],
            [&bx.points[..], &ring.points[..]].concat(),
        ),
        (grid.bodies[0], grid.bodies[1], grid.points.clone()),
    ];
    for mut s in both(&world) {
        for (k, (a, b, points)) in pairs.iter().enumerate() {
            let about = Vec2::new(0.5, -1.0);
            let before = motion(&world, &s, points, Some(about));
            let (speed, torque) = (3.0, 2.0e4);
            s.queue(Command::BodyMotor {
                body: *a,
                other: Some(*b),
                speed,
                max_torque: torque,
            })
            .unwrap();
            run_commands(&mut s);
            let after = motion(&world, &s, points, Some(about));
            let spin_of = |body: BodyHandle| {
                let pts = &world.bodies()[body.index()].points;
                motion(&world, &s, pts, None)
            };
            let (sa, sb) = (spin_of(*a), spin_of(*b));
            let scale = torque * world.params.dt;
            eprintln!(
                "{} pair {k}: momentum {:e}, angular momentum {:e}, spins {} and {}",
                s.name(),
                (after.momentum - before.momentum).length(),
                after.angular - before.angular,
                sa.omega,
                sb.omega
            );
            assert!(
                (after.momentum - before.momentum).length() <= 1e-5 * scale,
                "{} pair {k}",
                s.name()
            );
            assert!(
                (after.angular - before.angular).abs() <= 1e-5 * scale,
                "{} pair {k}",
                s.name()
            );
            assert!(
                (sa.omega - sb.omega - speed).abs() < 1e-3 * speed,
                "{} pair {k}: spins {} and {}",
                s.name(),
                sa.omega,
                sb.omega
            );
            // The lighter side turns the more: inertia times spin is
            // the same on both sides (only for bodies that share nothing).
            if k == 0 {
                let (la, lb) = (sa.omega * sa.inertia, sb.omega * sb.inertia);
                assert!((la + lb).abs() <= 1e-4 * la.abs(), "{la} against {lb}");
            }
        }
    }
}

/// A motor against a kinematic body (a turntable turning at 1 rad/s)
/// takes its speed relative to the turntable's spin, and the turntable
/// takes no reaction; a motor on the turntable itself turns only the
/// other body. Both paths.
#[test]
fn a_kinematic_side_of_a_motor_takes_no_reaction() {
    let (mut world, shapes) = free_world();
    let (table, ring) = (&shapes[0], &shapes[1]);
    world
        .set_kinematic(table.bodies[0], Vec2::ZERO, 1.0)
        .unwrap();
    for mut s in both(&world) {
        let (_, before) = s.state().unwrap();
        for (body, other, speed, want) in [
            (ring.bodies[0], table.bodies[0], 2.0, 3.0),
            (table.bodies[0], ring.bodies[0], 0.5, 0.5),
        ] {
            s.queue(Command::BodyMotor {
                body,
                other: Some(other),
                speed,
                max_torque: 1.0e6,
            })
            .unwrap();
            run_commands(&mut s);
            let (_, vel) = s.state().unwrap();
            let spin = motion(&world, &s, &ring.points, None).omega;
            eprintln!("{}: ring at {spin} rad/s, want {want}", s.name());
            assert!((spin - want).abs() < 1e-4, "{}: {spin}", s.name());
            for h in &table.points {
                assert_eq!(vel[h.index()], before[h.index()], "{}", s.name());
            }
        }
    }
}

/// An arm hinged on a base: a 0.5 m box pinned to the floor at its
/// bottom corners and a 1 m by 0.2 m arm (diagonal springs) that shares
/// the box's top-right corner, in 1/`k` m at time step `dt`. Returns the
/// world, the base, the arm, the hinge and the arm's far bottom corner.
pub(crate) fn hinged_arm(
    k: f32,
    dt: f32,
) -> (World, BodyHandle, BodyHandle, PointHandle, PointHandle) {
    let mut world = World::new(Params {
        dt,
        ..Params::with_length_unit(k).unwrap()
    });
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let mut add = |x: f32, y: f32, mass: f32| {
        world
            .add_point(Point::new(Vec2::new(x, y) * k).mass(mass))
            .unwrap()
    };
    let (b0, b1) = (add(0.0, 0.0, 0.0), add(0.5, 0.0, 0.0));
    let (hinge, b3) = (add(0.5, 0.5, 1.0), add(0.0, 0.5, 1.0));
    let (a1, a2, a3) = (add(1.5, 0.5, 1.0), add(1.5, 0.7, 1.0), add(0.5, 0.7, 1.0));
    let base = world.add_body(Body::new(vec![b0, b1, hinge, b3])).unwrap();
    let arm = world.add_body(Body::new(vec![hinge, a1, a2, a3])).unwrap();
    for (a, b) in [(hinge, a2), (a1, a3)] {
        world.add_spring(Spring::new(a, b)).unwrap();
    }
    (world, base, arm, hinge, a1)
}

/// A motor turns an arm hinged on a base held by two pinned points: the
/// base cannot turn, so it takes no reaction (`takes` 2), and the arm
/// lifts against gravity at near the motor's 1 rad/s, about the hinge,
/// which stays put, in metres at dt 1/60 and centimetres at dt 1/120, on
/// both paths: over 0.97 rad/s (0.987 and 0.993 measured; driven once a
/// step rather than in every substep, 0.94 and 0.97; turned about its own
/// centre rather than the hinge, 0.91 at dt 1/60). When the base's two free points took the reaction, the
/// motor's impulse shrank to what they could take: the arm fell to the
/// floor at dt 1/60 and rose at 0.2 rad/s at 1/120.
#[test]
fn a_motor_turns_an_arm_hinged_on_a_pinned_base() {
    for (k, dt) in [(1.0, 1.0 / 60.0), (100.0, 1.0 / 120.0)] {
        let (world, base, arm, hinge, tip) = hinged_arm(k, dt);
        for mut s in both(&world) {
            let angle = |s: &Solver| {
                let (pos, _) = s.state().unwrap();
                (Vec2::from(pos[tip.index()]) - Vec2::from(pos[hinge.index()])).to_angle()
            };
            let steps = (0.5 / dt).round() as u32;
            let mut rates = vec![];
            let mut before = angle(&s);
            for _ in 0..2 {
                for _ in 0..steps {
                    s.queue(Command::BodyMotor {
                        body: arm,
                        other: Some(base),
                        speed: 1.0,
                        max_torque: 50.0 * k * k,
                    })
                    .unwrap();
                    s.step(1).unwrap();
                }
                let now = angle(&s);
                rates.push((now - before) / 0.5);
                before = now;
            }
            let (pos, _) = s.state().unwrap();
            let moved = (Vec2::from(pos[hinge.index()]) - Vec2::new(0.5, 0.5) * k).length() / k;
            eprintln!(
                "{} in 1/{k} m at dt {dt:.4}: the arm turned at {rates:?} rad/s, the hinge moved {moved:.4} m",
                s.name()
            );
            assert!(
                rates[1] > 0.97 && rates[1] < 1.05,
                "{}: {rates:?}",
                s.name()
            );
            assert!(moved < 0.005, "{}: the hinge moved {moved} m", s.name());
        }
    }
}

/// A car on a floor: a 2 m box chassis whose body holds the hubs of two
/// 10-point wheels below it, so that each wheel turns about its hub as on
/// an axle (the chassis and the wheels share points, so they do not
/// collide).
struct Car {
    wheels: Vec<Shape>,
    hubs: Vec<PointHandle>,
    corners: Vec<PointHandle>,
    chassis: BodyHandle,
}

fn car() -> (World, Car) {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let radius = 0.35;
    let (mut wheels, mut hubs) = (vec![], vec![]);
    for x in [-0.7f32, 0.7] {
        let at = Vec2::new(x, radius + 0.02);
        let wheel = Blob::new(at, radius, 10)
            .center_point(true)
            .build(&mut world)
            .unwrap();
        let hub = *wheel
            .points
            .iter()
            .find(|h| world.point(**h).pos == at)
            .unwrap();
        hubs.push(hub);
        wheels.push(wheel);
    }
    let corners: Vec<PointHandle> = [(-1.0, 0.8), (1.0, 0.8), (1.0, 1.1), (-1.0, 1.1)]
        .iter()
        .map(|&(x, y)| world.add_point(Point::new(Vec2::new(x, y))).unwrap())
        .collect();
    let chassis = world
        .add_body(Body::new([&corners[..], &hubs[..]].concat()).boundary(corners.clone()))
        .unwrap();
    let car = Car {
        wheels,
        hubs,
        corners,
        chassis,
    };
    (world, car)
}

impl Car {
    fn drive(&self, s: &mut Solver, speed: f32) {
        for w in &self.wheels {
            s.queue(Command::BodyMotor {
                body: w.bodies[0],
                other: Some(self.chassis),
                speed,
                max_torque: 30.0,
            })
            .unwrap();
        }
    }
    /// The chassis' centre (its corners' mean) and its tilt.
    fn pose(&self, pos: &[[f32; 2]]) -> (Vec2, f32) {
        let at = |k: usize| Vec2::from(pos[self.corners[k].index()]);
        let c = (0..4).map(at).sum::<Vec2>() / 4.0;
        (c, (at(1) - at(0)).to_angle())
    }
}

/// The car stands still with its motors off; with its wheels' motors on
/// against the chassis (-12 rad/s, 30 N m) it drives off to the right,
/// rolling (4.2 m/s at 12 rad/s), upright, with no point below the floor.
/// Then its front axle breaks (`World::remove_points` of the hub the two
/// bodies share): the wheel rolls on alone, a hubless ring, and parts
/// from where its axle was; nothing is thrown and no point goes inside
/// another body. Both paths.
#[test]
fn a_car_drives_on_its_motored_wheels_and_loses_a_wheel() {
    let (world, car) = car();
    for mut s in both(&world) {
        let mut world = world.clone();
        s.step(60).unwrap();
        let (parked, _) = car.pose(&s.state().unwrap().0);
        s.step(60).unwrap();
        let (pos, _) = s.state().unwrap();
        let still = car.pose(&pos).0 - parked;
        assert!(
            still.length() < 0.01,
            "{}: parked car moved {still}",
            s.name()
        );
        let mut lowest = f32::MAX;
        for _ in 0..120 {
            car.drive(&mut s, -12.0);
            s.step(1).unwrap();
            let (pos, _) = s.state().unwrap();
            lowest = pos.iter().map(|p| p[1]).fold(lowest, f32::min);
        }
        let (pos, vel) = s.state().unwrap();
        let (at, tilt) = car.pose(&pos);
        let drove = at - parked;
        let wheel = motion(&world, &s, &car.wheels[0].points, None);
        let body = motion(&world, &s, &car.corners, None);
        let speed = car.corners.iter().map(|h| vel[h.index()][0]).sum::<f32>() / 4.0;
        eprintln!(
            "{}: drove {drove} in 2 s, at {speed:.2} m/s, tilt {tilt:.3} rad, wheels at {:.2} rad/s against the chassis, lowest point {lowest:.4} m",
            s.name(),
            wheel.omega - body.omega
        );
        assert!(drove.x > 4.0, "{}: drove {drove}", s.name());
        assert!((speed - 4.2).abs() < 0.3, "{}: {speed} m/s", s.name());
        assert!(tilt.abs() < 0.05, "{}: tilted {tilt}", s.name());
        assert!(lowest > -0.02, "{}: a point reached {lowest}", s.name());

        // The front axle breaks.
        let front = |pos: &[[f32; 2]], c: &Car| {
            let w = &c.wheels[1].points;
            let rim = w.iter().map(|h| Vec2::from(pos[h.index()])).sum::<Vec2>() / w.len() as f32;
            rim - c.pose(pos).0
        };
        let joined = front(&pos, &car);
        let removal = world.remove_points(&[car.hubs[1]]).unwrap();
        s.apply_removal(&world, &removal).unwrap();
        let moved = |h: &PointHandle| removal.point(*h).unwrap();
        let broken = Car {
            wheels: car
                .wheels
                .iter()
                .map(|w| Shape {
                    points: w.points.iter().filter_map(|h| removal.point(*h)).collect(),
                    springs: vec![],
                    bodies: vec![removal.body(w.bodies[0]).unwrap()],
                })
                .collect(),
            hubs: vec![moved(&car.hubs[0])],
            corners: car.corners.iter().map(moved).collect(),
            chassis: removal.body(car.chassis).unwrap(),
        };
        assert_eq!(
            world.bodies()[broken.wheels[1].bodies[0].index()]
                .points
                .len(),
            10
        );
        let mut fastest = 0.0f32;
        for _ in 0..60 {
            broken.drive(&mut s, -12.0);
            s.step(1).unwrap();
            let (_, vel) = s.state().unwrap();
            fastest = vel
                .iter()
                .map(|v| Vec2::from(*v).length())
                .fold(fastest, f32::max);
        }
        let (pos, _) = s.state().unwrap();
        let (_, reared) = broken.pose(&pos);
        let parted = (front(&pos, &broken) - joined).length();
        let packed = softbody::pack::Packed::from_world(&world).unwrap();
        let (_, vel) = s.state().unwrap();
        let report = softbody::measure::pile_report(&packed, &pos, &vel);
        eprintln!(
            "{}: a second after the break: the wheel {parted:.3} m from its axle, tilt {reared:.3} rad, fastest point {fastest:.2} m/s, {report}",
            s.name()
        );
        assert!(
            parted > 0.1,
            "{}: the wheel stayed on: {parted} m",
            s.name()
        );
        // The top of a wheel rolling at 4.2 m/s moves at 8.4 m/s.
        assert!(fastest < 10.0, "{}: a point at {fastest} m/s", s.name());
        assert_eq!(report.points_inside, 0, "{}: {report}", s.name());
    }
}

/// A box hangs asleep from two pinned points by two springs; the springs
/// break (`World::remove_springs`), and it falls free at once: `g t^2 / 2`
/// in half a second (1%), on both paths.
#[test]
fn a_box_hanging_asleep_falls_free_once_its_springs_break() {
    let mut world = World::default();
    let pins = [Vec2::new(-1.0, 3.0), Vec2::new(1.0, 3.0)]
        .map(|at| world.add_point(Point::new(at).mass(0.0)).unwrap());
    let bx = BoxShape::new(Vec2::new(0.0, 2.0), Vec2::splat(0.5))
        .build(&mut world)
        .unwrap();
    let top = |x: f32| {
        *bx.points
            .iter()
            .find(|h| world.point(**h).pos == Vec2::new(x, 2.25))
            .unwrap()
    };
    let (left, right) = (top(-0.25), top(0.25));
    let springs = [(pins[0], left), (pins[1], right)]
        .map(|(a, b)| world.add_spring(Spring::new(a, b)).unwrap());
    let g = world.params.gravity.y.abs();
    for mut s in both(&world) {
        let mut world = world.clone();
        s.step(240).unwrap();
        let asleep = s.sleeping_points().unwrap();
        assert_eq!(asleep, bx.points.len(), "{}: asleep before", s.name());
        let hung = centroid_y(&s, &bx);
        let removal = world.remove_springs(&springs).unwrap();
        s.apply_removal(&world, &removal).unwrap();
        s.step(30).unwrap();
        let drop = hung - centroid_y(&s, &bx);
        let t = 30.0 * world.params.dt;
        let want = 0.5 * g * t * t;
        eprintln!(
            "{}: fell {drop:.4} m in {t} s, g t^2 / 2 = {want:.4}",
            s.name()
        );
        assert!(
            (drop - want).abs() < 0.01 * want,
            "{}: {drop} against {want}",
            s.name()
        );
    }
}

fn centroid_y(s: &Solver, shape: &Shape) -> f32 {
    let (pos, _) = s.state().unwrap();
    shape.points.iter().map(|h| pos[h.index()][1]).sum::<f32>() / shape.points.len() as f32
}

/// A motor wakes both bodies it turns, and a bad one is refused by name
/// with nothing queued: its own body as the other, a negative or NaN
/// torque, an unknown body. Both paths.
#[test]
fn a_motor_wakes_both_bodies_and_bad_ones_are_refused() {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let bx = BoxShape::new(Vec2::new(0.0, 0.26), Vec2::splat(0.5))
        .build(&mut world)
        .unwrap();
    let ring = Blob::new(Vec2::new(3.0, 0.42), 0.4, 10)
        .build(&mut world)
        .unwrap();
    for mut s in both(&world) {
        s.step(90).unwrap();
        let n = world.points().len();
        assert_eq!(s.sleeping_points().unwrap(), n, "{}", s.name());
        let bad = [
            (ring.bodies[0], Some(ring.bodies[0]), 1.0, "the body itself"),
            (ring.bodies[0], None, -1.0, "max torque is negative"),
            (ring.bodies[0], None, f32::NAN, "max torque is not finite"),
            (
                ring.bodies[0],
                Some(BodyHandle(7)),
                1.0,
                "body 7 does not exist",
            ),
        ];
        for (body, other, max_torque, says) in bad {
            let e = s
                .queue(Command::BodyMotor {
                    body,
                    other,
                    speed: 1.0,
                    max_torque,
                })
                .unwrap_err()
                .to_string();
            assert!(e.contains(says), "{}: {e}", s.name());
        }
        s.queue(Command::BodyMotor {
            body: ring.bodies[0],
            other: Some(bx.bodies[0]),
            speed: 4.0,
            max_torque: 50.0,
        })
        .unwrap();
        s.step(1).unwrap();
        let (_, vel) = s.state().unwrap();
        let moving = |sh: &Shape| sh.points.iter().any(|h| vel[h.index()] != [0.0, 0.0]);
        assert!(
            moving(&ring) && moving(&bx),
            "{}: both bodies awake and turning",
            s.name()
        );
    }
}
