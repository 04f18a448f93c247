//! The shape builders: what they add, in which order and orientation, that
//! the result packs and simulates, and that bad arguments are refused.

mod common;

use std::collections::HashSet;
use std::f32::consts::{FRAC_PI_2, PI, TAU};
use std::time::{Duration, Instant};

use softbody::Item;
use softbody::pack::Packed;
use softbody::prelude::*;

fn positions(world: &World, points: &[PointHandle]) -> Vec<Vec2> {
    points.iter().map(|&h| world.point(h).pos).collect()
}

/// Shoelace formula: positive for a counter-clockwise polygon (y up).
fn signed_area(poly: &[Vec2]) -> f32 {
    let n = poly.len();
    (0..n)
        .map(|i| {
            let (a, b) = (poly[i], poly[(i + 1) % n]);
            a.x * b.y - a.y * b.x
        })
        .sum::<f32>()
        * 0.5
}

fn body_polygon(world: &World, b: BodyHandle) -> Vec<Vec2> {
    positions(world, &world.bodies()[b.index()].points)
}

fn spring_pair(world: &World, s: SpringHandle) -> (u32, u32) {
    let s = world.springs()[s.index()];
    (s.a.0.min(s.b.0), s.a.0.max(s.b.0))
}

fn close(a: Vec2, b: Vec2) -> bool {
    (a - b).length() < 1e-5
}

// ---------------------------------------------------------------------------
// Counts, order, orientation.

#[test]
fn box_has_four_ccw_points_one_body_six_springs() {
    let mut world = World::default();
    let s = BoxShape::new(Vec2::new(1.0, 2.0), Vec2::new(2.0, 1.0))
        .build(&mut world)
        .unwrap();
    assert_eq!((s.points.len(), s.springs.len(), s.bodies.len()), (4, 6, 1));
    assert_eq!(world.bodies()[0].points, s.points);
    let p = positions(&world, &s.points);
    assert_eq!(
        p,
        vec![
            Vec2::new(0.0, 1.5),
            Vec2::new(2.0, 1.5),
            Vec2::new(2.0, 2.5),
            Vec2::new(0.0, 2.5)
        ]
    );
    assert!((signed_area(&p) - 2.0).abs() < 1e-5);
    let pairs: Vec<_> = s.springs.iter().map(|&h| spring_pair(&world, h)).collect();
    assert_eq!(pairs, vec![(0, 1), (1, 2), (2, 3), (0, 3), (0, 2), (1, 3)]);
    // Diagonals rest at the diagonal length.
    let diag = world.rest_lengths()[s.springs[4].index()];
    assert!((diag - 5.0f32.sqrt()).abs() < 1e-5);
}

#[test]
fn box_rotation_is_honoured() {
    let mut world = World::default();
    let center = Vec2::new(-1.0, 3.0);
    for angle in [0.3, FRAC_PI_2, PI, -2.0] {
        let s = BoxShape::new(center, Vec2::new(2.0, 1.0))
            .rotation(angle)
            .build(&mut world)
            .unwrap();
        let p = positions(&world, &s.points);
        let rot = Vec2::from_angle(angle);
        assert!(close(p[0], center + rot.rotate(Vec2::new(-1.0, -0.5))));
        assert!(close(p[2], center + rot.rotate(Vec2::new(1.0, 0.5))));
        // The bottom edge points along the rotated x axis.
        assert!(close((p[1] - p[0]) / 2.0, rot));
        assert!(signed_area(&p) > 0.0);
        assert!((signed_area(&p) - 2.0).abs() < 1e-4);
        let c = p.iter().copied().sum::<Vec2>() / 4.0;
        assert!(close(c, center));
    }
}

#[test]
fn box_options() {
    let mut world = World::default();
    let no_diag = BoxShape::new(Vec2::ZERO, Vec2::ONE)
        .diagonals(false)
        .build(&mut world)
        .unwrap();
    assert_eq!(no_diag.springs.len(), 4);
    let no_springs = BoxShape::new(Vec2::ZERO, Vec2::ONE)
        .springs(false)
        .build(&mut world)
        .unwrap();
    assert!(no_springs.springs.is_empty());
    assert_eq!(no_springs.bodies.len(), 1);

    let mat = world
        .add_material(Material {
            elasticity: Some(0.0),
            friction: None,
            ..Material::DEFAULT
        })
        .unwrap();
    let s = BoxShape::new(Vec2::ZERO, Vec2::ONE)
        .mass(2.5)
        .material(mat)
        .layers(0b10)
        .vel(Vec2::new(1.0, -1.0))
        .body_stiffness(100.0)
        .body_damping(2.0)
        .spring_kind(SpringKind::Soft)
        .spring_stiffness(50.0)
        .spring_damping(3.0)
        .build(&mut world)
        .unwrap();
    for &h in &s.points {
        let p = world.point(h);
        assert_eq!(
            (p.mass, p.material, p.layers, p.vel),
            (2.5, mat, 0b10, Vec2::new(1.0, -1.0))
        );
    }
    for &h in &s.springs {
        let sp = world.springs()[h.index()];
        assert_eq!(
            (sp.kind, sp.stiffness, sp.damping),
            (SpringKind::Soft, Some(50.0), Some(3.0))
        );
    }
    let b = &world.bodies()[s.bodies[0].index()];
    assert_eq!((b.stiffness, b.damping), (Some(100.0), Some(2.0)));

    // The same through a style value.
    let style = ShapeStyle::new().mass(2.5).spring_kind(SpringKind::Rod);
    let t = BoxShape::new(Vec2::ZERO, Vec2::ONE)
        .style(style)
        .build(&mut world)
        .unwrap();
    assert_eq!(world.point(t.points[0]).mass, 2.5);
    assert_eq!(world.springs()[t.springs[0].index()].kind, SpringKind::Rod);
    // Defaults follow the params.
    let d = BoxShape::new(Vec2::ZERO, Vec2::ONE)
        .build(&mut world)
        .unwrap();
    let sp = world.springs()[d.springs[0].index()];
    assert_eq!(
        (sp.kind, sp.stiffness, sp.damping),
        (SpringKind::Spring, None, None)
    );
    assert_eq!(world.bodies()[d.bodies[0].index()].stiffness, None);
    assert_eq!(world.point(d.points[0]).mass, 1.0);
    assert_eq!(ShapeStyle::default(), ShapeStyle::DEFAULT);
}

