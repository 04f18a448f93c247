//! Queries on the CPU solver, answered at once (`cpu::query`).

use glam::Vec2;

use super::CpuSolver;
use crate::cpu::query;
use crate::error::WorldError;
use crate::query::{Ray, RayHit, body_of, check_box, check_probes, decode};
use crate::world::BodyHandle;

impl CpuSolver {
    /// What the queries read, with the bodies' boxes now.
    fn query_scene(&self) -> query::Scene<'_> {
        let p = &self.packed;
        query::Scene {
            boxes: query::body_boxes(&p.sim, &p.pos, &p.outlines, &p.outline_points, &p.colliders),
            sim: &p.sim,
            pos: &p.pos,
            outlines: &p.outlines,
            outline_points: &p.outline_points,
            bodies: &p.colliders,
            planets: &p.planets,
            planes: &p.planes,
            segments: &p.terrain.segments,
        }
    }

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
        let scene = self.query_scene();
        Ok(queries
            .iter()
            .map(|q| decode(&query::cast(&scene, q)))
            .collect())
    }

    /// The body under each point: the lowest-numbered body whose outline
    /// holds it, or `None`. Refuses a point beyond the world's extent.
    pub fn bodies_at(&self, points: &[Vec2]) -> Result<Vec<Option<BodyHandle>>, WorldError> {
        check_probes(points)?;
        let scene = self.query_scene();
        Ok(points
            .iter()
            .map(|p| body_of(query::body_at(&scene, *p)))
            .collect())
    }

    /// The bodies whose outline's bounding box meets the box `lo..=hi`,
    /// in index order. Refuses a box beyond the world's extent or with
    /// `lo` above `hi`.
    pub fn bodies_in_box(&self, lo: Vec2, hi: Vec2) -> Result<Vec<BodyHandle>, WorldError> {
        check_box(lo, hi)?;
        Ok(query::bodies_in_box(&self.query_scene(), lo, hi)
            .into_iter()
            .map(BodyHandle)
            .collect())
    }
}
