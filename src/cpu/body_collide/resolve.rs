//! Resolve and apply, part of stage 5b (`shaders/body_collide/resolve.wgsl`):
//! each contact's fixed-point changes, with mass splitting, summed into
//! the accumulators and added to the state.

use super::warm::{untagged, warm_left};
use super::*;
use crate::layout::WARM_SETTLED;

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

pub(super) fn add4(a: &mut [i32; 4], dp: [i32; 2], dv: [i32; 2]) {
    a[0] = a[0].wrapping_add(dp[0]);
    a[1] = a[1].wrapping_add(dp[1]);
    a[2] = a[2].wrapping_add(dv[0]);
    a[3] = a[3].wrapping_add(dv[1]);
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
                let ci = counts[i];
                let cj = counts[j as usize];
                let split_w = split(wi, ci) + split(wj, cj);
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
                let threshold = contact_threshold(sim, vrel, n, depth);
                let (dv, dp) = contact_response(vrel, n, depth, &m, sim.h, threshold);
                let push0 = (n * depth + dp) / split_w;
                let jv0 = dv / split_w;
                let scale = sim.contact_scale;
                // Scaled as the partner scales its own (WGSL `disks`).
                let fit = |x: Vec2| fit_of(x * wi, scale, ci).min(fit_of(x * wj, scale, cj));
                let push = push0 * fit(push0);
                let jv = jv0 * fit(jv0);
                add4(
                    &mut out,
                    fixed_of(push * wi, scale, ci),
                    fixed_of(jv * wi, scale, ci),
                );
            }
        }
    }
    out
}

/// How much faster a contact's impulse would move its sleeping side than
/// its awake one (WGSL `sleeper_share`): the ratio of the sides' inverse
/// masses when one side sleeps and is the lighter, else 1. A contact wakes
/// its sides when its approach times this passes the wake speed: a body
/// set gently on a sleeping one a hundred times lighter per point wakes
/// it, where one of its own weight rests on it asleep. `w*` are the
/// solver's inverse masses (0 while asleep), the real ones in `masses`.
pub(super) fn sleeper_share(
    bind: &Bindings,
    i: usize,
    (ia, ib): (u32, u32),
    (s, t): (f32, f32),
    wi: f32,
    (wa, wb): (f32, f32),
) -> f32 {
    let we = s * s * wa + t * t * wb;
    if (wi > 0.0) == (we > 0.0) {
        return 1.0;
    }
    if we == 0.0 {
        let m = bind.masses;
        let re = s * s * m[ia as usize].inv_mass + t * t * m[ib as usize].inv_mass;
        (re / wi).max(1.0)
    } else {
        (bind.masses[i].inv_mass / we).max(1.0)
    }
}

