//! Uploading an edit: what changed between the packed world before it and
//! the mirror after, and the path of an append that links no earlier point
//! (`GpuSolver::sync_appended`), which knows what changed without a copy of
//! the world before.

use super::super::super::SolverError;
use super::super::super::broad_phase::{AppendedFrom, ContactBuffers, ContactRoom};
use super::super::super::buffers::{
    ANCHOR_BYTES, Buffers, STATE_BYTES, contact_arrays, dilation_bytes, interleave,
    plane_impacts_bytes, static_arrays, write_tail,
};
use super::super::GpuSolver;
use super::followed::Followed;
use super::{BODY_EDGE_INDICES, EditReport, SPRING_INDICES, StateEdit, write_changed};
use crate::cpu::sleep::{
    keeps_sleeping as sleep_keeps, moved_points, removal_sleep, removal_sleep_over,
    removed_or_moved_points,
};
use crate::gpu::remap_contacts::{RemapKernels, RemapTable, RenamedCopies};
use crate::layout::{BodyFrame, Colliders};
use crate::pack::Packed;
use crate::world::World;

/// What sleeping does through an edit.
enum Sleeping<'a> {
    /// Points appended from here on start awake; the rest sleeps on.
    Appended(usize),
    /// What the removal touched wakes; the rest sleeps on (with the
    /// bodies it moved when the mirror followed it in place,
    /// `StateEdit::Remove`).
    Removed(&'a crate::world::Removal, Option<&'a [u32]>),
    /// Everything wakes.
    Wake,
}

/// What an upload does with the contact buffers.
pub(super) enum ContactUpdate {
    /// Makes the contact stages again over these buffers (none: the world
    /// has no contacts).
    New(Option<ContactBuffers>),
    /// Writes an append's records (from `from`) into the room the
    /// solver's own buffers (`buffers`, a clone) have, and keeps them.
    Appended {
        buffers: ContactBuffers,
        from: AppendedFrom,
    },
    /// Writes what a removal changed of the contact data into the
    /// solver's own buffers (`buffers`, a clone, which hold the world after
    /// it), clears their scratch, and keeps them; the warm starts and
    /// tangles follow the removal's maps from copies.
    Removed(ContactBuffers),
}

/// The packed world before an edit, as an upload needs it.
pub(super) enum Before<'a> {
    /// A copy of it: the upload writes what differs.
    Packed(&'a Packed),
    /// An append that linked no earlier point
    /// (`Packed::sync_in_place`): every static array kept its first
    /// `lens` bytes but the body order (which an append merges into), and
    /// the first `points` points kept their assemblies.
    Appended {
        lens: [usize; STATIC_ARRAYS],
        body_order: Vec<u32>,
        points: usize,
    },
    /// A removal the mirror followed in place, noting what changed.
    Followed(Box<Followed>),
}

/// The number of static arrays (`buffers::static_arrays`).
pub(super) const STATIC_ARRAYS: usize = 15;

