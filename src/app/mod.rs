//! The window program (feature `window`): winit, wgpu and an egui overlay.
//!
//! Each frame: the elapsed real time goes into a [`FixedStep`] accumulator
//! (seed 002), which says how many fixed steps to run; the steps are
//! recorded into one encoder, with the renderer's copy of the positions into
//! its previous-state buffer just before the last one, so the frame can
//! be drawn `alpha` of the way between the last two states (the
//! interpolation happens in the vertex shaders). Drawing reads the solver's
//! buffers directly; nothing but two tiny asynchronous readbacks (picking,
//! timestamps) comes back to the CPU.
//!
//! Edits that change the world itself (spawning, reset, parameters that are
//! baked into every item at upload) read the state back once and rebuild
//! the solver: see [`sim`].
//!
//! ```no_run
//! use softbody::app::{AppOptions, run};
//!
//! run(AppOptions { bodies: 5000, ..Default::default() })?;
//! # Ok::<(), softbody::app::AppError>(())
//! ```

mod clock;
mod gesture;
mod overlay;
pub mod sim;
mod timer;

use std::sync::Arc;
use std::time::{Duration, Instant};

use glam::Vec2;
use winit::application::ApplicationHandler;
use winit::dpi::{LogicalSize, PhysicalSize};
use winit::event::{ElementState, KeyEvent, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

pub use clock::{FixedStep, MAX_STEPS_RANGE};
use gesture::Gesture;
pub use overlay::{CONTROLS_HELP, Controls, Stats};
use sim::{Sim, SpawnKind, baked_params_differ};
use timer::GpuTimer;

use crate::error::WorldError;
use crate::gpu::{SolverError, adapter_summary, request_device};
use crate::render::{Camera, FrameView, RenderError, Renderer};
use crate::scenes::default_scene;
use crate::world::World;

/// How the window starts.
#[derive(Clone, Debug)]
pub struct AppOptions {
    /// Bodies in the default scene. Default 20,000.
    pub bodies: usize,
    /// A world to show instead of the default scene.
    pub world: Option<World>,
    /// Present this many frames, then exit (for tests and measurements);
    /// `None` runs until the window is closed.
    pub frames: Option<u64>,
    /// Initial inner size of the window, logical pixels. Default 1280 x 800.
    pub size: (u32, u32),
    /// Wait for the display's refresh (`AutoVsync`); off presents as fast
    /// as frames are made (`AutoNoVsync`), for measuring. Default on.
    pub vsync: bool,
    /// Samples per pixel of the scene: 1, or 4 for multisampled
    /// anti-aliasing. Default 1 (drawing is the limit on a software
    /// adapter; see BENCHMARKS.md).
    pub msaa: u32,
    /// Show the overlay at start. Default on.
    pub overlay: bool,
    /// Start paused. Default off.
    pub paused: bool,
    /// Print the frame rate and simulation time every few seconds (and at
    /// exit) to stderr. Default off.
    pub report: bool,
}

impl Default for AppOptions {
    fn default() -> Self {
        Self {
            bodies: 20_000,
            world: None,
            frames: None,
            size: (1280, 800),
            vsync: true,
            msaa: 1,
            overlay: true,
            paused: false,
            report: false,
        }
    }
}

/// What can stop the window program.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// No event loop or window (no display: is `DISPLAY` or
    /// `WAYLAND_DISPLAY` set?).
    #[error("could not open a window: {0}")]
    Window(String),
    /// No surface, adapter or device for the window.
    #[error("could not draw into the window: {0}")]
    Surface(String),
    #[error(transparent)]
    Solver(#[from] SolverError),
    #[error(transparent)]
    Render(#[from] RenderError),
    /// With a frame limit: the window closed, or presented nothing for
    /// [`NO_FRAME_TIMEOUT`], before the limit was reached.
    #[error("presented {presented} of {wanted} frames")]
    Incomplete { presented: u64, wanted: u64 },
}

impl From<WorldError> for AppError {
    fn from(e: WorldError) -> Self {
        AppError::Solver(SolverError::World(e))
    }
}

/// With a frame limit, give up when no frame was presented for this long.
pub const NO_FRAME_TIMEOUT: Duration = Duration::from_secs(120);

/// Pick radius around the cursor, pixels.
const PICK_RADIUS_PX: f32 = 16.0;

/// Opens the window and runs until it is closed (or `opts.frames` frames
/// were presented). A world the solver would refuse (invalid parameters,
/// a link that diverges on its own) is refused before any window opens,
/// with [`AppError::Solver`] holding the [`WorldError`].
pub fn run(mut opts: AppOptions) -> Result<(), AppError> {
    let world = match opts.world.take() {
        Some(w) => w,
        None => default_scene(opts.bodies)?,
    };
    // A CPU pass over the world, once: the solver packs it again when the
    // window has a device, but a refusal should not need a display.
    crate::pack::Packed::from_world(&world)?
        .stability(world.params.h())
        .check()?;
    let mut builder = EventLoop::builder();
    // Tests run the window off the main thread; winit allows it on X11 and
    // Wayland when asked.
    #[cfg(all(
        unix,
        not(any(target_os = "macos", target_os = "ios", target_os = "android"))
    ))]
    {
        winit::platform::x11::EventLoopBuilderExtX11::with_any_thread(&mut builder, true);
        winit::platform::wayland::EventLoopBuilderExtWayland::with_any_thread(&mut builder, true);
    }
    let event_loop = builder
        .build()
        .map_err(|e| AppError::Window(e.to_string()))?;
    let mut app = App {
        opts,
        world: Some(world),
        running: None,
        error: None,
        presented: 0,
        last_present: Instant::now(),
    };
    event_loop
        .run_app(&mut app)
        .map_err(|e| AppError::Window(e.to_string()))?;
    // The frames since the last report, if any (a report that had just
    // been printed would otherwise be followed by one of 0 fps over 0 s).
    if let Some(r) = &mut app.running
        && app.opts.report
        && r.frames_since_report > 0
    {
        r.report(app.presented);
    }
    if let Some(e) = app.error {
        return Err(e);
    }
    match app.opts.frames {
        Some(wanted) if app.presented < wanted => Err(AppError::Incomplete {
            presented: app.presented,
            wanted,
        }),
        _ => Ok(()),
    }
}

