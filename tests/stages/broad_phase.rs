//! The broad phase (`shaders/broad_phase.wgsl`, `src/cpu/broad_phase.rs`):
//! the collision grid. Contacts do not depend on the grid's cell, and a
//! world that blew up (coordinates past any cell index) still steps. The
//! GPU's grid is compared with the CPU's slot by slot
//! ([`assert_grids_match`]) here, over a table that takes two levels of
//! the prefix scan, and in
//! `body_collide::contacts_match_the_cpu_stage_by_stage_and_over_200_steps`
//! as the first step of the contact pass it feeds.

use crate::common::{farthest, gpu};
use softbody::commands::Command;
use softbody::cpu::broad_phase::Grid;
use softbody::gpu::{ContactKernels, GpuContext, GridBuild, Stage};
use softbody::prelude::*;

/// The grids the two paths last built are the same: the same slot starts,
/// the same entries in each slot (in any order: the GPU's atomics decide
/// it), the same large list, the same boxes.
pub fn assert_grids_match(ctx: &GpuContext, gpu: &GpuSolver, cpu: &CpuSolver) {
    let (data, aabbs) = gpu
        .read_contact_grid(&ctx.device, &ctx.queue)
        .unwrap()
        .unwrap();
    let sim = &cpu.packed().sim;
    let slots = sim.table_mask as usize + 2;
    let cpu_data = &cpu.grid().data;
    if let Some(s) = (0..slots).find(|&s| data[s] != cpu_data[s]) {
        panic!(
            "slot starts differ from slot {s} of {slots}: {} on the GPU, {} on the CPU",
            data[s], cpu_data[s]
        );
    }
    let entries = |d: &[u32], slot: usize| {
        let base = Grid::entry_base(sim);
        let mut e: Vec<(u32, u32)> = (d[slot]..d[slot + 1])
            .map(|k| (d[base + 2 * k as usize], d[base + 2 * k as usize + 1]))
            .collect();
        e.sort();
        e
    };
    for slot in 0..slots - 1 {
        assert_eq!(entries(&data, slot), entries(cpu_data, slot), "slot {slot}");
    }
    let large_at = Grid::large_base(sim);
    let mut large = data[large_at + 1..large_at + 1 + data[large_at] as usize].to_vec();
    large.sort();
    let mut cpu_large = cpu.grid().large(sim).to_vec();
    cpu_large.sort();
    assert_eq!(large, cpu_large);
    for &b in &cpu.packed().colliders[..sim.num_colliders as usize] {
        assert_eq!(
            aabbs[b as usize],
            cpu.aabbs()[b as usize],
            "box of body {b}"
        );
    }
}

/// A grid of more slots than two scan workgroups take (`SCAN_BLOCK`): its
/// slot starts come from two levels of the prefix scan (the blocks, then
/// their totals added back), and they match the CPU's plain prefix sum.
/// Built once the curtain has fallen into its basins, then again 30 steps
/// later (the counts the first build left must be back at zero).
#[test]
fn a_grid_over_two_scan_levels_matches_the_cpu() {
    let Some(ctx) = gpu() else { return };
    let world = softbody::scenes::default_scene(1200).unwrap();
    let mut cpu = CpuSolver::new(&world).unwrap();
    let slots = cpu.packed().grid_slots() as u32;
    assert!(
        slots + 1 > 2 * softbody::layout::SCAN_BLOCK,
        "{slots} slots fit two scan blocks"
    );
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    for steps in [60, 30] {
        for _ in 0..steps {
            cpu.step();
        }
        // Both awake, as the GPU's set_state leaves it.
        cpu.wake();
        gpu.set_state(&ctx.queue, cpu.positions(), cpu.velocities())
            .unwrap();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        gpu.record_stage(&mut encoder, Stage::BroadPhase);
        ctx.queue.submit([encoder.finish()]);
        cpu.stage_broad_phase();
        assert_grids_match(&ctx, &gpu, &cpu);
    }
}