#[test]
fn grid_2x2_shares_corners() {
    let mut world = World::default();
    let s = BoxGrid::new(2, 2, Vec2::ONE).build(&mut world).unwrap();
    assert_eq!(s.points.len(), 9);
    assert_eq!(s.bodies.len(), 4);
    assert_eq!(s.springs.len(), 12 + 8);
    assert_eq!(world.points().len(), 9);

    // Every edge once, every diagonal once: 20 distinct pairs.
    let pairs: HashSet<_> = s.springs.iter().map(|&h| spring_pair(&world, h)).collect();
    assert_eq!(pairs.len(), 20);
    // The centre corner (1, 1) = point 4 is in all 4 bodies, the corners of
    // the grid in one, the edge midpoints in two.
    let memberships = |p: u32| {
        world
            .bodies()
            .iter()
            .filter(|b| b.points.contains(&PointHandle(p)))
            .count()
    };
    assert_eq!(memberships(4), 4);
    for p in [0, 2, 6, 8] {
        assert_eq!(memberships(p), 1);
    }
    for p in [1, 3, 5, 7] {
        assert_eq!(memberships(p), 2);
    }
    // Edges: 12 of length 1, diagonals: 8 of length sqrt 2.
    let rest = world.rest_lengths();
    assert_eq!(rest.iter().filter(|&&l| (l - 1.0).abs() < 1e-6).count(), 12);
    let d = 2.0f32.sqrt();
    assert_eq!(rest.iter().filter(|&&l| (l - d).abs() < 1e-6).count(), 8);
    // Each cell is CCW with the cell's area; centred at the origin.
    for &b in &s.bodies {
        let poly = body_polygon(&world, b);
        assert_eq!(poly.len(), 4);
        assert!((signed_area(&poly) - 1.0).abs() < 1e-6);
    }
    let c = positions(&world, &s.points).iter().copied().sum::<Vec2>() / 9.0;
    assert!(close(c, Vec2::ZERO));
    // Documented layout: corner (i, j) = points[j * 3 + i].
    assert_eq!(world.point(s.points[5]).pos, Vec2::new(1.0, 0.0));
    assert_eq!(
        world.bodies()[s.bodies[3].index()].points,
        vec![
            PointHandle(4),
            PointHandle(5),
            PointHandle(8),
            PointHandle(7)
        ]
    );
}

#[test]
fn grid_counts_for_many_sizes() {
    for (nx, ny) in [(1, 1), (1, 5), (4, 1), (3, 2), (7, 9)] {
        let mut world = World::default();
        let s = BoxGrid::new(nx, ny, Vec2::new(0.5, 0.25))
            .build(&mut world)
            .unwrap();
        let edges = nx * (ny + 1) + (nx + 1) * ny;
        assert_eq!(s.points.len(), (nx + 1) * (ny + 1));
        assert_eq!(s.bodies.len(), nx * ny);
        assert_eq!(s.springs.len(), edges + 2 * nx * ny);
        let pairs: HashSet<_> = s.springs.iter().map(|&h| spring_pair(&world, h)).collect();
        assert_eq!(pairs.len(), s.springs.len(), "a spring is duplicated");
        let mut w2 = World::default();
        let nd = BoxGrid::new(nx, ny, Vec2::ONE)
            .diagonals(false)
            .build(&mut w2)
            .unwrap();
        assert_eq!(nd.springs.len(), edges);
    }
}

#[test]
fn grid_origin_and_rotation() {
    let mut world = World::default();
    let origin = Vec2::new(2.0, -1.0);
    let angle = 0.7;
    let cell = Vec2::new(0.5, 0.25);
    let s = BoxGrid::new(3, 2, cell)
        .origin(origin)
        .rotation(angle)
        .build(&mut world)
        .unwrap();
    let p = positions(&world, &s.points);
    let rot = Vec2::from_angle(angle);
    assert_eq!(p[0], origin);
    // Corner (3, 0) and (0, 2).
    assert!(close(p[3], origin + rot.rotate(Vec2::new(1.5, 0.0))));
    assert!(close(p[2 * 4], origin + rot.rotate(Vec2::new(0.0, 0.5))));
    for &b in &s.bodies {
        let a = signed_area(&body_polygon(&world, b));
        assert!((a - 0.125).abs() < 1e-5, "cell area {a}");
    }

    let center = Vec2::new(-3.0, 4.0);
    let s = BoxGrid::new(3, 2, cell)
        .center(center)
        .rotation(angle)
        .build(&mut world)
        .unwrap();
    let p = positions(&world, &s.points);
    let c = p.iter().copied().sum::<Vec2>() / p.len() as f32;
    assert!(close(c, center));
    assert!(close(p[3] - p[0], rot.rotate(Vec2::new(1.5, 0.0))));
}

