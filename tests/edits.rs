//! Changing the world while it runs: appended shapes, removed bodies and
//! points, moved pinned points and new parameters, on both paths.
//!
//! The invariant behind every test: after an edit, a solver steps exactly
//! what a solver built from scratch on the edited world would, given the
//! same state; so the two must stay bitwise identical from then on.

mod common;

use common::gpu;
use softbody::gpu::GpuContext;
use softbody::pack::Packed;
use softbody::prelude::*;
use softbody::solver::Solver;

/// A box alone, then a grid of 3 x 2 cells sharing corners.
fn box_and_grid(w: &mut World) {
    BoxShape::new(Vec2::new(-2.0, 1.0), Vec2::splat(0.5))
        .build(w)
        .unwrap();
    BoxGrid::new(3, 2, Vec2::splat(0.4))
        .center(Vec2::new(0.0, 2.0))
        .build(w)
        .unwrap();
}

fn base_world() -> World {
    let mut w = World::default();
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    w.add_planet(Planet::new(Vec2::new(4.0, 1.0), 1.0)).unwrap();
    box_and_grid(&mut w);
    Wheel::new(Vec2::new(2.0, 2.0), 0.4, 10)
        .build(&mut w)
        .unwrap();
    // 40 points: a large body (one workgroup each).
    Blob::new(Vec2::new(-1.0, 4.0), 0.8, 40)
        .body_stiffness(400.0)
        .build(&mut w)
        .unwrap();
    Rope::new(Vec2::new(3.0, 5.0), Vec2::new(5.0, 5.0), 8)
        .pin_first(true)
        .spring_kind(SpringKind::Rod)
        .build(&mut w)
        .unwrap();
    w
}

/// Adds one of everything, some of it on new materials and colliders.
fn add_more(w: &mut World, at: f32) -> Shape {
    let bouncy = w
        .add_material(Material {
            elasticity: Some(0.8),
            friction: None,
            ..Material::DEFAULT
        })
        .unwrap();
    w.add_planet(Planet::new(Vec2::new(-4.0, at), 0.5)).unwrap();
    let b = BoxShape::new(Vec2::new(0.5, at), Vec2::splat(0.3))
        .material(bouncy)
        .build(w)
        .unwrap();
    Blob::new(Vec2::new(-2.0, at), 0.5, 36).build(w).unwrap();
    Rope::new(Vec2::new(1.0, at + 1.0), Vec2::new(2.0, at + 1.0), 5)
        .spring_kind(SpringKind::Soft)
        .pin_last(true)
        .build(w)
        .unwrap();
    b
}

#[test]
fn packed_edits_equal_a_fresh_pack() {
    let mut w = base_world();
    let mut p = Packed::from_world(&w).unwrap();

    add_more(&mut w, 6.0);
    p.append_from(&w).unwrap();
    assert_eq!(
        p.compacted(),
        Packed::from_world(&w).unwrap(),
        "after appending"
    );

    // A grid cell whose corners are partly shared, then a whole box.
    let r = w.remove_body(BodyHandle(2)).unwrap();
    p.apply_removal(&w, &r).unwrap();
    assert_eq!(
        p.compacted(),
        Packed::from_world(&w).unwrap(),
        "after removing a cell"
    );
    let r = w.remove_body(BodyHandle(0)).unwrap();
    assert_eq!(r.point_remap().new_len(), r.point_remap().old_len() - 4);
    p.apply_removal(&w, &r).unwrap();
    assert_eq!(
        p.compacted(),
        Packed::from_world(&w).unwrap(),
        "after removing a box"
    );

    // Points out of the middle of the large blob: it is reshaped.
    let blob = w
        .bodies()
        .iter()
        .position(|b| b.points.len() == 40)
        .unwrap();
    let cut: Vec<PointHandle> = w.bodies()[blob].points[5..12].to_vec();
    let r = w.remove_points(&cut).unwrap();
    assert_eq!(r.reshaped().len(), 1);
    p.apply_removal(&w, &r).unwrap();
    assert_eq!(
        p.compacted(),
        Packed::from_world(&w).unwrap(),
        "after cutting the blob"
    );

    // Springs and rods alone (a joint broken): every point and body stays.
    let n = w.springs().len() as u32;
    let rod = w.springs().iter().position(|s| s.kind == SpringKind::Rod);
    let mut cut = vec![SpringHandle(0), SpringHandle(n / 2), SpringHandle(n - 1)];
    cut.extend(rod.map(|i| SpringHandle(i as u32)));
    let (points, bodies) = (w.points().len(), w.bodies().len());
    let r = w.remove_springs(&cut).unwrap();
    assert_eq!((w.points().len(), w.bodies().len()), (points, bodies));
    assert_eq!(w.springs().len() as u32, n - cut.len() as u32);
    p.apply_removal(&w, &r).unwrap();
    assert_eq!(
        p.compacted(),
        Packed::from_world(&w).unwrap(),
        "after cutting springs"
    );
    let e = w
        .remove_springs(&[SpringHandle(n)])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&format!("spring {n}")) && e.contains("does not exist"),
        "{e}"
    );

    w.params.spring_stiffness = 1234.0;
    w.params.shape_damping = 3.0;
    w.params.elasticity = 0.1;
    w.params.gravity = Vec2::new(1.0, -2.0);
    p.resolve_defaults(&w);
    assert_eq!(
        p.compacted(),
        Packed::from_world(&w).unwrap(),
        "after new defaults"
    );
}

/// An edit that appends items linking no earlier point is packed in place,
/// the new items alone (`Packed::sync_in_place`), and equals a fresh pack
/// of the edited world whatever it adds: boxes turned and with diagonal
/// springs, a large blob, a hubless ring, a pinned rope of rods, free
/// points (disks), a kinematic body, a pressure body, a box of another
/// size (the grid's cell and the contact scale follow the colliders'
/// sizes), and a body on a new material, whose new contact filter must
/// come before the free points' (its contact data is packed whole again).
/// An append that links an earlier point is left to `Packed::synced`, and
/// a failed one changes nothing.
#[test]
fn appends_of_unlinked_items_pack_as_a_fresh_world() {
    let mut w = base_world();
    // A free point: its contact filter follows the bodies'.
    w.add_point(Point::new(Vec2::new(9.0, 9.0)).layers(2))
        .unwrap();
    let mut p = Packed::from_world(&w).unwrap();
    let params = w.params.clone();
    type Edit = fn(&mut World);
    let edits: [(&str, Edit); 9] = [
        ("a box", |w| {
            BoxShape::new(Vec2::new(0.0, 8.0), Vec2::splat(0.5))
                .build(w)
                .unwrap();
        }),
        ("boxes with diagonals and a hubless ring", |w| {
            for k in 0..5 {
                BoxShape::new(Vec2::new(k as f32, 9.0), Vec2::splat(0.22))
                    .rotation(0.3 * k as f32)
                    .diagonals(true)
                    .build(w)
                    .unwrap();
            }
            Blob::new(Vec2::new(6.0, 9.0), 0.12, 8)
                .center_point(false)
                .build(w)
                .unwrap();
        }),
        ("a large blob", |w| {
            Blob::new(Vec2::new(-3.0, 9.0), 0.9, 40).build(w).unwrap();
        }),
        ("a pinned rope of rods", |w| {
            Rope::new(Vec2::new(3.0, 12.0), Vec2::new(5.0, 12.0), 6)
                .pin_first(true)
                .spring_kind(SpringKind::Rod)
                .build(w)
                .unwrap();
        }),
        ("free points", |w| {
            for k in 0..3 {
                w.add_point(Point::new(Vec2::new(k as f32, 14.0)).layers(2))
                    .unwrap();
            }
        }),
        ("a kinematic body", |w| {
            let s = BoxShape::new(Vec2::new(8.0, 1.0), Vec2::new(2.0, 0.2))
                .build(w)
                .unwrap();
            w.set_kinematic(s.bodies[0], Vec2::X, 0.1).unwrap();
        }),
        ("a pressure body", |w| {
            Blob::new(Vec2::new(-6.0, 9.0), 0.4, 12)
                .inflation(1.3)
                .build(w)
                .unwrap();
        }),
        ("a box of another size", |w| {
            BoxShape::new(Vec2::new(12.0, 3.0), Vec2::splat(3.0))
                .build(w)
                .unwrap();
        }),
        ("a box on a new material", |w| {
            let m = w
                .add_material(Material {
                    elasticity: Some(0.7),
                    ..Material::DEFAULT
                })
                .unwrap();
            BoxShape::new(Vec2::new(-9.0, 3.0), Vec2::splat(0.5))
                .material(m)
                .build(w)
                .unwrap();
        }),
    ];
    for (what, edit) in edits {
        edit(&mut w);
        let local = p.sync_in_place(w.generation(), &w, Some(&params));
        assert!(local.unwrap(), "{what}: not packed in place");
        assert_eq!(p.compacted(), Packed::from_world(&w).unwrap(), "{what}");
    }
    // A spring to a point packed before: the other path, unchanged.
    let before = p.clone();
    let end = w.add_point(Point::new(Vec2::new(-2.0, 3.0))).unwrap();
    w.add_spring(Spring::new(PointHandle(0), end)).unwrap();
    let local = p.sync_in_place(w.generation(), &w, Some(&params));
    assert!(
        !local.unwrap(),
        "a link to an earlier point packed in place"
    );
    assert_eq!(p, before);
    let mut p = p.synced(w.generation(), &w, Some(&params)).unwrap();
    assert_eq!(
        p.compacted(),
        Packed::from_world(&w).unwrap(),
        "the linking append"
    );
    // A body that diverges on its own: refused, nothing changed.
    let before = p.clone();
    BoxShape::new(Vec2::new(20.0, 3.0), Vec2::splat(0.5))
        .body_stiffness(1e9)
        .build(&mut w)
        .unwrap();
    let e = p
        .sync_in_place(w.generation(), &w, Some(&params))
        .unwrap_err();
    assert!(matches!(e, WorldError::Unstable { .. }), "{e}");
    assert_eq!(p, before, "a refused append changes nothing");
}

#[test]
fn removing_points_of_a_body_down_to_one_removes_the_body() {
    let mut w = World::default();
    let a = BoxShape::new(Vec2::ZERO, Vec2::ONE).build(&mut w).unwrap();
    let b = BoxShape::new(Vec2::new(2.0, 0.0), Vec2::ONE)
        .build(&mut w)
        .unwrap();
    let r = w.remove_points(&a.points[..3]).unwrap();
    assert_eq!(r.body(a.bodies[0]), None);
    assert_eq!(r.body(b.bodies[0]), Some(BodyHandle(0)));
    // Box b's last three points fill the removed points' places; the
    // rest keep theirs.
    assert_eq!(r.point(a.points[3]), Some(PointHandle(3)));
    assert_eq!(r.point(b.points[0]), Some(PointHandle(4)));
    assert_eq!(r.point(b.points[1]), Some(PointHandle(0)));
    assert_eq!(r.point(b.points[3]), Some(PointHandle(2)));
    assert_eq!(w.points().len(), 5);
    // Every spring of box a touched a removed point; box b's take their
    // places, in order, with their ends renumbered.
    assert_eq!(w.springs().len(), 6);
    assert_eq!(
        (w.springs()[0].a, w.springs()[0].b),
        (PointHandle(4), PointHandle(0))
    );
    assert_eq!(w.bodies()[0].points, [4, 0, 1, 2].map(PointHandle));
    assert!(matches!(
        w.remove_points(&[PointHandle(99)]),
        Err(WorldError::UnknownHandle { .. })
    ));
    assert!(matches!(
        w.remove_body(BodyHandle(7)),
        Err(WorldError::UnknownHandle { .. })
    ));
}

