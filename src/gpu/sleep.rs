//! Stage 6 wrapper for `shaders/sleep.wgsl` (CPU mirror: `cpu::sleep`):
//! measure, touch (with body contacts), update and settle, once per step
//! after the last substep; wake_flagged, at the start of each substep of a
//! world with kinematic bodies; wake, recorded by edits; and
//! remap_supports and settle_listed, recorded by a removal.

use super::broad_phase::ContactBuffers;
use super::buffers::Buffers;
use super::collide::ColliderCounts;
use super::shaders::{bind_group, pipeline, pipeline_or_kept, pipeline_with};

/// One kernel of the stage and its bind group for each state copy.
type Kernel = (wgpu::ComputePipeline, [wgpu::BindGroup; 2]);

/// Sleeping's dispatches over the points.
pub struct Sleep {
    measure: Kernel,
    update: Kernel,
    settle: Kernel,
    wake_flagged: Kernel,
    wake: Kernel,
}

impl Sleep {
    /// `counts`: the colliders measure tests for moving ones.
    pub fn new(device: &wgpu::Device, b: &Buffers, counts: ColliderCounts) -> Self {
        let constants = counts.collider_constants();
        let kernel = |entry: &str, bindings: &[u32]| {
            let pipeline = if entry == "measure" {
                pipeline_with(device, "sleep", entry, &constants)
            } else {
                pipeline(device, "sleep", entry)
            };
            let bind = [0, 1].map(|s| {
                let all: [(u32, &wgpu::Buffer); 9] = [
                    (0, &b.sim),
                    (1, &b.state[s]),
                    (2, &b.sleep_points),
                    (3, &b.sleep_speed),
                    (4, &b.rest_steps),
                    (5, &b.info),
                    (6, &b.sleep_last),
                    (9, &b.sleep_support),
                    (11, &b.colliders),
                ];
                let used: Vec<_> = all
                    .into_iter()
                    .filter(|(k, _)| bindings.contains(k))
                    .collect();
                bind_group(device, entry, &pipeline, &used)
            });
            (pipeline, bind)
        };
        Self {
            // Where colliders move, measure tests them (the layout has the
            // bindings either way).
            measure: kernel("measure", &[0, 1, 2, 3, 5, 6, 11]),
            update: kernel("update", &[0, 2, 3, 4]),
            settle: kernel("settle", &[0, 1, 2, 4, 5, 6]),
            wake_flagged: kernel("wake_flagged", &[0, 1, 2, 3, 4, 5, 6]),
            wake: kernel("wake", &[0, 1, 2, 3, 4, 5, 6, 9]),
        }
    }

    /// Records measure, touch (where `touch` is given: the world's body
    /// contacts run), update and settle on state copy `state`: a step's
    /// end.
    pub fn record(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        grid: (u32, u32),
        touch: Option<&SleepTouch>,
    ) {
        dispatch(pass, &self.measure, state, grid);
        if let Some(t) = touch {
            pass.set_pipeline(&t.pipeline);
            pass.set_bind_group(0, &t.bind[state], &[]);
            pass.dispatch_workgroups(grid.0, grid.1, 1);
        }
        for k in [&self.update, &self.settle] {
            dispatch(pass, k, state, grid);
        }
    }

    /// Records settle alone on state copy `state` (after the rest counts
    /// were written, as by a checkpoint's restore).
    pub fn record_settle(&self, pass: &mut wgpu::ComputePass, state: usize, grid: (u32, u32)) {
        dispatch(pass, &self.settle, state, grid);
    }

    /// Records wake_flagged on state copy `state`: the sleepers a contact
    /// flagged this step wake now.
    pub fn record_wake_flagged(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        grid: (u32, u32),
    ) {
        dispatch(pass, &self.wake_flagged, state, grid);
    }

    /// Records wake on state copy `state`: everything awake, motion
    /// measured from the current state.
    pub fn record_wake(&self, pass: &mut wgpu::ComputePass, state: usize, grid: (u32, u32)) {
        dispatch(pass, &self.wake, state, grid);
    }
}

