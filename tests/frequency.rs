//! Stiffness given as a frequency and a damping ratio
//! (`softbody::Frequency`): what it means in the solver, in the builders
//! and in scene files.
//!
//! The solver is explicit, so a link given `hz` rings at `hz` up to the
//! scheme's phase error, `(omega h)^2 / 24` relative (0.02% at 5 Hz with
//! `h = 1/480 s`); the tests allow 1%.

use softbody::cpu::CpuSolver;
use softbody::prelude::*;
use softbody::scene::Scene;

/// No gravity, no contacts.
fn quiet() -> World {
    World::new(Params {
        gravity: Vec2::ZERO,
        point_radius: 0.0,
        body_collisions: false,
        ..Params::default()
    })
}

/// Times at which `x(t)` crosses its mean going up, linearly interpolated.
fn upward_crossings(samples: &[(f64, f64)], mean: f64) -> Vec<f64> {
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
fn period(samples: &[(f64, f64)], mean: f64, n: usize) -> f64 {
    let c = upward_crossings(samples, mean);
    assert!(c.len() >= n, "only {} crossings", c.len());
    (c[n - 1] - c[0]) / (n - 1) as f64
}

/// A spring of two 1 kg points given 5 Hz oscillates at 5 Hz.
#[test]
fn a_spring_given_in_hertz_rings_at_that_frequency() {
    let mut world = quiet();
    let a = world.add_point(Point::new(Vec2::new(0.0, 0.0))).unwrap();
    let b = world.add_point(Point::new(Vec2::new(1.1, 0.0))).unwrap();
    let f = Frequency::new(5.0, 0.0);
    world
        .add_spring(
            Spring::new(a, b)
                .rest_length(1.0)
                .stiffness(f.spring_stiffness(1.0, 1.0))
                .damping(0.0),
        )
        .unwrap();
    let mut s = CpuSolver::new(&world).unwrap();
    let h = world.params.h() as f64;
    let mut samples = Vec::new();
    for k in 0..2000 {
        s.substep();
        let p = s.positions();
        samples.push(((k + 1) as f64 * h, (p[1][0] - p[0][0]) as f64));
    }
    let t = period(&samples, 1.0, 8);
    println!("period {t:.5} s against 0.2 s");
    assert!((t / 0.2 - 1.0).abs() < 0.01, "period {t} s, expected 0.2 s");
}

/// A box body (no springs) stretched about its centroid relaxes back
/// toward its rest shape as a harmonic oscillator at the body's
/// frequency: a uniform stretch leaves the best-fit frame where it is, so
/// every point is pulled by `omega^2` times its offset. Undamped it rings
/// at 5 Hz; critically damped (ratio 1) it returns without overshoot.
#[test]
fn a_body_given_in_hertz_rings_at_that_frequency_and_ratio_one_does_not_overshoot() {
    let run = |ratio: f32| -> Vec<(f64, f64)> {
        let mut world = quiet();
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

#[test]
fn params_convert_to_and_from_a_frequency() {
    let mut p = Params::default();
    let d = p.shape_frequency();
    assert!(
        (d.hz - 40.0).abs() < 1e-3 && (d.damping_ratio - 0.2).abs() < 1e-4,
        "{d:?}"
    );
    p.set_shape_frequency(Frequency::new(4.0, 1.0));
    let w = std::f32::consts::TAU * 4.0;
    assert_eq!((p.shape_stiffness, p.shape_damping), (w * w, 2.0 * w));
    p.set_spring_frequency(Frequency::new(4.0, 0.5), 2.0);
    assert_eq!((p.spring_stiffness, p.spring_damping), (w * w, w));
}

#[test]
fn a_style_sets_springs_from_a_frequency_with_its_mass() {
    let f = Frequency::new(10.0, 0.2);
    let style = ShapeStyle::new()
        .mass(3.0)
        .spring_frequency(f)
        .body_frequency(f);
    assert_eq!(style.spring_stiffness, Some(f.shape_stiffness() * 1.5));
    assert_eq!(style.spring_damping, Some(f.damping_rate()));
    assert_eq!(style.body_stiffness, Some(f.shape_stiffness()));
    assert_eq!(style.body_damping, Some(f.damping_rate()));
}

#[test]
fn scene_files_take_frequencies() {
    let scene = Scene::parse(
        r#"{ "params": { "shape_frequency": 10, "shape_damping_ratio": 0.3 },
             "shapes": [{ "box": { "center": [0, 1], "size": [1, 1], "mass": 2,
                                   "body_frequency": 5, "spring_frequency": 5,
                                   "spring_damping_ratio": 1 } }] }"#,
    )
    .unwrap();
    let p = scene.params().unwrap();
    let w = std::f32::consts::TAU * 10.0;
    assert_eq!((p.shape_stiffness, p.shape_damping), (w * w, 2.0 * 0.3 * w));
    let world = scene.build().unwrap();
    let f = Frequency::new(5.0, 0.2);
    let body = &world.bodies()[0];
    assert_eq!(body.stiffness, Some(f.shape_stiffness()));
    // The body's ratio defaults to the default shape's, 0.2.
    assert_eq!(body.damping, Some(f.damping_rate()));
    let spring = &world.springs()[0];
    let f = Frequency::new(5.0, 1.0);
    assert_eq!(spring.stiffness, Some(f.spring_stiffness(2.0, 2.0)));
    assert_eq!(spring.damping, Some(f.damping_rate()));
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
