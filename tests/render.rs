//! The renderer: its shaders validate and share layouts with Rust, a small
//! fixed scene renders like the stored reference image, and GPU picking
//! finds the same point as a CPU search.
//!
//! Reference image: `tests/reference/small_scene.png`, made on lavapipe
//! (Mesa's software Vulkan, what CI runs). To re-make it after an
//! intended change of the picture: `SOFTBODY_BLESS=1 cargo test --test render`,
//! then look at the image before committing it.
//!
//! Tolerance: per 8-bit channel, the mean absolute difference over the whole
//! image must be at most [`MEAN_TOL`] and the largest at most [`MAX_TOL`].
//! On lavapipe the render is deterministic (we measured 0 and 0); the slack
//! is for other rounding of the physics and of anti-aliased edges: the same
//! test on a reworked solver (kernels fused, sums in another order) measured
//! mean 0.0003 and max 26. A body drawn in the wrong place or colour, or a
//! missing layer, moves the mean by several units and the max by far more.

mod common;

use std::path::{Path, PathBuf};

use common::gpu;
use common::naga::check_layout;
use softbody::prelude::*;
use softbody::render::{
    Camera, DragParams, Dragger, PickQuery, PickResult, Picker, RenderError, RenderOptions,
    RgbaImage, SpringLine, ViewUniform, shaders, simulate_and_render,
};

const MEAN_TOL: f64 = 1.0;
const MAX_TOL: u8 = 96;

fn parse_and_validate(name: &str) -> naga::Module {
    common::naga::parse_and_validate(name, &shaders::source(name).unwrap())
}

