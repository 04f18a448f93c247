//! The body-contact stages of the CPU solver (broad phase, narrow phase,
//! impacts, resolve, relax, tangle recovery) and the state they keep.

use super::CpuSolver;
use crate::cpu::broad_phase::{Grid, broad_phase};
use crate::cpu::{body_collide, impact};
use crate::error::WorldError;
use crate::layout::{ContactHit, PointInfo};
use crate::pack::Packed;
use crate::world::Remap;

/// The body-contact stages' state, sized once per world (nothing is
/// allocated per substep): bounding boxes, the grid, each point's contact,
/// the contact counts and fixed-point accumulators (zero between
/// substeps), and per-point scratch.
#[derive(Clone, Debug, Default)]
pub(super) struct Contacts {
    pub(super) aabbs: Vec<[f32; 4]>,
    grid: Grid,
    pub(super) hits: Vec<ContactHit>,
    /// Each point's last contact of the step with a body, `[body + 1,
    /// edge]` (`[0, 0]`: none), which contact events read and clear (WGSL
    /// `touched`).
    pub(super) touched: Vec<[u32; 2]>,
    counts: Vec<u32>,
    acc: Vec<[i32; 4]>,
    free: Vec<u32>,
    scratch: body_collide::ResolveScratch,
    /// Each point's warm-starting state, carried from substep to substep.
    pub(super) warm: Vec<body_collide::Warm>,
    /// Each body's partings of tangled pairs, scratch.
    partings: Vec<[Option<body_collide::untangle::Parting>; 2]>,
    /// Every body's tangles this step, as the GPU holds them.
    pub(super) tangles: body_collide::TangleWords,
    /// Whether the last substep's broad phase built the grid (false: it
    /// kept the last build, WGSL `clear_if_moved` and `open`).
    pub(super) built: bool,
}

impl Contacts {
    /// What [`Contacts::new`] makes, in the allocations it has.
    pub(super) fn reset(&mut self, packed: &Packed) {
        let (n, nb) = (packed.pos.len(), packed.bodies.len());
        fn fill<T: Clone>(v: &mut Vec<T>, n: usize, x: T) {
            v.clear();
            v.resize(n, x);
        }
        fill(&mut self.aabbs, nb, [0.0; 4]);
        self.grid.resize(packed);
        fill(&mut self.hits, n, ContactHit::NONE);
        fill(&mut self.touched, n, [0; 2]);
        fill(&mut self.counts, n, 0);
        fill(&mut self.acc, n, [0; 4]);
        fill(&mut self.free, n, 0);
        self.scratch.reset(n);
        fill(&mut self.warm, n, [0; 4]);
        self.partings.clear();
        self.tangles.reset(nb);
        self.built = false;
    }

    /// After a removal (`points`, `bodies`: its old-to-new maps), in
    /// contacts made afresh for the new world: `warm` and `tangles`, the
    /// old points' warm starts and the old bodies' tangles, for what was
    /// kept under its new index (`remap_warm`, `remap_tangle`), so that a
    /// removal leaves the contacts of what is left as they were (GPU:
    /// `remap_contacts.wgsl`).
    pub(super) fn remap(
        &mut self,
        packed: &Packed,
        (warm, tangles): (&[body_collide::Warm], &body_collide::TangleWords),
        points: &Remap,
        bodies: &Remap,
    ) {
        for (i, w) in warm.iter().enumerate() {
            if let Some(to) = points
                .get(i as u32)
                .and_then(|n| self.warm.get_mut(n as usize))
            {
                *to = body_collide::remap_warm(w, bodies);
            }
        }
        self.tangles.remap_from(tangles, bodies, &packed.outlines);
    }

