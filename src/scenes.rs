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

/// Bodies per basin of [`default_scene`]: a larger count gets more basins
/// side by side, so that the curtain and the pile stay about as high as at
/// this count (m, tens of metres) however many bodies there are.
pub const DEFAULT_SCENE_BODIES_PER_BASIN: usize = 5_000;

/// Width of one basin of [`default_scene`] where it meets the floor, m.
pub const DEFAULT_SCENE_BASIN_WIDTH: f32 = 127.2;

/// How many basins [`default_scene`] lays `bodies` bodies out in: one per
/// [`DEFAULT_SCENE_BODIES_PER_BASIN`] started, at least one.
pub fn default_scene_basins(bodies: usize) -> usize {
    bodies.div_ceil(DEFAULT_SCENE_BODIES_PER_BASIN).max(1)
}

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
/// Gravity is uniform (its planets do not pull, though `Planet::gravity`
/// could make them), so nothing can orbit for long. To make the first seconds sweep around the planets
/// rather than merely rain down, about a third of the bodies start as rings
/// around the planets moving tangentially (each ring turning the other way
/// from its neighbour) and the rest as a wide curtain above them drifting
/// toward the middle; the rings wrap onto their planets and slide round them,
/// the curtain pours over the planets into the basin. The slots are
/// jittered; a slot whose body would reach within the point radius of one
/// placed before is left empty (the curtain grows by rows to make up for
/// it), so no body starts inside another.
///
/// More than [`DEFAULT_SCENE_BODIES_PER_BASIN`] bodies get more basins
/// ([`default_scene_basins`]): the six planets repeat every
/// [`DEFAULT_SCENE_BASIN_WIDTH`] metres, the floor between the two walls
/// widens by as much, and each basin's rings and curtain are laid out as
/// in a scene of its share of the bodies. So at any count the curtain
/// starts below 75 m and lands at up to about 38 m/s, and the pile is as
/// deep as one basin's: 100,000 bodies in one basin (rows up to 527 m,
/// landing at up to 100 m/s on a pile many times deeper) bury half of
/// their points inside other bodies within 10 s (docs/physics.md, "Limits
/// we measured").
///
/// The bodies and contacts use the [`Params`] defaults (docs/physics.md,
/// "Piles" and "Limits we measured", for what they do here).
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
    let basins = Basins::new(default_scene_basins(bodies));
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0))?;
    // Walls meeting the floor half a basin width beyond the outer basins'
    // middles (x = +-63.6 m for one basin), leaning out.
    let wall = -60.0 * basins.count as f32;
    world.add_plane(HalfPlane::new(Vec2::new(1.0, 0.35), wall))?;
    world.add_plane(HalfPlane::new(Vec2::new(-1.0, 0.35), wall))?;
    for (c, r) in basins.planets() {
        world.add_planet(Planet::new(c, r))?;
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut placed = Placed::new(world.params.point_radius);
    let mut made = 0usize;
    let (mut slots, mut row) = layout(bodies, &basins, &mut rng);
    let mut next = 0;
    while made < bodies {
        if next == slots.len() {
            // Slots left empty for overlap: more curtain rows above.
            row = curtain(&mut slots, bodies - made, row, &basins, &mut rng);
        }
        let (center, vel) = slots[next];
        next += 1;
        let angle = rng.next() * std::f32::consts::TAU;
        let kind = Kind::pick(rng.next(), bodies - made);
        // A slot whose body would reach into one already placed (the
        // slots' jitter brings neighbours closer than two of the larger
        // shapes span) is left empty: no body starts inside another.
        if !placed.insert(center, kind.reach()) {
            continue;
        }
        made += kind.add(&mut world, center, vel, angle)?;
    }
    Ok(world)
}

/// The part of a [`default_scene`] world a view shows first: its middle
/// basin (of an even count, the left of the two middle ones), from the
/// floor to the highest point or planet in it, so that the bodies are
/// drawn as large as in a scene of one basin; with one basin, the whole
/// scene. `(min, max)` in metres, `None` when the basin holds nothing.
/// Meant for `world` as `default_scene` made it (its body count gives the
/// basins), as the window opens on it.
pub fn default_scene_view(world: &World) -> Option<(Vec2, Vec2)> {
    let basins = Basins::new(default_scene_basins(world.bodies().len()));
    let middle = basins.middle((basins.count - 1) / 2);
    let half = DEFAULT_SCENE_BASIN_WIDTH / 2.0;
    let (mut min, max) = world.bounds(|p| (p.x - middle).abs() <= half)?;
    // The floor, where the pile will be.
    min.y = min.y.min(0.0);
    Some((min, max))
}

