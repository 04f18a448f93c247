//! Collide (`shaders/collide.wgsl`, `src/cpu/collide.rs`): points against
//! planets and half-planes. Bounce heights, restitution only when
//! approaching, viscous and Coulomb friction (slopes, on both paths),
//! layers, a point at rest, degenerate geometry (a point at a planet's
//! centre, zero radii), and the GPU against the CPU (collide alone and
//! fused with integrate).

use crate::common::closed_form::*;
use crate::common::{both, centres, fastest_over, gpu, run_finite};
use crate::{Gpu, Stepper, gpu_check, slide};
use softbody::commands::Command;
use softbody::cpu::CpuSolver;
use softbody::gpu::Stage;
use softbody::prelude::*;
use softbody::solver::Solver;

/// A ball dropped on a floor with elasticity e and no friction: every bounce
/// multiplies the rebound speed by e, so successive apex heights shrink by
/// e^2 (Lisitsa 2023 elasticity, Firth 2011 `R = V - (1 + e) N (V.N)`).
///
/// Tolerance: at impact the point has sunk up to `v h` below the floor and is
/// pushed back (a potential-energy error up to `g v h`), and symplectic
/// Euler's apex from a launch speed v is off by up to `v h / 2` on each of
/// the rise and the fall; so each ratio is off by at most about
/// `3 v h / H_next` relative, with v the impact speed. With h = 1/4800 s this
/// is under 1%.
#[test]
fn bounce_apex_ratio_is_elasticity_squared() {
    let e = 0.8f32;
    let params = Params {
        gravity: Vec2::new(0.0, -G),
        substeps: 80,
        elasticity: e,
        friction: 0.0,
        ..quiet()
    };
    let h = params.h() as f64;
    let mut world = World::new(params);
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    world.add_point(Point::new(Vec2::new(0.0, 1.0))).unwrap();
    let mut s = CpuSolver::new(&world).unwrap();

    let mut apexes = vec![1.0f64];
    let (mut y_prev, mut vy_prev) = (1.0f64, 0.0f64);
    let mut substeps = 0;
    while apexes.len() < 5 && substeps < 100_000 {
        s.substep();
        substeps += 1;
        let ([_, y], [_, vy]) = (pos(&s, 0), vel(&s, 0));
        assert!(y >= 0.0, "point below the floor after a substep: y = {y}");
        if vy_prev > 0.0 && vy <= 0.0 {
            apexes.push(y.max(y_prev));
        }
        (y_prev, vy_prev) = (y, vy);
    }
    assert_eq!(apexes.len(), 5, "expected 4 bounces, apexes {apexes:?}");
    let g = G as f64;
    for k in 0..4 {
        let ratio = apexes[k + 1] / apexes[k];
        let v_impact = (2.0 * g * apexes[k]).sqrt();
        let tol = 3.0 * v_impact * h / apexes[k + 1];
        let expected = (e * e) as f64;
        println!(
            "bounce {k}: apex {:.6} -> {:.6}, ratio {ratio:.6}, e^2 {expected:.6}, \
             rel err {:.2e} (tol {tol:.2e})",
            apexes[k],
            apexes[k + 1],
            ratio / expected - 1.0
        );
        assert!(
            (ratio / expected - 1.0).abs() <= tol,
            "bounce {k}: apex ratio {ratio} vs e^2 = {expected} (relative tolerance {tol:e})"
        );
    }
}

