//! Joints the world keeps (`World::add_joint`): the solvers make them
//! into the commands `BodySpring`, `BodyMotor` and `BodyAngleLimit` at
//! every step
//! (`commands::standing_joints`), follow them through removals and syncs,
//! and wake a joint's bodies when it is added or changed; on both paths.

use crate::common::{both, centroid};
use crate::limits::{hanging_chain, largest_bend, queue_chain_limits};
use softbody::commands::Command;
use softbody::pack::{Packed, scene_hash};
use softbody::prelude::*;
use softbody::solver::Solver;

/// The positions after `steps` steps of `s`, queuing `per_step` before
/// each.
fn run(mut s: Solver, steps: u32, per_step: impl Fn(&mut Solver)) -> Vec<[f32; 2]> {
    for _ in 0..steps {
        per_step(&mut s);
        s.step(1).unwrap();
    }
    s.state().unwrap().0
}

/// A hanging chain with limits of `[-0.4, 0.4]` between neighbours, a
/// spring bending its last link and a motor driving its first link
/// against the world (boxes hinged at
/// corners in metres at dt 1/60 and centimetres at 1/120; hubless rings
/// tied by springs), kept by the world, steps bit for bit as the same
/// commands queued before every step, on each path; and stays within
/// its limits as the queued ones do.
#[test]
fn world_joints_step_as_the_same_commands_queued_every_step() {
    for (k, dt, rings) in [
        (1.0, 1.0 / 60.0, false),
        (100.0, 1.0 / 120.0, false),
        (1.0, 1.0 / 60.0, true),
    ] {
        let (plain, links) = hanging_chain(k, dt, 6, rings);
        let motor = Command::BodyMotor {
            body: links[0],
            other: None,
            speed: -1.0,
            max_torque: 5.0 * k * k,
        };
        // A spring bending the last link toward 0.3 rad from the one
        // before it.
        let spring = Command::BodySpring {
            body: links[5],
            other: Some(links[4]),
            hertz: 3.0,
            damping_ratio: 0.5,
            target: 0.3,
        };
        let mut jointed = plain.clone();
        jointed
            .add_joint(Joint::new(links[0], None).motor(-1.0, 5.0 * k * k))
            .unwrap();
        for pair in links.windows(2) {
            jointed
                .add_joint(Joint::new(pair[1], Some(pair[0])).limits(-0.4, 0.4))
                .unwrap();
        }
        jointed
            .add_joint(Joint::new(links[5], Some(links[4])).spring(3.0, 0.5, 0.3))
            .unwrap();
        let steps = (1.5 / dt).round() as u32;
        let queued = |s: &mut Solver| {
            s.queue(motor).unwrap();
            queue_chain_limits(s, &links, 0.4);
            s.queue(spring).unwrap();
        };
        for (a, b) in both(&jointed).into_iter().zip(both(&plain)) {
            let name = a.name();
            let kept = run(a, steps, |_| {});
            let each_step = run(b, steps, queued);
            let bend = largest_bend(&jointed, &kept, &links);
            eprintln!(
                "{name} {} in 1/{k} m at dt {dt:.4}: world joints against queued commands bitwise equal: {}; bend {bend:.4} rad",
                if rings { "rings" } else { "boxes" },
                kept == each_step
            );
            assert_eq!(kept, each_step, "{name}");
            assert!(bend < 0.5, "{name}: {bend}");
        }
    }
}

