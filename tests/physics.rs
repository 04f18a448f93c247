//! The CPU reference path against closed-form physics.
//!
//! Every test builds a small world through the public API, steps it with
//! [`CpuSolver`], and compares what it measures with a closed form: the exact
//! continuous solution where the scheme reproduces it, otherwise the exact
//! discrete solution of the scheme (derived in docs/physics.md) together with
//! its known distance from the continuous one. Each test states its tolerance
//! and where it comes from; every failure prints measured and expected values.
//! Run with `--nocapture` to see the measured numbers of passing tests too.
//!
//! Tests of bugs that were found and fixed are in tests/regressions.rs.
//!
//! Analysis is done in f64 on the solver's f32 state. `EPS` is f32's machine
//! epsilon (2^-23), which bounds the relative rounding of one f32 operation
//! (twice the half-ulp, so the bounds below are safe, not tight).

mod common;

use common::closed_form::*;
use softbody::cpu::CpuSolver;
use softbody::prelude::*;

const EPS: f64 = f32::EPSILON as f64;
const G: f32 = 9.81;

/// Signed area (shoelace) of the polygon through these points, in order.
fn signed_area(s: &CpuSolver, pts: &[usize]) -> f64 {
    let n = pts.len();
    (0..n)
        .map(|k| cross(pos(s, pts[k]), pos(s, pts[(k + 1) % n])))
        .sum::<f64>()
        / 2.0
}

fn assert_finite(s: &CpuSolver) {
    for (i, (p, v)) in s.positions().iter().zip(s.velocities()).enumerate() {
        assert!(
            p.iter().chain(v).all(|x| x.is_finite()),
            "point {i} is not finite: pos {p:?} vel {v:?}"
        );
    }
}

/// A deterministic pseudo-random number in [-1, 1) (64-bit LCG).
fn rand(state: &mut u64) -> f32 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*state >> 40) as f64 / (1u64 << 24) as f64 * 2.0 - 1.0) as f32
}

/// Linear interpolation of the time at which `f` crosses zero between two
/// samples `(t0, f0)` and `(t1, f1)` of opposite signs.
fn crossing(t0: f64, f0: f64, t1: f64, f1: f64) -> f64 {
    t0 + (t1 - t0) * f0 / (f0 - f1)
}

// ---------------------------------------------------------------------------
// Stage 1: symplectic Euler
// ---------------------------------------------------------------------------

/// Free fall. The scheme `v += g h; p += v h` gives, after n substeps,
/// `v_n = v0 + n g h` (the continuous `v0 + g t`, exactly) and
/// `p_n = p0 + v0 t + g h^2 n (n + 1) / 2 = p0 + v0 t + g t^2 / 2 + g h t / 2`:
/// the closed form plus symplectic Euler's O(h) term `g h t / 2`.
///
/// Tolerance: f32 rounding only. Velocity: n additions, each off by at most
/// `EPS |v|max`, so `n EPS |v|max`. Position: n additions of `v h` (each off
/// by `EPS (|p|max + |v h|)`) plus the velocity error integrated over t.
#[test]
fn free_fall_matches_closed_form() {
    let params = Params {
        gravity: Vec2::new(0.3, -G),
        ..quiet()
    };
    let mut world = World::new(params.clone());
    let (p0, v0) = (Vec2::new(0.5, 10.0), Vec2::new(1.5, 2.0));
    world.add_point(Point::new(p0).vel(v0)).unwrap();
    let mut s = CpuSolver::new(&world).unwrap();
    let steps = 120u32;
    for _ in 0..steps {
        s.step();
    }
    let n = (steps * params.substeps) as f64;
    let h = params.h() as f64;
    let t = n * h;
    let g = [params.gravity.x as f64, params.gravity.y as f64];
    let (p0, v0) = ([p0.x as f64, p0.y as f64], [v0.x as f64, v0.y as f64]);
    let (p, v) = (pos(&s, 0), vel(&s, 0));

    let v_max = norm(v0) + norm(g) * t;
    let p_max = norm(p0) + v_max * t;
    let vel_tol = n * EPS * v_max;
    let pos_tol = n * EPS * (p_max + v_max * h) + vel_tol * t;
    for k in 0..2 {
        let v_closed = v0[k] + g[k] * t;
        let p_closed = p0[k] + v0[k] * t + g[k] * t * t / 2.0;
        let p_discrete = p0[k] + v0[k] * t + g[k] * h * h * n * (n + 1.0) / 2.0;
        let o_h = g[k] * h * t / 2.0;
        println!(
            "axis {k}: v {:.7} closed {v_closed:.7} (err {:.2e}, tol {vel_tol:.1e}); p {:.7} \
             discrete {p_discrete:.7} (err {:.2e}, tol {pos_tol:.1e}); closed {p_closed:.7}, \
             p - closed {:.3e} vs g h t / 2 = {o_h:.3e}",
            v[k],
            v[k] - v_closed,
            p[k],
            p[k] - p_discrete,
            p[k] - p_closed
        );
        assert!(
            (v[k] - v_closed).abs() <= vel_tol,
            "axis {k}: velocity {} vs closed form {v_closed} (tolerance {vel_tol:e})",
            v[k]
        );
        assert!(
            (p[k] - p_discrete).abs() <= pos_tol,
            "axis {k}: position {} vs exact discrete sum {p_discrete} (tolerance {pos_tol:e})",
            p[k]
        );
        assert!(
            (p[k] - p_closed - o_h).abs() <= pos_tol,
            "axis {k}: position {} minus closed form {p_closed} is {}, expected the O(h) \
             term g h t / 2 = {o_h} (tolerance {pos_tol:e})",
            p[k],
            p[k] - p_closed
        );
    }
}

