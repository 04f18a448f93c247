//! Editing a packed world in place: items appended to the world, removals,
//! and new parameter defaults, without packing everything again.
//!
//! Every edit leaves the arrays equal to what [`Packed::from_world`] makes
//! of the edited world, except the state (`pos`, `vel`) of the points that
//! were already there, which is kept (`tests/edits.rs` checks both). Only
//! the per-point adjacency and the body order are rebuilt from the packed
//! arrays (a counting sort, linear in the links); everything else is packed
//! for the new items alone.

use super::items::*;
use super::{HalfSprings, Packed, PointMembers};
use crate::error::{Item, WorldError};
use crate::layout::*;
use crate::params::Params;
use crate::world::{BodyHandle, MAX_ITEMS, MaterialHandle, PointHandle, Removal, World};

impl Packed {
    /// Sets body `body`'s inflation (target area over rest area) and
    /// returns one of its points, whose assembly the solver wakes. The one
    /// home of the check for both solvers' `set_inflation`.
    pub(crate) fn set_inflation(
        &mut self,
        body: BodyHandle,
        ratio: f32,
    ) -> Result<PointHandle, WorldError> {
        let item = Item::Body(body.0);
        let len = self.bodies.len() as u32;
        let info = self
            .bodies
            .get_mut(body.index())
            .ok_or(WorldError::UnknownHandle { item, len })?;
        crate::validate::check_inflation(item, ratio)?;
        info.inflation = ratio;
        Ok(PointHandle(self.members[info.first as usize].point))
    }
}

/// Checks that a solver following world generation `followed` may take an
/// edit (`what`) of a world at `generation`.
fn check_generation(followed: u64, generation: u64, what: &str) -> Result<(), WorldError> {
    if generation != followed {
        return Err(WorldError::OutOfSync(format!(
            "{what}: the solver follows world generation {followed}, got {generation}; pass every Removal to apply_removal, in order"
        )));
    }
    Ok(())
}

impl Packed {
    /// What a solver following world generation `followed` becomes on
    /// `sync`: a copy with what was appended to `world` since
    /// ([`Packed::append_from`]), and with the items' defaults resolved
    /// again ([`Packed::resolve_defaults`]) unless `resolved`, the
    /// parameters they were resolved with, are the world's (`None`: not
    /// known, resolve). Refused, with this one unchanged, when the
    /// generations differ, the world's parameters are invalid, the append
    /// fails, or a spring or body of the result, with its new defaults,
    /// diverges on its own at the world's substep
    /// ([`WorldError::Unstable`]).
    pub fn synced(
        &self,
        followed: u64,
        world: &World,
        resolved: Option<&Params>,
    ) -> Result<Packed, WorldError> {
        check_generation(followed, world.generation(), "sync")?;
        self.check_prefix(world)?;
        world.params.validate()?;
        let mut new = self.clone();
        new.append_from(world)?;
        new.follow_defaults(world, resolved)?;
        Ok(new)
    }

    /// [`Packed::synced`] in place, for an edit that only appends items
    /// linking no earlier point, at the parameters the packed items were
    /// resolved with (`resolved`, the world's): packs the new items alone,
    /// checks their links' stability and logs their warnings (loads and
    /// sag, [`Stability`](super::Stability)), so that it costs in
    /// proportion to what was appended. Returns `Ok(false)`, changing
    /// nothing, for any other edit (use [`Packed::synced`]); refused like
    /// [`Packed::synced`], changing nothing.
    pub fn sync_in_place(
        &mut self,
        followed: u64,
        world: &World,
        resolved: Option<&Params>,
    ) -> Result<bool, WorldError> {
        Ok(self.append_in_place(followed, world, resolved)?.is_some())
    }

