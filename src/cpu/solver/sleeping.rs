//! Sleeping on the CPU solver: its state, its stage and the waking and
//! checkpointing of it.

use super::CpuSolver;
use crate::cpu::sleep;
use crate::error::WorldError;
use crate::layout::{PointInfo, SleepPoint};
use crate::pack::Packed;
use crate::world::Removal;

/// Sleeping's state (`shaders/sleep.wgsl`'s buffers): each point's
/// assembly and own inverse mass, and per assembly root the largest
/// squared speed of the step (as bits) and the steps at rest.
#[derive(Clone, Debug, Default)]
pub(super) struct Sleep {
    points: Vec<SleepPoint>,
    /// Each point's position at the last measure (or wake).
    last: Vec<[f32; 2]>,
    pub(super) speed: Vec<u32>,
    pub(super) rest_steps: Vec<u32>,
    /// Each point's support (`cpu::sleep::touch`): the body of its
    /// contact while its assembly was last awake, `u32::MAX` for none.
    support: Vec<u32>,
}

impl Sleep {
    /// Each point's assembly and own inverse mass.
    pub(super) fn points(&self) -> &[SleepPoint] {
        &self.points
    }

    /// The records of points `from..`, appended with links to no earlier
    /// point: awake, at their packed positions.
    pub(super) fn append(&mut self, packed: &Packed, from: usize) {
        let n = packed.pos.len();
        self.points.extend(packed.sleep_points_from(from));
        self.last.extend_from_slice(&packed.pos[from..]);
        self.speed.resize(n, 0);
        self.rest_steps.resize(n, 0);
        self.support.resize(n, u32::MAX);
    }

    pub(super) fn new(packed: &Packed) -> Self {
        let n = packed.pos.len();
        Self {
            points: packed.sleep_points(),
            last: packed.pos.clone(),
            speed: vec![0; n],
            rest_steps: vec![0; n],
            support: vec![u32::MAX; n],
        }
    }
}

impl CpuSolver {
    /// At the start of each substep of a world with kinematic bodies and
    /// sleeping, before stage 0b: the
    /// sleeping assemblies a contact flagged this step wake now
    /// (`cpu::sleep::wake_flagged`, WGSL `wake_flagged`).
    pub fn stage_wake_flagged(&mut self) {
        let p = &self.packed;
        if p.kinematic.is_empty() || p.sim.sleep_steps == 0 {
            return;
        }
        let s = &mut self.sleep;
        sleep::wake_flagged(
            &p.sim,
            &p.pos,
            &s.points,
            &s.speed,
            &mut s.rest_steps,
            &mut self.info,
            &mut s.last,
        );
    }

    /// Stage 6 alone: sleeping's measure, update and settle.
    pub fn stage_sleep(&mut self) {
        let touch = self.has_contacts();
        let sim = &self.packed.sim;
        let s = &mut self.sleep;
        let moving = self.moving.then(|| sleep::MovingColliders {
            info: &self.packed.point_info,
            planets: &self.packed.planets,
            planes: &self.packed.planes,
        });
        sleep::measure(
            sim,
            (&self.packed.pos, &self.packed.vel),
            &s.points,
            &s.last,
            &mut s.speed,
            moving,
        );
        if touch {
            sleep::touch(
                sim,
                &self.packed.pos,
                &s.points,
                &s.rest_steps,
                &self.contacts.hits,
                &self.packed.outlines,
                &self.contacts.aabbs,
                &mut s.support,
                &mut s.speed,
            );
        }
        sleep::update(sim, &s.points, &mut s.speed, &mut s.rest_steps);
        self.settle_points(None);
    }

    /// Wakes every point: each gets its inverse mass back and every
    /// assembly starts counting its rest again. Edits, `set_state` and a
    /// change of parameters do this themselves.
    pub fn wake(&mut self) {
        let s = &mut self.sleep;
        sleep::wake(
            &self.packed.sim,
            &self.packed.pos,
            &s.points,
            &mut self.info,
            &mut s.last,
            &mut s.speed,
            &mut s.rest_steps,
            &mut s.support,
        );
    }

