//! Writing and reading the GPU state on request: the only places that
//! wait for the device.

use super::*;
use crate::layout::ContactHit;

impl GpuSolver {
    /// The collision grid's buffer as of the last broad phase (`array<u32>`:
    /// slot starts, the large list, the entries; see
    /// `shaders/broad_phase.wgsl`) and the bodies' bounding boxes
    /// (`array<vec4<f32>>`), or `None` without contacts. For tests and
    /// debugging views.
    pub fn read_contact_grid(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Option<ContactGrid>, SolverError> {
        self.check_context("read_contact_grid", Some(device), Some(queue))?;
        let Some(c) = &self.contacts else {
            return Ok(None);
        };
        // The world's grid, not the room the buffer may have past it.
        let words = self.packed().grid_words();
        Ok(Some((
            read_buffer(device, queue, &c.buffers.grid, words)?,
            read_buffer(device, queue, &c.buffers.aabbs, self.num_bodies)?,
        )))
    }
    /// Overwrites positions and velocities (one entry per point, every one
    /// finite).
    pub fn set_state(
        &mut self,
        queue: &wgpu::Queue,
        pos: &[[f32; 2]],
        vel: &[[f32; 2]],
    ) -> Result<(), SolverError> {
        self.check_context("set_state", None, Some(queue))?;
        check_state(self.num_points, pos, vel)?;
        if self.num_points > 0 {
            queue.write_buffer(
                &self.buffers.state[0],
                0,
                bytemuck::cast_slice(&crate::gpu::interleave(pos, vel)),
            );
        }
        if let Some(c) = &self.contacts {
            let zeros = vec![[0u32; 4]; self.num_points];
            queue.write_buffer(&c.buffers.warm, 0, bytemuck::cast_slice(&zeros));
            // Tangles are found again from the new positions at the next
            // step (cpu::CpuSolver::set_state).
            let zeros = vec![0u8; c.buffers.tangles.size() as usize];
            queue.write_buffer(&c.buffers.tangles, 0, &zeros);
        }
        self.wake(queue);
        Ok(())
    }
    /// Each point's warm-starting state, read back (waits for the GPU; all
    /// zero in a world without contacts): what a checkpoint keeps of the
    /// contacts. See [`CpuSolver::warm_starts`](crate::cpu::CpuSolver::warm_starts).
    pub fn read_warm_starts(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<[u32; 4]>, SolverError> {
        self.check_context("read_warm_starts", Some(device), Some(queue))?;
        match &self.contacts {
            Some(c) if self.num_points > 0 => {
                read_buffer(device, queue, &c.buffers.warm, self.num_points)
            }
            _ => Ok(vec![[0; 4]; self.num_points]),
        }
    }
    /// Tangle recovery's state, read back (waits for the GPU; all zero in
    /// a world without contacts): what a checkpoint keeps of it. See
    /// [`CpuSolver::tangles`](crate::cpu::CpuSolver::tangles).
    pub fn read_tangles(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<[u32; 8]>, SolverError> {
        self.check_context("read_tangles", Some(device), Some(queue))?;
        match &self.contacts {
            Some(c) if self.num_bodies > 0 => {
                read_buffer(device, queue, &c.buffers.tangles, self.num_bodies)
            }
            _ => Ok(vec![[0; 8]; self.num_bodies]),
        }
    }
    /// Which points the last substep's first narrow phase found quiet
    /// (read back; waits for the GPU; all `false` in a world without
    /// contacts): asleep, with nothing to test, so that the substep's
    /// later narrow phase skipped them (docs/physics.md, "Sleeping").
    pub fn read_quiet_points(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<bool>, SolverError> {
        self.check_context("read_quiet_points", Some(device), Some(queue))?;
        match &self.contacts {
            Some(c) if self.num_points > 0 => {
                let hits: Vec<ContactHit> =
                    read_buffer(device, queue, &c.buffers.hits, self.num_points)?;
                Ok(hits.iter().map(ContactHit::is_quiet).collect())
            }
            _ => Ok(vec![false; self.num_points]),
        }
    }

    /// Whether the last broad phase built the grid (read back; waits for
    /// the GPU): `false` where a substep after a step's first kept the
    /// last build, no point having moved ([`GridBuild::WhenMoved`](crate::gpu::GridBuild));
    /// `None` in a world without body contacts. The CPU's:
    /// [`CpuSolver::grid_built`](crate::cpu::CpuSolver::grid_built).
    pub fn read_grid_built(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Option<bool>, SolverError> {
        self.check_context("read_grid_built", Some(device), Some(queue))?;
        match &self.contacts {
            Some(c) if self.has_contacts() => c.broad.built(device, queue).map(Some),
            _ => Ok(None),
        }
    }

    /// The active list the contact passes ran over last (read back; waits
    /// for the GPU), in ascending order: the points the last narrow phase
    /// did not find quiet (CPU mirror: `cpu::body_collide::activate`).
    /// `None` when the passes run over every point
    /// ([`PointDispatch::AllPoints`](crate::gpu::PointDispatch)) or the
    /// world has no contacts.
    pub fn read_active_points(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Option<Vec<u32>>, SolverError> {
        self.check_context("read_active_points", Some(device), Some(queue))?;
        let Some(c) = self
            .contacts
            .as_ref()
            .filter(|c| c.collide.passes().listed())
        else {
            return Ok(None);
        };
        use crate::layout::{ACTIVE_POINTS, ListHead};
        let n = self.num_points;
        let head: Vec<ListHead> = read_buffer(device, queue, &c.buffers.list_head, 1)?;
        let len = (head[0].count as usize).min(n);
        let first = n + ACTIVE_POINTS as usize;
        let words: Vec<u32> = read_buffer(device, queue, &c.buffers.point_counts, first + n)?;
        let mut list = words[first..first + len].to_vec();
        list.sort_unstable();
        Ok(Some(list))
    }

    /// Restores [`read_tangles`](Self::read_tangles) (from a checkpoint).
    /// Refuses another count than the bodies', other bodies out of range
    /// and directions that are not finite.
    pub fn set_tangles(
        &mut self,
        queue: &wgpu::Queue,
        tangles: &[[u32; 8]],
    ) -> Result<(), SolverError> {
        self.check_context("set_tangles", None, Some(queue))?;
        crate::validate::check_tangles(self.num_bodies, tangles)?;
        if let Some(c) = &self.contacts
            && self.num_bodies > 0
        {
            queue.write_buffer(&c.buffers.tangles, 0, bytemuck::cast_slice(tangles));
        }
        Ok(())
    }
    /// Restores [`read_warm_starts`](Self::read_warm_starts) (from a
    /// checkpoint). Refuses another length than the points' and impulses
    /// that are not finite.
    pub fn set_warm_starts(
        &mut self,
        queue: &wgpu::Queue,
        warm: &[[u32; 4]],
    ) -> Result<(), SolverError> {
        self.check_context("set_warm_starts", None, Some(queue))?;
        crate::validate::check_warm_starts(self.num_points, warm)?;
        if let Some(c) = &self.contacts
            && self.num_points > 0
        {
            queue.write_buffer(&c.buffers.warm, 0, bytemuck::cast_slice(warm));
        }
        Ok(())
    }
    /// Reads positions and velocities back (waits for the GPU). Only on
    /// request: stepping never reads back.
    pub fn read_state(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<State, SolverError> {
        self.check_context("read_state", Some(device), Some(queue))?;
        let state: Vec<[f32; 4]> =
            read_buffer(device, queue, &self.buffers.state[0], self.num_points)?;
        let (pos, vel) = crate::gpu::deinterleave(&state);
        Ok(State { pos, vel })
    }
    /// Reads the body frames back (waits for the GPU).
    pub fn read_frames(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<BodyFrame>, SolverError> {
        self.check_context("read_frames", Some(device), Some(queue))?;
        read_buffer(device, queue, &self.buffers.frames, self.num_bodies)
    }
}

/// Copies the first `count` elements of `buffer` to the CPU and waits.
/// Fails with [`SolverError::Readback`] when the buffer cannot be copied
/// from (no `COPY_SRC` usage), holds fewer than `count` elements, or the
/// bytes asked for are not a multiple of 4 (`wgpu::COPY_BUFFER_ALIGNMENT`).
pub fn read_buffer<T: bytemuck::Pod>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    count: usize,
) -> Result<Vec<T>, SolverError> {
    let bytes = count
        .checked_mul(std::mem::size_of::<T>())
        .and_then(|b| u64::try_from(b).ok())
        .filter(|&b| b <= buffer.size())
        .ok_or_else(|| {
            SolverError::Readback(format!(
                "{count} elements of {} bytes are more than the buffer's {} bytes",
                std::mem::size_of::<T>(),
                buffer.size()
            ))
        })?;
    if bytes == 0 {
        return Ok(Vec::new());
    }
    if !buffer.usage().contains(wgpu::BufferUsages::COPY_SRC) {
        return Err(SolverError::Readback(
            "the buffer has no COPY_SRC usage".to_string(),
        ));
    }
    if bytes % wgpu::COPY_BUFFER_ALIGNMENT != 0 {
        return Err(SolverError::Readback(format!(
            "{bytes} bytes is not a multiple of {}",
            wgpu::COPY_BUFFER_ALIGNMENT
        )));
    }
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("softbody readback"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("softbody readback"),
    });
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, bytes);
    queue.submit([encoder.finish()]);
    let (tx, rx) = std::sync::mpsc::channel();
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, move |r| drop(tx.send(r)));
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| SolverError::Readback(e.to_string()))?;
    rx.recv()
        .map_err(|e| SolverError::Readback(e.to_string()))?
        .map_err(|e| SolverError::Readback(e.to_string()))?;
    let data = {
        let view = staging
            .slice(..)
            .get_mapped_range()
            .map_err(|e| SolverError::Readback(e.to_string()))?;
        bytemuck::cast_slice(&view).to_vec()
    };
    staging.unmap();
    Ok(data)
}
