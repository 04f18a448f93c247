// Stage 5b: body-body contacts (Firth 2011: restitution only when
// approaching, impulses by inverse mass; Spooner: position corrections
// split by mass). One thread per point, after the broad phase
// (broad_phase.wgsl):
//
//   narrow   a point inside another body's outline (point in polygon) is
//            in contact with the edge it came in by (entry_edge), a point within
//            point_radius outside it with the edge it faces (see
//            test_body); the deepest such contact wins (ties: the lower
//            body index), so the result does not depend on the order of
//            the grid's entries. It is stored, and every point it moves
//            counts it. Free points also touch each other as disks.
//   resolve  every contact pushes its points out and changes their
//            velocities by impulses split by inverse mass, with mass
//            splitting: each point's inverse mass counts as many times as
//            it has contacts, so several contacts on one point average
//            instead of adding up, and each contact still conserves
//            momentum exactly. Changes go to fixed-point accumulators with
//            integer atomics: the sums do not depend on order, so runs are
//            bitwise reproducible.
//   apply    adds the accumulators to the state and clears them and the
//            counts.
//   narrow (WARM_PASS), apply (KEEP_COUNTS)
//            a substep's first narrow phase also warm-starts: a contact
//            that persists (the first narrow phase of this substep and of
//            the last two found the same body) starts with WARM_START of
//            the normal impulse it ended the last substep with (Catto
//            2006, warm starting), applied before the impacts and the
//            first resolve. resolve and relax add each contact's normal
//            impulse to its point's total while they find that body, and
//            a contact that separates takes back what is left of its
//            warm start. It notes each point's near list, which the
//            substep's later narrow phases test instead of walking the
//            grid while it holds every body that may touch the point
//            (near_walk): the same contacts.
//   recount, relax, apply
//            a relax pass (Params::contact_relax_iterations): the stored
//            outline contacts are counted again and their velocity part
//            solved again from the velocities the last pass left, without
//            a push (Box2D v3's relax step).
//   activate, list_args (LISTED)
//            where the passes run over a list of the points that are not
//            quiet (src/gpu/body_collide.rs, PointDispatch::ActiveList):
//            a substep's activate stores each quiet point's contact as
//            quiet and appends the others to the list; list_args turns
//            the list's length into the indirect dispatch that narrow,
//            resolve, recount, relax and their applies then run over. A
//            quiet point does nothing in those passes and, as it sleeps
//            (inverse mass 0), another point's contact moves it by
//            nothing, so it has nothing to apply. In a sleeping pile most
//            points are quiet: a kernel run for them costs a CPU adapter,
//            which runs every branch under a lane mask, most of its code.
//   untangle, apply
//            tangle recovery, once per step after the first substep's
//            broad phase: one thread per body. A body whose outline's
//            centre lies inside another body's outline is tangled with it
//            (the two passed into each other, or one is wrapped round the
//            other's corner with every point outside it, where no point
//            contact sees it), and stays so while the narrow phase finds
//            the other's points inside it. A body placed (an outline point
//            not settled) or in a pair so found last step is also tangled
//            with a body that one of its outline edges passes through, the
//            midpoint deep inside and neither end (corners on faces:
//            crossings, TANGLE_CROSSED); that pair's contacts inside push
//            nothing. `tangles` records the other and
//            the direction from its centre to this body's (or to that of
//            the body of this one's assembly holding the other's centre:
//            assembly_anchor); the pair gets
//            the parting speed along it that it lacks, up to
//            sim.untangle_speed, and both assemblies wake. For the rest of
//            the step the narrow phase stands the pair's contacts outside
//            down and pushes its contacts inside along that direction, at
//            most UNTANGLE_PUSH times the pace a pass (a pair placed
//            so, TANGLE_FRESH: that much a substep, sim.untangle_push,
//            resolve): a point deep inside
//            leaves by the nearest edge, which holds two bodies that
//            passed into each other together.
//
// This file holds the bindings, the constants and the helpers the parts
// share; src/gpu/shaders.rs appends the parts, one concern each, from
// body_collide/: narrow.wgsl (the narrow phase, the quiet points and the
// active list), near.wgsl (the near list), warm.wgsl (the warm start),
// resolve.wgsl (resolve, relax, apply) and untangle.wgsl (tangle
// recovery). CPU mirror: src/cpu/body_collide/, a file per part of the
// same name (mod.rs for this one; the near list has none).

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> info: array<PointInfo>;
// Each point's sleeping record: its inverse mass also while it sleeps
// (info's is 0 then). Read by resolve's sleeper_share alone.
@group(0) @binding(25) var<storage, read> sleepers: array<SleepPoint>;
// Per point (position, velocity).
@group(0) @binding(2) var<storage, read> state: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> contact_points: array<ContactPoint>;
@group(0) @binding(5) var<storage, read> outlines: array<BodyOutline>;
@group(0) @binding(6) var<storage, read> outline_points: array<u32>;
@group(0) @binding(7) var<storage, read> filters: array<ContactFilter>;
@group(0) @binding(8) var<storage, read> colliders: array<u32>;
@group(0) @binding(9) var<storage, read> aabbs: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read> grid: array<u32>;
// narrow writes each point's contact and counts; resolve reads them.
// `counts` holds sim.num_points counts, then the active list (LISTED):
// how many points activate appended this substep (ACTIVE_APPENDED), then
// the points (from ACTIVE_POINTS, in no set order: what a pass does at a
// point does not depend on the order). CPU mirror:
// cpu::body_collide::activate.
@group(0) @binding(11) var<storage, read_write> hits: array<ContactHit>;
@group(0) @binding(12) var<storage, read_write> counts: array<atomic<u32>>;
// The active list's head (ListHead): list_args writes it, the
// passes over the list are dispatched by it and read it as a uniform.
@group(0) @binding(23) var<storage, read_write> list_head_out: array<u32>;
@group(0) @binding(24) var<uniform> list_head: ListHeadUniform;
@group(0) @binding(13) var<storage, read_write> acc: array<atomic<i32>>;

