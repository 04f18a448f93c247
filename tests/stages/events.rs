//! Contact events (`shaders/events.wgsl`, `src/cpu/events.rs`): which
//! pairs of bodies began and ended touching, on both paths.

use crate::common::gpu;
use softbody::commands::Command;
use softbody::events::{Collider, ContactEvents, ContactKind};
use softbody::gpu::GpuContext;
use softbody::layout::EVENT_CAPACITY;
use softbody::prelude::*;
use softbody::solver::Solver;

/// Turns events on in either solver.
fn events_on(s: &mut Solver) {
    match s {
        Solver::Cpu(c) => c.set_contact_events(true),
        Solver::Gpu { ctx, solver } => solver.set_contact_events(&ctx.device, true).unwrap(),
    }
}

/// Collects the events: at once on the CPU, by a readback that does not
/// wait on the GPU (polled here until it answers).
fn collect(s: &mut Solver) -> ContactEvents {
    match s {
        Solver::Cpu(c) => c.take_contact_events(),
        Solver::Gpu { ctx, solver } => collect_gpu(ctx, solver),
    }
}

/// The GPU solver's events, by a readback that does not wait on the GPU
/// (polled here until it answers).
pub(crate) fn collect_gpu(ctx: &GpuContext, solver: &mut GpuSolver) -> ContactEvents {
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    let mut pending = solver
        .request_contact_events(&ctx.device, &mut encoder)
        .unwrap();
    ctx.queue.submit([encoder.finish()]);
    crate::common::polled(|| pending.poll(&ctx.device))
}

/// Both solvers with events on.
fn both_with_events(world: &World) -> Vec<Solver> {
    let mut v = vec![Solver::cpu(world).unwrap()];
    if let Some(ctx) = gpu() {
        v.push(Solver::gpu_on(ctx, world).unwrap());
    }
    for s in &mut v {
        events_on(s);
    }
    v
}

/// (kind, a, b) of each event.
fn pairs(e: &ContactEvents) -> Vec<(ContactKind, u32, u32)> {
    e.events
        .iter()
        .map(|c| (c.kind, c.bodies.0.0, c.bodies.1.0))
        .collect()
}

/// A stack of four boxes set down a hair apart: in the first half second
/// each pair of neighbours begins touching once, the same on both paths, with the
/// event's point on the boxes' common face; asleep, they stay touching
/// (no end events); a box teleported away ends its contacts.
#[test]
fn a_stack_begins_touching_and_a_box_sent_away_ends_it() {
    let (world, boxes) = softbody::samples::stack(4, 1.0).unwrap();
    let mut answers = Vec::new();
    for mut s in both_with_events(&world) {
        s.step(30).unwrap();
        let first = collect(&mut s);
        eprintln!("{}: {:?}", s.name(), pairs(&first));
        assert_eq!(
            pairs(&first),
            vec![
                (ContactKind::Begin, 0, 1),
                (ContactKind::Begin, 1, 2),
                (ContactKind::Begin, 2, 3)
            ],
            "{}",
            s.name()
        );
        for e in &first.events {
            let y = 1.0 * e.bodies.1.0 as f32;
            assert!((e.point.y - y).abs() < 0.1, "{}: {e:?}", s.name());
        }
        assert_eq!(first.lost, 0);
        s.step(180).unwrap();
        assert_eq!(s.sleeping_points().unwrap(), 16, "{}: asleep", s.name());
        let resting = collect(&mut s);
        assert!(
            resting.events.iter().all(|e| e.kind == ContactKind::Begin),
            "{}: asleep, nothing ended: {:?}",
            s.name(),
            pairs(&resting)
        );
        s.queue(Command::BodyTeleport {
            body: boxes[3].bodies[0],
            position: Vec2::new(10.0, 5.0),
            angle: None,
        })
        .unwrap();
        s.step(2).unwrap();
        let sent = collect(&mut s);
        eprintln!("{}: after the teleport {:?}", s.name(), pairs(&sent));
        assert!(
            pairs(&sent).contains(&(ContactKind::End, 2, 3)),
            "{}: {:?}",
            s.name(),
            pairs(&sent)
        );
        answers.push(pairs(&first));
    }
    if answers.len() == 2 {
        assert_eq!(answers[0], answers[1]);
    }
}

