//! Wrapper for `shaders/remap_contacts.wgsl` (CPU mirror:
//! `cpu::solver::Contacts::remap`): on a removal, the points' warm starts
//! and the bodies' tangles of the old contact buffers, under the
//! removal's maps, into the new ones; with the contact events' pairs
//! (`events.wgsl`, `remap_pairs`; `gpu::events::Events::remap_pairs_of`).

use wgpu::util::DeviceExt;

use super::broad_phase::ContactBuffers;
use super::shaders::{bind_group, grid, pipeline};
use crate::layout::WORKGROUP_SIZE;

/// The kernels a removal runs once, made on the first removal and kept
/// (none depends on the world: they read its counts from a uniform).
pub struct RemapKernels {
    warm: wgpu::ComputePipeline,
    tangles: wgpu::ComputePipeline,
    /// `events.wgsl`'s `remap_pairs`.
    pub pairs: wgpu::ComputePipeline,
    /// `sleep.wgsl`'s `settle_listed` ([`crate::gpu::sleep::record_settle_listed`]).
    pub settle: wgpu::ComputePipeline,
}

/// A removal's maps on the GPU: `cpu::sleep::removal_table` and the old
/// counts (points, bodies) as a uniform.
pub struct RemapTable {
    pub table: wgpu::Buffer,
    pub counts: wgpu::Buffer,
    pub old: (u32, u32),
}

impl RemapTable {
    pub fn new(device: &wgpu::Device, table: &[u32], old: (u32, u32)) -> Self {
        let init = |label, contents: &[u8], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        // A storage binding is at least 4 bytes.
        let table: &[u32] = if table.is_empty() { &[u32::MAX] } else { table };
        Self {
            table: init(
                "removal maps",
                bytemuck::cast_slice(table),
                wgpu::BufferUsages::STORAGE,
            ),
            counts: init(
                "removal counts",
                bytemuck::cast_slice(&[old.0, old.1, 0, 0]),
                wgpu::BufferUsages::UNIFORM,
            ),
            old,
        }
    }
}

impl RemapKernels {
    pub fn new(device: &wgpu::Device) -> Self {
        Self {
            warm: pipeline(device, "remap_contacts", "remap_warm"),
            tangles: pipeline(device, "remap_contacts", "remap_tangles"),
            pairs: pipeline(device, "events", "remap_pairs"),
            settle: pipeline(device, "sleep", "settle_listed"),
        }
    }

    /// Records the remap of warm starts and tangles from `old` (the old
    /// buffers' `warm` and `tangles`, or copies of them) into `new` (made
    /// afresh for the world after the removal, or kept and cleared,
    /// zeroed where it matters).
    pub fn record_contacts(
        &self,
        device: &wgpu::Device,
        pass: &mut wgpu::ComputePass,
        (old_warm, old_tangles): (&wgpu::Buffer, &wgpu::Buffer),
        new: &ContactBuffers,
        maps: &RemapTable,
    ) {
        let (points, bodies) = maps.old;
        let max = device.limits().max_compute_workgroups_per_dimension;
        let (table, counts) = (&maps.table, &maps.counts);
        let kernels = [
            (
                &self.warm,
                points,
                vec![(0, table), (1, counts), (2, old_warm), (3, &new.warm)],
            ),
            (
                &self.tangles,
                bodies,
                vec![
                    (0, table),
                    (1, counts),
                    (4, old_tangles),
                    (5, &new.tangles),
                    (6, &new.outlines),
                ],
            ),
        ];
        for (kernel, threads, entries) in kernels {
            if threads == 0 {
                continue;
            }
            let bind = bind_group(device, "remap_contacts", kernel, &entries);
            pass.set_pipeline(kernel);
            pass.set_bind_group(0, &bind, &[]);
            let groups = grid(threads.div_ceil(WORKGROUP_SIZE), max);
            pass.dispatch_workgroups(groups.0, groups.1, 1);
        }
    }
}
