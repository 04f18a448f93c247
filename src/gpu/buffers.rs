//! The solver's storage buffers: the packed world, uploaded once.

use wgpu::util::DeviceExt;

use super::SolverError;
use crate::layout::{BodyFrame, Colliders, ListHead, SimParams};
use crate::pack::Packed;

/// Every buffer the kernels bind. The state, one `vec4<f32>` per point
/// (position in `xy`, velocity in `zw`: one load fetches both), is
/// double-buffered: Jacobi stages read one copy and write the other.
/// Between steps the state is always in copy 0.
pub struct Buffers {
    pub sim: wgpu::Buffer,
    pub info: wgpu::Buffer,
    /// Each point's gravity scale (`f32`), read by the kernels that
    /// integrate when some point's is not 1.
    pub gravity_scale: wgpu::Buffer,
    pub materials: wgpu::Buffer,
    pub spring_ranges: wgpu::Buffer,
    pub spring_halves: wgpu::Buffer,
    pub rod_ranges: wgpu::Buffer,
    pub rod_halves: wgpu::Buffer,
    pub bodies: wgpu::Buffer,
    pub members: wgpu::Buffer,
    pub member_ranges: wgpu::Buffer,
    pub point_members: wgpu::Buffer,
    pub body_order: wgpu::Buffer,
    /// Each point's body and each body's inverse mass in impacts.
    pub impact_home: wgpu::Buffer,
    pub impact_inv_mass: wgpu::Buffer,
    /// The kinematic bodies' indices (`u32`), read by `move_bodies`.
    pub kinematic: wgpu::Buffer,
    /// Planets and half-planes (`Colliders`), a uniform buffer.
    pub colliders: wgpu::Buffer,
    /// The terrain (`shaders/terrain.wgsl`): its grid (a uniform
    /// `TerrainGrid`), its segments and the cells' lists; one zeroed
    /// element each without terrain.
    pub terrain_grid: wgpu::Buffer,
    pub terrain_segments: wgpu::Buffer,
    pub terrain_cells: wgpu::Buffer,
    pub state: [wgpu::Buffer; 2],
    pub frames: wgpu::Buffer,
    /// Each body's area dilation rate and the inflation its area term
    /// aimed at (`[f32; 2]`, WGSL `ramp_inflation`), written with the
    /// frames: the inflations set to the bodies' own when uploaded and by
    /// every edit, then ramped by the frames kernels.
    pub dilation: wgpu::Buffer,
    /// Sleeping (`shaders/sleep.wgsl`): each point's `SleepPoint`, and per
    /// assembly root the step's largest squared speed and the steps at
    /// rest. The kernels read `info`, whose inverse masses are 0 while
    /// their points sleep.
    pub sleep_points: wgpu::Buffer,
    pub sleep_speed: wgpu::Buffer,
    pub rest_steps: wgpu::Buffer,
    /// The state at the last measure (or wake), one `vec4<f32>` a point.
    pub sleep_last: wgpu::Buffer,
    /// Each point's support (sleeping's `touch`): a body index, or
    /// `u32::MAX` for none, as every point starts.
    pub sleep_support: wgpu::Buffer,
    /// The impact stage's per-body count and fixed-point accumulator
    /// (`shaders/impact.wgsl`), 16 bytes per body.
    pub impact_sums: wgpu::Buffer,
    /// The bodies whose half-plane and planet impacts shape matching's
    /// `plane_impacts` solves in a substep: room for a body index (`u32`)
    /// per body, and three heads ([`ListHead`]: the dispatch's indirect
    /// arguments and the count), one buffer each, which the substeps take
    /// in turn (`gpu::shape_match::PlaneImpactHeads`). Head 0 is empty
    /// between steps.
    pub plane_impacts: wgpu::Buffer,
    pub plane_impact_heads: [wgpu::Buffer; 3],
    /// One word: nonzero once a point that may move (WGSL `may_move`)
    /// reached the fused motion kernel of a substep; the broad phase
    /// clears it and keeps its grid in a substep where it stayed zero.
    pub moved: wgpu::Buffer,
}

/// Bytes of the plane-impact entries for `bodies` bodies.
pub fn plane_impacts_bytes(bodies: usize) -> u64 {
    (bodies.max(1) * std::mem::size_of::<u32>()) as u64
}

/// Bytes of `data`, or one zeroed element's worth when empty (WGSL arrays
/// in storage buffers cannot be empty).
fn bytes_or_zero<T: bytemuck::Pod>(data: &[T]) -> Vec<u8> {
    PackedArray::of("", data).bytes_or_zero()
}

/// One packed array that a storage buffer holds as it is.
#[derive(Clone, Copy)]
pub(crate) struct PackedArray<'a> {
    /// The buffer's name (its label, and the name in [`SolverError::TooLarge`]).
    pub name: &'static str,
    pub bytes: &'a [u8],
    /// Bytes of one element.
    pub elem: usize,
}