/// Restitution applies only to a point approaching the collider (Firth 2011):
/// a point found inside the floor but already moving out is pushed out and
/// keeps its normal velocity, and one moving in has it reversed and scaled.
/// A point that was deeper than `push_speed h` at the substep's start
/// leaves at the push speed, its velocity kept.
#[test]
fn restitution_only_when_approaching() {
    let params = Params {
        elasticity: 0.5,
        friction: 0.0,
        ..quiet()
    };
    let h = params.h();
    let mut world = World::new(params);
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    world
        .add_point(Point::new(Vec2::new(0.0, -2.0 * h)).vel(Vec2::new(0.0, 1.0)))
        .unwrap();
    world
        .add_point(Point::new(Vec2::new(1.0, 0.0)).vel(Vec2::new(0.0, -1.0)))
        .unwrap();
    world
        .add_point(Point::new(Vec2::new(2.0, -0.1)).vel(Vec2::new(0.0, 1.0)))
        .unwrap();
    let push = world.params.push_speed as f64 * h as f64;
    let mut s = CpuSolver::new(&world).unwrap();
    s.substep();
    let (p0, v0, p1, v1) = (pos(&s, 0), vel(&s, 0), pos(&s, 1), vel(&s, 1));
    let (p2, v2) = (pos(&s, 2), vel(&s, 2));
    println!("leaving: p {p0:?} v {v0:?}; approaching: p {p1:?} v {v1:?} (h = {h})");
    assert!(
        (p2[1] - (-0.1 + push)).abs() < 1e-6 && v2[1] == 1.0,
        "deep point at {p2:?} moving {v2:?}, not {push} m out"
    );
    assert_eq!(p0[1], 0.0, "leaving point not pushed out onto the floor");
    assert_eq!(v0[1], 1.0, "leaving point's normal velocity changed");
    assert_eq!(
        p1[1], 0.0,
        "approaching point not pushed out onto the floor"
    );
    assert_eq!(v1[1], 0.5, "approaching point's normal velocity not -e vn");
}

/// A contact that persists does not bounce: a point standing on the floor
/// (at `point_radius`) that its body drives into it at 2 m/s stops, where
/// one that stood clear of it at the substep's start (by `h` m, half the
/// way it moves in the substep) rebounds at `e`
/// (issue 48: a point its body pressed into the ground was thrown back up
/// every substep, and read a speed while it did not move).
#[test]
fn a_point_pressed_into_the_floor_it_stands_on_does_not_bounce() {
    let params = Params {
        elasticity: 0.5,
        friction: 0.0,
        point_radius: 0.02,
        ..quiet()
    };
    let h = params.h();
    let mut world = World::new(params);
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    for (x, y) in [(0.0, 0.02), (1.0, 0.02 + h)] {
        world
            .add_point(Point::new(Vec2::new(x, y)).vel(Vec2::new(0.0, -2.0)))
            .unwrap();
    }
    let mut s = CpuSolver::new(&world).unwrap();
    s.substep();
    let (v0, v1) = (vel(&s, 0), vel(&s, 1));
    println!("standing: v {v0:?}; landing: v {v1:?}");
    assert_eq!(v0[1], 0.0, "a point standing on the floor bounced");
    assert_eq!(v1[1], 1.0, "a landing point's normal velocity not -e vn");
}

/// Friction: a point pressed into the floor by gravity with elasticity 0
/// slides with tangential speed `v0 exp(-f t)` exactly: each substep's
/// contact multiplies it by `exp(-f h)`, and `exp(-f h)^n = exp(-f t)`.
/// Per-point materials: three points with friction 3, 0.5 and 0 (1/s).
///
/// Tolerance: relative `n EPS` (n rounded multiplications by a factor that
/// is itself rounded once). The height stays at the contact height
/// `point_radius` to f32 rounding (1e-6).
#[test]
fn friction_decays_tangential_speed_exponentially() {
    let params = Params {
        gravity: Vec2::new(0.0, -G),
        point_radius: 0.02,
        ..quiet()
    };
    let h = params.h() as f64;
    let substeps = params.substeps;
    let r = params.point_radius;
    let mut world = World::new(params);
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let frictions = [3.0f32, 0.5, 0.0];
    let v0 = 2.0f32;
    for (k, &f) in frictions.iter().enumerate() {
        let m = world
            .add_material(Material {
                elasticity: Some(0.0),
                friction: Some(f),
                // Lisitsa's viscous friction alone.
                static_friction: Some(0.0),
                dynamic_friction: Some(0.0),
            })
            .unwrap();
        world
            .add_point(
                Point::new(Vec2::new(k as f32, r))
                    .vel(Vec2::new(v0, 0.0))
                    .material(m),
            )
            .unwrap();
    }
    let mut s = CpuSolver::new(&world).unwrap();
    let steps = 60u32;
    for _ in 0..steps {
        s.step();
    }
    let n = (steps * substeps) as f64;
    let t = n * h;
    for (k, &f) in frictions.iter().enumerate() {
        let f = f as f64;
        let expected = v0 as f64 * (-f * t).exp();
        let [vx, vy] = vel(&s, k);
        let [x, y] = pos(&s, k);
        // The drift comes before the contact in each substep, so
        // x_n = x0 + h sum_{j=0..n-1} v0 q^j, q = exp(-f h); the continuous
        // x0 + v0 (1 - exp(-f t)) / f differs by O(h).
        let q = (-f * h).exp();
        let x_expected = k as f64
            + if f > 0.0 {
                h * v0 as f64 * (1.0 - q.powf(n)) / (1.0 - q)
            } else {
                v0 as f64 * t
            };
        let tol = n * EPS;
        println!(
            "friction {f}: vx {vx:.7} vs v0 exp(-f t) {expected:.7} (rel err {:.2e}, tol \
             {tol:.1e}); x {x:.6} vs discrete {x_expected:.6}; y {y:.7}, vy {vy:.2e}",
            vx / expected - 1.0
        );
        assert!(
            (vx / expected - 1.0).abs() <= tol,
            "friction {f}: tangential speed {vx} after {t} s, expected {expected} (relative \
             tolerance {tol:e})"
        );
        assert!(
            (x - x_expected).abs() <= n * EPS * (x_expected.abs() + 1.0),
            "friction {f}: slid to x = {x}, expected the discrete sum {x_expected}"
        );
        assert!(
            (y - r as f64).abs() <= 1e-6 && vy == 0.0,
            "friction {f}: left the floor: y = {y} (contact height {r}), vy = {vy}"
        );
    }
}

