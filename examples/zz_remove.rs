use softbody::prelude::*;
use softbody::solver::Solver;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args()
        .nth(1)
        .map_or(200_000, |s| s.parse().unwrap());
    let gpu = std::env::args().nth(2).is_some_and(|s| s == "gpu");
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0))?;
    for k in 0..n {
        let (row, col) = (k / 100, k % 100);
        let at = Vec2::new(
            0.62 * (col as f32 - 50.0) + 0.31 * (row % 2) as f32,
            0.27 + 0.55 * row as f32,
        );
        if (row + col) % 3 == 0 {
            Blob::new(at, 0.26, 10).build(&mut world)?;
        } else {
            BoxShape::new(at, Vec2::splat(0.5)).build(&mut world)?;
        }
    }
    let mut s = if gpu {
        Solver::gpu(&world)?
    } else {
        Solver::cpu(&world)?
    };
    s.step(1)?;
    s.wait()?;
    let k: usize = std::env::var("K").map_or(400, |s| s.parse().unwrap());
    eprintln!("ready");
    let t = Instant::now();
    for i in 0..k {
        let b = BodyHandle((world.bodies().len() / 2 + 7 * (i % 50)) as u32);
        let r = world.remove_bodies(&[b])?;
        s.apply_removal(&world, &r)?;
        s.wait()?;
    }
    eprintln!(
        "{:.3} ms a removal",
        t.elapsed().as_secs_f64() * 1e3 / k as f64
    );
    Ok(())
}
