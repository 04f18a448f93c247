//! Warm starting, part of stage 5b (`shaders/body_collide/warm.wgsl`'s
//! `warm_start` and `warm_impulse`, and `narrow` with `WARM_PASS`): each
//! point's contact state carried from substep to substep, and the warm
//! start a substep's first narrow phase applies.

use super::*;
use crate::layout::{SKIN_PUSH_SHARE, WARM_SETTLED, WARM_SKIN};
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

/// The low bit of an unsettled point's warm-start word `[2]` that marks
/// the rest as a placement allowance rather than a warm start (WGSL
/// `ALLOWANCE_TAG`): the allowance loses its lowest bit, a warm start of a
/// point placed deep its lowest bit.
pub const ALLOWANCE_TAG: u32 = 1;

/// A point's warm-start word `[2]` read (WGSL `warm_left`): the warm
/// start it may still take back, and its placement allowance (m; 0 when
/// it has settled ([`WARM_SETTLED`]), or has none: placed deep, or before
/// its first body contact since it was placed), as `(left, allowance)`.
#[inline]
pub fn warm_left(w: &Warm) -> (f32, f32) {
    if w[2] & WARM_SETTLED == 0 && w[2] & ALLOWANCE_TAG != 0 {
        (0.0, f32::from_bits(w[2] & !ALLOWANCE_TAG))
    } else {
        (f32::from_bits(w[2] & !WARM_SETTLED), 0.0)
    }
}

/// An unsettled point's warm start `j` as its word `[2]` holds it, the tag
/// bit clear (WGSL `untagged`).
#[inline]
pub fn untagged(j: f32) -> f32 {
    f32::from_bits(j.to_bits() & !ALLOWANCE_TAG)
}

/// The warm-start word `[2]` of a point whose substep's first narrow phase
/// found `hit`, and its warm start `j`, from its state `w` and assembly
/// `group` (WGSL `moved_on`; docs/physics.md, "Bodies built touching").
///
/// A point that has settled ([`WARM_SETTLED`]) stays settled and takes
/// its [`warm_impulse`]. One that has not and meets a body deeper than a
/// skin step `SKIN_PUSH_SHARE push_speed h` but less than
/// [`BODY_PUSH_SLOP`] point radii takes that depth, at most the point
/// radius, as its placement allowance, the depth its body contacts may
/// keep, shrunk by a skin step every later substep. A point deeper, or
/// touching a body tangled with its assembly, stays unsettled without an
/// allowance and keeps its warm start ("Deep overlaps"). The point settles
/// once it has no body contact, one within a skin step, or its allowance
/// has run out, and no collider stage found it in its skin this substep
/// ([`WARM_SKIN`]). While it has an allowance it takes no warm start.
#[inline]
pub fn moved_on(bind: &Bindings, hit: &ContactHit, w: &Warm, group: u32) -> (u32, f32) {
    if w[2] & WARM_SETTLED != 0 {
        let j = warm_impulse(hit, w);
        return (j.to_bits() | WARM_SETTLED, j);
    }
    let sim = bind.sim;
    let step = SKIN_PUSH_SHARE * sim.push_speed * sim.h;
    let (_, allowance) = warm_left(w);
    let (allowance, deep) = if hit.body == u32::MAX {
        (0.0, false)
    } else if super::untangle::tangle_word(bind, hit.body, group).is_some() {
        (allowance, true)
    } else if allowance > 0.0 {
        ((allowance - step).max(0.0), false)
    } else if hit.depth > BODY_PUSH_SLOP * sim.point_radius {
        (0.0, true)
    } else if hit.depth > step {
        (hit.depth.min(sim.point_radius), false)
    } else {
        (0.0, false)
    };
    if allowance > 0.0 {
        (allowance.to_bits() | ALLOWANCE_TAG, 0.0)
    } else if deep || w[3] & WARM_SKIN != 0 {
        let j = untagged(warm_impulse(hit, w));
        (j.to_bits(), j)
    } else {
        let j = warm_impulse(hit, w);
        (j.to_bits() | WARM_SETTLED, j)
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
        let (word, j) = moved_on(bind, hit, w, cp.group);
        *w = [w[1], hit.body, word, j.to_bits()];
    }
    let started = |i: usize| warm_left(&warm[i]).0;
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
