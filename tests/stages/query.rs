//! Queries (`shaders/query.wgsl`, `src/cpu/query.rs`): ray casts against
//! the bodies' outlines and the colliders, exact on a known scene and the
//! GPU against the CPU on a pile.

use crate::common::gpu;
use softbody::cpu::CpuSolver;
use softbody::gpu::GpuSolver;
use softbody::prelude::*;
use softbody::query::{Hit, Ray, RayHit};

/// What a ray should hit: what, at what distance, with what normal.
type Expected = Option<(Hit, f32, Vec2)>;

/// Casts `rays` on the GPU and waits for the answer.
fn gpu_cast(ctx: &softbody::gpu::GpuContext, s: &GpuSolver, rays: &[Ray]) -> Vec<Option<RayHit>> {
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    let mut pending = s
        .request_ray_casts(&ctx.device, &mut encoder, rays)
        .unwrap();
    ctx.queue.submit([encoder.finish()]);
    crate::common::polled(|| pending.poll(&ctx.device))
}

/// A floor, a planet of radius 2 at (10, 0), a 1 m box at (0, 2) turned
/// by 30 degrees and a 1 m box at (-4, 1) (no gravity: nothing moves).
/// Each ray's first hit is what geometry says, to 1e-4 m, on both paths:
/// the box's face, a box's corner region turned, the floor past a box the
/// ray starts inside (which it does not see), the planet's near side, and
/// nothing beyond the ray's reach.
#[test]
fn rays_hit_what_geometry_says_on_both_paths() {
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    world
        .add_planet(Planet::new(Vec2::new(10.0, 0.0), 2.0))
        .unwrap();
    let turn = 30f32.to_radians();
    BoxShape::new(Vec2::new(0.0, 2.0), Vec2::splat(1.0))
        .rotation(turn)
        .build(&mut world)
        .unwrap();
    BoxShape::new(Vec2::new(-4.0, 1.0), Vec2::splat(1.0))
        .build(&mut world)
        .unwrap();
    // The turned box's face its top corner's ray meets: a ray down the
    // y axis hits the top corner region of the turned box: the corner
    // (0,2) + R(30)(0.5,0.5) and its neighbours.
    let corner = Vec2::new(0.0, 2.0) + Vec2::from_angle(turn).rotate(Vec2::new(-0.5, 0.5));
    let next = Vec2::new(0.0, 2.0) + Vec2::from_angle(turn).rotate(Vec2::new(0.5, 0.5));
    // Where x = 0.1 crosses the top face from `corner` to `next`.
    let s = (0.1 - corner.x) / (next.x - corner.x);
    let top = corner.y + s * (next.y - corner.y);
    let face = (next - corner).perp().normalize();
    let cases: Vec<(Ray, Expected)> = vec![
        (
            Ray::new(Vec2::new(0.1, 10.0), Vec2::NEG_Y, 50.0),
            Some((Hit::Body(BodyHandle(0)), 10.0 - top, face)),
        ),
        (
            Ray::new(Vec2::new(-4.2, 5.0), Vec2::NEG_Y, 50.0),
            Some((Hit::Body(BodyHandle(1)), 3.5, Vec2::Y)),
        ),
        (
            Ray::new(Vec2::new(-7.0, 1.2), Vec2::X, 50.0),
            Some((Hit::Body(BodyHandle(1)), 2.5, Vec2::NEG_X)),
        ),
        (
            Ray::new(Vec2::new(-4.0, 1.0), Vec2::NEG_Y, 50.0),
            Some((Hit::Plane(0), 1.0, Vec2::Y)),
        ),
        (
            Ray::new(Vec2::new(20.0, 0.5), Vec2::NEG_X, 50.0),
            Some((
                Hit::Planet(0),
                10.0 - (4.0f32 - 0.25).sqrt(),
                Vec2::new((4.0f32 - 0.25).sqrt(), 0.5) / 2.0,
            )),
        ),
        (Ray::new(Vec2::new(5.0, 10.0), Vec2::NEG_Y, 9.0), None),
        (
            Ray::new(Vec2::new(5.0, 10.0), Vec2::NEG_Y, 11.0),
            Some((Hit::Plane(0), 10.0, Vec2::Y)),
        ),
    ];
    let rays: Vec<Ray> = cases.iter().map(|c| c.0).collect();
    let cpu = CpuSolver::new(&world).unwrap();
    let mut answers = vec![("cpu", cpu.cast_rays(&rays).unwrap())];
    if let Some(ctx) = gpu() {
        let g = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
        answers.push(("gpu", gpu_cast(&ctx, &g, &rays)));
    }
    for (name, hits) in answers {
        for (k, ((ray, want), got)) in cases.iter().zip(&hits).enumerate() {
            match (want, got) {
                (None, None) => {}
                (Some((what, d, n)), Some(h)) => {
                    eprintln!("{name} ray {k}: {h:?}");
                    assert_eq!(h.what, *what, "{name} ray {k}");
                    assert!(
                        (h.distance - d).abs() < 1e-4,
                        "{name} ray {k}: {} against {d}",
                        h.distance
                    );
                    assert!(
                        (h.normal - *n).length() < 1e-4,
                        "{name} ray {k}: normal {}",
                        h.normal
                    );
                    let at = ray.origin + ray.dir * d;
                    assert!(
                        (h.point - at).length() < 1e-4,
                        "{name} ray {k}: point {}",
                        h.point
                    );
                }
                _ => panic!("{name} ray {k}: {got:?} against {want:?}"),
            }
        }
    }
}