/// Bodies of one size fit the automatic grid however they turn: a box
/// built square and turned by 45 degrees in a pile spans up to 4 x 4 cells
/// of 0.625 times its side, which a bound of 3 x 3 sent to the large list
/// (every point then tested it: in rows of 2,000 settled boxes and rings,
/// 199 of them). Boxes of 0.5 m built square, then turned from 0 to 90
/// degrees, and hubless rings of the same size, each at offsets across a
/// cell; the GPU's grid is the CPU's.
#[test]
fn bodies_of_one_size_turned_any_way_fit_the_grid() {
    let mut world = World::default();
    let mut turns = Vec::new();
    for k in 0..120 {
        let at = Vec2::new(
            1.3 * (k % 12) as f32 + 0.037 * k as f32,
            1.3 * (k / 12) as f32,
        );
        if k % 4 == 3 {
            Blob::new(at, 0.25, 10).build(&mut world).unwrap();
        } else {
            let b = BoxShape::new(at, Vec2::splat(0.5))
                .build(&mut world)
                .unwrap();
            let turn = Vec2::from_angle(std::f32::consts::FRAC_PI_2 * (k % 9) as f32 / 8.0);
            turns.extend(b.points.iter().map(|p| (*p, at, turn)));
        }
    }
    let mut pos: Vec<Vec2> = world.points().iter().map(|p| p.pos).collect();
    for (p, at, turn) in turns {
        pos[p.index()] = at + turn.rotate(pos[p.index()] - at);
    }
    world.set_state(&pos, &vec![Vec2::ZERO; pos.len()]).unwrap();
    world.params.gravity = Vec2::ZERO;
    let mut cpu = CpuSolver::new(&world).unwrap();
    cpu.stage_broad_phase();
    let sim = cpu.packed().sim;
    assert_eq!(sim.num_colliders, 120);
    assert!(
        cpu.grid().large(&sim).is_empty(),
        "cell {}: bodies on the large list: {:?}",
        sim.cell,
        cpu.grid().large(&sim)
    );
    let Some(ctx) = gpu() else { return };
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    gpu.record_stage(&mut encoder, Stage::BroadPhase);
    ctx.queue.submit([encoder.finish()]);
    assert_grids_match(&ctx, &gpu, &cpu);
}

