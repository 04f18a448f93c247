//! The caller's commands on the CPU solver: queued between steps, applied
//! at the start of the next (`cpu::commands`, mirror of
//! `shaders/commands.wgsl`).

use super::CpuSolver;
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
    /// (WGSL `apply` and `wake` in `shaders/commands.wgsl`); nothing when
    /// none is queued. [`step`](Self::step) runs it first.
    pub fn stage_commands(&mut self) {
        if self.commands.is_empty() {
            return;
        }
        let (list, colors) = crate::commands::order_for_kernels(&self.packed, &self.commands);
        let p = &mut self.packed;
        let mut target = commands::Target {
            bodies: &p.bodies,
            members: &p.members,
            sleep_points: self.sleep.points(),
            rest_steps: &self.sleep.rest_steps,
            sim: &p.sim,
            pos: &mut p.pos,
            vel: &mut p.vel,
            warm: &mut self.contacts.warm,
        };
        commands::apply(&mut target, &list, &colors);
        self.commands.clear();
        commands::wake(
            &p.sim,
            self.sleep.points(),
            &self.sleep.rest_steps,
            &mut self.info,
        );
    }
}
