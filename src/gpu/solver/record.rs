//! Recording on the GPU solver: the stages of a step in order, and each
//! stage's dispatches, recorded in a step or alone.

use super::super::SolverError;
use super::super::body_collide::{Counts, GridBuild};
use super::super::shape_match::PlaneImpactHeads;
use super::GpuSolver;

/// One stage of a substep, for recording stages alone (cross-checks, timing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Poses the moving planets and half-planes for the substep (first in
    /// each substep of a world where some move). Recorded in a step, the
    /// compute pass ends after it for the copy into the uniform table.
    MoveColliders,
    /// Wakes the sleeping assemblies a contact flagged this step (in each
    /// substep of a world with kinematic bodies and sleeping, before
    /// [`Stage::MoveBodies`]).
    WakeFlagged,
    /// Poses the kinematic bodies at the substep's end (in each substep
    /// of a world with some, after [`Stage::MoveColliders`]).
    MoveBodies,
    Integrate,
    Collide,
    /// Integrate and collide fused into one dispatch, as a step of a world
    /// without bodies runs them.
    IntegrateCollide,
    Springs,
    /// One rod iteration.
    Rods,
    /// Shape matching: the body frames, then the per-point apply.
    ShapeMatch,
    /// Shape matching's body frames alone, with the half-plane and planet
    /// impacts of the bodies they list (WGSL `plane_impacts`), which
    /// change those bodies' velocities.
    ShapeFrames,
    /// Shape matching's per-point apply alone (with the frames of the
    /// current state, from [`Stage::ShapeFrames`]).
    ShapeApply,
    /// [`Stage::ShapeApply`] fused with [`Stage::IntegrateCollide`], as a
    /// step of a world with bodies runs them in every substep.
    ApplyIntegrateCollide,
    /// Points against the terrain, after the motion and the other
    /// colliders (worlds with terrain).
    Terrain,
    /// The collision grid of body-body contacts.
    BroadPhase,
    /// Body-body contacts: narrow phase, resolve, apply (after
    /// [`Stage::BroadPhase`]). Its narrow phase skips the points the
    /// substep's [`Stage::Narrow`] found quiet
    /// ([`GpuSolver::read_quiet_points`]).
    BodyCollide,
    /// A substep's first narrow phase: [`Stage::BodyCollide`]'s narrow
    /// phase, with the warm start of the contacts that persist (applied).
    Narrow,
    /// Body impacts act on whole bodies, over the contacts of the last
    /// [`Stage::Narrow`] (half-plane and planet impacts are part of
    /// [`Stage::ShapeFrames`]).
    Impact,
    /// [`Stage::BodyCollide`]'s resolve and apply alone, over the contacts
    /// of the last [`Stage::Narrow`].
    Resolve,
    /// A relax pass of the body contacts: recount, relax, apply (after
    /// [`Stage::BodyCollide`], over the contacts it stored).
    ContactRelax,
    /// Tangle recovery: each body whose outline's centre is inside another
    /// body's outline is tangled with it (or stays so while the other's
    /// points are inside it), and the pair gets the parting speed it lacks
    /// (untangle, apply); once per step, after the first substep's
    /// [`Stage::BroadPhase`]. The narrow phases of the step read the
    /// tangles.
    Untangle,
    /// Sleeping: measure, update, settle; once per step, after the last
    /// substep.
    Sleep,
}

/// Where a stage is recorded within a step: its substep (counted by
/// [`Stage::ShapeFrames`]: the stages after a substep's frames count as
/// the next), the stage after it, and whether the step ran it before.
#[derive(Clone, Copy, Debug)]
pub(super) struct InStep {
    substep: u32,
    next: Option<Stage>,
    again: bool,
}

