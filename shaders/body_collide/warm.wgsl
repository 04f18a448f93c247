// Warm starting, part of stage 5b (body_collide.wgsl): the warm start a
// substep's first narrow phase applies, and each point's warm-starting
// state moved on. CPU mirror: src/cpu/body_collide/warm.rs.

// The share of a persisting contact's last normal impulse it starts with
// (CPU mirror: cpu::body_collide::WARM_START).
const WARM_START: f32 = 0.8;
// How many warm starts one accumulator may take at the clamp before it
// could wrap: each is clamped to 2^30 / WARM_SHARE units (fixed_of; the
// counts are not whole until the narrow phase is). CPU mirror:
// cpu::body_collide::WARM_SHARE.
const WARM_SHARE: u32 = 64u;

// The warm start of a point whose substep's first narrow phase found
// `hit`, from its state `w`: WARM_START of its last substep's normal
// impulse if that contact was with the same body and had persisted from
// the substep before (a new contact, such as an impact's, never carries
// its impulse over), else 0. CPU mirror: cpu::body_collide::warm_impulse.
fn warm_impulse(hit: ContactHit, w: vec4<u32>) -> f32 {
    let total = bitcast<f32>(w.w & ~WARM_SKIN);
    if (hit.body != NO_BODY && hit.body == w.y && w.x == w.y && total > 0.0) {
        return WARM_START * total;
    }
    return 0.0;
}

// Point i's warm start: its velocity changes into the accumulators (along
// the contact normal, split between the point and the edge's ends by
// inverse mass, without mass splitting), and its state moved on to this
// substep. CPU mirror: cpu::body_collide::warm_start.
fn warm_start(i: u32, hit: ContactHit, wi: f32) {
    let w = warm[i];
    let j = warm_impulse(hit, w);
    if (j > 0.0) {
        let ends = edge_ends(hit);
        let wa = info[ends.x].inv_mass;
        let wb = info[ends.y].inv_mass;
        // Scaled alike on its three points to fit their accumulators
        // (fit_of).
        let sc = sim.contact_scale;
        let jn0 = hit.n * j;
        var f = fit_of(jn0 * wi, sc, WARM_SHARE);
        if (wa > 0.0) {
            f = min(f, fit_of(-jn0 * ((1.0 - hit.t) * wa), sc, WARM_SHARE));
        }
        if (wb > 0.0) {
            f = min(f, fit_of(-jn0 * (hit.t * wb), sc, WARM_SHARE));
        }
        let jn = jn0 * f;
        let own = fixed_of(jn * wi, sc, WARM_SHARE);
        if (any(own != vec2<i32>(0))) {
            atomicAdd(&acc[4u * i + 2u], own.x);
            atomicAdd(&acc[4u * i + 3u], own.y);
        }
        if (wa > 0.0) {
            add_fixed(ends.x, vec2<f32>(0.0), -jn * ((1.0 - hit.t) * wa), WARM_SHARE);
        }
        if (wb > 0.0) {
            add_fixed(ends.y, vec2<f32>(0.0), -jn * (hit.t * wb), WARM_SHARE);
        }
    }
    warm[i] = vec4<u32>(w.y, hit.body, bitcast<u32>(j) | settled(hit, w, contact_points[i].group), bitcast<u32>(j));
}

// WARM_SETTLED when the point's state `w` has it or its substep's first
// narrow phase found `hit` without a body or with the point's centre
// outside the body (depth at most one point radius) of a body not tangled
// with its assembly `group` (a tangled pair's depth is capped), unless a
// collider stage found it in its skin this substep (WARM_SKIN), else 0.
// CPU mirror: cpu::body_collide::settled.
fn settled(hit: ContactHit, w: vec4<u32>, group: u32) -> u32 {
    let shallow = hit.body == NO_BODY
        || (hit.depth <= sim.point_radius && tangle_word(hit.body, group) == NO_BODY);
    return select(0u, WARM_SETTLED, (w.z & WARM_SETTLED) != 0u || (shallow && (w.w & WARM_SKIN) == 0u));
}
