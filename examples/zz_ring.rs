use softbody::prelude::*;
fn main() -> Result<(), Box<dyn std::error::Error>> {
    for &(n, rot, hz) in &[(8usize, 0.0f32, 60.0f32), (8, 0.0, 120.0), (8, 0.3927, 120.0), (10, 0.1, 60.0), (10, 0.1, 120.0), (12, 0.2, 120.0)] {
        let mut world = World::default();
        world.params.dt = 1.0 / hz;
        world.add_plane(HalfPlane::floor(0.0))?;
        let r = 0.12;
        let b = Blob::new(Vec2::new(0.0, r + 0.02), r, n).rotation(rot).vel(Vec2::new(1.0,0.0)).build(&mut world)?;
        let mut cpu = CpuSolver::new(&world)?;
        let steps = (20.0 * hz) as usize;
        let mut line = format!("n {n} rot {rot} hz {hz}:");
        for s in 0..steps {
            cpu.step();
            if (s + 1) % (hz as usize * 4) == 0 {
                let p = cpu.positions_vec2();
                let v = cpu.velocities_vec2();
                let c: Vec2 = b.points.iter().map(|h| p[h.index()]).sum::<Vec2>() / n as f32;
                let vmax = b.points.iter().map(|h| v[h.index()].length()).fold(0.0f32, f32::max);
                line += &format!(" [{:.0}s x {:.4} v {:.4}]", (s + 1) as f32 / hz, c.x, vmax);
            }
        }
        println!("{line}");
    }
    Ok(())
}
