//! One test per bug that was found in src/ and fixed, each asserting the
//! behaviour that was wrong (docs/physics.md says what each rule is and
//! why).

mod common;

use common::closed_form::*;
use softbody::cpu::CpuSolver;
use softbody::prelude::*;

/// Damping is summed per point (Jacobi), so it is stable per link but not
/// for any number of links: `docs/physics.md` and `Params` state the bound
/// (the alphas at a point sum to <= 1 for monotone damping, unstable above
/// 2), and `Packed::stability` reports the worst point. Three links with
/// c = 1000 1/s at h = 1/480 s (alpha 0.875 each, sum 2.6) do blow up, and
/// the report flags exactly that point with that sum; the default scene is
/// within every bound.
#[test]
fn damping_beyond_the_summed_bound_is_reported() {
    for bodies in [false, true] {
        let what = if bodies { "bodies" } else { "springs" };
        let v = damped_hub(1000.0, bodies);
        let first_bad = v.iter().position(|x| !x.is_finite() || x.abs() > 1.0);
        println!("{what}: c = 1000 1/s, three links: first substep past 1 m/s: {first_bad:?}");
        assert!(
            first_bad.is_some(),
            "{what}: expected the documented instability"
        );
        let world = damped_hub_world(1000.0, bodies);
        let report = softbody::pack::Packed::from_world(&world)
            .unwrap()
            .stability(world.params.h());
        let (load, point) = report.damping_load;
        let alpha = 1.0 - (-1000.0f32 * world.params.h()).exp();
        // The hub (point 0) weighs 0.01 against 100: its share is ~1 per link.
        assert_eq!(point, 0, "{what}: worst point");
        assert!(
            (load - 3.0 * alpha).abs() < 0.01,
            "{what}: damping load {load}, expected about {}",
            3.0 * alpha
        );
        assert!(report.warnings().iter().any(|w| w.contains("point 0")));
    }
    let scene = softbody::scenes::default_scene(200).unwrap();
    let report = softbody::pack::Packed::from_world(&scene)
        .unwrap()
        .stability(scene.params.h());
    assert!(
        report.warnings().is_empty(),
        "default scene: {:?}",
        report.warnings()
    );
}

/// The damping load counts every link's whole `alpha` at each free end: a
/// hub with six damped springs to equal masses along one line, alpha 0.6
/// each. The star's damping operator has largest eigenvalue `7/2 alpha` =
/// 2.1, so the hub's velocity is multiplied by about `1 - 2.1 = -1.1` per
/// substep and grows. The report must say so (load 3.6, past 2); it used to
/// split each alpha between the ends by inverse mass and report 1.8, under
/// the bound it states for instability.
#[test]
fn damping_load_of_equal_masses_counts_each_link_whole() {
    let h = quiet().h();
    let c = -(1.0f32 - 0.6).ln() / h;
    let mut world = World::new(quiet());
    world.params.body_collisions = false;
    let hub = world
        .add_point(Point::new(Vec2::ZERO).vel(Vec2::new(1.0, 0.0)))
        .unwrap();
    for j in 0..6 {
        let x = if j % 2 == 0 {
            1.0 + j as f32
        } else {
            -1.0 - j as f32
        };
        let p = world.add_point(Point::new(Vec2::new(x, 0.0))).unwrap();
        world
            .add_spring(Spring::new(hub, p).stiffness(0.0).damping(c))
            .unwrap();
    }
    let report = softbody::pack::Packed::from_world(&world)
        .unwrap()
        .stability(h);
    let (load, point) = report.damping_load;
    assert_eq!(point, 0);
    assert!((load - 3.6).abs() < 1e-4, "damping load {load}");
    assert!(report.warnings().iter().any(|w| w.contains("point 0")));
    // And it does grow: the documented instability, not a false alarm.
    let mut s = CpuSolver::new(&world).unwrap();
    let v0 = vel(&s, 0)[0].abs();
    for _ in 0..60 {
        s.substep();
    }
    let v = vel(&s, 0)[0].abs();
    assert!(
        v > v0 || v.is_nan(),
        "hub speed {v} after 60 substeps, from {v0}"
    );
}