#[test]
fn cpu_edits_keep_state_and_match_a_fresh_solver() {
    let mut w = base_world();
    let mut cpu = CpuSolver::new(&w).unwrap();
    for _ in 0..20 {
        cpu.step();
    }
    let before = cpu.positions().to_vec();
    let n0 = before.len();
    add_more(&mut w, 6.0);
    cpu.sync(&w).unwrap();
    assert_eq!(
        &cpu.positions()[..n0],
        &before[..],
        "old points keep their state"
    );
    let initial: Vec<[f32; 2]> = w.points()[n0..].iter().map(|p| p.pos.to_array()).collect();
    assert_eq!(&cpu.positions()[n0..], &initial[..]);
    for _ in 0..20 {
        cpu.step();
    }

    let pre = (cpu.positions().to_vec(), cpu.velocities().to_vec());
    let r = w.remove_body(BodyHandle(3)).unwrap();
    cpu.apply_removal(&w, &r).unwrap();
    assert_eq!(cpu.positions(), &r.point_remap().apply(&pre.0)[..]);
    assert_eq!(cpu.velocities(), &r.point_remap().apply(&pre.1)[..]);
    w.params.spring_stiffness = 800.0;
    cpu.sync(&w).unwrap();
    for _ in 0..10 {
        cpu.step();
    }

    // The evolving state: positions, velocities and the contacts' warm
    // starts (sleeping is woken by both the edit and set_state).
    let mut fresh = CpuSolver::new(&w).unwrap();
    fresh.set_state(cpu.positions(), cpu.velocities()).unwrap();
    fresh.set_warm_starts(cpu.warm_starts()).unwrap();
    for _ in 0..30 {
        cpu.step();
        fresh.step();
    }
    assert_eq!(
        cpu.packed().compacted(),
        fresh.packed().compacted(),
        "bitwise identical"
    );
    assert!(cpu.positions().iter().flatten().all(|x| x.is_finite()));
}

/// The static arrays only (the GPU solver's copy holds no current state).
fn statics(p: &Packed) -> Packed {
    let mut p = p.compacted();
    p.pos.clear();
    p.vel.clear();
    p
}

fn gpu_state(s: &GpuSolver, ctx: &GpuContext) -> (Vec<[f32; 2]>, Vec<[f32; 2]>) {
    let st = s.read_state(&ctx.device, &ctx.queue).unwrap();
    (st.pos, st.vel)
}

#[test]
fn gpu_edits_keep_state_and_match_a_fresh_solver() {
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut w = base_world();
    let mut cpu = CpuSolver::new(&w).unwrap();
    let mut s = GpuSolver::new(d, q, &w).unwrap();
    step_both(&ctx, &mut s, &mut cpu, 20);
    let (pos0, vel0) = gpu_state(&s, &ctx);
    let n0 = pos0.len();

    // Growing past the capacity reallocates, and keeps the state.
    add_more(&mut w, 6.0);
    let report = s.sync(d, q, &w).unwrap();
    cpu.sync(&w).unwrap();
    assert!(report.reallocated);
    assert_eq!(s.buffer_generation(), 1);
    let (pos, vel) = gpu_state(&s, &ctx);
    assert_eq!(&pos[..n0], &pos0[..]);
    assert_eq!(&vel[..n0], &vel0[..]);
    assert_eq!(&pos[n0..], &cpu.positions()[n0..]);
    step_both(&ctx, &mut s, &mut cpu, 10);

    // A smaller addition fits in the doubled buffers: no reallocation,
    // only the changed ranges are written.
    let n1 = s.num_points();
    BoxShape::new(Vec2::new(3.0, 8.0), Vec2::splat(0.3))
        .build(&mut w)
        .unwrap();
    let report = s.sync(d, q, &w).unwrap();
    cpu.sync(&w).unwrap();
    assert!(!report.reallocated, "{report:?}");
    assert_eq!(s.buffer_generation(), 1);
    eprintln!(
        "a box added to {n1} points: {} bytes uploaded of {} held",
        report.bytes_uploaded,
        s.gpu_bytes()
    );
    assert!(report.bytes_uploaded < s.gpu_bytes() / 2, "{report:?}");

    // A removal compacts the state on the GPU.
    let (pre_pos, pre_vel) = gpu_state(&s, &ctx);
    let r = w.remove_body(BodyHandle(4)).unwrap();
    let report = s.apply_removal(d, q, &w, &r).unwrap();
    cpu.apply_removal(&w, &r).unwrap();
    assert!(!report.reallocated);
    let (pos, vel) = gpu_state(&s, &ctx);
    assert_eq!(pos, r.point_remap().apply(&pre_pos));
    assert_eq!(vel, r.point_remap().apply(&pre_vel));
    let blob = w
        .bodies()
        .iter()
        .position(|b| b.points.len() == 36)
        .unwrap();
    let cut = w.bodies()[blob].points[..4].to_vec();
    let r = w.remove_points(&cut).unwrap();
    s.apply_removal(d, q, &w, &r).unwrap();
    cpu.apply_removal(&w, &r).unwrap();
    assert_eq!(statics(s.packed()), statics(cpu.packed()));
    assert_eq!(s.spring_index_count() as usize, 2 * w.springs().len());
    step_both(&ctx, &mut s, &mut cpu, 20);

    // From here on the edited solver and a fresh one are the same program
    // on the same data; and it still agrees with the CPU path (the edits did
    // not scramble anything): 100 steps of mostly resting contact.
    let worst = steps_as_a_fresh_solver_would(&ctx, &w, &mut s, &mut cpu, 30);
    eprintln!("GPU vs CPU after the edits: max deviation {worst:.2e} m");
    assert!(worst < 0.05, "{worst}");
}

/// Appends that link no earlier point (boxes turned and with diagonal
/// springs, a hubless ring, free points) into a running world with
/// contacts: the second one fits the buffers, the contact buffers
/// included (the first one may double them), writes only the arrays' new
/// tails (`Packed::sync_in_place`, `ContactBuffers::write_appended`), and
/// the edited solver then steps bitwise as a fresh one and agrees with the
/// CPU path.
#[test]
fn gpu_appends_of_unlinked_items_step_as_a_fresh_solver() {
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut w = base_world();
    let mut cpu = CpuSolver::new(&w).unwrap();
    let mut s = GpuSolver::new(d, q, &w).unwrap();
    step_both(&ctx, &mut s, &mut cpu, 20);
    let add = |w: &mut World, x: f32| {
        BoxShape::new(Vec2::new(x, 3.0), Vec2::splat(0.3))
            .rotation(0.4)
            .diagonals(true)
            .build(w)
            .unwrap();
        Blob::new(Vec2::new(x + 0.6, 3.2), 0.15, 8)
            .center_point(false)
            .build(w)
            .unwrap();
        w.add_point(Point::new(Vec2::new(x, 4.0))).unwrap();
    };
    for (k, x) in [-3.0, -4.0].into_iter().enumerate() {
        let before = s.num_points();
        let held = s.gpu_bytes();
        add(&mut w, x);
        let report = s.sync(d, q, &w).unwrap();
        cpu.sync(&w).unwrap();
        // The first may outgrow the buffers (the contact buffers' too,
        // which it makes again with twice the room); the second fits them
        // all, and is written into their room.
        assert!(k == 0 || !report.reallocated, "append {k}: {report:?}");
        assert!(
            k == 0 || s.gpu_bytes() == held,
            "append {k}: buffers made again"
        );
        assert_eq!(
            statics(s.packed()),
            statics(&Packed::from_world(&w).unwrap())
        );
        if k == 1 {
            // The new points' records, the body order and the contact
            // data (uploaded whole): under half the solver's bytes.
            eprintln!(
                "an append of {} points to {before}: {} bytes uploaded of {} held",
                s.num_points() - before,
                report.bytes_uploaded,
                s.gpu_bytes()
            );
            assert!(report.bytes_uploaded < s.gpu_bytes() / 2, "{report:?}");
        }
        step_both(&ctx, &mut s, &mut cpu, 10);
    }
    let worst = steps_as_a_fresh_solver_would(&ctx, &w, &mut s, &mut cpu, 30);
    eprintln!("GPU vs CPU after the appends: max deviation {worst:.2e} m");
    assert!(worst < 0.05, "{worst}");
}

/// A spawn far away leaves the contacts of what was there as they were:
/// a stack of three boxes and a hubless ring on a floor, awake (sleeping
/// off) and pressing on each other, steps after a box of the same size
/// is synced in 30 m away bitwise as it does without it, on both paths.
/// The points' warm starts and the bodies' tangles carry over the append
/// (`Contacts::extend`; on the GPU, copied into the new contact buffers);
/// when every sync set them back to zero, the stack took a jolt from each
/// spawn anywhere in the world.
#[test]
fn a_spawn_far_away_leaves_the_others_stepping_as_without_it() {
    let mut w = World::new(Params {
        sleep_speed: 0.0,
        ..Params::default()
    });
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    for k in 0..3 {
        BoxShape::new(
            Vec2::new(0.05 * k as f32, 0.26 + 0.5 * k as f32),
            Vec2::splat(0.5),
        )
        .build(&mut w)
        .unwrap();
    }
    Blob::new(Vec2::new(0.1, 1.8), 0.25, 10)
        .center_point(false)
        .build(&mut w)
        .unwrap();
    let kept = w.points().len();
    let mut spawned = w.clone();
    BoxShape::new(Vec2::new(30.0, 0.26), Vec2::splat(0.5))
        .build(&mut spawned)
        .unwrap();
    for (mut alone, mut with) in solver_pairs(&w, &w) {
        alone.step(30).unwrap();
        with.step(30).unwrap();
        with.sync(&spawned).unwrap();
        alone.step(30).unwrap();
        with.step(30).unwrap();
        let (a, b) = (alone.state().unwrap(), with.state().unwrap());
        let moved = (0..kept)
            .map(|i| (Vec2::from(a.0[i]) - Vec2::from(b.0[i])).length())
            .fold(0.0f32, f32::max);
        eprintln!("{}: largest difference {moved:e} m", alone.name());
        assert_eq!(a.0[..kept], b.0[..kept], "{}: positions", alone.name());
        assert_eq!(a.1[..kept], b.1[..kept], "{}: velocities", alone.name());
    }
}

/// A removal far away leaves the contacts of what is left as they were: a
/// box lying 30 m from a stack of three boxes and a hubless ring (awake,
/// sleeping off, pressing on each other) is removed, and the world steps
/// on bitwise as a world that never had it, on both paths. The last body,
/// a box 30 m the other way, fills the removed one's place (its points,
/// springs and body move), and the stack keeps its numbering. The points'
/// warm starts and the bodies' tangles follow the removal's maps
/// (`Contacts::remap`; on the GPU, `remap_contacts.wgsl`); when a
/// removal set them back to zero, the stack took a jolt from each
/// removal anywhere in the world.
#[test]
fn a_removal_far_away_leaves_the_others_stepping_as_without_it() {
    let params = Params {
        sleep_speed: 0.0,
        ..Params::default()
    };
    let mut alone = World::new(params.clone());
    let mut with = World::new(params);
    for w in [&mut alone, &mut with] {
        w.add_plane(HalfPlane::floor(0.0)).unwrap();
    }
    let far = |x: f32, w: &mut World| {
        BoxShape::new(Vec2::new(x, 0.26), Vec2::splat(0.5))
            .build(w)
            .unwrap();
    };
    far(30.0, &mut with);
    far(-30.0, &mut alone);
    for w in [&mut alone, &mut with] {
        for k in 0..3 {
            BoxShape::new(
                Vec2::new(0.05 * k as f32, 0.26 + 0.5 * k as f32),
                Vec2::splat(0.5),
            )
            .build(w)
            .unwrap();
        }
        Blob::new(Vec2::new(0.1, 1.8), 0.25, 10)
            .center_point(false)
            .build(w)
            .unwrap();
    }
    far(-30.0, &mut with);
    let mut removed = with.clone();
    let removal = removed.remove_body(BodyHandle(0)).unwrap();
    assert_eq!(removal.body(BodyHandle(5)), Some(BodyHandle(0)));
    assert_eq!(removed.points(), alone.points());
    assert_eq!(removed.springs(), alone.springs());
    assert_eq!(removed.bodies(), alone.bodies());
    // Stepped before the removal as they are numbered then: the moved
    // box's state goes with it.
    let (w0, w1) = (with.points().len(), alone.points().len());
    for (mut a, mut b) in solver_pairs(&alone, &with) {
        a.step(30).unwrap();
        b.step(30).unwrap();
        let (sa, sb) = (a.state().unwrap(), b.state().unwrap());
        assert_eq!(sa.0[..4], sb.0[w0 - 4..], "{}: the far box", a.name());
        assert_eq!(sa.0[4..w1], sb.0[4..w1], "{}: the stack", a.name());
        b.apply_removal(&removed, &removal).unwrap();
        a.step(30).unwrap();
        b.step(30).unwrap();
        let (sa, sb) = (a.state().unwrap(), b.state().unwrap());
        let moved = (0..sa.0.len())
            .map(|i| (Vec2::from(sa.0[i]) - Vec2::from(sb.0[i])).length())
            .fold(0.0f32, f32::max);
        eprintln!("{}: largest difference {moved:e} m", a.name());
        assert_eq!(sa.0, sb.0, "{}: positions", a.name());
        assert_eq!(sa.1, sb.1, "{}: velocities", a.name());
    }
}

