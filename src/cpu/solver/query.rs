//! Queries on the CPU solver, answered at once (`cpu::query`).

use super::CpuSolver;
use crate::cpu::query;
use crate::error::WorldError;
use crate::query::{Ray, RayHit, decode};

impl CpuSolver {
    /// What each ray hits first, of the bodies' outlines (as body contacts
    /// see them: bodies with an outline of 3 points or more, when body
    /// collisions are packed) and the planets and half-planes, or `None`.
    /// A ray from inside a body does not see it. Refuses a bad ray, naming
    /// it by its place in `rays`.
    pub fn cast_rays(&self, rays: &[Ray]) -> Result<Vec<Option<RayHit>>, WorldError> {
        let queries = rays
            .iter()
            .enumerate()
            .map(|(k, r)| r.encode(k))
            .collect::<Result<Vec<_>, _>>()?;
        let p = &self.packed;
        let scene = query::Scene {
            sim: &p.sim,
            pos: &p.pos,
            outlines: &p.outlines,
            outline_points: &p.outline_points,
            bodies: &p.colliders,
            planets: &p.planets,
            planes: &p.planes,
        };
        Ok(queries
            .iter()
            .map(|q| decode(&query::cast(&scene, q)))
            .collect())
    }
}
