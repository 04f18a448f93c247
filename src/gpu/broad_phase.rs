//! Stage 5a wrapper for `shaders/broad_phase.wgsl` (CPU mirror:
//! `cpu::broad_phase`), over the contact buffers
//! (`src/gpu/contact_buffers.rs`).

use wgpu::util::DeviceExt;

use super::SolverError;
use super::buffers::Buffers;
pub use super::contact_buffers::{AppendedFrom, ContactBuffers, ContactRoom};
use super::shaders::{bind_group, grid, pipeline_or_kept};
use super::solver::read_buffer;
use crate::layout::{LIST_ROW, MEASURE_DISPATCHES, SCAN_BLOCK, WORKGROUP_SIZE};
use crate::pack::Packed;

/// One level of the prefix scan: scan_up's bind group and workgroups, and
/// scan_down's (adding the level above; none for the top level).
type ScanDispatch = (
    wgpu::BindGroup,
    (u32, u32),
    Option<(wgpu::BindGroup, (u32, u32))>,
);

/// The broad phase's dispatches. Every one but `clear` and `open` is
/// indirect: the boxes' by the workgroups `clear` writes into `args` (all
/// of them, or, in a substep after the first where no point may have moved
/// since the one before, none: WGSL `clear_if_moved`), the build's by those
/// `open` writes (all, or none where no collider's cells changed).
pub struct BroadPhase {
    clear: wgpu::ComputePipeline,
    clear_if_moved: wgpu::ComputePipeline,
    bounds: wgpu::ComputePipeline,
    bounds_large: wgpu::ComputePipeline,
    open: wgpu::ComputePipeline,
    count: wgpu::ComputePipeline,
    scan_up: wgpu::ComputePipeline,
    scan_down: wgpu::ComputePipeline,
    fill: wgpu::ComputePipeline,
    clear_bind: wgpu::BindGroup,
    clear_if_moved_bind: wgpu::BindGroup,
    bounds_bind: [wgpu::BindGroup; 2],
    bounds_large_bind: [wgpu::BindGroup; 2],
    open_bind: wgpu::BindGroup,
    count_bind: [wgpu::BindGroup; 2],
    fill_bind: [wgpu::BindGroup; 2],
    /// Per level: scan_up's bind group, its workgroups; scan_down's bind
    /// group (adding the level above) and its workgroups.
    scan: Vec<ScanDispatch>,
    small_grid: (u32, u32),
    large_grid: (u32, u32),
    fill_grid: (u32, u32),
    /// The dispatches' workgroups (WGSL `args`): three words each, in the
    /// order [`record`](Self::record) dispatches them.
    args: wgpu::Buffer,
    /// Their workgroups in a build (WGSL `full`).
    full: wgpu::Buffer,
}

/// Bytes of one dispatch's indirect arguments.
const ARGS_BYTES: u64 = 12;

