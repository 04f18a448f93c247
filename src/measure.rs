//! Whether a pile looks and behaves right: overlapping, crushed and
//! inverted bodies, and how fast the points still move, for one state.
//!
//! Pure functions of a [`Packed`] world and a state (the solvers'
//! `positions()`/`velocities()`, or a GPU read-back), so that the same
//! numbers can be taken on either path. The targets of issue 25 ("after
//! 15 s fewer than 0.5% of the points inside another body, fewer than 1% of
//! the bodies below half their rest area, none inside out, ...") are read
//! off a [`PileReport`].

use std::collections::HashMap;
use std::fmt;

use crate::cpu::body_collide::{layers_meet, meets_joined};
use crate::layout::CONTACT_FREE;
use crate::pack::Packed;

/// Signed area of body `body`'s outline (the polygon body-body collisions
/// use, [`Packed::outlines`]) at positions `pos`, m^2: positive when the
/// outline runs counter-clockwise, as every outline does at rest, negative
/// when the body is turned inside out. Zero for an outline of fewer than 3
/// points. Summed in f64 about the outline's first point, so a small body
/// far from the origin keeps its digits.
///
/// # Panics
///
/// When `body` is not a body of `packed` or `pos` has fewer entries than
/// the outline's points need.
pub fn signed_area(packed: &Packed, pos: &[[f32; 2]], body: usize) -> f32 {
    let o = &packed.outlines[body];
    let pts = &packed.outline_points[o.first as usize..(o.first + o.count) as usize];
    shoelace(pts.iter().map(|&p| pos[p as usize])) as f32
}

/// Signed area of body `body`'s outline in its rest shape, m^2 (positive
/// for an outline of 3 points or more that encloses an area: packing makes
/// every outline counter-clockwise at rest). Taken from the bodies' rest
/// offsets ([`Member::rest`](crate::layout::Member::rest)), so it needs no
/// copy of the initial state and holds for a body built with an explicit
/// rest shape.
///
/// # Panics
///
/// When `body` is not a body of `packed`.
pub fn rest_area(packed: &Packed, body: usize) -> f32 {
    let info = &packed.bodies[body];
    let members = &packed.members[info.first as usize..(info.first + info.count) as usize];
    let o = &packed.outlines[body];
    let pts = &packed.outline_points[o.first as usize..(o.first + o.count) as usize];
    // Small bodies (boxes, wheels) look their members up by a scan; a large
    // blob through a map, so a 10,000-point outline is not quadratic.
    if members.len() <= 32 {
        let rest_of = |p: u32| members.iter().find(|m| m.point == p).map(|m| m.rest);
        shoelace(pts.iter().map(|&p| rest_of(p).unwrap_or([0.0; 2]))) as f32
    } else {
        let rest_of: HashMap<u32, [f32; 2]> = members.iter().map(|m| (m.point, m.rest)).collect();
        shoelace(
            pts.iter()
                .map(|p| rest_of.get(p).copied().unwrap_or([0.0; 2])),
        ) as f32
    }
}

/// Shoelace formula in f64, relative to the first vertex (so that far from
/// the origin the area is not lost in rounding): the polygon's signed
/// area, positive counter-clockwise. The one home of that sum.
pub(crate) fn shoelace(mut vertices: impl Iterator<Item = [f32; 2]>) -> f64 {
    let Some(first) = vertices.next() else {
        return 0.0;
    };
    let rel = |p: [f32; 2]| (p[0] as f64 - first[0] as f64, p[1] as f64 - first[1] as f64);
    let mut twice = 0.0;
    let mut prev = (0.0, 0.0);
    for p in vertices {
        let q = rel(p);
        twice += prev.0 * q.1 - prev.1 * q.0;
        prev = q;
    }
    twice / 2.0
}