struct App {
    opts: AppOptions,
    world: Option<World>,
    running: Option<Running>,
    error: Option<AppError>,
    presented: u64,
    last_present: Instant,
}

impl App {
    fn fail(&mut self, event_loop: &ActiveEventLoop, e: AppError) {
        log::error!("{e}");
        self.error.get_or_insert(e);
        event_loop.exit();
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        let Some(world) = self.world.take() else {
            return;
        };
        match Running::new(event_loop, &self.opts, world) {
            Ok(r) => {
                r.window.request_redraw();
                self.running = Some(r);
                self.last_present = Instant::now();
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(r) = &mut self.running else {
            return;
        };
        if matches!(event, WindowEvent::RedrawRequested) {
            match r.frame() {
                Ok(true) => {
                    self.presented += 1;
                    self.last_present = Instant::now();
                    if self.opts.report {
                        r.maybe_report(self.presented);
                    }
                    if self.opts.frames.is_some_and(|n| self.presented >= n) {
                        event_loop.exit();
                    }
                }
                Ok(false) => {}
                Err(e) => self.fail(event_loop, e),
            }
            return;
        }
        if r.handle(&event) == Handled::Exit {
            event_loop.exit();
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        let Some(r) = &self.running else {
            return;
        };
        if self.opts.frames.is_some() && self.last_present.elapsed() > NO_FRAME_TIMEOUT {
            log::error!("no frame presented for {NO_FRAME_TIMEOUT:?}; giving up");
            event_loop.exit();
            return;
        }
        if r.drawable() {
            event_loop.set_control_flow(ControlFlow::Poll);
            r.window.request_redraw();
        } else {
            // Minimised or occluded: nothing to draw, and the simulation
            // waits (its clock is cleared when drawing resumes).
            event_loop.set_control_flow(ControlFlow::WaitUntil(
                Instant::now() + Duration::from_millis(100),
            ));
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Handled {
    Continue,
    Exit,
}

/// Exponentially smoothed statistics (`None` until the first sample).
#[derive(Default)]
struct Smoothed {
    frame_s: Option<f64>,
    sim_ms: Option<f64>,
    draw_ms: Option<f64>,
    steps: Option<f64>,
}

fn smooth(old: &mut Option<f64>, new: f64) {
    *old = Some(old.map_or(new, |o| o + 0.1 * (new - o)));
}

impl Smoothed {
    /// A frame's simulation: `steps` steps took `ms` milliseconds. Returns
    /// the cost of one step when any ran. A frame without steps (paused)
    /// counts as no simulation time, whatever the timer measured around
    /// nothing (the overlay does not keep showing the last running frame's).
    fn record_sim(&mut self, steps: u32, ms: f64) -> Option<f64> {
        if steps == 0 {
            smooth(&mut self.sim_ms, 0.0);
            return None;
        }
        smooth(&mut self.sim_ms, ms);
        Some(ms / steps as f64)
    }
}

/// The surface size for a window of `size`: at least 1 x 1, and at most
/// the device's largest texture (wgpu refuses a larger surface; the window
/// system may still make the window larger, and the image is then
/// stretched over it).
fn surface_size(size: PhysicalSize<u32>, max: u32) -> (u32, u32) {
    (size.width.clamp(1, max), size.height.clamp(1, max))
}

/// How far from a point, in pixels, a press still grabs it: 16 px, or the
/// drawn disc's radius when zoomed in so far that the disc is larger (a
/// press on a visible disc grabs its point rather than panning).
fn pick_reach_px(point_radius_m: f32, pixels_per_metre: f32) -> f32 {
    PICK_RADIUS_PX.max(point_radius_m * pixels_per_metre)
}

/// Simulated seconds per real second: `steps_per_frame` steps of `dt`
/// seconds every `frame_s` seconds (0 before a frame has been timed).
fn realtime_factor(steps_per_frame: f64, dt: f64, frame_s: f64) -> f64 {
    if frame_s > 0.0 {
        steps_per_frame * dt / frame_s
    } else {
        0.0
    }
}

/// The `[` key: one substep fewer, at least 1.
fn fewer_substeps(n: u32) -> u32 {
    n.saturating_sub(1).max(1)
}

/// The `]` key: one substep more, up to what `Params` accepts (a scene may
/// come with more than the overlay's slider shows).
fn more_substeps(n: u32) -> u32 {
    (n + 1).min(crate::params::MAX_SUBSTEPS).max(n)
}

struct Running {
    window: Arc<Window>,
    instance: wgpu::Instance,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    view_format: wgpu::TextureFormat,
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter: String,
    renderer: Renderer,
    sim: Sim,
    timer: Option<GpuTimer>,
    egui_ctx: egui::Context,
    egui_state: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
    controls: Controls,
    clock: FixedStep,
    camera: Camera,
    cursor: Vec2,
    gesture: Gesture,
    middle_down: bool,
    /// Shapes asked for since the last frame (keys repeat faster than a
    /// re-upload on lavapipe: one upload per shape froze the window).
    spawns: Vec<(SpawnKind, Vec2)>,
    occluded: bool,
    last_frame: Instant,
    smoothed: Smoothed,
    stats: Stats,
    last_report: Instant,
    frames_since_report: u64,
    /// Frames drawn, for reading the sleeping count now and then.
    frames_drawn: u64,
}

impl Running {
    fn new(
        event_loop: &ActiveEventLoop,
        opts: &AppOptions,
        world: World,
    ) -> Result<Self, AppError> {
        let attrs = Window::default_attributes()
            .with_title("softbody")
            .with_inner_size(LogicalSize::new(opts.size.0, opts.size.1));
        let window = Arc::new(
            event_loop
                .create_window(attrs)
                .map_err(|e| AppError::Window(e.to_string()))?,
        );
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
                Box::new(event_loop.owned_display_handle()),
            ));
        let surface = instance
            .create_surface(Arc::clone(&window))
            .map_err(|e| AppError::Surface(e.to_string()))?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::from_env().unwrap_or_default(),
            compatible_surface: Some(&surface),
            ..Default::default()
        }))
        .map_err(|e| AppError::Surface(format!("no adapter for the window: {e}")))?;
        let (device, queue) = pollster::block_on(request_device(&adapter))?;
        let caps = surface.get_capabilities(&adapter);
        // Colours are written sRGB-encoded (as egui expects): draw through a
        // non-sRGB view of whatever the surface prefers.
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| !f.is_srgb())
            .or_else(|| caps.formats.first().copied())
            .ok_or_else(|| AppError::Surface("the surface supports no format".into()))?;
        let view_format = format.remove_srgb_suffix();
        let (width, height) = surface_size(
            window.inner_size(),
            device.limits().max_texture_dimension_2d,
        );
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width,
            height,
            present_mode: if opts.vsync {
                wgpu::PresentMode::AutoVsync
            } else {
                wgpu::PresentMode::AutoNoVsync
            },
            desired_maximum_frame_latency: 2,
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            color_space: Default::default(),
            view_formats: if view_format == format {
                vec![]
            } else {
                vec![view_format]
            },
        };
        surface.configure(&device, &config);

