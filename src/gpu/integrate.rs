//! Stage 1 wrapper for `shaders/integrate.wgsl` (CPU mirror: `cpu::integrate`).

use super::buffers::Buffers;
use super::shaders::{bind_group, pipeline};

/// Symplectic Euler, in place on the current state.
pub struct Integrate {
    pipeline: wgpu::ComputePipeline,
    bind: [wgpu::BindGroup; 2],
}

impl Integrate {
    pub fn new(device: &wgpu::Device, b: &Buffers) -> Self {
        let pipeline = pipeline(device, "integrate", "main");
        let bind = [0, 1].map(|s| {
            bind_group(
                device,
                "integrate",
                &pipeline,
                &[(0, &b.sim), (1, &b.info), (2, &b.state[s])],
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
