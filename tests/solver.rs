//! A built solver refuses what does not fit it, with a typed error: a
//! state that is not finite or of the wrong length (on the solvers, in
//! checkpoints and in diagnostics), a checkpoint of another scene, another
//! device, an inconsistent packed world, a world past the device's limits;
//! and its step count does not wrap.

mod common;

use common::bad_input::*;
use common::gpu;
use softbody::Item;
use softbody::pack::Packed;
use softbody::prelude::*;

/// A NaN or infinite state is refused by the solvers as by the world (it
/// used to be taken, and spread to every linked point in one step), and so
/// is a checkpoint holding one: it is neither written nor restored.
#[test]
fn non_finite_state_is_refused_by_the_solvers_and_checkpoints() {
    use softbody::checkpoint::{Checkpoint, CheckpointError};
    let mut w = world3();
    w.add_spring(Spring::new(PointHandle(0), PointHandle(1)))
        .unwrap();
    let mut cpu = CpuSolver::new(&w).unwrap();
    let good = (cpu.positions().to_vec(), cpu.velocities().to_vec());
    for bad in NON_FINITE {
        let mut pos = good.0.clone();
        pos[2] = [0.0, bad];
        expect_err(
            cpu.set_state(&pos, &good.1),
            WorldError::NonFinite {
                item: Item::Point(2),
                field: "pos",
            },
            "point 2",
        );
        let mut vel = good.1.clone();
        vel[1] = [bad, 0.0];
        expect_err(
            cpu.set_state(&good.0, &vel),
            WorldError::NonFinite {
                item: Item::Point(1),
                field: "vel",
            },
            "point 1",
        );
        let saved = Checkpoint {
            vel,
            ..Checkpoint::of_cpu(&cpu, 0.0)
        };
        for err in [
            saved.to_bytes().unwrap_err(),
            saved.restore_cpu(&mut cpu).unwrap_err(),
        ] {
            assert!(
                matches!(
                    err,
                    CheckpointError::Solver(SolverError::World(WorldError::NonFinite { .. }))
                ),
                "{err:?}"
            );
        }
    }
    assert_eq!(cpu.positions(), &good.0[..], "nothing was taken");
    assert_eq!(cpu.velocities(), &good.1[..]);

    let Some(ctx) = common::gpu() else { return };
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &w).unwrap();
    let mut pos = good.0.clone();
    pos[0] = [f32::NAN, 0.0];
    let err = gpu.set_state(&ctx.queue, &pos, &good.1).unwrap_err();
    assert!(
        matches!(err, SolverError::World(WorldError::NonFinite { .. })),
        "{err:?}"
    );
}

/// A checkpoint whose positions and velocities differ in length is an
/// error, not a file with the shorter of the two (which it used to write).
#[test]
fn checkpoint_with_unequal_state_lengths_is_refused() {
    use softbody::checkpoint::{Checkpoint, CheckpointError};
    let cpu = CpuSolver::new(&world3()).unwrap();
    let mut saved = Checkpoint::of_cpu(&cpu, 0.0);
    saved.vel.pop();
    let err = saved.to_bytes().unwrap_err();
    assert!(matches!(err, CheckpointError::Format(_)), "{err:?}");
    assert!(
        err.to_string().contains("3 positions but 2 velocities"),
        "{err}"
    );
    let path = std::env::temp_dir().join(format!("softbody-bad-{}.ckpt", std::process::id()));
    assert!(saved.write(&path).is_err());
    assert!(!path.exists(), "nothing written");
}

