//! Shared by the GPU tests: a device, or a clear failure.
#![allow(dead_code)]

pub mod bad_input;
pub mod closed_form;
pub mod display;
pub mod naga;

use softbody::gpu::GpuContext;
use softbody::prelude::{CpuSolver, Shape, Vec2, World};
use softbody::solver::Solver;

/// A headless GPU context. Without an adapter: in CI (`CI=true`) the test
/// fails; elsewhere it is skipped with a message saying why.
///
/// The test threads create their contexts one at a time: on an H100
/// (NVIDIA's Vulkan driver 580), 16 test threads creating instances and
/// devices at once hung every GPU test of the binary in two runs of three.
pub fn gpu() -> Option<GpuContext> {
    static CREATING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let created = {
        let _one_at_a_time = CREATING.lock().unwrap_or_else(|e| e.into_inner());
        GpuContext::new_headless()
    };
    match created {
        Ok(ctx) => Some(ctx),
        Err(e) => {
            if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
                panic!(
                    "CI=true but no GPU adapter is available ({e}); install mesa-vulkan-drivers (lavapipe)"
                );
            }
            eprintln!(
                "SKIPPED: no GPU adapter ({e}); install mesa-vulkan-drivers to run GPU tests"
            );
            None
        }
    }
}

/// One headless GPU context for the whole test process, cloned (its
/// handles are shared), for tests that step many small scenes in turn:
/// NVIDIA's driver (580) finds no adapter for a process that has created
/// some fifty contexts. `None` as [`gpu`].
pub fn shared_gpu() -> Option<GpuContext> {
    static SHARED: std::sync::OnceLock<Option<GpuContext>> = std::sync::OnceLock::new();
    SHARED.get_or_init(gpu).clone()
}

/// Small deterministic PRNG (xorshift64*), so test scenes need no dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }
    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// A CPU solver made afresh from `world` and restored from checkpoint
/// `bytes` (`Checkpoint::to_bytes`).
#[allow(dead_code)]
pub fn restored_cpu(bytes: &[u8], world: &World) -> CpuSolver {
    let mut solver = CpuSolver::new(world).unwrap();
    softbody::checkpoint::Checkpoint::from_bytes(bytes)
        .unwrap()
        .restore_cpu(&mut solver)
        .unwrap();
    solver
}

/// The mean position of a shape's points in `pos`.
pub fn centroid(pos: &[[f32; 2]], s: &Shape) -> Vec2 {
    s.points
        .iter()
        .map(|h| Vec2::from_array(pos[h.index()]))
        .sum::<Vec2>()
        / s.points.len() as f32
}

/// The CPU solver, and the GPU one when there is an adapter ([`gpu`]):
/// for tests that run a world on both paths.
/// Steps `s` one step at a time, `steps` steps: the fastest any point
/// moved at the end of a step.
#[track_caller]
pub fn fastest_over(s: &mut Solver, steps: u32) -> f32 {
    let mut fastest = 0.0f32;
    for _ in 0..steps {
        s.step(1).unwrap();
        let (_, vel) = s.state().unwrap();
        let v = vel
            .iter()
            .map(|&v| Vec2::from(v).length())
            .fold(0.0, f32::max);
        fastest = fastest.max(v);
    }
    fastest
}

/// A CPU solver of `world`, and a GPU one on [`shared_gpu`]'s context.
pub fn both(world: &World) -> Vec<Solver> {
    let mut v = vec![Solver::cpu(world).unwrap()];
    if let Some(ctx) = shared_gpu() {
        v.push(Solver::gpu_on(ctx, world).unwrap());
    }
    v
}

#[track_caller]
pub fn run_finite(world: &World, steps: usize) -> CpuSolver {
    let mut solver = CpuSolver::new(world).unwrap();
    for step in 0..steps {
        solver.step();
        assert_finite(&solver, &format!("step {step}, "));
    }
    solver
}

/// Asserts every position and velocity of `solver` is finite; a failure
/// names the point after `at`.
#[track_caller]
pub fn assert_finite(solver: &CpuSolver, at: &str) {
    for (i, (p, v)) in solver
        .positions_vec2()
        .iter()
        .zip(solver.velocities_vec2())
        .enumerate()
    {
        assert!(
            p.is_finite() && v.is_finite(),
            "{at}point {i}: pos {p}, vel {v}"
        );
    }
}

/// Each body's centre, the mean of the points in its range of `pos`.
pub fn centres(pos: &[[f32; 2]], ranges: &[std::ops::Range<usize>]) -> Vec<Vec2> {
    ranges
        .iter()
        .map(|range| {
            let sum: Vec2 = pos[range.clone()].iter().map(|&p| Vec2::from(p)).sum();
            sum / range.len() as f32
        })
        .collect()
}

/// The largest distance between matching entries of `a` and `b`.
pub fn farthest(a: &[[f32; 2]], b: &[[f32; 2]]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(g, c)| (Vec2::from(*g) - Vec2::from(*c)).length())
        .fold(0.0, f32::max)
}

/// The bits of each coordinate, in order: what bitwise comparisons of two
/// runs compare.
pub fn bits(v: &[[f32; 2]]) -> Vec<u32> {
    v.iter().flatten().map(|x| x.to_bits()).collect()
}

/// What a readback's `poll` gives once it answers: polled without
/// blocking, a short sleep between tries, as a caller that must not stall
/// would.
pub fn polled<T, E: std::fmt::Debug>(mut poll: impl FnMut() -> Option<Result<T, E>>) -> T {
    loop {
        if let Some(r) = poll() {
            return r.unwrap();
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
}
