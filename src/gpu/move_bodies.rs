//! Stage 0b wrapper for `shaders/move_bodies.wgsl` (CPU mirror:
//! `cpu::move_bodies`), in worlds with kinematic bodies: at the start of
//! each substep every kinematic body is posed at the substep's end, one
//! workgroup per body.

use super::buffers::Buffers;
use super::shaders::{bind_group, pipeline_with};

/// The kernel, specialised for the number of kinematic bodies.
pub struct MoveBodies {
    pipeline: wgpu::ComputePipeline,
    bind: [wgpu::BindGroup; 2],
    groups: u32,
}

impl MoveBodies {
    /// The stage for `count` kinematic bodies (at least one).
    pub fn new(device: &wgpu::Device, b: &Buffers, count: u32) -> Self {
        let constants = [("KINEMATIC_BODIES", count as f64)];
        let pipeline = pipeline_with(device, "move_bodies", "main", &constants);
        let bind = [0, 1].map(|k| {
            bind_group(
                device,
                "move_bodies",
                &pipeline,
                &[
                    (0, &b.sim),
                    (1, &b.bodies),
                    (2, &b.members),
                    (3, &b.state[k]),
                    (4, &b.kinematic),
                ],
            )
        });
        let groups = count.min(device.limits().max_compute_workgroups_per_dimension);
        Self {
            pipeline,
            bind,
            groups,
        }
    }

    /// Records the kernel on state copy `state`.
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: usize) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind[state], &[]);
        pass.dispatch_workgroups(self.groups, 1, 1);
    }
}
