//! The primary seed's game as a sample: a soft ship of boxes that share
//! corners, flown by thrusters (forces on its cells, in the ship's own
//! frame) around planets that pull it, among debris. The window flies it
//! with the arrow keys (`softbody run --sample ship`); a program or a test
//! queues [`Ship::commands`] each step.
//!
//! ```
//! use softbody::prelude::*;
//! use softbody::ship::{Thrust, ship_game};
//!
//! let game = ship_game()?;
//! let mut cpu = CpuSolver::new(&game.world)?;
//! for command in game.ship.commands(Thrust { forward: 1.0, ..Thrust::default() }) {
//!     cpu.queue(command)?;
//! }
//! cpu.step();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use glam::Vec2;

use crate::commands::Command;
use crate::error::WorldError;
use crate::shapes::{Blob, BoxGrid, BoxShape, ShapeStyle};
use crate::world::{BodyHandle, Planet, PointHandle, World};

/// The home planet: centre, radius (m) and gravity at its surface (m/s^2).
pub const HOME: (Vec2, f32, f32) = (Vec2::ZERO, 12.0, 6.0);
/// The moon: centre, radius and surface gravity.
pub const MOON: (Vec2, f32, f32) = (Vec2::new(60.0, 24.0), 5.0, 2.0);
/// How fast the moon turns, rad/s (counter-clockwise): its surface moves
/// at 1.5 m/s.
pub const MOON_SPIN: f32 = 0.3;
/// The radius of the ship's starting circular orbit about the home
/// planet, m.
pub const ORBIT: f32 = 20.0;

/// A ship: `nx` by `ny` cells of [`Ship::CELL`], one body each, sharing
/// corners (a [`BoxGrid`]), its nose along the rest shape's `+x`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ship {
    /// The cells' bodies, row by row from the bottom.
    pub bodies: Vec<BodyHandle>,
    pub points: Vec<PointHandle>,
    /// Cells along the ship and across it.
    pub nx: usize,
    pub ny: usize,
}

/// How hard each thruster fires, each in `-1..=1`: `forward` the main
/// engine along the ship (negative: retro), `lift` the belly engines
/// across it (toward the ship's `+y`), `turn` the side thrusters at nose
/// and stern (positive: counter-clockwise).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Thrust {
    pub forward: f32,
    pub lift: f32,
    pub turn: f32,
}

impl Ship {
    /// A cell's size, m.
    pub const CELL: Vec2 = Vec2::splat(0.5);
    /// Mass of each point, kg.
    pub const POINT_MASS: f32 = 1.0;
    /// The main engine's force at full thrust, N, shared by the cells.
    pub const MAIN_FORCE: f32 = 60.0;
    /// The belly engines' force at full thrust, N: enough to hover at the
    /// home planet's surface.
    pub const LIFT_FORCE: f32 = 150.0;
    /// Each side thruster's force at full turn, N, on each of the nose
    /// and stern cells (opposite ways).
    pub const TURN_FORCE: f32 = 15.0;

    /// The ship's commands for one step of `thrust`: a force in each
    /// cell's own frame (which turns with the ship), at its centre of
    /// mass. Thrusts beyond `-1..=1` are clamped; a thrust that is not
    /// finite counts as 0.
    pub fn commands(&self, thrust: Thrust) -> Vec<Command> {
        let level = |x: f32| {
            if x.is_finite() {
                x.clamp(-1.0, 1.0)
            } else {
                0.0
            }
        };
        let (forward, lift, turn) = (
            level(thrust.forward),
            level(thrust.lift),
            level(thrust.turn),
        );
        let cells = self.bodies.len() as f32;
        let main = Vec2::new(forward * Self::MAIN_FORCE, lift * Self::LIFT_FORCE) / cells;
        self.bodies
            .iter()
            .enumerate()
            .filter_map(|(k, &body)| {
                let column = k % self.nx;
                let side = if column + 1 == self.nx {
                    turn * Self::TURN_FORCE
                } else if column == 0 {
                    -turn * Self::TURN_FORCE
                } else {
                    0.0
                };
                let force = main + Vec2::new(0.0, side);
                (force != Vec2::ZERO).then_some(Command::BodyLocalForce {
                    body,
                    force,
                    at: Vec2::ZERO,
                })
            })
            .collect()
    }

