//! Wrapper for `shaders/remap_contacts.wgsl` (CPU mirror:
//! `cpu::solver::Contacts::follow_removal`): on a removal, the points'
//! warm starts and the bodies' tangles, in place, under the removal's
//! maps; with those maps as the kernels read them ([`RemapTable`],
//! `shaders/removal_map.wgsl`) and the kernels of the contact events'
//! pairs (`events.wgsl`, `remap_pairs`) and of settling.

use wgpu::util::DeviceExt;

use super::broad_phase::ContactBuffers;
use super::shaders::{bind_group, grid, pipeline};
use crate::layout::WORKGROUP_SIZE;
use crate::world::{Remap, Removal};

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

/// A removal's maps on the GPU (`shaders/removal_map.wgsl`), as the world
/// holds them ([`Remap`]): per kind, the holes, their fillers and the
/// tail past the new end, so that what a removal uploads is in proportion
/// to what it removed. `spans` is the uniform that says where each kind's
/// words are.
pub struct RemapTable {
    pub words: wgpu::Buffer,
    pub spans: wgpu::Buffer,
    /// The counts packed before the removal (points, bodies).
    pub old: (u32, u32),
    /// The counts packed after it (points, bodies).
    pub new: (u32, u32),
}

/// The words and spans of the removal maps the GPU reads
/// (`shaders/removal_map.wgsl`) for `maps` (points, bodies), of which the
/// first `old` items were packed before and `new` after.
pub fn map_words(maps: [&Remap; 2], old: [u32; 2], new: [u32; 2]) -> (Vec<u32>, [[u32; 4]; 4]) {
    let mut words = Vec::new();
    let mut spans = [[0; 4]; 4];
    for (k, map) in maps.into_iter().enumerate() {
        let holes = map.holes();
        spans[2 * k] = [
            old[k],
            map.new_len() as u32,
            holes.len() as u32,
            words.len() as u32,
        ];
        // Past the last hole (and below new_len) nothing moved: the
        // kernels' lanes there need no search.
        let first = map.first_changed();
        let holes_end = holes.last().map_or(first, |&h| h + 1);
        spans[2 * k + 1] = [first, new[k], holes_end, 0];
        words.extend_from_slice(holes);
        words.extend_from_slice(map.fillers());
        words.extend_from_slice(map.tail());
    }
    (words, spans)
}

impl RemapTable {
    /// `removal`'s maps, the first `old` points and bodies packed before
    /// it and `new` after.
    pub fn new(device: &wgpu::Device, removal: &Removal, old: (u32, u32), new: (u32, u32)) -> Self {
        let maps = [removal.point_remap(), removal.body_remap()];
        let (mut words, spans) = map_words(maps, [old.0, old.1], [new.0, new.1]);
        // A storage binding is at least 4 bytes.
        if words.is_empty() {
            words.push(u32::MAX);
        }
        let init = |label, contents: &[u8], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        Self {
            words: init(
                "removal maps",
                bytemuck::cast_slice(&words),
                wgpu::BufferUsages::STORAGE,
            ),
            spans: init(
                "removal spans",
                bytemuck::cast_slice(&spans),
                wgpu::BufferUsages::UNIFORM,
            ),
            old,
            new,
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

    /// Records the remap of warm starts and tangles in place in `warm`
    /// and `tangles` (a removal's contact buffers from before it, kept or
    /// about to be copied into new ones), with `outlines` the new ones.
    /// Past the new counts they hold what they held.
    pub fn record_contacts(
        &self,
        device: &wgpu::Device,
        pass: &mut wgpu::ComputePass,
        (warm, tangles): (&wgpu::Buffer, &wgpu::Buffer),
        outlines: &wgpu::Buffer,
        maps: &RemapTable,
        (points, bodies): (u32, u32),
    ) {
        let max = device.limits().max_compute_workgroups_per_dimension;
        let (words, spans) = (&maps.words, &maps.spans);
        let kernels = [
            (&self.warm, points, vec![(0, words), (1, spans), (2, warm)]),
            (
                &self.tangles,
                bodies,
                vec![(0, words), (1, spans), (3, tangles), (4, outlines)],
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

/// Where a removal renames the warm starts and tangles, and what it copies
/// after: in the buffers it kept, every item after it; in the old buffers
/// of a removal that made new ones, the items both hold, then copied into
/// the new ones (which start zeroed, as the items past the old count
/// start).
pub struct RenamedCopies {
    /// The points and bodies renamed.
    pub counts: (u32, u32),
    /// Whether the renamed records are copied into new buffers.
    copy: bool,
}

impl RenamedCopies {
    pub fn new(maps: &RemapTable, kept: bool) -> Self {
        let counts = if kept {
            maps.new
        } else {
            (maps.new.0.min(maps.old.0), maps.new.1.min(maps.old.1))
        };
        Self {
            counts,
            copy: !kept,
        }
    }

    /// Records the copies, after the renaming.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        from: &ContactBuffers,
        to: &ContactBuffers,
    ) {
        if !self.copy {
            return;
        }
        let tangle = 4 * crate::layout::TANGLE_WORDS as u64;
        let (points, bodies) = (self.counts.0 as u64, self.counts.1 as u64);
        if points > 0 {
            encoder.copy_buffer_to_buffer(&from.warm, 0, &to.warm, 0, 16 * points);
        }
        if bodies > 0 {
            encoder.copy_buffer_to_buffer(&from.tangles, 0, &to.tangles, 0, tangle * bodies);
        }
    }
}
