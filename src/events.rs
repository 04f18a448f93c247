//! Contact events: which pairs of bodies, and which bodies and planets,
//! half-planes or terrain polylines, began and ended touching, and how fast they met, found
//! once a step on the GPU (`shaders/events.wgsl`) or the CPU
//! (`cpu::events`) when turned on (`set_contact_events`), kept in a
//! bounded log until the program collects them
//! ([`CpuSolver::take_contact_events`](crate::cpu::CpuSolver::take_contact_events),
//! [`GpuSolver::request_contact_events`](crate::gpu::GpuSolver::request_contact_events),
//! a frame later without waiting). Events past the log's room are
//! counted, never dropped silently.

use glam::Vec2;

use crate::layout::{ContactEvent, EVENT_BEGIN, EVENT_COLLIDER};
use crate::world::{BodyHandle, PlaneHandle, PlanetHandle, TerrainHandle};

/// Whether a pair began or stopped touching.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ContactKind {
    Begin,
    End,
}

/// One event: two bodies (the lower index first) began or stopped
/// touching at a step's end, where a point of their contact was, and for
/// a begin the speed at which they met.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    pub kind: ContactKind,
    pub bodies: (BodyHandle, BodyHandle),
    pub point: Vec2,
    /// For a begin, the speed at which they met, m/s (`>= 0`): the largest
    /// approach along the contact normal of the pair's touching points,
    /// from the velocities at the step's start (Box2D's `approachSpeed`).
    /// 0 for an end.
    pub approach: f32,
}

/// A collider: a planet, a half-plane or a terrain polyline (the whole
/// polyline: a body rolling from one of its segments to the next goes on
/// touching it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Collider {
    Planet(PlanetHandle),
    Plane(PlaneHandle),
    Terrain(TerrainHandle),
}

/// One event between a body and a collider: it began or stopped touching
/// (a point of the body within
/// [`EVENT_TOUCH_RADII`](crate::layout::EVENT_TOUCH_RADII) point radii of
/// the surface to begin, none within
/// [`EVENT_KEEP_RADII`](crate::layout::EVENT_KEEP_RADII) to end), where,
/// and for a begin the speed at which it met the surface (relative to the
/// surface's own velocity).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColliderContact {
    pub kind: ContactKind,
    pub body: BodyHandle,
    pub collider: Collider,
    pub point: Vec2,
    /// As [`Contact::approach`].
    pub approach: f32,
}

/// The events collected since the last collection, sorted by kind and
/// pair, and how many were lost: past the log's room
/// ([`EVENT_CAPACITY`](crate::layout::EVENT_CAPACITY) between two
/// collections), or a pair beyond a body's
/// [`PAIR_SLOTS`](crate::layout::PAIR_SLOTS) partners in a step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContactEvents {
    /// Between bodies.
    pub events: Vec<Contact>,
    /// Between a body and a planet, half-plane or terrain polyline.
    pub colliders: Vec<ColliderContact>,
    pub lost: u64,
}

/// The log's records as events, sorted (the GPU appends in whatever order
/// its atomics gave), in a world of `(planets, planes)` planets and
/// half-planes (the collider table numbers planets first, then
/// half-planes, then terrain polylines).
pub(crate) fn collect(
    raw: &[ContactEvent],
    lost: u64,
    (planets, planes): (u32, u32),
) -> ContactEvents {
    let kind = |e: &ContactEvent| {
        if e.kind == EVENT_BEGIN {
            ContactKind::Begin
        } else {
            ContactKind::End
        }
    };
    let mut events = Vec::new();
    let mut colliders = Vec::new();
    for e in raw {
        if e.b & EVENT_COLLIDER == 0 {
            events.push(Contact {
                kind: kind(e),
                bodies: (BodyHandle(e.a), BodyHandle(e.b)),
                point: Vec2::from_array(e.point),
                approach: e.approach,
            });
        } else {
            let k = e.b & !EVENT_COLLIDER;
            let collider = if k < planets {
                Collider::Planet(PlanetHandle(k))
            } else if k < planets + planes {
                Collider::Plane(PlaneHandle(k - planets))
            } else {
                Collider::Terrain(TerrainHandle(k - planets - planes))
            };
            colliders.push(ColliderContact {
                kind: kind(e),
                body: BodyHandle(e.a),
                collider,
                point: Vec2::from_array(e.point),
                approach: e.approach,
            });
        }
    }
    events.sort_by_key(|e| (e.kind, e.bodies.0.0, e.bodies.1.0));
    colliders.sort_by_key(|e| (e.kind, e.body.0, e.collider));
    ContactEvents {
        events,
        colliders,
        lost,
    }
}
