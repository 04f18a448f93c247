//! Every bad item the spec names is refused with a typed error that names
//! it: out-of-range indices, NaN and infinities, negative values,
//! degenerate springs, bodies and planes, geometry beyond the world, too
//! many colliders; the largest accepted geometry steps without NaN.
//! (Run-time degenerate geometry is with the stage it reaches, in
//! tests/stages/; bad parameters are in `params`.)

use crate::common;
use crate::common::bad_input::*;
use crate::common::run_finite;
use softbody::Item;
use softbody::prelude::*;

#[test]
fn spring_with_out_of_range_point() {
    let mut w = world3();
    expect_err(
        w.add_spring(Spring::new(PointHandle(7), PointHandle(0))),
        WorldError::IndexOutOfRange {
            item: Item::Spring(0),
            field: "a",
            index: 7,
            len: 3,
        },
        "spring 0",
    );
    expect_err(
        w.add_spring(Spring::new(PointHandle(0), PointHandle(3))),
        WorldError::IndexOutOfRange {
            item: Item::Spring(0),
            field: "b",
            index: 3,
            len: 3,
        },
        "spring 0",
    );
    assert!(w.springs().is_empty());
}

#[test]
fn body_with_out_of_range_point() {
    let mut w = world3();
    expect_err(
        w.add_body(Body::new(handles(&[0, 1, 5]))),
        WorldError::IndexOutOfRange {
            item: Item::Body(0),
            field: "points",
            index: 5,
            len: 3,
        },
        "body 0",
    );
    assert!(w.bodies().is_empty());
}

#[test]
fn point_with_unknown_material() {
    let mut w = world3();
    expect_err(
        w.add_point(Point::new(Vec2::ZERO).material(MaterialHandle(1))),
        WorldError::IndexOutOfRange {
            item: Item::Point(3),
            field: "material",
            index: 1,
            len: 1,
        },
        "point 3",
    );
}

#[test]
fn body_with_unknown_material() {
    let mut w = world3();
    expect_err(
        w.add_body(Body::new(handles(&[0, 1, 2])).material(MaterialHandle(1))),
        WorldError::IndexOutOfRange {
            item: Item::Body(0),
            field: "material",
            index: 1,
            len: 1,
        },
        "body 0",
    );
    assert!(w.bodies().is_empty());
    let m = w.add_material(Material::DEFAULT).unwrap();
    w.add_body(Body::new(handles(&[0, 1, 2])).material(m))
        .unwrap();
}

#[test]
fn non_finite_position() {
    let mut w = world3();
    for bad in NON_FINITE {
        for pos in [Vec2::new(bad, 0.0), Vec2::new(0.0, bad)] {
            expect_err(
                w.add_point(Point::new(pos)),
                WorldError::NonFinite {
                    item: Item::Point(3),
                    field: "pos",
                },
                "point 3",
            );
        }
    }
    assert_eq!(w.points().len(), 3);
}

#[test]
fn non_finite_velocity() {
    let mut w = world3();
    for bad in NON_FINITE {
        for vel in [Vec2::new(bad, 0.0), Vec2::new(0.0, bad)] {
            expect_err(
                w.add_point(Point::new(Vec2::ZERO).vel(vel)),
                WorldError::NonFinite {
                    item: Item::Point(3),
                    field: "vel",
                },
                "point 3",
            );
        }
    }
}

#[test]
fn non_finite_mass() {
    let mut w = world3();
    for bad in NON_FINITE {
        expect_err(
            w.add_point(Point::new(Vec2::ZERO).mass(bad)),
            WorldError::NonFinite {
                item: Item::Point(3),
                field: "mass",
            },
            "point 3",
        );
    }
}