/// How a pile stands, for one state: the numbers behind issue 25's
/// targets. Bodies are the colliding ones (`Packed::colliders`, the first
/// `sim.num_colliders`: outlines of 3 points or more that enclose an area,
/// with body collisions on); points are all of them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PileReport {
    /// Points in the world.
    pub points: usize,
    /// Points strictly inside the outline of a colliding body they may
    /// collide with (of another assembly, or of their own but not joined
    /// to them) whose layers meet theirs: points the contacts should have
    /// kept out. The crossing-number test of the narrow phase, so a point
    /// exactly on an edge counts as the solver sees it.
    pub points_inside: usize,
    /// Colliding bodies.
    pub bodies: usize,
    /// Colliding bodies whose outline's centre (the mean of its points)
    /// lies strictly inside the outline of a colliding body they may
    /// collide with whose layers meet: two bodies that passed into each other,
    /// or one wrapped round another's corner. `points_inside` misses them,
    /// as their points lie on or near each other's outlines.
    pub bodies_overlapped: usize,
    /// Colliding bodies whose signed area is below half their rest area
    /// (inside-out ones included).
    pub below_half_area: usize,
    /// Colliding bodies whose signed area is negative (turned inside out).
    pub inside_out: usize,
    /// Smallest ratio of signed area to rest area over the colliding
    /// bodies (negative for one inside out); 1 when there are none.
    pub min_area_ratio: f32,
    /// Root mean square speed of the non-pinned points, m/s; NaN when a
    /// velocity is.
    pub rms_speed: f64,
    /// Largest speed of a non-pinned point, m/s; NaN when a velocity is.
    pub max_speed: f64,
}

impl PileReport {
    /// `points_inside` as a fraction of the points (0 without points).
    pub fn inside_fraction(&self) -> f64 {
        self.points_inside as f64 / self.points.max(1) as f64
    }

    /// `below_half_area` as a fraction of the bodies (0 without bodies).
    pub fn below_half_fraction(&self) -> f64 {
        self.below_half_area as f64 / self.bodies.max(1) as f64
    }
}

impl fmt::Display for PileReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "inside {}/{} pts ({:.2}%) | {} bodies: {} overlapped, {} below half area ({:.1}%), {} inside out, min area {:.2} | speed rms {:.3} max {:.3} m/s",
            self.points_inside,
            self.points,
            100.0 * self.inside_fraction(),
            self.bodies,
            self.bodies_overlapped,
            self.below_half_area,
            100.0 * self.below_half_fraction(),
            self.inside_out,
            self.min_area_ratio,
            self.rms_speed,
            self.max_speed,
        )
    }
}

/// The [`PileReport`] of the state `pos`, `vel` of `packed`'s world. Areas
/// are compared with the bodies' rest shapes ([`rest_area`]), so the
/// initial state need not be kept. About linear in points + outline
/// points: the bodies' bounding boxes are binned in a uniform grid, and
/// each point is tested against the bodies of its cell only. Measured (one
/// thread, release build): 4 ms for a 20,000-body pour as built, 54 ms
/// with its rows folded onto each other so that 96% of the points are
/// inside another body.
///
/// # Panics
///
/// When `pos` or `vel` does not have one entry per point of `packed`.
pub fn pile_report(packed: &Packed, pos: &[[f32; 2]], vel: &[[f32; 2]]) -> PileReport {
    let n = packed.pos.len();
    assert!(
        pos.len() == n && vel.len() == n,
        "pile_report: {} positions and {} velocities for {n} points",
        pos.len(),
        vel.len()
    );
    let colliders = colliding_bodies(packed);
    let (points_inside, bodies_overlapped) = inside_counts(packed, pos, colliders);
    let mut report = PileReport {
        points: n,
        points_inside,
        bodies: colliders.len(),
        bodies_overlapped,
        min_area_ratio: 1.0,
        ..PileReport::default()
    };
    for &b in colliders {
        let ratio = signed_area(packed, pos, b as usize) / rest_area(packed, b as usize);
        report.below_half_area += usize::from(ratio < 0.5);
        report.inside_out += usize::from(ratio < 0.0);
        report.min_area_ratio = report.min_area_ratio.min(ratio);
    }
    let (mut sum, mut count) = (0.0f64, 0usize);
    for (v, info) in vel.iter().zip(&packed.point_info) {
        if info.inv_mass == 0.0 {
            continue;
        }
        let speed = (v[0] as f64).hypot(v[1] as f64);
        sum += speed * speed;
        count += 1;
        // NaN once any speed is (f64::max would pass over it).
        report.max_speed = if speed.is_nan() || report.max_speed.is_nan() {
            f64::NAN
        } else {
            report.max_speed.max(speed)
        };
    }
    report.rms_speed = (sum / count.max(1) as f64).sqrt();
    report
}