    /// After a removal that kept the packed points as a prefix (`points`,
    /// `bodies`: its old-to-new maps), in place: what
    /// [`reset`](Self::reset) then [`remap`](Self::remap) make, without
    /// allocating per point. The warm starts move with their points and
    /// name the bodies' new indices, the tangles are renumbered, the
    /// counts and accumulators (zero between substeps) and the arrays a
    /// substep writes before it reads them are cut to the new counts.
    pub(super) fn follow_removal(&mut self, packed: &Packed, points: &Remap, bodies: &Remap) {
        let (n, nb) = (packed.pos.len(), packed.bodies.len());
        self.aabbs.resize(nb, [0.0; 4]);
        self.grid.resize(packed);
        self.hits.truncate(n);
        // Zero between steps for every point in a body (the events stage
        // takes them), and never read for the others: moved, not cleared.
        points.apply_in_place(&mut self.touched);
        self.counts.truncate(n);
        self.acc.truncate(n);
        self.free.truncate(n);
        self.scratch.extend(n);
        points.apply_in_place(&mut self.warm);
        // Only a warm start naming a body at or past the first changed
        // index is renamed (`u32::MAX`, no body, stays).
        let first = bodies.first_changed();
        let changed = |b: u32| b >= first && b != u32::MAX;
        for w in self
            .warm
            .iter_mut()
            .filter(|w| changed(w[0]) || changed(w[1]))
        {
            *w = body_collide::remap_warm(w, bodies);
        }
        self.partings.clear();
        self.tangles.follow_removal(bodies, &packed.outlines);
        self.built = false;
    }

    /// After an append that linked no earlier point: the arrays grown to
    /// the new points and bodies, what the old ones hold kept, so that the
    /// edit costs in proportion to what it adds. The warm starts and
    /// tangles carry from step to step (so a spawn leaves the contacts of
    /// what was there as they were); the counts and accumulators are zero
    /// between substeps (`apply` clears them); every other array is
    /// written in a substep before it is read (the grid by the step's
    /// first broad phase, which builds it whole).
    pub(super) fn extend(&mut self, packed: &Packed) {
        let (n, nb) = (packed.pos.len(), packed.bodies.len());
        self.aabbs.resize(nb, [0.0; 4]);
        self.grid.resize(packed);
        self.hits.resize(n, ContactHit::NONE);
        self.touched.resize(n, [0; 2]);
        self.counts.resize(n, 0);
        self.acc.resize(n, [0; 4]);
        self.free.resize(n, 0);
        self.scratch.extend(n);
        self.warm.resize(n, [0; 4]);
        self.tangles.extend(nb);
    }

