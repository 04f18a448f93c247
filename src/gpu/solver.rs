//! The GPU solver: records whole steps into the caller's encoder.

use super::SolverError;
use super::buffers::Buffers;
use super::collide::Collide;
use super::integrate::Integrate;
use super::rods::Rods;
use super::shaders::grid;
use super::shape_match::{ShapeMatch, ShapeMatchGrids};
use super::springs::Springs;
use crate::layout::{BodyFrame, SimParams, WORKGROUP_SIZE};
use crate::pack::check_state_len;
use crate::pack::{Packed, sim_params};
use crate::params::Params;
use crate::world::World;

mod edit;
pub use edit::EditReport;

/// One stage of a substep, for recording stages alone (cross-checks, timing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    Integrate,
    Collide,
    Springs,
    /// One rod iteration.
    Rods,
    ShapeMatch,
}

/// Positions and velocities read back from the GPU.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    pub pos: Vec<[f32; 2]>,
    pub vel: Vec<[f32; 2]>,
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
    params: Params,
    sim: SimParams,
    buffers: Buffers,
    integrate: Integrate,
    collide: Collide,
    springs: Springs,
    rods: Rods,
    shape_match: ShapeMatch,
    point_grid: (u32, u32),
    shape_grids: ShapeMatchGrids,
    has_springs: bool,
    num_rods: u32,
    num_points: usize,
    num_bodies: usize,
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
        Ok(solver)
    }

    /// Uploads an already packed world.
    pub fn from_packed(
        device: &wgpu::Device,
        _queue: &wgpu::Queue,
        params: &Params,
        packed: &Packed,
    ) -> Result<Self, SolverError> {
        params.validate()?;
        super::check_device_limits(device)?;
        for w in packed.stability(params.h()).warnings() {
            log::warn!("{w}");
        }
        let buffers = Buffers::new(device, packed)?;
        let max = device.limits().max_compute_workgroups_per_dimension;
        let groups = |n: u32, per: u32| grid(n.div_ceil(per), max);
        let sim = sim_params(params, packed);
        Ok(Self {
            integrate: Integrate::new(device, &buffers),
            collide: Collide::new(device, &buffers),
            springs: Springs::new(device, &buffers),
            rods: Rods::new(device, &buffers),
            shape_match: ShapeMatch::new(device, &buffers),
            point_grid: groups(packed.sim.num_points, WORKGROUP_SIZE),
            shape_grids: ShapeMatchGrids {
                small: groups(packed.sim.num_small_bodies, WORKGROUP_SIZE),
                large: groups(packed.sim.num_large_bodies, 1),
                points: groups(packed.sim.num_points, WORKGROUP_SIZE),
            },
            has_springs: packed.springs.len() as u32 > packed.num_rods,
            num_rods: packed.num_rods,
            num_points: packed.pos.len(),
            num_bodies: packed.bodies.len(),
            steps: 0,
            edit: edit::EditState::new(device, params, packed),
            params: params.clone(),
            sim,
            buffers,
        })
    }

    /// The parameters in use.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Replaces the parameters; takes effect from the next recorded step.
    /// Items keep the values resolved when the world was packed.
    pub fn set_params(&mut self, queue: &wgpu::Queue, params: Params) -> Result<(), SolverError> {
        params.validate()?;
        self.sim = SimParams {
            gravity: params.gravity.to_array(),
            h: params.h(),
            point_radius: params.point_radius,
            ..self.sim
        };
        self.buffers.write_sim(queue, &self.sim);
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

    /// Steps recorded so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Bytes of GPU memory the solver holds.
    pub fn gpu_bytes(&self) -> u64 {
        self.buffers.total_bytes()
    }

    /// Rod iterations per substep (zero when the world has no rods).
    pub fn rod_passes(&self) -> u32 {
        if self.num_rods == 0 {
            0
        } else {
            self.params.rod_iterations
        }
    }

    /// Positions, `array<vec2<f32>>`, one per point; valid between steps.
    /// Usable as a vertex or storage buffer in the caller's pipelines.
    pub fn positions_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.pos[0]
    }

    /// Velocities, `array<vec2<f32>>`, one per point.
    pub fn velocities_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.vel[0]
    }

    /// Body frames (`BodyFrame`: centroid, velocity, rotation, angular
    /// velocity) as of the last shape-matching stage.
    pub fn frames_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.frames
    }

    /// Springs (`SpringInfo`: two point indices each, then rest length...).
    pub fn springs_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.springs
    }

    /// Body memberships (`Member`: rest offset, point index, body index),
    /// body by body in boundary order.
    pub fn members_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.members
    }

    /// Bodies (`BodyInfo`: first member, member count, stiffness, damping).
    pub fn bodies_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.bodies
    }

    /// Records one step (`substeps` substeps) into the caller's encoder. No
    /// readback, no CPU work beyond recording; the state ends in the buffers
    /// returned by [`positions_buffer`](Self::positions_buffer) and
    /// [`velocities_buffer`](Self::velocities_buffer).
    pub fn record_step(&mut self, encoder: &mut wgpu::CommandEncoder) {
        let mut state = 0;
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("softbody step"),
                timestamp_writes: None,
            });
            for _ in 0..self.params.substeps {
                state = self.record_substep(&mut pass, state);
            }
        }
        self.finish_in_copy_zero(encoder, state);
        self.steps += 1;
    }

    fn record_substep(&self, pass: &mut wgpu::ComputePass, mut state: usize) -> usize {
        for stage in [Stage::Integrate, Stage::Collide, Stage::Springs] {
            state = self.record_stage_in(pass, stage, state);
        }
        for _ in 0..self.rod_passes() {
            state = self.rods.record(pass, state, self.point_grid);
        }
        self.record_stage_in(pass, Stage::ShapeMatch, state)
    }

    fn record_stage_in(&self, pass: &mut wgpu::ComputePass, stage: Stage, state: usize) -> usize {
        match stage {
            Stage::Integrate => {
                self.integrate.record(pass, state, self.point_grid);
                state
            }
            Stage::Collide => {
                self.collide.record(pass, state, self.point_grid);
                state
            }
            Stage::Springs if self.has_springs => self.springs.record(pass, state, self.point_grid),
            Stage::Rods if self.num_rods > 0 => self.rods.record(pass, state, self.point_grid),
            Stage::ShapeMatch if self.num_bodies > 0 => {
                self.shape_match.record(pass, state, self.shape_grids)
            }
            _ => state,
        }
    }

    fn finish_in_copy_zero(&self, encoder: &mut wgpu::CommandEncoder, state: usize) {
        if state == 1 {
            let b = &self.buffers;
            encoder.copy_buffer_to_buffer(&b.pos[1], 0, &b.pos[0], 0, b.pos[0].size());
            encoder.copy_buffer_to_buffer(&b.vel[1], 0, &b.vel[0], 0, b.vel[0].size());
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
            self.record_stage_in(&mut pass, stage, 0)
        };
        self.finish_in_copy_zero(encoder, state);
    }

    /// Records `steps` steps into one encoder and submits it.
    pub fn step(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, steps: u32) {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("softbody steps"),
        });
        for _ in 0..steps {
            self.record_step(&mut encoder);
        }
        queue.submit([encoder.finish()]);
    }

    /// Overwrites positions and velocities (one entry per point).
    pub fn set_state(
        &mut self,
        queue: &wgpu::Queue,
        pos: &[[f32; 2]],
        vel: &[[f32; 2]],
    ) -> Result<(), SolverError> {
        check_state_len(self.num_points, pos, vel)?;
        if self.num_points > 0 {
            queue.write_buffer(&self.buffers.pos[0], 0, bytemuck::cast_slice(pos));
            queue.write_buffer(&self.buffers.vel[0], 0, bytemuck::cast_slice(vel));
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
        Ok(State {
            pos: read_buffer(device, queue, &self.buffers.pos[0], self.num_points)?,
            vel: read_buffer(device, queue, &self.buffers.vel[0], self.num_points)?,
        })
    }

    /// Reads the body frames back (waits for the GPU).
    pub fn read_frames(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<BodyFrame>, SolverError> {
        read_buffer(device, queue, &self.buffers.frames, self.num_bodies)
    }
}

/// Copies the first `count` elements of `buffer` to the CPU and waits.
pub fn read_buffer<T: bytemuck::Pod>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    count: usize,
) -> Result<Vec<T>, SolverError> {
    let bytes = (count * std::mem::size_of::<T>()) as u64;
    if bytes == 0 {
        return Ok(Vec::new());
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
