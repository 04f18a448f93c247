//! Stage 4 wrapper for `shaders/shape_match.wgsl` (CPU mirror:
//! `cpu::shape_match`): body frames (small bodies one per thread, large
//! bodies one per workgroup), which list the bodies that may have
//! half-plane or planet impacts, then those impacts (one thread per listed
//! body, an indirect dispatch), then the per-point gather, alone or fused
//! with integrate and collide.

use super::buffers::Buffers;
use super::collide::ColliderCounts;
use super::placed::{PlacedKernel, dispatch};
use super::shaders::{bind_group, pipeline, pipeline_with};

/// Shape matching on state `s`: frames from it, then the velocities in place.
pub struct ShapeMatch {
    clear: wgpu::ComputePipeline,
    frames: wgpu::ComputePipeline,
    frames_large: wgpu::ComputePipeline,
    plane_impacts: wgpu::ComputePipeline,
    apply: wgpu::ComputePipeline,
    fused: wgpu::ComputePipeline,
    /// Empties head 0.
    clear_bind: wgpu::BindGroup,
    /// By state copy, then by the head the frames list into.
    frames_bind: [[wgpu::BindGroup; 3]; 2],
    frames_large_bind: [[wgpu::BindGroup; 3]; 2],
    /// By state copy, then by the pair of heads, [`pair_index`].
    plane_impacts_bind: [[wgpu::BindGroup; 6]; 2],
    apply_bind: [wgpu::BindGroup; 2],
    fused_bind: [wgpu::BindGroup; 2],
    /// The heads, whose workgroup counts `plane_impacts` is dispatched
    /// with.
    heads: [wgpu::Buffer; 3],
    counts: ColliderCounts,
    /// The fused kernel of a world with body contacts and its bind groups
    /// ([`ShapeMatch::bind_warm`]).
    placed: Option<PlacedKernel>,
}

/// The apply kernel's bindings on state copy `s`.
fn apply_entries(b: &Buffers, s: usize) -> Vec<(u32, &wgpu::Buffer)> {
    vec![
        (0, &b.sim),
        (1, &b.info),
        (6, &b.point_members),
        (8, &b.member_ranges),
        (9, &b.frames),
        (10, &b.state[s]),
        (14, &b.dilation),
    ]
}

/// The fused kernel `fused`'s bind groups on state copies 0 and 1:
/// apply's, the colliders, and (`noted`) the moved flag and the warm
/// starts `warm` where it takes them.
fn fused_binds(
    device: &wgpu::Device,
    b: &Buffers,
    fused: &wgpu::ComputePipeline,
    noted: bool,
    warm: Option<&wgpu::Buffer>,
) -> [wgpu::BindGroup; 2] {
    [0, 1].map(|s| {
        let mut e = apply_entries(b, s);
        e.extend([
            (11, &b.materials),
            (12, &b.colliders),
            (19, &b.gravity_scale),
        ]);
        if noted {
            e.push((20, &b.moved));
        }
        if let Some(w) = warm {
            e.push((21, w));
        }
        bind_group(device, "shape_match.apply_integrate_collide", fused, &e)
    })
}

/// Workgroup grids of the three dispatches.
#[derive(Clone, Copy, Debug)]
pub struct ShapeMatchGrids {
    pub small: (u32, u32),
    pub large: (u32, u32),
    /// One thread per body, spread (the impact stage's clear).
    pub bodies: (u32, u32),
    pub points: (u32, u32),
}

/// The plane-impact heads of one substep's shape matching: the frames list
/// into head `list`, and `plane_impacts`, dispatched with that head's
/// workgroup counts, empties head `next` for the next substep (a dispatch
/// must not write its own indirect arguments). Substep `s` of `n` takes
/// head `s % 2`, the last of an odd number head 2, and the last empties
/// head 0, which the next step's first takes: every step starts on head 0,
/// empty, whatever was recorded before, and needs no dispatch to empty it.
/// One substep, or shape matching recorded alone, takes head 0 and
/// empties it with one more dispatch (`clear`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaneImpactHeads {
    pub list: usize,
    pub next: usize,
    /// Empty head `list` after `plane_impacts` (one thread).
    pub clear: bool,
}

