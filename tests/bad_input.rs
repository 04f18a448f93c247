//! Every bad input the spec names is refused with a typed error that names
//! its item, and degenerate geometry that arises at run time never produces
//! NaN on the CPU path.

use std::fmt::Debug;

mod common;

use common::run_finite;
use softbody::Item;
use softbody::pack::Packed;
use softbody::prelude::*;

const NON_FINITE: [f32; 3] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY];

/// Asserts the exact error, and that its message names the item.
#[track_caller]
fn expect_err<T: Debug>(result: Result<T, WorldError>, want: WorldError, names: &str) {
    let err = result.expect_err("accepted a bad input");
    assert_eq!(err, want);
    let msg = err.to_string();
    assert!(msg.contains(names), "{msg:?} does not name {names:?}");
}

/// Points 0, 1, 2 at (0, 0), (1, 0), (0, 1): the next point is "point 3".
fn world3() -> World {
    let mut w = World::default();
    for p in [Vec2::ZERO, Vec2::X, Vec2::Y] {
        w.add_point(Point::new(p)).unwrap();
    }
    w
}

fn handles(ids: &[u32]) -> Vec<PointHandle> {
    ids.iter().map(|&i| PointHandle(i)).collect()
}

// ---------------------------------------------------------------------------
// Out-of-range indices.

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

// ---------------------------------------------------------------------------
// NaN and infinities.

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

// ---------------------------------------------------------------------------
// Negative values.

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

// ---------------------------------------------------------------------------
// Degenerate springs, bodies and planes.

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

// ---------------------------------------------------------------------------
// Invalid parameters, through every entry point.

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

// ---------------------------------------------------------------------------
// A running solver's state, checkpoints and measurements.

/// A NaN or infinite state is refused by the solvers as by the world (it
/// used to be taken, and spread to every linked point in one step), and so
/// is a checkpoint holding one: it is neither written nor restored.
#[test]
fn non_finite_state_is_refused_by_the_solvers_and_checkpoints() {
    use softbody::checkpoint::{Checkpoint, CheckpointError};
    let mut w = world3();
    w.add_spring(Spring::new(PointHandle(0), PointHandle(1)))
        .unwrap();
    let mut cpu = CpuSolver::new(&w).unwrap();
    let good = (cpu.positions().to_vec(), cpu.velocities().to_vec());
    for bad in NON_FINITE {
        let mut pos = good.0.clone();
        pos[2] = [0.0, bad];
        expect_err(
            cpu.set_state(&pos, &good.1),
            WorldError::NonFinite {
                item: Item::Point(2),
                field: "pos",
            },
            "point 2",
        );
        let mut vel = good.1.clone();
        vel[1] = [bad, 0.0];
        expect_err(
            cpu.set_state(&good.0, &vel),
            WorldError::NonFinite {
                item: Item::Point(1),
                field: "vel",
            },
            "point 1",
        );
        let saved = Checkpoint {
            vel,
            ..Checkpoint::of_cpu(&cpu, 0.0)
        };
        for err in [
            saved.to_bytes().unwrap_err(),
            saved.restore_cpu(&mut cpu).unwrap_err(),
        ] {
            assert!(
                matches!(
                    err,
                    CheckpointError::Solver(SolverError::World(WorldError::NonFinite { .. }))
                ),
                "{err:?}"
            );
        }
    }
    assert_eq!(cpu.positions(), &good.0[..], "nothing was taken");
    assert_eq!(cpu.velocities(), &good.1[..]);

    let Some(ctx) = common::gpu() else { return };
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &w).unwrap();
    let mut pos = good.0.clone();
    pos[0] = [f32::NAN, 0.0];
    let err = gpu.set_state(&ctx.queue, &pos, &good.1).unwrap_err();
    assert!(
        matches!(err, SolverError::World(WorldError::NonFinite { .. })),
        "{err:?}"
    );
}

/// A checkpoint whose positions and velocities differ in length is an
/// error, not a file with the shorter of the two (which it used to write).
#[test]
fn checkpoint_with_unequal_state_lengths_is_refused() {
    use softbody::checkpoint::{Checkpoint, CheckpointError};
    let cpu = CpuSolver::new(&world3()).unwrap();
    let mut saved = Checkpoint::of_cpu(&cpu, 0.0);
    saved.vel.pop();
    let err = saved.to_bytes().unwrap_err();
    assert!(matches!(err, CheckpointError::Format(_)), "{err:?}");
    assert!(
        err.to_string().contains("3 positions but 2 velocities"),
        "{err}"
    );
    let path = std::env::temp_dir().join(format!("softbody-bad-{}.ckpt", std::process::id()));
    assert!(saved.write(&path).is_err());
    assert!(!path.exists(), "nothing written");
}

