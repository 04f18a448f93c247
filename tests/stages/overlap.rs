//! Bodies placed inside each other (docs/physics.md, "Deep overlaps"):
//! body contacts push a point that starts a substep wholly inside another
//! body's outline out at `Params::push_speed`, so that a pair set down
//! overlapping parts instead of being flung apart by its shapes' springs.

use crate::common::{both, fastest_over};
use softbody::commands::Command;
use softbody::measure::{PileReport, pile_report};
use softbody::pack::Packed;
use softbody::prelude::*;

/// An empty world in units of `1/k` m at time step `dt`, with a floor at
/// height 0.
fn floored(k: f32, dt: f32) -> World {
    let mut w = World::new(Params {
        dt,
        ..Params::with_length_unit(k).unwrap()
    });
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    w
}

/// `world` packed, and its report with every point where it was placed,
/// at rest.
fn as_placed(world: &World) -> (Packed, PileReport) {
    let packed = Packed::from_world(world).unwrap();
    let start: Vec<[f32; 2]> = world.points().iter().map(|p| p.pos.to_array()).collect();
    let zero = vec![[0.0; 2]; start.len()];
    let r = pile_report(&packed, &start, &zero);
    (packed, r)
}

/// A run of a world on one path: its name, with the length unit and the
/// time step; the fastest point over its first seconds, in push speeds;
/// its positions and velocities at its end.
type Run = (String, f32, Vec<[f32; 2]>, Vec<[f32; 2]>);

/// `world` (in units of `1/k` m) run for `total` seconds on each path,
/// its fastest point watched over the first `watch`.
fn runs(world: &World, k: f32, watch: f32, total: f32) -> Vec<Run> {
    let dt = world.params.dt;
    both(world)
        .into_iter()
        .map(|mut s| {
            let what = format!("{} in 1/{k} m at dt {dt:.4}", s.name());
            let fastest = fastest_over(&mut s, (watch / dt).round() as u32);
            let rest = ((total - watch) / dt).round() as u64;
            if rest > 0 {
                s.step(rest).unwrap();
            }
            let (pos, vel) = s.state().unwrap();
            (what, fastest / world.params.push_speed, pos, vel)
        })
        .collect()
}

/// On a floor, in units of `1/k` m at time step `dt`, pairs set down
/// overlapping with neither's centre inside the other (so tangle recovery
/// does not take them): two 12-point wheels of radius 0.5 m, 0.6 m apart
/// (0.4 m deep); two hubless 16-point rings of radius 0.4 m, 0.5 m apart;
/// a 0.6 m box with diagonal springs and a 10-point ring of radius 0.3 m
/// 0.45 m from its centre.
fn overlapping_pairs(k: f32, dt: f32) -> World {
    let mut w = floored(k, dt);
    let at = |x: f32, y: f32| Vec2::new(x, y) * k;
    for x in [0.0, 0.6] {
        Wheel::new(at(x, 0.6), 0.5 * k, 12).build(&mut w).unwrap();
    }
    for x in [4.0, 4.5] {
        Blob::new(at(x, 0.5), 0.4 * k, 16)
            .center_point(false)
            .build(&mut w)
            .unwrap();
    }
    BoxShape::new(at(8.0, 0.4), Vec2::splat(0.6 * k))
        .diagonals(true)
        .build(&mut w)
        .unwrap();
    Blob::new(at(8.45, 0.4), 0.3 * k, 10)
        .center_point(false)
        .rotation(0.3)
        .build(&mut w)
        .unwrap();
    w
}

