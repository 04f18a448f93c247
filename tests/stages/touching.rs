//! Bodies built touching each other (docs/physics.md, "Bodies built
//! touching"): a point that has not settled keeps the depth it was placed
//! at as a placement allowance that shrinks by a skin step a substep, so
//! bodies set edge to edge part slowly instead of springing apart, while a
//! resting pile placed again stands where it stood.

use crate::common::{both, centres};
use softbody::commands::Command;
use softbody::measure::pile_report;
use softbody::prelude::*;
use std::ops::Range;

/// On a floor, in units of `1/k` m at time step `dt`, bodies built with
/// their outlines touching each other and `r` clear of the floor: two
/// 0.5 m boxes with diagonal springs side by side, a column of three, a
/// 6-row pyramid (each box's bottom corners on the corners where two
/// boxes below meet), a 2.6 x 0.2 m plank on two boxes 2 m apart, two
/// rows of 0.6 x 0.3 m bricks laid half a brick apart (four, then three on
/// their joints), a hubless 10-point
/// ring against a box's side and a 12-point wheel against another's.
/// Returns the world and each body's point range.
fn built_touching(k: f32, dt: f32) -> (World, Vec<Range<usize>>) {
    let mut w = World::new(Params {
        dt,
        ..Params::with_length_unit(k).unwrap()
    });
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    let r = w.params.point_radius / k;
    let mut ranges = Vec::new();
    let mut add = |w: &mut World, build: &dyn Fn(&mut World)| {
        let from = w.points().len();
        build(w);
        ranges.push(from..w.points().len());
    };
    let cube = |x: f32, y: f32, sx: f32, sy: f32| {
        move |w: &mut World| {
            BoxShape::new(Vec2::new(x, y) * k, Vec2::new(sx, sy) * k)
                .diagonals(true)
                .build(w)
                .unwrap();
        }
    };
    // Resting on the floor: a box of height `s` has its centre at `s / 2 + r`.
    let y0 = 0.25 + r;
    for x in [-0.25, 0.25] {
        add(&mut w, &cube(x, y0, 0.5, 0.5));
    }
    for j in 0..3 {
        add(&mut w, &cube(3.0, y0 + 0.5 * j as f32, 0.5, 0.5));
    }
    for row in 0..6 {
        let n = 6 - row;
        for j in 0..n {
            let x = -8.0 + (j as f32 - (n - 1) as f32 / 2.0) * 0.5;
            add(&mut w, &cube(x, y0 + 0.5 * row as f32, 0.5, 0.5));
        }
    }
    for x in [6.0, 8.0] {
        add(&mut w, &cube(x, y0, 0.5, 0.5));
    }
    add(&mut w, &cube(7.0, y0 + 0.35, 2.6, 0.2));
    for row in 0..2 {
        for j in 0..4 - row {
            let x = 11.0 + 0.6 * j as f32 + 0.3 * row as f32;
            add(&mut w, &cube(x, 0.15 + r + 0.3 * row as f32, 0.6, 0.3));
        }
    }
    add(&mut w, &cube(16.0, y0, 0.5, 0.5));
    add(&mut w, &|w| {
        Blob::new(Vec2::new(16.55, 0.3 + r) * k, 0.3 * k, 10)
            .rotation(std::f32::consts::PI)
            .center_point(false)
            .build(w)
            .unwrap();
    });
    add(&mut w, &cube(19.0, y0, 0.5, 0.5));
    add(&mut w, &|w| {
        Wheel::new(Vec2::new(19.65, 0.4 + r) * k, 0.4 * k, 12)
            .rotation(std::f32::consts::PI)
            .build(w)
            .unwrap();
    });
    (w, ranges)
}