impl<'a> PackedArray<'a> {
    pub(crate) fn of<T: bytemuck::Pod>(name: &'static str, data: &'a [T]) -> Self {
        Self {
            name,
            bytes: bytemuck::cast_slice(data),
            elem: std::mem::size_of::<T>(),
        }
    }

    /// The bytes, or one zeroed element's worth when empty.
    fn bytes_or_zero(&self) -> Vec<u8> {
        if self.bytes.is_empty() {
            vec![0; self.elem.max(4)]
        } else {
            self.bytes.to_vec()
        }
    }
}

/// The packed arrays uploaded as they are, in the order of
/// [`Buffers::static_buffers`] (the colliders' uniform table and the state
/// are written separately). The one list of them: the limits check, the
/// upload and an edit's rewrite all walk it.
pub(crate) fn static_arrays(p: &Packed) -> [PackedArray<'_>; 15] {
    [
        PackedArray::of("point_info", &p.point_info),
        PackedArray::of("gravity_scale", &p.gravity_scale),
        PackedArray::of("materials", &p.materials),
        PackedArray::of("spring_ranges", &p.spring_halves.ranges),
        PackedArray::of("spring_halves", &p.spring_halves.records),
        PackedArray::of("rod_ranges", &p.rod_halves.ranges),
        PackedArray::of("rod_halves", &p.rod_halves.records),
        PackedArray::of("bodies", &p.bodies),
        PackedArray::of("members", &p.members),
        PackedArray::of("member_ranges", &p.point_members.ranges),
        PackedArray::of("point_members", &p.point_members.records),
        PackedArray::of("body_order", &p.body_order),
        PackedArray::of("impact_home", &p.impact_home),
        PackedArray::of("impact_inv_mass", &p.impact_inv_mass),
        PackedArray::of("kinematic", &p.kinematic),
    ]
}

/// The contact data's static arrays, in the order of
/// `ContactBuffers::static_buffers`.
pub(crate) fn contact_arrays(p: &Packed) -> [PackedArray<'_>; 5] {
    [
        PackedArray::of("contact_points", &p.contact_points),
        PackedArray::of("outlines", &p.outlines),
        PackedArray::of("outline_points", &p.outline_points),
        PackedArray::of("contact_filters", &p.contact_filters),
        PackedArray::of("colliders", &p.colliders),
    ]
}

/// Bytes of one point's state (`vec4<f32>`).
pub const STATE_BYTES: u64 = 16;

