//! Stage 5b, mirror of `shaders/body_collide.wgsl`: body-body contacts.
//!
//! `narrow` finds each point's deepest contact with another body's outline
//! (point in polygon, the edge it came in by) and counts, per point, the contacts
//! that move it; `resolve` turns every contact (and every disk contact
//! between free points) into the kernel's fixed-point integers, with the
//! kernel's formulas in the kernel's order. The GPU adds them with atomics,
//! this path in point order: integer sums do not depend on order, so both
//! get the same accumulators from the same contacts. `apply` adds the
//! accumulators to the state. A relax pass is `recount`, `resolve` with
//! `relax`, `apply`. A substep's first narrow phase is followed by
//! `warm_start` and `apply` with the counts kept: each contact that
//! persists starts from the normal impulse it ended the last substep with.

use glam::Vec2;

use super::broad_phase::{Grid, cell_key, cell_slot, fixed, grid_cell};
use super::{ContactMaterial, contact_response, cross2, par, v2};
use crate::layout::{
    BodyOutline, CONTACT_FREE, ContactFilter, ContactHit, ContactPoint, PointInfo, SLEEP_WAKE,
    SimParams,
};

/// Squared distances at or below this count as touching (WGSL `TINY_DIST2`).
use super::TINY_DIST2;

pub mod untangle;
mod warm;
pub use untangle::{TangleWords, untangle};
pub use warm::{WARM_START, Warm, warm_impulse, warm_start};

/// Whether two sides' layers let them collide (WGSL `layers_meet`).
#[inline]
pub fn layers_meet(a: &ContactFilter, b: &ContactFilter) -> bool {
    a.mask & b.category != 0 && b.mask & a.category != 0
}

/// What the narrow phase reads, bundled like the kernel's bindings.
pub struct Bindings<'a> {
    pub sim: &'a SimParams,
    pub info: &'a [PointInfo],
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

/// Whether `p` (of assembly `group`, filter `pf`) can touch body `b` at
/// all (WGSL `may_touch`): `p` in the body's box (tested first), another
/// assembly, layers that meet, not two sleeping sides.
pub fn may_touch(
    bind: &Bindings,
    b: u32,
    p: Vec2,
    group: u32,
    pf: &ContactFilter,
    sleeping: bool,
) -> bool {
    let bb = bind.aabbs[b as usize];
    if p.x < bb[0] || p.y < bb[1] || p.x > bb[2] || p.y > bb[3] {
        return false;
    }
    let o = &bind.outlines[b as usize];
    if o.group == group || !layers_meet(pf, &bind.filters[o.filter_id as usize]) {
        return false;
    }
    // Two sleeping sides: neither would move, and the point's contact
    // with an awake body (which its deepest could otherwise hide) counts.
    !(sleeping && asleep(bind, o.group))
}