/// BUG (src/cpu/rods.rs, `rods`; same in the WGSL mirror): a point moves by
/// the *average* of the projections of its rods, so in a chain the middle
/// point gets half of each rod's correction while an end gets all of its
/// own: the two halves of a rod's impulse are no longer equal and opposite
/// and the chain's linear momentum changes with no external force. A free
/// three-point chain (equal masses, rods at rest length) whose end is kicked
/// sideways: the centre of mass must move at the constant velocity P / M.
///
/// Suggested fix (mass splitting): pass `inv_mass * n` for each end to
/// `rod_deltas`, n the number of rods at that end, and keep dividing the sum
/// by the point's own count; each rod's impulse is then `C / (w_a n_a +
/// w_b n_b)` on both ends (equal and opposite), and uniform chains converge
/// exactly as now.
///
/// Tolerance: 1e-5 of |P| after one second (f32 rounding is ~1e-7 per
/// substep); measured before the fix: P (0, 1) -> (0.197, 0.844), the
/// centre of mass 3.7 cm off in x. A mirror of the scheme in f64 with the
/// suggested fix conserves P to 1e-15 with the rod lengths still exact to
/// 1e-7.
#[test]
fn rod_chain_conserves_linear_momentum() {
    let mut world = World::new(quiet());
    let a = world
        .add_point(Point::new(Vec2::new(0.0, 0.0)).vel(Vec2::new(0.0, 1.0)))
        .unwrap();
    let b = world.add_point(Point::new(Vec2::new(1.0, 0.0))).unwrap();
    let c = world.add_point(Point::new(Vec2::new(2.0, 0.0))).unwrap();
    world
        .add_spring(Spring::new(a, b).kind(SpringKind::Rod))
        .unwrap();
    world
        .add_spring(Spring::new(b, c).kind(SpringKind::Rod))
        .unwrap();
    let masses = [1.0f32; 3];
    let mut s = CpuSolver::new(&world).unwrap();
    let (p0, _) = momenta(&s, &masses);
    for _ in 0..60 {
        s.step();
    }
    let (p1, _) = momenta(&s, &masses);
    let com = [0, 1].map(|k| (0..3).map(|i| pos(&s, i)[k]).sum::<f64>() / 3.0);
    let t = 1.0;
    let com_expected = [1.0 + p0[0] / 3.0 * t, p0[1] / 3.0 * t];
    let err = norm(sub(p1, p0)) / norm(p0);
    println!(
        "rod chain: P {p0:.6?} -> {p1:.6?} (rel err {err:.2e}); centre of mass {com:.6?}, \
         expected {com_expected:.6?}"
    );
    assert!(
        err < 1e-5,
        "a free rod chain changed its linear momentum {p0:?} -> {p1:?} in 1 s (centre of mass \
         at {com:?}, expected {com_expected:?}): per-point averaging of rod corrections is not \
         momentum-conserving (src/cpu/rods.rs)"
    );
}

/// BUG (src/pack/, `Packed::from_world`, and `CpuSolver::set_state`): a
/// pinned point keeps the velocity it was given (`Point::new(p).vel(v)
/// .pinned()`) although it never moves, and that stale velocity acts: a
/// damped spring's damping and a rod's velocity projection drag the other
/// end toward it, and shape matching's rigid velocity, where the pinned
/// point weighs 1e4, drags the whole body. Here everything starts at rest in
/// its rest shape except the pinned points' stored velocities, so nothing
/// may move; instead the spring's free end settles `c v / k` = 5 mm off
/// (damping balanced by the spring) and the body turns.
///
/// Suggested fix: zero the velocity of pinned points when packing (the
/// `vel` collect in `Packed::from_world`) and in `set_state` (or have
/// `integrate` write `vel = 0` for points with `inv_mass == 0`, in the
/// kernel too).
///
/// Tolerance: 1e-6 m of motion in one second (rounding level).
#[test]
fn pinned_point_velocity_does_not_act() {
    let mut world = World::new(quiet());
    let anchor = world
        .add_point(Point::new(Vec2::ZERO).vel(Vec2::new(1.0, 0.0)).pinned())
        .unwrap();
    let end = world.add_point(Point::new(Vec2::new(1.0, 0.0))).unwrap();
    world
        .add_spring(Spring::new(anchor, end).damping(10.0))
        .unwrap();
    let pin = world
        .add_point(
            Point::new(Vec2::new(5.0, 0.0))
                .vel(Vec2::new(0.0, 1.0))
                .pinned(),
        )
        .unwrap();
    let d = world.add_point(Point::new(Vec2::new(6.0, 0.0))).unwrap();
    let e = world.add_point(Point::new(Vec2::new(5.5, -1.0))).unwrap();
    world.add_body(Body::new(vec![pin, d, e])).unwrap();
    let start: Vec<_> = world.points().iter().map(|p| p.pos).collect();
    let mut s = CpuSolver::new(&world).unwrap();
    for _ in 0..60 {
        s.step();
    }
    let moved: Vec<f64> = start
        .iter()
        .enumerate()
        .map(|(i, p0)| norm(sub(pos(&s, i), [p0.x as f64, p0.y as f64])))
        .collect();
    println!("distance moved in 1 s by each point: {moved:?}");
    for (i, &m) in moved.iter().enumerate() {
        assert!(
            m < 1e-6,
            "point {i} moved {m} m (all: {moved:?}) although every point started at rest in its \
             rest shape; the only cause is a pinned point's stored velocity (src/pack/: pinned \
             points keep their velocity)"
        );
    }
}

