//! Integrate (`shaders/integrate.wgsl`, `src/cpu/integrate.rs`):
//! symplectic Euler against its closed form, and the GPU against the CPU.

use crate::common::closed_form::*;
use crate::gpu_check;
use softbody::cpu::CpuSolver;
use softbody::gpu::Stage;
use softbody::prelude::*;

/// Free fall. The scheme `v += g h; p += v h` gives, after n substeps,
/// `v_n = v0 + n g h` (the continuous `v0 + g t`, exactly) and
/// `p_n = p0 + v0 t + g h^2 n (n + 1) / 2 = p0 + v0 t + g t^2 / 2 + g h t / 2`:
/// the closed form plus symplectic Euler's O(h) term `g h t / 2`.
///
/// Tolerance: f32 rounding only. Velocity: n additions, each off by at most
/// `EPS |v|max`, so `n EPS |v|max`. Position: n additions of `v h` (each off
/// by `EPS (|p|max + |v h|)`) plus the velocity error integrated over t.
#[test]
fn free_fall_matches_closed_form() {
    let params = Params {
        gravity: Vec2::new(0.3, -G),
        ..quiet()
    };
    let mut world = World::new(params.clone());
    let (p0, v0) = (Vec2::new(0.5, 10.0), Vec2::new(1.5, 2.0));
    world.add_point(Point::new(p0).vel(v0)).unwrap();
    let mut s = CpuSolver::new(&world).unwrap();
    let steps = 120u32;
    for _ in 0..steps {
        s.step();
    }
    let n = (steps * params.substeps) as f64;
    let h = params.h() as f64;
    let t = n * h;
    let g = [params.gravity.x as f64, params.gravity.y as f64];
    let (p0, v0) = ([p0.x as f64, p0.y as f64], [v0.x as f64, v0.y as f64]);
    let (p, v) = (pos(&s, 0), vel(&s, 0));

    let v_max = norm(v0) + norm(g) * t;
    let p_max = norm(p0) + v_max * t;
    let vel_tol = n * EPS * v_max;
    let pos_tol = n * EPS * (p_max + v_max * h) + vel_tol * t;
    for k in 0..2 {
        let v_closed = v0[k] + g[k] * t;
        let p_closed = p0[k] + v0[k] * t + g[k] * t * t / 2.0;
        let p_discrete = p0[k] + v0[k] * t + g[k] * h * h * n * (n + 1.0) / 2.0;
        let o_h = g[k] * h * t / 2.0;
        println!(
            "axis {k}: v {:.7} closed {v_closed:.7} (err {:.2e}, tol {vel_tol:.1e}); p {:.7} \
             discrete {p_discrete:.7} (err {:.2e}, tol {pos_tol:.1e}); closed {p_closed:.7}, \
             p - closed {:.3e} vs g h t / 2 = {o_h:.3e}",
            v[k],
            v[k] - v_closed,
            p[k],
            p[k] - p_discrete,
            p[k] - p_closed
        );
        assert!(
            (v[k] - v_closed).abs() <= vel_tol,
            "axis {k}: velocity {} vs closed form {v_closed} (tolerance {vel_tol:e})",
            v[k]
        );
        assert!(
            (p[k] - p_discrete).abs() <= pos_tol,
            "axis {k}: position {} vs exact discrete sum {p_discrete} (tolerance {pos_tol:e})",
            p[k]
        );
        assert!(
            (p[k] - p_closed - o_h).abs() <= pos_tol,
            "axis {k}: position {} minus closed form {p_closed} is {}, expected the O(h) \
             term g h t / 2 = {o_h} (tolerance {pos_tol:e})",
            p[k],
            p[k] - p_closed
        );
    }
}

/// The integrate kernel against the CPU mirror on every scene.
#[test]
fn gpu_matches_the_cpu() {
    gpu_check::stages_match_the_cpu(&[Stage::Integrate]);
}
