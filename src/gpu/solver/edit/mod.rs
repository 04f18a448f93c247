//! Changing the world while it runs on the GPU: appended items, removals,
//! moved pinned points and new parameters, uploading only what changed.
//!
//! The solver keeps a CPU copy of the packed static arrays (the mirror;
//! about 60 bytes per point plus 24 per spring and 16 per membership). An
//! append packs the new items behind the mirror's and writes the arrays'
//! new tails; a removal whose contact data follows in place is followed
//! by the mirror in place, which notes what it changes, and only that is
//! written (`followed.rs`); any other edit updates a copy of the mirror
//! (see `pack/edit.rs`), compares it with the mirror, and writes only the
//! byte ranges of each buffer that changed. The state never comes back to the CPU: new points' state
//! is written behind the old, and a removal compacts the state with
//! buffer-to-buffer copies on the GPU, one per run of surviving points.
//! When an array outgrows its buffer, every buffer is reallocated with
//! (at least) double the capacity and the pipelines' bind groups are
//! rebuilt; [`GpuSolver::buffer_generation`] tells embedders to rebind.

use glam::Vec2;
use wgpu::util::DeviceExt;

use super::super::SolverError;
use super::super::body_collide::{BodyCollide, ContactKernels};
use super::super::broad_phase::ContactRoom;
use super::super::buffers::{ANCHOR_BYTES, Buffers, STATE_BYTES};
use super::super::collide::{Collide, ColliderCounts};
use super::super::impact::{BodyImpact, Impact};
use super::super::integrate::Integrate;
use super::super::move_colliders::MoveColliders;
use super::super::rods::Rods;
use super::super::shape_match::ShapeMatch;
use super::super::springs::Springs;
use super::GpuSolver;
use crate::cpu::move_colliders;
use crate::error::{Item, WorldError};
use crate::layout::{BodyFrame, BodyInfo, Colliders};
use crate::pack::{Packed, scene_hash};
use crate::params::Params;
use crate::world::{BodyHandle, PointHandle, Removal, World};

mod followed;
mod index_buffers;
mod upload;

use upload::{Before, ContactUpdate};

use index_buffers::{BODY_EDGE_INDICES, IndexBuffer, SPRING_INDICES};

/// What the solver keeps to edit itself and to serve render indices.
pub(super) struct EditState {
    /// The packed static arrays as uploaded (`pos`/`vel` hold each point's
    /// state when it was added, not the current one).
    mirror: Packed,
    /// The parameters the mirror's defaults were resolved with; `None`
    /// when not known (a solver made [`from_packed`](GpuSolver::from_packed)),
    /// so that the first edit resolves them from the world.
    pub(super) resolved: Option<Params>,
    /// The world generation (removal count) the solver follows.
    pub(super) generation: u64,
    /// Bumped whenever the solver's buffers are replaced.
    buffer_generation: u64,
    /// Bumped by every edit that went through (`sync`, `apply_removal`).
    edit_generation: u64,
    /// The drawing index buffers, made on first request (a solver that is
    /// not drawn this way holds none) and kept current by edits from then on.
    spring_indices: Option<IndexBuffer>,
    body_edge_indices: Option<IndexBuffer>,
    /// The kernels a removal runs once, made on the first removal.
    remap_kernels: Option<crate::gpu::remap_contacts::RemapKernels>,
}

/// Writes what of `new` differs from `old` (what the buffer holds), in
/// blocks of [`WRITE_BLOCK`] words, each run of differing blocks one
/// write, and returns the bytes written. An edit changes a few places far
/// apart (a removal's holes and the end its movers came from), so one
/// write from the first change to the last would send what lies between.
fn write_changed(queue: &wgpu::Queue, buffer: &wgpu::Buffer, old: &[u8], new: &[u8]) -> u64 {
    let words = |b: &[u8]| b.len() / 4;
    let (old_w, new_w): (&[u32], &[u32]) = (
        bytemuck::cast_slice(&old[..4 * words(old)]),
        bytemuck::cast_slice(&new[..4 * words(new)]),
    );
    let blocks = new_w.len().div_ceil(WRITE_BLOCK);
    let differs = |k: usize| {
        let span = k * WRITE_BLOCK..((k + 1) * WRITE_BLOCK).min(new_w.len());
        old_w.get(span.clone()) != Some(&new_w[span])
    };
    let mut written = 0;
    let mut k = 0;
    while k < blocks {
        if !differs(k) {
            k += 1;
            continue;
        }
        let first = k;
        while k < blocks && differs(k) {
            k += 1;
        }
        let bytes = &new[4 * first * WRITE_BLOCK..(4 * k * WRITE_BLOCK).min(4 * new_w.len())];
        queue.write_buffer(buffer, (4 * first * WRITE_BLOCK) as u64, bytes);
        written += bytes.len() as u64;
    }
    written
}

