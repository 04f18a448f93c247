//! The GPU against the CPU reference: stage by stage on random and hand-made
//! inputs, whole steps over long runs, and run-to-run determinism.
//!
//! Tolerances: one stage is the same f32 formula on the same inputs, so the
//! two paths differ only by rounding (fused multiply-add, `exp` and `sqrt`
//! implementations): a few ulps of the largest magnitude involved. We allow
//! `STAGE_TOL * (1 + |x|)` per component, which is ~100x what we measured
//! on lavapipe (the measured numbers are printed with `--nocapture`).
//! Shape matching gets `SHAPE_TOL`, for its frames and the velocities they
//! give: the frame comes from one pass of sums about the body's first
//! member, and the random worlds' angular momentum is a small difference
//! of large sums (random velocities on points metres apart), which the
//! pull `k h` then turns into velocity. A driver that fuses multiply-adds
//! and divides approximately (NVIDIA's on an H100) differs from the CPU
//! there by up to 3.2e-3 (a random body's angular velocity), where
//! lavapipe gives the same bits. A wrong formula differs by order one.

mod common;

use common::{Rng, gpu};
use softbody::gpu::{GpuContext, Stage};
use softbody::prelude::*;

const STAGE_TOL: f32 = 2e-4;
const SHAPE_TOL: f32 = 1e-2;

struct Deviation {
    max: f32,
    mean: f32,
    worst: usize,
}

/// Largest and mean per-component deviation, scaled by `1 + |cpu|`.
fn deviation(gpu: &[[f32; 2]], cpu: &[[f32; 2]]) -> Deviation {
    assert_eq!(gpu.len(), cpu.len());
    let mut d = Deviation {
        max: 0.0,
        mean: 0.0,
        worst: 0,
    };
    for (i, (g, c)) in gpu.iter().zip(cpu).enumerate() {
        for k in 0..2 {
            assert!(
                g[k].is_finite(),
                "GPU value of point {i} is not finite: {g:?}"
            );
            let e = (g[k] - c[k]).abs() / (1.0 + c[k].abs());
            d.mean += e;
            if e > d.max {
                d.max = e;
                d.worst = i;
            }
        }
    }
    d.mean /= (2 * gpu.len().max(1)) as f32;
    d
}

fn assert_close(what: &str, gpu: &[[f32; 2]], cpu: &[[f32; 2]], tol: f32) -> f32 {
    let d = deviation(gpu, cpu);
    eprintln!(
        "{what}: max {:.2e} mean {:.2e} (point {})",
        d.max, d.mean, d.worst
    );
    assert!(
        d.max <= tol,
        "{what}: deviation {:.3e} > {tol:.1e} at point {}: gpu {:?} cpu {:?}",
        d.max,
        d.worst,
        gpu[d.worst],
        cpu[d.worst]
    );
    d.max
}

