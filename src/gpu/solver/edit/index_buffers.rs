//! The drawing index buffers (springs and body outlines as line lists),
//! made on first request and kept current by every edit.

use super::*;

/// A `u32` index buffer for drawing, with its CPU copy.
pub(super) struct IndexBuffer {
    label: &'static str,
    data: Vec<u32>,
    pub(super) buffer: wgpu::Buffer,
}

impl IndexBuffer {
    const USAGE: wgpu::BufferUsages = wgpu::BufferUsages::INDEX
        .union(wgpu::BufferUsages::STORAGE)
        .union(wgpu::BufferUsages::COPY_DST)
        .union(wgpu::BufferUsages::COPY_SRC);

    /// The buffer in `slot`, made from `mirror` when there is none yet.
    pub(super) fn made<'a>(
        slot: &'a mut Option<IndexBuffer>,
        device: &wgpu::Device,
        (label, indices): IndexKind,
        mirror: &Packed,
    ) -> &'a wgpu::Buffer {
        &slot
            .get_or_insert_with(|| Self::new(device, label, indices(mirror)))
            .buffer
    }

    pub(super) fn new(device: &wgpu::Device, label: &'static str, data: Vec<u32>) -> Self {
        let contents: &[u32] = if data.is_empty() { &[0] } else { &data };
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(contents),
            usage: Self::USAGE,
        });
        Self {
            label,
            data,
            buffer,
        }
    }

    /// Replaces the data, writing only the changed range; reallocates with
    /// double capacity when it does not fit. Returns (reallocated, bytes).
    pub(super) fn update(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        data: Vec<u32>,
    ) -> (bool, u64) {
        let new_bytes: &[u8] = bytemuck::cast_slice(&data);
        let result = if new_bytes.len() as u64 > self.buffer.size() {
            let size = (new_bytes.len() as u64).max(2 * self.buffer.size());
            self.buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(self.label),
                size,
                usage: Self::USAGE,
                mapped_at_creation: false,
            });
            queue.write_buffer(&self.buffer, 0, new_bytes);
            (true, new_bytes.len() as u64)
        } else {
            (
                false,
                write_changed(
                    queue,
                    &self.buffer,
                    bytemuck::cast_slice(&self.data),
                    new_bytes,
                ),
            )
        };
        self.data = data;
        result
    }
}

/// A drawing index buffer's label and how its indices come from the world.
pub(super) type IndexKind = (&'static str, fn(&Packed) -> Vec<u32>);
pub(super) const SPRING_INDICES: IndexKind = ("spring indices", spring_indices);
pub(super) const BODY_EDGE_INDICES: IndexKind = ("body edge indices", body_edge_indices);

pub(super) fn spring_indices(p: &Packed) -> Vec<u32> {
    p.springs.iter().flat_map(|s| [s.a, s.b]).collect()
}

/// Each body's collision outline (packed with the contact data, from
/// `Body::outline`), edge by edge.
pub(super) fn body_edge_indices(p: &Packed) -> Vec<u32> {
    let mut out = Vec::with_capacity(2 * p.outline_len());
    for o in &p.outlines {
        let ring = &p.outline_points[o.first as usize..(o.first + o.count) as usize];
        for (k, &point) in ring.iter().enumerate() {
            out.extend([point, ring[(k + 1) % ring.len()]]);
        }
    }
    out
}

impl GpuSolver {
    /// Line-list indices of the springs, `array<u32>` (also an index buffer,
    /// `IndexFormat::Uint32`): points `a, b` of spring 0, then of spring 1...
    /// Draw with the state buffer as vertex buffer (stride 16) and
    /// [`spring_index_count`](Self::spring_index_count) indices. Made on the
    /// first call (a solver nobody draws this way holds none) and kept
    /// current by [`sync`](Self::sync) and
    /// [`apply_removal`](Self::apply_removal) from then on; a reallocation
    /// shows in [`buffer_generation`](Self::buffer_generation). It is made
    /// on the solver's own device, so it cannot land on another.
    pub fn spring_index_buffer(&mut self) -> &wgpu::Buffer {
        let edit = &mut self.edit;
        IndexBuffer::made(
            &mut edit.spring_indices,
            &self.device,
            SPRING_INDICES,
            &edit.mirror,
        )
    }
    /// Number of indices in [`spring_index_buffer`](Self::spring_index_buffer)
    /// (twice the springs).
    pub fn spring_index_count(&self) -> u32 {
        2 * self.edit.mirror.springs.len() as u32
    }
    /// Line-list indices of the bodies' outlines, `array<u32>` (also an
    /// index buffer): for each body, its outline as in body-body
    /// collisions (`Body::outline`: its `boundary`, so a wheel's rim
    /// without the hub, or else all its points), counter-clockwise in the
    /// rest shape, each edge as a pair, closing the loop. Made on the first
    /// call, like [`spring_index_buffer`](Self::spring_index_buffer).
    pub fn body_edge_index_buffer(&mut self) -> &wgpu::Buffer {
        let edit = &mut self.edit;
        IndexBuffer::made(
            &mut edit.body_edge_indices,
            &self.device,
            BODY_EDGE_INDICES,
            &edit.mirror,
        )
    }
    /// Number of indices in [`body_edge_index_buffer`](Self::body_edge_index_buffer)
    /// (twice the outline points).
    pub fn body_edge_index_count(&self) -> u32 {
        2 * self.num_outline_points
    }
}
