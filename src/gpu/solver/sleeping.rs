//! Sleeping from the host's side: waking assemblies, and reading and
//! restoring their steps at rest and anchors (for checkpoints and the
//! overlay).

use super::*;

impl GpuSolver {
    /// Wakes every point: each gets its inverse mass back and every
    /// assembly starts counting its rest again, from the next recorded
    /// step, with motion measured from the current state. One dispatch
    /// (WGSL `wake`), submitted at once: nothing is uploaded. Edits,
    /// `set_state` and a change of parameters do this themselves.
    pub fn wake(&self, queue: &wgpu::Queue) {
        self.submit_sleep(queue, Sleep::record_wake);
    }
    /// Submits one of sleeping's dispatches on its own, on state copy 0
    /// (where the state is between steps).
    pub(super) fn submit_sleep(
        &self,
        queue: &wgpu::Queue,
        record: fn(&Sleep, &mut wgpu::ComputePass, usize, (u32, u32)),
    ) {
        if self.num_points == 0 {
            return;
        }
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            record(&self.sleep, &mut pass, 0, self.point_grid);
        }
        queue.submit([encoder.finish()]);
    }
    /// After points `from..` were appended by an edit that keeps what
    /// slept asleep (`cpu::sleep::keeps_sleeping`): the new points start
    /// awake, anchored where they are, without supports, and an old
    /// assembly one of them joined wakes as `wake_point` wakes it.
    pub(super) fn wake_appended(&self, queue: &wgpu::Queue, from: usize) {
        let p = self.packed();
        let n = p.pos.len();
        if n > from {
            let b = &self.buffers;
            let zeros = vec![0u32; n - from];
            let at = 4 * from as u64;
            queue.write_buffer(&b.rest_steps, at, bytemuck::cast_slice(&zeros));
            queue.write_buffer(&b.sleep_speed, at, bytemuck::cast_slice(&zeros));
            let none = vec![u32::MAX; n - from];
            queue.write_buffer(&b.sleep_support, at, bytemuck::cast_slice(&none));
            queue.write_buffer(
                &b.sleep_last,
                from as u64 * crate::gpu::ANCHOR_BYTES,
                bytemuck::cast_slice(&p.pos[from..]),
            );
        }
        for g in crate::cpu::sleep::joined_assemblies(p.sleep_points_from(from), from) {
            self.wake_point(queue, crate::world::PointHandle(g));
        }
    }

    /// Wakes `point`'s assembly (8 bytes written: its rest count and its
    /// speed word). Its points move again from the step after the next:
    /// the next step still runs with them asleep, and its end wakes them.
    /// That step counts the assembly as moved, so what it touches or
    /// supports wakes too (WGSL `touch`). For a dragged or moved point,
    /// every frame. A handle out of range does nothing.
    pub fn wake_point(&self, queue: &wgpu::Queue, point: crate::world::PointHandle) {
        if let Some(c) = self.packed().contact_points.get(point.index()) {
            let at = 4 * c.group as u64;
            queue.write_buffer(&self.buffers.rest_steps, at, bytemuck::bytes_of(&0u32));
            let wake = crate::layout::SLEEP_WAKE;
            queue.write_buffer(&self.buffers.sleep_speed, at, bytemuck::bytes_of(&wake));
        }
    }
    /// Steps each assembly has stayed at rest, by its root point (0 at the
    /// other points), read back (waits for the GPU): what a checkpoint
    /// keeps of sleeping.
    pub fn read_rest_steps(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<u32>, SolverError> {
        self.check_context("read_rest_steps", Some(device), Some(queue))?;
        read_buffer(device, queue, &self.buffers.rest_steps, self.num_points)
    }
    /// Restores [`read_rest_steps`](Self::read_rest_steps) (from a
    /// checkpoint) and settles the points: assemblies at rest long enough
    /// sleep at once. Refuses a slice of another length than the points'.
    pub fn set_rest_steps(
        &mut self,
        queue: &wgpu::Queue,
        steps: &[u32],
    ) -> Result<(), SolverError> {
        self.check_context("set_rest_steps", None, Some(queue))?;
        crate::pack::check_rest_steps(self.num_points, steps)?;
        if !steps.is_empty() {
            queue.write_buffer(&self.buffers.rest_steps, 0, bytemuck::cast_slice(steps));
        }
        self.submit_sleep(queue, Sleep::record_settle);
        Ok(())
    }
    /// Each point's sleep anchor, read back (waits for the GPU): see
    /// [`CpuSolver::sleep_anchors`](crate::cpu::CpuSolver::sleep_anchors).
    pub fn read_sleep_anchors(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<[f32; 2]>, SolverError> {
        self.check_context("read_sleep_anchors", Some(device), Some(queue))?;
        read_buffer(device, queue, &self.buffers.sleep_last, self.num_points)
    }
    /// Restores [`read_sleep_anchors`](Self::read_sleep_anchors) (from a
    /// checkpoint, after [`set_rest_steps`](Self::set_rest_steps)).
    /// Refuses a slice of another length than the points', or a position
    /// that is not finite or out of the state's range.
    pub fn set_sleep_anchors(
        &mut self,
        queue: &wgpu::Queue,
        anchors: &[[f32; 2]],
    ) -> Result<(), SolverError> {
        self.check_context("set_sleep_anchors", None, Some(queue))?;
        crate::validate::check_sleep_anchors(self.num_points, anchors)?;
        if !anchors.is_empty() {
            queue.write_buffer(&self.buffers.sleep_last, 0, bytemuck::cast_slice(anchors));
        }
        Ok(())
    }
    /// Each point's sleep support, read back (waits for the GPU): see
    /// [`CpuSolver::sleep_supports`](crate::cpu::CpuSolver::sleep_supports).
    pub fn read_sleep_supports(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<u32>, SolverError> {
        self.check_context("read_sleep_supports", Some(device), Some(queue))?;
        read_buffer(device, queue, &self.buffers.sleep_support, self.num_points)
    }
    /// Restores [`read_sleep_supports`](Self::read_sleep_supports) (from a
    /// checkpoint). Refuses a slice of another length than the points', or
    /// a body index out of range other than `u32::MAX`.
    pub fn set_sleep_supports(
        &mut self,
        queue: &wgpu::Queue,
        supports: &[u32],
    ) -> Result<(), SolverError> {
        self.check_context("set_sleep_supports", None, Some(queue))?;
        crate::validate::check_sleep_supports(self.num_points, self.num_bodies, supports)?;
        if !supports.is_empty() {
            queue.write_buffer(
                &self.buffers.sleep_support,
                0,
                bytemuck::cast_slice(supports),
            );
        }
        Ok(())
    }
    /// Points asleep now (pinned points not counted), read back (waits
    /// for the GPU): for a display, not for every step.
    pub fn read_sleeping_points(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<usize, SolverError> {
        self.check_context("read_sleeping_points", Some(device), Some(queue))?;
        let info: Vec<crate::layout::PointInfo> =
            read_buffer(device, queue, &self.buffers.info, self.num_points)?;
        Ok(crate::cpu::sleep::sleeping_points(
            &info,
            &self.packed().point_info,
        ))
    }
}
