//! Stage 5c wrapper for `shaders/impact.wgsl` (CPU mirror: `cpu::impact`):
//! after the first narrow phase of a substep, count and resolve over the
//! points (or the body contacts' active list), apply (which clears the
//! sums for the next substep) over the bodies; in place on the current
//! state copy.

use super::body_collide::PointPasses;
use super::broad_phase::ContactBuffers;
use super::buffers::Buffers;
use super::shaders::{bind_group, pipeline, pipeline_or_kept};

/// The per-body kernel, apply.
pub struct Impact {
    apply: wgpu::ComputePipeline,
    apply_bind: [wgpu::BindGroup; 2],
}

impl Impact {
    pub fn new(device: &wgpu::Device, b: &Buffers) -> Self {
        let apply = pipeline(device, "impact", "apply");
        let apply_bind = [0, 1].map(|s| {
            bind_group(
                device,
                "impact.apply",
                &apply,
                &[
                    (0, &b.sim),
                    (1, &b.info),
                    (4, &b.state[s]),
                    (9, &b.impact_sums),
                    (16, &b.bodies),
                    (17, &b.members),
                ],
            )
        });
        Self { apply, apply_bind }
    }

    /// Records the impact pass on state copy `state`, over the contacts of
    /// the last narrow phase; `grids` are the points' and the bodies'
    /// dispatch grids.
    pub fn record(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        bodies: &BodyImpact,
        grids: ((u32, u32), (u32, u32)),
    ) {
        let (points, body_grid) = grids;
        for (pipeline, bind) in [
            (&bodies.count, &bodies.count_bind[state]),
            (&bodies.resolve, &bodies.resolve_bind[state]),
        ] {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind, &[]);
            bodies.passes.dispatch(pass, points);
        }
        pass.set_pipeline(&self.apply);
        pass.set_bind_group(0, &self.apply_bind[state], &[]);
        pass.dispatch_workgroups(body_grid.0, body_grid.1, 1);
    }
}

/// Count and resolve of the body impacts, over the contact stages'
/// buffers, one bind group each per state copy (a kinematic side's
/// velocity is taken at the point's position).
pub struct BodyImpact {
    /// Over every point or the active list (WGSL `LISTED`).
    passes: PointPasses,
    count: wgpu::ComputePipeline,
    resolve: wgpu::ComputePipeline,
    count_bind: [wgpu::BindGroup; 2],
    resolve_bind: [wgpu::BindGroup; 2],
}

impl BodyImpact {
    /// Count and resolve over the points the body contacts' passes run
    /// over (`passes`: every point, or the active list). The pipelines of
    /// `reuse` are kept rather than compiled again when it was made the
    /// same way.
    pub fn new(
        device: &wgpu::Device,
        b: &Buffers,
        c: &ContactBuffers,
        passes: &PointPasses,
        reuse: Option<&BodyImpact>,
    ) -> Self {
        let listed = passes.listed();
        let reuse = reuse.filter(|r| r.passes.listed() == listed);
        let constants = [("LISTED", if listed { 1.0 } else { 0.0 })];
        let get = |entry: &str, old| pipeline_or_kept(device, "impact", entry, &constants, old);
        let count = get("count", reuse.map(|r| &r.count));
        let resolve = get("resolve", reuse.map(|r| &r.resolve));
        let common = [
            (0, &b.sim),
            (1, &b.info),
            (5, &b.frames),
            (6, &b.impact_home),
            (7, &b.impact_inv_mass),
            (8, &b.impact_sums),
            (10, &c.hits),
            (11, &c.contact_points),
            (12, &c.outlines),
            (13, &c.filters),
            (14, &b.rest_steps),
            (18, &c.point_counts),
            (19, &c.list_head),
        ];
        let entries = |s: usize, wakes: bool| {
            let mut e = common.to_vec();
            e.push((4, &b.state[s]));
            // count wakes (sleep speeds).
            if wakes {
                e.push((15, &b.sleep_speed));
            }
            e
        };
        Self {
            passes: passes.clone(),
            count_bind: [0, 1]
                .map(|s| bind_group(device, "impact.count", &count, &entries(s, true))),
            resolve_bind: [0, 1]
                .map(|s| bind_group(device, "impact.resolve", &resolve, &entries(s, false))),
            count,
            resolve,
        }
    }
}
