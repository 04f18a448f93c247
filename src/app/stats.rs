//! The window's statistics: smoothed frame and step times, the real-time
//! factor, and the `--report` lines.

use super::*;

/// Exponentially smoothed statistics (`None` until the first sample).
#[derive(Default)]
pub(super) struct Smoothed {
    pub(super) frame_s: Option<f64>,
    pub(super) sim_ms: Option<f64>,
    pub(super) draw_ms: Option<f64>,
    pub(super) steps: Option<f64>,
}

pub(super) fn smooth(old: &mut Option<f64>, new: f64) {
    *old = Some(old.map_or(new, |o| o + 0.1 * (new - o)));
}

impl Smoothed {
    /// A frame's simulation: `steps` steps took `ms` milliseconds. Returns
    /// the cost of one step when any ran. A frame without steps (paused)
    /// counts as no simulation time, whatever the timer measured around
    /// nothing (the overlay does not keep showing the last running frame's).
    pub(super) fn record_sim(&mut self, steps: u32, ms: f64) -> Option<f64> {
        if steps == 0 {
            smooth(&mut self.sim_ms, 0.0);
            return None;
        }
        smooth(&mut self.sim_ms, ms);
        Some(ms / steps as f64)
    }
}

/// Simulated seconds per real second: `steps_per_frame` steps of `dt`
/// seconds every `frame_s` seconds (0 before a frame has been timed).
pub(super) fn realtime_factor(steps_per_frame: f64, dt: f64, frame_s: f64) -> f64 {
    if frame_s > 0.0 {
        steps_per_frame * dt / frame_s
    } else {
        0.0
    }
}

impl Running {
    /// A frame's simulation timing, into the smoothed statistics and the
    /// clock's step budget.
    pub(super) fn record_sim(&mut self, steps: u32, ms: f64) {
        if let Some(step_ms) = self.smoothed.record_sim(steps, ms) {
            self.clock.set_step_cost(step_ms * 1e-3);
            self.stats.ms_per_step = step_ms;
        }
    }

    pub(super) fn update_stats(&mut self, elapsed: f64) {
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
        let now = Instant::now();
        if overlay::refresh_shown(&mut self.shown, &self.stats, now - self.shown_at) {
            self.shown_at = now;
        }
    }

    /// One line on stderr: the frame rate averaged since the last report,
    /// the smoothed timings and the scene.
    pub(super) fn report(&mut self, presented: u64) {
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

    pub(super) fn maybe_report(&mut self, presented: u64) {
        if self.last_report.elapsed() >= Duration::from_secs(5) {
            self.report(presented);
        }
    }
}
