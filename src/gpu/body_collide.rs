//! Stage 5b wrapper for `shaders/body_collide.wgsl` and its parts in
//! `shaders/body_collide/` (CPU mirror:
//! `cpu::body_collide`): narrow phase, resolve, apply, and the relax pass
//! (recount, relax, apply); a substep's first narrow phase warm-starts
//! (narrow with `WARM_PASS`, apply with `KEEP_COUNTS`); once per step,
//! tangle recovery (untangle, apply); in place on the current state copy.

use super::broad_phase::ContactBuffers;
use super::buffers::Buffers;
use super::shaders::{bind_group, pipeline_or_kept};
use crate::pack::Packed;

/// How the narrow phase walks a point's grid entries (WGSL `deepest`, the
/// override `NARROW_BATCHED`). Both find the same contacts, bit for bit:
/// the deepest contact does not depend on the order bodies are tested in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NarrowWalk {
    /// Tests each entry's body in full as the walk meets it. For GPUs: on
    /// an H100 the contact scene's body contacts took 13.2 ms per step
    /// this way and 16.3 ms batched.
    EachEntry,
    /// Collects up to 8 bodies with the cheap tests, scans their outlines,
    /// and leaves the rare cases (inside, beyond a corner) to the full
    /// test. For CPU adapters such as lavapipe, which run every branch
    /// under a lane mask: 15% fewer instructions for the contact scene.
    Batched,
}

/// Whether `device` is a CPU adapter (such as lavapipe), which runs a
/// kernel's code under a lane mask for threads that have returned or do
/// not take a branch: the choices of [`ContactKernels`] follow it.
fn on_cpu_adapter(device: &wgpu::Device) -> bool {
    device.adapter_info().device_type == wgpu::DeviceType::Cpu
}

impl NarrowWalk {
    /// The walk for `device`'s adapter: batched on a CPU adapter, each
    /// entry at once on any other.
    pub fn for_device(device: &wgpu::Device) -> Self {
        if on_cpu_adapter(device) {
            Self::Batched
        } else {
            Self::EachEntry
        }
    }
}

/// Which points the contact passes after a substep's first narrow phase
/// run over (WGSL override `LISTED`). Both give the same contacts, bit for
/// bit: a quiet point (asleep, with nothing to test) does nothing in
/// those passes, and what a pass does at a point does not depend on the
/// order the points come in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointDispatch {
    /// One thread per point. For GPUs, where a quiet thread returns at its
    /// first load (the list, two more dispatches per substep, is not yet
    /// measured on one: `scripts/device-bench.sh` times both).
    AllPoints,
    /// A substep first lists the points that are not quiet (`activate`,
    /// `list_args`), and the narrow phases, resolves, recount, relax,
    /// their applies and the body impacts are dispatched indirectly over
    /// the list. For CPU adapters such as lavapipe, which run a kernel's
    /// code under a lane mask for threads that have returned: the default
    /// scene of 2,000 bodies, piled and asleep,
    /// steps on lavapipe in 21 ms rather than 49, its body contacts in 8
    /// rather than 23; a falling scene steps as fast either way
    /// (BENCHMARKS.md, "Sleeping piles").
    ActiveList,
}

impl PointDispatch {
    /// The dispatch for `device`'s adapter: the active list on a CPU
    /// adapter, every point on any other.
    pub fn for_device(device: &wgpu::Device) -> Self {
        if on_cpu_adapter(device) {
            Self::ActiveList
        } else {
            Self::AllPoints
        }
    }
}

/// When a step's substeps build the broad phase's grid. Both give the
/// same contacts, bit for bit: the grid's entries and stamps follow from
/// each collider's cells and whether it is an awake body, so where none of
/// those changed a build would make the grid it already holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridBuild {
    /// In every substep.
    EverySubstep,
    /// In a step's first substep (it takes in what changed between steps),
    /// and in each later one where some collider entered other cells, woke
    /// or fell asleep since the last build (WGSL `open`); the boxes are
    /// measured only where some point may have moved (`clear_if_moved`).
    /// A sleeping world skips the stage's passes but two, and one body
    /// falling onto a sleeping pile builds when it enters new cells. On
    /// lavapipe the broad phase is a quarter of a sleeping pour's step
    /// (BENCHMARKS.md, "Sleeping piles").
    WhenMoved,
}

