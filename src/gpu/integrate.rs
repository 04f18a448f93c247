//! Stage 1 wrapper for `shaders/integrate.wgsl` (CPU mirror: `cpu::integrate`).

use super::buffers::Buffers;
use super::collide::ColliderCounts;
use super::shaders::{bind_group, pipeline_with};

/// Symplectic Euler, in place on the current state; made for the world's
/// planet count and whether it scales gravity (`ColliderCounts`).
pub struct Integrate {
    pipeline: wgpu::ComputePipeline,
    bind: [wgpu::BindGroup; 2],
}

impl Integrate {
    pub fn new(device: &wgpu::Device, b: &Buffers, counts: ColliderCounts) -> Self {
        let pipeline = pipeline_with(device, "integrate", "main", &counts.constants());
        let bind = [0, 1].map(|s| {
            let e = [
                (0, &b.sim),
                (1, &b.info),
                (2, &b.state[s]),
                (4, &b.colliders),
                (5, &b.gravity_scale),
            ];
            bind_group(device, "integrate", &pipeline, &e)
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
