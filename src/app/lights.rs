//! The ship sample's lights: bodies named by a contact event that began
//! flash white and fade back to their colour (`Renderer::set_body_colors`),
//! from the events collected a frame later without waiting.

use crate::events::{ContactEvents, ContactKind};
use crate::gpu::PendingEvents;

/// How long a flash takes to fade, s.
pub const FLASH: f32 = 0.6;

/// Which bodies are lit and for how much longer, and the events asked for
/// but not yet back.
#[derive(Default)]
pub(super) struct Lights {
    pub pending: Option<PendingEvents>,
    /// Seconds of flash left, per body.
    lit: Vec<f32>,
    /// Whether the colours last written had a body lit.
    shown: bool,
}

impl Lights {
    /// Lights the two bodies of every contact that began, and the body of
    /// every landing on a planet or half-plane, for `bodies` bodies (a
    /// count that changed starts every body dark).
    pub fn light(&mut self, events: &ContactEvents, bodies: usize) {
        if self.lit.len() != bodies {
            self.lit = vec![0.0; bodies];
        }
        let pairs = events
            .events
            .iter()
            .filter(|e| e.kind == ContactKind::Begin)
            .flat_map(|e| [e.bodies.0, e.bodies.1]);
        let landings = events
            .colliders
            .iter()
            .filter(|e| e.kind == ContactKind::Begin)
            .map(|e| e.body);
        for b in pairs.chain(landings) {
            if let Some(l) = self.lit.get_mut(b.index()) {
                *l = FLASH;
            }
        }
    }

    /// The colours to draw after `dt` more seconds, from the bodies' own
    /// `base` colours: `None` when nothing is lit, nor was last time.
    pub fn colors(&mut self, base: &[u32], dt: f32) -> Option<Vec<u32>> {
        if self.lit.len() != base.len() {
            self.lit = vec![0.0; base.len()];
        }
        for l in &mut self.lit {
            *l = (*l - dt).max(0.0);
        }
        let any = self.lit.iter().any(|&l| l > 0.0);
        if !any && !self.shown {
            return None;
        }
        self.shown = any;
        Some(
            base.iter()
                .zip(&self.lit)
                .map(|(&c, &l)| toward_white(c, l / FLASH))
                .collect(),
        )
    }
}

/// `c` (packed RGBA8, red in the low byte) a fraction `t` of the way to
/// white, its alpha kept.
pub fn toward_white(c: u32, t: f32) -> u32 {
    let t = t.clamp(0.0, 1.0);
    let mix = |shift: u32| {
        let v = ((c >> shift) & 0xff) as f32;
        ((v + (255.0 - v) * t).round() as u32) << shift
    };
    mix(0) | mix(8) | mix(16) | (c & 0xff00_0000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::Contact;
    use crate::world::BodyHandle;
    use glam::Vec2;

    #[test]
    fn a_contact_that_begins_lights_both_bodies_and_they_fade() {
        let mut lights = Lights::default();
        let base = vec![0x80_10_20_30u32; 3];
        assert_eq!(lights.colors(&base, 0.1), None);
        let events = ContactEvents {
            events: vec![Contact {
                kind: ContactKind::Begin,
                bodies: (BodyHandle(0), BodyHandle(2)),
                point: Vec2::ZERO,
                approach: 1.0,
            }],
            colliders: Vec::new(),
            lost: 0,
        };
        lights.light(&events, 3);
        let lit = lights.colors(&base, 0.0).unwrap();
        assert_eq!(lit, [0x80_ff_ff_ff, 0x80_10_20_30, 0x80_ff_ff_ff]);
        let half = lights.colors(&base, FLASH / 2.0).unwrap();
        assert!(half[0] != base[0] && half[0] != lit[0]);
        // Dark again: the base colours once, then nothing to write.
        assert_eq!(lights.colors(&base, FLASH).unwrap(), base);
        assert_eq!(lights.colors(&base, 0.1), None);
    }
}
