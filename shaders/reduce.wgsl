
// A sum over one workgroup of REDUCE_THREADS threads, the same on every
// thread, in a fixed order (so runs are bitwise reproducible): the
// commands kernel's body sums and move_bodies' per-body fits. CPU mirror:
// cpu::commands::reduce.

const REDUCE_THREADS: u32 = 256u;

var<workgroup> sums: array<vec4<f32>, REDUCE_THREADS>;

// The sum of every thread's `v`: a tree over the workgroup.
fn reduce(t: u32, v: vec4<f32>) -> vec4<f32> {
    sums[t] = v;
    workgroupBarrier();
    for (var s = REDUCE_THREADS / 2u; s > 0u; s >>= 1u) {
        if (t < s) {
            sums[t] += sums[t + s];
        }
        workgroupBarrier();
    }
    // Uniform for the branches that follow; its barrier also keeps the
    // next reduce from writing before every thread has read.
    let total = workgroupUniformLoad(&sums[0]);
    workgroupBarrier();
    return total;
}
