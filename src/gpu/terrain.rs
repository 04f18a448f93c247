//! Stage 2b wrapper for `shaders/terrain.wgsl` (CPU mirror:
//! `cpu::terrain`): points against the terrain, in worlds with terrain,
//! after the planets and half-planes in each substep.

use super::buffers::Buffers;
use super::shaders::{bind_group, pipeline};

/// The terrain kernel and its bind group for each state copy.
pub struct Terrain {
    pipeline: wgpu::ComputePipeline,
    bind: [wgpu::BindGroup; 2],
}

impl Terrain {
    pub fn new(device: &wgpu::Device, b: &Buffers) -> Self {
        let pipeline = pipeline(device, "terrain", "main");
        let bind = [0, 1].map(|s| {
            bind_group(
                device,
                "terrain",
                &pipeline,
                &[
                    (0, &b.sim),
                    (1, &b.info),
                    (2, &b.materials),
                    (4, &b.state[s]),
                    (6, &b.terrain_grid),
                    (7, &b.terrain_segments),
                    (8, &b.terrain_cells),
                ],
            )
        });
        Self { pipeline, bind }
    }

    /// Records the stage on state copy `state`.
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: usize, grid: (u32, u32)) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind[state], &[]);
        pass.dispatch_workgroups(grid.0, grid.1, 1);
    }
}