/// Layer masks (Gaul 2013): a point whose layers do not intersect a
/// collider's passes through it; one that does is stopped at the surface.
#[test]
fn layer_masks_select_colliders() {
    let params = Params {
        point_radius: 0.02,
        elasticity: 0.0,
        // The three points start in one place: as free points on shared
        // layers they would also push each other apart as disks.
        body_collisions: false,
        ..quiet()
    };
    let mut world = World::new(params);
    let mut planet = Planet::new(Vec2::ZERO, 1.0);
    planet.layers = 0b001;
    world.add_planet(planet).unwrap();
    let mut floor = HalfPlane::floor(-5.0);
    floor.layers = 0b100;
    world.add_plane(floor).unwrap();
    let start = Vec2::new(0.0, 2.0);
    let down = Vec2::new(0.0, -2.0);
    // Point 0 misses the planet's layer and hits the floor's.
    world
        .add_point(Point::new(start).vel(down).layers(0b110))
        .unwrap();
    // Point 1 shares layer 0b001 with the planet.
    world
        .add_point(Point::new(start).vel(down).layers(0b011))
        .unwrap();
    // Point 2 is on no layer at all: passes through everything.
    world
        .add_point(Point::new(start).vel(down).layers(0))
        .unwrap();
    let mut s = CpuSolver::new(&world).unwrap();
    for _ in 0..300 {
        s.step();
    }
    let (p0, p1, p2) = (pos(&s, 0), pos(&s, 1), pos(&s, 2));
    println!(
        "point 0 {p0:?} (floor at -5 + 0.02), point 1 {p1:?} (planet surface r 1.02), point 2 {p2:?}"
    );
    assert!(
        (p0[1] - (-4.98)).abs() < 1e-5,
        "point on the floor's layer but not the planet's should pass the planet and rest on \
         the floor at y = -4.98, is at {p0:?}"
    );
    assert!(
        (norm(p1) - 1.02).abs() < 1e-5 && p1[1] > 0.0,
        "point sharing the planet's layer should rest on top of it at |p| = 1.02, is at {p1:?}"
    );
    let y2 = 2.0 - 2.0 * 5.0;
    assert!(
        (p2[1] - y2).abs() < 1e-3,
        "point on no layer should fly freely to y = {y2}, is at {p2:?}"
    );
}

/// A 0.5 m default box lying on a half-plane tilted by `deg`, just
/// touching it (the point radius away).
fn slope(deg: f32) -> (World, Shape) {
    softbody::samples::slope(deg).unwrap()
}

fn check_slopes(make: &dyn Fn(&World) -> Box<dyn Stepper>) {
    let (w, b) = slope(20.0);
    let d20 = slide(make(&w).as_mut(), &b);
    let (w, b) = slope(40.0);
    let d40 = slide(make(&w).as_mut(), &b);
    eprintln!("slid in 5 s: {d20:.4} m at 20 degrees, {d40:.3} m at 40 degrees");
    assert!(d20 < 0.02, "the box slid {d20} m down a 20 degree slope");
    assert!(
        d40 > 1.0,
        "the box slid only {d40} m down a 40 degree slope"
    );
}

