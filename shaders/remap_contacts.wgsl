// A removal's remap of what the body contacts carry from step to step,
// from the old contact buffers into the new ones (which start zeroed),
// once, on the removal (not in a step). CPU mirror:
// src/cpu/solver/contacts.rs, `Contacts::remap`.
//
//   remap_warm     one thread an old point: a kept point's warm-starting
//                  state (body_collide/warm.wgsl) moves to its new index,
//                  its contacts' bodies renumbered, a removed one none
//                  (CPU mirror: cpu::body_collide::remap_warm).
//   remap_tangles  one thread an old body: a kept body's tangle slots
//                  (body_collide/untangle.wgsl) move to its new index,
//                  each other body renumbered with the assembly it is in
//                  now; a slot whose other body went is left empty (CPU
//                  mirror: cpu::body_collide::untangle::remap_tangle).

// The removal's maps: each old point's new index, then each old body's
// from counts.x on; REMOVED for what went.
@group(0) @binding(0) var<storage, read> remap: array<u32>;
// The old counts: points, bodies.
@group(0) @binding(1) var<uniform> counts: vec4<u32>;
@group(0) @binding(2) var<storage, read> old_warm: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> warm: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> old_tangles: array<u32>;
@group(0) @binding(5) var<storage, read_write> tangles: array<u32>;
// The new outlines (the assembly each body is in now).
@group(0) @binding(6) var<storage, read> outlines: array<BodyOutline>;

// Old body b's new index, or REMOVED (NO_BODY stays NO_BODY).
fn new_body(b: u32) -> u32 {
    if (b >= counts.y) {
        return REMOVED;
    }
    return remap[counts.x + b];
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn remap_warm(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= counts.x) {
        return;
    }
    let to = remap[i];
    if (to == REMOVED) {
        return;
    }
    let w = old_warm[i];
    warm[to] = vec4<u32>(new_body(w.x), new_body(w.y), w.z, w.w);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn remap_tangles(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let b = linear_index(gid, groups);
    if (b >= counts.y) {
        return;
    }
    let to = new_body(b);
    if (to == REMOVED) {
        return;
    }
    for (var k = 0u; k < 2u; k++) {
        let w = TANGLE_WORDS * b + 4u * k;
        let first = old_tangles[w];
        let other = new_body(old_tangles[w + 1u]);
        if ((first & ~TANGLE_FLAGS) == 0u || other == REMOVED) {
            continue;
        }
        let t = TANGLE_WORDS * to + 4u * k;
        tangles[t] = (outlines[other].group + 1u) | (first & TANGLE_FLAGS);
        tangles[t + 1u] = other;
        tangles[t + 2u] = old_tangles[w + 2u];
        tangles[t + 3u] = old_tangles[w + 3u];
    }
}
