//! Stage 2 wrapper for `shaders/collide.wgsl` (CPU mirror: `cpu::collide`),
//! with the fused integrate + collide kernel the step runs.

use super::buffers::Buffers;
use super::shaders::{bind_group, pipeline_with};
use crate::pack::Packed;

/// The collider counts the collide kernels are specialised for (the WGSL
/// overrides `NUM_PLANETS` and `NUM_PLANES` in `shaders/colliders.wgsl`):
/// constant loop bounds let the driver unroll the loops over the
/// colliders. The solver makes new pipelines when a world's counts change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColliderCounts {
    pub planets: u32,
    pub planes: u32,
    /// Whether some point's gravity scale is not 1 (WGSL
    /// `SCALED_GRAVITY`): the kernels that integrate load the scales only
    /// then.
    pub scaled_gravity: bool,
    /// Whether some planet or half-plane moves or turns (WGSL
    /// `MOVING_COLLIDERS`): only then do contacts read a collider's
    /// velocity and does each substep start by posing the colliders.
    pub moving: bool,
}

impl ColliderCounts {
    pub fn of(p: &Packed) -> Self {
        Self {
            planets: p.planets.len() as u32,
            planes: p.planes.len() as u32,
            scaled_gravity: p.gravity_scale.iter().any(|&g| g != 1.0),
            moving: p.planets.iter().any(|c| c.moves()) || p.planes.iter().any(|c| c.moves()),
        }
    }

    /// The values of the overrides of `shaders/colliders.wgsl`, for
    /// `pipeline_with`.
    pub fn collider_constants(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("NUM_PLANETS", self.planets as f64),
            ("NUM_PLANES", self.planes as f64),
            ("MOVING_COLLIDERS", f64::from(u8::from(self.moving))),
        ]
    }

    /// The values of the overrides of the modules that also hold
    /// `shaders/collide_point.wgsl`, for `pipeline_with`.
    pub fn constants(&self) -> Vec<(&'static str, f64)> {
        let mut c = self.collider_constants();
        c.push(("SCALED_GRAVITY", f64::from(u8::from(self.scaled_gravity))));
        c
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
        let binds = |p: &wgpu::ComputePipeline, label: &str, fused: bool| {
            [0, 1].map(|s| {
                let mut e = vec![
                    (0, &b.sim),
                    (1, &b.info),
                    (2, &b.materials),
                    (3, &b.colliders),
                    (4, &b.state[s]),
                ];
                // Only the fused kernel integrates (WGSL `gravity_at`) and
                // notes whether a point may move (`may_move`).
                if fused {
                    e.extend([(5, &b.gravity_scale), (6, &b.moved)]);
                }
                bind_group(device, label, p, &e)
            })
        };
        Self {
            collide_bind: binds(&collide, "collide", false),
            fused_bind: binds(&fused, "integrate_collide", true),
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