/// Regression: a world that blew up (positions at +-infinity or NaN) made
/// the grid's cell span overflow an i32, and the broad phase and the disk
/// search looped for billions of cells. Coordinates are now clamped to
/// +-2^29 cells and disks with non-finite boxes are left out; stepping such
/// a world must return, on both paths, and the free points that were
/// finite (and touch nothing that is not) stay finite.
///
/// The world blows up the one way the engine cannot refuse (it warns): a
/// point held by eight springs, each within the stability bound alone
/// (`k h^2 / m = 3`, under 4) but eight times over it together. Two
/// opposite corners of an overlapping box, started apart, and a free point
/// are held so: they swing out on opposite sides, through coordinates of
/// 1e20 and more (a box whose cell span overflowed an i32), to infinity
/// within a few steps. (Until the input bounds, the test wrote a state at
/// `f32::MAX` instead; `set_state` now refuses that.)
#[test]
fn a_world_that_blew_up_still_steps() {
    let mut world = World::default();
    let a = BoxShape::new(Vec2::ZERO, Vec2::ONE)
        .build(&mut world)
        .unwrap();
    BoxShape::new(Vec2::new(0.5, 0.5), Vec2::ONE)
        .build(&mut world)
        .unwrap();
    let free = world.add_point(Point::new(Vec2::new(-5.0, 0.0))).unwrap();
    let far: Vec<PointHandle> = (0..4)
        .map(|k| {
            world
                .add_point(Point::new(Vec2::new(3.0 + 0.01 * k as f32, 0.0)))
                .unwrap()
        })
        .collect();
    let h2 = world.params.h() * world.params.h();
    let pos: Vec<Vec2> = world.points().iter().map(|p| p.pos).collect();
    let mut vel = vec![Vec2::ZERO; pos.len()];
    vel[a.points[0].index()] = Vec2::ONE;
    vel[a.points[2].index()] = -Vec2::ONE;
    world.set_state(&pos, &vel).unwrap();
    for held in [a.points[0], a.points[2], free] {
        let at = world.point(held).pos;
        let k = 3.0 * world.point(held).mass / h2;
        for i in 0..8 {
            let dir = Vec2::from_angle(i as f32 * std::f32::consts::TAU / 8.0);
            let pin = world
                .add_point(Point::new(at + 0.5 * dir).pinned())
                .unwrap();
            world
                .add_spring(Spring::new(held, pin).stiffness(k).damping(0.0))
                .unwrap();
        }
    }
    let finite = |pos: &[[f32; 2]]| {
        far.iter()
            .all(|p| pos[p.index()].iter().all(|x| x.is_finite()))
    };
    let mut cpu = CpuSolver::new(&world).unwrap();
    let mut blew_up = None;
    for step in 0..20 {
        cpu.step();
        if cpu.positions().iter().flatten().any(|x| !x.is_finite()) {
            blew_up = Some(step);
            break;
        }
    }
    let blew_up = blew_up.expect("the world blew up");
    for _ in 0..3 {
        cpu.step();
    }
    let pos = cpu.positions();
    assert!(!pos[free.index()][0].is_finite() || !pos[free.index()][1].is_finite());
    assert!(
        finite(pos),
        "{:?}",
        far.iter().map(|p| pos[p.index()]).collect::<Vec<_>>()
    );
    if let Some(ctx) = gpu() {
        let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
        gpu.step(&ctx.device, &ctx.queue, blew_up as u32 + 4)
            .unwrap();
        let state = gpu.read_state(&ctx.device, &ctx.queue).unwrap();
        assert!(state.pos.iter().flatten().any(|x| !x.is_finite()));
        assert!(finite(&state.pos));
    }
}

/// The grid only finds candidates: a point's deepest contact does not
/// depend on which cell, or the large list, a body was found through, so a
/// step is bitwise the same for any cell size (docs/physics.md, "The broad
/// phase"). The default scene's pile fits the automatic grid: no body on
/// the large list, which every point would test.
#[test]
fn contacts_do_not_depend_on_the_grid_cell() {
    let world = softbody::scenes::default_scene(300).unwrap();
    let run = |cell: Option<f32>, contacts: bool| {
        let mut world = world.clone();
        world.params.collision_cell = cell;
        world.params.body_collisions = contacts;
        let mut cpu = CpuSolver::new(&world).unwrap().parallel(true);
        for _ in 0..240 {
            cpu.step();
        }
        cpu
    };
    let auto = run(None, true);
    let sim = auto.packed().sim;
    assert!(
        auto.grid().large(&sim).is_empty(),
        "bodies on the large list: {:?}",
        auto.grid().large(&sim)
    );
    // The bodies do touch: without contacts the run differs.
    assert_ne!(run(None, false).positions(), auto.positions());
    // Twice the cell (the rule before 3 x 3 cells), and a quarter of it,
    // which puts bodies on the large list.
    for cell in [2.0 * sim.cell, 0.25 * sim.cell] {
        let other = run(Some(cell), true);
        let large = other.grid().large(&other.packed().sim).len();
        eprintln!("cell {cell}: {large} bodies on the large list");
        assert_eq!(other.positions(), auto.positions(), "cell {cell}");
        assert_eq!(other.velocities(), auto.velocities(), "cell {cell}");
        if cell < sim.cell {
            assert!(large > 0);
        }
    }
    // The GPU's grid too: from the pile, with the automatic cell and with
    // a quarter of it (most bodies on the large list), the same bits.
    let Some(ctx) = gpu() else { return };
    let mut piled = world.clone();
    piled
        .set_state(
            bytemuck::cast_slice(auto.positions()),
            bytemuck::cast_slice(auto.velocities()),
        )
        .unwrap();
    let run_gpu = |cell: Option<f32>| {
        let mut world = piled.clone();
        world.params.collision_cell = cell;
        let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
        gpu.step(&ctx.device, &ctx.queue, 30).unwrap();
        gpu.read_state(&ctx.device, &ctx.queue).unwrap()
    };
    let (a, b) = (run_gpu(None), run_gpu(Some(0.25 * sim.cell)));
    assert_eq!(a.pos, b.pos);
    assert_eq!(a.vel, b.vel);
    assert_ne!(a.pos, auto.positions(), "the GPU run moved the pile");
}