/// The GPU's remap of warm starts and tangles on a removal
/// (`remap_contacts.wgsl`) writes what the CPU mirror's functions make of
/// the words it held (`remap_warm`, `remap_tangle`), bit for bit: a bar
/// tangled with a box is removed from a row of such pairs pressed into
/// each other, so that kept points' contacts name renumbered and removed
/// bodies, and kept tangles name renumbered bodies in new assemblies.
#[test]
fn a_removals_remap_of_warm_starts_and_tangles_matches_the_cpu() {
    use softbody::cpu::body_collide::{remap_warm, untangle::remap_tangle};
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut w = World::new(Params {
        sleep_speed: 0.0,
        ..Params::default()
    });
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    // Pairs pressed into each other so that their centres lie inside the
    // other (tangled), in a row that touches: bodies 0 and 1, 2 and 3 ...
    for k in 0..4 {
        let x = 0.75 * k as f32;
        BoxShape::new(Vec2::new(x, 0.26), Vec2::splat(0.5))
            .build(&mut w)
            .unwrap();
        BoxShape::new(Vec2::new(x + 0.05, 0.3), Vec2::new(0.4, 0.3))
            .diagonals(true)
            .build(&mut w)
            .unwrap();
    }
    let mut s = GpuSolver::new(d, q, &w).unwrap();
    s.step(d, q, 2).unwrap();
    let (warm, tangles) = (
        s.read_warm_starts(d, q).unwrap(),
        s.read_tangles(d, q).unwrap(),
    );
    let tangled = |t: &[[u32; 8]]| t.iter().filter(|t| t[0] != 0 || t[4] != 0).count();
    assert!(tangled(&tangles) >= 4, "too few tangles: {tangles:?}");
    // Body 5, a bar tangled with body 4 and touching bodies 6 and 7.
    let mut removed = w.clone();
    let removal = removed.remove_body(BodyHandle(5)).unwrap();
    s.apply_removal(d, q, &removed, &removal).unwrap();
    let packed = s.packed().clone();
    let (points, bodies) = (removal.point_remap(), removal.body_remap());
    let mut want_warm = vec![[0u32; 4]; packed.pos.len()];
    for (w, to) in warm.iter().zip(points.to_vec()) {
        if let Some(t) = want_warm.get_mut(to as usize) {
            *t = remap_warm(w, bodies);
        }
    }
    let mut want_tangles = vec![[0u32; 8]; packed.bodies.len()];
    for (t, to) in tangles.iter().zip(bodies.to_vec()) {
        if let Some(n) = want_tangles.get_mut(to as usize) {
            for k in 0..2 {
                let slot = [t[4 * k], t[4 * k + 1], t[4 * k + 2], t[4 * k + 3]];
                n[4 * k..4 * k + 4].copy_from_slice(&remap_tangle(slot, bodies, &packed.outlines));
            }
        }
    }
    assert!(
        tangled(&want_tangles) >= 2,
        "no tangle kept: {want_tangles:?}"
    );
    assert!(
        want_warm.iter().any(|w| w[1] != u32::MAX && w[1] != 0),
        "no warm start names a renumbered body"
    );
    assert_eq!(s.read_warm_starts(d, q).unwrap(), want_warm, "warm starts");
    assert_eq!(s.read_tangles(d, q).unwrap(), want_tangles, "tangles");
}

/// A solver of `a` and one of `b` on the CPU, then on the GPU when there
/// is an adapter.
fn solver_pairs(a: &World, b: &World) -> Vec<(Solver, Solver)> {
    let mut pairs = vec![(Solver::cpu(a).unwrap(), Solver::cpu(b).unwrap())];
    if let (Some(ca), Some(cb)) = (gpu(), gpu()) {
        pairs.push((
            Solver::gpu_on(ca, a).unwrap(),
            Solver::gpu_on(cb, b).unwrap(),
        ));
    }
    pairs
}

/// `steps` steps of the GPU solver `s` and of the CPU solver `cpu`.
fn step_both(ctx: &GpuContext, s: &mut GpuSolver, cpu: &mut CpuSolver, steps: u32) {
    s.step(&ctx.device, &ctx.queue, steps).unwrap();
    for _ in 0..steps {
        cpu.step();
    }
}

/// Checks that `s` holds what a solver made afresh from `w` would and that,
/// given `s`'s state (warm starts included), the two step bitwise alike for `steps` steps; steps
/// `cpu` as far and returns the largest position difference between the
/// GPU and CPU paths, in metres.
fn steps_as_a_fresh_solver_would(
    ctx: &GpuContext,
    w: &World,
    s: &mut GpuSolver,
    cpu: &mut CpuSolver,
    steps: u32,
) -> f32 {
    let (d, q) = (&ctx.device, &ctx.queue);
    let (pos, vel) = gpu_state(s, ctx);
    let mut fresh = GpuSolver::new(d, q, w).unwrap();
    fresh.set_state(q, &pos, &vel).unwrap();
    fresh
        .set_warm_starts(q, &s.read_warm_starts(d, q).unwrap())
        .unwrap();
    assert_eq!(statics(s.packed()), statics(fresh.packed()));
    s.step(d, q, steps).unwrap();
    fresh.step(d, q, steps).unwrap();
    assert_eq!(
        gpu_state(s, ctx),
        gpu_state(&fresh, ctx),
        "bitwise identical"
    );
    for _ in 0..steps {
        cpu.step();
    }
    let (pos, _) = gpu_state(s, ctx);
    pos.iter()
        .zip(cpu.positions())
        .map(|(g, c)| (g[0] - c[0]).abs().max((g[1] - c[1]).abs()))
        .fold(0.0f32, f32::max)
}

#[test]
fn moving_a_pinned_point_drags_its_rope() {
    let mut w = World::new(Params::default());
    let rope = Rope::new(Vec2::new(0.0, 5.0), Vec2::new(2.0, 5.0), 6)
        .pin_first(true)
        .build(&mut w)
        .unwrap();
    let (pin, free) = (rope.points[0], rope.points[5]);
    let mut cpu = CpuSolver::new(&w).unwrap();
    for _ in 0..60 {
        cpu.step();
    }
    let target = Vec2::new(10.0, 5.0);
    cpu.move_pinned_point(pin, target).unwrap();
    for _ in 0..240 {
        cpu.step();
    }
    assert_eq!(cpu.positions()[pin.index()], target.to_array());
    assert!(cpu.positions()[free.index()][0] > 8.0, "the rope followed");
    assert!(matches!(
        cpu.move_pinned_point(free, target),
        Err(WorldError::NotPinned { .. })
    ));
    assert!(matches!(
        cpu.move_pinned_point(PointHandle(6), target),
        Err(WorldError::UnknownHandle { .. })
    ));
    assert!(matches!(
        cpu.move_pinned_point(pin, Vec2::new(f32::NAN, 0.0)),
        Err(WorldError::NonFinite { .. })
    ));

    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut s = GpuSolver::new(d, q, &w).unwrap();
    s.step(d, q, 60).unwrap();
    s.move_pinned_point(q, pin, target).unwrap();
    s.step(d, q, 240).unwrap();
    let (pos, _) = gpu_state(&s, &ctx);
    assert_eq!(pos[pin.index()], target.to_array());
    assert!(pos[free.index()][0] > 8.0);
    assert!(s.move_pinned_point(q, free, target).is_err());
}

#[test]
fn a_removal_the_solver_was_not_told_about_is_refused() {
    let mut w = base_world();
    let mut cpu = CpuSolver::new(&w).unwrap();
    let r1 = w.remove_body(BodyHandle(0)).unwrap();
    let e = cpu.sync(&w).unwrap_err();
    assert!(matches!(e, WorldError::OutOfSync(_)), "{e}");
    let r2 = w.remove_body(BodyHandle(0)).unwrap();
    // r1 is stale now: the world moved on.
    assert!(matches!(
        cpu.apply_removal(&w, &r1),
        Err(WorldError::OutOfSync(_))
    ));
    assert!(matches!(
        cpu.apply_removal(&w, &r2),
        Err(WorldError::OutOfSync(_))
    ));
    // A fresh solver follows the world as it is.
    let mut cpu = CpuSolver::new(&w).unwrap();
    cpu.sync(&w).unwrap();
    let r3 = w.remove_body(BodyHandle(0)).unwrap();
    cpu.apply_removal(&w, &r3).unwrap();
    assert!(cpu.apply_removal(&w, &r3).is_err(), "applied twice");
    assert_eq!(cpu.packed().compacted(), Packed::from_world(&w).unwrap());
}

#[test]
fn a_planet_added_while_running_is_collided_with_on_the_gpu() {
    // The collide kernels are made for the world's collider counts: adding
    // a planet must give new ones, on both sync paths (in place, then
    // reallocating).
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut w = World::default();
    w.add_plane(HalfPlane::floor(-100.0)).unwrap();
    let a = w.add_point(Point::new(Vec2::new(0.0, 2.0))).unwrap();
    let mut s = GpuSolver::new(d, q, &w).unwrap();
    let mut cpu = CpuSolver::new(&w).unwrap();
    let run = |s: &mut GpuSolver, cpu: &mut CpuSolver, resting: &[(PointHandle, f32)]| {
        step_both(&ctx, s, cpu, 60);
        let (pos, _) = gpu_state(s, &ctx);
        for &(p, x) in resting {
            let p = pos[p.index()];
            // On top of its planet (radius 1 plus the point radius), not
            // fallen through towards the floors.
            assert!(
                (p[0] - x).abs() < 1e-3 && p[1] > 0.99 && p[1] < 1.2,
                "point at {p:?}"
            );
        }
        // And where the CPU reference is (collide's friction exp is each
        // path's own, so not bitwise).
        for (g, c) in pos.iter().zip(cpu.positions()) {
            assert!((g[0] - c[0]).abs() < 1e-5 && (g[1] - c[1]).abs() < 1e-5);
        }
    };
    w.add_planet(Planet::new(Vec2::new(0.0, 0.0), 1.0)).unwrap();
    assert!(!s.sync(d, q, &w).unwrap().reallocated);
    cpu.sync(&w).unwrap();
    run(&mut s, &mut cpu, &[(a, 0.0)]);
    let b = w.add_point(Point::new(Vec2::new(5.0, 2.0))).unwrap();
    w.add_plane(HalfPlane::floor(-50.0)).unwrap();
    w.add_planet(Planet::new(Vec2::new(5.0, 0.0), 1.0)).unwrap();
    s.sync(d, q, &w).unwrap();
    cpu.sync(&w).unwrap();
    run(&mut s, &mut cpu, &[(a, 0.0), (b, 5.0)]);
}

