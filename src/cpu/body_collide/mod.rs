//! Stage 5b, mirror of `shaders/body_collide.wgsl` and its parts in
//! `shaders/body_collide/`: body-body contacts. This file holds what the
//! parts share: the bindings, the walk of the grid and the outline tests.
//!
//! `narrow` (narrow.rs) finds each point's deepest contact with another
//! body's outline (point in polygon, the edge it came in by) and counts,
//! per point, the contacts that move it; `resolve` (resolve.rs) turns every
//! contact (and every disk contact between free points) into the kernel's
//! fixed-point integers, with the kernel's formulas in the kernel's order.
//! The GPU adds them with atomics, this path in point order: integer sums
//! do not depend on order, so both get the same accumulators from the same
//! contacts. `apply` adds the accumulators to the state. A relax pass is
//! `recount`, `resolve` with `relax`, `apply`. A substep's first narrow
//! phase is followed by `warm_start` (warm.rs) and `apply` with the counts
//! kept: each contact that persists starts from the normal impulse it
//! ended the last substep with. Tangle recovery is `untangle`
//! (untangle.rs).

use glam::Vec2;

use super::broad_phase::{Grid, cell_key, cell_slot, fit_of, fixed_of, grid_cell};
use super::{ContactMaterial, contact_response, contact_threshold, cross2, par, push_depth, v2};
use crate::layout::{
    BODY_PUSH_SLOP, BodyOutline, CONTACT_FREE, ContactFilter, ContactHit, ContactPoint, NO_JOINS,
    PointInfo, SLEEP_WAKE, SimParams,
};

/// Squared distances at or below this count as touching (WGSL `TINY_DIST2`).
use super::TINY_DIST2;

mod narrow;
mod resolve;
pub mod untangle;
mod warm;
pub use narrow::{ENTRY_SUBSTEPS, activate, deepest, narrow, quiet_point, recount, test_body};
pub use resolve::{
    Contributions, ResolveScratch, apply, disks, note_touched, pair_material, placed_push, resolve,
    resolve_point,
};
// For warm.rs and untangle.rs, which take this module's names with `use
// super::*`.
use resolve::{add_contributions, add4};
pub use untangle::{TANGLE_SHARE, TangleWords, untangle};
pub use warm::{
    ALLOWANCE_TAG, WARM_SHARE, WARM_START, Warm, moved_on, remap_warm, untagged, warm_impulse,
    warm_left, warm_start,
};

/// Whether two sides' layers let them collide (WGSL `layers_meet`).
#[inline]
pub fn layers_meet(a: &ContactFilter, b: &ContactFilter) -> bool {
    a.mask & b.category != 0 && b.mask & a.category != 0
}

/// What the narrow phase reads, bundled like the kernel's bindings.
pub struct Bindings<'a> {
    pub sim: &'a SimParams,
    pub info: &'a [PointInfo],
    /// The points' records as packed: their inverse masses also while
    /// they sleep (`info` is the solver's copy, 0 then; WGSL `sleepers`).
    pub masses: &'a [PointInfo],
    pub pos: &'a [[f32; 2]],
    pub vel: &'a [[f32; 2]],
    pub contact_points: &'a [ContactPoint],
    pub outlines: &'a [BodyOutline],
    pub outline_points: &'a [u32],
    pub filters: &'a [ContactFilter],
    /// Colliding bodies, then free points.
    pub colliders: &'a [u32],
    pub aabbs: &'a [[f32; 4]],
    pub grid: &'a Grid,
    /// Sleeping's steps at rest per assembly root.
    pub rest_steps: &'a [u32],
    /// Every body's tangles this step (WGSL `tangles`, written by
    /// [`untangle()`], marked kept by the narrow phase).
    pub tangles: &'a TangleWords,
}

/// Whether assembly `group` sleeps (WGSL `asleep`).
#[inline]
pub fn asleep(bind: &Bindings, group: u32) -> bool {
    crate::cpu::sleep::asleep(bind.sim, bind.rest_steps[group as usize])
}