#[test]
fn non_finite_rest_length() {
    let mut w = world3();
    for bad in NON_FINITE {
        expect_err(
            w.add_spring(Spring::new(PointHandle(0), PointHandle(1)).rest_length(bad)),
            WorldError::NonFinite {
                item: Item::Spring(0),
                field: "rest_length",
            },
            "spring 0",
        );
    }
    // Points whose distance would overflow are refused as points (their
    // coordinates are beyond the world), so a default rest length is always
    // finite: it used to be reported as a bad `rest_length` nobody gave.
    expect_err(
        w.add_point(Point::new(Vec2::splat(-f32::MAX))),
        WorldError::OutOfRange {
            item: Item::Point(3),
            field: "pos",
            value: -f32::MAX as f64,
            expected: "|x|, |y| <= 1e7 m",
        },
        "point 3",
    );
    assert!(w.springs().is_empty());
}

/// Finite but huge geometry used to turn NaN within a step with no error
/// (squared distances and shape-matching sums overflow f32): a 2e19 m box,
/// a 1e20 m rest length, a planet of radius 1e30, a pinned point moved to
/// 1e30, a state at 1e20, dt = 3e38. Each is now refused, naming the item
/// and the bound, and the largest accepted values step without NaN.
#[test]
fn geometry_beyond_the_world_is_refused() {
    let range = |item, field, value: f32, expected| WorldError::OutOfRange {
        item,
        field,
        value: value as f64,
        expected,
    };
    const POS: &str = "|x|, |y| <= 1e7 m";
    let mut w = world3();
    let before = w.clone();
    expect_err(
        w.add_point(Point::new(Vec2::new(0.0, 2.0e7))),
        range(Item::Point(3), "pos", 2.0e7, POS),
        "point 3",
    );
    expect_err(
        w.add_point(Point::new(Vec2::ZERO).vel(Vec2::new(-3.0e38, 0.0))),
        range(Item::Point(3), "vel", -3.0e38, "|vx|, |vy| <= 1e7 m/s"),
        "point 3",
    );
    expect_err(
        w.add_spring(Spring::new(PointHandle(0), PointHandle(1)).rest_length(1.0e20)),
        range(Item::Spring(0), "rest_length", 1.0e20, "0..=1e8 m"),
        "spring 0",
    );
    expect_err(
        w.add_body(Body::new(handles(&[0, 1, 2])).rest(vec![
            Vec2::ZERO,
            Vec2::X,
            Vec2::new(0.0, -1.0e19),
        ])),
        range(Item::Body(0), "rest", -1.0e19, POS),
        "body 0",
    );
    expect_err(
        w.add_planet(Planet::new(Vec2::ZERO, 1.0e30)),
        range(Item::Planet(0), "radius", 1.0e30, "0..=1e8 m"),
        "planet 0",
    );
    expect_err(
        w.add_planet(Planet::new(Vec2::new(1.0e8, 0.0), 1.0)),
        range(Item::Planet(0), "center", 1.0e8, POS),
        "planet 0",
    );
    expect_err(
        w.add_plane(HalfPlane::new(Vec2::Y, -1.0e8)),
        range(Item::Plane(0), "offset", -1.0e8, "|offset| <= 1e7 m"),
        "plane 0",
    );
    // A shape builder refuses before it adds anything.
    let err = BoxShape::new(Vec2::ZERO, Vec2::splat(2.0e19))
        .rotation(0.3)
        .build(&mut w)
        .unwrap_err();
    assert!(
        matches!(err, WorldError::OutOfRange { field: "pos", .. }),
        "{err:?}"
    );
    assert_eq!(w, before, "nothing was added");

    // Parameters: dt from 0 to 1 s with a substep of at least 1e-9 s, and
    // gravity within 1e6 m/s^2.
    for (params, want) in [
        (
            Params {
                dt: 3.0e38,
                ..Params::default()
            },
            range(Item::Params, "dt", 3.0e38, "0 < dt <= 1 s"),
        ),
        (
            Params {
                dt: 1.0e-45,
                ..Params::default()
            },
            range(Item::Params, "dt", 1.0e-45, "dt / substeps >= 1e-9 s"),
        ),
        (
            Params {
                gravity: Vec2::new(0.0, -1.0e30),
                ..Params::default()
            },
            range(Item::Params, "gravity.y", -1.0e30, "|g| <= 1e6 m/s^2"),
        ),
        (
            Params {
                point_radius: 1.0e9,
                ..Params::default()
            },
            range(Item::Params, "point_radius", 1.0e9, "0..=1e8 m"),
        ),
    ] {
        expect_err(params.validate(), want.clone(), "params");
        let mut solver = CpuSolver::new(&world3()).unwrap();
        expect_err(solver.set_params(params), want, "params");
    }

    // States written back and pinned points moved.
    let mut pinned = World::default();
    let p = pinned.add_point(Point::new(Vec2::ZERO).pinned()).unwrap();
    pinned.add_point(Point::new(Vec2::X)).unwrap();
    let mut cpu = CpuSolver::new(&pinned).unwrap();
    expect_err(
        cpu.move_pinned_point(p, Vec2::new(1.0e30, 0.0)),
        range(Item::Point(0), "pos", 1.0e30, POS),
        "point 0",
    );
    let vel = cpu.velocities().to_vec();
    expect_err(
        cpu.set_state(&[[0.0, 0.0], [1.0e20, 0.0]], &vel),
        range(
            Item::Point(1),
            "pos",
            1.0e20,
            "a state within 1e15 (m, m/s)",
        ),
        "point 1",
    );
    assert_eq!(cpu.positions(), &[[0.0, 0.0], [1.0, 0.0]], "nothing moved");
    // A state that drifted past the input bounds (a point flung away) is
    // still taken back, and checkpointed: a long run's --save-state must
    // not fail at the end because one point left the 1e7 m square.
    let far = [[0.0, 0.0], [3.0e7, 0.0]];
    cpu.set_state(&far, &[[0.0, 0.0], [2.0e7, 0.0]]).unwrap();
    let saved = softbody::checkpoint::Checkpoint::of_cpu(&cpu, 1.0);
    saved.restore_cpu(&mut cpu).unwrap();
    saved.to_bytes().unwrap();
    cpu.step();
    assert!(cpu.positions().iter().flatten().all(|x| x.is_finite()));
    if let Some(ctx) = common::gpu() {
        let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &pinned).unwrap();
        let err = gpu
            .move_pinned_point(&ctx.queue, p, Vec2::new(1.0e30, 0.0))
            .unwrap_err();
        assert!(
            matches!(err, SolverError::World(WorldError::OutOfRange { .. })),
            "{err:?}"
        );
    }
}