/// Removing a body takes its joints with it and renumbers the others'
/// bodies, in the world and in the solvers (`apply_removal`); a joint
/// changed with `set_joint` or removed with `remove_joints` is taken at
/// `sync`; joints change the scene hash (a checkpoint of a scene without
/// them does not load into one with them); bad joints are refused with
/// an error that names the joint and the field, and nothing is added.
#[test]
fn world_joints_follow_removals_and_edits_and_bad_ones_are_refused() {
    let mut world = World::default();
    let boxes: Vec<BodyHandle> = (0..3)
        .map(|i| {
            BoxShape::new(Vec2::new(i as f32, 0.0), Vec2::splat(0.8))
                .build(&mut world)
                .unwrap()
                .bodies[0]
        })
        .collect();
    let bare = scene_hash(&Packed::from_world(&world).unwrap(), &world.params);
    world
        .add_joint(Joint::new(boxes[1], Some(boxes[0])).limits(-0.5, 0.5))
        .unwrap();
    world
        .add_joint(Joint::new(boxes[2], Some(boxes[1])).motor(1.0, 2.0))
        .unwrap();
    world
        .add_joint(Joint::new(boxes[2], None).limits(-1.0, 1.0))
        .unwrap();
    let hashed = scene_hash(&Packed::from_world(&world).unwrap(), &world.params);
    assert_ne!(bare, hashed);
    // A spring is part of the hash too.
    let mut sprung = world.clone();
    let limit = Joint::new(boxes[2], None).limits(-1.0, 1.0);
    sprung
        .set_joint(JointHandle(2), limit.spring(2.0, 1.0, 0.0))
        .unwrap();
    let with_spring = scene_hash(&Packed::from_world(&sprung).unwrap(), &sprung.params);
    assert_ne!(with_spring, hashed);

    // Refused, naming the joint and what is wrong; nothing added.
    let bad = [
        (Joint::new(BodyHandle(9), None), "body 9"),
        (
            Joint::new(boxes[0], Some(boxes[0])),
            "joint 3: a joint's other body is the body itself",
        ),
        (
            Joint::new(boxes[0], None).limits(0.5, -0.5),
            "joint 3: lower limit",
        ),
        (
            Joint::new(boxes[0], None).limits(-4.0, 0.0),
            "joint 3: lower limit",
        ),
        (
            Joint::new(boxes[0], None).motor(f32::NAN, 1.0),
            "joint 3: motor speed",
        ),
        (
            Joint::new(boxes[0], None).motor(1.0, -1.0),
            "joint 3: max torque",
        ),
        (
            Joint::new(boxes[0], None).spring(-1.0, 1.0, 0.0),
            "joint 3: spring hertz",
        ),
        (
            Joint::new(boxes[0], None).spring(1.0, f32::NAN, 0.0),
            "joint 3: spring damping ratio",
        ),
        (
            Joint::new(boxes[0], None).spring(1.0, 1.0, 4.0),
            "joint 3: spring target",
        ),
    ];
    for (joint, what) in bad {
        let e = world.add_joint(joint).unwrap_err().to_string();
        assert!(e.contains(what), "{e}");
    }
    assert_eq!(world.joints().len(), 3);
    let e = world.set_joint(JointHandle(7), Joint::new(boxes[0], None));
    assert!(e.unwrap_err().to_string().contains("joint 7"));
    assert!(world.remove_joints(&[JointHandle(3)]).is_err());
    assert_eq!(world.joints().len(), 3);

    let mut solvers = both(&world);
    // The last box takes the removed one's place.
    let removal = world.remove_body(boxes[0]).unwrap();
    let expected = [
        Joint::new(BodyHandle(0), Some(BodyHandle(1))).motor(1.0, 2.0),
        Joint::new(BodyHandle(0), None).limits(-1.0, 1.0),
    ];
    assert_eq!(world.joints(), &expected);
    for s in &mut solvers {
        s.apply_removal(&world, &removal).unwrap();
        assert_eq!(s.packed().joints, expected, "{}", s.name());
        s.step(1).unwrap();
    }
    let changed = Joint::new(BodyHandle(1), None).motor(-3.0, 4.0);
    world.set_joint(JointHandle(1), changed).unwrap();
    world
        .remove_joints(&[JointHandle(0), JointHandle(0)])
        .unwrap();
    assert_eq!(world.joints(), &[changed]);
    for s in &mut solvers {
        s.sync(&world).unwrap();
        assert_eq!(s.packed().joints, [changed], "{}", s.name());
    }
}

/// A box asleep on a floor wakes when a motor against the world is added
/// to it (the solver's `sync` wakes a new or changed joint's bodies), and
/// rolls away; with the joint removed it comes to rest and sleeps again.
/// Both paths, in metres and in centimetres.
#[test]
fn a_motor_added_to_the_world_wakes_its_sleeping_body() {
    for k in [1.0f32, 100.0] {
        let mut world = World::new(Params::with_length_unit(k).unwrap());
        world.add_plane(HalfPlane::floor(0.0)).unwrap();
        let crate_box = BoxShape::new(Vec2::new(0.0, 0.26 * k), Vec2::splat(0.5 * k))
            .build(&mut world)
            .unwrap();
        for mut s in both(&world) {
            let mut world = world.clone();
            s.step(90).unwrap();
            assert_eq!(s.sleeping_points().unwrap(), 4, "{}", s.name());
            let before = centroid(&s.state().unwrap().0, &crate_box);
            let joint = world
                .add_joint(Joint::new(crate_box.bodies[0], None).motor(-6.0, 40.0 * k * k))
                .unwrap();
            s.sync(&world).unwrap();
            s.step(60).unwrap();
            let rolled = (centroid(&s.state().unwrap().0, &crate_box) - before).x / k;
            world.remove_joints(&[joint]).unwrap();
            s.sync(&world).unwrap();
            s.step(240).unwrap();
            let asleep = s.sleeping_points().unwrap();
            eprintln!(
                "{} in 1/{k} m: the motor rolled the box {rolled:.3} m in 1 s; {asleep} of 4 points asleep 4 s after it went",
                s.name()
            );
            assert!(rolled > 0.5, "{}: {rolled}", s.name());
            assert_eq!(asleep, 4, "{}", s.name());
        }
    }
}

