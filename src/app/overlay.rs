//! The egui overlay: numbers, toggles and parameter sliders. It edits
//! [`Controls`]; the frame loop applies what changed.

use egui::{Context, RichText, Slider, SliderClamping, emath::Numeric};

use super::sim::SpawnKind;
use crate::params::{MAX_CONTACT_ITERATIONS, Params};
use crate::render::{ColorMode, DrawOptions};

/// Everything the user can change, in the overlay or with keys.
#[derive(Clone, Debug, PartialEq)]
pub struct Controls {
    pub paused: bool,
    /// Simulated seconds per real second.
    pub speed: f64,
    pub draw: DrawOptions,
    /// Parameters as edited; applied by the frame loop.
    pub params: Params,
    /// The parameters the scene came with, which the overlay's "Scene
    /// parameters" button restores (the default scene's are not
    /// [`Params::default`]: its bodies are stiffer and its contacts get two
    /// passes, `crate::scenes::default_scene`).
    pub scene_params: Params,
    pub spawn: SpawnKind,
    pub show_overlay: bool,
    /// One-shot requests, cleared by the frame loop.
    pub step_once: bool,
    pub reset: bool,
    pub fit: bool,
}

/// What the overlay shows.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub fps: f64,
    pub frame_ms: f64,
    /// Simulation time per frame, ms, and how it was measured.
    pub sim_ms: f64,
    pub draw_ms: Option<f64>,
    pub timing: &'static str,
    /// Steps per frame (average) and the most allowed now.
    pub steps_per_frame: f64,
    pub max_steps: u32,
    pub ms_per_step: f64,
    pub sim_time: f64,
    /// Simulated seconds per real second (smoothed). Below the speed
    /// setting when the frame's step budget caps the steps: slow motion
    /// then changes nothing until it asks for less than this.
    pub realtime: f64,
    pub adapter: String,
    pub bodies: usize,
    pub points: usize,
    pub springs: usize,
    pub planets: usize,
    pub planes: usize,
    pub gpu_mib: f64,
    /// Points asleep, as last read back.
    pub sleeping: Option<usize>,
    pub warnings: Vec<String>,
    pub last_error: Option<String>,
    /// A re-upload is waiting for the mouse button to be released.
    pub reupload_pending: bool,
}

/// How long the overlay keeps showing the same numbers. Numbers that
/// change every frame cannot be read, and an overlay that changes every
/// frame is drawn again every frame (`overlay_layer`).
pub const OVERLAY_STATS_PERIOD: std::time::Duration = std::time::Duration::from_millis(250);

/// Takes the statistics `live` into `shown` when `since` (the time since
/// they were last taken) reaches [`OVERLAY_STATS_PERIOD`], or at once
/// when a message changed (a warning, an error, a re-upload waiting).
/// Returns whether it took them.
pub fn refresh_shown(shown: &mut Stats, live: &Stats, since: std::time::Duration) -> bool {
    let messages = shown.warnings != live.warnings
        || shown.last_error != live.last_error
        || shown.reupload_pending != live.reupload_pending;
    if messages || since >= OVERLAY_STATS_PERIOD {
        shown.clone_from(live);
        return true;
    }
    false
}

/// The keys, for the overlay's help and the README.
pub const CONTROLS_HELP: &[(&str, &str)] = &[
    ("left drag on a point", "drag it through a spring"),
    ("left drag elsewhere, middle drag", "pan"),
    ("wheel", "zoom around the cursor"),
    ("right click", "spawn the selected shape at the cursor"),
    (
        "B / W / O / P",
        "spawn a box / wheel / blob / ship at the cursor",
    ),
    (
        "arrows, Shift",
        "ship sample: main engine, side thrusters, belly engines",
    ),
    (
        "G",
        "ship sample: the camera follows the ship (on at the start; panning or fitting turns it off)",
    ),
    ("Space", "pause / resume"),
    ("N or .", "single step (paused)"),
    ("R", "reset"),
    ("F", "fit the scene in the window"),
    ("S", "slow motion on / off (1/4 speed)"),
    ("[ and ]", "fewer / more substeps"),
    ("C", "colour by body / by speed"),
    ("1 2 3 4", "toggle fill / outlines / springs / points"),
    ("H", "hide / show this overlay"),
    ("Esc or Q", "quit"),
];