impl PlaneImpactHeads {
    /// Shape matching recorded alone.
    pub const ALONE: PlaneImpactHeads = PlaneImpactHeads {
        list: 0,
        next: 1,
        clear: true,
    };

    /// The heads of substep `s` of `n` in a step.
    pub fn of_substep(s: u32, n: u32) -> Self {
        // The head substep `k` takes.
        let head = |k: u32| {
            if k == n {
                0
            } else if k + 1 == n && n % 2 == 1 {
                2
            } else {
                (k % 2) as usize
            }
        };
        if n <= 1 {
            Self::ALONE
        } else {
            PlaneImpactHeads {
                list: head(s),
                next: head(s + 1),
                clear: false,
            }
        }
    }
}

/// The index of the bind group of `plane_impacts` listing into head
/// `list` and emptying head `next` (`list != next`).
fn pair_index(list: usize, next: usize) -> usize {
    2 * list + if next > list { next - 1 } else { next }
}

impl ShapeMatch {
    /// `counts`: the collider counts the fused kernel's collide is
    /// specialised for.
    pub fn new(device: &wgpu::Device, b: &Buffers, counts: ColliderCounts) -> Self {
        // The plane impacts' collider tests are specialised for the
        // collider counts too.
        let clear = pipeline(device, "shape_match", "clear_plane_impacts");
        let frames = pipeline(device, "shape_match", "frames");
        let frames_large = pipeline(device, "shape_match", "frames_large");
        let plane_impacts =
            pipeline_with(device, "shape_match", "plane_impacts", &counts.constants());
        let apply = pipeline(device, "shape_match", "apply");
        // Where body contacts can run, the fused kernel notes for the broad
        // phase whether a point may move (one more storage buffer than a
        // device of WebGPU's default 8 has).
        let noted = super::can_run_contacts(device);
        let fused = pipeline_with(
            device,
            "shape_match",
            if noted {
                "apply_integrate_collide_noted"
            } else {
                "apply_integrate_collide"
            },
            &counts.constants(),
        );
        let heads = &b.plane_impact_heads;
        let frame_entries = |s: usize, h: usize| {
            [
                (0, &b.sim),
                (2, &b.bodies),
                (3, &b.members),
                (4, &b.body_order),
                (5, &b.state[s]),
                (7, &b.frames),
                (13, &b.dilation),
                (15, &heads[h]),
                (16, &b.plane_impacts),
            ]
        };
        let frames_bind = [0, 1].map(|s| {
            [0, 1, 2]
                .map(|h| bind_group(device, "shape_match.frames", &frames, &frame_entries(s, h)))
        });
        let frames_large_bind = [0, 1].map(|s| {
            [0, 1, 2].map(|h| {
                bind_group(
                    device,
                    "shape_match.frames_large",
                    &frames_large,
                    &frame_entries(s, h),
                )
            })
        });
        let clear_bind = bind_group(
            device,
            "shape_match.clear_plane_impacts",
            &clear,
            &[(15, &heads[0])],
        );
        let plane_impacts_bind = [0, 1].map(|s| {
            std::array::from_fn(|i| {
                let (list, rest) = (i / 2, i % 2);
                let next = if rest < list { rest } else { rest + 1 };
                debug_assert_eq!(pair_index(list, next), i);
                bind_group(
                    device,
                    "shape_match.plane_impacts",
                    &plane_impacts,
                    &[
                        (0, &b.sim),
                        (1, &b.info),
                        (2, &b.bodies),
                        (3, &b.members),
                        (5, &b.state[s]),
                        (7, &b.frames),
                        (11, &b.materials),
                        (12, &b.colliders),
                        (15, &heads[next]),
                        (17, &heads[list]),
                        (18, &b.plane_impacts),
                    ],
                )
            })
        });
        let apply_bind =
            [0, 1].map(|s| bind_group(device, "shape_match.apply", &apply, &apply_entries(b, s)));
        let fused_bind = fused_binds(device, b, &fused, noted, None);
        Self {
            clear,
            frames,
            frames_large,
            plane_impacts,
            apply,
            fused,
            clear_bind,
            frames_bind,
            frames_large_bind,
            plane_impacts_bind,
            apply_bind,
            fused_bind,
            heads: heads.clone(),
            counts,
            placed: None,
        }
    }