#[test]
fn wheel_layout() {
    let mut world = World::default();
    let center = Vec2::new(1.0, 2.0);
    let (r, n) = (0.5, 10);
    let s = Wheel::new(center, r, n)
        .rotation(0.25)
        .build(&mut world)
        .unwrap();
    assert_eq!(
        (s.points.len(), s.springs.len(), s.bodies.len()),
        (n + 1, 2 * n, 1)
    );
    let body = &world.bodies()[0];
    assert_eq!(body.points, s.points);
    let p = positions(&world, &s.points);
    assert_eq!(p[n], center);
    assert!(close(p[0], center + Vec2::from_angle(0.25) * r));
    for q in &p[..n] {
        assert!(((*q - center).length() - r).abs() < 1e-5);
    }
    let expect = 0.5 * n as f32 * r * r * (TAU / n as f32).sin();
    let rim = signed_area(&p[..n]);
    assert!((rim - expect).abs() < 1e-4, "rim area {rim} vs {expect}");
    // Rim springs, then spokes to the hub.
    let hub = s.points[n].0;
    for k in 0..n {
        assert_eq!(spring_pair(&world, s.springs[k]), {
            let (a, b) = (k as u32, ((k + 1) % n) as u32);
            (a.min(b), a.max(b))
        });
        assert_eq!(spring_pair(&world, s.springs[n + k]), (k as u32, hub));
    }

    let axle = Wheel::new(center, r, 3)
        .hub_mass(0.0)
        .mass(2.0)
        .build(&mut world)
        .unwrap();
    assert!(world.point(axle.points[3]).is_pinned());
    assert_eq!(world.point(axle.points[0]).mass, 2.0);
}

#[test]
fn blob_layout() {
    let mut world = World::default();
    let (r, n) = (2.0, 24);
    let s = Blob::new(Vec2::new(0.0, 5.0), r, n)
        .build(&mut world)
        .unwrap();
    assert_eq!((s.points.len(), s.springs.len(), s.bodies.len()), (n, n, 1));
    let poly = body_polygon(&world, s.bodies[0]);
    assert_eq!(poly.len(), n);
    let expect = 0.5 * n as f32 * r * r * (TAU / n as f32).sin();
    assert!((signed_area(&poly) - expect).abs() < 1e-3);

    let c = Blob::new(Vec2::ZERO, 1.0, 5)
        .center_point(true)
        .build(&mut world)
        .unwrap();
    assert_eq!(
        (c.points.len(), c.springs.len(), c.bodies.len()),
        (6, 10, 1)
    );
    assert_eq!(world.point(c.points[5]).pos, Vec2::ZERO);
    assert!(signed_area(&positions(&world, &c.points[..5])) > 0.0);
    assert_eq!(world.bodies()[c.bodies[0].index()].points, c.points);
}

#[test]
fn rope_layout() {
    let mut world = World::default();
    let (a, b) = (Vec2::new(-1.0, 2.0), Vec2::new(3.0, 0.0));
    let s = Rope::new(a, b, 5).build(&mut world).unwrap();
    assert_eq!((s.points.len(), s.springs.len(), s.bodies.len()), (5, 4, 0));
    let p = positions(&world, &s.points);
    assert_eq!((p[0], p[4]), (a, b));
    assert!(close(p[2], (a + b) / 2.0));
    let link = a.distance(b) / 4.0;
    for (k, &h) in s.springs.iter().enumerate() {
        assert_eq!(spring_pair(&world, h), (k as u32, k as u32 + 1));
        assert!((world.rest_lengths()[h.index()] - link).abs() < 1e-5);
        assert_eq!(world.springs()[h.index()].kind, SpringKind::Spring);
    }
    assert!(s.points.iter().all(|&h| !world.point(h).is_pinned()));

    let pinned = Rope::new(a, b, 2)
        .pin_first(true)
        .pin_last(true)
        .build(&mut world)
        .unwrap();
    assert!(world.point(pinned.points[0]).is_pinned());
    assert!(world.point(pinned.points[1]).is_pinned());
    let last = Rope::new(a, b, 3).pin_last(true).build(&mut world).unwrap();
    assert!(!world.point(last.points[0]).is_pinned());
    assert!(world.point(last.points[2]).is_pinned());
}

#[test]
fn handles_continue_after_existing_items() {
    let mut world = World::default();
    world.add_point(Point::new(Vec2::new(9.0, 9.0))).unwrap();
    let a = BoxShape::new(Vec2::ZERO, Vec2::ONE)
        .build(&mut world)
        .unwrap();
    let b = BoxGrid::new(1, 2, Vec2::ONE).build(&mut world).unwrap();
    assert_eq!(a.points[0], PointHandle(1));
    assert_eq!(b.points[0], PointHandle(5));
    assert_eq!(b.springs[0], SpringHandle(6));
    assert_eq!(b.bodies, vec![BodyHandle(1), BodyHandle(2)]);
    assert_eq!(world.bodies()[2].points[0], PointHandle(5 + 2));
}

// ---------------------------------------------------------------------------
// Outlines for body-body collisions, category and mask.

fn outline_polygon(world: &World, b: BodyHandle) -> Vec<Vec2> {
    positions(world, world.bodies()[b.index()].outline())
}

#[test]
fn wheel_and_centred_blob_outlines_are_the_rim() {
    let mut world = World::default();
    let (r, n) = (0.5, 10);
    let expect = 0.5 * n as f32 * r * r * (TAU / n as f32).sin();
    for rotation in [0.0, 0.25, -2.0, PI] {
        let wheel = Wheel::new(Vec2::new(1.0, 2.0), r, n)
            .rotation(rotation)
            .build(&mut world)
            .unwrap();
        let blob = Blob::new(Vec2::new(-3.0, 1.0), r, n)
            .rotation(rotation)
            .center_point(true)
            .build(&mut world)
            .unwrap();
        for s in [&wheel, &blob] {
            let body = &world.bodies()[s.bodies[0].index()];
            // The body holds the hub; its outline is the rim alone, in order.
            assert_eq!(body.points, s.points);
            assert_eq!(body.boundary.as_deref(), Some(&s.points[..n]));
            assert_eq!(body.outline(), &s.points[..n]);
            assert!(!body.outline().contains(&s.points[n]));
            let area = signed_area(&outline_polygon(&world, s.bodies[0]));
            assert!(area > 0.0, "rotation {rotation}: area {area}");
            assert!((area - expect).abs() < 1e-4, "area {area} vs {expect}");
        }
    }
    // The smallest wheel's outline is a triangle.
    let small = Wheel::new(Vec2::ZERO, 1.0, 3).build(&mut world).unwrap();
    assert_eq!(world.bodies()[small.bodies[0].index()].outline().len(), 3);
}