/// The diagnostics take a state of the packed world's length (they used to
/// panic on a short one, or quietly sum a prefix).
#[test]
fn diagnostics_of_a_state_of_the_wrong_length_are_refused() {
    use softbody::diagnostics::{body_frames, totals};
    let mut w = world3();
    w.add_body(Body::new(handles(&[0, 1, 2]))).unwrap();
    let p = Packed::from_world(&w).unwrap();
    let (pos, vel) = (p.pos.clone(), p.vel.clone());
    let want = WorldError::LengthMismatch {
        what: "positions",
        expected: 3,
        got: 2,
    };
    expect_err(body_frames(&p, &pos[..2], &vel), want.clone(), "positions");
    expect_err(totals(&p, Vec2::ZERO, &pos[..2], &vel), want, "positions");
    assert_eq!(body_frames(&p, &pos, &vel).unwrap().len(), 1);
    assert!(totals(&p, Vec2::ZERO, &pos, &vel).unwrap().finite);
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

/// A solver's buffers and pipelines live on the device it was created
/// with. Stepping it, reading it back or editing it with another device or
/// queue (here a second device of the same adapter) used to panic inside
/// wgpu ("Cannot get non-existent resource"); each call now refuses with
/// `WrongDevice`, having done nothing.
#[test]
fn a_solver_refuses_another_device() {
    let Some(ctx) = common::gpu() else { return };
    let (device, queue) = pollster::block_on(softbody::gpu::request_device(&ctx.adapter)).unwrap();
    let other = softbody::gpu::GpuContext {
        instance: ctx.instance.clone(),
        adapter: ctx.adapter.clone(),
        device,
        queue,
    };
    let mut w = world3();
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &w).unwrap();
    let wrong = |e: SolverError, what: &str| {
        assert!(
            matches!(e, SolverError::WrongDevice { what: w, .. } if w == what),
            "{e}"
        );
    };
    wrong(
        gpu.step(&other.device, &ctx.queue, 1).unwrap_err(),
        "device",
    );
    wrong(gpu.step(&ctx.device, &other.queue, 1).unwrap_err(), "queue");
    wrong(
        gpu.read_state(&other.device, &other.queue).unwrap_err(),
        "device",
    );
    wrong(gpu.wait(&other.device).unwrap_err(), "device");
    let state = gpu.read_state(&ctx.device, &ctx.queue).unwrap();
    wrong(
        gpu.set_state(&other.queue, &state.pos, &state.vel)
            .unwrap_err(),
        "queue",
    );
    wrong(
        gpu.set_params(&other.queue, Params::default()).unwrap_err(),
        "queue",
    );
    BoxShape::new(Vec2::new(5.0, 5.0), Vec2::ONE)
        .build(&mut w)
        .unwrap();
    wrong(
        gpu.sync(&other.device, &other.queue, &w).unwrap_err(),
        "device",
    );
    assert_eq!(gpu.num_points(), 3, "the refused sync changed nothing");
    assert_eq!(gpu.steps(), 0, "the refused steps ran nothing");
    // Its own device and queue still work.
    gpu.step(&ctx.device, &ctx.queue, 1).unwrap();
    gpu.sync(&ctx.device, &ctx.queue, &w).unwrap();
    assert_eq!(gpu.num_points(), 7);
}