impl Before<'_> {
    /// What the mirror `packed` holds before an append that links no
    /// earlier point.
    fn appending(packed: &Packed) -> Before<'static> {
        Before::Appended {
            lens: static_arrays(packed).map(|a| a.bytes.len()),
            body_order: packed.body_order.clone(),
            points: packed.pos.len(),
        }
    }

    /// The points packed before.
    /// Whether a removal is followed by moving what moved
    /// ([`Packed::follows_removal`]), rather than by packing again.
    fn follows_removal(&self, removal: &crate::world::Removal) -> bool {
        match self {
            Before::Packed(old) => old.follows_removal(removal),
            Before::Appended { .. } | Before::Followed(_) => true,
        }
    }

    fn points(&self) -> usize {
        match self {
            Before::Packed(old) => old.pos.len(),
            Before::Appended { points, .. } => *points,
            Before::Followed(f) => f.points,
        }
    }

    /// The points and bodies packed before a removal; `None` after an
    /// append.
    fn removal_counts(&self) -> Option<(usize, usize)> {
        match self {
            Before::Packed(old) => Some((old.pos.len(), old.bodies.len())),
            Before::Followed(f) => Some((f.points, f.bodies)),
            Before::Appended { .. } => None,
        }
    }

    /// The mirror before the edit, where the upload has it (in debug
    /// builds, a removal followed in place keeps it for its checks).
    fn old(&self) -> Option<&Packed> {
        match self {
            Before::Packed(old) => Some(old),
            #[cfg(debug_assertions)]
            Before::Followed(f) => Some(&f.old),
            _ => None,
        }
    }

    /// Whether points `from..` were only appended to it, so that what slept
    /// may sleep on (`cpu::sleep::keeps_sleeping`).
    fn keeps_sleeping(&self, new: &Packed, from: usize) -> bool {
        match self {
            Before::Packed(old) => sleep_keeps(old, new, from),
            Before::Appended { .. } => new.sim.sleep_steps > 0,
            // Not an append.
            Before::Followed(_) => false,
        }
    }

    /// Whether the terrain is the one before.
    fn same_terrain(&self, new: &Packed) -> bool {
        match self {
            Before::Packed(old) => old.terrain == new.terrain,
            // An append that changed the terrain is not local; a removal
            // keeps it.
            Before::Appended { .. } | Before::Followed(_) => true,
        }
    }

    /// Writes what changed of the static arrays of `new` to `targets`,
    /// which have room for them; returns the bytes written.
    fn write_static(&self, queue: &wgpu::Queue, targets: &[&wgpu::Buffer], new: &Packed) -> u64 {
        let arrays = static_arrays(new);
        if let Before::Followed(f) = self {
            return f.write(queue, targets, &arrays, 0);
        }
        let mut bytes = 0;
        for (k, (t, a)) in targets.iter().zip(&arrays).enumerate() {
            bytes += match self {
                Before::Packed(old) => {
                    write_changed(queue, t, static_arrays(old)[k].bytes, a.bytes)
                }
                Before::Appended { body_order, .. } if a.name == "body_order" => {
                    write_changed(queue, t, bytemuck::cast_slice(body_order), a.bytes)
                }
                Before::Appended { lens, .. } => write_tail(queue, t, lens[k], &a.bytes[lens[k]..]),
                Before::Followed(_) => unreachable!("written above"),
            };
        }
        bytes
    }

    /// Writes what changed of the sleeping records of `new`; returns the
    /// bytes written. After a removal the mirror followed in place, contact
    /// data included, only the points of the bodies it moved (`moved`)
    /// changed: their assemblies were renamed, and every point that moved
    /// is one of theirs.
    fn write_sleep_points(
        &self,
        queue: &wgpu::Queue,
        b: &Buffers,
        new: &Packed,
        moved: Option<&[u32]>,
    ) -> u64 {
        match (self, moved) {
            (Before::Packed(_) | Before::Followed(_), Some(moved)) => {
                let mut points: Vec<u32> = moved_points(new, moved).collect();
                points.sort_unstable();
                points.dedup();
                let record = std::mem::size_of::<crate::layout::SleepPoint>();
                let mut bytes = 0;
                for (start, _, len) in map_runs(points.iter().map(|&p| (p, p))) {
                    let records: Vec<_> = (start..start + len)
                        .filter_map(|p| new.sleep_point(p as u32))
                        .collect();
                    let at = (start * record) as u64;
                    queue.write_buffer(&b.sleep_points, at, bytemuck::cast_slice(&records));
                    bytes += (len * record) as u64;
                }
                #[cfg(debug_assertions)]
                if let Some(old) = self.old() {
                    let (old, now) = (old.sleep_points(), new.sleep_points());
                    let kept = |i: usize| points.binary_search(&(i as u32)).is_err();
                    let same =
                        (old.iter().zip(&now).enumerate()).all(|(i, (o, n))| o == n || !kept(i));
                    debug_assert!(same, "a sleeping record changed outside the moved bodies");
                }
                bytes
            }
            (Before::Packed(old), None) => write_changed(
                queue,
                &b.sleep_points,
                bytemuck::cast_slice(&old.sleep_points()),
                bytemuck::cast_slice(&new.sleep_points()),
            ),
            (Before::Followed(_), None) => {
                let records = new.sleep_points();
                queue.write_buffer(&b.sleep_points, 0, bytemuck::cast_slice(&records));
                std::mem::size_of_val(&records[..]) as u64
            }
            (Before::Appended { points, .. }, _) => {
                let tail: Vec<_> = new.sleep_points_from(*points).collect();
                let record = std::mem::size_of::<crate::layout::SleepPoint>();
                write_tail(
                    queue,
                    &b.sleep_points,
                    points * record,
                    bytemuck::cast_slice(&tail),
                )
            }
        }
    }
}

