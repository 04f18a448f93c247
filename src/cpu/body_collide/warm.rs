//! Warm starting, part of stage 5b (`shaders/body_collide/warm.wgsl`'s
//! `warm_start` and `warm_impulse`, and `narrow` with `WARM_PASS`): each
//! point's contact state carried from substep to substep, and the warm
//! start a substep's first narrow phase applies.

use super::*;
use crate::layout::{WARM_SETTLED, WARM_SKIN};
use crate::world::Remap;

/// WGSL `WARM_START`: the share of the normal impulse a contact ended the
/// last substep with that it starts the next one with, when it persists
/// (docs/physics.md, "Warm starting"). Below 1, so that a contact whose
/// load went away pushes its points apart by less than it held them.
pub const WARM_START: f32 = 0.8;

/// WGSL `WARM_SHARE`: how many warm starts one accumulator may take at
/// the clamp before it could wrap. Each is clamped to `2^30 / WARM_SHARE`
/// units ([`fixed_of`]): the counts are not whole until the narrow phase
/// is, so they cannot bound the warm starts as they bound the resolve's
/// contributions.
pub const WARM_SHARE: u32 = 64;

/// One point's warm-starting state (WGSL `warm`): the body its last
/// substep's first narrow phase found, the body this substep's first
/// narrow phase found, the warm start this substep may still take back
/// (f32 bits), and the normal impulse its contact with that body has
/// applied this substep (f32 bits, the warm start included: the passes
/// that find another body for the point add nothing). All zero: nothing
/// to warm-start.
pub type Warm = [u32; 4];

/// A point's warm-starting state under a removal's body map (WGSL
/// `remap_warm`): its contacts' bodies renumbered, a removed one none.
pub fn remap_warm(w: &Warm, bodies: &Remap) -> Warm {
    let body = |b: u32| bodies.get(b).unwrap_or(u32::MAX);
    [body(w[0]), body(w[1]), w[2], w[3]]
}

/// The warm start of a point whose substep's first narrow phase found
/// `hit`, from its state `w` (WGSL `warm_impulse`): the share
/// [`WARM_START`] of the normal impulse of its last substep's contact if
/// that contact is with the same body and had persisted from the substep
/// before (so a new contact, such as an impact's, never carries its
/// impulse over), else 0.
#[inline]
pub fn warm_impulse(hit: &ContactHit, w: &Warm) -> f32 {
    let total = f32::from_bits(w[3] & !WARM_SKIN);
    if hit.body != u32::MAX && hit.body == w[1] && w[0] == w[1] && total > 0.0 {
        WARM_START * total
    } else {
        0.0
    }
}

/// [`WARM_SETTLED`] when the point's state `w` has it or its substep's
/// first narrow phase found `hit` without a body or with the point's
/// centre outside the body (depth at most one point radius) of a body not
/// tangled with its assembly `group` (a tangled pair's depth is capped),
/// unless a collider stage found it in its skin this substep
/// ([`WARM_SKIN`]; WGSL `settled`), else 0.
#[inline]
pub fn settled(bind: &Bindings, hit: &ContactHit, w: &Warm, group: u32) -> u32 {
    let shallow = hit.body == u32::MAX
        || (hit.depth <= bind.sim.point_radius
            && super::untangle::tangle_word(bind, hit.body, group).is_none());
    if w[2] & WARM_SETTLED != 0 || (shallow && w[3] & WARM_SKIN == 0) {
        WARM_SETTLED
    } else {
        0
    }
}

/// WGSL `warm_start` for point `i`, whose substep's first narrow phase
/// found `hit`: the velocity changes of its warm start `j` (an impulse
/// along the contact normal, split between the point and the edge's ends
/// by inverse mass, as [`resolve_point`] applies one, without mass
/// splitting: the impulse was found with the other contacts).
fn warm_point(bind: &Bindings, hit: &ContactHit, i: usize, j: f32) -> Contributions {
    let mut out = Contributions::default();
    let (ia, ib) = edge_ends(bind, hit);
    let wi = bind.info[i].inv_mass;
    let wa = bind.info[ia as usize].inv_mass;
    let wb = bind.info[ib as usize].inv_mass;
    let jn0 = v2(hit.n) * j;
    let scale = bind.sim.contact_scale;
    // Scaled alike on its three points to fit their accumulators (WGSL
    // `warm_start`).
    let mut f = fit_of(jn0 * wi, scale, WARM_SHARE);
    if wa > 0.0 {
        f = f.min(fit_of(-jn0 * ((1.0 - hit.t) * wa), scale, WARM_SHARE));
    }
    if wb > 0.0 {
        f = f.min(fit_of(-jn0 * (hit.t * wb), scale, WARM_SHARE));
    }
    let jn = jn0 * f;
    add4(&mut out.own, [0, 0], fixed_of(jn * wi, scale, WARM_SHARE));
    if wa > 0.0 {
        let mut a = [0; 4];
        let dv = -jn * ((1.0 - hit.t) * wa);
        add4(&mut a, [0, 0], fixed_of(dv, scale, WARM_SHARE));
        out.ends[0] = Some((ia, a));
    }
    if wb > 0.0 {
        let mut b = [0; 4];
        let dv = -jn * (hit.t * wb);
        add4(&mut b, [0, 0], fixed_of(dv, scale, WARM_SHARE));
        out.ends[1] = Some((ib, b));
    }
    out
}

/// The warm start after a substep's first narrow phase (WGSL `narrow`
/// with `WARM_PASS`): each point's [`warm_impulse`] into the
/// accumulators, and every point's [`Warm`] moved on to this substep.
/// Apply with the counts kept, before the impacts and the first resolve.
pub fn warm_start(
    bind: &Bindings,
    hits: &[ContactHit],
    warm: &mut [Warm],
    scratch: &mut ResolveScratch,
    acc: &mut [[i32; 4]],
    parallel: bool,
) {
    let n = bind.sim.num_points as usize;
    // Every point's state moves on first; its warm start is then in [2].
    for ((hit, w), cp) in hits[..n]
        .iter()
        .zip(&mut warm[..n])
        .zip(bind.contact_points)
    {
        let j = warm_impulse(hit, w).to_bits();
        *w = [w[1], hit.body, j | settled(bind, hit, w, cp.group), j];
    }
    let started = |i: usize| f32::from_bits(warm[i][2] & !WARM_SETTLED);
    let ResolveScratch { active, each } = scratch;
    active.clear();
    active.extend((0..n as u32).filter(|&i| started(i as usize) > 0.0));
    let each = &mut each[..active.len()];
    par::map(parallel, each, |k| {
        let i = active[k] as usize;
        warm_point(bind, &hits[i], i, started(i))
    });
    for (&i, c) in active.iter().zip(each.iter()) {
        add_contributions(acc, i as usize, c);
    }
}