// ---------------------------------------------------------------------------
// Stage 2: collisions
// ---------------------------------------------------------------------------

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
        .add_point(Point::new(Vec2::new(0.0, -0.1)).vel(Vec2::new(0.0, 1.0)))
        .unwrap();
    world
        .add_point(Point::new(Vec2::new(1.0, 0.0)).vel(Vec2::new(0.0, -1.0)))
        .unwrap();
    let mut s = CpuSolver::new(&world).unwrap();
    s.substep();
    let (p0, v0, p1, v1) = (pos(&s, 0), vel(&s, 0), pos(&s, 1), vel(&s, 1));
    println!("leaving: p {p0:?} v {v0:?}; approaching: p {p1:?} v {v1:?} (h = {h})");
    assert_eq!(p0[1], 0.0, "leaving point not pushed out onto the floor");
    assert_eq!(v0[1], 1.0, "leaving point's normal velocity changed");
    assert_eq!(
        p1[1], 0.0,
        "approaching point not pushed out onto the floor"
    );
    assert_eq!(v1[1], 0.5, "approaching point's normal velocity not -e vn");
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

/// Degenerate geometry never gives NaN: a point exactly at a planet's
/// centre is pushed out along +x; a spring whose ends coincide pushes them
/// apart along +x; a body collapsed onto one point keeps the identity
/// rotation and zero angular velocity.
#[test]
fn degenerate_geometry_uses_fixed_directions() {
    let mut world = World::new(quiet());
    world
        .add_planet(Planet::new(Vec2::new(5.0, 5.0), 1.0))
        .unwrap();
    world.add_point(Point::new(Vec2::new(5.0, 5.0))).unwrap();
    let a = world.add_point(Point::new(Vec2::new(-3.0, 0.0))).unwrap();
    let b = world.add_point(Point::new(Vec2::new(-3.0, 0.0))).unwrap();
    world
        .add_spring(Spring::new(a, b).rest_length(0.5).damping(0.0))
        .unwrap();
    let c: Vec<_> = (0..3)
        .map(|_| world.add_point(Point::new(Vec2::new(0.0, -3.0))).unwrap())
        .collect();
    world
        .add_body(Body::new(c).rest(vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(0.0, 1.0),
        ]))
        .unwrap();
    let mut s = CpuSolver::new(&world).unwrap();
    s.substep();
    assert_finite(&s);
    let p0 = pos(&s, 0);
    println!("point at the planet centre -> {p0:?}");
    assert!(
        (p0[0] - 6.0).abs() < 1e-6 && (p0[1] - 5.0).abs() < 1e-6,
        "point at the planet's centre should be pushed along +x to (6, 5), is at {p0:?}"
    );
    let (va, vb) = (vel(&s, 1), vel(&s, 2));
    println!("coincident spring ends: va {va:?} vb {vb:?}");
    assert!(
        va[0] < 0.0 && vb[0] > 0.0 && va[1] == 0.0 && vb[1] == 0.0,
        "coincident spring ends should be pushed apart along x: va {va:?} vb {vb:?}"
    );
    let f = s.frames()[0];
    println!("collapsed body frame: rot {:?} omega {}", f.rot, f.omega);
    assert_eq!(
        f.rot,
        [1.0, 0.0],
        "collapsed body should keep the identity rotation"
    );
    assert_eq!(
        f.omega, 0.0,
        "collapsed body should have zero angular velocity"
    );
    for _ in 0..60 {
        s.step();
    }
    assert_finite(&s);
}