        let mut renderer = Renderer::new(&device, &queue, view_format, opts.msaa.max(1))?;
        let sim = Sim::new(&device, &queue, &mut renderer, world)?;
        let timer = GpuTimer::new(&device, &queue);
        let egui_ctx = egui::Context::default();
        // Soft shadows are many blended pixels; a software adapter pays
        // for each of them.
        egui_ctx.global_style_mut(|s| {
            s.visuals.window_shadow = egui::Shadow::NONE;
            s.visuals.popup_shadow = egui::Shadow::NONE;
        });
        let egui_state = egui_winit::State::new(
            egui_ctx.clone(),
            egui::ViewportId::ROOT,
            &window,
            Some(window.scale_factor() as f32),
            window.theme(),
            Some(device.limits().max_texture_dimension_2d as usize),
        );
        let egui_renderer = egui_wgpu::Renderer::new(
            &device,
            view_format,
            egui_wgpu::RendererOptions {
                msaa_samples: 1,
                ..Default::default()
            },
        );
        let params = sim.solver.params().clone();
        let camera = Camera::fit_world(&sim.world, (config.width, config.height));
        let mut draw = crate::render::DrawOptions::default();
        // Hundreds of bodies and more: springs and points are clutter at the
        // fitted zoom (keys 3 and 4 bring them back).
        if sim.solver.num_bodies() > 500 {
            draw.springs = false;
            draw.points = false;
        }
        let adapter = adapter_summary(&adapter);
        log::info!("window on {adapter}");
        Ok(Self {
            // One step per frame until a step has been timed.
            clock: FixedStep::new(params.dt as f64, 1),
            controls: Controls {
                paused: opts.paused,
                speed: 1.0,
                draw,
                scene_params: sim.initial.params.clone(),
                params,
                spawn: SpawnKind::Box,
                show_overlay: opts.overlay,
                step_once: false,
                reset: false,
                fit: false,
            },
            window,
            instance,
            surface,
            config,
            view_format,
            device,
            queue,
            adapter,
            renderer,
            sim,
            timer,
            egui_ctx,
            egui_state,
            egui_renderer,
            camera,
            cursor: Vec2::ZERO,
            gesture: Gesture::default(),
            middle_down: false,
            spawns: Vec::new(),
            occluded: false,
            last_frame: Instant::now(),
            smoothed: Smoothed::default(),
            stats: Stats::default(),
            last_report: Instant::now(),
            frames_since_report: 0,
            frames_drawn: 0,
        })
    }

    fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// Whether there is anything to draw into.
    fn drawable(&self) -> bool {
        let s = self.window.inner_size();
        !self.occluded && s.width > 0 && s.height > 0
    }

    fn resize(&mut self, size: PhysicalSize<u32>) {
        if size.width > 0 && size.height > 0 {
            (self.config.width, self.config.height) =
                surface_size(size, self.device.limits().max_texture_dimension_2d);
            self.surface.configure(&self.device, &self.config);
        }
    }

    /// A lost surface: make a new one for the same window.
    fn recreate_surface(&mut self) -> Result<(), AppError> {
        self.surface = self
            .instance
            .create_surface(Arc::clone(&self.window))
            .map_err(|e| AppError::Surface(e.to_string()))?;
        self.surface.configure(&self.device, &self.config);
        Ok(())
    }

    fn cursor_world(&self) -> Vec2 {
        self.camera.screen_to_world(self.cursor, self.size())
    }

    /// Runs a fallible edit; an error is shown in the overlay, not fatal.
    fn attempt(&mut self, what: &str, f: impl FnOnce(&mut Self) -> Result<(), AppError>) {
        match f(self) {
            Ok(()) => self.stats.last_error = None,
            Err(e) => {
                log::warn!("{what}: {e}");
                self.stats.last_error = Some(format!("{what}: {e}"));
            }
        }
    }

    /// Queues a shape at the cursor; the frame's controls add every queued
    /// shape with one readback and one upload.
    fn spawn(&mut self, kind: SpawnKind) {
        let at = self.cursor_world();
        self.spawns.push((kind, at));
    }

    fn fit(&mut self) {
        self.attempt("fit", |r| {
            let world = r.sim.current_world(&r.device, &r.queue)?;
            r.camera = Camera::fit_world(&world, r.size());
            Ok(())
        });
    }

    fn handle(&mut self, event: &WindowEvent) -> Handled {
        let egui = self.egui_state.on_window_event(&self.window, event);
        match event {
            WindowEvent::CloseRequested => return Handled::Exit,
            WindowEvent::Resized(size) => self.resize(*size),
            WindowEvent::Occluded(o) => self.occluded = *o,
            WindowEvent::KeyboardInput { event, .. }
                if !egui.consumed && !self.egui_ctx.egui_wants_keyboard_input() =>
            {
                return self.key(event);
            }
            WindowEvent::CursorMoved { position, .. } => {
                let p = Vec2::new(position.x as f32, position.y as f32);
                let delta = p - self.cursor;
                self.cursor = p;
                if self.gesture.busy() {
                    let pan = self.gesture.moved(delta);
                    self.camera.pan_pixels(pan);
                } else if self.middle_down {
                    self.camera.pan_pixels(delta);
                }
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let pressed = *state == ElementState::Pressed;
                match button {
                    MouseButton::Left if pressed && !egui.consumed => {
                        self.gesture.press(self.cursor_world());
                    }
                    MouseButton::Left if !pressed => self.gesture.release(),
                    MouseButton::Middle => self.middle_down = pressed && !egui.consumed,
                    MouseButton::Right if pressed && !egui.consumed => {
                        self.spawn(self.controls.spawn)
                    }
                    _ => {}
                }
            }
            WindowEvent::MouseWheel { delta, .. } if !egui.consumed => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => *y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 50.0,
                };
                let size = self.size();
                self.camera
                    .zoom_about(1.15f32.powf(lines), self.cursor, size);
            }
            _ => {}
        }
        Handled::Continue
    }

    fn key(&mut self, event: &KeyEvent) -> Handled {
        if event.state != ElementState::Pressed {
            return Handled::Continue;
        }
        let c = &mut self.controls;
        match &event.logical_key {
            Key::Named(NamedKey::Escape) => return Handled::Exit,
            Key::Named(NamedKey::Space) if !event.repeat => c.paused = !c.paused,
            Key::Character(s) => match s.to_lowercase().as_str() {
                "q" => return Handled::Exit,
                "n" | "." => c.step_once = true,
                "r" if !event.repeat => c.reset = true,
                "f" if !event.repeat => c.fit = true,
                "s" if !event.repeat => c.speed = if c.speed < 1.0 { 1.0 } else { 0.25 },
                "[" => c.params.substeps = fewer_substeps(c.params.substeps),
                "]" => c.params.substeps = more_substeps(c.params.substeps),
                "c" if !event.repeat => {
                    use crate::render::ColorMode;
                    c.draw.color = match c.draw.color {
                        ColorMode::Body => ColorMode::Speed,
                        ColorMode::Speed => ColorMode::Body,
                    }
                }
                "1" if !event.repeat => c.draw.fill = !c.draw.fill,
                "2" if !event.repeat => c.draw.outlines = !c.draw.outlines,
                "3" if !event.repeat => c.draw.springs = !c.draw.springs,
                "4" if !event.repeat => c.draw.points = !c.draw.points,
                "h" if !event.repeat => c.show_overlay = !c.show_overlay,
                // Each spawn re-uploads the world: once per press.
                "b" if !event.repeat => self.spawn(SpawnKind::Box),
                "w" if !event.repeat => self.spawn(SpawnKind::Wheel),
                "o" if !event.repeat => self.spawn(SpawnKind::Blob),
                "p" if !event.repeat => self.spawn(SpawnKind::Ship),
                _ => {}
            },
            _ => {}
        }
        Handled::Continue
    }

    fn on_pick(&mut self, result: Option<crate::render::PickResult>) {
        let reach = pick_reach_px(
            self.controls.draw.point_radius,
            self.camera.pixels_per_metre,
        );
        let near = result
            .filter(|r| r.dist2.sqrt() * self.camera.pixels_per_metre <= reach)
            .map(|r| r.point);
        let pan = self.gesture.picked(near);
        self.camera.pan_pixels(pan);
    }

    /// Applies what the overlay and the keys asked for.
    fn apply_controls(&mut self, pointer_down: bool) {
        if std::mem::take(&mut self.controls.reset) {
            self.attempt("reset", |r| {
                r.sim.reset(&r.device, &r.queue, &mut r.renderer)
            });
            self.clock.clear();
            self.gesture.cancel();
        }
        let spawns = std::mem::take(&mut self.spawns);
        if !spawns.is_empty() {
            self.attempt("spawn", |r| {
                r.sim.spawn(&r.device, &r.queue, &mut r.renderer, &spawns)
            });
        }
        if std::mem::take(&mut self.controls.fit) {
            self.fit();
        }
        self.clock.speed = self.controls.speed;
        self.stats.reupload_pending = false;
        let params = self.controls.params.clone();
        if params != *self.sim.solver.params() {
            if baked_params_differ(&params, self.sim.solver.params()) && pointer_down {
                // Re-uploading reads the state back: once, on release.
                self.stats.reupload_pending = true;
            } else {
                self.attempt("parameters", |r| {
                    r.sim
                        .set_params(&r.device, &r.queue, &mut r.renderer, params)
                });
                if self.stats.last_error.is_some() {
                    self.controls.params = self.sim.solver.params().clone();
                }
                self.clock.dt = self.sim.solver.params().dt as f64;
            }
        }
    }

    /// One frame. `Ok(false)` when nothing was presented.
    fn frame(&mut self) -> Result<bool, AppError> {
        let now = Instant::now();
        let elapsed = now.duration_since(self.last_frame).as_secs_f64();
        self.last_frame = now;
        if !self.drawable() {
            self.clock.clear();
            return Ok(false);
        }
        let _ = self.device.poll(wgpu::PollType::Poll);
        if let Some(r) = self.sim.picker.poll() {
            self.on_pick(r);
        }
        if let Some(t) = self.timer.as_mut().and_then(GpuTimer::poll) {
            self.record_sim(t.steps, t.sim_ms);
            smooth(&mut self.smoothed.draw_ms, t.draw_ms);
        }

        // The surface first: without one the frame is skipped and simulated
        // time stands still.
        let (frame, suboptimal) = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f) => (f, false),
            wgpu::CurrentSurfaceTexture::Suboptimal(f) => (f, true),
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                self.clock.clear();
                return Ok(false);
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.resize(self.window.inner_size());
                return Ok(false);
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                self.recreate_surface()?;
                return Ok(false);
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                log::warn!("surface validation error; skipping a frame");
                return Ok(false);
            }
        };

        // The overlay edits the controls; then the controls are applied.
        self.update_stats(elapsed);
        let raw = self.egui_state.take_egui_input(&self.window);
        let mut output = {
            let (controls, stats) = (&mut self.controls, &self.stats);
            self.egui_ctx
                .run_ui(raw, |ui| overlay::show(ui.ctx(), controls, stats))
        };
        self.egui_state
            .handle_platform_output(&self.window, output.platform_output);
        let pointer_down = self.egui_ctx.input(|i| i.pointer.any_down());
        self.apply_controls(pointer_down);

        // Simulation.
        let steps = if self.controls.paused {
            self.clock.clear();
            std::mem::take(&mut self.controls.step_once) as u32
        } else {
            self.controls.step_once = false;
            self.clock.advance(elapsed)
        };
        let drag = self.gesture.dragging().map(|p| (p, self.cursor_world()));
        let dt = self.sim.solver.params().dt;
        // A cursor off in NaN (a degenerate camera) drags nothing.
        if let Err(e) = self.sim.dragger.set(drag, dt) {
            log::warn!("drag: {e}");
        }
        // A dragged body is kept awake (asleep, it would ignore the pull).
        if let Some((p, _)) = drag {
            self.sim
                .solver
                .wake_point(&self.queue, crate::world::PointHandle(p));
        }
        let mut encoder = self.device.create_command_encoder(&Default::default());
        let timed = self.timer.as_mut().is_some_and(GpuTimer::begin_frame);
        if let Some(t) = &self.timer {
            t.sim_begin(&mut encoder);
        }
        let wall = Instant::now();
        for i in 0..steps {
            // The window rebinds the scene with every upload, so the
            // snapshot cannot be stale; if it were, the frame would draw
            // without interpolation.
            if i + 1 == steps
                && let Err(e) = self
                    .renderer
                    .snapshot_previous(&mut encoder, &self.sim.solver)
            {
                log::error!("{e}");
            }
            self.sim.dragger.record(&mut encoder);
            self.sim.solver.record_step(&mut encoder);
        }
        self.sim.time += steps as f64 * dt as f64;
        smooth(&mut self.smoothed.steps, steps as f64);
        if let Some(t) = &mut self.timer {
            t.sim_end(&mut encoder, steps);
        }
        if let Some(at) = self.gesture.pending_pick()
            && self.sim.picker.request(&mut encoder, at)
        {
            self.gesture.pick_sent();
        }
        if self.timer.is_none() {
            // No timestamp queries: time the steps by the wall clock, which
            // means waiting for them before drawing.
            self.queue.submit([std::mem::replace(
                &mut encoder,
                self.device.create_command_encoder(&Default::default()),
            )
            .finish()]);
            let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
            self.record_sim(steps, wall.elapsed().as_secs_f64() * 1e3);
        }

        // Drawing: the scene, then the overlay on top.
        let alpha = if self.controls.paused {
            1.0
        } else {
            self.clock.alpha()
        };
        let view = frame.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(self.view_format),
            ..Default::default()
        });
        let fv = FrameView {
            camera: self.camera,
            size: self.size(),
            alpha,
            drag,
        };
        let writes = self.timer.as_ref().and_then(GpuTimer::draw_writes);
        self.renderer
            .draw(&mut encoder, &view, &fv, &self.controls.draw, writes);
        if let Some(t) = &mut self.timer {
            t.end_frame(&mut encoder);
        }
        let ppp = output.pixels_per_point;
        let paint = self.egui_ctx.tessellate(output.shapes, ppp);
        for (id, deltas) in output.textures_delta.set.drain() {
            for delta in &deltas {
                self.egui_renderer
                    .update_texture(&self.device, &self.queue, id, delta);
            }
        }
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [self.config.width, self.config.height],
            pixels_per_point: ppp,
        };
        let extra = self.egui_renderer.update_buffers(
            &self.device,
            &self.queue,
            &mut encoder,
            &paint,
            &screen,
        );
        {
            let mut pass = encoder
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("softbody overlay"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: &view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Load,
                            store: wgpu::StoreOp::Store,
                        },
                    })],
                    depth_stencil_attachment: None,
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                })
                .forget_lifetime();
            self.egui_renderer.render(&mut pass, &paint, &screen);
        }
        for id in output.textures_delta.free.drain() {
            self.egui_renderer.free_texture(&id);
        }
        self.queue
            .submit(extra.into_iter().chain([encoder.finish()]));
        self.sim.picker.after_submit();
        if timed && let Some(t) = &mut self.timer {
            t.after_submit();
        }
        self.window.pre_present_notify();
        self.queue.present(frame);
        if suboptimal {
            self.resize(self.window.inner_size());
        }
        self.frames_since_report += 1;
        Ok(true)
    }

    /// A frame's simulation timing, into the smoothed statistics and the
    /// clock's step budget.
    fn record_sim(&mut self, steps: u32, ms: f64) {
        if let Some(step_ms) = self.smoothed.record_sim(steps, ms) {
            self.clock.set_step_cost(step_ms * 1e-3);
            self.stats.ms_per_step = step_ms;
        }
    }

    fn update_stats(&mut self, elapsed: f64) {
        smooth(&mut self.smoothed.frame_s, elapsed);
        // The sleeping count is a read-back (a wait for the GPU): twice a
        // second at 60 fps, not every frame.
        if self.frames_drawn.is_multiple_of(SLEEP_POLL_FRAMES) {
            self.stats.sleeping = self
                .sim
                .solver
                .read_sleeping_points(&self.device, &self.queue)
                .ok();
        }
        self.frames_drawn += 1;
        let s = &mut self.stats;
        let frame_s = self.smoothed.frame_s.unwrap_or(0.0);
        s.frame_ms = frame_s * 1e3;
        s.fps = if frame_s > 0.0 { 1.0 / frame_s } else { 0.0 };
        s.sim_ms = self.smoothed.sim_ms.unwrap_or(0.0);
        s.draw_ms = self.smoothed.draw_ms;
        s.timing = if self.timer.is_some() {
            "GPU timestamps"
        } else {
            "wall clock"
        };
        s.steps_per_frame = self.smoothed.steps.unwrap_or(0.0);
        s.max_steps = self.clock.max_steps();
        s.sim_time = self.sim.time;
        s.realtime = if self.controls.paused {
            0.0
        } else {
            realtime_factor(s.steps_per_frame, self.clock.dt, frame_s)
        };
        s.adapter.clone_from(&self.adapter);
        let w = &self.sim.world;
        s.bodies = w.bodies().len();
        s.points = w.points().len();
        s.springs = w.springs().len();
        s.planets = w.planets().len();
        s.planes = w.planes().len();
        s.gpu_mib = self.sim.solver.gpu_bytes() as f64 / (1 << 20) as f64;
        s.warnings.clone_from(&self.sim.warnings);
    }

    /// One line on stderr: the frame rate averaged since the last report,
    /// the smoothed timings and the scene.
    fn report(&mut self, presented: u64) {
        let seconds = self.last_report.elapsed().as_secs_f64();
        let fps = self.frames_since_report as f64 / seconds.max(1e-9);
        let s = &self.stats;
        eprintln!(
            "frame {presented}: {fps:.2} fps over {seconds:.1} s; simulation {:.1} ms/frame ({}; {:.2} steps/frame, {:.1} ms/step), drawing {}; t = {:.2} s ({:.2}x real time); {} bodies, {} points; {}x{} px; {}",
            s.sim_ms,
            s.timing,
            s.steps_per_frame,
            s.ms_per_step,
            s.draw_ms
                .map_or("n/a".to_string(), |d| format!("{d:.1} ms/frame")),
            s.sim_time,
            s.realtime,
            s.bodies,
            s.points,
            self.config.width,
            self.config.height,
            self.adapter
        );
        self.last_report = Instant::now();
        self.frames_since_report = 0;
    }

    fn maybe_report(&mut self, presented: u64) {
        if self.last_report.elapsed() >= Duration::from_secs(5) {
            self.report(presented);
        }
    }
}

