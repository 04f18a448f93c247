//! Terrain (`shaders/terrain.wgsl`, mirrored by `cpu::terrain`): static
//! polylines that points meet by the rules of half-planes, found through
//! the terrain's grid. The GPU-vs-CPU stage checks run them in
//! `gpu_check`'s "terrain" scene.

use crate::common::{both, centroid, gpu};
use crate::gpu_check::{check_stage, terrain_world};
use softbody::gpu::Stage;
use softbody::prelude::*;
use softbody::solver::Solver;

/// The height of a ground polyline (listed right to left, solid below)
/// at `x`, by linear interpolation.
fn ground_at(points: &[Vec2], x: f32) -> f32 {
    for w in points.windows(2) {
        let (r, l) = (w[0], w[1]);
        if (l.x..=r.x).contains(&x) {
            return l.y + (r.y - l.y) * (x - l.x) / (r.x - l.x);
        }
    }
    f32::NEG_INFINITY
}

/// A box on a long terrain slope of 40 degrees moves exactly as one on a
/// half-plane of the same slope (the same contact: within 1e-4 m after
/// half a second of sliding), on both paths; at 20 degrees, below the
/// friction angle (31), both stay put.
#[test]
fn a_box_on_a_terrain_slope_moves_as_on_a_half_plane() {
    for degrees in [40.0f32, 20.0] {
        let a = degrees.to_radians();
        let down = Vec2::new(-a.cos(), -a.sin());
        let normal = Vec2::new(-a.sin(), a.cos());
        // The slope through the origin, rising to the right: from far up
        // right to far down left, solid below, with a vertex at the
        // origin, where the half-plane's offset is measured from (a
        // segment's contact is rounded relative to its start).
        let slope = Terrain::new(vec![-20.0 * down, Vec2::ZERO, 20.0 * down]);
        let build = |terrain: bool| {
            let mut world = World::default();
            if terrain {
                world.add_terrain(slope.clone()).unwrap();
            } else {
                world.add_plane(HalfPlane::new(normal, 0.0)).unwrap();
            }
            let b = BoxShape::new(normal * 0.27 + down * 2.0, Vec2::splat(0.5))
                .rotation(a)
                .build(&mut world)
                .unwrap();
            (world, b)
        };
        let (on_terrain, b) = build(true);
        let (on_plane, _) = build(false);
        for (mut s, mut h) in both(&on_terrain).into_iter().zip(both(&on_plane)) {
            s.step(30).unwrap();
            h.step(30).unwrap();
            let (ct, ch) = (
                centroid(&s.state().unwrap().0, &b),
                centroid(&h.state().unwrap().0, &b),
            );
            let slid = (ct - (normal * 0.27 + down * 2.0)).dot(down);
            eprintln!(
                "{} {degrees} degrees: on terrain at {ct}, on a half-plane at {ch}, slid {slid:.4} m",
                s.name()
            );
            assert!((ct - ch).length() < 1e-4, "{}: {ct} vs {ch}", s.name());
            if degrees > 31.0 {
                assert!(slid > 0.1, "{}: slid only {slid}", s.name());
            } else {
                assert!(slid.abs() < 0.01, "{}: slid {slid}", s.name());
            }
        }
    }
}

/// A valley of three segments: boxes of two sizes on its slopes slide
/// down and come to rest on its floor (every point slower than 0.01 m/s
/// after 8 s, none below the ground), on both paths.
#[test]
fn bodies_slide_into_a_terrain_valley_and_rest_on_its_floor() {
    let ground = vec![
        Vec2::new(9.0, 5.0),
        Vec2::new(3.0, 0.0),
        Vec2::new(-3.0, 0.0),
        Vec2::new(-9.0, 5.0),
    ];
    let mut world = World::default();
    world.add_terrain(Terrain::new(ground.clone())).unwrap();
    let b = BoxShape::new(Vec2::new(6.0, 3.2), Vec2::splat(0.4))
        .build(&mut world)
        .unwrap();
    let r = BoxShape::new(Vec2::new(-6.0, 3.3), Vec2::new(0.7, 0.3))
        .rotation(-0.7)
        .build(&mut world)
        .unwrap();
    for mut s in both(&world) {
        s.step(480).unwrap();
        let (pos, vel) = s.state().unwrap();
        let fastest = vel
            .iter()
            .map(|v| Vec2::from_array(*v).length())
            .fold(0.0f32, f32::max);
        let below = pos
            .iter()
            .map(|p| ground_at(&ground, p[0]) - p[1])
            .fold(f32::NEG_INFINITY, f32::max);
        let (cb, cr) = (centroid(&pos, &b), centroid(&pos, &r));
        eprintln!(
            "{}: boxes at {cb} and {cr}, fastest point {fastest:.5} m/s, deepest below ground {below:.4} m",
            s.name()
        );
        // On the floor (the long one may rest on its corner at -3).
        assert!(
            cb.x.abs() < 3.6 && cr.x.abs() < 3.6,
            "{}: {cb} {cr}",
            s.name()
        );
        assert!(fastest < 0.01, "{}: a point at {fastest} m/s", s.name());
        assert!(below < 0.0, "{}: a point {below} m below ground", s.name());
    }
}