/// The diagnostics take a state of the packed world's length (they used to
/// panic on a short one, or quietly sum a prefix).
#[test]
fn diagnostics_of_a_state_of_the_wrong_length_are_refused() {
    use softbody::diagnostics::{body_frames, totals};
    let mut w = world3();
    w.add_body(Body::new(handles(&[0, 1, 2]))).unwrap();
    let p = Packed::from_world(&w).unwrap();
    let (pos, vel) = (p.pos.clone(), p.vel.clone());
    let want = WorldError::LengthMismatch {
        what: "positions",
        expected: 3,
        got: 2,
    };
    expect_err(body_frames(&p, &pos[..2], &vel), want.clone(), "positions");
    expect_err(totals(&p, Vec2::ZERO, &pos[..2], &vel), want, "positions");
    assert_eq!(body_frames(&p, &pos, &vel).unwrap().len(), 1);
    assert!(totals(&p, Vec2::ZERO, &pos, &vel).unwrap().finite);
}

/// A solver's buffers and pipelines live on the device it was created
/// with. Stepping it, reading it back or editing it with another device or
/// queue (here a second device of the same adapter) used to panic inside
/// wgpu ("Cannot get non-existent resource"); each call now refuses with
/// `WrongDevice`, having done nothing.
#[test]
fn a_solver_refuses_another_device() {
    let Some(ctx) = common::gpu() else { return };
    let (device, queue) = pollster::block_on(softbody::gpu::request_device(&ctx.adapter)).unwrap();
    let other = softbody::gpu::GpuContext {
        instance: ctx.instance.clone(),
        adapter: ctx.adapter.clone(),
        device,
        queue,
    };
    let mut w = world3();
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &w).unwrap();
    let wrong = |e: SolverError, what: &str| {
        assert!(
            matches!(e, SolverError::WrongDevice { what: w, .. } if w == what),
            "{e}"
        );
    };
    wrong(
        gpu.step(&other.device, &ctx.queue, 1).unwrap_err(),
        "device",
    );
    wrong(gpu.step(&ctx.device, &other.queue, 1).unwrap_err(), "queue");
    wrong(
        gpu.read_state(&other.device, &other.queue).unwrap_err(),
        "device",
    );
    wrong(gpu.wait(&other.device).unwrap_err(), "device");
    let state = gpu.read_state(&ctx.device, &ctx.queue).unwrap();
    wrong(
        gpu.set_state(&other.queue, &state.pos, &state.vel)
            .unwrap_err(),
        "queue",
    );
    wrong(
        gpu.set_params(&other.queue, Params::default()).unwrap_err(),
        "queue",
    );
    BoxShape::new(Vec2::new(5.0, 5.0), Vec2::ONE)
        .build(&mut w)
        .unwrap();
    wrong(
        gpu.sync(&other.device, &other.queue, &w).unwrap_err(),
        "device",
    );
    assert_eq!(gpu.num_points(), 3, "the refused sync changed nothing");
    assert_eq!(gpu.steps(), 0, "the refused steps ran nothing");
    // Its own device and queue still work.
    gpu.step(&ctx.device, &ctx.queue, 1).unwrap();
    gpu.sync(&ctx.device, &ctx.queue, &w).unwrap();
    assert_eq!(gpu.num_points(), 7);
}

