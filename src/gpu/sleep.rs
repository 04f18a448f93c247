//! Stage 6 wrapper for `shaders/sleep.wgsl` (CPU mirror: `cpu::sleep`):
//! measure, update and settle, once per step after the last substep.

use super::buffers::Buffers;
use super::shaders::{bind_group, pipeline};

/// Sleeping's three dispatches over the points.
pub struct Sleep {
    kernels: [(wgpu::ComputePipeline, [wgpu::BindGroup; 2]); 3],
}

impl Sleep {
    pub fn new(device: &wgpu::Device, b: &Buffers) -> Self {
        let kernel = |entry: &str, bindings: &[u32]| {
            let pipeline = pipeline(device, "sleep", entry);
            let bind = [0, 1].map(|s| {
                let all: [(u32, &wgpu::Buffer); 7] = [
                    (0, &b.sim),
                    (1, &b.state[s]),
                    (2, &b.sleep_points),
                    (3, &b.sleep_speed),
                    (4, &b.rest_steps),
                    (5, &b.info),
                    (6, &b.sleep_last),
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
            kernels: [
                kernel("measure", &[0, 1, 2, 3, 6]),
                kernel("update", &[0, 2, 3, 4]),
                kernel("settle", &[0, 1, 2, 4, 5]),
            ],
        }
    }

    /// Records settle alone on state copy `state` (after the rest counts
    /// were written, as by a checkpoint's restore).
    pub fn record_settle(&self, pass: &mut wgpu::ComputePass, state: usize, grid: (u32, u32)) {
        let (pipeline, bind) = &self.kernels[2];
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bind[state], &[]);
        pass.dispatch_workgroups(grid.0, grid.1, 1);
    }

    /// Records the three dispatches on state copy `state`.
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: usize, grid: (u32, u32)) {
        for (pipeline, bind) in &self.kernels {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &bind[state], &[]);
            pass.dispatch_workgroups(grid.0, grid.1, 1);
        }
    }
}
