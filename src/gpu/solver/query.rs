//! Queries on the GPU solver: batched, recorded into the caller's encoder
//! and read back without waiting (`shaders/query.wgsl`).

use wgpu::util::DeviceExt;

use super::pending::Pending;
use super::*;
use crate::layout::RayHitRecord;
use crate::query::{Ray, RayHit, body_of, check_box, check_probes, decode};
use crate::world::BodyHandle;

/// A pending batch of ray casts ([`GpuSolver::request_ray_casts`]).
#[derive(Debug)]
pub struct PendingRays(Pending<RayHitRecord>);

impl PendingRays {
    /// Each ray's first hit once the GPU has answered, else `None`; never
    /// waits (see [`Pending::poll`]).
    pub fn poll(
        &mut self,
        device: &wgpu::Device,
    ) -> Option<Result<Vec<Option<RayHit>>, SolverError>> {
        self.0
            .poll(device)
            .map(|r| r.map(|hits| hits.iter().map(decode).collect()))
    }
}

/// A pending batch of bodies under points ([`GpuSolver::request_bodies_at`]).
#[derive(Debug)]
pub struct PendingBodies(Pending<u32>);

impl PendingBodies {
    /// The body under each point once the GPU has answered, else `None`;
    /// never waits.
    pub fn poll(
        &mut self,
        device: &wgpu::Device,
    ) -> Option<Result<Vec<Option<BodyHandle>>, SolverError>> {
        self.0
            .poll(device)
            .map(|r| r.map(|v| v.into_iter().map(body_of).collect()))
    }
}

/// A pending box query ([`GpuSolver::request_bodies_in_box`]).
#[derive(Debug)]
pub struct PendingBox(Pending<u32>);

impl PendingBox {
    /// The bodies whose boxes meet the box, in index order, once the GPU
    /// has answered, else `None`; never waits.
    pub fn poll(&mut self, device: &wgpu::Device) -> Option<Result<Vec<BodyHandle>, SolverError>> {
        self.0.poll(device).map(|r| {
            r.map(|v| {
                let n = (v[0] as usize).min(v.len() - 1);
                let mut found: Vec<u32> = v[1..=n].to_vec();
                found.sort_unstable();
                found.into_iter().map(BodyHandle).collect()
            })
        })
    }
}

impl GpuSolver {
    /// The scene the query kernels read.
    fn query_scene(&self) -> super::super::query::Scene<'_> {
        super::super::query::Scene {
            b: &self.buffers,
            contacts: self.contacts.as_ref().map(|c| &c.buffers),
            bodies: if self.contacts.is_some() {
                self.packed().sim.num_colliders
            } else {
                0
            },
        }
    }

    /// Records, for each point, the body under it (the lowest-numbered
    /// whose outline holds it; at most 65,535 points a batch) for a
    /// readback that does not wait: submit, then [`PendingBodies::poll`].
    /// The same answers as
    /// [`CpuSolver::bodies_at`](crate::cpu::CpuSolver::bodies_at).
    pub fn request_bodies_at(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        points: &[glam::Vec2],
    ) -> Result<PendingBodies, SolverError> {
        self.check_context("request_bodies_at", Some(device), None)?;
        check_probes(points)?;
        let n = points.len();
        if n > crate::layout::LIST_ROW as usize {
            return Err(SolverError::World(crate::error::WorldError::TooMany {
                what: "points in one query",
                count: n as u64,
                limit: crate::layout::LIST_ROW as u64,
            }));
        }
        let out = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("bodies under points"),
            size: (4 * n.max(1)) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        if n > 0 {
            let probes: Vec<[f32; 2]> = points.iter().map(|p| p.to_array()).collect();
            let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("points"),
                contents: bytemuck::cast_slice(&probes),
                usage: wgpu::BufferUsages::STORAGE,
            });
            self.query
                .record_at(device, encoder, &self.query_scene(), &input, &out, n as u32);
        }
        let pending = Pending::new(device, n, |staging| {
            encoder.copy_buffer_to_buffer(&out, 0, staging, 0, (4 * n) as u64);
        })?;
        Ok(PendingBodies(pending))
    }

    /// Records the bodies whose outline's bounding box meets the box
    /// `lo..=hi` for a readback that does not wait: submit, then
    /// [`PendingBox::poll`]. The same answer as
    /// [`CpuSolver::bodies_in_box`](crate::cpu::CpuSolver::bodies_in_box).
    pub fn request_bodies_in_box(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        lo: glam::Vec2,
        hi: glam::Vec2,
    ) -> Result<PendingBox, SolverError> {
        self.check_context("request_bodies_in_box", Some(device), None)?;
        check_box(lo, hi)?;
        let words = 1 + self.num_bodies.max(1);
        let found = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("bodies in a box"),
            contents: bytemuck::cast_slice(&vec![0u32; words]),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        });
        let area = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("query box"),
            contents: bytemuck::cast_slice(&[lo.x, lo.y, hi.x, hi.y]),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let n = self.packed().sim.num_colliders;
        if n > 0 {
            let groups = crate::gpu::shaders::grid(
                n.div_ceil(crate::layout::WORKGROUP_SIZE),
                device.limits().max_compute_workgroups_per_dimension,
            );
            self.query
                .record_in_box(device, encoder, &self.query_scene(), &area, &found, groups);
        }
        let pending = Pending::new(device, words, |staging| {
            encoder.copy_buffer_to_buffer(&found, 0, staging, 0, (4 * words) as u64);
        })?;
        Ok(PendingBox(pending))
    }
    /// Records ray casts into `encoder` (against the state the steps
    /// recorded before leave), one workgroup a ray (at most 65,535 a
    /// batch), for a readback that does not wait: submit, then
    /// [`PendingRays::poll`]. The same rules as
    /// [`CpuSolver::cast_rays`](crate::cpu::CpuSolver::cast_rays). Refuses a
    /// bad ray, naming it by its place in `rays`.
    pub fn request_ray_casts(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        rays: &[Ray],
    ) -> Result<PendingRays, SolverError> {
        self.check_context("request_ray_casts", Some(device), None)?;
        let queries = rays
            .iter()
            .enumerate()
            .map(|(k, r)| r.encode(k))
            .collect::<Result<Vec<_>, _>>()?;
        if queries.len() > crate::layout::LIST_ROW as usize {
            return Err(SolverError::World(crate::error::WorldError::TooMany {
                what: "rays in one batch",
                count: queries.len() as u64,
                limit: crate::layout::LIST_ROW as u64,
            }));
        }
        let n = queries.len();
        let size = (n.max(1) * std::mem::size_of::<RayHitRecord>()) as u64;
        let out = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("ray hits"),
            size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        if n > 0 {
            let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("rays"),
                contents: bytemuck::cast_slice(&queries),
                usage: wgpu::BufferUsages::STORAGE,
            });
            self.query
                .record_rays(device, encoder, &self.query_scene(), &input, &out, n as u32);
        }
        let pending = Pending::new(device, n, |staging| {
            encoder.copy_buffer_to_buffer(
                &out,
                0,
                staging,
                0,
                (n * std::mem::size_of::<RayHitRecord>()) as u64,
            );
        })?;
        Ok(PendingRays(pending))
    }
}