/// `Packed`'s fields are public, and `GpuSolver::from_packed` takes one:
/// arrays that do not fit each other (an index past its array, a dropped
/// point, counts that disagree) used to panic on an index out of bounds.
/// They are refused with `InconsistentPacked`; what `Packed::from_world`
/// makes passes.
#[test]
fn an_inconsistent_packed_world_is_refused() {
    let mut scene = softbody::scenes::default_scene(60).unwrap();
    Rope::new(Vec2::new(0.0, 30.0), Vec2::new(3.0, 30.0), 6)
        .spring_kind(SpringKind::Rod)
        .build(&mut scene)
        .unwrap();
    scene.add_point(Point::new(Vec2::new(0.0, 40.0))).unwrap();
    scene
        .add_terrain(Terrain::new(vec![
            Vec2::new(80.0, -30.0),
            Vec2::new(70.0, -31.0),
        ]))
        .unwrap();
    for world in [World::default(), world3(), scene.clone()] {
        Packed::from_world(&world)
            .unwrap()
            .check_consistent()
            .unwrap();
    }
    let good = Packed::from_world(&scene).unwrap();
    assert!(good.num_rods > 0 && good.sim.num_free > 0 && !good.outlines.is_empty());
    type Corrupt = fn(&mut Packed);
    let corruptions: [(&str, Corrupt); 20] = [
        ("a spring's end", |p| p.springs[0].a = 1 << 20),
        ("a point dropped", |p| {
            p.pos.pop();
        }),
        ("a velocity dropped", |p| {
            p.vel.pop();
        }),
        ("a material", |p| p.point_info[0].material = 1000),
        ("a spring record", |p| {
            p.spring_halves.records[0].other = 1 << 20
        }),
        ("a spring range", |p| {
            p.spring_halves.ranges[1].start = 1 << 20
        }),
        ("two points' spring ranges overlapping", |p| {
            let ranges = &mut p.spring_halves.ranges;
            let r = *ranges.iter().find(|r| r.count > 0).unwrap();
            let other = ranges.iter().position(|q| *q != r).unwrap();
            ranges[other] = r;
        }),
        ("a rod record", |p| p.rod_halves.records[0].other = 1 << 20),
        ("a body's first member", |p| p.bodies[0].first = 1 << 20),
        ("a member's point", |p| p.members[0].point = 1 << 20),
        ("a point member's body", |p| {
            p.point_members.records[0].body = 1 << 20
        }),
        ("the body order", |p| p.body_order[0] = p.body_order[1]),
        ("a collider", |p| p.colliders[0] = 1 << 20),
        ("an outline point", |p| p.outline_points[0] = 1 << 20),
        ("the point count", |p| p.sim.num_points += 1),
        ("the rod count", |p| p.num_rods += 1),
        ("a terrain cell's segment", |p| {
            *p.terrain.cells.last_mut().unwrap() = 1 << 20
        }),
        ("the terrain's segment count", |p| {
            p.terrain.grid.num_segments += 1
        }),
        // More colliders than the uniform block holds (the upload used to
        // panic slicing them into it).
        ("too many planets", |p| {
            p.planets = vec![p.planets[0]; softbody::layout::MAX_PLANETS + 1];
            p.sim.num_planets = p.planets.len() as u32;
        }),
        ("too many planes", |p| {
            p.planes = vec![p.planes[0]; softbody::layout::MAX_PLANES + 1];
            p.sim.num_planes = p.planes.len() as u32;
        }),
    ];
    let ctx = common::gpu();
    for (what, corrupt) in corruptions {
        let mut p = good.clone();
        corrupt(&mut p);
        let e = p.check_consistent().unwrap_err();
        assert!(
            matches!(e, WorldError::InconsistentPacked(_)),
            "{what}: {e}"
        );
        if let Some(ctx) = &ctx {
            let e = GpuSolver::from_packed(&ctx.device, &ctx.queue, &scene.params, &p)
                .err()
                .unwrap();
            assert!(
                matches!(e, SolverError::World(WorldError::InconsistentPacked(_))),
                "{what}: {e}"
            );
        }
    }
}

/// The step count saturates: `set_steps(u64::MAX)` then a step used to
/// wrap the count to 0 (and panic with overflow checks).
#[test]
fn the_step_count_does_not_wrap() {
    let mut cpu = CpuSolver::new(&world3()).unwrap();
    cpu.set_steps(u64::MAX);
    cpu.step();
    assert_eq!(cpu.steps(), u64::MAX);
    if let Some(ctx) = common::gpu() {
        let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world3()).unwrap();
        gpu.set_steps(u64::MAX);
        gpu.step(&ctx.device, &ctx.queue, 2).unwrap();
        assert_eq!(gpu.steps(), u64::MAX);
    }
}