/// Where the passes over points after a substep's first narrow phase are
/// dispatched: over every point, or indirectly by the active list's head
/// (`ContactBuffers::list_head`). The body contacts and the body
/// impacts share it.
#[derive(Clone)]
pub struct PointPasses(Option<wgpu::Buffer>);

impl PointPasses {
    /// Whether the passes run over the active list (WGSL `LISTED`).
    pub fn listed(&self) -> bool {
        self.0.is_some()
    }

    /// Dispatches the pipeline and bind group set on `pass` over the list,
    /// or over `points` workgroups.
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, points: (u32, u32)) {
        match &self.0 {
            Some(head) => pass.dispatch_workgroups_indirect(head, 0),
            None => pass.dispatch_workgroups(points.0, points.1, 1),
        }
    }
}

/// How the contact kernels are made: the narrow phase's walk, the
/// points the passes run over and when the grid is built. Every choice
/// gives the same contacts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContactKernels {
    pub walk: NarrowWalk,
    pub points: PointDispatch,
    pub grid: GridBuild,
}

impl ContactKernels {
    /// The kernels for `device`'s adapter.
    pub fn for_device(device: &wgpu::Device) -> Self {
        Self {
            walk: NarrowWalk::for_device(device),
            points: PointDispatch::for_device(device),
            grid: GridBuild::WhenMoved,
        }
    }
}

/// What a contact or relax pass does with the contact counts (how many
/// contacts move each point, for mass splitting). By default a pass
/// counts (its narrow phase or recount) and its apply clears the counts.
/// Within a step, where [`BodyCollide::counts_carry`], the pass before a
/// relax pass keeps them (`keep`) and the relax pass uses them
/// (`counted`): its recount would count the same contacts again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// The counts were kept by the pass before: no recount.
    pub counted: bool,
    /// The apply keeps the counts for the relax pass after.
    pub keep: bool,
}

/// Body-body contacts against the grid the broad phase just built.
pub struct BodyCollide {
    /// What the pipelines were made for: whether the world has free points
    /// (the WGSL override `HAS_FREE_POINTS`) and joined bodies
    /// (`HAS_JOINS`), the walk and the points.
    free_points: bool,
    joins: bool,
    kernels: ContactKernels,
    /// The active list's activate (for a substep, `WARM_PASS`; and for a
    /// pass recorded alone), list_args, and its indirect dispatch.
    activate_warm: wgpu::ComputePipeline,
    activate: wgpu::ComputePipeline,
    list_args: wgpu::ComputePipeline,
    activate_warm_bind: [wgpu::BindGroup; 2],
    activate_bind: [wgpu::BindGroup; 2],
    list_args_bind: wgpu::BindGroup,
    passes: PointPasses,
    narrow: wgpu::ComputePipeline,
    narrow_warm: wgpu::ComputePipeline,
    resolve: wgpu::ComputePipeline,
    apply: wgpu::ComputePipeline,
    apply_keep: wgpu::ComputePipeline,
    apply_all: wgpu::ComputePipeline,
    recount: wgpu::ComputePipeline,
    relax: wgpu::ComputePipeline,
    untangle: wgpu::ComputePipeline,
    narrow_bind: [wgpu::BindGroup; 2],
    narrow_warm_bind: [wgpu::BindGroup; 2],
    resolve_bind: [wgpu::BindGroup; 2],
    apply_bind: [wgpu::BindGroup; 2],
    apply_keep_bind: [wgpu::BindGroup; 2],
    apply_all_bind: [wgpu::BindGroup; 2],
    recount_bind: [wgpu::BindGroup; 2],
    relax_bind: [wgpu::BindGroup; 2],
    untangle_bind: [wgpu::BindGroup; 2],
}

impl BodyCollide {
    /// The dispatches over these buffers for `packed`'s world, with the
    /// kernels of `reuse` (the stage an edit replaces) or else the
    /// device's; the pipelines of `reuse` are kept rather than compiled
    /// again unless the world gained or lost its free points.
    pub fn new(
        device: &wgpu::Device,
        b: &Buffers,
        c: &ContactBuffers,
        packed: &Packed,
        reuse: Option<&BodyCollide>,
    ) -> Self {
        let kernels = reuse.map_or_else(|| ContactKernels::for_device(device), |r| r.kernels);
        Self::with_kernels(device, b, c, packed, kernels, reuse)
    }

