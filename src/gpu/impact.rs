//! Stage 5c wrapper for `shaders/impact.wgsl` (CPU mirror: `cpu::impact`):
//! planes over the bodies, then (after a narrow phase) count and resolve
//! over the points, then apply over the bodies; or planes and apply as one
//! kernel; in place on the current state copy.

use super::broad_phase::ContactBuffers;
use super::buffers::Buffers;
use super::collide::ColliderCounts;
use super::shaders::{bind_group, pipeline_or_kept, pipeline_with};

/// The per-body kernels: planes, apply, and the two fused.
pub struct Impact {
    planes: wgpu::ComputePipeline,
    apply: wgpu::ComputePipeline,
    planes_apply: wgpu::ComputePipeline,
    planes_bind: [wgpu::BindGroup; 2],
    apply_bind: [wgpu::BindGroup; 2],
    planes_apply_bind: [wgpu::BindGroup; 2],
}

impl Impact {
    /// `counts`: the collider counts the kernels are specialised for.
    pub fn new(device: &wgpu::Device, b: &Buffers, counts: ColliderCounts) -> Self {
        let constants = counts.constants();
        let get = |entry| pipeline_with(device, "impact", entry, &constants);
        let (planes, apply, planes_apply) = (get("planes"), get("apply"), get("planes_apply"));
        // What planes reads besides the state; apply reads the bodies,
        // their members and their points' info.
        let planes_entries = |s: usize| {
            vec![
                (0, &b.sim),
                (1, &b.info),
                (2, &b.materials),
                (3, &b.colliders),
                (4, &b.state[s]),
                (5, &b.frames),
                (7, &b.impact_inv_mass),
                (16, &b.bodies),
                (17, &b.members),
            ]
        };
        let binds = |p: &wgpu::ComputePipeline, label, totals: bool, reads: bool| {
            [0, 1].map(|s| {
                let mut e = if reads {
                    planes_entries(s)
                } else {
                    vec![
                        (0, &b.sim),
                        (1, &b.info),
                        (4, &b.state[s]),
                        (16, &b.bodies),
                        (17, &b.members),
                    ]
                };
                if totals {
                    e.push((9, &b.impact_sums));
                }
                bind_group(device, label, p, &e)
            })
        };
        Self {
            planes_bind: binds(&planes, "impact.planes", true, true),
            apply_bind: binds(&apply, "impact.apply", true, false),
            planes_apply_bind: binds(&planes_apply, "impact.planes_apply", false, true),
            planes,
            apply,
            planes_apply,
        }
    }

    /// Records the impact pass on state copy `state`: with `bodies` the
    /// body impacts of the last narrow phase too; `grids` are the points'
    /// and the bodies' dispatch grids.
    pub fn record(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        bodies: Option<&BodyImpact>,
        grids: ((u32, u32), (u32, u32)),
    ) {
        let (points, body_grid) = grids;
        let Some(b) = bodies else {
            pass.set_pipeline(&self.planes_apply);
            pass.set_bind_group(0, &self.planes_apply_bind[state], &[]);
            pass.dispatch_workgroups(body_grid.0, body_grid.1, 1);
            return;
        };
        pass.set_pipeline(&self.planes);
        pass.set_bind_group(0, &self.planes_bind[state], &[]);
        pass.dispatch_workgroups(body_grid.0, body_grid.1, 1);
        for (pipeline, bind) in [(&b.count, &b.count_bind), (&b.resolve, &b.resolve_bind)] {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind, &[]);
            pass.dispatch_workgroups(points.0, points.1, 1);
        }
        pass.set_pipeline(&self.apply);
        pass.set_bind_group(0, &self.apply_bind[state], &[]);
        pass.dispatch_workgroups(body_grid.0, body_grid.1, 1);
    }
}
/// Count and resolve of the body impacts, over the contact stages'
/// buffers. Neither reads the state: one bind group each serves both
/// copies.
pub struct BodyImpact {
    count: wgpu::ComputePipeline,
    resolve: wgpu::ComputePipeline,
    count_bind: wgpu::BindGroup,
    resolve_bind: wgpu::BindGroup,
}

impl BodyImpact {
    /// The pipelines of `reuse` are kept rather than compiled again.
    pub fn new(
        device: &wgpu::Device,
        b: &Buffers,
        c: &ContactBuffers,
        reuse: Option<&BodyImpact>,
    ) -> Self {
        let count = pipeline_or_kept(device, "impact", "count", reuse.map(|r| &r.count));
        let resolve = pipeline_or_kept(device, "impact", "resolve", reuse.map(|r| &r.resolve));
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
        ];
        // count wakes (sleep speeds).
        let mut count_entries = common.to_vec();
        count_entries.push((15, &b.sleep_speed));
        Self {
            count_bind: bind_group(device, "impact.count", &count, &count_entries),
            resolve_bind: bind_group(device, "impact.resolve", &resolve, &common),
            count,
            resolve,
        }
    }
}
