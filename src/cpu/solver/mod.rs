//! The CPU reference solver: the stages in the GPU's order, on `Vec`s.

use glam::Vec2;

use super::broad_phase::{Grid, broad_phase};
use super::{body_collide, collide, impact, integrate, rods, shape_match, sleep, springs, v2};
use crate::error::WorldError;
use crate::layout::{BodyFrame, ContactHit, PointInfo, SleepPoint};
use crate::pack::{Packed, check_state};
use crate::params::Params;
use crate::world::World;

mod edit;

/// The body-contact stages' state, sized once per world (nothing is
/// allocated per substep): bounding boxes, the grid, each point's contact,
/// the contact counts and fixed-point accumulators (zero between
/// substeps), and per-point scratch.
#[derive(Clone, Debug, Default)]
pub(super) struct Contacts {
    aabbs: Vec<[f32; 4]>,
    grid: Grid,
    hits: Vec<ContactHit>,
    counts: Vec<u32>,
    acc: Vec<[i32; 4]>,
    free: Vec<u32>,
    scratch: body_collide::ResolveScratch,
    /// Each point's warm-starting state, carried from substep to substep.
    warm: Vec<body_collide::Warm>,
    /// Each body's partings of tangled pairs, scratch.
    partings: Vec<[Option<body_collide::untangle::Parting>; 2]>,
    /// Every body's tangles this step, as the GPU holds them.
    tangles: body_collide::TangleWords,
}

impl Contacts {
    pub(super) fn new(packed: &Packed) -> Self {
        let n = packed.pos.len();
        Self {
            aabbs: vec![[0.0; 4]; packed.bodies.len()],
            grid: Grid::new(packed),
            hits: vec![ContactHit::NONE; n],
            counts: vec![0; n],
            acc: vec![[0; 4]; n],
            free: vec![0; n],
            scratch: body_collide::ResolveScratch::new(n),
            warm: vec![[0; 4]; n],
            partings: Vec::with_capacity(packed.bodies.len()),
            tangles: body_collide::TangleWords::new(packed.bodies.len()),
        }
    }
}

/// The impact stage's state (`shaders/impact.wgsl`'s buffers): per body
/// the impact count and fixed-point velocity change.
#[derive(Clone, Debug, Default)]
pub(super) struct Impacts {
    counts: Vec<u32>,
    acc: Vec<[i32; 2]>,
}

impl Impacts {
    pub(super) fn new(packed: &Packed) -> Self {
        let nb = packed.bodies.len();
        Self {
            counts: vec![0; nb],
            acc: vec![[0; 2]; nb],
        }
    }
}

/// Sleeping's state (`shaders/sleep.wgsl`'s buffers): each point's
/// assembly and own inverse mass, and per assembly root the largest
/// squared speed of the step (as bits) and the steps at rest.
#[derive(Clone, Debug, Default)]
pub(super) struct Sleep {
    points: Vec<SleepPoint>,
    /// Each point's position at the last measure (or wake).
    last: Vec<[f32; 2]>,
    speed: Vec<u32>,
    rest_steps: Vec<u32>,
}

impl Sleep {
    pub(super) fn new(packed: &Packed) -> Self {
        let n = packed.pos.len();
        Self {
            points: packed.sleep_points(),
            last: packed.pos.clone(),
            speed: vec![0; n],
            rest_steps: vec![0; n],
        }
    }
}

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
    steps: u64,
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