/// Soft distance constraint (docs/physics.md, stage 3a), two free points
/// of masses 1 and 3 moving apart along the link: each substep the drift
/// `x += h u` is followed by closing `alpha = 1 - exp(-k h)` of the
/// length error and of the relative velocity along the link (split by
/// inverse mass, so the centre of mass keeps its velocity). Nothing else
/// (the seed's position-only form, or a stiffness read half-strength)
/// gives this sequence.
#[test]
fn soft_constraint_closes_alpha_of_the_error_and_of_the_approach() {
    let k = 300.0f32;
    let mut w = World::new(quiet());
    let a = w
        .add_point(Point::new(Vec2::ZERO).vel(Vec2::new(-0.3, 0.0)))
        .unwrap();
    let b = w
        .add_point(
            Point::new(Vec2::new(1.2, 0.0))
                .mass(3.0)
                .vel(Vec2::new(0.5, 0.0)),
        )
        .unwrap();
    w.add_spring(
        Spring::new(a, b)
            .kind(SpringKind::Soft)
            .stiffness(k)
            .rest_length(1.0),
    )
    .unwrap();
    let mut s = CpuSolver::new(&w).unwrap();
    let h = w.params.h() as f64;
    let alpha = 1.0 - (-(k as f64) * h).exp();
    let (mut x, mut u) = (0.2f64, 0.8f64);
    let momentum = -0.3 + 3.0 * 0.5;
    for n in 1..=40 {
        s.substep();
        x = (1.0 - alpha) * (x + h * u);
        u *= 1.0 - alpha;
        let got_x = pos(&s, 1)[0] - pos(&s, 0)[0] - 1.0;
        let got_u = vel(&s, 1)[0] - vel(&s, 0)[0];
        assert!(
            (got_x - x).abs() < 2e-6,
            "substep {n}: error {got_x}, want {x}"
        );
        assert!(
            (got_u - u).abs() < 2e-6,
            "substep {n}: approach {got_u}, want {u}"
        );
        let p = vel(&s, 0)[0] + 3.0 * vel(&s, 1)[0];
        assert!((p - momentum).abs() < 1e-5, "substep {n}: momentum {p}");
    }
    // Most of the error is gone after 40 substeps (alpha = 0.46).
    assert!(x.abs() < 1e-9 && u.abs() < 1e-9);
}

