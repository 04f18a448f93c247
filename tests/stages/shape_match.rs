//! Shape matching (`shaders/shape_match.wgsl`, `src/cpu/shape_match.rs`):
//! a rest shape in any rotation feels no force, an inside-out box
//! recovers, momentum is conserved, hanging bodies keep their shape, a
//! body given in hertz rings at that frequency, shared points split the
//! default stiffness, collapsed bodies recover, and the GPU against the
//! CPU (frames, apply, and apply fused with integrate and collide). The
//! area term is in `area`.

mod area;

use crate::common::closed_form::*;
use crate::common::run_finite;
use crate::{Stepper, gpu_check};
use softbody::cpu::CpuSolver;
use softbody::gpu::Stage;
use softbody::prelude::*;

/// Signed area (shoelace) of the polygon through these points, in order.
fn signed_area(s: &CpuSolver, pts: &[usize]) -> f64 {
    let n = pts.len();
    (0..n)
        .map(|k| cross(pos(s, pts[k]), pos(s, pts[(k + 1) % n])))
        .sum::<f64>()
        / 2.0
}

/// A deterministic pseudo-random number in [-1, 1) (64-bit LCG).
fn rand(state: &mut u64) -> f32 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*state >> 40) as f64 / (1u64 << 24) as f64 * 2.0 - 1.0) as f32
}

fn rot(angle: f32, v: Vec2) -> Vec2 {
    let (s, c) = angle.sin_cos();
    Vec2::new(c * v.x - s * v.y, s * v.x + c * v.y)
}

/// A body in its rest shape, rotated by any angle and translated, is its
/// own best fit (`theta = -atan2(sum w r x q, sum w r . q)` recovers the
/// angle), so the pull `k (c + R q - p) h` and the rigid damping vanish.
/// Unequal masses make the weighted centroid differ from the plain one.
/// Two shapes: a 5-point polygon (reduced one thread per body on the GPU)
/// and a 40-point ring (reduced by a workgroup, tree-summed).
///
/// Tolerance: positions are ~4 m, so points and targets are each rounded to
/// ~2.4e-7 m (half an ulp); the pull turns a gap e into a velocity `k h e`
/// (k h = 3.1 1/s), ~1e-6 m/s: we allow 1e-5 m/s after one substep. Left
/// for a second, the body stays put to rounding. Its velocities do not stay
/// at 1e-6 m/s: the rounding gap e (< 1e-6 m) keeps pulling, and the
/// velocity saturates where the rigid damping c balances the pull,
/// `k e / c` (< 1.5e-4 m/s here). That times h is about one ulp of the
/// position per substep, so whether a point steps by an ulp is decided by
/// rounding, and points can walk a few tens of ulps in a second: we allow
/// 1e-5 m (about 40 ulp; measured up to 4e-6 m). A real shape force (a
/// wrong rotation or centroid) moves points by millimetres.
/// The frame's `(cos, sin)` must match the angle to 1e-6.
#[test]
fn rest_shape_in_any_rotation_feels_no_force() {
    let polygon = vec![
        Vec2::new(-0.6, -0.3),
        Vec2::new(0.5, -0.4),
        Vec2::new(0.7, 0.3),
        Vec2::new(0.0, 0.6),
        Vec2::new(-0.5, 0.4),
    ];
    let ring: Vec<_> = (0..40)
        .map(|i| {
            let a = i as f32 * std::f32::consts::TAU / 40.0;
            rot(a, Vec2::new(0.8 + 0.2 * (3.0 * a).sin(), 0.0))
        })
        .collect();
    let offset = Vec2::new(3.0, -2.0);
    // A soft body, for which the tolerances below are worked out: the
    // rounding walk grows with k (at the default 20 Hz, k = 15,791 1/s^2,
    // the same body walks 0.3 mm in the second, the centroid's half-ulp
    // rounding accelerating it as a whole by k e).
    let params = Params {
        shape_stiffness: 1500.0,
        shape_damping: 10.0,
        ..quiet()
    };
    let (k, c) = (params.shape_stiffness as f64, params.shape_damping as f64);
    for rest in [polygon, ring] {
        let n = rest.len();
        let masses: Vec<f32> = (0..n).map(|i| 0.5 + (i % 4) as f32 * 0.5).collect();
        for angle in [
            0.0f32,
            1.0,
            std::f32::consts::PI,
            -2.5,
            0.5 * std::f32::consts::PI,
        ] {
            let mut world = World::new(params.clone());
            let pts = rest
                .iter()
                .zip(&masses)
                .map(|(&r, &m)| {
                    world
                        .add_point(Point::new(offset + rot(angle, r)).mass(m))
                        .unwrap()
                })
                .collect();
            world.add_body(Body::new(pts).rest(rest.clone())).unwrap();
            let mut s = CpuSolver::new(&world).unwrap();
            let start: Vec<_> = (0..n).map(|i| pos(&s, i)).collect();
            let max_speed = |s: &CpuSolver| (0..n).map(|i| norm(vel(s, i))).fold(0.0, f64::max);
            s.substep();
            let after_substep = max_speed(&s);
            let f = s.frames()[0];
            let (sin, cos) = (angle as f64).sin_cos();
            let rot_err = (f.rot[0] as f64 - cos).hypot(f.rot[1] as f64 - sin);
            for _ in 0..60 {
                s.step();
            }
            let speed_1s = max_speed(&s);
            let moved_1s = (0..n)
                .map(|i| norm(sub(pos(&s, i), start[i])))
                .fold(0.0, f64::max);
            let (moved_tol, speed_tol) = (1e-5, k * 1e-6 / c);
            println!(
                "{n} points, angle {angle}: max speed {after_substep:.2e} after a substep; \
                 after 1 s moved {moved_1s:.2e} m, speed {speed_1s:.2e} m/s; frame rot {:?} vs \
                 ({cos:.6}, {sin:.6}) (err {rot_err:.1e})",
                f.rot
            );
            assert!(
                after_substep < 1e-5,
                "{n} points, angle {angle}: rest shape gained speed {after_substep} m/s in a \
                 substep (tolerance 1e-5)"
            );
            assert!(
                moved_1s < moved_tol && speed_1s < speed_tol,
                "{n} points, angle {angle}: rest shape moved {moved_1s} m (tolerance \
                 {moved_tol:e}) and reached {speed_1s} m/s (tolerance {speed_tol:e}) in 1 s"
            );
            assert!(
                rot_err < 1e-6,
                "{n} points, angle {angle}: best-fit rotation {:?}, expected ({cos}, {sin})",
                f.rot
            );
        }
    }
}