    /// The ship's total mass, kg.
    pub fn mass(&self) -> f32 {
        self.points.len() as f32 * Self::POINT_MASS
    }
}

/// The box (world metres, `(min, max)`) the window and a render show of
/// the game at first: the home planet and the ship's orbit.
pub fn view() -> (Vec2, Vec2) {
    let reach = Vec2::splat(ORBIT + 3.0);
    (HOME.0 - reach, HOME.0 + reach)
}

/// The game's world and its ship.
#[derive(Clone, Debug)]
pub struct ShipGame {
    pub world: World,
    pub ship: Ship,
}

/// The seed's game: a home planet and a moon that pull (the world's own
/// gravity off; the moon turns at [`MOON_SPIN`] and carries two crates
/// around), debris resting on the home planet and drifting between them, and a 4 by 2 ship in a circular orbit of radius [`ORBIT`] above
/// the home planet's top, its belly toward the planet, flying to `+x`
/// (clockwise).
pub fn ship_game() -> Result<ShipGame, WorldError> {
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    let (home, home_radius, home_g) = HOME;
    world.add_planet(Planet::new(home, home_radius).surface_gravity(home_g))?;
    // The moon turns (a kinematic planet): what rests on it is carried
    // around by friction.
    let (moon, moon_radius, moon_g) = MOON;
    world.add_planet(
        Planet::new(moon, moon_radius)
            .surface_gravity(moon_g)
            .spin(MOON_SPIN),
    )?;
    // Two crates on the moon, which its turning carries around.
    for k in 0..2 {
        let dir = Vec2::from_angle(1.2 + 0.5 * k as f32);
        BoxShape::new(moon + (moon_radius + 0.27) * dir, Vec2::splat(0.5))
            .rotation(1.2 + 0.5 * k as f32 - std::f32::consts::FRAC_PI_2)
            .build(&mut world)?;
    }
    // Debris on the home planet, set down where its pull holds them.
    for k in 0..10 {
        let a = 0.9 + 0.45 * k as f32;
        let dir = Vec2::from_angle(a);
        let (home, radius, _) = HOME;
        if k % 2 == 0 {
            let size = 0.4 + 0.05 * (k % 3) as f32;
            BoxShape::new(home + (radius + size / 2.0 + 0.02) * dir, Vec2::splat(size))
                .rotation(a)
                .build(&mut world)?;
        } else {
            Blob::new(home + (radius + 0.32) * dir, 0.3, 10)
                .rotation(a)
                .center_point(false)
                .build(&mut world)?;
        }
    }
    // Drifting debris: floating boxes near the moon, outside the ship's
    // starting orbit.
    for k in 0..4 {
        let at = Vec2::new(40.0 + 3.0 * k as f32, 14.0 + 2.0 * k as f32);
        BoxShape::new(at, Vec2::splat(0.6))
            .rotation(0.4 * k as f32)
            .style(
                ShapeStyle::new()
                    .vel(Vec2::new(0.0, 0.5))
                    .gravity_scale(0.0),
            )
            .build(&mut world)?;
    }
    let gm = home_g * home_radius * home_radius;
    let speed = (gm / ORBIT).sqrt();
    let (nx, ny) = (4, 2);
    let shape = BoxGrid::new(nx, ny, Ship::CELL)
        .center(home + Vec2::new(0.0, ORBIT))
        .style(
            ShapeStyle::new()
                .mass(Ship::POINT_MASS)
                .vel(Vec2::new(speed, 0.0)),
        )
        .build(&mut world)?;
    let ship = Ship {
        bodies: shape.bodies,
        points: shape.points,
        nx,
        ny,
    };
    Ok(ShipGame { world, ship })
}