/// Boxes with diagonal springs stacked three high, hubless rings beside
/// them, and a box lying on a ring: a small pile of shapes other than the
/// samples', which falls asleep within 3 s.
fn sleepy_pile() -> (World, Shape) {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let mut top = None;
    for k in 0..3 {
        let y = 0.21 + 0.42 * k as f32;
        top = Some(
            BoxShape::new(Vec2::new(0.0, y), Vec2::splat(0.4))
                .diagonals(true)
                .build(&mut world)
                .unwrap(),
        );
    }
    for k in 0..3 {
        Blob::new(Vec2::new(0.8 + 0.55 * k as f32, 0.26), 0.25, 10)
            .center_point(false)
            .build(&mut world)
            .unwrap();
    }
    BoxShape::new(Vec2::new(1.35, 0.78), Vec2::new(0.6, 0.2))
        .build(&mut world)
        .unwrap();
    (world, top.unwrap())
}

/// What a build makes from the current positions equals the grid there
/// is: on the CPU, the grid and boxes after one more `stage_broad_phase`.
fn cpu_build_changes_nothing(cpu: &mut CpuSolver) {
    let (data, aabbs) = (cpu.grid().data.clone(), cpu.aabbs().to_vec());
    cpu.stage_broad_phase();
    assert!(
        data == cpu.grid().data,
        "the CPU's kept grid is not a build's"
    );
    assert!(
        aabbs == cpu.aabbs(),
        "the CPU's kept boxes are not a build's"
    );
}

/// The same on the GPU: the grid read back, a broad phase recorded alone
/// (which builds), read again; entries compared per slot in any order.
fn gpu_build_changes_nothing(ctx: &GpuContext, gpu: &mut GpuSolver) {
    let read = |gpu: &GpuSolver| {
        gpu.read_contact_grid(&ctx.device, &ctx.queue)
            .unwrap()
            .unwrap()
    };
    let (kept, kept_boxes) = read(gpu);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    gpu.record_stage(&mut encoder, Stage::BroadPhase);
    ctx.queue.submit([encoder.finish()]);
    let (built, built_boxes) = read(gpu);
    assert_eq!(
        gpu.read_grid_built(&ctx.device, &ctx.queue).unwrap(),
        Some(true)
    );
    let sim = &gpu.packed().sim;
    let slots = sim.table_mask as usize + 1;
    assert_eq!(kept[..=slots], built[..=slots], "slot starts");
    let base = Grid::entry_base(sim);
    let entries = |d: &[u32], slot: usize| {
        let mut e: Vec<(u32, u32)> = (d[slot]..d[slot + 1])
            .map(|k| (d[base + 2 * k as usize], d[base + 2 * k as usize + 1]))
            .collect();
        e.sort();
        e
    };
    for slot in 0..slots {
        assert_eq!(entries(&kept, slot), entries(&built, slot), "slot {slot}");
    }
    assert!(
        kept_boxes == built_boxes,
        "the GPU's kept boxes are not a build's"
    );
}

