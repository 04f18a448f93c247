//! Built-in scenes: the default scene of the main program, and the
//! benchmark scenes.

use glam::Vec2;

use crate::error::WorldError;
use crate::shapes::{Blob, BoxGrid, BoxShape, Wheel};
use crate::world::{HalfPlane, Planet, World};

/// The planets of the default scene: `(centre, radius)`, m.
pub const DEFAULT_PLANETS: [(Vec2, f32); 6] = [
    (Vec2::new(-40.0, 20.0), 7.0),
    (Vec2::new(-14.0, 12.0), 4.5),
    (Vec2::new(12.0, 24.0), 8.5),
    (Vec2::new(40.0, 14.0), 5.5),
    (Vec2::new(-26.0, 42.0), 4.0),
    (Vec2::new(32.0, 44.0), 3.0),
];

/// Not used: the default scene's bodies follow
/// [`Params::shape_stiffness`](crate::Params::shape_stiffness).
#[deprecated(note = "the default scene uses the Params defaults (Params::shape_stiffness)")]
pub const DEFAULT_SCENE_SHAPE_STIFFNESS: f32 = 20_000.0;
/// Not used: the default scene's bodies follow
/// [`Params::spring_stiffness`](crate::Params::spring_stiffness).
#[deprecated(note = "the default scene uses the Params defaults (Params::spring_stiffness)")]
pub const DEFAULT_SCENE_SPRING_STIFFNESS: f32 = 8_000.0;
/// Not used: the default scene's contacts follow
/// [`Params::contact_iterations`](crate::Params::contact_iterations), whose
/// default is 2 passes too.
#[deprecated(note = "the default scene uses the Params default (Params::contact_iterations)")]
pub const DEFAULT_SCENE_CONTACT_ITERATIONS: u32 = 2;

/// Distance between neighbouring bodies when the scene is laid out, m.
const SPACING: f32 = 0.72;

/// Most bodies [`default_scene`] makes: about 10.4 million points (5.2 per
/// body), under a scene file's limit of 2^24 points. More is refused before
/// anything is built.
pub const MAX_DEFAULT_SCENE_BODIES: usize = 2_000_000;

/// The default scene: `bodies` shape-matched soft bodies (exactly that many:
/// boxes, wheels, round blobs and small multi-box "ships" whose cells share
/// corners, as in Lisitsa's game) around six planets of different sizes, in
/// a basin made of a floor and two slanted half-planes. Deterministic for a
/// given count.
///
/// Gravity is uniform (the solver has no planet gravity), so nothing can
/// orbit for long. To make the first seconds sweep around the planets
/// rather than merely rain down, about a third of the bodies start as rings
/// around the planets moving tangentially (each ring turning the other way
/// from its neighbour) and the rest as a wide curtain above them drifting
/// toward the middle; the rings wrap onto their planets and slide round them,
/// the curtain pours over the planets into the basin.
///
/// The bodies and contacts use the [`Params`] defaults. The curtain lands
/// at 30 to 47 m/s and piles up many bodies deep in the basin; with the
/// default two contact passes, at 10,000 bodies, while the curtain lands
/// (2 to 5 s), 0.1 to 2% of the points are inside another body (0.6 to 7%
/// with one pass); at 2,000 bodies after 20 s, 0.15% against 0.39%
/// (docs/physics.md, "Piles").
///
/// [`Params`]: crate::Params
pub fn default_scene(bodies: usize) -> Result<World, WorldError> {
    if bodies > MAX_DEFAULT_SCENE_BODIES {
        return Err(WorldError::TooMany {
            what: "default scene bodies",
            count: bodies as u64,
            limit: MAX_DEFAULT_SCENE_BODIES as u64,
        });
    }
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0))?;
    // Walls meeting the floor at x = +-63.6 m, leaning out.
    world.add_plane(HalfPlane::new(Vec2::new(1.0, 0.35), -60.0))?;
    world.add_plane(HalfPlane::new(Vec2::new(-1.0, 0.35), -60.0))?;
    for (c, r) in DEFAULT_PLANETS {
        world.add_planet(Planet::new(c, r))?;
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut made = 0usize;
    for (center, vel) in layout(bodies, &mut rng) {
        if made >= bodies {
            break;
        }
        made += add_body(&mut world, center, vel, bodies - made, &mut rng)?;
    }
    Ok(world)
}

/// Small deterministic generator (xorshift64), uniform in `[0, 1)`.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    fn signed(&mut self) -> f32 {
        self.next() * 2.0 - 1.0
    }
}

