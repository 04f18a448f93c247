//! The caller's commands on the CPU solver: queued between steps, applied
//! at the start of the next (`cpu::commands`, mirror of
//! `shaders/commands.wgsl`).

use super::CpuSolver;
use super::sleeping::Sleep;
use crate::commands::Command;
use crate::cpu::commands;
use crate::error::WorldError;

impl CpuSolver {
    /// Queues `command` for the start of the next step (after those queued
    /// before it) and wakes the assembly it acts on, which moves in that
    /// step. Refuses a handle the world does not have, or a value that is
    /// not finite or out of range, naming it; nothing is queued then.
    pub fn queue(&mut self, command: Command) -> Result<(), WorldError> {
        let (c, wakes, also_wakes) = command.encode(&self.packed, self.params.dt)?;
        self.commands.push(c);
        if let Some(p) = wakes {
            self.wake_point(p);
        }
        if let Some(p) = also_wakes {
            self.wake_point(p);
        }
        Ok(())
    }

    /// Commands queued for the next step.
    pub fn queued(&self) -> usize {
        self.commands.len()
    }

    /// The queued commands, then the wake of the assemblies they woke
    /// (WGSL `apply` and `wake` in `shaders/commands.wgsl`), then the
    /// joints (motors and angle limits) once, as in one substep (WGSL
    /// `joints`): what the GPU's `record_commands` does. Nothing when none
    /// is queued. [`step`](Self::step) takes the commands itself, and
    /// solves the joints at the start of each substep.
    pub fn stage_commands(&mut self) {
        self.take_commands(false);
        self.stage_joints();
        self.joints.0.clear();
        self.joints.1.clear();
    }

    /// Applies and empties the queue but its joints, which it keeps for
    /// [`stage_joints`](Self::stage_joints), by colour; with `standing`,
    /// the world's joints join the queue first (a step's, not commands
    /// run alone).
    pub(super) fn take_commands(&mut self, standing: bool) {
        if standing {
            crate::commands::standing_joints(&self.packed, &mut self.commands);
        }
        if self.commands.is_empty() {
            return;
        }
        let (list, colors) = crate::commands::order_for_kernels(&self.packed, &self.commands);
        let walk = colors.first().map_or(list.len(), |&s| s as usize);
        let mut target = target(&mut self.packed, &self.sleep, &mut self.contacts.warm);
        commands::apply(&mut target, &list[..walk]);
        self.joints = (
            list[walk..].to_vec(),
            colors.iter().map(|&c| c - walk as u32).collect(),
        );
        self.commands.clear();
        commands::wake(
            &self.packed.sim,
            self.sleep.points(),
            &self.sleep.rest_steps,
            &mut self.info,
        );
    }

    /// The step's joints (motors and angle limits), at the start of a
    /// substep (WGSL `joints`); nothing when none was queued.
    pub fn stage_joints(&mut self) {
        if self.joints.0.is_empty() {
            return;
        }
        let mut target = target(&mut self.packed, &self.sleep, &mut self.contacts.warm);
        commands::joints(&mut target, &self.joints.0, &self.joints.1);
    }
}

/// What the commands act on: the solver's state, bodies and sleeping
/// records.
fn target<'a>(
    p: &'a mut crate::pack::Packed,
    sleep: &'a Sleep,
    warm: &'a mut [[u32; 4]],
) -> commands::Target<'a> {
    commands::Target {
        bodies: &p.bodies,
        members: &p.members,
        sleep_points: sleep.points(),
        rest_steps: &sleep.rest_steps,
        sim: &p.sim,
        pos: &mut p.pos,
        vel: &mut p.vel,
        warm,
    }
}
