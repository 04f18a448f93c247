//! Editing a packed world in place: items appended to the world, removals,
//! and new parameter defaults, without packing everything again.
//!
//! Every edit leaves the arrays equal to what [`Packed::from_world`] makes
//! of the edited world, except the state (`pos`, `vel`) of the points that
//! were already there, which is kept (`tests/edits.rs` checks both). Only
//! the per-point adjacency and the body order are rebuilt from the packed
//! arrays (a counting sort, linear in the links); everything else is packed
//! for the new items alone.

use glam::Vec2;

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
        let (before, after) = removal.generations();
        check_generation(followed, before, "apply_removal")?;
        if world.generation() != after {
            return Err(WorldError::OutOfSync(format!(
                "apply_removal: the world is at generation {}, the removal left generation {after}: it was made on another world, or other removals followed it; apply each removal to the world it was made on, right after making it",
                world.generation()
            )));
        }
        world.params.validate()?;
        let mut new = self.clone();
        new.apply_removal(world, removal)?;
        new.follow_defaults(world, resolved)?;
        Ok(new)
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
        self.stability(world.params.h()).check()
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
        let new_points = &world.points()[n0..];
        // A pinned point is packed at rest, unless a kinematic body moves
        // it: its velocity is the body's motion.
        let mut moved = vec![false; new_points.len()];
        for body in world.bodies().iter().filter(|b| b.kinematic) {
            for p in body.points.iter().filter(|p| p.index() >= n0) {
                moved[p.index() - n0] = true;
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
                &self.point_info,
                params,
            );
            self.bodies.push(info);
            self.members.extend(members);
        }
        self.pack_colliders(world);
        self.kinematic = kinematic_bodies(world, self.bodies.len());
        self.rebuild_indices(params);
        self.resolve_body_stiffness(world);
        self.pack_contacts(world);
        Ok(())
    }

    /// Follows a removal made on `world` (which must not have had another
    /// removal since): drops the removed points with their state, springs
    /// and bodies, renumbers the rest, and packs again the bodies that lost
    /// points. Surviving points keep their state.
    ///
    /// Items appended to the world before the removal but not packed yet
    /// are left for [`Packed::append_from`]: a removal keeps the order of
    /// the survivors, so the packed items that survive are still the first
    /// ones of the world.
    pub fn apply_removal(&mut self, world: &World, removal: &Removal) -> Result<(), WorldError> {
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
        // A removal whose remaps do not fit what is packed was made on
        // another world (one the solver was not built from).
        let foreign = |what: String| {
            WorldError::OutOfSync(format!(
                "the removal does not fit the packed world: {what}; was the solver built from this world?"
            ))
        };
        let params = &world.params;
        let map = &removal.points;
        let mut springs = removal.springs.retain(&self.springs);
        for (i, s) in springs.iter_mut().enumerate() {
            match (map.get(s.a), map.get(s.b)) {
                (Some(a), Some(b)) => (s.a, s.b) = (a, b),
                _ => return Err(foreign(format!("kept spring {i} lost an end"))),
            }
        }
        let mut bodies = Vec::with_capacity(self.bodies.len());
        let mut members = Vec::with_capacity(self.members.len());
        let point_info = map.retain(&self.point_info);
        for (old, info) in self.bodies.iter().enumerate() {
            let Some(new) = removal.bodies.get(old as u32) else {
                continue;
            };
            let first = members.len() as u32;
            if removal.reshaped.iter().any(|h| h.0 == new) {
                let (Some(body), Some(rest)) = (
                    world.bodies().get(new as usize),
                    world.rest_shapes().get(new as usize),
                ) else {
                    return Err(foreign(format!("body {new} is not in the world")));
                };
                if body.points.iter().any(|p| p.index() >= point_info.len()) {
                    return Err(foreign(format!(
                        "body {new} has points that are not packed"
                    )));
                }
                let (info, body_members) = pack_body(body, rest, first, &point_info, params);
                bodies.push(info);
                members.extend(body_members);
            } else {
                let span = info.first as usize..(info.first + info.count) as usize;
                for m in &self.members[span] {
                    let Some(point) = map.get(m.point) else {
                        return Err(foreign(format!("kept body {new} lost a point")));
                    };
                    members.push(Member { point, ..*m });
                }
                bodies.push(BodyInfo { first, ..*info });
            }
        }
        self.pos = map.retain(&self.pos);
        self.vel = map.retain(&self.vel);
        self.gravity_scale = map.retain(&self.gravity_scale);
        self.point_info = point_info;
        self.springs = springs;
        self.bodies = bodies;
        self.members = members;
        self.kinematic = kinematic_bodies(world, self.bodies.len());
        self.rebuild_indices(params);
        self.resolve_body_stiffness(world);
        self.pack_contacts(world);
        Ok(())
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
        self.resolve_body_stiffness(world);
        self.set_sim(params);
        self.pack_contacts(world);
    }

    /// Every body's shape and area stiffness from `world`: its own where
    /// it has one, else the default rule (`default_shape_stiffness`,
    /// `area_stiffness`). After the per-point records, whose memberships
    /// count the bodies at each point (none of them carries a stiffness:
    /// the frames kernels read it from the bodies).
    fn resolve_body_stiffness(&mut self, world: &World) {
        let params = &world.params;
        for (info, b) in self.bodies.iter_mut().zip(world.bodies()) {
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

    fn pack_colliders(&mut self, world: &World) {
        self.planets = world.planets().iter().map(PlanetInfo::from).collect();
        self.planes = world.planes().iter().map(PlaneInfo::from).collect();
        self.terrain = super::PackedTerrain::build(world.terrains(), &world.params);
    }

    /// Per-point records, body order, rod count and the uniform counts, from the
    /// packed arrays.
    fn rebuild_indices(&mut self, params: &Params) {
        let n = self.point_info.len();
        self.rebuild_step_records(params.h());
        let springs = &self.springs;
        self.num_rods = springs.iter().filter(|s| s.kind == KIND_ROD).count() as u32;
        let bodies = &self.bodies;
        let (mut small, large): (Vec<u32>, Vec<u32>) = (0..bodies.len() as u32)
            .partition(|&b| bodies[b as usize].count <= SMALL_BODY_MAX_POINTS);
        // Small bodies by member count (stable: index order within a
        // count), so that the threads of one SIMD batch loop equally often.
        small.sort_by_key(|&b| bodies[b as usize].count);
        self.sim = SimParams {
            num_points: n as u32,
            num_springs: springs.len() as u32,
            num_bodies: bodies.len() as u32,
            num_planets: self.planets.len() as u32,
            num_planes: self.planes.len() as u32,
            num_small_bodies: small.len() as u32,
            num_large_bodies: large.len() as u32,
            ..super::sim_params(params, self)
        };
        self.body_order = small.into_iter().chain(large).collect();
        self.rebuild_impact_bodies();
    }

    /// [`Packed::impact_home`] and [`Packed::impact_inv_mass`] from the
    /// packed points, bodies, members and kinematic bodies.
    fn rebuild_impact_bodies(&mut self) {
        // Each point's body, or SHARED when two or more bodies have it
        // (its memberships, from the per-point records).
        const SHARED: u32 = IMPACT_NONE - 1;
        let mut home: Vec<u32> = (0..self.point_info.len())
            .map(|i| match self.point_members.of(i) {
                [] => IMPACT_NONE,
                [m] => m.body,
                _ => SHARED,
            })
            .collect();
        // A body takes part unless one of its points is shared, or pinned
        // in a body that is not kinematic (a kinematic body's are all).
        let nb = self.bodies.len();
        let mut kinematic = vec![false; nb];
        for &b in &self.kinematic {
            kinematic[b as usize] = true;
        }
        let mut mass = vec![0.0f32; nb];
        let mut apart = vec![true; nb];
        for (b, body) in self.bodies.iter().enumerate() {
            for m in &self.members[body.first as usize..(body.first + body.count) as usize] {
                let w = self.point_info[m.point as usize].inv_mass;
                if home[m.point as usize] == SHARED || (w == 0.0 && !kinematic[b]) {
                    apart[b] = false;
                } else if w > 0.0 {
                    mass[b] += 1.0 / w;
                }
            }
        }
        self.impact_inv_mass = (0..nb)
            .map(|b| match (apart[b], kinematic[b]) {
                (false, _) => 0.0,
                (true, true) => IMPACT_KINEMATIC,
                (true, false) if mass[b] > 0.0 => 1.0 / mass[b],
                (true, false) => 0.0,
            })
            .collect();
        for h in &mut home {
            if *h == SHARED || (*h != IMPACT_NONE && self.impact_inv_mass[*h as usize] == 0.0) {
                *h = IMPACT_NONE;
            }
        }
        self.impact_home = home;
        // Shape matching's half-plane and planet impacts read it here.
        for (body, &w) in self.bodies.iter_mut().zip(&self.impact_inv_mass) {
            let members = &self.members[body.first as usize..(body.first + body.count) as usize];
            // Kinematic bodies have no half-plane and planet impacts.
            body.reach = if w <= 0.0 {
                -1.0
            } else {
                members
                    .iter()
                    .map(|m| Vec2::from(m.rest).length())
                    .fold(0.0, f32::max)
            };
        }
    }
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
