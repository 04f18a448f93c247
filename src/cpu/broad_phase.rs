//! Stage 5a, mirror of `shaders/broad_phase.wgsl`: the collision grid.
//!
//! Same bounding boxes (min/max are exact, so bitwise the GPU's), same
//! cells, slots and keys, same prefix sums and the same `grid` layout. Only
//! the order of the entries within a slot and of the large list differs:
//! the GPU's follows its atomics, this one the collider order. The narrow
//! phase does not depend on either order.

use glam::{IVec2, Vec2};

use super::sleep::asleep;
use super::{par, v2};
use crate::layout::{
    BodyOutline, CONTACT_LIMIT_UNITS, GRID_MAX_CELLS, SMALL_BODY_MAX_POINTS, SimParams,
};
use crate::pack::Packed;

/// The grid as the GPU holds it: `counts` (one per slot, plus one that
/// stays zero) and `data`: the slot starts (`slots + 1`), the large list
/// (its length, then up to `num_colliders` bodies), then the entries as
/// `(collider, cell key)` pairs.
///
/// `awake` holds, per slot, 1 when an awake body has an entry in it: a
/// sleeping point tests only awake bodies, so the narrow phase skips the
/// slot of a sleeping point that has none (WGSL `slot_awake`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Grid {
    pub counts: Vec<u32>,
    pub data: Vec<u32>,
    pub awake: Vec<u32>,
    /// Whether an awake body is on the large list (WGSL: the word after
    /// `slot_awake`'s stamp): every sleeping point may meet it.
    pub large_awake: bool,
    /// Per collider (in `colliders` order, then the free points), the
    /// cells it was counted into at the last build, tagged when it was
    /// awake ([`tagged_cells`]; WGSL `cells`). A collider whose tagged
    /// cells are the same now makes the same entries and stamps.
    pub cells: Vec<[i32; 4]>,
}

impl Grid {
    /// Sized for `packed`, in the allocations it has (a broad phase
    /// writes every word it reads).
    pub fn resize(&mut self, packed: &Packed) {
        self.counts.resize(packed.grid_slots() + 1, 0);
        self.data.resize(packed.grid_words(), 0);
        self.awake.resize(packed.grid_slots(), 0);
        self.large_awake = false;
        self.cells.clear();
        self.cells.resize(packed.grid_colliders(), [0; 4]);
    }

    /// An empty grid sized for a packed world's colliders.
    pub fn new(packed: &Packed) -> Self {
        Self {
            counts: vec![0; packed.grid_slots() + 1],
            data: vec![0; packed.grid_words()],
            awake: vec![0; packed.grid_slots()],
            large_awake: false,
            cells: vec![[0; 4]; packed.grid_colliders()],
        }
    }

    /// Index in `data` where the large list starts (its length; WGSL
    /// `large_base`).
    pub fn large_base(sim: &SimParams) -> usize {
        sim.table_mask as usize + 2
    }

    /// Index in `data` of the first entry (WGSL `entry_base`).
    pub fn entry_base(sim: &SimParams) -> usize {
        Self::large_base(sim) + 1 + sim.num_colliders as usize
    }

    /// The bodies on the large list.
    pub fn large<'a>(&'a self, sim: &SimParams) -> &'a [u32] {
        let base = Self::large_base(sim);
        &self.data[base + 1..base + 1 + self.data[base] as usize]
    }

    /// The entries `(collider, cell key)` of slot `slot`.
    pub fn slot_entries<'a>(
        &'a self,
        sim: &SimParams,
        slot: u32,
    ) -> impl Iterator<Item = (u32, u32)> + 'a {
        let base = Self::entry_base(sim);
        let (a, b) = (
            self.data[slot as usize] as usize,
            self.data[slot as usize + 1] as usize,
        );
        (a..b).map(move |e| (self.data[base + 2 * e], self.data[base + 2 * e + 1]))
    }
}

/// The cell holding `p` (WGSL `grid_cell`), coordinates clamped to
/// `+-2^29` so that the span of two cells never overflows an i32.
#[inline]
pub fn grid_cell(p: Vec2, inv_cell: f32) -> IVec2 {
    let c = (p * inv_cell)
        .floor()
        .clamp(Vec2::splat(-536870912.0), Vec2::splat(536870912.0));
    IVec2::new(c.x as i32, c.y as i32)
}

/// The hash-table slot of a cell (WGSL `cell_slot`).
#[inline]
pub fn cell_slot(c: IVec2, table_mask: u32) -> u32 {
    ((c.x as u32).wrapping_mul(73856093) ^ (c.y as u32).wrapping_mul(19349663)) & table_mask
}

/// A cell's identity within its slot (WGSL `cell_key`).
#[inline]
pub fn cell_key(c: IVec2) -> u32 {
    (c.x as u32 & 0xffff) | ((c.y as u32) << 16)
}

/// A fixed-point contribution at `scale` (`SimParams::contact_scale`),
/// clamped to `+-2^30` units (WGSL `fixed`).
#[inline]
pub fn fixed(x: Vec2, scale: f32) -> [i32; 2] {
    fixed_of(x, scale, 1)
}