/// Words per block that [`write_changed`] compares and writes.
const WRITE_BLOCK: usize = 64;

/// Pads `v` to the capacity of `buffer` in elements, or to double that (at
/// least `v.len()`) when `v` has outgrown it; returns the capacity.
fn grow<T: bytemuck::Pod + Default>(v: &mut Vec<T>, buffer: &wgpu::Buffer) -> usize {
    grow_by(v, buffer, std::mem::size_of::<T>())
}

/// [`grow`] for a buffer holding `stride` bytes per element of `v`.
fn grow_by<T: Clone + Default>(v: &mut Vec<T>, buffer: &wgpu::Buffer, stride: usize) -> usize {
    let cap = buffer.size() as usize / stride;
    let cap = if v.len() > cap {
        v.len().max(2 * cap)
    } else {
        cap
    };
    v.resize(cap, T::default());
    cap
}

/// What an edit did on the GPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EditReport {
    /// Whether buffers were replaced (capacity exceeded): rebuild bind
    /// groups that use the solver's buffers. Also visible as a change of
    /// [`GpuSolver::buffer_generation`].
    pub reallocated: bool,
    /// Bytes written to the GPU (static data and new points' state; copies
    /// on the GPU are not counted).
    pub bytes_uploaded: u64,
}

/// How the state changes in an edit.
enum StateEdit<'a> {
    /// Points `from..` are new: write their initial state.
    Append { from: usize },
    /// Compact the surviving points; with the bodies the mirror's follow
    /// moved when it followed in place, contact data included
    /// ([`Packed::follow_plan`](crate::pack::Packed::follow_plan)).
    Remove(&'a Removal, Option<&'a [u32]>),
}

impl EditState {
    /// The mirror takes new parameters ([`Packed::apply_params`]).
    pub(super) fn apply_params(
        &mut self,
        old: &Params,
        new: &Params,
    ) -> Result<crate::pack::ParamChange, WorldError> {
        self.mirror.apply_params(old, new)
    }

    /// GPU bytes of the drawing index buffers made so far.
    pub(super) fn index_buffer_bytes(&self) -> u64 {
        [&self.spring_indices, &self.body_edge_indices]
            .into_iter()
            .flatten()
            .map(|ib| ib.buffer.size())
            .sum()
    }

    /// For `mirror`, whose defaults were resolved with parameters not
    /// known yet.
    pub(super) fn new(mirror: Packed) -> Self {
        Self {
            spring_indices: None,
            body_edge_indices: None,
            remap_kernels: None,
            mirror,
            resolved: None,
            generation: 0,
            buffer_generation: 0,
            edit_generation: 0,
        }
    }
}