/// The depth a body contact of a point that has not settled pushes out
/// in one contact pass, given the point's placement allowance `allowance`
/// (WGSL `placed_push`; docs/physics.md, "Bodies built touching"): what
/// lies deeper than the allowance, at once where the point went no deeper
/// than the allowance plus the push speed's step `body_push_speed h` at
/// the pass's start, else toward that start depth less the step. The
/// allowance is the depth the point was placed at (at most the point
/// radius), shrinking by a skin step every substep, so that bodies built
/// touching part slowly while a load pressing them deeper is held.
#[inline]
pub fn placed_push(sim: &SimParams, (vrel, n): (Vec2, Vec2), depth: f32, allowance: f32) -> f32 {
    let before = depth + vrel.dot(n) * sim.h;
    let target = (before - sim.body_push_speed * sim.h).max(allowance);
    (depth - target).max(0.0)
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
        // Neither side has mass to push the other (sleeping or kinematic):
        // sides that close in wake, or a kinematic one would pass through a
        // sleeping one; a sleeping point on a kinematic body's edge that
        // moves off faster than the wake speed wakes too.
        if !relax && bind.sim.sleep_steps > 0 && wa == 0.0 && wb == 0.0 {
            let ve = v2(bind.vel[ia as usize]) * s + v2(bind.vel[ib as usize]) * t;
            let dv = v - ve;
            let closing = wi == 0.0 && dv.dot(v2(hit.n)) < 0.0;
            if closing || (ve != Vec2::ZERO && dv.length_squared() > bind.sim.wake_speed_sq) {
                out.wake = Some([cp.group, bind.outlines[hit.body as usize].group]);
            }
        }
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
                let lift = approach * sleeper_share(bind, i, (ia, ib), (s, t), wi, (wa, wb));
                if approach > 0.0 && lift * lift > sim.wake_speed_sq {
                    out.wake = Some([cp.group, bind.outlines[hit.body as usize].group]);
                }
            }
            // With the body the substep's first narrow phase found, the
            // normal impulse toward stopping the approach adds to the
            // substep's total, and a contact that separates takes back what
            // is left of its warm start, as far as it separates.
            let vn = vrel.dot(n);
            let mut pull = 0.0;
            let settled = warm[i][2] & WARM_SETTLED;
            let (mut left, allowance) = warm_left(&warm[i]);
            if hit.body == warm[i][1] {
                let mut total = f32::from_bits(warm[i][3]);
                if vn < 0.0 {
                    total -= vn / split_w;
                } else if vn > 0.0 && left > 0.0 {
                    pull = (vn / split_w).min(left);
                    left -= pull;
                    total -= pull;
                }
                let word = if settled != 0 {
                    left.to_bits() | settled
                } else if allowance > 0.0 {
                    warm[i][2]
                } else {
                    untagged(left).to_bits()
                };
                out.warm = Some([word, total.to_bits()]);
            }
            // The allowance the contact keeps: the point's own while it
            // has not settled, else the larger of its edge's ends' (a body
            // placed touching settled ones).
            let placing = if settled != 0 {
                warm_left(&warm[ia as usize])
                    .1
                    .max(warm_left(&warm[ib as usize]).1)
            } else {
                allowance
            };
            let depth = if relax { 0.0 } else { hit.depth };
            let threshold = contact_threshold(sim, vrel, n, depth);
            // A point placed inside another body, or inside one placed
            // over it, leaves it at the push speed until both have settled
            // (the point and its edge's ends), and a pair placed tangled
            // at its pace (`TANGLE_FRESH`; docs/physics.md, "Deep
            // overlaps").
            let depth = match untangle::tangle_word(bind, hit.body, cp.group) {
                Some(w) if untangle::tangle_fresh(bind, hit.body, w) => {
                    depth.min(sim.untangle_push * sim.h)
                }
                Some(_) => depth,
                None if placing > 0.0 => placed_push(sim, (vrel, n), depth, placing),
                None if settled & warm[ia as usize][2] & warm[ib as usize][2] == 0 => {
                    let slop = BODY_PUSH_SLOP * sim.point_radius;
                    push_depth(sim, (vrel, n), depth, slop, sim.body_push_speed)
                }
                None => depth,
            };
            let (dv, dp) = contact_response(vrel, n, depth, &m, sim.h, threshold);
            let push = if relax {
                Vec2::ZERO
            } else {
                (n * depth + dp) / split_w
            };
            let j0 = dv / split_w - n * pull;
            let scale = bind.sim.contact_scale;
            let (ci, ca, cb) = (counts[i], counts[ia as usize], counts[ib as usize]);
            // The push and the impulse each scaled alike on its three
            // points to fit their accumulators (WGSL `resolve_at`).
            let (mut fp, mut fj) = (fit_of(push * wi, scale, ci), fit_of(j0 * wi, scale, ci));
            if wa > 0.0 {
                fp = fp.min(fit_of(-push * (s * wa), scale, ca));
                fj = fj.min(fit_of(-j0 * (s * wa), scale, ca));
            }
            if wb > 0.0 {
                fp = fp.min(fit_of(-push * (t * wb), scale, cb));
                fj = fj.min(fit_of(-j0 * (t * wb), scale, cb));
            }
            let push = push * fp;
            let j = j0 * fj;
            add4(
                &mut out.own,
                fixed_of(push * wi, scale, ci),
                fixed_of(j * wi, scale, ci),
            );
            if wa > 0.0 {
                let mut a = [0; 4];
                add4(
                    &mut a,
                    fixed_of(-push * (s * wa), scale, ca),
                    fixed_of(-j * (s * wa), scale, ca),
                );
                out.ends[0] = Some((ia, a));
            }
            if wb > 0.0 {
                let mut b = [0; 4];
                add4(
                    &mut b,
                    fixed_of(-push * (t * wb), scale, cb),
                    fixed_of(-j * (t * wb), scale, cb),
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
    pub(super) active: Vec<u32>,
    pub(super) each: Vec<Contributions>,
}

impl ResolveScratch {
    /// Scratch for `n` points, in the allocations it has.
    pub fn reset(&mut self, n: usize) {
        self.active.clear();
        self.each.clear();
        self.each.resize(n, Contributions::default());
    }

    /// Scratch for `n` points, what it holds for the first ones kept
    /// (each resolve writes a point's record before it reads it).
    pub fn extend(&mut self, n: usize) {
        self.active.clear();
        self.each.resize(n, Contributions::default());
    }

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

/// The contacts a contact pass (not a relax pass) resolved, as each
/// point's last contact of the step with a body (WGSL `resolve_at`'s
/// `touched`): `[body + 1, edge]`.
pub fn note_touched(hits: &[ContactHit], touched: &mut [[u32; 2]]) {
    for (hit, t) in hits.iter().zip(touched.iter_mut()) {
        if hit.body != u32::MAX {
            *t = [hit.body + 1, hit.edge];
        }
    }
}

/// Adds point `i`'s contributions to the accumulators.
pub(super) fn add_contributions(acc: &mut [[i32; 4]], i: usize, c: &Contributions) {
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