/// How fast the points moved between two states `dt` seconds apart, as
/// seen on screen: `(rms, largest)` of `|after - before| / dt` over the
/// points, in m/s (`(0, 0)` without points; NaN when a position is). In a
/// pile it differs from the velocities, which also hold what the contacts
/// take back within the step (docs/physics.md, "Limits we measured").
///
/// # Panics
///
/// When the two states have different lengths.
pub fn motion(before: &[[f32; 2]], after: &[[f32; 2]], dt: f32) -> (f64, f64) {
    assert_eq!(
        before.len(),
        after.len(),
        "motion: states of different sizes"
    );
    let (mut sum, mut max) = (0.0f64, 0.0f64);
    for (a, b) in before.iter().zip(after) {
        let d = (b[0] as f64 - a[0] as f64).hypot(b[1] as f64 - a[1] as f64) / dt as f64;
        sum += d * d;
        max = if d.is_nan() || max.is_nan() {
            f64::NAN
        } else {
            max.max(d)
        };
    }
    ((sum / before.len().max(1) as f64).sqrt(), max)
}

/// The colliding bodies' indices.
fn colliding_bodies(packed: &Packed) -> &[u32] {
    let count = (packed.sim.num_colliders as usize).min(packed.colliders.len());
    &packed.colliders[..count]
}

/// Whether `[x, y]`, of assembly `group` with contact filter `filter_id`
/// and joined bodies `joins` (`None`: any), is strictly inside the outline
/// of body `body` that it may collide with (of another assembly, or of its
/// own but not joined to it) with layers that meet its own; `bb` is the
/// outline's bounding box. The crossing-number test of `cpu::body_collide::test_body`, in the
/// same f32 arithmetic.
fn is_inside(
    packed: &Packed,
    pos: &[[f32; 2]],
    [x, y]: [f32; 2],
    side: Option<(u32, u32, u32)>,
    body: usize,
    bb: &[f32; 4],
) -> bool {
    if !(x > bb[0] && y > bb[1] && x < bb[2] && y < bb[3]) {
        return false;
    }
    let o = &packed.outlines[body];
    if let Some((group, filter_id, joins)) = side {
        if group == o.group && !meets_joined(&packed.outline_points, joins, body as u32) {
            return false;
        }
        let filter = |id: u32| packed.contact_filters.get((id & !CONTACT_FREE) as usize);
        if let (Some(pf), Some(bf)) = (filter(filter_id), filter(o.filter_id))
            && !layers_meet(pf, bf)
        {
            return false;
        }
    }
    let pts = &packed.outline_points[o.first as usize..(o.first + o.count) as usize];
    let mut inside = false;
    let mut a = pos[pts[pts.len() - 1] as usize];
    for &k in pts {
        let c = pos[k as usize];
        if (a[1] > y) != (c[1] > y) {
            let cross = a[0] + (y - a[1]) / (c[1] - a[1]) * (c[0] - a[0]);
            if x < cross {
                inside = !inside;
            }
        }
        a = c;
    }
    inside
}

/// Bounding box `[min x, min y, max x, max y]` of a body's outline, `None`
/// when a coordinate is not finite (such a body holds no point).
fn outline_box(packed: &Packed, pos: &[[f32; 2]], body: usize) -> Option<[f32; 4]> {
    let o = &packed.outlines[body];
    let pts = &packed.outline_points[o.first as usize..(o.first + o.count) as usize];
    let mut bb = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
    for &p in pts {
        let [x, y] = pos[p as usize];
        if !(x.is_finite() && y.is_finite()) {
            return None;
        }
        bb = [bb[0].min(x), bb[1].min(y), bb[2].max(x), bb[3].max(y)];
    }
    Some(bb)
}

/// A body spanning more cells than this is tested against every point
/// rather than binned.
const MAX_CELLS_PER_BODY: usize = 16;

/// The colliding bodies' bounding boxes binned in a uniform grid whose
/// cell is the median box extent (so most bodies fall in 1 to 4 cells),
/// grown where the grid would have more than about 4 cells per body.
struct Buckets {
    lo: [f32; 2],
    inv_cell: f32,
    nx: usize,
    ny: usize,
    /// `start[c] .. start[c + 1]` index `items` for cell `c` (row-major).
    start: Vec<u32>,
    items: Vec<u32>,
    /// Bodies too large to bin: tested everywhere.
    everywhere: Vec<u32>,
}