    /// Binds the warm starts `warm` of a world with body contacts (its
    /// contact buffers', made again by every edit), or none: with them the
    /// fused kernel is `apply_integrate_collide_placed` (compiled on the
    /// first call), whose collide lifts a point not yet settled out of the
    /// skin slowly (`cpu::collider_push`). A world with body contacts runs
    /// on a device with room for the extra binding.
    pub fn bind_warm(&mut self, device: &wgpu::Device, b: &Buffers, warm: Option<&wgpu::Buffer>) {
        let constants = self.counts.constants();
        self.placed = PlacedKernel::rebind(
            self.placed.take(),
            warm,
            || {
                pipeline_with(
                    device,
                    "shape_match",
                    "apply_integrate_collide_placed",
                    &constants,
                )
            },
            |p, w| fused_binds(device, b, p, true, Some(w)),
        );
    }

    /// Records the frames and the apply dispatches on copy `state`.
    pub fn record(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        grids: ShapeMatchGrids,
        heads: PlaneImpactHeads,
    ) {
        self.record_frames(pass, state, grids, heads);
        self.record_apply(pass, state, grids);
    }

    /// Records the frames dispatches on copy `state`, with the bodies'
    /// half-plane and planet impacts: the frames, which list the bodies
    /// that may have some, then `plane_impacts` with the workgroup counts
    /// the list's head holds.
    pub fn record_frames(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        grids: ShapeMatchGrids,
        heads: PlaneImpactHeads,
    ) {
        if grids.small.0 > 0 {
            pass.set_pipeline(&self.frames);
            pass.set_bind_group(0, &self.frames_bind[state][heads.list], &[]);
            pass.dispatch_workgroups(grids.small.0, grids.small.1, 1);
        }
        if grids.large.0 > 0 {
            pass.set_pipeline(&self.frames_large);
            pass.set_bind_group(0, &self.frames_large_bind[state][heads.list], &[]);
            pass.dispatch_workgroups(grids.large.0, grids.large.1, 1);
        }
        pass.set_pipeline(&self.plane_impacts);
        let pair = pair_index(heads.list, heads.next);
        pass.set_bind_group(0, &self.plane_impacts_bind[state][pair], &[]);
        pass.dispatch_workgroups_indirect(&self.heads[heads.list], 0);
        if heads.clear {
            debug_assert_eq!(heads.list, 0);
            pass.set_pipeline(&self.clear);
            pass.set_bind_group(0, &self.clear_bind, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
    }

    /// Records the apply dispatch on copy `state` (the frames must be
    /// those of this state).
    pub fn record_apply(&self, pass: &mut wgpu::ComputePass, state: usize, grids: ShapeMatchGrids) {
        pass.set_pipeline(&self.apply);
        pass.set_bind_group(0, &self.apply_bind[state], &[]);
        pass.dispatch_workgroups(grids.points.0, grids.points.1, 1);
    }

    /// Records apply fused with integrate and collide.
    pub fn record_apply_integrate_collide(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        grids: ShapeMatchGrids,
    ) {
        let kernel = match &self.placed {
            Some(k) => k.get(state),
            None => (&self.fused, &self.fused_bind[state]),
        };
        dispatch(pass, kernel, grids.points);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every substep lists into another head than the one before, the
    /// last empties head 0 and every step starts on it.
    #[test]
    fn substeps_take_the_heads_in_turn_and_every_step_starts_on_head_0() {
        for n in 1..12 {
            let heads: Vec<_> = (0..n).map(|s| PlaneImpactHeads::of_substep(s, n)).collect();
            assert_eq!(heads[0].list, 0, "{n}");
            for (s, h) in heads.iter().enumerate() {
                assert_ne!(h.list, h.next, "{n} {s}");
                if let Some(after) = heads.get(s + 1) {
                    assert_eq!(h.next, after.list, "{n} {s}");
                    assert!(!h.clear);
                }
            }
            let last = heads[n as usize - 1];
            assert!(last.next == 0 || (last.clear && last.list == 0), "{n}");
        }
        for list in 0..3 {
            for next in (0..3).filter(|&n| n != list) {
                assert!(pair_index(list, next) < 6);
            }
        }
    }
}