#[test]
fn render_shaders_parse_and_validate() {
    for (name, _) in shaders::SHADERS {
        parse_and_validate(name);
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/render");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    on_disk.sort();
    let mut known: Vec<String> = shaders::SHADERS
        .iter()
        .map(|(n, _)| format!("{n}.wgsl"))
        .collect();
    known.sort();
    assert_eq!(
        on_disk, known,
        "every file in shaders/render is compiled in"
    );
}

#[test]
fn render_structs_match_wgsl_layouts() {
    let draw = parse_and_validate("draw");
    check_layout!(
        draw,
        "View",
        ViewUniform,
        [
            center,
            scale,
            alpha,
            metres_per_pixel,
            point_radius,
            max_speed,
            color_mode,
            highlight,
            num_planes,
            fill_alpha,
            drag_target,
            grid_first,
            grid_step,
            grid_columns,
            draw_fill,
            draw_outlines,
            _pad,
        ]
    );
    check_layout!(draw, "SpringLine", SpringLine, [a, b, rest, kind]);
    let pick = parse_and_validate("pick");
    check_layout!(pick, "PickQuery", PickQuery, [cursor, num_points, _pad]);
    check_layout!(pick, "PickResult", PickResult, [point, dist2]);
    let drag = parse_and_validate("drag");
    check_layout!(
        drag,
        "DragParams",
        DragParams,
        [
            target_pos, point, enabled, stiffness, damping, dt, num_points,
        ]
    );
}

/// Every kind of thing the renderer draws, small enough to read at 320x200:
/// a floor and a slanted half-plane, two planets, a box, a ship of 3x2
/// boxes sharing corners, a wheel, a blob, a rope (springs and points, no
/// body) hanging from a pinned point.
fn small_scene() -> World {
    let mut w = World::default();
    w.add_plane(HalfPlane::floor(0.0)).unwrap();
    w.add_plane(HalfPlane::new(Vec2::new(-0.5, 1.0), -1.5))
        .unwrap();
    w.add_planet(Planet::new(Vec2::new(-2.5, 1.6), 1.2))
        .unwrap();
    w.add_planet(Planet::new(Vec2::new(1.5, 1.0), 0.7)).unwrap();
    BoxShape::new(Vec2::new(-2.3, 3.4), Vec2::new(0.8, 0.6))
        .rotation(0.4)
        .build(&mut w)
        .unwrap();
    BoxGrid::new(3, 2, Vec2::splat(0.35))
        .center(Vec2::new(0.0, 2.6))
        .rotation(-0.2)
        .build(&mut w)
        .unwrap();
    Wheel::new(Vec2::new(1.8, 2.6), 0.45, 10)
        .vel(Vec2::new(-1.0, 0.0))
        .build(&mut w)
        .unwrap();
    Blob::new(Vec2::new(3.3, 3.0), 0.5, 14)
        .vel(Vec2::new(-2.0, 0.0))
        .build(&mut w)
        .unwrap();
    Rope::new(Vec2::new(-4.5, 4.2), Vec2::new(-3.0, 4.2), 8)
        .pin_first(true)
        .build(&mut w)
        .unwrap();
    w
}

const REFERENCE_STEPS: u32 = 40;
const REFERENCE_SIZE: (u32, u32) = (320, 200);

fn reference_options() -> RenderOptions {
    let mut opts = RenderOptions {
        // A fixed view, so that a change of the fitting rule is not a failure.
        camera: Some(Camera {
            center: Vec2::new(0.0, 2.2),
            pixels_per_metre: 32.0,
        }),
        ..Default::default()
    };
    opts.draw.point_radius = 0.05;
    opts
}

struct Diff {
    mean: f64,
    max: u8,
    image: RgbaImage,
}

/// Per-channel absolute differences; the image shows them amplified 4x
/// on black.
fn diff(a: &RgbaImage, b: &RgbaImage) -> Diff {
    assert_eq!((a.width, a.height), (b.width, b.height), "image sizes");
    let mut sum = 0u64;
    let mut max = 0u8;
    let mut pixels = Vec::with_capacity(a.pixels.len());
    for (pa, pb) in a.pixels.chunks_exact(4).zip(b.pixels.chunks_exact(4)) {
        for c in 0..3 {
            let d = pa[c].abs_diff(pb[c]);
            sum += d as u64;
            max = max.max(d);
            pixels.push(d.saturating_mul(4));
        }
        pixels.push(255);
    }
    Diff {
        mean: sum as f64 / (a.pixels.len() / 4 * 3) as f64,
        max,
        image: RgbaImage {
            width: a.width,
            height: a.height,
            pixels,
        },
    }
}

fn out_dir() -> PathBuf {
    let dir = std::env::var_os("CARGO_TARGET_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
        .join("render-test");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn small_scene_matches_the_reference_image() {
    let Some(ctx) = gpu() else { return };
    let actual = simulate_and_render(
        &ctx.device,
        &ctx.queue,
        &small_scene(),
        REFERENCE_STEPS,
        REFERENCE_SIZE,
        &reference_options(),
    )
    .unwrap();
    let reference_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/small_scene.png");
    if std::env::var_os("SOFTBODY_BLESS").is_some() {
        actual.write_png(&reference_path).unwrap();
        eprintln!("wrote {}", reference_path.display());
        return;
    }
    let reference = RgbaImage::read_png(&reference_path).unwrap();
    let d = diff(&actual, &reference);
    eprintln!(
        "adapter {}: mean difference {:.4}, max {} (tolerance {MEAN_TOL}, {MAX_TOL})",
        ctx.adapter_summary(),
        d.mean,
        d.max
    );
    if d.mean > MEAN_TOL || d.max > MAX_TOL {
        let dir = out_dir();
        let (a, x) = (
            dir.join("small_scene.actual.png"),
            dir.join("small_scene.diff.png"),
        );
        actual.write_png(&a).unwrap();
        d.image.write_png(&x).unwrap();
        panic!(
            "the render differs from {}: mean {:.3} (tolerance {MEAN_TOL}), max {} (tolerance {MAX_TOL}).\nactual: {}\ndifference (x4): {}",
            reference_path.display(),
            d.mean,
            d.max,
            a.display(),
            x.display()
        );
    }
}

#[test]
fn the_picture_is_not_blank_and_shows_every_layer() {
    // Guards the reference against being blessed blank: body colours,
    // planets and the ground all appear.
    let Some(ctx) = gpu() else { return };
    let mut opts = reference_options();
    // Without springs (a box's diagonals cross at its centre).
    opts.draw.springs = false;
    let img = simulate_and_render(
        &ctx.device,
        &ctx.queue,
        &small_scene(),
        0,
        REFERENCE_SIZE,
        &opts,
    )
    .unwrap();
    let distinct: std::collections::HashSet<&[u8]> = img.pixels.chunks_exact(4).collect();
    assert!(distinct.len() > 200, "only {} colours", distinct.len());
    // The box (teal) is drawn near its centre, (-2.3, 3.4) m.
    let cam = reference_options().camera.unwrap();
    let px = cam.world_to_screen(Vec2::new(-2.3, 3.4), REFERENCE_SIZE);
    let i = (px.y as usize * REFERENCE_SIZE.0 as usize + px.x as usize) * 4;
    let [r, g, b] = [img.pixels[i], img.pixels[i + 1], img.pixels[i + 2]];
    assert!(
        g > r + 60 && b > r + 60,
        "box centre is {r},{g},{b}, expected teal"
    );
}

#[test]
fn gpu_picking_finds_the_nearest_point() {
    let Some(ctx) = gpu() else { return };
    let world = softbody::scenes::default_scene(300).unwrap();
    let solver = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    let mut picker = Picker::new(&ctx.device, &ctx.queue);
    picker.set_solver(&solver).unwrap();
    for cursor in [
        Vec2::new(0.0, 50.0),
        Vec2::new(-30.0, 20.0),
        Vec2::new(12.3, 35.1),
        Vec2::new(1e4, -1e4),
    ] {
        let got = picker
            .pick_blocking(cursor)
            .expect("a world with points has a nearest point");
        let (want, d2) = world
            .points()
            .iter()
            .enumerate()
            .map(|(i, p)| (i, p.pos.distance_squared(cursor)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap();
        assert_eq!(got.point as usize, want, "nearest to {cursor}");
        assert!((got.dist2 - d2).abs() <= 1e-4 * d2.max(1.0));
    }
    // So far away that every squared distance overflows: still a point
    // (the first, all being tied at infinity), not "no points".
    let got = picker
        .pick_blocking(Vec2::splat(1e20))
        .expect("a nearest point however far the cursor");
    assert_eq!(got.point, 0);
}

#[test]
fn dragging_pulls_a_point_to_the_cursor_and_lets_go() {
    let Some(ctx) = gpu() else { return };
    let mut world = World::default();
    let box_shape = BoxShape::new(Vec2::new(0.0, 5.0), Vec2::ONE)
        .build(&mut world)
        .unwrap();
    let p = box_shape.points[2];
    let mut solver = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    let mut dragger = softbody::render::Dragger::new(&ctx.device, &ctx.queue);
    dragger.set_solver(&solver).unwrap();
    let target = Vec2::new(3.0, 6.0);
    let dt = world.params.dt;
    dragger.set(Some((p.0, target)), dt).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    for _ in 0..180 {
        dragger.record(&mut encoder);
        solver.record_step(&mut encoder);
    }
    ctx.queue.submit([encoder.finish()]);
    let held = solver.read_state(&ctx.device, &ctx.queue).unwrap();
    let at = Vec2::from_array(held.pos[p.index()]);
    // The box hangs from the mouse spring: the held corner sags by about
    // g * (box mass) / DRAG_STIFFNESS = 9.81 * 4 / 400 = 0.1 m.
    assert!(
        at.distance(target) < 0.2,
        "held corner at {at}, target {target}"
    );
    // Let go: the box falls.
    dragger.set(None, dt).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    for _ in 0..30 {
        dragger.record(&mut encoder);
        solver.record_step(&mut encoder);
    }
    ctx.queue.submit([encoder.finish()]);
    let after = solver.read_state(&ctx.device, &ctx.queue).unwrap();
    assert!(
        after.pos[p.index()][1] < at.y - 0.5,
        "released corner falls"
    );
}

/// What an embedder can get wrong is a typed error before anything is
/// drawn or simulated: a sample count wgpu would panic on, a camera that
/// cannot draw, an image whose readback passes the device's buffer limit.
#[test]
fn bad_render_options_are_typed_errors() {
    use softbody::render::{DrawOptions, FrameView, OFFSCREEN_FORMAT, RenderError, Renderer};
    let Some(ctx) = gpu() else { return };
    let world = small_scene();
    for msaa in [0, 2, 3, 8] {
        let opts = RenderOptions {
            msaa,
            ..reference_options()
        };
        let err =
            simulate_and_render(&ctx.device, &ctx.queue, &world, 0, (32, 32), &opts).unwrap_err();
        assert!(matches!(err, RenderError::Msaa(m) if m == msaa), "{err:?}");
    }
    for camera in [
        Camera {
            center: Vec2::ZERO,
            pixels_per_metre: 0.0,
        },
        Camera {
            center: Vec2::ZERO,
            pixels_per_metre: -32.0,
        },
        Camera {
            center: Vec2::ZERO,
            pixels_per_metre: f32::NAN,
        },
        Camera {
            center: Vec2::new(f32::NAN, 0.0),
            pixels_per_metre: 32.0,
        },
    ] {
        let opts = RenderOptions {
            camera: Some(camera),
            ..reference_options()
        };
        let err =
            simulate_and_render(&ctx.device, &ctx.queue, &world, 0, (32, 32), &opts).unwrap_err();
        assert!(matches!(err, RenderError::BadCamera(_)), "{err:?}");
    }
    // A NaN zoom factor leaves the camera as it was (clamp keeps NaN).
    let mut cam = reference_options().camera.unwrap();
    cam.zoom_about(f32::NAN, Vec2::new(10.0, 10.0), (32, 32));
    assert_eq!(cam, reference_options().camera.unwrap());

    // 1024 x 1024 reads back 4 MiB, past a 1 MiB max_buffer_size.
    let (device, queue) = pollster::block_on(ctx.adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("small buffers"),
        required_limits: wgpu::Limits {
            max_buffer_size: 1 << 20,
            ..Default::default()
        },
        ..Default::default()
    }))
    .unwrap();
    let mut renderer = Renderer::new(&device, &queue, OFFSCREEN_FORMAT, 1).unwrap();
    let frame = FrameView::still(reference_options().camera.unwrap(), (1024, 1024));
    let err =
        softbody::render::render_image(&mut renderer, &frame, &DrawOptions::default()).unwrap_err();
    assert!(err.to_string().contains("max_buffer_size"), "{err}");
}

/// A NaN interpolation factor (an accumulator over a zero dt) draws the
/// current state; it used to make every position NaN and the bodies vanish.
#[test]
fn a_nan_interpolation_factor_draws_the_current_state() {
    use softbody::render::{FrameView, OFFSCREEN_FORMAT, Renderer, Topology, render_image};
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let world = small_scene();
    let solver = GpuSolver::new(d, q, &world).unwrap();
    let mut renderer = Renderer::new(d, q, OFFSCREEN_FORMAT, 1).unwrap();
    let mut encoder = d.create_command_encoder(&Default::default());
    renderer
        .set_scene(&mut encoder, &solver, &Topology::from_world(&world))
        .unwrap();
    q.submit([encoder.finish()]);
    let opts = reference_options();
    let mut frame = FrameView::still(opts.camera.unwrap(), (160, 100));
    let still = render_image(&mut renderer, &frame, &opts.draw).unwrap();
    frame.alpha = f32::NAN;
    let nan = render_image(&mut renderer, &frame, &opts.draw).unwrap();
    assert_eq!(nan.pixels, still.pixels);
}

/// Render interpolation (Gaul 2013, docs/physics.md "Gaul's slip"):
/// `alpha` 0 draws the state before the last steps, 1 the current one. The
/// backward blend, `mix(current, previous, alpha)`, drew the two the other
/// way round; the NaN test above cannot see it (NaN is taken as 1).
#[test]
fn alpha_blends_from_the_previous_state_to_the_current_one() {
    use softbody::render::{FrameView, OFFSCREEN_FORMAT, Renderer, Topology, render_image};
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let world = small_scene();
    let mut solver = GpuSolver::new(d, q, &world).unwrap();
    let mut renderer = Renderer::new(d, q, OFFSCREEN_FORMAT, 1).unwrap();
    let mut encoder = d.create_command_encoder(&Default::default());
    renderer
        .set_scene(&mut encoder, &solver, &Topology::from_world(&world))
        .unwrap();
    renderer.snapshot_previous(&mut encoder, &solver).unwrap();
    q.submit([encoder.finish()]);
    let opts = reference_options();
    let mut frame = FrameView::still(opts.camera.unwrap(), (160, 100));
    let before = render_image(&mut renderer, &frame, &opts.draw).unwrap();
    // The bodies fall for half a second; the snapshot keeps the start.
    solver.step(d, q, 30).unwrap();
    frame.alpha = 0.0;
    let at_0 = render_image(&mut renderer, &frame, &opts.draw).unwrap();
    frame.alpha = 1.0;
    let at_1 = render_image(&mut renderer, &frame, &opts.draw).unwrap();
    assert!(
        at_0.pixels == before.pixels,
        "alpha 0 must draw the previous state"
    );
    assert!(
        at_1.pixels != before.pixels,
        "alpha 1 must draw the current state"
    );
}

/// The renderer's scene and the drag follow edits only when set again: a
/// topology of another world is refused, and a snapshot after an edit is
/// `StaleScene` (it used to copy past the end of the old buffer: a wgpu
/// panic) until the scene is set again. A NaN drag target is refused and
/// drags nothing.
#[test]
fn scenes_and_drags_refuse_what_does_not_fit_the_solver() {
    use softbody::render::{Dragger, OFFSCREEN_FORMAT, RenderError, Renderer, Topology};
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let mut world = World::default();
    BoxShape::new(Vec2::new(0.0, 5.0), Vec2::ONE)
        .build(&mut world)
        .unwrap();
    let mut solver = GpuSolver::new(d, q, &world).unwrap();
    let mut renderer = Renderer::new(d, q, OFFSCREEN_FORMAT, 1).unwrap();
    let mut encoder = d.create_command_encoder(&Default::default());
    let err = renderer
        .set_scene(&mut encoder, &solver, &Topology::from_world(&small_scene()))
        .unwrap_err();
    assert!(matches!(err, RenderError::Topology(_)), "{err:?}");
    renderer
        .set_scene(&mut encoder, &solver, &Topology::from_world(&world))
        .unwrap();
    renderer.snapshot_previous(&mut encoder, &solver).unwrap();
    q.submit([encoder.finish()]);
    assert!(renderer.scene_is_current(&solver));

    BoxShape::new(Vec2::new(3.0, 5.0), Vec2::ONE)
        .build(&mut world)
        .unwrap();
    let edits = solver.edit_generation();
    solver.sync(d, q, &world).unwrap();
    assert_eq!(solver.edit_generation(), edits + 1);
    let mut encoder = d.create_command_encoder(&Default::default());
    let err = renderer
        .snapshot_previous(&mut encoder, &solver)
        .unwrap_err();
    assert!(matches!(err, RenderError::StaleScene { .. }), "{err:?}");
    assert!(!renderer.scene_is_current(&solver));
    renderer
        .set_scene(&mut encoder, &solver, &Topology::from_world(&world))
        .unwrap();
    renderer.snapshot_previous(&mut encoder, &solver).unwrap();
    q.submit([encoder.finish()]);

    let mut dragger = Dragger::new(d, q);
    dragger.set_solver(&solver).unwrap();
    let dt = world.params.dt;
    assert!(dragger.set(Some((0, Vec2::NAN)), dt).is_err());
    assert!(dragger.set(Some((0, Vec2::ONE)), f32::NAN).is_err());
    let mut encoder = d.create_command_encoder(&Default::default());
    for _ in 0..3 {
        dragger.record(&mut encoder);
        solver.record_step(&mut encoder);
    }
    q.submit([encoder.finish()]);
    let state = solver.read_state(d, q).unwrap();
    assert!(
        state
            .pos
            .iter()
            .chain(&state.vel)
            .flatten()
            .all(|x| x.is_finite())
    );
}

/// A renderer, picker or dragger keeps the device and queue it was made
/// with. Binding a solver of another device (here a second device of the
/// same adapter) used to panic inside wgpu when the bind group over the
/// solver's buffers was made; it is now `WrongDevice`, and nothing is
/// bound. A scene set for one solver refuses to snapshot another.
#[test]
fn the_drawing_side_refuses_a_solver_of_another_device() {
    use softbody::render::{OFFSCREEN_FORMAT, Renderer, Topology};
    let Some(ctx) = gpu() else { return };
    let (d, q) = (&ctx.device, &ctx.queue);
    let (device, queue) = pollster::block_on(softbody::gpu::request_device(&ctx.adapter)).unwrap();
    let world = small_scene();
    let topology = Topology::from_world(&world);
    let ours = GpuSolver::new(d, q, &world).unwrap();
    let theirs = GpuSolver::new(&device, &queue, &world).unwrap();
    let wrong = |e: RenderError, call: &str| {
        assert!(
            matches!(&e, RenderError::Solver(SolverError::WrongDevice { call: c, .. }) if *c == call),
            "{e}"
        );
    };

    let mut renderer = Renderer::new(d, q, OFFSCREEN_FORMAT, 1).unwrap();
    let mut encoder = d.create_command_encoder(&Default::default());
    wrong(
        renderer
            .set_scene(&mut encoder, &theirs, &topology)
            .unwrap_err(),
        "Renderer::set_scene",
    );
    assert!(!renderer.scene_is_current(&theirs), "nothing was bound");
    renderer.set_scene(&mut encoder, &ours, &topology).unwrap();
    wrong(
        renderer
            .snapshot_previous(&mut encoder, &theirs)
            .unwrap_err(),
        "Renderer::snapshot_previous",
    );
    // Another solver of the same device and edit generation: its state
    // is not the one the scene copies.
    let twin = GpuSolver::new(d, q, &world).unwrap();
    assert_eq!(twin.edit_generation(), ours.edit_generation());
    let e = renderer.snapshot_previous(&mut encoder, &twin).unwrap_err();
    assert!(matches!(e, RenderError::Topology(_)), "{e}");
    assert!(!renderer.scene_is_current(&twin));
    assert!(renderer.scene_is_current(&ours));
    renderer.snapshot_previous(&mut encoder, &ours).unwrap();
    q.submit([encoder.finish()]);

    let mut picker = Picker::new(d, q);
    wrong(
        picker.set_solver(&theirs).unwrap_err(),
        "Picker::set_solver",
    );
    assert!(picker.pick_blocking(Vec2::ZERO).is_none(), "nothing bound");
    picker.set_solver(&ours).unwrap();
    assert!(picker.pick_blocking(Vec2::ZERO).is_some());

    let mut dragger = Dragger::new(d, q);
    wrong(
        dragger.set_solver(&theirs).unwrap_err(),
        "Dragger::set_solver",
    );
    dragger.set_solver(&ours).unwrap();
    // The other device's own renderer takes its solver.
    let mut theirs_renderer = Renderer::new(&device, &queue, OFFSCREEN_FORMAT, 1).unwrap();
    let mut encoder = device.create_command_encoder(&Default::default());
    theirs_renderer
        .set_scene(&mut encoder, &theirs, &topology)
        .unwrap();
    queue.submit([encoder.finish()]);
}

/// A moving planet is drawn where the solver has posed it, not where the
/// world put it: after 1 s at 3 m/s a planet that started left of the
/// view's centre covers the centre, and its old spot no longer shows it.
#[test]
fn a_moving_planet_is_drawn_where_it_is() {
    let Some(ctx) = gpu() else { return };
    let mut world = World::default();
    world.params.gravity = Vec2::ZERO;
    world
        .add_planet(Planet::new(Vec2::new(-3.0, 2.2), 1.0).velocity(Vec2::new(3.0, 0.0)))
        .unwrap();
    let opts = reference_options();
    let cam = opts.camera.unwrap();
    let colour = |img: &RgbaImage, at: Vec2| {
        let px = cam.world_to_screen(at, REFERENCE_SIZE);
        let i = (px.y as usize * REFERENCE_SIZE.0 as usize + px.x as usize) * 4;
        [img.pixels[i], img.pixels[i + 1], img.pixels[i + 2]]
    };
    let start =
        simulate_and_render(&ctx.device, &ctx.queue, &world, 0, REFERENCE_SIZE, &opts).unwrap();
    let later =
        simulate_and_render(&ctx.device, &ctx.queue, &world, 60, REFERENCE_SIZE, &opts).unwrap();
    let (old, new) = (Vec2::new(-3.0, 2.2), Vec2::new(0.0, 2.2));
    assert_eq!(
        colour(&later, new),
        colour(&start, old),
        "the planet at its new centre"
    );
    assert_ne!(
        colour(&later, old),
        colour(&start, old),
        "no planet where it was"
    );
    assert_ne!(colour(&start, old), colour(&start, new));
}

/// Terrain is drawn: its solid side shows the ground's colour to its
/// thickness, its open side the background.
#[test]
fn terrain_is_drawn() {
    let Some(ctx) = gpu() else { return };
    let mut world = World::default();
    world
        .add_terrain(
            Terrain::new(vec![
                Vec2::new(5.0, 1.0),
                Vec2::new(0.0, 1.5),
                Vec2::new(-5.0, 1.0),
            ])
            .thickness(1.0),
        )
        .unwrap();
    let opts = reference_options();
    let cam = opts.camera.unwrap();
    let img =
        simulate_and_render(&ctx.device, &ctx.queue, &world, 0, REFERENCE_SIZE, &opts).unwrap();
    let colour = |at: Vec2| {
        let px = cam.world_to_screen(at, REFERENCE_SIZE);
        let i = (px.y as usize * REFERENCE_SIZE.0 as usize + px.x as usize) * 4;
        [img.pixels[i], img.pixels[i + 1], img.pixels[i + 2]]
    };
    let (solid, open) = (colour(Vec2::new(0.3, 1.0)), colour(Vec2::new(0.3, 2.5)));
    eprintln!("solid {solid:?}, open {open:?}");
    // The half-planes' ground colour is bluish grey, brighter than the
    // background.
    assert!(
        solid.iter().map(|&c| c as u32).sum::<u32>()
            > open.iter().map(|&c| c as u32).sum::<u32>() + 60
    );
    img.write_png(&out_dir().join("terrain.png")).unwrap();
}

/// `set_body_colors` redraws the bodies in the colours given (the ship
/// sample's lights): every body white, the box's centre is white; a count
/// of colours other than the bodies' is refused.
#[test]
fn bodies_take_the_colours_they_are_given() {
    let Some(ctx) = gpu() else { return };
    let world = small_scene();
    let topology = softbody::render::Topology::from_world(&world);
    let opts = reference_options();
    let mut renderer = softbody::render::Renderer::new(
        &ctx.device,
        &ctx.queue,
        softbody::render::OFFSCREEN_FORMAT,
        opts.msaa,
    )
    .unwrap();
    let solver = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    renderer
        .set_scene(&mut encoder, &solver, &topology)
        .unwrap();
    ctx.queue.submit([encoder.finish()]);
    let white = vec![0xffff_ffffu32; topology.body_colors.len()];
    renderer.set_body_colors(&topology, &white).unwrap();
    assert!(renderer.set_body_colors(&topology, &white[1..]).is_err());
    let frame = softbody::render::FrameView::still(opts.camera.unwrap(), REFERENCE_SIZE);
    let img = softbody::render::render_image(&mut renderer, &frame, &opts.draw).unwrap();
    let cam = opts.camera.unwrap();
    let px = cam.world_to_screen(Vec2::new(-2.3, 3.4), REFERENCE_SIZE);
    let i = (px.y as usize * REFERENCE_SIZE.0 as usize + px.x as usize) * 4;
    let c = [img.pixels[i], img.pixels[i + 1], img.pixels[i + 2]];
    assert!(
        c.iter().all(|&v| v > 200),
        "box centre is {c:?}, expected white"
    );
}