#[test]
fn free_points_added_while_running_collide_on_the_gpu() {
    // The contact kernels leave the disk code out for a world without free
    // points: two added to such a world must get kernels that collide
    // them.
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut w = World::default();
    w.params.gravity = Vec2::ZERO;
    BoxShape::new(Vec2::new(0.0, 5.0), Vec2::splat(0.5))
        .build(&mut w)
        .unwrap();
    let mut s = GpuSolver::new(d, q, &w).unwrap();
    let mut cpu = CpuSolver::new(&w).unwrap();
    step_both(&ctx, &mut s, &mut cpu, 2);
    assert_eq!(Packed::from_world(&w).unwrap().sim.num_free, 0);
    let a = w
        .add_point(Point::new(Vec2::new(0.0, 0.0)).vel(Vec2::new(1.0, 0.0)))
        .unwrap();
    let b = w
        .add_point(Point::new(Vec2::new(0.5, 0.0)).vel(Vec2::new(-1.0, 0.0)))
        .unwrap();
    s.sync(d, q, &w).unwrap();
    cpu.sync(&w).unwrap();
    step_both(&ctx, &mut s, &mut cpu, 60);
    let (pos, vel) = gpu_state(&s, &ctx);
    eprintln!(
        "after the meeting: a {:?} b {:?}",
        vel[a.index()],
        vel[b.index()]
    );
    assert!(
        vel[a.index()][0] < 0.0 && vel[b.index()][0] > 0.0,
        "the disks went through each other: {:?} {:?}",
        vel[a.index()],
        vel[b.index()]
    );
    for (g, c) in pos.iter().zip(cpu.positions()) {
        assert!((g[0] - c[0]).abs() < 1e-5 && (g[1] - c[1]).abs() < 1e-5);
    }
}

#[test]
fn drawing_index_buffers_are_made_on_request_and_follow_edits() {
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut w = base_world();
    let mut s = GpuSolver::new(d, q, &w).unwrap();
    let without = s.gpu_bytes();
    let springs = |w: &World| -> Vec<u32> {
        w.springs()
            .iter()
            .flat_map(|sp| [sp.a.index() as u32, sp.b.index() as u32])
            .collect()
    };
    let read = |s: &mut GpuSolver| -> Vec<u32> {
        let n = s.spring_index_count() as usize;
        let buffer = s.spring_index_buffer().clone();
        softbody::gpu::read_buffer(d, q, &buffer, n).unwrap()
    };
    assert_eq!(read(&mut s), springs(&w));
    let edges = s.body_edge_index_count() as u64;
    s.body_edge_index_buffer();
    assert!(s.gpu_bytes() >= without + 4 * (s.spring_index_count() as u64 + edges));
    // An edit rewrites what was made.
    add_more(&mut w, 6.0);
    s.sync(d, q, &w).unwrap();
    assert_eq!(read(&mut s), springs(&w));
    // The outlines are the bodies' collision outlines (Body::outline): a
    // wheel's rim without its hub (they used to run through every member).
    let n = s.body_edge_index_count() as usize;
    let buffer = s.body_edge_index_buffer().clone();
    let edges: Vec<u32> = softbody::gpu::read_buffer(d, q, &buffer, n).unwrap();
    let outline_points: usize = w.bodies().iter().map(|b| b.outline().len()).sum();
    assert_eq!(n, 2 * outline_points);
    let wheel = w.bodies().iter().find(|b| b.boundary.is_some()).unwrap();
    let hub = wheel.points.last().unwrap().index() as u32;
    assert!(!edges.contains(&hub), "the hub {hub} is on no outline");
}

/// Frames survive a `sync` that grows their buffer (a new buffer used to
/// read zeros until the next step), and the solver's traffic estimate
/// follows the edit (it kept the counts of the world it was built with).
#[test]
fn a_growing_sync_keeps_the_frames_and_the_counts() {
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut w = World::default();
    BoxShape::new(Vec2::new(0.0, 5.0), Vec2::ONE)
        .build(&mut w)
        .unwrap();
    let mut s = GpuSolver::new(d, q, &w).unwrap();
    s.step(d, q, 5).unwrap();
    let before = s.read_frames(d, q).unwrap();
    BoxShape::new(Vec2::new(3.0, 5.0), Vec2::ONE)
        .build(&mut w)
        .unwrap();
    assert!(s.sync(d, q, &w).unwrap().reallocated);
    let after = s.read_frames(d, q).unwrap();
    assert_eq!(after[0], before[0]);
    let fresh = GpuSolver::new(d, q, &w).unwrap();
    assert_eq!(s.bytes_moved_per_substep(), fresh.bytes_moved_per_substep());
}

/// A new substep length changes the coefficients packed into the per-point
/// records (spring pulls and damping, the bodies' damping fractions): after
/// `set_params` a running GPU solver must step exactly what a solver made
/// with those parameters would, and the CPU path must follow too.
#[test]
fn a_new_substep_reaches_every_packed_coefficient() {
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut w = base_world();
    let mut s = GpuSolver::new(d, q, &w).unwrap();
    let mut cpu = CpuSolver::new(&w).unwrap();
    step_both(&ctx, &mut s, &mut cpu, 10);
    w.params.substeps = 13;
    s.set_params(q, w.params.clone()).unwrap();
    cpu.set_params(w.params.clone()).unwrap();
    let worst = steps_as_a_fresh_solver_would(&ctx, &w, &mut s, &mut cpu, 20);
    assert!(worst < 0.05, "GPU vs CPU after set_params: {worst}");
}

/// A world packed with one set of parameters and uploaded with another
/// steps as a solver made with the second set would: the substep's
/// coefficients and the uniforms follow the parameters `from_packed` is
/// given, and `packed()` shows what runs.
#[test]
fn from_packed_steps_with_the_parameters_it_is_given() {
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut w = base_world();
    let packed = Packed::from_world(&w).unwrap();
    w.params.substeps = 13;
    w.params.gravity = Vec2::new(0.5, -4.0);
    let mut s = GpuSolver::from_packed(d, q, &w.params, &packed).unwrap();
    let mut fresh = GpuSolver::new(d, q, &w).unwrap();
    assert_eq!(s.packed(), fresh.packed());
    s.step(d, q, 20).unwrap();
    fresh.step(d, q, 20).unwrap();
    assert_eq!(gpu_state(&s, &ctx), gpu_state(&fresh, &ctx), "bitwise");
}

/// Items appended and then removed before the solver heard of either.
/// When the appended items that survive fill holes past the packed
/// survivors (the last packed body removed, a box added last), the removal is followed by
/// moving, and `sync` brings them in. When they fill a packed item's hole
/// (the first body removed), the world is packed again with the packed
/// survivors' state carried over, and `sync` has nothing left to do. Both
/// give the world packed afresh with the survivors' state, on both
/// paths (a solver used to be locked out of such a world for good, by
/// `OutOfSync` from both calls).
#[test]
fn a_removal_of_items_not_yet_synced_is_followed() {
    let mut w0 = base_world();
    let last = BoxShape::new(Vec2::new(-4.0, 6.0), Vec2::splat(0.5))
        .build(&mut w0)
        .unwrap()
        .bodies[0];
    let mut cpu = CpuSolver::new(&w0).unwrap();
    for _ in 0..10 {
        cpu.step();
    }
    let start = cpu.clone();
    let (pos0, vel0) = (cpu.positions().to_vec(), cpu.velocities().to_vec());
    let mut w = w0.clone();
    add_more(&mut w, 6.0);
    // Two removals in a row: the first is stale once the second is made.
    let mut late = w.clone();
    let r1 = late.remove_body(BodyHandle(0)).unwrap();
    late.remove_body(BodyHandle(1)).unwrap();
    let e = cpu.apply_removal(&late, &r1).unwrap_err();
    assert!(matches!(e, WorldError::OutOfSync(_)), "{e}");
    // The packed world afresh, with the packed survivors' state.
    let expect = |w: &World, r: &Removal, (pos0, vel0): (&[[f32; 2]], &[[f32; 2]])| {
        let mut fresh = Packed::from_world(w).unwrap();
        for old in 0..pos0.len() as u32 {
            if let Some(to) = r.point(PointHandle(old)) {
                fresh.pos[to.index()] = pos0[old as usize];
                fresh.vel[to.index()] = vel0[old as usize];
            }
        }
        fresh
    };
    let mut fresh = Vec::new();
    for (body, follows) in [(last, true), (BodyHandle(0), false)] {
        let mut w = w.clone();
        let mut cpu = start.clone();
        let r = w.remove_body(body).unwrap();
        assert_eq!(cpu.packed().follows_removal(&r), follows, "{body:?}");
        cpu.apply_removal(&w, &r).unwrap();
        let n = r.point_remap().prefix_len(pos0.len());
        if follows {
            assert_eq!(cpu.positions(), &r.point_remap().apply(&pos0)[..]);
            assert_eq!(cpu.positions().len(), n, "the appended ones wait");
        } else {
            assert_eq!(cpu.positions().len(), w.points().len(), "packed again");
        }
        cpu.sync(&w).unwrap();
        let want = expect(&w, &r, (&pos0, &vel0));
        assert_eq!(
            cpu.packed().compacted(),
            want,
            "{body:?}: as packed afresh, state kept"
        );
        fresh.push((body, cpu));
    }

    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    for (body, mut cpu) in fresh {
        let mut s = GpuSolver::new(d, q, &w0).unwrap();
        s.step(d, q, 10).unwrap();
        let (pos0, vel0) = gpu_state(&s, &ctx);
        let mut w = w.clone();
        let r = w.remove_body(body).unwrap();
        s.apply_removal(d, q, &w, &r).unwrap();
        s.sync(d, q, &w).unwrap();
        let want = expect(&w, &r, (&pos0, &vel0));
        assert_eq!(statics(s.packed()), statics(&want), "{body:?}");
        assert_eq!(gpu_state(&s, &ctx), (want.pos, want.vel), "{body:?}");
        let worst = steps_as_a_fresh_solver_would(&ctx, &w, &mut s, &mut cpu, 10);
        assert!(worst < 0.05, "GPU vs CPU: {worst}");
    }
}

/// A removal carries the world it was made on: one made on a clone is
/// refused, even with the same counts and generation before (it used to be
/// taken, leaving the solver with another world's points).
#[test]
fn a_removal_made_on_another_world_is_refused() {
    let mut w = base_world();
    let mut twin = w.clone();
    let mut cpu = CpuSolver::new(&w).unwrap();
    let from_twin = twin.remove_points(&[PointHandle(0)]).unwrap();
    w.remove_body(BodyHandle(0)).unwrap();
    assert_eq!(from_twin.generations().0, 0, "both start at generation 0");
    let e = cpu.apply_removal(&w, &from_twin).unwrap_err();
    assert!(matches!(e, WorldError::OutOfSync(_)), "{e}");
    assert_ne!(w.generation(), twin.generation());
}

/// A solver follows one world. Syncing it with an unrelated world, or with
/// a copy that went its own way after the solver was built, used to pass
/// when the other world had at least as many items: the solver kept its
/// own and took the surplus (a box's body over a wheel's rim points). Both
/// are refused, on both paths, and the solver is left as it was.
#[test]
fn a_sync_with_another_world_is_refused() {
    let w = base_world();
    let mut grown = w.clone();
    add_more(&mut grown, 6.0);
    // More of everything than the solver's world, none of it the same.
    let unrelated = softbody::scenes::default_scene(200).unwrap();
    // A copy taken before the solver's world grew, grown differently.
    let mut earlier = w.clone();
    Wheel::new(Vec2::new(8.0, 3.0), 0.5, 12)
        .build(&mut earlier)
        .unwrap();
    add_more(&mut earlier, 6.0);
    for other in [&unrelated, &earlier] {
        assert!(other.points().len() >= grown.points().len());
        assert!(other.springs().len() >= grown.springs().len());
        assert!(other.bodies().len() >= grown.bodies().len());
    }
    for other in [&unrelated, &earlier] {
        let mut cpu = CpuSolver::new(&grown).unwrap();
        let before = cpu.packed().clone();
        let e = cpu.sync(other).unwrap_err();
        assert!(
            matches!(&e, WorldError::OutOfSync(m) if m.contains("differs")),
            "{e}"
        );
        assert_eq!(cpu.packed(), &before, "a refused sync changes nothing");
        if let Some(ctx) = gpu() {
            let mut g = GpuSolver::new(&ctx.device, &ctx.queue, &grown).unwrap();
            let e = g.sync(&ctx.device, &ctx.queue, other).unwrap_err();
            assert!(
                matches!(e, SolverError::World(WorldError::OutOfSync(_))),
                "{e}"
            );
            assert_eq!(g.num_points(), grown.points().len());
        }
    }
    // The world itself, grown further, still syncs.
    let mut cpu = CpuSolver::new(&grown).unwrap();
    add_more(&mut grown, 9.0);
    cpu.sync(&grown).unwrap();
    assert_eq!(cpu.positions().len(), grown.points().len());
}