// ---------------------------------------------------------------------------
// Stage 3: springs and rods
// ---------------------------------------------------------------------------

/// Two unequal masses on a spring along x, released from a stretch; returns
/// the solver (masses 1 and 3, k = 100 N/m, rest length 1, stretch 0.1).
fn two_mass_spring(k: f32, c: f32) -> (CpuSolver, f64, f64) {
    let (ma, mb) = (1.0f32, 3.0f32);
    let params = quiet();
    let h = params.h() as f64;
    let mut world = World::new(params);
    let a = world.add_point(Point::new(Vec2::ZERO).mass(ma)).unwrap();
    let b = world
        .add_point(Point::new(Vec2::new(1.1, 0.0)).mass(mb))
        .unwrap();
    world
        .add_spring(Spring::new(a, b).rest_length(1.0).stiffness(k).damping(c))
        .unwrap();
    let mu = (ma * mb / (ma + mb)) as f64;
    (CpuSolver::new(&world).unwrap(), mu, h)
}

/// Undamped two-body spring: period `2 pi sqrt(mu / k)`, mu the reduced
/// mass. Per substep the stretch x and relative velocity u follow
/// `x' = x + h u; u' = u - w^2 h x'` (w^2 = k / mu), whose eigenvalues are
/// `exp(+-i theta)` with `sin(theta / 2) = w h / 2`: the discrete period
/// `2 pi h / theta` is longer than the continuous one by about
/// `(w h)^2 / 24` (here 2.4e-5).
///
/// Tolerance: zero crossings are located by linear interpolation between
/// substeps (error O((w h)^2 h) each) and averaged over 20 periods; 1e-5
/// relative against the discrete period, 1e-4 against the continuous one.
#[test]
fn spring_period_matches_reduced_mass() {
    let k = 100.0f32;
    let (mut s, mu, h) = two_mass_spring(k, 0.0);
    let omega = (k as f64 / mu).sqrt();
    let t_cont = 2.0 * std::f64::consts::PI / omega;
    let theta = 2.0 * (omega * h / 2.0).asin();
    let t_disc = 2.0 * std::f64::consts::PI * h / theta;

    let stretch = |s: &CpuSolver| norm(sub(pos(s, 1), pos(s, 0))) - 1.0;
    let mut crossings = Vec::new();
    let (mut t, mut x_prev) = (0.0f64, stretch(&s));
    while crossings.len() < 41 {
        // A broken spring that stops oscillating must fail, not hang.
        assert!(t < 100.0, "only {} crossings in 100 s", crossings.len());
        s.substep();
        let x = stretch(&s);
        if (x_prev > 0.0) != (x > 0.0) {
            crossings.push(crossing(t, x_prev, t + h, x));
        }
        t += h;
        x_prev = x;
    }
    let period = (crossings[40] - crossings[0]) / 20.0;
    println!(
        "period {period:.7} s; discrete {t_disc:.7} (rel err {:.2e}); continuous \
         2 pi sqrt(mu/k) {t_cont:.7} (rel err {:.2e})",
        period / t_disc - 1.0,
        period / t_cont - 1.0
    );
    assert!(
        (period / t_disc - 1.0).abs() < 1e-5,
        "period {period} vs the scheme's discrete period {t_disc} (relative tolerance 1e-5)"
    );
    assert!(
        (period / t_cont - 1.0).abs() < 1e-4,
        "period {period} vs 2 pi sqrt(mu/k) = {t_cont} (relative tolerance 1e-4)"
    );
}