/// The basins of the default scene side by side, centred on x = 0.
struct Basins {
    count: usize,
}

impl Basins {
    fn new(count: usize) -> Self {
        Self { count }
    }

    /// The middle of basin `i`, m.
    fn middle(&self, i: usize) -> f32 {
        (i as f32 - (self.count - 1) as f32 / 2.0) * DEFAULT_SCENE_BASIN_WIDTH
    }

    /// Every basin's planets: [`DEFAULT_PLANETS`] moved to its middle.
    fn planets(&self) -> impl Iterator<Item = (Vec2, f32)> + '_ {
        (0..self.count).flat_map(move |i| {
            DEFAULT_PLANETS
                .iter()
                .map(move |&(c, r)| (c + Vec2::new(self.middle(i), 0.0), r))
        })
    }

    /// Whether a slot at `p` is clear of every planet by at least 1.2 m.
    /// Only the nearest basin's planets can be that close: they lie within
    /// 49 m of its middle, and basins are 127 m apart.
    fn clear(&self, p: Vec2) -> bool {
        let last = (self.count - 1) as f32;
        let i = (p.x / DEFAULT_SCENE_BASIN_WIDTH + last / 2.0)
            .round()
            .clamp(0.0, last) as usize;
        let shift = Vec2::new(self.middle(i), 0.0);
        DEFAULT_PLANETS
            .iter()
            .all(|&(c, r)| p.distance(c + shift) > r + 1.2)
    }
}

/// The circles of the bodies placed so far (centre, reach grown by the
/// point radius), in a grid of cells as wide as the largest circle's
/// diameter, so that a circle can only meet circles of its own and the
/// eight neighbouring cells.
struct Placed {
    margin: f32,
    cells: std::collections::HashMap<(i32, i32), Vec<(Vec2, f32)>>,
}

impl Placed {
    /// Reach of the largest shape [`Kind`] makes, m.
    const MAX_REACH: f32 = 0.37;

    fn new(point_radius: f32) -> Self {
        Self {
            margin: point_radius,
            cells: Default::default(),
        }
    }

    fn cell(&self, p: Vec2) -> (i32, i32) {
        let size = 2.0 * (Self::MAX_REACH + self.margin);
        ((p.x / size).floor() as i32, (p.y / size).floor() as i32)
    }

    /// Places a circle of `reach` (plus the margin) at `center` unless it
    /// meets one placed before; whether it was placed.
    fn insert(&mut self, center: Vec2, reach: f32) -> bool {
        debug_assert!(reach <= Self::MAX_REACH);
        let r = reach + self.margin;
        let (cx, cy) = self.cell(center);
        for y in cy - 1..=cy + 1 {
            for x in cx - 1..=cx + 1 {
                let Some(list) = self.cells.get(&(x, y)) else {
                    continue;
                };
                if list.iter().any(|&(c, rc)| c.distance(center) < r + rc) {
                    return false;
                }
            }
        }
        self.cells.entry((cx, cy)).or_default().push((center, r));
        true
    }
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
/// with several), and the curtain's next row.
fn layout(bodies: usize, basins: &Basins, rng: &mut Rng) -> (Vec<(Vec2, Vec2)>, usize) {
    let mut slots = Vec::with_capacity(bodies);
    // Rings: about a third of the bodies, shared by the planets in
    // proportion to their radius; rings 1.5 m out, as many layers as needed.
    let total_r: f32 = basins.planets().map(|(_, r)| r).sum();
    for (k, (c, r)) in basins.planets().enumerate() {
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
                let p = c + dir * (radius + 0.1 * rng.signed());
                // Tangential speed of a circular orbit under g = 9.81 at
                // this radius: the ring whips round before it falls in.
                let speed = spin * (9.81 * radius).sqrt() * 0.6;
                slots.push((p, dir.perp() * speed));
                placed += 1;
            }
            layer += 1;
        }
    }
    let want = bodies.saturating_sub(slots.len());
    let row = curtain(&mut slots, want, 0, basins, rng);
    (slots, row)
}