/// What the body-contact kernels read, from the packed world and the
/// contact stages' bounding boxes and grid.
fn bindings<'a>(
    p: &'a Packed,
    info: &'a [PointInfo],
    rest_steps: &'a [u32],
    aabbs: &'a [[f32; 4]],
    grid: &'a Grid,
    tangles: &'a body_collide::TangleWords,
) -> body_collide::Bindings<'a> {
    body_collide::Bindings {
        sim: &p.sim,
        info,
        pos: &p.pos,
        vel: &p.vel,
        contact_points: &p.contact_points,
        outlines: &p.outlines,
        outline_points: &p.outline_points,
        filters: &p.contact_filters,
        colliders: &p.colliders,
        aabbs,
        grid,
        rest_steps,
        tangles,
    }
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
        Ok(Self {
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
            packed,
            steps: 0,
            parallel: false,
            spread: false,
            resolved: world.params.clone(),
            generation: world.generation(),
        })
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

    /// Each point's warm-starting state (`cpu::body_collide::Warm`; zero
    /// after [`set_state`](Self::set_state)): what a checkpoint keeps of
    /// the contacts, so that a resumed run warm-starts as the run in one
    /// go (docs/physics.md, "Warm starting").
    pub fn warm_starts(&self) -> &[[u32; 4]] {
        &self.contacts.warm
    }

    /// Tangle recovery's state, as the GPU holds it
    /// ([`TangleWords`](crate::cpu::body_collide::TangleWords);
    /// docs/physics.md, "Tangle recovery"). What a checkpoint keeps of it,
    /// so that a pair held apart at the save is held after a resume.
    pub fn tangles(&self) -> Vec<[u32; 8]> {
        self.contacts.tangles.words()
    }

    /// Restores [`tangles`](Self::tangles) (from a checkpoint). Refuses
    /// another count than the bodies', other bodies out of range and
    /// directions that are not finite.
    pub fn set_tangles(&mut self, tangles: &[[u32; 8]]) -> Result<(), WorldError> {
        crate::validate::check_tangles(self.packed.bodies.len(), tangles)?;
        self.contacts.tangles.set(tangles);
        Ok(())
    }

    /// Restores [`warm_starts`](Self::warm_starts) (from a checkpoint).
    /// Refuses another length than the points' and impulses that are not
    /// finite.
    pub fn set_warm_starts(&mut self, warm: &[[u32; 4]]) -> Result<(), WorldError> {
        crate::validate::check_warm_starts(self.packed.pos.len(), warm)?;
        self.contacts.warm.copy_from_slice(warm);
        Ok(())
    }

    /// One step: `substeps` substeps, then sleeping (when on).
    pub fn step(&mut self) {
        self.spread = self.parallel && sleep::awake_points(&self.info) >= super::MIN_PARALLEL_ITEMS;
        for k in 0..self.params.substeps {
            self.substep_in(k == 0);
        }
        if self.packed.sim.sleep_steps > 0 {
            self.stage_sleep();
        }
        self.steps = self.steps.saturating_add(1);
    }

    /// Stage 6 alone: sleeping's measure, update and settle.
    pub fn stage_sleep(&mut self) {
        let sim = &self.packed.sim;
        let s = &mut self.sleep;
        sleep::measure(sim, &self.packed.pos, &s.points, &s.last, &mut s.speed);
        sleep::update(sim, &s.points, &mut s.speed, &mut s.rest_steps);
        sleep::settle(
            sim,
            &s.points,
            &s.rest_steps,
            &mut self.info,
            &self.packed.pos,
            &mut self.packed.vel,
            &mut s.last,
        );
    }

    /// Wakes every point: each gets its inverse mass back and every
    /// assembly starts counting its rest again. Edits, `set_state` and a
    /// change of parameters do this themselves.
    pub fn wake(&mut self) {
        let s = &mut self.sleep;
        sleep::wake(
            &self.packed.sim,
            &self.packed.pos,
            &s.points,
            &mut self.info,
            &mut s.last,
            &mut s.speed,
            &mut s.rest_steps,
        );
    }

    /// Wakes `point`'s assembly from the next step on (its points move
    /// again after the step that follows, as on the GPU, where only the
    /// assembly's counter is written). A handle out of range does nothing.
    pub fn wake_point(&mut self, point: crate::world::PointHandle) {
        if let Some(sp) = self.sleep.points.get(point.index()) {
            self.sleep.rest_steps[sp.group as usize] = 0;
        }
    }

    /// Steps each assembly has stayed at rest, indexed by its root point
    /// (0 at the other points): what a checkpoint keeps of sleeping.
    pub fn rest_steps(&self) -> &[u32] {
        &self.sleep.rest_steps
    }

    /// Each point's sleep anchor: where it was when its assembly's count of
    /// steps at rest last reached a multiple of
    /// [`SLEEP_WINDOW`](crate::layout::SLEEP_WINDOW), or when it was woken
    /// (docs/physics.md, "Sleeping"). What a checkpoint keeps of sleeping
    /// besides [`rest_steps`](Self::rest_steps).
    pub fn sleep_anchors(&self) -> &[[f32; 2]] {
        &self.sleep.last
    }

    /// Restores [`sleep_anchors`](Self::sleep_anchors) (from a checkpoint,
    /// after [`set_rest_steps`](Self::set_rest_steps)). Refuses a slice of
    /// another length than the points', or a position that is not finite or
    /// out of the state's range.
    pub fn set_sleep_anchors(&mut self, anchors: &[[f32; 2]]) -> Result<(), WorldError> {
        crate::validate::check_sleep_anchors(self.packed.pos.len(), anchors)?;
        self.sleep.last.copy_from_slice(anchors);
        Ok(())
    }

    /// Restores [`rest_steps`](Self::rest_steps) (from a checkpoint):
    /// assemblies at rest long enough sleep at once. Refuses a slice of
    /// another length than the points'.
    pub fn set_rest_steps(&mut self, steps: &[u32]) -> Result<(), WorldError> {
        crate::validate::check_rest_steps(self.packed.pos.len(), steps)?;
        self.sleep.rest_steps.copy_from_slice(steps);
        let s = &mut self.sleep;
        sleep::settle(
            &self.packed.sim,
            &s.points,
            &s.rest_steps,
            &mut self.info,
            &self.packed.pos,
            &mut self.packed.vel,
            &mut s.last,
        );
        Ok(())
    }

    /// The points the last substep's first narrow phase did not find quiet,
    /// in ascending order ([`body_collide::activate`]; empty in a world
    /// without contacts).
    pub fn active_points(&self) -> Vec<u32> {
        body_collide::activate(&self.contacts.hits)
    }

    /// Points asleep now (pinned points not counted).
    pub fn sleeping_points(&self) -> usize {
        sleep::sleeping_points(&self.info, &self.packed.point_info)
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
        self.stage_springs();
        self.stage_shape_match();
        self.stage_integrate();
        self.stage_collide();
        if self.has_contacts() {
            self.stage_broad_phase();
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

    /// Rod iterations per substep (zero when the world has no rods).
    pub fn rod_passes(&self) -> u32 {
        if self.packed.num_rods == 0 {
            0
        } else {
            self.params.rod_iterations
        }
    }

    /// Stage 5c alone: the body impacts of the last narrow phase act on
    /// whole bodies (half-plane and planet impacts are part of shape
    /// matching's frames).
    pub fn stage_impact(&mut self) {
        if self.packed.bodies.is_empty() || !self.has_contacts() {
            return;
        }
        let im = &mut self.impacts;
        {
            let p = &self.packed;
            let c = &self.contacts;
            let contacts = bindings(
                p,
                &self.info,
                &self.sleep.rest_steps,
                &c.aabbs,
                &c.grid,
                &c.tangles,
            );
            let bind = impact::ImpactBindings {
                sim: &p.sim,
                info: &self.info,
                home: &p.impact_home,
                inv_mass: &p.impact_inv_mass,
                frames: &self.frames,
                contacts: &contacts,
                hits: &c.hits,
            };
            impact::count(&bind, &mut im.counts, &mut self.sleep.speed);
            impact::resolve(&bind, &im.counts, &mut im.acc);
        }
        let p = &mut self.packed;
        impact::apply(
            &p.sim,
            &self.info,
            &p.bodies,
            &p.members,
            &mut im.counts,
            &mut im.acc,
            &mut p.vel,
        );
    }

    /// Stage 5b's first narrow phase of a substep: each point's deepest
    /// body contact and the contact counts, against the grid of the last
    /// broad phase, then the warm start of the contacts that persist
    /// (applied, the counts kept).
    pub fn stage_narrow(&mut self) {
        self.narrow(true);
    }

    /// A narrow phase; with `first`, the substep's first, which warm-starts.
    fn narrow(&mut self, first: bool) {
        let p = &mut self.packed;
        let c = &mut self.contacts;
        let bind = bindings(
            p,
            &self.info,
            &self.sleep.rest_steps,
            &c.aabbs,
            &c.grid,
            &c.tangles,
        );
        body_collide::narrow(&bind, &mut c.hits, &mut c.free, &mut c.counts, self.spread);
        if !first {
            return;
        }
        body_collide::warm_start(
            &bind,
            &c.hits,
            &mut c.warm,
            &mut c.scratch,
            &mut c.acc,
            self.spread,
        );
        body_collide::apply(
            &p.sim,
            &mut c.acc,
            &mut c.counts,
            true,
            &mut p.pos,
            &mut p.vel,
        );
    }

    /// Stage 5b's resolve and apply alone, over the contacts of the last
    /// narrow phase.
    pub fn stage_resolve(&mut self) {
        let p = &mut self.packed;
        let c = &mut self.contacts;
        let bind = bindings(
            p,
            &self.info,
            &self.sleep.rest_steps,
            &c.aabbs,
            &c.grid,
            &c.tangles,
        );
        let speed = &mut self.sleep.speed;
        body_collide::resolve(
            &bind,
            &c.hits,
            &c.counts,
            &mut c.warm,
            &mut c.scratch,
            &mut c.acc,
            speed,
            false,
            self.spread,
        );
        body_collide::apply(
            &p.sim,
            &mut c.acc,
            &mut c.counts,
            false,
            &mut p.pos,
            &mut p.vel,
        );
    }

    /// Stage 5b's tangle recovery, once per step after the first substep's
    /// broad phase: each body whose outline's centre is inside another
    /// body's outline is tangled with it for the step, and the pair is
    /// given the parting speed it lacks (docs/physics.md, "Tangle
    /// recovery").
    pub fn stage_untangle(&mut self) {
        if self.packed.bodies.is_empty() || !self.has_contacts() {
            return;
        }
        let p = &mut self.packed;
        let c = &mut self.contacts;
        let bind = bindings(
            p,
            &self.info,
            &self.sleep.rest_steps,
            &c.aabbs,
            &c.grid,
            &c.tangles,
        );
        body_collide::untangle(
            &bind,
            &mut c.acc,
            &mut self.sleep.speed,
            &mut c.partings,
            self.spread,
        );
        body_collide::apply(
            &p.sim,
            &mut c.acc,
            &mut c.counts,
            false,
            &mut p.pos,
            &mut p.vel,
        );
    }

    /// Whether substeps run the body-contact stages: body collisions are on
    /// and some body outline or free disk can be hit.
    pub fn has_contacts(&self) -> bool {
        self.params.body_collisions && self.packed.has_contacts()
    }

    /// The collision grid as of the last broad phase.
    pub fn grid(&self) -> &Grid {
        &self.contacts.grid
    }

    /// Each body's bounding box `[min x, min y, max x, max y]` as of the
    /// last broad phase (colliding bodies only).
    pub fn aabbs(&self) -> &[[f32; 4]] {
        &self.contacts.aabbs
    }

    /// Stage 5a alone: the collision grid from the current positions.
    pub fn stage_broad_phase(&mut self) {
        let p = &self.packed;
        broad_phase(
            &p.sim,
            &p.pos,
            &p.outlines,
            &p.outline_points,
            &p.colliders,
            &self.sleep.rest_steps,
            &mut self.contacts.aabbs,
            &mut self.contacts.grid,
            self.spread,
        );
    }

    /// Stage 5b alone: body contacts against the grid of the last broad
    /// phase, added to the state.
    pub fn stage_body_collide(&mut self) {
        self.narrow(false);
        self.stage_resolve();
    }

    /// Stage 5c alone: one relax pass over the contacts the last narrow
    /// phase stored (their velocity part again, no push).
    pub fn stage_contact_relax(&mut self) {
        let p = &mut self.packed;
        let Contacts {
            aabbs,
            grid,
            hits,
            counts,
            acc,
            scratch,
            warm,
            tangles,
            ..
        } = &mut self.contacts;
        let bind = bindings(p, &self.info, &self.sleep.rest_steps, aabbs, grid, tangles);
        body_collide::recount(&bind, hits, counts);
        let speed = &mut self.sleep.speed;
        body_collide::resolve(
            &bind,
            hits,
            counts,
            warm,
            scratch,
            acc,
            speed,
            true,
            self.spread,
        );
        body_collide::apply(&p.sim, acc, counts, false, &mut p.pos, &mut p.vel);
    }

    fn swap(&mut self) {
        std::mem::swap(&mut self.packed.pos, &mut self.pos_tmp);
        std::mem::swap(&mut self.packed.vel, &mut self.vel_tmp);
    }

    /// Stage 1 alone.
    pub fn stage_integrate(&mut self) {
        let p = &mut self.packed;
        integrate(&p.sim, &self.info, &mut p.pos, &mut p.vel, self.spread);
    }

    /// Stage 2 alone.
    pub fn stage_collide(&mut self) {
        let p = &mut self.packed;
        collide(
            &p.sim,
            &self.info,
            &p.materials,
            &p.planets,
            &p.planes,
            &mut p.pos,
            &mut p.vel,
            self.spread,
        );
    }

    /// Stage 3a alone.
    pub fn stage_springs(&mut self) {
        let p = &self.packed;
        springs(
            &p.sim,
            &self.info,
            &p.spring_halves,
            &p.pos,
            &p.vel,
            &mut self.pos_tmp,
            &mut self.vel_tmp,
            self.spread,
        );
        self.swap();
    }

    /// Stage 3b alone: one rod iteration.
    pub fn stage_rods(&mut self) {
        let p = &self.packed;
        rods(
            &p.sim,
            &self.info,
            &p.rod_halves,
            &p.pos,
            &p.vel,
            &mut self.pos_tmp,
            &mut self.vel_tmp,
            self.spread,
        );
        self.swap();
    }

    /// Stage 4 alone: body frames, the half-plane and planet impacts of the
    /// bodies they list, then the per-point gather (in place).
    pub fn stage_shape_match(&mut self) {
        let p = &mut self.packed;
        shape_match::frames(
            &p.sim,
            &p.bodies,
            &p.members,
            &p.pos,
            &p.vel,
            &mut self.frames,
            &mut self.dilation,
            &mut self.inflation_now,
            self.spread,
        );
        let colliders = shape_match::Colliders {
            info: &self.info,
            materials: &p.materials,
            planets: &p.planets,
            planes: &p.planes,
        };
        shape_match::list_plane_impacts(&p.sim, &p.bodies, &self.frames, &mut self.plane_impacts);
        shape_match::plane_impacts(
            &p.sim,
            &colliders,
            &p.bodies,
            &p.members,
            &self.plane_impacts,
            &p.pos,
            &mut p.vel,
            &mut self.frames,
        );
        shape_match::apply(
            &p.sim,
            &self.info,
            &p.point_members,
            &self.frames,
            &self.dilation,
            &p.pos,
            &mut p.vel,
            self.spread,
        );
    }
}
