//! Stage 0 of a substep in worlds where a planet or half-plane moves,
//! mirror of `shaders/move_colliders.wgsl`: every collider's pose at the
//! substep's start, as a function of the time `t = clock h`.

use crate::layout::{PlaneInfo, PlanetInfo, SimParams};

/// The planet at time `t` (WGSL `planet_at`): `center = origin +
/// velocity t`; one that does not move is returned as it is.
pub fn planet_at(p: &PlanetInfo, t: f32) -> PlanetInfo {
    let mut q = *p;
    if p.moves() {
        q.center = [
            p.origin[0] + p.velocity[0] * t,
            p.origin[1] + p.velocity[1] * t,
        ];
    }
    q
}

/// The half-plane at time `t` (WGSL `plane_at`): `normal0` turned by
/// `spin t`, the pivot moved by `velocity t`, `offset = normal . pivot +
/// offset0 - normal0 . pivot0` (the boundary keeps its distance from the
/// pivot, which need not lie on it).
pub fn plane_at(p: &PlaneInfo, t: f32) -> PlaneInfo {
    let mut q = *p;
    if p.moves() {
        let (s, c) = (p.spin * t).sin_cos();
        let n0 = p.normal0;
        q.normal = [c * n0[0] - s * n0[1], s * n0[0] + c * n0[1]];
        q.pivot = [
            p.pivot0[0] + p.velocity[0] * t,
            p.pivot0[1] + p.velocity[1] * t,
        ];
        let gap = p.offset0 - (n0[0] * p.pivot0[0] + n0[1] * p.pivot0[1]);
        q.offset = q.normal[0] * q.pivot[0] + q.normal[1] * q.pivot[1] + gap;
    }
    q
}

/// Poses every collider at `clock` substeps (`t = clock h`), in place.
/// The solvers run it at the start of each substep with the substeps run
/// so far, and after an edit with those of the step count.
pub fn move_colliders(
    sim: &SimParams,
    clock: u32,
    planets: &mut [PlanetInfo],
    planes: &mut [PlaneInfo],
) {
    let t = clock as f32 * sim.h;
    for p in planets.iter_mut() {
        *p = planet_at(p, t);
    }
    for p in planes.iter_mut() {
        *p = plane_at(p, t);
    }
}

/// The clock at the start of step `steps`: the substeps run so far
/// (wrapping at 2^32, as the GPU's counter does).
pub fn clock_at(steps: u64, substeps: u32) -> u32 {
    steps.wrapping_mul(substeps as u64) as u32
}