impl GpuSolver {
    /// [`GpuSolver::sync`] of an append whose items link no earlier point,
    /// at the parameters the solver steps and resolved its items with:
    /// the mirror packs the new items alone, in place
    /// (`Packed::sync_in_place`), and the upload writes the arrays' new
    /// tails. `None` (nothing changed) for any other edit.
    pub(super) fn sync_appended(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        world: &World,
    ) -> Result<Option<EditReport>, SolverError> {
        let resolved = self.edit.resolved.clone();
        if self.params != world.params || resolved.as_ref() != Some(&world.params) {
            return Ok(None);
        }
        let mirror = &mut self.edit.mirror;
        let before = Before::appending(mirror);
        let from = mirror.pos.len();
        let appended_from = AppendedFrom::of(mirror);
        let Some(mark) = mirror.append_in_place(self.edit.generation, world, resolved.as_ref())?
        else {
            return Ok(None);
        };
        // What can fail, before anything is written: the contact buffers
        // are kept where they have room for the append, and made again
        // with twice the room where they have too little.
        let had = self.contacts.as_ref().map(|c| &c.buffers);
        let checked = Buffers::check_limits(&device.limits(), mirror).and_then(|()| {
            let need = ContactRoom::of(mirror);
            match had {
                Some(buffers) if mirror.has_contacts() && buffers.room().holds(&need) => {
                    Ok(ContactUpdate::Appended {
                        buffers: buffers.clone(),
                        from: appended_from,
                    })
                }
                Some(buffers) if mirror.has_contacts() => {
                    let room = buffers.room().grown(&need);
                    match ContactBuffers::with_room(device, mirror, room) {
                        Err(SolverError::TooLarge { .. }) => {
                            super::super::ContactStages::buffers(device, mirror)
                        }
                        made => made.map(Some),
                    }
                    .map(ContactUpdate::New)
                }
                _ => super::super::ContactStages::buffers(device, mirror).map(ContactUpdate::New),
            }
        });
        let contacts = match checked {
            Ok(c) => c,
            Err(e) => {
                mirror.restore(mark);
                return Err(e);
            }
        };
        self.upload(
            device,
            queue,
            before,
            StateEdit::Append { from },
            contacts,
            true,
        )
        .map(Some)
    }