/// Bodies built touching part by about a point radius a contact, slowly.
/// Pushed out whole (every contact's depth in one substep), the pyramid
/// threw boxes 146 point radii (2.9 m), the column's top box rose 8.6 to
/// 13.5, and points reached 1.7 push speeds. On both paths, in metres at
/// dt 1/60 and 1/120, centimetres at dt 1/120 and millimetres at dt 1/30,
/// over 2 s: no point faster than 0.75 push speeds (the pyramid's top box
/// rises its six layers' parting at once), no box's centre more than 15
/// point radii from where it was built, the pair's and the column's no
/// more than 3 (the pair's corners meet corner to corner, where the side
/// a contact pushes across is left to rounding: 2.4 in centimetres, 0.6
/// in metres), and no point inside another body
/// at the end. The ring and the wheel roll away from the boxes that part
/// from them; only their speed is bounded.
#[test]
fn bodies_built_touching_part_gently() {
    for (k, dt) in [
        (1.0, 1.0 / 60.0),
        (1.0, 1.0 / 120.0),
        (100.0, 1.0 / 120.0),
        (1000.0, 1.0 / 30.0),
    ] {
        let (world, ranges) = built_touching(k, dt);
        let (push, r) = (world.params.push_speed, world.params.point_radius);
        let start: Vec<[f32; 2]> = world.points().iter().map(|p| p.pos.to_array()).collect();
        let start = centres(&start, &ranges);
        for mut s in both(&world) {
            let what = format!("{} in 1/{k} m at dt {dt:.4}", s.name());
            let (mut fastest, mut moved) = (0.0f32, vec![0.0f32; ranges.len()]);
            for _ in 0..(2.0 / dt).round() as u32 {
                s.step(1).unwrap();
                let (pos, vel) = s.state().unwrap();
                for v in &vel {
                    fastest = fastest.max(Vec2::from(*v).length());
                }
                for (m, (c, c0)) in moved
                    .iter_mut()
                    .zip(centres(&pos, &ranges).iter().zip(&start))
                {
                    *m = m.max((*c - *c0).length() / r);
                }
            }
            let (pos, vel) = s.state().unwrap();
            let report = pile_report(s.packed(), &pos, &vel);
            // The pair and the column; the boxes; the ring and the wheel,
            // which roll away from the boxes they were built against.
            let most = |r: Range<usize>| moved[r].iter().copied().fold(0.0, f32::max);
            let (near, boxes) = (most(0..5), most(0..ranges.len() - 3));
            eprintln!(
                "{what}: fastest {:.2} push speeds, centres moved at most {boxes:.1} r \
                 (pair and column {near:.1}, the ring {:.1}, the wheel {:.1}), {} points inside",
                fastest / push,
                moved[ranges.len() - 3],
                moved[ranges.len() - 1],
                report.points_inside
            );
            assert!(fastest <= 0.75 * push, "{what}: a point at {fastest}");
            assert!(
                boxes <= 15.0,
                "{what}: a box's centre moved {boxes} r: {moved:?}"
            );
            assert!(
                near <= 6.0,
                "{what}: the pair or column moved {near} r: {moved:?}"
            );
            assert_eq!(report.points_inside, 0, "{what}: {report:?}");
        }
    }
}

/// A resting pile placed again whole (`set_state` unsettles every point)
/// stands where it stood: the allowance only shrinks and runs out, so the
/// load pressing its contacts is pushed out as before. On both paths, the
/// 20-row pyramid of 0.5 m boxes and the 480-body pour of small boxes and
/// wheels (`samples`), rested, placed again and run 3 s: the mean height
/// never more than half a point radius from where it rested (0.16 to 0.21
/// when every contact was pushed out whole; a lift of a fixed step a
/// substep that never ran out sank the pyramid 1.35 with 9 points inside),
/// the highest point within one, no point inside another body, every
/// point asleep again.
#[test]
fn a_resting_pile_placed_again_stands_where_it_stood() {
    let piles = [
        (
            "pyramid",
            softbody::samples::pyramid(20, 0.5).unwrap().0,
            10.0,
        ),
        ("pour", softbody::samples::pour(480, 2.0).unwrap(), 15.0),
    ];
    for (name, world, rest) in piles {
        let (r, dt) = (world.params.point_radius, world.params.dt);
        let heights = |pos: &[[f32; 2]]| {
            let mean = pos.iter().map(|p| p[1]).sum::<f32>() / pos.len() as f32;
            (mean, pos.iter().map(|p| p[1]).fold(f32::MIN, f32::max))
        };
        for mut s in both(&world) {
            let what = format!("{} {name}", s.name());
            s.step((rest / dt).round() as u64).unwrap();
            let (pos, vel) = s.state().unwrap();
            let (mean, top) = heights(&pos);
            s.set_state(&pos, &vel).unwrap();
            let (mut sank, mut inside) = (0.0f32, 0);
            for _ in 0..(3.0 / dt).round() as u32 {
                s.step(1).unwrap();
                let (pos, vel) = s.state().unwrap();
                sank = sank.max((mean - heights(&pos).0).abs() / r);
                inside = inside.max(pile_report(s.packed(), &pos, &vel).points_inside);
            }
            let (pos, vel) = s.state().unwrap();
            let report = pile_report(s.packed(), &pos, &vel);
            let fell = (top - heights(&pos).1) / r;
            let asleep = s.sleeping_points().unwrap();
            eprintln!(
                "{what}: mean height moved at most {sank:.3} r, highest point {fell:.3} r, \
                 at most {inside} points inside, {asleep} of {} asleep",
                report.points
            );
            assert!(sank <= 0.5, "{what}: the mean height moved {sank} r");
            assert!(
                fell.abs() <= 1.0,
                "{what}: the highest point moved {fell} r"
            );
            assert_eq!(inside, 0, "{what}: points inside");
            assert_eq!(asleep, report.points, "{what}");
        }
    }
}

