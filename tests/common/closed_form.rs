//! Helpers shared by the closed-form tests (tests/physics.rs) and the
//! regression tests (tests/regressions.rs): quiet parameters, the state as
//! f64, vector arithmetic, momenta, and a hub tied by damping links.

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
        // tests/area.rs.
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