/// Boxes thrown at a zigzag ground at 30 m/s from many angles, and at its
/// vertices, never pass through it: after a second no point is below the
/// ground, on both paths.
#[test]
fn nothing_passes_through_terrain_at_30_m_per_s() {
    let ground = vec![
        Vec2::new(12.0, 0.0),
        Vec2::new(6.0, 1.5),
        Vec2::new(0.0, -0.5),
        Vec2::new(-6.0, 1.5),
        Vec2::new(-12.0, 0.0),
    ];
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    world.add_terrain(Terrain::new(ground.clone())).unwrap();
    for k in 0..24 {
        let x = -10.0 + 20.0 * k as f32 / 23.0;
        let a = -std::f32::consts::FRAC_PI_2 + 0.9 * ((k % 5) as f32 / 4.0 - 0.5);
        let dir = Vec2::new(a.cos(), a.sin());
        BoxShape::new(Vec2::new(x, 3.0) - dir * 0.5, Vec2::splat(0.3))
            .rotation(0.37 * k as f32)
            .style(ShapeStyle::new().vel(dir * 30.0))
            .build(&mut world)
            .unwrap();
    }
    for mut s in both(&world) {
        let mut deepest = f32::NEG_INFINITY;
        for _ in 0..30 {
            s.step(2).unwrap();
            for p in s.state().unwrap().0 {
                deepest = deepest.max(ground_at(&ground, p[0]) - p[1]);
            }
        }
        eprintln!("{}: deepest below ground {deepest:.4} m", s.name());
        assert!(
            deepest < 0.0,
            "{}: a point went {deepest} m below ground",
            s.name()
        );
    }
}