/// Frames between two read-backs of the sleeping count.
const SLEEP_POLL_FRAMES: u64 = 30;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_surface_fits_the_device() {
        assert_eq!(surface_size(PhysicalSize::new(0, 0), 8192), (1, 1));
        assert_eq!(
            surface_size(PhysicalSize::new(16385, 100), 16384),
            (16384, 100)
        );
        assert_eq!(
            surface_size(PhysicalSize::new(1280, 800), 16384),
            (1280, 800)
        );
    }

    #[test]
    fn a_press_on_a_drawn_disc_grabs_its_point() {
        assert_eq!(pick_reach_px(0.03, 100.0), PICK_RADIUS_PX);
        // Zoomed in to 1,000 px/m, a 3 cm disc is 30 px across the radius.
        assert_eq!(pick_reach_px(0.03, 1000.0), 30.0);
    }

    #[test]
    fn a_paused_frame_counts_no_simulation_time() {
        let mut s = Smoothed::default();
        assert_eq!(s.record_sim(4, 20.0), Some(5.0));
        assert_eq!(s.sim_ms, Some(20.0));
        // Paused: the timer still measured something around no steps.
        for _ in 0..100 {
            assert_eq!(s.record_sim(0, 3.0), None);
        }
        assert!(s.sim_ms.unwrap() < 1e-3, "{:?}", s.sim_ms);
    }

    #[test]
    fn real_time_factor_counts_simulated_seconds_per_second() {
        // 60 fps, one 1/60 s step a frame: real time.
        assert!((realtime_factor(1.0, 1.0 / 60.0, 1.0 / 60.0) - 1.0).abs() < 1e-12);
        // 2 fps, capped at 3 steps of 1/60 s a frame: a tenth of real time.
        assert!((realtime_factor(3.0, 1.0 / 60.0, 0.5) - 0.1).abs() < 1e-12);
        assert_eq!(realtime_factor(1.0, 1.0 / 60.0, 0.0), 0.0);
    }

    #[test]
    fn substep_keys_stay_in_range_and_keep_a_scenes_count() {
        assert_eq!(fewer_substeps(1), 1);
        assert_eq!(fewer_substeps(8), 7);
        assert_eq!(more_substeps(8), 9);
        // A scene's 64 substeps: `]` raises them, it does not clamp them to 32.
        assert_eq!(more_substeps(64), 65);
        let max = crate::params::MAX_SUBSTEPS;
        assert_eq!(more_substeps(max), max);
    }
}