    /// [`new`](Self::new) with `kernels`.
    pub fn with_kernels(
        device: &wgpu::Device,
        b: &Buffers,
        c: &ContactBuffers,
        packed: &Packed,
        kernels: ContactKernels,
        reuse: Option<&BodyCollide>,
    ) -> Self {
        let free_points = packed.sim.num_free > 0;
        let joins = packed.has_joined_bodies();
        let reuse = reuse
            .filter(|r| r.free_points == free_points && r.joins == joins && r.kernels == kernels);
        let flag = |on: bool| if on { 1.0 } else { 0.0 };
        let listed = kernels.points == PointDispatch::ActiveList;
        let constants = |warm: bool, listed: bool| {
            [
                ("HAS_FREE_POINTS", flag(free_points)),
                ("HAS_JOINS", flag(joins)),
                ("NARROW_BATCHED", flag(kernels.walk == NarrowWalk::Batched)),
                ("WARM_PASS", flag(warm)),
                ("KEEP_COUNTS", flag(warm)),
                ("LISTED", flag(listed)),
            ]
        };
        let get_with = |entry: &str, warm: bool, old| {
            pipeline_or_kept(device, "body_collide", entry, &constants(warm, listed), old)
        };
        let get = |entry: &str, old| get_with(entry, false, old);
        let narrow = get("narrow", reuse.map(|r| &r.narrow));
        let narrow_warm = get_with("narrow", true, reuse.map(|r| &r.narrow_warm));
        let resolve = get("resolve", reuse.map(|r| &r.resolve));
        let apply = get("apply", reuse.map(|r| &r.apply));
        let apply_keep = get_with("apply", true, reuse.map(|r| &r.apply_keep));
        // Tangle recovery's apply: over every point (untangle moves whole
        // outlines, listed or not).
        let apply_all = if listed {
            let all = constants(false, false);
            pipeline_or_kept(
                device,
                "body_collide",
                "apply",
                &all,
                reuse.map(|r| &r.apply_all),
            )
        } else {
            apply.clone()
        };
        let recount = get("recount", reuse.map(|r| &r.recount));
        let relax = get("relax", reuse.map(|r| &r.relax));
        let untangle = get("untangle", reuse.map(|r| &r.untangle));
        let activate_warm = get_with("activate", true, reuse.map(|r| &r.activate_warm));
        let activate = get("activate", reuse.map(|r| &r.activate));
        let list_args = get("list_args", reuse.map(|r| &r.list_args));
        let common = |s: usize| {
            vec![
                (0, &b.sim),
                (1, &b.info),
                (2, &b.state[s]),
                (4, &c.contact_points),
                (5, &c.outlines),
                (6, &c.outline_points),
                (7, &c.filters),
                (8, &c.colliders),
                (10, &c.grid),
                (11, &c.hits),
                (12, &c.point_counts),
                (24, &c.list_head),
            ]
        };
        // narrow: the common bindings, the boxes, sleeping's, the warm
        // starts, the tangles, and (for the warm start) the accumulators.
        let narrow_group = |label, pipeline| {
            [0, 1].map(|s| {
                let mut e = common(s);
                e.push((9, &c.aabbs));
                e.push((13, &c.acc));
                e.push((19, &b.rest_steps));
                e.push((20, &c.slot_awake));
                e.push((21, &c.warm));
                e.push((22, &c.tangles));
                bind_group(device, label, pipeline, &e)
            })
        };
        let narrow_bind = narrow_group("narrow", &narrow);
        let narrow_warm_bind = narrow_group("narrow (warm start)", &narrow_warm);
        // resolve and relax: the common bindings, the accumulators, the
        // warm starts and the tangles.
        let solve_bind = |label, pipeline| {
            [0, 1].map(|s| {
                let mut e = common(s);
                e.push((13, &c.acc));
                e.push((18, &b.sleep_speed));
                e.push((21, &c.warm));
                e.push((22, &c.tangles));
                e.push((25, &b.sleep_points));
                e.push((26, &c.touched));
                bind_group(device, label, pipeline, &e)
            })
        };
        let resolve_bind = solve_bind("resolve", &resolve);
        let relax_bind = solve_bind("relax", &relax);
        // untangle: what the narrow phase reads of the state, the outlines
        // and the grid, the accumulators, sleeping's, and the tangles.
        let untangle_bind = [0, 1].map(|s| {
            bind_group(
                device,
                "untangle",
                &untangle,
                &[
                    (0, &b.sim),
                    (1, &b.info),
                    (2, &b.state[s]),
                    (5, &c.outlines),
                    (6, &c.outline_points),
                    (7, &c.filters),
                    (9, &c.aabbs),
                    (10, &c.grid),
                    (13, &c.acc),
                    (18, &b.sleep_speed),
                    (19, &b.rest_steps),
                    (20, &c.slot_awake),
                    (21, &c.warm),
                    (22, &c.tangles),
                ],
            )
        });
        // activate: the state, what quiet_point reads, the contacts, the
        // counts (with the list) and the warm starts.
        let activate_group = |label, pipeline| {
            [0, 1].map(|s| {
                bind_group(
                    device,
                    label,
                    pipeline,
                    &[
                        (0, &b.sim),
                        (2, &b.state[s]),
                        (4, &c.contact_points),
                        (11, &c.hits),
                        (12, &c.point_counts),
                        (19, &b.rest_steps),
                        (20, &c.slot_awake),
                        (21, &c.warm),
                    ],
                )
            })
        };
        let activate_warm_bind = activate_group("activate (substep)", &activate_warm);
        let activate_bind = activate_group("activate", &activate);
        let list_args_bind = bind_group(
            device,
            "list_args",
            &list_args,
            &[(0, &b.sim), (12, &c.point_counts), (23, &c.list_head)],
        );
        // recount reads no state: one bind group serves both copies.
        let recount_one = bind_group(
            device,
            "recount",
            &recount,
            &[
                (0, &b.sim),
                (5, &c.outlines),
                (6, &c.outline_points),
                (11, &c.hits),
                (12, &c.point_counts),
                (24, &c.list_head),
            ],
        );
        let recount_bind = [recount_one.clone(), recount_one];
        let apply_group = |label, pipeline| {
            [0, 1].map(|s| {
                bind_group(
                    device,
                    label,
                    pipeline,
                    &[
                        (0, &b.sim),
                        (14, &b.state[s]),
                        (16, &c.acc),
                        (17, &c.point_counts),
                        (24, &c.list_head),
                    ],
                )
            })
        };
        let apply_bind = apply_group("apply", &apply);
        let apply_all_bind = apply_group("apply (every point)", &apply_all);
        let apply_keep_bind = apply_group("apply (counts kept)", &apply_keep);
        Self {
            free_points,
            joins,
            kernels,
            activate_warm,
            activate,
            list_args,
            activate_warm_bind,
            activate_bind,
            list_args_bind,
            passes: PointPasses(listed.then(|| c.list_head.clone())),
            narrow,
            narrow_warm,
            resolve,
            apply,
            apply_keep,
            apply_all,
            recount,
            relax,
            untangle,
            narrow_bind,
            narrow_warm_bind,
            resolve_bind,
            apply_bind,
            apply_keep_bind,
            apply_all_bind,
            recount_bind,
            relax_bind,
            untangle_bind,
        }
    }

