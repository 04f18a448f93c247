//! Stage 5c, mirror of `shaders/impact.wgsl`: impacts act on whole bodies.
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
//! `count` finds each point's impacts (its half-plane or planet contact one
//! substep ahead, and the body contact the narrow phase stored) and counts
//! them per body; `resolve` adds each impact's velocity changes into its
//! bodies' fixed-point accumulators; `apply` adds a body's accumulator to
//! its points; `clear` zeroes the counts and accumulators.

use glam::Vec2;

use super::body_collide::{Bindings, asleep, pair_material};
use super::broad_phase::fixed;
use super::collide::deepest_contact;
use super::{par, v2};
use crate::layout::{
    BodyFrame, CONTACT_FREE, ContactHit, IMPACT_NONE, MaterialInfo, PlaneInfo, PlanetInfo,
    PointInfo, SLEEP_WAKE, SimParams,
};

/// The body of point `i` when it takes part in impacts: a body none of
/// whose points is pinned or shared ([`Packed::impact_home`](crate::pack::Packed::impact_home)).
#[inline]
fn impact_body(home: &[u32], i: usize) -> Option<u32> {
    let body = home[i];
    (body != IMPACT_NONE).then_some(body)
}

/// Whether an approach speed is an impact's: faster than the restitution
/// threshold.
#[inline]
fn is_impact(sim: &SimParams, approach: f32) -> bool {
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
    pub materials: &'a [MaterialInfo],
    pub planets: &'a [PlanetInfo],
    pub planes: &'a [PlaneInfo],
    pub pos: &'a [[f32; 2]],
    /// Each point's body in impacts ([`Packed::impact_home`](crate::pack::Packed::impact_home)).
    pub home: &'a [u32],
    /// Each body's inverse mass in impacts.
    pub inv_mass: &'a [f32],
    /// The bodies' frames of this substep: their mean velocities.
    pub frames: &'a [BodyFrame],
    /// The body contacts and the contacts the narrow phase stored, when
    /// one ran this substep.
    pub contacts: Option<(&'a Bindings<'a>, &'a [ContactHit])>,
}

/// One side of an impact: its body and that body's inverse mass (`w = 0`
/// for a side that does not move, a sleeping body).
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

    /// The mean velocity of the side's body (zero for a side that does not
    /// move).
    #[inline]
    fn vel(self, frames: &[BodyFrame]) -> Vec2 {
        if self.w > 0.0 {
            v2(frames[self.body as usize].vel)
        } else {
            Vec2::ZERO
        }
    }
}

/// An impact: the normal pushing side `a` (the point's body) out of side
/// `b`, the approach speed along it, the elasticity, both sides and, for a
/// body contact, the two assemblies it wakes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Impact {
    pub n: Vec2,
    pub approach: f32,
    pub elasticity: f32,
    pub a: Side,
    pub b: Side,
    pub groups: Option<[u32; 2]>,
}

/// Point `i`'s impact with a half-plane or planet (WGSL `plane_impact`):
/// its body takes part, is awake, moves faster than the restitution
/// threshold, and approaches its deepest contact one substep ahead (at the
/// point moved by the body's velocity over a substep) faster than that.
/// One substep ahead, so that a body is stopped or turned before its
/// points sink in, whose push back out would spring it.
pub fn plane_impact(bind: &ImpactBindings, i: usize) -> Option<Impact> {
    let body = impact_body(bind.home, i)?;
    if bind.info[i].inv_mass == 0.0 {
        return None;
    }
    let v = v2(bind.frames[body as usize].vel);
    let t = bind.sim.restitution_threshold;
    if v.dot(v) <= t * t {
        return None;
    }
    let pi = bind.info[i];
    let ahead = v2(bind.pos[i]) + v * bind.sim.h;
    let (n, _) = deepest_contact(bind.sim, pi.layers, ahead, bind.planets, bind.planes)?;
    let approach = -v.dot(n);
    if !is_impact(bind.sim, approach) {
        return None;
    }
    Some(Impact {
        n,
        approach,
        elasticity: bind.materials[pi.material as usize].elasticity,
        a: Side {
            body,
            w: bind.inv_mass[body as usize],
        },
        b: Side::STATIC,
        groups: None,
    })
}