/// A step's stages, in order, each with its place in the step.
pub(super) fn in_step(
    stages: impl Iterator<Item = Stage>,
) -> impl Iterator<Item = (Stage, InStep)> {
    let mut stages = stages.peekable();
    let mut substep = 0;
    let mut seen = 0u64;
    std::iter::from_fn(move || {
        let stage = stages.next()?;
        let bit = 1u64 << (stage as u32);
        let place = InStep {
            substep,
            next: stages.peek().copied(),
            again: seen & bit != 0,
        };
        seen |= bit;
        substep += u32::from(stage == Stage::ShapeFrames);
        Some((stage, place))
    })
}

impl GpuSolver {
    /// Records one step (`substeps` substeps) into the caller's encoder. No
    /// readback, no CPU work beyond recording; the state ends in the buffers
    /// returned by [`state_buffer`](Self::state_buffer).
    pub fn record_step(&mut self, encoder: &mut wgpu::CommandEncoder) {
        let mut state = 0;
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("softbody step"),
                timestamp_writes: None,
            });
            let joints = self.record_queued(&mut pass, true);
            // The joints come before each substep's forces (its springs,
            // or its shape matching's frames).
            let mut joints_due = true;
            let mut events = true;
            for (stage, place) in in_step(self.step_stages()) {
                if let Some(j) = &joints
                    && joints_due
                    && matches!(stage, Stage::Springs | Stage::ShapeFrames)
                {
                    self.commands.record_joints(&mut pass, j, state);
                    joints_due = false;
                }
                joints_due |= stage == Stage::ShapeFrames;
                // Contact events after the substeps, before sleeping
                // counts the step (as the CPU's step runs them).
                if stage == Stage::Sleep {
                    self.record_events(&mut pass, state);
                    events = false;
                }
                state = self.record_stage_in(&mut pass, stage, state, Some(place));
                if stage == Stage::MoveColliders {
                    // The posed table into the uniform one: a copy, between
                    // passes.
                    drop(pass);
                    self.copy_moved_colliders(encoder);
                    pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("softbody step"),
                        timestamp_writes: None,
                    });
                }
            }
            if events {
                self.record_events(&mut pass, state);
            }
        }
        self.finish_in_copy_zero(encoder, state);
        self.steps = self.steps.saturating_add(1);
    }

    /// The stages one step runs, in order, substep after substep (stages
    /// with nothing to do are left out). Each substep is (where colliders
    /// move, [`Stage::MoveColliders`] first; where bodies are kinematic,
    /// [`Stage::WakeFlagged`] with sleeping, then [`Stage::MoveBodies`])
    /// springs, shape
    /// matching, integrate, collide, terrain (where there is some), body
    /// contacts (and their relax
    /// passes), rods: the forces first, then the motion, then the position
    /// constraints, so that the state a step ends with is the one the
    /// constraints left (a point resting on the floor reads zero velocity,
    /// a rod has its length). Shape matching's per-point apply is fused
    /// with integrate and collide ([`Stage::ApplyIntegrateCollide`]);
    /// without bodies the substep integrates and collides in one dispatch
    /// ([`Stage::IntegrateCollide`]). Body impacts ([`Stage::Impact`]) run
    /// between the first contact pass's narrow phase and its resolve.
    pub fn step_plan(&self) -> Vec<Stage> {
        self.step_stages().collect()
    }

    /// [`step_plan`](Self::step_plan) without allocating, for recording
    /// every step.
    fn step_stages(&self) -> impl Iterator<Item = Stage> + use<> {
        let bodies = self.num_bodies > 0;
        let contacts = self.has_contacts();
        let springs = self.has_springs;
        let rods = self.rod_passes() as usize;
        let (contact_passes, relax_passes) = if contacts {
            (
                self.params.contact_iterations as usize,
                self.params.contact_relax_iterations as usize,
            )
        } else {
            (0, 0)
        };
        let sleeping = self.packed().sim.sleep_steps > 0;
        let moving = self.move_colliders.is_some();
        let kinematic = self.move_bodies.is_some();
        let terrain = self.terrain.is_some();
        (0..self.params.substeps)
            .flat_map(move |substep| {
                let motion: &'static [Stage] = if bodies {
                    &[Stage::ShapeFrames, Stage::ApplyIntegrateCollide]
                } else {
                    &[Stage::IntegrateCollide]
                };
                // The first pass's narrow phase lists the active points
                // (a CPU adapter's contact passes run over that list) and
                // warm-starts, with bodies or free points alone, as the
                // CPU's `stage_narrow` does.
                let first: &'static [Stage] = match (contact_passes > 0, bodies) {
                    (false, _) => &[],
                    (true, true) => &[Stage::Narrow, Stage::Impact, Stage::Resolve],
                    (true, false) => &[Stage::Narrow, Stage::Resolve],
                };
                moving
                    .then_some(Stage::MoveColliders)
                    .into_iter()
                    .chain((kinematic && sleeping).then_some(Stage::WakeFlagged))
                    .chain(kinematic.then_some(Stage::MoveBodies))
                    .chain(springs.then_some(Stage::Springs))
                    .chain(motion.iter().copied())
                    .chain(terrain.then_some(Stage::Terrain))
                    .chain(contacts.then_some(Stage::BroadPhase))
                    .chain((contacts && bodies && substep == 0).then_some(Stage::Untangle))
                    .chain(first.iter().copied())
                    .chain(std::iter::repeat_n(
                        Stage::BodyCollide,
                        contact_passes.saturating_sub(1),
                    ))
                    .chain(std::iter::repeat_n(Stage::ContactRelax, relax_passes))
                    .chain(std::iter::repeat_n(Stage::Rods, rods))
            })
            .chain(sleeping.then_some(Stage::Sleep))
    }

    /// Records `stage` on state copy `state`, at `place` in a step
    /// (`None`: recorded alone), and returns the copy it leaves the state
    /// in.
    pub(super) fn record_stage_in(
        &self,
        pass: &mut wgpu::ComputePass,
        stage: Stage,
        state: usize,
        place: Option<InStep>,
    ) -> usize {
        let substep = place.map(|p| p.substep);
        let heads = substep.map_or(PlaneImpactHeads::ALONE, |s| {
            PlaneImpactHeads::of_substep(s, self.params.substeps)
        });
        // Within a step, the counts a contact pass kept serve the relax
        // pass after it.
        let carry = place.is_some()
            && self
                .contacts
                .as_ref()
                .is_some_and(|c| c.collide.counts_carry());
        let counts = Counts {
            counted: carry && stage == Stage::ContactRelax,
            keep: carry && place.is_some_and(|p| p.next == Some(Stage::ContactRelax)),
        };
        match stage {
            Stage::MoveColliders => {
                if let Some(m) = &self.move_colliders {
                    m.record(pass);
                }
                state
            }
            Stage::WakeFlagged => {
                self.sleep.record_wake_flagged(pass, state, self.point_grid);
                state
            }
            Stage::MoveBodies => {
                if let Some(m) = &self.move_bodies {
                    m.record(pass, state);
                }
                state
            }
            Stage::Integrate => {
                self.integrate.record(pass, state, self.point_grid);
                state
            }
            Stage::Terrain => {
                if let Some(t) = &self.terrain {
                    t.record(pass, state, self.point_grid);
                }
                state
            }
            Stage::Collide => {
                self.collide.record(pass, state, self.point_grid);
                state
            }
            Stage::IntegrateCollide => {
                self.collide.record_fused(pass, state, self.point_grid);
                state
            }
            Stage::Springs if self.has_springs => self.springs.record(pass, state, self.point_grid),
            Stage::Rods if self.num_rods > 0 => self.rods.record(pass, state, self.point_grid),
            Stage::ShapeMatch if self.num_bodies > 0 => {
                self.shape_match
                    .record(pass, state, self.shape_grids, heads);
                state
            }
            Stage::ShapeFrames if self.num_bodies > 0 => {
                self.shape_match
                    .record_frames(pass, state, self.shape_grids, heads);
                state
            }
            Stage::ShapeApply if self.num_bodies > 0 => {
                self.shape_match.record_apply(pass, state, self.shape_grids);
                state
            }
            Stage::ApplyIntegrateCollide => {
                if self.num_bodies > 0 {
                    self.shape_match
                        .record_apply_integrate_collide(pass, state, self.shape_grids);
                } else {
                    self.collide.record_fused(pass, state, self.point_grid);
                }
                state
            }
            Stage::BroadPhase => {
                if let Some(c) = &self.contacts {
                    // A step's first build takes in whatever changed
                    // between steps; a later one may keep the grid.
                    let when_moved = c.collide.kernels().grid == GridBuild::WhenMoved
                        && place.is_some_and(|p| p.again);
                    c.broad.record(pass, state, when_moved);
                }
                state
            }
            Stage::BodyCollide => {
                if let Some(c) = &self.contacts {
                    c.collide
                        .record(pass, state, self.point_grid, substep.is_none(), counts);
                }
                state
            }
            Stage::ContactRelax => {
                if let Some(c) = &self.contacts {
                    c.collide
                        .record_relax(pass, state, self.point_grid, substep.is_none(), counts);
                }
                state
            }
            Stage::Narrow => {
                if let Some(c) = &self.contacts {
                    c.collide.record_narrow_warm(pass, state, self.point_grid);
                }
                state
            }
            Stage::Resolve => {
                if let Some(c) = &self.contacts {
                    c.collide.record_resolve(
                        pass,
                        state,
                        self.point_grid,
                        substep.is_none(),
                        counts,
                    );
                }
                state
            }
            Stage::Untangle if self.num_bodies > 0 => {
                if let Some(c) = &self.contacts {
                    c.collide.record_untangle(
                        pass,
                        state,
                        self.point_grid,
                        self.shape_grids.bodies,
                    );
                }
                state
            }
            Stage::Impact if self.num_bodies > 0 => {
                if let Some(c) = &self.contacts {
                    let grids = (self.point_grid, self.shape_grids.bodies);
                    self.impact.record(pass, state, &c.impact, grids);
                }
                state
            }
            Stage::Sleep => {
                let touch = self
                    .contacts
                    .as_ref()
                    .filter(|_| self.params.body_collisions)
                    .map(|c| &c.touch);
                self.sleep.record(pass, state, self.point_grid, touch);
                state
            }
            _ => state,
        }
    }

    pub(super) fn finish_in_copy_zero(&self, encoder: &mut wgpu::CommandEncoder, state: usize) {
        if state == 1 {
            let b = &self.buffers;
            encoder.copy_buffer_to_buffer(&b.state[1], 0, &b.state[0], 0, b.state[0].size());
        }
    }

    /// Records a single stage (one rod iteration for [`Stage::Rods`]), for
    /// stage-by-stage cross-checks and timing.
    pub fn record_stage(&mut self, encoder: &mut wgpu::CommandEncoder, stage: Stage) {
        let state = {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("softbody stage"),
                timestamp_writes: None,
            });
            self.record_stage_in(&mut pass, stage, 0, None)
        };
        if stage == Stage::MoveColliders {
            self.copy_moved_colliders(encoder);
        }
        self.finish_in_copy_zero(encoder, state);
    }

    /// Copies the table [`Stage::MoveColliders`] posed into the uniform
    /// one, after the pass it was recorded in.
    pub(super) fn copy_moved_colliders(&self, encoder: &mut wgpu::CommandEncoder) {
        if let Some(m) = &self.move_colliders {
            let c = self.collider_counts;
            m.copy(encoder, &self.buffers, c.planets, c.planes);
        }
    }

    /// Records `steps` steps into one encoder and submits it. Fails only
    /// when given another device or queue than the solver's
    /// ([`SolverError::WrongDevice`]), having run nothing.
    pub fn step(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        steps: u32,
    ) -> Result<(), SolverError> {
        self.check_context("step", Some(device), Some(queue))?;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("softbody steps"),
        });
        for _ in 0..steps {
            self.record_step(&mut encoder);
        }
        queue.submit([encoder.finish()]);
        Ok(())
    }
}
