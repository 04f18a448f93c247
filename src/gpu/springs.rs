//! Stage 3a wrapper for `shaders/springs.wgsl` (CPU mirror: `cpu::springs`),
//! and the per-point spring gather it shares with the rods (stage 3b).

use super::buffers::Buffers;
use super::shaders::{bind_group, pipeline};

/// Force springs and soft constraints: reads state `s`, writes `1 - s`.
pub struct Springs(SpringGather);

impl Springs {
    pub fn new(device: &wgpu::Device, b: &Buffers) -> Self {
        Self(SpringGather::new(
            device,
            "springs",
            b,
            &b.spring_ranges,
            &b.spring_halves,
        ))
    }

    /// Records one dispatch reading copy `state`; returns the copy written.
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: usize, grid: (u32, u32)) -> usize {
        self.0.record(pass, state, grid)
    }
}

/// A per-point Jacobi gather over spring records (`springs.wgsl`,
/// `rods.wgsl`, same bindings): reads state copy `s`, writes `1 - s`.
pub(crate) struct SpringGather {
    pipeline: wgpu::ComputePipeline,
    bind: [wgpu::BindGroup; 2],
}

impl SpringGather {
    pub(crate) fn new(
        device: &wgpu::Device,
        stage: &str,
        b: &Buffers,
        offsets: &wgpu::Buffer,
        halves: &wgpu::Buffer,
    ) -> Self {
        let pipeline = pipeline(device, stage, "main");
        let bind = [0, 1].map(|s| {
            bind_group(
                device,
                stage,
                &pipeline,
                &[
                    (0, &b.sim),
                    (1, &b.info),
                    (2, offsets),
                    (3, halves),
                    (4, &b.state[s]),
                    (6, &b.state[1 - s]),
                ],
            )
        });
        Self { pipeline, bind }
    }

    /// Records one dispatch reading copy `state`; returns the copy written.
    pub(crate) fn record(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        grid: (u32, u32),
    ) -> usize {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind[state], &[]);
        pass.dispatch_workgroups(grid.0, grid.1, 1);
        1 - state
    }
}
