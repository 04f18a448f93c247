//! Springs (`shaders/springs.wgsl`, `src/cpu/springs.rs`): force springs
//! and soft constraints. The two-body period and damped envelope, energy
//! over 100,000 steps, shared damping, a spring given in hertz, ends moved
//! onto each other, and the GPU against the CPU (bitwise on a software
//! adapter).
//!
//! A link given in hertz (`softbody::Frequency`; also a body, in
//! `shape_match`) rings at that frequency up to the explicit scheme's phase
//! error, `(omega h)^2 / 24` relative (0.02% at 5 Hz with `h = 1/480 s`);
//! the tests allow 1%.

use crate::common::closed_form::*;
use crate::common::{gpu, run_finite};
use crate::gpu_check::{self, STAGE_TOL, assert_close};
use softbody::cpu::CpuSolver;
use softbody::gpu::Stage;
use softbody::prelude::*;

/// Two unequal masses on a spring along x, released from a stretch; returns
/// the solver (masses 1 and 3, k = 100 N/m, rest length 1, stretch 0.1).
fn two_mass_spring(k: f32, c: f32) -> (CpuSolver, f64, f64) {
    let (ma, mb) = (1.0f32, 3.0f32);
    let params = quiet();
    let h = params.h() as f64;
    let mut world = World::new(params);
    let a = world.add_point(Point::new(Vec2::ZERO).mass(ma)).unwrap();
    let b = world
        .add_point(Point::new(Vec2::new(1.1, 0.0)).mass(mb))
        .unwrap();
    world
        .add_spring(Spring::new(a, b).rest_length(1.0).stiffness(k).damping(c))
        .unwrap();
    let mu = (ma * mb / (ma + mb)) as f64;
    (CpuSolver::new(&world).unwrap(), mu, h)
}

/// Undamped two-body spring: period `2 pi sqrt(mu / k)`, mu the reduced
/// mass. Per substep the stretch x and relative velocity u follow
/// `x' = x + h u; u' = u - w^2 h x'` (w^2 = k / mu), whose eigenvalues are
/// `exp(+-i theta)` with `sin(theta / 2) = w h / 2`: the discrete period
/// `2 pi h / theta` is longer than the continuous one by about
/// `(w h)^2 / 24` (here 2.4e-5).
///
/// Tolerance: zero crossings are located by linear interpolation between
/// substeps (error O((w h)^2 h) each) and averaged over 20 periods; 1e-5
/// relative against the discrete period, 1e-4 against the continuous one.
#[test]
fn spring_period_matches_reduced_mass() {
    let k = 100.0f32;
    let (mut s, mu, h) = two_mass_spring(k, 0.0);
    let omega = (k as f64 / mu).sqrt();
    let t_cont = 2.0 * std::f64::consts::PI / omega;
    let theta = 2.0 * (omega * h / 2.0).asin();
    let t_disc = 2.0 * std::f64::consts::PI * h / theta;

    let stretch = |s: &CpuSolver| norm(sub(pos(s, 1), pos(s, 0))) - 1.0;
    let mut crossings = Vec::new();
    let (mut t, mut x_prev) = (0.0f64, stretch(&s));
    while crossings.len() < 41 {
        // A broken spring that stops oscillating must fail, not hang.
        assert!(t < 100.0, "only {} crossings in 100 s", crossings.len());
        s.substep();
        let x = stretch(&s);
        if (x_prev > 0.0) != (x > 0.0) {
            crossings.push(crossing(t, x_prev, t + h, x));
        }
        t += h;
        x_prev = x;
    }
    let period = (crossings[40] - crossings[0]) / 20.0;
    println!(
        "period {period:.7} s; discrete {t_disc:.7} (rel err {:.2e}); continuous \
         2 pi sqrt(mu/k) {t_cont:.7} (rel err {:.2e})",
        period / t_disc - 1.0,
        period / t_cont - 1.0
    );
    assert!(
        (period / t_disc - 1.0).abs() < 1e-5,
        "period {period} vs the scheme's discrete period {t_disc} (relative tolerance 1e-5)"
    );
    assert!(
        (period / t_cont - 1.0).abs() < 1e-4,
        "period {period} vs 2 pi sqrt(mu/k) = {t_cont} (relative tolerance 1e-4)"
    );
}

