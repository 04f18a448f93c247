//! The CPU reference solver: the stages in the GPU's order, on `Vec`s.

use glam::Vec2;

use super::{integrate, sleep, v2};
use crate::error::WorldError;
use crate::layout::{BodyFrame, PointInfo};
use crate::pack::{Packed, check_state};
use crate::params::Params;
use crate::world::World;

mod commands;
mod contacts;
mod edit;
mod query;
mod sleeping;
mod stages;
use contacts::{Contacts, Impacts};
use sleeping::Sleep;

/// Steps a world on the CPU, stage by stage, exactly as the GPU does.
///
/// ```
/// use softbody::prelude::*;
///
/// let mut world = World::default();
/// world.add_plane(HalfPlane::floor(0.0))?;
/// let ball = Blob::new(Vec2::new(0.0, 2.0), 0.3, 12).build(&mut world)?;
/// let mut solver = CpuSolver::new(&world)?;
/// for _ in 0..120 {
///     solver.step(); // 2 s
/// }
/// let y = solver.positions()[ball.points[0].index()][1];
/// assert!(y > 0.0 && y < 1.0, "it fell and rests on the floor");
/// # Ok::<(), WorldError>(())
/// ```
#[derive(Clone, Debug)]
pub struct CpuSolver {
    params: Params,
    packed: Packed,
    pos_tmp: Vec<[f32; 2]>,
    vel_tmp: Vec<[f32; 2]>,
    frames: Vec<BodyFrame>,
    /// Each body's area dilation rate, beside its frame.
    dilation: Vec<f32>,
    /// Each body's inflation its area term aimed at in the last substep
    /// (`shape_match::ramp_inflation`).
    inflation_now: Vec<f32>,
    /// The bodies listed for half-plane and planet impacts in the last
    /// shape matching (transient: kept for its allocation).
    plane_impacts: Vec<u32>,
    contacts: Contacts,
    impacts: Impacts,
    /// The point info the stages read: the packed one, with inverse mass 0
    /// for sleeping points.
    info: Vec<PointInfo>,
    sleep: Sleep,
    /// Commands queued for the next step ([`queue`](Self::queue)).
    commands: Vec<crate::layout::Command>,
    /// The joints (motors and angle limits) queued for this step, by
    /// colour, solved at the start of each of its substeps, and where each
    /// colour starts in them (then the end).
    joints: (Vec<crate::layout::Command>, Vec<u32>),
    /// Contact events, when on ([`set_contact_events`](Self::set_contact_events)).
    events: Option<crate::cpu::events::EventState>,
    steps: u64,
    /// The substeps run (wrapping), which pose moving colliders
    /// ([`move_colliders`](crate::cpu::move_colliders)).
    clock: u32,
    /// Whether a planet or half-plane moves: each substep then starts by
    /// posing them.
    moving: bool,
    /// The user's choice: stages may use all threads.
    parallel: bool,
    /// Whether the stages of this step use all threads: `parallel`, and
    /// at least [`MIN_PARALLEL_ITEMS`](super::MIN_PARALLEL_ITEMS) points
    /// awake, decided at the start of each step. A pile that has gone to
    /// sleep leaves each stage too little work to share out: a fork and
    /// join then costs more than the work.
    spread: bool,
    /// The parameters the items' defaults were resolved with.
    resolved: Params,
    /// The world generation (removal count) followed.
    generation: u64,
}

impl CpuSolver {
    /// A solver for a world; fails if the world's parameters are invalid.
    pub fn new(world: &World) -> Result<Self, WorldError> {
        let packed = Packed::from_world(world)?;
        let stability = packed.stability(world.params.h());
        stability.check()?;
        for w in stability.warnings() {
            log::warn!("{w}");
        }
        let n = packed.pos.len();
        let mut solver = Self {
            params: world.params.clone(),
            pos_tmp: vec![[0.0; 2]; n],
            vel_tmp: vec![[0.0; 2]; n],
            frames: vec![BodyFrame::default(); packed.bodies.len()],
            dilation: vec![0.0; packed.bodies.len()],
            inflation_now: packed.inflations(),
            plane_impacts: Vec::new(),
            contacts: Contacts::new(&packed),
            impacts: Impacts::new(&packed),
            info: packed.point_info.clone(),
            sleep: Sleep::new(&packed),
            commands: Vec::new(),
            joints: (Vec::new(), Vec::new()),
            events: None,
            packed,
            steps: 0,
            clock: 0,
            moving: false,
            parallel: false,
            spread: false,
            resolved: world.params.clone(),
            generation: world.generation(),
        };
        solver.pose_colliders();
        Ok(solver)
    }

    /// Runs every stage on all cores (with the `parallel` feature; on one
    /// thread without it). The results are bitwise identical either way.
    #[must_use]
    pub fn parallel(mut self, on: bool) -> Self {
        self.parallel = on;
        self.spread = on;
        self
    }

    /// Whether [`parallel`](Self::parallel) was asked for.
    pub fn is_parallel(&self) -> bool {
        self.parallel
    }

    /// Whether the stages run on all threads now: [`parallel`](Self::parallel)
    /// was asked for, and at the start of the last step (or since
    /// `parallel`) at least [`MIN_PARALLEL_ITEMS`](super::MIN_PARALLEL_ITEMS)
    /// points were awake. The results are the same either way.
    pub fn on_all_threads(&self) -> bool {
        self.spread
    }

