//! Changing the world while it runs on the CPU path: the same edits as the
//! GPU solver's (`gpu/solver/edit.rs`), on the packed arrays in place.

use crate::cpu::{move_colliders, sleep};
use glam::Vec2;

use super::CpuSolver;
use crate::error::{Item, WorldError};
use crate::layout::BodyFrame;
use crate::pack::{Changed, scene_hash};
use crate::world::{BodyHandle, PointHandle, Removal, World};

impl CpuSolver {
    /// Follows the items appended to `world` since the solver was built or
    /// last synced, and its parameters; the points it already had keep
    /// their state. See [`GpuSolver::sync`](crate::gpu::GpuSolver::sync).
    ///
    /// ```
    /// use softbody::prelude::*;
    ///
    /// let mut world = World::default();
    /// world.add_plane(HalfPlane::floor(0.0))?;
    /// BoxShape::new(Vec2::new(0.0, 1.0), Vec2::ONE).build(&mut world)?;
    /// let mut solver = CpuSolver::new(&world)?;
    /// solver.step();
    /// let rope = Rope::new(Vec2::new(2.0, 3.0), Vec2::new(4.0, 3.0), 5)
    ///     .pin_first(true)
    ///     .build(&mut world)?;
    /// solver.sync(&world)?;
    /// solver.move_pinned_point(rope.points[0], Vec2::new(2.0, 4.0))?;
    /// solver.step();
    /// assert_eq!(solver.positions()[rope.points[0].index()], [2.0, 4.0]);
    /// # Ok::<(), WorldError>(())
    /// ```
    pub fn sync(&mut self, world: &World) -> Result<(), WorldError> {
        let joints = self.packed.joints.clone();
        self.sync_items(world)?;
        for p in crate::commands::joints_to_wake(&self.packed, &joints) {
            self.wake_point(p);
        }
        Ok(())
    }

    /// [`CpuSolver::sync`] but the joints' wake.
    fn sync_items(&mut self, world: &World) -> Result<(), WorldError> {
        let from = self.packed.pos.len();
        // Items linking no earlier point, at the parameters the solver
        // steps and resolved its items with: packed alone, in place.
        let same = world.params == self.params && self.params == self.resolved;
        if same
            && self
                .packed
                .sync_in_place(self.generation, world, Some(&self.resolved))?
        {
            self.append_scratch(from);
            self.pose_colliders();
            return Ok(());
        }
        let new = self
            .packed
            .synced(self.generation, world, Some(&self.resolved))?;
        // Items only appended at the same parameters: what slept sleeps
        // on (`cpu::sleep::keeps_sleeping`), as on the GPU.
        let from = self.packed.pos.len();
        let keep = (world.params == self.params && sleep::keeps_sleeping(&self.packed, &new, from))
            .then(|| {
                (
                    std::mem::take(&mut self.sleep),
                    std::mem::take(&mut self.info),
                )
            });
        self.packed = new;
        self.follow_params(world);
        self.contacts.reset(&self.packed);
        self.resize_scratch(true, None);
        self.sleep = super::Sleep::new(&self.packed);
        if let Some((old_sleep, old_info)) = keep {
            self.keep_sleeping(old_sleep, old_info, from);
        }
        self.pose_colliders();
        Ok(())
    }

