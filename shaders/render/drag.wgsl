// Mouse drag: before each step, the dragged point's velocity gets the
// impulse of a damped spring toward the cursor over one step,
// `v += (k (target - p) - c v) dt` (symplectic Euler: stable while
// `sqrt(k) dt < 2` and `c dt < 2`). One thread, written into the solver's
// velocity buffer on the GPU: no readback, no CPU copy of the state.
// Rust side: src/render/interact.rs (`Dragger`, `DragParams`).

struct DragParams {
    target_pos: vec2<f32>,
    point: u32,
    enabled: u32,
    // 1/s^2 (a spring per unit mass).
    stiffness: f32,
    // 1/s.
    damping: f32,
    // Step length, s.
    dt: f32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> drag: DragParams;
@group(0) @binding(1) var<storage, read> pos: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read_write> vel: array<vec2<f32>>;

@compute @workgroup_size(1)
fn main() {
    let i = drag.point;
    if (drag.enabled == 0u || i >= arrayLength(&pos)) {
        return;
    }
    let v = vel[i];
    vel[i] = v + (drag.stiffness * (drag.target_pos - pos[i]) - drag.damping * v) * drag.dt;
}
