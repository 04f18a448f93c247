//! Contact events: which pairs of bodies began and ended touching, found
//! once a step on the GPU (`shaders/events.wgsl`) or the CPU
//! (`cpu::events`) when turned on (`set_contact_events`), kept in a
//! bounded log until the program collects them
//! ([`CpuSolver::take_contact_events`](crate::cpu::CpuSolver::take_contact_events),
//! [`GpuSolver::request_contact_events`](crate::gpu::GpuSolver::request_contact_events),
//! a frame later without waiting). Events past the log's room are
//! counted, never dropped silently.

use glam::Vec2;

use crate::layout::{ContactEvent, EVENT_BEGIN};
use crate::world::BodyHandle;

/// Whether a pair began or stopped touching.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ContactKind {
    Begin,
    End,
}

/// One event: two bodies (the lower index first) began or stopped
/// touching at a step's end, and where a point of their contact was.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    pub kind: ContactKind,
    pub bodies: (BodyHandle, BodyHandle),
    pub point: Vec2,
}

/// The events collected since the last collection, sorted by kind and
/// pair, and how many were lost: past the log's room
/// ([`EVENT_CAPACITY`](crate::layout::EVENT_CAPACITY) between two
/// collections), or a pair beyond a body's
/// [`PAIR_SLOTS`](crate::layout::PAIR_SLOTS) partners in a step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContactEvents {
    pub events: Vec<Contact>,
    pub lost: u64,
}

/// The log's records as events, sorted (the GPU appends in whatever order
/// its atomics gave).
pub(crate) fn collect(raw: &[ContactEvent], lost: u64) -> ContactEvents {
    let mut events: Vec<Contact> = raw
        .iter()
        .map(|e| Contact {
            kind: if e.kind == EVENT_BEGIN {
                ContactKind::Begin
            } else {
                ContactKind::End
            },
            bodies: (BodyHandle(e.a), BodyHandle(e.b)),
            point: Vec2::from_array(e.point),
        })
        .collect();
    events.sort_by_key(|e| (e.kind, e.bodies.0.0, e.bodies.1.0));
    ContactEvents { events, lost }
}
