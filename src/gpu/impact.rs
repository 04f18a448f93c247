//! Stage 5c wrapper for `shaders/impact.wgsl` (CPU mirror: `cpu::impact`):
//! count and resolve over the points, apply over the points, clear over the
//! bodies; in place on the current state copy.

use super::broad_phase::ContactBuffers;
use super::buffers::Buffers;
use super::collide::ColliderCounts;
use super::shaders::{bind_group, pipeline_with};

/// Count and resolve of one kind (the half-planes and planets alone, or
/// with the body contacts), with their bind groups per state copy.
pub struct Find {
    /// The collider counts the kernels are specialised for.
    counts: ColliderCounts,
    count: wgpu::ComputePipeline,
    resolve: wgpu::ComputePipeline,
    count_bind: [wgpu::BindGroup; 2],
    resolve_bind: [wgpu::BindGroup; 2],
}

impl Find {
    /// `entries`: the count and resolve kernels; `bindings(s)` every
    /// binding either reads on state copy `s`. The pipelines of `reuse`
    /// are kept when made for the same collider counts.
    fn new<'a>(
        device: &wgpu::Device,
        counts: ColliderCounts,
        entries: [&str; 2],
        bindings: &dyn Fn(usize) -> Vec<(u32, &'a wgpu::Buffer)>,
        reuse: Option<&Find>,
    ) -> Self {
        let constants = counts.constants();
        let [count, resolve] = match reuse {
            Some(r) if r.counts == counts => [r.count.clone(), r.resolve.clone()],
            _ => entries.map(|entry| pipeline_with(device, "impact", entry, &constants)),
        };
        // count adds no velocity changes (binding 9); resolve wakes
        // nothing (binding 15).
        let binds = |p: &wgpu::ComputePipeline, label, unused: u32| {
            [0, 1].map(|s| {
                let mut e = bindings(s);
                e.retain(|(k, _)| *k != unused);
                bind_group(device, label, p, &e)
            })
        };
        Self {
            counts,
            count_bind: binds(&count, "impact.count", 9),
            resolve_bind: binds(&resolve, "impact.resolve", 15),
            count,
            resolve,
        }
    }

    fn record(&self, pass: &mut wgpu::ComputePass, state: usize, points: (u32, u32)) {
        for (pipeline, bind) in [
            (&self.count, &self.count_bind),
            (&self.resolve, &self.resolve_bind),
        ] {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &bind[state], &[]);
            pass.dispatch_workgroups(points.0, points.1, 1);
        }
    }
}

/// The solver's bindings every count and resolve kernel reads.
fn common(b: &Buffers, s: usize) -> Vec<(u32, &wgpu::Buffer)> {
    vec![
        (0, &b.sim),
        (1, &b.info),
        (2, &b.materials),
        (3, &b.colliders),
        (4, &b.state[s]),
        (5, &b.frames),
        (6, &b.impact_home),
        (7, &b.impact_inv_mass),
        (8, &b.impact_counts),
        (9, &b.impact_acc),
    ]
}

/// The impact pass against the half-planes and planets alone, and the
/// per-point apply and per-body clear every impact pass ends with.
pub struct Impact {
    planes: Find,
    apply: wgpu::ComputePipeline,
    clear: wgpu::ComputePipeline,
    apply_bind: [wgpu::BindGroup; 2],
    clear_bind: wgpu::BindGroup,
}

impl Impact {
    /// `counts`: the collider counts the kernels are specialised for.
    pub fn new(device: &wgpu::Device, b: &Buffers, counts: ColliderCounts) -> Self {
        let planes = Find::new(
            device,
            counts,
            ["count_planes", "resolve_planes"],
            &|s| common(b, s),
            None,
        );
        let constants = counts.constants();
        let apply = pipeline_with(device, "impact", "apply", &constants);
        let clear = pipeline_with(device, "impact", "clear", &constants);
        let apply_bind = [0, 1].map(|s| {
            bind_group(
                device,
                "impact.apply",
                &apply,
                &[
                    (0, &b.sim),
                    (1, &b.info),
                    (4, &b.state[s]),
                    (6, &b.impact_home),
                    (8, &b.impact_counts),
                    (9, &b.impact_acc),
                ],
            )
        });
        let clear_bind = bind_group(
            device,
            "impact.clear",
            &clear,
            &[(0, &b.sim), (8, &b.impact_counts), (9, &b.impact_acc)],
        );
        Self {
            planes,
            apply,
            clear,
            apply_bind,
            clear_bind,
        }
    }

    /// Records the impact pass on state copy `state`: with `bodies` the
    /// kernels that also take the body contacts of the last narrow phase;
    /// `grids` are the points' and the bodies' dispatch grids.
    pub fn record(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        bodies: Option<&Find>,
        grids: ((u32, u32), (u32, u32)),
    ) {
        let (points, body_grid) = grids;
        bodies.unwrap_or(&self.planes).record(pass, state, points);
        pass.set_pipeline(&self.apply);
        pass.set_bind_group(0, &self.apply_bind[state], &[]);
        pass.dispatch_workgroups(points.0, points.1, 1);
        pass.set_pipeline(&self.clear);
        pass.set_bind_group(0, &self.clear_bind, &[]);
        pass.dispatch_workgroups(body_grid.0, body_grid.1, 1);
    }
}

/// Count and resolve with the body contacts, over the contact stages'
/// buffers; the pipelines of `reuse` are kept when made for the same
/// collider counts.
pub fn body_impact(
    device: &wgpu::Device,
    b: &Buffers,
    c: &ContactBuffers,
    counts: ColliderCounts,
    reuse: Option<&Find>,
) -> Find {
    let bindings = |s| {
        let mut e = common(b, s);
        e.extend([
            (10, &c.hits),
            (11, &c.contact_points),
            (12, &c.outlines),
            (13, &c.filters),
            (14, &b.rest_steps),
            (15, &b.sleep_speed),
        ]);
        e
    };
    Find::new(device, counts, ["count", "resolve"], &bindings, reuse)
}