/// A body spawned or teleported touching bodies that rest (asleep, their
/// points settled) rests as put: the placed body's points take an
/// allowance, and the resting points under its edges keep the larger of
/// those edges' ends' allowances. A 0.5 m box synced in with its bottom
/// on a resting box's top (0.1 m aside), and a resting box teleported
/// against the other side of that box. Pushed out whole, the synced box
/// rose 8.8 point radii at 0.8 push speeds. On both paths, in metres at
/// dt 1/60 and centimetres at dt 1/120, over 1 s: each placed box's centre
/// rises at most 1.3 point radii (one radius is the gap it opens) and
/// moves at most 1.5; no point faster than 0.2 push speeds.
#[test]
fn bodies_spawned_or_teleported_touching_resting_ones_rest_as_put() {
    for (k, dt) in [(1.0, 1.0 / 60.0), (100.0, 1.0 / 120.0)] {
        let mut world = World::new(Params {
            dt,
            ..Params::with_length_unit(k).unwrap()
        });
        world.add_plane(HalfPlane::floor(0.0)).unwrap();
        let (push, r) = (world.params.push_speed, world.params.point_radius);
        let cube = |world: &mut World, x: f32, y: f32| {
            BoxShape::new(Vec2::new(x * k, y * k + r), Vec2::splat(0.5 * k))
                .diagonals(true)
                .build(world)
                .unwrap()
        };
        cube(&mut world, 0.0, 0.25);
        let moved = cube(&mut world, 4.0, 0.25);
        for mut s in both(&world) {
            let what = format!("{} in 1/{k} m at dt {dt:.4}", s.name());
            s.step((1.0 / dt).round() as u64).unwrap();
            let (pos, _) = s.state().unwrap();
            let top = pos[..4].iter().map(|p| p[1]).fold(f32::MIN, f32::max);
            let mut world = world.clone();
            let from = world.points().len();
            BoxShape::new(Vec2::new(0.1 * k, top + 0.25 * k), Vec2::splat(0.5 * k))
                .diagonals(true)
                .build(&mut world)
                .unwrap();
            s.sync(&world).unwrap();
            // Its left side on the resting box's right side.
            let right = pos[..4].iter().map(|p| p[0]).fold(f32::MIN, f32::max);
            let beside = Vec2::new(right + 0.25 * k, 0.25 * k + r);
            s.queue(Command::BodyTeleport {
                body: moved.bodies[0],
                position: beside,
                angle: Some(0.0),
            })
            .unwrap();
            let placed = [
                (from..from + 4, Vec2::new(0.1 * k, top + 0.25 * k)),
                (4..8, beside),
            ];
            let (mut rise, mut shift, mut fastest) = ([0.0f32; 2], [0.0f32; 2], 0.0f32);
            for _ in 0..(1.0 / dt).round() as u32 {
                s.step(1).unwrap();
                let (pos, vel) = s.state().unwrap();
                for v in &vel {
                    fastest = fastest.max(Vec2::from(*v).length());
                }
                let ranges = placed.clone().map(|(b, _)| b);
                for (k, (c, (_, c0))) in centres(&pos, &ranges).into_iter().zip(&placed).enumerate()
                {
                    rise[k] = rise[k].max((c.y - c0.y) / r);
                    shift[k] = shift[k].max((c - *c0).length() / r);
                }
            }
            eprintln!(
                "{what}: the synced box rose {:.2} r and moved {:.2}, the teleported one {:.2} \
                 and {:.2}; fastest {:.3} push speeds",
                rise[0],
                shift[0],
                rise[1],
                shift[1],
                fastest / push
            );
            assert!(rise.iter().all(|&h| h <= 1.3), "{what}: rose {rise:?} r");
            assert!(shift.iter().all(|&m| m <= 1.5), "{what}: moved {shift:?} r");
            assert!(fastest <= 0.2 * push, "{what}: a point at {fastest}");
        }
    }
}