/// Each pair parts within two seconds, on both paths, in metres and
/// centimetres and at two time steps, and no point ever moves faster than
/// twice the push speed: pushing a point's whole depth out in one substep
/// threw the wheels apart at 23 m/s and the rings at 18 m/s.
#[test]
fn bodies_placed_inside_each_other_part_at_the_push_speed() {
    for (k, dt) in [(1.0, 1.0 / 60.0), (100.0, 1.0 / 30.0)] {
        let world = overlapping_pairs(k, dt);
        let (packed, r) = as_placed(&world);
        assert_eq!(r.bodies_overlapped, 0, "no centre starts inside: {r:?}");
        assert!(r.points_inside >= 12, "the pairs start deep: {r:?}");
        for (what, fastest, pos, vel) in runs(&world, k, 2.0, 2.0) {
            let r = pile_report(&packed, &pos, &vel);
            eprintln!(
                "{what}: fastest {fastest:.2} push speeds, {} points inside at 2 s",
                r.points_inside
            );
            assert!(fastest <= 2.0, "{what}: a point at {fastest} push speeds");
            assert_eq!(r.points_inside, 0, "{what}: {r:?}");
        }
    }
}

/// A body teleported into another, once both have rested, parts from it
/// at the push speed as one placed there does: a teleport unsettles the
/// points it moves. On both paths, in metres at dt 1/60 and in
/// millimetres at dt 1/120, with shapes other than the placement test's:
/// a 10-point wheel teleported 0.3 m into a 0.8 m box with diagonal
/// springs, and a hubless 14-point ring teleported, turned, 0.25 m into
/// another. Before, their points had settled long ago and were pushed out
/// whole, at 4 to 9 push speeds.
#[test]
fn bodies_teleported_into_each_other_part_at_the_push_speed() {
    for (k, dt) in [(1.0, 1.0 / 60.0), (1000.0, 1.0 / 120.0)] {
        let mut w = floored(k, dt);
        let at = |x: f32, y: f32| Vec2::new(x, y) * k;
        BoxShape::new(at(0.0, 0.4), Vec2::splat(0.8 * k))
            .diagonals(true)
            .build(&mut w)
            .unwrap();
        let wheel = Wheel::new(at(3.0, 0.35), 0.35 * k, 10)
            .build(&mut w)
            .unwrap();
        Blob::new(at(6.0, 0.4), 0.4 * k, 14)
            .center_point(false)
            .build(&mut w)
            .unwrap();
        let ring = Blob::new(at(9.0, 0.4), 0.4 * k, 14)
            .center_point(false)
            .build(&mut w)
            .unwrap();
        let push = w.params.push_speed;
        for mut s in both(&w) {
            let what = format!("{} in 1/{k} m at dt {dt:.4}", s.name());
            // At rest on the floor: every point settled.
            s.step((1.5 / dt).round() as u64).unwrap();
            s.queue(Command::BodyTeleport {
                body: wheel.bodies[0],
                position: at(0.0 + 0.4 + 0.35 - 0.3, 0.4),
                angle: None,
            })
            .unwrap();
            s.queue(Command::BodyTeleport {
                body: ring.bodies[0],
                position: at(6.0 + 0.8 - 0.25, 0.45),
                angle: Some(0.4),
            })
            .unwrap();
            let fastest = fastest_over(&mut s, (2.0 / dt).round() as u32);
            let (pos, vel) = s.state().unwrap();
            let packed = Packed::from_world(&w).unwrap();
            let r = pile_report(&packed, &pos, &vel);
            eprintln!(
                "{what}: fastest {:.2} push speeds, {} points inside at 2 s",
                fastest / push,
                r.points_inside
            );
            assert!(fastest <= 2.0 * push, "{what}: a point at {fastest}");
            assert_eq!(r.points_inside, 0, "{what}: {r:?}");
        }
    }
}