/// A slider over `range` that keeps a value set outside it. The ranges are
/// what is handy to drag through, not what `Params` accepts: a scene with
/// 64 substeps or a friction of 200 1/s must not be clamped to the slider
/// just by being shown (egui clamps existing values by default).
fn slider<'a, N: Numeric>(value: &'a mut N, range: std::ops::RangeInclusive<N>) -> Slider<'a> {
    Slider::new(value, range).clamping(SliderClamping::Edits)
}

fn log_slider<'a>(
    value: &'a mut f32,
    range: std::ops::RangeInclusive<f32>,
    text: &str,
) -> Slider<'a> {
    slider(value, range).logarithmic(true).text(text)
}

/// The overlay window's id.
const OVERLAY: &str = "softbody overlay";

/// Draws the overlay.
pub fn show(ctx: &Context, c: &mut Controls, s: &Stats) {
    if !c.show_overlay {
        return;
    }
    egui::Window::new("softbody")
        .id(egui::Id::unique(OVERLAY))
        .default_pos([10.0, 10.0])
        .default_width(300.0)
        // Not narrower, even after the window was: egui sizes a window to
        // its wrapped contents, so one squeezed by a tiny window would
        // otherwise stay squeezed when the window grows again.
        .min_width(300.0)
        .resizable(false)
        .show(ctx, |ui| {
            ui.label(
                RichText::new(format!("{:.1} fps  ({:.1} ms/frame)", s.fps, s.frame_ms)).strong(),
            );
            ui.label(format!(
                "simulation {:.2} ms/frame ({}), {:.2} steps/frame (max {}), {:.2} ms/step",
                s.sim_ms, s.timing, s.steps_per_frame, s.max_steps, s.ms_per_step
            ));
            if let Some(d) = s.draw_ms {
                ui.label(format!("drawing {d:.2} ms/frame (GPU timestamps)"));
            }
            ui.label(if c.paused {
                format!("t = {:.2} s  (paused)", s.sim_time)
            } else {
                format!(
                    "t = {:.2} s, {:.2}x real time (speed {:.2})",
                    s.sim_time, s.realtime, c.speed
                )
            });
            ui.label(format!(
                "{} bodies, {} points, {} springs, {} planets, {} half-planes, {:.1} MiB",
                s.bodies, s.points, s.springs, s.planets, s.planes, s.gpu_mib
            ));
            if let Some(n) = s.sleeping {
                ui.label(format!("{n} of {} points asleep", s.points));
            }
            ui.label(RichText::new(&s.adapter).small());
            for w in &s.warnings {
                ui.colored_label(egui::Color32::from_rgb(255, 180, 60), w);
            }
            if let Some(e) = &s.last_error {
                ui.colored_label(egui::Color32::from_rgb(255, 90, 90), e);
            }

            ui.separator();
            ui.horizontal(|ui| {
                if ui
                    .button(if c.paused { "Resume" } else { "Pause" })
                    .clicked()
                {
                    c.paused = !c.paused;
                }
                if ui.button("Step").clicked() {
                    c.step_once = true;
                }
                if ui.button("Reset").clicked() {
                    c.reset = true;
                }
                if ui.button("Fit").clicked() {
                    c.fit = true;
                }
            });
            // Closed by default: on a software adapter every widget drawn
            // costs frame time.
            egui::CollapsingHeader::new("Settings")
                .default_open(false)
                .show(ui, |ui| {
                    ui.add(
                        slider(&mut c.speed, 0.05..=2.0)
                            .logarithmic(true)
                            .text("speed (slow motion)"),
                    );
                    ui.add(slider(&mut c.params.substeps, 1..=32).text("substeps"));

                    ui.separator();
                    ui.horizontal(|ui| {
                        ui.checkbox(&mut c.draw.fill, "fill");
                        ui.checkbox(&mut c.draw.outlines, "outlines");
                        ui.checkbox(&mut c.draw.springs, "springs");
                        ui.checkbox(&mut c.draw.points, "points");
                    });
                    ui.horizontal(|ui| {
                        ui.label("colour by");
                        ui.radio_value(&mut c.draw.color, ColorMode::Body, "body");
                        ui.radio_value(&mut c.draw.color, ColorMode::Speed, "speed");
                    });
                    // Lengths and speeds in the scene's unit.
                    let (u, len) = (c.params.length_unit, c.params.length_symbol());
                    if c.draw.color == ColorMode::Speed {
                        ui.add(
                            slider(&mut c.draw.max_speed, u..=50.0 * u)
                                .text(format!("red at {len}/s")),
                        );
                    }
                    ui.horizontal(|ui| {
                        ui.label("right click spawns");
                        for k in SpawnKind::ALL {
                            ui.radio_value(&mut c.spawn, k, k.name());
                        }
                    });

                    ui.separator();
                    let p = &mut c.params;
                    ui.label("Live (GpuSolver::set_params):");
                    ui.add(
                        slider(&mut p.gravity.x, -20.0 * u..=20.0 * u)
                            .text(format!("gravity x, {len}/s²")),
                    );
                    ui.add(
                        slider(&mut p.gravity.y, -30.0 * u..=30.0 * u)
                            .text(format!("gravity y, {len}/s²")),
                    );
                    if p.body_collisions {
                        ui.add(
                            slider(&mut p.contact_iterations, 1..=MAX_CONTACT_ITERATIONS)
                                .text("contact passes per substep"),
                        );
                        ui.add(
                            slider(&mut p.contact_relax_iterations, 0..=MAX_CONTACT_ITERATIONS)
                                .text("relax passes per substep"),
                        );
                    }
                    ui.add(
                        slider(&mut p.restitution_threshold, 0.0..=5.0 * u)
                            .text(format!("restitution threshold, {len}/s")),
                    );
                    ui.add(
                        slider(&mut p.push_speed, 0.1 * u..=20.0 * u)
                            .text(format!("push out of colliders at, {len}/s")),
                    );
                    ui.add(
                        slider(&mut p.sleep_speed, 0.0..=0.5 * u)
                            .text(format!("sleep below, {len}/s (0: never)")),
                    );
                    ui.add(
                        slider(&mut p.wake_speed, 0.0..=10.0 * u)
                            .text(format!("wake above, {len}/s")),
                    );
                    ui.label("Baked into items; re-uploaded on release:");
                    ui.add(slider(&mut p.elasticity, 0.0..=1.0).text("elasticity"));
                    ui.add(slider(&mut p.static_friction, 0.0..=2.0).text("static friction"));
                    ui.add(slider(&mut p.dynamic_friction, 0.0..=2.0).text("dynamic friction"));
                    ui.add(log_slider(
                        &mut p.friction,
                        0.0..=100.0,
                        "viscous friction, 1/s",
                    ));
                    ui.add(log_slider(
                        &mut p.spring_stiffness,
                        0.0..=50_000.0,
                        "spring stiffness, N/m",
                    ));
                    ui.add(log_slider(
                        &mut p.spring_damping,
                        0.0..=100.0,
                        "spring damping, 1/s",
                    ));
                    // Shape matching as a frequency and damping ratio,
                    // written back only when moved (the round trip
                    // through the square root is not exact).
                    let shape = p.shape_frequency();
                    let mut f = shape;
                    ui.add(log_slider(&mut f.hz, 0.0..=60.0, "body frequency, Hz"));
                    ui.add(slider(&mut f.damping_ratio, 0.0..=2.0).text("body damping ratio"));
                    if f != shape {
                        p.set_shape_frequency(f);
                    }
                    let area = p.area_frequency();
                    let mut hz = area;
                    ui.add(log_slider(&mut hz, 0.0..=60.0, "area frequency, Hz"));
                    if hz != area {
                        p.set_area_frequency(hz);
                    }
                    if s.reupload_pending {
                        ui.label(RichText::new("re-upload on release...").italics());
                    }
                    if ui.button("Scene parameters").clicked() {
                        *p = c.scene_params.clone();
                    }
                });
            ui.collapsing("Controls", |ui| {
                egui::Grid::new("keys").striped(true).show(ui, |ui| {
                    for (k, what) in CONTROLS_HELP {
                        ui.label(RichText::new(*k).monospace());
                        ui.label(*what);
                        ui.end_row();
                    }
                });
            });
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The controls as a scene starts, the overlay shown.
    fn controls() -> Controls {
        Controls {
            paused: false,
            speed: 1.0,
            draw: DrawOptions::default(),
            params: Params::default(),
            scene_params: Params::default(),
            spawn: SpawnKind::Box,
            show_overlay: true,
            step_once: false,
            reset: false,
            fit: false,
        }
    }

    /// egui's input for a screen of `w` x `h` points.
    fn screen(w: f32, h: f32) -> egui::RawInput {
        egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(w, h),
            )),
            ..egui::RawInput::default()
        }
    }

    /// Showing a slider leaves a value outside its range as it is.
    #[test]
    fn a_slider_keeps_a_value_outside_its_range() {
        let ctx = Context::default();
        let (mut substeps, mut friction) = (64u32, 200.0f32);
        for _ in 0..2 {
            let mut out = ctx.run_ui(egui::RawInput::default(), |ui| {
                ui.add(slider(&mut substeps, 1..=32));
                ui.add(log_slider(&mut friction, 0.0..=100.0, "friction"));
            });
            // No renderer here to take the font atlas.
            out.textures_delta.clear();
        }
        assert_eq!((substeps, friction), (64, 200.0));
    }

    #[test]
    fn shown_numbers_wait_for_the_period_and_messages_do_not() {
        let mut shown = Stats::default();
        let mut live = Stats {
            fps: 30.0,
            ..Stats::default()
        };
        let soon = OVERLAY_STATS_PERIOD / 2;
        assert!(!refresh_shown(&mut shown, &live, soon));
        assert_eq!(shown.fps, 0.0);
        assert!(refresh_shown(&mut shown, &live, OVERLAY_STATS_PERIOD));
        assert_eq!(shown.fps, 30.0);
        live.fps = 31.0;
        live.last_error = Some("upload: bad".into());
        assert!(refresh_shown(&mut shown, &live, soon));
        assert_eq!(
            (shown.fps, shown.last_error.as_deref()),
            (31.0, Some("upload: bad"))
        );
    }

    /// With nothing changed, the overlay's meshes are the same frame after
    /// frame, so its layer is drawn once and then only composited
    /// (`overlay_layer`).
    #[test]
    fn an_unchanged_overlay_paints_the_same_meshes() {
        let ctx = Context::default();
        let mut c = controls();
        let stats = Stats {
            fps: 24.5,
            adapter: "llvmpipe".into(),
            ..Stats::default()
        };
        // Frames 1/10 s apart: egui's fades are over by the last two.
        let input = |frame: u32| egui::RawInput {
            time: Some(0.1 * frame as f64),
            ..screen(1280.0, 800.0)
        };
        let mut frames = Vec::new();
        for frame in 0..6 {
            let mut out = ctx.run_ui(input(frame), |ui| show(ui.ctx(), &mut c, &stats));
            out.textures_delta.clear();
            frames.push(ctx.tessellate(out.shapes, out.pixels_per_point));
        }
        let (last, before) = (&frames[5], &frames[4]);
        assert!(!last.is_empty());
        assert!(super::super::overlay_layer::same_meshes(before, last));
        let changed = Stats {
            fps: 25.0,
            ..stats.clone()
        };
        let mut out = ctx.run_ui(input(6), |ui| show(ui.ctx(), &mut c, &changed));
        out.textures_delta.clear();
        let after = ctx.tessellate(out.shapes, out.pixels_per_point);
        assert!(!super::super::overlay_layer::same_meshes(last, &after));
    }

    /// The window's width with the screen at `w` x `h` points, after a
    /// few frames (egui sizes a window over two passes).
    fn overlay_width(ctx: &Context, c: &mut Controls, w: f32, h: f32) -> f32 {
        let stats = Stats {
            adapter: "llvmpipe (LLVM 15.0.6, 256 bits) on Vulkan (Cpu)".into(),
            ..Stats::default()
        };
        for _ in 0..4 {
            let mut out = ctx.run_pass(screen(w, h), |ctx| show(ctx, c, &stats));
            out.textures_delta.clear();
        }
        ctx.memory(|m| m.area_rect(egui::Id::unique(OVERLAY)))
            .expect("the overlay was shown")
            .width()
    }

    /// A window shrunk to one pixel and grown again gets its overlay back
    /// at full width, not as narrow as the pixel had made it (every label
    /// wrapped a word to a line).
    #[test]
    fn the_overlay_regains_its_width_after_a_tiny_window() {
        let ctx = Context::default();
        let mut c = controls();
        let before = overlay_width(&ctx, &mut c, 1280.0, 720.0);
        assert!(before >= 250.0, "{before}");
        overlay_width(&ctx, &mut c, 1.0, 1.0);
        let after = overlay_width(&ctx, &mut c, 1280.0, 720.0);
        assert!(after >= before - 1.0, "{before} before, {after} after");
    }
}