impl GpuSolver {
    /// Follows the items appended to `world` since the solver was built or
    /// last synced (points, springs, bodies, materials, colliders, added
    /// with the `add_*` methods or the shape builders), and its parameters:
    /// afterwards the solver steps exactly what [`GpuSolver::new`] would
    /// make of `world`, except that the points it already had keep their
    /// current state. Nothing is read back; only changed bytes are written.
    ///
    /// Removals must be passed to [`GpuSolver::apply_removal`] first; a
    /// world whose [`World::generation`] differs from the solver's is
    /// refused with [`WorldError::OutOfSync`].
    ///
    /// Call edits between submissions: `queue.write_buffer` lands before the
    /// next submitted command buffer, so steps recorded but not yet
    /// submitted would run on the edited world.
    ///
    /// ```
    /// use softbody::prelude::*;
    /// # fn main() -> Result<(), SolverError> {
    /// # let Ok(ctx) = GpuContext::new_headless() else { return Ok(()) };
    /// let mut world = World::default();
    /// world.add_plane(HalfPlane::floor(0.0))?;
    /// BoxShape::new(Vec2::new(0.0, 1.0), Vec2::ONE).build(&mut world)?;
    /// let mut solver = GpuSolver::new(&ctx.device, &ctx.queue, &world)?;
    /// solver.step(&ctx.device, &ctx.queue, 30)?;
    ///
    /// // Drop in another box and make gravity weaker, while running:
    /// let b = BoxShape::new(Vec2::new(0.0, 3.0), Vec2::ONE).build(&mut world)?;
    /// world.params.gravity = Vec2::new(0.0, -3.0);
    /// solver.sync(&ctx.device, &ctx.queue, &world)?;
    /// assert_eq!(solver.num_points(), 8);
    ///
    /// // Take the first box out again:
    /// let removal = world.remove_body(BodyHandle(0))?;
    /// solver.apply_removal(&ctx.device, &ctx.queue, &world, &removal)?;
    /// assert_eq!(solver.num_bodies(), 1);
    /// assert_eq!(removal.body(b.bodies[0]), Some(BodyHandle(0)));
    /// solver.step(&ctx.device, &ctx.queue, 30)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn sync(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        world: &World,
    ) -> Result<EditReport, SolverError> {
        self.check_context("sync", Some(device), Some(queue))?;
        let joints = self.edit.mirror.joints.clone();
        // Items linking no earlier point, at the parameters the solver
        // steps and resolved its items with: packed alone, in place.
        let report = match self.sync_appended(device, queue, world)? {
            Some(report) => report,
            None => {
                let new = self.edit.mirror.synced(
                    self.edit.generation,
                    world,
                    self.edit.resolved.as_ref(),
                )?;
                let from = self.edit.mirror.pos.len();
                self.edit_to(device, queue, world, new, StateEdit::Append { from })?
            }
        };
        for p in crate::commands::joints_to_wake(&self.edit.mirror, &joints) {
            self.wake_point(queue, p);
        }
        Ok(report)
    }

    /// Follows a removal made on `world` with [`World::remove_body`],
    /// [`World::remove_bodies`] or [`World::remove_points`]: removes the
    /// points (with their state), springs and bodies on the GPU too, and
    /// renumbers the rest. Call it right after the removal, on the world
    /// it was made on, before removing anything else. Items appended and
    /// not synced yet, before the removal or after it, are fine: the
    /// removal is followed on the items the solver has, and
    /// [`GpuSolver::sync`] picks up the appended ones that survived
    /// afterwards. A failed edit (here or in `sync`) changes nothing.
    ///
    /// Like [`GpuSolver::sync`], it also takes the world's parameters.
    /// The surviving points keep their state: those that fill a removed
    /// point's place move on the GPU, two buffer copies per run of them,
    /// and nothing is read back. When an item not synced yet filled a
    /// synced one's place, the world is packed again and everything wakes
    /// ([`Packed::follows_removal`](crate::pack::Packed::follows_removal)).
    /// The body frames are stale until the next step.
    pub fn apply_removal(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        world: &World,
        removal: &Removal,
    ) -> Result<EditReport, SolverError> {
        self.check_context("apply_removal", Some(device), Some(queue))?;
        // In place, noting what changes, where the contact data follows
        // too (`Packed::removal_plan`); else on a copy of the mirror,
        // compared with it. Either way refused before anything changes.
        let (generation, resolved) = (self.edit.generation, self.edit.resolved.as_ref());
        let plan = (self.edit.mirror).removal_plan(generation, world, removal, resolved)?;
        let report = match plan {
            Some(touched) if touched.follows_contacts() && self.contacts.is_some() => {
                self.follow_removal(device, queue, world, removal, touched)?
            }
            _ => {
                let (new, moved) =
                    (self.edit.mirror).removed_following(generation, world, removal, resolved)?;
                let state = StateEdit::Remove(removal, moved.as_deref());
                self.edit_to(device, queue, world, new, state)?
            }
        };
        self.edit.generation = removal.generations().1;
        // Queued commands name points and bodies by the old indices.
        self.queued.clear();
        Ok(report)
    }

    /// Moves a pinned point (mass 0) to `pos`: writes its 8 bytes of
    /// position, nothing else. Its velocity stays zero, so a pinned point
    /// moved every frame drags what hangs from it like a hand would, not
    /// like a moving body with momentum.
    pub fn move_pinned_point(
        &mut self,
        queue: &wgpu::Queue,
        point: PointHandle,
        pos: Vec2,
    ) -> Result<(), SolverError> {
        self.check_context("move_pinned_point", None, Some(queue))?;
        let item = Item::Point(point.0);
        let info =
            self.edit
                .mirror
                .point_info
                .get(point.index())
                .ok_or(WorldError::UnknownHandle {
                    item,
                    len: self.num_points as u32,
                })?;
        if info.inv_mass != 0.0 {
            return Err(WorldError::NotPinned {
                item,
                mass: 1.0 / info.inv_mass,
            }
            .into());
        }
        crate::validate::check_position(item, "pos", pos)?;
        // Only the position: the pinned point's velocity stays zero.
        queue.write_buffer(
            &self.buffers.state[0],
            point.index() as u64 * STATE_BYTES,
            bytemuck::cast_slice(&[pos.to_array()]),
        );
        self.wake_point(queue, point);
        Ok(())
    }

    /// Sets body `body`'s inflation, target area over rest area (in
    /// [`MIN_INFLATION`](crate::layout::MIN_INFLATION)`..=`[`MAX_INFLATION`](crate::layout::MAX_INFLATION)),
    /// from the next step on (4 bytes written), and wakes its assembly: a
    /// pressure body inflates or deflates. Set the world's too
    /// ([`World::set_inflation`]) for a removal or a saved scene to keep it.
    pub fn set_inflation(
        &mut self,
        queue: &wgpu::Queue,
        body: BodyHandle,
        ratio: f32,
    ) -> Result<(), SolverError> {
        self.check_context("set_inflation", None, Some(queue))?;
        let point = self.edit.mirror.set_inflation(body, ratio)?;
        let offset = body.index() * std::mem::size_of::<BodyInfo>()
            + std::mem::offset_of!(BodyInfo, inflation);
        queue.write_buffer(
            &self.buffers.bodies,
            offset as u64,
            bytemuck::bytes_of(&ratio),
        );
        self.wake_point(queue, point);
        Ok(())
    }

    /// Sets the number of steps taken, e.g. when resuming from a checkpoint.
    pub fn set_steps(&mut self, steps: u64) {
        self.steps = steps;
        self.pose_colliders();
    }

    /// Counts buffer replacements: bind groups that use the solver's
    /// buffers must be rebuilt when it changes (only an edit that outgrows
    /// a buffer's capacity changes it).
    pub fn buffer_generation(&self) -> u64 {
        self.edit.buffer_generation
    }

    /// Counts the edits that went through ([`sync`](Self::sync) and
    /// [`apply_removal`](Self::apply_removal)), whether or not they
    /// replaced buffers: what was derived from the solver's world before
    /// one (a `render::Topology` and the scene a `render::Renderer`, a
    /// `Picker` or a `Dragger` holds; point counts) must be made again
    /// when it changes. An
    /// embedder's own bind groups over the solver's buffers need only
    /// follow [`buffer_generation`](Self::buffer_generation).
    pub fn edit_generation(&self) -> u64 {
        self.edit.edit_generation
    }

    /// The world generation (removal count) the solver follows.
    pub fn world_generation(&self) -> u64 {
        self.edit.generation
    }

    /// Makes the contact kernels so (a world without contacts has none:
    /// nothing to do). Every choice finds the same contacts; this is for
    /// tests and measurements on one adapter.
    pub fn set_contact_kernels(
        &mut self,
        device: &wgpu::Device,
        kernels: ContactKernels,
    ) -> Result<(), SolverError> {
        self.check_context("set_contact_kernels", Some(device), None)?;
        let packed = &self.edit.mirror;
        if let Some(c) = &mut self.contacts {
            c.collide = BodyCollide::with_kernels(
                device,
                &self.buffers,
                &c.buffers,
                packed,
                kernels,
                Some(&c.collide),
            );
            c.impact = BodyImpact::new(
                device,
                &self.buffers,
                &c.buffers,
                c.collide.passes(),
                Some(&c.impact),
            );
        }
        Ok(())
    }

    /// The packed static arrays the solver steps (its `pos`/`vel` are each
    /// point's state when it was added, not the current state).
    pub fn packed(&self) -> &Packed {
        &self.edit.mirror
    }

    /// [`scene_hash`] of what the solver steps, for checkpoints.
    pub fn scene_hash(&self) -> u64 {
        scene_hash(&self.edit.mirror, &self.params)
    }

    /// Makes `new` (the mirror after an edit of `world`, its defaults
    /// resolved with `world`'s parameters) the solver's world, with those
    /// parameters. Everything that can fail (the device's limits for the
    /// new sizes, the contact buffers) is done first, so a failed edit
    /// leaves the solver as it was.
    fn edit_to(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        world: &World,
        new: Packed,
        state: StateEdit,
    ) -> Result<EditReport, SolverError> {
        Buffers::check_limits(&device.limits(), &new)?;
        // A removal keeps the contact buffers where they hold the world
        // after it (the hash table's size unchanged): what changed is
        // written into them.
        let kept = match (&state, &self.contacts) {
            (StateEdit::Remove(..), Some(c))
                if new.has_contacts() && c.buffers.room().holds(&ContactRoom::of(&new)) =>
            {
                Some(c.buffers.clone())
            }
            _ => None,
        };
        let contacts = match kept {
            Some(buffers) => ContactUpdate::Removed(buffers),
            None => ContactUpdate::New(super::ContactStages::buffers(device, &new)?),
        };
        let old = std::mem::replace(&mut self.edit.mirror, new);
        let same_params = self.params == world.params;
        self.edit.resolved = Some(world.params.clone());
        self.params = world.params.clone();
        self.upload(
            device,
            queue,
            Before::Packed(&old),
            state,
            contacts,
            same_params,
        )
    }

    /// Moving colliders at their poses at the start of step `steps` (the
    /// mirror holds them at `t = 0`), and the clock that poses them in the
    /// substeps that follow (`cpu::move_colliders`).
    pub(in crate::gpu::solver) fn pose_colliders(&self) {
        let Some(m) = &self.move_colliders else {
            return;
        };
        let clock = move_colliders::clock_at(self.steps, self.params.substeps);
        m.set_clock(&self.queue, clock);
        let p = &self.edit.mirror;
        let (mut planets, mut planes) = (p.planets.clone(), p.planes.clone());
        move_colliders::move_colliders(&p.sim, clock, &mut planets, &mut planes);
        let table = Colliders::new(&planets, &planes);
        self.queue
            .write_buffer(&self.buffers.colliders, 0, bytemuck::bytes_of(&table));
    }

    /// Replaces every buffer with one of (at least) double the capacity
    /// where the mirror outgrew it, copies the first `kept` points' state
    /// over on the GPU, and rebuilds the pipelines' bind groups.
    fn reallocate(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        kept: usize,
    ) -> Result<(), SolverError> {
        let b = &self.buffers;
        let m = &self.edit.mirror;
        let mut padded = m.clone();
        let n_cap = grow_by(&mut padded.pos, &b.state[0], STATE_BYTES as usize);
        padded.vel.resize(n_cap, [0.0; 2]);
        grow(&mut padded.point_info, &b.info);
        grow(&mut padded.gravity_scale, &b.gravity_scale);
        grow(&mut padded.materials, &b.materials);
        grow(&mut padded.spring_halves.ranges, &b.spring_ranges);
        grow(&mut padded.spring_halves.records, &b.spring_halves);
        grow(&mut padded.rod_halves.ranges, &b.rod_ranges);
        grow(&mut padded.rod_halves.records, &b.rod_halves);
        // The frames buffer is sized by the bodies too.
        let frames_cap = b.frames.size() as usize / std::mem::size_of::<BodyFrame>();
        let bodies_cap = grow(&mut padded.bodies, &b.bodies).max(frames_cap);
        padded.bodies.resize(bodies_cap, Default::default());
        grow(&mut padded.members, &b.members);
        grow(&mut padded.point_members.ranges, &b.member_ranges);
        grow(&mut padded.point_members.records, &b.point_members);
        grow(&mut padded.body_order, &b.body_order);
        grow(&mut padded.impact_home, &b.impact_home);
        grow(&mut padded.impact_inv_mass, &b.impact_inv_mass);
        grow(&mut padded.kinematic, &b.kinematic);
        // Exact sizes when doubling would pass the device's limits.
        let buffers = match Buffers::new(device, &padded) {
            Ok(b) => b,
            Err(SolverError::TooLarge { .. }) => Buffers::new(device, m)?,
            Err(e) => return Err(e),
        };
        let mut encoder = device.create_command_encoder(&Default::default());
        if kept > 0 {
            let old = &self.buffers;
            let k = kept as u64;
            // The state, and the kept points' sleep (what slept may sleep
            // on after an append; an edit that wakes everything rewrites
            // it) with their inverse masses, 0 while asleep.
            for (from, to, bytes) in [
                (&old.state[0], &buffers.state[0], k * STATE_BYTES),
                (&old.sleep_last, &buffers.sleep_last, k * ANCHOR_BYTES),
                (&old.rest_steps, &buffers.rest_steps, 4 * k),
                (&old.sleep_speed, &buffers.sleep_speed, 4 * k),
                (&old.sleep_support, &buffers.sleep_support, 4 * k),
                (&old.info, &buffers.info, 16 * k),
            ] {
                encoder.copy_buffer_to_buffer(from, 0, to, 0, bytes);
            }
        }
        // The frames too: the bodies already there keep theirs until the
        // next step (a new buffer would read zeros: no rotation at all).
        let frames = self.buffers.frames.size().min(buffers.frames.size());
        encoder.copy_buffer_to_buffer(&self.buffers.frames, 0, &buffers.frames, 0, frames);
        queue.submit([encoder.finish()]);
        let counts = ColliderCounts::of(m);
        self.integrate = Integrate::new(device, &buffers, counts);
        self.collide = Collide::new(device, &buffers, counts);
        self.impact = Impact::new(device, &buffers);
        self.springs = Springs::new(device, &buffers);
        self.rods = Rods::new(device, &buffers);
        self.shape_match = ShapeMatch::new(device, &buffers, counts);
        self.sleep = super::Sleep::new(device, &buffers, counts);
        self.commands = super::Commands::new(device, &buffers);
        self.move_colliders = counts.moving.then(|| MoveColliders::new(device, &buffers));
        self.move_bodies = super::move_bodies(device, &buffers, m.kinematic.len());
        self.num_kinematic = m.kinematic.len();
        self.terrain = (!m.terrain.segments.is_empty())
            .then(|| super::super::terrain::Terrain::new(device, &buffers));
        self.collider_counts = counts;
        self.buffers = buffers;
        Ok(())
    }

    /// The dispatch sizes and counts, from the mirror.
    fn refresh_counts(&mut self, device: &wgpu::Device) {
        let p = &self.edit.mirror;
        (self.point_grid, self.shape_grids) = super::dispatch_grids(device, &p.sim);
        // The collide kernels are specialised for the collider counts.
        let counts = ColliderCounts::of(p);
        if counts != self.collider_counts {
            self.integrate = Integrate::new(device, &self.buffers, counts);
            self.collide = Collide::new(device, &self.buffers, counts);
            self.shape_match = ShapeMatch::new(device, &self.buffers, counts);
            self.sleep = super::Sleep::new(device, &self.buffers, counts);
            if counts.moving != self.collider_counts.moving {
                self.move_colliders = counts
                    .moving
                    .then(|| MoveColliders::new(device, &self.buffers));
            }
            self.collider_counts = counts;
        }
        if p.kinematic.len() != self.num_kinematic {
            self.move_bodies = super::move_bodies(device, &self.buffers, p.kinematic.len());
            self.num_kinematic = p.kinematic.len();
        }
        self.has_springs = p.springs.len() as u32 > p.num_rods;
        self.num_rods = p.num_rods;
        self.num_springs = p.springs.len();
        self.num_outline_points = p.outline_len() as u32;
        self.num_points = p.pos.len();
        self.num_bodies = p.bodies.len();
        self.num_members = p.members.len();
    }
}

impl GpuSolver {
    /// Settles the `listed` points (`sleep::record_settle_listed`): after a
    /// removal followed in place, those whose info the upload wrote.
    pub(super) fn settle_listed(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        listed: &[u32],
    ) {
        if listed.is_empty() {
            return;
        }
        let kernels = (self.edit.remap_kernels)
            .get_or_insert_with(|| crate::gpu::remap_contacts::RemapKernels::new(device));
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("settled points"),
            contents: bytemuck::cast_slice(listed),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            crate::gpu::sleep::record_settle_listed(
                device,
                &mut pass,
                &kernels.settle,
                &self.buffers,
                (&buffer, listed.len() as u32),
            );
        }
        queue.submit([encoder.finish()]);
    }
}