// apply's view of the state, the accumulators and the counts.
@group(0) @binding(14) var<storage, read_write> state_out: array<vec4<f32>>;
@group(0) @binding(16) var<storage, read_write> acc_sums: array<vec4<i32>>;
@group(0) @binding(17) var<storage, read_write> counts_out: array<u32>;
// Sleeping's per-assembly speeds (sleep.wgsl): a contact that approaches
// faster than the wake speed raises both sides' to SLEEP_WAKE.
@group(0) @binding(18) var<storage, read_write> sleep_speed: array<atomic<u32>>;
// Sleeping's steps at rest per assembly (sleep.wgsl): narrow skips the
// outlines of sleeping assemblies for a sleeping point.
@group(0) @binding(19) var<storage, read> rest_steps: array<u32>;
// The broad phase's slot stamps (broad_phase.wgsl, `slot_awake`): a slot
// whose stamp is not this substep's holds no awake body.
@group(0) @binding(20) var<storage, read> slot_awake: array<u32>;
// Per point, for warm starting: the body its last substep's first narrow
// phase found, the body this substep's found, the warm start it may still
// take back this substep (f32 bits) and the normal impulse its contact
// with that body has applied this substep (f32 bits; passes that find
// another body add nothing). Only the point's own thread touches it. CPU
// mirror: cpu::body_collide::Warm. After the num_points warm starts, each
// point's near list (see near_walk).
@group(0) @binding(21) var<storage, read_write> warm: array<vec4<u32>>;