/// Damped spring. Per substep: `x' = x + h u`, `u' = E (u - w^2 h x')` with
/// `E = exp(-c h)`. The matrix `[[1, h], [-w^2 h E, (1 - w^2 h^2) E]]` has
/// determinant exactly E, so when its eigenvalues are complex (underdamped)
/// they have modulus `sqrt(E) = exp(-c h / 2)`: the amplitude envelope is
/// exactly `exp(-c t / 2)`, for any damping, not only light damping; the
/// damped period is `2 pi h / theta` with
/// `cos theta = (1 + E (1 - w^2 h^2)) / (2 sqrt E)`.
///
/// Measured from the peaks of the stretch, refined by a parabola through
/// the three samples around each peak. Tolerance on the decay rate: 1e-3
/// relative (the parabola leaves a peak-height error of order (w h)^4,
/// divided by the decay over the fitted span; f32 rounding of a 0.1 stretch
/// is ~1e-6 relative). Period: 1e-4 relative.
#[test]
fn damped_spring_envelope_decays_at_half_the_damping_rate() {
    let (k, c) = (100.0f32, 2.0f32);
    let (mut s, mu, h) = two_mass_spring(k, c);
    let w2 = k as f64 / mu;
    let e = (-(c as f64) * h).exp();
    let cos_theta = (1.0 + e * (1.0 - w2 * h * h)) / (2.0 * e.sqrt());
    let t_disc = 2.0 * std::f64::consts::PI * h / cos_theta.acos();

    let stretch = |s: &CpuSolver| norm(sub(pos(s, 1), pos(s, 0))) - 1.0;
    // (time, height) of each maximum of the stretch.
    let mut peaks: Vec<(f64, f64)> = Vec::new();
    let mut hist = [stretch(&s); 3];
    let mut t = 0.0f64;
    while peaks.len() < 9 && t < 20.0 {
        s.substep();
        t += h;
        hist = [hist[1], hist[2], stretch(&s)];
        let [a, b, cc] = hist;
        if b > a && b >= cc && b > 0.0 {
            // Parabola through (-h, a), (0, b), (h, cc).
            let denom = a - 2.0 * b + cc;
            let off = 0.5 * (a - cc) / denom;
            let height = b - 0.25 * (a - cc) * off;
            peaks.push((t - h + off * h, height));
        }
    }
    assert!(peaks.len() >= 9, "found only {} peaks", peaks.len());
    let (t0, a0) = peaks[1];
    let (t1, a1) = peaks[8];
    let rate = (a0 / a1).ln() / (t1 - t0);
    let period = (t1 - t0) / 7.0;
    let expected = c as f64 / 2.0;
    println!(
        "envelope decay rate {rate:.6} 1/s vs c/2 = {expected} (rel err {:.2e}); period \
         {period:.6} s vs discrete {t_disc:.6} (rel err {:.2e}); peaks {peaks:?}",
        rate / expected - 1.0,
        period / t_disc - 1.0
    );
    assert!(
        (rate / expected - 1.0).abs() < 1e-3,
        "amplitude decays at {rate} 1/s, expected c/2 = {expected} 1/s (relative tolerance 1e-3)"
    );
    assert!(
        (period / t_disc - 1.0).abs() < 1e-4,
        "damped period {period} s vs the scheme's {t_disc} s (relative tolerance 1e-4)"
    );
}