    /// [`Packed::sync_in_place`], returning the mark that takes the append
    /// back ([`Packed::restore`]) when it was made.
    pub(crate) fn append_in_place(
        &mut self,
        followed: u64,
        world: &World,
        resolved: Option<&Params>,
    ) -> Result<Option<super::append::Mark>, WorldError> {
        check_generation(followed, world.generation(), "sync")?;
        if !self.appends_locally(world, resolved) {
            return Ok(None);
        }
        world.params.validate()?;
        let (n0, s0, b0) = (self.pos.len(), self.springs.len(), self.bodies.len());
        let mark = self.mark();
        let appended = self.append_resolved(world, resolved).and_then(|()| {
            let stability = self.appended_stability(world.params.h(), n0, s0, b0);
            stability.check()?;
            Ok(stability.warnings())
        });
        match appended {
            Ok(warnings) => {
                for w in warnings {
                    log::warn!("{w}");
                }
                Ok(Some(mark))
            }
            Err(e) => {
                self.restore(mark);
                Err(e)
            }
        }
    }

    /// What a solver following world generation `followed` becomes on
    /// `apply_removal`: a copy with `removal` applied
    /// ([`Packed::apply_removal`]), refused like [`Packed::synced`], and
    /// when the removal was not made on `world` right before.
    pub fn removed(
        &self,
        followed: u64,
        world: &World,
        removal: &Removal,
        resolved: Option<&Params>,
    ) -> Result<Packed, WorldError> {
        Ok(self
            .removed_following(followed, world, removal, resolved)?
            .0)
    }

    /// [`Packed::removed`], with the bodies the removal moved when the
    /// copy followed it in place, contact data included (what
    /// [`Packed::follow_plan`] returns; `None` otherwise).
    pub(crate) fn removed_following(
        &self,
        followed: u64,
        world: &World,
        removal: &Removal,
        resolved: Option<&Params>,
    ) -> Result<(Packed, Option<Vec<u32>>), WorldError> {
        check_removal_generations(followed, world, removal)?;
        world.params.validate()?;
        // Survivors keep their springs, masses, damping and default
        // stiffness rules: at the same parameters only a body's stiffness
        // can change (its points' memberships, a reshape).
        let same = resolved == Some(&world.params);
        let (mut new, moved) = self.removal_of(world, removal, same)?;
        if !same {
            // The contact data is packed again with the new defaults: no
            // body alone was renamed.
            new.follow_defaults(world, resolved)?;
            return Ok((new, None));
        }
        Ok((new, moved))
    }

    /// The last part of an edit: the items' defaults resolved again from
    /// the world's parameters where those differ from `resolved`, then the
    /// check that no link diverges with them. Checking before resolving
    /// let a sync take a default stiffness that [`Packed::from_world`]
    /// refuses, and step to NaN.
    fn follow_defaults(
        &mut self,
        world: &World,
        resolved: Option<&Params>,
    ) -> Result<(), WorldError> {
        if resolved != Some(&world.params) {
            self.resolve_defaults(world);
        }
        self.check_stability(world.params.h())
    }