/// Adds at least `want` curtain slots to `slots`: whole rows above the
/// planets (row 0 at 54 m), across every basin, each basin's part
/// drifting toward its middle, from row `row`; returns the row after the
/// last.
fn curtain(
    slots: &mut Vec<(Vec2, Vec2)>,
    want: usize,
    mut row: usize,
    basins: &Basins,
    rng: &mut Rng,
) -> usize {
    let half_width = 58.0;
    let columns = (2.0 * half_width / SPACING) as usize;
    let goal = slots.len() + want;
    while slots.len() < goal {
        let y = 54.0 + row as f32 * SPACING;
        for basin in 0..basins.count {
            let middle = basins.middle(basin);
            for col in 0..columns {
                let x = -half_width + (col as f32 + 0.5) * SPACING;
                let p = Vec2::new(middle + x + 0.15 * rng.signed(), y + 0.15 * rng.signed());
                if !basins.clear(p) {
                    continue;
                }
                let drift = -x / half_width * 5.0;
                slots.push((p, Vec2::new(drift + rng.signed(), rng.signed())));
            }
        }
        row += 1;
    }
    row
}

/// The shapes of the default scene.
#[derive(Clone, Copy)]
enum Kind {
    /// A ship of 2 x 2 cells of 0.26 m sharing corners.
    Ship2x2,
    /// A ship of a row of 3 cells of 0.22 m.
    Ship3x1,
    /// A 0.52 x 0.44 m box.
    Box,
    /// A wheel of 8 rim points, radius 0.28 m.
    Wheel,
    /// A round blob of 10 points, radius 0.32 m.
    Blob,
}

impl Kind {
    /// The shape for a uniform draw `u` in `[0, 1)`, with at most `left`
    /// bodies still to make (a ship is several).
    fn pick(u: f32, left: usize) -> Self {
        match (u * 100.0) as u32 {
            0..=9 if left >= 4 => Self::Ship2x2,
            10..=17 if left >= 3 => Self::Ship3x1,
            18..=47 => Self::Box,
            48..=72 => Self::Wheel,
            _ => Self::Blob,
        }
    }

    /// The farthest any of its points lies from its centre, m.
    fn reach(self) -> f32 {
        match self {
            Self::Ship2x2 => Vec2::splat(0.26).length(),
            Self::Ship3x1 => Vec2::new(0.33, 0.11).length(),
            Self::Box => Vec2::new(0.26, 0.22).length(),
            Self::Wheel => 0.28,
            Self::Blob => 0.32,
        }
    }

