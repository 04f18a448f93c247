// Stage 5c: body impacts act on whole bodies (docs/physics.md, "Impacts").
// A body contact whose bodies approach faster than the restitution
// threshold is an impact, solved as between rigid bodies from their mean
// velocities (their frames; a kinematic body, of infinite mass, at its
// rigid velocity at the contact): the impulse that reverses the approach v with
// the elasticity, J = (1 + e) v / (k_a w_a + k_b w_b), changes the
// velocity of every point of each side's body by J w n (w the body's
// inverse mass, k its impacts this substep: mass splitting). Half-plane
// and planet impacts are shape matching's (shape_match.wgsl,
// `plane_impacts`). After the first narrow phase of a substep:
//
//   count    one thread per point: each body contact that is an impact
//            adds to both bodies' counts (integer atomics) and, faster
//            than the wake speed, wakes both assemblies.
//   resolve  each impact adds J w n, in fixed point, into its bodies'
//            accumulators: the sums do not depend on order.
//   apply    one thread per body: a body that had impacts adds its
//            accumulator to each of its awake points (its points are its
//            own: a body that shares one takes no part), and clears its
//            count and accumulator for the next substep (they start at
//            zero: a new buffer is zeroed).
//
// CPU mirror: src/cpu/impact.rs.

@group(0) @binding(0) var<uniform> sim: SimParams;
// PointInfo records, fetched as one vec4 each; the solver's copy (inverse
// mass 0 while asleep).
@group(0) @binding(1) var<storage, read> info: array<vec4<u32>>;
// Per point (position, velocity).
@group(0) @binding(4) var<storage, read_write> state: array<vec4<f32>>;
// The bodies' frames of this substep (their mean velocities).
@group(0) @binding(5) var<storage, read> frames_in: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> impact_home: array<u32>;
@group(0) @binding(7) var<storage, read> impact_inv_mass: array<f32>;
// Per body (count, accumulator x, y, unused), as integer atomics for
// count and resolve, and as one vec4 for clear, which writes it whole, and
// apply, which reads it whole.
@group(0) @binding(8) var<storage, read_write> impact_sums: array<atomic<i32>>;
@group(0) @binding(9) var<storage, read_write> impact_totals: array<vec4<i32>>;
// The bodies (BodyInfo, two vec4 each) and their members (one vec4 each).
@group(0) @binding(16) var<storage, read> bodies: array<vec4<u32>>;
@group(0) @binding(17) var<storage, read> members: array<vec4<u32>>;
// The body contacts (body_collide.wgsl's narrow phase).
@group(0) @binding(10) var<storage, read> hits: array<ContactHit>;
@group(0) @binding(11) var<storage, read> contact_points: array<ContactPoint>;
@group(0) @binding(12) var<storage, read> outlines: array<BodyOutline>;
@group(0) @binding(13) var<storage, read> filters: array<ContactFilter>;
@group(0) @binding(14) var<storage, read> rest_steps: array<u32>;
@group(0) @binding(15) var<storage, read_write> sleep_speed: array<atomic<u32>>;
// The contact counts with the active list after them (body_collide.wgsl,
// `counts`): with LISTED, count and resolve run over the listed points
// (a quiet point has no contact, so no impact).
@group(0) @binding(18) var<storage, read> listed_points: array<u32>;
@group(0) @binding(19) var<uniform> list_head: ListHeadUniform;
override LISTED: bool = false;

// The point a thread of count or resolve works on: spread over every
// point, or with LISTED its entry of the active list (body_collide.wgsl,
// pass_point); sim.num_points past the end.
fn impact_point(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    if (LISTED) {
        let k = indirect_index(gid, list_head.groups.x);
        return select(sim.num_points, listed_points[sim.num_points + ACTIVE_POINTS + k], k < list_head.count);
    }
    return spread_index(gid, groups);
}

// One side of an impact: the body and its inverse mass. w = 0 for a side
// that takes no impulse: a sleeping body, which does not move (body
// IMPACT_NONE), or a kinematic one, which moves as its points do.
struct ImpactSide {
    body: u32,
    w: f32,
}

struct Impact {
    found: bool,
    n: vec2<f32>,
    approach: f32,
    elasticity: f32,
    a: ImpactSide,
    b: ImpactSide,
    // The two assemblies a body impact wakes.
    groups: vec2<u32>,
    // The approach times how much faster the impulse would move a sleeping
    // side than the awake one (1 unless one side sleeps and is the
    // lighter): past the wake speed, the impact wakes both.
    wake: f32,
}

fn no_impact() -> Impact {
    let none = ImpactSide(IMPACT_NONE, 0.0);
    return Impact(false, vec2<f32>(0.0), 0.0, 0.0, none, none, vec2<u32>(0u), 0.0);
}

// The side of body `body` of impact inverse mass `w` (impact_inv_mass): a
// kinematic body (IMPACT_KINEMATIC) takes no impulse.
fn side_of(body: u32, w: f32) -> ImpactSide {
    return ImpactSide(body, max(w, 0.0));
}

// A side's velocity at p: its body's mean velocity, a kinematic body's
// rigid velocity there, zero for a side that does not move.
fn side_vel(s: ImpactSide, p: vec2<f32>) -> vec2<f32> {
    if (s.body == IMPACT_NONE) {
        return vec2<f32>(0.0);
    }
    let f = frames_in[2u * s.body];
    if (s.w > 0.0) {
        return f.zw;
    }
    let omega = frames_in[2u * s.body + 1u].z;
    let r = p - f.xy;
    return f.zw + vec2<f32>(-r.y, r.x) * omega;
}