    /// Checks that the items packed here are the first items of `world`:
    /// the same points (mass, material, layers), springs (ends and kind)
    /// and bodies (members). Counts and generations alone let a sync with
    /// an unrelated world, or with a clone that had gone its own way, pass:
    /// the solver then kept its own items and took the other world's
    /// surplus (a box's body over a wheel's points, with no error).
    fn check_prefix(&self, world: &World) -> Result<(), WorldError> {
        let differs = |what: String| {
            Err(WorldError::OutOfSync(format!(
                "sync: {what} differs between the world and the solver: the world is not the one the solver follows, or a copy that has since changed its own way (a solver follows one world, edited by appending, with removals passed to apply_removal)"
            )))
        };
        let (n0, s0, b0) = (self.pos.len(), self.springs.len(), self.bodies.len());
        // The fingerprints agree: the same items (`World::prefix_fingerprint`).
        if world.prefix_fingerprint(n0, s0, b0) == Some(self.prefix) {
            return Ok(());
        }
        let points = world.points();
        let springs = world.springs();
        let bodies = world.bodies();
        if points.len() < self.point_info.len()
            || springs.len() < self.springs.len()
            || bodies.len() < self.bodies.len()
        {
            // append_from says which count shrank.
            return Ok(());
        }
        for (i, ((info, scale), p)) in self
            .point_info
            .iter()
            .zip(&self.gravity_scale)
            .zip(points)
            .enumerate()
        {
            if bytemuck::bytes_of(info) != bytemuck::bytes_of(&point_info_of(p))
                || scale.to_bits() != p.gravity_scale.to_bits()
            {
                return differs(format!("point {i}"));
            }
        }
        for (i, (info, s)) in self.springs.iter().zip(springs).enumerate() {
            if (info.a, info.b, info.kind) != (s.a.0, s.b.0, s.kind.code()) {
                return differs(format!("spring {i}"));
            }
        }
        for (i, (info, b)) in self.bodies.iter().zip(bodies).enumerate() {
            let first = info.first as usize;
            let members = &self.members[first..first + info.count as usize];
            if members.len() != b.points.len()
                || members.iter().zip(&b.points).any(|(m, p)| m.point != p.0)
            {
                return differs(format!("body {i}"));
            }
        }
        Ok(())
    }

    /// Packs what was appended to `world` since this was packed from it:
    /// points, springs and bodies past the packed counts, new materials,
    /// and the colliders (a few bytes each, packed again). Points already
    /// packed keep their state. Fails, changing nothing, if the world has
    /// fewer items than were packed (a removal must go through
    /// [`Packed::apply_removal`]) or too many memberships.
    pub fn append_from(&mut self, world: &World) -> Result<(), WorldError> {
        self.append_resolved(world, None)
    }

    /// [`Packed::append_from`], the packed items' defaults resolved with
    /// `resolved` (`None`: not known).
    fn append_resolved(
        &mut self,
        world: &World,
        resolved: Option<&Params>,
    ) -> Result<(), WorldError> {
        let params = &world.params;
        let (n0, s0, b0) = (self.point_info.len(), self.springs.len(), self.bodies.len());
        for (what, packed, now) in [
            ("points", n0, world.points().len()),
            ("springs", s0, world.springs().len()),
            ("bodies", b0, world.bodies().len()),
            ("materials", self.materials.len(), world.materials().len()),
        ] {
            if now < packed {
                return Err(WorldError::OutOfSync(format!(
                    "the world has {now} {what}, {packed} were packed; removals must be applied with apply_removal"
                )));
            }
        }
        // Checked before anything changes: a failed append leaves the
        // packed world as it was.
        let memberships = self.members.len() as u64
            + world.bodies()[b0..]
                .iter()
                .map(|b| b.points.len() as u64)
                .sum::<u64>();
        if memberships >= MAX_ITEMS {
            return Err(WorldError::TooMany {
                what: "body memberships",
                count: memberships,
                limit: MAX_ITEMS,
            });
        }
        let local = self.appends_locally(world, resolved);
        let new_points = &world.points()[n0..];
        // A pinned point is packed at rest, unless a kinematic body moves
        // it: its velocity is the body's motion.
        let mut moved = vec![false; new_points.len()];
        for body in world.bodies()[b0..].iter().filter(|b| b.kinematic) {
            for p in body.points.iter().filter(|p| p.index() >= n0) {
                moved[p.index() - n0] = true;
            }
        }
        if !local {
            // A kinematic body packed before may hold a new point.
            for body in world.bodies()[..b0].iter().filter(|b| b.kinematic) {
                for p in body.points.iter().filter(|p| p.index() >= n0) {
                    moved[p.index() - n0] = true;
                }
            }
        }
        self.pos.extend(new_points.iter().map(|p| p.pos.to_array()));
        self.vel
            .extend(new_points.iter().zip(&moved).map(|(p, &moved)| {
                if p.is_pinned() && !moved {
                    [0.0; 2]
                } else {
                    p.vel.to_array()
                }
            }));
        self.point_info.extend(new_points.iter().map(point_info_of));
        self.gravity_scale
            .extend(new_points.iter().map(|p| p.gravity_scale));
        for m in self.materials.len()..world.materials().len() {
            self.materials
                .push(world.resolve_material(MaterialHandle(m as u32)));
        }
        self.springs.extend(
            world.springs()[s0..]
                .iter()
                .zip(&world.rest_lengths()[s0..])
                .map(|(s, &rest)| spring_info_of(s, rest, params)),
        );
        for (body, rest) in world.bodies()[b0..].iter().zip(&world.rest_shapes()[b0..]) {
            let (info, members) = pack_body(
                body,
                rest,
                self.members.len() as u32,
                |p| self.point_info[p],
                params,
            );
            self.bodies.push(info);
            self.members.extend(members);
        }
        self.planets = world.planets().iter().map(PlanetInfo::from).collect();
        self.planes = world.planes().iter().map(PlaneInfo::from).collect();
        self.joints = world.joints().to_vec();
        if local {
            // The new items alone (`append.rs`).
            // The terrain is the packed one (`appends_locally`), unless
            // nothing was packed.
            if n0 + s0 + b0 == 0 {
                self.pack_terrain(world);
            }
            self.kinematic.extend(
                (b0..world.bodies().len())
                    .filter(|&b| world.bodies()[b].kinematic)
                    .map(|b| b as u32),
            );
            self.append_indices(params, n0, s0, b0);
            self.resolve_body_stiffness(world, b0);
            if !self.append_contacts(world, n0, s0, b0) {
                self.pack_contacts(world);
            }
        } else {
            self.pack_terrain(world);
            self.kinematic = kinematic_bodies(world, self.bodies.len());
            self.rebuild_indices(params);
            self.resolve_body_stiffness(world, 0);
            self.pack_contacts(world);
        }
        self.note_packed(world);
        Ok(())
    }