#[test]
fn bodies_without_interior_points_are_their_own_outline() {
    let mut world = World::default();
    for rotation in [0.0, 0.7, FRAC_PI_2, PI, -2.5] {
        let size = Vec2::new(2.0, 0.5);
        let b = BoxShape::new(Vec2::new(1.0, -1.0), size)
            .rotation(rotation)
            .build(&mut world)
            .unwrap();
        let body = &world.bodies()[b.bodies[0].index()];
        assert_eq!(body.boundary, None);
        assert_eq!(body.outline(), &b.points[..]);
        // Around the box, not across it: the whole area, counter-clockwise.
        let area = signed_area(&outline_polygon(&world, b.bodies[0]));
        assert!((area - size.x * size.y).abs() < 1e-5, "box area {area}");

        let cell = Vec2::new(0.5, 0.25);
        for grid in [
            BoxGrid::new(3, 2, cell).rotation(rotation),
            BoxGrid::new(1, 4, cell)
                .origin(Vec2::new(-2.0, 3.0))
                .rotation(rotation),
        ] {
            let g = grid.build(&mut world).unwrap();
            for &h in &g.bodies {
                let body = &world.bodies()[h.index()];
                assert_eq!(body.boundary, None);
                assert_eq!(body.outline(), &body.points[..]);
                let area = signed_area(&outline_polygon(&world, h));
                assert!((area - cell.x * cell.y).abs() < 1e-5, "cell area {area}");
            }
        }

        let blob = Blob::new(Vec2::ZERO, 1.0, 7)
            .rotation(rotation)
            .build(&mut world)
            .unwrap();
        let body = &world.bodies()[blob.bodies[0].index()];
        assert_eq!(body.boundary, None);
        assert_eq!(body.outline(), &blob.points[..]);
        assert!(signed_area(&outline_polygon(&world, blob.bodies[0])) > 0.0);
    }
}

#[test]
fn style_category_mask_and_material_reach_the_bodies() {
    let style = ShapeStyle::new();
    assert_eq!((style.category, style.mask), (1, ALL_LAYERS));

    let mut world = World::default();
    let m = world.add_material(Material::DEFAULT).unwrap();
    let defaults = every_shape(&mut world);
    for s in &defaults {
        for &b in &s.bodies {
            let body = &world.bodies()[b.index()];
            assert_eq!(body.category, 1);
            assert_eq!(body.mask, ALL_LAYERS);
            assert_eq!(body.material, MaterialHandle(0));
        }
    }

    let (category, mask) = (0b100, 0b011);
    let shapes = [
        BoxShape::new(Vec2::ZERO, Vec2::ONE)
            .category(category)
            .mask(mask)
            .material(m)
            .build(&mut world)
            .unwrap(),
        BoxGrid::new(2, 3, Vec2::ONE)
            .category(category)
            .mask(mask)
            .material(m)
            .build(&mut world)
            .unwrap(),
        Wheel::new(Vec2::ZERO, 1.0, 8)
            .category(category)
            .mask(mask)
            .material(m)
            .build(&mut world)
            .unwrap(),
        Blob::new(Vec2::ZERO, 1.0, 8)
            .center_point(true)
            .category(category)
            .mask(mask)
            .material(m)
            .build(&mut world)
            .unwrap(),
        Blob::new(Vec2::ZERO, 1.0, 8)
            .style(ShapeStyle::new().category(category).mask(mask).material(m))
            .build(&mut world)
            .unwrap(),
    ];
    for s in &shapes {
        assert!(!s.bodies.is_empty());
        for &b in &s.bodies {
            let body = &world.bodies()[b.index()];
            assert_eq!((body.category, body.mask), (category, mask));
            assert_eq!(body.material, m);
        }
        // Points keep their own layers (planets and planes).
        for &p in &s.points {
            assert_eq!(world.point(p).layers, ALL_LAYERS);
            assert_eq!(world.point(p).material, m);
        }
    }
    // A rope has no body; its style's category and mask are unused.
    let rope = Rope::new(Vec2::ZERO, Vec2::X, 4)
        .category(0)
        .mask(0)
        .build(&mut world)
        .unwrap();
    assert!(rope.bodies.is_empty());
}

// ---------------------------------------------------------------------------
// Packing and simulation.

fn every_shape(world: &mut World) -> Vec<Shape> {
    vec![
        BoxShape::new(Vec2::new(0.0, 1.0), Vec2::new(1.0, 0.5))
            .rotation(0.4)
            .build(world)
            .unwrap(),
        BoxGrid::new(3, 2, Vec2::splat(0.3))
            .center(Vec2::new(3.0, 1.5))
            .rotation(-0.2)
            .build(world)
            .unwrap(),
        Wheel::new(Vec2::new(-3.0, 1.0), 0.5, 12)
            .vel(Vec2::new(1.0, 0.0))
            .build(world)
            .unwrap(),
        Blob::new(Vec2::new(-6.0, 1.5), 0.6, 20)
            .build(world)
            .unwrap(),
        Blob::new(Vec2::new(6.0, 1.5), 0.6, 9)
            .center_point(true)
            .build(world)
            .unwrap(),
        Rope::new(Vec2::new(-2.0, 4.0), Vec2::new(2.0, 4.0), 11)
            .pin_first(true)
            .pin_last(true)
            .build(world)
            .unwrap(),
    ]
}

#[test]
fn shapes_pack() {
    let mut world = World::default();
    let shapes = every_shape(&mut world);
    let packed = Packed::from_world(&world).unwrap();
    let count = |f: fn(&Shape) -> usize| shapes.iter().map(f).sum::<usize>();
    assert_eq!(packed.pos.len(), count(|s| s.points.len()));
    assert_eq!(packed.springs.len(), count(|s| s.springs.len()));
    assert_eq!(packed.bodies.len(), count(|s| s.bodies.len()));
    assert_eq!(packed.sim.num_points as usize, world.points().len());
    // The pinned rope ends pack with zero inverse mass.
    let rope = shapes.last().unwrap();
    assert_eq!(packed.point_info[rope.points[0].index()].inv_mass, 0.0);
    assert_eq!(packed.point_info[rope.points[1].index()].inv_mass, 1.0);
}