/// Damped spring. Per substep: `x' = x + h u`, `u' = E (u - w^2 h x')` with
/// `E = exp(-c h)`. The matrix `[[1, h], [-w^2 h E, (1 - w^2 h^2) E]]` has
/// determinant exactly E, so when its eigenvalues are complex (underdamped)
/// they have modulus `sqrt(E) = exp(-c h / 2)`: the amplitude envelope is
/// exactly `exp(-c t / 2)`, for any damping, not only light damping; the
/// damped period is `2 pi h / theta` with
/// `cos theta = (1 + E (1 - w^2 h^2)) / (2 sqrt E)`.
///
/// Measured from the peaks of the stretch, refined by a parabola through
/// the three samples around each peak. Tolerance on the decay rate: 1e-3
/// relative (the parabola leaves a peak-height error of order (w h)^4,
/// divided by the decay over the fitted span; f32 rounding of a 0.1 stretch
/// is ~1e-6 relative). Period: 1e-4 relative.
#[test]
fn damped_spring_envelope_decays_at_half_the_damping_rate() {
    let (k, c) = (100.0f32, 2.0f32);
    let (mut s, mu, h) = two_mass_spring(k, c);
    let w2 = k as f64 / mu;
    let e = (-(c as f64) * h).exp();
    let cos_theta = (1.0 + e * (1.0 - w2 * h * h)) / (2.0 * e.sqrt());
    let t_disc = 2.0 * std::f64::consts::PI * h / cos_theta.acos();

    let stretch = |s: &CpuSolver| norm(sub(pos(s, 1), pos(s, 0))) - 1.0;
    // (time, height) of each maximum of the stretch.
    let mut peaks: Vec<(f64, f64)> = Vec::new();
    let mut hist = [stretch(&s); 3];
    let mut t = 0.0f64;
    while peaks.len() < 9 && t < 20.0 {
        s.substep();
        t += h;
        hist = [hist[1], hist[2], stretch(&s)];
        let [a, b, cc] = hist;
        if b > a && b >= cc && b > 0.0 {
            // Parabola through (-h, a), (0, b), (h, cc).
            let denom = a - 2.0 * b + cc;
            let off = 0.5 * (a - cc) / denom;
            let height = b - 0.25 * (a - cc) * off;
            peaks.push((t - h + off * h, height));
        }
    }
    assert!(peaks.len() >= 9, "found only {} peaks", peaks.len());
    let (t0, a0) = peaks[1];
    let (t1, a1) = peaks[8];
    let rate = (a0 / a1).ln() / (t1 - t0);
    let period = (t1 - t0) / 7.0;
    let expected = c as f64 / 2.0;
    println!(
        "envelope decay rate {rate:.6} 1/s vs c/2 = {expected} (rel err {:.2e}); period \
         {period:.6} s vs discrete {t_disc:.6} (rel err {:.2e}); peaks {peaks:?}",
        rate / expected - 1.0,
        period / t_disc - 1.0
    );
    assert!(
        (rate / expected - 1.0).abs() < 1e-3,
        "amplitude decays at {rate} 1/s, expected c/2 = {expected} 1/s (relative tolerance 1e-3)"
    );
    assert!(
        (period / t_disc - 1.0).abs() < 1e-4,
        "damped period {period} s vs the scheme's {t_disc} s (relative tolerance 1e-4)"
    );
}