    /// Records the fingerprint of the world's items packed here.
    pub(super) fn note_packed(&mut self, world: &World) {
        self.prefix = world
            .prefix_fingerprint(self.pos.len(), self.springs.len(), self.bodies.len())
            .unwrap_or_default();
    }

    /// Follows a removal made on `world` (which must not have had another
    /// removal since): drops the removed points with their state, springs
    /// and bodies, renumbers the rest, and packs again the bodies that lost
    /// points. Surviving points keep their state.
    ///
    /// Items appended to the world before the removal but not packed yet
    /// are left for [`Packed::append_from`] when the packed items that
    /// survive are still the first ones of the world. When one of them
    /// filled a packed item's hole, the world is packed again, the
    /// survivors' state carried over ([`Packed::follows_removal`]).
    pub fn apply_removal(&mut self, world: &World, removal: &Removal) -> Result<(), WorldError> {
        self.check_removal_counts(removal)?;
        if self.follows_removal(removal) {
            return self.follow_removal(world, removal, false).map(|_| ());
        }
        *self = self.repacked_after(world, removal)?;
        Ok(())
    }

    /// [`Packed::apply_removal`] as a new packed world, with (`check`)
    /// the bodies whose stiffness the removal changed checked for
    /// stability at the world's substep.
    fn removal_of(
        &self,
        world: &World,
        removal: &Removal,
        check: bool,
    ) -> Result<(Packed, Option<Vec<u32>>), WorldError> {
        self.check_removal_counts(removal)?;
        if !self.follows_removal(removal) {
            let new = self.repacked_after(world, removal)?;
            if check {
                new.check_body_stability(world.params.h())?;
            }
            return Ok((new, None));
        }
        let mut new = self.clone();
        let moved = new.follow_removal(world, removal, check)?;
        Ok((new, moved))
    }