/// Random points, springs of all kinds, bodies sharing points, pinned
/// points, materials, layers, planets and half-planes.
fn random_world(seed: u64, n: usize) -> World {
    let mut rng = Rng(seed);
    let mut world = World::default();
    let bouncy = world
        .add_material(Material {
            elasticity: Some(0.9),
            friction: Some(0.5),
            ..Material::DEFAULT
        })
        .unwrap();
    let mut pts = Vec::new();
    for i in 0..n {
        let mut p = Point::new(Vec2::new(rng.range(-4.0, 4.0), rng.range(-1.0, 5.0)))
            .vel(Vec2::new(rng.range(-3.0, 3.0), rng.range(-3.0, 3.0)))
            .mass(rng.range(0.5, 3.0))
            .layers(1 << rng.below(3));
        if i % 10 == 3 {
            p = p.pinned();
        }
        if i % 3 == 0 {
            p = p.material(bouncy);
        }
        pts.push(world.add_point(p).unwrap());
    }
    for k in 0..n * 2 {
        let a = pts[rng.below(n)];
        let b = pts[rng.below(n)];
        if a == b {
            continue;
        }
        let kind = [SpringKind::Spring, SpringKind::Soft, SpringKind::Rod][k % 3];
        let rest = world.point(a).pos.distance(world.point(b).pos) * rng.range(0.7, 1.3);
        let stiffness = if kind == SpringKind::Soft {
            200.0
        } else {
            500.0
        };
        world
            .add_spring(
                Spring::new(a, b)
                    .kind(kind)
                    .rest_length(rest)
                    .stiffness(stiffness),
            )
            .unwrap();
    }
    for _ in 0..n / 3 {
        let count = 3 + rng.below(6);
        let mut members: Vec<PointHandle> = Vec::new();
        while members.len() < count {
            let p = pts[rng.below(n)];
            if !members.contains(&p) {
                members.push(p);
            }
        }
        // A rest shape away from the current one: the members' placement
        // turned by any angle, shifted, and each offset jittered by up to
        // 30%. Not an unrelated random shape: that leaves the best-fit
        // rotation ill-conditioned (its sums cancel), and a driver that
        // fuses multiply-adds (NVIDIA's) then turns a few ulps into a
        // rotation 1e-3 off, which no tolerance for rounding can tell
        // from a wrong kernel. The degenerate world covers that case.
        let angle = rng.range(-3.1, 3.1);
        let (sin, cos) = angle.sin_cos();
        let shift = Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
        let rest = members
            .iter()
            .map(|&m| {
                let p = world.point(m).pos * rng.range(0.7, 1.3);
                Vec2::new(cos * p.x - sin * p.y, sin * p.x + cos * p.y) + shift
            })
            .collect();
        world
            .add_body(
                Body::new(members)
                    .rest(rest)
                    .stiffness(rng.range(100.0, 800.0)),
            )
            .unwrap();
    }
    world
        .add_planet(Planet::new(Vec2::new(-2.0, 0.0), 1.5))
        .unwrap();
    world
        .add_planet(Planet {
            layers: 0b10,
            ..Planet::new(Vec2::new(2.5, 1.0), 1.0)
        })
        .unwrap();
    world.add_plane(HalfPlane::floor(-0.5)).unwrap();
    world
        .add_plane(HalfPlane {
            layers: 0b101,
            ..HalfPlane::new(Vec2::new(-1.0, 0.2), -3.5)
        })
        .unwrap();
    world
}

/// A ring of `n` points as one body (the large-body workgroup reduction),
/// plus a few small bodies sharing its points and a pinned hub.
fn big_body_world(n: usize) -> World {
    let mut world = World::default();
    let mut ring = Vec::new();
    for i in 0..n {
        let a = i as f32 / n as f32 * std::f32::consts::TAU;
        let r = 3.0 + 0.2 * (7.0 * a).sin();
        ring.push(
            world
                .add_point(
                    Point::new(Vec2::new(r * a.cos(), 4.0 + r * a.sin()))
                        .vel(Vec2::new(a.sin(), 0.3)),
                )
                .unwrap(),
        );
    }
    let hub = world
        .add_point(Point::new(Vec2::new(0.0, 4.0)).pinned())
        .unwrap();
    let mut all = ring.clone();
    all.push(hub);
    world.add_body(Body::new(all)).unwrap();
    for k in 0..20 {
        let i = k * (n / 20);
        world
            .add_body(Body::new(vec![ring[i], ring[i + 1], ring[i + 2], hub]).stiffness(300.0))
            .unwrap();
    }
    for i in 0..n {
        let kind = [SpringKind::Spring, SpringKind::Soft, SpringKind::Rod][i % 3];
        world
            .add_spring(
                Spring::new(ring[i], ring[(i + 1) % n])
                    .kind(kind)
                    .rest_length(0.002),
            )
            .unwrap();
    }
    // A 40-point body: large, but smaller than the workgroup.
    world.add_body(Body::new(ring[100..140].to_vec())).unwrap();
    world.add_planet(Planet::new(Vec2::ZERO, 1.0)).unwrap();
    world
}

/// Degenerate geometry: coincident spring ends, a collapsed body, a point at
/// a planet's centre.
fn degenerate_world() -> (World, Vec<[f32; 2]>) {
    let mut world = World::default();
    let pts: Vec<PointHandle> = (0..8)
        .map(|i| {
            world
                .add_point(Point::new(Vec2::new(i as f32, 2.0)))
                .unwrap()
        })
        .collect();
    world.add_spring(Spring::new(pts[0], pts[1])).unwrap();
    world
        .add_spring(Spring::new(pts[1], pts[2]).kind(SpringKind::Rod))
        .unwrap();
    world
        .add_spring(Spring::new(pts[2], pts[3]).kind(SpringKind::Soft))
        .unwrap();
    world.add_body(Body::new(pts[4..8].to_vec())).unwrap();
    world
        .add_planet(Planet::new(Vec2::new(20.0, 20.0), 2.0))
        .unwrap();
    let mut pos: Vec<[f32; 2]> = world.points().iter().map(|p| p.pos.to_array()).collect();
    pos[1] = pos[0]; // spring 0 and rod 1 ends coincide
    pos[2] = pos[0];
    pos[3] = pos[0];
    for p in &mut pos[4..8] {
        *p = [5.0, 5.0]; // the body collapses to one spot
    }
    pos[0] = [20.0, 20.0]; // a planet's centre
    (world, pos)
}

