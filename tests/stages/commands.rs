//! Commands (`shaders/commands.wgsl`, `src/cpu/commands.rs`): impulses,
//! forces, velocities and teleports a program queues, applied at the
//! start of the next step, on both paths and the GPU against the CPU.

use crate::common::{both, centroid, farthest, gpu};
use softbody::commands::Command;
use softbody::prelude::*;
use softbody::solver::Solver;

/// Momentum and angular momentum about the centre of mass of `shape`'s
/// points, with their masses from the world, and that centre.
fn momenta(world: &World, s: &Solver, shape: &Shape) -> (Vec2, f32, Vec2) {
    let (pos, vel) = s.state().unwrap();
    let mass = |h: &PointHandle| world.point(*h).mass;
    let m: f32 = shape.points.iter().map(mass).sum();
    let c = shape
        .points
        .iter()
        .map(|h| mass(h) * Vec2::from_array(pos[h.index()]))
        .sum::<Vec2>()
        / m;
    let (mut p, mut l) = (Vec2::ZERO, 0.0);
    for h in &shape.points {
        let v = mass(h) * Vec2::from_array(vel[h.index()]);
        p += v;
        l += (Vec2::from_array(pos[h.index()]) - c).perp_dot(v);
    }
    (p, l, c)
}

/// A world without gravity: a box with diagonal springs of 2 by 1 m and
/// 0.5 kg a point, a hubless 9-point ring and a 4 by 3 grid (bodies that
/// share corners, as a ship is built), all at rest.
pub(crate) fn free_world() -> (World, Vec<Shape>) {
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    let shapes = vec![
        BoxShape::new(Vec2::new(-4.0, 0.0), Vec2::new(2.0, 1.0))
            .rotation(0.3)
            .style(ShapeStyle::new().mass(0.5))
            .build(&mut world)
            .unwrap(),
        Blob::new(Vec2::new(3.0, 2.0), 0.7, 9)
            .center_point(false)
            .build(&mut world)
            .unwrap(),
        BoxGrid::new(4, 3, Vec2::splat(0.4))
            .center(Vec2::new(0.0, -4.0))
            .build(&mut world)
            .unwrap(),
    ];
    (world, shapes)
}

/// Runs the queued commands alone (the joints once, as in one substep):
/// the CPU's stage, or the GPU's `record_commands` in an encoder of its
/// own.
pub(crate) fn run_commands(s: &mut Solver) {
    match s {
        Solver::Cpu(c) => c.stage_commands(),
        Solver::Gpu { ctx, solver } => {
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            solver.record_commands(&mut encoder);
            ctx.queue.submit([encoder.finish()]);
        }
    }
}

/// An impulse J at a point off the centre changes a free body's momentum
/// by exactly J (1e-5 relative) and its angular momentum about its centre
/// of mass by (a - c) x J, on both paths and for three shapes; the step
/// after it keeps both (to 1e-4, the internal forces' rounding).
#[test]
fn an_impulse_changes_a_free_bodys_momentum_by_j_and_spin_by_r_cross_j() {
    let (world, shapes) = free_world();
    for mut s in both(&world) {
        for (k, shape) in shapes.iter().enumerate() {
            let (p0, l0, c) = momenta(&world, &s, shape);
            let j = Vec2::new(3.0, -1.5) * (k + 1) as f32;
            let at = c + Vec2::new(0.4, 0.25);
            s.queue(Command::BodyImpulse {
                body: shape.bodies[0],
                impulse: j,
                at,
            })
            .unwrap();
            run_commands(&mut s);
            let spin = (at - c).perp_dot(j);
            let (p, l, _) = momenta(&world, &s, shape);
            let (p, l) = (p - p0, l - l0);
            eprintln!(
                "{} shape {k}: momentum {p} for J {j}, angular momentum {l:.6} for (a - c) x J {spin:.6}",
                s.name()
            );
            assert!(
                (p - j).length() <= 1e-5 * j.length(),
                "{} shape {k}: momentum {p}, J {j}",
                s.name()
            );
            assert!(
                (l - spin).abs() <= 1e-5 * spin.abs(),
                "{} shape {k}: angular momentum {l}, (a - c) x J {spin}",
                s.name()
            );
            s.step(1).unwrap();
            let (p, l, _) = momenta(&world, &s, shape);
            let (p, l) = (p - p0, l - l0);
            assert!(
                (p - j).length() <= 1e-4 * j.length() && (l - spin).abs() <= 1e-4 * spin.abs(),
                "{} shape {k}: a step later momentum {p}, angular momentum {l}",
                s.name()
            );
        }
    }
}