/// `Packed`'s fields are public, and `GpuSolver::from_packed` takes one:
/// arrays that do not fit each other (an index past its array, a dropped
/// point, counts that disagree) used to panic on an index out of bounds.
/// They are refused with `InconsistentPacked`; what `Packed::from_world`
/// makes passes.
#[test]
fn an_inconsistent_packed_world_is_refused() {
    let mut scene = softbody::scenes::default_scene(60).unwrap();
    Rope::new(Vec2::new(0.0, 30.0), Vec2::new(3.0, 30.0), 6)
        .spring_kind(SpringKind::Rod)
        .build(&mut scene)
        .unwrap();
    scene.add_point(Point::new(Vec2::new(0.0, 40.0))).unwrap();
    for world in [World::default(), world3(), scene.clone()] {
        Packed::from_world(&world)
            .unwrap()
            .check_consistent()
            .unwrap();
    }
    let good = Packed::from_world(&scene).unwrap();
    assert!(good.num_rods > 0 && good.sim.num_free > 0 && !good.outlines.is_empty());
    type Corrupt = fn(&mut Packed);
    let corruptions: [(&str, Corrupt); 17] = [
        ("a spring's end", |p| p.springs[0].a = 1 << 20),
        ("a point dropped", |p| {
            p.pos.pop();
        }),
        ("a velocity dropped", |p| {
            p.vel.pop();
        }),
        ("a material", |p| p.point_info[0].material = 1000),
        ("a spring record", |p| {
            p.spring_halves.records[0].other = 1 << 20
        }),
        ("a spring offset", |p| p.spring_halves.offsets[1] = 1 << 20),
        ("a rod record", |p| p.rod_halves.records[0].other = 1 << 20),
        ("a body's first member", |p| p.bodies[0].first = 1 << 20),
        ("a member's point", |p| p.members[0].point = 1 << 20),
        ("a point member's body", |p| {
            p.point_members.records[0].body = 1 << 20
        }),
        ("the body order", |p| p.body_order[0] = p.body_order[1]),
        ("a collider", |p| p.colliders[0] = 1 << 20),
        ("an outline point", |p| p.outline_points[0] = 1 << 20),
        ("the point count", |p| p.sim.num_points += 1),
        ("the rod count", |p| p.num_rods += 1),
        // More colliders than the uniform block holds (the upload used to
        // panic slicing them into it).
        ("too many planets", |p| {
            p.planets = vec![p.planets[0]; softbody::layout::MAX_PLANETS + 1];
            p.sim.num_planets = p.planets.len() as u32;
        }),
        ("too many planes", |p| {
            p.planes = vec![p.planes[0]; softbody::layout::MAX_PLANES + 1];
            p.sim.num_planes = p.planes.len() as u32;
        }),
    ];
    let ctx = common::gpu();
    for (what, corrupt) in corruptions {
        let mut p = good.clone();
        corrupt(&mut p);
        let e = p.check_consistent().unwrap_err();
        assert!(
            matches!(e, WorldError::InconsistentPacked(_)),
            "{what}: {e}"
        );
        if let Some(ctx) = &ctx {
            let e = GpuSolver::from_packed(&ctx.device, &ctx.queue, &scene.params, &p)
                .err()
                .unwrap();
            assert!(
                matches!(e, SolverError::World(WorldError::InconsistentPacked(_))),
                "{what}: {e}"
            );
        }
    }
}

/// The step count saturates: `set_steps(u64::MAX)` then a step used to
/// wrap the count to 0 (and panic with overflow checks).
#[test]
fn the_step_count_does_not_wrap() {
    let mut cpu = CpuSolver::new(&world3()).unwrap();
    cpu.set_steps(u64::MAX);
    cpu.step();
    assert_eq!(cpu.steps(), u64::MAX);
    if let Some(ctx) = common::gpu() {
        let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world3()).unwrap();
        gpu.set_steps(u64::MAX);
        gpu.step(&ctx.device, &ctx.queue, 2).unwrap();
        assert_eq!(gpu.steps(), u64::MAX);
    }
}

/// A checkpoint of another scene with as many points is refused by both
/// solvers (`restore_gpu` checks the scene hash like `restore_cpu`).
#[test]
fn a_checkpoint_of_another_scene_is_refused_on_both_paths() {
    use softbody::checkpoint::{Checkpoint, CheckpointError};
    let plain = world3();
    let mut linked = world3();
    linked
        .add_spring(Spring::new(PointHandle(0), PointHandle(1)))
        .unwrap();
    let saved = Checkpoint::of_cpu(&CpuSolver::new(&plain).unwrap(), 0.0);
    let mut cpu = CpuSolver::new(&linked).unwrap();
    let want = (cpu.scene_hash(), saved.scene_hash);
    assert_ne!(want.0, want.1);
    let mismatch = |e: CheckpointError| match e {
        CheckpointError::SceneMismatch { expected, found } => assert_eq!((expected, found), want),
        other => panic!("{other:?}"),
    };
    mismatch(saved.restore_cpu(&mut cpu).unwrap_err());
    let Some(ctx) = common::gpu() else { return };
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &linked).unwrap();
    mismatch(saved.restore_gpu(&mut gpu, &ctx.queue).unwrap_err());
}
