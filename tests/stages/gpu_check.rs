//! The GPU against the CPU reference, one stage at a time, on random,
//! hand-made, 10,000-point-body, degenerate and deep-overlap scenes: each
//! stage's module calls [`stages_match_the_cpu`] with its own stages
//! (integrate, collide, springs, rods, shape_match). The contact stages
//! (broad phase, narrow phase, impacts, resolve) are compared as one pass in
//! `body_collide::contacts_match_the_cpu_stage_by_stage_and_over_200_steps`,
//! sleeping in `sleep`.
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

use crate::common::{Rng, gpu};
use softbody::gpu::{GpuContext, Stage};
use softbody::prelude::*;

pub const STAGE_TOL: f32 = 2e-4;

pub const SHAPE_TOL: f32 = 1e-2;

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

pub fn assert_close(what: &str, gpu: &[[f32; 2]], cpu: &[[f32; 2]], tol: f32) -> f32 {
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
pub fn random_world(seed: u64, n: usize) -> World {
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
        let centre =
            members.iter().map(|&m| world.point(m).pos).sum::<Vec2>() / members.len() as f32;
        let rest = members
            .iter()
            .map(|&m| {
                let p = centre + (world.point(m).pos - centre) * rng.range(0.7, 1.3);
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
pub fn degenerate_world() -> (World, Vec<[f32; 2]>) {
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
        ("landings", landing_world(), None),
        ("gravity-fields", gravity_world(), None),
        ("terrain", terrain_world(), None),
        ("kinematic", crate::move_bodies::kinematic_world(), None),
        ("deep-overlaps", deep_world(), None),
    ]
}

/// Two attracting planets (one a point mass, radius 0), the world's
/// gravity turned aside, free points in and out of their radii with
/// gravity scales 1, 0, 0.5 and -2, and boxes resting on the large
/// planet's side: the gravity of every kernel that integrates.
fn gravity_world() -> World {
    let mut world = World::default();
    world.params.gravity = Vec2::new(0.5, -1.0);
    let centre = Vec2::new(0.0, 0.0);
    world
        .add_planet(Planet::new(centre, 4.0).surface_gravity(9.8))
        .unwrap();
    world
        .add_planet(Planet::new(Vec2::new(12.0, 3.0), 0.0).gravity(50.0))
        .unwrap();
    for k in 0..40 {
        let a = 0.37 * k as f32;
        let r = [2.0, 4.3, 6.0, 11.0][k % 4];
        let scale = [1.0, 0.0, 0.5, -2.0][(k / 4) % 4];
        world
            .add_point(
                Point::new(centre + r * Vec2::new(a.cos(), a.sin()))
                    .vel(Vec2::new(-a.sin(), a.cos()))
                    .gravity_scale(scale),
            )
            .unwrap();
    }
    for k in 0..6 {
        let a = 1.05 * k as f32;
        let dir = Vec2::new(a.cos(), a.sin());
        BoxShape::new(centre + 4.3 * dir, Vec2::splat(0.5))
            .rotation(a)
            .build(&mut world)
            .unwrap();
    }
    // A rod in the pull of both planets, so that every stage has
    // something to do in this world too.
    let a = world.add_point(Point::new(Vec2::new(7.0, 1.0))).unwrap();
    let b = world
        .add_point(Point::new(Vec2::new(8.0, 1.5)).vel(Vec2::new(0.0, 1.0)))
        .unwrap();
    world
        .add_spring(Spring::new(a, b).kind(SpringKind::Rod))
        .unwrap();
    world
}

/// A zigzag ground and a closed rock of terrain with boxes landing on
/// both, free points in front of, behind and at the vertices of its
/// segments, a wall, and a rod: the terrain's contacts in every kernel that
/// collides.
pub fn terrain_world() -> World {
    let mut world = World::default();
    let ground = vec![
        Vec2::new(8.0, 0.0),
        Vec2::new(4.0, 1.0),
        Vec2::new(0.0, -0.5),
        Vec2::new(-4.0, 1.0),
        Vec2::new(-8.0, 0.0),
    ];
    world.add_terrain(Terrain::new(ground.clone())).unwrap();
    // A wall through the ground's right end, so that the planes' collide
    // has points to push too.
    world.add_plane(HalfPlane::new(-Vec2::X, -7.9)).unwrap();
    world
        .add_terrain(
            Terrain::new(vec![
                Vec2::new(-1.0, 3.0),
                Vec2::new(1.0, 3.0),
                Vec2::new(0.0, 4.0),
            ])
            .closed()
            .thickness(0.3),
        )
        .unwrap();
    for k in 0..8 {
        let x = -6.0 + 1.6 * k as f32;
        BoxShape::new(Vec2::new(x, 1.6 + 0.1 * k as f32), Vec2::splat(0.4))
            .rotation(0.3 * k as f32)
            .style(ShapeStyle::new().vel(Vec2::new(0.5, -2.0)))
            .build(&mut world)
            .unwrap();
    }
    for (k, v) in ground.iter().enumerate() {
        for d in [
            Vec2::new(0.0, 0.01),
            Vec2::new(0.0, -0.05),
            Vec2::new(0.3, 0.0),
        ] {
            world
                .add_point(Point::new(*v + d).vel(Vec2::new(0.2 * k as f32 - 0.4, -1.0)))
                .unwrap();
        }
    }
    world.add_point(Point::new(Vec2::new(0.0, 3.3))).unwrap();
    let a = world.add_point(Point::new(Vec2::new(2.0, 2.0))).unwrap();
    let b = world
        .add_point(Point::new(Vec2::new(2.6, 2.4)).vel(Vec2::new(0.0, 1.0)))
        .unwrap();
    world
        .add_spring(Spring::new(a, b).kind(SpringKind::Rod))
        .unwrap();
    world
}

/// Bodies deep in a floor, a planet and a terrain valley
/// (`collide::sunk_bodies`), a rod whose ends start 0.3 m deep in the
/// floor, and two wheels set down 0.4 m into each other: collider and
/// body contacts that push out at the push speed.
fn deep_world() -> World {
    let (mut world, _) = crate::collide::sunk_bodies(1.0, 1.0 / 60.0);
    for x in [12.0, 12.6] {
        Wheel::new(Vec2::new(x, 0.6), 0.5, 12)
            .build(&mut world)
            .unwrap();
    }
    let a = world.add_point(Point::new(Vec2::new(3.0, -0.3))).unwrap();
    let b = world
        .add_point(Point::new(Vec2::new(3.8, -0.3)).vel(Vec2::new(0.0, 1.0)))
        .unwrap();
    world
        .add_spring(Spring::new(a, b).kind(SpringKind::Rod))
        .unwrap();
    world
}

/// Boxes turned at various angles flying at the floor and at a planet
/// with sliding speed, at heights that put some of them one substep from
/// their impact when a stage is checked (after 6 substeps): the rigid
/// impacts with friction and spin of shape matching's `plane_impacts`.
fn landing_world() -> World {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let (centre, radius) = (Vec2::new(30.0, 0.0), 5.0);
    world.add_planet(Planet::new(centre, radius)).unwrap();
    for k in 0..12 {
        let gap = 0.10 + 0.01 * k as f32;
        let angle: f32 = [0.0, 0.4, -0.7, 0.05][k % 4];
        let size = [Vec2::splat(0.5), Vec2::new(0.6, 0.2), Vec2::new(0.3, 0.3)][k % 3];
        let reach = (size.x * angle.sin().abs() + size.y * angle.cos().abs()) / 2.0;
        let dx = 0.75 * k as f32 - 4.0;
        let surface = (radius * radius - dx * dx).sqrt();
        for (at, slide) in [
            (Vec2::new(2.0 * k as f32, gap + reach), 6.0),
            (Vec2::new(centre.x + dx, surface + gap + reach), -4.0),
        ] {
            BoxShape::new(at, size)
                .rotation(angle)
                .style(ShapeStyle::new().vel(Vec2::new(slide, -10.0)))
                .build(&mut world)
                .unwrap();
        }
    }
    // A rod, so that every stage has something to do in this world too.
    let a = world.add_point(Point::new(Vec2::new(-3.0, 2.0))).unwrap();
    let b = world
        .add_point(Point::new(Vec2::new(-2.0, 2.5)).vel(Vec2::new(1.0, 0.0)))
        .unwrap();
    world
        .add_spring(Spring::new(a, b).kind(SpringKind::Rod))
        .unwrap();
    world
}

pub fn check_stage(
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
    // The points' settled state too, which the collider stages read.
    gpu.set_warm_starts(&ctx.queue, cpu.warm_starts()).unwrap();
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
        Stage::MoveBodies => cpu.stage_move_bodies(),
        Stage::WakeFlagged => cpu.stage_wake_flagged(),
        Stage::Collide => cpu.stage_collide(),
        Stage::Terrain => cpu.stage_terrain(),
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
        Stage::Sleep => unreachable!("tests/stages/sleep.rs checks sleeping against the CPU"),
        Stage::MoveColliders => {
            unreachable!("tests/stages/move_colliders.rs checks moving colliders against the CPU")
        }
        Stage::Narrow | Stage::Impact | Stage::Resolve | Stage::Untangle => {
            unreachable!(
                "tests/stages/body_collide.rs checks the first contact pass and tangle recovery against the CPU"
            )
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
    // The collider stages note which unsettled points they lift out of
    // the skin (WARM_SKIN) alike.
    if matches!(
        stage,
        Stage::Collide | Stage::IntegrateCollide | Stage::ApplyIntegrateCollide | Stage::Terrain
    ) && !cpu.warm_starts().is_empty()
    {
        let skin = |w: &[[u32; 4]]| -> Vec<bool> {
            w.iter()
                .map(|w| w[3] & softbody::layout::WARM_SKIN != 0)
                .collect()
        };
        let warm = gpu.read_warm_starts(&ctx.device, &ctx.queue).unwrap();
        if !warm.is_empty() {
            assert!(
                skin(&warm) == skin(cpu.warm_starts()),
                "{what}: the skin bits differ"
            );
        }
    }
    // The stage did something, so agreement is not agreement on a no-op.
    let changed = before.0 != cpu.positions() || before.1 != cpu.velocities();
    assert!(
        changed,
        "{what}: the stage changed nothing; the scene does not exercise it"
    );
    (dp, dv)
}

/// Each of `stages` on every scene of [`scenes`], on the GPU against the
/// CPU ([`check_stage`]).
pub fn stages_match_the_cpu(stages: &[Stage]) {
    let Some(ctx) = gpu() else { return };
    eprintln!("adapter: {}", ctx.adapter_summary());
    for (name, world, pos) in scenes() {
        for &stage in stages {
            check_stage(&ctx, name, &world, &pos, stage);
        }
    }
}

/// Steps `world` 60 steps on the CPU, and 20 again from a checkpoint saved
/// at step 40: the resumed run equals the straight one bitwise. On the
/// GPU likewise from a checkpoint of its own run; and a GPU restored from
/// the CPU's checkpoint holds its state bitwise, and 20 steps on is within
/// 1% of the CPU (NVIDIA's fused multiply-adds round otherwise, and the
/// contacts grow the difference). Returns the straight CPU run and the
/// resumed one, for more checks.
pub fn assert_checkpoint_resumes(world: &World) -> (CpuSolver, CpuSolver) {
    use softbody::checkpoint::Checkpoint;
    let mut straight = CpuSolver::new(world).unwrap();
    for _ in 0..40 {
        straight.step();
    }
    let saved = Checkpoint::of_cpu(&straight, 40.0 * world.params.dt as f64);
    let bytes = saved.to_bytes().unwrap();
    for _ in 0..20 {
        straight.step();
    }
    let mut resumed = crate::common::restored_cpu(&bytes, world);
    for _ in 0..20 {
        resumed.step();
    }
    assert_eq!(resumed.positions(), straight.positions());
    assert_eq!(resumed.velocities(), straight.velocities());
    if let Some(ctx) = gpu() {
        let (device, queue) = (&ctx.device, &ctx.queue);
        let mut g = GpuSolver::new(device, queue, world).unwrap();
        Checkpoint::from_bytes(&bytes)
            .unwrap()
            .restore_gpu(&mut g, queue)
            .unwrap();
        let state = g.read_state(device, queue).unwrap();
        assert_eq!((state.pos, state.vel), (saved.pos, saved.vel));
        g.step(device, queue, 20).unwrap();
        let state = g.read_state(device, queue).unwrap();
        assert_close("resumed pos", &state.pos, straight.positions(), 1e-2);

        let mut straight_gpu = GpuSolver::new(device, queue, world).unwrap();
        straight_gpu.step(device, queue, 40).unwrap();
        let time = 40.0 * world.params.dt as f64;
        let saved_gpu = Checkpoint::of_gpu(&straight_gpu, device, queue, time).unwrap();
        straight_gpu.step(device, queue, 20).unwrap();
        let mut resumed_gpu = GpuSolver::new(device, queue, world).unwrap();
        Checkpoint::from_bytes(&saved_gpu.to_bytes().unwrap())
            .unwrap()
            .restore_gpu(&mut resumed_gpu, queue)
            .unwrap();
        resumed_gpu.step(device, queue, 20).unwrap();
        let (a, b) = (
            straight_gpu.read_state(device, queue).unwrap(),
            resumed_gpu.read_state(device, queue).unwrap(),
        );
        assert_eq!((a.pos, a.vel), (b.pos, b.vel), "the GPU resumed");
    }
    (straight, resumed)
}