/// Every kind of command, queued alike on both paths, gives the same
/// state after a step: the GPU's kernel against the CPU mirror.
#[test]
fn every_command_matches_the_cpu() {
    let Some(ctx) = gpu() else { return };
    let (world, shapes) = free_world();
    let (bx, ring, grid) = (&shapes[0], &shapes[1], &shapes[2]);
    let commands = [
        Command::PointImpulse {
            point: ring.points[2],
            impulse: Vec2::new(0.5, 1.0),
        },
        Command::PointForce {
            point: ring.points[5],
            force: Vec2::new(-30.0, 0.0),
        },
        Command::PointVelocity {
            point: grid.points[0],
            velocity: Vec2::new(0.0, -2.0),
        },
        Command::PointTeleport {
            point: grid.points[19],
            position: Vec2::new(1.3, -3.1),
        },
        Command::BodyImpulse {
            body: bx.bodies[0],
            impulse: Vec2::new(1.0, 2.0),
            at: Vec2::new(-3.2, 0.4),
        },
        Command::BodyForce {
            body: grid.bodies[4],
            force: Vec2::new(60.0, 0.0),
            at: Vec2::new(0.0, -4.0),
        },
        Command::BodyAngularImpulse {
            body: ring.bodies[0],
            impulse: 0.8,
        },
        Command::BodyLocalForce {
            body: grid.bodies[2],
            force: Vec2::new(-20.0, 35.0),
            at: Vec2::new(0.1, -0.2),
        },
        Command::BodyTorque {
            body: grid.bodies[1],
            torque: -40.0,
        },
        Command::BodyVelocity {
            body: grid.bodies[5],
            linear: Vec2::new(1.0, 1.0),
            angular: 2.0,
        },
        Command::BodyTeleport {
            body: bx.bodies[0],
            position: Vec2::new(-6.0, 1.0),
            angle: Some(1.0),
        },
        Command::BodyMotor {
            body: ring.bodies[0],
            other: None,
            speed: -3.0,
            max_torque: 500.0,
        },
        // Two cells that share corners: both turns reach those points.
        Command::BodyMotor {
            body: grid.bodies[6],
            other: Some(grid.bodies[7]),
            speed: 4.0,
            max_torque: 30.0,
        },
        // Springs: two cells that share corners pulled toward 0.3 rad,
        // and the box (teleported to 1 rad) back toward -1 rad.
        Command::BodySpring {
            body: grid.bodies[9],
            other: Some(grid.bodies[10]),
            hertz: 5.0,
            damping_ratio: 0.3,
            target: 0.3,
        },
        Command::BodySpring {
            body: bx.bodies[0],
            other: None,
            hertz: 2.0,
            damping_ratio: 1.0,
            target: -1.0,
        },
        // Limits that act: the ring's spin against the world, the cells'
        // against each other, and the teleported box past its range.
        Command::BodyAngleLimit {
            body: ring.bodies[0],
            other: None,
            lower: -0.01,
            upper: 0.01,
        },
        Command::BodyAngleLimit {
            body: grid.bodies[6],
            other: Some(grid.bodies[7]),
            lower: -0.02,
            upper: 0.02,
        },
        Command::BodyAngleLimit {
            body: bx.bodies[0],
            other: None,
            lower: -0.5,
            upper: 0.5,
        },
    ];
    let mut cpu = Solver::cpu(&world).unwrap();
    let mut gpu = Solver::gpu_on(ctx, &world).unwrap();
    for s in [&mut cpu, &mut gpu] {
        for c in commands {
            s.queue(c).unwrap();
        }
        run_commands(s);
    }
    let ((cp, cv), (gp, gv)) = (cpu.state().unwrap(), gpu.state().unwrap());
    let (dp, dv) = (farthest(&cp, &gp), farthest(&cv, &gv));
    eprintln!("GPU against CPU after every command: positions {dp:e} m, velocities {dv:e} m/s");
    // The limits' angles come from atan2, whose last bit (1e-7 rad)
    // differs between the paths: times the push rate (60/s) and a lever
    // of a metre, over the limits' passes.
    assert!(dp <= 1e-6 && dv <= 6e-5, "{dp}, {dv}");
    // The teleported box is where it was sent.
    let c = centroid(&cp, bx);
    assert!((c - Vec2::new(-6.0, 1.0)).length() < 1e-5, "{c}");
    // And a step with them: the substeps' own differences.
    for s in [&mut cpu, &mut gpu] {
        s.step(1).unwrap();
    }
    let ((cp, cv), (gp, gv)) = (cpu.state().unwrap(), gpu.state().unwrap());
    let (dp, dv) = (farthest(&cp, &gp), farthest(&cv, &gv));
    eprintln!("and a step later: positions {dp:e} m, velocities {dv:e} m/s");
    assert!(dp <= 1e-5 && dv <= 1e-3, "{dp}, {dv}");
    // A step with the motors, springs and limits again: the joints kernel
    // at the start of each substep (the last seven commands are the
    // joints).
    let joints = &commands[commands.len() - 7..];
    for s in [&mut cpu, &mut gpu] {
        for c in joints {
            s.queue(*c).unwrap();
        }
        s.step(1).unwrap();
    }
    let ((cp2, cv2), (gp2, gv2)) = (cpu.state().unwrap(), gpu.state().unwrap());
    let (dp2, dv2) = (farthest(&cp2, &gp2), farthest(&cv2, &gv2));
    eprintln!(
        "and a step with the joints in its substeps: positions {dp2:e} m, velocities {dv2:e} m/s"
    );
    assert!(dp2 <= 2e-5 && dv2 <= 2e-3, "{dp2}, {dv2}");
    // The joints changed the step: without them the ring turns otherwise.
    let mut free = Solver::cpu(&world).unwrap();
    free.set_state(&cp, &cv).unwrap();
    free.step(1).unwrap();
    let (fp, _) = free.state().unwrap();
    assert!(farthest(&fp, &cp2) > 1e-3, "{}", farthest(&fp, &cp2));
}