/// Energy of an undamped spring, spinning and vibrating, over 100,000 steps
/// (800,000 substeps). Symplectic Euler does not conserve the energy but a
/// nearby modified energy, so the error oscillates without drifting: for
/// the vibration its relative amplitude is at most `w h / 2` (w = sqrt(k /
/// mu); here 0.8%), less since part of the energy is rotation.
///
/// Tolerance: maximum relative error < 1%. Drift: the mean energy over the
/// last 10,000 steps minus the mean over the first 10,000, relative, < 1e-3
/// (an eighth of the oscillation bound; a non-symplectic explicit Euler
/// would gain a factor `(1 + (w h)^2)` per substep, e^200 here, and a
/// dissipative one of rate c would lose `c t` with t = 1667 s).
#[test]
fn undamped_spring_energy_stays_bounded() {
    let (ma, mb, k) = (1.0f32, 2.0f32, 40.0f32);
    let params = quiet();
    let mut world = World::new(params);
    let a = world
        .add_point(Point::new(Vec2::ZERO).mass(ma).vel(Vec2::new(0.0, -1.0)))
        .unwrap();
    let b = world
        .add_point(
            Point::new(Vec2::new(1.2, 0.0))
                .mass(mb)
                .vel(Vec2::new(0.0, 0.5)),
        )
        .unwrap();
    world
        .add_spring(Spring::new(a, b).rest_length(1.0).stiffness(k).damping(0.0))
        .unwrap();
    let mut s = CpuSolver::new(&world).unwrap();
    let energy = |s: &CpuSolver| {
        let (va, vb) = (vel(s, 0), vel(s, 1));
        let x = norm(sub(pos(s, 1), pos(s, 0))) - 1.0;
        0.5 * ma as f64 * (va[0] * va[0] + va[1] * va[1])
            + 0.5 * mb as f64 * (vb[0] * vb[0] + vb[1] * vb[1])
            + 0.5 * k as f64 * x * x
    };
    let e0 = energy(&s);
    let steps = 100_000;
    let window = 10_000;
    let (mut max_err, mut first, mut last) = (0.0f64, 0.0f64, 0.0f64);
    for i in 0..steps {
        s.step();
        let e = energy(&s);
        max_err = max_err.max((e / e0 - 1.0).abs());
        if i < window {
            first += e / window as f64;
        }
        if i >= steps - window {
            last += e / window as f64;
        }
    }
    let drift = (last - first) / e0;
    println!(
        "E0 {e0:.6}; max relative energy error {max_err:.3e}; drift over {steps} steps \
         {drift:.2e} (first-window mean {first:.6}, last-window mean {last:.6})"
    );
    assert!(
        max_err < 0.01,
        "relative energy error reached {max_err} (tolerance 1%)"
    );
    assert!(
        drift.abs() < 1e-3,
        "energy drifted by {drift} relative over {steps} steps (tolerance 1e-3)"
    );
}

/// Rod pendulum: a pinned pivot and a bob on a rod of length L = 1.
///
/// Length: the projection is exact for a single rod, so the length stays L
/// to f32 rounding (tolerance 1e-6).
///
/// Period: released at 0.05 rad, `T = 2 pi sqrt(L / g) (1 + theta0^2 / 16 +
/// ...)`, 1.6e-4 longer than the small-amplitude formula. Tolerance 1e-3
/// against the small-amplitude formula, and 3e-5 against the finite-amplitude
/// one (the scheme's phase error is about `(w h)^2 / 24` = 2e-6; zero
/// crossings are interpolated linearly and averaged over 5 periods).
///
/// Amplitude: the position projection is not symplectic. Linearised, a
/// substep maps `x' = (1 - e) (x + h v)`, `v' = v - (g h / L) x'` with
/// `e = g h^2 / L` (the drift carries the bob `g h^2` outward along the rod
/// and the projection scales the whole step, tangential part included, back
/// by `1 - e`). The determinant is `1 - e`, so the amplitude decays like
/// `exp(-g h t / (2 L))`: 1.0%/s here. Tolerance 1% relative on that rate
/// (the linearisation drops O(theta0^2) = 2.5e-3 terms; peaks are refined
/// by a parabola; measured agreement is ~1e-5).
#[test]
fn rod_pendulum_keeps_length_and_swings_at_the_pendulum_period() {
    let params = Params {
        gravity: Vec2::new(0.0, -G),
        ..quiet()
    };
    let h = params.h() as f64;
    let (len, theta0) = (1.0f32, 0.05f32);
    let mut world = World::new(params);
    let pivot = world.add_point(Point::new(Vec2::ZERO).pinned()).unwrap();
    let bob = world
        .add_point(Point::new(Vec2::new(
            len * theta0.sin(),
            -len * theta0.cos(),
        )))
        .unwrap();
    world
        .add_spring(Spring::new(pivot, bob).kind(SpringKind::Rod))
        .unwrap();
    let mut s = CpuSolver::new(&world).unwrap();
    let (l, th0, g) = (len as f64, theta0 as f64, G as f64);
    let t_small = 2.0 * std::f64::consts::PI * (l / g).sqrt();
    let t_amp = t_small * (1.0 + th0 * th0 / 16.0 + 11.0 * th0.powi(4) / 3072.0);
    let mut crossings = Vec::new();
    let mut peaks: Vec<(f64, f64)> = vec![(0.0, (len * theta0.sin()) as f64)];
    let mut hist = [pos(&s, 1)[0]; 3];
    let mut t = 0.0f64;
    let mut max_len_err = 0.0f64;
    while crossings.len() < 11 {
        assert!(t < 100.0, "only {} crossings in 100 s", crossings.len());
        s.substep();
        t += h;
        let p = pos(&s, 1);
        max_len_err = max_len_err.max((norm(p) - l).abs());
        hist = [hist[1], hist[2], p[0]];
        let [a, b, c] = hist;
        if (a > 0.0) != (b > 0.0) {
            crossings.push(crossing(t - 2.0 * h, a, t - h, b));
        }
        if b > a && b >= c && b > 0.0 {
            let off = 0.5 * (a - c) / (a - 2.0 * b + c);
            peaks.push((t - h + off * h, b - 0.25 * (a - c) * off));
        }
    }
    assert_eq!(pos(&s, 0), [0.0, 0.0], "the pinned pivot moved");
    let period = (crossings[10] - crossings[0]) / 5.0;
    let (t0, a0) = peaks[0];
    let (t1, a1) = *peaks.last().unwrap();
    let rate = (a0 / a1).ln() / (t1 - t0);
    let rate_expected = g * h / (2.0 * l);
    println!(
        "rod length error max {max_len_err:.2e}; period {period:.6} s vs 2 pi sqrt(L/g) \
         {t_small:.6} s (rel err {:.2e}) and finite-amplitude {t_amp:.6} s (rel err {:.2e}); \
         amplitude {a0:.6} -> {a1:.6} in {:.3} s: decay rate {rate:.6} 1/s vs g h / (2 L) \
         {rate_expected:.6} (rel err {:.2e})",
        period / t_small - 1.0,
        period / t_amp - 1.0,
        t1 - t0,
        rate / rate_expected - 1.0
    );
    assert!(
        max_len_err < 1e-6,
        "rod length drifted by {max_len_err} (tolerance 1e-6)"
    );
    assert!(
        (period / t_small - 1.0).abs() < 1e-3,
        "pendulum period {period} s vs 2 pi sqrt(L/g) = {t_small} s (relative tolerance 1e-3)"
    );
    assert!(
        (period / t_amp - 1.0).abs() < 3e-5,
        "pendulum period {period} s vs the finite-amplitude period {t_amp} s (relative \
         tolerance 3e-5)"
    );
    assert!(
        (rate / rate_expected - 1.0).abs() < 0.01,
        "amplitude decays at {rate} 1/s, the linearised scheme gives g h / (2 L) = \
         {rate_expected} 1/s (relative tolerance 1%)"
    );
}

