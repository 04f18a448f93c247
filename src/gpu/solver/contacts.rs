//! The GPU solver's body-contact stages (broad phase, contacts, impacts)
//! and their buffers, present when something can collide.

use super::super::SolverError;
use super::super::body_collide::{BodyCollide, ContactKernels};
use super::super::broad_phase::{BroadPhase, ContactBuffers};
use super::super::buffers::Buffers;
use super::super::impact::BodyImpact;
use super::super::sleep::SleepTouch;
use super::GpuSolver;
use crate::pack::Packed;

/// The body-contact stages and their buffers.
pub(super) struct ContactStages {
    pub(super) buffers: ContactBuffers,
    pub(super) broad: BroadPhase,
    pub(super) collide: BodyCollide,
    pub(super) impact: BodyImpact,
    /// Sleeping's touch, over these contacts.
    pub(super) touch: SleepTouch,
}

impl ContactStages {
    /// The stages for a packed world, or `None` when nothing can collide.
    /// An edit passes the stages it replaces: their compiled pipelines are
    /// kept, only buffers and bind groups are made again.
    pub(super) fn new(
        device: &wgpu::Device,
        b: &Buffers,
        packed: &Packed,
        reuse: Option<&ContactStages>,
    ) -> Result<Option<Self>, SolverError> {
        let buffers = Self::buffers(device, packed)?;
        Ok(buffers.map(|buffers| Self::with_buffers(device, b, buffers, packed, reuse)))
    }

    /// The contact buffers for a packed world (`None` when nothing can
    /// collide), after checking the device's limits: the fallible half of
    /// [`ContactStages::new`], which an edit does before it changes
    /// anything.
    pub(super) fn buffers(
        device: &wgpu::Device,
        packed: &Packed,
    ) -> Result<Option<ContactBuffers>, SolverError> {
        if !packed.has_contacts() {
            return Ok(None);
        }
        super::super::check_device_limits(device, true)?;
        ContactBuffers::new(device, packed).map(Some)
    }

    /// The stages over `buffers` and the solver's buffers `b`.
    pub(super) fn with_buffers(
        device: &wgpu::Device,
        b: &Buffers,
        buffers: ContactBuffers,
        packed: &Packed,
        reuse: Option<&ContactStages>,
    ) -> Self {
        let collide = BodyCollide::new(device, b, &buffers, packed, reuse.map(|r| &r.collide));
        let impact = BodyImpact::new(
            device,
            b,
            &buffers,
            collide.passes(),
            reuse.map(|r| &r.impact),
        );
        Self {
            broad: BroadPhase::new(device, b, &buffers, packed, reuse.map(|r| &r.broad)),
            collide,
            impact,
            touch: SleepTouch::new(device, b, &buffers, reuse.map(|r| &r.touch)),
            buffers,
        }
    }
}

impl GpuSolver {
    /// Gives the collider kernels (collide, the fused shape-matching
    /// kernel, terrain) the contact buffers' warm starts, or none in a
    /// world without body contacts: after every edit, which makes the
    /// contact buffers again. With them a point not yet settled is lifted
    /// out of a collider's skin slowly (`cpu::collider_push`).
    pub(super) fn bind_warm(&mut self) {
        let warm = self.contacts.as_ref().map(|c| &c.buffers.warm);
        let (device, b) = (&self.device, &self.buffers);
        self.collide.bind_warm(device, b, warm);
        self.shape_match.bind_warm(device, b, warm);
        if let Some(t) = &mut self.terrain {
            t.bind_warm(device, b, warm);
        }
    }

    /// How the contact kernels walk the grid and which points their passes
    /// run over (`None` for a world without contacts). By default
    /// [`ContactKernels::for_device`]; edits keep it.
    pub fn contact_kernels(&self) -> Option<ContactKernels> {
        self.contacts.as_ref().map(|c| c.collide.kernels())
    }

    /// Whether substeps run the body-contact stages: body collisions are on
    /// and some body outline or free disk can be hit.
    pub fn has_contacts(&self) -> bool {
        self.params.body_collisions && self.contacts.is_some()
    }
}