/// A body given no rest shape takes its points' positions, and those are
/// held to the range of a given one: a state written back may lie out to
/// 1e15 m, where the body's first step used to be NaN.
#[test]
fn a_body_rests_on_its_points_only_within_the_world() {
    let mut w = world3();
    let far = [
        Vec2::new(-1.0e15, 0.0),
        Vec2::new(1.0e15, 0.0),
        Vec2::new(0.0, 1.0e15),
    ];
    w.set_state(&far, &[Vec2::ZERO; 3]).unwrap();
    let before = w.clone();
    expect_err(
        w.add_body(Body::new(handles(&[0, 1, 2]))),
        WorldError::OutOfRange {
            item: Item::Body(0),
            field: "rest (the points' positions)",
            value: -1.0e15f32 as f64,
            expected: "|x|, |y| <= 1e7 m",
        },
        "body 0",
    );
    assert_eq!(w, before, "nothing was added");
    // Within the square the same points make a body that steps.
    let near = [Vec2::ZERO, Vec2::new(1.0e7, 0.0), Vec2::new(0.0, 1.0e7)];
    w.set_state(&near, &[Vec2::ZERO; 3]).unwrap();
    w.add_body(Body::new(handles(&[0, 1, 2]))).unwrap();
    let mut cpu = CpuSolver::new(&w).unwrap();
    cpu.step();
    assert!(cpu.positions().iter().flatten().all(|x| x.is_finite()));
}