/// `set_params` cannot pack the contact data again: a change to what is
/// packed there is refused with `NeedsSync` (it used to be taken and do
/// nothing), and goes through `world.params` and `sync` instead.
#[test]
fn set_params_refuses_what_the_contact_data_packs() {
    let mut w = World::default();
    w.params.gravity = Vec2::ZERO;
    w.params.body_collisions = false;
    w.add_point(Point::new(Vec2::new(-1.0, 0.0)).vel(Vec2::X))
        .unwrap();
    w.add_point(Point::new(Vec2::new(1.0, 0.0)).vel(-Vec2::X))
        .unwrap();
    let mut cpu = CpuSolver::new(&w).unwrap();
    let gpu_ctx = gpu();
    let mut s = gpu_ctx
        .as_ref()
        .map(|c| GpuSolver::new(&c.device, &c.queue, &w).unwrap());
    let refused = |p: Params, field: &str, cpu: &mut CpuSolver, s: &mut Option<GpuSolver>| {
        match cpu.set_params(p.clone()) {
            Err(WorldError::NeedsSync { field: f, .. }) => assert_eq!(f, field),
            other => panic!("{field}: {other:?}"),
        }
        if let (Some(c), Some(s)) = (&gpu_ctx, s) {
            match s.set_params(&c.queue, p) {
                Err(SolverError::World(WorldError::NeedsSync { field: f, .. })) => {
                    assert_eq!(f, field)
                }
                other => panic!("{field}: {other:?}"),
            }
        }
    };
    let mut p = w.params.clone();
    p.body_collisions = true;
    refused(p, "body_collisions", &mut cpu, &mut s);
    let mut p = w.params.clone();
    p.collision_cell = Some(2.0);
    refused(p, "collision_cell", &mut cpu, &mut s);
    assert_eq!(cpu.params(), &w.params, "nothing changed");

    // Through the world and sync, the two points now collide as disks.
    w.params.body_collisions = true;
    w.params.point_radius = 0.2;
    cpu.sync(&w).unwrap();
    assert!(cpu.has_contacts());
    // A radius past a quarter of the packed cell would need a new grid.
    let cell = cpu.packed().sim.cell;
    let mut p = w.params.clone();
    p.point_radius = cell;
    refused(p, "point_radius", &mut cpu, &mut None);
    let mut p = w.params.clone();
    p.point_radius = 0.0;
    refused(p, "point_radius", &mut cpu, &mut None);
    // Within the cell it changes at once, like gravity.
    let mut p = w.params.clone();
    p.point_radius = cell / 4.0;
    cpu.set_params(p).unwrap();
    for _ in 0..120 {
        cpu.step();
    }
    let x = cpu.positions();
    assert!(
        x[0][0] < x[1][0] - 0.3,
        "they did not pass through each other: {x:?}"
    );
}

/// A sync after a removal the solver was not told about is refused even
/// when appends have brought every count back above the packed one (the
/// count check alone would take the world's tail for new items).
#[test]
fn a_sync_after_an_unannounced_removal_is_refused_whatever_the_counts() {
    let mut w = base_world();
    let mut cpu = CpuSolver::new(&w).unwrap();
    let before = cpu.packed().clone();
    w.remove_body(BodyHandle(0)).unwrap();
    add_more(&mut w, 6.0);
    assert!(w.points().len() > before.pos.len());
    assert!(w.bodies().len() > before.bodies.len());
    let e = cpu.sync(&w).unwrap_err();
    assert!(matches!(e, WorldError::OutOfSync(_)), "{e}");
    assert!(cpu.packed() == &before, "a refused sync changed the solver");
}

/// A removal applied a second time is refused even where it would fit the
/// packed world again (here: taking the rope's first point again would
/// quietly take its second).
#[test]
fn a_removal_applied_twice_is_refused_even_when_it_fits() {
    let mut w = base_world();
    let mut cpu = CpuSolver::new(&w).unwrap();
    let rope_start = PointHandle(w.points().len() as u32 - 8);
    let r = w.remove_points(&[rope_start]).unwrap();
    cpu.apply_removal(&w, &r).unwrap();
    let once = cpu.packed().clone();
    let e = cpu.apply_removal(&w, &r).unwrap_err();
    assert!(matches!(e, WorldError::OutOfSync(_)), "{e}");
    assert!(
        cpu.packed() == &once,
        "a refused removal changed the solver"
    );
    assert_eq!(cpu.packed().compacted(), Packed::from_world(&w).unwrap());
}

/// Edits take the world's parameters, so they check them like a new
/// solver would: invalid ones, or ones at which a link diverges (at a
/// longer substep, or with a new default stiffness that the items
/// without their own take), are refused by `sync` and by
/// `apply_removal`, changing nothing. The defaults used to be resolved
/// after the check, so a sync took a stiffness `new` refuses and stepped
/// to NaN.
#[test]
fn edits_refuse_invalid_or_unstable_parameters() {
    let mut world = softbody::scenes::default_scene(20).unwrap();
    // Items on the defaults: the scene's own bodies and springs carry
    // their stiffness.
    BoxShape::new(Vec2::new(0.0, 40.0), Vec2::ONE)
        .build(&mut world)
        .unwrap();
    let invalid = |w: &mut World| w.params.elasticity = 2.0;
    let unstable = |w: &mut World| w.params.substeps = 1;
    let stiff_springs = |w: &mut World| w.params.spring_stiffness = 1.0e9;
    let stiff_bodies = |w: &mut World| w.params.shape_stiffness = 1.0e9;
    for (what, spoil) in [
        ("invalid", &invalid as &dyn Fn(&mut World)),
        ("unstable", &unstable),
        ("stiff springs", &stiff_springs),
        ("stiff bodies", &stiff_bodies),
    ] {
        let check = |e: WorldError| match what {
            "invalid" => assert!(matches!(e, WorldError::OutOfRange { .. }), "{what}: {e}"),
            _ => assert!(matches!(e, WorldError::Unstable { .. }), "{what}: {e}"),
        };
        let mut w = world.clone();
        spoil(&mut w);
        check(CpuSolver::new(&w).err().unwrap());
        // sync
        let mut w = world.clone();
        let mut cpu = CpuSolver::new(&w).unwrap();
        let before = cpu.packed().clone();
        spoil(&mut w);
        check(cpu.sync(&w).unwrap_err());
        assert!(
            cpu.packed() == &before,
            "{what}: a refused sync changed the solver"
        );
        // apply_removal
        let mut w = world.clone();
        let mut cpu = CpuSolver::new(&w).unwrap();
        spoil(&mut w);
        let r = w.remove_body(BodyHandle(0)).unwrap();
        check(cpu.apply_removal(&w, &r).unwrap_err());
        assert!(
            cpu.packed() == &before,
            "{what}: a refused removal changed the solver"
        );
        // The GPU solver's edits check the same.
        if let Some(ctx) = gpu() {
            let (d, q) = (&ctx.device, &ctx.queue);
            let mut w = world.clone();
            let mut s = GpuSolver::new(d, q, &w).unwrap();
            spoil(&mut w);
            match s.sync(d, q, &w) {
                Err(SolverError::World(e)) => check(e),
                other => panic!("{what}: GPU sync gave {other:?}"),
            }
            assert!(
                statics(s.packed()) == statics(&before),
                "{what}: a refused GPU sync changed the solver"
            );
            let r = w.remove_body(BodyHandle(0)).unwrap();
            match s.apply_removal(d, q, &w, &r) {
                Err(SolverError::World(e)) => check(e),
                other => panic!("{what}: GPU apply_removal gave {other:?}"),
            }
        }
    }
}

/// A solver made `from_packed` does not know which parameters the items'
/// defaults were resolved with, so its first edit resolves them from the
/// world's, and it then holds what `new` makes of the world (it used to
/// take the parameters it was given for those, and kept the packed
/// defaults for good). Parameters that the packed contact data does not
/// fit are refused, as `set_params` refuses them.
#[test]
fn a_solver_from_packed_resolves_defaults_on_its_first_edit() {
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut w = base_world();
    let packed = Packed::from_world(&w).unwrap();
    w.params.spring_stiffness /= 4.0;
    w.params.shape_damping *= 2.0;
    let mut s = GpuSolver::from_packed(d, q, &w.params, &packed).unwrap();
    add_more(&mut w, 6.0);
    s.sync(d, q, &w).unwrap();
    let fresh = GpuSolver::new(d, q, &w).unwrap();
    assert!(
        statics(s.packed()) == statics(fresh.packed()),
        "the old items' defaults as a new solver resolves them"
    );

    let w = base_world();
    let packed = Packed::from_world(&w).unwrap();
    assert!(packed.has_contacts());
    let refused = |p: Params, what: &str| {
        let e = GpuSolver::from_packed(d, q, &p, &packed).err().unwrap();
        assert!(
            matches!(e, SolverError::World(WorldError::InconsistentPacked(_))),
            "{what}: {e}"
        );
        eprintln!("{what}: {e}");
    };
    let mut p = w.params.clone();
    p.body_collisions = false;
    refused(p, "body collisions off");
    let mut p = w.params.clone();
    p.point_radius = if p.point_radius > 0.0 { 0.0 } else { 0.01 };
    refused(p, "free disks on or off");
    let mut p = w.params.clone();
    p.point_radius = packed.sim.cell;
    refused(p, "a radius past the packed cell");
    let mut off = w.clone();
    off.params.body_collisions = false;
    let packed = Packed::from_world(&off).unwrap();
    let e = GpuSolver::from_packed(d, q, &w.params, &packed)
        .err()
        .unwrap();
    assert!(
        matches!(e, SolverError::World(WorldError::InconsistentPacked(_))),
        "body collisions on: {e}"
    );
}

/// Edits check the world itself, not only its generation: a world with
/// fewer items than were packed (another world, at the same generation) is
/// refused by `sync`, and a removal made on such a world by
/// `apply_removal` (they used to panic, or quietly drop the packed points
/// past the removal's world).
#[test]
fn edits_from_a_smaller_world_at_the_same_generation_are_refused() {
    let small = base_world();
    let mut big = small.clone();
    add_more(&mut big, 6.0);
    let mut cpu = CpuSolver::new(&big).unwrap();
    let before = cpu.packed().clone();
    assert_eq!(small.generation(), big.generation());
    let e = cpu.sync(&small).unwrap_err();
    assert!(matches!(e, WorldError::OutOfSync(_)), "{e}");
    let mut small = small;
    let rope_end = PointHandle(small.points().len() as u32 - 1);
    let r = small.remove_points(&[rope_end]).unwrap();
    // The solver follows generation 0, the removal starts from it.
    let e = cpu.apply_removal(&small, &r).unwrap_err();
    assert!(matches!(e, WorldError::OutOfSync(_)), "{e}");
    assert!(cpu.packed() == &before, "a refused edit changed the solver");
}

