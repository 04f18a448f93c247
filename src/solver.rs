//! One interface over the two solver paths, for code where the path is a
//! choice: the `softbody` program's `--backend`, and tests that run a world
//! on both. Code that embeds the GPU solver in its own renderer uses
//! [`GpuSolver`] directly, with its own device.

use crate::cpu::CpuSolver;
use crate::gpu::{GpuContext, GpuSolver, SolverError};
use crate::pack::Packed;
use crate::world::{BodyHandle, PointHandle, World};
use glam::Vec2;

/// Positions and velocities, one pair per point.
pub type StateVecs = (Vec<[f32; 2]>, Vec<[f32; 2]>);

/// Steps the GPU path records into one command buffer at most, so that a
/// long run is submitted in bounded pieces.
const GPU_STEPS_PER_SUBMIT: u64 = 240;

/// A world's solver on either path.
///
/// ```
/// use softbody::prelude::*;
/// use softbody::solver::Solver;
///
/// let mut world = World::default();
/// world.add_plane(HalfPlane::floor(0.0))?;
/// Wheel::new(Vec2::new(0.0, 2.0), 0.5, 12).build(&mut world)?;
/// let mut solver = Solver::cpu(&world)?;
/// solver.step(60)?;
/// let (pos, _vel) = solver.state()?;
/// assert!(pos.iter().all(|p| p[1] < 2.6));
/// assert_eq!(solver.steps(), 60);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub enum Solver {
    /// The CPU reference path.
    Cpu(Box<CpuSolver>),
    /// The GPU path, on a device of its own.
    Gpu {
        ctx: Box<GpuContext>,
        solver: Box<GpuSolver>,
    },
}

impl Solver {
    /// The CPU reference path on one thread.
    pub fn cpu(world: &World) -> Result<Self, SolverError> {
        Ok(Self::Cpu(Box::new(CpuSolver::new(world)?)))
    }

    /// The CPU reference path on all threads ([`CpuSolver::parallel`]; one
    /// without the `parallel` feature): bitwise the same steps as
    /// [`cpu`](Self::cpu), sooner on a machine with several cores.
    pub fn cpu_parallel(world: &World) -> Result<Self, SolverError> {
        Ok(Self::Cpu(Box::new(CpuSolver::new(world)?.parallel(true))))
    }

    /// The GPU path on a headless device ([`GpuContext::new_headless`]).
    pub fn gpu(world: &World) -> Result<Self, SolverError> {
        Self::gpu_on(GpuContext::new_headless()?, world)
    }

    /// The GPU path on `ctx`'s device.
    pub fn gpu_on(ctx: GpuContext, world: &World) -> Result<Self, SolverError> {
        let solver = GpuSolver::new(&ctx.device, &ctx.queue, world)?;
        Ok(Self::Gpu {
            ctx: Box::new(ctx),
            solver: Box::new(solver),
        })
    }