/// The largest geometry the bounds accept steps without NaN: a box
/// spanning the world at the largest mass, spinning, and a spring of the
/// longest rest length between points a metre apart.
#[test]
fn the_largest_accepted_geometry_stays_finite() {
    let mut w = World::default();
    w.params.gravity = Vec2::ZERO;
    BoxShape::new(Vec2::ZERO, Vec2::splat(1.4e7))
        .rotation(0.3)
        .style(ShapeStyle {
            mass: softbody::world::MAX_MASS,
            vel: Vec2::new(1.0, 2.0),
            ..ShapeStyle::DEFAULT
        })
        .build(&mut w)
        .unwrap();
    run_finite(&w, 20);

    let mut w = World::default();
    w.params.gravity = Vec2::ZERO;
    let a = w.add_point(Point::new(Vec2::ZERO)).unwrap();
    let b = w.add_point(Point::new(Vec2::X)).unwrap();
    w.add_spring(Spring::new(a, b).rest_length(softbody::world::MAX_LENGTH))
        .unwrap();
    run_finite(&w, 20);
}

#[test]
fn non_finite_stiffness_and_damping() {
    let mut w = world3();
    let s = || Spring::new(PointHandle(0), PointHandle(1));
    let b = || Body::new(handles(&[0, 1, 2]));
    for bad in NON_FINITE {
        for (spring, field) in [
            (s().stiffness(bad), "stiffness"),
            (s().damping(bad), "damping"),
        ] {
            expect_err(
                w.add_spring(spring),
                WorldError::NonFinite {
                    item: Item::Spring(0),
                    field,
                },
                "spring 0",
            );
        }
        for (body, field) in [
            (b().stiffness(bad), "stiffness"),
            (b().damping(bad), "damping"),
        ] {
            expect_err(
                w.add_body(body),
                WorldError::NonFinite {
                    item: Item::Body(0),
                    field,
                },
                "body 0",
            );
        }
    }
}

#[test]
fn non_finite_body_rest_shape() {
    let mut w = world3();
    for bad in NON_FINITE {
        expect_err(
            w.add_body(Body::new(handles(&[0, 1])).rest(vec![Vec2::ZERO, Vec2::new(bad, 1.0)])),
            WorldError::NonFinite {
                item: Item::Body(0),
                field: "rest",
            },
            "body 0",
        );
    }
}

#[test]
fn non_finite_planet() {
    let mut w = World::default();
    for bad in NON_FINITE {
        expect_err(
            w.add_planet(Planet::new(Vec2::new(0.0, bad), 1.0)),
            WorldError::NonFinite {
                item: Item::Planet(0),
                field: "center",
            },
            "planet 0",
        );
        expect_err(
            w.add_planet(Planet::new(Vec2::ZERO, bad)),
            WorldError::NonFinite {
                item: Item::Planet(0),
                field: "radius",
            },
            "planet 0",
        );
    }
    assert!(w.planets().is_empty());
}

#[test]
fn non_finite_half_plane() {
    let mut w = World::default();
    for bad in NON_FINITE {
        expect_err(
            w.add_plane(HalfPlane::new(Vec2::new(bad, 1.0), 0.0)),
            WorldError::NonFinite {
                item: Item::Plane(0),
                field: "normal",
            },
            "plane 0",
        );
        expect_err(
            w.add_plane(HalfPlane::new(Vec2::Y, bad)),
            WorldError::NonFinite {
                item: Item::Plane(0),
                field: "offset",
            },
            "plane 0",
        );
    }
    assert!(w.planes().is_empty());
}

#[test]
fn non_finite_material() {
    let mut w = World::default();
    for bad in NON_FINITE {
        expect_err(
            w.add_material(Material {
                elasticity: Some(bad),
                friction: None,
                ..Material::DEFAULT
            }),
            WorldError::NonFinite {
                item: Item::Material(1),
                field: "elasticity",
            },
            "material 1",
        );
        expect_err(
            w.add_material(Material {
                elasticity: None,
                friction: Some(bad),
                ..Material::DEFAULT
            }),
            WorldError::NonFinite {
                item: Item::Material(1),
                field: "friction",
            },
            "material 1",
        );
    }
}

