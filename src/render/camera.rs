//! Where the view looks: a centre in metres and a zoom in pixels per metre.

use glam::Vec2;

use crate::world::World;

/// A 2-D camera. Screen pixels have their origin at the top left with y
/// down; the world is y up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// World point at the centre of the target, m.
    pub center: Vec2,
    /// Zoom, pixels per metre, `> 0`.
    pub pixels_per_metre: f32,
}

impl Default for Camera {
    fn default() -> Self {
        Self {
            center: Vec2::ZERO,
            pixels_per_metre: 20.0,
        }
    }
}

/// Smallest and largest zoom the camera accepts, pixels per metre.
pub const ZOOM_RANGE: (f32, f32) = (0.01, 1.0e5);

impl Camera {
    /// The margin [`Camera::fit_world`] leaves on each side, a fraction of
    /// the target.
    pub const FIT_MARGIN: f32 = 0.03;

    /// A camera showing the box `min..max` whole in a target of `size`
    /// pixels, with `margin` (a fraction of the target, e.g. `0.05`) free on
    /// each side; a margin outside `0..=0.45` (or NaN) is taken as the
    /// nearest of those (0 for NaN).
    pub fn fit(min: Vec2, max: Vec2, size: (u32, u32), margin: f32) -> Self {
        let margin = if margin.is_nan() {
            0.0
        } else {
            margin.clamp(0.0, 0.45)
        };
        let extent = (max - min).max(Vec2::splat(1e-3));
        let usable = Vec2::new(size.0.max(1) as f32, size.1.max(1) as f32) * (1.0 - 2.0 * margin);
        let ppm = (usable / extent).min_element();
        Self {
            center: (min + max) * 0.5,
            pixels_per_metre: ppm.clamp(ZOOM_RANGE.0, ZOOM_RANGE.1),
        }
    }

    /// A camera showing the whole world ([`scene_bounds`]), or the default
    /// camera for an empty world.
    pub fn fit_world(world: &World, size: (u32, u32)) -> Self {
        match scene_bounds(world) {
            Some((min, max)) => Self::fit(min, max, size, Self::FIT_MARGIN),
            None => Self::default(),
        }
    }

    /// The world point under a pixel position.
    pub fn screen_to_world(&self, px: Vec2, size: (u32, u32)) -> Vec2 {
        let half = Vec2::new(size.0 as f32, size.1 as f32) * 0.5;
        let d = (px - half) / self.pixels_per_metre;
        self.center + Vec2::new(d.x, -d.y)
    }

    /// The pixel position of a world point.
    pub fn world_to_screen(&self, p: Vec2, size: (u32, u32)) -> Vec2 {
        let half = Vec2::new(size.0 as f32, size.1 as f32) * 0.5;
        let d = (p - self.center) * self.pixels_per_metre;
        half + Vec2::new(d.x, -d.y)
    }

    /// Zooms by `factor` keeping the world point under the pixel `px` fixed;
    /// a factor that is not finite and positive, or a pixel that is not
    /// finite, changes nothing.
    pub fn zoom_about(&mut self, factor: f32, px: Vec2, size: (u32, u32)) {
        if !(factor.is_finite() && factor > 0.0 && px.is_finite()) {
            return;
        }
        let anchor = self.screen_to_world(px, size);
        self.pixels_per_metre = (self.pixels_per_metre * factor).clamp(ZOOM_RANGE.0, ZOOM_RANGE.1);
        let moved = self.screen_to_world(px, size);
        self.center += anchor - moved;
    }

    /// Moves the view so that the world follows a drag of `delta` pixels
    /// (a non-finite delta changes nothing).
    pub fn pan_pixels(&mut self, delta: Vec2) {
        if delta.is_finite() {
            self.center -= Vec2::new(delta.x, -delta.y) / self.pixels_per_metre;
        }
    }

    /// Whether the camera can draw: a finite centre and a finite zoom
    /// above 0 (the fields are public; [`Camera::fit`] and
    /// [`Camera::zoom_about`] keep it so).
    pub fn check(&self) -> Result<(), String> {
        if !self.center.is_finite() {
            return Err(format!("centre {} is not finite", self.center));
        }
        if !(self.pixels_per_metre.is_finite() && self.pixels_per_metre > 0.0) {
            return Err(format!(
                "pixels_per_metre {} is not finite and above 0",
                self.pixels_per_metre
            ));
        }
        Ok(())
    }
}

/// The box around every point and planet of a world (half-planes are
/// unbounded and left out), or `None` when there is neither.
pub fn scene_bounds(world: &World) -> Option<(Vec2, Vec2)> {
    world.bounds(|_| true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screen_and_world_round_trip() {
        let cam = Camera {
            center: Vec2::new(3.0, -2.0),
            pixels_per_metre: 40.0,
        };
        let size = (800, 600);
        assert_eq!(
            cam.world_to_screen(cam.center, size),
            Vec2::new(400.0, 300.0)
        );
        let p = Vec2::new(4.5, 1.25);
        let back = cam.screen_to_world(cam.world_to_screen(p, size), size);
        assert!(back.distance(p) < 1e-4);
        // y up in the world is y down on screen.
        assert!(cam.world_to_screen(cam.center + Vec2::Y, size).y < 300.0);
    }

    #[test]
    fn zoom_keeps_the_point_under_the_cursor() {
        let mut cam = Camera::default();
        let size = (640, 480);
        let px = Vec2::new(100.0, 50.0);
        let before = cam.screen_to_world(px, size);
        cam.zoom_about(1.7, px, size);
        assert!(cam.screen_to_world(px, size).distance(before) < 1e-4);
        assert!((cam.pixels_per_metre - 34.0).abs() < 1e-4);
    }

    #[test]
    fn pan_moves_the_world_with_the_mouse() {
        let mut cam = Camera::default();
        let size = (640, 480);
        let p = Vec2::new(1.0, 1.0);
        let before = cam.world_to_screen(p, size);
        cam.pan_pixels(Vec2::new(30.0, -12.0));
        let after = cam.world_to_screen(p, size);
        assert!((after - before - Vec2::new(30.0, -12.0)).length() < 1e-3);
    }

    #[test]
    fn fit_shows_the_whole_box() {
        let cam = Camera::fit(
            Vec2::new(-10.0, 0.0),
            Vec2::new(30.0, 10.0),
            (400, 400),
            0.0,
        );
        assert_eq!(cam.center, Vec2::new(10.0, 5.0));
        assert_eq!(cam.pixels_per_metre, 10.0);
    }
}