/// A damped square body with `k h^2 = x` and damping factor `E = 0.25` per
/// substep, its corner 0 pushed in by 1 cm, stepped by the CPU stages of
/// shape matching and integration alone (no gravity), bypassing the
/// solvers' check. Returns the largest change of a diagonal from its rest
/// length after 200 substeps (infinite if it blew up), and the world.
fn damped_body_deviation(x: f32) -> (f32, World) {
    use softbody::cpu::{integrate, shape_match};
    let square = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)].map(|(a, b)| Vec2::new(a, b));
    let mut world = World::new(quiet());
    let h = world.params.h();
    let corners = square.map(|q| {
        let dent = if q == Vec2::ZERO { 0.01 } else { 0.0 };
        world.add_point(Point::new(q + Vec2::splat(dent))).unwrap()
    });
    let body = Body::new(corners.to_vec())
        .rest(square.to_vec())
        .stiffness(x / (h * h))
        .damping(-(0.25f32).ln() / h);
    world.add_body(body).unwrap();
    let packed = softbody::pack::Packed::from_world(&world).unwrap();
    let sim = softbody::pack::sim_params(&world.params, &packed);
    let (mut pos, mut vel) = (packed.pos.clone(), packed.vel.clone());
    let mut frames = vec![softbody::layout::BodyFrame::default(); packed.bodies.len()];
    let mut dilation = vec![0.0; packed.bodies.len()];
    let mut inflation = packed.inflations();
    for _ in 0..200 {
        shape_match::frames(
            &sim,
            &packed.bodies,
            &packed.members,
            &pos,
            &vel,
            &mut frames,
            &mut dilation,
            &mut inflation,
            false,
        );
        shape_match::apply(
            &sim,
            &packed.point_info,
            &packed.point_members,
            &frames,
            &dilation,
            &pos,
            &mut vel,
            false,
        );
        integrate(
            &sim,
            &packed.point_info,
            &packed.planets,
            &packed.gravity_scale,
            &mut pos,
            &mut vel,
            false,
        );
    }
    let diag = |i: usize, j: usize| {
        let d = Vec2::from_array(pos[i]) - Vec2::from_array(pos[j]);
        (d.length() - 2f32.sqrt()).abs()
    };
    let dev = diag(0, 2).max(diag(1, 3));
    (if dev.is_finite() { dev } else { f32::INFINITY }, world)
}

/// A body's pull and its relaxation toward rigid motion are both added to
/// the old velocity, so its damping does not scale the pull as a spring's
/// does: one substep has determinant `E` and trace `1 + E - k h^2`, and it
/// diverges past `k h^2 = 2 (1 + E)`, not the spring's `2 (1 + E) / E`.
/// With `E = 0.25` that is 2.5 against 10: a body at `k h^2 = 3` grows by
/// about 1.6 per substep. Bodies used to be checked against the spring's
/// limit, so the solvers accepted it and it went NaN.
#[test]
fn a_damped_body_past_its_own_limit_is_refused() {
    let (below, world) = damped_body_deviation(2.3);
    assert!(
        below < 1e-3,
        "k h^2 = 2.3: deviation {below} after 200 substeps"
    );
    assert!(CpuSolver::new(&world).is_ok());

    let (past, world) = damped_body_deviation(3.0);
    assert!(
        past > 1.0,
        "k h^2 = 3: deviation {past}, expected it to grow"
    );
    let err = CpuSolver::new(&world).err().unwrap();
    match err {
        WorldError::Unstable {
            item: softbody::Item::Body(0),
            limit,
            ..
        } => assert!((limit - 2.5).abs() < 1e-3, "limit {limit}"),
        e => panic!("expected body 0 to be refused, got {e}"),
    }
}

/// A spring to a pinned point loads only its free end: the pinned end does
/// not move, so it carries no stiffness load (as it carries no damping
/// load). A pinned anchor holding ten pendulums at a load of 0.5 each used
/// to read 5 at the anchor and warn that its springs may blow up; they do
/// not.
#[test]
fn spring_load_counts_only_the_ends_that_move() {
    let mut world = World::new(quiet());
    let h = world.params.h();
    let anchor = world.add_point(Point::new(Vec2::ZERO).mass(0.0)).unwrap();
    for j in 0..10 {
        let a = j as f32 * 0.6;
        let p = world
            .add_point(Point::new(Vec2::new(a.cos(), a.sin())).vel(Vec2::new(-a.sin(), a.cos())))
            .unwrap();
        world
            .add_spring(Spring::new(anchor, p).stiffness(0.5 / (h * h)).damping(0.0))
            .unwrap();
    }
    let report = softbody::pack::Packed::from_world(&world)
        .unwrap()
        .stability(h);
    let (load, point) = report.spring_load;
    assert!(
        (load - 0.5).abs() < 1e-4,
        "spring load {load} at point {point}"
    );
    assert_ne!(point, 0, "the pinned anchor carries no load");
    assert!(report.warnings().is_empty(), "{:?}", report.warnings());
    // And the pendulums are indeed stable: each stays near its rest length.
    let mut s = CpuSolver::new(&world).unwrap();
    for _ in 0..100 {
        s.step();
    }
    for i in 1..=10 {
        let r = Vec2::from_array(s.positions()[i]).length();
        assert!((r - 1.0).abs() < 0.2, "pendulum {i} at radius {r}");
    }
}
