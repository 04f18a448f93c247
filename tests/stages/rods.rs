//! Rods (`shaders/rods.wgsl`, `src/cpu/rods.rs`): a rod pendulum keeps its
//! length and swings at the pendulum period, and the GPU against the CPU.

use crate::common::closed_form::*;
use crate::gpu_check;
use softbody::cpu::CpuSolver;
use softbody::gpu::Stage;
use softbody::prelude::*;

/// Rod pendulum: a pinned pivot and a bob on a rod of length L = 1.
///
/// Length: the projection is exact for a single rod, so the length stays L
/// to f32 rounding (tolerance 1e-6).
///
/// Period: released at 0.05 rad, `T = 2 pi sqrt(L / g) (1 + theta0^2 / 16 +
/// ...)`, 1.6e-4 longer than the small-amplitude formula. Tolerance 1e-3
/// against the small-amplitude formula, and 3e-5 against the finite-amplitude
/// one (the scheme's phase error is about `(w h)^2 / 24` = 2e-6; zero
/// crossings are interpolated linearly and averaged over 5 periods).
///
/// Amplitude: the position projection is not symplectic. Linearised, a
/// substep maps `x' = (1 - e) (x + h v)`, `v' = v - (g h / L) x'` with
/// `e = g h^2 / L` (the drift carries the bob `g h^2` outward along the rod
/// and the projection scales the whole step, tangential part included, back
/// by `1 - e`). The determinant is `1 - e`, so the amplitude decays like
/// `exp(-g h t / (2 L))`: 1.0%/s here. Tolerance 1% relative on that rate
/// (the linearisation drops O(theta0^2) = 2.5e-3 terms; peaks are refined
/// by a parabola; measured agreement is ~1e-5).
#[test]
fn rod_pendulum_keeps_length_and_swings_at_the_pendulum_period() {
    let params = Params {
        gravity: Vec2::new(0.0, -G),
        ..quiet()
    };
    let h = params.h() as f64;
    let (len, theta0) = (1.0f32, 0.05f32);
    let mut world = World::new(params);
    let pivot = world.add_point(Point::new(Vec2::ZERO).pinned()).unwrap();
    let bob = world
        .add_point(Point::new(Vec2::new(
            len * theta0.sin(),
            -len * theta0.cos(),
        )))
        .unwrap();
    world
        .add_spring(Spring::new(pivot, bob).kind(SpringKind::Rod))
        .unwrap();
    let mut s = CpuSolver::new(&world).unwrap();
    let (l, th0, g) = (len as f64, theta0 as f64, G as f64);
    let t_small = 2.0 * std::f64::consts::PI * (l / g).sqrt();
    let t_amp = t_small * (1.0 + th0 * th0 / 16.0 + 11.0 * th0.powi(4) / 3072.0);
    let mut crossings = Vec::new();
    let mut peaks: Vec<(f64, f64)> = vec![(0.0, (len * theta0.sin()) as f64)];
    let mut hist = [pos(&s, 1)[0]; 3];
    let mut t = 0.0f64;
    let mut max_len_err = 0.0f64;
    while crossings.len() < 11 {
        assert!(t < 100.0, "only {} crossings in 100 s", crossings.len());
        s.substep();
        t += h;
        let p = pos(&s, 1);
        max_len_err = max_len_err.max((norm(p) - l).abs());
        hist = [hist[1], hist[2], p[0]];
        let [a, b, c] = hist;
        if (a > 0.0) != (b > 0.0) {
            crossings.push(crossing(t - 2.0 * h, a, t - h, b));
        }
        if b > a && b >= c && b > 0.0 {
            let off = 0.5 * (a - c) / (a - 2.0 * b + c);
            peaks.push((t - h + off * h, b - 0.25 * (a - c) * off));
        }
    }
    assert_eq!(pos(&s, 0), [0.0, 0.0], "the pinned pivot moved");
    let period = (crossings[10] - crossings[0]) / 5.0;
    let (t0, a0) = peaks[0];
    let (t1, a1) = *peaks.last().unwrap();
    let rate = (a0 / a1).ln() / (t1 - t0);
    let rate_expected = g * h / (2.0 * l);
    println!(
        "rod length error max {max_len_err:.2e}; period {period:.6} s vs 2 pi sqrt(L/g) \
         {t_small:.6} s (rel err {:.2e}) and finite-amplitude {t_amp:.6} s (rel err {:.2e}); \
         amplitude {a0:.6} -> {a1:.6} in {:.3} s: decay rate {rate:.6} 1/s vs g h / (2 L) \
         {rate_expected:.6} (rel err {:.2e})",
        period / t_small - 1.0,
        period / t_amp - 1.0,
        t1 - t0,
        rate / rate_expected - 1.0
    );
    assert!(
        max_len_err < 1e-6,
        "rod length drifted by {max_len_err} (tolerance 1e-6)"
    );
    assert!(
        (period / t_small - 1.0).abs() < 1e-3,
        "pendulum period {period} s vs 2 pi sqrt(L/g) = {t_small} s (relative tolerance 1e-3)"
    );
    assert!(
        (period / t_amp - 1.0).abs() < 3e-5,
        "pendulum period {period} s vs the finite-amplitude period {t_amp} s (relative \
         tolerance 3e-5)"
    );
    assert!(
        (rate / rate_expected - 1.0).abs() < 0.01,
        "amplitude decays at {rate} 1/s, the linearised scheme gives g h / (2 L) = \
         {rate_expected} 1/s (relative tolerance 1%)"
    );
}

/// One rod iteration against the CPU mirror on every scene.
#[test]
fn gpu_matches_the_cpu() {
    gpu_check::stages_match_the_cpu(&[Stage::Rods]);
}
