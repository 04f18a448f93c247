//! The ship sample's chase camera: the centre of the ship's bodies read
//! back without waiting (their frames, a frame or two late,
//! `GpuSolver::request_frames`), and the camera eased toward it. On while
//! a ship is flown; `G` turns it on and off, and panning or fitting the
//! view turns it off.

use glam::Vec2;

use crate::gpu::{GpuSolver, Pending};
use crate::layout::BodyFrame;
use crate::render::Camera;
use crate::world::BodyHandle;

/// How long the camera takes to close `1 - 1/e` of its distance to the
/// ship, s: slow enough that a thruster's kick does not jolt the view.
pub const FOLLOW_TIME: f32 = 0.25;

/// The chase camera's state.
#[derive(Debug, Default)]
pub struct Follow {
    /// Whether the camera follows the ship.
    pub on: bool,
    /// The frames asked for and not back yet.
    pending: Option<Pending<BodyFrame>>,
    /// The ship's centre as last read back, m.
    target: Option<Vec2>,
}

impl Follow {
    /// Following from the start.
    pub fn new() -> Self {
        Self {
            on: true,
            ..Self::default()
        }
    }

    /// Turns following on or off; off forgets the target, so that turning
    /// it on again glides from where the ship is then.
    pub fn set(&mut self, on: bool) {
        self.on = on;
        if !on {
            self.target = None;
        }
    }

    /// Takes the frames asked for earlier if they are back; never waits.
    pub fn collect(&mut self, device: &wgpu::Device) {
        if let Some(p) = &mut self.pending
            && let Some(r) = p.poll(device)
        {
            self.pending = None;
            match r {
                Ok(frames) if self.on => self.target = centre(&frames).or(self.target),
                Ok(_) => {}
                Err(e) => log::warn!("follow: {e}"),
            }
        }
    }

    /// Asks for the frames of `bodies` as the steps recorded in `encoder`
    /// leave them, when following and none are on their way.
    pub fn request(
        &mut self,
        solver: &GpuSolver,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        bodies: &[BodyHandle],
    ) {
        if !self.on || self.pending.is_some() {
            return;
        }
        match solver.request_frames(device, encoder, bodies) {
            Ok(p) => self.pending = Some(p),
            Err(e) => {
                log::warn!("follow: {e}");
                self.set(false);
            }
        }
    }

    /// Moves the camera `dt` seconds toward the ship (see
    /// [`FOLLOW_TIME`]); nothing when off or before the first readback.
    pub fn ease(&self, camera: &mut Camera, dt: f32) {
        if let (true, Some(t)) = (self.on, self.target) {
            camera.center += (t - camera.center) * ease_fraction(dt);
        }
    }
}

/// The share of the distance the camera closes in `dt` seconds.
fn ease_fraction(dt: f32) -> f32 {
    if dt > 0.0 {
        1.0 - (-dt / FOLLOW_TIME).exp()
    } else {
        0.0
    }
}

/// The mean of the frames' centroids, or `None` without a finite one.
fn centre(frames: &[BodyFrame]) -> Option<Vec2> {
    let finite: Vec<Vec2> = frames
        .iter()
        .map(|f| Vec2::from(f.centroid))
        .filter(|c| c.is_finite())
        .collect();
    (!finite.is_empty()).then(|| finite.iter().sum::<Vec2>() / finite.len() as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(x: f32, y: f32) -> BodyFrame {
        BodyFrame {
            centroid: [x, y],
            ..Default::default()
        }
    }

    #[test]
    fn the_target_is_the_mean_of_the_finite_centroids() {
        let frames = [frame(1.0, 2.0), frame(3.0, 4.0), frame(f32::NAN, 0.0)];
        assert_eq!(centre(&frames), Some(Vec2::new(2.0, 3.0)));
        assert_eq!(centre(&[frame(f32::INFINITY, 0.0)]), None);
        assert_eq!(centre(&[]), None);
    }

    #[test]
    fn the_camera_closes_on_the_ship_at_the_follow_time_only_when_on() {
        let mut f = Follow::new();
        let mut camera = Camera::default();
        // Nothing read back yet: the camera stays.
        f.ease(&mut camera, 0.1);
        assert_eq!(camera.center, Vec2::ZERO);
        f.target = Some(Vec2::new(10.0, 0.0));
        f.ease(&mut camera, FOLLOW_TIME);
        let closed = camera.center.x / 10.0;
        assert!((closed - (1.0 - (-1.0f32).exp())).abs() < 1e-6, "{closed}");
        // Two half steps close as much as one whole one.
        let mut halves = Camera::default();
        f.ease(&mut halves, FOLLOW_TIME / 2.0);
        f.ease(&mut halves, FOLLOW_TIME / 2.0);
        assert!((halves.center.x - camera.center.x).abs() < 1e-5);
        // Paused (no time) or off: it stays.
        let at = camera.center;
        f.ease(&mut camera, 0.0);
        assert_eq!(camera.center, at);
        f.set(false);
        f.target = Some(Vec2::new(10.0, 0.0));
        f.ease(&mut camera, 1.0);
        assert_eq!(camera.center, at);
    }
}