    /// What [`Packed::removed`] would do in place ([`Packed::follow_plan`]),
    /// when the removal keeps the packed items as a prefix
    /// ([`Packed::follows_removal`]) and `resolved`, the parameters the
    /// items were resolved with, are the world's: it then costs in
    /// proportion to what the removal touched (and the contact data).
    /// `Ok(None)` otherwise (use [`Packed::removed`]); refused like it.
    /// Changes nothing: a solver can still refuse the removal after it.
    pub(crate) fn removal_plan(
        &self,
        followed: u64,
        world: &World,
        removal: &Removal,
        resolved: Option<&Params>,
    ) -> Result<Option<super::follow::Touched>, WorldError> {
        check_removal_generations(followed, world, removal)?;
        world.params.validate()?;
        self.check_removal_counts(removal)?;
        if resolved != Some(&world.params) || !self.follows_removal(removal) {
            return Ok(None);
        }
        self.touched_by(world, removal, true).map(Some)
    }

    /// Refuses a removal made on a world with fewer items than are packed.
    fn check_removal_counts(&self, removal: &Removal) -> Result<(), WorldError> {
        for (what, packed, old) in [
            ("points", self.point_info.len(), removal.points.old_len()),
            ("springs", self.springs.len(), removal.springs.old_len()),
            ("bodies", self.bodies.len(), removal.bodies.old_len()),
        ] {
            if packed > old {
                return Err(WorldError::OutOfSync(format!(
                    "{packed} {what} are packed but the removal was made on a world with {old}"
                )));
            }
        }
        Ok(())
    }

    /// [`Packed::removal_of`] when the removal moved an item the solver
    /// had not packed yet (appended to the world, not synced) into the
    /// place of a packed one: the world packed again, with the state of
    /// the packed survivors carried over and the moving colliders' poses
    /// kept. The solvers wake everything after it (see
    /// [`Packed::follows_removal`]).
    fn repacked_after(&self, world: &World, removal: &Removal) -> Result<Packed, WorldError> {
        let mut new = Packed::from_world(world)?;
        for old in 0..self.pos.len() as u32 {
            if let Some(to) = removal.points.get(old) {
                let (o, t) = (old as usize, to as usize);
                (new.pos[t], new.vel[t]) = (self.pos[o], self.vel[o]);
            }
        }
        new.planets.clone_from(&self.planets);
        new.planes.clone_from(&self.planes);
        Ok(new)
    }

    /// Whether a solver with this packed world follows `removal` by moving
    /// what moved, with what sleeps sleeping on; `false` when an item not
    /// packed yet moved into a packed item's place, and the world is
    /// packed again instead ([`Packed::apply_removal`]).
    pub fn follows_removal(&self, removal: &Removal) -> bool {
        removal.points.keeps_prefix(self.pos.len())
            && removal.springs.keeps_prefix(self.springs.len())
            && removal.bodies.keeps_prefix(self.bodies.len())
    }

    /// Resolves the items' defaults (materials, springs and bodies that
    /// follow [`Params`]) and the uniform parameters again from `world`,
    /// whose items must be the packed ones.
    pub fn resolve_defaults(&mut self, world: &World) {
        let params = &world.params;
        for (m, info) in self.materials.iter_mut().enumerate() {
            *info = world.resolve_material(MaterialHandle(m as u32));
        }
        for (info, s) in self.springs.iter_mut().zip(world.springs()) {
            info.stiffness = s.stiffness.unwrap_or(params.spring_stiffness);
            info.damping = s.damping.unwrap_or(params.spring_damping);
        }
        for (info, b) in self.bodies.iter_mut().zip(world.bodies()) {
            info.damping = b.damping.unwrap_or(params.shape_damping);
        }
        self.rebuild_step_records(params.h());
        self.resolve_body_stiffness(world, 0);
        self.set_sim(params);
        self.pack_contacts(world);
    }

