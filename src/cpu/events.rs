//! Mirror of `shaders/events.wgsl`: which pairs of bodies began and ended
//! touching, once a step after the substeps.

use crate::layout::{
    ContactEvent, ContactHit, EVENT_BEGIN, EVENT_CAPACITY, EVENT_END, PAIR_SLOTS, SimParams,
};
use crate::pack::PointMembers;

/// No pair in a slot.
const NO_PAIR: u32 = u32::MAX;

/// Contact events' state: each body's partners and their points, this
/// step's and the last's, and the log.
#[derive(Clone, Debug, Default)]
pub struct EventState {
    pub pairs: [Vec<u32>; 2],
    pub points: [Vec<u32>; 2],
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
            events: Vec::new(),
            lost: 0,
        }
    }
}

/// What the event passes read.
pub struct Inputs<'a> {
    pub sim: &'a SimParams,
    pub pos: &'a [[f32; 2]],
    pub hits: &'a [ContactHit],
    pub members: &'a PointMembers,
    /// The bodies' boxes from the broad phase.
    pub aabbs: &'a [[f32; 4]],
}

/// WGSL `insert`.
fn insert(pairs: &mut [u32], points: &mut [u32], lost: &mut u64, a: u32, b: u32, p: u32) {
    for k in 0..PAIR_SLOTS {
        let slot = (a * PAIR_SLOTS + k) as usize;
        if pairs[slot] == NO_PAIR {
            pairs[slot] = b;
        }
        if pairs[slot] == b {
            points[slot] = points[slot].min(p);
            return;
        }
    }
    *lost += 1;
}

/// The step's events (WGSL `clear`, `gather`, `keep`, `compare`), with
/// this step's slots in `s.pairs[now]` and the last in the other.
pub fn step(inp: &Inputs, s: &mut EventState, now: usize) {
    let before = 1 - now;
    let [p0, p1] = &mut s.pairs;
    let (pairs, last) = if now == 0 { (p0, &*p1) } else { (p1, &*p0) };
    let [q0, q1] = &mut s.points;
    let (points, last_points) = if now == 0 { (q0, &*q1) } else { (q1, &*q0) };
    let _ = before;
    pairs.fill(NO_PAIR);
    points.fill(NO_PAIR);
    let nb = inp.sim.num_bodies;
    // Gather: by point, in order (a set: the order does not matter).
    for i in 0..inp.sim.num_points as usize {
        let other = inp.hits[i].body;
        let offsets = &inp.members.offsets;
        if other >= nb || offsets.is_empty() || offsets[i] >= offsets[i + 1] {
            continue;
        }
        let own = inp.members.records[offsets[i] as usize].body;
        if own == other {
            continue;
        }
        insert(
            pairs,
            points,
            &mut s.lost,
            own.min(other),
            own.max(other),
            i as u32,
        );
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
            if b != NO_PAIR && meet(a, b) {
                insert(pairs, points, &mut s.lost, a, b, last_points[slot]);
            }
        }
    }
    // Compare.
    let mut emit = |kind: u32, a: u32, b: u32, p: u32, events: &mut Vec<ContactEvent>| {
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
            ..Default::default()
        });
    };
    for a in 0..nb as usize {
        let base = a * PAIR_SLOTS as usize;
        let slots = base..base + PAIR_SLOTS as usize;
        for k in slots.clone() {
            let now_b = pairs[k];
            if now_b != NO_PAIR && !last[slots.clone()].contains(&now_b) {
                emit(EVENT_BEGIN, a as u32, now_b, points[k], &mut s.events);
            }
        }
        for k in slots.clone() {
            let was = last[k];
            if was != NO_PAIR && !pairs[slots.clone()].contains(&was) {
                emit(EVENT_END, a as u32, was, last_points[k], &mut s.events);
            }
        }
    }
}