impl Buckets {
    /// Bins `boxes`, `(body, box)` pairs, at least one.
    fn new(boxes: &[(u32, [f32; 4])]) -> Self {
        let mut lo = [f32::MAX; 2];
        let mut hi = [f32::MIN; 2];
        let mut extents = Vec::with_capacity(boxes.len());
        for (_, bb) in boxes {
            lo = [lo[0].min(bb[0]), lo[1].min(bb[1])];
            hi = [hi[0].max(bb[2]), hi[1].max(bb[3])];
            extents.push((bb[2] - bb[0]).max(bb[3] - bb[1]));
        }
        extents.sort_by(f32::total_cmp);
        let (w, h) = ((hi[0] - lo[0]) as f64, (hi[1] - lo[1]) as f64);
        let mut cell = (extents[extents.len() / 2] as f64)
            .max(1e-6 * w.max(h))
            .max(1e-30);
        let budget = (4 * boxes.len() + 64) as f64;
        let cells = (w / cell + 1.0) * (h / cell + 1.0);
        if cells > budget {
            cell *= (cells / budget).sqrt();
        }
        let nx = (w / cell) as usize + 1;
        let ny = (h / cell) as usize + 1;
        let mut grid = Self {
            lo,
            inv_cell: (1.0 / cell) as f32,
            nx,
            ny,
            start: vec![0; nx * ny + 1],
            items: Vec::new(),
            everywhere: Vec::new(),
        };
        // Counting sort: count, prefix sums, fill.
        let mut spans = Vec::with_capacity(boxes.len());
        for &(body, bb) in boxes {
            let (x0, y0) = grid.cell_xy(bb[0], bb[1]);
            let (x1, y1) = grid.cell_xy(bb[2], bb[3]);
            if (x1 - x0 + 1) * (y1 - y0 + 1) > MAX_CELLS_PER_BODY {
                grid.everywhere.push(body);
                continue;
            }
            spans.push((body, x0, y0, x1, y1));
            for cy in y0..=y1 {
                for cx in x0..=x1 {
                    grid.start[cy * nx + cx + 1] += 1;
                }
            }
        }
        for c in 0..nx * ny {
            grid.start[c + 1] += grid.start[c];
        }
        let mut cursor = grid.start[..nx * ny].to_vec();
        grid.items = vec![0; grid.start[nx * ny] as usize];
        for (body, x0, y0, x1, y1) in spans {
            for cy in y0..=y1 {
                for cx in x0..=x1 {
                    let c = &mut cursor[cy * nx + cx];
                    grid.items[*c as usize] = body;
                    *c += 1;
                }
            }
        }
        grid
    }

    /// The cell holding `(x, y)`, clamped to the grid.
    fn cell_xy(&self, x: f32, y: f32) -> (usize, usize) {
        let cx = ((x - self.lo[0]) * self.inv_cell).max(0.0) as usize;
        let cy = ((y - self.lo[1]) * self.inv_cell).max(0.0) as usize;
        (cx.min(self.nx - 1), cy.min(self.ny - 1))
    }

    /// The bodies binned in the cell of `(x, y)`.
    fn at(&self, x: f32, y: f32) -> &[u32] {
        let (cx, cy) = self.cell_xy(x, y);
        let c = cy * self.nx + cx;
        &self.items[self.start[c] as usize..self.start[c + 1] as usize]
    }
}

