//! Built-in scenes: the default scene of the main program, and the
//! benchmark scenes.

use glam::Vec2;

use crate::error::WorldError;
use crate::shapes::{Blob, BoxGrid, BoxShape, Wheel};
use crate::world::{HalfPlane, Planet, World};

/// The default scene: `bodies` soft bodies (a mix of boxes, wheels, round
/// blobs and multi-box "ships" of 2x2 boxes sharing corners, as in seed 001's
/// game) raining onto several planets of different sizes in a basin made of
/// a floor and two slanted half-planes. Deterministic for a given count.
pub fn default_scene(bodies: usize) -> Result<World, WorldError> {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0))?;
    world.add_plane(HalfPlane::new(Vec2::new(1.0, 0.35), -40.0))?;
    world.add_plane(HalfPlane::new(Vec2::new(-1.0, 0.35), -40.0))?;
    let planets = [
        (Vec2::new(-22.0, 14.0), 6.0),
        (Vec2::new(0.0, 8.0), 4.0),
        (Vec2::new(20.0, 16.0), 7.0),
        (Vec2::new(-8.0, 30.0), 3.0),
        (Vec2::new(10.0, 34.0), 2.5),
    ];
    for (c, r) in planets {
        world.add_planet(Planet::new(c, r))?;
    }
    // Bodies on a jittered lattice above the planets, 0.8 m apart.
    let columns = 80usize;
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut made = 0;
    let mut slot = 0usize;
    while made < bodies {
        let col = slot % columns;
        let row = slot / columns;
        slot += 1;
        let center = Vec2::new(
            (col as f32 - columns as f32 / 2.0) * 0.8 + 0.2 * next(),
            44.0 + row as f32 * 0.8 + 0.2 * next(),
        );
        let angle = next() * std::f32::consts::TAU;
        let vel = Vec2::new(next() - 0.5, next() - 0.5) * 2.0;
        let inside_planet = planets.iter().any(|(c, r)| center.distance(*c) < r + 1.0);
        if inside_planet {
            continue;
        }
        match made % 8 {
            0..=3 => {
                BoxShape::new(center, Vec2::splat(0.5))
                    .rotation(angle)
                    .vel(vel)
                    .build(&mut world)?;
            }
            4 | 5 => {
                Wheel::new(center, 0.3, 8)
                    .rotation(angle)
                    .vel(vel)
                    .build(&mut world)?;
            }
            6 => {
                Blob::new(center, 0.32, 10)
                    .rotation(angle)
                    .vel(vel)
                    .build(&mut world)?;
            }
            _ => {
                // A small ship: 2x2 boxes sharing corners, counted as one.
                BoxGrid::new(2, 1, Vec2::splat(0.3))
                    .center(center)
                    .rotation(angle)
                    .vel(vel)
                    .build(&mut world)?;
            }
        }
        made += 1;
    }
    Ok(world)
}
