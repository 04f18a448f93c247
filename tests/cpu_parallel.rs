//! The CPU reference path gives bitwise the same result on one thread and
//! on all threads: every stage is a map over independent items.

use softbody::prelude::*;
use softbody::scenes::{bench_scene, contact_scene};

/// A state's bits, positions or velocities.
fn bits(v: &[[f32; 2]]) -> Vec<u32> {
    v.iter()
        .flat_map(|p| [p[0].to_bits(), p[1].to_bits()])
        .collect()
}

/// Steps `world` `steps` steps on one thread and on all, asserts that both
/// end bitwise alike, and returns the one-thread solver.
fn one_and_all_alike(world: &World, steps: usize) -> CpuSolver {
    let mut one = CpuSolver::new(world).unwrap().parallel(false);
    let mut all = CpuSolver::new(world).unwrap().parallel(true);
    for _ in 0..steps {
        one.step();
        all.step();
    }
    assert_eq!(bits(one.positions()), bits(all.positions()));
    assert_eq!(bits(one.velocities()), bits(all.velocities()));
    assert!(one.frames() == all.frames());
    one
}

#[test]
fn all_threads_match_one_thread_bitwise() {
    let mut world = bench_scene(3000).unwrap();
    // Rods too, so every stage runs.
    let p: Vec<PointHandle> = (0..4)
        .map(|i| {
            world
                .add_point(Point::new(Vec2::new(i as f32, 40.0)))
                .unwrap()
        })
        .collect();
    for w in p.windows(2) {
        world
            .add_spring(Spring::new(w[0], w[1]).kind(SpringKind::Rod))
            .unwrap();
    }
    let one = one_and_all_alike(&world, 30);
    // Not a trivial pass: the scene moved.
    let start = CpuSolver::new(&world).unwrap();
    assert_ne!(bits(one.positions()), bits(start.positions()));
}

/// The contact stages too (narrow phase, impacts, resolve, relax, with
/// more points than the parallel split's minimum), on a pile that has
/// started to land.
#[test]
fn all_threads_match_one_thread_bitwise_with_contacts() {
    let world = contact_scene(300).unwrap();
    assert!(world.points().len() > softbody::cpu::MIN_PARALLEL_ITEMS);
    let one = one_and_all_alike(&world, 90);
    // Not a trivial pass: the contacts moved points, which the same steps
    // without body collisions leave elsewhere.
    let mut apart = world.clone();
    apart.params.body_collisions = false;
    let mut free = CpuSolver::new(&apart).unwrap();
    for _ in 0..90 {
        free.step();
    }
    assert_ne!(bits(one.positions()), bits(free.positions()));
}

/// A world that has gone to sleep leaves each stage too little work to
/// share out: its steps run on one thread, and on all again once it is
/// woken. The results are those of one thread throughout.
#[test]
fn a_sleeping_world_steps_on_one_thread_and_a_woken_one_on_all() {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    // 300 boxes of 4 points resting side by side on the floor.
    for k in 0..300 {
        BoxShape::new(Vec2::new(k as f32 * 0.6, 0.25), Vec2::splat(0.5))
            .build(&mut world)
            .unwrap();
    }
    let n = world.points().len();
    assert!(n >= softbody::cpu::MIN_PARALLEL_ITEMS);
    let mut one = CpuSolver::new(&world).unwrap().parallel(false);
    let mut all = CpuSolver::new(&world).unwrap().parallel(true);
    assert!(all.on_all_threads() && !one.on_all_threads());
    let step = |one: &mut CpuSolver, all: &mut CpuSolver| {
        one.step();
        all.step();
        assert_eq!(bits(one.positions()), bits(all.positions()));
        assert_eq!(bits(one.velocities()), bits(all.velocities()));
    };
    step(&mut one, &mut all);
    assert!(all.on_all_threads(), "every point awake");
    for _ in 0..240 {
        step(&mut one, &mut all);
    }
    assert_eq!(all.sleeping_points(), n, "all asleep after 4 s");
    step(&mut one, &mut all);
    assert!(!all.on_all_threads(), "asleep: one thread");
    one.wake();
    all.wake();
    step(&mut one, &mut all);
    assert!(all.on_all_threads(), "woken: all threads");
}
