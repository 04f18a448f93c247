//! The solver's storage buffers: the packed world, uploaded once.

use wgpu::util::DeviceExt;

use super::SolverError;
use crate::layout::{BodyFrame, Colliders, SimParams};
use crate::pack::Packed;

/// Every buffer the kernels bind. The state, one `vec4<f32>` per point
/// (position in `xy`, velocity in `zw`: one load fetches both), is
/// double-buffered: Jacobi stages read one copy and write the other.
/// Between steps the state is always in copy 0.
pub struct Buffers {
    pub sim: wgpu::Buffer,
    pub info: wgpu::Buffer,
    pub materials: wgpu::Buffer,
    pub spring_offsets: wgpu::Buffer,
    pub spring_halves: wgpu::Buffer,
    pub rod_offsets: wgpu::Buffer,
    pub rod_halves: wgpu::Buffer,
    pub bodies: wgpu::Buffer,
    pub members: wgpu::Buffer,
    pub member_offsets: wgpu::Buffer,
    pub point_members: wgpu::Buffer,
    pub body_order: wgpu::Buffer,
    /// Planets and half-planes (`Colliders`), a uniform buffer.
    pub colliders: wgpu::Buffer,
    pub state: [wgpu::Buffer; 2],
    pub frames: wgpu::Buffer,
}

/// Bytes of `data`, or one zeroed element's worth when empty (WGSL arrays
/// in storage buffers cannot be empty).
fn bytes_or_zero<T: bytemuck::Pod>(data: &[T]) -> Vec<u8> {
    if data.is_empty() {
        vec![0; std::mem::size_of::<T>().max(4)]
    } else {
        bytemuck::cast_slice(data).to_vec()
    }
}

/// Bytes of one point's state (`vec4<f32>`).
pub const STATE_BYTES: u64 = 16;

/// Positions and velocities as the state buffer holds them: one
/// `[x, y, vx, vy]` per point.
pub fn interleave(pos: &[[f32; 2]], vel: &[[f32; 2]]) -> Vec<[f32; 4]> {
    pos.iter()
        .zip(vel)
        .map(|(p, v)| [p[0], p[1], v[0], v[1]])
        .collect()
}

/// The inverse of [`interleave`].
pub fn deinterleave(state: &[[f32; 4]]) -> (Vec<[f32; 2]>, Vec<[f32; 2]>) {
    state.iter().map(|s| ([s[0], s[1]], [s[2], s[3]])).unzip()
}

/// Checks that a storage buffer of `bytes` fits the device's limits; the
/// error names the buffer and the limit it passes.
pub(crate) fn check_storage_size(
    limits: &wgpu::Limits,
    name: &'static str,
    bytes: u64,
) -> Result<(), SolverError> {
    for (limit, limit_name) in [
        (
            limits.max_storage_buffer_binding_size,
            "max_storage_buffer_binding_size",
        ),
        (limits.max_buffer_size, "max_buffer_size"),
    ] {
        if bytes > limit {
            return Err(SolverError::TooLarge {
                buffer: name,
                bytes,
                limit,
                limit_name,
            });
        }
    }
    Ok(())
}

impl Buffers {
    /// Checks every storage buffer a packed world needs against the
    /// device's limits, creating nothing: an edit checks the edited world
    /// before it changes anything.
    pub fn check_limits(limits: &wgpu::Limits, packed: &Packed) -> Result<(), SolverError> {
        use std::mem::size_of_val;
        let frames = packed.bodies.len().max(1) * std::mem::size_of::<BodyFrame>();
        let state = packed.pos.len() * STATE_BYTES as usize;
        for (name, bytes) in [
            ("frames", frames),
            ("point_info", size_of_val(&packed.point_info[..])),
            ("materials", size_of_val(&packed.materials[..])),
            (
                "spring_offsets",
                size_of_val(&packed.spring_halves.offsets[..]),
            ),
            (
                "spring_halves",
                size_of_val(&packed.spring_halves.records[..]),
            ),
            ("rod_offsets", size_of_val(&packed.rod_halves.offsets[..])),
            ("rod_halves", size_of_val(&packed.rod_halves.records[..])),
            ("bodies", size_of_val(&packed.bodies[..])),
            ("members", size_of_val(&packed.members[..])),
            (
                "member_offsets",
                size_of_val(&packed.point_members.offsets[..]),
            ),
            (
                "point_members",
                size_of_val(&packed.point_members.records[..]),
            ),
            ("body_order", size_of_val(&packed.body_order[..])),
            ("state0", state),
            ("state1", state),
        ] {
            check_storage_size(limits, name, bytes as u64)?;
        }
        Ok(())
    }

    /// Uploads a packed world after checking every buffer against the
    /// device's limits ([`Buffers::check_limits`]).
    pub fn new(device: &wgpu::Device, packed: &Packed) -> Result<Self, SolverError> {
        Self::check_limits(&device.limits(), packed)?;
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let state = storage | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::VERTEX;
        let init = |name: &'static str, contents: Vec<u8>, usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(name),
                contents: &contents,
                usage,
            })
        };
        let frames_len = packed.bodies.len().max(1) * std::mem::size_of::<BodyFrame>();
        let initial_state = bytes_or_zero(&interleave(&packed.pos, &packed.vel));
        Ok(Self {
            sim: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("sim"),
                contents: bytemuck::bytes_of(&packed.sim),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            }),
            info: init("point_info", bytes_or_zero(&packed.point_info), storage),
            materials: init("materials", bytes_or_zero(&packed.materials), storage),
            spring_offsets: init(
                "spring_offsets",
                bytes_or_zero(&packed.spring_halves.offsets),
                storage,
            ),
            spring_halves: init(
                "spring_halves",
                bytes_or_zero(&packed.spring_halves.records),
                storage,
            ),
            rod_offsets: init(
                "rod_offsets",
                bytes_or_zero(&packed.rod_halves.offsets),
                storage,
            ),
            rod_halves: init(
                "rod_halves",
                bytes_or_zero(&packed.rod_halves.records),
                storage,
            ),
            bodies: init("bodies", bytes_or_zero(&packed.bodies), storage),
            members: init("members", bytes_or_zero(&packed.members), storage),
            member_offsets: init(
                "member_offsets",
                bytes_or_zero(&packed.point_members.offsets),
                storage,
            ),
            point_members: init(
                "point_members",
                bytes_or_zero(&packed.point_members.records),
                storage,
            ),
            body_order: init("body_order", bytes_or_zero(&packed.body_order), storage),
            colliders: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("colliders"),
                contents: bytemuck::bytes_of(&Colliders::new(&packed.planets, &packed.planes)),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            }),
            state: [
                init("state0", initial_state.clone(), state),
                init("state1", initial_state, state),
            ],
            frames: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("frames"),
                size: frames_len as u64,
                usage: storage | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
        })
    }

    /// Writes new uniform parameters.
    pub fn write_sim(&self, queue: &wgpu::Queue, sim: &SimParams) {
        queue.write_buffer(&self.sim, 0, bytemuck::bytes_of(sim));
    }

    /// Total bytes of GPU memory held.
    pub fn total_bytes(&self) -> u64 {
        [
            &self.sim,
            &self.info,
            &self.materials,
            &self.spring_offsets,
            &self.spring_halves,
            &self.rod_offsets,
            &self.rod_halves,
            &self.bodies,
            &self.members,
            &self.member_offsets,
            &self.point_members,
            &self.body_order,
            &self.colliders,
            &self.state[0],
            &self.state[1],
            &self.frames,
        ]
        .iter()
        .map(|b| b.size())
        .sum()
    }
}