#[test]
fn a_box_rests_on_a_20_degree_slope_and_slides_down_a_40_degree_one() {
    check_slopes(&|w| Box::new(CpuSolver::new(w).unwrap()));
}

#[test]
fn gpu_a_box_rests_on_a_20_degree_slope_and_slides_down_a_40_degree_one() {
    let Some(_) = gpu() else { return };
    check_slopes(&|w| {
        let ctx = gpu().unwrap();
        let s = GpuSolver::new(&ctx.device, &ctx.queue, w).unwrap();
        Box::new(Gpu(s, ctx))
    });
}

/// Without Coulomb friction the same box slides down the gentle slope:
/// the test above measures the friction, not the geometry.
#[test]
fn without_coulomb_friction_the_box_slides_down_the_gentle_slope() {
    let (mut w, b) = slope(20.0);
    w.params.static_friction = 0.0;
    w.params.dynamic_friction = 0.0;
    let d = slide(&mut CpuSolver::new(&w).unwrap(), &b);
    assert!(d > 1.0, "slid only {d} m");
}

/// A point resting on a floor stops exactly: its approach each substep is
/// below the restitution threshold, so it is not reflected (it used to
/// settle at a normal velocity of `e g h / (1 + e)`).
#[test]
fn a_resting_point_has_no_velocity_left() {
    let mut w = World::default();
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    w.add_point(Point::new(Vec2::new(0.0, 0.05))).unwrap();
    let mut s = CpuSolver::new(&w).unwrap();
    Stepper::run(&mut s, 120);
    let v = s.velocities()[0];
    assert_eq!(v, [0.0, 0.0], "velocity at rest {v:?}");
    // Above the threshold it still bounces with its elasticity.
    let mut w = World::default();
    w.params.gravity = Vec2::ZERO;
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    w.add_point(Point::new(Vec2::new(0.0, 0.05)).vel(Vec2::new(0.0, -3.0)))
        .unwrap();
    let mut s = CpuSolver::new(&w).unwrap();
    Stepper::run(&mut s, 3);
    let vy = s.velocities()[0][1];
    assert!((vy - 0.3 * 3.0).abs() < 1e-5, "rebound {vy} m/s, want 0.9");
}

#[test]
fn point_exactly_at_a_planet_centre() {
    for radius in [0.0, 1.0] {
        for gravity in [Vec2::ZERO, Params::default().gravity] {
            let mut w = World::default();
            w.params.gravity = gravity;
            let center = Vec2::new(2.0, -3.0);
            w.add_planet(Planet::new(center, radius)).unwrap();
            w.add_point(Point::new(center)).unwrap();
            // A whole body sitting on the centre too.
            let s = Blob::new(Vec2::ZERO, 0.3, 6).build(&mut w).unwrap();
            let n = w.points().len();
            w.set_state(&vec![center; n], &vec![Vec2::ZERO; n]).unwrap();
            let solver = run_finite(&w, 50);
            // Every point ended up outside the planet.
            let p = solver.positions_vec2();
            assert_eq!(p.len(), 1 + s.points.len());
            for q in &p {
                let d = q.distance(center);
                assert!(d >= radius - 1e-3, "point at {q}, {d} from the centre");
            }
        }
    }
}

#[test]
fn zero_radius_everything() {
    // Zero point radius, zero planet radius, a point on the plane's surface
    // and on the planet's centre.
    let mut w = World::default();
    w.params.point_radius = 0.0;
    w.add_planet(Planet::new(Vec2::ZERO, 0.0)).unwrap();
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    w.add_point(Point::new(Vec2::ZERO)).unwrap();
    w.add_point(Point::new(Vec2::X)).unwrap();
    w.add_spring(Spring::new(PointHandle(0), PointHandle(1)))
        .unwrap();
    run_finite(&w, 50);
}

/// The collide kernel, alone and fused with integrate, against the CPU
/// mirror on every scene.
#[test]
fn gpu_matches_the_cpu() {
    gpu_check::stages_match_the_cpu(&[Stage::Collide, Stage::IntegrateCollide]);
}