/// Packing zeroes a pinned point's velocity (docs/physics.md), both when a
/// solver is made and when the point arrives through `sync`: it reads zero
/// from the start, not only once a step has run.
#[test]
fn a_pinned_point_is_packed_at_rest() {
    let mut w = World::default();
    let moving = Vec2::new(1.0, 2.0);
    let pin = w
        .add_point(Point::new(Vec2::ZERO).vel(moving).pinned())
        .unwrap();
    let free = w.add_point(Point::new(Vec2::X).vel(moving)).unwrap();
    let cpu = CpuSolver::new(&w).unwrap();
    assert_eq!(cpu.velocities()[pin.index()], [0.0; 2]);
    assert_eq!(cpu.velocities()[free.index()], moving.to_array());
    let mut cpu = CpuSolver::new(&World::default()).unwrap();
    cpu.sync(&w).unwrap();
    assert_eq!(cpu.velocities()[pin.index()], [0.0; 2]);
    assert_eq!(cpu.velocities()[free.index()], moving.to_array());
}

/// Keys outlast removals: removing body 3 of 10 leaves every other body's
/// key naming the same body (its user data and first point's position
/// follow it), the removed one's names nothing, and a body added after
/// does not take its name; a failed transaction names nothing.
#[test]
fn keys_name_the_same_bodies_across_a_removal() {
    let mut world = World::default();
    let shapes: Vec<Shape> = (0..10)
        .map(|k| {
            BoxShape::new(Vec2::new(2.0 * k as f32, 0.0), Vec2::ONE)
                .build(&mut world)
                .unwrap()
        })
        .collect();
    let keys: Vec<BodyKey> = shapes
        .iter()
        .map(|s| world.body_key(s.bodies[0]).unwrap())
        .collect();
    let point_keys: Vec<PointKey> = shapes
        .iter()
        .map(|s| world.point_key(s.points[0]).unwrap())
        .collect();
    for (k, s) in shapes.iter().enumerate() {
        world
            .set_body_user_data(s.bodies[0], 100 + k as u64)
            .unwrap();
    }
    world.remove_body(shapes[3].bodies[0]).unwrap();
    assert_eq!(world.body_of(keys[3]), None);
    assert_eq!(world.point_of(point_keys[3]), None);
    for k in (0..10).filter(|&k| k != 3) {
        let body = world.body_of(keys[k]).unwrap();
        assert_eq!(world.body_user_data(body).unwrap(), 100 + k as u64);
        let first = world.bodies()[body.index()].points[0];
        assert_eq!(world.point_of(point_keys[k]), Some(first));
        assert_eq!(
            world.point(first).pos,
            Vec2::new(2.0 * k as f32, 0.0) - Vec2::splat(0.5)
        );
    }
    let new = BoxShape::new(Vec2::new(0.0, 5.0), Vec2::ONE)
        .build(&mut world)
        .unwrap();
    let new_key = world.body_key(new.bodies[0]).unwrap();
    assert_ne!(new_key, keys[3]);
    assert_eq!(world.body_of(keys[3]), None);
    assert_eq!(world.body_user_data(new.bodies[0]).unwrap(), 0);
    // A transaction that fails leaves no key behind.
    let before = world.bodies().len();
    let failed = world.transaction(|tx| {
        let pts = [
            Vec2::new(0.0, 9.0),
            Vec2::new(1.0, 9.0),
            Vec2::new(0.0, 10.0),
        ]
        .map(|p| tx.add_point(Point::new(p)))
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
        tx.add_body(Body::new(pts))?;
        Err::<(), _>(WorldError::OutOfSync("on purpose".into()))
    });
    assert!(failed.is_err());
    assert_eq!(world.bodies().len(), before);
    assert_eq!(world.body_key(BodyHandle(before as u32)), None);
    let e = world.set_body_user_data(BodyHandle(99), 1).unwrap_err();
    assert!(e.to_string().contains("body 99"), "{e}");
}

/// Removing several bodies at once (`World::remove_bodies`) leaves the
/// same items, named by their keys, as removing them one by one does, and
/// the solvers on both paths with the same state for each: a column of
/// two grid cells (the corner they share goes with them, as no surviving
/// body holds it), the first box, the large blob and a repeated handle.
/// The numbering differs (each removal fills its holes from the end).
/// Refused whole on an unknown handle.
#[test]
fn removing_bodies_at_once_equals_removing_them_one_by_one() {
    let mut base = base_world();
    add_more(&mut base, 6.0);
    // The grid's cells are bodies 1..=6; its right column is the two whose
    // points reach furthest right.
    let right = |b: usize| {
        let pts = &base.bodies()[b].points;
        pts.iter()
            .map(|p| base.point(*p).pos.x)
            .fold(f32::MIN, f32::max)
    };
    let edge = (1..=6).map(right).fold(f32::MIN, f32::max);
    let column: Vec<BodyHandle> = (1..=6)
        .filter(|&b| right(b) == edge)
        .map(|b| BodyHandle(b as u32))
        .collect();
    assert_eq!(column.len(), 2);
    let blob = base
        .bodies()
        .iter()
        .position(|b| b.points.len() == 40)
        .unwrap();
    let gone = [
        column[0],
        column[1],
        BodyHandle(0),
        BodyHandle(blob as u32),
        column[0],
    ];

    let mut refused = base.clone();
    let e = refused
        .remove_bodies(&[BodyHandle(0), BodyHandle(99)])
        .unwrap_err();
    assert!(e.to_string().contains("body 99"), "{e}");
    assert_eq!(refused, base, "an unknown handle removes nothing");

    let mut at_once = base.clone();
    let removal = at_once.remove_bodies(&gone).unwrap();
    let mut one_by_one = base.clone();
    let keys: Vec<BodyKey> = gone.iter().map(|b| base.body_key(*b).unwrap()).collect();
    let mut removals = Vec::new();
    for key in &keys {
        if let Some(b) = one_by_one.body_of(*key) {
            removals.push(one_by_one.remove_body(b).unwrap());
        }
    }
    assert_eq!(removals.len(), 4);
    assert_eq!(by_key(&at_once), by_key(&one_by_one));
    // The column's right edge went whole, its middle corner with it (the
    // left edge stays with the next column), then the box's 4 and the
    // blob's 40.
    assert_eq!(at_once.points().len(), base.points().len() - 47);
    for (b, key) in gone.iter().zip(&keys) {
        assert_eq!(removal.body(*b), None);
        assert_eq!(at_once.body_of(*key), None);
    }

    for (mut a, mut b) in solver_pairs(&base, &base) {
        a.step(20).unwrap();
        b.step(20).unwrap();
        a.apply_removal(&at_once, &removal).unwrap();
        let mut world = base.clone();
        for key in &keys {
            if let Some(body) = world.body_of(*key) {
                let r = world.remove_body(body).unwrap();
                b.apply_removal(&world, &r).unwrap();
            }
        }
        let (sa, sb) = (a.state().unwrap(), b.state().unwrap());
        let state = |w: &World, s: &(Vec<[f32; 2]>, Vec<[f32; 2]>)| {
            let mut v: Vec<String> = (0..w.points().len())
                .map(|i| {
                    let key = w.point_key(PointHandle(i as u32)).unwrap();
                    format!("{key:?} {:?} {:?}", s.0[i], s.1[i])
                })
                .collect();
            v.sort();
            v
        };
        assert_eq!(state(&at_once, &sa), state(&world, &sb), "{}", a.name());
    }
}

/// A world's points, bodies (their points' keys and rest shapes) and
/// springs (their ends' keys, kind and rest length), by the items' keys,
/// whatever their numbering.
fn by_key(w: &World) -> Vec<String> {
    let key = |p: PointHandle| w.point_key(p).unwrap();
    let points = (0..w.points().len()).map(|i| {
        let p = PointHandle(i as u32);
        format!("point {:?} {:?}", key(p), w.points()[i])
    });
    let bodies = (0..w.bodies().len()).map(|i| {
        let b = &w.bodies()[i];
        let pts: Vec<PointKey> = b.points.iter().map(|p| key(*p)).collect();
        let body = w.body_key(BodyHandle(i as u32)).unwrap();
        format!("body {body:?} {pts:?} {:?}", w.rest_shapes()[i])
    });
    let springs = w
        .springs()
        .iter()
        .zip(w.rest_lengths())
        .map(|(s, r)| format!("spring {:?} {:?} {:?} {r}", key(s.a), key(s.b), s.kind));
    let mut all: Vec<String> = points.chain(bodies).chain(springs).collect();
    all.sort();
    all
}

/// Removals on scenes not built for them (Box2D's pyramid of 12 rows at
/// dt 1/90, a pour of 300 hubless rings at dt 1/120 and 10 substeps, and
/// a grid of boxes with diagonal springs in centimetres, whose cells share
/// corners), each mid-fall: bodies from the start, the middle and the
/// end at once, then points out of a body, then springs alone. After
/// each, on both paths, the solver holds what a fresh pack of the edited
/// world holds, and every surviving point's state is where the removal
/// says.
#[test]
fn removals_on_scenes_not_built_for_them_follow_as_a_fresh_pack() {
    let (mut pyramid, _) = softbody::samples::pyramid(12, 0.5).unwrap();
    pyramid.params.dt = 1.0 / 90.0;
    let mut rings = softbody::samples::pour_rings(300, 2.0).unwrap();
    rings.params.dt = 1.0 / 120.0;
    rings.params.substeps = 10;
    let mut grid = World::new(Params::with_length_unit(100.0).unwrap());
    grid.add_plane(HalfPlane::floor(0.0)).unwrap();
    BoxGrid::new(6, 4, Vec2::splat(40.0))
        .origin(Vec2::new(-120.0, 30.0))
        .build(&mut grid)
        .unwrap();
    let ctx = gpu();
    for (name, world) in [("pyramid", pyramid), ("rings", rings), ("grid", grid)] {
        let mut w = world.clone();
        let mut cpu = CpuSolver::new(&w).unwrap();
        let mut g = ctx
            .as_ref()
            .map(|c| GpuSolver::new(&c.device, &c.queue, &w).unwrap());
        let nb = w.bodies().len() as u32;
        for round in 0..3 {
            for _ in 0..40 {
                cpu.step();
            }
            if let (Some(c), Some(g)) = (&ctx, &mut g) {
                g.step(&c.device, &c.queue, 40).unwrap();
            }
            let before = (cpu.positions().to_vec(), cpu.velocities().to_vec());
            let gpu_before = match (&ctx, &g) {
                (Some(c), Some(g)) => Some(gpu_state(g, c)),
                _ => None,
            };
            let r = match round {
                0 => {
                    let gone = [0, nb / 2, nb / 2 + 1, w.bodies().len() as u32 - 1];
                    w.remove_bodies(&gone.map(BodyHandle)).unwrap()
                }
                1 => {
                    let point = w.bodies()[w.bodies().len() / 3].points[0];
                    w.remove_points(&[point]).unwrap()
                }
                _ => {
                    let n = w.springs().len() as u32;
                    w.remove_springs(&[SpringHandle(1), SpringHandle(n / 2)])
                        .unwrap()
                }
            };
            cpu.apply_removal(&w, &r).unwrap();
            let fresh = Packed::from_world(&w).unwrap();
            assert_eq!(
                statics(cpu.packed()),
                statics(&fresh),
                "{name}, round {round}"
            );
            let map = r.point_remap();
            assert_eq!(
                cpu.positions(),
                &map.apply(&before.0)[..],
                "{name}, round {round}"
            );
            assert_eq!(
                cpu.velocities(),
                &map.apply(&before.1)[..],
                "{name}, round {round}"
            );
            if let (Some(c), Some(g), Some((pos, vel))) = (&ctx, &mut g, gpu_before) {
                g.apply_removal(&c.device, &c.queue, &w, &r).unwrap();
                assert_eq!(
                    statics(g.packed()),
                    statics(&fresh),
                    "{name}, round {round}"
                );
                let want = (map.apply(&pos), map.apply(&vel));
                assert_eq!(gpu_state(g, c), want, "{name}, round {round}: GPU state");
            }
        }
        assert!(w.bodies().len() < world.bodies().len(), "{name}");
    }
}