/// A named scene, with an optional state that replaces its positions.
type Scene = (&'static str, World, Option<Vec<[f32; 2]>>);

fn scenes() -> Vec<Scene> {
    let (degenerate, pos) = degenerate_world();
    vec![
        ("random-small", random_world(1, 40), None),
        ("random-large", random_world(7, 3000), None),
        ("big-body-10k", big_body_world(10_000), None),
        ("degenerate", degenerate, Some(pos)),
    ]
}

fn check_stage(
    ctx: &GpuContext,
    name: &str,
    world: &World,
    pos: &Option<Vec<[f32; 2]>>,
    stage: Stage,
) -> (f32, f32) {
    let mut cpu = CpuSolver::new(world).unwrap();
    if let Some(pos) = pos {
        let vel = cpu.velocities().to_vec();
        cpu.set_state(pos, &vel).unwrap();
    } else {
        // Move the state away from rest so every term is exercised, and
        // stop mid-substep, after the motion, where points overlap what
        // they hit.
        for _ in 0..5 {
            cpu.substep();
        }
        cpu.stage_springs();
        cpu.stage_shape_match();
        cpu.stage_integrate();
    }
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, world).unwrap();
    gpu.set_state(&ctx.queue, cpu.positions(), cpu.velocities())
        .unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    // Stages that read what another one leaves: that one first.
    match stage {
        Stage::BodyCollide => gpu.record_stage(&mut encoder, Stage::BroadPhase),
        Stage::ContactRelax => {
            gpu.record_stage(&mut encoder, Stage::BroadPhase);
            gpu.record_stage(&mut encoder, Stage::BodyCollide);
        }
        Stage::ShapeApply | Stage::ApplyIntegrateCollide => {
            gpu.record_stage(&mut encoder, Stage::ShapeFrames)
        }
        _ => {}
    }
    gpu.record_stage(&mut encoder, stage);
    ctx.queue.submit([encoder.finish()]);
    let before = (cpu.positions().to_vec(), cpu.velocities().to_vec());
    match stage {
        Stage::Integrate => cpu.stage_integrate(),
        Stage::Collide => cpu.stage_collide(),
        Stage::IntegrateCollide => {
            cpu.stage_integrate();
            cpu.stage_collide();
        }
        Stage::Springs => cpu.stage_springs(),
        Stage::Rods => cpu.stage_rods(),
        Stage::ShapeMatch | Stage::ShapeApply => cpu.stage_shape_match(),
        Stage::ApplyIntegrateCollide => {
            cpu.stage_shape_match();
            cpu.stage_integrate();
            cpu.stage_collide();
        }
        Stage::ShapeFrames => unreachable!("frames alone change no state"),
        Stage::BroadPhase => cpu.stage_broad_phase(),
        Stage::BodyCollide => {
            cpu.stage_broad_phase();
            cpu.stage_body_collide();
        }
        Stage::ContactRelax => {
            cpu.stage_broad_phase();
            cpu.stage_body_collide();
            cpu.stage_contact_relax();
        }
        Stage::Sleep => unreachable!("tests/sleep.rs checks sleeping against the CPU"),
        Stage::Narrow | Stage::Impact | Stage::Resolve => {
            unreachable!("tests/collisions.rs checks the first contact pass against the CPU")
        }
    }
    let state = gpu.read_state(&ctx.device, &ctx.queue).unwrap();
    let what = format!("{name} {stage:?}");
    let dp = assert_close(
        &format!("{what} pos"),
        &state.pos,
        cpu.positions(),
        STAGE_TOL,
    );
    let shaped = matches!(
        stage,
        Stage::ShapeMatch | Stage::ShapeApply | Stage::ApplyIntegrateCollide
    );
    let dv = assert_close(
        &format!("{what} vel"),
        &state.vel,
        cpu.velocities(),
        if shaped { SHAPE_TOL } else { STAGE_TOL },
    );
    if matches!(stage, Stage::ShapeMatch | Stage::ShapeApply) {
        let flat = |f: &[softbody::layout::BodyFrame]| -> Vec<[f32; 2]> {
            f.iter()
                .flat_map(|f| [f.centroid, f.vel, f.rot, [f.omega, 0.0]])
                .collect()
        };
        let frames = gpu.read_frames(&ctx.device, &ctx.queue).unwrap();
        assert_close(
            &format!("{what} frames"),
            &flat(&frames),
            &flat(cpu.frames()),
            SHAPE_TOL,
        );
    }
    // The stage did something, so agreement is not agreement on a no-op.
    let changed = before.0 != cpu.positions() || before.1 != cpu.velocities();
    assert!(
        changed,
        "{what}: the stage changed nothing; the scene does not exercise it"
    );
    (dp, dv)
}