#[test]
fn negative_mass() {
    let mut w = world3();
    expect_err(
        w.add_point(Point::new(Vec2::ZERO).mass(-1.0)),
        WorldError::Negative {
            item: Item::Point(3),
            field: "mass",
            value: -1.0,
        },
        "point 3",
    );
}

#[test]
fn negative_planet_radius() {
    let mut w = World::default();
    expect_err(
        w.add_planet(Planet::new(Vec2::ZERO, -2.0)),
        WorldError::Negative {
            item: Item::Planet(0),
            field: "radius",
            value: -2.0,
        },
        "planet 0",
    );
}

#[test]
fn negative_spring_and_body_settings() {
    let mut w = world3();
    let s = || Spring::new(PointHandle(0), PointHandle(1));
    for (spring, field) in [
        (s().stiffness(-1.0), "stiffness"),
        (s().damping(-1.0), "damping"),
        (s().rest_length(-1.0), "rest_length"),
    ] {
        expect_err(
            w.add_spring(spring),
            WorldError::Negative {
                item: Item::Spring(0),
                field,
                value: -1.0,
            },
            "spring 0",
        );
    }
    let b = || Body::new(handles(&[0, 1, 2]));
    for (body, field) in [
        (b().stiffness(-1.0), "stiffness"),
        (b().damping(-1.0), "damping"),
    ] {
        expect_err(
            w.add_body(body),
            WorldError::Negative {
                item: Item::Body(0),
                field,
                value: -1.0,
            },
            "body 0",
        );
    }
}

#[test]
fn negative_friction() {
    let mut w = World::default();
    expect_err(
        w.add_material(Material {
            elasticity: None,
            friction: Some(-0.5),
            ..Material::DEFAULT
        }),
        WorldError::Negative {
            item: Item::Material(1),
            field: "friction",
            value: -0.5,
        },
        "material 1",
    );
}

#[test]
fn elasticity_outside_unit_interval() {
    let mut w = World::default();
    for e in [-0.1f32, 1.1, 1.0e9] {
        expect_err(
            w.add_material(Material {
                elasticity: Some(e),
                friction: None,
                ..Material::DEFAULT
            }),
            WorldError::OutOfRange {
                item: Item::Material(1),
                field: "elasticity",
                value: e as f64,
                expected: "0..=1",
            },
            "material 1",
        );
        let params = Params {
            elasticity: e,
            ..Params::default()
        };
        expect_err(
            params.validate(),
            WorldError::OutOfRange {
                item: Item::Params,
                field: "elasticity",
                value: e as f64,
                expected: "0..=1",
            },
            "params",
        );
    }
    for e in [0.0, 1.0] {
        w.add_material(Material {
            elasticity: Some(e),
            friction: None,
            ..Material::DEFAULT
        })
        .unwrap();
    }
}

#[test]
fn zero_length_spring_between_coincident_points() {
    let mut w = world3();
    let a = w.add_point(Point::new(Vec2::X)).unwrap();
    expect_err(
        w.add_spring(Spring::new(PointHandle(1), a)),
        WorldError::ZeroLengthSpring {
            item: Item::Spring(0),
            a: 1,
            b: 3,
        },
        "spring 0",
    );
    // An explicit zero rest length between coincident points is no better.
    expect_err(
        w.add_spring(Spring::new(PointHandle(1), a).rest_length(0.0)),
        WorldError::ZeroLengthSpring {
            item: Item::Spring(0),
            a: 1,
            b: 3,
        },
        "spring 0",
    );
    // An explicit positive rest length gives the spring a length to restore.
    w.add_spring(Spring::new(PointHandle(1), a).rest_length(0.5))
        .unwrap();
}

#[test]
fn spring_from_a_point_to_itself() {
    let mut w = world3();
    expect_err(
        w.add_spring(Spring::new(PointHandle(2), PointHandle(2))),
        WorldError::SelfSpring {
            item: Item::Spring(0),
            a: 2,
        },
        "spring 0",
    );
}

fn degenerate(reason: &str) -> WorldError {
    WorldError::DegenerateBody {
        item: Item::Body(0),
        reason: reason.into(),
    }
}

