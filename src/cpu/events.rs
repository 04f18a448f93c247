//! Mirror of `shaders/events.wgsl`: which pairs of bodies, and which
//! bodies and colliders (planets, half-planes, terrain polylines), began and ended touching, once a step after the
//! substeps, with the speed at which they met.

use glam::Vec2;

use super::collide::{Colliders, collider_velocity, deepest_contact};
use super::terrain::terrain_hit;
use super::v2;
use crate::layout::{
    BodyOutline, ContactEvent, EVENT_BEGIN, EVENT_CAPACITY, EVENT_COLLIDER, EVENT_END,
    EVENT_KEEP_RADII, EVENT_TOUCH_RADII, PAIR_SLOTS, PointInfo, SimParams,
};
use crate::pack::{PackedTerrain, PointMembers};
use crate::world::Remap;

/// No pair in a slot.
const NO_PAIR: u32 = u32::MAX;

/// Contact events' state: each body's partners and their points, this
/// step's and the last's, this step's pair speeds, the points' velocities
/// at the step's start (WGSL `snapshot`), and the log.
#[derive(Clone, Debug, Default)]
pub struct EventState {
    pub pairs: [Vec<u32>; 2],
    pub points: [Vec<u32>; 2],
    pub speeds: Vec<f32>,
    /// Each point's position and velocity at the step's start.
    pub start: Vec<[f32; 4]>,
    pub events: Vec<ContactEvent>,
    pub lost: u64,
}

impl EventState {
    /// For `bodies` bodies: nobody touching.
    pub fn new(bodies: usize) -> Self {
        let empty = vec![NO_PAIR; bodies * PAIR_SLOTS as usize];
        Self {
            pairs: [empty.clone(), empty.clone()],
            points: [empty.clone(), empty],
            speeds: vec![0.0; bodies * PAIR_SLOTS as usize],
            start: Vec::new(),
            events: Vec::new(),
            lost: 0,
        }
    }

    /// What [`EventState::new`] makes for `bodies` bodies, with its log
    /// kept: contact events start again (what touches begins anew).
    pub fn reset(&mut self, bodies: usize) {
        let slots = bodies * PAIR_SLOTS as usize;
        for v in self.pairs.iter_mut().chain(&mut self.points) {
            v.clear();
            v.resize(slots, NO_PAIR);
        }
        self.speeds.clear();
        self.speeds.resize(slots, 0.0);
        self.start.clear();
    }

    /// For `bodies` bodies, the first of which these were for: those keep
    /// their partners, so what keeps touching raises no new event (an
    /// append; GPU: `Events::keep_pairs_of`).
    pub fn extend(&mut self, bodies: usize) {
        let slots = bodies * PAIR_SLOTS as usize;
        for v in self.pairs.iter_mut().chain(&mut self.points) {
            v.resize(slots, NO_PAIR);
        }
        self.speeds.resize(slots, 0.0);
    }

    /// After a removal, for the `bodies` bodies left: each kept body's
    /// pairs move to its new index with their partners and points
    /// renumbered (`points` and `bodies` the removal's old-to-new maps),
    /// so what keeps touching raises no new event; a pair with a removed
    /// body or point is dropped, without an end event (WGSL
    /// `remap_pairs`).
    pub fn remap(&mut self, points: &Remap, bodies: &Remap, new_bodies: usize) {
        let slots = PAIR_SLOTS as usize;
        for (pairs, pair_points) in self.pairs.iter_mut().zip(&mut self.points) {
            let mut new_pairs = vec![NO_PAIR; new_bodies * slots];
            let mut new_points = vec![NO_PAIR; new_bodies * slots];
            for (s, (&partner, &point)) in pairs.iter().zip(pair_points.iter()).enumerate() {
                if let (Some(b), Some((p, q))) = (
                    bodies.get((s / slots) as u32),
                    remap_pair(partner, point, points, bodies),
                ) {
                    let t = b as usize * slots + s % slots;
                    (new_pairs[t], new_points[t]) = (p, q);
                }
            }
            (*pairs, *pair_points) = (new_pairs, new_points);
        }
        self.speeds.clear();
        self.speeds.resize(new_bodies * slots, 0.0);
        self.start.clear();
    }

    /// WGSL `snapshot`: the state the step starts with (after the
    /// commands).
    pub fn snapshot(&mut self, pos: &[[f32; 2]], vel: &[[f32; 2]]) {
        self.start.clear();
        self.start
            .extend(pos.iter().zip(vel).map(|(p, v)| [p[0], p[1], v[0], v[1]]));
    }
}

