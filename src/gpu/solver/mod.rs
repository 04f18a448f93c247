//! The GPU solver: records whole steps into the caller's encoder.

use super::SolverError;
use super::body_collide::{BodyCollide, ContactKernels, Counts};
use super::broad_phase::{BroadPhase, ContactBuffers};
use super::buffers::Buffers;
use super::collide::{Collide, ColliderCounts};
use super::impact::{BodyImpact, Impact};
use super::integrate::Integrate;
use super::rods::Rods;
use super::shaders::{grid, spread_grid};
use super::shape_match::{PlaneImpactHeads, ShapeMatch, ShapeMatchGrids};
use super::sleep::Sleep;
use super::springs::Springs;
use crate::layout::{BodyFrame, SimParams, WORKGROUP_SIZE};
use crate::pack::Packed;
use crate::pack::check_state;
use crate::params::Params;
use crate::world::World;

mod edit;
mod profile;
mod readback;
mod sleeping;
pub use edit::EditReport;
pub use profile::StageTimes;
pub use readback::read_buffer;

/// One stage of a substep, for recording stages alone (cross-checks, timing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
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

/// The collision grid read back: the `grid` buffer's words and each body's
/// bounding box (see [`GpuSolver::read_contact_grid`]).
pub type ContactGrid = (Vec<u32>, Vec<[f32; 4]>);

/// The body-contact stages and their buffers.
pub(super) struct ContactStages {
    pub(super) buffers: ContactBuffers,
    broad: BroadPhase,
    collide: BodyCollide,
    impact: BodyImpact,
}

impl ContactStages {
    /// The stages for a packed world, or `None` when nothing can collide.
    /// An edit passes the stages it replaces: their compiled pipelines are
    /// kept, only buffers and bind groups are made again.
    pub(super) fn new(
        device: &wgpu::Device,
        b: &Buffers,
        packed: &Packed,
        reuse: Option<&ContactStages>,
    ) -> Result<Option<Self>, SolverError> {
        let buffers = Self::buffers(device, packed)?;
        Ok(buffers.map(|buffers| Self::with_buffers(device, b, buffers, packed, reuse)))
    }

    /// The contact buffers for a packed world (`None` when nothing can
    /// collide), after checking the device's limits: the fallible half of
    /// [`ContactStages::new`], which an edit does before it changes
    /// anything.
    fn buffers(
        device: &wgpu::Device,
        packed: &Packed,
    ) -> Result<Option<ContactBuffers>, SolverError> {
        if !packed.has_contacts() {
            return Ok(None);
        }
        super::check_device_limits(device, true)?;
        ContactBuffers::new(device, packed).map(Some)
    }

    /// The stages over `buffers` and the solver's buffers `b`.
    fn with_buffers(
        device: &wgpu::Device,
        b: &Buffers,
        buffers: ContactBuffers,
        packed: &Packed,
        reuse: Option<&ContactStages>,
    ) -> Self {
        let collide = BodyCollide::new(device, b, &buffers, packed, reuse.map(|r| &r.collide));
        let impact = BodyImpact::new(
            device,
            b,
            &buffers,
            collide.passes(),
            reuse.map(|r| &r.impact),
        );
        Self {
            broad: BroadPhase::new(device, b, &buffers, packed, reuse.map(|r| &r.broad)),
            collide,
            impact,
            buffers,
        }
    }
}

/// The grid of the per-point dispatches and shape matching's grids for a
/// world's counts: per-point and small-body dispatches are spread (WGSL
/// `spread_index`), the large-body one has a workgroup per body.
fn dispatch_grids(device: &wgpu::Device, sim: &SimParams) -> ((u32, u32), ShapeMatchGrids) {
    let max = device.limits().max_compute_workgroups_per_dimension;
    let spread = |n: u32| spread_grid(n.div_ceil(WORKGROUP_SIZE), max);
    let points = spread(sim.num_points);
    let shape = ShapeMatchGrids {
        small: spread(sim.num_small_bodies),
        large: grid(sim.num_large_bodies, max),
        bodies: spread(sim.num_bodies),
        points,
    };
    (points, shape)
}

/// Positions and velocities read back from the GPU.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    pub pos: Vec<[f32; 2]>,
    pub vel: Vec<[f32; 2]>,
}

