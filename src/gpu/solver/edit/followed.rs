//! A removal the mirror follows in place, contact data included
//! (`Packed::follow_plan` with a contact plan): the mirror notes what it
//! changes ([`Changed`]) and the upload writes those places, so that the
//! edit needs no copy of the mirror from before it nor a comparison of
//! every array with one.

use super::super::super::SolverError;
use super::super::super::buffers::{Buffers, PackedArray};
use super::super::GpuSolver;
use super::upload::{Before, ContactUpdate};
use super::{EditReport, StateEdit};
use crate::gpu::broad_phase::ContactRoom;
use crate::layout::SleepPoint;
use crate::pack::{ARRAYS, Array, Changed};
use crate::world::{Removal, World};

/// What an upload needs of the mirror before a removal it followed in
/// place.
pub(super) struct Followed {
    /// Points and bodies packed before it.
    pub points: usize,
    pub bodies: usize,
    /// What the follow changed.
    pub changed: Changed,
    /// The sleeping records before it of the points it took and of the
    /// moved bodies' points, by old index, sorted
    /// (`Packed::sleep_before_removal`).
    pub sleep: Vec<(u32, SleepPoint)>,
    /// The mirror before it, in debug builds only: the upload checks that
    /// `changed` names every place that differs.
    #[cfg(debug_assertions)]
    pub old: crate::pack::Packed,
}

impl Followed {
    /// The sleeping record of old point `i` before the removal, which
    /// took it or moved its body.
    pub fn sleep_point(&self, i: u32) -> SleepPoint {
        let k = (self.sleep.binary_search_by_key(&i, |&(o, _)| o))
            .expect("a point the removal took or moved");
        self.sleep[k].1
    }

    /// Writes the places of `arrays` (of the mirror after the removal,
    /// the `k`th being [`Array::ALL`]`[first + k]`) that the follow
    /// changed into `targets`, which hold the mirror before it; returns
    /// the bytes written.
    pub fn write(
        &self,
        queue: &wgpu::Queue,
        targets: &[&wgpu::Buffer],
        arrays: &[PackedArray],
        first: usize,
    ) -> u64 {
        let mut bytes = 0;
        for (k, (target, a)) in targets.iter().zip(arrays).enumerate() {
            let array = Array::ALL[first + k];
            debug_assert_eq!(array.name(), a.name, "the arrays' order");
            let ranges = self.changed.ranges(array, a.bytes.len() / a.elem.max(1));
            #[cfg(debug_assertions)]
            self.check_covers(array, a, &ranges);
            bytes += write_ranges(queue, target, a, &ranges);
        }
        bytes
    }

    /// Checks that every element of `a` that differs from the mirror
    /// before the removal lies in `ranges`.
    #[cfg(debug_assertions)]
    fn check_covers(&self, array: Array, a: &PackedArray, ranges: &[std::ops::Range<usize>]) {
        let old = super::super::super::buffers::static_arrays(&self.old)
            .into_iter()
            .chain(super::super::super::buffers::contact_arrays(&self.old))
            .nth(array as usize)
            .expect("an array");
        let e = a.elem.max(1);
        for i in 0..a.bytes.len() / e {
            let (span, new) = (i * e..(i + 1) * e, &a.bytes[i * e..(i + 1) * e]);
            if old.bytes.get(span) != Some(new) {
                let k = ranges.partition_point(|r| r.end <= i);
                assert!(
                    ranges.get(k).is_some_and(|r| r.contains(&i)),
                    "{}[{i}] changed in a removal followed in place, but no change was noted there",
                    a.name
                );
            }
        }
    }
}