// ---------------------------------------------------------------------------
// Stage 4: shape matching
// ---------------------------------------------------------------------------

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

/// Damping terms are summed per point (Jacobi), so the exponential form is
/// stable per link but not for any number of links: each spring, soft
/// constraint or body removes the fraction `alpha = 1 - exp(-c h)` of a
/// velocity difference, and at a point they add up. In the mass-weighted
/// norm every link is alpha times an orthogonal projector onto its own
/// points, so the damping operator's largest eigenvalue is at most
/// `max over points of sum alpha` (docs/physics.md): the relaxation is
/// monotone (no overshoot) when that sum is <= 1 and cannot grow when it is
/// <= 2. Here three links with alpha = 0.3 each (sum 0.9): the hub's
/// velocity must decay monotonically, without changing sign, for both
/// springs and bodies.
#[test]
fn shared_damping_within_the_summed_bound_is_monotone() {
    let h = quiet().h();
    let c = -(1.0f32 - 0.3).ln() / h;
    for bodies in [false, true] {
        let v = damped_hub(c, bodies);
        let what = if bodies { "bodies" } else { "springs" };
        println!(
            "{what}: c = {c:.1} 1/s (alpha 0.3 each, sum 0.9): hub velocity {:.3e}, {:.3e}, \
             {:.3e} after 1, 2, 3 substeps, {:.3e} after 1 s",
            v[0], v[1], v[2], v[479]
        );
        let mut prev = 1.0f64;
        for (n, &x) in v.iter().enumerate() {
            assert!(
                x.is_finite() && x >= 0.0 && x <= prev,
                "{what}: hub velocity {prev} -> {x} at substep {n}: damping with summed alpha \
                 0.9 must decay monotonically"
            );
            prev = x;
        }
    }
}
