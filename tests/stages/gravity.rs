//! Gravity fields (`gravity_at` in `shaders/collide_point.wgsl`, mirrored
//! by `cpu::integrate::gravity_at`): planets that pull, and each point's
//! gravity scale, on both paths. The GPU-vs-CPU stage checks run them in
//! `gpu_check`'s "gravity-fields" scene.

use crate::common::{both, centroid};
use softbody::Params;
use softbody::prelude::*;
use softbody::solver::Solver;

/// Steps between looks at an orbiting point.
const LOOK: u64 = 5;

/// One point started on a circular orbit about `centre`: the time it
/// takes to go once around, and its distance from the centre then, by
/// linear interpolation between the looks (every [`LOOK`] steps) around
/// the crossing.
fn orbit(s: &mut Solver, dt: f32, centre: Vec2) -> (f32, f32) {
    let angle = |s: &Solver| {
        let (pos, _) = s.state().unwrap();
        let d = Vec2::from_array(pos[0]) - centre;
        (d.y.atan2(d.x), d.length())
    };
    let (mut last, mut r_last) = angle(s);
    let mut turned = 0.0f32;
    for k in 1..20_000 {
        s.step(LOOK).unwrap();
        let (a, r) = angle(s);
        let mut da = a - last;
        if da < -std::f32::consts::PI {
            da += std::f32::consts::TAU;
        }
        let before = turned;
        turned += da;
        if turned >= std::f32::consts::TAU {
            let f = (std::f32::consts::TAU - before) / da;
            let looks = k as f32 - 1.0 + f;
            return (looks * LOOK as f32 * dt, r_last + f * (r - r_last));
        }
        (last, r_last) = (a, r);
    }
    panic!("{}: no orbit completed", s.name());
}

/// A point in a circular orbit completes one period `2 pi sqrt(r^3 / GM)`
/// within 1% and comes back within 1% of its radius, on both paths: at
/// radius 10 about a planet of GM 100 at 60 Hz, and in centimetres (radius
/// 200, GM 2e6 cm^3/s^2, the world's length unit 100) at 120 Hz, with a
/// gravity scale of 0.5 that lengthens the period by sqrt(2).
#[test]
fn a_point_in_a_circular_orbit_keeps_keplers_period_and_radius() {
    for (r, gm, dt, unit, scale) in [
        (10.0f32, 100.0f32, 1.0 / 60.0, 1.0, 1.0f32),
        (200.0, 2.0e6, 1.0 / 120.0, 100.0, 0.5),
    ] {
        let mut world = World::default();
        world.params = Params::with_length_unit(unit).unwrap();
        world.params.gravity = Vec2::ZERO;
        world.params.dt = dt;
        let centre = Vec2::new(3.0, -2.0) * unit;
        world
            .add_planet(Planet::new(centre, r / 5.0).gravity(gm))
            .unwrap();
        let v = (scale * gm / r).sqrt();
        world
            .add_point(
                Point::new(centre + Vec2::new(r, 0.0))
                    .vel(Vec2::new(0.0, v))
                    .gravity_scale(scale),
            )
            .unwrap();
        let period = std::f32::consts::TAU * (r * r * r / (scale * gm)).sqrt();
        for mut s in both(&world) {
            let (t, back) = orbit(&mut s, dt, centre);
            eprintln!(
                "{}: r {r}, GM {gm}, scale {scale}: one orbit in {t:.4} s (Kepler {period:.4} s), back at {back:.4}",
                s.name()
            );
            assert!(
                (t / period - 1.0).abs() < 0.01,
                "{}: period {t} s against {period} s",
                s.name()
            );
            assert!(
                (back / r - 1.0).abs() < 0.01,
                "{}: back at {back} of {r}",
                s.name()
            );
        }
    }
}

