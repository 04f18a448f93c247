//! The window program (feature `window`): winit, wgpu and an egui overlay.
//!
//! Each frame: the elapsed real time goes into a [`FixedStep`] accumulator
//! (Gaul 2013), which says how many fixed steps to run; the steps are
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
mod follow;
mod gesture;
mod input;
mod lights;
mod overlay;
mod overlay_layer;
mod running;
pub mod sim;
mod stats;
mod timer;

use stats::*;

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
use overlay_layer::OverlayLayer;
use sim::{Sim, SpawnKind, baked_params_differ};
use timer::GpuTimer;

use crate::error::WorldError;
use crate::gpu::{SolverError, adapter_summary, instance_flags, request_device};
use crate::render::{Camera, FrameView, RenderError, Renderer};
use crate::scenes::{default_scene, default_scene_view};
use crate::world::World;

/// How the window starts.
#[derive(Clone, Debug)]
pub struct AppOptions {
    /// Bodies in the default scene. Default 20,000.
    pub bodies: usize,
    /// A world to show instead of the default scene.
    pub world: Option<World>,
    /// The box (world metres, `(min, max)`) the window shows first; `None`
    /// shows the whole world, as the F key does, except for the default
    /// scene, which opens on its middle basin
    /// ([`default_scene_view`]).
    pub view: Option<(glam::Vec2, glam::Vec2)>,
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
    /// A ship in `world` the arrow keys fly (`crate::ship`): up and down
    /// the main engine, left and right the side thrusters, Shift the belly
    /// engines. Default none.
    pub ship: Option<crate::ship::Ship>,
}

impl Default for AppOptions {
    fn default() -> Self {
        Self {
            bodies: 20_000,
            world: None,
            view: None,
            frames: None,
            size: (1280, 800),
            vsync: true,
            msaa: 1,
            overlay: true,
            paused: false,
            report: false,
            ship: None,
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
        None => {
            let world = default_scene(opts.bodies)?;
            opts.view = opts.view.or_else(|| default_scene_view(&world));
            world
        }
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
    overlay_layer: OverlayLayer,
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
    /// The statistics the overlay shows, and when they were last taken
    /// from `stats` ([`overlay::refresh_shown`]).
    shown: Stats,
    shown_at: Instant,
    last_report: Instant,
    frames_since_report: u64,
    /// Frames drawn, for reading the sleeping count now and then.
    frames_drawn: u64,
    /// The ship the keys fly, and which thrusters the keys hold.
    ship: Option<crate::ship::Ship>,
    thrusters: Thrusters,
    /// With the ship: bodies that begin touching flash.
    lights: Option<lights::Lights>,
    /// With the ship: the camera follows it.
    follow: follow::Follow,
}

/// The flight keys held down (arrows and Shift).
#[derive(Clone, Copy, Debug, Default)]
struct Thrusters {
    up: bool,
    down: bool,
    left: bool,
    right: bool,
    lift: bool,
}

impl Thrusters {
    /// The thrust the held keys ask for.
    fn thrust(&self) -> crate::ship::Thrust {
        let axis = |plus: bool, minus: bool| plus as i32 as f32 - minus as i32 as f32;
        crate::ship::Thrust {
            forward: axis(self.up, self.down),
            lift: axis(self.lift, false),
            turn: axis(self.left, self.right),
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