/// On a floor, in units of `1/k` m at time step `dt`, pairs set down with
/// one's outline centre inside the other, so that tangle recovery parts
/// them: two 12-point wheels of radius 0.5 m, 0.32 m apart; two 1 m
/// boxes, 0.36 m apart; a 1 m box with diagonal springs and a 0.8 m box
/// turned 0.5 rad, 0.22 m apart; two hubless 16-point rings of radius
/// 0.5 m, 0.42 m apart.
fn tangled_pairs(k: f32, dt: f32) -> World {
    let mut w = floored(k, dt);
    let at = |x: f32, y: f32| Vec2::new(x, y) * k;
    Wheel::new(at(0.0, 0.52), 0.5 * k, 12)
        .build(&mut w)
        .unwrap();
    Wheel::new(at(0.25, 0.72), 0.5 * k, 12)
        .build(&mut w)
        .unwrap();
    BoxShape::new(at(4.0, 0.52), Vec2::splat(k))
        .build(&mut w)
        .unwrap();
    BoxShape::new(at(4.3, 0.72), Vec2::splat(k))
        .build(&mut w)
        .unwrap();
    BoxShape::new(at(8.0, 0.52), Vec2::splat(k))
        .diagonals(true)
        .build(&mut w)
        .unwrap();
    BoxShape::new(at(8.2, 0.62), Vec2::splat(0.8 * k))
        .rotation(0.5)
        .build(&mut w)
        .unwrap();
    for (x, y) in [(12.0, 0.52), (12.3, 0.82)] {
        Blob::new(at(x, y), 0.5 * k, 16)
            .center_point(false)
            .build(&mut w)
            .unwrap();
    }
    w
}

/// Each pair parts within two seconds, on both paths, in metres at dt
/// 1/60 and in centimetres at dt 1/30, and while they part (the first
/// half second) no point moves faster than twice the push speed: each of
/// a substep's two contact passes pushed a tangled pair's points inside
/// at twice the pace, and the wheels parted at 9.7 m/s (3.2 push speeds),
/// the boxes at 7.1. (The upper ring hops a metre.)
#[test]
fn bodies_placed_with_a_centre_inside_another_part_at_the_pace() {
    for (k, dt) in [(1.0, 1.0 / 60.0), (100.0, 1.0 / 30.0)] {
        let world = tangled_pairs(k, dt);
        let (packed, r) = as_placed(&world);
        assert!(r.bodies_overlapped >= 4, "centres start inside: {r:?}");
        for (what, fastest, pos, vel) in runs(&world, k, 0.5, 2.0) {
            let r = pile_report(&packed, &pos, &vel);
            eprintln!(
                "{what}: fastest {fastest:.2} push speeds in 0.5 s; at 2 s {} points inside, {} bodies overlapped",
                r.points_inside, r.bodies_overlapped
            );
            assert!(fastest <= 2.0, "{what}: a point at {fastest} push speeds");
            assert_eq!(r.points_inside, 0, "{what}: {r:?}");
            assert_eq!(r.bodies_overlapped, 0, "{what}: {r:?}");
        }
    }
}

/// Colliding bodies with an outline edge that passes through another
/// body of another assembly, more than a point radius `r` inside it at
/// one of seven samples along the edge, while neither end is that deep:
/// the overlap of bodies whose corners lie on each other's faces, which
/// neither `points_inside` nor `bodies_overlapped` sees.
fn crossed(packed: &Packed, pos: &[[f32; 2]], r: f32) -> usize {
    let colliders = &packed.colliders[..packed.sim.num_colliders as usize];
    let outline = |b: u32| {
        let o = &packed.outlines[b as usize];
        let pts = &packed.outline_points[o.first as usize..(o.first + o.count) as usize];
        pts.iter()
            .map(|&k| Vec2::from(pos[k as usize]))
            .collect::<Vec<_>>()
    };
    // How deep `p` lies inside `poly` (0 when outside).
    let depth = |poly: &[Vec2], p: Vec2| {
        let mut inside = false;
        let mut d = f32::MAX;
        for (k, &c) in poly.iter().enumerate() {
            let a = poly[(k + poly.len() - 1) % poly.len()];
            if (a.y > p.y) != (c.y > p.y) && p.x < a.x + (p.y - a.y) / (c.y - a.y) * (c.x - a.x) {
                inside = !inside;
            }
            let e = c - a;
            let t = ((p - a).dot(e) / e.length_squared()).clamp(0.0, 1.0);
            d = d.min(p.distance(a + e * t));
        }
        if inside { d } else { 0.0 }
    };
    colliders
        .iter()
        .filter(|&&b| {
            let mine = outline(b);
            colliders.iter().any(|&c| {
                if packed.outlines[c as usize].group == packed.outlines[b as usize].group {
                    return false;
                }
                let other = outline(c);
                (0..mine.len()).any(|k| {
                    let (a, e) = (mine[k], mine[(k + 1) % mine.len()]);
                    depth(&other, a) <= r
                        && depth(&other, e) <= r
                        && (1..8).any(|s| depth(&other, a.lerp(e, s as f32 / 8.0)) > r)
                })
            })
        })
        .count()
}