    /// The shape and area stiffness of bodies `b0..` from `world`: its own
    /// where it has one, else the default rule (`default_shape_stiffness`,
    /// `area_stiffness`). After the per-point records, whose memberships
    /// count the bodies at each point (none of them carries a stiffness:
    /// the frames kernels read it from the bodies).
    fn resolve_body_stiffness(&mut self, world: &World, b0: usize) {
        let params = &world.params;
        for (info, b) in self.bodies.iter_mut().zip(world.bodies()).skip(b0) {
            let span = info.first as usize..(info.first + info.count) as usize;
            let most = self.members[span]
                .iter()
                .map(|m| self.point_members.of(m.point as usize).len() as u32)
                .max()
                .unwrap_or(1);
            let stiffness = b
                .stiffness
                .unwrap_or_else(|| default_shape_stiffness(params.shape_stiffness, most));
            info.stiffness = stiffness;
            info.area_stiffness =
                area_stiffness(b.area_stiffness, stiffness, params.area_stiffness);
        }
    }

    /// Recomputes what depends on the substep `h` (the spring records'
    /// coefficients, the memberships' damping fractions, the contact
    /// filters' `decay`) for a new `h`.
    pub fn refresh_step_coefficients(&mut self, h: f32) {
        self.rebuild_step_records(h);
        self.refresh_contact_decay(h);
    }

    /// The per-point spring and membership records, from the packed
    /// springs, points, bodies and members, with the coefficients of a
    /// substep `h` (the spring coefficients depend on the ends' inverse
    /// masses, so points are packed first).
    pub(crate) fn rebuild_step_records(&mut self, h: f32) {
        let info = &self.point_info;
        self.spring_halves = HalfSprings::build(info, &self.springs, h, |s| s.kind != KIND_ROD);
        self.rod_halves = HalfSprings::build(info, &self.springs, h, |s| s.kind == KIND_ROD);
        self.point_members = PointMembers::build(info.len(), &self.bodies, &self.members, h);
    }

    fn pack_terrain(&mut self, world: &World) {
        self.terrain = super::PackedTerrain::build(world.terrains(), &world.params);
        self.terrains = world.terrains().len() as u32;
    }

    /// Per-point records, body order, rod count, impact bodies and the
    /// uniform counts, from the packed arrays: all of them appended to
    /// nothing (`append.rs`).
    fn rebuild_indices(&mut self, params: &Params) {
        self.spring_halves = HalfSprings::default();
        self.rod_halves = HalfSprings::default();
        self.point_members = PointMembers::default();
        self.num_rods = 0;
        self.body_order.clear();
        self.sim.num_small_bodies = 0;
        self.sim.num_large_bodies = 0;
        self.impact_home.clear();
        self.impact_inv_mass.clear();
        self.append_indices(params, 0, 0, 0);
    }
}

/// Checks that a solver following world generation `followed` may take
/// `removal`, made on `world` right before.
fn check_removal_generations(
    followed: u64,
    world: &World,
    removal: &Removal,
) -> Result<(), WorldError> {
    let (before, after) = removal.generations();
    check_generation(followed, before, "apply_removal")?;
    if world.generation() != after {
        return Err(WorldError::OutOfSync(format!(
            "apply_removal: the world is at generation {}, the removal left generation {after}: it was made on another world, or other removals followed it; apply each removal to the world it was made on, right after making it",
            world.generation()
        )));
    }
    Ok(())
}

/// The world's joints between its first `packed` bodies: those of bodies
/// appended but not packed yet come with their bodies at the next append.
pub(super) fn packed_joints(world: &World, packed: usize) -> Vec<crate::world::Joint> {
    let packed = packed as u32;
    world
        .joints()
        .iter()
        .filter(|j| j.body.0 < packed && j.other.is_none_or(|o| o.0 < packed))
        .copied()
        .collect()
}

/// The kinematic bodies among the first `packed` bodies of `world`, in
/// order.
fn kinematic_bodies(world: &World, packed: usize) -> Vec<u32> {
    world.bodies()[..packed]
        .iter()
        .enumerate()
        .filter(|(_, b)| b.kinematic)
        .map(|(i, _)| i as u32)
        .collect()
}