/// [`fixed`] for a contribution to an accumulator that takes at most
/// `count` of them before it is applied (WGSL `fixed_of`): clamped to
/// `2^30 / count` units, so that their sum stays within `2^30` (plus
/// rounding) and the `i32` accumulator cannot wrap.
pub fn fixed_of(x: Vec2, scale: f32, count: u32) -> [i32; 2] {
    let limit = CONTACT_LIMIT_UNITS / (scale * count.max(1) as f32);
    let q = |v: f32| (v.clamp(-limit, limit) * scale + 0.5).floor() as i32;
    [q(x.x), q(x.y)]
}

/// The largest factor, at most 1, by which contribution `x` to an
/// accumulator taking at most `count` of them must be scaled to fit
/// [`fixed_of`]'s limit (WGSL `fit_of`). A contact scales all its
/// contributions by the least of their factors: their mass-weighted sum
/// (its momentum) stays zero, where the clamp alone would cut one side.
pub fn fit_of(x: Vec2, scale: f32, count: u32) -> f32 {
    let limit = CONTACT_LIMIT_UNITS / (scale * count.max(1) as f32);
    let m = x.x.abs().max(x.y.abs());
    if m > limit { limit / m } else { 1.0 }
}

/// The cells of a box, or `None` when it spans more than `GRID_MAX_CELLS`
/// (WGSL `cell_range` and `fits`).
pub fn cell_range(sim: &SimParams, lo: Vec2, hi: Vec2) -> Option<(IVec2, IVec2)> {
    let range = (grid_cell(lo, sim.inv_cell), grid_cell(hi, sim.inv_cell));
    spans_at_most(range, GRID_MAX_CELLS).then_some(range)
}

/// The most cells an awake large body stamps one by one (WGSL
/// `AWAKE_STAMP_CELLS`); a larger one makes every sleeping point test it.
pub const AWAKE_STAMP_CELLS: u32 = 64;

/// Whether a range spans at most `max` cells (WGSL `spans_at_most`),
/// written so that huge spans cannot overflow.
pub fn spans_at_most(range: (IVec2, IVec2), max: u32) -> bool {
    let span = range.1 - range.0;
    let m = max as i32;
    !(span.x >= m || span.y >= m || ((span.x + 1) * (span.y + 1)) as u32 > max)
}

/// Every cell of a range, row by row.
pub fn cells(range: (IVec2, IVec2)) -> impl Iterator<Item = IVec2> {
    let (a, b) = range;
    (a.y..=b.y).flat_map(move |y| (a.x..=b.x).map(move |x| IVec2::new(x, y)))
}

/// The bounding box of an outline grown by `r`, `[min x, min y, max x,
/// max y]` (WGSL `bounds` and `bounds_large`: min and max are exact in any
/// order).
pub fn outline_bounds(
    o: &BodyOutline,
    outline_points: &[u32],
    pos: &[[f32; 2]],
    r: f32,
) -> [f32; 4] {
    let pts = &outline_points[o.first as usize..(o.first + o.count) as usize];
    let mut lo = v2(pos[pts[0] as usize]);
    let mut hi = lo;
    for &p in &pts[1..] {
        lo = lo.min(v2(pos[p as usize]));
        hi = hi.max(v2(pos[p as usize]));
    }
    let (lo, hi) = (lo - Vec2::splat(r), hi + Vec2::splat(r));
    [lo.x, lo.y, hi.x, hi.y]
}

/// Collider `k` (in `colliders` order, bodies then free points): its grid
/// id and bounding box.
fn collider_box(
    sim: &SimParams,
    k: usize,
    colliders: &[u32],
    aabbs: &[[f32; 4]],
    pos: &[[f32; 2]],
) -> (u32, Vec2, Vec2) {
    if k < sim.num_colliders as usize {
        let b = colliders[k];
        let bb = aabbs[b as usize];
        (b, Vec2::new(bb[0], bb[1]), Vec2::new(bb[2], bb[3]))
    } else {
        let f = k - sim.num_colliders as usize;
        let p = v2(pos[colliders[k] as usize]);
        let r = Vec2::splat(sim.point_radius);
        (sim.num_bodies + f as u32, p - r, p + r)
    }
}

/// The tag of an awake body's cells in [`Grid::cells`] (WGSL
/// `AWAKE_TAG`), added to the last row: cell coordinates are clamped to
/// `+-2^29`, so the sum never wraps and no tagged range equals an untagged
/// one.
pub const AWAKE_TAG: i32 = 1 << 30;

/// The cells of a collider's box `[first x, first y, last x, last y]`, the
/// last row tagged by [`AWAKE_TAG`] when the collider is an awake body
/// (WGSL `tagged_cells`): what its entries and stamps in the grid follow
/// from. Whether it fits the grid follows from the cells too.
pub fn tagged_cells(lo: Vec2, hi: Vec2, inv_cell: f32, awake: bool) -> [i32; 4] {
    let (a, b) = (grid_cell(lo, inv_cell), grid_cell(hi, inv_cell));
    [a.x, a.y, b.x, b.y + if awake { AWAKE_TAG } else { 0 }]
}