/// On a floor, in units of `1/k` m at time step `dt`, bodies set down in
/// rows and columns at a pitch below their size, so that each one's
/// corners lie on its neighbours' faces: four 0.5 m boxes with diagonal
/// springs 0.4 m apart; three 0.6 m boxes stacked 0.48 m apart; two
/// 1.2 x 0.4 m planks end to end 1 m apart; a 2 x 1 grid of 0.4 m cells
/// sharing corners beside a 0.4 m box 0.3 m from its end cell.
fn rows_too_tight(k: f32, dt: f32) -> World {
    let mut w = floored(k, dt);
    let at = |x: f32, y: f32| Vec2::new(x, y) * k;
    for i in 0..4 {
        BoxShape::new(at(0.4 * i as f32, 0.25), Vec2::splat(0.5 * k))
            .diagonals(true)
            .build(&mut w)
            .unwrap();
    }
    for i in 0..3 {
        BoxShape::new(at(4.0, 0.3 + 0.48 * i as f32), Vec2::splat(0.6 * k))
            .build(&mut w)
            .unwrap();
    }
    for x in [7.0, 8.0] {
        BoxShape::new(at(x, 0.2), Vec2::new(1.2, 0.4) * k)
            .build(&mut w)
            .unwrap();
    }
    BoxGrid::new(2, 1, Vec2::splat(0.4 * k))
        .center(at(11.0, 0.2))
        .build(&mut w)
        .unwrap();
    BoxShape::new(at(11.5, 0.2), Vec2::splat(0.4 * k))
        .build(&mut w)
        .unwrap();
    w
}

/// Bodies whose corners lie on each other's faces part within two
/// seconds, on both paths, in metres at dt 1/60 and in centimetres at dt
/// 1/120, no point faster than twice the push speed: no point of either
/// is inside the other, so only their edges showed the overlap, and the
/// bodies stood overlapped for a second and more, then parted with a
/// point at 2.6 push speeds when a corner slid past an edge's end (5 of
/// the 11 still crossed at 2 s).
#[test]
fn bodies_placed_with_corners_on_each_others_faces_part() {
    for (k, dt) in [(1.0, 1.0 / 60.0), (100.0, 1.0 / 120.0)] {
        let world = rows_too_tight(k, dt);
        let (packed, r) = as_placed(&world);
        let radius = world.params.point_radius;
        let start: Vec<[f32; 2]> = world.points().iter().map(|p| p.pos.to_array()).collect();
        let crossed_at_start = crossed(&packed, &start, radius);
        assert_eq!(r.points_inside + r.bodies_overlapped, 0, "{r:?}");
        assert_eq!(
            crossed_at_start, 11,
            "all but the far grid cell start crossed"
        );
        for (what, fastest, pos, vel) in runs(&world, k, 2.0, 2.0) {
            let r = pile_report(&packed, &pos, &vel);
            let left = crossed(&packed, &pos, radius);
            eprintln!(
                "{what}: fastest {fastest:.2} push speeds; at 2 s {left} bodies crossed, {} points inside",
                r.points_inside
            );
            assert!(fastest <= 2.0, "{what}: a point at {fastest} push speeds");
            assert_eq!(left, 0, "{what}: {left} bodies still crossed");
            assert_eq!(r.points_inside + r.bodies_overlapped, 0, "{what}: {r:?}");
        }
    }
}
