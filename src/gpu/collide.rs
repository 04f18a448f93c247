//! Stage 2 wrapper for `shaders/collide.wgsl` (CPU mirror: `cpu::collide`).

use super::buffers::Buffers;
use super::shaders::{bind_group, pipeline};

/// Points against planets and half-planes, in place on the current state.
pub struct Collide {
    pipeline: wgpu::ComputePipeline,
    bind: [wgpu::BindGroup; 2],
}

impl Collide {
    pub fn new(device: &wgpu::Device, b: &Buffers) -> Self {
        let pipeline = pipeline(device, "collide", "main");
        let bind = [0, 1].map(|s| {
            bind_group(
                device,
                "collide",
                &pipeline,
                &[
                    (0, &b.sim),
                    (1, &b.info),
                    (2, &b.materials),
                    (3, &b.colliders),
                    (4, &b.pos[s]),
                    (5, &b.vel[s]),
                ],
            )
        });
        Self { pipeline, bind }
    }

    /// Records one dispatch on state copy `state`.
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: usize, grid: (u32, u32)) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind[state], &[]);
        pass.dispatch_workgroups(grid.0, grid.1, 1);
    }
}
