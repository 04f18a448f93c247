//! The seed's game as a sample (`softbody::ship`): a soft ship flown by
//! thrusters around a planet that pulls it, and landed, on both paths.

mod common;

use common::both;
use softbody::prelude::*;
use softbody::ship::{HOME, ORBIT, Ship, Thrust, ship_game};
use softbody::solver::Solver;

/// The ship's centre and mean velocity, its axis (from the stern's
/// points to the nose's) and the least distance of its points from the
/// home planet's centre.
fn ship_state(s: &Solver, ship: &Ship) -> (Vec2, Vec2, Vec2, f32) {
    let (pos, vel) = s.state().unwrap();
    let n = ship.points.len() as f32;
    let at = |h: &PointHandle| Vec2::from_array(pos[h.index()]);
    let c = ship.points.iter().map(at).sum::<Vec2>() / n;
    let v = ship
        .points
        .iter()
        .map(|h| Vec2::from_array(vel[h.index()]))
        .sum::<Vec2>()
        / n;
    // BoxGrid points are row by row, nx + 1 to a row.
    let row = ship.nx + 1;
    let column = |i: usize| {
        ship.points
            .iter()
            .enumerate()
            .filter(|(k, _)| k % row == i)
            .map(|(_, h)| at(h))
            .sum::<Vec2>()
    };
    let axis = (column(ship.nx) - column(0)).normalize();
    let least = ship
        .points
        .iter()
        .map(|h| (at(h) - HOME.0).length())
        .fold(f32::MAX, f32::min);
    (c, v, axis, least)
}

/// One step with `thrust`.
fn fire(s: &mut Solver, ship: &Ship, thrust: Thrust) {
    for c in ship.commands(thrust) {
        s.queue(c).unwrap();
    }
    s.step(1).unwrap();
}

/// The ship coasts once around its orbit (turning as it goes: the pull's
/// gradient along it turns a ship flying across the radius, as it
/// turns a satellite) (the planets' pull holds it
/// within 10% of the orbit's radius: 18.9 to 20.6 m, as a lone point's
/// orbit there, the moon's pull making it an ellipse), burns retro to
/// stop, and comes
/// down on its belly engines, its side thrusters turning its belly to the
/// planet, to a landing on the home planet at under
/// 1 m/s, with no point of it inside the planet at any step's end; then
/// it rests there. Both paths, scripted by what a pilot reads each step.
#[test]
fn a_ship_flies_once_around_the_planet_and_lands_on_it() {
    let game = ship_game().unwrap();
    let ship = &game.ship;
    let (home, radius, g) = HOME;
    let gm = g * radius * radius;
    let dt = game.world.params.dt;
    let period = std::f32::consts::TAU * (ORBIT.powi(3) / gm).sqrt();
    for mut s in both(&game.world) {
        let name = s.name();
        // Coast one orbit, looking every 10 steps.
        let steps = (period / dt).round() as u64;
        let mut low = f32::MAX;
        let mut high = f32::MIN;
        for _ in 0..steps / 10 {
            s.step(10).unwrap();
            let (c, _, _, _) = ship_state(&s, ship);
            let r = (c - home).length();
            (low, high) = (low.min(r), high.max(r));
        }
        s.step(steps % 10).unwrap();
        let (c, v, _, _) = ship_state(&s, ship);
        eprintln!("{name}: orbit between {low:.2} and {high:.2} m; back at {c} moving {v}");
        assert!(
            low > 0.9 * ORBIT && high < 1.1 * ORBIT,
            "{name}: orbit between {low} and {high}"
        );
        assert!(
            (c - Vec2::new(0.0, ORBIT)).length() < 2.0,
            "{name}: back at {c}"
        );
        // Retro burn, then the descent: the belly engines hold the speed
        // toward the planet at what the height allows, the main engine
        // kills the drift along the surface.
        let mut landed = None;
        let mut deepest = f32::MAX;
        let mut last_axis = None;
        for k in 0..3000 {
            let (c, v, axis, least) = ship_state(&s, ship);
            deepest = deepest.min(least);
            assert!(
                least >= radius,
                "{name}: step {k}: a point {least} m from the centre, inside the planet"
            );
            let up = (c - home).normalize();
            let height = least - radius;
            if height < 0.02 && v.length() < 1.0 {
                landed = Some((k, v.length()));
                break;
            }
            // Toward the planet at 0.3 m/s plus half the height a second,
            // at most 4 m/s; the belly engines (the ship's y) hold that,
            // the main engine (its x) kills the rest.
            let want = -(0.3 + 0.5 * height).min(4.0) * up;
            let err = want - v;
            let belly = axis.perp();
            let hover = gm / (c - home).length_squared() * ship.mass() / Ship::LIFT_FORCE;
            // The side thrusters turn the belly toward the planet: the
            // gravity gradient turned the ship while it coasted.
            let spin = last_axis.map_or(0.0, |a: Vec2| a.perp_dot(axis) / dt);
            last_axis = Some(axis);
            let tilt = belly.perp_dot(up);
            let thrust = Thrust {
                forward: (1.5 * err.dot(axis)).clamp(-1.0, 1.0),
                lift: (hover * up.dot(belly) + 0.6 * err.dot(belly)).clamp(-1.0, 1.0),
                turn: (3.0 * tilt - 1.5 * spin).clamp(-1.0, 1.0),
            };
            if k % 60 == 0 {
                eprintln!("{name}: step {k}: height {height:.2}, velocity {v}, axis {axis}");
            }
            fire(&mut s, ship, thrust);
        }
        let (k, speed) = landed.unwrap_or_else(|| panic!("{name}: did not land"));
        eprintln!(
            "{name}: landed after {k} steps at {speed:.2} m/s; nearest point {deepest:.3} m from the centre (radius {radius})"
        );
        // Engines off: it rests on the planet.
        for _ in 0..240 {
            s.step(1).unwrap();
            let (_, _, _, least) = ship_state(&s, ship);
            assert!(
                least >= radius,
                "{name}: resting, a point inside the planet"
            );
        }
        let (_, v, _, least) = ship_state(&s, ship);
        assert!(
            v.length() < 0.05 && least < radius + 0.05,
            "{name}: resting on the planet at {v}, {least}"
        );
    }
}