/// A run with world joints resumes from a checkpoint bit for bit on the
/// CPU (the joints are part of the scene, not of the state), and the GPU
/// restored from it follows within 1 mm; a checkpoint of the same bodies
/// without the joints is refused (the scene hash differs).
#[test]
fn a_checkpoint_resumes_a_run_with_world_joints() {
    use softbody::checkpoint::Checkpoint;
    let (plain, links) = hanging_chain(1.0, 1.0 / 60.0, 5, false);
    let mut jointed = plain.clone();
    for pair in links.windows(2) {
        jointed
            .add_joint(Joint::new(pair[1], Some(pair[0])).limits(-0.3, 0.3))
            .unwrap();
    }
    crate::gpu_check::assert_checkpoint_resumes(&jointed);
    let mut without = CpuSolver::new(&plain).unwrap();
    without.step();
    let saved = Checkpoint::of_cpu(&without, plain.params.dt as f64);
    let mut with = CpuSolver::new(&jointed).unwrap();
    let refused = saved.restore_cpu(&mut with);
    assert!(refused.is_err(), "a checkpoint without the joints loaded");
}

/// A hubless wheel (12-point ring, 0.5 m) hung on spokes from the apex
/// of a pinned chassis, in zero gravity, in metres and centimetres.
fn wheel_on_spokes(k: f32) -> (World, BodyHandle, Shape, PointHandle) {
    let mut world = World::new(Params {
        gravity: Vec2::ZERO,
        ..Params::with_length_unit(k).unwrap()
    });
    let corners = [Vec2::new(-1.0, 1.2), Vec2::new(1.0, 1.2), Vec2::ZERO];
    let chassis_points: Vec<PointHandle> = corners
        .iter()
        .map(|&c| world.add_point(Point::new(c * k).pinned()).unwrap())
        .collect();
    let axle = chassis_points[2];
    let mut chassis = Body::new(chassis_points);
    (chassis.category, chassis.mask) = (1, 1);
    let chassis = world.add_body(chassis).unwrap();
    let wheel = Blob::new(Vec2::ZERO, 0.5 * k, 12)
        .category(2)
        .mask(2)
        .build(&mut world)
        .unwrap();
    for &rim in &wheel.points {
        world
            .add_spring(Spring::new(axle, rim).stiffness(2000.0))
            .unwrap();
    }
    (world, chassis, wheel, axle)
}

/// A wheel tied to its axle by spokes turns about the axle: the pivot is
/// the one point every tie meets (`commands::joint_pivot`), from either
/// side, and a motor spins the wheel up to its speed with its centre
/// within 1 mm of the axle, on both paths, in metres and centimetres.
/// About the mean of two spokes' ends, half a radius off the centre, the
/// wheel's centre swung 6 mm off as it spun up.
#[test]
fn a_wheel_on_spokes_turns_about_its_axle() {
    use softbody::commands::joint_pivot;
    use softbody::layout::PIVOT_NONE as N;
    for k in [1.0, 100.0] {
        let (mut world, chassis, wheel, axle) = wheel_on_spokes(k);
        let packed = Packed::from_world(&world).unwrap();
        let hub = [axle.0, N, N, N];
        assert_eq!(
            joint_pivot(&packed, wheel.bodies[0].0, Some(chassis.0)),
            hub
        );
        assert_eq!(
            joint_pivot(&packed, chassis.0, Some(wheel.bodies[0].0)),
            hub
        );
        world
            .add_joint(Joint::new(wheel.bodies[0], Some(chassis)).motor(3.0, 50.0 * k * k))
            .unwrap();
        for mut s in crate::common::both(&world) {
            let mut off = 0.0f32;
            let mut turned = 0.0f32;
            let spoke =
                |pos: &[[f32; 2]]| Vec2::from(pos[wheel.points[0].index()]) - centroid(pos, &wheel);
            let mut before = spoke(&s.state().unwrap().0);
            for step in 0..120 {
                s.step(1).unwrap();
                let pos = s.state().unwrap().0;
                off = off.max(centroid(&pos, &wheel).length() / k);
                let now = spoke(&pos);
                if step >= 60 {
                    turned += before.angle_to(now);
                }
                before = now;
            }
            eprintln!(
                "{}, 1/{k} m: centre off the axle by at most {off:.5} m; {turned:.3} rad/s in the second second",
                s.name()
            );
            assert!(off < 1e-3, "{}, 1/{k} m: {off}", s.name());
            assert!(
                (turned - 3.0).abs() < 0.05,
                "{}, 1/{k} m: {turned} rad/s",
                s.name()
            );
        }
    }
}