/// On a settling pile (the samples' pour after 1.5 s, the GPU given the
/// CPU's state), 300 rays in every direction hit the same body or
/// collider on both paths, at the same distance to 1e-4 m. Bad rays are
/// refused by their place in the batch.
#[test]
fn ray_casts_match_the_cpu_on_a_pile() {
    let Some(ctx) = gpu() else { return };
    let world = softbody::samples::pour(300, 0.5).unwrap();
    let mut cpu = CpuSolver::new(&world).unwrap();
    for _ in 0..90 {
        cpu.step();
    }
    let mut g = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    g.set_state(&ctx.queue, cpu.positions(), cpu.velocities())
        .unwrap();
    let rays: Vec<Ray> = (0..300)
        .map(|k| {
            let a = 0.61 * k as f32;
            let origin = Vec2::new(-6.0 + 0.04 * k as f32, 0.3 + 0.01 * k as f32);
            Ray::new(origin, Vec2::from_angle(a), 20.0)
        })
        .collect();
    let (c, gh) = (cpu.cast_rays(&rays).unwrap(), gpu_cast(&ctx, &g, &rays));
    let mut bodies = 0;
    for (k, (c, gh)) in c.iter().zip(&gh).enumerate() {
        match (c, gh) {
            (None, None) => {}
            (Some(a), Some(b)) => {
                assert_eq!(a.what, b.what, "ray {k}");
                assert!(
                    (a.distance - b.distance).abs() < 1e-4,
                    "ray {k}: {a:?} {b:?}"
                );
                assert!(
                    (a.normal - b.normal).length() < 1e-4,
                    "ray {k}: {a:?} {b:?}"
                );
                bodies += matches!(a.what, Hit::Body(_)) as usize;
            }
            _ => panic!("ray {k}: {c:?} against {gh:?}"),
        }
    }
    eprintln!("{bodies} of 300 rays hit a body first");
    assert!(bodies > 100, "{bodies}");
    let mut bad = rays.clone();
    bad[2].dir = Vec2::ZERO;
    let e = cpu.cast_rays(&bad).unwrap_err().to_string();
    assert!(e.contains("ray 2") && e.contains("dir"), "{e}");
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    let e = g
        .request_ray_casts(&ctx.device, &mut encoder, &bad)
        .unwrap_err()
        .to_string();
    assert!(e.contains("ray 2"), "{e}");
}