#[test]
fn every_stage_matches_the_cpu() {
    let Some(ctx) = gpu() else { return };
    eprintln!("adapter: {}", ctx.adapter_summary());
    for (name, world, pos) in scenes() {
        for stage in [
            Stage::Integrate,
            Stage::Collide,
            Stage::IntegrateCollide,
            Stage::Springs,
            Stage::Rods,
            Stage::ShapeMatch,
            Stage::ShapeApply,
            Stage::ApplyIntegrateCollide,
        ] {
            check_stage(&ctx, name, &world, &pos, stage);
        }
    }
}

#[test]
fn degenerate_geometry_stays_finite_on_the_gpu() {
    let Some(ctx) = gpu() else { return };
    let (world, pos) = degenerate_world();
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    let vel = vec![[0.0; 2]; pos.len()];
    gpu.set_state(&ctx.queue, &pos, &vel).unwrap();
    gpu.step(&ctx.device, &ctx.queue, 50).unwrap();
    let state = gpu.read_state(&ctx.device, &ctx.queue).unwrap();
    for (i, (p, v)) in state.pos.iter().zip(&state.vel).enumerate() {
        assert!(
            p.iter().chain(v).all(|x| x.is_finite()),
            "point {i}: pos {p:?} vel {v:?}"
        );
    }
    let frames = gpu.read_frames(&ctx.device, &ctx.queue).unwrap();
    assert!(
        frames
            .iter()
            .all(|f| f.rot.iter().chain(&f.centroid).all(|x| x.is_finite()))
    );
}

/// A scene that settles without chaos: soft bodies and springs (shape
/// 1,500 1/s^2, springs 2,000 N/m) fall onto a floor and a planet,
/// strongly damped. Firmer bodies hit harder, and a last-bit difference in
/// a contact then parts the paths by centimetres within 100 steps
/// (docs/physics.md, "Limits we measured").
fn settling_world() -> World {
    let mut world = World::new(Params {
        shape_stiffness: 1500.0,
        spring_stiffness: 2000.0,
        shape_damping: 20.0,
        spring_damping: 20.0,
        friction: 20.0,
        elasticity: 0.0,
        // Viscous friction only: a box held by static friction on the
        // planet's curved side sits on the cone's edge, where the last
        // bit of `length` and `exp` (computed by each path) decides
        // between holding and sliding, and whole runs part by
        // millimetres. The collide stage's own check covers Coulomb
        // friction.
        static_friction: 0.0,
        dynamic_friction: 0.0,
        // One contact pass: a second one, from positions the first left,
        // is one more place where an ulp decides whether a corner is
        // inside, and the paths part by 4e-2 m/s within 50 steps.
        contact_iterations: 1,
        // No impacts: whether a settling body's mean velocity is past the
        // threshold can be decided by the last bit of its frame (summed
        // in another order on each path); with them the paths part by
        // 5 mm within 100 steps. tests/collisions.rs checks the impact
        // stage bitwise, tests/contact_response.rs its rebounds on both
        // paths.
        restitution_threshold: 100.0,
        ..Params::default()
    });
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    world
        .add_planet(Planet::new(Vec2::new(6.0, 0.0), 2.0))
        .unwrap();
    for k in 0..6 {
        let c = Vec2::new(k as f32 * 1.5 - 3.0, 1.0 + 0.3 * k as f32);
        let corners = [(-0.4, -0.4), (0.4, -0.4), (0.4, 0.4), (-0.4, 0.4)];
        let pts: Vec<PointHandle> = corners
            .iter()
            .map(|&(x, y)| world.add_point(Point::new(c + Vec2::new(x, y))).unwrap())
            .collect();
        for i in 0..4 {
            world
                .add_spring(Spring::new(pts[i], pts[(i + 1) % 4]))
                .unwrap();
        }
        world
            .add_spring(Spring::new(pts[0], pts[2]).kind(SpringKind::Rod))
            .unwrap();
        world.add_body(Body::new(pts)).unwrap();
    }
    // A hanging chain of soft constraints from a pinned point.
    let mut prev = world
        .add_point(Point::new(Vec2::new(6.0, 5.0)).pinned())
        .unwrap();
    for i in 1..8 {
        let p = world
            .add_point(Point::new(Vec2::new(6.0 + 0.3 * i as f32, 5.0)))
            .unwrap();
        world
            .add_spring(Spring::new(prev, p).kind(SpringKind::Soft).stiffness(300.0))
            .unwrap();
        prev = p;
    }
    world
}

