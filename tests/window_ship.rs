//! The ship sample's window starts, runs and exits: its lights collect
//! contact events every frame without waiting (the debris resting on the
//! home planet begin touching it at once) and light their bodies. A test
//! file of its own: a process opens one window at most
//! (`common::display`).

mod common;

use common::display;
use softbody::app::{AppOptions, run};

#[test]
fn the_ship_sample_window_runs_with_its_lights() {
    let Some(_xvfb) = display::display() else {
        return;
    };
    if common::gpu().is_none() {
        return;
    }
    let game = softbody::ship::ship_game().unwrap();
    let result = run(AppOptions {
        world: Some(game.world),
        ship: Some(game.ship),
        frames: Some(20),
        size: (480, 320),
        vsync: false,
        ..Default::default()
    });
    if let Err(e) = &result {
        panic!("the ship sample's window failed: {e}");
    }
}
