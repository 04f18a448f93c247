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

// The low bit of an unsettled point's warm-start word z that marks the
// rest as a placement allowance rather than a warm start. CPU mirror:
// cpu::body_collide::ALLOWANCE_TAG.
const ALLOWANCE_TAG: u32 = 1u;

// A point's warm-start word z read: the warm start it may still take back,
// and its placement allowance (0 when it has settled, or has none), as
// (left, allowance). CPU mirror: cpu::body_collide::warm_left.
fn warm_left(w: vec4<u32>) -> vec2<f32> {
    if ((w.z & WARM_SETTLED) == 0u && (w.z & ALLOWANCE_TAG) != 0u) {
        return vec2<f32>(0.0, bitcast<f32>(w.z & ~ALLOWANCE_TAG));
    }
    return vec2<f32>(bitcast<f32>(w.z & ~WARM_SETTLED), 0.0);
}

// An unsettled point's warm start as its word z holds it, the tag bit
// clear. CPU mirror: cpu::body_collide::untagged.
fn untagged(j: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(j) & ~ALLOWANCE_TAG);
}

// The warm-start word z of a point whose substep's first narrow phase
// found `hit`, and its warm start (f32 bits), from its state `w` and
// assembly `group`: a settled point stays settled and takes its
// warm_impulse; one that has not and meets a body deeper than a skin step
// but less than BODY_PUSH_SLOP point radii takes that depth, at most the
// point radius, as its placement allowance, shrunk by a skin step every
// later substep; one deeper, or touching a tangled body, stays unsettled
// without one and keeps its warm start. It settles once it has no body
// contact, one within a skin step, or no allowance left, unless a collider
// stage found it in its skin (WARM_SKIN). While it has an allowance it
// takes no warm start. CPU mirror: cpu::body_collide::moved_on.
fn moved_on(hit: ContactHit, w: vec4<u32>, group: u32) -> vec2<u32> {
    if ((w.z & WARM_SETTLED) != 0u) {
        let j = warm_impulse(hit, w);
        return vec2<u32>(bitcast<u32>(j) | WARM_SETTLED, bitcast<u32>(j));
    }
    let step = SKIN_PUSH_SHARE * sim.push_speed * sim.h;
    var allowance = warm_left(w).y;
    var deep = false;
    if (hit.body == NO_BODY) {
        allowance = 0.0;
    } else if (tangle_word(hit.body, group) != NO_BODY) {
        deep = true;
    } else if (allowance > 0.0) {
        allowance = max(allowance - step, 0.0);
    } else if (hit.depth > BODY_PUSH_SLOP * sim.point_radius) {
        deep = true;
    } else if (hit.depth > step) {
        allowance = min(hit.depth, sim.point_radius);
    }
    if (allowance > 0.0) {
        return vec2<u32>(bitcast<u32>(allowance) | ALLOWANCE_TAG, 0u);
    }
    if (deep || (w.w & WARM_SKIN) != 0u) {
        let j = untagged(warm_impulse(hit, w));
        return vec2<u32>(bitcast<u32>(j), bitcast<u32>(j));
    }
    let j = warm_impulse(hit, w);
    return vec2<u32>(bitcast<u32>(j) | WARM_SETTLED, bitcast<u32>(j));
}

// Point i's warm start: its velocity changes into the accumulators (along
// the contact normal, split between the point and the edge's ends by
// inverse mass, without mass splitting), and its state moved on to this
// substep (moved_on). CPU mirror: cpu::body_collide::warm_start.
fn warm_start(i: u32, hit: ContactHit, wi: f32) {
    let w = warm[i];
    let word = moved_on(hit, w, contact_points[i].group);
    let j = bitcast<f32>(word.y);
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
    warm[i] = vec4<u32>(w.y, hit.body, word.x, word.y);
}