/// Whether collider `c` (a body index, or `num_bodies` and up for a free
/// point) is an awake body.
fn awake_body(sim: &SimParams, outlines: &[BodyOutline], rest_steps: &[u32], c: u32) -> bool {
    c < sim.num_bodies && !asleep(sim, rest_steps[outlines[c as usize].group as usize])
}

/// The broad phase: the boxes from the positions (`bounds`,
/// `bounds_large`; without `force`, those of the awake bodies and the
/// large ones), then, with `force` or where some collider's tagged
/// cells changed since the last build, the grid: counts (and the large
/// list), prefix sums, entries. Returns whether it built. A kept grid is
/// what a build would make: the same entries and stamps, in the same
/// order. The counts end at zero, as on the GPU. `aabbs` has one box per
/// body: those of the colliding bodies (outlines of 3 or more points) are
/// written, the others zeroed (the GPU never writes them; its buffer
/// starts zeroed).
#[allow(clippy::too_many_arguments)]
pub fn broad_phase(
    sim: &SimParams,
    pos: &[[f32; 2]],
    outlines: &[BodyOutline],
    outline_points: &[u32],
    colliders: &[u32],
    rest_steps: &[u32],
    aabbs: &mut [[f32; 4]],
    grid: &mut Grid,
    parallel: bool,
    force: bool,
) -> bool {
    let num = sim.num_colliders as usize;
    // bounds, bounds_large: the boxes (independent per body; a body
    // collides when its outline is a polygon, and this stage runs only
    // when body collisions are on). Without `force`, a sleeping small
    // body keeps its box: it has not moved since the step's first substep
    // measured it (WGSL `bounds`).
    par::map_in_place(parallel, &mut aabbs[..outlines.len()], |b, bb| {
        let o = &outlines[b];
        if o.count < 3 {
            *bb = [0.0; 4];
        } else if force
            || o.count > SMALL_BODY_MAX_POINTS
            || awake_body(sim, outlines, rest_steps, b as u32)
        {
            *bb = outline_bounds(o, outline_points, pos, sim.point_radius);
        }
    });
    let total = num + sim.num_free as usize;
    let tagged = |k: usize| {
        let (c, lo, hi) = collider_box(sim, k, colliders, aabbs, pos);
        let awake = awake_body(sim, outlines, rest_steps, c);
        (c, lo, hi, awake, tagged_cells(lo, hi, sim.inv_cell, awake))
    };
    // bounds's check: a collider that moved to other cells, woke or fell
    // asleep (WGSL `note_cells`).
    if !force && (0..total).all(|k| tagged(k).4 == grid.cells[k]) {
        return false;
    }
    // count: the counts and the large list.
    let large = Grid::large_base(sim);
    grid.data[large] = 0;
    grid.large_awake = false;
    for k in 0..total {
        let (c, lo, hi, _, at) = tagged(k);
        grid.cells[k] = at;
        match cell_range(sim, lo, hi) {
            Some(range) => {
                for cell in cells(range) {
                    grid.counts[cell_slot(cell, sim.table_mask) as usize] += 1;
                }
            }
            None if c < sim.num_bodies => {
                let n = grid.data[large] as usize;
                grid.data[large + 1 + n] = c;
                grid.data[large] += 1;
            }
            // A free point whose position is not finite.
            None => {}
        }
    }
    // scan_up / scan_down: exclusive prefix sums over slots + 1.
    let mut sum = 0u32;
    for (start, &count) in grid.data.iter_mut().zip(&grid.counts) {
        *start = sum;
        sum += count;
    }
    // fill: places taken by counting each slot back down; each slot
    // marked that an awake body enters.
    let base = Grid::entry_base(sim);
    grid.awake.fill(0);
    for k in 0..total {
        let (c, lo, hi, awake, _) = tagged(k);
        let Some(range) = cell_range(sim, lo, hi) else {
            // An awake large body stamps the slots it covers where they
            // are few, else every sleeping point may meet it.
            let range = (grid_cell(lo, sim.inv_cell), grid_cell(hi, sim.inv_cell));
            if awake && spans_at_most(range, AWAKE_STAMP_CELLS) {
                for cell in cells(range) {
                    grid.awake[cell_slot(cell, sim.table_mask) as usize] = 1;
                }
            } else if awake {
                grid.large_awake = true;
            }
            continue;
        };
        for cell in cells(range) {
            let slot = cell_slot(cell, sim.table_mask) as usize;
            grid.counts[slot] -= 1;
            let e = base + 2 * (grid.data[slot] + grid.counts[slot]) as usize;
            grid.data[e] = c;
            grid.data[e + 1] = cell_key(cell);
            if awake {
                grid.awake[slot] = 1;
            }
        }
    }
    true
}
