//! Stage 3a wrapper for `shaders/springs.wgsl` (CPU mirror: `cpu::springs`).

use super::buffers::Buffers;
use super::shaders::SpringGather;

/// Force springs and soft constraints: reads state `s`, writes `1 - s`.
pub struct Springs(SpringGather);

impl Springs {
    pub fn new(device: &wgpu::Device, b: &Buffers) -> Self {
        Self(SpringGather::new(
            device,
            "springs",
            b,
            &b.spring_offsets,
            &b.spring_halves,
        ))
    }

    /// Records one dispatch reading copy `state`; returns the copy written.
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: usize, grid: (u32, u32)) -> usize {
        self.0.record(pass, state, grid)
    }
}