/// Whether `p` (of assembly `group`, joined to the bodies `joins` names,
/// filter `pf`) can touch body `b` at all (WGSL `may_touch`): `p` in the
/// body's box (tested first), another assembly or a body of its own that
/// it is not joined to, layers that meet, not two sleeping sides.
#[allow(clippy::too_many_arguments)]
pub fn may_touch(
    bind: &Bindings,
    b: u32,
    p: Vec2,
    group: u32,
    joins: u32,
    pf: &ContactFilter,
    sleeping: bool,
) -> bool {
    let bb = bind.aabbs[b as usize];
    if p.x < bb[0] || p.y < bb[1] || p.x > bb[2] || p.y > bb[3] {
        return false;
    }
    let o = &bind.outlines[b as usize];
    if (o.group == group && !meets_joined(bind.outline_points, joins, b))
        || !layers_meet(pf, &bind.filters[o.filter_id as usize])
    {
        return false;
    }
    // Two sleeping sides: neither would move, and the point's contact
    // with an awake body (which its deepest could otherwise hide) counts.
    !(sleeping && asleep(bind, o.group))
}

/// Whether a side whose joined bodies' list is `joins`
/// ([`ContactPoint::joins`]; a body's follows its outline) collides with body
/// `b` of its own assembly (WGSL `meets_joined`): never with [`NO_JOINS`],
/// else when `b` is not on the list, which is ascending: a binary search,
/// as on the GPU (docs/physics.md, "What collides with what").
pub fn meets_joined(outline_points: &[u32], joins: u32, b: u32) -> bool {
    if joins == NO_JOINS {
        return false;
    }
    let n = outline_points[joins as usize] as usize;
    let list = &outline_points[joins as usize + 1..joins as usize + 1 + n];
    list.binary_search(&b).is_err()
}

/// One pass over an outline (the points `pts`) about `p` (WGSL
/// `scan_outline` without the entry edges).
pub struct Scan {
    /// Whether `p` is inside (crossing number).
    pub inside: bool,
    /// The nearest edge: squared distance, index, clamped and unclamped
    /// projection parameters, direction.
    pub d2: f32,
    pub edge: u32,
    pub t: f32,
    pub raw: f32,
    pub dir: Vec2,
    /// The outline's winding now: 1 counter-clockwise, -1 clockwise (a
    /// body turned inside out).
    pub orient: f32,
}

/// WGSL `scan_outline` (without `with_entry`).
pub fn scan_outline(bind: &Bindings, pts: &[u32], p: Vec2) -> Scan {
    let mut s = Scan {
        inside: false,
        d2: f32::MAX,
        edge: 0,
        t: 0.0,
        raw: 0.0,
        dir: Vec2::ZERO,
        orient: 1.0,
    };
    // Twice the outline's signed area, about `p`, and the sum of its
    // terms' sizes: the outline's winding now (a body turned inside out
    // runs clockwise), trusted where the area is not lost in rounding.
    let mut area2 = 0.0f32;
    let mut area_abs = 0.0f32;
    let mut a = v2(bind.pos[pts[0] as usize]);
    for k in 0..pts.len() {
        let c = v2(bind.pos[pts[(k + 1) % pts.len()] as usize]);
        let tri = cross2(a - p, c - p);
        area2 += tri;
        area_abs += tri.abs();
        if (a.y > p.y) != (c.y > p.y) {
            let x = a.x + (p.y - a.y) / (c.y - a.y) * (c.x - a.x);
            if p.x < x {
                s.inside = !s.inside;
            }
        }
        let ac = c - a;
        let (raw, t, _, d2) = project(p, a, ac);
        if d2 < s.d2 {
            s.d2 = d2;
            s.edge = k as u32;
            s.t = t;
            s.raw = raw;
            s.dir = ac;
        }
        a = c;
    }
    if area2 < -INVERTED_AREA * area_abs {
        s.orient = -1.0;
    }
    s
}