/// A step's substeps after its first keep the grid where no point may
/// move (WGSL `clear_if_moved`, `GridBuild::WhenMoved`) or no body entered
/// other cells (`open`): a sleeping pile of boxes with diagonal springs
/// and hubless rings keeps it on both paths, and what it keeps is what a
/// build would make. An impulse wakes the pile: its substeps build where a
/// body entered other cells, and what they keep is still a build's. The
/// GPU steps the pile (asleep, pushed, asleep again) bitwise as when it
/// builds in every substep.
#[test]
fn a_sleeping_pile_keeps_its_grid_and_steps_as_if_it_built_it() {
    let (world, top) = sleepy_pile();
    let n = world.points().len();
    let push = Command::BodyImpulse {
        body: top.bodies[0],
        impulse: Vec2::new(40.0, 0.0),
        at: Vec2::new(0.0, 1.1),
    };
    // The CPU path.
    let mut cpu = CpuSolver::new(&world).unwrap();
    for _ in 0..180 {
        cpu.step();
    }
    assert_eq!(
        cpu.sleeping_points(),
        n,
        "the CPU's pile is not asleep at 3 s"
    );
    assert_eq!(
        cpu.grid_built(),
        Some(false),
        "the CPU built a sleeping grid"
    );
    cpu_build_changes_nothing(&mut cpu);
    cpu.queue(push).unwrap();
    cpu.step();
    // While the pile moves, the broad phase builds where some body entered
    // other cells, and keeps the grid where none did: what it keeps is
    // what a build would make.
    let (mut built, mut kept) = (0, 0);
    for _ in 0..60 {
        let mut build = cpu.clone();
        build.stage_broad_phase();
        cpu.stage_broad_phase_if_changed();
        if cpu.grid_built() == Some(true) {
            built += 1;
        } else {
            kept += 1;
        }
        assert!(
            cpu.grid() == build.grid(),
            "the CPU's kept grid is not a build's"
        );
        assert!(cpu.aabbs() == build.aabbs());
        cpu.substep();
    }
    assert!(
        built > 0 && kept > 0,
        "the moving pile's substeps built {built} grids and kept {kept}"
    );
    // The GPU path, each way.
    let Some(ctx) = gpu() else { return };
    let run = |grid: GridBuild| {
        let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
        let kernels = ContactKernels {
            grid,
            ..ContactKernels::for_device(&ctx.device)
        };
        gpu.set_contact_kernels(&ctx.device, kernels).unwrap();
        gpu.step(&ctx.device, &ctx.queue, 180).unwrap();
        let asleep = gpu.read_state(&ctx.device, &ctx.queue).unwrap();
        let sleeping = gpu.read_sleeping_points(&ctx.device, &ctx.queue).unwrap();
        assert_eq!(sleeping, n, "{grid:?}: the GPU's pile is not asleep at 3 s");
        let built = gpu.read_grid_built(&ctx.device, &ctx.queue).unwrap();
        assert_eq!(built, Some(grid == GridBuild::EverySubstep), "{grid:?}");
        gpu_build_changes_nothing(&ctx, &mut gpu);
        gpu.queue(&ctx.queue, push).unwrap();
        // A step's last substep, while the pushed box slides: built where
        // some body entered other cells, else kept (every substep builds
        // with `EverySubstep`).
        let mut built = 0;
        for _ in 0..30 {
            gpu.step(&ctx.device, &ctx.queue, 1).unwrap();
            let last = gpu.read_grid_built(&ctx.device, &ctx.queue).unwrap();
            built += usize::from(last == Some(true));
        }
        if grid == GridBuild::EverySubstep {
            assert_eq!(built, 30);
        } else {
            assert!((1..30).contains(&built), "{grid:?}: built {built} of 30");
        }
        gpu.step(&ctx.device, &ctx.queue, 210).unwrap();
        let again = gpu.read_state(&ctx.device, &ctx.queue).unwrap();
        (asleep, again)
    };
    let (every, every_again) = run(GridBuild::EverySubstep);
    let (kept, kept_again) = run(GridBuild::WhenMoved);
    assert!(every.pos == kept.pos && every.vel == kept.vel, "asleep");
    let moved = farthest(&every.pos, &every_again.pos);
    assert!(moved > 0.05, "the push moved the pile {moved} m");
    assert!(
        every_again.pos == kept_again.pos && every_again.vel == kept_again.vel,
        "pushed and settled again: parts by {} m",
        farthest(&every_again.pos, &kept_again.pos)
    );
}