    pub(super) fn new(packed: &Packed) -> Self {
        let n = packed.pos.len();
        Self {
            aabbs: vec![[0.0; 4]; packed.bodies.len()],
            grid: Grid::new(packed),
            hits: vec![ContactHit::NONE; n],
            touched: vec![[0; 2]; n],
            counts: vec![0; n],
            acc: vec![[0; 4]; n],
            free: vec![0; n],
            scratch: body_collide::ResolveScratch::new(n),
            warm: vec![[0; 4]; n],
            partings: Vec::with_capacity(packed.bodies.len()),
            tangles: body_collide::TangleWords::new(packed.bodies.len()),
            built: false,
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
    /// Zeroed, for `nb` bodies, in the allocations it has.
    pub(super) fn reset(&mut self, nb: usize) {
        // Zero between substeps (`apply` leaves them so): cut or grown,
        // not cleared.
        self.counts.truncate(nb);
        self.acc.truncate(nb);
        self.extend(nb);
    }

    /// Grown to `nb` bodies, what it holds kept: zero, as `apply` leaves
    /// every count and accumulator after a substep.
    pub(super) fn extend(&mut self, nb: usize) {
        self.counts.resize(nb, 0);
        self.acc.resize(nb, [0; 2]);
    }

    pub(super) fn new(packed: &Packed) -> Self {
        let nb = packed.bodies.len();
        Self {
            counts: vec![0; nb],
            acc: vec![[0; 2]; nb],
        }
    }
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
        masses: &p.point_info,
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
    /// Turns contact events on (nobody touching yet) or off (the log is
    /// dropped): which pairs of bodies began and ended touching, once a
    /// step ([`crate::events`]).
    pub fn set_contact_events(&mut self, on: bool) {
        self.events = on.then(|| crate::cpu::events::EventState::new(self.packed.bodies.len()));
        self.contacts.touched.fill([0; 2]);
    }

    /// The contact events since the last collection, sorted, and how many
    /// were lost; the log is emptied. Empty when events are off.
    pub fn take_contact_events(&mut self) -> crate::events::ContactEvents {
        match &mut self.events {
            Some(s) => {
                let raw = std::mem::take(&mut s.events);
                let lost = std::mem::take(&mut s.lost);
                let p = &self.packed;
                let colliders = (p.planets.len() as u32, p.planes.len() as u32);
                crate::events::collect(&raw, lost, colliders)
            }
            None => Default::default(),
        }
    }

    /// The state the step starts with, for contact events' approach
    /// speeds and landings within a step (WGSL `snapshot`), when on and body contacts run;
    /// [`step`](Self::step) runs it after the commands.
    pub fn stage_event_snapshot(&mut self) {
        if !self.has_contacts() {
            return;
        }
        if let Some(state) = &mut self.events {
            state.snapshot(&self.packed.pos, &self.packed.vel);
        }
    }

    /// The step's contact events (`cpu::events`), when on and body
    /// contacts run; [`step`](Self::step) runs it after the substeps.
    pub fn stage_events(&mut self) {
        if !self.has_contacts() {
            return;
        }
        let Some(state) = &mut self.events else {
            return;
        };
        let p = &self.packed;
        let mut inputs = crate::cpu::events::Inputs {
            sim: &p.sim,
            pos: &p.pos,
            info: &self.info,
            touched: &mut self.contacts.touched,
            members: &p.point_members,
            outlines: &p.outlines,
            outline_points: &p.outline_points,
            colliders: crate::cpu::collide::Colliders {
                planets: &p.planets,
                planes: &p.planes,
            },
            terrain: &p.terrain,
            aabbs: &self.contacts.aabbs,
        };
        crate::cpu::events::step(&mut inputs, state, (self.steps % 2) as usize);
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

    /// The points the last substep's first narrow phase did not find quiet,
    /// in ascending order ([`body_collide::activate`]; empty in a world
    /// without contacts).
    pub fn active_points(&self) -> Vec<u32> {
        body_collide::activate(&self.contacts.hits)
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
                pos: &p.pos,
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
        if self.events.is_some() {
            body_collide::note_touched(&c.hits, &mut c.touched);
        }
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
            &c.warm,
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

    /// The collision grid as of the last broad phase.
    pub fn grid(&self) -> &Grid {
        &self.contacts.grid
    }

    /// Each body's bounding box `[min x, min y, max x, max y]` as of the
    /// last broad phase (colliding bodies only).
    pub fn aabbs(&self) -> &[[f32; 4]] {
        &self.contacts.aabbs
    }

    /// Stage 5a alone: the collision grid from the current positions,
    /// built.
    pub fn stage_broad_phase(&mut self) {
        self.broad_phase(true);
    }

    /// Stage 5a as a step's later substeps run it: the boxes from the
    /// current positions, and the grid built only where some collider
    /// entered other cells, woke or fell asleep since the last build
    /// (WGSL `open`; [`grid_built`](Self::grid_built) says which).
    pub fn stage_broad_phase_if_changed(&mut self) {
        self.broad_phase(false);
    }

    /// Stage 5a: the boxes from the current positions, and the grid built
    /// where `force` or some collider's cells changed (WGSL `open`).
    pub(super) fn broad_phase(&mut self, force: bool) {
        let p = &self.packed;
        self.contacts.built = broad_phase(
            &p.sim,
            &p.pos,
            &p.outlines,
            &p.outline_points,
            &p.colliders,
            &self.sleep.rest_steps,
            &mut self.contacts.aabbs,
            &mut self.contacts.grid,
            self.spread,
            force,
        );
    }

    /// Whether the last substep's broad phase built the grid (`false`: a
    /// substep after a step's first kept the last build, where no point
    /// may move or no collider changed its cells, as WGSL
    /// `clear_if_moved` and `open` do); `None` without body contacts.
    /// The GPU's: [`GpuSolver::read_grid_built`](crate::gpu::GpuSolver::read_grid_built).
    pub fn grid_built(&self) -> Option<bool> {
        self.has_contacts().then_some(self.contacts.built)
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
}