/// 4,200 pairs of boxes set down overlapping by 5 mm (no gravity): 4,200 pairs
/// begin touching in the first steps, more than the log holds; it keeps
/// its room's worth and counts the rest lost, on both paths; once
/// collected it starts empty.
#[test]
fn a_full_event_log_counts_what_it_lost() {
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    for k in 0..4200 {
        let at = Vec2::new(3.0 * (k % 70) as f32, 3.0 * (k / 70) as f32);
        for dx in [0.0, 0.995] {
            BoxShape::new(at + Vec2::new(dx, 0.0), Vec2::splat(1.0))
                .build(&mut world)
                .unwrap();
        }
    }
    for mut s in both_with_events(&world) {
        s.step(3).unwrap();
        let full = collect(&mut s);
        eprintln!(
            "{}: {} events kept, {} lost",
            s.name(),
            full.events.len(),
            full.lost
        );
        assert_eq!(full.events.len(), EVENT_CAPACITY as usize, "{}", s.name());
        assert_eq!(
            full.events.len() as u64 + full.lost,
            4200,
            "{}: every pair began once",
            s.name()
        );
        let again = collect(&mut s);
        assert!(again.events.is_empty() && again.lost == 0, "{}", s.name());
    }
}

/// (kind, body, collider) of each body-collider event.
fn landings(e: &ContactEvents) -> Vec<(ContactKind, u32, Collider)> {
    e.colliders
        .iter()
        .map(|c| (c.kind, c.body.0, c.collider))
        .collect()
}

/// The body-collider events collected from `s` after body 0 landed on
/// `collider`: it may bounce, so begins and ends alternate, ending
/// touching; the first begin (the fastest) is at the landing speed `v`
/// (4%: taken at the start of the step of the contact). Returns it.
fn landed(s: &mut Solver, collider: Collider, v: f32) -> softbody::events::ColliderContact {
    let first = collect(s);
    eprintln!("{}: {:?}", s.name(), first.colliders);
    let count = |kind| {
        landings(&first)
            .iter()
            .filter(|l| **l == (kind, 0, collider))
            .count()
    };
    let (begins, ends) = (count(ContactKind::Begin), count(ContactKind::End));
    assert!(
        begins == ends + 1 && first.colliders.len() == begins + ends,
        "{}: {:?}",
        s.name(),
        landings(&first)
    );
    let e = *first
        .colliders
        .iter()
        .max_by(|a, b| a.approach.total_cmp(&b.approach))
        .unwrap();
    assert!(
        (e.approach / v - 1.0).abs() < 0.04,
        "{}: landed at {} m/s, closed form {v}",
        s.name(),
        e.approach
    );
    e
}

/// The CPU's and the GPU's landing (when both ran) at the same speed and
/// point, to 1e-3.
fn paths_agree(answers: &[softbody::events::ColliderContact]) {
    if let [c, g] = answers {
        assert!(
            (c.approach - g.approach).abs() < 1e-3 * c.approach,
            "{c:?} {g:?}"
        );
        assert!((c.point - g.point).length() < 1e-3, "{c:?} {g:?}");
    }
}

