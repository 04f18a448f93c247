//! The static colliders' table shared with the kernels (WGSL `PlanetInfo`,
//! `PlaneInfo`, `Colliders`): one uniform buffer of planets and half-planes,
//! posed each substep by the stage `move_colliders`.

use bytemuck::{Pod, Zeroable};

use super::{MAX_PLANES, MAX_PLANETS};

/// A planet (WGSL `PlanetInfo`). A moving one's pose is a function of
/// the time `t`, the substeps run times `h` (the stage `move_colliders`,
/// at the start of each substep): `center = origin + velocity t`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PlanetInfo {
    /// Centre during the current step, m.
    pub center: [f32; 2],
    /// Linear velocity, m/s ([`Planet::velocity`](crate::world::Planet::velocity)).
    pub velocity: [f32; 2],
    pub radius: f32,
    pub layers: u32,
    /// Its pull `G M`, m^3/s^2 ([`Planet::gravity`](crate::world::Planet::gravity)).
    pub gravity: f32,
    /// Angular velocity about the centre, rad/s, counter-clockwise
    /// positive: only its surface's velocity (friction) sees it.
    pub spin: f32,
    /// Centre at `t = 0`, m.
    pub origin: [f32; 2],
    pub _pad0: u32,
    pub _pad1: u32,
}

/// A half-plane (WGSL `PlaneInfo`): points with `normal . p >= offset`
/// are outside. A moving one turns about its pivot at `spin` while the
/// pivot moves at `velocity` (the stage `move_colliders`): at time `t`,
/// `normal` is `normal0` turned by `spin t`, `pivot = pivot0 + velocity
/// t` and `offset = normal . pivot + offset0 - normal0 . pivot0` (the
/// boundary keeps its distance from the pivot).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PlaneInfo {
    /// Unit outward normal during the current step.
    pub normal: [f32; 2],
    pub offset: f32,
    pub layers: u32,
    /// Linear velocity, m/s ([`HalfPlane::velocity`](crate::world::HalfPlane::velocity)).
    pub velocity: [f32; 2],
    /// The point it turns about during the current step, m (on the
    /// boundary or anywhere else).
    pub pivot: [f32; 2],
    /// `normal` at `t = 0`.
    pub normal0: [f32; 2],
    /// `pivot` at `t = 0`, m.
    pub pivot0: [f32; 2],
    /// Angular velocity about the pivot, rad/s, counter-clockwise positive.
    pub spin: f32,
    /// `offset` at `t = 0`, m.
    pub offset0: f32,
    pub _pad0: u32,
    pub _pad1: u32,
}

impl PlanetInfo {
    /// Whether it moves or turns (its surface has a velocity somewhere).
    pub fn moves(&self) -> bool {
        self.velocity != [0.0; 2] || self.spin != 0.0
    }
}

impl PlaneInfo {
    /// Whether it moves or turns (its surface has a velocity somewhere).
    pub fn moves(&self) -> bool {
        self.velocity != [0.0; 2] || self.spin != 0.0
    }
}

/// All static colliders (WGSL `Colliders`, a uniform buffer); the counts are
/// `SimParams::num_planets` and `num_planes`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Colliders {
    pub planets: [PlanetInfo; MAX_PLANETS],
    pub planes: [PlaneInfo; MAX_PLANES],
}

impl Colliders {
    /// The table for these colliders (at most the capacities; the world
    /// enforces them when colliders are added).
    pub fn new(planets: &[PlanetInfo], planes: &[PlaneInfo]) -> Self {
        let mut c = Self::zeroed();
        c.planets[..planets.len()].copy_from_slice(planets);
        c.planes[..planes.len()].copy_from_slice(planes);
        c
    }
}