/// Body slots `(centre, velocity)`: rings around the planets first, then
/// the curtain, enough of them for `bodies` bodies (a ship may fill a slot
/// with several). Slots clear of every planet by at least 1.2 m.
fn layout(bodies: usize, rng: &mut Rng) -> Vec<(Vec2, Vec2)> {
    let clear = |p: Vec2| {
        DEFAULT_PLANETS
            .iter()
            .all(|(c, r)| p.distance(*c) > r + 1.2)
    };
    let mut slots = Vec::with_capacity(bodies);
    // Rings: about a third of the bodies, shared by the planets in
    // proportion to their radius; rings 1.5 m out, as many layers as needed.
    let total_r: f32 = DEFAULT_PLANETS.iter().map(|(_, r)| r).sum();
    for (k, (c, r)) in DEFAULT_PLANETS.iter().enumerate() {
        let want = (bodies as f32 / 3.0 * r / total_r) as usize;
        let spin = if k % 2 == 0 { 1.0 } else { -1.0 };
        let mut placed = 0;
        let mut layer = 0;
        while placed < want {
            let radius = r + 1.5 + layer as f32 * SPACING;
            let n = (std::f32::consts::TAU * radius / SPACING) as usize;
            for j in 0..n.min(want - placed) {
                let a = (j as f32 + 0.3 * rng.signed()) / n as f32 * std::f32::consts::TAU;
                let dir = Vec2::from_angle(a);
                let p = *c + dir * (radius + 0.1 * rng.signed());
                // Tangential speed of a circular orbit under g = 9.81 at
                // this radius: the ring whips round before it falls in.
                let speed = spin * (9.81 * radius).sqrt() * 0.6;
                slots.push((p, dir.perp() * speed));
                placed += 1;
            }
            layer += 1;
        }
    }
    // Curtain: rows above the planets, drifting toward the middle.
    let half_width = 58.0;
    let columns = (2.0 * half_width / SPACING) as usize;
    let mut row = 0;
    while slots.len() < bodies {
        let y = 54.0 + row as f32 * SPACING;
        for col in 0..columns {
            let x = -half_width + (col as f32 + 0.5) * SPACING;
            let p = Vec2::new(x + 0.15 * rng.signed(), y + 0.15 * rng.signed());
            if !clear(p) {
                continue;
            }
            let drift = -x / half_width * 5.0;
            slots.push((p, Vec2::new(drift + rng.signed(), rng.signed())));
        }
        row += 1;
    }
    slots
}

/// Adds one shape at a slot; returns how many bodies it added (at most
/// `left`).
fn add_body(
    world: &mut World,
    center: Vec2,
    vel: Vec2,
    left: usize,
    rng: &mut Rng,
) -> Result<usize, WorldError> {
    let angle = rng.next() * std::f32::consts::TAU;
    let pick = (rng.next() * 100.0) as u32;
    let shape = match pick {
        // Ships: 2x2 cells or a row of 3, sharing corners.
        0..=9 if left >= 4 => BoxGrid::new(2, 2, Vec2::splat(0.26))
            .center(center)
            .rotation(angle)
            .vel(vel)
            .build(world)?,
        10..=17 if left >= 3 => BoxGrid::new(3, 1, Vec2::splat(0.22))
            .center(center)
            .rotation(angle)
            .vel(vel)
            .build(world)?,
        18..=47 => BoxShape::new(center, Vec2::new(0.52, 0.44))
            .rotation(angle)
            .vel(vel)
            .build(world)?,
        48..=72 => Wheel::new(center, 0.28, 8)
            .rotation(angle)
            .vel(vel)
            .build(world)?,
        _ => Blob::new(center, 0.32, 10)
            .rotation(angle)
            .vel(vel)
            .build(world)?,
    };
    Ok(shape.bodies.len())
}

/// The benchmark scene with about `points` points: grids of 4-point boxes
/// sharing corners (about half the points), plus loose boxes, wheels and
/// blobs, all with springs and shape matching, over 8 planets and a floor.
/// Deterministic for a given size.
///
/// Body-body collisions are off: this is the core solver's benchmark (the
/// scene of issue 5, which has none); [`contact_scene`] measures them.
///
/// At most [`MAX_SHAPE_POINTS`](crate::shapes::MAX_SHAPE_POINTS) points
/// (else [`WorldError::TooMany`]; the layout of a huge count is beyond
/// f32, and would fail with a zero-length spring).
pub fn bench_scene(points: usize) -> Result<World, WorldError> {
    let limit = crate::shapes::MAX_SHAPE_POINTS;
    if points as u64 > limit {
        return Err(WorldError::TooMany {
            what: "points",
            count: points as u64,
            limit,
        });
    }
    let mut world = World::default();
    world.params.body_collisions = false;
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

/// The contact-heavy benchmark scene: [`default_scene`] with `bodies`
/// bodies (about 5.2 points each) and body-body collisions on (the
/// default). The benchmark steps it a while first, so that the rings have
/// wrapped onto the planets and the bodies pile up.
pub fn contact_scene(bodies: usize) -> Result<World, WorldError> {
    let world = default_scene(bodies)?;
    debug_assert!(world.params.body_collisions);
    Ok(world)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_scene_has_exactly_the_bodies_asked_for() {
        for n in [1, 7, 500, 3001] {
            let w = default_scene(n).unwrap();
            assert_eq!(w.bodies().len(), n, "{n} bodies");
            assert_eq!(w.planets().len(), DEFAULT_PLANETS.len());
        }
        assert_eq!(default_scene(200).unwrap(), default_scene(200).unwrap());
    }

    #[test]
    fn a_bench_scene_beyond_the_point_limit_is_refused() {
        for n in [(crate::shapes::MAX_SHAPE_POINTS + 1) as usize, usize::MAX] {
            assert!(
                matches!(
                    bench_scene(n),
                    Err(WorldError::TooMany { what: "points", .. })
                ),
                "{n}"
            );
        }
    }

    #[test]
    fn no_body_starts_inside_a_planet_or_a_half_plane() {
        let w = default_scene(4000).unwrap();
        for p in w.points() {
            for planet in w.planets() {
                assert!(p.pos.distance(planet.center) > planet.radius, "{:?}", p.pos);
            }
            for plane in w.planes() {
                assert!(plane.normal.dot(p.pos) > plane.offset, "{:?}", p.pos);
            }
        }
    }
}
