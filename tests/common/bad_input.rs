//! Helpers shared by the bad-input tests (tests/world/, tests/solver.rs):
//! the exact error and its naming, a small world, handles.

use std::fmt::Debug;

use softbody::prelude::*;

pub const NON_FINITE: [f32; 3] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY];

/// Asserts the exact error, and that its message names the item.
#[track_caller]
pub fn expect_err<T: Debug>(result: Result<T, WorldError>, want: WorldError, names: &str) {
    let err = result.expect_err("accepted a bad input");
    assert_eq!(err, want);
    let msg = err.to_string();
    assert!(msg.contains(names), "{msg:?} does not name {names:?}");
}

/// Points 0, 1, 2 at (0, 0), (1, 0), (0, 1): the next point is "point 3".
pub fn world3() -> World {
    let mut w = World::default();
    for p in [Vec2::ZERO, Vec2::X, Vec2::Y] {
        w.add_point(Point::new(p)).unwrap();
    }
    w
}

pub fn handles(ids: &[u32]) -> Vec<PointHandle> {
    ids.iter().map(|&i| PointHandle(i)).collect()
}