#[track_caller]
fn assert_finite(solver: &CpuSolver) {
    common::assert_finite(solver, "");
}

/// Largest relative deviation of a shape's spring lengths from rest.
fn worst_stretch(world: &World, shape: &Shape, pos: &[Vec2]) -> f32 {
    shape
        .springs
        .iter()
        .map(|&h| {
            let s = world.springs()[h.index()];
            let rest = world.rest_lengths()[h.index()];
            (pos[s.a.index()].distance(pos[s.b.index()]) / rest - 1.0).abs()
        })
        .fold(0.0, f32::max)
}

fn area_ratio(world: &World, b: BodyHandle, pos: &[Vec2], rim: usize) -> f32 {
    let body = &world.bodies()[b.index()];
    let now: Vec<Vec2> = body.points[..rim].iter().map(|p| pos[p.index()]).collect();
    let rest = &world.rest_shapes()[b.index()][..rim];
    signed_area(&now) / signed_area(rest)
}

#[test]
fn shapes_keep_their_size_without_gravity() {
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    let shapes = every_shape(&mut world);
    // Give every point a random-ish kick so the shapes deform and recover.
    let pos: Vec<Vec2> = world.points().iter().map(|p| p.pos).collect();
    let vel: Vec<Vec2> = (0..pos.len())
        .map(|i| {
            let a = i as f32 * 2.399;
            Vec2::from_angle(a) * 0.5
        })
        .collect();
    world.set_state(&pos, &vel).unwrap();
    let mut solver = CpuSolver::new(&world).unwrap();
    for _ in 0..300 {
        solver.step();
    }
    assert_finite(&solver);
    let pos = solver.positions_vec2();
    for (k, shape) in shapes.iter().enumerate() {
        let is_rope = shape.bodies.is_empty();
        let tol = if is_rope { 0.25 } else { 0.1 };
        let stretch = worst_stretch(&world, shape, &pos);
        assert!(stretch < tol, "shape {k}: a spring is {stretch} off rest");
    }
}

/// Drops one shape onto the floor `y = 0` and lets it settle.
fn drop_and_settle(build: impl FnOnce(&mut World) -> Shape, rim: usize) {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let shape = build(&mut world);
    let mut solver = CpuSolver::new(&world).unwrap();
    let mut lowest = f32::INFINITY;
    for _ in 0..300 {
        solver.step();
        assert_finite(&solver);
        let y = solver
            .positions_vec2()
            .iter()
            .map(|p| p.y)
            .fold(f32::INFINITY, f32::min);
        lowest = lowest.min(y);
    }
    let pos = solver.positions_vec2();
    let vel = solver.velocities_vec2();
    // It landed and stays on the floor, without sinking through it.
    assert!(lowest > -0.05, "sank to {lowest}");
    let min_y = pos.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
    assert!(min_y < 0.1, "never landed: lowest point at {min_y}");
    let max_speed = vel.iter().map(|v| v.length()).fold(0.0, f32::max);
    assert!(
        max_speed < 0.5,
        "not settled: a point moves at {max_speed} m/s"
    );
    // Neither blown up nor collapsed.
    let stretch = worst_stretch(&world, &shape, &pos);
    assert!(stretch < 0.1, "a spring is {stretch} off rest");
    for &b in &shape.bodies {
        let rim = if rim == 0 {
            world.bodies()[b.index()].points.len()
        } else {
            rim
        };
        let r = area_ratio(&world, b, &pos, rim);
        assert!((0.9..1.1).contains(&r), "body {} area ratio {r}", b.0);
    }
}

#[test]
fn dropped_box_settles() {
    drop_and_settle(
        |w| {
            BoxShape::new(Vec2::new(0.0, 2.0), Vec2::new(1.0, 0.6))
                .rotation(0.5)
                .build(w)
                .unwrap()
        },
        0,
    );
}

#[test]
fn dropped_grid_settles() {
    drop_and_settle(
        |w| {
            BoxGrid::new(4, 2, Vec2::splat(0.4))
                .center(Vec2::new(0.0, 2.0))
                .rotation(0.3)
                .build(w)
                .unwrap()
        },
        0,
    );
}

#[test]
fn dropped_wheel_settles() {
    // Dropped onto a face. Landing on a vertex (rotation 0), the default
    // 40 Hz 12-point wheel tips over, rocks like a rigid 12-gon and
    // sleeps within 5 s.
    drop_and_settle(
        |w| {
            Wheel::new(Vec2::new(0.0, 2.0), 0.5, 12)
                .rotation(std::f32::consts::PI / 12.0)
                .build(w)
                .unwrap()
        },
        12,
    );
}

#[test]
fn dropped_blob_settles() {
    drop_and_settle(
        |w| {
            Blob::new(Vec2::new(0.0, 2.0), 0.5, 16)
                .center_point(true)
                .build(w)
                .unwrap()
        },
        16,
    );
    drop_and_settle(
        |w| Blob::new(Vec2::new(0.0, 2.0), 0.5, 16).build(w).unwrap(),
        0,
    );
}

#[test]
fn hanging_rope_stays_finite() {
    // A chain of rods pinned at one end, released horizontal: it swings
    // down without stretching much and without blowing up.
    let mut world = World::default();
    world.params.rod_iterations = 16;
    let rope = Rope::new(Vec2::new(0.0, 3.0), Vec2::new(2.0, 3.0), 11)
        .pin_first(true)
        .spring_kind(SpringKind::Rod)
        .build(&mut world)
        .unwrap();
    let mut solver = CpuSolver::new(&world).unwrap();
    let mut worst = 0.0f32;
    for _ in 0..300 {
        solver.step();
        assert_finite(&solver);
        worst = worst.max(worst_stretch(&world, &rope, &solver.positions_vec2()));
    }
    let pos = solver.positions_vec2();
    assert_eq!(pos[0], Vec2::new(0.0, 3.0));
    assert!(worst < 0.1, "a rod was {worst} off rest");
    // The free end swung below the pin, within the rope's reach.
    assert!(pos[10].y < 3.0, "end at {}", pos[10]);
    assert!(pos[10].distance(pos[0]) < 2.0 * 1.1, "end at {}", pos[10]);
}

