//! Contact events on the GPU solver: turned on, kept through edits, and
//! collected without waiting (`shaders/events.wgsl`).

use super::pending::Pending;
use super::*;
use crate::events::{ContactEvents, collect};
use crate::layout::ContactEvent;

/// A pending collection of contact events
/// ([`GpuSolver::request_contact_events`]).
#[derive(Debug)]
pub struct PendingEvents {
    words: Pending<u32>,
    /// The world's planets and half-planes when requested (the collider
    /// table numbers planets, then half-planes, then terrain polylines).
    colliders: (u32, u32),
}

impl PendingEvents {
    /// The events once the GPU has copied them, sorted, with how many were
    /// lost, else `None`; never waits.
    pub fn poll(&mut self, device: &wgpu::Device) -> Option<Result<ContactEvents, SolverError>> {
        let colliders = self.colliders;
        self.words.poll(device).map(|r| {
            r.map(|words| {
                let count = (words[0] as usize).min(crate::layout::EVENT_CAPACITY as usize);
                let raw: &[ContactEvent] = bytemuck::cast_slice(&words[4..]);
                collect(&raw[..count], words[1] as u64, colliders)
            })
        })
    }
}

impl GpuSolver {
    /// Turns contact events on (nobody touching yet, an empty log) or off:
    /// which pairs of bodies began and ended touching, once a step, into a
    /// log of [`EVENT_CAPACITY`](crate::layout::EVENT_CAPACITY) events
    /// between collections ([`crate::events`]).
    pub fn set_contact_events(
        &mut self,
        device: &wgpu::Device,
        on: bool,
    ) -> Result<(), SolverError> {
        self.check_context("set_contact_events", Some(device), None)?;
        self.events_on = on;
        self.events = None;
        self.rebuild_events(device, None);
        // The contacts noted while events were off are not this step's.
        if let Some(c) = &self.contacts {
            let zeros = vec![0u8; c.buffers.touched.size() as usize];
            self.queue.write_buffer(&c.buffers.touched, 0, &zeros);
        }
        Ok(())
    }

    /// Whether contact events are on ([`set_contact_events`](Self::set_contact_events)).
    pub fn contact_events_on(&self) -> bool {
        self.events_on
    }

    /// Makes the event kernels again over the current buffers when events
    /// are on (an edit's), with nobody touching and the log `kept`.
    pub(super) fn rebuild_events(&mut self, device: &wgpu::Device, kept: Option<wgpu::Buffer>) {
        self.events = match (&self.contacts, self.events_on) {
            (Some(c), true) => Some(super::super::events::Events::new(
                device,
                &self.buffers,
                &c.buffers,
                (
                    self.num_points as u32,
                    self.num_bodies as u32,
                    self.collider_counts,
                ),
                kept,
            )),
            _ => None,
        };
    }

    /// Records a copy of the event log (what the steps recorded before it
    /// add) and empties it, for a collection that does not wait: submit,
    /// then [`PendingEvents::poll`]. Events off: an empty answer.
    pub fn request_contact_events(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<PendingEvents, SolverError> {
        self.check_context("request_contact_events", Some(device), None)?;
        let words = (super::super::events::log_bytes() / 4) as usize;
        let p = self.packed();
        let colliders = (p.planets.len() as u32, p.planes.len() as u32);
        let Some(e) = &self.events else {
            let empty = Pending::new(device, 4, |_| {})?;
            return Ok(PendingEvents {
                words: empty,
                colliders,
            });
        };
        let pending = Pending::new(device, words, |staging| {
            encoder.copy_buffer_to_buffer(&e.log, 0, staging, 0, (4 * words) as u64);
        })?;
        encoder.clear_buffer(&e.log, 0, Some(16));
        Ok(PendingEvents {
            words: pending,
            colliders,
        })
    }
}