// Per body b, its tangles this step (untangle; a new buffer is zeroed:
// none): two slots of four words from TANGLE_WORDS b: the other body's
// assembly plus one (0: none) with TANGLE_KEPT set by the narrow phase
// when it finds a point of that assembly inside b, the other body, and the
// bits of the unit direction from the other's outline centre to b's. CPU
// mirror: cpu::body_collide::TangleWords.
@group(0) @binding(22) var<storage, read_write> tangles: array<atomic<u32>>;
// Each point's last contact of the step with a body, (body + 1, edge)
// ((0, 0): none), noted by the contact passes' resolve for contact events
// (shaders/events.wgsl), which read and clear it: a contact that begins
// and ends within one step (two bodies thrown apart by their impact) is
// still seen.
@group(0) @binding(26) var<storage, read_write> touched: array<vec2<u32>>;

// Whether this narrow phase is a substep's first, which warm-starts.
override WARM_PASS: bool = false;
// Whether narrow, resolve, recount, relax and their applies run over the
// active list (dispatched indirectly by its head, list_args) rather than
// over every point. Tangle recovery's apply runs over every point.
override LISTED: bool = false;
// Whether apply keeps the counts (after the warm start, for the resolve).
override KEEP_COUNTS: bool = false;

// Whether the world has free points, which collide as disks (`disks`),
// set when the pipeline is made (src/gpu/body_collide.rs). Without them
// the driver drops the disk code: lavapipe runs both sides of a branch
// under a lane mask, and the disk walk cost a world that has none 7% of
// the contact scene's instructions.
override HAS_FREE_POINTS: bool = true;
// Whether some body's assembly holds other bodies (a list of joined
// bodies longer than the body itself): without, a point's own assembly is
// its own body, and the narrow phase holds no list search
// (src/gpu/body_collide.rs).
override HAS_JOINS: bool = true;

// See on_face.
const FACE_SLACK: f32 = 1e-3;
// See tip_contact.
const CORNER_TIP_RADII: f32 = 0.5;
const CORNER_TIP_BALANCE: f32 = 0.5;
// See entry_edge (narrow.wgsl).
const ENTRY_SUBSTEPS: f32 = 2.0;
// An outline runs clockwise (inside out) when its signed area is below
// -INVERTED_AREA times the sum of its terms' sizes: a flat or crushed
// outline, whose area is lost in rounding, keeps the rest winding.
const INVERTED_AREA: f32 = 1e-3;

// Whether assembly `group` sleeps (sleep.wgsl, settle).
fn asleep(group: u32) -> bool {
    return sleeps(rest_steps[group], sim.sleep_steps);
}

// Whether the two sides' layers let them collide (Gaul 2013).
fn layers_meet(a: ContactFilter, b: ContactFilter) -> bool {
    return (a.mask & b.category) != 0u && (b.mask & a.category) != 0u;
}

// Whether point `p` (of assembly `group`, joined to the bodies `joins`
// names, filter `pf`) can touch body `b` at all: `p` in the body's box,
// then may_meet. test_body's first tests.
// The box comes first: most bodies of a cell do not reach a given point,
// and the box is one load, where the others wait on the outline's record.
fn may_touch(b: u32, p: vec2<f32>, group: u32, joins: u32, pf: ContactFilter, sleeping: bool) -> bool {
    // The box already includes the radius (broad_phase.wgsl).
    return box_holds(aabbs[b], p) && may_meet(b, group, joins, pf, sleeping);
}

// Whether box `bb` (lower corner, upper corner) holds `p`.
fn box_holds(bb: vec4<f32>, p: vec2<f32>) -> bool {
    return !(p.x < bb.x || p.y < bb.y || p.x > bb.z || p.y > bb.w);
}

// may_touch's tests other than the box: another assembly or a body of its
// own not joined to it, layers that meet, not two sleeping sides.
fn may_meet(b: u32, group: u32, joins: u32, pf: ContactFilter, sleeping: bool) -> bool {
    let o = outlines[b];
    if ((o.group == group && !(HAS_JOINS && meets_joined(joins, b))) || !layers_meet(pf, filters[o.filter_id])) {
        return false;
    }
    // Two sleeping sides: neither would move, and the point's contact
    // with an awake body (which its deepest could otherwise hide) counts.
    return !(sleeping && asleep(o.group));
}