/// A pair slot's partner and point under a removal's maps (WGSL
/// `remap_pairs`): a collider partner stays, a body partner and the point
/// are renumbered; `None` for an empty slot or one whose partner or point
/// was removed.
fn remap_pair(partner: u32, point: u32, points: &Remap, bodies: &Remap) -> Option<(u32, u32)> {
    let p = match partner {
        NO_PAIR => return None,
        c if c >= EVENT_COLLIDER => c,
        b => bodies.get(b)?,
    };
    Some((p, points.get(point)?))
}

/// What the event passes read.
pub struct Inputs<'a> {
    pub sim: &'a SimParams,
    pub pos: &'a [[f32; 2]],
    pub info: &'a [PointInfo],
    /// Each point's last contact of the step with a body, `[body + 1,
    /// edge]`, cleared here (WGSL `touched`).
    pub touched: &'a mut [[u32; 2]],
    pub members: &'a PointMembers,
    pub outlines: &'a [BodyOutline],
    pub outline_points: &'a [u32],
    pub colliders: Colliders<'a>,
    pub terrain: &'a PackedTerrain,
    /// The bodies' boxes from the broad phase.
    pub aabbs: &'a [[f32; 4]],
}

/// A step's slots: partners, their points and speeds.
struct Slots<'a> {
    pairs: &'a mut [u32],
    points: &'a mut [u32],
    speeds: &'a mut [f32],
}

