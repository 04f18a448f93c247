//! Queries on the GPU solver: batched, recorded into the caller's encoder
//! and read back without waiting (`shaders/query.wgsl`).

use wgpu::util::DeviceExt;

use super::pending::Pending;
use super::*;
use crate::layout::RayHitRecord;
use crate::query::{Ray, RayHit, decode};

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

impl GpuSolver {
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
            self.query.record(
                device,
                encoder,
                &self.buffers,
                self.contacts.as_ref().map(|c| &c.buffers),
                &input,
                &out,
                n as u32,
            );
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