#[test]
fn body_with_one_point() {
    let mut w = world3();
    expect_err(
        w.add_body(Body::new(handles(&[1]))),
        degenerate("needs at least 2 distinct points, has 1"),
        "body 0",
    );
    expect_err(
        w.add_body(Body::new(Vec::new())),
        degenerate("needs at least 2 distinct points, has 0"),
        "body 0",
    );
}

#[test]
fn body_listing_a_point_twice() {
    let mut w = world3();
    expect_err(
        w.add_body(Body::new(handles(&[2, 2]))),
        degenerate("point 2 is listed twice"),
        "body 0",
    );
    expect_err(
        w.add_body(Body::new(handles(&[0, 1, 2, 1]))),
        degenerate("point 1 is listed twice"),
        "body 0",
    );
}

#[test]
fn body_whose_rest_positions_are_all_equal() {
    let mut w = world3();
    expect_err(
        w.add_body(Body::new(handles(&[0, 1, 2])).rest(vec![Vec2::ONE; 3])),
        degenerate("rest shape has fewer than 2 distinct positions"),
        "body 0",
    );
    // The default rest shape of coincident points.
    let a = w.add_point(Point::new(Vec2::splat(5.0))).unwrap();
    let b = w.add_point(Point::new(Vec2::splat(5.0))).unwrap();
    expect_err(
        w.add_body(Body::new(vec![a, b])),
        degenerate("rest shape has fewer than 2 distinct positions"),
        "body 0",
    );
}

#[test]
fn body_rest_shape_of_the_wrong_length() {
    let mut w = world3();
    expect_err(
        w.add_body(Body::new(handles(&[0, 1, 2])).rest(vec![Vec2::ZERO, Vec2::X])),
        degenerate("rest shape has 2 positions for 3 points"),
        "body 0",
    );
    expect_err(
        w.add_body(Body::new(handles(&[0, 1])).rest(vec![Vec2::ZERO, Vec2::X, Vec2::Y])),
        degenerate("rest shape has 3 positions for 2 points"),
        "body 0",
    );
}

#[test]
fn body_boundary_with_fewer_than_3_points() {
    let mut w = world3();
    let b = || Body::new(handles(&[0, 1, 2]));
    expect_err(
        w.add_body(b().boundary(handles(&[0, 1]))),
        degenerate("boundary needs at least 3 points, has 2"),
        "body 0",
    );
    expect_err(
        w.add_body(b().boundary(Vec::new())),
        degenerate("boundary needs at least 3 points, has 0"),
        "body 0",
    );
    // A 2-point body has no outline of its own, and cannot be given one.
    expect_err(
        w.add_body(Body::new(handles(&[0, 1])).boundary(handles(&[0, 1]))),
        degenerate("boundary needs at least 3 points, has 2"),
        "body 0",
    );
    assert!(w.bodies().is_empty());
}

#[test]
fn body_boundary_listing_a_point_twice() {
    let mut w = world3();
    w.add_point(Point::new(Vec2::ONE)).unwrap();
    let b = || Body::new(handles(&[0, 1, 3, 2]));
    expect_err(
        w.add_body(b().boundary(handles(&[0, 1, 1]))),
        degenerate("boundary lists point 1 twice"),
        "body 0",
    );
    expect_err(
        w.add_body(b().boundary(handles(&[2, 0, 1, 3, 2]))),
        degenerate("boundary lists point 2 twice"),
        "body 0",
    );
    assert!(w.bodies().is_empty());
}

#[test]
fn body_boundary_point_not_in_the_body() {
    let mut w = world3();
    w.add_point(Point::new(Vec2::ONE)).unwrap();
    let b = || Body::new(handles(&[0, 1, 2]));
    // Point 3 exists, but belongs to no body.
    expect_err(
        w.add_body(b().boundary(handles(&[0, 1, 3]))),
        degenerate("boundary point 3 is not one of the body's points"),
        "body 0",
    );
    // A point that does not exist is no member either.
    expect_err(
        w.add_body(b().boundary(handles(&[0, 9, 1]))),
        degenerate("boundary point 9 is not one of the body's points"),
        "body 0",
    );
    assert!(w.bodies().is_empty());
    // An outline through some of the body's points, in any order, is fine.
    let h = w
        .add_body(Body::new(handles(&[3, 0, 1, 2])).boundary(handles(&[0, 1, 3])))
        .unwrap();
    assert_eq!(w.bodies()[h.index()].outline(), &handles(&[0, 1, 3])[..]);
}