// ---------------------------------------------------------------------------
// Bad arguments.

fn quickly<T>(f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    assert!(
        t.elapsed() < Duration::from_secs(1),
        "took {:?}",
        t.elapsed()
    );
    out
}

#[test]
fn huge_requests_fail_fast_without_allocating() {
    let mut world = World::default();
    let too_many =
        |e: WorldError| matches!(e, WorldError::TooMany { limit, .. } if limit == MAX_SHAPE_POINTS);
    let e = quickly(|| {
        BoxGrid::new(1_000_000, 1_000_000, Vec2::ONE)
            .build(&mut world)
            .unwrap_err()
    });
    assert!(too_many(e.clone()), "{e}");
    assert!(e.to_string().contains("BoxGrid"), "{e}");
    let e = quickly(|| {
        BoxGrid::new(usize::MAX, usize::MAX, Vec2::ONE)
            .build(&mut world)
            .unwrap_err()
    });
    assert!(too_many(e));
    let e = quickly(|| {
        Rope::new(Vec2::ZERO, Vec2::X, 1_000_000_000_000)
            .build(&mut world)
            .unwrap_err()
    });
    assert!(too_many(e.clone()), "{e}");
    assert!(e.to_string().contains("1000000000000"), "{e}");
    let e = quickly(|| {
        Wheel::new(Vec2::ZERO, 1.0, usize::MAX)
            .build(&mut world)
            .unwrap_err()
    });
    assert!(too_many(e));
    let e = quickly(|| {
        Blob::new(Vec2::ZERO, 1.0, usize::MAX)
            .build(&mut world)
            .unwrap_err()
    });
    assert!(too_many(e));
    assert!(world.points().is_empty());
}

#[test]
fn bad_counts() {
    let mut world = World::default();
    let out_of_range = |e: &WorldError, want: &str| {
        assert!(
            matches!(e, WorldError::OutOfRange { field, .. } if *field == want),
            "{e:?}"
        );
        assert!(e.to_string().contains(want), "{e}");
    };
    let e = BoxGrid::new(0, 3, Vec2::ONE).build(&mut world).unwrap_err();
    out_of_range(&e, "BoxGrid.nx");
    let e = BoxGrid::new(3, 0, Vec2::ONE).build(&mut world).unwrap_err();
    out_of_range(&e, "BoxGrid.ny");
    let e = Wheel::new(Vec2::ZERO, 1.0, 2)
        .build(&mut world)
        .unwrap_err();
    out_of_range(&e, "Wheel.n");
    let e = Blob::new(Vec2::ZERO, 1.0, 0).build(&mut world).unwrap_err();
    out_of_range(&e, "Blob.n");
    let e = Rope::new(Vec2::ZERO, Vec2::X, 1)
        .build(&mut world)
        .unwrap_err();
    out_of_range(&e, "Rope.n");
    assert!(world.points().is_empty());
}

#[test]
fn bad_sizes_and_placements() {
    let mut world = World::default();
    world.add_point(Point::new(Vec2::ZERO)).unwrap();
    let check = |e: WorldError, field: &str, non_finite: bool| {
        match &e {
            WorldError::NonFinite { item, field: f } if non_finite => {
                assert_eq!((*item, *f), (Item::Point(1), field));
            }
            WorldError::OutOfRange { item, field: f, .. } if !non_finite => {
                assert_eq!((*item, *f), (Item::Point(1), field));
            }
            _ => panic!("unexpected {e:?} for {field}"),
        }
        // Names the first point the builder would have added.
        assert!(e.to_string().starts_with("point 1: "), "{e}");
    };
    let w = &mut world;
    for size in [Vec2::new(0.0, 1.0), Vec2::new(1.0, -1.0)] {
        check(
            BoxShape::new(Vec2::ZERO, size).build(w).unwrap_err(),
            "BoxShape.size",
            false,
        );
        check(
            BoxGrid::new(1, 1, size).build(w).unwrap_err(),
            "BoxGrid.cell",
            false,
        );
    }
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let v = Vec2::new(bad, 1.0);
        check(
            BoxShape::new(Vec2::ZERO, v).build(w).unwrap_err(),
            "BoxShape.size",
            true,
        );
        check(
            BoxShape::new(v, Vec2::ONE).build(w).unwrap_err(),
            "BoxShape.center",
            true,
        );
        check(
            BoxShape::new(Vec2::ZERO, Vec2::ONE)
                .rotation(bad)
                .build(w)
                .unwrap_err(),
            "BoxShape.rotation",
            true,
        );
        check(
            BoxGrid::new(2, 2, v).build(w).unwrap_err(),
            "BoxGrid.cell",
            true,
        );
        check(
            BoxGrid::new(2, 2, Vec2::ONE)
                .origin(v)
                .build(w)
                .unwrap_err(),
            "BoxGrid.anchor",
            true,
        );
        check(
            BoxGrid::new(2, 2, Vec2::ONE)
                .rotation(bad)
                .build(w)
                .unwrap_err(),
            "BoxGrid.rotation",
            true,
        );
        check(
            Wheel::new(Vec2::ZERO, bad, 5).build(w).unwrap_err(),
            "Wheel.radius",
            true,
        );
        check(
            Wheel::new(v, 1.0, 5).build(w).unwrap_err(),
            "Wheel.center",
            true,
        );
        check(
            Blob::new(Vec2::ZERO, bad, 5).build(w).unwrap_err(),
            "Blob.radius",
            true,
        );
        check(
            Blob::new(Vec2::ZERO, 1.0, 5)
                .rotation(bad)
                .build(w)
                .unwrap_err(),
            "Blob.rotation",
            true,
        );
        check(
            Rope::new(v, Vec2::ZERO, 5).build(w).unwrap_err(),
            "Rope.a",
            true,
        );
        check(
            Rope::new(Vec2::ZERO, v, 5).build(w).unwrap_err(),
            "Rope.b",
            true,
        );
    }
    for r in [0.0, -1.0] {
        check(
            Wheel::new(Vec2::ZERO, r, 5).build(w).unwrap_err(),
            "Wheel.radius",
            false,
        );
        check(
            Blob::new(Vec2::ZERO, r, 5).build(w).unwrap_err(),
            "Blob.radius",
            false,
        );
    }
    assert_eq!(world.points().len(), 1);
}