/// Thrust levels are clamped to -1..=1 and a level that is not finite
/// fires nothing; a cell with no force gets no command.
#[test]
fn thrust_is_clamped_and_nan_fires_nothing() {
    let game = ship_game().unwrap();
    let ship = &game.ship;
    assert!(ship.commands(Thrust::default()).is_empty());
    let nan = Thrust {
        forward: f32::NAN,
        lift: f32::INFINITY,
        turn: 0.0,
    };
    assert!(ship.commands(nan).is_empty());
    let full = ship.commands(Thrust {
        forward: 5.0,
        ..Thrust::default()
    });
    assert_eq!(full.len(), ship.bodies.len());
    let total: f32 = full
        .iter()
        .map(|c| match c {
            softbody::commands::Command::BodyLocalForce { force, .. } => force.x,
            _ => 0.0,
        })
        .sum();
    assert!((total - Ship::MAIN_FORCE).abs() < 1e-3, "{total}");
}

/// The moon turns: the two crates resting on it are carried around at its
/// rate (0.3 rad/s, within 5%, once they have caught up) and stay on its
/// surface, on both paths.
#[test]
fn the_turning_moon_carries_its_crates() {
    use softbody::ship::{MOON, MOON_SPIN};
    let game = ship_game().unwrap();
    let (moon, radius, _) = MOON;
    // The crates are the bodies whose points all lie near the moon.
    let crates: Vec<&Body> = game
        .world
        .bodies()
        .iter()
        .filter(|b| {
            b.points
                .iter()
                .all(|p| (game.world.point(*p).pos - moon).length() < radius + 1.0)
        })
        .collect();
    assert_eq!(crates.len(), 2);
    let angles = |s: &Solver| -> Vec<(f32, f32)> {
        let pos = s.state().unwrap().0;
        crates
            .iter()
            .map(|b| {
                let c = b
                    .points
                    .iter()
                    .map(|p| Vec2::from_array(pos[p.index()]))
                    .sum::<Vec2>()
                    / b.points.len() as f32
                    - moon;
                (c.y.atan2(c.x), c.length())
            })
            .collect()
    };
    for mut s in both(&game.world) {
        s.step(180).unwrap();
        let a1 = angles(&s);
        s.step(180).unwrap();
        let a2 = angles(&s);
        for ((t1, _), (t2, r)) in a1.iter().zip(&a2) {
            let turned = (t2 - t1).rem_euclid(std::f32::consts::TAU);
            let rate = turned / 3.0;
            eprintln!(
                "{}: a crate turns {rate:.4} rad/s at radius {r:.3}",
                s.name()
            );
            assert!(
                (rate / MOON_SPIN - 1.0).abs() < 0.05,
                "{}: {rate}",
                s.name()
            );
            assert!(
                (r - (radius + 0.25)).abs() < 0.05,
                "{}: radius {r}",
                s.name()
            );
        }
    }
}
