//! The caller's commands on the GPU solver: queued between steps,
//! recorded at the start of the next step into the caller's encoder
//! (`shaders/commands.wgsl`).

use super::GpuSolver;
use crate::commands::Command;
use crate::gpu::SolverError;
use crate::gpu::commands::StepJoints;

impl GpuSolver {
    /// Queues `command` for the start of the next recorded step (after
    /// those queued before it) and wakes the assembly it acts on (8 bytes
    /// written), which moves in that step. Nothing is read back. Refuses a
    /// handle the world does not have, or a value that is not finite or
    /// out of range, naming it; nothing is queued then.
    pub fn queue(&mut self, queue: &wgpu::Queue, command: Command) -> Result<(), SolverError> {
        self.check_context("queue", None, Some(queue))?;
        let (c, wakes, also_wakes) = command.encode(self.packed(), self.params.dt)?;
        self.queued.push(c);
        if let Some(p) = wakes {
            self.wake_point(queue, p);
        }
        if let Some(p) = also_wakes {
            self.wake_point(queue, p);
        }
        Ok(())
    }

    /// Commands queued for the next recorded step.
    pub fn queued(&self) -> usize {
        self.queued.len()
    }

    /// Records the queued commands now, as the next step would at its
    /// start, and empties the queue: a teleport or a velocity the caller
    /// wants drawn before the next step. The joints (motors and angle
    /// limits), which a step solves at the start of each substep, act
    /// once, as in one substep. Nothing when none is queued.
    pub fn record_commands(&mut self, encoder: &mut wgpu::CommandEncoder) {
        if self.queued.is_empty() {
            return;
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("softbody commands"),
            timestamp_writes: None,
        });
        if let Some(joints) = self.record_queued(&mut pass, false) {
            self.commands.record_joints(&mut pass, &joints, 0);
        }
    }

    /// Records the step's contact events on state copy `state`, when on
    /// and body contacts run.
    pub(super) fn record_events(&self, pass: &mut wgpu::ComputePass, state: usize) {
        if let Some(e) = &self.events
            && self.has_contacts()
        {
            e.record(pass, state, (self.steps % 2) as usize);
        }
    }

    /// Records and empties the queue into `pass`, on state copy 0, then
    /// (events on) the snapshot of the velocities the step starts with;
    /// returns the joints, for the start of each substep. With
    /// `standing`, the world's joints join the queue first (a step's, not
    /// commands recorded alone).
    pub(super) fn record_queued(
        &mut self,
        pass: &mut wgpu::ComputePass,
        standing: bool,
    ) -> Option<StepJoints> {
        if standing {
            let mut queued = std::mem::take(&mut self.queued);
            crate::commands::standing_joints(self.packed(), &mut queued);
            self.queued = queued;
        }
        let joints = self.record_command_list(pass);
        if let Some(e) = &self.events
            && self.has_contacts()
        {
            e.record_snapshot(pass);
        }
        joints
    }

    fn record_command_list(&mut self, pass: &mut wgpu::ComputePass) -> Option<StepJoints> {
        if self.queued.is_empty() {
            return None;
        }
        let queued = std::mem::take(&mut self.queued);
        let (list, colors) = crate::commands::order_for_kernels(self.packed(), &queued);
        let warm = self.contacts.as_ref().map(|c| &c.buffers.warm);
        self.commands.record(
            &self.device,
            &self.buffers,
            warm,
            pass,
            (&list, &colors),
            self.point_grid,
        )
    }
}
