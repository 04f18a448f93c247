//! The simulation's stages, one module each, named as the stage is in
//! `shaders/`, `src/gpu/` and `src/cpu/`: its closed-form tests on the CPU
//! path, the degenerate geometry it meets at run time, and its GPU-vs-CPU
//! check (`gpu_check` holds the shared scenes and tolerances). `step` holds
//! what runs whole steps: the GPU against the CPU over long runs, run-to-run
//! determinism, unit independence, and degenerate geometry that reaches
//! several stages at once.
//!
//! The closed-form tests build a small world through the public API, step
//! it with [`CpuSolver`], and compare what they measure with a closed form:
//! the exact continuous solution where the scheme reproduces it, otherwise
//! the exact discrete solution of the scheme (derived in docs/physics.md)
//! together with its known distance from the continuous one. Each test
//! states its tolerance and where it comes from; every failure prints
//! measured and expected values. Run with `--nocapture` to see the measured
//! numbers of passing tests too. Analysis is done in f64 on the solver's
//! f32 state: `EPS` is f32's machine epsilon (2^-23), which bounds the
//! relative rounding of one f32 operation (twice the half-ulp, so the
//! bounds are safe, not tight). Tests of bugs that were found and fixed
//! are in tests/regressions.rs.
//!
//! One stage's tests: `cargo test --test stages springs::`.

#[path = "../common/mod.rs"]
mod common;
mod gpu_check;

mod body_collide;
mod broad_phase;
mod collide;
mod commands;
mod events;
mod gravity;
mod impact;
mod integrate;
mod joined;
mod joint_springs;
mod joints;
mod limits;
mod move_bodies;
mod move_colliders;
mod overlap;
mod query;
mod removal_map;
mod rods;
mod shape_match;
mod sleep;
mod springs;
mod step;
mod terrain;
mod touching;
mod world_joints;

use common::centroid;
use softbody::prelude::*;

/// Anything that steps a world and reads its state back.
trait Stepper {
    fn run(&mut self, n: u32);
    fn pos(&mut self) -> Vec<[f32; 2]>;
}

impl Stepper for CpuSolver {
    fn run(&mut self, n: u32) {
        for _ in 0..n {
            self.step();
        }
    }
    fn pos(&mut self) -> Vec<[f32; 2]> {
        self.positions().to_vec()
    }
}

struct Gpu(GpuSolver, GpuContext);

impl Stepper for Gpu {
    fn run(&mut self, n: u32) {
        self.0.step(&self.1.device, &self.1.queue, n).unwrap();
    }
    fn pos(&mut self) -> Vec<[f32; 2]> {
        self.0
            .read_state(&self.1.device, &self.1.queue)
            .unwrap()
            .pos
    }
}

/// How far the box slid in 5 s.
fn slide(s: &mut dyn Stepper, b: &Shape) -> f32 {
    let c0 = centroid(&s.pos(), b);
    s.run(300);
    (centroid(&s.pos(), b) - c0).length()
}