/// A body's velocity and teleport: a teleport with an angle puts it at
/// that place and turns it to that angle from its rest shape, and a
/// velocity set after it moves and turns it as set, on both paths.
#[test]
fn a_body_set_moving_or_teleported_goes_where_it_was_told() {
    let (world, shapes) = free_world();
    let bx = &shapes[0];
    for mut s in both(&world) {
        s.queue(Command::BodyTeleport {
            body: bx.bodies[0],
            position: Vec2::new(10.0, 5.0),
            angle: Some(-0.5),
        })
        .unwrap();
        s.queue(Command::BodyVelocity {
            body: bx.bodies[0],
            linear: Vec2::new(2.0, 0.0),
            angular: 0.4,
        })
        .unwrap();
        s.step(30).unwrap();
        let (pos, vel) = s.state().unwrap();
        let c = centroid(&pos, bx);
        let v = centroid(&vel, bx);
        let a = Vec2::from_array(pos[bx.points[0].index()]) - c;
        let b = Vec2::from_array(pos[bx.points[1].index()]) - c;
        // Points 0 and 1 are the box's bottom edge: built turned by 0.3,
        // which is its rest shape (angle 0), then turned to -0.5 from rest
        // and spun at 0.4 rad/s for 0.5 s: 0.3 - 0.5 + 0.2 in the world.
        let angle = (b - a).to_angle();
        eprintln!("{}: centre {c}, velocity {v}, angle {angle:.4}", s.name());
        assert!((c - Vec2::new(11.0, 5.0)).length() < 0.01, "{c}");
        assert!((v - Vec2::new(2.0, 0.0)).length() < 0.01, "{v}");
        assert!((angle - 0.0).abs() < 0.02, "{}: angle {angle}", s.name());
    }
}