/// Bodies set down on a planet that pulls them (the world's gravity off)
/// rest where they stand, on its top, side and underside alike: boxes with
/// diagonal springs and a 10-point wheel, on a planet of radius 3 with a
/// surface gravity of 9.8 m/s^2, each set down 5 cm above it. They land,
/// and from 1 s to 4 s none moves a centimetre, with sleeping on (all
/// then sleep) and off. (The wheel is set down on a face. Set down on a corner, a
/// 10-point wheel or hubless ring rocks on the curved surface by a degree
/// either way for seconds, under a planet's pull and under the world's
/// gravity alike: docs/physics.md, "Gravity".)
#[test]
fn bodies_rest_on_a_planet_that_pulls_them_wherever_they_stand() {
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    let (centre, radius) = (Vec2::new(-1.0, 2.0), 3.0);
    world
        .add_planet(Planet::new(centre, radius).surface_gravity(9.8))
        .unwrap();
    let mut shapes = Vec::new();
    // Half their heights: each is set down 5 cm above the surface.
    let half = [0.2, 0.3, 0.15, 0.25, 0.25];
    for (k, a) in [90.0f32, 0.0, 200.0, 300.0].into_iter().enumerate() {
        let dir = Vec2::from_angle(a.to_radians());
        let size = [0.4, 0.6, 0.3, 0.5][k];
        shapes.push(
            BoxShape::new(
                centre + (radius + size / 2.0 + 0.05) * dir,
                Vec2::splat(size),
            )
            .rotation(a.to_radians())
            .build(&mut world)
            .unwrap(),
        );
    }
    let dir = Vec2::from_angle(135f32.to_radians());
    shapes.push(
        Wheel::new(centre + (radius + 0.3) * dir, 0.25, 10)
            .rotation(45f32.to_radians())
            .build(&mut world)
            .unwrap(),
    );
    let movable = world.points().len();
    let mut awake = world.clone();
    awake.params.sleep_speed = 0.0;
    for (sleeping, world) in [(true, &world), (false, &awake)] {
        for mut s in both(world) {
            s.step(60).unwrap();
            let (start, _) = s.state().unwrap();
            s.step(180).unwrap();
            let (pos, _) = s.state().unwrap();
            for (k, shape) in shapes.iter().enumerate() {
                let moved = (centroid(&pos, shape) - centroid(&start, shape)).length();
                let height = (centroid(&pos, shape) - centre).length() - radius;
                eprintln!(
                    "{} (sleeping {sleeping}): body {k} moved {moved:.4} m from 1 s to 4 s, its centre {height:.3} m above the surface",
                    s.name()
                );
                assert!(moved < 0.01, "{}: body {k} moved {moved} m", s.name());
                assert!(
                    height < half[k] + 0.025,
                    "{}: body {k} stands {height} m above the surface, not on it",
                    s.name()
                );
            }
            let asleep = if sleeping { movable } else { 0 };
            assert_eq!(s.sleeping_points().unwrap(), asleep, "{}", s.name());
        }
    }
}

/// A point of gravity scale 0 floats where it is, one of 0.5 falls half
/// as far as one of 1, and one of -1 rises as far: on both paths, with
/// the world's gravity and a planet's pull together.
#[test]
fn a_points_gravity_scale_scales_what_it_feels() {
    let mut world = World::default();
    world
        .add_planet(Planet::new(Vec2::new(0.0, -50.0), 2.0).gravity(3000.0))
        .unwrap();
    for (k, scale) in [1.0f32, 0.0, 0.5, -1.0].into_iter().enumerate() {
        world
            .add_point(Point::new(Vec2::new(k as f32 * 0.5, 0.0)).gravity_scale(scale))
            .unwrap();
    }
    for mut s in both(&world) {
        s.step(30).unwrap();
        let (pos, vel) = s.state().unwrap();
        let fell = |k: usize| -pos[k][1];
        eprintln!(
            "{}: fell {:.5}, {:.5}, {:.5}, {:.5} m",
            s.name(),
            fell(0),
            fell(1),
            fell(2),
            fell(3)
        );
        assert_eq!(pos[1], [0.5, 0.0], "{}: scale 0 floats", s.name());
        assert_eq!(vel[1], [0.0, 0.0], "{}", s.name());
        assert!(fell(0) > 1.0, "{}", s.name());
        assert!(
            (fell(2) / fell(0) - 0.5).abs() < 0.01,
            "{}: scale 0.5 fell {} of scale 1's",
            s.name(),
            fell(2) / fell(0)
        );
        assert!(
            (fell(3) / fell(0) + 1.0).abs() < 0.01,
            "{}: scale -1 went {} of scale 1's",
            s.name(),
            fell(3) / fell(0)
        );
    }
}

/// Bad gravity settings are refused with an error that names them: a
/// gravity scale that is not finite or beyond 1e3, a planet's pull that is
/// negative or not finite.
#[test]
fn bad_gravity_settings_are_refused_by_name() {
    let mut world = World::default();
    for bad in [f32::NAN, f32::INFINITY, 1.0e4, -2.0e3] {
        let e = world
            .add_point(Point::new(Vec2::ZERO).gravity_scale(bad))
            .unwrap_err()
            .to_string();
        assert!(e.contains("point 0") && e.contains("gravity_scale"), "{e}");
    }
    for bad in [-1.0f32, f32::NAN, f32::INFINITY, 1.0e30] {
        let e = world
            .add_planet(Planet::new(Vec2::ZERO, 1.0).gravity(bad))
            .unwrap_err()
            .to_string();
        assert!(e.contains("planet 0") && e.contains("gravity"), "{e}");
    }
    assert!(world.points().is_empty() && world.planets().is_empty());
}