    /// After points `from..` were appended by an edit that keeps what
    /// slept asleep (`cpu::sleep::keeps_sleeping`): the old points' sleep
    /// state and inverse masses as they were (`old`, `old_info`), the new
    /// points awake, anchored where they are, without supports; an old
    /// assembly one of them joined wakes as [`wake_point`](Self::wake_point)
    /// wakes it (GPU: `GpuSolver::wake_appended`).
    pub(super) fn keep_sleeping(&mut self, old: Sleep, old_info: Vec<PointInfo>, from: usize) {
        let s = &mut self.sleep;
        let n = self.packed.pos.len();
        s.last[..from].copy_from_slice(&old.last[..from]);
        s.speed[..from].copy_from_slice(&old.speed[..from]);
        s.rest_steps[..from].copy_from_slice(&old.rest_steps[..from]);
        s.support[..from].copy_from_slice(&old.support[..from]);
        self.info[..from].copy_from_slice(&old_info[..from]);
        debug_assert_eq!(self.info.len(), n);
        for g in sleep::joined_assemblies(s.points[from..].iter().copied(), from) {
            self.wake_point(crate::world::PointHandle(g));
        }
    }

    /// Before a removal that keeps what sleeps: the supports follow the
    /// removal (`sleep::remap_supports`), and the per-point sleeping
    /// records move with their points, in place; returns the sleeping
    /// records before the removal (each point's assembly), which
    /// [`keep_sleeping_after_removal`](Self::keep_sleeping_after_removal)
    /// compares with those after it.
    pub(super) fn sleep_through_removal(&mut self, removal: &Removal) -> Vec<SleepPoint> {
        let p = &self.packed;
        let s = &mut self.sleep;
        let (points, bodies) = (removal.point_remap(), removal.body_remap());
        let new_or_removed = |map: &crate::world::Remap, old: u32| {
            map.get(old).unwrap_or(crate::world::Remap::REMOVED)
        };
        sleep::remap_supports(
            &p.sim,
            &s.points,
            &p.outlines,
            (|i| new_or_removed(points, i), |b| new_or_removed(bodies, b)),
            &mut s.support,
            &mut s.speed,
            &mut s.rest_steps,
        );
        points.apply_in_place(&mut s.last);
        points.apply_in_place(&mut s.speed);
        points.apply_in_place(&mut s.rest_steps);
        points.apply_in_place(&mut s.support);
        std::mem::take(&mut s.points)
    }

    /// After a removal that keeps what sleeps, its records moved by
    /// [`sleep_through_removal`](Self::sleep_through_removal): each point's
    /// assembly taken from the packed world after it, the assemblies the
    /// removal moved carried to their new roots and those it changed woken
    /// (`sleep::removal_sleep`, `old` the records before), and the points
    /// settled on them. With `moved`, the bodies whose points' assemblies
    /// alone the packed world renamed, each body its own assembly
    /// ([`Packed::follow_plan`](crate::pack::Packed::follow_plan)), the
    /// records move in place and only the assemblies removed or moved are
    /// compared (`sleep::removal_sleep_over`). With `listed`, only those
    /// points are settled (`sleep::settle` with a list), else every one.
    pub(super) fn keep_sleeping_after_removal(
        &mut self,
        old: Vec<SleepPoint>,
        removal: &Removal,
        moved: Option<&[u32]>,
        listed: Option<&[u32]>,
    ) {
        let map = removal.point_remap();
        let changed = match moved {
            Some(moved) => {
                let olds = sleep::removed_or_moved_points(removal, old.len(), &self.packed, moved);
                let was: Vec<SleepPoint> = olds.iter().map(|&i| old[i as usize]).collect();
                let whole = cfg!(debug_assertions).then(|| old.clone());
                let s = &mut self.sleep;
                s.points = old;
                map.apply_in_place(&mut s.points);
                for p in sleep::moved_points(&self.packed, moved) {
                    s.points[p as usize] = self.packed.sleep_point(p).expect("a packed point");
                }
                debug_assert!(s.points == self.packed.sleep_points());
                let before = |i: u32| was[olds.binary_search(&i).expect("an old point")];
                let after = |i: u32| s.points.get(i as usize).copied();
                let changed = sleep::removal_sleep_over(&olds, before, after, map);
                if let Some(whole) = whole {
                    debug_assert_eq!(changed, sleep::removal_sleep(&whole, &s.points, map));
                }
                changed
            }
            None => {
                self.sleep.points = self.packed.sleep_points();
                sleep::removal_sleep(&old, &self.sleep.points, map)
            }
        };
        let s = &mut self.sleep;
        debug_assert_eq!(s.last.len(), s.points.len());
        sleep::move_roots(&changed.moved, &mut s.speed, &mut s.rest_steps);
        for &g in &changed.wakes {
            self.wake_point(crate::world::PointHandle(g));
        }
        self.settle_points(listed);
    }

