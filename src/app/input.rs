//! The window's input: mouse and keys.

use super::*;

impl Running {
    pub(super) fn handle(&mut self, event: &WindowEvent) -> Handled {
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
                // Panning takes the camera from the ship.
                if self.gesture.busy() {
                    let pan = self.gesture.moved(delta);
                    if pan != Vec2::ZERO {
                        self.follow.set(false);
                    }
                    self.camera.pan_pixels(pan);
                } else if self.middle_down {
                    self.follow.set(false);
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

    pub(super) fn key(&mut self, event: &KeyEvent) -> Handled {
        if self.ship.is_some() {
            let held = event.state == ElementState::Pressed;
            let t = &mut self.thrusters;
            let key = match &event.logical_key {
                Key::Named(NamedKey::ArrowUp) => Some(&mut t.up),
                Key::Named(NamedKey::ArrowDown) => Some(&mut t.down),
                Key::Named(NamedKey::ArrowLeft) => Some(&mut t.left),
                Key::Named(NamedKey::ArrowRight) => Some(&mut t.right),
                Key::Named(NamedKey::Shift) => Some(&mut t.lift),
                _ => None,
            };
            if let Some(k) = key {
                *k = held;
                return Handled::Continue;
            }
        }
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
                "g" if !event.repeat && self.ship.is_some() => {
                    self.follow.set(!self.follow.on);
                }
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

    pub(super) fn on_pick(&mut self, result: Option<crate::render::PickResult>) {
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
}
