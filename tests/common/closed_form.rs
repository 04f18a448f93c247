//! Helpers shared by the closed-form tests (the stages' modules in
//! tests/stages/) and the regression tests (tests/regressions.rs): quiet
//! parameters and worlds, the state as f64, vector arithmetic, momenta,
//! zero crossings and periods, and a hub tied by damping links.

use softbody::cpu::CpuSolver;
use softbody::prelude::*;

/// Parameters with no gravity, no collision radius and everything else at
/// its default (dt = 1/60 s, 8 substeps, h = 1/480 s).
pub fn quiet() -> Params {
    Params {
        gravity: Vec2::ZERO,
        point_radius: 0.0,
        // The closed forms run to their limit: sleeping would stop a body
        // creeping into its equilibrium at under 0.05 m/s.
        sleep_speed: 0.0,
        // They are shape matching's alone; the area term's are in
        // tests/stages/shape_match/area.rs.
        area_stiffness: 0.0,
        ..Params::default()
    }
}
pub fn pos(s: &CpuSolver, i: usize) -> [f64; 2] {
    let p = s.positions()[i];
    [p[0] as f64, p[1] as f64]
}
pub fn vel(s: &CpuSolver, i: usize) -> [f64; 2] {
    let v = s.velocities()[i];
    [v[0] as f64, v[1] as f64]
}
pub fn sub(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] - b[0], a[1] - b[1]]
}
pub fn norm(a: [f64; 2]) -> f64 {
    a[0].hypot(a[1])
}
pub fn cross(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}
/// Linear and angular momentum (about the origin) of the solver's state.
pub fn momenta(s: &CpuSolver, masses: &[f32]) -> ([f64; 2], f64) {
    let (mut p, mut l) = ([0.0f64; 2], 0.0f64);
    for (i, &m) in masses.iter().enumerate() {
        let (x, v) = (pos(s, i), vel(s, i));
        p[0] += m as f64 * v[0];
        p[1] += m as f64 * v[1];
        l += m as f64 * cross(x, v);
    }
    (p, l)
}
/// A light hub point (mass 0.01) moving along x, tied by three pure-damping
/// links (stiffness 0, damping c) to heavy points (mass 100) on the x axis:
/// three force springs, or three bodies (hub + two heavy points each).
/// Returns the hub's x velocity after every substep for one second.
pub fn damped_hub(c: f32, bodies: bool) -> Vec<f64> {
    let world = damped_hub_world(c, bodies);
    let mut s = CpuSolver::new(&world).unwrap();
    (0..480)
        .map(|_| {
            s.substep();
            vel(&s, 0)[0]
        })
        .collect()
}
pub fn damped_hub_world(c: f32, bodies: bool) -> World {
    let mut world = World::new(quiet());
    let hub = world
        .add_point(Point::new(Vec2::ZERO).vel(Vec2::new(1.0, 0.0)).mass(0.01))
        .unwrap();
    for j in 0..3 {
        let x = [1.0f32, -1.2, 1.4][j];
        let p = world
            .add_point(Point::new(Vec2::new(x, 0.0)).mass(100.0))
            .unwrap();
        if bodies {
            let q = world
                .add_point(Point::new(Vec2::new(x, 0.5)).mass(100.0))
                .unwrap();
            world
                .add_body(Body::new(vec![hub, p, q]).stiffness(0.0).damping(c))
                .unwrap();
        } else {
            world
                .add_spring(Spring::new(hub, p).stiffness(0.0).damping(c))
                .unwrap();
        }
    }
    world
}

pub const EPS: f64 = f32::EPSILON as f64;

pub const G: f32 = 9.81;

pub fn assert_finite(s: &CpuSolver) {
    for (i, (p, v)) in s.positions().iter().zip(s.velocities()).enumerate() {
        assert!(
            p.iter().chain(v).all(|x| x.is_finite()),
            "point {i} is not finite: pos {p:?} vel {v:?}"
        );
    }
}

/// Linear interpolation of the time at which `f` crosses zero between two
/// samples `(t0, f0)` and `(t1, f1)` of opposite signs.
pub fn crossing(t0: f64, f0: f64, t1: f64, f1: f64) -> f64 {
    t0 + (t1 - t0) * f0 / (f0 - f1)
}

/// No gravity, no contacts.
pub fn quiet_world() -> World {
    World::new(Params {
        gravity: Vec2::ZERO,
        point_radius: 0.0,
        body_collisions: false,
        ..Params::default()
    })
}

/// Times at which `x(t)` crosses its mean going up, linearly interpolated.
pub fn upward_crossings(samples: &[(f64, f64)], mean: f64) -> Vec<f64> {
    samples
        .windows(2)
        .filter(|w| w[0].1 < mean && w[1].1 >= mean)
        .map(|w| {
            let (t0, x0) = w[0];
            let (t1, x1) = w[1];
            t0 + (mean - x0) / (x1 - x0) * (t1 - t0)
        })
        .collect()
}

/// The mean period of a signal that crosses `mean` at least `n` times.
pub fn period(samples: &[(f64, f64)], mean: f64, n: usize) -> f64 {
    let c = upward_crossings(samples, mean);
    assert!(c.len() >= n, "only {} crossings", c.len());
    (c[n - 1] - c[0]) / (n - 1) as f64
}