#[test]
fn half_plane_with_zero_normal() {
    let mut w = World::default();
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    expect_err(
        w.add_plane(HalfPlane::new(Vec2::ZERO, 1.0)),
        WorldError::ZeroNormal {
            item: Item::Plane(1),
        },
        "plane 1",
    );
    // Normals are normalised.
    let h = w
        .add_plane(HalfPlane::new(Vec2::new(0.0, 3.0), 1.0))
        .unwrap();
    assert_eq!(w.planes()[h.index()].normal, Vec2::Y);
}

#[test]
fn half_plane_normal_of_extreme_magnitude() {
    let mut w = World::default();
    for n in [Vec2::new(0.0, 1.0e20), Vec2::new(1.0e-25, 0.0)] {
        let h = w.add_plane(HalfPlane::new(n, 0.0)).unwrap();
        assert!((w.planes()[h.index()].normal.length() - 1.0).abs() < 1e-6);
    }
}

#[test]
fn mass_outside_its_range_is_refused() {
    // 1e-45: its inverse is infinite in f32; 1e13: weighted sums over a large
    // body would approach f32 overflow. Both are refused when added.
    for mass in [1.0e-45f32, 1.0e-13, 1.0e13, f32::MAX] {
        let mut w = world3();
        let want = WorldError::OutOfRange {
            item: Item::Point(3),
            field: "mass",
            value: mass as f64,
            expected: "0 (pinned) or 1e-12..=1e12",
        };
        expect_err(
            w.add_point(Point::new(Vec2::ONE).mass(mass)),
            want,
            "point 3",
        );
        assert_eq!(w.points().len(), 3, "nothing was added");
    }
    // The bounds themselves are accepted.
    let mut w = world3();
    w.add_point(Point::new(Vec2::ONE).mass(softbody::MIN_MASS))
        .unwrap();
    w.add_point(Point::new(Vec2::ONE).mass(softbody::MAX_MASS))
        .unwrap();
    CpuSolver::new(&w).unwrap();
}

#[test]
fn more_colliders_than_the_tables_hold() {
    let mut w = World::default();
    for i in 0..softbody::layout::MAX_PLANETS {
        w.add_planet(Planet::new(Vec2::new(i as f32, 0.0), 1.0))
            .unwrap();
    }
    let err = w.add_planet(Planet::new(Vec2::ZERO, 1.0)).unwrap_err();
    assert_eq!(
        err,
        WorldError::TooMany {
            what: "planets",
            count: softbody::layout::MAX_PLANETS as u64 + 1,
            limit: softbody::layout::MAX_PLANETS as u64,
        }
    );
    assert!(err.to_string().contains("planets"), "{err}");
    for _ in 0..softbody::layout::MAX_PLANES {
        w.add_plane(HalfPlane::floor(0.0)).unwrap();
    }
    assert!(matches!(
        w.add_plane(HalfPlane::floor(0.0)),
        Err(WorldError::TooMany { what: "planes", .. })
    ));
    // A full table still runs.
    let mut s = CpuSolver::new(&w).unwrap();
    s.step();
}

#[test]
fn an_unknown_material_resolves_to_none() {
    let w = world3();
    let m = w.try_resolve_material(MaterialHandle(0)).unwrap();
    assert_eq!(
        (
            m.elasticity,
            m.friction,
            m.static_friction,
            m.dynamic_friction
        ),
        (
            w.params.elasticity,
            w.params.friction,
            w.params.static_friction,
            w.params.dynamic_friction
        )
    );
    assert_eq!(w.try_resolve_material(MaterialHandle(5)), None);
}
