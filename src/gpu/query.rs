//! Wrapper for `shaders/query.wgsl` (CPU mirror: `cpu::query`): batched
//! ray casts and bodies under points (one workgroup each, after the
//! bodies' boxes, one thread a body), and the bodies in a box (one thread
//! a body).

use super::broad_phase::ContactBuffers;
use super::buffers::Buffers;
use super::shaders::{bind_group, grid, pipeline};
use crate::layout::WORKGROUP_SIZE;

/// The query kernels.
pub struct Query {
    boxes: wgpu::ComputePipeline,
    cast: wgpu::ComputePipeline,
    at: wgpu::ComputePipeline,
    in_box: wgpu::ComputePipeline,
}

/// What a query reads of the world: the state and the outlines (`None`
/// without contact data: only the colliders are hit, and a zeroed
/// stand-in is bound, never read as `num_colliders` is 0).
pub struct Scene<'a> {
    pub b: &'a Buffers,
    pub contacts: Option<&'a ContactBuffers>,
    /// The bodies with an outline (`sim.num_colliders`; 0 without contact
    /// data).
    pub bodies: u32,
}

impl Query {
    pub fn new(device: &wgpu::Device) -> Self {
        Self {
            boxes: pipeline(device, "query", "body_boxes"),
            cast: pipeline(device, "query", "cast_rays"),
            at: pipeline(device, "query", "bodies_at"),
            in_box: pipeline(device, "query", "bodies_in_box"),
        }
    }

    /// Records `kernel` over `groups` workgroups with the scene's
    /// bindings and `extra`.
    fn record(
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        kernel: &wgpu::ComputePipeline,
        scene: &Scene,
        extra: &[(u32, &wgpu::Buffer)],
        groups: (u32, u32),
    ) {
        let empty;
        let (outlines, outline_points, bodies) = match scene.contacts {
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
        let mut entries = vec![
            (0, &scene.b.sim),
            (1, &scene.b.state[0]),
            (2, outlines),
            (3, outline_points),
            (7, bodies),
        ];
        entries.extend_from_slice(extra);
        let bind = bind_group(device, "query", kernel, &entries);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("softbody query"),
            timestamp_writes: None,
        });
        pass.set_pipeline(kernel);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(groups.0, groups.1, 1);
    }

    /// Records the bodies' boxes (`body_boxes`) into a new buffer, which
    /// the rays and points then read.
    fn record_boxes(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        scene: &Scene,
    ) -> wgpu::Buffer {
        let boxes = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("query boxes"),
            size: 16 * scene.bodies.max(1) as u64,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        if scene.bodies > 0 {
            let max = device.limits().max_compute_workgroups_per_dimension;
            let groups = grid(scene.bodies.div_ceil(WORKGROUP_SIZE), max);
            Self::record(device, encoder, &self.boxes, scene, &[(14, &boxes)], groups);
        }
        boxes
    }

    /// Records `count` ray casts from `rays` into `hits`.
    pub fn record_rays(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        scene: &Scene,
        rays: &wgpu::Buffer,
        hits: &wgpu::Buffer,
        count: u32,
    ) {
        let boxes = self.record_boxes(device, encoder, scene);
        let extra = [
            (4, &scene.b.colliders),
            (5, rays),
            (6, hits),
            (12, &scene.b.terrain_segments),
            (13, &scene.b.terrain_grid),
            (14, &boxes),
        ];
        Self::record(device, encoder, &self.cast, scene, &extra, (count, 1));
    }

    /// Records the bodies under `count` points from `probes` into `under`.
    pub fn record_at(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        scene: &Scene,
        probes: &wgpu::Buffer,
        under: &wgpu::Buffer,
        count: u32,
    ) {
        let boxes = self.record_boxes(device, encoder, scene);
        let extra = [(8, probes), (9, under), (14, &boxes)];
        Self::record(device, encoder, &self.at, scene, &extra, (count, 1));
    }

    /// Records the bodies whose boxes meet `area` (a uniform `vec4`: min,
    /// max) into `found` (zeroed count, then room for every body), over
    /// `groups` workgroups.
    pub fn record_in_box(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        scene: &Scene,
        area: &wgpu::Buffer,
        found: &wgpu::Buffer,
        groups: (u32, u32),
    ) {
        let extra = [(10, area), (11, found)];
        Self::record(device, encoder, &self.in_box, scene, &extra, groups);
    }
}