/// Point `i`'s body-contact impact (WGSL `body_impact`): the contact the
/// narrow phase stored, between two bodies that take part (one of them
/// awake) and whose mean velocities approach faster than the restitution
/// threshold.
pub fn body_impact(bind: &ImpactBindings, i: usize) -> Option<Impact> {
    let (cb, hits) = bind.contacts?;
    let hit = hits[i];
    if hit.body == ContactHit::NONE.body {
        return None;
    }
    let a_body = impact_body(bind.home, i)?;
    let wb = bind.inv_mass[hit.body as usize];
    if wb == 0.0 {
        return None;
    }
    // A sleeping side does not move.
    let a = if bind.info[i].inv_mass == 0.0 {
        Side::STATIC
    } else {
        Side {
            body: a_body,
            w: bind.inv_mass[a_body as usize],
        }
    };
    let o = &cb.outlines[hit.body as usize];
    let b = if asleep(cb, o.group) {
        Side::STATIC
    } else {
        Side {
            body: hit.body,
            w: wb,
        }
    };
    if a.w == 0.0 && b.w == 0.0 {
        return None;
    }
    let n = v2(hit.n);
    let approach = -(a.vel(bind.frames) - b.vel(bind.frames)).dot(n);
    if !is_impact(bind.sim, approach) {
        return None;
    }
    let cp = cb.contact_points[i];
    let pf = &cb.filters[(cp.filter_id & !CONTACT_FREE) as usize];
    let bf = &cb.filters[o.filter_id as usize];
    Some(Impact {
        n,
        approach,
        elasticity: pair_material(pf, bf).elasticity,
        a,
        b,
        groups: Some([cp.group, o.group]),
    })
}

/// Point `i`'s impacts, half-plane or planet first.
#[inline]
fn impacts(bind: &ImpactBindings, i: usize) -> [Option<Impact>; 2] {
    [plane_impact(bind, i), body_impact(bind, i)]
}

/// WGSL `count`: each body's impacts into `counts` (zero before), and the
/// assemblies of body impacts faster than the wake speed woken in
/// `sleep_speed`.
pub fn count(bind: &ImpactBindings, counts: &mut [u32], sleep_speed: &mut [u32]) {
    let sim = bind.sim;
    for i in 0..sim.num_points as usize {
        for imp in impacts(bind, i).into_iter().flatten() {
            for side in [imp.a, imp.b] {
                if side.w > 0.0 {
                    counts[side.body as usize] += 1;
                }
            }
            if let Some(groups) = imp.groups
                && sim.sleep_steps > 0
                && imp.approach * imp.approach > sim.wake_speed_sq
            {
                for g in groups {
                    let s = &mut sleep_speed[g as usize];
                    *s = (*s).max(SLEEP_WAKE);
                }
            }
        }
    }
}

/// The velocity changes of an impact's two sides (WGSL `resolve_impact`),
/// with each side's inverse mass times its impact count.
#[inline]
pub fn impulse(imp: &Impact, counts: &[u32]) -> (Vec2, Vec2) {
    let split = |s: Side| {
        if s.w > 0.0 {
            s.w * counts[s.body as usize] as f32
        } else {
            0.0
        }
    };
    let j = (1.0 + imp.elasticity) * imp.approach / (split(imp.a) + split(imp.b));
    (imp.n * (j * imp.a.w), imp.n * (-j * imp.b.w))
}

/// WGSL `resolve`: every impact's velocity changes, in fixed point, into
/// its bodies' accumulators `acc` (zero before).
pub fn resolve(bind: &ImpactBindings, counts: &[u32], acc: &mut [[i32; 2]]) {
    let scale = bind.sim.contact_scale;
    for i in 0..bind.sim.num_points as usize {
        for imp in impacts(bind, i).into_iter().flatten() {
            let (da, db) = impulse(&imp, counts);
            for (side, dv) in [(imp.a, da), (imp.b, db)] {
                if side.w > 0.0 {
                    add(&mut acc[side.body as usize], fixed(dv, scale));
                }
            }
        }
    }
}

/// WGSL `apply`: each awake point of a body that had impacts gets the
/// body's velocity change.
pub fn apply(
    sim: &SimParams,
    info: &[PointInfo],
    home: &[u32],
    counts: &[u32],
    acc: &[[i32; 2]],
    vel: &mut [[f32; 2]],
    parallel: bool,
) {
    let unit = 1.0 / sim.contact_scale;
    let n = sim.num_points as usize;
    par::map_in_place(parallel, &mut vel[..n], |i, v| {
        let body = home[i];
        if body == IMPACT_NONE || counts[body as usize] == 0 || info[i].inv_mass == 0.0 {
            return;
        }
        let a = acc[body as usize];
        *v = (v2(*v) + Vec2::new(a[0] as f32, a[1] as f32) * unit).to_array();
    });
}

/// WGSL `clear`: the counts and accumulators back to zero.
pub fn clear(counts: &mut [u32], acc: &mut [[i32; 2]]) {
    counts.fill(0);
    acc.fill([0; 2]);
}