/// The box of Lisitsa 2023 turned inside out. A 1 x 0.6 rectangle with springs
/// on all six pairs, mirrored (x -> 1 - x, and slightly perturbed): every
/// spring is at its rest length in the mirrored shape too, so with springs
/// only it stays inverted (signed area negative). With shape matching the
/// best-fit rotation is a proper rotation (no reflection), so the pull
/// unfolds the box: the signed area becomes positive and matches the rest
/// area, with or without the springs. Tolerance 10% of the rest area (after 2 s the motion has settled;
/// the springs-only box has relaxed to its inverted rest shape).
#[test]
fn inside_out_box_recovers_only_with_shape_matching() {
    let rest = [
        Vec2::new(0.0, 0.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(1.0, 0.6),
        Vec2::new(0.0, 0.6),
    ];
    let rest_area = 0.6;
    let nudge = [
        Vec2::new(0.01, 0.02),
        Vec2::new(-0.02, 0.0),
        Vec2::new(0.0, -0.01),
        Vec2::new(0.015, 0.01),
    ];
    let build = |springs: bool, body: bool| {
        let mut world = World::new(quiet());
        let pts: Vec<_> = rest
            .iter()
            .zip(nudge)
            .map(|(r, d)| {
                world
                    .add_point(Point::new(Vec2::new(1.0 - r.x, r.y) + d))
                    .unwrap()
            })
            .collect();
        if springs {
            for i in 0..4 {
                for j in i + 1..4 {
                    world
                        .add_spring(
                            Spring::new(pts[i], pts[j]).rest_length(rest[i].distance(rest[j])),
                        )
                        .unwrap();
                }
            }
        }
        if body {
            world.add_body(Body::new(pts).rest(rest.to_vec())).unwrap();
        }
        let mut s = CpuSolver::new(&world).unwrap();
        let start = signed_area(&s, &[0, 1, 2, 3]);
        for _ in 0..120 {
            s.step();
        }
        assert_finite(&s);
        (start, signed_area(&s, &[0, 1, 2, 3]))
    };
    let (start, springs_only) = build(true, false);
    let (_, body_only) = build(false, true);
    let (_, both) = build(true, true);
    println!(
        "signed area: start {start:.4}; after 2 s: springs only {springs_only:.4}, shape \
         matching only {body_only:.4}, springs + shape matching {both:.4} (rest {rest_area})"
    );
    assert!(
        start < 0.0,
        "the start shape should be inverted, area {start}"
    );
    assert!(
        (springs_only + rest_area).abs() < 0.1 * rest_area,
        "springs only: area {springs_only}, expected to stay inverted at -{rest_area}"
    );
    assert!(
        (body_only - rest_area).abs() < 0.1 * rest_area,
        "shape matching: area {body_only}, expected to recover +{rest_area} within 10%"
    );
    assert!(
        (both - rest_area).abs() < 0.1 * rest_area,
        "springs + shape matching: area {both}, expected to recover +{rest_area} within 10%"
    );
}

/// A scene for the momentum test: seven points of unequal masses, three
/// bodies sharing points, three damped springs, deformed and moving.
fn momentum_scene() -> (World, Vec<f32>) {
    let grid = [
        Vec2::new(0.0, 0.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(2.0, 0.0),
        Vec2::new(0.0, 1.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(2.0, 1.0),
        Vec2::new(1.0, 1.8),
    ];
    let masses = vec![1.0f32, 2.0, 0.5, 1.5, 3.0, 0.7, 1.2];
    let centre = Vec2::new(1.0, 0.6);
    let mut world = World::new(quiet());
    let mut seed = 12345u64;
    let pts: Vec<_> = grid
        .iter()
        .zip(&masses)
        .map(|(&g, &m)| {
            let jitter = Vec2::new(rand(&mut seed), rand(&mut seed)) * 0.15;
            let v = Vec2::new(rand(&mut seed), rand(&mut seed));
            world
                .add_point(Point::new(g - centre + jitter).vel(v).mass(m))
                .unwrap()
        })
        .collect();
    let rest = |ids: &[usize]| ids.iter().map(|&i| grid[i] - centre).collect::<Vec<_>>();
    for (ids, k, c) in [
        (vec![0, 1, 4, 3], 1500.0, 10.0),
        (vec![1, 2, 5, 4], 900.0, 4.0),
        (vec![3, 4, 6], 2000.0, 20.0),
    ] {
        world
            .add_body(
                Body::new(ids.iter().map(|&i| pts[i]).collect())
                    .rest(rest(&ids))
                    .stiffness(k)
                    .damping(c),
            )
            .unwrap();
    }
    for (a, b, k, c) in [
        (0, 4, 2000.0, 10.0),
        (2, 6, 500.0, 0.0),
        (3, 5, 1000.0, 30.0),
    ] {
        world
            .add_spring(
                Spring::new(pts[a], pts[b])
                    .rest_length(grid[a].distance(grid[b]))
                    .stiffness(k)
                    .damping(c),
            )
            .unwrap();
    }
    (world, masses)
}

/// Springs and shape matching are internal: with no gravity and no
/// colliders, linear and angular momentum are conserved. Springs give
/// exactly opposite impulses along the spring; shape matching conserves
/// both because its weights are the masses, `sum w q = 0` and the optimal
/// rotation makes `sum w r x R q = 0`, and the rigid damping relaxes toward
/// a motion with the body's own momentum and angular momentum (derivation
/// in docs/physics.md). Three bodies share points, masses are unequal
/// (an unweighted centroid or rigid velocity would break conservation by
/// O(1)), the shapes start deformed and the velocities random.
///
/// Tolerance: in f32 the sums cancel only to rounding. The natural scale is
/// the impulse the internal forces exchange, `J = sum over substeps and
/// points of m |dv|` (and `sum m |p| |dv|` for the angular part): an exact
/// scheme would cancel it completely, and f32 leaves a few `EPS` of it per
/// operation chain. We allow 1e-5 of J over one second (480 substeps), about
/// 80 EPS; a formula error leaves an O(1) fraction. (The residual is mostly
/// the rounding of the centroid `c`, ~`EPS |c|` per body and substep, which
/// grows with the distance from the origin: docs/physics.md.)
#[test]
fn springs_and_shape_matching_conserve_momentum() {
    let (world, masses) = momentum_scene();
    let mut s = CpuSolver::new(&world).unwrap();
    let n = masses.len();
    let (p0, l0) = momenta(&s, &masses);
    let (mut j_lin, mut j_ang) = (0.0f64, 0.0f64);
    for _ in 0..480 {
        let before: Vec<_> = (0..n).map(|i| (pos(&s, i), vel(&s, i))).collect();
        s.substep();
        for (i, &(p, v)) in before.iter().enumerate() {
            let dv = norm(sub(vel(&s, i), v));
            j_lin += masses[i] as f64 * dv;
            j_ang += masses[i] as f64 * norm(p) * dv;
        }
    }
    assert_finite(&s);
    let (p1, l1) = momenta(&s, &masses);
    let p_err = norm(sub(p1, p0)) / j_lin;
    let l_err = (l1 - l0).abs() / j_ang;
    println!(
        "P {p0:.6?} -> {p1:.6?} (|dP| / J = {p_err:.2e}, J = {j_lin:.2}); L {l0:.6} -> {l1:.6} \
         (|dL| / J_ang = {l_err:.2e}, J_ang = {j_ang:.2})"
    );
    assert!(
        j_lin > 10.0,
        "the scene barely moved (exchanged impulse {j_lin}); the test would be vacuous"
    );
    assert!(
        p_err < 1e-5,
        "linear momentum {p0:?} -> {p1:?}: error {p_err:e} of the exchanged impulse {j_lin} \
         (tolerance 1e-5)"
    );
    assert!(
        l_err < 1e-5,
        "angular momentum {l0} -> {l1}: error {l_err:e} of the exchanged angular impulse \
         {j_ang} (tolerance 1e-5)"
    );
}

/// A body hanging from a pinned point keeps its shape. A diamond pinned at
/// its top apex (symmetric, so it hangs without rotating) under gravity g
/// with shape stiffness k. With the pinned weight W_p and free mass M_f,
/// the free points all sag by the same
/// `d = (g / k) (W_p + M_f) / W_p = (g / k) (1 + M_f / W_p)`:
/// the elastic sag `g / k` (what an infinitely heavy pin gives) plus a
/// relative excess `M_f / W_p` from the finite weight 1e4. The shape itself
/// (distances between free points) does not change at all.
///
/// Tolerance: after 4 s the sag mode (w = sqrt(k) = 39 1/s, damped at
/// rate ~c/2 = 5 1/s) has settled to e^-20; f32 rounding of positions ~1 m
/// is 1e-7 m, i.e. 2e-5 of d. We require each free point's displacement to
/// equal (0, -d) within 3e-5 d, which resolves the 3e-4 excess.
#[test]
fn body_hanging_from_pinned_point_keeps_its_shape() {
    let k = 1500.0f32;
    let params = Params {
        gravity: Vec2::new(0.0, -G),
        ..quiet()
    };
    let rest = [
        Vec2::new(0.0, 0.0),
        Vec2::new(-0.4, -0.5),
        Vec2::new(0.4, -0.5),
        Vec2::new(0.0, -1.0),
    ];
    for mass in [1.0f32, 0.02] {
        let mut world = World::new(params.clone());
        let pts: Vec<_> = rest
            .iter()
            .enumerate()
            .map(|(i, &r)| {
                let p = Point::new(r).mass(mass);
                world
                    .add_point(if i == 0 { p.pinned() } else { p })
                    .unwrap()
            })
            .collect();
        world
            .add_body(Body::new(pts).stiffness(k).damping(10.0))
            .unwrap();
        let mut s = CpuSolver::new(&world).unwrap();
        for _ in 0..240 {
            s.step();
        }
        let m_free = 3.0 * mass as f64;
        let w_pin = PINNED_WEIGHT_RATIO as f64 * m_free;
        let elastic = G as f64 / k as f64;
        let d = elastic * (1.0 + m_free / w_pin);
        assert_eq!(pos(&s, 0), [0.0, 0.0], "the pinned point moved");
        let mut excess = Vec::new();
        for (i, r) in rest.iter().enumerate().skip(1) {
            let disp = sub(pos(&s, i), [r.x as f64, r.y as f64]);
            excess.push(-disp[1] / elastic - 1.0);
            let err = norm(sub(disp, [0.0, -d]));
            println!(
                "mass {mass}: point {i} displaced {disp:.7?}, expected (0, -{d:.7}); error \
                 {:.1e} of d",
                err / d
            );
            assert!(
                err < 3e-5 * d,
                "mass {mass}, point {i}: displaced by {disp:?}, expected (0, -{d}) within \
                 3e-5 d"
            );
        }
        println!(
            "mass {mass}: sag / (g/k) - 1 = {:?}, predicted M_f / W_p = {:.2e}",
            excess
                .iter()
                .map(|e| format!("{e:.3e}"))
                .collect::<Vec<_>>(),
            m_free / w_pin
        );
    }
}

/// A heavy body hanging from pinned points sags as a light one does: the
/// pinned points' shape weight is relative to the body's mass. The body
/// hangs from its two top corners (so it does not swing) and is soft
/// (1,500 1/s^2), so that it sags a measurable `g / k` = 6.5 mm.
#[test]
fn a_heavy_body_hanging_from_a_pin_sags_as_a_light_one() {
    let sag = |mass: f32| {
        let mut w = World::default();
        w.params.body_collisions = false;
        let corners = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)];
        let points: Vec<PointHandle> = corners
            .iter()
            .enumerate()
            .map(|(k, &(x, y))| {
                // The top corners are pinned.
                let m = if k >= 2 { 0.0 } else { mass };
                w.add_point(Point::new(Vec2::new(x, y)).mass(m)).unwrap()
            })
            .collect();
        w.add_body(Body::new(points.clone()).stiffness(1500.0))
            .unwrap();
        let mut s = CpuSolver::new(&w).unwrap();
        Stepper::run(&mut s, 600);
        let pos = s.positions();
        -0.5 - points[..2].iter().map(|p| pos[p.index()][1]).sum::<f32>() / 2.0
    };
    let (light, heavy) = (sag(1.0), sag(1.0e7));
    eprintln!("sag of the free points: {light} m at 1 kg each, {heavy} m at 1e7 kg");
    assert!(light > 1e-3, "the light body sags {light} m");
    // With an absolute pinned weight the heavy body sagged 13 times as far.
    assert!(
        (heavy - light).abs() < 0.1 * light,
        "light {light}, heavy {heavy}"
    );
}

/// A box body (no springs) stretched about its centroid relaxes back
/// toward its rest shape as a harmonic oscillator at the body's
/// frequency: a uniform stretch leaves the best-fit frame where it is, so
/// every point is pulled by `omega^2` times its offset. Undamped it rings
/// at 5 Hz; critically damped (ratio 1) it returns without overshoot.
#[test]
fn a_body_given_in_hertz_rings_at_that_frequency_and_ratio_one_does_not_overshoot() {
    let run = |ratio: f32| -> Vec<(f64, f64)> {
        let mut world = quiet_world();
        // A uniform stretch changes the area too: without the area term,
        // which would add its own stiffness to this breathing mode.
        world.params.area_stiffness = 0.0;
        let shape = BoxShape::new(Vec2::ZERO, Vec2::splat(1.0))
            .springs(false)
            .body_frequency(Frequency::new(5.0, ratio))
            .build(&mut world)
            .unwrap();
        let mut s = CpuSolver::new(&world).unwrap();
        let stretched: Vec<[f32; 2]> = s
            .positions()
            .iter()
            .map(|p| [p[0] * 1.2, p[1] * 1.2])
            .collect();
        let vel = vec![[0.0; 2]; stretched.len()];
        s.set_state(&stretched, &vel).unwrap();
        let h = world.params.h() as f64;
        let corner = shape.points[2].index();
        (0..2000)
            .map(|k| {
                s.substep();
                ((k + 1) as f64 * h, s.positions()[corner][0] as f64)
            })
            .collect()
    };
    let undamped = run(0.0);
    let t = period(&undamped, 0.5, 8);
    println!("undamped period {t:.5} s against 0.2 s");
    assert!((t / 0.2 - 1.0).abs() < 0.01, "period {t} s, expected 0.2 s");

    let critical = run(1.0);
    let lowest = critical.iter().map(|s| s.1).fold(f64::MAX, f64::min);
    let last = critical.last().unwrap().1;
    println!("critically damped: lowest {lowest:.6} m (rest 0.5), after 4 s {last:.6} m");
    // The stretch was 0.1 m; an overshoot of 1% of it would be 1 mm.
    assert!(lowest > 0.5 - 1e-4, "overshot to {lowest}");
    assert!((last - 0.5).abs() < 1e-4, "still {last} after 4 s");
}

/// Bodies that share points split the default shape stiffness by the
/// most bodies at one of their points, so that the default load at a
/// point is one body's: the six cells of a 3 x 2 grid (each has a corner
/// shared by four) take a quarter, the two cells of a strip a half, a lone
/// box all of it, and a body with its own stiffness keeps it. The
/// default scene (grids, boxes and wheels) stays inside the shape bound.
#[test]
fn bodies_that_share_points_split_the_default_stiffness() {
    let mut world = World::default();
    let grid = BoxGrid::new(3, 2, Vec2::splat(0.5))
        .build(&mut world)
        .unwrap();
    let strip = BoxGrid::new(2, 1, Vec2::splat(0.5))
        .center(Vec2::new(5.0, 0.0))
        .build(&mut world)
        .unwrap();
    let lone = BoxShape::new(Vec2::new(-5.0, 0.0), Vec2::ONE)
        .build(&mut world)
        .unwrap();
    let own = BoxShape::new(Vec2::new(-8.0, 0.0), Vec2::ONE)
        .body_stiffness(500.0)
        .build(&mut world)
        .unwrap();
    let k = world.params.shape_stiffness;
    let packed = softbody::pack::Packed::from_world(&world).unwrap();
    let stiffness = |b: &BodyHandle| packed.bodies[b.index()].stiffness;
    for b in &grid.bodies {
        assert_eq!(stiffness(b), k / 4.0);
    }
    for b in &strip.bodies {
        assert_eq!(stiffness(b), k / 2.0);
    }
    assert_eq!(stiffness(&lone.bodies[0]), k);
    assert_eq!(stiffness(&own.bodies[0]), 500.0);
    // The area term follows, at most the body's shape stiffness.
    assert_eq!(
        packed.bodies[grid.bodies[0].index()].area_stiffness,
        world.params.area_stiffness.min(k / 4.0)
    );

    let scene = softbody::scenes::default_scene(2000).unwrap();
    let load = softbody::pack::Packed::from_world(&scene)
        .unwrap()
        .stability(scene.params.h())
        .shape_load;
    assert!(load.0 < 1.0, "shape load {load:?}");
}

#[test]
fn body_collapsed_to_one_spot() {
    for springs in [false, true] {
        for gravity in [Vec2::ZERO, Params::default().gravity] {
            let mut w = World::default();
            w.params.gravity = gravity;
            w.add_plane(HalfPlane::floor(-10.0)).unwrap();
            let s = BoxGrid::new(2, 1, Vec2::ONE)
                .springs(springs)
                .build(&mut w)
                .unwrap();
            let n = w.points().len();
            w.set_state(&vec![Vec2::new(0.5, 2.0); n], &vec![Vec2::ZERO; n])
                .unwrap();
            let solver = run_finite(&w, 50);
            // Shape matching with the identity rotation brings the rest
            // shape back.
            let p = solver.positions_vec2();
            let cell: Vec<Vec2> = w.bodies()[s.bodies[0].index()]
                .points
                .iter()
                .map(|h| p[h.index()])
                .collect();
            let area = (0..4)
                .map(|i| {
                    let (a, b) = (cell[i], cell[(i + 1) % 4]);
                    a.x * b.y - a.y * b.x
                })
                .sum::<f32>()
                * 0.5;
            assert!(
                area.abs() > 0.5,
                "springs {springs}: area {area} after collapse"
            );
        }
    }
}

#[test]
fn body_with_pinned_points_collapsed() {
    let mut w = World::default();
    let a = w.add_point(Point::new(Vec2::ZERO).pinned()).unwrap();
    let b = w.add_point(Point::new(Vec2::X).pinned()).unwrap();
    let c = w.add_point(Point::new(Vec2::Y)).unwrap();
    w.add_body(Body::new(vec![a, b, c])).unwrap();
    w.set_state(&[Vec2::ZERO; 3], &[Vec2::ZERO; 3]).unwrap();
    run_finite(&w, 50);
}

#[test]
fn huge_finite_mass_never_produces_nan() {
    // Either the mass is refused up front, or the run stays finite.
    for mass in [1.0e38f32, f32::MAX] {
        let mut w = World::default();
        let points: Result<Vec<_>, _> = [Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y]
            .into_iter()
            .map(|p| w.add_point(Point::new(p + Vec2::Y).mass(mass)))
            .collect();
        let Ok(points) = points else { continue };
        w.add_body(Body::new(points)).unwrap();
        if CpuSolver::new(&w).is_err() {
            continue;
        }
        run_finite(&w, 10);
    }
}

/// Shape matching (frames and apply), its apply alone, and its apply
/// fused with integrate and collide, against the CPU mirror on every scene.
#[test]
fn gpu_matches_the_cpu() {
    gpu_check::stages_match_the_cpu(&[
        Stage::ShapeMatch,
        Stage::ShapeApply,
        Stage::ApplyIntegrateCollide,
    ]);
}
