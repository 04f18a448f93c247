//! Fixed timestep with an accumulator (Gaul 2013): real time goes in, whole
//! steps of `dt` come out, the remainder becomes the interpolation factor.

/// Fewest and most steps one frame may run (see [`FixedStep::set_step_cost`]).
pub const MAX_STEPS_RANGE: (u32, u32) = (1, 8);

/// The accumulator of Gaul 2013.
///
/// Each frame adds the real time elapsed (times [`speed`](Self::speed), for
/// slow motion) and takes out whole steps. The accumulator is clamped to
/// `max_steps * dt` before stepping: when the simulation cannot keep up, the
/// excess time is dropped (the simulation runs slower than real time) rather
/// than piling up into ever longer frames, the spiral of death. `max_steps`
/// follows the measured cost of a step so that one frame's steps fit in a
/// frame budget, but is at least 1 so the simulation always advances.
#[derive(Clone, Debug, PartialEq)]
pub struct FixedStep {
    /// Step length, s.
    pub dt: f64,
    /// Simulated seconds per real second (1 real time, below 1 slow motion).
    pub speed: f64,
    /// Unsimulated time, s, `0..dt` after [`advance`](Self::advance).
    accumulator: f64,
    max_steps: u32,
    /// Real time the steps of one frame may take, s.
    budget: f64,
}

impl FixedStep {
    /// A clock for steps of `dt` seconds, at most `max_steps` per frame
    /// until a step cost is measured.
    pub fn new(dt: f64, max_steps: u32) -> Self {
        Self {
            dt,
            speed: 1.0,
            accumulator: 0.0,
            max_steps: max_steps.clamp(MAX_STEPS_RANGE.0, MAX_STEPS_RANGE.1),
            budget: 0.025,
        }
    }

    /// Adds `elapsed` real seconds; returns how many steps to run now.
    pub fn advance(&mut self, elapsed: f64) -> u32 {
        self.accumulator += elapsed.max(0.0) * self.speed;
        // The spiral-of-death clamp.
        self.accumulator = self.accumulator.min(self.max_steps as f64 * self.dt);
        let steps = (self.accumulator / self.dt).floor() as u32;
        self.accumulator -= steps as f64 * self.dt;
        steps
    }

    /// How far the display is between the last two states, `0..1`: the
    /// accumulator over `dt`.
    pub fn alpha(&self) -> f32 {
        (self.accumulator / self.dt).clamp(0.0, 1.0) as f32
    }

    /// Forgets unsimulated time (after a pause, a reset, a hidden window).
    pub fn clear(&mut self) {
        self.accumulator = 0.0;
    }

    /// Most steps per frame now.
    pub fn max_steps(&self) -> u32 {
        self.max_steps
    }

    /// Tells the clock what a step costs in real time (s, e.g. measured
    /// with GPU timestamps): frames then run at most as many steps as fit
    /// in the budget, and at least one.
    pub fn set_step_cost(&mut self, seconds: f64) {
        if seconds.is_finite() && seconds > 0.0 {
            let fit = (self.budget / seconds).floor();
            self.max_steps = (fit as u32).clamp(MAX_STEPS_RANGE.0, MAX_STEPS_RANGE.1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_steps_come_out_and_the_remainder_is_alpha() {
        let mut c = FixedStep::new(0.01, 8);
        assert_eq!(c.advance(0.025), 2);
        assert!((c.alpha() - 0.5).abs() < 1e-6);
        assert_eq!(c.advance(0.004), 0);
        assert!((c.alpha() - 0.9).abs() < 1e-6);
        assert_eq!(c.advance(0.001), 1);
        assert!(c.alpha() < 1e-6);
    }

    #[test]
    fn a_long_frame_is_clamped_instead_of_spiralling() {
        let mut c = FixedStep::new(0.01, 4);
        assert_eq!(c.advance(10.0), 4);
        assert!(c.alpha() < 1e-6, "the excess time is dropped");
        // A step that costs 40 ms with a 25 ms budget: one step per frame.
        c.set_step_cost(0.04);
        assert_eq!(c.max_steps(), 1);
        assert_eq!(c.advance(10.0), 1);
        c.set_step_cost(0.001);
        assert_eq!(c.max_steps(), MAX_STEPS_RANGE.1);
    }

    /// A clock that goes back (or a NaN from one) adds no time: the
    /// accumulator must not go into debt and hold steps back afterwards.
    #[test]
    fn a_negative_frame_time_adds_nothing() {
        let mut c = FixedStep::new(0.01, 8);
        assert_eq!(c.advance(0.015), 1);
        let alpha = c.alpha();
        assert_eq!(c.advance(-1.0), 0);
        assert_eq!(c.advance(f64::NAN), 0);
        assert_eq!(c.alpha(), alpha);
        // The 5 ms left over and 6 more make a step (with a debt of 1 s
        // from the negative frame, they would make none for a while).
        assert_eq!(c.advance(0.006), 1);
    }

    #[test]
    fn slow_motion_scales_time() {
        let mut c = FixedStep::new(0.01, 8);
        c.speed = 0.25;
        let steps: u32 = (0..100).map(|_| c.advance(0.01)).sum();
        assert!((24..=25).contains(&steps), "{steps}");
    }
}