/// Writes elements `ranges` of `a` into `target`, ranges closer than
/// [`GAP`] bytes in one write; returns the bytes written.
fn write_ranges(
    queue: &wgpu::Queue,
    target: &wgpu::Buffer,
    a: &PackedArray,
    ranges: &[std::ops::Range<usize>],
) -> u64 {
    // Byte ranges, 4-byte aligned (every element is whole words).
    let mut spans: Vec<std::ops::Range<usize>> = Vec::new();
    for r in ranges {
        let span = r.start * a.elem..r.end * a.elem;
        match spans.last_mut() {
            Some(last) if span.start <= last.end + GAP => last.end = span.end,
            _ => spans.push(span),
        }
    }
    let mut written = 0;
    for span in spans {
        queue.write_buffer(target, span.start as u64, &a.bytes[span.clone()]);
        written += span.len() as u64;
    }
    written
}

/// Bytes between two changed places below which one write covers both.
const GAP: usize = 256;

impl GpuSolver {
    /// [`GpuSolver::apply_removal`] when the mirror follows the removal in
    /// place, contact data included (`touched`, what
    /// `Packed::removal_plan` found it touches, checked): the follow
    /// notes what it changes and the upload writes that. Its arrays only
    /// shrink or keep their lengths, so they fit the buffers they are in.
    pub(super) fn follow_removal(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        world: &World,
        removal: &Removal,
        touched: crate::pack::Touched,
    ) -> Result<EditReport, SolverError> {
        let mirror = &self.edit.mirror;
        let (points, bodies) = (mirror.pos.len(), mirror.bodies.len());
        let sleep = mirror.sleep_before_removal(world, removal);
        #[cfg(debug_assertions)]
        let old = mirror.clone();
        let mut changed = Changed::on();
        let moved = (self.edit.mirror).follow_plan(world, removal, touched, &mut changed);
        let new = &self.edit.mirror;
        Buffers::check_limits(&device.limits(), new)?;
        let contacts = match &self.contacts {
            Some(c) if new.has_contacts() && c.buffers.room().holds(&ContactRoom::of(new)) => {
                ContactUpdate::Removed(c.buffers.clone())
            }
            _ => ContactUpdate::New(super::super::ContactStages::buffers(device, new)?),
        };
        let same_params = self.params == world.params;
        self.edit.resolved = Some(world.params.clone());
        self.params = world.params.clone();
        let before = Before::Followed(Box::new(Followed {
            points,
            bodies,
            changed,
            sleep,
            #[cfg(debug_assertions)]
            old,
        }));
        let state = StateEdit::Remove(removal, moved.as_deref());
        self.upload(device, queue, before, state, contacts, same_params)
    }
}

// The static buffers hold the first arrays, the contact buffers the rest.
const _: () = assert!(ARRAYS == super::upload::STATIC_ARRAYS + 5);

impl GpuSolver {
    /// `cpu::sleep::move_roots` on the GPU: each moved assembly's count
    /// and speed word copied from its old root's slot to its new root's,
    /// through the spare state copy (all read before any is written).
    pub(super) fn move_roots(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        moved: &[(u32, u32)],
    ) {
        if moved.is_empty() {
            return;
        }
        let b = &self.buffers;
        let mut encoder = device.create_command_encoder(&Default::default());
        for (k, buffer) in [&b.rest_steps, &b.sleep_speed].into_iter().enumerate() {
            let base = (k * moved.len()) as u64 * 4;
            for (j, &(from, _)) in moved.iter().enumerate() {
                let at = base + j as u64 * 4;
                encoder.copy_buffer_to_buffer(buffer, from as u64 * 4, &b.state[1], at, 4);
            }
            for (j, &(_, to)) in moved.iter().enumerate() {
                let at = base + j as u64 * 4;
                encoder.copy_buffer_to_buffer(&b.state[1], at, buffer, to as u64 * 4, 4);
            }
        }
        queue.submit([encoder.finish()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uploaded_arrays_are_in_the_order_changed_names_them() {
        let p = crate::pack::Packed::from_world(&World::default()).expect("an empty world packs");
        let arrays = super::super::super::super::buffers::static_arrays(&p);
        let names: Vec<&str> = (arrays.iter())
            .chain(&super::super::super::super::buffers::contact_arrays(&p))
            .map(|a| a.name)
            .collect();
        let listed: Vec<&str> = Array::ALL.iter().map(|a| a.name()).collect();
        assert_eq!(names, listed);
    }
}