/// A box (diagonal springs) dropped 2 m onto a floor and an 8-point ring
/// dropped onto a planet that pulls it (no world gravity) each raise one
/// begin event with their collider, at the speed they land with: the
/// closed form `sqrt(2 g h)` (the planet's `sqrt(2 GM (1/r1 - 1/r0))`)
/// within 4% (the approach is taken at the start of the step of the
/// contact: up to `g dt` early); a bounce ends it and lands again, slower.
/// Resting, they raise nothing more for 4 s; sent up and away, each ends;
/// the same on both paths.
#[test]
fn landings_on_colliders_begin_with_their_speed_and_end_when_they_leave() {
    let r = Params::default().point_radius;
    let mut floor = World::default();
    floor.add_plane(HalfPlane::floor(0.0)).unwrap();
    let h = 2.0f32;
    let crate_ = BoxShape::new(Vec2::new(0.0, 0.5 + r + h), Vec2::splat(1.0))
        .build(&mut floor)
        .unwrap();
    let v_box = (2.0 * 9.81 * h).sqrt();
    let mut planet = World::default();
    planet.params.gravity = Vec2::ZERO;
    let (centre, radius, gm) = (Vec2::new(40.0, 0.0), 5.0, 400.0);
    planet
        .add_planet(Planet::new(centre, radius).gravity(gm))
        .unwrap();
    let r0 = radius + 2.0;
    let ring = Blob::new(centre + Vec2::new(0.0, r0), 0.4, 8)
        .build(&mut planet)
        .unwrap();
    // The ring's lowest point lands at radius + point_radius: its centre
    // 0.4 further out.
    let r1 = radius + 0.4 + r;
    let v_ring = (2.0 * gm * (1.0 / r1 - 1.0 / r0)).sqrt();
    for (world, shape, v, collider) in [
        (&floor, &crate_, v_box, Collider::Plane(PlaneHandle(0))),
        (&planet, &ring, v_ring, Collider::Planet(PlanetHandle(0))),
    ] {
        let mut answers = Vec::new();
        for mut s in both_with_events(world) {
            s.step(90).unwrap();
            let e = landed(&mut s, collider, v);
            s.step(240).unwrap();
            let resting = collect(&mut s);
            assert!(
                resting.colliders.is_empty() && resting.events.is_empty(),
                "{}: resting, nothing began or ended: {resting:?}",
                s.name()
            );
            s.queue(Command::BodyTeleport {
                body: shape.bodies[0],
                position: centroid_of(&s, shape) + Vec2::new(0.0, 1.0),
                angle: None,
            })
            .unwrap();
            s.step(1).unwrap();
            let left = collect(&mut s);
            eprintln!("{}: after leaving {:?}", s.name(), left.colliders);
            assert_eq!(
                landings(&left),
                vec![(ContactKind::End, 0, collider)],
                "{}",
                s.name()
            );
            answers.push(e);
        }
        paths_agree(&answers);
    }
}

/// The centroid of `shape` in the solver's state.
fn centroid_of(s: &Solver, shape: &Shape) -> Vec2 {
    crate::common::centroid(&s.state().unwrap().0, shape)
}

/// Two boxes (one with diagonal springs, one a hubless ring) flying at
/// each other at 3 m/s each in free space begin touching at 6 m/s (2%),
/// on both paths.
#[test]
fn bodies_that_collide_begin_with_their_closing_speed() {
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    BoxShape::new(Vec2::new(-1.0, 0.0), Vec2::splat(0.6))
        .style(ShapeStyle::new().vel(Vec2::new(3.0, 0.0)))
        .build(&mut world)
        .unwrap();
    Blob::new(Vec2::new(1.0, 0.1), 0.35, 10)
        .style(ShapeStyle::new().vel(Vec2::new(-3.0, 0.0)))
        .build(&mut world)
        .unwrap();
    for mut s in both_with_events(&world) {
        s.step(30).unwrap();
        let e = collect(&mut s);
        eprintln!("{}: {:?}", s.name(), e.events);
        assert_eq!(pairs(&e)[0], (ContactKind::Begin, 0, 1), "{}", s.name());
        let speed = e.events[0].approach;
        assert!(
            (speed / 6.0 - 1.0).abs() < 0.02,
            "{}: met at {speed}",
            s.name()
        );
    }
}