impl State {
    /// The positions as [`glam::Vec2`] (the same memory, no copy), as
    /// [`World::set_state`](crate::World::set_state) takes them.
    pub fn positions(&self) -> &[glam::Vec2] {
        bytemuck::cast_slice(&self.pos)
    }

    /// The velocities as [`glam::Vec2`] (the same memory, no copy).
    pub fn velocities(&self) -> &[glam::Vec2] {
        bytemuck::cast_slice(&self.vel)
    }
}

/// Steps a world on the GPU. Owns its buffers and pipelines, never the
/// device: every call takes the caller's device, queue or encoder. To draw
/// from its buffers in your own pipelines see the crate documentation
/// ("Embedding") and `examples/embed.rs`; to change the world while it runs,
/// [`GpuSolver::sync`].
///
/// ```
/// use softbody::prelude::*;
/// # fn main() -> Result<(), SolverError> {
/// # // Skipped where there is no adapter at all.
/// # let Ok(ctx) = GpuContext::new_headless() else { return Ok(()) };
/// let mut world = World::default();
/// world.add_plane(HalfPlane::floor(0.0))?;
/// let p = world.add_point(Point::new(Vec2::new(0.0, 1.0)))?;
/// let mut solver = GpuSolver::new(&ctx.device, &ctx.queue, &world)?;
/// let mut encoder = ctx.device.create_command_encoder(&Default::default());
/// for _ in 0..60 {
///     solver.record_step(&mut encoder);
/// }
/// ctx.queue.submit([encoder.finish()]);
/// let state = solver.read_state(&ctx.device, &ctx.queue)?;
/// assert!(state.pos[p.index()][1] < 1.0);
/// # Ok(())
/// # }
/// ```
pub struct GpuSolver {
    /// The device and queue it was created with, to refuse others.
    device: wgpu::Device,
    queue: wgpu::Queue,
    params: Params,
    buffers: Buffers,
    integrate: Integrate,
    collide: Collide,
    impact: Impact,
    springs: Springs,
    rods: Rods,
    shape_match: ShapeMatch,
    sleep: Sleep,
    contacts: Option<ContactStages>,
    point_grid: (u32, u32),
    /// What the collide pipelines are specialised for.
    collider_counts: ColliderCounts,
    shape_grids: ShapeMatchGrids,
    has_springs: bool,
    num_springs: usize,
    num_rods: u32,
    num_points: usize,
    num_bodies: usize,
    num_members: usize,
    steps: u64,
    edit: edit::EditState,
}

/// Where a stage is recorded within a step: its substep and the stage
/// after it.
#[derive(Clone, Copy, Debug)]
pub(super) struct InStep {
    substep: u32,
    next: Option<Stage>,
}

/// A step's stages, in order, each with its place in the step.
pub(super) fn in_step(
    stages: impl Iterator<Item = Stage>,
) -> impl Iterator<Item = (Stage, InStep)> {
    let mut stages = stages.peekable();
    let mut substep = 0;
    std::iter::from_fn(move || {
        let stage = stages.next()?;
        let place = InStep {
            substep,
            next: stages.peek().copied(),
        };
        substep += u32::from(stage == Stage::ShapeFrames);
        Some((stage, place))
    })
}

