//! Stage 3b wrapper for `shaders/rods.wgsl` (CPU mirror: `cpu::rods`).

use super::buffers::Buffers;
use super::shaders::{bind_group, pipeline};

/// One Jacobi iteration of hard rods: reads state `s`, writes `1 - s`.
pub struct Rods {
    pipeline: wgpu::ComputePipeline,
    bind: [wgpu::BindGroup; 2],
}

impl Rods {
    pub fn new(device: &wgpu::Device, b: &Buffers) -> Self {
        let pipeline = pipeline(device, "rods", "main");
        let bind = [0, 1].map(|s| {
            bind_group(
                device,
                "rods",
                &pipeline,
                &[
                    (0, &b.sim),
                    (1, &b.info),
                    (2, &b.rod_offsets),
                    (3, &b.rod_halves),
                    (4, &b.pos[s]),
                    (5, &b.vel[s]),
                    (6, &b.pos[1 - s]),
                    (7, &b.vel[1 - s]),
                ],
            )
        });
        Self { pipeline, bind }
    }

    /// Records one iteration reading copy `state`; returns the copy written.
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: usize, grid: (u32, u32)) -> usize {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind[state], &[]);
        pass.dispatch_workgroups(grid.0, grid.1, 1);
        1 - state
    }
}