// Whether a side whose joined bodies' list is `joins` (ContactPoint
// joins; a body's follows its outline, at first + count) collides with body `b` of its own assembly: never
// with NO_JOINS, else when `b` is not on the list, which is ascending: a
// binary search, a few loads however many bodies an assembly joins.
// CPU mirror: cpu::body_collide::meets_joined.
fn meets_joined(joins: u32, b: u32) -> bool {
    if (joins == NO_JOINS) {
        return false;
    }
    // The list is outline_points[joins + 1 .. joins + 1 + n]: find the
    // first entry not below `b` in [lo, hi).
    var lo = joins + 1u;
    var hi = lo + outline_points[joins];
    while (lo < hi) {
        let mid = lo + (hi - lo) / 2u;
        if (outline_points[mid] < b) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo == joins + 1u + outline_points[joins] || outline_points[lo] != b;
}

// One pass over an outline about `p`: whether `p` is inside (crossing
// number), the nearest edge (its index, clamped and unclamped projection
// parameters, direction and start), the outline's winding now (`orient`:
// 1 counter-clockwise, -1 clockwise: a body turned inside out) and, with
// `with_entry`, the entry edge for either winding (entry_edge's choice,
// whose outline pass it saves a point inside the outline).
struct OutlineScan {
    inside: bool,
    d2: f32,
    edge: u32,
    t: f32,
    raw: f32,
    dir: vec2<f32>,
    start: vec2<f32>,
    orient: f32,
    // entry_edge's edge for a counter-clockwise and for a clockwise
    // outline.
    entry_ccw: u32,
    entry_cw: u32,
}

fn scan_outline(o: BodyOutline, p: vec2<f32>, v: vec2<f32>, with_entry: bool) -> OutlineScan {
    var s = OutlineScan(false, 3.4028235e38, 0u, 0.0, 0.0, vec2<f32>(0.0), vec2<f32>(0.0), 1.0, 0u, 0u);
    // Twice the outline's signed area, about `p`, and the sum of its
    // terms' sizes: the winding, trusted where the area is not lost in
    // rounding.
    var area2 = 0.0;
    var area_abs = 0.0;
    let reach = ENTRY_SUBSTEPS * sim.h;
    var score_ccw = 3.4028235e38;
    var score_cw = 3.4028235e38;
    var sa = state[outline_points[o.first]];
    for (var k = 0u; k < o.count; k++) {
        var next = k + 1u;
        if (next == o.count) {
            next = 0u;
        }
        let sc = state[outline_points[o.first + next]];
        let a = sa.xy;
        let c = sc.xy;
        let tri = cross2(a - p, c - p);
        area2 += tri;
        area_abs += abs(tri);
        if ((a.y > p.y) != (c.y > p.y)) {
            let x = a.x + (p.y - a.y) / (c.y - a.y) * (c.x - a.x);
            if (p.x < x) {
                s.inside = !s.inside;
            }
        }
        let ac = c - a;
        let pr = project(p, a, ac);
        if (pr.d2 < s.d2) {
            s.d2 = pr.d2;
            s.edge = k;
            s.t = pr.t;
            s.raw = pr.raw;
            s.dir = ac;
            s.start = a;
        }
        if (with_entry) {
            // entry_score for either winding.
            let ccw = entry_score(pr, sa.zw, sc.zw, v, face_normal(ac) * 1.0, reach);
            let cw = entry_score(pr, sa.zw, sc.zw, v, face_normal(ac) * -1.0, reach);
            if (ccw < score_ccw) {
                score_ccw = ccw;
                s.entry_ccw = k;
            }
            if (cw < score_cw) {
                score_cw = cw;
                s.entry_cw = k;
            }
        }
        sa = sc;
    }
    if (area2 < -INVERTED_AREA * area_abs) {
        s.orient = -1.0;
    }
    return s;
}

// `p` projected on the edge from `a` along `ac`: the unclamped parameter,
// the parameter clamped to the edge, the nearest point on the edge and the
// squared distance to it.
struct Projection {
    raw: f32,
    t: f32,
    e: vec2<f32>,
    d2: f32,
}

fn project(p: vec2<f32>, a: vec2<f32>, ac: vec2<f32>) -> Projection {
    let len2 = dot(ac, ac);
    var raw = 0.0;
    if (len2 > TINY_DIST2) {
        raw = dot(p - a, ac) / len2;
    }
    let t = clamp(raw, 0.0, 1.0);
    let e = a + ac * t;
    let d = e - p;
    return Projection(raw, t, e, dot(d, d));
}

// An edge's entry score: its distance from the point, less ENTRY_SUBSTEPS
// h times the speed at which the point moves inward through it (along
// `outward`, the edge's outward normal for the winding scored), relative
// to the edge where the point projects (`va`, `vc`: the ends' velocities).
fn entry_score(pr: Projection, va: vec2<f32>, vc: vec2<f32>, v: vec2<f32>, outward: vec2<f32>, reach: f32) -> f32 {
    let ve = va + (vc - va) * pr.t;
    let inward = max(dot(ve - v, outward), 0.0);
    return sqrt(pr.d2) - reach * inward;
}

// Whether a projection parameter falls on its edge, give or take 1e-3 of
// the edge's length (so that rounding cannot drop a corner resting exactly
// on another).
fn on_face(raw: f32) -> bool {
    return raw >= -FACE_SLACK && raw <= 1.0 + FACE_SLACK;
}

// The outward normal of an edge running `dir` of a counter-clockwise
// outline (a clockwise one's is its negative), or zero for a degenerate
// edge.
fn face_normal(dir: vec2<f32>) -> vec2<f32> {
    let len2 = dot(dir, dir);
    if (len2 > TINY_DIST2) {
        return vec2<f32>(dir.y, -dir.x) / sqrt(len2);
    }
    return vec2<f32>(0.0);
}

// Adds `dp` and `dv` to point k's accumulators, in fixed point.
// Adds a contribution (dp, dv) to point k's accumulator, which takes at
// most `count` of them this pass (fixed_of).
fn add_fixed(k: u32, dp: vec2<f32>, dv: vec2<f32>, count: u32) {
    let q = fixed_of(dp, sim.contact_scale, count);
    let r = fixed_of(dv, sim.contact_scale, count);
    atomicAdd(&acc[4u * k], q.x);
    atomicAdd(&acc[4u * k + 1u], q.y);
    atomicAdd(&acc[4u * k + 2u], r.x);
    atomicAdd(&acc[4u * k + 3u], r.y);
}

// Where a point's walk of slot `slot` (whose entries end at `end`) starts:
// at its first entry, or, for a sleeping point in a slot no awake body
// entered this substep, at its end (it tests awake bodies alone). CPU
// mirror: the `awake` test in cpu::body_collide::walk_bodies.
fn walk_start(slot: u32, end: u32, sleeping: bool) -> u32 {
    if (sleeping && slot_awake[slot] != slot_awake[sim.table_mask + 1u]) {
        return end;
    }
    return grid[slot];
}

// The ends of the edge a contact hit.
fn edge_ends(hit: ContactHit) -> vec2<u32> {
    let o = outlines[hit.body];
    var next = hit.edge + 1u;
    if (next == o.count) {
        next = 0u;
    }
    return vec2<u32>(outline_points[o.first + hit.edge], outline_points[o.first + next]);
}

// The point a pass's thread works on: its index, or with LISTED its
// entry of the active list; sim.num_points past the end.
fn pass_point(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    if (LISTED) {
        let k = indirect_index(gid, list_head.groups.x);
        if (k >= list_head.count) {
            return sim.num_points;
        }
        return atomicLoad(&counts[sim.num_points + ACTIVE_POINTS + k]);
    }
    return linear_index(gid, groups);
}
