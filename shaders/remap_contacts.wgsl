// A removal's remap of what the body contacts carry from step to step, in
// place in the contact buffers the removal found, once, on the removal
// (not in a step); a removal that makes new buffers copies the result's
// prefix into them. CPU mirror: src/cpu/solver/contacts.rs,
// `Contacts::follow_removal` (and `Contacts::remap`).
//
//   remap_warm     one thread a point after the removal: its warm-starting
//                  state (body_collide/warm.wgsl), read from the old point
//                  it was (the survivor that filled its hole, or itself),
//                  its contacts' bodies renumbered, a removed one none
//                  (CPU mirror: cpu::body_collide::remap_warm).
//   remap_tangles  one thread a body after the removal: its tangle slots
//                  (body_collide/untangle.wgsl), read from the old body it
//                  was, each other body renumbered with the assembly it is
//                  in now; a slot whose other body went is left empty (CPU
//                  mirror: cpu::body_collide::untangle::remap_tangle).
//
// In place without a race: a thread writes only its own item, below the
// new end, and reads it or a filler, which lies past the new end.

// The removal's maps (removal_map.wgsl).
@group(0) @binding(0) var<storage, read> removal_words: array<u32>;
@group(0) @binding(1) var<uniform> removal_spans: array<vec4<u32>, 4>;
@group(0) @binding(2) var<storage, read_write> warm: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> tangles: array<u32>;
// The new outlines (the assembly each body is in now).
@group(0) @binding(4) var<storage, read> outlines: array<BodyOutline>;

// Old body b's new index, or REMOVED (NO_BODY stays NO_BODY).
fn new_body(b: u32) -> u32 {
    return map_new(MAP_BODIES, b);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn remap_warm(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= map_packed_new(MAP_POINTS)) {
        return;
    }
    let old = map_old(MAP_POINTS, i);
    // A point the removal moved from past what was packed starts afresh.
    if (old >= removal_spans[2u * MAP_POINTS].x) {
        warm[i] = vec4<u32>(0u);
        return;
    }
    let w = warm[old];
    let first = removal_spans[2u * MAP_BODIES + 1u].x;
    // Most points name no body the removal changed: nothing to write.
    if (old == i && (w.x < first || w.x == NO_BODY) && (w.y < first || w.y == NO_BODY)) {
        return;
    }
    warm[i] = vec4<u32>(new_body(w.x), new_body(w.y), w.z, w.w);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn remap_tangles(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let b = linear_index(gid, groups);
    if (b >= map_packed_new(MAP_BODIES)) {
        return;
    }
    let old = map_old(MAP_BODIES, b);
    let known = old < removal_spans[2u * MAP_BODIES].x;
    for (var k = 0u; k < 2u; k++) {
        let t = TANGLE_WORDS * b + 4u * k;
        var read = vec4<u32>(0u);
        if (known) {
            let w = TANGLE_WORDS * old + 4u * k;
            read = vec4<u32>(tangles[w], tangles[w + 1u], tangles[w + 2u], tangles[w + 3u]);
        }
        var slot = vec4<u32>(0u);
        let other = new_body(read.y);
        if ((read.x & ~TANGLE_FLAGS) != 0u && other < map_packed_new(MAP_BODIES)) {
            slot = vec4<u32>((outlines[other].group + 1u) | (read.x & TANGLE_FLAGS), other, read.z, read.w);
        }
        // Most bodies keep their slots as they are: nothing to write.
        if (old == b && all(slot == read)) {
            continue;
        }
        tangles[t] = slot.x;
        tangles[t + 1u] = slot.y;
        tangles[t + 2u] = slot.z;
        tangles[t + 3u] = slot.w;
    }
}
