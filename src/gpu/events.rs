//! Wrapper for `shaders/events.wgsl` (CPU mirror: `cpu::events`): contact
//! events once a step, after the substeps, into a bounded log.

use super::broad_phase::ContactBuffers;
use super::buffers::Buffers;
use super::collide::ColliderCounts;
use super::remap_contacts::RemapTable;
use super::shaders::{bind_group, grid, pipeline_with};
use crate::layout::{ContactEvent, EVENT_CAPACITY, PAIR_SLOTS, WORKGROUP_SIZE};

/// The event kernels, their buffers (each body's partners and their
/// points for this step and the last, by step parity, this step's pair
/// speeds, the points' velocities at the step's start, and the log) and a
/// bind group per parity.
pub struct Events {
    snapshot: wgpu::ComputePipeline,
    /// By state copy (the snapshot reads copy 0, where a step starts).
    snapshot_bind: wgpu::BindGroup,
    clear: wgpu::ComputePipeline,
    gather: wgpu::ComputePipeline,
    keep: wgpu::ComputePipeline,
    compare: wgpu::ComputePipeline,
    /// By state copy, then step parity, then kernel.
    binds: [[[wgpu::BindGroup; 4]; 2]; 2],
    /// The log: count, lost, two words, then the events.
    pub log: wgpu::Buffer,
    /// Each body's partners and their points, by step parity, and the
    /// pair speeds: what an append keeps ([`Events::keep_pairs_of`]).
    pair_state: [wgpu::Buffer; 5],
    grids: EventGrids,
}

#[derive(Clone, Copy)]
struct EventGrids {
    slots: (u32, u32),
    points: (u32, u32),
    bodies: (u32, u32),
}

/// Bytes of the log.
pub fn log_bytes() -> u64 {
    16 + EVENT_CAPACITY as u64 * std::mem::size_of::<ContactEvent>() as u64
}