/// A packed world that follows removals in place (`Packed::apply_removal`
/// and the CPU solver's `apply_removal`, which edit only what a removal
/// touches) equals a fresh pack of the edited world once its records are
/// laid out as a fresh pack lays them (`Packed::compacted`), round after
/// round of seeded removals on a scene not made for the other tests: a
/// grid of cells sharing corners tied to a hubless ring by rods, a
/// kinematic platform, wheels with hubs, soft constraints between boxes
/// and free points; at a dt of 1/75 and 6 substeps, in centimetres. The
/// records left behind never outnumber the named ones (plus a slack).
#[test]
fn removals_followed_in_place_equal_a_fresh_pack_round_after_round() {
    let mut w = World::default();
    w.params.dt = 1.0 / 75.0;
    w.params.substeps = 6;
    w.params.gravity = Vec2::new(0.0, -981.0);
    w.params.point_radius = 2.0;
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    let grid = BoxGrid::new(5, 2, Vec2::splat(40.0)).build(&mut w).unwrap();
    let ring = Blob::new(Vec2::new(400.0, 60.0), 30.0, 9)
        .build(&mut w)
        .unwrap();
    for (a, b) in [
        (grid.points[0], ring.points[0]),
        (grid.points[7], ring.points[4]),
    ] {
        w.add_spring(Spring::new(a, b).kind(SpringKind::Rod))
            .unwrap();
    }
    let platform = BoxShape::new(Vec2::new(200.0, 300.0), Vec2::new(120.0, 20.0))
        .build(&mut w)
        .unwrap();
    w.set_kinematic(platform.bodies[0], Vec2::new(50.0, 0.0), 0.0)
        .unwrap();
    let mut boxes = Vec::new();
    for k in 0..8 {
        let at = Vec2::new(60.0 * k as f32, 500.0 + 30.0 * (k % 3) as f32);
        if k % 3 == 1 {
            Wheel::new(at, 22.0, 7 + k).build(&mut w).unwrap();
        } else {
            boxes.push(BoxShape::new(at, Vec2::splat(25.0)).build(&mut w).unwrap());
        }
    }
    for pair in boxes.windows(2) {
        let s = Spring::new(pair[0].points[1], pair[1].points[0]).kind(SpringKind::Soft);
        w.add_spring(s).unwrap();
    }
    for k in 0..5 {
        w.add_point(Point::new(Vec2::new(30.0 * k as f32, 900.0)))
            .unwrap();
    }
    let mut p = Packed::from_world(&w).unwrap();
    let mut cpu = CpuSolver::new(&w).unwrap();
    let mut rng = common::Rng(0x9e37_79b9);
    let mut next = |n: usize| rng.below(n) as u32;
    for round in 0..24 {
        if w.bodies().len() < 2 {
            break;
        }
        let r = match round % 4 {
            0 | 3 => {
                let one = BodyHandle(next(w.bodies().len()));
                w.remove_bodies(&[one]).unwrap()
            }
            1 => {
                let picks: Vec<PointHandle> = (0..2)
                    .map(|_| PointHandle(next(w.points().len())))
                    .collect();
                w.remove_points(&picks).unwrap()
            }
            _ => {
                let picks: Vec<SpringHandle> = (0..3)
                    .map(|_| SpringHandle(next(w.springs().len().max(1))))
                    .filter(|s| s.index() < w.springs().len())
                    .collect();
                w.remove_springs(&picks).unwrap()
            }
        };
        p.apply_removal(&w, &r).unwrap();
        cpu.apply_removal(&w, &r).unwrap();
        let fresh = Packed::from_world(&w).unwrap();
        assert_eq!(p.compacted(), fresh, "round {round}");
        assert_eq!(cpu.packed().compacted().pos, fresh.pos, "round {round}");
        assert_eq!(statics(cpu.packed()), statics(&fresh), "round {round}");
        p.check_consistent().unwrap();
        for (what, records, named) in [
            (
                "springs",
                p.spring_halves.records.len(),
                named(&p.spring_halves.ranges),
            ),
            (
                "rods",
                p.rod_halves.records.len(),
                named(&p.rod_halves.ranges),
            ),
            (
                "members",
                p.point_members.records.len(),
                named(&p.point_members.ranges),
            ),
            (
                "body members",
                p.members.len(),
                p.bodies.iter().map(|b| b.count as usize).sum(),
            ),
        ] {
            assert!(
                records <= 2 * named + 64,
                "round {round}: {records} {what} records, {named} named"
            );
        }
    }
    assert!(w.bodies().len() < 20, "the rounds removed bodies");
}

fn named(ranges: &[softbody::layout::RecordRange]) -> usize {
    ranges.iter().map(|r| r.count as usize).sum()
}

/// A removal of one body from a pile of 600 on the GPU writes what it
/// changed and keeps the buffers, the contact buffers among them: a few
/// kilobytes, not the world, wherever the body was; the solver then steps
/// as the CPU path does after the same removal (the warm starts carried
/// through copies of the kept buffers). Boxes with diagonal springs and
/// hubless rings of 10 points, 60 to a row, at dt 1/90.
#[test]
fn a_gpu_removal_writes_what_it_changed() {
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut w = World::default();
    w.params.dt = 1.0 / 90.0;
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    for k in 0..600 {
        let (row, col) = (k / 60, k % 60);
        let at = Vec2::new(
            0.62 * col as f32 + 0.31 * (row % 2) as f32,
            0.27 + 0.55 * row as f32,
        );
        if (row + col) % 3 == 0 {
            Blob::new(at, 0.26, 10).build(&mut w).unwrap();
        } else {
            BoxShape::new(at, Vec2::splat(0.5)).build(&mut w).unwrap();
        }
    }
    let mut s = GpuSolver::new(d, q, &w).unwrap();
    let mut cpu = CpuSolver::new(&w).unwrap();
    step_both(&ctx, &mut s, &mut cpu, 30);
    for body in [300, 17, 550] {
        let warm = s.read_warm_starts(d, q).unwrap();
        let r = w.remove_body(BodyHandle(body)).unwrap();
        let report = s.apply_removal(d, q, &w, &r).unwrap();
        cpu.apply_removal(&w, &r).unwrap();
        // The warm starts moved with their points, naming their bodies'
        // new indices.
        let rename = |b: u32| match b {
            u32::MAX => b,
            b => r.body(BodyHandle(b)).map_or(u32::MAX, |h| h.0),
        };
        let want: Vec<[u32; 4]> = (r.point_remap().apply(&warm).iter())
            .map(|w| [rename(w[0]), rename(w[1]), w[2], w[3]])
            .collect();
        assert!(warm.iter().any(|w| w[1] != u32::MAX), "contacts to carry");
        eprintln!(
            "body {body} removed: {} bytes uploaded of {} held",
            report.bytes_uploaded,
            s.gpu_bytes()
        );
        assert!(!report.reallocated, "{report:?}");
        assert!(report.bytes_uploaded < s.gpu_bytes() / 20, "{report:?}");
        assert_eq!(statics(s.packed()), statics(cpu.packed()));
        assert_eq!(
            s.read_warm_starts(d, q).unwrap(),
            want,
            "body {body}: the warm starts carried"
        );
        step_both(&ctx, &mut s, &mut cpu, 10);
    }
}

/// A removal of a body alone in its assembly from a world where other
/// bodies are joined (a grid whose cells share corners, a chain of boxes
/// hinged by rods) follows in place: the joined bodies' segments and the
/// lists their points name stay where they lie, the removed box's segment
/// is left as a hole, and laid out again they are what a fresh pack makes.
/// A ring of 12 moves into the place of a box of 4.
#[test]
fn a_removal_beside_joined_bodies_lays_their_lists_out_as_a_fresh_pack() {
    let mut w = World::default();
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    box_and_grid(&mut w);
    let links: Vec<Shape> = (0..3)
        .map(|k| {
            BoxShape::new(Vec2::new(3.0 + 0.7 * k as f32, 1.0), Vec2::splat(0.5))
                .build(&mut w)
                .unwrap()
        })
        .collect();
    for pair in links.windows(2) {
        let rod = Spring::new(pair[0].points[1], pair[1].points[0]).kind(SpringKind::Rod);
        w.add_spring(rod).unwrap();
    }
    Blob::new(Vec2::new(0.0, 5.0), 0.5, 12)
        .build(&mut w)
        .unwrap();
    let mut p = Packed::from_world(&w).unwrap();
    let mut cpu = CpuSolver::new(&w).unwrap();
    let r = w.remove_body(BodyHandle(0)).unwrap();
    assert_eq!(
        r.body(BodyHandle(10)),
        Some(BodyHandle(0)),
        "the ring fills the hole"
    );
    let before = p.clone();
    p.apply_removal(&w, &r).unwrap();
    cpu.apply_removal(&w, &r).unwrap();
    assert_eq!(p.outline_holes, 4 + 2, "the box's outline and list");
    for b in 1..10 {
        assert_eq!(p.outlines[b].first, before.outlines[b].first, "body {b}");
    }
    let joins = |p: &Packed| p.contact_points.iter().map(|c| c.joins).collect::<Vec<_>>();
    let n = p.contact_points.len();
    assert_eq!(
        joins(&p)[4..],
        joins(&before)[4..n],
        "the joined points keep their lists"
    );
    let fresh = Packed::from_world(&w).unwrap();
    assert!(fresh.has_joined_bodies());
    assert_ne!(p.outline_points, fresh.outline_points);
    assert_eq!(p.compacted(), fresh);
    assert_eq!(statics(cpu.packed()), statics(&fresh));
}

/// A checkpoint taken after removals that the solver followed in place
/// (its records where the removals left them) loads into a solver made
/// afresh from the edited world, and the two step on bitwise alike: the
/// scene hash and the state do not depend on where records lie.
#[test]
fn a_checkpoint_after_removals_loads_into_a_fresh_solver() {
    use softbody::checkpoint::Checkpoint;
    let mut w = base_world();
    let mut cpu = CpuSolver::new(&w).unwrap();
    for _ in 0..40 {
        cpu.step();
    }
    for body in [0, 3] {
        let r = w.remove_body(BodyHandle(body)).unwrap();
        cpu.apply_removal(&w, &r).unwrap();
        for _ in 0..10 {
            cpu.step();
        }
    }
    let bytes = Checkpoint::of_cpu(&cpu, 1.0).to_bytes().unwrap();
    let mut fresh = common::restored_cpu(&bytes, &w);
    for _ in 0..30 {
        cpu.step();
        fresh.step();
    }
    assert_eq!(cpu.positions(), fresh.positions());
}

