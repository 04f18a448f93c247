//! The CPU solver's stages that move points without contacts: springs,
//! rods, shape matching, integrate, collide, each callable alone.

use super::CpuSolver;
use crate::cpu::{collide, integrate, rods, shape_match, springs, terrain};
use crate::cpu::{move_bodies, move_colliders};

impl CpuSolver {
    fn swap(&mut self) {
        std::mem::swap(&mut self.packed.pos, &mut self.pos_tmp);
        std::mem::swap(&mut self.packed.vel, &mut self.vel_tmp);
    }

    /// Stage 1 alone.
    /// Poses moving planets and half-planes for this substep
    /// (`cpu::move_colliders`, WGSL `move_colliders`), and counts it.
    pub fn stage_move_colliders(&mut self) {
        if self.moving {
            let p = &mut self.packed;
            move_colliders::move_colliders(&p.sim, self.clock, &mut p.planets, &mut p.planes);
            self.clock = self.clock.wrapping_add(1);
        }
    }

    /// Stage 0b alone: poses the kinematic bodies at the substep's end
    /// (`cpu::move_bodies`, WGSL `move_bodies`).
    pub fn stage_move_bodies(&mut self) {
        let p = &mut self.packed;
        if !p.kinematic.is_empty() {
            move_bodies::move_bodies(
                &p.sim,
                &p.kinematic,
                &p.bodies,
                &p.members,
                &mut p.pos,
                &mut p.vel,
            );
        }
    }

    pub fn stage_integrate(&mut self) {
        let p = &mut self.packed;
        integrate(
            &p.sim,
            &self.info,
            &p.planets,
            &p.gravity_scale,
            &mut p.pos,
            &mut p.vel,
            self.spread,
        );
    }

    /// Stage 2 alone. Where the world has body contacts it reads and
    /// notes the points' settled state in the warm starts
    /// (`cpu::collide::placed`, `note_skin`).
    pub fn stage_collide(&mut self) {
        let placed = self.packed.has_contacts();
        let p = &mut self.packed;
        let colliders = collide::Colliders {
            planets: &p.planets,
            planes: &p.planes,
        };
        collide(
            &p.sim,
            &self.info,
            &p.materials,
            colliders,
            &mut p.pos,
            &mut p.vel,
            placed.then_some(&mut self.contacts.warm[..]),
            self.spread,
        );
    }

    /// Stage 2b alone: points against the terrain (`cpu::terrain`),
    /// where the world has some.
    pub fn stage_terrain(&mut self) {
        let p = &mut self.packed;
        if p.terrain.segments.is_empty() {
            return;
        }
        let placed = p.has_contacts();
        terrain::collide_terrain(
            &p.sim,
            &self.info,
            &p.materials,
            &p.terrain,
            &mut p.pos,
            &mut p.vel,
            placed.then_some(&mut self.contacts.warm[..]),
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
