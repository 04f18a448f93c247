//! Stage 2 wrapper for `shaders/collide.wgsl` (CPU mirror: `cpu::collide`),
//! with the fused integrate + collide kernel the step runs.

use super::buffers::Buffers;
use super::placed::{PlacedKernel, dispatch};
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
/// In a world with body contacts the kernels read and note the points'
/// settled state in the warm starts ([`Collide::bind_warm`]).
pub struct Collide {
    collide: wgpu::ComputePipeline,
    fused: wgpu::ComputePipeline,
    collide_bind: [wgpu::BindGroup; 2],
    fused_bind: [wgpu::BindGroup; 2],
    counts: ColliderCounts,
    /// `main_placed` and `integrate_collide_placed`.
    placed: Option<(PlacedKernel, PlacedKernel)>,
}

/// The bind groups of `collide.wgsl`'s kernel `p` (`fused`: the one that
/// integrates too), over state copies 0 and 1 and, for a `_placed`
/// kernel, the warm starts.
fn binds(
    device: &wgpu::Device,
    b: &Buffers,
    p: &wgpu::ComputePipeline,
    fused: bool,
    warm: Option<&wgpu::Buffer>,
) -> [wgpu::BindGroup; 2] {
    [0, 1].map(|s| {
        let mut e = vec![
            (0, &b.sim),
            (1, &b.info),
            (2, &b.materials),
            (3, &b.colliders),
            (4, &b.state[s]),
        ];
        // Only the fused kernel integrates (WGSL `gravity_at`) and notes
        // whether a point may move (`may_move`).
        if fused {
            e.extend([(5, &b.gravity_scale), (6, &b.moved)]);
        }
        if let Some(w) = warm {
            e.push((7, w));
        }
        bind_group(device, "collide", p, &e)
    })
}

impl Collide {
    pub fn new(device: &wgpu::Device, b: &Buffers, counts: ColliderCounts) -> Self {
        let constants = counts.constants();
        let collide = pipeline_with(device, "collide", "main", &constants);
        let fused = pipeline_with(device, "collide", "integrate_collide", &constants);
        Self {
            collide_bind: binds(device, b, &collide, false, None),
            fused_bind: binds(device, b, &fused, true, None),
            collide,
            fused,
            counts,
            placed: None,
        }
    }

    /// Binds the warm starts `warm` of a world with body contacts (its
    /// contact buffers', made again by every edit), or none: with them the
    /// `_placed` kernels run (compiled on the first call), which lift a
    /// point not yet settled out of the skin slowly (`cpu::collider_push`).
    pub fn bind_warm(&mut self, device: &wgpu::Device, b: &Buffers, warm: Option<&wgpu::Buffer>) {
        let (old_collide, old_fused) = self.placed.take().unzip();
        let constants = self.counts.constants();
        let kernel = |old, entry: &str, fused: bool| {
            PlacedKernel::rebind(
                old,
                warm,
                || pipeline_with(device, "collide", entry, &constants),
                |p, w| binds(device, b, p, fused, Some(w)),
            )
        };
        self.placed = kernel(old_collide, "main_placed", false).zip(kernel(
            old_fused,
            "integrate_collide_placed",
            true,
        ));
    }

    /// Records the collide stage alone on state copy `state`.
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: usize, grid: (u32, u32)) {
        let kernel = match &self.placed {
            Some((k, _)) => k.get(state),
            None => (&self.collide, &self.collide_bind[state]),
        };
        dispatch(pass, kernel, grid);
    }

    /// Records integrate then collide as one dispatch on copy `state`.
    pub fn record_fused(&self, pass: &mut wgpu::ComputePass, state: usize, grid: (u32, u32)) {
        let kernel = match &self.placed {
            Some((_, k)) => k.get(state),
            None => (&self.fused, &self.fused_bind[state]),
        };
        dispatch(pass, kernel, grid);
    }
}