    /// Follows a removal made on `world`; see
    /// [`GpuSolver::apply_removal`](crate::gpu::GpuSolver::apply_removal).
    pub fn apply_removal(&mut self, world: &World, removal: &Removal) -> Result<(), WorldError> {
        // In place where it can (`Packed::removal_plan`), else a new
        // packed world; either way refused before anything changes.
        let resolved = Some(&self.resolved);
        let plan = (self.packed).removal_plan(self.generation, world, removal, resolved)?;
        let new = match plan {
            Some(_) => None,
            None => Some((self.packed).removed(self.generation, world, removal, resolved)?),
        };
        // At the same parameters, what sleeps sleeps on, but for what the
        // removal touched (`sleep::remap_supports`, `sleep::removal_sleep`).
        // Packed again (`Packed::follows_removal`): everything wakes.
        let follows = self.packed.follows_removal(removal);
        let kept = (world.params == self.params && world.params.sleep_steps() > 0 && follows)
            .then(|| self.sleep_through_removal(removal));
        // Followed in place with the contact data, as the GPU solver
        // follows it (`GpuSolver::apply_removal`): only the points whose
        // records it rewrote are settled, as there.
        let listed = matches!(&plan, Some(t) if t.follows_contacts()) && self.packed.has_contacts();
        let mut moved = None;
        let mut settle = None;
        if let Some(plan) = plan {
            let mut changed = match listed {
                true => Changed::points_only(),
                false => Changed::off(),
            };
            moved = (self.packed).follow_plan(world, removal, plan, &mut changed);
            settle = listed.then(|| changed.noted_points(self.packed.pos.len()));
        } else if let Some(new) = new {
            self.packed = new;
        }
        self.follow_params(world);
        self.generation = removal.generations().1;
        // The contacts' warm starts and tangles and the contact events'
        // pairs carry over, renumbered: moved in place when the removal
        // kept the packed points as a prefix.
        let events = self.events.take();
        let (points, bodies) = (removal.point_remap(), removal.body_remap());
        if follows {
            self.contacts.follow_removal(&self.packed, points, bodies);
            // What sleeps sleeps on: every point is settled below, which
            // sets each inverse mass, and the rest of each point's info
            // moved with it.
            self.resize_scratch(false, kept.is_some().then_some(points));
        } else {
            let warm = std::mem::take(&mut self.contacts.warm);
            let tangles = std::mem::take(&mut self.contacts.tangles);
            self.contacts.reset(&self.packed);
            self.resize_scratch(false, None);
            self.contacts
                .remap(&self.packed, (&warm, &tangles), points, bodies);
        }
        self.events = events.map(|mut e| {
            e.remap(points, bodies, self.packed.bodies.len());
            e
        });
        match kept {
            Some(old) => {
                self.keep_sleeping_after_removal(old, removal, moved.as_deref(), settle.as_deref())
            }
            None => self.sleep = super::Sleep::new(&self.packed),
        }
        // The stages' point info is the packed one but for inverse masses.
        debug_assert!(
            (self.info.iter().zip(&self.packed.point_info)).all(
                |(a, b)| crate::layout::PointInfo {
                    inv_mass: b.inv_mass,
                    ..*a
                } == *b
            )
        );
        self.pose_colliders();
        // Queued commands name points and bodies by the old indices.
        self.commands.clear();
        Ok(())
    }

    /// Moves a pinned point (mass 0) to `pos`; its velocity stays zero.
    pub fn move_pinned_point(&mut self, point: PointHandle, pos: Vec2) -> Result<(), WorldError> {
        let item = Item::Point(point.0);
        let info = self
            .packed
            .point_info
            .get(point.index())
            .ok_or(WorldError::UnknownHandle {
                item,
                len: self.packed.pos.len() as u32,
            })?;
        if info.inv_mass != 0.0 {
            return Err(WorldError::NotPinned {
                item,
                mass: 1.0 / info.inv_mass,
            });
        }
        crate::validate::check_position(item, "pos", pos)?;
        self.packed.pos[point.index()] = pos.to_array();
        self.wake_point(point);
        Ok(())
    }

    /// Sets body `body`'s inflation, target area over rest area (in
    /// [`MIN_INFLATION`](crate::layout::MIN_INFLATION)`..=`[`MAX_INFLATION`](crate::layout::MAX_INFLATION)),
    /// from the next step on, and wakes its assembly: a pressure body
    /// inflates or deflates. Set the world's too
    /// ([`World::set_inflation`]) for a removal or a saved scene to keep it.
    pub fn set_inflation(&mut self, body: BodyHandle, ratio: f32) -> Result<(), WorldError> {
        let point = self.packed.set_inflation(body, ratio)?;
        self.wake_point(point);
        Ok(())
    }