/// Bytes of one point's sleep anchor (`vec2<f32>`, a position).
pub const ANCHOR_BYTES: u64 = 8;

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
/// Writes `bytes`, an array's tail, at byte `at` of `buffer` (nothing when
/// empty) and returns the bytes written: what an append adds behind the
/// records a buffer already holds.
pub(crate) fn write_tail(
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    at: usize,
    bytes: &[u8],
) -> u64 {
    if !bytes.is_empty() {
        queue.write_buffer(buffer, at as u64, bytes);
    }
    bytes.len() as u64
}

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
        let frames = packed.bodies.len().max(1) * std::mem::size_of::<BodyFrame>();
        let state = packed.pos.len() * STATE_BYTES as usize;
        check_storage_size(limits, "frames", frames as u64)?;
        let plane_impacts = plane_impacts_bytes(packed.bodies.len());
        check_storage_size(limits, "plane_impacts", plane_impacts)?;
        for a in static_arrays(packed) {
            check_storage_size(limits, a.name, a.bytes.len() as u64)?;
        }
        for name in ["state0", "state1"] {
            check_storage_size(limits, name, state as u64)?;
        }
        let sleep_points = packed.pos.len() * std::mem::size_of::<crate::layout::SleepPoint>();
        check_storage_size(limits, "sleep_points", sleep_points as u64)?;
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
        let [
            info,
            gravity_scale,
            materials,
            spring_ranges,
            spring_halves,
            rod_ranges,
            rod_halves,
            bodies,
            members,
            member_ranges,
            point_members,
            body_order,
            impact_home,
            impact_inv_mass,
            kinematic,
        ] = static_arrays(packed).map(|a| {
            // Readable: sleeping writes `info`, which a display reads back.
            init(
                a.name,
                a.bytes_or_zero(),
                storage | wgpu::BufferUsages::COPY_SRC,
            )
        });
        let frames_len = packed.bodies.len().max(1) * std::mem::size_of::<BodyFrame>();
        // Sized like `info` (an edit pads `point_info` to the capacity it
        // wants).
        let mut sleep_points = packed.sleep_points();
        sleep_points.resize(packed.point_info.len().max(1), Default::default());
        let sleep_points = init(
            "sleep_points",
            bytemuck::cast_slice(&sleep_points).to_vec(),
            storage,
        );
        let per_point = (4 * packed.point_info.len().max(1)) as u64;
        let zeroed = |label| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: per_point,
                usage: storage | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        };
        // Sized like `bodies` (an edit pads it to the capacity it wants).
        let per_body = |label, bytes: usize| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: (bytes * packed.bodies.len().max(1)) as u64,
                usage: storage,
                mapped_at_creation: false,
            })
        };
        let initial_state = bytes_or_zero(&interleave(&packed.pos, &packed.vel));
        Ok(Self {
            sim: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("sim"),
                contents: bytemuck::bytes_of(&packed.sim),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            }),
            info,
            gravity_scale,
            materials,
            spring_ranges,
            spring_halves,
            rod_ranges,
            rod_halves,
            bodies,
            members,
            member_ranges,
            point_members,
            body_order,
            impact_home,
            impact_inv_mass,
            kinematic,
            colliders: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("colliders"),
                contents: bytemuck::bytes_of(&Colliders::new(&packed.planets, &packed.planes)),
                // A storage buffer too: the renderer draws the planets and
                // half-planes from it, where moving ones are posed.
                usage: wgpu::BufferUsages::UNIFORM
                    | wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
            }),
            terrain_grid: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("terrain grid"),
                contents: bytemuck::bytes_of(&packed.terrain.grid),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            }),
            terrain_segments: init(
                "terrain segments",
                bytes_or_zero(&packed.terrain.segments),
                storage | wgpu::BufferUsages::COPY_SRC,
            ),
            terrain_cells: init(
                "terrain cells",
                bytes_or_zero(&packed.terrain.cells),
                storage,
            ),
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
            dilation: init("dilation", dilation_bytes(packed), storage),
            sleep_points,
            sleep_speed: zeroed("sleep_speed"),
            rest_steps: zeroed("rest_steps"),
            sleep_last: init("sleep_last", bytes_or_zero(&packed.pos), state),
            sleep_support: init(
                "sleep_support",
                vec![0xff; per_point as usize],
                storage | wgpu::BufferUsages::COPY_SRC,
            ),
            impact_sums: per_body("impact_sums", 16),
            plane_impacts: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("plane_impacts"),
                size: plane_impacts_bytes(packed.bodies.len()),
                usage: storage,
                mapped_at_creation: false,
            }),
            plane_impact_heads: [
                "plane_impact_head0",
                "plane_impact_head1",
                "plane_impact_head2",
            ]
            .map(|name| {
                init(
                    name,
                    bytemuck::bytes_of(&ListHead::EMPTY).to_vec(),
                    storage
                        | wgpu::BufferUsages::INDIRECT
                        | wgpu::BufferUsages::UNIFORM
                        | wgpu::BufferUsages::COPY_SRC,
                )
            }),
            moved: init("moved", bytemuck::bytes_of(&1u32).to_vec(), storage),
        })
    }

    /// The buffers holding [`static_arrays`], in its order.
    pub(crate) fn static_buffers(&self) -> [&wgpu::Buffer; 15] {
        [
            &self.info,
            &self.gravity_scale,
            &self.materials,
            &self.spring_ranges,
            &self.spring_halves,
            &self.rod_ranges,
            &self.rod_halves,
            &self.bodies,
            &self.members,
            &self.member_ranges,
            &self.point_members,
            &self.body_order,
            &self.impact_home,
            &self.impact_inv_mass,
            &self.kinematic,
        ]
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
            &self.gravity_scale,
            &self.materials,
            &self.spring_ranges,
            &self.spring_halves,
            &self.rod_ranges,
            &self.rod_halves,
            &self.bodies,
            &self.members,
            &self.member_ranges,
            &self.point_members,
            &self.body_order,
            &self.colliders,
            &self.terrain_grid,
            &self.terrain_segments,
            &self.terrain_cells,
            &self.state[0],
            &self.state[1],
            &self.frames,
            &self.dilation,
            &self.sleep_points,
            &self.sleep_speed,
            &self.rest_steps,
            &self.sleep_last,
            &self.sleep_support,
            &self.impact_home,
            &self.impact_inv_mass,
            &self.kinematic,
            &self.impact_sums,
            &self.plane_impacts,
            &self.plane_impact_heads[0],
            &self.plane_impact_heads[1],
            &self.plane_impact_heads[2],
            &self.moved,
        ]
        .iter()
        .map(|b| b.size())
        .sum()
    }
}

/// The bytes of `Buffers::dilation` at rest: each body's dilation 0 and
/// its set inflation (at least one body's worth).
pub fn dilation_bytes(packed: &Packed) -> Vec<u8> {
    let pairs: Vec<[f32; 2]> = packed.inflations().iter().map(|&i| [0.0, i]).collect();
    bytes_or_zero(&pairs)
}