/// `p` projected on the edge from `a` along `ac` (WGSL `project`): the
/// unclamped parameter, the parameter clamped to the edge, the nearest
/// point on the edge and the squared distance to it.
#[inline]
fn project(p: Vec2, a: Vec2, ac: Vec2) -> (f32, f32, Vec2, f32) {
    let len2 = ac.dot(ac);
    let raw = if len2 > TINY_DIST2 {
        (p - a).dot(ac) / len2
    } else {
        0.0
    };
    let t = raw.clamp(0.0, 1.0);
    let e = a + ac * t;
    let d = e - p;
    (raw, t, e, d.dot(d))
}

/// WGSL `INVERTED_AREA`: an outline counts as clockwise (inside out) when
/// its signed area is below this fraction, negated, of the sum of its
/// terms' sizes. A flat or crushed outline, whose area is lost in
/// rounding, keeps the winding of its rest shape, so that the two paths,
/// which may round the sum differently, agree on it.
pub const INVERTED_AREA: f32 = 1e-3;

/// WGSL `CORNER_TIP_RADII`: a point beyond a corner (facing neither of
/// its edges) touches the corner itself within this many point radii of
/// it, pushed straight away from it: two corners that meet tip to tip
/// rest this far apart rather than pass into each other.
pub const CORNER_TIP_RADII: f32 = 0.5;

/// WGSL `CORNER_TIP_BALANCE`: a point touches a corner's tip only when it
/// is past each of the corner's edges by at least this fraction of how
/// far it is past the other (about along the corner's outward bisector).
pub const CORNER_TIP_BALANCE: f32 = 0.5;

/// WGSL `FACE_SLACK`: projections within this fraction of an edge's length
/// beyond its ends still face it.
pub const FACE_SLACK: f32 = 1e-3;

/// Whether a projection parameter falls on its edge (WGSL `on_face`).
#[inline]
pub fn on_face(raw: f32) -> bool {
    (-FACE_SLACK..=1.0 + FACE_SLACK).contains(&raw)
}

/// The outward normal of an edge running `dir` of a counter-clockwise
/// outline (WGSL `face_normal`); a clockwise one's is its negative.
#[inline]
pub fn face_normal(dir: Vec2) -> Vec2 {
    let len2 = dir.dot(dir);
    if len2 > TINY_DIST2 {
        Vec2::new(dir.y, -dir.x) / len2.sqrt()
    } else {
        Vec2::ZERO
    }
}

/// Every body a point at `p` may touch, in the grid's order (WGSL: the
/// walks of `deepest`, `deepest_batched` and `untangle`): the bodies of
/// its cell's slot whose key is the cell's, then the large list. A
/// `sleeping` point walks its slot only when an awake body entered it.
pub fn walk_bodies(bind: &Bindings, p: Vec2, sleeping: bool, mut visit: impl FnMut(u32)) {
    let sim = bind.sim;
    let cell = grid_cell(p, sim.inv_cell);
    let key = cell_key(cell);
    let slot = cell_slot(cell, sim.table_mask);
    if !sleeping || bind.grid.awake[slot as usize] != 0 {
        for (c, k) in bind.grid.slot_entries(sim, slot) {
            if c < sim.num_bodies && k == key {
                visit(c);
            }
        }
    }
    for &c in bind.grid.large(sim) {
        if c < sim.num_bodies {
            visit(c);
        }
    }
}

/// The ends of the edge a contact hit (WGSL `edge_ends`).
pub fn edge_ends(bind: &Bindings, hit: &ContactHit) -> (u32, u32) {
    let o = &bind.outlines[hit.body as usize];
    let next = if hit.edge + 1 == o.count {
        0
    } else {
        hit.edge + 1
    };
    (
        bind.outline_points[(o.first + hit.edge) as usize],
        bind.outline_points[(o.first + next) as usize],
    )
}
