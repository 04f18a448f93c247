//! The world and its parameters: every bad item (`bad_input`) or parameter
//! (`params`) is refused with a typed error that names it, through every
//! entry point; parameters convert to and from a frequency.

#[path = "../common/mod.rs"]
mod common;

mod bad_input;
mod params;

use softbody::prelude::*;

/// `World::bounds`: points and whole planets whose position is kept;
/// `None` when nothing is (an empty world, or a filter that keeps nothing).
#[test]
fn bounds_hold_what_is_kept_and_planets_whole() {
    let mut world = World::default();
    assert_eq!(world.bounds(|_| true), None);
    world.add_point(Point::new(Vec2::new(-3.0, 1.0))).unwrap();
    world.add_point(Point::new(Vec2::new(4.0, 2.0))).unwrap();
    world
        .add_planet(Planet::new(Vec2::new(10.0, 0.0), 2.0))
        .unwrap();
    assert_eq!(
        world.bounds(|_| true),
        Some((Vec2::new(-3.0, -2.0), Vec2::new(12.0, 2.0)))
    );
    assert_eq!(
        world.bounds(|p| p.x < 5.0),
        Some((Vec2::new(-3.0, 1.0), Vec2::new(4.0, 2.0)))
    );
    assert_eq!(world.bounds(|p| p.x > 100.0), None);
}