/// A box (diagonal springs) dropped 2 m onto a ground of twenty 0.5 m
/// terrain segments, in a world with a half-plane and another polyline
/// before it: one begin naming the ground's polyline (`Terrain(1)`, after
/// the planets and half-planes in the collider table) at the landing
/// speed `sqrt(2 g h)` (4%). Without friction and sent sliding at 3 m/s
/// across six of the ground's segments, it raises nothing (the whole
/// polyline is one collider); teleported up and away, it ends. The same
/// on both paths.
#[test]
fn landings_on_terrain_name_the_polyline_and_slide_across_its_segments() {
    let r = Params::default().point_radius;
    let mut world = World::default();
    world.params.friction = 0.0;
    world.params.static_friction = 0.0;
    world.params.dynamic_friction = 0.0;
    world.add_plane(HalfPlane::new(Vec2::X, -40.0)).unwrap();
    // A rock far to the left, then the ground, listed right to left
    // (solid below).
    world
        .add_terrain(
            Terrain::new(vec![
                Vec2::new(-30.0, 0.0),
                Vec2::new(-29.0, 0.0),
                Vec2::new(-29.5, 1.0),
            ])
            .closed(),
        )
        .unwrap();
    let ground: Vec<Vec2> = (0..=20)
        .map(|k| Vec2::new(5.0 - 0.5 * k as f32, 0.0))
        .collect();
    let ground = world.add_terrain(Terrain::new(ground)).unwrap();
    let h = 2.0f32;
    let crate_ = BoxShape::new(Vec2::new(-2.5, 0.5 + r + h), Vec2::splat(1.0))
        .build(&mut world)
        .unwrap();
    let v = (2.0 * 9.81 * h).sqrt();
    let on_ground = Collider::Terrain(ground);
    let mut answers = Vec::new();
    for mut s in both_with_events(&world) {
        s.step(90).unwrap();
        let e = landed(&mut s, on_ground, v);
        assert!(e.point.y.abs() < 2.0 * r, "{}: {e:?}", s.name());
        s.step(120).unwrap();
        let before = centroid_of(&s, &crate_);
        s.queue(Command::BodyVelocity {
            body: crate_.bodies[0],
            linear: Vec2::new(3.0, 0.0),
            angular: 0.0,
        })
        .unwrap();
        s.step(60).unwrap();
        let slid = centroid_of(&s, &crate_).x - before.x;
        let sliding = collect(&mut s);
        assert!(
            slid > 2.9 && sliding.colliders.is_empty(),
            "{}: slid {slid} m, {:?}",
            s.name(),
            sliding.colliders
        );
        s.queue(Command::BodyTeleport {
            body: crate_.bodies[0],
            position: centroid_of(&s, &crate_) + Vec2::new(0.0, 1.0),
            angle: None,
        })
        .unwrap();
        s.step(1).unwrap();
        let left = collect(&mut s);
        assert_eq!(
            landings(&left),
            vec![(ContactKind::End, 0, on_ground)],
            "{}",
            s.name()
        );
        answers.push(e);
    }
    paths_agree(&answers);
}

/// A sync that appends a box far from a resting stack raises no event for
/// what keeps touching (the events' pair records follow an append rather
/// than start again), on both paths: only the new box's landing on the
/// floor. Before, the stack's bottom box began touching the floor again
/// at every spawn.
#[test]
fn a_spawn_far_away_raises_no_event_for_what_keeps_touching() {
    let (world, _) = softbody::samples::stack(4, 1.0).unwrap();
    for mut s in both_with_events(&world) {
        s.step(120).unwrap();
        let first = collect(&mut s);
        assert_eq!(pairs(&first).len(), 3, "{}: {:?}", s.name(), pairs(&first));
        let mut w = world.clone();
        BoxShape::new(Vec2::new(8.0, 0.6), Vec2::splat(0.5))
            .build(&mut w)
            .unwrap();
        s.sync(&w).unwrap();
        s.step(30).unwrap();
        let after = collect(&mut s);
        eprintln!(
            "{}: after the spawn {:?}, with colliders {:?}",
            s.name(),
            pairs(&after),
            landings(&after)
        );
        assert_eq!(
            pairs(&after),
            vec![],
            "{}: the stack's pairs began again",
            s.name()
        );
        assert!(
            landings(&after).iter().all(|(_, body, _)| *body == 4),
            "{}: {:?}",
            s.name(),
            landings(&after)
        );
    }
}