    /// Sets the number of steps taken, e.g. when resuming from a checkpoint.
    pub fn set_steps(&mut self, steps: u64) {
        self.steps = steps;
        self.pose_colliders();
    }

    /// Moving colliders at their poses at the start of step `steps`, and
    /// the clock that poses them in the substeps that follow.
    pub(super) fn pose_colliders(&mut self) {
        self.clock = move_colliders::clock_at(self.steps, self.params.substeps);
        let p = &mut self.packed;
        self.moving = p.planets.iter().any(|c| c.moves()) || p.planes.iter().any(|c| c.moves());
        move_colliders::move_colliders(&p.sim, self.clock, &mut p.planets, &mut p.planes);
    }

    /// The world generation (removal count) the solver follows.
    pub fn world_generation(&self) -> u64 {
        self.generation
    }

    /// [`scene_hash`] of what the solver steps, for checkpoints.
    pub fn scene_hash(&self) -> u64 {
        scene_hash(&self.packed, &self.params)
    }

    /// Takes `world`'s parameters after an edit, whose packed copy has
    /// its defaults resolved with them already.
    fn follow_params(&mut self, world: &World) {
        self.resolved = world.params.clone();
        self.params = world.params.clone();
        self.packed.set_sim(&self.params);
    }

    /// Scratch state and frames for points `from..` and the bodies
    /// appended with them, which link no earlier point: what sleeps sleeps
    /// on, and the new points start awake (as `keep_sleeping` leaves
    /// them). The rest is as [`resize_scratch`](Self::resize_scratch)
    /// leaves it.
    fn append_scratch(&mut self, from: usize) {
        let p = &self.packed;
        let (n, nb) = (p.pos.len(), p.bodies.len());
        self.pos_tmp.resize(n, [0.0; 2]);
        self.vel_tmp.resize(n, [0.0; 2]);
        self.contacts.extend(p);
        self.impacts.extend(nb);
        self.sleep.append(p, from);
        if let Some(e) = &mut self.events {
            e.extend(nb);
        }
        self.info.extend_from_slice(&p.point_info[from..]);
        self.frames.resize(nb, BodyFrame::default());
        self.dilation.resize(nb, 0.0);
        self.inflation_now.clear();
        self.inflation_now
            .extend(p.bodies.iter().map(|b| b.inflation));
    }

    /// Scratch state and frames sized to the world (frames are recomputed
    /// every substep, so their content does not matter).
    /// After an edit that only `appended`, the bodies keep their contact
    /// events' partners. The contacts' and sleeping state is the caller's
    /// to follow. The stages' point info is the packed one, or, after a
    /// removal that keeps what sleeps, its own moved by the removal's map
    /// (`settled`): the caller then settles the points the removal
    /// rewrote, or every point, which sets their inverse masses.
    fn resize_scratch(&mut self, appended: bool, settled: Option<&crate::world::Remap>) {
        let n = self.packed.pos.len();
        self.pos_tmp.resize(n, [0.0; 2]);
        self.vel_tmp.resize(n, [0.0; 2]);
        self.impacts.reset(self.packed.bodies.len());
        // Contact events, the log kept. After an append the bodies keep
        // their partners (their indices stand); after a removal the
        // caller remaps them (`apply_removal`), after any other edit what
        // touches begins anew at the next step.
        if let Some(e) = &mut self.events {
            if appended {
                e.extend(self.packed.bodies.len());
            } else {
                e.reset(self.packed.bodies.len());
            }
        }
        match settled {
            Some(map) => map.apply_in_place(&mut self.info),
            None => self.info.clone_from(&self.packed.point_info),
        }
        self.frames
            .resize(self.packed.bodies.len(), BodyFrame::default());
        self.dilation.resize(self.packed.bodies.len(), 0.0);
        // Bodies may have moved: every ramp of an inflation ends at its
        // target.
        self.inflation_now = self.packed.inflations();
    }
}
