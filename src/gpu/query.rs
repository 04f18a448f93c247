//! Wrapper for `shaders/query.wgsl` (CPU mirror: `cpu::query`): batched
//! ray casts, one workgroup a ray.

use super::broad_phase::ContactBuffers;
use super::buffers::Buffers;
use super::shaders::{bind_group, pipeline};

/// The ray-cast kernel.
pub struct Query {
    cast: wgpu::ComputePipeline,
}

impl Query {
    pub fn new(device: &wgpu::Device) -> Self {
        Self {
            cast: pipeline(device, "query", "cast_rays"),
        }
    }

    /// Records `count` ray casts from `rays` into `hits`, over the state
    /// (copy 0, between steps) and the contact stages' outlines (`None`:
    /// the world has none, and only the colliders are hit; a zeroed body
    /// list stands in, never read as `num_colliders` is 0).
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        b: &Buffers,
        contacts: Option<&ContactBuffers>,
        rays: &wgpu::Buffer,
        hits: &wgpu::Buffer,
        count: u32,
    ) {
        let empty;
        let (outlines, outline_points, bodies) = match contacts {
            Some(c) => (&c.outlines, &c.outline_points, &c.colliders),
            None => {
                empty = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("no outlines"),
                    size: 16,
                    usage: wgpu::BufferUsages::STORAGE,
                    mapped_at_creation: false,
                });
                (&empty, &empty, &empty)
            }
        };
        let bind = bind_group(
            device,
            "query.cast_rays",
            &self.cast,
            &[
                (0, &b.sim),
                (1, &b.state[0]),
                (2, outlines),
                (3, outline_points),
                (4, &b.colliders),
                (5, rays),
                (6, hits),
                (7, bodies),
            ],
        );
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("softbody ray casts"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.cast);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(count, 1, 1);
    }
}
