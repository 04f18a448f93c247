//! Stage 4 wrapper for `shaders/shape_match.wgsl` (CPU mirror:
//! `cpu::shape_match`): body frames (small bodies one per thread, large
//! bodies one per workgroup), then the per-point gather, alone or fused
//! with integrate and collide.

use super::buffers::Buffers;
use super::collide::ColliderCounts;
use super::shaders::{bind_group, pipeline, pipeline_with};

/// Shape matching on state `s`: frames from it, then the velocities in place.
pub struct ShapeMatch {
    frames: wgpu::ComputePipeline,
    frames_large: wgpu::ComputePipeline,
    apply: wgpu::ComputePipeline,
    fused: wgpu::ComputePipeline,
    frames_bind: [wgpu::BindGroup; 2],
    frames_large_bind: [wgpu::BindGroup; 2],
    apply_bind: [wgpu::BindGroup; 2],
    fused_bind: [wgpu::BindGroup; 2],
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

impl ShapeMatch {
    /// `counts`: the collider counts the fused kernel's collide is
    /// specialised for.
    pub fn new(device: &wgpu::Device, b: &Buffers, counts: ColliderCounts) -> Self {
        // The frames kernels' half-plane and planet impacts are specialised
        // for the collider counts too.
        let frames = pipeline_with(device, "shape_match", "frames", &counts.constants());
        let frames_large =
            pipeline_with(device, "shape_match", "frames_large", &counts.constants());
        let apply = pipeline(device, "shape_match", "apply");
        let fused = pipeline_with(
            device,
            "shape_match",
            "apply_integrate_collide",
            &counts.constants(),
        );
        let frame_entries = |s: usize| {
            [
                (0, &b.sim),
                (1, &b.info),
                (2, &b.bodies),
                (3, &b.members),
                (4, &b.body_order),
                (5, &b.state[s]),
                (7, &b.frames),
                (11, &b.materials),
                (12, &b.colliders),
                (13, &b.dilation),
            ]
        };
        let frames_bind =
            [0, 1].map(|s| bind_group(device, "shape_match.frames", &frames, &frame_entries(s)));
        let frames_large_bind = [0, 1].map(|s| {
            bind_group(
                device,
                "shape_match.frames_large",
                &frames_large,
                &frame_entries(s),
            )
        });
        let apply_entries = |s: usize| {
            vec![
                (0, &b.sim),
                (1, &b.info),
                (6, &b.point_members),
                (8, &b.member_offsets),
                (9, &b.frames),
                (10, &b.state[s]),
                (14, &b.dilation),
            ]
        };
        let apply_bind =
            [0, 1].map(|s| bind_group(device, "shape_match.apply", &apply, &apply_entries(s)));
        let fused_bind = [0, 1].map(|s| {
            let mut e = apply_entries(s);
            e.extend([(11, &b.materials), (12, &b.colliders)]);
            bind_group(device, "shape_match.apply_integrate_collide", &fused, &e)
        });
        Self {
            frames,
            frames_large,
            apply,
            fused,
            frames_bind,
            frames_large_bind,
            apply_bind,
            fused_bind,
        }
    }

    /// Records the frames and the apply dispatches on copy `state`.
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: usize, grids: ShapeMatchGrids) {
        self.record_frames(pass, state, grids);
        self.record_apply(pass, state, grids);
    }

    /// Records the frames dispatches on copy `state`.
    pub fn record_frames(
        &self,
        pass: &mut wgpu::ComputePass,
        state: usize,
        grids: ShapeMatchGrids,
    ) {
        if grids.small.0 > 0 {
            pass.set_pipeline(&self.frames);
            pass.set_bind_group(0, &self.frames_bind[state], &[]);
            pass.dispatch_workgroups(grids.small.0, grids.small.1, 1);
        }
        if grids.large.0 > 0 {
            pass.set_pipeline(&self.frames_large);
            pass.set_bind_group(0, &self.frames_large_bind[state], &[]);
            pass.dispatch_workgroups(grids.large.0, grids.large.1, 1);
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
        pass.set_pipeline(&self.fused);
        pass.set_bind_group(0, &self.fused_bind[state], &[]);
        pass.dispatch_workgroups(grids.points.0, grids.points.1, 1);
    }
}