    /// How the contact kernels were made.
    pub fn kernels(&self) -> ContactKernels {
        self.kernels
    }

    /// Where its passes over points are dispatched (the body impacts
    /// follow it).
    pub fn passes(&self) -> &PointPasses {
        &self.passes
    }

    fn listed(&self) -> bool {
        self.passes.listed()
    }

    /// Records narrow phase, resolve and apply on state copy `state`;
    /// `alone`: recorded on its own (the active list is made first);
    /// `counts`: what the apply does with the contact counts.
    pub fn record(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        points: (u32, u32),
        alone: bool,
        counts: Counts,
    ) {
        self.record_narrow(pass, state, points, alone);
        self.record_resolve(pass, state, points, false, counts);
    }

    /// Records the narrow phase alone on state copy `state` (a narrow
    /// phase that does not start a substep).
    pub fn record_narrow(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        points: (u32, u32),
        alone: bool,
    ) {
        self.relist(pass, state, points, alone);
        self.dispatch_listed(pass, state, points, &self.narrow, &self.narrow_bind);
    }

    /// Records a substep's first narrow phase on state copy `state`: the
    /// active list, the narrow phase with the warm start, and its apply
    /// with the counts kept for the resolve.
    pub fn record_narrow_warm(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        points: (u32, u32),
    ) {
        if self.listed() {
            self.dispatch(
                pass,
                state,
                points,
                &[(&self.activate_warm, &self.activate_warm_bind)],
            );
            self.record_list_args(pass);
        }
        self.dispatch_listed(
            pass,
            state,
            points,
            &self.narrow_warm,
            &self.narrow_warm_bind,
        );
        self.dispatch_listed(pass, state, points, &self.apply_keep, &self.apply_keep_bind);
    }