#[test]
fn whole_steps_match_the_cpu_over_500_steps() {
    let Some(ctx) = gpu() else { return };
    let world = settling_world();
    let mut cpu = CpuSolver::new(&world).unwrap();
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    let mut worst: f32 = 0.0;
    for chunk in 0..10 {
        gpu.step(&ctx.device, &ctx.queue, 50).unwrap();
        for _ in 0..50 {
            cpu.step();
        }
        let state = gpu.read_state(&ctx.device, &ctx.queue).unwrap();
        let step = (chunk + 1) * 50;
        worst = worst.max(assert_close(
            &format!("step {step} pos"),
            &state.pos,
            cpu.positions(),
            1e-3,
        ));
        assert_close(
            &format!("step {step} vel"),
            &state.vel,
            cpu.velocities(),
            1e-2,
        );
    }
    eprintln!("500 steps: worst position deviation {worst:.2e}");
    // The run did something: the boxes fell and came to rest.
    let y_max = cpu
        .positions()
        .iter()
        .take(24)
        .map(|p| p[1])
        .fold(f32::MIN, f32::max);
    assert!(
        y_max < 1.5,
        "boxes did not settle: highest corner at {y_max}"
    );
}

#[test]
fn gpu_runs_are_bitwise_deterministic() {
    let Some(ctx) = gpu() else { return };
    let world = random_world(3, 2000);
    let run = || {
        let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
        gpu.step(&ctx.device, &ctx.queue, 100).unwrap();
        let s = gpu.read_state(&ctx.device, &ctx.queue).unwrap();
        let f = gpu.read_frames(&ctx.device, &ctx.queue).unwrap();
        (s, f)
    };
    let (a, fa) = run();
    let (b, fb) = run();
    let bits = |v: &[[f32; 2]]| {
        v.iter()
            .flat_map(|p| [p[0].to_bits(), p[1].to_bits()])
            .collect::<Vec<_>>()
    };
    assert_eq!(
        bits(&a.pos),
        bits(&b.pos),
        "positions differ between identical runs"
    );
    assert_eq!(
        bits(&a.vel),
        bits(&b.vel),
        "velocities differ between identical runs"
    );
    assert!(fa == fb, "body frames differ between identical runs");
    // And the run moved: not a trivially equal pair.
    assert_ne!(
        bits(&a.pos),
        bits(CpuSolver::new(&world).unwrap().positions())
    );
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
    let err = softbody::gpu::read_buffer::<u32>(&device, &queue, solver.colliders_buffer(), 1)
        .unwrap_err();
    assert!(err.to_string().contains("COPY_SRC"), "{err}");
}

#[test]
fn the_springs_stage_is_bitwise_the_cpus() {
    // The records carry the substep's coefficients, computed once on the
    // CPU, so the kernel has no `exp` of its own: what is left (products,
    // sums, a square root, divisions) is correctly rounded on both paths,
    // on a software adapter exactly as on the CPU.
    let Some(ctx) = gpu() else { return };
    let world = softbody::scenes::bench_scene(5_000).unwrap();
    let mut cpu = CpuSolver::new(&world).unwrap();
    for _ in 0..5 {
        cpu.substep();
    }
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    gpu.set_state(&ctx.queue, cpu.positions(), cpu.velocities())
        .unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    gpu.record_stage(&mut encoder, Stage::Springs);
    ctx.queue.submit([encoder.finish()]);
    let before = cpu.velocities().to_vec();
    cpu.stage_springs();
    assert_ne!(before, cpu.velocities(), "the springs moved nothing");
    let state = gpu.read_state(&ctx.device, &ctx.queue).unwrap();
    if ctx.adapter.get_info().device_type == wgpu::DeviceType::Cpu {
        assert!(state.pos == cpu.positions(), "positions differ");
        assert!(state.vel == cpu.velocities(), "velocities differ");
    } else {
        // A hardware driver may fuse a product and a sum into one FMA.
        assert_close("springs pos", &state.pos, cpu.positions(), STAGE_TOL);
        assert_close("springs vel", &state.vel, cpu.velocities(), STAGE_TOL);
    }
}