    /// The flattened world being stepped (its `pos`/`vel` are the state).
    pub fn packed(&self) -> &Packed {
        &self.packed
    }

    /// The parameters in use.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Replaces the parameters (the world's items keep their resolved
    /// values). Refuses, with [`WorldError::NeedsSync`], the parameters
    /// packed into the contact data (see
    /// [`Packed::check_param_change`]): those go through `world.params`
    /// and [`sync`](Self::sync).
    pub fn set_params(&mut self, params: Params) -> Result<(), WorldError> {
        if self.packed.apply_params(&self.params, &params)?.any {
            self.wake();
        }
        self.params = params;
        self.pose_colliders();
        Ok(())
    }

    /// Steps completed (stays at `u64::MAX` once there, rather than wrap).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Positions, one per point.
    pub fn positions(&self) -> &[[f32; 2]] {
        &self.packed.pos
    }

    /// Velocities, one per point.
    pub fn velocities(&self) -> &[[f32; 2]] {
        &self.packed.vel
    }

    /// Positions as `Vec2`.
    pub fn positions_vec2(&self) -> Vec<Vec2> {
        self.packed.pos.iter().copied().map(v2).collect()
    }

    /// Velocities as `Vec2`.
    pub fn velocities_vec2(&self) -> Vec<Vec2> {
        self.packed.vel.iter().copied().map(v2).collect()
    }

    /// Each body's frame as of the last shape-matching stage.
    pub fn frames(&self) -> &[BodyFrame] {
        &self.frames
    }

    /// Overwrites the state (one entry per point, every one finite).
    pub fn set_state(&mut self, pos: &[[f32; 2]], vel: &[[f32; 2]]) -> Result<(), WorldError> {
        check_state(self.packed.pos.len(), pos, vel)?;
        self.packed.pos.copy_from_slice(pos);
        self.packed.vel.copy_from_slice(vel);
        self.contacts.warm.fill([0; 4]);
        // Tangle recovery's tangles are found again from the new positions
        // at the next step; a pair it was parting whose centres are out of
        // each other already is left to the contacts.
        self.contacts.tangles.clear();
        self.wake();
        Ok(())
    }

    /// One step: the queued commands (the joints at the start of each
    /// substep), `substeps` substeps, then sleeping (when on).
    pub fn step(&mut self) {
        self.take_commands(true);
        self.stage_event_snapshot();
        self.spread = self.parallel && sleep::awake_points(&self.info) >= super::MIN_PARALLEL_ITEMS;
        for k in 0..self.params.substeps {
            self.substep_in(k == 0);
        }
        self.joints.0.clear();
        self.joints.1.clear();
        self.stage_events();
        if self.packed.sim.sleep_steps > 0 {
            self.stage_sleep();
        }
        self.steps = self.steps.saturating_add(1);
    }

    /// One substep: the forces (springs, shape matching), then the motion
    /// (integrate), then the position constraints (collide; the body
    /// contacts: broad phase, `contact_iterations` narrow phases, then
    /// `contact_relax_iterations` relax passes; rods), so that the state a
    /// step ends with is the one the constraints left: a point resting on
    /// the floor reads zero velocity, a rod has its length.
    /// Tangle recovery ([`stage_untangle`](Self::stage_untangle)) runs in a
    /// step's first substep alone, so this one has none.
    pub fn substep(&mut self) {
        self.substep_in(false);
    }

    /// A substep; with `first`, a step's first, which untangles after its
    /// broad phase.
    fn substep_in(&mut self, first: bool) {
        self.stage_move_colliders();
        self.stage_wake_flagged();
        self.stage_move_bodies();
        self.stage_joints();
        self.stage_springs();
        self.stage_shape_match();
        self.stage_integrate();
        self.stage_collide();
        self.stage_terrain();
        if self.has_contacts() {
            // A substep after a step's first keeps the grid where no
            // point may have moved since the last build (WGSL
            // `clear_if_moved`), or no collider changed its cells (`open`):
            // a build would make the same.
            if first || self.may_move() {
                self.broad_phase(first);
            } else {
                self.contacts.built = false;
            }
            if first {
                self.stage_untangle();
            }
            for k in 0..self.params.contact_iterations {
                if k == 0 {
                    self.stage_narrow();
                    self.stage_impact();
                    self.stage_resolve();
                } else {
                    self.stage_body_collide();
                }
            }
            for _ in 0..self.params.contact_relax_iterations {
                self.stage_contact_relax();
            }
        }
        for _ in 0..self.rod_passes() {
            self.stage_rods();
        }
    }

    /// Whether some point may move in this substep (WGSL `may_move`, noted
    /// by the fused motion kernel): awake, or with a velocity.
    fn may_move(&self) -> bool {
        let vel = &self.packed.vel;
        self.info
            .iter()
            .zip(vel)
            .any(|(i, &v)| integrate::may_move(i.inv_mass, v))
    }

    /// Rod iterations per substep (zero when the world has no rods).
    pub fn rod_passes(&self) -> u32 {
        if self.packed.num_rods == 0 {
            0
        } else {
            self.params.rod_iterations
        }
    }

    /// Whether substeps run the body-contact stages: body collisions are on
    /// and some body outline or free disk can be hit.
    pub fn has_contacts(&self) -> bool {
        self.params.body_collisions && self.packed.has_contacts()
    }
}
