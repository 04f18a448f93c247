//! Readbacks that do not wait: the copy is recorded into the caller's
//! encoder, and the caller polls for the result after it submits, frame
//! after frame, without stalling its rendering.

use std::sync::{Arc, Mutex};

use super::*;
use crate::world::BodyHandle;

/// What a mapping's callback left: nothing yet, or its outcome.
type Mapped = Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>>;

/// A readback of `count` elements of `T` recorded into an encoder, whose
/// result [`poll`](Pending::poll) returns once the GPU has done it.
/// Dropping it gives up the result.
#[derive(Debug)]
pub struct Pending<T> {
    staging: wgpu::Buffer,
    count: usize,
    mapped: Mapped,
    started: bool,
    /// The answer was given.
    taken: bool,
    _elements: std::marker::PhantomData<T>,
}

impl<T: bytemuck::Pod> Pending<T> {
    /// A staging buffer for `count` elements, filled by `record` (copies
    /// into it at byte offsets) in `encoder`.
    pub(super) fn new(
        device: &wgpu::Device,
        count: usize,
        record: impl FnOnce(&wgpu::Buffer),
    ) -> Result<Self, SolverError> {
        let bytes = (count.max(1) * std::mem::size_of::<T>()) as u64;
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("softbody pending readback"),
            size: bytes.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        if count > 0 {
            record(&staging);
        }
        Ok(Self {
            staging,
            count,
            mapped: Arc::new(Mutex::new(None)),
            started: false,
            taken: false,
            _elements: std::marker::PhantomData,
        })
    }

    /// The elements once the GPU has copied them, else `None`; never
    /// waits. Call it only after submitting the encoder the readback was
    /// recorded into: the first call asks for the mapping, and each call
    /// lets `device` run its callbacks without blocking
    /// (`PollType::Poll`). After it returned the elements once, it
    /// answers [`SolverError::Readback`] (they were taken).
    pub fn poll(&mut self, device: &wgpu::Device) -> Option<Result<Vec<T>, SolverError>> {
        if self.taken {
            return Some(Err(SolverError::Readback(
                "this readback's answer was already taken".into(),
            )));
        }
        if self.count == 0 {
            self.taken = true;
            return Some(Ok(Vec::new()));
        }
        if !self.started {
            self.started = true;
            let mapped = Arc::clone(&self.mapped);
            self.staging
                .slice(..)
                .map_async(wgpu::MapMode::Read, move |r| {
                    *mapped.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                });
        }
        if let Err(e) = device.poll(wgpu::PollType::Poll) {
            return Some(Err(SolverError::Readback(e.to_string())));
        }
        let outcome = self
            .mapped
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()?;
        self.taken = true;
        Some(self.take(outcome))
    }

    /// The mapped elements, and the buffer unmapped.
    fn take(&mut self, outcome: Result<(), wgpu::BufferAsyncError>) -> Result<Vec<T>, SolverError> {
        outcome.map_err(|e| SolverError::Readback(e.to_string()))?;
        let bytes = self.count * std::mem::size_of::<T>();
        let data = {
            let view = self
                .staging
                .slice(..)
                .get_mapped_range()
                .map_err(|e| SolverError::Readback(e.to_string()))?;
            bytemuck::cast_slice(&view[..bytes]).to_vec()
        };
        self.staging.unmap();
        Ok(data)
    }
}

/// A pending readback of the state ([`GpuSolver::request_state`]).
#[derive(Debug)]
pub struct PendingState(Pending<[f32; 4]>);

impl PendingState {
    /// The state once the GPU has copied it, else `None`; never waits
    /// (see [`Pending::poll`]).
    pub fn poll(&mut self, device: &wgpu::Device) -> Option<Result<State, SolverError>> {
        self.0.poll(device).map(|r| {
            r.map(|s| {
                let (pos, vel) = crate::gpu::deinterleave(&s);
                State { pos, vel }
            })
        })
    }
}

impl GpuSolver {
    /// Records a copy of the state (as the steps recorded before it in
    /// `encoder` leave it) for a readback that does not wait: submit the
    /// encoder, then [`PendingState::poll`] until it answers.
    pub fn request_state(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<PendingState, SolverError> {
        self.check_context("request_state", Some(device), None)?;
        let bytes = self.num_points as u64 * crate::gpu::STATE_BYTES;
        let pending = Pending::new(device, self.num_points, |staging| {
            encoder.copy_buffer_to_buffer(&self.buffers.state[0], 0, staging, 0, bytes);
        })?;
        Ok(PendingState(pending))
    }

    /// Records a copy of the frames of `bodies` (in that order; as the
    /// steps recorded before it leave them) for a readback that does not
    /// wait: submit the encoder, then [`Pending::poll`] until it answers.
    /// One copy per body: for the bodies a program follows, not the whole
    /// world ([`read_frames`](Self::read_frames) waits for them all).
    /// Refuses a body the world does not have.
    pub fn request_frames(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        bodies: &[BodyHandle],
    ) -> Result<Pending<BodyFrame>, SolverError> {
        self.check_context("request_frames", Some(device), None)?;
        for b in bodies {
            if b.index() >= self.num_bodies {
                return Err(crate::error::WorldError::UnknownHandle {
                    item: crate::error::Item::Body(b.0),
                    len: self.num_bodies as u32,
                }
                .into());
            }
        }
        let size = std::mem::size_of::<BodyFrame>() as u64;
        Pending::new(device, bodies.len(), |staging| {
            for (k, b) in bodies.iter().enumerate() {
                let from = b.index() as u64 * size;
                encoder.copy_buffer_to_buffer(
                    &self.buffers.frames,
                    from,
                    staging,
                    k as u64 * size,
                    size,
                );
            }
        })
    }
}