/// A removal keeps the survivors' pairs under their new indices, on both
/// paths: removing a box far from a resting stack, then the stack's top
/// box, raises no event (the removed box's pairs end without one), and a
/// surviving ring, renumbered twice, sent up off the floor ends its
/// floor contact under its new index. Before, every pair began again
/// after a removal.
#[test]
fn a_removal_raises_no_event_for_what_keeps_touching() {
    let (mut world, _) = softbody::samples::stack(4, 1.0).unwrap();
    BoxShape::new(Vec2::new(8.0, 0.3), Vec2::new(0.8, 0.6))
        .diagonals(true)
        .build(&mut world)
        .unwrap();
    Blob::new(Vec2::new(-8.0, 0.41), 0.4, 10)
        .center_point(false)
        .build(&mut world)
        .unwrap();
    let floor = Collider::Plane(PlaneHandle(0));
    for mut s in both_with_events(&world) {
        let mut w = world.clone();
        s.step(120).unwrap();
        let first = collect(&mut s);
        assert_eq!(pairs(&first).len(), 3, "{}: {:?}", s.name(), pairs(&first));
        // The far box (body 4): the ring becomes body 4.
        let removal = w.remove_body(BodyHandle(4)).unwrap();
        s.apply_removal(&w, &removal).unwrap();
        s.step(30).unwrap();
        let after = collect(&mut s);
        eprintln!(
            "{}: after the far box's removal {:?}, with colliders {:?}",
            s.name(),
            pairs(&after),
            landings(&after)
        );
        assert!(
            after.events.is_empty() && after.colliders.is_empty(),
            "{}: pairs began again: {:?} {:?}",
            s.name(),
            pairs(&after),
            landings(&after)
        );
        // The stack's top box (body 3): the ring becomes body 3.
        let removal = w.remove_body(BodyHandle(3)).unwrap();
        s.apply_removal(&w, &removal).unwrap();
        s.step(30).unwrap();
        let after = collect(&mut s);
        assert!(
            after.events.is_empty() && after.colliders.is_empty(),
            "{}: after the top box's removal {:?} {:?}",
            s.name(),
            pairs(&after),
            landings(&after)
        );
        s.queue(Command::BodyVelocity {
            body: BodyHandle(3),
            linear: Vec2::new(0.0, 6.0),
            angular: 0.0,
        })
        .unwrap();
        s.step(20).unwrap();
        let up = collect(&mut s);
        assert_eq!(
            landings(&up),
            vec![(ContactKind::End, 3, floor)],
            "{}: the ring's lift-off",
            s.name()
        );
        assert!(up.events.is_empty(), "{}: {:?}", s.name(), pairs(&up));
    }
}

/// A box touching the floor with one bottom corner at rest and the other
/// coming down at 1 m/s begins touching at 1 m/s, the fastest of its
/// points' approaches, on both paths. The resting corner's approach is
/// `max(0, -0)`: were it -0, its bits would outrank every positive speed
/// in the kernel's integer max, so the kernel takes its absolute value's.
#[test]
fn a_landing_with_a_corner_at_rest_begins_at_the_fastest_corners_speed() {
    let r = Params::default().point_radius;
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    BoxShape::new(Vec2::new(0.0, 0.5 + 0.5 * r), Vec2::splat(1.0))
        .build(&mut world)
        .unwrap();
    for mut s in both_with_events(&world) {
        let (pos, _) = s.state().unwrap();
        let vel: Vec<[f32; 2]> = pos
            .iter()
            .map(|p| match (p[1] < 0.5, p[0] < 0.0) {
                (true, true) => [0.0, 0.0],
                (true, false) => [0.0, -1.0],
                (false, _) => [0.0, -0.5],
            })
            .collect();
        s.set_state(&pos, &vel).unwrap();
        s.step(1).unwrap();
        let e = collect(&mut s);
        let begins: Vec<f32> = e
            .colliders
            .iter()
            .filter(|c| c.kind == ContactKind::Begin)
            .map(|c| c.approach)
            .collect();
        assert_eq!(begins, [1.0], "{}: {:?}", s.name(), e.colliders);
    }
}
