//! Criterion benchmarks of the CPU reference stages, one thread and all
//! threads, on the 10k-point benchmark scene. The GPU whole-step benchmark
//! is `cargo run --release --example bench`.

use criterion::{Criterion, criterion_group, criterion_main};
use softbody::cpu::CpuSolver;
use softbody::scenes::bench_scene;

fn stages(c: &mut Criterion) {
    let world = bench_scene(10_000).unwrap();
    for parallel in [false, true] {
        let tag = if parallel { "all threads" } else { "1 thread" };
        let mut group = c.benchmark_group(format!("cpu 10k points, {tag}"));
        let mut solver = CpuSolver::new(&world).unwrap().parallel(parallel);
        // Deform the scene a little so every term is live.
        for _ in 0..10 {
            solver.step();
        }
        group.bench_function("integrate", |b| b.iter(|| solver.stage_integrate()));
        group.bench_function("collide", |b| b.iter(|| solver.stage_collide()));
        group.bench_function("springs", |b| b.iter(|| solver.stage_springs()));
        group.bench_function("shape_match", |b| b.iter(|| solver.stage_shape_match()));
        group.bench_function("step (8 substeps)", |b| b.iter(|| solver.step()));
        group.finish();
    }
}

criterion_group!(benches, stages);
criterion_main!(benches);