/// WGSL `approach`: how fast a point `(x, v)` at a step's start closes
/// on the edge from `a` to `b` (each `(x, v)` then), along the direction
/// from the edge's nearest point to it; `>= 0`.
fn approach(p: (Vec2, Vec2), a: (Vec2, Vec2), b: (Vec2, Vec2)) -> f32 {
    let e = b.0 - a.0;
    let l2 = e.dot(e);
    let s = if l2 > 0.0 {
        ((p.0 - a.0).dot(e) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let d = p.0 - (a.0 + e * s);
    let n = super::safe_dir(d, d.length());
    let ve = a.1 * (1.0 - s) + b.1 * s;
    0.0f32.max(-(p.1 - ve).dot(n))
}

/// WGSL `insert`.
fn insert(s: &mut Slots, lost: &mut u64, a: u32, b: u32, p: u32, speed: f32) {
    for k in 0..PAIR_SLOTS {
        let slot = (a * PAIR_SLOTS + k) as usize;
        if s.pairs[slot] == NO_PAIR {
            s.pairs[slot] = b;
        }
        if s.pairs[slot] == b {
            s.points[slot] = s.points[slot].min(p);
            s.speeds[slot] = s.speeds[slot].max(speed);
            return;
        }
    }
    *lost += 1;
}

/// The step's events (WGSL `clear`, `gather`, `keep`, `compare`), with
/// this step's slots in `s.pairs[now]` and the last in the other, after
/// [`EventState::snapshot`] at the step's start.
pub fn step(inp: &mut Inputs, s: &mut EventState, now: usize) {
    let [p0, p1] = &mut s.pairs;
    let (pairs, last) = if now == 0 { (p0, &*p1) } else { (p1, &*p0) };
    let [q0, q1] = &mut s.points;
    let (points, last_points) = if now == 0 { (q0, &*q1) } else { (q1, &*q0) };
    pairs.fill(NO_PAIR);
    points.fill(NO_PAIR);
    s.speeds.fill(0.0);
    let mut slots = Slots {
        pairs,
        points,
        speeds: &mut s.speeds,
    };
    let sim = inp.sim;
    let nb = sim.num_bodies;
    let start = |i: u32| {
        let s = s.start[i as usize];
        (Vec2::new(s[0], s[1]), Vec2::new(s[2], s[3]))
    };
    let was_pair = |a: u32, b: u32| {
        let base = (a * PAIR_SLOTS) as usize;
        last[base..base + PAIR_SLOTS as usize].contains(&b)
    };
    // Gather: by point, in order (a set, and maxima and minima: the order
    // does not matter).
    for i in 0..sim.num_points {
        let iu = i as usize;
        let Some(first) = inp.members.of(iu).first() else {
            continue;
        };
        let own = first.body;
        let [t, edge] = std::mem::take(&mut inp.touched[iu]);
        if t > 0 && t - 1 < nb && t - 1 != own {
            let other = t - 1;
            let o = &inp.outlines[other as usize];
            let next = if edge + 1 == o.count { 0 } else { edge + 1 };
            let ea = inp.outline_points[(o.first + edge) as usize];
            let eb = inp.outline_points[(o.first + next) as usize];
            let speed = approach(start(i), start(ea), start(eb));
            let (a, b) = (own.min(other), own.max(other));
            insert(&mut slots, &mut s.lost, a, b, i, speed);
        }
        // Touching at the step's end, or headed into a collider at the
        // step's start so fast that it reached it within the step: its
        // deepest planet or half-plane, and the terrain.
        let layers = inp.info[iu].layers;
        let (x0, v0) = start(i);
        let c = &inp.colliders;
        let p = v2(inp.pos[iu]);
        let keep = sim.point_radius * EVENT_KEEP_RADII;
        let touch = sim.point_radius * EVENT_TOUCH_RADII;
        let ahead = x0 + v0 * sim.dt;
        let mut contact = deepest_contact(sim, layers, p, c, keep);
        let mut touching = contact.is_some_and(|(_, depth, _)| depth > keep - touch);
        if !touching {
            let next = deepest_contact(sim, layers, ahead, c, touch);
            if next.is_some() {
                (contact, touching) = (next, true);
            }
        }
        if let Some((n, _, k)) = contact {
            let pair = EVENT_COLLIDER | k;
            if touching || was_pair(own, pair) {
                let vs = collider_velocity(sim, k, p, c.planets, c.planes);
                let speed = 0.0f32.max(-(v0 - vs).dot(n));
                insert(&mut slots, &mut s.lost, own, pair, i, speed);
            }
        }
        if inp.terrain.segments.is_empty() {
            continue;
        }
        let mut hit = terrain_hit(inp.terrain, layers, p, keep);
        let mut on_terrain = hit.is_some_and(|(_, depth, _)| depth > keep - touch);
        if !on_terrain {
            let next = terrain_hit(inp.terrain, layers, ahead, touch);
            if next.is_some() {
                (hit, on_terrain) = (next, true);
            }
        }
        if let Some((n, _, k)) = hit {
            // Terrain follows the planets and half-planes in the collider
            // numbering, by polyline.
            let polyline = inp.terrain.segments[k].terrain;
            let pair = EVENT_COLLIDER | (sim.num_planets + sim.num_planes + polyline);
            if on_terrain || was_pair(own, pair) {
                let speed = 0.0f32.max(-v0.dot(n));
                insert(&mut slots, &mut s.lost, own, pair, i, speed);
            }
        }
    }
    // Keep: the last step's pairs whose boxes still meet.
    let meet = |a: u32, b: u32| {
        let (p, q) = (inp.aabbs[a as usize], inp.aabbs[b as usize]);
        p[0] <= q[2] && p[1] <= q[3] && q[0] <= p[2] && q[1] <= p[3]
    };
    for a in 0..nb {
        for k in 0..PAIR_SLOTS {
            let slot = (a * PAIR_SLOTS + k) as usize;
            let b = last[slot];
            // Collider pairs are kept by gather.
            if b < EVENT_COLLIDER && meet(a, b) {
                insert(&mut slots, &mut s.lost, a, b, last_points[slot], 0.0);
            }
        }
    }
    let Slots {
        pairs,
        points,
        speeds,
    } = slots;
    // Compare.
    let mut emit =
        |kind: u32, (a, b): (u32, u32), p: u32, approach: f32, events: &mut Vec<ContactEvent>| {
            if events.len() >= EVENT_CAPACITY as usize {
                s.lost += 1;
                return;
            }
            events.push(ContactEvent {
                kind,
                a,
                b,
                point_index: p,
                point: inp.pos[p as usize],
                approach,
                ..Default::default()
            });
        };
    for a in 0..nb as usize {
        let base = a * PAIR_SLOTS as usize;
        let slots = base..base + PAIR_SLOTS as usize;
        for k in slots.clone() {
            let now_b = pairs[k];
            if now_b != NO_PAIR && !last[slots.clone()].contains(&now_b) {
                let pair = (a as u32, now_b);
                emit(EVENT_BEGIN, pair, points[k], speeds[k], &mut s.events);
            }
        }
        for k in slots.clone() {
            let was = last[k];
            if was != NO_PAIR && !pairs[slots.clone()].contains(&was) {
                emit(
                    EVENT_END,
                    (a as u32, was),
                    last_points[k],
                    0.0,
                    &mut s.events,
                );
            }
        }
    }
}
