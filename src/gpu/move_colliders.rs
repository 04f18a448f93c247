//! Stage 0 wrapper for `shaders/move_colliders.wgsl` (CPU mirror:
//! `cpu::move_colliders`), in worlds where a planet or half-plane moves:
//! at the start of each substep the kernel poses the colliders into a
//! storage copy of the table, which is then copied into the uniform table
//! the other stages read. A uniform buffer cannot be written by a kernel,
//! so the copy ends the compute pass: one pass break per substep, only in
//! such worlds.

use super::buffers::Buffers;
use super::shaders::{bind_group, pipeline};
use crate::layout::{Colliders, MAX_PLANETS, PlaneInfo, PlanetInfo};

/// The kernel, the posed table it writes, and its clock: the substeps run
/// (wrapping), which the kernel counts and an edit sets.
pub struct MoveColliders {
    pipeline: wgpu::ComputePipeline,
    bind: wgpu::BindGroup,
    moved: wgpu::Buffer,
    clock: wgpu::Buffer,
}

impl MoveColliders {
    pub fn new(device: &wgpu::Device, b: &Buffers) -> Self {
        let pipeline = pipeline(device, "move_colliders", "main");
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let moved = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("moved colliders"),
            size: std::mem::size_of::<Colliders>() as u64,
            usage: storage | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let clock = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("collider clock"),
            size: 4,
            usage: storage | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let bind = bind_group(
            device,
            "move_colliders",
            &pipeline,
            &[(0, &b.sim), (1, &b.colliders), (2, &moved), (3, &clock)],
        );
        Self {
            pipeline,
            bind,
            moved,
            clock,
        }
    }

    /// Sets the clock (the substeps run) for the next substep.
    pub fn set_clock(&self, queue: &wgpu::Queue, clock: u32) {
        queue.write_buffer(&self.clock, 0, bytemuck::bytes_of(&clock));
    }

    /// Records the kernel (one workgroup).
    pub fn record(&self, pass: &mut wgpu::ComputePass) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }

    /// Copies the posed planets and half-planes into the uniform table,
    /// after the pass that ran [`record`](Self::record).
    pub fn copy(&self, encoder: &mut wgpu::CommandEncoder, b: &Buffers, planets: u32, planes: u32) {
        let planet = std::mem::size_of::<PlanetInfo>() as u64;
        let plane = std::mem::size_of::<PlaneInfo>() as u64;
        if planets > 0 {
            let bytes = planets as u64 * planet;
            encoder.copy_buffer_to_buffer(&self.moved, 0, &b.colliders, 0, bytes);
        }
        if planes > 0 {
            let start = MAX_PLANETS as u64 * planet;
            let bytes = planes as u64 * plane;
            encoder.copy_buffer_to_buffer(&self.moved, start, &b.colliders, start, bytes);
        }
    }
}