/// A command on a sleeping body wakes it, and it moves in that very
/// step; a bad command is refused by name and queues nothing; a removal
/// drops what was queued (its handles are the old ones). Both paths.
#[test]
fn commands_wake_what_they_push_and_bad_ones_are_refused() {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let bx = BoxShape::new(Vec2::new(0.0, 0.26), Vec2::splat(0.5))
        .build(&mut world)
        .unwrap();
    for mut s in both(&world) {
        s.step(60).unwrap();
        assert_eq!(s.sleeping_points().unwrap(), 4, "{}", s.name());
        let (before, _) = s.state().unwrap();
        s.queue(Command::BodyImpulse {
            body: bx.bodies[0],
            impulse: Vec2::new(4.0, 0.0),
            at: centroid(&before, &bx),
        })
        .unwrap();
        s.step(1).unwrap();
        let (pos, vel) = s.state().unwrap();
        let moved = centroid(&pos, &bx).x - centroid(&before, &bx).x;
        assert!(moved > 0.005, "{}: moved {moved} m in the step", s.name());
        assert!(centroid(&vel, &bx).x > 0.5, "{}", s.name());
        let e = s
            .queue(Command::BodyImpulse {
                body: BodyHandle(1),
                impulse: Vec2::X,
                at: Vec2::ZERO,
            })
            .unwrap_err()
            .to_string();
        assert!(e.contains("body 1") && e.contains("does not exist"), "{e}");
        let e = s
            .queue(Command::PointVelocity {
                point: bx.points[0],
                velocity: Vec2::new(f32::NAN, 0.0),
            })
            .unwrap_err()
            .to_string();
        assert!(e.contains("point 0") && e.contains("velocity"), "{e}");
    }
    // Removal: the queue empties.
    let (world, shapes) = free_world();
    let mut edited = world.clone();
    let removal = edited.remove_body(shapes[1].bodies[0]).unwrap();
    for mut s in both(&world) {
        s.queue(Command::BodyVelocity {
            body: shapes[2].bodies[0],
            linear: Vec2::X,
            angular: 0.0,
        })
        .unwrap();
        match &mut s {
            Solver::Cpu(c) => {
                c.apply_removal(&edited, &removal).unwrap();
                assert_eq!(c.queued(), 0);
            }
            Solver::Gpu { ctx, solver } => {
                solver
                    .apply_removal(&ctx.device, &ctx.queue, &edited, &removal)
                    .unwrap();
                assert_eq!(solver.queued(), 0);
            }
        }
    }
}

/// A force in a body's own frame turns with the body. The frame is its
/// rest shape's axes (the world's axes when it was built, whichever way
/// the box was built turned): turned 90 degrees from rest (a teleport),
/// a push along its own x gives momentum along the world's y, the force
/// times dt, and no spin, on both paths.
#[test]
fn a_body_frame_force_turns_with_the_body() {
    let (world, shapes) = free_world();
    let bx = &shapes[0];
    let dt = world.params.dt;
    for mut s in both(&world) {
        let (_, _, c) = momenta(&world, &s, bx);
        s.queue(Command::BodyTeleport {
            body: bx.bodies[0],
            position: c,
            angle: Some(std::f32::consts::FRAC_PI_2),
        })
        .unwrap();
        run_commands(&mut s);
        let (p0, _, _) = momenta(&world, &s, bx);
        s.queue(Command::BodyLocalForce {
            body: bx.bodies[0],
            force: Vec2::new(30.0, 0.0),
            at: Vec2::ZERO,
        })
        .unwrap();
        run_commands(&mut s);
        let (p, l, _) = momenta(&world, &s, bx);
        let want = 30.0 * dt * Vec2::Y;
        eprintln!("{}: momentum gained {}, want {want}", s.name(), p - p0);
        assert!(
            (p - p0 - want).length() < 1e-4,
            "{}: {} against {want}",
            s.name(),
            p - p0
        );
        assert!(
            l.abs() < 1e-4,
            "{}: no spin from a force at the centre, {l}",
            s.name()
        );
    }
}