    /// `"cpu"` or `"gpu"`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Cpu(_) => "cpu",
            Self::Gpu { .. } => "gpu",
        }
    }

    /// One line naming the path: the CPU's threads, or the GPU's adapter
    /// and the size of its buffers.
    pub fn describe(&self) -> String {
        match self {
            Self::Cpu(s) if s.is_parallel() && cfg!(feature = "parallel") => {
                "CPU reference (all threads)".into()
            }
            Self::Cpu(_) => "CPU reference (1 thread)".into(),
            Self::Gpu { ctx, solver } => format!(
                "GPU, {}; {:.1} KiB of buffers",
                ctx.adapter_summary(),
                solver.gpu_bytes() as f64 / 1024.0
            ),
        }
    }

    /// Runs `n` steps. The GPU path records and submits them (at most
    /// 240 to a command buffer) and returns without waiting for them; see
    /// [`wait`](Self::wait).
    pub fn step(&mut self, n: u64) -> Result<(), SolverError> {
        match self {
            Self::Cpu(s) => (0..n).for_each(|_| s.step()),
            Self::Gpu { ctx, solver } => {
                let mut left = n;
                while left > 0 {
                    let k = left.min(GPU_STEPS_PER_SUBMIT);
                    solver.step(&ctx.device, &ctx.queue, k as u32)?;
                    left -= k;
                }
            }
        }
        Ok(())
    }

    /// Waits until the GPU has done what was submitted (at once on the CPU).
    pub fn wait(&self) -> Result<(), SolverError> {
        match self {
            Self::Cpu(_) => Ok(()),
            Self::Gpu { ctx, solver } => solver.wait(&ctx.device),
        }
    }

    /// The positions and velocities (read back from the GPU).
    pub fn state(&self) -> Result<StateVecs, SolverError> {
        match self {
            Self::Cpu(s) => Ok((s.positions().to_vec(), s.velocities().to_vec())),
            Self::Gpu { ctx, solver } => {
                let st = solver.read_state(&ctx.device, &ctx.queue)?;
                Ok((st.pos, st.vel))
            }
        }
    }

    /// Overwrites the state (one finite entry per point); wakes everything.
    pub fn set_state(&mut self, pos: &[[f32; 2]], vel: &[[f32; 2]]) -> Result<(), SolverError> {
        match self {
            Self::Cpu(s) => Ok(s.set_state(pos, vel)?),
            Self::Gpu { ctx, solver } => solver.set_state(&ctx.queue, pos, vel),
        }
    }

    /// Points asleep now (read back from the GPU).
    pub fn sleeping_points(&self) -> Result<usize, SolverError> {
        match self {
            Self::Cpu(s) => Ok(s.sleeping_points()),
            Self::Gpu { ctx, solver } => solver.read_sleeping_points(&ctx.device, &ctx.queue),
        }
    }

    /// Sets a body's target area over its rest area (a pressure body).
    pub fn set_inflation(&mut self, body: BodyHandle, ratio: f32) -> Result<(), SolverError> {
        match self {
            Self::Cpu(s) => Ok(s.set_inflation(body, ratio)?),
            Self::Gpu { ctx, solver } => solver.set_inflation(&ctx.queue, body, ratio),
        }
    }

    /// Moves a pinned point (mass 0) to `pos`, waking its assembly and,
    /// at the next step's end, what it touches or supports.
    pub fn move_pinned_point(&mut self, point: PointHandle, pos: Vec2) -> Result<(), SolverError> {
        match self {
            Self::Cpu(s) => Ok(s.move_pinned_point(point, pos)?),
            Self::Gpu { ctx, solver } => solver.move_pinned_point(&ctx.queue, point, pos),
        }
    }

    /// Follows items appended to `world` since the solver was built or
    /// last synced (`CpuSolver::sync`, `GpuSolver::sync`). Bodies appended
    /// at the same parameters leave what sleeps asleep.
    pub fn sync(&mut self, world: &crate::world::World) -> Result<(), SolverError> {
        match self {
            Self::Cpu(s) => Ok(s.sync(world)?),
            Self::Gpu { ctx, solver } => solver.sync(&ctx.device, &ctx.queue, world).map(|_| ()),
        }
    }

    /// Follows a removal made on `world` (`CpuSolver::apply_removal`,
    /// `GpuSolver::apply_removal`): the removed items go, the rest are
    /// renumbered as the removal says.
    pub fn apply_removal(
        &mut self,
        world: &crate::world::World,
        removal: &crate::world::Removal,
    ) -> Result<(), SolverError> {
        match self {
            Self::Cpu(s) => Ok(s.apply_removal(world, removal)?),
            Self::Gpu { ctx, solver } => solver
                .apply_removal(&ctx.device, &ctx.queue, world, removal)
                .map(|_| ()),
        }
    }

    /// Queues a command for the start of the next step ([`crate::commands`]).
    pub fn queue(&mut self, command: crate::commands::Command) -> Result<(), SolverError> {
        match self {
            Self::Cpu(s) => Ok(s.queue(command)?),
            Self::Gpu { ctx, solver } => solver.queue(&ctx.queue, command),
        }
    }

    /// The packed world being stepped.
    pub fn packed(&self) -> &Packed {
        match self {
            Self::Cpu(s) => s.packed(),
            Self::Gpu { solver, .. } => solver.packed(),
        }
    }

    /// The scene's fingerprint ([`scene_hash`](crate::pack::scene_hash)).
    pub fn scene_hash(&self) -> u64 {
        match self {
            Self::Cpu(s) => s.scene_hash(),
            Self::Gpu { solver, .. } => solver.scene_hash(),
        }
    }

    /// Steps completed.
    pub fn steps(&self) -> u64 {
        match self {
            Self::Cpu(s) => s.steps(),
            Self::Gpu { solver, .. } => solver.steps(),
        }
    }
}
