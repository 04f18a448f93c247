//! The buffers both body-contact stages share (stage 5a's broad phase,
//! `src/gpu/broad_phase.rs`, and 5b's contacts, `src/gpu/body_collide.rs`).
//!
//! They are packed from the world whole (about 40 bytes per point; the
//! static part is a function of the world's items, never of the state, and
//! the scratch part is zero between substeps). An append that links no
//! earlier point writes the new records into the room the buffers have
//! (`ContactBuffers::write_appended`); where they have too little, the
//! edit makes them again with twice the room. A removal writes what it
//! changed into them where they hold the world after it, and renames the
//! warm starts and tangles in place (`remap_contacts.wgsl`); the scratch
//! part it leaves, as a substep writes it before it reads it or leaves it
//! zero. Any other edit makes them again as the world needs them.

use wgpu::util::DeviceExt;

use super::SolverError;
use super::buffers::{check_storage_size, write_tail};
use crate::layout::{ContactHit, SCAN_BLOCK};
use crate::pack::Packed;

/// How many records the contact buffers have room for: the world's, or
/// more where an append grew them (twice what they had, so that the
/// appends after it fit). The grid's hash table is sized by the world
/// (`table_mask`), so its slots must match exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContactRoom {
    pub points: usize,
    pub bodies: usize,
    pub outline_points: usize,
    pub filters: usize,
    /// The colliders array: colliding bodies, then free points.
    pub colliders: usize,
    pub grid_words: usize,
    pub slots: usize,
}

impl ContactRoom {
    /// What a packed world needs.
    pub fn of(packed: &Packed) -> Self {
        Self {
            points: packed.pos.len(),
            bodies: packed.bodies.len(),
            outline_points: packed.outline_points.len(),
            filters: packed.contact_filters.len(),
            colliders: packed.colliders.len(),
            grid_words: packed.grid_words(),
            slots: packed.grid_slots(),
        }
    }

    /// Whether buffers with this room hold what `need` asks for.
    pub fn holds(&self, need: &ContactRoom) -> bool {
        self.points >= need.points
            && self.bodies >= need.bodies
            && self.outline_points >= need.outline_points
            && self.filters >= need.filters
            && self.colliders >= need.colliders
            && self.grid_words >= need.grid_words
            && self.slots == need.slots
    }

    /// Room for `need`: twice this room in each count `need` passes.
    pub fn grown(&self, need: &ContactRoom) -> ContactRoom {
        let grow = |have: usize, want: usize| {
            if want > have {
                want.max(2 * have)
            } else {
                have
            }
        };
        ContactRoom {
            points: grow(self.points, need.points),
            bodies: grow(self.bodies, need.bodies),
            outline_points: grow(self.outline_points, need.outline_points),
            filters: grow(self.filters, need.filters),
            colliders: grow(self.colliders, need.colliders),
            grid_words: grow(self.grid_words, need.grid_words),
            slots: need.slots,
        }
    }
}

/// Where an append's records start: the points, bodies and outline points
/// packed before it, and its small colliders (the colliders array keeps
/// small bodies, large bodies, then free points, so an append changes it
/// from there on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppendedFrom {
    pub points: usize,
    pub bodies: usize,
    pub outline_points: usize,
    pub small_colliders: usize,
}

impl AppendedFrom {
    /// Of the packed world before the append.
    pub fn of(packed: &Packed) -> Self {
        Self {
            points: packed.pos.len(),
            bodies: packed.bodies.len(),
            outline_points: packed.outline_points.len(),
            small_colliders: packed.sim.num_small_colliders as usize,
        }
    }
}

