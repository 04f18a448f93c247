//! Stage 2 wrapper for `shaders/collide.wgsl` (CPU mirror: `cpu::collide`),
//! with the fused integrate + collide kernel the step runs.

use super::buffers::Buffers;
use super::shaders::{bind_group, pipeline_with};
use crate::pack::Packed;

/// The collider counts the collide kernels are specialised for (the WGSL
/// overrides `NUM_PLANETS` and `NUM_PLANES` in
/// `shaders/collide_point.wgsl`): constant loop bounds let the driver unroll
/// the loops over the colliders. The solver makes new pipelines when a
/// world's counts change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColliderCounts {
    pub planets: u32,
    pub planes: u32,
}

impl ColliderCounts {
    pub fn of(p: &Packed) -> Self {
        Self {
            planets: p.planets.len() as u32,
            planes: p.planes.len() as u32,
        }
    }

    /// The values of the overrides, for `pipeline_with`.
    pub fn constants(&self) -> [(&'static str, f64); 2] {
        [
            ("NUM_PLANETS", self.planets as f64),
            ("NUM_PLANES", self.planes as f64),
        ]
    }
}

/// Points against planets and half-planes, in place on the current state.
pub struct Collide {
    collide: wgpu::ComputePipeline,
    fused: wgpu::ComputePipeline,
    collide_bind: [wgpu::BindGroup; 2],
    fused_bind: [wgpu::BindGroup; 2],
}

impl Collide {
    pub fn new(device: &wgpu::Device, b: &Buffers, counts: ColliderCounts) -> Self {
        let constants = counts.constants();
        let collide = pipeline_with(device, "collide", "main", &constants);
        let fused = pipeline_with(device, "collide", "integrate_collide", &constants);
        let binds = |p: &wgpu::ComputePipeline, label: &str| {
            [0, 1].map(|s| {
                bind_group(
                    device,
                    label,
                    p,
                    &[
                        (0, &b.sim),
                        (1, &b.info),
                        (2, &b.materials),
                        (3, &b.colliders),
                        (4, &b.state[s]),
                    ],
                )
            })
        };
        Self {
            collide_bind: binds(&collide, "collide"),
            fused_bind: binds(&fused, "integrate_collide"),
            collide,
            fused,
        }
    }

    /// Records the collide stage alone on state copy `state`.
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: usize, grid: (u32, u32)) {
        pass.set_pipeline(&self.collide);
        pass.set_bind_group(0, &self.collide_bind[state], &[]);
        pass.dispatch_workgroups(grid.0, grid.1, 1);
    }

    /// Records integrate then collide as one dispatch on copy `state`.
    pub fn record_fused(&self, pass: &mut wgpu::ComputePass, state: usize, grid: (u32, u32)) {
        pass.set_pipeline(&self.fused);
        pass.set_bind_group(0, &self.fused_bind[state], &[]);
        pass.dispatch_workgroups(grid.0, grid.1, 1);
    }
}