/// Point `p` moving at `v` against body `b`'s outline (WGSL `test_body`):
/// in contact when inside the outline or within `point_radius` outside it.
/// A `sleeping` point skips the outlines of sleeping assemblies.
#[allow(clippy::too_many_arguments)]
pub fn test_body(
    bind: &Bindings,
    b: u32,
    p: Vec2,
    v: Vec2,
    group: u32,
    pf: &ContactFilter,
    sleeping: bool,
    best: &mut ContactHit,
) {
    if !may_touch(bind, b, p, group, pf, sleeping) {
        return;
    }
    let o = &bind.outlines[b as usize];
    let pts = &bind.outline_points[o.first as usize..(o.first + o.count) as usize];
    let Scan {
        inside,
        d2: mut best_d2,
        mut edge,
        t: mut edge_t,
        raw: edge_raw,
        dir: mut edge_dir,
        orient,
    } = scan_outline(bind, pts, p);
    let r = bind.sim.point_radius;
    if !inside && best_d2 >= r * r {
        return;
    }
    // A body tangled with the point's assembly (untangle): the pair's
    // contacts outside stand down, those inside push along the pair's
    // direction.
    let tangle = untangle::tangle_word(bind, b, group);
    if tangle.is_some() && !inside {
        return;
    }
    let (depth, n) = if inside {
        let nearest;
        (edge, edge_t, edge_dir, nearest, best_d2) = entry_edge(bind, pts, p, v, orient);
        if let Some(w) = tangle {
            untangle::tangled_contact(bind, b, w, best_d2)
        } else if best_d2 > TINY_DIST2 {
            let dist = best_d2.sqrt();
            (r + dist, (nearest - p) / dist)
        } else {
            (r, face_normal(edge_dir) * orient)
        }
    } else {
        let count = pts.len() as u32;
        let at = |k: u32| v2(bind.pos[pts[k as usize] as usize]);
        if !on_face(edge_raw) {
            let mut k2 = if edge_raw < 0.0 {
                edge + count - 1
            } else {
                edge + 1
            };
            if k2 >= count {
                k2 -= count;
            }
            let k3 = if k2 + 1 == count { 0 } else { k2 + 1 };
            let a2 = at(k2);
            let dir2 = at(k3) - a2;
            let len2 = dir2.dot(dir2);
            if len2 <= TINY_DIST2 {
                return;
            }
            let raw2 = (p - a2).dot(dir2) / len2;
            if !on_face(raw2) {
                return;
            }
            edge = k2;
            edge_t = raw2.clamp(0.0, 1.0);
            edge_dir = dir2;
        }
        let n = face_normal(edge_dir) * orient;
        let s = (p - at(edge)).dot(n);
        (r - s, n)
    };
    // A degenerate edge (two outline points on one spot, as in a crushed
    // body) has no normal: no contact with it rather than one that pushes
    // nowhere and still damps and splits.
    if depth <= 0.0 || n == Vec2::ZERO {
        return;
    }
    if depth > best.depth || (depth == best.depth && b < best.body) {
        *best = ContactHit {
            depth,
            body: b,
            edge,
            t: edge_t,
            n: n.to_array(),
        };
    }
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

/// WGSL `ENTRY_SUBSTEPS`: an edge that a point inside the outline moves
/// away from, inward, counts as nearer by the distance the point covers
/// relative to it in this many substeps (docs/physics.md, "Contact of a
/// point with an outline").
pub const ENTRY_SUBSTEPS: f32 = 2.0;

/// The edge a point inside an outline is pushed out through (WGSL
/// `entry_edge`): the nearest, counting each edge nearer by
/// `ENTRY_SUBSTEPS h` times the speed at which the point moves inward
/// through it, so that a point that just came in goes back out the way it
/// came, not out through a nearer side edge in line with its path.
/// `orient` is the outline's winding now (1 counter-clockwise, -1
/// clockwise), which turns the edges' outward normals. Returns the edge,
/// the projection `t`, the edge's direction, the nearest point on it and
/// the squared distance to that point. The WGSL scores the edges for both
/// windings in `scan_outline`'s pass (one pass over the outline instead of
/// two) and rebuilds the chosen one from its ends: the same arithmetic on
/// the same values, so the same edge and the same numbers.
fn entry_edge(
    bind: &Bindings,
    pts: &[u32],
    p: Vec2,
    v: Vec2,
    orient: f32,
) -> (u32, f32, Vec2, Vec2, f32) {
    let reach = ENTRY_SUBSTEPS * bind.sim.h;
    let mut best = (0u32, 0.0f32, Vec2::ZERO, p, f32::MAX);
    let mut best_score = f32::MAX;
    let (mut a, mut va) = (v2(bind.pos[pts[0] as usize]), v2(bind.vel[pts[0] as usize]));
    for k in 0..pts.len() {
        let next = pts[(k + 1) % pts.len()] as usize;
        let (c, vc) = (v2(bind.pos[next]), v2(bind.vel[next]));
        let ac = c - a;
        let (_, t, e, d2) = project(p, a, ac);
        // Inward speed through the edge, relative to the edge there.
        let ve = va + (vc - va) * t;
        let inward = (ve - v).dot(face_normal(ac) * orient).max(0.0);
        let score = d2.sqrt() - reach * inward;
        if score < best_score {
            best_score = score;
            best = (k as u32, t, ac, e, d2);
        }
        a = c;
        va = vc;
    }
    best
}

/// WGSL `INVERTED_AREA`: an outline counts as clockwise (inside out) when
/// its signed area is below this fraction, negated, of the sum of its
/// terms' sizes. A flat or crushed outline, whose area is lost in
/// rounding, keeps the winding of its rest shape, so that the two paths,
/// which may round the sum differently, agree on it.
pub const INVERTED_AREA: f32 = 1e-3;

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

/// A pair's contact material (WGSL `pair_material`): the larger
/// elasticity (Box2D's rule: one bouncy side makes a bouncy contact), the
/// geometric mean of each friction coefficient (Box2D's rule), and the
/// tangential decay `sqrt(decay_a decay_b)` of the mean friction rate.
#[inline]
pub fn pair_material(a: &ContactFilter, b: &ContactFilter) -> ContactMaterial {
    ContactMaterial {
        elasticity: a.elasticity.max(b.elasticity),
        static_friction: (a.static_friction * b.static_friction).sqrt(),
        dynamic_friction: (a.dynamic_friction * b.dynamic_friction).sqrt(),
        decay: (a.decay * b.decay).sqrt(),
    }
}

/// One point's contributions: to itself, and to the two ends of the edge it
/// hit (`(point, [dp.x, dp.y, dv.x, dv.y])`, skipped for pinned ends).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Contributions {
    pub own: [i32; 4],
    pub ends: [Option<(u32, [i32; 4])>; 2],
    /// The two assemblies a contact that approaches faster than the wake
    /// speed wakes (WGSL: `atomicMax` of `SLEEP_WAKE` into their speeds).
    pub wake: Option<[u32; 2]>,
    /// The point's new warm start left and normal impulse (f32 bits,
    /// [`Warm`]'s last two words), when it has an outline contact.
    pub warm: Option<[u32; 2]>,
}

