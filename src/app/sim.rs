//! The simulation as the window sees it: the world, its solver, the
//! renderer's view of it, picking and dragging, and the edits that need a
//! re-upload (parameters baked into items, spawned bodies, reset).

use glam::Vec2;

use super::AppError;
use crate::error::WorldError;
use crate::gpu::{GpuSolver, SolverError};
use crate::params::Params;
use crate::render::{Dragger, Picker, Renderer, Topology};
use crate::shapes::{Blob, BoxGrid, BoxShape, Wheel};
use crate::world::World;

/// What a right click (or a key) spawns at the cursor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SpawnKind {
    #[default]
    Box,
    Wheel,
    Blob,
    /// A 3x2 grid of boxes sharing corners.
    Ship,
}

impl SpawnKind {
    pub const ALL: [SpawnKind; 4] = [
        SpawnKind::Box,
        SpawnKind::Wheel,
        SpawnKind::Blob,
        SpawnKind::Ship,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SpawnKind::Box => "box",
            SpawnKind::Wheel => "wheel",
            SpawnKind::Blob => "blob",
            SpawnKind::Ship => "ship",
        }
    }
}

/// The parameters of [`Params`] that only take effect through a re-upload:
/// they are resolved into every spring, body and material when the world is
/// packed. [`GpuSolver::set_params`] updates the rest, except the
/// parameters of the contact data, which it refuses
/// ([`WorldError::NeedsSync`]).
pub fn baked_params_differ(a: &Params, b: &Params) -> bool {
    a.elasticity != b.elasticity
        || a.friction != b.friction
        || a.spring_stiffness != b.spring_stiffness
        || a.spring_damping != b.spring_damping
        || a.shape_stiffness != b.shape_stiffness
        || a.shape_damping != b.shape_damping
}

pub struct Sim {
    /// The scene as it started, for reset.
    pub initial: World,
    /// The world uploaded last; its point states are as of that upload.
    pub world: World,
    pub solver: GpuSolver,
    pub topology: Topology,
    pub picker: Picker,
    pub dragger: Dragger,
    /// Stability warnings of the world as uploaded (see `Packed::stability`).
    pub warnings: Vec<String>,
    /// Simulated time since the last reset, s.
    pub time: f64,
}

/// The stability warnings of the world a solver holds, from its packed
/// copy (packing the world again for them cost a second pass over it).
fn warnings(solver: &GpuSolver) -> Vec<String> {
    solver.packed().stability(solver.params().h()).warnings()
}

impl Sim {
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &mut Renderer,
        world: World,
    ) -> Result<Self, AppError> {
        let solver = GpuSolver::new(device, queue, &world)?;
        let mut sim = Self {
            initial: world.clone(),
            topology: Topology::default(),
            picker: Picker::new(device),
            dragger: Dragger::new(device),
            warnings: warnings(&solver),
            world,
            solver,
            time: 0.0,
        };
        sim.bind(device, queue, renderer)?;
        Ok(sim)
    }

    /// Rebinds everything that reads the solver's buffers.
    fn bind(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &mut Renderer,
    ) -> Result<(), AppError> {
        self.topology = Topology::from_world(&self.world);
        let mut encoder = device.create_command_encoder(&Default::default());
        renderer.set_scene(device, &mut encoder, &self.solver, &self.topology)?;
        queue.submit([encoder.finish()]);
        self.picker.set_solver(device, &self.solver);
        self.dragger.set_solver(device, &self.solver);
        Ok(())
    }

    /// The world with the solver's current positions and velocities (one
    /// blocking readback of the state).
    pub fn current_world(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<World, AppError> {
        let state = self.solver.read_state(device, queue)?;
        let mut world = self.world.clone();
        world.params = self.solver.params().clone();
        world.set_state(state.positions(), state.velocities())?;
        Ok(world)
    }

    /// Uploads `world` in place of the current one (a new solver; the
    /// renderer, picker and dragger rebound). On error nothing changes.
    pub fn upload(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &mut Renderer,
        world: World,
    ) -> Result<(), AppError> {
        self.solver = GpuSolver::new(device, queue, &world)?;
        self.warnings = warnings(&self.solver);
        self.world = world;
        self.bind(device, queue, renderer)
    }

    /// Applies edited parameters: gravity, `dt`, substeps, contact passes
    /// and rod iterations at once through [`GpuSolver::set_params`]; the
    /// ones baked into items at upload ([`baked_params_differ`]) and those
    /// packed into the contact data (which `set_params` refuses with
    /// [`WorldError::NeedsSync`]) by re-uploading the current state.
    pub fn set_params(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &mut Renderer,
        params: Params,
    ) -> Result<(), AppError> {
        params.validate()?;
        if !baked_params_differ(&params, self.solver.params()) {
            let h_changed = params.h() != self.solver.params().h();
            match self.solver.set_params(queue, params.clone()) {
                Ok(()) => {
                    self.world.params = params;
                    if h_changed {
                        self.warnings = warnings(&self.solver);
                    }
                    return Ok(());
                }
                Err(SolverError::World(WorldError::NeedsSync { .. })) => {}
                Err(e) => return Err(e.into()),
            }
        }
        let mut world = self.current_world(device, queue)?;
        world.params = params;
        self.upload(device, queue, renderer, world)
    }

    /// Adds each shape at its point (m) to the current state, at rest, and
    /// re-uploads once.
    pub fn spawn(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &mut Renderer,
        shapes: &[(SpawnKind, Vec2)],
    ) -> Result<(), AppError> {
        let mut world = self.current_world(device, queue)?;
        for &(kind, at) in shapes {
            match kind {
                SpawnKind::Box => BoxShape::new(at, Vec2::splat(1.0)).build(&mut world)?,
                SpawnKind::Wheel => Wheel::new(at, 0.6, 12).build(&mut world)?,
                SpawnKind::Blob => Blob::new(at, 0.7, 16).build(&mut world)?,
                SpawnKind::Ship => BoxGrid::new(3, 2, Vec2::splat(0.45))
                    .center(at)
                    .build(&mut world)?,
            };
        }
        self.upload(device, queue, renderer, world)
    }

    /// Back to the scene as it started, keeping the edited parameters.
    pub fn reset(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &mut Renderer,
    ) -> Result<(), AppError> {
        let mut world = self.initial.clone();
        world.params = self.solver.params().clone();
        self.upload(device, queue, renderer, world)?;
        self.time = 0.0;
        Ok(())
    }
}
