//! Contact events (`shaders/events.wgsl`, `src/cpu/events.rs`): which
//! pairs of bodies began and ended touching, on both paths.

use crate::common::gpu;
use softbody::commands::Command;
use softbody::events::{ContactEvents, ContactKind};
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
        Solver::Gpu { ctx, solver } => {
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            let mut pending = solver
                .request_contact_events(&ctx.device, &mut encoder)
                .unwrap();
            ctx.queue.submit([encoder.finish()]);
            loop {
                if let Some(r) = pending.poll(&ctx.device) {
                    return r.unwrap();
                }
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
        }
    }
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