#[test]
fn bad_style_is_refused_before_anything_is_added() {
    let mut world = World::default();
    let e = BoxShape::new(Vec2::ZERO, Vec2::ONE)
        .mass(f32::NAN)
        .build(&mut world)
        .unwrap_err();
    assert_eq!(
        e,
        WorldError::NonFinite {
            item: Item::Point(0),
            field: "mass"
        }
    );
    let e = Wheel::new(Vec2::ZERO, 1.0, 4)
        .hub_mass(-1.0)
        .build(&mut world)
        .unwrap_err();
    assert!(
        matches!(
            e,
            WorldError::Negative {
                item: Item::Point(4),
                field: "mass",
                ..
            }
        ),
        "{e:?}"
    );
    let e = Blob::new(Vec2::ZERO, 1.0, 4)
        .vel(Vec2::new(0.0, f32::INFINITY))
        .build(&mut world)
        .unwrap_err();
    assert!(matches!(e, WorldError::NonFinite { field: "vel", .. }));
    let e = Blob::new(Vec2::ZERO, 1.0, 4)
        .material(MaterialHandle(3))
        .build(&mut world)
        .unwrap_err();
    assert!(matches!(
        e,
        WorldError::IndexOutOfRange {
            field: "material",
            index: 3,
            ..
        }
    ));
    let e = BoxGrid::new(2, 1, Vec2::ONE)
        .spring_stiffness(-5.0)
        .build(&mut world)
        .unwrap_err();
    assert!(matches!(
        e,
        WorldError::Negative {
            item: Item::Spring(0),
            field: "stiffness",
            ..
        }
    ));
    assert!(e.to_string().contains("spring 0"), "{e}");
    let e = BoxGrid::new(2, 1, Vec2::ONE)
        .spring_damping(f32::NAN)
        .build(&mut world)
        .unwrap_err();
    assert!(matches!(
        e,
        WorldError::NonFinite {
            item: Item::Spring(0),
            field: "damping"
        }
    ));
    let e = BoxGrid::new(2, 1, Vec2::ONE)
        .body_damping(-1.0)
        .build(&mut world)
        .unwrap_err();
    assert!(matches!(
        e,
        WorldError::Negative {
            item: Item::Body(0),
            field: "damping",
            ..
        }
    ));
    let e = Wheel::new(Vec2::ZERO, 1.0, 4)
        .body_stiffness(f32::INFINITY)
        .build(&mut world)
        .unwrap_err();
    assert!(matches!(
        e,
        WorldError::NonFinite {
            item: Item::Body(0),
            field: "stiffness"
        }
    ));
    // A bad spring setting is fine when the shape has no springs.
    BoxShape::new(Vec2::ZERO, Vec2::ONE)
        .spring_stiffness(-1.0)
        .springs(false)
        .build(&mut world)
        .unwrap();
    assert_eq!(world.points().len(), 4);
    assert!(world.springs().is_empty());
}

#[test]
fn coincident_points_are_refused() {
    let mut world = World::default();
    let e = Rope::new(Vec2::ONE, Vec2::ONE, 4)
        .build(&mut world)
        .unwrap_err();
    assert_eq!(
        e,
        WorldError::ZeroLengthSpring {
            item: Item::Spring(0),
            a: 0,
            b: 1
        }
    );
    // Far from the origin (within the world's 1e7 m), a tiny box's corners
    // coincide in f32.
    let e = BoxShape::new(Vec2::splat(9.0e6), Vec2::splat(1.0e-3))
        .build(&mut world)
        .unwrap_err();
    assert!(matches!(e, WorldError::ZeroLengthSpring { .. }), "{e:?}");
    let e = BoxShape::new(Vec2::splat(9.0e6), Vec2::splat(1.0e-3))
        .springs(false)
        .build(&mut world)
        .unwrap_err();
    assert!(
        matches!(
            e,
            WorldError::DegenerateBody {
                item: Item::Body(0),
                ..
            }
        ),
        "{e:?}"
    );
    // Positions that overflow are beyond the world first.
    let e = BoxShape::new(Vec2::splat(f32::MAX), Vec2::splat(f32::MAX))
        .build(&mut world)
        .unwrap_err();
    assert!(
        matches!(e, WorldError::OutOfRange { field: "pos", .. }),
        "{e:?}"
    );
    assert!(world.points().is_empty());
}

// ---------------------------------------------------------------------------
// A failing builder leaves the world exactly as it was: builders add
// through the world's own checks in one transaction, truncated back on the
// first error.

/// Everything a user can see of a world: `==`, every list, the packed scene
/// hash and the handles the next additions get.
fn assert_unchanged(world: &World, before: &World) {
    assert_eq!(world, before);
    assert_eq!(world.points(), before.points());
    assert_eq!(world.springs(), before.springs());
    assert_eq!(world.rest_lengths(), before.rest_lengths());
    assert_eq!(world.bodies(), before.bodies());
    assert_eq!(world.rest_shapes(), before.rest_shapes());
    assert_eq!(world.materials(), before.materials());
    assert_eq!(world.planes(), before.planes());
    assert_eq!(world.generation(), before.generation());
    let hash = |w: &World| softbody::pack::scene_hash(&Packed::from_world(w).unwrap(), &w.params);
    assert_eq!(hash(world), hash(before));
    let next = |w: &World| {
        let mut w = w.clone();
        BoxShape::new(Vec2::new(5.0, 5.0), Vec2::ONE)
            .build(&mut w)
            .unwrap()
    };
    assert_eq!(next(world), next(before));
}