fn add4(a: &mut [i32; 4], dp: [i32; 2], dv: [i32; 2]) {
    a[0] = a[0].wrapping_add(dp[0]);
    a[1] = a[1].wrapping_add(dp[1]);
    a[2] = a[2].wrapping_add(dv[0]);
    a[3] = a[3].wrapping_add(dv[1]);
}

/// The deepest body contact of a point (WGSL `deepest`).
pub fn deepest(
    bind: &Bindings,
    p: Vec2,
    v: Vec2,
    cp: &ContactPoint,
    pf: &ContactFilter,
) -> ContactHit {
    let mut best = ContactHit::NONE;
    let sleeping = asleep(bind, cp.group);
    walk_bodies(bind, p, sleeping, |c| {
        test_body(bind, c, p, v, cp.group, pf, sleeping, &mut best)
    });
    best
}

/// Whether the point at `p` (its ContactPoint `cp`) can have no contact
/// this substep (WGSL `quiet_point`): it sleeps, is no free point, no
/// awake body entered its slot and there is no large body. Its contact is
/// [`ContactHit::QUIET`], which the GPU's later narrow phase of the substep
/// skips.
pub fn quiet_point(bind: &Bindings, p: Vec2, cp: &ContactPoint) -> bool {
    let sim = bind.sim;
    if cp.filter_id & CONTACT_FREE != 0 || !asleep(bind, cp.group) {
        return false;
    }
    let slot = cell_slot(grid_cell(p, sim.inv_cell), sim.table_mask);
    bind.grid.awake[slot as usize] == 0 && bind.grid.large(sim).is_empty()
}