    /// Uploads the difference between what was before (`before`) and the
    /// mirror, whose buffers were checked against the device's limits,
    /// with the mirror's contact buffers.
    pub(super) fn upload(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        before: Before,
        state: StateEdit,
        contacts: ContactUpdate,
        same_params: bool,
    ) -> Result<EditReport, SolverError> {
        // Items only appended, at the same parameters: what slept may
        // sleep on (`cpu::sleep::keeps_sleeping`).
        let appended = matches!(state, StateEdit::Append { .. });
        // A removal's maps and the counts packed before and after it, for
        // what follows it on the GPU.
        let maps = match (&state, before.removal_counts()) {
            (StateEdit::Remove(removal, _), Some((points, bodies))) => {
                let old = (points as u32, bodies as u32);
                let m = &self.edit.mirror;
                let new = (m.pos.len() as u32, m.bodies.len() as u32);
                Some(RemapTable::new(device, removal, old, new))
            }
            _ => None,
        };
        // Appended in place (`Packed::sync_in_place`): the contacts' records
        // that carry from step to step are kept, as on the CPU.
        let in_place = matches!(before, Before::Appended { .. });
        // Items only appended, or removed, at the same parameters: what
        // slept may sleep on.
        let sleeping = match state {
            StateEdit::Append { from }
                if same_params && before.keeps_sleeping(&self.edit.mirror, from) =>
            {
                Sleeping::Appended(from)
            }
            StateEdit::Remove(removal, moved)
                if same_params
                    && self.edit.mirror.sim.sleep_steps > 0
                    && before.follows_removal(removal) =>
            {
                Sleeping::Removed(removal, moved)
            }
            _ => Sleeping::Wake,
        };
        let new = &self.edit.mirror;
        let mut report = EditReport::default();
        // The state first, in the old buffers (which are large enough for
        // a compaction).
        let (kept, from) = match state {
            StateEdit::Append { from } => (from, from),
            StateEdit::Remove(removal, _) => {
                let b = &self.buffers;
                let mut encoder = device.create_command_encoder(&Default::default());
                let keep = matches!(sleeping, Sleeping::Removed(..));
                if let (true, Some(maps), Some(c)) = (keep, &maps, &self.contacts) {
                    // Before the records move: the supports follow the
                    // removal (`cpu::sleep::remap_supports`).
                    let mut pass = encoder.begin_compute_pass(&Default::default());
                    c.touch.record_remap_supports(
                        device,
                        &mut pass,
                        (b, &c.buffers),
                        maps,
                        self.point_grid,
                    );
                }
                // Points appended to the world but not synced yet have no
                // state here: only the packed ones move, each run through
                // the spare state copy (a buffer copy may not overlap
                // itself). When the removal keeps what is packed first,
                // only the survivors that fill holes move; otherwise every
                // packed survivor does (`Packed::follows_removal`).
                let packed = before.points();
                let map = removal.point_remap();
                let runs = if before.follows_removal(removal) {
                    map_runs(map.moves().filter(|&(o, _)| (o as usize) < packed))
                } else {
                    map_runs((0..packed as u32).filter_map(|o| Some((o, map.get(o)?))))
                };
                let compact =
                    |encoder: &mut wgpu::CommandEncoder, buffer: &wgpu::Buffer, stride| {
                        for &(old_start, new_start, len) in &runs {
                            let (from, to) = (old_start as u64 * stride, new_start as u64 * stride);
                            let size = len as u64 * stride;
                            encoder.copy_buffer_to_buffer(buffer, from, &b.state[1], to, size);
                        }
                        for &(_, new_start, len) in &runs {
                            let at = new_start as u64 * stride;
                            let size = len as u64 * stride;
                            encoder.copy_buffer_to_buffer(&b.state[1], at, buffer, at, size);
                        }
                    };
                compact(&mut encoder, &b.state[0], STATE_BYTES);
                if keep {
                    // The kept points' sleeping records, in their new order.
                    for (buffer, stride) in [
                        (&b.rest_steps, 4),
                        (&b.sleep_speed, 4),
                        (&b.sleep_support, 4),
                        (&b.sleep_last, ANCHOR_BYTES),
                    ] {
                        compact(&mut encoder, buffer, stride);
                    }
                }
                queue.submit([encoder.finish()]);
                // Packed survivors land below `packed`; when packed again,
                // the points not synced before take their state below.
                let n = self.edit.mirror.pos.len();
                (n.min(packed), n)
            }
        };
        let new_bytes = static_arrays(new).map(|a| a.bytes);
        let targets = self.buffers.static_buffers();
        let state_bytes = new.pos.len() as u64 * STATE_BYTES;
        let frames_bytes = (new.bodies.len() * std::mem::size_of::<BodyFrame>()) as u64;
        let fits = targets
            .iter()
            .zip(&new_bytes)
            .all(|(t, n)| n.len() as u64 <= t.size())
            && state_bytes <= self.buffers.state[0].size()
            && frames_bytes <= self.buffers.frames.size()
            && 8 * new.bodies.len() as u64 <= self.buffers.dilation.size()
            && 16 * new.bodies.len() as u64 <= self.buffers.impact_sums.size()
            && plane_impacts_bytes(new.bodies.len()) <= self.buffers.plane_impacts.size()
            // New terrain gets new buffers (and bind groups) whole.
            && before.same_terrain(new);
        if fits {
            report.bytes_uploaded += before.write_static(queue, &targets, new);
            // Bodies may have moved: every ramp of an inflation ends at its
            // target.
            let dilations = dilation_bytes(new);
            queue.write_buffer(&self.buffers.dilation, 0, &dilations);
            report.bytes_uploaded += dilations.len() as u64;
            let moved = match state {
                StateEdit::Remove(_, moved) => moved,
                StateEdit::Append { .. } => None,
            };
            report.bytes_uploaded += before.write_sleep_points(queue, &self.buffers, new, moved);
            let table = Colliders::new(&new.planets, &new.planes);
            report.bytes_uploaded += match before {
                Before::Packed(old) => write_changed(
                    queue,
                    &self.buffers.colliders,
                    bytemuck::bytes_of(&Colliders::new(&old.planets, &old.planes)),
                    bytemuck::bytes_of(&table),
                ),
                Before::Appended { .. } => {
                    queue.write_buffer(&self.buffers.colliders, 0, bytemuck::bytes_of(&table));
                    std::mem::size_of_val(&table) as u64
                }
                // A removal keeps the planets and half-planes.
                Before::Followed(_) => 0,
            };
        } else {
            self.reallocate(device, queue, kept)?;
            report.reallocated = true;
            report.bytes_uploaded += self.buffers.total_bytes();
        }
        let sim = self.edit.mirror.set_sim(&self.params);
        self.buffers.write_sim(queue, &sim);
        report.bytes_uploaded += std::mem::size_of_val(&sim) as u64;
        let new = &self.edit.mirror;
        if new.pos.len() > from {
            let state = interleave(&new.pos[from..], &new.vel[from..]);
            let bytes: &[u8] = bytemuck::cast_slice(&state);
            queue.write_buffer(&self.buffers.state[0], from as u64 * STATE_BYTES, bytes);
            report.bytes_uploaded += bytes.len() as u64;
        }
        // A removal that moved points not synced yet into packed places
        // (packed again whole): those points' state is the world's. One
        // that keeps the packed points as a prefix moved none.
        if let (StateEdit::Remove(removal, _), Before::Packed(old)) = (&state, &before)
            && !old.follows_removal(removal)
        {
            let (map, packed) = (removal.point_remap(), old.pos.len() as u32);
            let unsynced = (0..new.pos.len() as u32)
                .filter(|&i| map.old_of(i).is_none_or(|o| o >= packed))
                .map(|i| (i, i));
            for (start, _, len) in map_runs(unsynced) {
                let span = start..start + len;
                let state = interleave(&new.pos[span.clone()], &new.vel[span]);
                let bytes: &[u8] = bytemuck::cast_slice(&state);
                queue.write_buffer(&self.buffers.state[0], start as u64 * STATE_BYTES, bytes);
                report.bytes_uploaded += bytes.len() as u64;
            }
        }

        for (ib, kind) in [
            (&mut self.edit.spring_indices, SPRING_INDICES),
            (&mut self.edit.body_edge_indices, BODY_EDGE_INDICES),
        ] {
            if let Some(ib) = ib {
                let (realloc, bytes) = ib.update(device, queue, (kind.1)(new));
                report.reallocated |= realloc;
                report.bytes_uploaded += bytes;
            }
        }
        if report.reallocated {
            self.edit.buffer_generation += 1;
        }
        self.edit.edit_generation += 1;
        self.refresh_counts(device);
        // The contact data: an append's records written into the buffers'
        // room, or the whole world's uploaded again into new buffers; the
        // stages are made again over them (the pipelines are kept).
        let old = self.contacts.take();
        let (buffers, kept) = match (contacts, &before) {
            (ContactUpdate::New(buffers), _) => {
                if let Some(b) = &buffers {
                    report.bytes_uploaded += b.uploaded_bytes();
                }
                (buffers, false)
            }
            (ContactUpdate::Appended { buffers, from }, _) => {
                let mut encoder = device.create_command_encoder(&Default::default());
                report.bytes_uploaded +=
                    buffers.write_appended(queue, &mut encoder, &self.edit.mirror, from);
                queue.submit([encoder.finish()]);
                (Some(buffers), true)
            }
            (ContactUpdate::Removed(buffers), Before::Packed(_) | Before::Followed(_)) => {
                let new = &self.edit.mirror;
                let targets = buffers.static_buffers();
                report.bytes_uploaded += match &before {
                    Before::Followed(f) => {
                        f.write(queue, &targets, &contact_arrays(new), STATIC_ARRAYS)
                    }
                    _ => {
                        let old = before.old().expect("a copy of the mirror");
                        let arrays = contact_arrays(old).into_iter().zip(contact_arrays(new));
                        (targets.into_iter().zip(arrays))
                            .map(|(buffer, (old, new))| {
                                write_changed(queue, buffer, old.bytes, new.bytes)
                            })
                            .sum()
                    }
                };
                (Some(buffers), true)
            }
            // A removal uploads from a copy of the world before it; without
            // one, the buffers are made again.
            (ContactUpdate::Removed(_), Before::Appended { .. }) => {
                let buffers = super::super::ContactStages::buffers(device, &self.edit.mirror)?;
                if let Some(b) = &buffers {
                    report.bytes_uploaded += b.uploaded_bytes();
                }
                (buffers, false)
            }
        };
        self.contacts = buffers.map(|buffers| {
            super::super::ContactStages::with_buffers(
                device,
                &self.buffers,
                buffers,
                &self.edit.mirror,
                old.as_ref(),
            )
        });
        self.bind_warm();
        // After an append in place into new buffers the points' warm starts
        // and the bodies' tangles are kept for what was there
        // (`cpu::solver::Contacts::extend`).
        if let (true, false, Some(new), Some(old)) = (in_place, kept, &self.contacts, &old) {
            let (new, old) = (&new.buffers, &old.buffers);
            let warm = (16 * from as u64).min(old.warm.size());
            let tangles = old.tangles.size().min(new.tangles.size());
            let mut encoder = device.create_command_encoder(&Default::default());
            if warm > 0 {
                encoder.copy_buffer_to_buffer(&old.warm, 0, &new.warm, 0, warm);
            }
            encoder.copy_buffer_to_buffer(&old.tangles, 0, &new.tangles, 0, tangles);
            queue.submit([encoder.finish()]);
        }
        // Contact events over the new buffers, the log kept. After an
        // append the bodies keep their partners (their indices stand);
        // after a removal the survivors' pairs follow their new indices
        // (`cpu::events::EventState::remap`).
        let old_events = self.events.take();
        self.rebuild_events(device, old_events.as_ref().map(|e| e.log.clone()));
        if let (true, Some(new), Some(old_e)) = (appended, &self.events, &old_events) {
            new.keep_pairs_of(old_e, device, queue);
        }
        // After a removal the warm starts, the tangles and the event pairs
        // follow its maps (`Contacts::follow_removal`, `EventState::remap`):
        // the warm starts and tangles in place in the buffers from before
        // it, kept or old; from old ones, what the new ones hold is copied
        // into them after.
        if let Some(maps) = &maps {
            let kernels = self
                .edit
                .remap_kernels
                .get_or_insert_with(|| RemapKernels::new(device));
            let from = match (kept, &self.contacts, &old) {
                (true, Some(c), _) | (false, _, Some(c)) => Some(&c.buffers),
                _ => None,
            };
            let renamed = (self.contacts.as_ref().zip(from))
                .map(|(new, from)| (&new.buffers, from, RenamedCopies::new(maps, kept)));
            let mut encoder = device.create_command_encoder(&Default::default());
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                if let Some((new, from, c)) = &renamed {
                    let records = (&from.warm, &from.tangles);
                    let outlines = &new.outlines;
                    kernels.record_contacts(device, &mut pass, records, outlines, maps, c.counts);
                }
                if let (Some(new), Some(old)) = (&self.events, &old_events) {
                    new.record_remap_pairs(old, device, &mut pass, &kernels.pairs, maps);
                }
            }
            if let Some((new, from, c)) = &renamed {
                c.record(&mut encoder, from, new);
            }
            queue.submit([encoder.finish()]);
        }
        // Items only appended, at the same parameters: what slept sleeps
        // on, and the new points start awake
        // (`sleep::keeps_sleeping`). Otherwise everything wakes, with the
        // edited world's assemblies (and the inverse masses the upload
        // above wrote only where they changed).
        match sleeping {
            Sleeping::Appended(from) => self.wake_appended(queue, from),
            Sleeping::Removed(removal, moved) => {
                // The assemblies the removal moved take their count and
                // speed word to their new roots, those it changed wake;
                // the points settle on the kept counts
                // (`cpu::sleep::removal_sleep`; only the assemblies taken
                // or moved when the mirror followed in place, as on the
                // CPU).
                let (map, new) = (removal.point_remap(), &self.edit.mirror);
                let changed = match (&before, moved) {
                    (Before::Packed(old), Some(moved)) => {
                        let olds = removed_or_moved_points(removal, old.pos.len(), new, moved);
                        let was = |i| old.sleep_point(i).expect("a packed point");
                        removal_sleep_over(&olds, was, |i| new.sleep_point(i), map)
                    }
                    (Before::Followed(f), Some(moved)) => {
                        let olds = removed_or_moved_points(removal, f.points, new, moved);
                        let was = |i| f.sleep_point(i);
                        removal_sleep_over(&olds, was, |i| new.sleep_point(i), map)
                    }
                    (Before::Packed(old), None) => {
                        removal_sleep(&old.sleep_points(), &new.sleep_points(), map)
                    }
                    // A removal followed in place names its moved bodies.
                    (Before::Followed(_), None) | (Before::Appended { .. }, _) => {
                        removal_sleep(&[], &new.sleep_points(), map)
                    }
                };
                self.move_roots(device, queue, &changed.moved);
                for &g in &changed.wakes {
                    self.wake_point(queue, crate::world::PointHandle(g));
                }
                // Followed in place: only the points whose info was
                // written settle (`cpu::sleep::settle` with a list).
                match &before {
                    Before::Followed(f) => {
                        let listed = f.changed.noted_points(self.edit.mirror.pos.len());
                        self.settle_listed(device, queue, &listed);
                    }
                    _ => self.submit_sleep(queue, crate::gpu::sleep::Sleep::record_settle),
                }
            }
            Sleeping::Wake => self.wake(queue),
        }
        self.pose_colliders();
        Ok(report)
    }
}

/// `(old, new)` pairs, in order, grouped into runs of consecutive items
/// going to consecutive places: `(old start, new start, length)`.
fn map_runs(pairs: impl Iterator<Item = (u32, u32)>) -> Vec<(usize, usize, usize)> {
    let mut runs: Vec<(usize, usize, usize)> = Vec::new();
    for (old, new) in pairs {
        let (old, new) = (old as usize, new as usize);
        match runs.last_mut() {
            Some((o, n, len)) if *o + *len == old && *n + *len == new => *len += 1,
            _ => runs.push((old, new, 1)),
        }
    }
    runs
}