/// Sleeping's touch (WGSL `touch`): over the contact stages' contacts,
/// outlines and boxes, so it is made with them, and again when an edit
/// makes them again. One bind group per state copy. With it, the pipeline
/// of `remap_supports`, whose bind group a removal makes.
pub struct SleepTouch {
    pipeline: wgpu::ComputePipeline,
    bind: [wgpu::BindGroup; 2],
    remap: wgpu::ComputePipeline,
}

impl SleepTouch {
    /// The kernel over `b`'s sleeping buffers and `c`'s contacts, with the
    /// pipeline of `reuse` where given.
    pub fn new(
        device: &wgpu::Device,
        b: &Buffers,
        c: &ContactBuffers,
        reuse: Option<&SleepTouch>,
    ) -> Self {
        let pipeline = pipeline_or_kept(device, "sleep", "touch", &[], reuse.map(|r| &r.pipeline));
        let remap = pipeline_or_kept(
            device,
            "sleep",
            "remap_supports",
            &[],
            reuse.map(|r| &r.remap),
        );
        let bind = [0, 1].map(|s| {
            bind_group(
                device,
                "touch",
                &pipeline,
                &[
                    (0, &b.sim),
                    (1, &b.state[s]),
                    (2, &b.sleep_points),
                    (3, &b.sleep_speed),
                    (4, &b.rest_steps),
                    (7, &c.hits),
                    (8, &c.outlines),
                    (9, &b.sleep_support),
                    (10, &c.aabbs),
                ],
            )
        });
        Self {
            pipeline,
            bind,
            remap,
        }
    }

    /// Records remap_supports over the points and bodies before a removal
    /// (`b`'s sleeping buffers, `c`'s outlines, the sim uniform still the
    /// old one), with `maps` the removal's.
    pub fn record_remap_supports(
        &self,
        device: &wgpu::Device,
        pass: &mut wgpu::ComputePass,
        (b, c): (&Buffers, &ContactBuffers),
        maps: &super::remap_contacts::RemapTable,
        grid: (u32, u32),
    ) {
        let bind = bind_group(
            device,
            "remap_supports",
            &self.remap,
            &[
                (0, &b.sim),
                (2, &b.sleep_points),
                (3, &b.sleep_speed),
                (4, &b.rest_steps),
                (8, &c.outlines),
                (9, &b.sleep_support),
                (12, &maps.words),
                (14, &maps.spans),
            ],
        );
        pass.set_pipeline(&self.remap);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(grid.0, grid.1, 1);
    }
}

/// Records `settle_listed` on state copy 0 over the `count` points in
/// `listed` (a removal followed in place: those whose info the upload
/// wrote from the mirror; CPU mirror `cpu::sleep::settle` with a list), with
/// `pipeline` the kernel's ([`RemapKernels::settle`](super::remap_contacts::RemapKernels)).
pub fn record_settle_listed(
    device: &wgpu::Device,
    pass: &mut wgpu::ComputePass,
    pipeline: &wgpu::ComputePipeline,
    b: &Buffers,
    (listed, count): (&wgpu::Buffer, u32),
) {
    if count == 0 {
        return;
    }
    let bind = bind_group(
        device,
        "settle_listed",
        pipeline,
        &[
            (0, &b.sim),
            (1, &b.state[0]),
            (2, &b.sleep_points),
            (4, &b.rest_steps),
            (5, &b.info),
            (6, &b.sleep_last),
            (13, listed),
        ],
    );
    let max = device.limits().max_compute_workgroups_per_dimension;
    let groups = super::shaders::grid(count.div_ceil(crate::layout::WORKGROUP_SIZE), max);
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, &bind, &[]);
    pass.dispatch_workgroups(groups.0, groups.1, 1);
}

fn dispatch(
    pass: &mut wgpu::ComputePass,
    (pipeline, bind): &Kernel,
    state: usize,
    grid: (u32, u32),
) {
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, &bind[state], &[]);
    pass.dispatch_workgroups(grid.0, grid.1, 1);
}