/// Buffers of the body-contact stages (clones share the buffers).
#[derive(Clone)]
pub struct ContactBuffers {
    pub contact_points: wgpu::Buffer,
    pub outlines: wgpu::Buffer,
    pub outline_points: wgpu::Buffer,
    pub filters: wgpu::Buffer,
    /// Colliding bodies, then free points.
    pub colliders: wgpu::Buffer,
    /// Each body's bounding box, grown by the point radius.
    pub aabbs: wgpu::Buffer,
    /// Entries per hash slot while the grid is built (zero otherwise).
    pub slot_counts: wgpu::Buffer,
    /// Slot starts, the large list and the entries (see `broad_phase.wgsl`).
    pub grid: wgpu::Buffer,
    /// Per slot, the broad phase's stamp when an awake body last entered
    /// it, then the stamp, then the stamp when an awake large body was
    /// last listed, then the word that asks for a build, then whether
    /// every box is measured (see `broad_phase.wgsl`, `slot_awake`).
    pub slot_awake: wgpu::Buffer,
    /// Per collider, its cells at the last build, tagged when awake
    /// (`broad_phase.wgsl`, `cells`).
    pub cells: wgpu::Buffer,
    /// Each point's deepest contact.
    pub hits: wgpu::Buffer,
    /// Each point's last contact of the step with a body, `[body + 1,
    /// edge]` (zero: none), written by the contact passes' resolve and
    /// read and cleared by contact events (`body_collide.wgsl`, `touched`).
    pub touched: wgpu::Buffer,
    /// Contacts per point (zero between substeps), then the active list
    /// (`body_collide.wgsl`, `counts`): the count of points appended, then
    /// a word per point.
    pub point_counts: wgpu::Buffer,
    /// The active list's head (`layout::ListHead`): the indirect
    /// dispatch of the passes over it, and its length.
    pub list_head: wgpu::Buffer,
    /// Fixed-point accumulators, 4 per point (zero between substeps).
    pub acc: wgpu::Buffer,
    /// Each point's warm-starting state, 4 words (`body_collide.wgsl`,
    /// `warm`), carried from substep to substep; then each point's near
    /// list, `NEAR_RECORD_WORDS` words, which a substep's later narrow
    /// phases take from its first (`body_collide/near.wgsl`).
    pub warm: wgpu::Buffer,
    /// Per body, its tangles this step, `TANGLE_WORDS` words
    /// (`body_collide.wgsl`, `tangles`).
    pub tangles: wgpu::Buffer,
    /// The prefix scan's levels.
    pub(super) scan_levels: Vec<ScanLevel>,
    /// The records each buffer has room for.
    room: ContactRoom,
}

#[derive(Clone)]
pub(super) struct ScanLevel {
    pub(super) len: u32,
    pub(super) uniform: wgpu::Buffer,
    /// Level 0 reads `slot_counts` and writes `grid`; level `l > 0` reads
    /// the block totals of level `l - 1` and writes `output`.
    pub(super) output: Option<wgpu::Buffer>,
    /// This level's block totals (the next level's input; a one-element
    /// buffer for the top level).
    pub(super) sums: wgpu::Buffer,
}

impl ContactBuffers {
    /// Uploads the contact data of a packed world.
    pub fn new(device: &wgpu::Device, packed: &Packed) -> Result<Self, SolverError> {
        Self::with_room(device, packed, ContactRoom::of(packed))
    }

    /// The records each buffer has room for.
    pub fn room(&self) -> ContactRoom {
        self.room
    }