impl GpuSolver {
    /// Uploads a world to the caller's device. Fails with a typed error if
    /// the world's parameters are invalid or a buffer would exceed the
    /// device's limits.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        world: &World,
    ) -> Result<Self, SolverError> {
        let packed = Packed::from_world(world)?;
        let mut solver = Self::from_packed(device, queue, &world.params, &packed)?;
        solver.edit.generation = world.generation();
        solver.edit.resolved = Some(world.params.clone());
        Ok(solver)
    }

    /// Uploads an already packed world, to be stepped with `params`: where
    /// they differ from those it was packed with, the substep's
    /// coefficients and the uniforms follow `params` (the items keep the
    /// values resolved when it was packed, as after
    /// [`set_params`](Self::set_params), until the first
    /// [`sync`](Self::sync) or [`apply_removal`](Self::apply_removal)
    /// resolves them from the world's parameters). Refused with
    /// [`WorldError::InconsistentPacked`](crate::WorldError::InconsistentPacked)
    /// when the arrays do not fit each other or `params` do not fit the
    /// packed contact data ([`Packed::check_params_fit`]).
    pub fn from_packed(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        params: &Params,
        packed: &Packed,
    ) -> Result<Self, SolverError> {
        params.validate()?;
        packed.check_consistent()?;
        packed.check_params_fit(params)?;
        // The contact stages check what they need themselves.
        super::check_device_limits(device, false)?;
        let stability = packed.stability(params.h());
        stability.check()?;
        for w in stability.warnings() {
            log::warn!("{w}");
        }
        let mut mirror = packed.clone();
        if mirror.sim.h != params.h() {
            mirror.refresh_step_coefficients(params.h());
        }
        mirror.set_sim(params);
        // From here on, what runs.
        let packed = &mirror;
        let buffers = Buffers::new(device, packed)?;
        let counts = ColliderCounts::of(packed);
        let (point_grid, shape_grids) = dispatch_grids(device, &packed.sim);
        Ok(Self {
            device: device.clone(),
            queue: queue.clone(),
            integrate: Integrate::new(device, &buffers),
            collide: Collide::new(device, &buffers, counts),
            impact: Impact::new(device, &buffers),
            springs: Springs::new(device, &buffers),
            rods: Rods::new(device, &buffers),
            shape_match: ShapeMatch::new(device, &buffers, counts),
            sleep: Sleep::new(device, &buffers),
            collider_counts: counts,
            contacts: ContactStages::new(device, &buffers, packed, None)?,
            point_grid,
            shape_grids,
            has_springs: packed.springs.len() as u32 > packed.num_rods,
            num_springs: packed.springs.len(),
            num_rods: packed.num_rods,
            num_points: packed.pos.len(),
            num_bodies: packed.bodies.len(),
            num_members: packed.members.len(),
            steps: 0,
            params: params.clone(),
            buffers,
            edit: edit::EditState::new(mirror),
        })
    }

    /// The parameters in use.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Replaces the parameters; takes effect from the next recorded step.
    /// Items keep the values resolved when the world was packed. Refuses,
    /// with [`WorldError::NeedsSync`](crate::WorldError::NeedsSync), the
    /// parameters packed into the contact data (see
    /// [`Packed::check_param_change`]): those go through `world.params`
    /// and [`sync`](Self::sync).
    pub fn set_params(&mut self, queue: &wgpu::Queue, params: Params) -> Result<(), SolverError> {
        self.check_context("set_params", None, Some(queue))?;
        let change = self.edit.apply_params(&self.params, &params)?;
        if change.substep {
            let p = self.packed();
            let records: [(&wgpu::Buffer, &[u8]); 2] = [
                (
                    &self.buffers.spring_halves,
                    bytemuck::cast_slice(&p.spring_halves.records),
                ),
                (
                    &self.buffers.point_members,
                    bytemuck::cast_slice(&p.point_members.records),
                ),
            ];
            for (buffer, bytes) in records {
                if !bytes.is_empty() {
                    queue.write_buffer(buffer, 0, bytes);
                }
            }
            if let Some(c) = &self.contacts {
                queue.write_buffer(
                    &c.buffers.filters,
                    0,
                    bytemuck::cast_slice(&self.packed().contact_filters),
                );
            }
        }
        // The uniforms live in the mirror, so that `packed()` is what runs.
        self.buffers.write_sim(queue, &self.packed().sim);
        if change.any {
            self.wake(queue);
        }
        self.params = params;
        Ok(())
    }

    /// Number of points.
    pub fn num_points(&self) -> usize {
        self.num_points
    }

    /// Number of bodies.
    pub fn num_bodies(&self) -> usize {
        self.num_bodies
    }

    /// Steps recorded so far (stays at `u64::MAX` once there, rather than
    /// wrap).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Bytes of GPU memory the solver holds (the index buffers for drawing
    /// included once they have been asked for).
    pub fn gpu_bytes(&self) -> u64 {
        self.buffers.total_bytes()
            + self
                .contacts
                .as_ref()
                .map_or(0, |c| c.buffers.total_bytes())
            + self.edit.index_buffer_bytes()
    }

    /// Rod iterations per substep (zero when the world has no rods).
    pub fn rod_passes(&self) -> u32 {
        if self.num_rods == 0 {
            0
        } else {
            self.params.rod_iterations
        }
    }

    /// The state, `array<vec4<f32>>`, one per point: position (m) in
    /// `xy`, velocity (m/s) in `zw`; valid between steps. Usable as a
    /// storage buffer, or as a vertex buffer with a 16-byte stride
    /// (`Float32x2` at offset 0 for positions, 8 for velocities), in the
    /// caller's pipelines. One buffer rather than two because the kernels
    /// fetch a point's position and velocity together in one load.
    pub fn state_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.state[0]
    }

    /// Body frames (`BodyFrame`: centroid, velocity, rotation, angular
    /// velocity) as of the last shape-matching stage. Bodies added by a
    /// `sync` have zeroed frames until the next step, and after an
    /// `apply_removal` the frames are stale until then; the bodies already
    /// there keep theirs through a `sync`, even one that grows the buffer.
    pub fn frames_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.frames
    }

    /// Planets and half-planes (`Colliders`, a uniform buffer; counts in
    /// the world).
    pub fn colliders_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.colliders
    }

    /// Body memberships (`Member`: rest offset, point index, the point's
    /// weight), body by body in member order.
    pub fn members_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.members
    }

    /// Bodies (`BodyInfo`: first member, member count, stiffness, damping).
    pub fn bodies_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.bodies
    }

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
            for (stage, place) in in_step(self.step_stages()) {
                state = self.record_stage_in(&mut pass, stage, state, Some(place));
            }
        }
        self.finish_in_copy_zero(encoder, state);
        self.steps = self.steps.saturating_add(1);
    }

    /// The stages one step runs, in order, substep after substep (stages
    /// with nothing to do are left out). Each substep is springs, shape
    /// matching, integrate, collide, body contacts (and their relax
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
        (0..self.params.substeps)
            .flat_map(move |substep| {
                let motion: &'static [Stage] = if bodies {
                    &[Stage::ShapeFrames, Stage::ApplyIntegrateCollide]
                } else {
                    &[Stage::IntegrateCollide]
                };
                let first: &'static [Stage] = match (contact_passes > 0, bodies) {
                    (false, _) => &[],
                    (true, true) => &[Stage::Narrow, Stage::Impact, Stage::Resolve],
                    (true, false) => &[Stage::BodyCollide],
                };
                springs
                    .then_some(Stage::Springs)
                    .into_iter()
                    .chain(motion.iter().copied())
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

    /// How the contact kernels walk the grid and which points their passes
    /// run over (`None` for a world without contacts). By default
    /// [`ContactKernels::for_device`]; edits keep it.
    pub fn contact_kernels(&self) -> Option<ContactKernels> {
        self.contacts.as_ref().map(|c| c.collide.kernels())
    }

    /// Whether substeps run the body-contact stages: body collisions are on
    /// and some body outline or free disk can be hit.
    pub fn has_contacts(&self) -> bool {
        self.params.body_collisions && self.contacts.is_some()
    }

    /// Waits until the GPU has finished all submitted work.
    pub fn wait(&self, device: &wgpu::Device) -> Result<(), SolverError> {
        self.check_context("wait", Some(device), None)?;
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| SolverError::Readback(e.to_string()))
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
            Stage::Integrate => {
                self.integrate.record(pass, state, self.point_grid);
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
                    c.broad.record(pass, state);
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
                self.sleep.record(pass, state, self.point_grid);
                state
            }
            _ => state,
        }
    }

    fn finish_in_copy_zero(&self, encoder: &mut wgpu::CommandEncoder, state: usize) {
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
        self.finish_in_copy_zero(encoder, state);
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

    /// Refuses a device or queue other than the solver's own.
    pub(crate) fn check_context(
        &self,
        call: &'static str,
        device: Option<&wgpu::Device>,
        queue: Option<&wgpu::Queue>,
    ) -> Result<(), SolverError> {
        if device.is_some_and(|d| *d != self.device) {
            return Err(SolverError::WrongDevice {
                call,
                what: "device",
            });
        }
        if queue.is_some_and(|q| *q != self.queue) {
            return Err(SolverError::WrongDevice {
                call,
                what: "queue",
            });
        }
        Ok(())
    }
}