    /// Every point, or the `listed` ones, settled on its assembly's count
    /// (`sleep::settle`).
    fn settle_points(&mut self, listed: Option<&[u32]>) {
        let s = &mut self.sleep;
        sleep::settle(
            &self.packed.sim,
            listed,
            &s.points,
            &s.rest_steps,
            &mut self.info,
            &self.packed.pos,
            &mut self.packed.vel,
            &mut s.last,
        );
    }

    /// Wakes `point`'s assembly from the next step on (its points move
    /// again after the step that follows, as on the GPU, where only the
    /// assembly's counter and speed word are written), and counts it as
    /// moved in that step, so that what it touches or supports wakes too
    /// (`cpu::sleep::touch`). A handle out of range does nothing.
    pub fn wake_point(&mut self, point: crate::world::PointHandle) {
        if let Some(sp) = self.sleep.points.get(point.index()) {
            self.sleep.rest_steps[sp.group as usize] = 0;
            self.sleep.speed[sp.group as usize] = crate::layout::SLEEP_WAKE;
        }
    }

    /// Each point's sleep support: the body its contact was with when its
    /// assembly was last awake at a step's end (`u32::MAX`: none), which
    /// wakes it when that body's assembly moves. What a checkpoint keeps
    /// of sleeping besides the counts and anchors.
    pub fn sleep_supports(&self) -> &[u32] {
        &self.sleep.support
    }

    /// Restores [`sleep_supports`](Self::sleep_supports) (from a
    /// checkpoint). Refuses a slice of another length than the points', or
    /// a body index out of range other than `u32::MAX`.
    pub fn set_sleep_supports(&mut self, supports: &[u32]) -> Result<(), WorldError> {
        crate::validate::check_sleep_supports(
            self.packed.pos.len(),
            self.packed.bodies.len(),
            supports,
        )?;
        self.sleep.support.copy_from_slice(supports);
        Ok(())
    }

    /// Steps each assembly has stayed at rest, indexed by its root point
    /// (0 at the other points): what a checkpoint keeps of sleeping.
    pub fn rest_steps(&self) -> &[u32] {
        &self.sleep.rest_steps
    }

    /// Each point's sleep anchor: where it was when its assembly's count of
    /// steps at rest last reached a multiple of
    /// [`SLEEP_WINDOW`](crate::layout::SLEEP_WINDOW), or when it was woken
    /// (docs/physics.md, "Sleeping"). What a checkpoint keeps of sleeping
    /// besides [`rest_steps`](Self::rest_steps).
    pub fn sleep_anchors(&self) -> &[[f32; 2]] {
        &self.sleep.last
    }

    /// Restores [`sleep_anchors`](Self::sleep_anchors) (from a checkpoint,
    /// after [`set_rest_steps`](Self::set_rest_steps)). Refuses a slice of
    /// another length than the points', or a position that is not finite or
    /// out of the state's range.
    pub fn set_sleep_anchors(&mut self, anchors: &[[f32; 2]]) -> Result<(), WorldError> {
        crate::validate::check_sleep_anchors(self.packed.pos.len(), anchors)?;
        self.sleep.last.copy_from_slice(anchors);
        Ok(())
    }

    /// Restores [`rest_steps`](Self::rest_steps) (from a checkpoint):
    /// assemblies at rest long enough sleep at once. Refuses a slice of
    /// another length than the points'.
    pub fn set_rest_steps(&mut self, steps: &[u32]) -> Result<(), WorldError> {
        crate::validate::check_rest_steps(self.packed.pos.len(), steps)?;
        self.sleep.rest_steps.copy_from_slice(steps);
        self.settle_points(None);
        Ok(())
    }

    /// Points asleep now (pinned points not counted).
    pub fn sleeping_points(&self) -> usize {
        sleep::sleeping_points(&self.info, &self.packed.point_info)
    }
}
