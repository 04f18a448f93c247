//! What the left mouse button is doing: a press asks the GPU which point is
//! under the cursor (an asynchronous readback, answered a frame or more
//! later), then either drags that point or, if none is in reach, pans the
//! camera by the motion made while waiting.
//!
//! Kept apart from the window so that its rules can be tested without one:
//! a stale answer (of an earlier press, or of the scene before a reset)
//! must never start a drag.

use glam::Vec2;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Pointer {
    Idle,
    /// Pressed; the pick is in flight. Mouse motion so far, pixels, applied
    /// as a pan if no point turns out to be under the cursor.
    Pressed {
        pan: Vec2,
    },
    Panning,
    Dragging(u32),
}

/// The left button's gesture and the pick it waits for.
#[derive(Clone, Debug)]
pub(super) struct Gesture {
    pointer: Pointer,
    /// A pick asked for and not yet sent to the GPU (world position, m).
    pick_at: Option<Vec2>,
}

impl Default for Gesture {
    fn default() -> Self {
        Self {
            pointer: Pointer::Idle,
            pick_at: None,
        }
    }
}

impl Gesture {
    /// The button went down at `at` (world position, m).
    pub(super) fn press(&mut self, at: Vec2) {
        self.pointer = Pointer::Pressed { pan: Vec2::ZERO };
        self.pick_at = Some(at);
    }

    /// The button went up: the drag or pan ends. A pick still in flight is
    /// answered into an idle gesture and ignored.
    pub(super) fn release(&mut self) {
        self.pointer = Pointer::Idle;
    }

    /// The cursor moved by `delta` pixels; returns the pan to apply now
    /// (zero while the pick is in flight: its motion is kept for later).
    pub(super) fn moved(&mut self, delta: Vec2) -> Vec2 {
        match &mut self.pointer {
            Pointer::Pressed { pan } => {
                *pan += delta;
                Vec2::ZERO
            }
            Pointer::Panning => delta,
            _ => Vec2::ZERO,
        }
    }

    /// The pick waiting to be sent, if any.
    pub(super) fn pending_pick(&self) -> Option<Vec2> {
        self.pick_at
    }

    /// The pending pick was sent to the GPU; its answer is the next one.
    pub(super) fn pick_sent(&mut self) {
        self.pick_at = None;
    }

    /// A pick's answer: `near` is the point found within reach of the
    /// cursor, if any. Returns the pan to apply now (the motion made while
    /// waiting, when the press turns into a pan).
    pub(super) fn picked(&mut self, near: Option<u32>) -> Vec2 {
        // A newer press is still waiting for its pick: this answer is stale.
        if self.pick_at.is_some() {
            return Vec2::ZERO;
        }
        let Pointer::Pressed { pan } = self.pointer else {
            return Vec2::ZERO;
        };
        match near {
            Some(point) => {
                self.pointer = Pointer::Dragging(point);
                Vec2::ZERO
            }
            None => {
                self.pointer = Pointer::Panning;
                pan
            }
        }
    }

    /// The scene was replaced: a drag or a pick in flight was of the old
    /// scene's points, and a held button would otherwise pull whichever
    /// point of the new scene has that index.
    pub(super) fn cancel(&mut self) {
        *self = Self::default();
    }

    /// The point being dragged.
    pub(super) fn dragging(&self) -> Option<u32> {
        match self.pointer {
            Pointer::Dragging(p) => Some(p),
            _ => None,
        }
    }

    /// Whether the cursor's motion belongs to this gesture (a middle-button
    /// pan then does not apply it a second time).
    pub(super) fn busy(&self) -> bool {
        matches!(self.pointer, Pointer::Pressed { .. } | Pointer::Panning)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AT: Vec2 = Vec2::new(1.0, 2.0);

    #[test]
    fn a_press_on_a_point_drags_it_until_release() {
        let mut g = Gesture::default();
        g.press(AT);
        assert_eq!(g.pending_pick(), Some(AT));
        g.pick_sent();
        assert_eq!(g.moved(Vec2::new(5.0, 0.0)), Vec2::ZERO);
        assert_eq!(g.picked(Some(7)), Vec2::ZERO);
        assert_eq!(g.dragging(), Some(7));
        assert_eq!(g.moved(Vec2::new(5.0, 0.0)), Vec2::ZERO);
        g.release();
        assert_eq!(g.dragging(), None);
    }

    #[test]
    fn a_press_on_nothing_pans_by_the_motion_made_while_waiting() {
        let mut g = Gesture::default();
        g.press(AT);
        g.pick_sent();
        g.moved(Vec2::new(3.0, 4.0));
        g.moved(Vec2::new(1.0, 0.0));
        assert_eq!(g.picked(None), Vec2::new(4.0, 4.0));
        assert_eq!(g.dragging(), None);
        assert!(g.busy());
        assert_eq!(g.moved(Vec2::new(2.0, 0.0)), Vec2::new(2.0, 0.0));
        g.release();
        assert!(!g.busy());
        assert_eq!(g.moved(Vec2::new(2.0, 0.0)), Vec2::ZERO);
    }

    #[test]
    fn a_reset_drops_the_drag_and_the_pick_in_flight() {
        // Dragging when the scene is replaced.
        let mut g = Gesture::default();
        g.press(AT);
        g.pick_sent();
        g.picked(Some(3));
        g.cancel();
        assert_eq!(g.dragging(), None);

        // Pressed, the pick sent, then a reset: the old scene's answer
        // arrives afterwards and must not grab the new scene's point.
        let mut g = Gesture::default();
        g.press(AT);
        g.pick_sent();
        g.cancel();
        assert_eq!(g.picked(Some(3)), Vec2::ZERO);
        assert_eq!(g.dragging(), None);

        // Pressed and the pick not yet sent: nothing is left to send.
        let mut g = Gesture::default();
        g.press(AT);
        g.cancel();
        assert_eq!(g.pending_pick(), None);
    }

    #[test]
    fn an_answer_to_an_earlier_press_is_ignored() {
        let mut g = Gesture::default();
        g.press(AT);
        g.pick_sent();
        g.release();
        // A second press before the first press's answer came back.
        g.press(AT + Vec2::ONE);
        assert_eq!(g.picked(Some(1)), Vec2::ZERO);
        assert_eq!(g.dragging(), None);
        g.pick_sent();
        g.picked(Some(2));
        assert_eq!(g.dragging(), Some(2));
    }

    #[test]
    fn an_answer_after_release_is_ignored() {
        let mut g = Gesture::default();
        g.press(AT);
        g.pick_sent();
        g.release();
        assert_eq!(g.picked(Some(1)), Vec2::ZERO);
        assert_eq!(g.dragging(), None);
    }
}
