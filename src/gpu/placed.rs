//! The `_placed` kernels of worlds with body contacts: collide, the fused
//! shape-matching kernel and terrain, which read the points' settled bits
//! and note their skin bits in the contact buffers' warm starts
//! (`shaders/placed.wgsl`; `cpu::collider_push`).

/// One `_placed` kernel: its pipeline, compiled on first use and kept
/// across edits, and its bind groups over state copies 0 and 1 and the
/// current warm starts.
pub struct PlacedKernel {
    pipeline: wgpu::ComputePipeline,
    bind: [wgpu::BindGroup; 2],
}

impl PlacedKernel {
    /// The kernel over `warm` (`None` without: a world without body
    /// contacts): `old`'s pipeline, or `compile`'s where there is none,
    /// bound by `binds`.
    pub fn rebind(
        old: Option<Self>,
        warm: Option<&wgpu::Buffer>,
        compile: impl FnOnce() -> wgpu::ComputePipeline,
        binds: impl FnOnce(&wgpu::ComputePipeline, &wgpu::Buffer) -> [wgpu::BindGroup; 2],
    ) -> Option<Self> {
        let warm = warm?;
        let pipeline = old.map_or_else(compile, |k| k.pipeline);
        let bind = binds(&pipeline, warm);
        Some(Self { pipeline, bind })
    }

    /// The pipeline and state copy `state`'s bind group.
    pub fn get(&self, state: usize) -> (&wgpu::ComputePipeline, &wgpu::BindGroup) {
        (&self.pipeline, &self.bind[state])
    }
}

/// Records one dispatch of `kernel` (a pipeline and its bind group) over
/// `grid` workgroups.
pub fn dispatch(
    pass: &mut wgpu::ComputePass,
    (pipeline, bind): (&wgpu::ComputePipeline, &wgpu::BindGroup),
    grid: (u32, u32),
) {
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind, &[]);
    pass.dispatch_workgroups(grid.0, grid.1, 1);
}
