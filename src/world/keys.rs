//! Lasting names for points and bodies: a handle ([`PointHandle`],
//! [`BodyHandle`]) is an index, which a removal may change; a key
//! ([`PointKey`], [`BodyKey`]) names the same item until that item itself
//! is removed, and never another one after (a generation per slot, as
//! rapier's and Box2D's ids), with a user-data word per item.

use super::Remap;

/// A point's lasting name ([`World::point_key`](super::World::point_key)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PointKey {
    slot: u32,
    generation: u32,
}

/// A body's lasting name ([`World::body_key`](super::World::body_key)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BodyKey {
    slot: u32,
    generation: u32,
}

/// No item in the slot.
const EMPTY: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Slot {
    generation: u32,
    /// The item's index now, or [`EMPTY`].
    index: u32,
    user_data: u64,
}

/// The slots of one kind of item: each item's slot, and each slot's
/// generation, item and user data. Free slots are reused, their
/// generation one higher.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Keys {
    slots: Vec<Slot>,
    /// Each item's slot, by index.
    of_item: Vec<u32>,
    free: Vec<u32>,
}

impl Keys {
    /// A slot for the item appended at index `of_item.len()`.
    pub(crate) fn push(&mut self) {
        let index = self.of_item.len() as u32;
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = Slot {
                    index,
                    user_data: 0,
                    ..self.slots[s as usize]
                };
                s
            }
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    index,
                    user_data: 0,
                });
                self.slots.len() as u32 - 1
            }
        };
        self.of_item.push(slot);
    }

    /// The mark a transaction restores: the items and the slots.
    pub(crate) fn mark(&self) -> (usize, usize) {
        (self.of_item.len(), self.slots.len())
    }

    /// Undoes every [`push`](Self::push) since [`mark`](Self::mark) gave
    /// `(items, slots)` (a failed transaction's), in reverse: new slots
    /// are dropped, reused ones go back to the free list as they were, so
    /// the keys are exactly as before the transaction.
    pub(crate) fn truncate(&mut self, (items, slots): (usize, usize)) {
        while self.of_item.len() > items {
            let slot = self.of_item.pop().expect("longer than the mark");
            if slot as usize >= slots {
                continue;
            }
            self.slots[slot as usize].index = EMPTY;
            self.free.push(slot);
        }
        self.slots.truncate(slots);
    }

    fn release(&mut self, slot: u32) {
        let s = &mut self.slots[slot as usize];
        s.index = EMPTY;
        s.user_data = 0;
        s.generation = s.generation.wrapping_add(1);
        self.free.push(slot);
    }

    /// Follows a removal: the removed items' slots are freed, the moved
    /// ones take their new indices (a visit of those alone).
    pub(crate) fn remap(&mut self, remap: &Remap) {
        for old in remap.removed() {
            self.release(self.of_item[old as usize]);
        }
        for (old, new) in remap.moves() {
            let slot = self.of_item[old as usize];
            self.slots[slot as usize].index = new;
            self.of_item[new as usize] = slot;
        }
        self.of_item.truncate(remap.new_len());
    }

    /// The slot and generation of item `index`, if it exists.
    fn key(&self, index: usize) -> Option<(u32, u32)> {
        let slot = *self.of_item.get(index)?;
        Some((slot, self.slots[slot as usize].generation))
    }

    /// Item `index`'s slot and generation as one word, what fingerprints
    /// hash (`fingerprint.rs`); `u64::MAX` for an index with no item.
    pub(crate) fn word(&self, index: usize) -> u64 {
        self.key(index).map_or(u64::MAX, |(slot, generation)| {
            (generation as u64) << 32 | slot as u64
        })
    }

    /// The index of the item in `slot` at `generation`, if it is still
    /// there.
    fn find(&self, slot: u32, generation: u32) -> Option<usize> {
        let s = self.slots.get(slot as usize)?;
        (s.generation == generation && s.index != EMPTY).then_some(s.index as usize)
    }

    fn user_data(&self, index: usize) -> Option<u64> {
        let slot = *self.of_item.get(index)?;
        Some(self.slots[slot as usize].user_data)
    }

    fn set_user_data(&mut self, index: usize, data: u64) -> Option<()> {
        let slot = *self.of_item.get(index)?;
        self.slots[slot as usize].user_data = data;
        Some(())
    }
}

use super::{BodyHandle, PointHandle, World};
use crate::error::{Item, WorldError};

impl World {
    /// Point `point`'s lasting name, or `None` for a handle the world does
    /// not have.
    pub fn point_key(&self, point: PointHandle) -> Option<PointKey> {
        let (slot, generation) = self.point_keys.key(point.index())?;
        Some(PointKey { slot, generation })
    }

    /// The point `key` names now, or `None` once it was removed.
    pub fn point_of(&self, key: PointKey) -> Option<PointHandle> {
        let i = self.point_keys.find(key.slot, key.generation)?;
        Some(PointHandle(i as u32))
    }

    /// Body `body`'s lasting name, or `None` for a handle the world does
    /// not have.
    pub fn body_key(&self, body: BodyHandle) -> Option<BodyKey> {
        let (slot, generation) = self.body_keys.key(body.index())?;
        Some(BodyKey { slot, generation })
    }

    /// The body `key` names now, or `None` once it was removed.
    pub fn body_of(&self, key: BodyKey) -> Option<BodyHandle> {
        let i = self.body_keys.find(key.slot, key.generation)?;
        Some(BodyHandle(i as u32))
    }

    /// Body `body`'s user-data word (0 until set): a program's own name or
    /// pointer for it, which follows the body through removals.
    pub fn body_user_data(&self, body: BodyHandle) -> Result<u64, WorldError> {
        self.body_keys
            .user_data(body.index())
            .ok_or(self.unknown_body(body))
    }

    /// Sets body `body`'s user-data word.
    pub fn set_body_user_data(&mut self, body: BodyHandle, data: u64) -> Result<(), WorldError> {
        let unknown = self.unknown_body(body);
        self.body_keys
            .set_user_data(body.index(), data)
            .ok_or(unknown)
    }

    fn unknown_body(&self, body: BodyHandle) -> WorldError {
        WorldError::UnknownHandle {
            item: Item::Body(body.0),
            len: self.bodies().len() as u32,
        }
    }
}