/// Energy of an undamped spring, spinning and vibrating, over 100,000 steps
/// (800,000 substeps). Symplectic Euler does not conserve the energy but a
/// nearby modified energy, so the error oscillates without drifting: for
/// the vibration its relative amplitude is at most `w h / 2` (w = sqrt(k /
/// mu); here 0.8%), less since part of the energy is rotation.
///
/// Tolerance: maximum relative error < 1%. Drift: the mean energy over the
/// last 10,000 steps minus the mean over the first 10,000, relative, < 1e-3
/// (an eighth of the oscillation bound; a non-symplectic explicit Euler
/// would gain a factor `(1 + (w h)^2)` per substep, e^200 here, and a
/// dissipative one of rate c would lose `c t` with t = 1667 s).
#[test]
fn undamped_spring_energy_stays_bounded() {
    let (ma, mb, k) = (1.0f32, 2.0f32, 40.0f32);
    let params = quiet();
    let mut world = World::new(params);
    let a = world
        .add_point(Point::new(Vec2::ZERO).mass(ma).vel(Vec2::new(0.0, -1.0)))
        .unwrap();
    let b = world
        .add_point(
            Point::new(Vec2::new(1.2, 0.0))
                .mass(mb)
                .vel(Vec2::new(0.0, 0.5)),
        )
        .unwrap();
    world
        .add_spring(Spring::new(a, b).rest_length(1.0).stiffness(k).damping(0.0))
        .unwrap();
    let mut s = CpuSolver::new(&world).unwrap();
    let energy = |s: &CpuSolver| {
        let (va, vb) = (vel(s, 0), vel(s, 1));
        let x = norm(sub(pos(s, 1), pos(s, 0))) - 1.0;
        0.5 * ma as f64 * (va[0] * va[0] + va[1] * va[1])
            + 0.5 * mb as f64 * (vb[0] * vb[0] + vb[1] * vb[1])
            + 0.5 * k as f64 * x * x
    };
    let e0 = energy(&s);
    let steps = 100_000;
    let window = 10_000;
    let (mut max_err, mut first, mut last) = (0.0f64, 0.0f64, 0.0f64);
    for i in 0..steps {
        s.step();
        let e = energy(&s);
        max_err = max_err.max((e / e0 - 1.0).abs());
        if i < window {
            first += e / window as f64;
        }
        if i >= steps - window {
            last += e / window as f64;
        }
    }
    let drift = (last - first) / e0;
    println!(
        "E0 {e0:.6}; max relative energy error {max_err:.3e}; drift over {steps} steps \
         {drift:.2e} (first-window mean {first:.6}, last-window mean {last:.6})"
    );
    assert!(
        max_err < 0.01,
        "relative energy error reached {max_err} (tolerance 1%)"
    );
    assert!(
        drift.abs() < 1e-3,
        "energy drifted by {drift} relative over {steps} steps (tolerance 1e-3)"
    );
}

/// Damping terms are summed per point (Jacobi), so the exponential form is
/// stable per link but not for any number of links: each spring, soft
/// constraint or body removes the fraction `alpha = 1 - exp(-c h)` of a
/// velocity difference, and at a point they add up. In the mass-weighted
/// norm every link is alpha times an orthogonal projector onto its own
/// points, so the damping operator's largest eigenvalue is at most
/// `max over points of sum alpha` (docs/physics.md): the relaxation is
/// monotone (no overshoot) when that sum is <= 1 and cannot grow when it is
/// <= 2. Here three links with alpha = 0.3 each (sum 0.9): the hub's
/// velocity must decay monotonically, without changing sign, for both
/// springs and bodies.
#[test]
fn shared_damping_within_the_summed_bound_is_monotone() {
    let h = quiet().h();
    let c = -(1.0f32 - 0.3).ln() / h;
    for bodies in [false, true] {
        let v = damped_hub(c, bodies);
        let what = if bodies { "bodies" } else { "springs" };
        println!(
            "{what}: c = {c:.1} 1/s (alpha 0.3 each, sum 0.9): hub velocity {:.3e}, {:.3e}, \
             {:.3e} after 1, 2, 3 substeps, {:.3e} after 1 s",
            v[0], v[1], v[2], v[479]
        );
        let mut prev = 1.0f64;
        for (n, &x) in v.iter().enumerate() {
            assert!(
                x.is_finite() && x >= 0.0 && x <= prev,
                "{what}: hub velocity {prev} -> {x} at substep {n}: damping with summed alpha \
                 0.9 must decay monotonically"
            );
            prev = x;
        }
    }
}

