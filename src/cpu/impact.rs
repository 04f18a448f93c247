//! Stage 5c, mirror of `shaders/impact.wgsl`: body impacts act on whole
//! bodies.
//!
//! A contact whose bodies approach faster than the restitution threshold
//! is an impact. Solved point by point, an impact stops the points that
//! touch while the rest of the body runs on into them: the body is
//! squashed and springs back by its own elasticity, whatever the
//! contact's (docs/physics.md, "Impacts"). Here each impact is solved as
//! between rigid bodies instead, from the bodies' mean velocities (their
//! frames): the impulse that reverses the approach `v` with the
//! elasticity, `J = (1 + e) v / (k_a w_a + k_b w_b)`, changes the velocity
//! of every point of each side's body by `J w n` (`w` the body's inverse
//! mass, `k` its impacts this substep: mass splitting, as in the point
//! contacts). The point contacts see no approach left and only push out,
//! hold friction and settle what the body's spin or deformation leaves.
//!
//! Half-plane and planet impacts are shape matching's
//! ([`super::shape_match::plane_impacts`]). After the first narrow phase of
//! a substep, `clear` zeroes the per-body counts and accumulators, `count`
//! counts the body impacts per body, `resolve` adds their velocity
//! changes, and `apply` adds each body's to its points.

use glam::Vec2;

use super::body_collide::{Bindings, asleep, pair_material};
use super::broad_phase::{fit_of, fixed_of};
use super::v2;
use crate::layout::{
    BodyFrame, BodyInfo, CONTACT_FREE, ContactHit, IMPACT_NONE, Member, PointInfo, SLEEP_WAKE,
    SimParams,
};

/// The body of point `i` when it takes part in impacts: a body none of
/// whose points is pinned or shared ([`Packed::impact_home`](crate::pack::Packed::impact_home)).
#[inline]
fn impact_body(home: &[u32], i: usize) -> Option<u32> {
    let body = home[i];
    (body != IMPACT_NONE).then_some(body)
}

/// Whether an approach speed is an impact's: faster than the restitution
/// threshold (WGSL `is_impact`; the body impacts here and the half-plane
/// and planet impacts of `shape_match::plane_impacts`).
#[inline]
pub(crate) fn is_impact(sim: &SimParams, approach: f32) -> bool {
    approach > sim.restitution_threshold
}

#[inline]
fn add(a: &mut [i32; 2], q: [i32; 2]) {
    a[0] = a[0].wrapping_add(q[0]);
    a[1] = a[1].wrapping_add(q[1]);
}

/// What the impact kernels read.
pub struct ImpactBindings<'a> {
    pub sim: &'a SimParams,
    /// The solver's point info (inverse mass 0 while asleep).
    pub info: &'a [PointInfo],
    /// Each point's body in impacts ([`Packed::impact_home`](crate::pack::Packed::impact_home)).
    pub home: &'a [u32],
    /// Each body's inverse mass in impacts.
    pub inv_mass: &'a [f32],
    /// The bodies' frames of this substep: their mean velocities.
    pub frames: &'a [BodyFrame],
    /// The points' positions (where a kinematic side's velocity is taken).
    pub pos: &'a [[f32; 2]],
    /// The body contacts and the contacts the narrow phase stored.
    pub contacts: &'a Bindings<'a>,
    pub hits: &'a [ContactHit],
}

/// One side of an impact: its body and that body's inverse mass. `w = 0`
/// for a side that takes no impulse: a sleeping body, which does not move
/// (`body` [`IMPACT_NONE`]), or a kinematic one, which moves as its
/// points do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Side {
    pub body: u32,
    pub w: f32,
}

impl Side {
    const STATIC: Side = Side {
        body: IMPACT_NONE,
        w: 0.0,
    };

    /// The side of body `body` of impact inverse mass `w`
    /// ([`Packed::impact_inv_mass`](crate::pack::Packed::impact_inv_mass)):
    /// a kinematic body takes no impulse.
    fn of(body: u32, w: f32) -> Side {
        Side {
            body,
            w: w.max(0.0),
        }
    }

    /// The side's velocity at `p`: a body's mean velocity, a kinematic
    /// body's rigid velocity there (it turns as a rigid body), zero for a
    /// side that does not move.
    #[inline]
    fn vel(self, frames: &[BodyFrame], p: Vec2) -> Vec2 {
        if self.body == IMPACT_NONE {
            return Vec2::ZERO;
        }
        let f = &frames[self.body as usize];
        if self.w > 0.0 {
            v2(f.vel)
        } else {
            v2(f.vel) + (p - v2(f.centroid)).perp() * f.omega
        }
    }
}

/// A body impact: the normal pushing side `a` (the point's body) out of
/// side `b`, the approach speed along it, the elasticity, both sides and
/// the two assemblies it wakes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Impact {
    pub n: Vec2,
    pub approach: f32,
    pub elasticity: f32,
    pub a: Side,
    pub b: Side,
    pub groups: [u32; 2],
    /// The approach times how much faster the impulse would move a
    /// sleeping side than the awake one (1 unless one side sleeps and is
    /// the lighter): past the wake speed, the impact wakes both.
    pub wake: f32,
}