/// WGSL `activate` and `list_args`, as the list they leave in ascending
/// order: the points a substep's first narrow phase did not find quiet
/// (`hits` as [`narrow`] left them), which the substep's later passes run
/// over on a GPU that lists them (`gpu::PointDispatch::ActiveList`; its
/// list holds the same points in no set order).
pub fn activate(hits: &[ContactHit]) -> Vec<u32> {
    (0..hits.len() as u32)
        .filter(|&i| !hits[i as usize].is_quiet())
        .collect()
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

/// A point's inverse mass split over its contacts (WGSL `split`).
#[inline]
fn split(w: f32, count: u32) -> f32 {
    w * count.max(1) as f32
}

/// Free point `i` against the other free points as disks (WGSL `disks`):
/// with `counts` `None`, the number of contacts in `[0]`; with the counts,
/// the point's own fixed-point changes.
pub fn disks(bind: &Bindings, i: usize, v: Vec2, counts: Option<&[u32]>) -> [i32; 4] {
    let sim = bind.sim;
    let p = v2(bind.pos[i]);
    let wi = bind.info[i].inv_mass;
    let cp = bind.contact_points[i];
    let pf = bind.filters[(cp.filter_id & !CONTACT_FREE) as usize];
    let mut out = [0i32; 4];
    let rr = Vec2::splat(sim.point_radius);
    let reach = 2.0 * sim.point_radius;
    let lo = grid_cell(p - rr, sim.inv_cell);
    let hi = grid_cell(p + rr, sim.inv_cell);
    // At most 2 x 2 cells, unless the position is not finite.
    if (hi - lo).max_element() > 1 {
        return out;
    }
    for y in lo.y..=hi.y {
        for x in lo.x..=hi.x {
            let cell = glam::IVec2::new(x, y);
            let key = cell_key(cell);
            for (c, k) in bind.grid.slot_entries(sim, cell_slot(cell, sim.table_mask)) {
                if c < sim.num_bodies || k != key {
                    continue;
                }
                let j = bind.colliders[(sim.num_colliders + c - sim.num_bodies) as usize];
                let cj = bind.contact_points[j as usize];
                if j as usize == i || cj.group == cp.group {
                    continue;
                }
                let jf = bind.filters[(cj.filter_id & !CONTACT_FREE) as usize];
                if !layers_meet(&pf, &jf) {
                    continue;
                }
                let q = v2(bind.pos[j as usize]);
                let d = p - q;
                let d2 = d.dot(d);
                if d2 >= reach * reach {
                    continue;
                }
                if grid_cell((p - rr).max(q - rr), sim.inv_cell) != cell {
                    continue;
                }
                let wj = bind.info[j as usize].inv_mass;
                let w = wi + wj;
                if w == 0.0 {
                    continue;
                }
                let Some(counts) = counts else {
                    out[0] += 1;
                    continue;
                };
                let split_w = split(wi, counts[i]) + split(wj, counts[j as usize]);
                let dist = d2.sqrt();
                let n = if d2 > TINY_DIST2 {
                    d / dist
                } else if (j as usize) < i {
                    Vec2::new(-1.0, 0.0)
                } else {
                    Vec2::new(1.0, 0.0)
                };
                let m = pair_material(&pf, &jf);
                let depth = reach - dist;
                let vrel = v - v2(bind.vel[j as usize]);
                let (dv, dp) =
                    contact_response(vrel, n, depth, &m, sim.h, sim.restitution_threshold);
                let push = (n * depth + dp) / split_w;
                let jv = dv / split_w;
                let scale = sim.contact_scale;
                add4(&mut out, fixed(push * wi, scale), fixed(jv * wi, scale));
            }
        }
    }
    out
}

/// WGSL `narrow` for every point: each point's deepest body contact into
/// `hits`, and every point's contact count into `counts` (which must be
/// zero); `free` is scratch, one per point.
pub fn narrow(
    bind: &Bindings,
    hits: &mut [ContactHit],
    free: &mut [u32],
    counts: &mut [u32],
    parallel: bool,
) {
    let n = bind.sim.num_points as usize;
    par::zip_mut(parallel, &mut hits[..n], &mut free[..n], |i, hit, free| {
        let cp = bind.contact_points[i];
        let p = v2(bind.pos[i]);
        if quiet_point(bind, p, &cp) {
            *hit = ContactHit::QUIET;
            *free = 0;
            return;
        }
        let pf = bind.filters[(cp.filter_id & !CONTACT_FREE) as usize];
        *hit = deepest(bind, p, v2(bind.vel[i]), &cp, &pf);
        *free = if cp.filter_id & CONTACT_FREE != 0 {
            disks(bind, i, Vec2::ZERO, None)[0] as u32
        } else {
            0
        };
    });
    recount(bind, hits, counts);
    for i in 0..n {
        counts[i] += free[i];
    }
}

/// WGSL `recount` (and the counting in `narrow`): every point a stored
/// outline contact moves counts it (an edge end at `t` = 0 or 1 on the
/// other side is not moved). `counts` must be zero.
pub fn recount(bind: &Bindings, hits: &[ContactHit], counts: &mut [u32]) {
    let n = bind.sim.num_points as usize;
    for (i, hit) in hits[..n].iter().enumerate() {
        if hit.body != u32::MAX {
            let (a, b) = edge_ends(bind, hit);
            counts[i] += 1;
            if hit.t < 1.0 {
                counts[a as usize] += 1;
            }
            if hit.t > 0.0 {
                counts[b as usize] += 1;
            }
        }
    }
}

/// WGSL `resolve_at` for point `i`: its contacts' fixed-point changes.
/// With `relax` (WGSL `relax`), the velocity part of its outline contact
/// alone: no push, no restitution, no viscous decay, friction bounded by
/// the velocity change, no disks.
pub fn resolve_point(
    bind: &Bindings,
    hits: &[ContactHit],
    counts: &[u32],
    warm: &[Warm],
    i: usize,
    relax: bool,
) -> Contributions {
    let hit = hits[i];
    let cp = bind.contact_points[i];
    let mut out = Contributions::default();
    if hit.body == u32::MAX && (cp.filter_id & CONTACT_FREE == 0 || relax) {
        return out;
    }
    let v = v2(bind.vel[i]);
    let wi = bind.info[i].inv_mass;
    let pf = bind.filters[(cp.filter_id & !CONTACT_FREE) as usize];
    if hit.body != u32::MAX {
        let (ia, ib) = edge_ends(bind, &hit);
        let wa = bind.info[ia as usize].inv_mass;
        let wb = bind.info[ib as usize].inv_mass;
        let s = 1.0 - hit.t;
        let t = hit.t;
        let w = wi + s * s * wa + t * t * wb;
        if w > 0.0 {
            let split_w = split(wi, counts[i])
                + s * s * split(wa, counts[ia as usize])
                + t * t * split(wb, counts[ib as usize]);
            let bf = &bind.filters[bind.outlines[hit.body as usize].filter_id as usize];
            let mut m = pair_material(&pf, bf);
            if relax {
                // Restitution and the viscous decay act once per substep,
                // in the contact pass.
                m.elasticity = 0.0;
                m.decay = 1.0;
            }
            let n = v2(hit.n);
            let vrel = v - (v2(bind.vel[ia as usize]) * s + v2(bind.vel[ib as usize]) * t);
            let sim = bind.sim;
            if !relax && sim.sleep_steps > 0 {
                let approach = -vrel.dot(n);
                if approach > 0.0 && approach * approach > sim.wake_speed_sq {
                    out.wake = Some([cp.group, bind.outlines[hit.body as usize].group]);
                }
            }
            // With the body the substep's first narrow phase found, the
            // normal impulse toward stopping the approach adds to the
            // substep's total, and a contact that separates takes back what
            // is left of its warm start, as far as it separates.
            let vn = vrel.dot(n);
            let mut pull = 0.0;
            if hit.body == warm[i][1] {
                let mut left = f32::from_bits(warm[i][2]);
                let mut total = f32::from_bits(warm[i][3]);
                if vn < 0.0 {
                    total -= vn / split_w;
                } else if vn > 0.0 && left > 0.0 {
                    pull = (vn / split_w).min(left);
                    left -= pull;
                    total -= pull;
                }
                out.warm = Some([left.to_bits(), total.to_bits()]);
            }
            let depth = if relax { 0.0 } else { hit.depth };
            let (dv, dp) = contact_response(vrel, n, depth, &m, sim.h, sim.restitution_threshold);
            let push = if relax {
                Vec2::ZERO
            } else {
                (n * depth + dp) / split_w
            };
            let j = dv / split_w - n * pull;
            let scale = bind.sim.contact_scale;
            add4(&mut out.own, fixed(push * wi, scale), fixed(j * wi, scale));
            if wa > 0.0 {
                let mut a = [0; 4];
                add4(
                    &mut a,
                    fixed(-push * (s * wa), scale),
                    fixed(-j * (s * wa), scale),
                );
                out.ends[0] = Some((ia, a));
            }
            if wb > 0.0 {
                let mut b = [0; 4];
                add4(
                    &mut b,
                    fixed(-push * (t * wb), scale),
                    fixed(-j * (t * wb), scale),
                );
                out.ends[1] = Some((ib, b));
            }
        }
    }
    if cp.filter_id & CONTACT_FREE != 0 && !relax {
        let d = disks(bind, i, v, Some(counts));
        add4(&mut out.own, [d[0], d[1]], [d[2], d[3]]);
    }
    out
}

/// [`resolve`]'s per-point scratch, sized once per world: the points with
/// a contact to solve and their contributions.
#[derive(Clone, Debug, Default)]
pub struct ResolveScratch {
    active: Vec<u32>,
    each: Vec<Contributions>,
}

impl ResolveScratch {
    /// Scratch for `n` points.
    pub fn new(n: usize) -> Self {
        Self {
            active: Vec::with_capacity(n),
            each: vec![Contributions::default(); n],
        }
    }
}

/// WGSL `resolve` (or, with `relax`, `relax`) for every point, summed
/// into the fixed-point accumulators (`acc`, one `[dp.x, dp.y, dv.x,
/// dv.y]` per point). Only points with a contact are visited: the others
/// change nothing, and the integer sums do not depend on the order they
/// are added in. Contacts that approach faster than the wake speed raise
/// both sides' assemblies in `sleep_speed` to [`SLEEP_WAKE`].
#[allow(clippy::too_many_arguments)]
pub fn resolve(
    bind: &Bindings,
    hits: &[ContactHit],
    counts: &[u32],
    warm: &mut [Warm],
    scratch: &mut ResolveScratch,
    acc: &mut [[i32; 4]],
    sleep_speed: &mut [u32],
    relax: bool,
    parallel: bool,
) {
    let n = bind.sim.num_points as usize;
    let ResolveScratch { active, each } = scratch;
    active.clear();
    active.extend((0..n as u32).filter(|&i| {
        hits[i as usize].body != u32::MAX
            || (!relax && bind.contact_points[i as usize].filter_id & CONTACT_FREE != 0)
    }));
    let each = &mut each[..active.len()];
    {
        let warm: &[Warm] = warm;
        par::map(parallel, each, |k| {
            resolve_point(bind, hits, counts, warm, active[k] as usize, relax)
        });
    }
    for (&i, c) in active.iter().zip(each.iter()) {
        let i = i as usize;
        add_contributions(acc, i, c);
        for g in c.wake.into_iter().flatten() {
            let s = &mut sleep_speed[g as usize];
            *s = (*s).max(SLEEP_WAKE);
        }
        if let Some([left, total]) = c.warm {
            warm[i][2] = left;
            warm[i][3] = total;
        }
    }
}

/// Adds point `i`'s contributions to the accumulators.
fn add_contributions(acc: &mut [[i32; 4]], i: usize, c: &Contributions) {
    add4(&mut acc[i], [c.own[0], c.own[1]], [c.own[2], c.own[3]]);
    for &(k, d) in c.ends.iter().flatten() {
        add4(&mut acc[k as usize], [d[0], d[1]], [d[2], d[3]]);
    }
}

/// Adds the accumulators to the state and clears them and, unless
/// `keep_counts` (after the warm start, WGSL `KEEP_COUNTS`), the counts
/// (WGSL `apply`).
pub fn apply(
    sim: &SimParams,
    acc: &mut [[i32; 4]],
    counts: &mut [u32],
    keep_counts: bool,
    pos: &mut [[f32; 2]],
    vel: &mut [[f32; 2]],
) {
    let unit = 1.0 / sim.contact_scale;
    let n = sim.num_points as usize;
    if !keep_counts {
        counts[..n].fill(0);
    }
    for ((a, p), v) in acc[..n].iter_mut().zip(&mut pos[..n]).zip(&mut vel[..n]) {
        if *a != [0; 4] {
            *p = (v2(*p) + Vec2::new(a[0] as f32, a[1] as f32) * unit).to_array();
            *v = (v2(*v) + Vec2::new(a[2] as f32, a[3] as f32) * unit).to_array();
            *a = [0; 4];
        }
    }
}