impl Events {
    /// The kernels over `b` and the contact buffers `c`, for `points`
    /// points, `bodies` bodies and the colliders `counts`, nobody
    /// touching, and the log `kept` (an edit's) or a new empty one.
    pub fn new(
        device: &wgpu::Device,
        b: &Buffers,
        c: &ContactBuffers,
        (points, bodies, counts): (u32, u32, ColliderCounts),
        kept: Option<wgpu::Buffer>,
    ) -> Self {
        let slots = (bodies * PAIR_SLOTS).max(1) as u64;
        let filled = |label| {
            use wgpu::util::DeviceExt;
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: &vec![0xff; 4 * slots as usize],
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
            })
        };
        let pairs = [filled("pairs0"), filled("pairs1")];
        let points_of = [filled("pair points0"), filled("pair points1")];
        let speeds = filled("pair speeds");
        let start = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("event start velocities"),
            size: 16 * points.max(1) as u64,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let log = kept.unwrap_or_else(|| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("event log"),
                size: log_bytes(),
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        });
        let constants = counts.collider_constants();
        let pipeline = |entry| pipeline_with(device, "events", entry, &constants);
        let snapshot = pipeline("snapshot");
        let clear = pipeline("clear");
        let gather = pipeline("gather");
        let keep = pipeline("keep");
        let compare = pipeline("compare");
        let snapshot_bind = bind_group(
            device,
            "events.snapshot",
            &snapshot,
            &[(0, &b.sim), (1, &b.state[0]), (13, &start)],
        );
        let binds = [0, 1].map(|s| {
            [0, 1].map(|now| {
                let last = 1 - now;
                [
                    bind_group(
                        device,
                        "events.clear",
                        &clear,
                        &[
                            (0, &b.sim),
                            (7, &pairs[now]),
                            (9, &points_of[now]),
                            (14, &speeds),
                        ],
                    ),
                    bind_group(
                        device,
                        "events.gather",
                        &gather,
                        &[
                            (0, &b.sim),
                            (1, &b.state[s]),
                            (2, &c.touched),
                            (3, &c.outlines),
                            (4, &b.member_ranges),
                            (5, &b.point_members),
                            (7, &pairs[now]),
                            (8, &pairs[last]),
                            (9, &points_of[now]),
                            (11, &log),
                            (13, &start),
                            (14, &speeds),
                            (15, &b.info),
                            (16, &b.colliders),
                            (17, &c.outline_points),
                            (18, &b.terrain_grid),
                            (19, &b.terrain_segments),
                            (20, &b.terrain_cells),
                        ],
                    ),
                    bind_group(
                        device,
                        "events.keep",
                        &keep,
                        &[
                            (0, &b.sim),
                            (7, &pairs[now]),
                            (12, &c.aabbs),
                            (8, &pairs[last]),
                            (9, &points_of[now]),
                            (10, &points_of[last]),
                            (11, &log),
                            (14, &speeds),
                        ],
                    ),
                    bind_group(
                        device,
                        "events.compare",
                        &compare,
                        &[
                            (0, &b.sim),
                            (1, &b.state[s]),
                            (7, &pairs[now]),
                            (8, &pairs[last]),
                            (9, &points_of[now]),
                            (10, &points_of[last]),
                            (11, &log),
                            (14, &speeds),
                        ],
                    ),
                ]
            })
        });
        let max = device.limits().max_compute_workgroups_per_dimension;
        let groups = |n: u32| grid(n.div_ceil(WORKGROUP_SIZE).max(1), max);
        Self {
            snapshot,
            snapshot_bind,
            clear,
            gather,
            keep,
            compare,
            binds,
            log,
            pair_state: [
                pairs[0].clone(),
                pairs[1].clone(),
                points_of[0].clone(),
                points_of[1].clone(),
                speeds.clone(),
            ],
            grids: EventGrids {
                slots: groups(bodies * PAIR_SLOTS),
                points: groups(points),
                bodies: groups(bodies),
            },
        }
    }

    /// After a removal: records the pair records of `old`, the events
    /// before it, into these, each kept body's under its new index with
    /// its partners and points renumbered by `maps`; a pair with a removed
    /// body or point is dropped, without an end event (WGSL `remap_pairs`,
    /// `kernel`; CPU mirror: `EventState::remap`).
    pub fn record_remap_pairs(
        &self,
        old: &Events,
        device: &wgpu::Device,
        pass: &mut wgpu::ComputePass,
        kernel: &wgpu::ComputePipeline,
        maps: &RemapTable,
    ) {
        let slots = maps.old.1 * PAIR_SLOTS;
        if slots == 0 {
            return;
        }
        let max = device.limits().max_compute_workgroups_per_dimension;
        let groups = grid(slots.div_ceil(WORKGROUP_SIZE), max);
        pass.set_pipeline(kernel);
        // Each step parity: pairs, then their points.
        for k in 0..2 {
            let bind = bind_group(
                device,
                "events.remap_pairs",
                kernel,
                &[
                    (7, &self.pair_state[k]),
                    (9, &self.pair_state[2 + k]),
                    (21, &maps.words),
                    (22, &maps.spans),
                    (23, &old.pair_state[k]),
                    (24, &old.pair_state[2 + k]),
                ],
            );
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(groups.0, groups.1, 1);
        }
    }

    /// Copies the pair records of `old`, made for the first bodies of an
    /// append, into these (which hold them for more bodies): the bodies
    /// keep their partners, so what keeps touching raises no new event
    /// (CPU mirror: `EventState::extend`).
    pub fn keep_pairs_of(&self, old: &Events, device: &wgpu::Device, queue: &wgpu::Queue) {
        let mut encoder = device.create_command_encoder(&Default::default());
        for (from, to) in old.pair_state.iter().zip(&self.pair_state) {
            encoder.copy_buffer_to_buffer(from, 0, to, 0, from.size().min(to.size()));
        }
        queue.submit([encoder.finish()]);
    }

    /// Records the snapshot of the velocities a step starts with (on
    /// state copy 0, after the commands).
    pub fn record_snapshot(&self, pass: &mut wgpu::ComputePass) {
        pass.set_pipeline(&self.snapshot);
        pass.set_bind_group(0, &self.snapshot_bind, &[]);
        pass.dispatch_workgroups(self.grids.points.0, self.grids.points.1, 1);
    }

    /// Records the step's passes on state copy `state` (after the
    /// substeps; `parity`: the step count's, which picks this step's
    /// slots).
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: usize, parity: usize) {
        let g = &self.grids;
        let kernels = [
            (&self.clear, g.slots),
            (&self.gather, g.points),
            (&self.keep, g.bodies),
            (&self.compare, g.bodies),
        ];
        for (k, (pipeline, grid)) in kernels.into_iter().enumerate() {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &self.binds[state][parity][k], &[]);
            pass.dispatch_workgroups(grid.0, grid.1, 1);
        }
    }
}