/// Point `i`'s body-contact impact (WGSL `body_impact`): the contact the
/// narrow phase stored, between two bodies that take part (one of them
/// awake and not kinematic) and whose velocities ([`Side`]) approach faster
/// than the restitution threshold.
pub fn body_impact(bind: &ImpactBindings, i: usize) -> Option<Impact> {
    let cb = bind.contacts;
    let hit = bind.hits[i];
    if hit.body == ContactHit::NONE.body {
        return None;
    }
    let a_body = impact_body(bind.home, i)?;
    let (wa, wb) = (
        bind.inv_mass[a_body as usize],
        bind.inv_mass[hit.body as usize],
    );
    if wb == 0.0 {
        return None;
    }
    // A sleeping side does not move; a kinematic one (its points pinned)
    // moves whether asleep or not.
    let a = if wa > 0.0 && bind.info[i].inv_mass == 0.0 {
        Side::STATIC
    } else {
        Side::of(a_body, wa)
    };
    let o = &cb.outlines[hit.body as usize];
    let b = if wb > 0.0 && asleep(cb, o.group) {
        Side::STATIC
    } else {
        Side::of(hit.body, wb)
    };
    if a.w == 0.0 && b.w == 0.0 {
        return None;
    }
    let n = v2(hit.n);
    let p = v2(bind.pos[i]);
    let approach = -(a.vel(bind.frames, p) - b.vel(bind.frames, p)).dot(n);
    if !is_impact(bind.sim, approach) {
        return None;
    }
    let cp = cb.contact_points[i];
    let pf = &cb.filters[(cp.filter_id & !CONTACT_FREE) as usize];
    let bf = &cb.filters[o.filter_id as usize];
    // (A kinematic side's inverse mass is negative: its share is 1.)
    let share = if a.w == 0.0 {
        (wa / wb).max(1.0)
    } else if b.w == 0.0 {
        (wb / wa).max(1.0)
    } else {
        1.0
    };
    Some(Impact {
        n,
        approach,
        elasticity: pair_material(pf, bf).elasticity,
        a,
        b,
        groups: [cp.group, o.group],
        wake: approach * share,
    })
}

/// WGSL `count`: each body's impacts into `counts` (zero before), and the
/// assemblies of impacts faster than the wake speed woken in
/// `sleep_speed`.
pub fn count(bind: &ImpactBindings, counts: &mut [u32], sleep_speed: &mut [u32]) {
    let sim = bind.sim;
    for i in 0..sim.num_points as usize {
        let Some(imp) = body_impact(bind, i) else {
            continue;
        };
        for side in [imp.a, imp.b] {
            if side.w > 0.0 {
                counts[side.body as usize] += 1;
            }
        }
        if sim.sleep_steps > 0 && imp.wake * imp.wake > sim.wake_speed_sq {
            for g in imp.groups {
                let s = &mut sleep_speed[g as usize];
                *s = (*s).max(SLEEP_WAKE);
            }
        }
    }
}

/// A body impact's velocity changes (WGSL `resolve`): `J w n` on each
/// side, with `J = (1 + e) v / (k_a w_a + k_b w_b)`, both scaled alike to
/// fit their accumulators at `scale` ([`fit_of`]).
#[inline]
pub fn impulse(imp: &Impact, counts: &[u32], scale: f32) -> (Vec2, Vec2) {
    let k = |s: Side| {
        if s.w > 0.0 {
            counts[s.body as usize] as f32
        } else {
            0.0
        }
    };
    let fit = |s: Side, dv: Vec2| {
        if s.w > 0.0 {
            fit_of(dv, scale, counts[s.body as usize])
        } else {
            1.0
        }
    };
    let j = (1.0 + imp.elasticity) * imp.approach / (k(imp.a) * imp.a.w + k(imp.b) * imp.b.w);
    let jf = j * fit(imp.a, imp.n * (j * imp.a.w)).min(fit(imp.b, imp.n * (-j * imp.b.w)));
    (imp.n * (jf * imp.a.w), imp.n * (-jf * imp.b.w))
}

/// WGSL `resolve`: every body impact's terms, in fixed point, into its
/// bodies' accumulators `acc`.
pub fn resolve(bind: &ImpactBindings, counts: &[u32], acc: &mut [[i32; 2]]) {
    let scale = bind.sim.contact_scale;
    for i in 0..bind.sim.num_points as usize {
        let Some(imp) = body_impact(bind, i) else {
            continue;
        };
        let (da, db) = impulse(&imp, counts, scale);
        for (side, dv) in [(imp.a, da), (imp.b, db)] {
            if side.w > 0.0 {
                let count = counts[side.body as usize];
                add(&mut acc[side.body as usize], fixed_of(dv, scale, count));
            }
        }
    }
}

/// WGSL `apply`: each body that had impacts adds its accumulator to each
/// of its awake points (its points are its own: a body that shares one
/// takes no part), and every body's count and accumulator go back to zero
/// for the next substep.
#[allow(clippy::too_many_arguments)]
pub fn apply(
    sim: &SimParams,
    info: &[PointInfo],
    bodies: &[BodyInfo],
    members: &[Member],
    counts: &mut [u32],
    acc: &mut [[i32; 2]],
    vel: &mut [[f32; 2]],
) {
    let unit = 1.0 / sim.contact_scale;
    for (b, body) in bodies[..sim.num_bodies as usize].iter().enumerate() {
        let (count, a) = (counts[b], acc[b]);
        counts[b] = 0;
        acc[b] = [0; 2];
        if count == 0 {
            continue;
        }
        let dv = Vec2::new(a[0] as f32, a[1] as f32) * unit;
        for m in &members[body.first as usize..(body.first + body.count) as usize] {
            let i = m.point as usize;
            if info[i].inv_mass != 0.0 {
                vel[i] = (v2(vel[i]) + dv).to_array();
            }
        }
    }
}
