// The collider stages' view of a point's settled state, in worlds with
// body contacts (docs/physics.md, "Bodies built on colliders"). A
// fragment, not a stage: src/gpu/shaders.rs appends it to collide.wgsl,
// shape_match.wgsl and terrain.wgsl, whose kernels of such worlds (the
// _placed ones) bind the warm starts as `warm`. CPU mirror:
// src/cpu/collide.rs.

// Whether point i has not settled (its warm start lacks WARM_SETTLED):
// the collider stages lift it out of their skin slowly. Only kernels of
// worlds with body contacts call it. CPU mirror: cpu::collide::placed.
fn placed_at(i: u32) -> bool {
    return (warm[i].z & WARM_SETTLED) == 0u;
}

// Notes in point i's warm start whether a collider stage found it in its
// skin this substep (WARM_SKIN): the collide stage, the substep's first,
// sets or clears the bit (`first`), the terrain stage after it only sets
// it. CPU mirror: cpu::collide::note_skin.
fn note_skin(i: u32, skin: bool, first: bool) {
    var w = warm[i].w;
    if (first) {
        w &= ~WARM_SKIN;
    }
    if (skin) {
        w |= WARM_SKIN;
    }
    warm[i].w = w;
}

// Point i (info `pi`) at `p` moving at `v` after its deepest contact in a
// world with body contacts, as (p, v): only a point in contact reads its
// settled bit; one not settled is lifted out of the skin slowly and its
// skin bit noted (as collide_point; CPU mirror: cpu::collide::collide).
fn collide_placed(i: u32, pi: PointInfo, p: vec2<f32>, v: vec2<f32>) -> vec4<f32> {
    let c = deepest_contact(pi.layers, p, sim.point_radius);
    if (c.depth <= 0.0) {
        return vec4<f32>(p, v);
    }
    let placed = placed_at(i);
    let r = collide_hit(pi, p, v, c, placed);
    if (placed) {
        note_skin(i, r.skin, true);
    }
    return r.state;
}

// integrate_collide_point in a world with body contacts (collide_placed).
fn integrate_collide_placed_at(i: u32, pi: PointInfo, p: vec2<f32>, v0: vec2<f32>) -> vec4<f32> {
    if (pi.inv_mass == 0.0) {
        return vec4<f32>(p, v0);
    }
    let s = euler_point(pi.inv_mass, p, v0, gravity_at(i, p), sim.h);
    return collide_placed(i, pi, s.xy, s.zw);
}
