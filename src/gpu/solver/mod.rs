//! The GPU solver: owns a world's buffers and pipelines and records whole
//! steps into the caller's encoder.

use super::SolverError;
use super::buffers::Buffers;
use super::collide::{Collide, ColliderCounts};
use super::commands::Commands;
use super::impact::Impact;
use super::integrate::Integrate;
use super::move_bodies::MoveBodies;
use super::move_colliders::MoveColliders;
use super::rods::Rods;
use super::shaders::{grid, spread_grid};
use super::shape_match::{ShapeMatch, ShapeMatchGrids};
use super::sleep::Sleep;
use super::springs::Springs;
use crate::layout::{BodyFrame, SimParams, WORKGROUP_SIZE};
use crate::pack::Packed;
use crate::pack::check_state;
use crate::params::Params;
use crate::world::World;

mod commands;
mod contacts;
mod edit;
mod events;
mod pending;
mod profile;
mod query;
mod readback;
mod record;
mod sleeping;
use contacts::ContactStages;
pub use edit::EditReport;
pub use events::PendingEvents;
pub use pending::{Pending, PendingState};
pub use profile::StageTimes;
pub use query::{PendingBodies, PendingBox, PendingRays};
pub use readback::read_buffer;
pub use record::Stage;

/// The collision grid read back: the `grid` buffer's words and each body's
/// bounding box (see [`GpuSolver::read_contact_grid`]).
pub type ContactGrid = (Vec<u32>, Vec<[f32; 4]>);

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
    commands: Commands,
    query: super::query::Query,
    /// Contact events, when on and the world has contact data; `events_on`
    /// keeps the choice through edits.
    events: Option<super::events::Events>,
    events_on: bool,
    /// Commands queued for the next recorded step.
    queued: Vec<crate::layout::Command>,
    contacts: Option<ContactStages>,
    point_grid: (u32, u32),
    /// What the collide pipelines are specialised for.
    collider_counts: ColliderCounts,
    /// Posing the colliders each substep, in a world where some move.
    move_colliders: Option<MoveColliders>,
    /// Posing the kinematic bodies each substep, in a world with some, and
    /// how many it was made for.
    move_bodies: Option<MoveBodies>,
    num_kinematic: usize,
    /// Points against the terrain, in a world with terrain.
    terrain: Option<super::terrain::Terrain>,
    shape_grids: ShapeMatchGrids,
    has_springs: bool,
    num_springs: usize,
    /// The outlines' points (`Packed::outline_len`): the drawing's body
    /// edge indices are twice as many.
    num_outline_points: u32,
    num_rods: u32,
    num_points: usize,
    num_bodies: usize,
    num_members: usize,
    steps: u64,
    edit: edit::EditState,
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
        let mut solver = Self {
            device: device.clone(),
            queue: queue.clone(),
            integrate: Integrate::new(device, &buffers, counts),
            collide: Collide::new(device, &buffers, counts),
            impact: Impact::new(device, &buffers),
            springs: Springs::new(device, &buffers),
            rods: Rods::new(device, &buffers),
            shape_match: ShapeMatch::new(device, &buffers, counts),
            sleep: Sleep::new(device, &buffers, counts),
            commands: Commands::new(device, &buffers),
            query: super::query::Query::new(device),
            events: None,
            events_on: false,
            queued: Vec::new(),
            collider_counts: counts,
            move_colliders: counts.moving.then(|| MoveColliders::new(device, &buffers)),
            move_bodies: move_bodies(device, &buffers, packed.kinematic.len()),
            num_kinematic: packed.kinematic.len(),
            terrain: (!packed.terrain.segments.is_empty())
                .then(|| super::terrain::Terrain::new(device, &buffers)),
            contacts: ContactStages::new(device, &buffers, packed, None)?,
            point_grid,
            shape_grids,
            has_springs: packed.springs.len() as u32 > packed.num_rods,
            num_springs: packed.springs.len(),
            num_outline_points: packed.outline_len() as u32,
            num_rods: packed.num_rods,
            num_points: packed.pos.len(),
            num_bodies: packed.bodies.len(),
            num_members: packed.members.len(),
            steps: 0,
            params: params.clone(),
            buffers,
            edit: edit::EditState::new(mirror),
        };
        solver.bind_warm();
        Ok(solver)
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
        // The clock counts substeps: a new substep count restarts it from
        // the step count.
        self.pose_colliders();
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

    /// Planets and half-planes (`Colliders`, a uniform and storage
    /// buffer; counts in the world), moving ones posed at the last
    /// substep's start.
    pub fn colliders_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.colliders
    }

    /// The terrain's segments (`layout::SegmentInfo`; one zeroed element
    /// without terrain, the count in [`packed`](Self::packed)).
    pub fn terrain_segments_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.terrain_segments
    }

    /// Body memberships (`Member`: rest offset, point index, the point's
    /// weight), each body's at its `first .. first + count`
    /// ([`Packed::members`](crate::pack::Packed::members)).
    pub fn members_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.members
    }

    /// Bodies (`BodyInfo`: first member, member count, stiffness, damping).
    pub fn bodies_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.bodies
    }

    /// Waits until the GPU has finished all submitted work.
    pub fn wait(&self, device: &wgpu::Device) -> Result<(), SolverError> {
        self.check_context("wait", Some(device), None)?;
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| SolverError::Readback(e.to_string()))
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

/// The kinematic bodies' stage for `count` of them, or `None` for none.
fn move_bodies(
    device: &wgpu::Device,
    b: &super::buffers::Buffers,
    count: usize,
) -> Option<MoveBodies> {
    (count > 0).then(|| MoveBodies::new(device, b, count as u32))
}