/// A world with a box, a wheel and a rope in it already.
fn furnished() -> World {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    BoxShape::new(Vec2::new(0.0, 1.0), Vec2::ONE)
        .build(&mut world)
        .unwrap();
    Wheel::new(Vec2::new(3.0, 1.0), 0.5, 6)
        .build(&mut world)
        .unwrap();
    Rope::new(Vec2::new(-3.0, 3.0), Vec2::new(-1.0, 3.0), 4)
        .build(&mut world)
        .unwrap();
    world
}

#[test]
fn a_builder_failing_at_its_first_point_leaves_the_world_unchanged() {
    let mut world = furnished();
    let before = world.clone();
    let base = world.points().len() as u32;
    let e = BoxGrid::new(2, 2, Vec2::ONE)
        .mass(f32::NAN)
        .build(&mut world)
        .unwrap_err();
    assert_eq!(
        e,
        WorldError::NonFinite {
            item: Item::Point(base),
            field: "mass"
        }
    );
    assert_unchanged(&world, &before);
    let e = Wheel::new(Vec2::ZERO, 1.0, 8)
        .material(MaterialHandle(5))
        .build(&mut world)
        .unwrap_err();
    assert_eq!(
        e,
        WorldError::IndexOutOfRange {
            item: Item::Point(base),
            field: "material",
            index: 5,
            len: 1
        }
    );
    assert_unchanged(&world, &before);
}

#[test]
fn a_builder_failing_in_the_middle_of_its_springs_leaves_the_world_unchanged() {
    let mut world = furnished();
    let before = world.clone();
    let (base_p, base_s) = (world.points().len() as u32, world.springs().len() as u32);
    // Far out, a cell 1 mm tall collapses in f32: the 4 springs along x
    // are added, the first along y is refused.
    let e = BoxGrid::new(2, 1, Vec2::new(1.0, 1.0e-3))
        .origin(Vec2::splat(9.0e6))
        .build(&mut world)
        .unwrap_err();
    assert_eq!(
        e,
        WorldError::ZeroLengthSpring {
            item: Item::Spring(base_s + 4),
            a: base_p,
            b: base_p + 3
        }
    );
    assert_unchanged(&world, &before);
    // A rope far out: its points land on 9e6 + [0, 1, 2, 2, 3] in f32, so
    // the third link of four is refused.
    let e = Rope::new(Vec2::new(9.0e6, 0.0), Vec2::new(9.0e6 + 3.0, 0.0), 5)
        .build(&mut world)
        .unwrap_err();
    assert_eq!(
        e,
        WorldError::ZeroLengthSpring {
            item: Item::Spring(base_s + 2),
            a: base_p + 2,
            b: base_p + 3
        }
    );
    assert_unchanged(&world, &before);
}

#[test]
fn a_builder_failing_at_its_body_leaves_the_world_unchanged() {
    let mut world = furnished();
    let before = world.clone();
    let base_b = world.bodies().len() as u32;
    // Every point and spring is added, the first body refuses the inflation.
    let e = BoxGrid::new(3, 2, Vec2::ONE)
        .inflation(f32::NAN)
        .build(&mut world)
        .unwrap_err();
    assert_eq!(
        e,
        WorldError::NonFinite {
            item: Item::Body(base_b),
            field: "inflation"
        }
    );
    assert_unchanged(&world, &before);
    // A wheel whose rim and hub all coincide in f32, without springs.
    let e = Wheel::new(Vec2::splat(9.0e6), 1.0e-3, 5)
        .springs(false)
        .build(&mut world)
        .unwrap_err();
    assert!(
        matches!(e, WorldError::DegenerateBody { item, .. } if item == Item::Body(base_b)),
        "{e:?}"
    );
    assert_unchanged(&world, &before);
}

#[test]
fn a_builder_that_succeeds_after_a_failure_gets_the_same_handles() {
    let mut world = furnished();
    let mut clean = world.clone();
    Blob::new(Vec2::ZERO, 1.0, 8)
        .inflation(-2.0)
        .build(&mut world)
        .unwrap_err();
    let a = Blob::new(Vec2::ZERO, 1.0, 8).build(&mut world).unwrap();
    let b = Blob::new(Vec2::ZERO, 1.0, 8).build(&mut clean).unwrap();
    assert_eq!(a, b);
    assert_eq!(world, clean);
}

#[test]
fn a_builder_reports_what_the_world_reports_for_its_first_bad_item() {
    // Styles bad in two ways at once: the builder's error is the one the
    // world gives for the first point added alone, whose checks run in the
    // order position, velocity, mass, material.
    let world = furnished();
    let corner = Vec2::new(2.0e7, 2.0e7) - Vec2::splat(0.5);
    for (center, style) in [
        (
            Vec2::ZERO,
            ShapeStyle::new().mass(-1.0).material(MaterialHandle(9)),
        ),
        (
            Vec2::ZERO,
            ShapeStyle::new().vel(Vec2::NAN).mass(f32::INFINITY),
        ),
        (Vec2::splat(2.0e7), ShapeStyle::new().vel(Vec2::INFINITY)),
        (
            Vec2::splat(2.0e7),
            ShapeStyle::new().material(MaterialHandle(9)),
        ),
    ] {
        let first = if center == Vec2::ZERO {
            Vec2::splat(-0.5)
        } else {
            corner
        };
        let expected = world
            .clone()
            .add_point(
                Point::new(first)
                    .mass(style.mass)
                    .vel(style.vel)
                    .material(style.material),
            )
            .unwrap_err();
        let mut w = world.clone();
        let e = BoxShape::new(center, Vec2::ONE)
            .style(style)
            .build(&mut w)
            .unwrap_err();
        assert_eq!(e, expected, "{style:?}");
        assert_unchanged(&w, &world);
    }
}