/// A checkpoint of another scene with as many points is refused by both
/// solvers (`restore_gpu` checks the scene hash like `restore_cpu`).
#[test]
fn a_checkpoint_of_another_scene_is_refused_on_both_paths() {
    use softbody::checkpoint::{Checkpoint, CheckpointError};
    let plain = world3();
    let mut linked = world3();
    linked
        .add_spring(Spring::new(PointHandle(0), PointHandle(1)))
        .unwrap();
    let saved = Checkpoint::of_cpu(&CpuSolver::new(&plain).unwrap(), 0.0);
    let mut cpu = CpuSolver::new(&linked).unwrap();
    let want = (cpu.scene_hash(), saved.scene_hash);
    assert_ne!(want.0, want.1);
    let mismatch = |e: CheckpointError| match e {
        CheckpointError::SceneMismatch { expected, found } => assert_eq!((expected, found), want),
        other => panic!("{other:?}"),
    };
    mismatch(saved.restore_cpu(&mut cpu).unwrap_err());
    let Some(ctx) = common::gpu() else { return };
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &linked).unwrap();
    mismatch(saved.restore_gpu(&mut gpu, &ctx.queue).unwrap_err());
}

/// More data than the device's storage-buffer limits: a typed error naming
/// the buffer and the limit, not a wgpu validation panic.
#[test]
fn world_larger_than_device_limits_is_a_typed_error() {
    let Some(ctx) = gpu() else { return };
    let device_with = |limits: wgpu::Limits| {
        pollster::block_on(ctx.adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("small limits"),
            required_limits: limits,
            ..Default::default()
        }))
        .unwrap()
    };
    // Too few storage buffers per stage for the kernels.
    let (device, queue) = device_with(wgpu::Limits::downlevel_defaults());
    let err = GpuSolver::new(&device, &queue, &World::default())
        .err()
        .unwrap();
    assert!(
        matches!(
            err,
            SolverError::DeviceLimit {
                limit: "max_storage_buffers_per_shader_stage",
                required: 8,
                available: 4
            }
        ),
        "{err:?}"
    );
    // Body-body contacts need more storage buffers per stage.
    let (device, queue) = device_with(wgpu::Limits {
        max_storage_buffers_per_shader_stage: 8,
        ..softbody::gpu::required_limits()
    });
    let mut boxes = World::default();
    BoxShape::new(Vec2::ZERO, Vec2::ONE)
        .build(&mut boxes)
        .unwrap();
    BoxShape::new(Vec2::new(0.0, 2.0), Vec2::ONE)
        .build(&mut boxes)
        .unwrap();
    let err = GpuSolver::new(&device, &queue, &boxes).err().unwrap();
    assert!(
        matches!(
            err,
            SolverError::DeviceLimit {
                limit: "max_storage_buffers_per_shader_stage",
                required: 16,
                available: 8
            }
        ),
        "{err:?}"
    );
    boxes.params.body_collisions = false;
    let mut solver =
        GpuSolver::new(&device, &queue, &boxes).expect("8 are enough without contacts");
    // Turning contacts on through sync fails the same way, and changes
    // nothing: the solver keeps stepping the world it had.
    let before = solver.packed().clone();
    boxes.params.body_collisions = true;
    let err = solver.sync(&device, &queue, &boxes).unwrap_err();
    assert!(
        matches!(err, SolverError::DeviceLimit { required: 16, .. }),
        "{err:?}"
    );
    assert_eq!(solver.packed(), &before);
    assert!(!solver.params().body_collisions);
    solver.step(&device, &queue, 2).unwrap();
    let state = solver.read_state(&device, &queue).unwrap();
    assert!(state.pos.iter().flatten().all(|x| x.is_finite()));
    // Enough of everything but buffer size.
    let (device, queue) = device_with(wgpu::Limits {
        max_storage_buffer_binding_size: 4096,
        ..softbody::gpu::required_limits()
    });
    let mut world = World::default();
    for i in 0..1000 {
        world
            .add_point(Point::new(Vec2::new(i as f32, 0.0)))
            .unwrap();
    }
    let err = GpuSolver::new(&device, &queue, &world)
        .err()
        .expect("a 16 KB buffer over a 4 KB limit");
    match &err {
        SolverError::TooLarge {
            buffer,
            bytes,
            limit,
            limit_name,
        } => {
            assert_eq!(*buffer, "point_info");
            assert_eq!(*bytes, 16_000);
            assert_eq!(*limit, 4096);
            assert_eq!(*limit_name, "max_storage_buffer_binding_size");
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
    assert!(err.to_string().contains("point_info"), "{err}");
    // A world that fits is accepted on the same device.
    let mut small = World::default();
    small.add_point(Point::new(Vec2::ZERO)).unwrap();
    GpuSolver::new(&device, &queue, &small).unwrap();

    // An edit that would outgrow the limits fails before it changes
    // anything (it used to update the solver's copy of the world and not
    // its buffers, so later edits ran wgpu copies past their ends).
    let mut world = World::default();
    world.params.body_collisions = false;
    for i in 0..100 {
        world
            .add_point(Point::new(Vec2::new(i as f32, 0.0)))
            .unwrap();
    }
    let mut solver = GpuSolver::new(&device, &queue, &world).unwrap();
    let before = solver.packed().clone();
    let extra: Vec<PointHandle> = (0..300)
        .map(|i| {
            world
                .add_point(Point::new(Vec2::new(i as f32, 5.0)).pinned())
                .unwrap()
        })
        .collect();
    let err = solver.sync(&device, &queue, &world).unwrap_err();
    assert!(
        matches!(
            err,
            SolverError::TooLarge {
                buffer: "point_info",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(solver.packed(), &before);
    assert_eq!(solver.num_points(), 100);
    assert!(matches!(
        solver.move_pinned_point(&queue, extra[250], Vec2::ONE),
        Err(SolverError::World(WorldError::UnknownHandle { .. }))
    ));
    // Taking the extra points out again (never synced) is followed, and the
    // 100 points keep their state.
    solver.step(&device, &queue, 3).unwrap();
    let stepped = solver.read_state(&device, &queue).unwrap();
    let removal = world.remove_points(&extra).unwrap();
    solver
        .apply_removal(&device, &queue, &world, &removal)
        .unwrap();
    solver.sync(&device, &queue, &world).unwrap();
    assert_eq!(solver.num_points(), 100);
    assert_eq!(solver.read_state(&device, &queue).unwrap(), stepped);

    // A read-back past a buffer's end is a typed error too.
    let err = softbody::gpu::read_buffer::<[f32; 4]>(&device, &queue, solver.state_buffer(), 101)
        .unwrap_err();
    assert!(matches!(err, SolverError::Readback(_)), "{err:?}");
    let unreadable = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("no COPY_SRC"),
        size: 16,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let err = softbody::gpu::read_buffer::<u32>(&device, &queue, &unreadable, 1).unwrap_err();
    assert!(err.to_string().contains("COPY_SRC"), "{err}");
}

/// `whole`, saved as `saved` at its present step, stepped on 30 steps,
/// and a new solver of its kind restored from `saved` through the file's
/// bytes and stepped as far: bitwise the same state.
fn resumes_as_one_run(
    world: &World,
    mut whole: softbody::solver::Solver,
    saved: &softbody::checkpoint::Checkpoint,
) {
    use softbody::checkpoint::Checkpoint;
    use softbody::solver::Solver;
    let name = whole.name();
    whole.step(30).unwrap();
    let mut resumed = match &whole {
        Solver::Cpu(_) => Solver::cpu(world).unwrap(),
        Solver::Gpu { .. } => Solver::gpu(world).unwrap(),
    };
    let bytes = saved.to_bytes().unwrap();
    Checkpoint::from_bytes(&bytes)
        .unwrap()
        .restore(&mut resumed)
        .unwrap();
    resumed.step(30).unwrap();
    let (a, b) = (whole.state().unwrap(), resumed.state().unwrap());
    assert!(a == b, "{name}: the resumed run differs");
}

/// A checkpoint keeps the body contacts' warm starts: a stack of boxes
/// (awake: sleeping off) resumed from one steps on bitwise as the run in
/// one go, on both paths, and the warm starts it holds are not all zero.
/// Restoring without them parts the runs within a step.
#[test]
fn a_stack_resumed_from_a_checkpoint_warm_starts_as_the_run_in_one_go() {
    use softbody::checkpoint::Checkpoint;
    use softbody::solver::Solver;
    let (mut world, _) = softbody::samples::stack(4, 1.0).unwrap();
    world.params.sleep_speed = 0.0;
    let mut paths = vec![Solver::cpu(&world).unwrap()];
    if let Some(ctx) = common::gpu() {
        paths.push(Solver::gpu_on(ctx, &world).unwrap());
    }
    for mut whole in paths {
        let name = whole.name();
        whole.step(60).unwrap();
        let saved = Checkpoint::of(&whole, 1.0).unwrap();
        let held = saved
            .warm
            .iter()
            .filter(|w| f32::from_bits(w[3]) > 0.0)
            .count();
        assert!(held >= 4, "{name}: {held} points hold a warm start");
        resumes_as_one_run(&world, whole, &saved);
    }
}

/// A checkpoint keeps tangle recovery's tangles: two boxes passed into
/// each other (2 cm apart), saved once their centres are out of each
/// other while their tangle holds (the narrow phase still finds one's
/// points inside the other), resume bitwise as the run in one go, on both
/// paths. Restoring without the tangles parts the runs.
#[test]
fn a_tangled_pair_resumed_from_a_checkpoint_parts_as_the_run_in_one_go() {
    use softbody::checkpoint::Checkpoint;
    use softbody::layout::TANGLE_KEPT;
    use softbody::solver::Solver;
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    for x in [0.0, 0.02] {
        BoxShape::new(Vec2::new(x, 0.0), Vec2::splat(0.22))
            .build(&mut world)
            .unwrap();
    }
    let mut paths = vec![Solver::cpu(&world).unwrap()];
    if let Some(ctx) = common::gpu() {
        paths.push(Solver::gpu_on(ctx, &world).unwrap());
    }
    for mut whole in paths {
        let name = whole.name();
        // Step until the tangle is held with neither centre inside the
        // other body any more: the positions alone no longer tell it.
        let packed = Packed::from_world(&world).unwrap();
        let mut saved = None;
        for _ in 0..60 {
            whole.step(1).unwrap();
            let c = Checkpoint::of(&whole, 0.0).unwrap();
            let held = c.tangles.iter().flatten().any(|w| w & TANGLE_KEPT != 0);
            let r = softbody::measure::pile_report(&packed, &c.pos, &c.vel);
            if held && r.bodies_overlapped == 0 {
                saved = Some(c);
                break;
            }
        }
        let saved = saved.unwrap_or_else(|| panic!("{name}: no tangle held in 60 steps"));
        resumes_as_one_run(&world, whole, &saved);
    }
}

/// A checkpoint keeps sleeping's anchors: a box gliding at 0.06 m/s (just
/// above the sleep speed, no gravity) strays past the window's limit once
/// every `SLEEP_WINDOW` steps and never sleeps. Saved with its count of
/// steps at rest at 2, it resumes as the run in one go, on both paths:
/// the same state, counts and anchors 3 and 31 steps on. Restored
/// without the anchors (measured from where it was saved), it counts on
/// to 5 where the run in one go strayed and started again at 0: the
/// counts part (until the two stray in the same step, 6 steps on).
#[test]
fn a_gliding_box_resumed_from_a_checkpoint_counts_its_rest_as_the_run_in_one_go() {
    use softbody::checkpoint::Checkpoint;
    use softbody::solver::Solver;
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    let b = BoxShape::new(Vec2::ZERO, Vec2::splat(0.5))
        .build(&mut world)
        .unwrap();
    let pos: Vec<Vec2> = world.points().iter().map(|p| p.pos).collect();
    let vel = vec![Vec2::new(0.06, 0.0); pos.len()];
    world.set_state(&pos, &vel).unwrap();
    let root = b.points[0].index();
    let mut paths = vec![Solver::cpu(&world).unwrap()];
    if let Some(ctx) = common::gpu() {
        paths.push(Solver::gpu_on(ctx, &world).unwrap());
    }
    for mut whole in paths {
        let name = whole.name();
        let mut saved = None;
        for _ in 0..20 {
            whole.step(1).unwrap();
            let c = Checkpoint::of(&whole, 0.0).unwrap();
            if c.rest_steps[root] == 2 {
                saved = Some(c);
                break;
            }
        }
        let saved = saved.unwrap_or_else(|| panic!("{name}: never 2 steps at rest"));
        assert_ne!(saved.anchors[root], saved.pos[root], "{name}");
        let on_gpu = matches!(whole, Solver::Gpu { .. });
        let resume = |c: &Checkpoint, steps: u64| {
            let mut s = match on_gpu {
                false => Solver::cpu(&world).unwrap(),
                true => Solver::gpu(&world).unwrap(),
            };
            Checkpoint::from_bytes(&c.to_bytes().unwrap())
                .unwrap()
                .restore(&mut s)
                .unwrap();
            s.step(steps).unwrap();
            Checkpoint::of(&s, 0.0).unwrap()
        };
        let lost = resume(
            &Checkpoint {
                anchors: Vec::new(),
                ..saved.clone()
            },
            3,
        );
        whole.step(3).unwrap();
        let one_go = Checkpoint::of(&whole, 0.0).unwrap();
        assert_eq!(resume(&saved, 3), one_go, "{name}");
        assert_eq!(
            (lost.rest_steps[root], one_go.rest_steps[root]),
            (5, 1),
            "{name}"
        );
        whole.step(28).unwrap();
        let one_go = Checkpoint::of(&whole, 0.0).unwrap();
        assert!(one_go.vel[root][0] > 0.05, "{name}: asleep");
        assert_eq!(resume(&saved, 31), one_go, "{name}");
    }
}

/// A readback that does not wait: the state and two bodies' frames are
/// copied in the encoder that steps, and polled for after the submit
/// without blocking; they are what the waiting readbacks return. A body
/// the world does not have is refused.
#[test]
fn a_pending_readback_answers_without_waiting() {
    let Some(ctx) = gpu() else { return };
    let (world, _) = softbody::samples::stack(3, 1.0).unwrap();
    let mut solver = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    for _ in 0..10 {
        solver.record_step(&mut encoder);
    }
    let mut state = solver.request_state(&ctx.device, &mut encoder).unwrap();
    let bodies = [BodyHandle(2), BodyHandle(0)];
    let mut frames = solver
        .request_frames(&ctx.device, &mut encoder, &bodies)
        .unwrap();
    let e = solver
        .request_frames(&ctx.device, &mut encoder, &[BodyHandle(3)])
        .unwrap_err()
        .to_string();
    assert!(e.contains("body 3"), "{e}");
    ctx.queue.submit([encoder.finish()]);
    let mut polls = 0;
    let (mut s, mut f) = (None, None);
    while s.is_none() || f.is_none() {
        polls += 1;
        assert!(polls < 100_000, "no answer");
        s = s.or_else(|| state.poll(&ctx.device));
        f = f.or_else(|| frames.poll(&ctx.device));
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    let (answer, frames_answer) = (s.unwrap().unwrap(), f.unwrap().unwrap());
    // Taken once: asking again is an error, not a second answer.
    assert!(state.poll(&ctx.device).unwrap().is_err());
    let (state, frames) = (answer, frames_answer);
    eprintln!("answered after {polls} polls");
    assert_eq!(state, solver.read_state(&ctx.device, &ctx.queue).unwrap());
    let all = solver.read_frames(&ctx.device, &ctx.queue).unwrap();
    assert_eq!(frames, vec![all[2], all[0]]);
    assert_eq!(solver.steps(), 10);
}
