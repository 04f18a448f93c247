// Stage 0b of a substep, in worlds with kinematic bodies (Body::kinematic):
// each kinematic body posed at the substep's end, a rigid body in its rest
// shape moving at the velocity and spin its points have (docs/physics.md,
// "Kinematic bodies"). One workgroup per body, its members summed by
// reduce (shaders/reduce.wgsl) with their shape-matching weights m:
//
//   c = sum m x / M,  u = sum m v / M,  R = the best-fit rotation from
//   rest (atan2 of sum m q x d and sum m q . d, d = x - c),
//   w = sum m d x v / sum m |d|^2,
//   x = c + u h + R(w h) R q,  v = u + w x (R(w h) R q)
//
// so the body keeps its rest shape exactly, its motion lives in its
// points' velocities (which the body commands set, and which checkpoints
// and edits keep), and a body at rest is left untouched. Its points are
// pinned, so integrate and the contacts leave them. CPU mirror:
// src/cpu/move_bodies.rs.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> bodies: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> members: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> state: array<vec4<f32>>;
// The kinematic bodies' indices.
@group(0) @binding(4) var<storage, read> kinematic: array<u32>;

// How many bodies `kinematic` lists.
override KINEMATIC_BODIES: u32 = 0u;

// `a` turned by the rotation (cos, sin) in `r`.
fn turn(r: vec2<f32>, a: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(r.x * a.x - r.y * a.y, r.y * a.x + r.x * a.y);
}

fn move_body(t: u32, body: u32) {
    let b = bodies[2u * body];
    let first = b.x;
    let count = b.y;
    var acc = vec4<f32>(0.0);
    for (var j = t; j < count; j += REDUCE_THREADS) {
        let m = member_of(members[first + j]);
        let s = state[m.point];
        acc += vec4<f32>(m.weight, m.weight * s.xy, m.weight * dot(s.zw, s.zw));
    }
    let sums = reduce(t, acc);
    if (sums.w == 0.0 || sums.x <= 0.0) {
        return;
    }
    let c = sums.yz / sums.x;
    acc = vec4<f32>(0.0);
    var spin = vec4<f32>(0.0);
    for (var j = t; j < count; j += REDUCE_THREADS) {
        let m = member_of(members[first + j]);
        let s = state[m.point];
        let d = s.xy - c;
        acc += vec4<f32>(m.weight * s.zw, m.weight * cross2(m.rest, d), m.weight * dot(m.rest, d));
        spin += vec4<f32>(m.weight * cross2(d, s.zw), m.weight * dot(d, d), 0.0, 0.0);
    }
    let second = reduce(t, acc);
    let third = reduce(t, spin);
    let u = second.xy / sums.x;
    let fit = vec2<f32>(second.w, second.z);
    let fit_len = length(fit);
    let r0 = select(vec2<f32>(1.0, 0.0), fit / fit_len, fit_len > 0.0);
    let w = select(0.0, third.x / third.y, third.y > 0.0);
    let r = turn(vec2<f32>(cos(w * sim.h), sin(w * sim.h)), r0);
    let center = c + u * sim.h;
    for (var j = t; j < count; j += REDUCE_THREADS) {
        let m = member_of(members[first + j]);
        let d = turn(r, m.rest);
        state[m.point] = vec4<f32>(center + d, u + w * perp(d));
    }
}

@compute @workgroup_size(REDUCE_THREADS)
fn main(
    @builtin(local_invocation_index) t: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    for (var k = wid.x; k < KINEMATIC_BODIES; k += groups.x) {
        move_body(t, kinematic[k]);
    }
}