/// The body under a point and the bodies in a box: on a known scene the
/// answers geometry gives, and on the pile both paths agree. Bad points
/// and boxes are refused.
#[test]
fn bodies_under_points_and_in_boxes_on_both_paths() {
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    for k in 0..4 {
        BoxShape::new(Vec2::new(2.0 * k as f32, 0.0), Vec2::splat(1.0))
            .rotation(0.2 * k as f32)
            .build(&mut world)
            .unwrap();
    }
    softbody::shapes::Blob::new(Vec2::new(0.0, 3.0), 0.6, 10)
        .center_point(false)
        .build(&mut world)
        .unwrap();
    let points = [
        Vec2::new(0.0, 0.0),
        Vec2::new(2.3, 0.3),
        Vec2::new(1.0, 0.0),
        Vec2::new(0.1, 3.2),
        Vec2::new(9.0, 9.0),
    ];
    let want_at = [Some(0), Some(1), None, Some(4), None].map(|b| b.map(BodyHandle));
    let (lo, hi) = (Vec2::new(1.8, -0.2), Vec2::new(4.2, 0.2));
    let want_box: Vec<BodyHandle> = [1, 2].map(BodyHandle).to_vec();
    let cpu = CpuSolver::new(&world).unwrap();
    assert_eq!(cpu.bodies_at(&points).unwrap(), want_at);
    assert_eq!(cpu.bodies_in_box(lo, hi).unwrap(), want_box);
    let e = cpu.bodies_in_box(hi, lo).unwrap_err().to_string();
    assert!(e.contains("box"), "{e}");
    let e = cpu
        .bodies_at(&[Vec2::ZERO, Vec2::NAN])
        .unwrap_err()
        .to_string();
    assert!(e.contains("ray 1") && e.contains("point"), "{e}");
    let Some(ctx) = gpu() else { return };
    let g = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    let (at, in_box) = gpu_places(&ctx, &g, &points, lo, hi);
    assert_eq!(at, want_at);
    assert_eq!(in_box, want_box);
    // The pile: both paths agree.
    let pile = softbody::samples::pour(300, 0.5).unwrap();
    let mut cpu = CpuSolver::new(&pile).unwrap();
    for _ in 0..90 {
        cpu.step();
    }
    let mut g = GpuSolver::new(&ctx.device, &ctx.queue, &pile).unwrap();
    g.set_state(&ctx.queue, cpu.positions(), cpu.velocities())
        .unwrap();
    let probes: Vec<Vec2> = (0..400)
        .map(|k| Vec2::new(-6.0 + 0.03 * k as f32, 0.05 + 0.004 * k as f32))
        .collect();
    let (lo, hi) = (Vec2::new(-2.0, 0.0), Vec2::new(1.0, 0.8));
    let (at, in_box) = gpu_places(&ctx, &g, &probes, lo, hi);
    let under = cpu.bodies_at(&probes).unwrap();
    assert_eq!(at, under);
    assert_eq!(in_box, cpu.bodies_in_box(lo, hi).unwrap());
    let hits = under.iter().filter(|b| b.is_some()).count();
    eprintln!(
        "{hits} of 400 points on a body; {} bodies in the box",
        in_box.len()
    );
    assert!(hits > 100 && in_box.len() > 10, "{hits}, {}", in_box.len());
}

