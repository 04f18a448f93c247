//! The narrow phase of stage 5b (`shaders/body_collide/narrow.wgsl`):
//! each point's deepest contact with another body's outline, the contact
//! counts, and the quiet points the later passes skip.

use super::*;

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
    joins: u32,
    pf: &ContactFilter,
    sleeping: bool,
    best: &mut ContactHit,
) {
    if !may_touch(bind, b, p, group, joins, pf, sleeping) {
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
                // Beyond the corner: only a point nearly on it touches it
                // (WGSL `tip_contact`).
                let (corner, f1, f2) = if edge_raw < 0.0 {
                    (at(edge), edge_dir, -dir2)
                } else {
                    (a2, -edge_dir, dir2)
                };
                let tip = r * CORNER_TIP_RADII;
                if best_d2 < tip * tip && best_d2 > TINY_DIST2 && facing_tip(p - corner, f1, f2) {
                    let d = best_d2.sqrt();
                    keep_deepest(best, b, edge, edge_t, tip - d, (p - corner) / d);
                }
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
    keep_deepest(best, b, edge, edge_t, depth, n);
}

/// WGSL `facing_tip`: whether a point at `off` from a corner, beyond it,
/// lies about along the corner's outward bisector: as far past one of
/// its edges (`f1`, `f2`: along each from the corner) as past the other,
/// within [`CORNER_TIP_BALANCE`]. A corner pointing at it, not one it sits
/// beside (as an aligned stack's corners sit one above the other).
fn facing_tip(off: Vec2, f1: Vec2, f2: Vec2) -> bool {
    let b1 = -off.dot(f1) / f1.dot(f1).sqrt();
    let b2 = -off.dot(f2) / f2.dot(f2).sqrt();
    b1.min(b2) >= CORNER_TIP_BALANCE * b1.max(b2)
}

/// WGSL `keep_deepest`: the contact with body `b` at `edge`, `t` kept in
/// `best` when deeper (ties: the lower body index), so that the result
/// does not depend on the order bodies are tested in.
fn keep_deepest(best: &mut ContactHit, b: u32, edge: u32, t: f32, depth: f32, n: Vec2) {
    if depth > best.depth || (depth == best.depth && b < best.body) {
        *best = ContactHit {
            depth,
            body: b,
            edge,
            t,
            n: n.to_array(),
        };
    }
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
        test_body(bind, c, p, v, cp.group, cp.joins, pf, sleeping, &mut best)
    });
    best
}

/// Whether the point at `p` (its ContactPoint `cp`) can have no contact
/// this substep (WGSL `quiet_point`): it sleeps, is no free point, no
/// awake body entered its slot and no large body is awake (a sleeping
/// point skips sleeping outlines). Its contact is
/// [`ContactHit::QUIET`], which the GPU's later narrow phase of the substep
/// skips.
pub fn quiet_point(bind: &Bindings, p: Vec2, cp: &ContactPoint) -> bool {
    let sim = bind.sim;
    if cp.filter_id & CONTACT_FREE != 0 || !asleep(bind, cp.group) {
        return false;
    }
    let slot = cell_slot(grid_cell(p, sim.inv_cell), sim.table_mask);
    bind.grid.awake[slot as usize] == 0 && !bind.grid.large_awake
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