/// A closed counter-clockwise loop is solid inside: a box dropped on a
/// square rock rests on its top, and a free point started inside it is
/// pushed out, on both paths.
#[test]
fn a_closed_loop_is_solid_inside() {
    let mut world = World::default();
    let rock = vec![
        Vec2::new(-1.0, 0.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(-1.0, 1.0),
    ];
    world.add_terrain(Terrain::new(rock).closed()).unwrap();
    world.add_plane(HalfPlane::floor(-2.0)).unwrap();
    let b = BoxShape::new(Vec2::new(0.0, 1.6), Vec2::splat(0.4))
        .build(&mut world)
        .unwrap();
    let inside = world.add_point(Point::new(Vec2::new(0.7, 0.5))).unwrap();
    for mut s in both(&world) {
        s.step(120).unwrap();
        let pos = s.state().unwrap().0;
        let c = centroid(&pos, &b);
        let p = Vec2::from_array(pos[inside.index()]);
        eprintln!("{}: box at {c}, the point started inside at {p}", s.name());
        assert!(
            (c.y - 1.22).abs() < 0.02 && c.x.abs() < 0.05,
            "{}: {c}",
            s.name()
        );
        let outside = p.x.abs() > 1.0 || p.y > 1.0 || p.y < 0.0;
        assert!(outside, "{}: the point is still inside at {p}", s.name());
    }
}

/// Bad terrain is refused with an error that names it.
#[test]
fn bad_terrain_is_refused() {
    let mut world = World::default();
    let err = |world: &mut World, t: Terrain| world.add_terrain(t).unwrap_err().to_string();
    let one = err(&mut world, Terrain::new(vec![Vec2::ZERO]));
    assert!(
        one.contains("terrain 0") && one.contains("at least 2"),
        "{one}"
    );
    let two = err(&mut world, Terrain::new(vec![Vec2::ZERO, Vec2::X]).closed());
    assert!(two.contains("at least 3"), "{two}");
    let zero = err(&mut world, Terrain::new(vec![Vec2::ZERO, Vec2::X, Vec2::X]));
    assert!(zero.contains("segment 1 has zero length"), "{zero}");
    let nan = err(
        &mut world,
        Terrain::new(vec![Vec2::ZERO, Vec2::new(f32::NAN, 0.0)]),
    );
    assert!(nan.contains("points"), "{nan}");
    let thin = err(
        &mut world,
        Terrain::new(vec![Vec2::ZERO, Vec2::X]).thickness(0.0),
    );
    assert!(thin.contains("thickness"), "{thin}");
    assert!(world.terrains().is_empty());
}

/// The solvers refuse a point radius above the one the terrain's grid was
/// built for through `set_params` (the cells would miss contacts), and
/// take it through a sync.
#[test]
fn a_larger_point_radius_needs_the_terrain_packed_again() {
    let mut world = World::default();
    world
        .add_terrain(Terrain::new(vec![
            Vec2::new(1.0, 0.0),
            Vec2::new(-1.0, 0.0),
        ]))
        .unwrap();
    let mut cpu = CpuSolver::new(&world).unwrap();
    let mut params = world.params.clone();
    params.point_radius *= 2.0;
    let e = cpu.set_params(params.clone()).unwrap_err();
    assert!(e.to_string().contains("terrain"), "{e}");
    world.params = params;
    cpu.sync(&world).unwrap();
    let _ = Solver::cpu(&world).unwrap();
}

/// The terrain stage on the GPU against its CPU mirror, on gpu_check's
/// terrain scene (points in front of, behind and at the vertices of its
/// segments, boxes landing), and a whole step with it.
#[test]
fn terrain_matches_the_cpu() {
    let Some(ctx) = gpu() else { return };
    let world = terrain_world();
    let (dp, dv) = check_stage(&ctx, "terrain", &world, &None, Stage::Terrain);
    eprintln!("terrain stage: pos {dp:e} m, vel {dv:e} m/s apart");
    let g = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    assert!(g.step_plan().contains(&Stage::Terrain));
}

/// Bodies that run off a ledge's open end fall as off a cliff, on both
/// paths, in metres at dt 1/60 and in centimetres at dt 1/120: a 0.4 m box
/// with diagonal springs and a hubless 12-point ring of 0.25 m leave a
/// ledge 1.5 m up (a polyline from (0, 1.5) to (-6, 1.5), solid below) at
/// 4 m/s. Past the end, the box's centre does not rise while it falls
/// to 1 m (the ring's, which bounces off the end's rounded cap, at most
/// at 0.5 m/s), and no point of the box moves faster than 1.5 times its
/// speed until it is below the ledge; both land on the floor beyond. Past an open end there is no inside: before, the
/// end's vertex drew what fell past it back up toward it, lifting the
/// box's centre at 0.8 m/s and kicking a corner to 8.3 m/s (a ring's point
/// to 18.6 m/s in centimetres).
#[test]
fn bodies_fall_off_a_ledges_open_end() {
    for (k, dt) in [(1.0f32, 1.0f32 / 60.0), (100.0, 1.0 / 120.0)] {
        let mut w = World::new(Params {
            dt,
            ..Params::with_length_unit(k).unwrap()
        });
        let at = |x: f32, y: f32| Vec2::new(x, y) * k;
        w.add_plane(HalfPlane::floor(0.0)).unwrap();
        w.add_terrain(Terrain::new(vec![at(0.0, 1.5), at(-6.0, 1.5)]))
            .unwrap();
        let r = w.params.point_radius;
        let crate_ = BoxShape::new(at(-0.5, 1.7) + Vec2::Y * r, Vec2::splat(0.4 * k))
            .diagonals(true)
            .vel(at(4.0, 0.0))
            .build(&mut w)
            .unwrap();
        let ring = Blob::new(at(-1.5, 1.75) + Vec2::Y * r, 0.25 * k, 12)
            .center_point(false)
            .vel(at(4.0, 0.0))
            .build(&mut w)
            .unwrap();
        for mut s in both(&w) {
            let what = format!("{} in 1/{k} m at dt {dt:.4}", s.name());
            let (mut rise, mut fastest) = ([0.0f32; 2], 0.0f32);
            for _ in 0..(2.0 / dt).round() as u32 {
                s.step(1).unwrap();
                let (pos, vel) = s.state().unwrap();
                for (j, shape) in [&crate_, &ring].into_iter().enumerate() {
                    let c = centroid(&pos, shape) / k;
                    let v = centroid(&vel, shape) / k;
                    // Past the end and above where a bounce off the floor
                    // reaches (0.6 m).
                    if c.x > 0.0 && c.y > 1.0 {
                        rise[j] = rise[j].max(v.y);
                    }
                    if j == 0 && c.y > 1.5 {
                        let top = crate_
                            .points
                            .iter()
                            .map(|p| Vec2::from(vel[p.index()]).length() / k)
                            .fold(0.0, f32::max);
                        fastest = fastest.max(top);
                    }
                }
            }
            let (pos, _) = s.state().unwrap();
            let ends = [centroid(&pos, &crate_) / k, centroid(&pos, &ring) / k];
            eprintln!(
                "{what}: centres rose at {rise:?} m/s past the end; the box's fastest point {fastest:.2} m/s above the ledge; at 2 s at {ends:?}"
            );
            for (name, end) in ["box", "ring"].iter().zip(ends) {
                assert!(end.x > 0.5 && end.y < 0.5, "{what}: the {name} is at {end}");
            }
            // The ring, soft, bounces off the end's cap a little.
            assert!(
                rise[0] < 0.05 && rise[1] < 0.5,
                "{what}: rising at {rise:?}"
            );
            assert!(fastest < 6.0, "{what}: a corner at {fastest} m/s");
        }
    }
}