impl BroadPhase {
    /// The dispatches over these buffers; the pipelines of `reuse` (the
    /// stage an edit replaces) are kept rather than compiled again.
    pub fn new(
        device: &wgpu::Device,
        b: &Buffers,
        c: &ContactBuffers,
        packed: &Packed,
        reuse: Option<&BroadPhase>,
    ) -> Self {
        let get = |entry: &str, old| pipeline_or_kept(device, "broad_phase", entry, &[], old);
        let clear = get("clear", reuse.map(|r| &r.clear));
        let clear_if_moved = get("clear_if_moved", reuse.map(|r| &r.clear_if_moved));
        let bounds = get("bounds", reuse.map(|r| &r.bounds));
        let bounds_large = get("bounds_large", reuse.map(|r| &r.bounds_large));
        let open = get("open", reuse.map(|r| &r.open));
        let count = get("count", reuse.map(|r| &r.count));
        let scan_up = get("scan_up", reuse.map(|r| &r.scan_up));
        let scan_down = get("scan_down", reuse.map(|r| &r.scan_down));
        let fill = get("fill", reuse.map(|r| &r.fill));
        let bounds_entries = |s: usize| {
            [
                (0, &b.sim),
                (1, &b.state[s]),
                (2, &c.outlines),
                (3, &c.outline_points),
                (4, &c.colliders),
                (5, &c.aabbs),
                (12, &c.slot_awake),
                (13, &b.rest_steps),
                (17, &c.cells),
            ]
        };
        let bounds_bind = [0, 1].map(|s| bind_group(device, "bounds", &bounds, &bounds_entries(s)));
        let bounds_large_bind =
            [0, 1].map(|s| bind_group(device, "bounds_large", &bounds_large, &bounds_entries(s)));
        let count_bind = [0, 1].map(|s| {
            bind_group(
                device,
                "count",
                &count,
                &[
                    (0, &b.sim),
                    (1, &b.state[s]),
                    (2, &c.outlines),
                    (4, &c.colliders),
                    (5, &c.aabbs),
                    (6, &c.slot_counts),
                    (7, &c.grid),
                    (12, &c.slot_awake),
                    (13, &b.rest_steps),
                    (17, &c.cells),
                ],
            )
        });
        let fill_bind = [0, 1].map(|s| {
            bind_group(
                device,
                "fill",
                &fill,
                &[
                    (0, &b.sim),
                    (1, &b.state[s]),
                    (4, &c.colliders),
                    (5, &c.aabbs),
                    (6, &c.slot_counts),
                    (7, &c.grid),
                ],
            )
        });
        // Rows of LIST_ROW workgroups, as the kernels read them
        // (`indirect_index`).
        let max = LIST_ROW;
        let levels = &c.scan_levels;
        let mut scan = Vec::new();
        for (l, level) in levels.iter().enumerate() {
            let input = if l == 0 {
                &c.slot_counts
            } else {
                &levels[l - 1].sums
            };
            let output = level.output.as_ref().unwrap_or(&c.grid);
            let up = bind_group(
                device,
                "scan_up",
                &scan_up,
                &[
                    (8, &level.uniform),
                    (9, input),
                    (10, output),
                    (11, &level.sums),
                ],
            );
            let down = levels.get(l + 1).map(|above| {
                let above_out = above.output.as_ref().expect("levels above 0 have outputs");
                (
                    bind_group(
                        device,
                        "scan_down",
                        &scan_down,
                        &[(8, &level.uniform), (9, above_out), (10, output)],
                    ),
                    grid((level.len - SCAN_BLOCK).div_ceil(WORKGROUP_SIZE), max),
                )
            });
            scan.push((up, grid(level.len.div_ceil(SCAN_BLOCK), max), down));
        }
        let sim = &packed.sim;
        let small_grid = grid(
            (sim.num_small_colliders + sim.num_free).div_ceil(WORKGROUP_SIZE),
            max,
        );
        let large_grid = grid(sim.num_colliders - sim.num_small_colliders, max);
        let fill_grid = grid(
            (sim.num_colliders + sim.num_free).div_ceil(WORKGROUP_SIZE),
            max,
        );
        // The full workgroups, in the order `record` dispatches them: the
        // boxes' (MEASURE_DISPATCHES of them), then the build's.
        let full: Vec<[u32; 3]> = [small_grid, large_grid, fill_grid]
            .into_iter()
            .chain(scan.iter().map(|(_, up, _)| *up))
            .chain(
                scan.iter()
                    .rev()
                    .filter_map(|(_, _, down)| down.as_ref().map(|d| d.1)),
            )
            .chain([fill_grid])
            .map(|(x, y)| [x, y, 1])
            .collect();
        let full = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("broad phase full args"),
            contents: bytemuck::cast_slice(&full),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        });
        let args = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("broad phase args"),
            size: full.size(),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let clear_entries = [
            (0, &b.sim),
            (12, &c.slot_awake),
            (14, &b.moved),
            (15, &args),
            (16, &full),
        ];
        let clear_bind = bind_group(device, "clear", &clear, &clear_entries);
        let clear_if_moved_bind =
            bind_group(device, "clear_if_moved", &clear_if_moved, &clear_entries);
        let open_bind = bind_group(
            device,
            "open",
            &open,
            &[
                (0, &b.sim),
                (7, &c.grid),
                (12, &c.slot_awake),
                (15, &args),
                (16, &full),
            ],
        );
        Self {
            clear,
            clear_if_moved,
            clear_if_moved_bind,
            bounds,
            bounds_large,
            open,
            count,
            scan_up,
            scan_down,
            fill,
            clear_bind,
            bounds_bind,
            bounds_large_bind,
            open_bind,
            count_bind,
            fill_bind,
            scan,
            small_grid,
            large_grid,
            fill_grid,
            args,
            full,
        }
    }

    /// Whether the last broad phase recorded built the grid (read back;
    /// waits for the GPU): the build's dispatches had their full
    /// workgroups.
    pub fn built(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> Result<bool, SolverError> {
        let words = (self.full.size() / 4) as usize;
        let args: Vec<u32> = read_buffer(device, queue, &self.args, words)?;
        let full: Vec<u32> = read_buffer(device, queue, &self.full, words)?;
        let build = 3 * MEASURE_DISPATCHES as usize;
        Ok(args[build..] == full[build..])
    }

    /// Records the grid's construction from state copy `state`; where
    /// `when_moved`, only if some point may have moved since the last
    /// substep and some collider changed its cells (a step's substeps after
    /// its first: WGSL `clear_if_moved`, `open`).
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: usize, when_moved: bool) {
        if when_moved {
            pass.set_pipeline(&self.clear_if_moved);
            pass.set_bind_group(0, &self.clear_if_moved_bind, &[]);
        } else {
            pass.set_pipeline(&self.clear);
            pass.set_bind_group(0, &self.clear_bind, &[]);
        }
        pass.dispatch_workgroups(1, 1, 1);
        // The k-th dispatch's arguments; one with no workgroups in the
        // world is left out.
        let mut k = 0;
        let mut dispatch = |pass: &mut wgpu::ComputePass, groups: (u32, u32)| {
            if groups.0 > 0 {
                pass.dispatch_workgroups_indirect(&self.args, k * ARGS_BYTES);
            }
            k += 1;
        };
        pass.set_pipeline(&self.bounds);
        pass.set_bind_group(0, &self.bounds_bind[state], &[]);
        dispatch(pass, self.small_grid);
        pass.set_pipeline(&self.bounds_large);
        pass.set_bind_group(0, &self.bounds_large_bind[state], &[]);
        dispatch(pass, self.large_grid);
        pass.set_pipeline(&self.open);
        pass.set_bind_group(0, &self.open_bind, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(&self.count);
        pass.set_bind_group(0, &self.count_bind[state], &[]);
        dispatch(pass, self.fill_grid);
        pass.set_pipeline(&self.scan_up);
        for (up, groups, _) in &self.scan {
            pass.set_bind_group(0, up, &[]);
            dispatch(pass, *groups);
        }
        pass.set_pipeline(&self.scan_down);
        for (_, _, down) in self.scan.iter().rev() {
            if let Some((bind, groups)) = down {
                pass.set_bind_group(0, bind, &[]);
                dispatch(pass, *groups);
            }
        }
        pass.set_pipeline(&self.fill);
        pass.set_bind_group(0, &self.fill_bind[state], &[]);
        dispatch(pass, self.fill_grid);
    }
}