    /// Adds the shape; returns how many bodies it added.
    fn add(
        self,
        world: &mut World,
        center: Vec2,
        vel: Vec2,
        angle: f32,
    ) -> Result<usize, WorldError> {
        let shape = match self {
            Self::Ship2x2 => BoxGrid::new(2, 2, Vec2::splat(0.26))
                .center(center)
                .rotation(angle)
                .vel(vel)
                .build(world)?,
            Self::Ship3x1 => BoxGrid::new(3, 1, Vec2::splat(0.22))
                .center(center)
                .rotation(angle)
                .vel(vel)
                .build(world)?,
            Self::Box => BoxShape::new(center, Vec2::new(0.52, 0.44))
                .rotation(angle)
                .vel(vel)
                .build(world)?,
            Self::Wheel => Wheel::new(center, 0.28, 8)
                .rotation(angle)
                .vel(vel)
                .build(world)?,
            Self::Blob => Blob::new(center, 0.32, 10)
                .rotation(angle)
                .vel(vel)
                .build(world)?,
        };
        Ok(shape.bodies.len())
    }
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
        for (n, basins) in [(1, 1), (7, 1), (500, 1), (3001, 1), (5000, 1), (5001, 2)] {
            let w = default_scene(n).unwrap();
            assert_eq!(w.bodies().len(), n, "{n} bodies");
            assert_eq!(default_scene_basins(n), basins, "{n} bodies");
            assert_eq!(w.planets().len(), basins * DEFAULT_PLANETS.len());
        }
        assert_eq!(default_scene(200).unwrap(), default_scene(200).unwrap());
    }

    /// More bodies widen the scene by whole basins and leave its height as
    /// it is: the curtain of 20,000 bodies starts no higher than that of
    /// 5,000, within a row, and spans four basins; every point is between
    /// the walls.
    #[test]
    fn more_bodies_widen_the_default_scene_rather_than_raise_it() {
        let bounds = |n: usize| {
            let w = default_scene(n).unwrap();
            let (lo, hi) = w.bounds(|_| true).unwrap();
            for p in w.points() {
                for plane in w.planes() {
                    let n = plane.normal.normalize();
                    assert!(
                        n.dot(p.pos) > plane.offset,
                        "{n} bodies: {:?} outside",
                        p.pos
                    );
                }
            }
            (lo, hi)
        };
        let (lo1, hi1) = bounds(5000);
        let (lo4, hi4) = bounds(20_000);
        assert!(hi4.y < hi1.y + SPACING, "top {} against {}", hi4.y, hi1.y);
        let (w1, w4) = (hi1.x - lo1.x, hi4.x - lo4.x);
        let extra = w4 - w1;
        assert!(
            (extra - 3.0 * DEFAULT_SCENE_BASIN_WIDTH).abs() < 5.0,
            "widths {w1} and {w4}"
        );
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

    /// The first view of one basin is the whole scene down to the floor; of
    /// four, the second basin whole (its six planets, its curtain up to
    /// the top, the floor) and of the others only what reaches over its
    /// borders.
    #[test]
    fn the_first_view_shows_the_middle_basin() {
        let whole = |w: &World| w.bounds(|_| true).unwrap();
        let one = default_scene(3000).unwrap();
        let (min, max) = whole(&one);
        let floor = Vec2::new(min.x, 0.0);
        assert_eq!(default_scene_view(&one), Some((floor, max)));
        let four = default_scene(20_000).unwrap();
        let (min, max) = default_scene_view(&four).unwrap();
        let (all_min, all_max) = whole(&four);
        let middle = -DEFAULT_SCENE_BASIN_WIDTH / 2.0;
        assert!((max.x - min.x) <= DEFAULT_SCENE_BASIN_WIDTH, "{min} {max}");
        assert!(max.y > all_max.y - 1.0 && min.y == 0.0, "{min} {max}");
        assert!(all_min.x < min.x - DEFAULT_SCENE_BASIN_WIDTH / 2.0);
        for (c, r) in DEFAULT_PLANETS {
            let c = c + Vec2::new(middle, 0.0);
            assert!(
                min.x <= c.x - r && c.x + r <= max.x,
                "planet at {c} outside {min} {max}"
            );
        }
    }

    /// No point or centre of one body starts inside another body's outline
    /// (the pile report's counts) or within the point radius of it, where
    /// the two would start in contact.
    #[test]
    fn no_body_starts_inside_another() {
        let w = default_scene(12_000).unwrap();
        let packed = crate::pack::Packed::from_world(&w).unwrap();
        let report = crate::measure::pile_report(&packed, &packed.pos, &packed.vel);
        assert_eq!(
            (report.points_inside, report.bodies_overlapped),
            (0, 0),
            "{report}"
        );
        let r = w.params.point_radius;
        let pos = |h: &crate::world::PointHandle| w.points()[h.index()].pos;
        let outlines: Vec<Vec<Vec2>> = w
            .bodies()
            .iter()
            .map(|b| {
                b.boundary
                    .as_ref()
                    .unwrap_or(&b.points)
                    .iter()
                    .map(pos)
                    .collect()
            })
            .collect();
        let boxes: Vec<(Vec2, Vec2)> = outlines
            .iter()
            .map(|o| {
                let lo = o.iter().fold(Vec2::MAX, |a, &p| a.min(p));
                let hi = o.iter().fold(Vec2::MIN, |a, &p| a.max(p));
                (lo - Vec2::splat(r), hi + Vec2::splat(r))
            })
            .collect();
        let mut order: Vec<usize> = (0..boxes.len()).collect();
        order.sort_by(|&a, &b| boxes[a].0.x.total_cmp(&boxes[b].0.x));
        let mut pairs = 0;
        for (k, &a) in order.iter().enumerate() {
            for &b in &order[k + 1..] {
                if boxes[b].0.x > boxes[a].1.x {
                    break;
                }
                let (ba, bb) = (&w.bodies()[a], &w.bodies()[b]);
                if boxes[b].0.y > boxes[a].1.y
                    || boxes[a].0.y > boxes[b].1.y
                    || ba.points.iter().any(|p| bb.points.contains(p))
                {
                    continue;
                }
                pairs += 1;
                for (one, other) in [(a, b), (b, a)] {
                    let poly = &outlines[other];
                    for &p in &outlines[one] {
                        let near = (0..poly.len()).any(|k| {
                            let (e0, e1) = (poly[k], poly[(k + 1) % poly.len()]);
                            let t = ((p - e0).dot(e1 - e0) / (e1 - e0).length_squared())
                                .clamp(0.0, 1.0);
                            p.distance(e0 + (e1 - e0) * t) < r
                        });
                        assert!(!near, "body {one} at {p:?} touches body {other}");
                    }
                }
            }
        }
        // Neighbours whose boxes meet were compared.
        assert!(pairs > 200, "{pairs} pairs");
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
