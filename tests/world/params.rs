//! Parameters: every invalid one is refused, naming it, through
//! `Params::validate`, packing and the solvers; a link that diverges on
//! its own at the substep is refused; stiffness converts to and from a
//! frequency and a damping ratio (`softbody::Frequency`), in `Params` and
//! in shape styles.

use crate::common;
use crate::common::bad_input::*;
use softbody::Item;
use softbody::pack::Packed;
use softbody::prelude::*;

fn bad_params() -> Vec<(Params, WorldError)> {
    let p = Params::default;
    let range = |field, value: f64, expected| WorldError::OutOfRange {
        item: Item::Params,
        field,
        value,
        expected,
    };
    let non_finite = |field| WorldError::NonFinite {
        item: Item::Params,
        field,
    };
    let negative = |field, value| WorldError::Negative {
        item: Item::Params,
        field,
        value,
    };
    vec![
        (Params { dt: 0.0, ..p() }, range("dt", 0.0, "0 < dt <= 1 s")),
        (
            Params { dt: -0.01, ..p() },
            range("dt", -0.01f32 as f64, "0 < dt <= 1 s"),
        ),
        (
            Params {
                dt: f32::NAN,
                ..p()
            },
            non_finite("dt"),
        ),
        (
            Params {
                dt: f32::INFINITY,
                ..p()
            },
            non_finite("dt"),
        ),
        (
            Params { substeps: 0, ..p() },
            range("substeps", 0.0, "1..=1024"),
        ),
        (
            Params {
                substeps: 5000,
                ..p()
            },
            range("substeps", 5000.0, "1..=1024"),
        ),
        (
            Params {
                rod_iterations: 1000,
                ..p()
            },
            range("rod_iterations", 1000.0, "0..=64"),
        ),
        (
            Params {
                contact_iterations: 0,
                ..p()
            },
            range("contact_iterations", 0.0, "1..=16"),
        ),
        (
            Params {
                contact_iterations: 17,
                ..p()
            },
            range("contact_iterations", 17.0, "1..=16"),
        ),
        (
            Params {
                contact_relax_iterations: 17,
                ..p()
            },
            range("contact_relax_iterations", 17.0, "0..=16"),
        ),
        (
            Params {
                gravity: Vec2::new(0.0, f32::NAN),
                ..p()
            },
            non_finite("gravity.y"),
        ),
        (
            Params {
                point_radius: -0.1,
                ..p()
            },
            negative("point_radius", -0.1),
        ),
        (
            Params {
                friction: -1.0,
                ..p()
            },
            negative("friction", -1.0),
        ),
        (
            Params {
                spring_stiffness: -1.0,
                ..p()
            },
            negative("spring_stiffness", -1.0),
        ),
        (
            Params {
                spring_damping: f32::NAN,
                ..p()
            },
            non_finite("spring_damping"),
        ),
        (
            Params {
                shape_stiffness: -1.0,
                ..p()
            },
            negative("shape_stiffness", -1.0),
        ),
        (
            Params {
                shape_damping: -1.0,
                ..p()
            },
            negative("shape_damping", -1.0),
        ),
        (
            Params {
                collision_cell: Some(0.0),
                ..p()
            },
            range("collision_cell", 0.0, "> 0"),
        ),
        (
            Params {
                collision_cell: Some(-0.5),
                ..p()
            },
            range("collision_cell", -0.5, "> 0"),
        ),
        (
            Params {
                collision_cell: Some(f32::NAN),
                ..p()
            },
            non_finite("collision_cell"),
        ),
        (
            Params {
                collision_cell: Some(f32::INFINITY),
                ..p()
            },
            non_finite("collision_cell"),
        ),
        (
            Params {
                collision_cell: Some(f32::NEG_INFINITY),
                ..p()
            },
            non_finite("collision_cell"),
        ),
    ]
}

#[test]
fn invalid_params_through_validate() {
    for (params, want) in bad_params() {
        expect_err(params.validate(), want, "params");
    }
    Params::default().validate().unwrap();
    for cell in [None, Some(f32::MIN_POSITIVE), Some(0.25), Some(1.0e6)] {
        Params {
            collision_cell: cell,
            body_collisions: false,
            ..Params::default()
        }
        .validate()
        .unwrap();
    }
    for ok in [1, 1024] {
        Params {
            substeps: ok,
            ..Params::default()
        }
        .validate()
        .unwrap();
    }
}

#[test]
fn invalid_params_through_packing_and_the_cpu_solver() {
    for (params, want) in bad_params() {
        let mut w = world3();
        w.params = params;
        expect_err(w.validate(), want.clone(), "params");
        expect_err(Packed::from_world(&w), want.clone(), "params");
        expect_err(CpuSolver::new(&w), want.clone(), "params");
        // And when swapped into a running solver.
        let mut solver = CpuSolver::new(&world3()).unwrap();
        expect_err(solver.set_params(w.params.clone()), want, "params");
        assert_eq!(solver.params(), &Params::default());
    }
}

