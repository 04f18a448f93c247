// Mouse drag: before each step, the dragged point's velocity gets the
// impulse of a damped spring toward the cursor over one step,
// `v += (k (target - p) - c v) dt` (symplectic Euler: stable while
// `sqrt(k) dt < 2` and `c dt < 2`). One thread, written into the solver's
// state buffer on the GPU: no readback, no CPU copy of the state.
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
    // Points of the solver bound (the state buffer may hold more slots).
    num_points: u32,
}

@group(0) @binding(0) var<uniform> drag: DragParams;
// The solver's state: per point (position, velocity).
@group(0) @binding(1) var<storage, read_write> state: array<vec4<f32>>;

@compute @workgroup_size(1)
fn main() {
    let i = drag.point;
    if (drag.enabled == 0u || i >= drag.num_points) {
        return;
    }
    let s = state[i];
    let v = s.zw;
    state[i] = vec4<f32>(s.xy, v + (drag.stiffness * (drag.target_pos - s.xy) - drag.damping * v) * drag.dt);
}
