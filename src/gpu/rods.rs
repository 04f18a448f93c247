//! Stage 3b wrapper for `shaders/rods.wgsl` (CPU mirror: `cpu::rods`).

use super::buffers::Buffers;
use super::springs::SpringGather;

/// One Jacobi iteration of hard rods: reads state `s`, writes `1 - s`.
pub struct Rods(SpringGather);

impl Rods {
    pub fn new(device: &wgpu::Device, b: &Buffers) -> Self {
        Self(SpringGather::new(
            device,
            "rods",
            b,
            &b.rod_ranges,
            &b.rod_halves,
        ))
    }

    /// Records one dispatch reading copy `state`; returns the copy written.
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: usize, grid: (u32, u32)) -> usize {
        self.0.record(pass, state, grid)
    }
}