    /// Records resolve and apply on state copy `state`, over the contacts
    /// of the last narrow phase; `alone` and `counts` as for
    /// [`record`](Self::record).
    pub fn record_resolve(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        points: (u32, u32),
        alone: bool,
        counts: Counts,
    ) {
        self.relist(pass, state, points, alone);
        self.dispatch_listed(pass, state, points, &self.resolve, &self.resolve_bind);
        self.record_apply(pass, state, points, counts);
    }

    /// Records a relax pass (recount unless `counts.counted`, relax,
    /// apply) on state copy `state`, over the contacts the last narrow
    /// phase stored; `alone` as for [`record`](Self::record).
    pub fn record_relax(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        points: (u32, u32),
        alone: bool,
        counts: Counts,
    ) {
        self.relist(pass, state, points, alone);
        if !counts.counted {
            self.dispatch_listed(pass, state, points, &self.recount, &self.recount_bind);
        }
        self.dispatch_listed(pass, state, points, &self.relax, &self.relax_bind);
        self.record_apply(pass, state, points, counts);
    }

    /// Whether a relax pass may take the counts the pass before it kept
    /// ([`Counts`]) rather than count the stored contacts again: the
    /// narrow phase counts what recount would, unless free points add
    /// their disk contacts, which a relax pass leaves out.
    pub fn counts_carry(&self) -> bool {
        !self.free_points
    }

    fn record_apply(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        points: (u32, u32),
        counts: Counts,
    ) {
        if counts.keep {
            self.dispatch_listed(pass, state, points, &self.apply_keep, &self.apply_keep_bind);
        } else {
            self.dispatch_listed(pass, state, points, &self.apply, &self.apply_bind);
        }
    }

    /// For a pass recorded on its own with the active list: the list of
    /// the points the last narrow phase did not find quiet.
    fn relist(&self, pass: &mut wgpu::ComputePass, state: usize, points: (u32, u32), alone: bool) {
        if alone && self.listed() {
            self.dispatch(
                pass,
                state,
                points,
                &[(&self.activate, &self.activate_bind)],
            );
            self.record_list_args(pass);
        }
    }

    fn record_list_args(&self, pass: &mut wgpu::ComputePass) {
        pass.set_pipeline(&self.list_args);
        pass.set_bind_group(0, &self.list_args_bind, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }

    /// One dispatch of `pipeline` over [`passes`](Self::passes).
    fn dispatch_listed(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        points: (u32, u32),
        pipeline: &wgpu::ComputePipeline,
        bind: &[wgpu::BindGroup; 2],
    ) {
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bind[state], &[]);
        self.passes.dispatch(pass, points);
    }

    /// Records tangle recovery on state copy `state`: untangle over the
    /// bodies (`bodies`, their workgroups), then apply over the points.
    pub fn record_untangle(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        points: (u32, u32),
        bodies: (u32, u32),
    ) {
        self.dispatch(
            pass,
            state,
            bodies,
            &[(&self.untangle, &self.untangle_bind)],
        );
        self.dispatch(
            pass,
            state,
            points,
            &[(&self.apply_all, &self.apply_all_bind)],
        );
    }

    /// One dispatch per kernel over `points` workgroups, in order.
    fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        points: (u32, u32),
        kernels: &[(&wgpu::ComputePipeline, &[wgpu::BindGroup; 2])],
    ) {
        for &(pipeline, bind) in kernels {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &bind[state], &[]);
            pass.dispatch_workgroups(points.0, points.1, 1);
        }
    }
}