/// Bodies placed deep inside colliders, in a world measured in `1 / k` m
/// stepped at `dt`: a box with diagonal springs sunk 40% into a floor, a
/// hubless ring half inside a planet, and a turned box sunk into a
/// terrain valley. With the floor at `y = 0`, the planet and the valley's
/// two segments, returns each point's depth below the nearest surface it
/// should stand on (positive: inside).
pub fn sunk_bodies(k: f32, dt: f32) -> (World, impl Fn(Vec2) -> f32) {
    let mut w = World::new(Params {
        dt,
        ..Params::with_length_unit(k).unwrap()
    });
    let (centre, radius) = (Vec2::new(6.0, -1.0) * k, 2.0 * k);
    let (valley, slope) = (Vec2::new(-6.0, 0.5) * k, 0.5f32);
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    w.add_planet(Planet::new(centre, radius)).unwrap();
    let side = |s: f32| valley + Vec2::new(s * 3.0 * k, 3.0 * k * slope);
    w.add_terrain(Terrain::new(vec![side(1.0), valley, side(-1.0)]))
        .unwrap();
    BoxShape::new(Vec2::new(0.0, 0.18) * k, Vec2::new(0.8, 0.6) * k)
        .diagonals(true)
        .build(&mut w)
        .unwrap();
    Blob::new(centre + Vec2::new(0.0, radius), 0.3 * k, 10)
        .rotation(0.2)
        .center_point(false)
        .build(&mut w)
        .unwrap();
    BoxShape::new(valley + Vec2::new(0.3, 0.1) * k, Vec2::splat(0.6 * k))
        .rotation(0.4)
        .diagonals(true)
        .build(&mut w)
        .unwrap();
    let normal = move |s: f32| Vec2::new(-s * slope, 1.0).normalize();
    let depth = move |p: Vec2| {
        if (p - centre).length() < radius + 0.5 * k {
            radius - (p - centre).length()
        } else if (p.x - valley.x).abs() < 3.0 * k {
            let s = (p.x - valley.x).signum();
            -(p - valley)
                .dot(normal(s))
                .min((p - valley).dot(normal(-s)))
        } else {
            -p.y
        }
    };
    (w, depth)
}

/// A body placed deep inside a collider rises out of it at about
/// `Params::push_speed` rather than being thrown out by its shape's
/// springs (a 1 m box sunk 0.4 m into a floor left it at 53 m/s), on both
/// paths, in metres and centimetres and at two time steps: no point ever
/// moves faster than twice the push speed, and every point is out within
/// a second (docs/physics.md, "Deep overlaps").
#[test]
fn bodies_placed_inside_colliders_rise_out_at_the_push_speed() {
    for (k, dt) in [(1.0, 1.0 / 60.0), (100.0, 1.0 / 30.0)] {
        let (world, depth) = sunk_bodies(k, dt);
        let push = world.params.push_speed;
        let deepest = |pos: &[[f32; 2]]| {
            pos.iter()
                .map(|&p| depth(Vec2::from(p)))
                .fold(f32::MIN, f32::max)
        };
        let start: Vec<[f32; 2]> = world.points().iter().map(|p| p.pos.to_array()).collect();
        assert!(deepest(&start) > 0.2 * k, "the scene starts deep inside");
        let mut solvers = vec![Solver::cpu(&world).unwrap()];
        if let Some(ctx) = gpu() {
            solvers.push(Solver::gpu_on(ctx, &world).unwrap());
        }
        for mut s in solvers {
            let what = format!("{} in 1/{k} m at dt {dt:.4}", s.name());
            let fastest = fastest_over(&mut s, (1.0 / dt).round() as u32);
            let (pos, _) = s.state().unwrap();
            let left = deepest(&pos);
            eprintln!(
                "{what}: fastest {:.2} push speeds, deepest at 1 s {:.4} m",
                fastest / push,
                left / k
            );
            assert!(fastest <= 2.0 * push, "{what}: a point at {fastest}");
            assert!(left <= 0.0, "{what}: a point {left} inside at 1 s");
        }
    }
}