/// The bodies under `points` and in the box `lo..=hi`, on the GPU.
fn gpu_places(
    ctx: &softbody::gpu::GpuContext,
    g: &GpuSolver,
    points: &[Vec2],
    lo: Vec2,
    hi: Vec2,
) -> (Vec<Option<BodyHandle>>, Vec<BodyHandle>) {
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    let mut at = g
        .request_bodies_at(&ctx.device, &mut encoder, points)
        .unwrap();
    let mut in_box = g
        .request_bodies_in_box(&ctx.device, &mut encoder, lo, hi)
        .unwrap();
    ctx.queue.submit([encoder.finish()]);
    let (mut a, mut b) = (None, None);
    while a.is_none() || b.is_none() {
        a = a.or_else(|| at.poll(&ctx.device));
        b = b.or_else(|| in_box.poll(&ctx.device));
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    (a.unwrap().unwrap(), b.unwrap().unwrap())
}

/// Rays against terrain: a ray from above a valley's slope meets it at
/// the distance and with the normal geometry says (1e-4), a ray from
/// below (behind it) passes through, and a ray past a segment's end
/// meets the next one, on both paths.
#[test]
fn rays_hit_terrain_from_its_open_side() {
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    // Right to left, solid below: a slope down to the floor at y = 0.
    world
        .add_terrain(Terrain::new(vec![
            Vec2::new(6.0, 4.0),
            Vec2::new(2.0, 0.0),
            Vec2::new(-2.0, 0.0),
        ]))
        .unwrap();
    let slope_n = Vec2::new(-1.0, 1.0).normalize();
    let rays = [
        // Straight down onto the slope at x = 4: y = 2 there.
        Ray::new(Vec2::new(4.0, 5.0), Vec2::new(0.0, -1.0), 10.0),
        // From below the floor, up: behind it, nothing.
        Ray::new(Vec2::new(0.0, -1.0), Vec2::new(0.0, 1.0), 10.0),
        // Down onto the floor at x = -1.
        Ray::new(Vec2::new(-1.0, 3.0), Vec2::new(0.0, -1.0), 10.0),
    ];
    let expected: [Expected; 3] = [
        Some((Hit::Terrain(0), 3.0, slope_n)),
        None,
        Some((Hit::Terrain(1), 3.0, Vec2::Y)),
    ];
    let check = |name: &str, got: &[Option<RayHit>]| {
        for (k, (g, e)) in got.iter().zip(&expected).enumerate() {
            match (g, e) {
                (None, None) => {}
                (Some(h), Some((what, t, n))) => {
                    assert_eq!(h.what, *what, "{name} ray {k}");
                    assert!((h.distance - t).abs() < 1e-4, "{name} ray {k}: {h:?}");
                    assert!((h.normal - *n).length() < 1e-4, "{name} ray {k}: {h:?}");
                }
                _ => panic!("{name} ray {k}: got {g:?}, expected {e:?}"),
            }
        }
    };
    let cpu = CpuSolver::new(&world).unwrap();
    check("cpu", &cpu.cast_rays(&rays).unwrap());
    if let Some(ctx) = gpu() {
        let g = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
        check("gpu", &gpu_cast(&ctx, &g, &rays));
    }
}

/// The nearest body a ray enters, by brute force over every outline edge
/// (the oracle for the queries' culling by boxes): `(distance, body)`,
/// ties to the lower body.
fn brute_force_ray(p: &softbody::pack::Packed, pos: &[[f32; 2]], r: &Ray) -> Option<(f32, u32)> {
    let cross = |a: Vec2, b: Vec2| a.x * b.y - a.y * b.x;
    let mut best: Option<(f32, u32)> = None;
    for &b in &p.colliders[..p.sim.num_colliders as usize] {
        let o = &p.outlines[b as usize];
        let at = |k: u32| {
            Vec2::from_array(pos[p.outline_points[(o.first + k % o.count) as usize] as usize])
        };
        // The winding from the area in f64 (the casts' own is in f32).
        let area = softbody::measure::signed_area(p, pos, b as usize);
        let w = if area < 0.0 { -1.0 } else { 1.0 };
        for k in 0..o.count {
            let (a, c) = (at(k), at(k + 1));
            let e = c - a;
            if r.dir.dot(w * Vec2::new(e.y, -e.x)) >= 0.0 {
                continue;
            }
            let denom = cross(r.dir, e);
            let ap = a - r.origin;
            let (t, u) = (cross(ap, e) / denom, cross(ap, r.dir) / denom);
            if t >= 0.0
                && t <= r.max_distance
                && (0.0..=1.0).contains(&u)
                && best.is_none_or(|(bt, bb)| t < bt || (t == bt && b < bb))
            {
                best = Some((t, b));
            }
        }
    }
    best
}

/// Rays and points test a body's outline only where its box (computed
/// once a batch) says they may meet it: no hit is lost. Against a brute
/// force over every edge, 400 rays on three scenes of other sizes and
/// places: the pour settling at 1.5 s; 2 cm boxes (diagonal springs) and
/// hubless rings scattered 3 km from the origin, where a box's slack is
/// widest against the rounding; and rays grazing a row of 0.3 m boxes
/// along their top faces. The same bodies at the same
/// distance (1e-5 relative), on both paths.
#[test]
fn culling_by_boxes_loses_no_hit() {
    let pour = softbody::samples::pour(300, 0.5).unwrap();
    let mut far = World::default();
    far.params.gravity = Vec2::ZERO;
    far.params.point_radius = 0.002;
    let base = Vec2::new(3000.0, -2000.0);
    for k in 0..200 {
        let at = base + Vec2::new(0.05 * (k % 20) as f32, 0.05 * (k / 20) as f32);
        if k % 3 == 0 {
            Blob::new(at, 0.012, 8).build(&mut far).unwrap();
        } else {
            BoxShape::new(at, Vec2::splat(0.02))
                .rotation(0.37 * k as f32)
                .build(&mut far)
                .unwrap();
        }
    }
    let mut row = World::default();
    row.params.gravity = Vec2::ZERO;
    for k in 0..20 {
        BoxShape::new(Vec2::new(0.4 * k as f32, 0.0), Vec2::splat(0.3))
            .build(&mut row)
            .unwrap();
    }
    type RayOf = Box<dyn Fn(usize) -> Ray>;
    let scenes: [(&str, &World, u32, RayOf); 3] = [
        (
            "pour",
            &pour,
            90,
            Box::new(|k| {
                let origin = Vec2::new(-6.0 + 0.03 * k as f32, 0.2 + 0.012 * k as f32);
                Ray::new(origin, Vec2::from_angle(0.61 * k as f32), 20.0)
            }),
        ),
        (
            "far",
            &far,
            1,
            Box::new(move |k| {
                let origin = base + Vec2::new(-0.1 + 0.0027 * k as f32, -0.1 + 0.0013 * k as f32);
                Ray::new(origin, Vec2::from_angle(0.77 * k as f32), 2.0)
            }),
        ),
        (
            "grazing",
            &row,
            1,
            Box::new(|k| {
                // From a hair above, on and below the boxes' top faces,
                // level or dipping into them at up to 0.5 degrees.
                let y = 0.15 + 1e-6 * (k % 5) as f32 - 2e-6;
                Ray::new(
                    Vec2::new(-1.0, y),
                    Vec2::new(1.0, -1e-4 * (k / 5) as f32),
                    10.0,
                )
            }),
        ),
    ];
    for (name, world, steps, ray) in scenes {
        let mut cpu = CpuSolver::new(world).unwrap();
        for _ in 0..steps {
            cpu.step();
        }
        let packed = softbody::pack::Packed::from_world(world).unwrap();
        let rays: Vec<Ray> = (0..400).map(ray).collect();
        let got = cpu.cast_rays(&rays).unwrap();
        let mut gpu_got = None;
        if let Some(ctx) = gpu() {
            let mut g = GpuSolver::new(&ctx.device, &ctx.queue, world).unwrap();
            g.set_state(&ctx.queue, cpu.positions(), cpu.velocities())
                .unwrap();
            gpu_got = Some(gpu_cast(&ctx, &g, &rays));
        }
        let mut hits = 0;
        for (k, r) in rays.iter().enumerate() {
            let want = brute_force_ray(&packed, cpu.positions(), r);
            let body = |h: &Option<RayHit>| match h {
                Some(RayHit {
                    what: Hit::Body(b),
                    distance,
                    ..
                }) => Some((*distance, b.0)),
                _ => None,
            };
            for (path, h) in
                std::iter::once(("cpu", &got[k])).chain(gpu_got.as_ref().map(|g| ("gpu", &g[k])))
            {
                match (body(h), want) {
                    (Some((d, b)), Some((wd, wb))) => assert!(
                        b == wb && (d - wd).abs() <= 1e-5 * wd.max(1.0),
                        "{name} {path} ray {k}: {h:?}, brute force {want:?}"
                    ),
                    (None, None) => {}
                    // A collider nearer than every body.
                    (None, Some((wd, _))) => assert!(
                        h.as_ref().is_some_and(|h| h.distance <= wd),
                        "{name} {path} ray {k}: {h:?}, brute force {want:?}"
                    ),
                    _ => panic!("{name} {path} ray {k}: {h:?}, brute force {want:?}"),
                }
            }
            hits += want.is_some() as usize;
        }
        eprintln!("{name}: {hits} of 400 rays enter a body");
        assert!(hits > 100, "{name}: {hits}");
    }
}