/// Points strictly inside the outline of a colliding body they may collide
/// with (each counted once, however many outlines hold it), and colliding
/// bodies whose outline's centre is (see [`PileReport::bodies_overlapped`]).
fn inside_counts(packed: &Packed, pos: &[[f32; 2]], colliders: &[u32]) -> (usize, usize) {
    let boxes: Vec<(u32, [f32; 4])> = colliders
        .iter()
        .filter_map(|&b| outline_box(packed, pos, b as usize).map(|bb| (b, bb)))
        .collect();
    if boxes.is_empty() {
        return (0, 0);
    }
    let mut bb_of = vec![[0.0f32; 4]; packed.outlines.len()];
    for (b, bb) in &boxes {
        bb_of[*b as usize] = *bb;
    }
    let grid = Buckets::new(&boxes);
    let held = |p: [f32; 2], side: Option<(u32, u32, u32)>| {
        grid.at(p[0], p[1])
            .iter()
            .chain(&grid.everywhere)
            .any(|&b| is_inside(packed, pos, p, side, b as usize, &bb_of[b as usize]))
    };
    let points = (0..pos.len())
        .filter(|&i| {
            let side = packed
                .contact_points
                .get(i)
                .map(|cp| (cp.group, cp.filter_id, cp.joins));
            pos[i].iter().all(|x| x.is_finite()) && held(pos[i], side)
        })
        .count();
    // Bodies with a non-finite point have no box and count as neither.
    let bodies = boxes
        .iter()
        .filter(|&&(b, _)| {
            let o = &packed.outlines[b as usize];
            let pts = &packed.outline_points[o.first as usize..(o.first + o.count) as usize];
            let sum = pts.iter().fold([0.0f32; 2], |s, &k| {
                [s[0] + pos[k as usize][0], s[1] + pos[k as usize][1]]
            });
            let centre = [sum[0] / pts.len() as f32, sum[1] / pts.len() as f32];
            held(centre, Some((o.group, o.filter_id, o.first + o.count)))
        })
        .count();
    (points, bodies)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes::{BoxShape, Wheel};
    use crate::world::{Point, World};
    use glam::Vec2;

    fn packed(world: &World) -> Packed {
        Packed::from_world(world).unwrap()
    }

    #[test]
    fn a_unit_square_has_unit_area_at_rest_and_far_from_the_origin() {
        let mut world = World::default();
        BoxShape::new(Vec2::ZERO, Vec2::ONE)
            .build(&mut world)
            .unwrap();
        BoxShape::new(Vec2::new(1e3, -3e2), Vec2::ONE)
            .rotation(0.4)
            .build(&mut world)
            .unwrap();
        let p = packed(&world);
        assert_eq!((signed_area(&p, &p.pos, 0), rest_area(&p, 0)), (1.0, 1.0));
        // Positions near 1e3 m carry about 0.1 mm in f32, and so do the
        // rest offsets packing took from them.
        assert!((signed_area(&p, &p.pos, 1) - 1.0).abs() < 1e-3);
        assert!((rest_area(&p, 1) - 1.0).abs() < 1e-3);
        let r = pile_report(&p, &p.pos, &p.vel);
        assert_eq!((r.points, r.bodies, r.points_inside), (8, 2, 0));
        assert_eq!((r.below_half_area, r.inside_out), (0, 0));
        assert!((r.min_area_ratio - 1.0).abs() < 1e-3);
    }

    #[test]
    fn a_box_inside_another_counts_its_points() {
        let mut world = World::default();
        BoxShape::new(Vec2::ZERO, Vec2::splat(2.0))
            .build(&mut world)
            .unwrap();
        BoxShape::new(Vec2::new(0.2, 0.1), Vec2::splat(0.5))
            .build(&mut world)
            .unwrap();
        // A free point inside the big box counts too; one outside does not.
        world.add_point(Point::new(Vec2::new(-0.7, 0.7))).unwrap();
        world.add_point(Point::new(Vec2::new(3.0, 0.0))).unwrap();
        let p = packed(&world);
        let r = pile_report(&p, &p.pos, &p.vel);
        assert_eq!((r.points, r.bodies, r.points_inside), (10, 2, 5));
    }

    #[test]
    fn bodies_on_top_of_each_other_count_as_overlapped() {
        // Two equal boxes 2 cm apart along x: each one's corners lie on
        // the other's edges, none strictly inside; both centres are.
        let mut world = World::default();
        for x in [0.0, 0.02] {
            BoxShape::new(Vec2::new(x, 0.0), Vec2::new(0.5, 0.4))
                .build(&mut world)
                .unwrap();
        }
        // A box touching the first from the side, centre outside.
        BoxShape::new(Vec2::new(0.6, 0.0), Vec2::splat(0.5))
            .build(&mut world)
            .unwrap();
        let p = packed(&world);
        let r = pile_report(&p, &p.pos, &p.vel);
        assert_eq!((r.bodies, r.points_inside, r.bodies_overlapped), (3, 0, 2));
        assert!(r.to_string().contains("2 overlapped"), "{r}");
        // Apart, nothing overlaps.
        let mut pos = p.pos.clone();
        for q in &mut pos[4..8] {
            q[1] += 1.0;
        }
        let r = pile_report(&p, &pos, &p.vel);
        assert_eq!((r.points_inside, r.bodies_overlapped), (0, 0));
    }

    #[test]
    fn an_inverted_outline_counts_as_inside_out() {
        let mut world = World::default();
        BoxShape::new(Vec2::ZERO, Vec2::ONE)
            .build(&mut world)
            .unwrap();
        Wheel::new(Vec2::new(3.0, 0.0), 0.5, 8)
            .build(&mut world)
            .unwrap();
        let p = packed(&world);
        // Mirror the box in x: same area, the other winding.
        let mut pos = p.pos.clone();
        for q in &mut pos[..4] {
            q[0] = -q[0];
        }
        assert!((signed_area(&p, &pos, 0) + 1.0).abs() < 1e-6);
        let r = pile_report(&p, &pos, &p.vel);
        assert_eq!((r.bodies, r.inside_out, r.below_half_area), (2, 1, 1));
        assert!((r.min_area_ratio + 1.0).abs() < 1e-5);
        // Squashed flat to a fifth: below half, not inside out.
        let mut pos = p.pos.clone();
        for q in &mut pos[..4] {
            q[1] *= 0.2;
        }
        let r = pile_report(&p, &pos, &p.vel);
        assert_eq!((r.inside_out, r.below_half_area), (0, 1));
        assert!((r.min_area_ratio - 0.2).abs() < 1e-5);
    }

    #[test]
    fn speeds_leave_out_pinned_points() {
        let mut world = World::default();
        world
            .add_point(Point::new(Vec2::ZERO).vel(Vec2::new(3.0, 4.0)))
            .unwrap();
        world
            .add_point(Point::new(Vec2::X).vel(Vec2::new(0.0, 1.0)))
            .unwrap();
        world
            .add_point(Point::new(Vec2::Y).vel(Vec2::new(100.0, 0.0)).pinned())
            .unwrap();
        let p = packed(&world);
        let r = pile_report(&p, &p.pos, &p.vel);
        assert_eq!(r.max_speed, 5.0);
        assert!((r.rms_speed - 13.0f64.sqrt()).abs() < 1e-12);
        let mut vel = p.vel.clone();
        vel[1][0] = f32::NAN;
        assert!(pile_report(&p, &p.pos, &vel).max_speed.is_nan());
    }

    /// The binned count equals testing every point against every body, on
    /// a heap of boxes thrown on top of each other (some huge, so that
    /// they are tested everywhere).
    #[test]
    fn binning_finds_what_testing_everything_finds() {
        let mut world = World::default();
        let mut seed = 12345u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32
        };
        for k in 0..300 {
            let c = Vec2::new(next() * 20.0, next() * 10.0);
            let size = if k % 50 == 0 { 8.0 } else { 0.3 + next() };
            BoxShape::new(c, Vec2::splat(size))
                .rotation(next() * 6.0)
                .build(&mut world)
                .unwrap();
        }
        let p = packed(&world);
        let colliders = colliding_bodies(&p);
        let brute = (0..p.pos.len())
            .filter(|&i| {
                colliders.iter().any(|&b| {
                    let bb = outline_box(&p, &p.pos, b as usize).unwrap();
                    let cp = p.contact_points[i];
                    let side = Some((cp.group, cp.filter_id, cp.joins));
                    is_inside(&p, &p.pos, p.pos[i], side, b as usize, &bb)
                })
            })
            .count();
        assert!(brute > 100, "{brute}");
        assert_eq!(pile_report(&p, &p.pos, &p.vel).points_inside, brute);
    }

    #[test]
    fn motion_is_the_displacement_over_the_interval() {
        let before = [[0.0, 0.0], [1.0, 1.0]];
        let after = [[0.3, 0.4], [1.0, 1.0]];
        let (rms, max) = motion(&before, &after, 0.5);
        assert!((max - 1.0).abs() < 1e-6, "{max}");
        assert!((rms - 0.5f64.sqrt()).abs() < 1e-6, "{rms}");
        assert_eq!(motion(&[], &[], 1.0), (0.0, 0.0));
        assert!(motion(&[[f32::NAN, 0.0]], &[[0.0, 0.0]], 1.0).1.is_nan());
    }
}
