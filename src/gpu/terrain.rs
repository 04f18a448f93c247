//! Stage 2b wrapper for `shaders/terrain.wgsl` (CPU mirror:
//! `cpu::terrain`): points against the terrain, in worlds with terrain,
//! after the planets and half-planes in each substep.

use super::buffers::Buffers;
use super::placed::{PlacedKernel, dispatch};
use super::shaders::{bind_group, pipeline};

/// The terrain kernel and its bind group for each state copy; in a world
/// with body contacts, `main_placed` over the warm starts
/// ([`Terrain::bind_warm`]).
pub struct Terrain {
    pipeline: wgpu::ComputePipeline,
    bind: [wgpu::BindGroup; 2],
    placed: Option<PlacedKernel>,
}

/// The bind groups of the terrain kernel `p` on state copies 0 and 1,
/// with the warm starts `warm` where it takes them.
fn binds(
    device: &wgpu::Device,
    b: &Buffers,
    p: &wgpu::ComputePipeline,
    warm: Option<&wgpu::Buffer>,
) -> [wgpu::BindGroup; 2] {
    [0, 1].map(|s| {
        let mut e = vec![
            (0, &b.sim),
            (1, &b.info),
            (2, &b.materials),
            (4, &b.state[s]),
            (6, &b.terrain_grid),
            (7, &b.terrain_segments),
            (8, &b.terrain_cells),
        ];
        if let Some(w) = warm {
            e.push((9, w));
        }
        bind_group(device, "terrain", p, &e)
    })
}

impl Terrain {
    pub fn new(device: &wgpu::Device, b: &Buffers) -> Self {
        let pipeline = pipeline(device, "terrain", "main");
        let bind = binds(device, b, &pipeline, None);
        Self {
            pipeline,
            bind,
            placed: None,
        }
    }

    /// Binds the warm starts of a world with body contacts, or none
    /// (`cpu::collider_push`; as `Collide::bind_warm`).
    pub fn bind_warm(&mut self, device: &wgpu::Device, b: &Buffers, warm: Option<&wgpu::Buffer>) {
        self.placed = PlacedKernel::rebind(
            self.placed.take(),
            warm,
            || pipeline(device, "terrain", "main_placed"),
            |p, w| binds(device, b, p, Some(w)),
        );
    }

    /// Records the stage on state copy `state`.
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: usize, grid: (u32, u32)) {
        let kernel = match &self.placed {
            Some(k) => k.get(state),
            None => (&self.pipeline, &self.bind[state]),
        };
        dispatch(pass, kernel, grid);
    }
}
