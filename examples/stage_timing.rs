use std::time::Instant;
use softbody::gpu::Stage;
use softbody::prelude::*;
fn main() {
    let n: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(2000);
    let world = softbody::scenes::default_scene(n).unwrap();
    let ctx = GpuContext::new_headless().unwrap();
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    println!("points {}", world.points().len());
    for stage in [Stage::Integrate, Stage::Collide, Stage::Springs, Stage::ShapeMatch] {
        let reps = 200;
        let _ = gpu.read_state(&ctx.device, &ctx.queue);
        let t = Instant::now();
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        for _ in 0..reps { gpu.record_stage(&mut enc, stage); }
        ctx.queue.submit([enc.finish()]);
        let _ = gpu.read_state(&ctx.device, &ctx.queue);
        println!("{stage:?}: {:.3} ms", t.elapsed().as_secs_f64() * 1e3 / reps as f64);
    }
}
