//! Measuring the GPU solver: a step timed stage by stage with timestamp
//! queries, and the model of the bytes its kernels move per substep that
//! the bench compares with the device's bandwidth.

use super::record::in_step;
use super::{GpuSolver, Stage, read_buffer};
use crate::gpu::SolverError;

/// GPU time of one step per stage, in milliseconds, from timestamp queries.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTimes {
    pub integrate: f64,
    pub collide: f64,
    /// Integrate and collide fused (what a world without bodies runs).
    pub integrate_collide: f64,
    /// Shape matching's apply fused with integrate and collide (what a
    /// world with bodies runs after the frames).
    pub apply_integrate_collide: f64,
    pub springs: f64,
    pub rods: f64,
    pub shape_match: f64,
    pub broad_phase: f64,
    /// The body contacts' passes and relax passes.
    pub body_collide: f64,
    /// Impacts on whole bodies.
    pub impact: f64,
    /// Sleeping, once per step.
    pub sleep: f64,
}

impl StageTimes {
    /// Sum of the stages.
    pub fn total(&self) -> f64 {
        self.integrate
            + self.collide
            + self.integrate_collide
            + self.apply_integrate_collide
            + self.springs
            + self.rods
            + self.shape_match
            + self.broad_phase
            + self.body_collide
            + self.impact
            + self.sleep
    }
}

impl std::fmt::Display for StageTimes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "integrate+collide {:.3} apply+integrate+collide {:.3} broad_phase {:.3} body_collide {:.3} impact {:.3} springs {:.3} rods {:.3} shape_match {:.3} sleep {:.3} ms",
            self.integrate + self.collide + self.integrate_collide,
            self.apply_integrate_collide,
            self.broad_phase,
            self.body_collide,
            self.impact,
            self.springs,
            self.rods,
            self.shape_match,
            self.sleep
        )
    }
}

impl GpuSolver {
    /// Runs one step with every stage in its own compute pass, timed by
    /// timestamp queries, and returns the GPU time per stage. `None` when
    /// the device has no timestamp queries (or the step needs more than
    /// 4096 of them). The step counts as a normal step.
    pub fn profile_step(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Option<StageTimes>, SolverError> {
        self.check_context("profile_step", Some(device), Some(queue))?;
        let Some(passes) = self.profile_passes(device, queue)? else {
            return Ok(None);
        };
        let mut t = StageTimes::default();
        for (stage, ms) in passes {
            *match stage {
                // Posing the kinematic bodies is part of the motion.
                Stage::Integrate | Stage::MoveBodies => &mut t.integrate,
                // Posing the colliders is part of their contacts' cost.
                Stage::MoveColliders | Stage::Collide | Stage::Terrain => &mut t.collide,
                Stage::IntegrateCollide => &mut t.integrate_collide,
                Stage::Springs => &mut t.springs,
                Stage::Rods => &mut t.rods,
                Stage::ShapeMatch | Stage::ShapeFrames | Stage::ShapeApply => &mut t.shape_match,
                Stage::ApplyIntegrateCollide => &mut t.apply_integrate_collide,
                Stage::BroadPhase => &mut t.broad_phase,
                Stage::BodyCollide
                | Stage::ContactRelax
                | Stage::Narrow
                | Stage::Resolve
                | Stage::Untangle => &mut t.body_collide,
                Stage::Impact => &mut t.impact,
                Stage::Sleep | Stage::WakeFlagged => &mut t.sleep,
            } += ms;
        }
        Ok(Some(t))
    }

    /// Runs one step as [`profile_step`](Self::profile_step) does and
    /// returns the GPU time of each stage of [`step_plan`](Self::step_plan)
    /// in order, in milliseconds, stage by stage rather than summed.
    pub fn profile_passes(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Option<Vec<(Stage, f64)>>, SolverError> {
        self.check_context("profile_passes", Some(device), Some(queue))?;
        let plan = self.step_plan();
        let passes = plan.len();
        let queries = 2 * passes as u32;
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) || queries > 4096 {
            return Ok(None);
        }
        let set = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("softbody stage timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: queries,
        });
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("softbody timestamps"),
            size: 8 * queries as u64,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("softbody profiled step"),
        });
        let mut state = 0;
        for (k, (stage, place)) in in_step(plan.iter().copied()).enumerate() {
            let k = k as u32;
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("softbody timed stage"),
                timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                    query_set: &set,
                    beginning_of_pass_write_index: Some(2 * k),
                    end_of_pass_write_index: Some(2 * k + 1),
                }),
            });
            state = self.record_stage_in(&mut pass, stage, state, Some(place));
            drop(pass);
            if stage == Stage::MoveColliders {
                self.copy_moved_colliders(&mut encoder);
            }
        }
        encoder.resolve_query_set(&set, 0..queries, &resolve, 0);
        self.finish_in_copy_zero(&mut encoder, state);
        self.steps = self.steps.saturating_add(1);
        queue.submit([encoder.finish()]);
        let ticks: Vec<u64> = read_buffer(device, queue, &resolve, queries as usize)?;
        let ms_per_tick = queue.get_timestamp_period() as f64 * 1e-6;
        Ok(Some(
            plan.iter()
                .enumerate()
                .map(|(pass, &stage)| {
                    let ticks = ticks[2 * pass + 1].saturating_sub(ticks[2 * pass]);
                    (stage, ticks as f64 * ms_per_tick)
                })
                .collect(),
        ))
    }

    /// An estimate of the bytes the kernels request from memory per substep,
    /// counting every load and store once (no cache reuse): the traffic a
    /// bandwidth-bound GPU pays at worst. Body contacts (broad and narrow
    /// phase) are not counted: their traffic follows the grid walks, that
    /// is how the bodies pile up, not the sizes of the arrays.
    pub fn bytes_moved_per_substep(&self) -> u64 {
        let n = self.num_points as u64;
        let springs = (self.num_springs as u64 - self.num_rods as u64) * self.has_springs as u64;
        let rods = self.num_rods as u64 * self.rod_passes() as u64;
        let members = self.num_members as u64;
        let bodies = self.num_bodies as u64;
        // integrate + collide, fused: info 16 + state read 16 + write 16.
        let mut bytes = 48 * n;
        // Per-point gathers: record range 8, own info 4, state 16 in, 16 out;
        // per spring end: its record 16 and the other end's state 16.
        if self.has_springs {
            bytes += 44 * n + 2 * 32 * springs;
        }
        if self.num_rods > 0 {
            // Rods also read the other end's info 4 and rod count 4.
            bytes += self.rod_passes() as u64 * 44 * n + 2 * 40 * rods;
        }
        if bodies > 0 {
            // frames: body 32 + order 4 + frame out 32 + the dilation's
            // pair (the inflation read back, both written) 8 + 8; one pass
            // over the members (the first one's loads serve as the
            // reference too) reading member 16 (with the weight) and
            // state 16.
            bytes += 84 * bodies + 32 * members;
            // apply, fused with the next integrate + collide (sharing its
            // state read and write): record range 8; per membership: its
            // record 16, the body's frame 32 and its dilation 4 (the
            // pair's first half).
            bytes += 8 * n + 52 * members;
        }
        bytes
    }
}