/// Bodies built with their outlines on colliders, in a world measured in
/// `1 / k` m stepped at `dt`: a 0.5 m box with diagonal springs with its
/// bottom on a floor, a hubless 10-point ring touching a planet, a
/// 12-point wheel with a hub on the floor, and a 0.6 x 0.3 m box with
/// diagonal springs on a flat terrain ledge. Returns the world and each
/// body's point range.
pub fn built_on_colliders(k: f32, dt: f32) -> (World, Vec<std::ops::Range<usize>>) {
    let mut w = World::new(Params {
        dt,
        ..Params::with_length_unit(k).unwrap()
    });
    let (centre, radius) = (Vec2::new(6.0, -1.0) * k, 2.0 * k);
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    w.add_planet(Planet::new(centre, radius)).unwrap();
    let ledge = 1.5 * k;
    // Right to left: solid below.
    w.add_terrain(Terrain::new(vec![
        Vec2::new(-4.0 * k, ledge),
        Vec2::new(-9.0 * k, ledge),
    ]))
    .unwrap();
    let mut ranges = Vec::new();
    let mut range = |w: &mut World, build: &dyn Fn(&mut World)| {
        let from = w.points().len();
        build(w);
        ranges.push(from..w.points().len());
    };
    range(&mut w, &|w| {
        BoxShape::new(Vec2::new(0.0, 0.25) * k, Vec2::splat(0.5 * k))
            .diagonals(true)
            .build(w)
            .unwrap();
    });
    range(&mut w, &|w| {
        // Its lowest point on the planet's top.
        Blob::new(centre + Vec2::new(0.0, radius + 0.3 * k), 0.3 * k, 10)
            .rotation(-std::f32::consts::FRAC_PI_2)
            .center_point(false)
            .build(w)
            .unwrap();
    });
    range(&mut w, &|w| {
        Wheel::new(Vec2::new(2.5, 0.4) * k, 0.4 * k, 12)
            .rotation(-std::f32::consts::FRAC_PI_2)
            .build(w)
            .unwrap();
    });
    range(&mut w, &|w| {
        BoxShape::new(
            Vec2::new(-6.5 * k, ledge + 0.15 * k),
            Vec2::new(0.6, 0.3) * k,
        )
        .diagonals(true)
        .build(w)
        .unwrap();
    });
    (w, ranges)
}

/// A body built with its outline on a collider has its points a point
/// radius inside the contact skin. It is lifted out slowly and rests a
/// point radius up, without the hop that pushing its points out whole
/// gave (its shape turned the squash into speed: the 0.5 m box left the
/// floor at 0.8 to 1.2 push speeds and its centre rose 8 point radii
/// above where it came to rest, the others 3 to 5). On both paths, in
/// metres at dt 1/60, centimetres at dt 1/120 and millimetres at dt
/// 1/30: no point faster than 0.15 push speeds, no body's centre ever
/// more than 0.2 point radii above where it started and where it rests,
/// and every body risen a point radius (within 0.15; the hubless ring
/// and the wheel sag a little) by 1 s (docs/physics.md, "Bodies built on
/// colliders").
#[test]
fn bodies_built_on_colliders_rest_as_built() {
    for (k, dt) in [
        (1.0, 1.0 / 60.0),
        (100.0, 1.0 / 120.0),
        (1000.0, 1.0 / 30.0),
    ] {
        let (world, ranges) = built_on_colliders(k, dt);
        let (push, r) = (world.params.push_speed, world.params.point_radius);
        let start: Vec<[f32; 2]> = world.points().iter().map(|p| p.pos.to_array()).collect();
        let start = centres(&start, &ranges);
        for mut s in both(&world) {
            let what = format!("{} in 1/{k} m at dt {dt:.4}", s.name());
            let steps = (1.0 / dt).round() as u32;
            let (mut fastest, mut highest) = (0.0f32, vec![f32::MIN; ranges.len()]);
            for _ in 0..steps {
                s.step(1).unwrap();
                let (pos, vel) = s.state().unwrap();
                for v in &vel {
                    fastest = fastest.max(Vec2::from(*v).length());
                }
                for (h, c) in highest.iter_mut().zip(centres(&pos, &ranges)) {
                    *h = h.max(c.y);
                }
            }
            let (pos, _) = s.state().unwrap();
            let end = centres(&pos, &ranges);
            for (b, ((h, e), s0)) in highest.iter().zip(&end).zip(&start).enumerate() {
                let (hop, risen) = ((h - e.y.max(s0.y + r)) / r, (e.y - s0.y) / r);
                eprintln!("{what}: body {b}: hop {hop:.3} r, risen {risen:.3} r");
                assert!(hop <= 0.2, "{what}: body {b} hopped {hop} point radii");
                assert!(
                    (risen - 1.0).abs() <= 0.15,
                    "{what}: body {b} rose {risen} point radii"
                );
            }
            eprintln!("{what}: fastest {:.3} push speeds", fastest / push);
            assert!(fastest <= 0.15 * push, "{what}: a point at {fastest}");
        }
    }
}