// Point i's body-contact impact: the contact the narrow phase stored,
// between two bodies that take part (one of them awake and not kinematic)
// and whose velocities (side_vel) approach faster than the restitution
// threshold.
fn body_impact(i: u32) -> Impact {
    var out = no_impact();
    // The body alone first: most points have no contact.
    if (hits[i].body == NO_BODY) {
        return out;
    }
    let hit = hits[i];
    let a_body = impact_home[i];
    if (a_body == IMPACT_NONE) {
        return out;
    }
    let wa = impact_inv_mass[a_body];
    let wb = impact_inv_mass[hit.body];
    if (wb == 0.0) {
        return out;
    }
    // A sleeping side does not move; a kinematic one (its points pinned)
    // moves whether asleep or not.
    var a = side_of(a_body, wa);
    if (wa > 0.0 && point_info(info[i]).inv_mass == 0.0) {
        a = ImpactSide(IMPACT_NONE, 0.0);
    }
    let o = outlines[hit.body];
    var b = side_of(hit.body, wb);
    if (wb > 0.0 && sleeps(rest_steps[o.group], sim.sleep_steps)) {
        b = ImpactSide(IMPACT_NONE, 0.0);
    }
    if (a.w == 0.0 && b.w == 0.0) {
        return out;
    }
    let p = state[i].xy;
    let approach = -dot(side_vel(a, p) - side_vel(b, p), hit.n);
    if (!is_impact(approach, sim.restitution_threshold)) {
        return out;
    }
    let cp = contact_points[i];
    let pf = filters[cp.filter_id & ~CONTACT_FREE];
    let bf = filters[o.filter_id];
    out.found = true;
    out.n = hit.n;
    out.approach = approach;
    out.elasticity = pair_material(pf, bf).elasticity;
    out.a = a;
    out.b = b;
    out.groups = vec2<u32>(cp.group, o.group);
    // (A kinematic side's inverse mass is negative: its share is 1.)
    var share = 1.0;
    if (a.w == 0.0) {
        share = max(wa / wb, 1.0);
    } else if (b.w == 0.0) {
        share = max(wb / wa, 1.0);
    }
    out.wake = approach * share;
    return out;
}

// A side's impact count (0 for a side that does not move).
fn side_count(s: ImpactSide) -> f32 {
    if (s.w > 0.0) {
        return f32(atomicLoad(&impact_sums[4u * s.body]));
    }
    return 0.0;
}

// fit_of for a side's velocity change `dv` (1 for a side that does not
// move).
fn side_fit(s: ImpactSide, dv: vec2<f32>) -> f32 {
    if (s.w > 0.0) {
        return fit_of(dv, sim.contact_scale, u32(atomicLoad(&impact_sums[4u * s.body])));
    }
    return 1.0;
}

// Adds a side's velocity change to its body's accumulator, which takes
// one contribution per impact it counted (fixed_of).
fn add_side(s: ImpactSide, dv: vec2<f32>) {
    if (s.w > 0.0) {
        let q = fixed_of(dv, sim.contact_scale, u32(atomicLoad(&impact_sums[4u * s.body])));
        atomicAdd(&impact_sums[4u * s.body + 1u], q.x);
        atomicAdd(&impact_sums[4u * s.body + 2u], q.y);
    }
}

// Body b's accumulator added to each of its awake points.
fn apply_body(b: u32, totals: vec4<i32>) {
    if (totals.x == 0) {
        return;
    }
    let dv = vec2<f32>(totals.yz) * (1.0 / sim.contact_scale);
    let body = body_info(bodies[2u * b], bodies[2u * b + 1u]);
    for (var j = body.first; j < body.first + body.count; j++) {
        let i = member_of(members[j]).point;
        if (point_info(info[i]).inv_mass != 0.0) {
            let s = state[i];
            state[i] = vec4<f32>(s.xy, s.zw + dv);
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn count(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = impact_point(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let imp = body_impact(i);
    if (!imp.found) {
        return;
    }
    if (imp.a.w > 0.0) {
        atomicAdd(&impact_sums[4u * imp.a.body], 1);
    }
    if (imp.b.w > 0.0) {
        atomicAdd(&impact_sums[4u * imp.b.body], 1);
    }
    if (sim.sleep_steps > 0u && imp.wake * imp.wake > sim.wake_speed_sq) {
        atomicMax(&sleep_speed[imp.groups.x], SLEEP_WAKE);
        atomicMax(&sleep_speed[imp.groups.y], SLEEP_WAKE);
    }
}

// Each side gets its velocity change J w n.
@compute @workgroup_size(WORKGROUP_SIZE)
fn resolve(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = impact_point(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let imp = body_impact(i);
    if (!imp.found) {
        return;
    }
    let j = (1.0 + imp.elasticity) * imp.approach / (side_count(imp.a) * imp.a.w + side_count(imp.b) * imp.b.w);
    // Both sides scaled alike to fit their accumulators (fit_of).
    let jf = j * min(side_fit(imp.a, imp.n * (j * imp.a.w)), side_fit(imp.b, imp.n * (-j * imp.b.w)));
    add_side(imp.a, imp.n * (jf * imp.a.w));
    add_side(imp.b, imp.n * (-jf * imp.b.w));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn apply(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let b = spread_index(gid, groups);
    if (b >= sim.num_bodies) {
        return;
    }
    let totals = impact_totals[b];
    impact_totals[b] = vec4<i32>(0);
    apply_body(b, totals);
}