    /// Uploads the contact data of a packed world into buffers with room
    /// for `room` (which must hold [`ContactRoom::of`] the world).
    pub fn with_room(
        device: &wgpu::Device,
        packed: &Packed,
        room: ContactRoom,
    ) -> Result<Self, SolverError> {
        let limits = device.limits();
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let check = |name: &'static str, bytes: u64| check_storage_size(&limits, name, bytes);
        // The records first, zeros after them up to `len` records.
        fn records_in_room<T: bytemuck::Pod>(
            device: &wgpu::Device,
            limits: &wgpu::Limits,
            name: &'static str,
            records: &[T],
            len: usize,
        ) -> Result<wgpu::Buffer, SolverError> {
            let bytes: &[u8] = bytemuck::cast_slice(records);
            // At least one record (and 16 bytes): a binding holds one.
            let one = std::mem::size_of::<T>().max(16);
            let size = (std::mem::size_of::<T>() * len).max(bytes.len()).max(one);
            check_storage_size(limits, name, size as u64)?;
            let mut padded;
            let contents = if size == bytes.len() {
                bytes
            } else {
                padded = vec![0u8; size];
                padded[..bytes.len()].copy_from_slice(bytes);
                &padded[..]
            };
            Ok(
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(name),
                    contents,
                    usage: wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::COPY_DST
                        | wgpu::BufferUsages::COPY_SRC,
                }),
            )
        }
        let zeroed = |name: &'static str, bytes: u64| -> Result<wgpu::Buffer, SolverError> {
            check(name, bytes)?;
            // wgpu zero-initialises new buffers.
            Ok(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(name),
                size: bytes.max(16).next_multiple_of(4),
                usage: storage | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }))
        };
        let n = room.points as u64;
        let slots = room.slots as u64;
        let grid_words = room.grid_words as u64;
        let uniform = |len: u32| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("scan level"),
                contents: bytemuck::cast_slice(&[len, 0, 0, 0]),
                usage: wgpu::BufferUsages::UNIFORM,
            })
        };
        let mut lens = vec![slots as u32 + 1];
        while *lens.last().expect("non-empty") > SCAN_BLOCK {
            lens.push(lens.last().expect("non-empty").div_ceil(SCAN_BLOCK));
        }
        let mut scan_levels: Vec<ScanLevel> = Vec::new();
        for (l, &len) in lens.iter().enumerate() {
            let next = lens.get(l + 1).copied().unwrap_or(1);
            let output = if l == 0 {
                None
            } else {
                Some(zeroed("scan output", 4 * len as u64)?)
            };
            scan_levels.push(ScanLevel {
                len,
                uniform: uniform(len),
                output,
                sums: zeroed("scan sums", 4 * next as u64)?,
            });
        }
        // A static array's records, with room for `room.$len`.
        macro_rules! records {
            ($name:literal, $array:ident, $len:ident) => {
                records_in_room(device, &limits, $name, &packed.$array, room.$len)?
            };
        }
        Ok(Self {
            contact_points: records!("contact_points", contact_points, points),
            outlines: records!("outlines", outlines, bodies),
            outline_points: records!("outline_points", outline_points, outline_points),
            filters: records!("contact_filters", contact_filters, filters),
            colliders: records!("colliders", colliders, colliders),
            aabbs: zeroed("aabbs", 16 * room.bodies as u64)?,
            slot_counts: zeroed("slot_counts", 4 * (slots + 1))?,
            grid: zeroed("grid", 4 * grid_words)?,
            slot_awake: zeroed("slot_awake", 4 * (slots + 4))?,
            cells: zeroed("grid cells", 16 * room.colliders as u64)?,
            hits: zeroed("hits", n * std::mem::size_of::<ContactHit>() as u64)?,
            touched: zeroed("touched", 8 * n)?,
            point_counts: zeroed(
                "point_counts",
                4 * (2 * n + crate::layout::ACTIVE_POINTS as u64),
            )?,
            list_head: {
                let usage = wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::INDIRECT
                    | wgpu::BufferUsages::UNIFORM
                    | wgpu::BufferUsages::COPY_SRC;
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("active list head"),
                    size: std::mem::size_of::<crate::layout::ListHead>() as u64,
                    usage,
                    mapped_at_creation: false,
                })
            },
            acc: zeroed("contact accumulators", 16 * n)?,
            warm: zeroed(
                "warm starts and near lists",
                (16 + 4 * crate::layout::NEAR_RECORD_WORDS as u64) * n,
            )?,
            tangles: zeroed(
                "tangles",
                4 * crate::layout::TANGLE_WORDS as u64 * room.bodies as u64,
            )?,
            scan_levels,
            room,
        })
    }

    /// Writes what an append that linked no earlier point added to the
    /// packed world (`from`: where it starts) into the room these buffers
    /// have (which must hold the world), and clears the new points' and
    /// bodies' scratch and carried records, in `encoder`: the records of
    /// what was there are kept, as the CPU's `Contacts::extend` keeps
    /// them. The grid, boxes and cells follow at the next step's first
    /// substep, which builds the grid whole. Returns the bytes written.
    pub fn write_appended(
        &self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        packed: &Packed,
        from: AppendedFrom,
    ) -> u64 {
        fn tail<T: bytemuck::Pod>(
            queue: &wgpu::Queue,
            buffer: &wgpu::Buffer,
            all: &[T],
            from: usize,
        ) -> u64 {
            let from = from.min(all.len());
            let at = from * std::mem::size_of::<T>();
            write_tail(queue, buffer, at, bytemuck::cast_slice(&all[from..]))
        }
        let written = tail(
            queue,
            &self.contact_points,
            &packed.contact_points,
            from.points,
        ) + tail(queue, &self.outlines, &packed.outlines, from.bodies)
            + tail(
                queue,
                &self.outline_points,
                &packed.outline_points,
                from.outline_points,
            )
            + tail(queue, &self.filters, &packed.contact_filters, 0)
            + tail(
                queue,
                &self.colliders,
                &packed.colliders,
                from.small_colliders,
            );
        let (p0, n) = (from.points as u64, packed.pos.len() as u64);
        let (b0, nb) = (from.bodies as u64, packed.bodies.len() as u64);
        let hit = std::mem::size_of::<ContactHit>() as u64;
        let tangle = 4 * crate::layout::TANGLE_WORDS as u64;
        let mut clear = |buffer: &wgpu::Buffer, record: u64, first: u64, end: u64| {
            if end > first {
                encoder.clear_buffer(buffer, record * first, Some(record * (end - first)));
            }
        };
        clear(&self.hits, hit, p0, n);
        clear(&self.touched, 8, p0, n);
        // The new points' counts, and the active list's count word, which
        // follows the counts (`body_collide.wgsl`, `counts`).
        clear(
            &self.point_counts,
            4,
            p0,
            n + crate::layout::ACTIVE_POINTS as u64,
        );
        clear(&self.acc, 16, p0, n);
        // The new points' warm starts; the near lists behind them move, and
        // are noted again under the next step's new grid stamp.
        clear(&self.warm, 16, p0, n);
        clear(&self.tangles, tangle, b0, nb);
        clear(&self.aabbs, 16, b0, nb);
        written
    }

    /// Bytes uploaded from the world (the static arrays; the rest starts
    /// zeroed on the GPU).
    pub fn uploaded_bytes(&self) -> u64 {
        self.static_buffers().iter().map(|b| b.size()).sum()
    }

    /// The buffers of the static arrays: contact points, outlines, outline
    /// points, filters and colliders.
    pub fn static_buffers(&self) -> [&wgpu::Buffer; 5] {
        [
            &self.contact_points,
            &self.outlines,
            &self.outline_points,
            &self.filters,
            &self.colliders,
        ]
    }

    /// Bytes of GPU memory held.
    pub fn total_bytes(&self) -> u64 {
        let scan: u64 = self
            .scan_levels
            .iter()
            .map(|l| l.uniform.size() + l.sums.size() + l.output.as_ref().map_or(0, |b| b.size()))
            .sum();
        [
            &self.contact_points,
            &self.outlines,
            &self.outline_points,
            &self.filters,
            &self.colliders,
            &self.aabbs,
            &self.slot_counts,
            &self.grid,
            &self.slot_awake,
            &self.cells,
            &self.hits,
            &self.touched,
            &self.point_counts,
            &self.list_head,
            &self.acc,
            &self.warm,
            &self.tangles,
        ]
        .iter()
        .map(|b| b.size())
        .sum::<u64>()
            + scan
    }
}
