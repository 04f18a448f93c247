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

/// The benchmark scene with about `points` points: grids of 4-point boxes
/// sharing corners (about half the points), plus loose boxes, wheels and
/// blobs, all with springs and shape matching, over 8 planets and a floor.
/// Deterministic for a given size.
pub fn bench_scene(points: usize) -> Result<World, WorldError> {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0))?;
    // Lay everything out on a square of side ~ sqrt(points) metres.
    let side = (points as f32).sqrt().max(8.0);
    for k in 0..8 {
        let x = (k as f32 + 0.5) / 8.0 * side - side / 2.0;
        let r = side / 40.0 + 0.5 * (k % 3) as f32;
        world.add_planet(Planet::new(
            Vec2::new(x, side * 0.15 + (k % 2) as f32 * side * 0.1),
            r,
        ))?;
    }
    let grid_points = points / 2;
    // 10 x 10 grids (121 points each) in a row-major layout.
    let grids = grid_points.div_ceil(121).max(1);
    let cols = (grids as f32).sqrt().ceil() as usize;
    for g in 0..grids {
        let c = Vec2::new(
            (g % cols) as f32 * 6.0 - cols as f32 * 3.0,
            side * 0.4 + (g / cols) as f32 * 6.0,
        );
        BoxGrid::new(10, 10, Vec2::splat(0.5))
            .center(c)
            .build(&mut world)?;
    }
    let mut k = 0usize;
    while world.points().len() < points {
        let c = Vec2::new(
            (k % 200) as f32 * 1.2 - 120.0,
            side * 0.4 + (grids / cols + 1) as f32 * 6.0 + (k / 200) as f32 * 1.2,
        );
        match k % 3 {
            0 => {
                BoxShape::new(c, Vec2::splat(0.5)).build(&mut world)?;
            }
            1 => {
                Wheel::new(c, 0.4, 8).build(&mut world)?;
            }
            _ => {
                Blob::new(c, 0.4, 12).build(&mut world)?;
            }
        }
        k += 1;
    }
    Ok(world)
}