/// Removals one after another from a sleeping pile of shapes the other
/// removal tests do not use, at another size and step: 0.2 m boxes with
/// diagonals, hubless 8-point rings and 9-spoke wheels in three rows, at
/// a dt of 1/90. Each removal takes bodies from the middle (one at a
/// time, then two at once); the CPU follows it in place, its sleeping
/// records moved and only the removed and moved assemblies compared
/// (`cpu::sleep::removal_sleep_over`, checked against the pass over every
/// point in debug builds), and the GPU, handed the same pile, follows it
/// with its kernels over every point: after each removal both hold the
/// same sleeping records and state bitwise, and all but a neighbourhood
/// of the pile sleeps on.
#[test]
fn removals_from_a_sleeping_pile_keep_the_sleeping_records_of_the_gpu() {
    let mut world = World::default();
    world.params.dt = 1.0 / 90.0;
    world.params.point_radius = 0.008;
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    for row in 0..3 {
        for k in 0..24 {
            let at = Vec2::new(
                0.25 * k as f32 + 0.12 * (row % 2) as f32,
                0.11 + 0.23 * row as f32,
            );
            match (k + 2 * row) % 3 {
                0 => Blob::new(at, 0.1, 8).build(&mut world).unwrap(),
                1 => Wheel::new(at, 0.1, 9).build(&mut world).unwrap(),
                _ => BoxShape::new(at, Vec2::splat(0.2))
                    .build(&mut world)
                    .unwrap(),
            };
        }
    }
    let movable = |w: &World| w.points().iter().filter(|p| !p.is_pinned()).count();
    let mut cpu = CpuSolver::new(&world).unwrap();
    let mut steps = 0;
    while cpu.sleeping_points() < movable(&world) {
        cpu.step();
        steps += 1;
        assert!(steps < 3000, "the pile is not asleep after {steps} steps");
    }
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut g = GpuSolver::new(d, q, &world).unwrap();
    g.set_state(q, cpu.positions(), cpu.velocities()).unwrap();
    g.set_rest_steps(q, cpu.rest_steps()).unwrap();
    g.set_sleep_anchors(q, cpu.sleep_anchors()).unwrap();
    g.set_sleep_supports(q, cpu.sleep_supports()).unwrap();
    let mut w = world.clone();
    for round in 0..6 {
        let before = cpu.sleeping_points();
        let middle = w.bodies().len() as u32 / 2 + 5 * round;
        let removal = if round < 5 {
            w.remove_body(BodyHandle(middle)).unwrap()
        } else {
            w.remove_bodies(&[BodyHandle(middle), BodyHandle(middle - 30)])
                .unwrap()
        };
        cpu.apply_removal(&w, &removal).unwrap();
        g.apply_removal(d, q, &w, &removal).unwrap();
        assert_eq!(
            g.read_rest_steps(d, q).unwrap(),
            cpu.rest_steps(),
            "round {round}"
        );
        assert_eq!(
            g.read_sleep_supports(d, q).unwrap(),
            cpu.sleep_supports(),
            "round {round}"
        );
        assert_eq!(
            g.read_sleep_anchors(d, q).unwrap(),
            cpu.sleep_anchors(),
            "round {round}"
        );
        let asleep = cpu.sleeping_points();
        assert_eq!(
            g.read_sleeping_points(d, q).unwrap(),
            asleep,
            "round {round}"
        );
        let state = g.read_state(d, q).unwrap();
        assert_eq!(&state.pos[..], cpu.positions(), "round {round}");
        assert_eq!(&state.vel[..], cpu.velocities(), "round {round}");
        // What slept and was not removed, less what still sleeps: at most
        // the neighbours of what was removed and moved, eight bodies.
        let removed = removal.point_remap().old_len() - removal.point_remap().new_len();
        let woke = before.saturating_sub(removed + asleep);
        eprintln!(
            "round {round}: {woke} points woke, {asleep} of {} sleep",
            movable(&w)
        );
        assert!(woke <= 8 * 10, "round {round}: {woke} points woke");
    }
}

/// Removals one after another on the GPU, on a scene no other removal test
/// uses: a centimetre scene (`Params::with_length_unit(100.0)`) at a dt of
/// 1/75, in which rows of 30 cm boxes with diagonals, hubless 14-point
/// rings and 7-spoke wheels fall onto a 3 x 2 grid of cells sharing
/// corners. The rounds take one body from the middle, the first body, the
/// last, two at once and a grid cell: the bodies alone in their assembly
/// follow in place with their contact data (the GPU writes only what the
/// follow noted, and debug builds check that it noted every change), the
/// grid cell packs the contact data again. After each round the solver
/// steps bitwise as one made afresh from the edited world would, and its
/// packed world is the CPU path's.
#[test]
fn gpu_removals_in_place_step_as_a_fresh_solver_on_a_centimetre_scene() {
    let mut world = World::new(Params::with_length_unit(100.0).unwrap());
    world.params.dt = 1.0 / 75.0;
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    BoxGrid::new(3, 2, Vec2::splat(40.0))
        .origin(Vec2::new(-60.0, 0.5))
        .build(&mut world)
        .unwrap();
    for row in 0..3 {
        for k in 0..10 {
            let at = Vec2::new(
                -180.0 + 38.0 * k as f32 + 19.0 * (row % 2) as f32,
                120.0 + 36.0 * row as f32,
            );
            match (k + row) % 3 {
                0 => BoxShape::new(at, Vec2::splat(30.0))
                    .diagonals(true)
                    .build(&mut world)
                    .unwrap(),
                1 => Blob::new(at, 15.0, 14).build(&mut world).unwrap(),
                _ => Wheel::new(at, 15.0, 7).build(&mut world).unwrap(),
            };
        }
    }
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut w = world.clone();
    let mut cpu = CpuSolver::new(&w).unwrap();
    let mut s = GpuSolver::new(d, q, &w).unwrap();
    step_both(&ctx, &mut s, &mut cpu, 20);
    for round in 0..6 {
        let nb = w.bodies().len() as u32;
        let gone: Vec<u32> = match round {
            0 | 3 => vec![nb / 2],
            1 => vec![6],
            2 => vec![nb - 1],
            4 => vec![nb / 2 - 4, nb / 2 + 5],
            // A grid cell: its corners are shared.
            _ => vec![1],
        };
        let gone: Vec<BodyHandle> = gone.into_iter().map(BodyHandle).collect();
        let r = w.remove_bodies(&gone).unwrap();
        let (pos0, vel0) = gpu_state(&s, &ctx);
        s.apply_removal(d, q, &w, &r).unwrap();
        cpu.apply_removal(&w, &r).unwrap();
        let map = r.point_remap();
        assert_eq!(gpu_state(&s, &ctx), (map.apply(&pos0), map.apply(&vel0)));
        assert_eq!(statics(s.packed()), statics(cpu.packed()), "round {round}");
        // The two paths part as the bodies land (float rounding in the
        // contacts, as without removals): the fresh GPU solver is the
        // check.
        steps_as_a_fresh_solver_would(&ctx, &w, &mut s, &mut cpu, 6);
    }
}

/// Removals among large bodies (over 32 points, the second part of the
/// body order and the collider lists) on a scene no other removal test
/// uses: millimetre units, dt 1/240, a walled pile eight rows deep of
/// 40-point blobs, boxes with diagonals, 9-point rings and 5-spoke wheels,
/// with a 48-point blob last, so that it fills the first hole. Each round
/// (a middle body, the first large one, the last, five at once, one near
/// the start) leaves both paths' body order and collider lists as a fresh
/// pack lays them out, and the GPU solver steps bitwise as a fresh one.
#[test]
fn gpu_removals_among_large_bodies_order_them_as_a_fresh_pack_in_millimetres() {
    let mut world = World::new(Params::with_length_unit(1000.0).unwrap());
    world.params.dt = 1.0 / 240.0;
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    world.add_plane(HalfPlane::new(Vec2::X, -1500.0)).unwrap();
    world.add_plane(HalfPlane::new(-Vec2::X, -1500.0)).unwrap();
    for row in 0..8 {
        for k in 0..8 {
            let at = Vec2::new(
                -1250.0 + 340.0 * k as f32 + 170.0 * (row % 2) as f32,
                180.0 + 330.0 * row as f32,
            );
            match (k + 2 * row) % 4 {
                0 => Blob::new(at, 150.0, 40).build(&mut world).unwrap(),
                1 => BoxShape::new(at, Vec2::splat(260.0))
                    .diagonals(true)
                    .build(&mut world)
                    .unwrap(),
                2 => Blob::new(at, 130.0, 9).build(&mut world).unwrap(),
                _ => Wheel::new(at, 140.0, 5).build(&mut world).unwrap(),
            };
        }
    }
    Blob::new(Vec2::new(0.0, 3000.0), 160.0, 48)
        .build(&mut world)
        .unwrap();
    let large = |w: &World, b: u32| w.bodies()[b as usize].points.len() > 32;
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut w = world.clone();
    let mut cpu = CpuSolver::new(&w).unwrap();
    let mut s = GpuSolver::new(d, q, &w).unwrap();
    step_both(&ctx, &mut s, &mut cpu, 60);
    for round in 0..5 {
        let nb = w.bodies().len() as u32;
        let gone: Vec<u32> = match round {
            0 => vec![nb / 2],
            1 => vec![(0..nb).find(|&b| large(&w, b)).unwrap()],
            2 => vec![nb - 1],
            3 => vec![3, nb / 3, nb / 2, nb / 2 + 7, nb - 2],
            _ => vec![1],
        };
        let gone: Vec<BodyHandle> = gone.into_iter().map(BodyHandle).collect();
        let r = w.remove_bodies(&gone).unwrap();
        s.apply_removal(d, q, &w, &r).unwrap();
        cpu.apply_removal(&w, &r).unwrap();
        let fresh = Packed::from_world(&w).unwrap();
        let p = cpu.packed();
        assert!(fresh.sim.num_large_bodies > 10, "round {round}");
        assert_eq!(p.body_order, fresh.body_order, "round {round}");
        assert_eq!(p.colliders, fresh.colliders, "round {round}");
        assert_eq!(
            (p.sim.num_small_bodies, p.sim.num_large_bodies),
            (fresh.sim.num_small_bodies, fresh.sim.num_large_bodies)
        );
        assert_eq!(statics(s.packed()), statics(p), "round {round}");
        steps_as_a_fresh_solver_would(&ctx, &w, &mut s, &mut cpu, 6);
    }
}

/// Removals leave the removed bodies' members and outline segments behind
/// as holes and the bodies moved into their indices keep theirs, until the
/// holes outnumber what is kept (plus a slack): then the members are laid
/// out body by body again, and the contact data is packed again. Before and after that, the GPU solver steps bitwise as one
/// made afresh. Wheels with hubs, hubless rings and boxes of many sizes
/// and point counts, in centimetres at dt 1/50, awake (a solver made
/// afresh holds no sleeping records).
#[test]
fn holes_left_by_removals_are_laid_out_again_once_they_outnumber_what_is_kept() {
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut w = World::new(Params::with_length_unit(100.0).unwrap());
    w.params.dt = 1.0 / 50.0;
    w.params.sleep_speed = 0.0;
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    for k in 0..36 {
        let at = Vec2::new(80.0 * (k % 12) as f32, 40.0 + 80.0 * (k / 12) as f32);
        match k % 3 {
            0 => BoxShape::new(at, Vec2::splat(20.0 + k as f32))
                .build(&mut w)
                .map(|_| ()),
            1 => Blob::new(at, 25.0, 6 + k % 7).build(&mut w).map(|_| ()),
            _ => Wheel::new(at, 30.0, 5 + k % 4).build(&mut w).map(|_| ()),
        }
        .unwrap();
    }
    let mut s = GpuSolver::new(d, q, &w).unwrap();
    let mut cpu = CpuSolver::new(&w).unwrap();
    step_both(&ctx, &mut s, &mut cpu, 5);
    let mut rng = common::Rng(0x5eed);
    let (mut compacted_at, mut packed_at) = (None, None);
    for round in 0.. {
        if w.bodies().len() <= 4 {
            break;
        }
        let holes = (s.packed().member_holes, s.packed().outline_holes);
        let body = BodyHandle(rng.below(w.bodies().len()) as u32);
        let r = w.remove_body(body).unwrap();
        s.apply_removal(d, q, &w, &r).unwrap();
        cpu.apply_removal(&w, &r).unwrap();
        let p = s.packed();
        let kept: usize = p.bodies.iter().map(|b| b.count as usize).sum();
        assert_eq!(p.members.len(), kept + p.member_holes, "round {round}");
        assert!(p.member_holes <= kept + 64, "round {round}");
        let segments = p.outline_points.len() - p.outline_holes;
        assert!(p.outline_holes <= segments + 64, "round {round}");
        assert_eq!(statics(p), statics(cpu.packed()), "round {round}");
        if holes.0 > 0 && p.member_holes == 0 {
            compacted_at.get_or_insert(round);
        }
        if holes.1 > 0 && p.outline_holes == 0 {
            packed_at.get_or_insert(round);
        }
        if round % 8 == 0 || [compacted_at, packed_at].contains(&Some(round)) {
            steps_as_a_fresh_solver_would(&ctx, &w, &mut s, &mut cpu, 2);
        } else {
            step_both(&ctx, &mut s, &mut cpu, 2);
        }
    }
    assert!(compacted_at.is_some(), "the members were laid out again");
    assert!(packed_at.is_some(), "the contact data was packed again");
}