/// A spring of two 1 kg points given 5 Hz oscillates at 5 Hz.
#[test]
fn a_spring_given_in_hertz_rings_at_that_frequency() {
    let mut world = quiet_world();
    let a = world.add_point(Point::new(Vec2::new(0.0, 0.0))).unwrap();
    let b = world.add_point(Point::new(Vec2::new(1.1, 0.0))).unwrap();
    let f = Frequency::new(5.0, 0.0);
    world
        .add_spring(
            Spring::new(a, b)
                .rest_length(1.0)
                .stiffness(f.spring_stiffness(1.0, 1.0))
                .damping(0.0),
        )
        .unwrap();
    let mut s = CpuSolver::new(&world).unwrap();
    let h = world.params.h() as f64;
    let mut samples = Vec::new();
    for k in 0..2000 {
        s.substep();
        let p = s.positions();
        samples.push(((k + 1) as f64 * h, (p[1][0] - p[0][0]) as f64));
    }
    let t = period(&samples, 1.0, 8);
    println!("period {t:.5} s against 0.2 s");
    assert!((t / 0.2 - 1.0).abs() < 0.01, "period {t} s, expected 0.2 s");
}

#[test]
fn spring_ends_moved_onto_each_other() {
    for kind in [SpringKind::Spring, SpringKind::Soft, SpringKind::Rod] {
        for gravity in [Vec2::ZERO, Params::default().gravity] {
            let mut w = World::default();
            w.params.gravity = gravity;
            let a = w.add_point(Point::new(Vec2::ZERO)).unwrap();
            let b = w.add_point(Point::new(Vec2::X)).unwrap();
            let stiffness = if kind == SpringKind::Soft {
                20.0
            } else {
                2000.0
            };
            w.add_spring(Spring::new(a, b).kind(kind).stiffness(stiffness))
                .unwrap();
            w.set_state(&[Vec2::ONE; 2], &[Vec2::ZERO; 2]).unwrap();
            // 50 steps of 8 substeps.
            let solver = run_finite(&w, 50);
            // The spring pushed its ends apart again (along +x, by convention).
            let p = solver.positions_vec2();
            let d = p[0].distance(p[1]);
            assert!((d - 1.0).abs() < 0.1, "{kind:?}: length {d} after collapse");
        }
    }
}

#[test]
fn coincident_ends_with_an_explicit_rest_length() {
    let mut w = World::default();
    w.params.gravity = Vec2::ZERO;
    let a = w.add_point(Point::new(Vec2::ONE)).unwrap();
    let b = w.add_point(Point::new(Vec2::ONE)).unwrap();
    let c = w.add_point(Point::new(Vec2::ONE).pinned()).unwrap();
    w.add_spring(Spring::new(a, b).rest_length(0.5)).unwrap();
    w.add_spring(Spring::new(b, c).rest_length(0.5).kind(SpringKind::Rod))
        .unwrap();
    run_finite(&w, 50);
}

/// The springs kernel against the CPU mirror on every scene.
#[test]
fn gpu_matches_the_cpu() {
    gpu_check::stages_match_the_cpu(&[Stage::Springs]);
}

#[test]
fn the_springs_stage_is_bitwise_the_cpus() {
    // The records carry the substep's coefficients, computed once on the
    // CPU, so the kernel has no `exp` of its own: what is left (products,
    // sums, a square root, divisions) is correctly rounded on both paths,
    // on a software adapter exactly as on the CPU.
    let Some(ctx) = gpu() else { return };
    let world = softbody::scenes::bench_scene(5_000).unwrap();
    let mut cpu = CpuSolver::new(&world).unwrap();
    for _ in 0..5 {
        cpu.substep();
    }
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    gpu.set_state(&ctx.queue, cpu.positions(), cpu.velocities())
        .unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    gpu.record_stage(&mut encoder, Stage::Springs);
    ctx.queue.submit([encoder.finish()]);
    let before = cpu.velocities().to_vec();
    cpu.stage_springs();
    assert_ne!(before, cpu.velocities(), "the springs moved nothing");
    let state = gpu.read_state(&ctx.device, &ctx.queue).unwrap();
    if ctx.adapter.get_info().device_type == wgpu::DeviceType::Cpu {
        assert!(state.pos == cpu.positions(), "positions differ");
        assert!(state.vel == cpu.velocities(), "velocities differ");
    } else {
        // A hardware driver may fuse a product and a sum into one FMA.
        assert_close("springs pos", &state.pos, cpu.positions(), STAGE_TOL);
        assert_close("springs vel", &state.vel, cpu.velocities(), STAGE_TOL);
    }
}