/// A link that diverges on its own at the substep: the solvers refuse the
/// world (it could only produce NaN) instead of simulating it. A 1 g box
/// with the default springs went NaN within 3 steps, silently.
#[test]
fn a_link_that_diverges_on_its_own_is_refused() {
    let unstable = |e: &WorldError| matches!(e, WorldError::Unstable { .. });
    // Two 1 kg points, undamped: k h^2 (1/m_a + 1/m_b) against 4.
    let pair = |x: f32, c: f32| {
        let mut w = World::new(Params {
            gravity: Vec2::ZERO,
            ..Params::default()
        });
        let h = w.params.h();
        let a = w.add_point(Point::new(Vec2::ZERO)).unwrap();
        let b = w.add_point(Point::new(Vec2::X)).unwrap();
        w.add_spring(Spring::new(a, b).stiffness(x / (2.0 * h * h)).damping(c))
            .unwrap();
        w
    };
    assert!(CpuSolver::new(&pair(3.99, 0.0)).is_ok());
    let err = CpuSolver::new(&pair(4.01, 0.0)).err().unwrap();
    assert!(unstable(&err), "{err}");
    assert!(err.to_string().contains("spring 0"), "{err}");
    // Damping raises the limit to 2 (1 + E) / E.
    assert!(CpuSolver::new(&pair(4.01, 100.0)).is_ok());

    // The 1 g box, on both paths.
    let mut light = World::default();
    let b = BoxShape::new(Vec2::ZERO, Vec2::ONE)
        .mass(0.001)
        .build(&mut light)
        .unwrap();
    let err = CpuSolver::new(&light).err().unwrap();
    assert!(unstable(&err), "{err}");
    // A body as stiff as its substep allows once, then past it.
    let mut stiff = World::default();
    let h = stiff.params.h();
    let corners = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
        .map(|(x, y)| stiff.add_point(Point::new(Vec2::new(x, y))).unwrap());
    let body = Body::new(corners.to_vec()).damping(0.0);
    stiff
        .add_body(body.clone().stiffness(3.9 / (h * h)))
        .unwrap();
    assert!(CpuSolver::new(&stiff).is_ok());
    let mut stiff = World::default();
    let corners = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
        .map(|(x, y)| stiff.add_point(Point::new(Vec2::new(x, y))).unwrap());
    stiff
        .add_body(
            Body::new(corners.to_vec())
                .damping(0.0)
                .stiffness(4.1 / (h * h)),
        )
        .unwrap();
    let err = CpuSolver::new(&stiff).err().unwrap();
    assert!(
        matches!(
            err,
            WorldError::Unstable {
                item: Item::Body(0),
                ..
            }
        ),
        "{err}"
    );

    // Fewer substeps through set_params: refused, the solver keeps its
    // parameters and still steps.
    let world = softbody::scenes::default_scene(20).unwrap();
    let mut cpu = CpuSolver::new(&world).unwrap();
    let mut one = world.params.clone();
    one.substeps = 1;
    let err = cpu.set_params(one.clone()).err().unwrap();
    assert!(unstable(&err), "{err}");
    assert_eq!(cpu.params().substeps, world.params.substeps);
    cpu.step();
    assert!(cpu.positions().iter().flatten().all(|x| x.is_finite()));

    // Appending the 1 g box through sync: refused, nothing changes.
    let mut grown = world.clone();
    BoxShape::new(Vec2::new(0.0, 30.0), Vec2::ONE)
        .mass(0.001)
        .build(&mut grown)
        .unwrap();
    let before = cpu.packed().clone();
    let err = cpu.sync(&grown).err().unwrap();
    assert!(unstable(&err), "{err}");
    assert!(cpu.packed() == &before, "a refused sync changed the solver");

    let Some(ctx) = common::gpu() else { return };
    let err = GpuSolver::new(&ctx.device, &ctx.queue, &light)
        .err()
        .unwrap();
    assert!(
        matches!(err, SolverError::World(WorldError::Unstable { .. })),
        "{err}"
    );
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    let err = gpu.set_params(&ctx.queue, one).err().unwrap();
    assert!(
        matches!(err, SolverError::World(WorldError::Unstable { .. })),
        "{err}"
    );
    let before = gpu.packed().clone();
    let err = gpu.sync(&ctx.device, &ctx.queue, &grown).err().unwrap();
    assert!(
        matches!(err, SolverError::World(WorldError::Unstable { .. })),
        "{err}"
    );
    assert!(gpu.packed() == &before, "a refused sync changed the solver");
    gpu.step(&ctx.device, &ctx.queue, 1).unwrap();
    let _ = b;
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