/// The collider kernels of a world with body contacts (the `_placed`
/// ones, which read the settled bits and note the skin bits) against the
/// CPU on bodies built on colliders, while they are lifted out of the
/// skin: state and skin bits alike ([`gpu_check::check_stage`]), and the
/// CPU's scene has points in the skin.
#[test]
fn bodies_built_on_colliders_lift_alike_on_both_paths() {
    let Some(ctx) = gpu() else { return };
    let (world, _) = built_on_colliders(1.0, 1.0 / 60.0);
    // check_stage's state: 5 substeps, then to the collide stage, which
    // finds points in the skin.
    let mut cpu = CpuSolver::new(&world).unwrap();
    for _ in 0..5 {
        cpu.substep();
    }
    cpu.stage_springs();
    cpu.stage_shape_match();
    cpu.stage_integrate();
    cpu.stage_collide();
    cpu.stage_terrain();
    let skin = cpu
        .warm_starts()
        .iter()
        .filter(|w| w[3] & softbody::layout::WARM_SKIN != 0)
        .count();
    assert!(skin >= 4, "{skin} points in the skin");
    for stage in [
        Stage::Collide,
        Stage::IntegrateCollide,
        Stage::ApplyIntegrateCollide,
        Stage::Terrain,
    ] {
        gpu_check::check_stage(&ctx, "built on colliders", &world, &None, stage);
    }
}

/// Bodies put on a collider's surface after the start: a 0.5 m box with
/// diagonal springs synced in with its bottom on the floor (on the GPU the
/// first sync makes the contact buffers again, and the collider kernels
/// must take the new warm starts) and a resting box teleported onto the
/// floor elsewhere (its points unsettled). Both are lifted out of the skin
/// slowly as bodies built so are
/// ([`bodies_built_on_colliders_rest_as_built`]): on both paths, no
/// centre more than 0.2 point radii above where it started and where it
/// rests, and no point faster than 0.15 push speeds.
#[test]
fn bodies_spawned_or_teleported_onto_a_floor_rest_as_put() {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let clear = world.params.point_radius + 0.001;
    let resting = BoxShape::new(Vec2::new(0.0, 0.25 + clear), Vec2::splat(0.5))
        .diagonals(true)
        .build(&mut world)
        .unwrap();
    let (push, r) = (world.params.push_speed, world.params.point_radius);
    for mut s in both(&world) {
        s.step(60).unwrap();
        let mut world = world.clone();
        let from = world.points().len();
        BoxShape::new(Vec2::new(3.0, 0.25), Vec2::splat(0.5))
            .diagonals(true)
            .build(&mut world)
            .unwrap();
        s.sync(&world).unwrap();
        s.queue(Command::BodyTeleport {
            body: resting.bodies[0],
            position: Vec2::new(-3.0, 0.25),
            angle: Some(0.0),
        })
        .unwrap();
        let bodies = [0..from, from..world.points().len()];
        let centre = |pos: &[[f32; 2]], b: &std::ops::Range<usize>| -> f32 {
            pos[b.clone()].iter().map(|p| p[1]).sum::<f32>() / b.len() as f32
        };
        let (mut highest, mut fastest) = ([f32::MIN; 2], 0.0f32);
        for _ in 0..60 {
            s.step(1).unwrap();
            let (pos, vel) = s.state().unwrap();
            for v in &vel {
                fastest = fastest.max(Vec2::from(*v).length());
            }
            for (h, b) in highest.iter_mut().zip(&bodies) {
                *h = h.max(centre(&pos, b));
            }
        }
        let (pos, _) = s.state().unwrap();
        for (h, b) in highest.iter().zip(&bodies) {
            let end = centre(&pos, b);
            let hop = (h - end.max(0.25 + r)) / r;
            eprintln!(
                "{}: points {b:?}: hop {hop:.3} r, rests {:.4} m",
                s.name(),
                end
            );
            assert!(
                hop <= 0.2,
                "{}: points {b:?} hopped {hop} point radii",
                s.name()
            );
            assert!(
                (end - 0.25 - r).abs() < 0.1 * r,
                "{}: rests at {end}",
                s.name()
            );
        }
        eprintln!("{}: fastest {:.3} push speeds", s.name(), fastest / push);
        assert!(fastest <= 0.15 * push, "{}: a point at {fastest}", s.name());
    }
}
