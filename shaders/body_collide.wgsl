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
//            the other's points inside it. `tangles` records the other and
//            the direction from its centre to this body's (or to that of
//            the body of this one's assembly holding the other's centre:
//            assembly_anchor); the pair gets
//            the parting speed along it that it lacks, up to
//            sim.untangle_speed, and both assemblies wake. For the rest of
//            the step the narrow phase stands the pair's contacts outside
//            down and pushes its contacts inside along that direction, at
//            most UNTANGLE_PUSH times the pace: a point deep inside
//            leaves by the nearest edge, which holds two bodies that
//            passed into each other together.
//
// CPU mirror: src/cpu/body_collide/ (the warm start in warm.rs).

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> info: array<PointInfo>;
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

// Whether this narrow phase is a substep's first, which warm-starts.
override WARM_PASS: bool = false;
// Whether narrow, resolve, recount, relax and their applies run over the
// active list (dispatched indirectly by its head, list_args) rather than
// over every point. Tangle recovery's apply runs over every point.
override LISTED: bool = false;
// Whether apply keeps the counts (after the warm start, for the resolve).
override KEEP_COUNTS: bool = false;
// The share of a persisting contact's last normal impulse it starts with
// (CPU mirror: cpu::body_collide::WARM_START).
const WARM_START: f32 = 0.8;

// Whether the world has free points, which collide as disks (`disks`),
// set when the pipeline is made (src/gpu/body_collide.rs). Without them
// the driver drops the disk code: lavapipe runs both sides of a branch
// under a lane mask, and the disk walk cost a world that has none 7% of
// the contact scene's instructions.
override HAS_FREE_POINTS: bool = true;

// See on_face.
const FACE_SLACK: f32 = 1e-3;
// See entry_edge.
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

// Whether point `p` (of assembly `group`, filter `pf`) can touch body `b`
// at all: `p` in the body's box, then may_meet. test_body's first tests.
// The box comes first: most bodies of a cell do not reach a given point,
// and the box is one load, where the others wait on the outline's record.
fn may_touch(b: u32, p: vec2<f32>, group: u32, pf: ContactFilter, sleeping: bool) -> bool {
    // The box already includes the radius (broad_phase.wgsl).
    return box_holds(aabbs[b], p) && may_meet(b, group, pf, sleeping);
}

// Whether box `bb` (lower corner, upper corner) holds `p`.
fn box_holds(bb: vec4<f32>, p: vec2<f32>) -> bool {
    return !(p.x < bb.x || p.y < bb.y || p.x > bb.z || p.y > bb.w);
}

// may_touch's tests other than the box: another assembly, layers that
// meet, not two sleeping sides.
fn may_meet(b: u32, group: u32, pf: ContactFilter, sleeping: bool) -> bool {
    let o = outlines[b];
    if (o.group == group || !layers_meet(pf, filters[o.filter_id])) {
        return false;
    }
    // Two sleeping sides: neither would move, and the point's contact
    // with an awake body (which its deepest could otherwise hide) counts.
    return !(sleeping && asleep(o.group));
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

// Keeps `hit` in `best` when it is deeper (ties: the lower body index),
// so that the result does not depend on the order bodies are tested in.
fn keep_deepest(best: ptr<function, ContactHit>, hit: ContactHit) {
    if (hit.depth > (*best).depth || (hit.depth == (*best).depth && hit.body < (*best).body)) {
        *best = hit;
    }
}

// The contact of a point outside body `b` within the radius whose
// projection falls on its nearest edge (`s`): out along that edge's face
// normal.
fn face_contact(b: u32, s: OutlineScan, p: vec2<f32>, best: ptr<function, ContactHit>) {
    let n = face_normal(s.dir) * s.orient;
    let depth = sim.point_radius - dot(p - s.start, n);
    // A degenerate edge (two outline points on one spot, as in a crushed
    // body) has no normal: no contact with it rather than one that pushes
    // nowhere and still damps and splits.
    if (depth <= 0.0 || all(n == vec2<f32>(0.0))) {
        return;
    }
    keep_deepest(best, ContactHit(depth, b, s.edge, s.t, n));
}

// The first word of body `b`'s tangle slot with assembly `group` this
// step (untangle), or NO_BODY when they are not tangled.
fn tangle_word(b: u32, group: u32) -> u32 {
    for (var k = 0u; k < 2u; k++) {
        let w = TANGLE_WORDS * b + 4u * k;
        if ((atomicLoad(&tangles[w]) & ~TANGLE_KEPT) == group + 1u) {
            return w;
        }
    }
    return NO_BODY;
}

// Point `p` moving at `v` (of assembly `group`, filter `pf`) against body
// `b`'s outline: crossing-number point-in-polygon and the nearest edge, in
// one pass, then for a point inside the edge it came in by. Like
// against planets, the point has radius `point_radius`: it is in contact
// when inside the outline (depth: distance to the entry edge plus the
// radius) or within the radius outside it (depth: radius minus distance).
// For a body that may touch the point (may_touch, which the walk tested).
// CPU mirror: cpu::body_collide::test_body, after its may_touch.
fn test_body(b: u32, p: vec2<f32>, v: vec2<f32>, group: u32, best: ptr<function, ContactHit>) {
    let o = outlines[b];
    let s = scan_outline(o, p, v, true);
    let r = sim.point_radius;
    if (!s.inside && s.d2 >= r * r) {
        return;
    }
    // A body tangled with the point's assembly (untangle): the pair's
    // contacts outside stand down, those inside push along the pair's
    // direction.
    let tangle = tangle_word(b, group);
    let tangled = tangle != NO_BODY;
    if (tangled && !s.inside) {
        return;
    }
    if (!s.inside) {
        // Outside, within the radius: out along the face normal of the
        // edge the point faces (its projection falls on the edge). Beyond a
        // corner it faces neither edge there and touches nothing: the
        // corner itself meets this point's body instead. (Pushing such a
        // point off the corner's side would shove a box resting on another
        // sideways as soon as it overhangs: stacks would snake apart.)
        if (on_face(s.raw)) {
            face_contact(b, s, p, best);
            return;
        }
        var k2 = s.edge + 1u;
        if (s.raw < 0.0) {
            k2 = s.edge + o.count - 1u;
        }
        if (k2 >= o.count) {
            k2 -= o.count;
        }
        var k3 = k2 + 1u;
        if (k3 == o.count) {
            k3 = 0u;
        }
        let a2 = state[outline_points[o.first + k2]].xy;
        let dir2 = state[outline_points[o.first + k3]].xy - a2;
        let len2 = dot(dir2, dir2);
        if (len2 <= TINY_DIST2) {
            return;
        }
        let raw2 = dot(p - a2, dir2) / len2;
        if (!on_face(raw2)) {
            return;
        }
        var side = s;
        side.edge = k2;
        side.t = clamp(raw2, 0.0, 1.0);
        side.dir = dir2;
        side.start = a2;
        face_contact(b, side, p, best);
        return;
    }
    let entry = entry_edge(o, p, s);
    var depth = r;
    var n = face_normal(entry.dir) * s.orient;
    if (tangled) {
        // The pair's direction, no deeper than its pace allows; and the
        // tangle holds at the next step.
        atomicOr(&tangles[tangle], TANGLE_KEPT);
        depth = min(r + sqrt(entry.d2), UNTANGLE_PUSH * sim.untangle_speed * sim.h);
        n = -vec2<f32>(bitcast<f32>(atomicLoad(&tangles[tangle + 2u])), bitcast<f32>(atomicLoad(&tangles[tangle + 3u])));
    } else if (entry.d2 > TINY_DIST2) {
        let dist = sqrt(entry.d2);
        depth = r + dist;
        n = (entry.nearest - p) / dist;
    }
    if (depth <= 0.0 || all(n == vec2<f32>(0.0))) {
        return;
    }
    keep_deepest(best, ContactHit(depth, b, entry.edge, entry.t, n));
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

struct EntryEdge {
    edge: u32,
    t: f32,
    dir: vec2<f32>,
    nearest: vec2<f32>,
    d2: f32,
}

// The edge a point inside an outline is pushed out through: the nearest,
// counting each edge nearer by ENTRY_SUBSTEPS h times the speed at which
// the point moves inward through it (relative to the edge there), so that
// a point that just came in goes back out the way it came, not out through
// a nearer side edge in line with its path. scan_outline scores the edges
// for either winding (`entry_ccw`, `entry_cw`); this takes the one of the
// outline's winding now (`orient`) and rebuilds it from its two ends.
// CPU mirror: cpu::body_collide::entry_edge (in a pass of its own).
fn entry_edge(o: BodyOutline, p: vec2<f32>, s: OutlineScan) -> EntryEdge {
    var k = s.entry_ccw;
    if (s.orient < 0.0) {
        k = s.entry_cw;
    }
    var next = k + 1u;
    if (next == o.count) {
        next = 0u;
    }
    let a = state[outline_points[o.first + k]].xy;
    let ac = state[outline_points[o.first + next]].xy - a;
    let pr = project(p, a, ac);
    return EntryEdge(k, pr.t, ac, pr.e, pr.d2);
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

fn add_fixed(k: u32, dp: vec2<f32>, dv: vec2<f32>) {
    let q = fixed(dp, sim.contact_scale);
    let r = fixed(dv, sim.contact_scale);
    atomicAdd(&acc[4u * k], q.x);
    atomicAdd(&acc[4u * k + 1u], q.y);
    atomicAdd(&acc[4u * k + 2u], r.x);
    atomicAdd(&acc[4u * k + 3u], r.y);
}

// Whether the point at `p` (its ContactPoint `cp`) can have no contact
// this substep: it sleeps, is no free point (whose disks meet sleeping
// ones), no awake body entered its slot (walk_start) and there is no
// large body: deepest would test nothing, and no later pass of the
// substep would either, as a sleeping point does not move. The substep's
// first narrow phase stores its contact as quiet (QUIET_EDGE), and the
// later one skips it at that load. CPU mirror:
// cpu::body_collide::quiet_point.
fn quiet_point(p: vec2<f32>, cp: ContactPoint) -> bool {
    if ((cp.filter_id & CONTACT_FREE) != 0u || !asleep(cp.group)) {
        return false;
    }
    let slot = cell_slot(grid_cell(p, sim.inv_cell), sim.table_mask);
    return slot_awake[slot] != slot_awake[sim.table_mask + 1u] && grid[large_base(sim.table_mask)] == 0u;
}

// Where a point's walk of slot `slot` (whose entries end at `end`) starts:
// at its first entry, or, for a sleeping point in a slot no awake body
// entered this substep, at its end (it tests awake bodies alone). CPU
// mirror: the `awake` test in cpu::body_collide::deepest.
fn walk_start(slot: u32, end: u32, sleeping: bool) -> u32 {
    if (sleeping && slot_awake[slot] != slot_awake[sim.table_mask + 1u]) {
        return end;
    }
    return grid[slot];
}

// The near list: a substep's first narrow phase (WARM_PASS) notes, for
// each awake point, the bodies that pass may_touch's tests with their box
// grown by NEAR_NOTE point radii (at most NEAR_SLOTS of them, each marked
// NEAR_HELD when its box itself holds the point), with the broad phase's
// stamp and the point's position. The substep's later narrow phases test
// those bodies rather than walk the grid while the grid, the boxes and the
// other tests are the same (the stamp) and the point has moved within its
// cell by at most NEAR_REACH radii on each axis (near_walk): every body
// whose box holds it then is on the list (the notes reach further than
// that, so rounding cannot leave one off), and keep_deepest does not
// depend on the order, so the contacts are the walk's. On a CPU adapter,
// where a load is a loop over the lanes, a walk of a few grid entries
// costs several times the list. The record lives in `warm` after the
// points' warm starts, NEAR_RECORD_WORDS words a point from vec4
// num_points + 2 i: the stamp, the count (NEAR_NO_LIST: none kept), the
// position's bits, then the bodies. The walk's CPU mirror is
// cpu::body_collide::deepest, whose contacts the list does not change.
// The top bit of a noted body (a body index is below 2^30, MAX_ITEMS).
const NEAR_HELD: u32 = 0x80000000u;
const NEAR_NO_LIST: u32 = 0xffffffffu;
const NEAR_NOTE: f32 = 1.5;
const NEAR_REACH: f32 = 1.0;

// The list a walk notes, or near_walk read.
var<private> near_n: u32;
var<private> near_ids: vec4<u32>;

fn near_record(i: u32) -> u32 {
    return sim.num_points + (NEAR_RECORD_WORDS / 4u) * i;
}

// This substep's broad phase's stamp (broad_phase.wgsl, `clear`).
fn grid_stamp() -> u32 {
    return slot_awake[sim.table_mask + 1u];
}

// How far the walk of a substep's first narrow phase grows the boxes of
// the bodies it notes (none for a sleeping point, which keeps no list).
fn near_grow(sleeping: bool) -> f32 {
    if (WARM_PASS && !sleeping) {
        return NEAR_NOTE * sim.point_radius;
    }
    return 0.0;
}

// Whether body `b`, met on the walk, may touch the point (may_touch); with
// WARM_PASS it also notes the body on the near list when its box grown
// by `grow` holds the point and the other tests pass.
fn walk_touch(b: u32, p: vec2<f32>, group: u32, pf: ContactFilter, sleeping: bool, grow: f32) -> bool {
    if (!WARM_PASS || grow == 0.0) {
        return may_touch(b, p, group, pf, sleeping);
    }
    // An awake point (grow > 0): may_meet's sleeping test passes.
    let bb = aabbs[b];
    if (!box_holds(bb + vec4<f32>(-grow, -grow, grow, grow), p) || !may_meet(b, group, pf, false)) {
        return false;
    }
    let held = box_holds(bb, p);
    if (near_n < NEAR_SLOTS) {
        near_ids[near_n] = select(b, b | NEAR_HELD, held);
    }
    near_n++;
    return held;
}

// Stores the near list the walk of point i at `p` noted.
fn note_near_list(i: u32, p: vec2<f32>, sleeping: bool) {
    var n = near_n;
    if (sleeping || n > NEAR_SLOTS) {
        n = NEAR_NO_LIST;
    }
    let r = near_record(i);
    warm[r] = vec4<u32>(grid_stamp(), n, bitcast<u32>(p.x), bitcast<u32>(p.y));
    if (n != NEAR_NO_LIST && n > 0u) {
        warm[r + 1u] = near_ids;
    }
}

// A later narrow phase's near list for awake point i, now at `p`: false
// (walk the grid) unless the list is this substep's and whole, and `p` is
// in its cell within NEAR_REACH radii of where it was noted; else true, with
// the bodies that may touch `p` in near_ids[0 .. near_n].
fn near_walk(i: u32, p: vec2<f32>, sleeping: bool) -> bool {
    let r = near_record(i);
    let head = warm[r];
    if (sleeping || head.y == NEAR_NO_LIST || head.x != grid_stamp()) {
        return false;
    }
    let was = vec2<f32>(bitcast<f32>(head.z), bitcast<f32>(head.w));
    let moved = abs(p - was);
    if (!(max(moved.x, moved.y) <= NEAR_REACH * sim.point_radius) || any(grid_cell(p, sim.inv_cell) != grid_cell(was, sim.inv_cell))) {
        return false;
    }
    near_n = 0u;
    if (head.y == 0u) {
        return true;
    }
    let ids = warm[r + 1u];
    let still = all(p == was);
    for (var k = 0u; k < head.y; k++) {
        let b = ids[k] & ~NEAR_HELD;
        var held = (ids[k] & NEAR_HELD) != 0u;
        if (!still) {
            held = box_holds(aabbs[b], p);
        }
        if (held) {
            near_ids[near_n] = b;
            near_n++;
        }
    }
    return true;
}

// How deepest walks (src/gpu/body_collide.rs, NarrowWalk): in batches
// (deepest_batched, for CPU adapters), or testing each entry in full as it
// comes (for GPUs, where the batches' private arrays cost more than the
// divergence they save: the H100 took 16.3 ms for the contact scene's body
// contacts batched, 13.2 ms entry by entry). The same contacts either way.
override NARROW_BATCHED: bool = false;

// The deepest body contact of point `i` at `p`: test_body against every
// body of its cell's grid entries and the large list. CPU mirror:
// cpu::body_collide::deepest.
fn deepest(i: u32, p: vec2<f32>, v: vec2<f32>, cp: ContactPoint, pf: ContactFilter) -> ContactHit {
    if (NARROW_BATCHED) {
        return deepest_batched(i, p, v, cp, pf);
    }
    var best = ContactHit(0.0, NO_BODY, 0u, 0.0, vec2<f32>(0.0));
    let sleeping = asleep(cp.group);
    if (!WARM_PASS && near_walk(i, p, sleeping)) {
        for (var k = 0u; k < near_n; k++) {
            test_body(near_ids[k], p, v, cp.group, &best);
        }
        return best;
    }
    let grow = near_grow(sleeping);
    let cell = grid_cell(p, sim.inv_cell);
    let slot = cell_slot(cell, sim.table_mask);
    let key = cell_key(cell);
    let end = grid[slot + 1u];
    for (var e = walk_start(slot, end, sleeping); e < end; e++) {
        let c = grid[entry_base(sim.table_mask, sim.num_colliders) + 2u * e];
        if (c < sim.num_bodies && grid[entry_base(sim.table_mask, sim.num_colliders) + 2u * e + 1u] == key) {
            if (walk_touch(c, p, cp.group, pf, sleeping, grow)) {
                test_body(c, p, v, cp.group, &best);
            }
        }
    }
    let large = grid[large_base(sim.table_mask)];
    for (var k = 0u; k < large; k++) {
        let c = grid[large_base(sim.table_mask) + 1u + k];
        if (c < sim.num_bodies && walk_touch(c, p, cp.group, pf, sleeping, grow)) {
            test_body(c, p, v, cp.group, &best);
        }
    }
    if (WARM_PASS) {
        note_near_list(i, p, sleeping);
    }
    return best;
}

// Bodies a point collects from its walk before it scans their outlines
// (see deepest).
const NARROW_BATCH: u32 = 8u;

// deepest in batches (NARROW_BATCHED), for lanes that walk in step: a
// point walks its entries with may_touch's cheap tests alone, collecting
// up to NARROW_BATCH bodies, scans their outlines, finishes at once the
// common contact (outside, facing an edge), and gives the rest (inside,
// or beyond a corner) to test_body.
// Lavapipe runs every branch of a loop's body under a lane mask, so a walk
// that called test_body on each entry paid for the outline scan, the entry
// edge and the corner case for every entry any lane of the batch tested.
// The result is test_body's over all those bodies: keep_deepest does not
// depend on the order.
fn deepest_batched(i: u32, p: vec2<f32>, v: vec2<f32>, cp: ContactPoint, pf: ContactFilter) -> ContactHit {
    var best = ContactHit(0.0, NO_BODY, 0u, 0.0, vec2<f32>(0.0));
    let sleeping = asleep(cp.group);
    // A later narrow phase takes the near list, when it serves, as its one
    // batch: one call site of test_batch, whose code every batch of lanes
    // runs once whichever way its lanes went.
    let listed = !WARM_PASS && near_walk(i, p, sleeping);
    let grow = near_grow(sleeping);
    let cell = grid_cell(p, sim.inv_cell);
    let slot = cell_slot(cell, sim.table_mask);
    let key = cell_key(cell);
    let entries = entry_base(sim.table_mask, sim.num_colliders);
    let large = large_base(sim.table_mask);
    // The walk: the cell's slot entries, then the large list.
    var end = 0u;
    var last = 0u;
    var e = 0u;
    if (!listed) {
        end = grid[slot + 1u];
        last = end + grid[large];
        e = walk_start(slot, end, sleeping);
    }
    var found: array<u32, NARROW_BATCH>;
    loop {
        var n = 0u;
        if (listed) {
            for (; n < near_n; n++) {
                found[n] = near_ids[n];
            }
        }
        for (; e < last && n < NARROW_BATCH; e++) {
            var c = NO_BODY;
            if (e < end) {
                if (grid[entries + 2u * e + 1u] == key) {
                    c = grid[entries + 2u * e];
                }
            } else {
                c = grid[large + 1u + (e - end)];
            }
            if (c < sim.num_bodies && walk_touch(c, p, cp.group, pf, sleeping, grow)) {
                found[n] = c;
                n++;
            }
        }
        test_batch(&found, n, p, v, cp.group, &best);
        if (e >= last) {
            break;
        }
    }
    if (WARM_PASS) {
        note_near_list(i, p, sleeping);
    }
    return best;
}

// deepest_batched's tests of the `n` bodies it `found` that may touch the
// point: their outlines scanned, the common contact (outside, facing an
// edge) finished at once, the rest given to test_body.
fn test_batch(found: ptr<function, array<u32, NARROW_BATCH>>, n: u32, p: vec2<f32>, v: vec2<f32>, group: u32, best: ptr<function, ContactHit>) {
    let r2 = sim.point_radius * sim.point_radius;
    var hard: array<u32, NARROW_BATCH>;
    var m = 0u;
    for (var k = 0u; k < n; k++) {
        let b = (*found)[k];
        let s = scan_outline(outlines[b], p, v, false);
        if (!s.inside && s.d2 < r2) {
            // A tangled pair's contacts outside stand down (test_body).
            if (on_face(s.raw) && tangle_word(b, group) == NO_BODY) {
                face_contact(b, s, p, best);
            } else {
                hard[m] = b;
                m++;
            }
        } else if (s.inside) {
            hard[m] = b;
            m++;
        }
    }
    for (var k = 0u; k < m; k++) {
        test_body(hard[k], p, v, group, best);
    }
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

// A point's inverse mass split over its `count` contacts (mass splitting).
fn split(w: f32, count: u32) -> f32 {
    return w * f32(max(count, 1u));
}

// Free point `i` against the other free points, as disks of point_radius:
// with `resolve` false, the number of contacts; with it true, the point's
// own fixed-point changes from them. A pair is counted in one cell only,
// the cell of the lower corner of the overlap of the two disks' boxes.
fn disks(i: u32, p: vec2<f32>, v: vec2<f32>, wi: f32, cp: ContactPoint, pf: ContactFilter, resolve: bool) -> vec4<i32> {
    var out = vec4<i32>(0);
    let rr = vec2<f32>(sim.point_radius);
    let reach = 2.0 * sim.point_radius;
    let lo = grid_cell(p - rr, sim.inv_cell);
    let hi = grid_cell(p + rr, sim.inv_cell);
    // At most 2 x 2 cells, unless the position is not finite.
    if (any(hi - lo > vec2<i32>(1))) {
        return out;
    }
    for (var y = lo.y; y <= hi.y; y++) {
        for (var x = lo.x; x <= hi.x; x++) {
            let cell = vec2<i32>(x, y);
            let slot = cell_slot(cell, sim.table_mask);
            let key = cell_key(cell);
            let end = grid[slot + 1u];
            for (var e = grid[slot]; e < end; e++) {
                let c = grid[entry_base(sim.table_mask, sim.num_colliders) + 2u * e];
                if (c < sim.num_bodies || grid[entry_base(sim.table_mask, sim.num_colliders) + 2u * e + 1u] != key) {
                    continue;
                }
                let j = colliders[sim.num_colliders + c - sim.num_bodies];
                let cj = contact_points[j];
                if (j == i || cj.group == cp.group) {
                    continue;
                }
                let jf = filters[cj.filter_id & ~CONTACT_FREE];
                if (!layers_meet(pf, jf)) {
                    continue;
                }
                let q = state[j].xy;
                let d = p - q;
                let d2 = dot(d, d);
                if (d2 >= reach * reach) {
                    continue;
                }
                if (any(grid_cell(max(p - rr, q - rr), sim.inv_cell) != cell)) {
                    continue;
                }
                let wj = info[j].inv_mass;
                let w = wi + wj;
                if (w == 0.0) {
                    continue;
                }
                if (!resolve) {
                    out.x += 1;
                    continue;
                }
                let split_w = split(wi, atomicLoad(&counts[i])) + split(wj, atomicLoad(&counts[j]));
                let dist = sqrt(d2);
                var n = vec2<f32>(1.0, 0.0);
                if (d2 > TINY_DIST2) {
                    n = d / dist;
                } else if (j < i) {
                    n = vec2<f32>(-1.0, 0.0);
                }
                let r = contact_response(v - state[j].zw, n, reach - dist, pair_material(pf, jf), sim.h, sim.restitution_threshold);
                let push = (n * (reach - dist) + r.zw) / split_w;
                let jv = r.xy / split_w;
                out += vec4<i32>(fixed(push * wi, sim.contact_scale), fixed(jv * wi, sim.contact_scale));
            }
        }
    }
    return out;
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

// Stores point i's contact as quiet for the substep (its first narrow
// phase or activate found it so), with the warm start a point without
// contact has (warm_start with no body: no impulse).
fn store_quiet(i: u32) {
    hits[i] = ContactHit(0.0, NO_BODY, QUIET_EDGE, 0.0, vec2<f32>(0.0));
    let w = warm[i];
    warm[i] = vec4<u32>(w.y, NO_BODY, 0u, 0u);
}

// Whether a pass after the substep's first narrow phase skips point i: it
// was found quiet, and has no contact all substep.
fn found_quiet(i: u32) -> bool {
    return hits[i].edge == QUIET_EDGE;
}

// Point i's part of the active list: a substep's activate (WARM_PASS)
// stores a quiet point's contact as quiet and appends any other point; an
// activate on its own (a pass recorded alone) appends every point not
// found quiet. CPU mirror: cpu::body_collide::activate.
@compute @workgroup_size(WORKGROUP_SIZE)
fn activate(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    if (WARM_PASS) {
        // A listed apply clears only the listed points' counts: a quiet
        // point's may have been counted as another point's edge end,
        // which changes nothing (it sleeps: inverse mass 0, so its split
        // share is 0 whatever its count) until this clears it.
        atomicStore(&counts[i], 0u);
        if (quiet_point(state[i].xy, contact_points[i])) {
            store_quiet(i);
            return;
        }
    } else if (found_quiet(i)) {
        return;
    }
    let base = sim.num_points;
    let k = atomicAdd(&counts[base + ACTIVE_APPENDED], 1u);
    atomicStore(&counts[base + ACTIVE_POINTS + k], i);
}

// The active list's dispatch from what activate appended: the length,
// the workgroups (x at most LIST_ROW, then rows), and the
// append count cleared for the next activate. One thread.
@compute @workgroup_size(1)
fn list_args() {
    let base = sim.num_points;
    let len = atomicLoad(&counts[base + ACTIVE_APPENDED]);
    atomicStore(&counts[base + ACTIVE_APPENDED], 0u);
    let groups = (len + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
    let x = min(groups, LIST_ROW);
    list_head_out[0] = x;
    list_head_out[1] = select(1u, (groups + x - 1u) / max(x, 1u), x > 0u);
    list_head_out[2] = 1u;
    list_head_out[3] = len;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn narrow(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = pass_point(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    // A point the substep's first narrow phase found quiet has no contact
    // all substep (a listed pass meets none).
    if (!WARM_PASS && !LISTED && found_quiet(i)) {
        return;
    }
    let si = state[i];
    let p = si.xy;
    let cp = contact_points[i];
    let wi = info[i].inv_mass;
    // activate stored the quiet points of a listed pass.
    if (WARM_PASS && !LISTED && quiet_point(p, cp)) {
        store_quiet(i);
        return;
    }
    let pf = filters[cp.filter_id & ~CONTACT_FREE];
    let best = deepest(i, p, si.zw, cp, pf);
    hits[i] = best;
    if (best.body != NO_BODY) {
        count_contact(i, best);
    }
    if (WARM_PASS) {
        warm_start(i, best, wi);
    }
    if (HAS_FREE_POINTS && (cp.filter_id & CONTACT_FREE) != 0u) {
        let k = disks(i, p, vec2<f32>(0.0), wi, cp, pf, false).x;
        if (k > 0) {
            atomicAdd(&counts[i], u32(k));
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn resolve(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    resolve_at(pass_point(gid, groups), false);
}

// The relax pass: the velocity part of each stored outline contact again,
// from the velocities the last pass left, with no push (Box2D v3's relax
// step; free disks are left out). After recount.
@compute @workgroup_size(WORKGROUP_SIZE)
fn relax(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    resolve_at(pass_point(gid, groups), true);
}

// Counts each stored outline contact again (apply cleared the counts), for
// a relax pass.
@compute @workgroup_size(WORKGROUP_SIZE)
fn recount(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = pass_point(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    // The body alone first: most points have no contact (and those of a
    // sleeping pile are quiet), and a load is a loop over the lanes on a
    // CPU adapter.
    if (hits[i].body != NO_BODY) {
        count_contact(i, hits[i]);
    }
}

// The warm start of a point whose substep's first narrow phase found
// `hit`, from its state `w`: WARM_START of its last substep's normal
// impulse if that contact was with the same body and had persisted from
// the substep before (a new contact, such as an impact's, never carries
// its impulse over), else 0. CPU mirror: cpu::body_collide::warm_impulse.
fn warm_impulse(hit: ContactHit, w: vec4<u32>) -> f32 {
    let total = bitcast<f32>(w.w);
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
        let jn = hit.n * j;
        let own = fixed(jn * wi, sim.contact_scale);
        if (any(own != vec2<i32>(0))) {
            atomicAdd(&acc[4u * i + 2u], own.x);
            atomicAdd(&acc[4u * i + 3u], own.y);
        }
        if (wa > 0.0) {
            add_fixed(ends.x, vec2<f32>(0.0), -jn * ((1.0 - hit.t) * wa));
        }
        if (wb > 0.0) {
            add_fixed(ends.y, vec2<f32>(0.0), -jn * (hit.t * wb));
        }
    }
    warm[i] = vec4<u32>(w.y, hit.body, bitcast<u32>(j), bitcast<u32>(j));
}

// Every point contact `hit` of point `i` moves counts it (an edge end at
// t = 0 or 1 on the other side is not moved).
fn count_contact(i: u32, hit: ContactHit) {
    let ends = edge_ends(hit);
    atomicAdd(&counts[i], 1u);
    if (hit.t < 1.0) {
        atomicAdd(&counts[ends.x], 1u);
    }
    if (hit.t > 0.0) {
        atomicAdd(&counts[ends.y], 1u);
    }
}

// Point i's contacts: its outline contact and, unless `relax`, its disk
// contacts. `relax` solves velocities only: no push, no restitution, no
// viscous decay, and friction bounded by the velocity change alone.
fn resolve_at(i: u32, relax: bool) {
    if (i >= sim.num_points) {
        return;
    }
    // No contact (quiet points among them): done at one load, unless disks
    // are to be resolved (see recount).
    if (hits[i].body == NO_BODY && (relax || !HAS_FREE_POINTS)) {
        return;
    }
    let hit = hits[i];
    let cp = contact_points[i];
    if (hit.body == NO_BODY && ((cp.filter_id & CONTACT_FREE) == 0u || relax)) {
        return;
    }
    let v = state[i].zw;
    let wi = info[i].inv_mass;
    let pf = filters[cp.filter_id & ~CONTACT_FREE];
    var own = vec4<i32>(0);
    if (hit.body != NO_BODY) {
        let ends = edge_ends(hit);
        let wa = info[ends.x].inv_mass;
        let wb = info[ends.y].inv_mass;
        let s = 1.0 - hit.t;
        let t = hit.t;
        // Generalised inverse mass of the point against the edge point.
        let w = wi + s * s * wa + t * t * wb;
        if (w > 0.0) {
            // Solved with split inverse masses, applied with the real ones.
            let split_w = split(wi, atomicLoad(&counts[i])) + s * s * split(wa, atomicLoad(&counts[ends.x])) + t * t * split(wb, atomicLoad(&counts[ends.y]));
            let bf = filters[outlines[hit.body].filter_id];
            let vrel = v - (state[ends.x].zw * s + state[ends.y].zw * t);
            if (!relax && sim.sleep_steps > 0u) {
                let approach = -dot(vrel, hit.n);
                if (approach > 0.0 && approach * approach > sim.wake_speed_sq) {
                    atomicMax(&sleep_speed[cp.group], SLEEP_WAKE);
                    atomicMax(&sleep_speed[outlines[hit.body].group], SLEEP_WAKE);
                }
            }
            // With the body the substep's first narrow phase found, the
            // normal impulse toward stopping the approach adds to the
            // substep's total, and a contact that separates takes back what
            // is left of its warm start, as far as it separates.
            let vn = dot(vrel, hit.n);
            let wv = warm[i];
            var pull = 0.0;
            if (hit.body == wv.y) {
                var left = bitcast<f32>(wv.z);
                var total = bitcast<f32>(wv.w);
                if (vn < 0.0) {
                    total -= vn / split_w;
                } else if (vn > 0.0 && left > 0.0) {
                    pull = min(vn / split_w, left);
                    left -= pull;
                    total -= pull;
                }
                warm[i] = vec4<u32>(wv.x, wv.y, bitcast<u32>(left), bitcast<u32>(total));
            }
            let depth = select(hit.depth, 0.0, relax);
            var m = pair_material(pf, bf);
            if (relax) {
                // Restitution and the viscous decay act once per substep,
                // in the contact pass.
                m.elasticity = 0.0;
                m.decay = 1.0;
            }
            let r = contact_response(vrel, hit.n, depth, m, sim.h, sim.restitution_threshold);
            var push = vec2<f32>(0.0);
            if (!relax) {
                push = (hit.n * depth + r.zw) / split_w;
            }
            let j = r.xy / split_w - hit.n * pull;
            own += vec4<i32>(fixed(push * wi, sim.contact_scale), fixed(j * wi, sim.contact_scale));
            if (wa > 0.0) {
                add_fixed(ends.x, -push * (s * wa), -j * (s * wa));
            }
            if (wb > 0.0) {
                add_fixed(ends.y, -push * (t * wb), -j * (t * wb));
            }
        }
    }
    if (HAS_FREE_POINTS && (cp.filter_id & CONTACT_FREE) != 0u && !relax) {
        own += disks(i, state[i].xy, v, wi, cp, pf, true);
    }
    if (any(own != vec4<i32>(0))) {
        atomicAdd(&acc[4u * i], own.x);
        atomicAdd(&acc[4u * i + 1u], own.y);
        atomicAdd(&acc[4u * i + 2u], own.z);
        atomicAdd(&acc[4u * i + 3u], own.w);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn apply(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    var i = linear_index(gid, groups);
    if (LISTED) {
        // The list's points, as in pass_point (this view of the counts is
        // not atomic).
        let k = indirect_index(gid, list_head.groups.x);
        i = select(sim.num_points, counts_out[sim.num_points + ACTIVE_POINTS + k], k < list_head.count);
    }
    if (i >= sim.num_points) {
        return;
    }
    if (!KEEP_COUNTS) {
        counts_out[i] = 0u;
    }
    let a = acc_sums[i];
    if (any(a != vec4<i32>(0))) {
        let unit = 1.0 / sim.contact_scale;
        state_out[i] = state_out[i] + vec4<f32>(a) * unit;
        acc_sums[i] = vec4<i32>(0);
    }
}

// An outline's centre (the mean of its points), the mass-weighted mean
// velocity of its points and the inverse of their mass (0 when one is
// pinned). CPU mirror: cpu::body_collide::untangle::outline_motion.
struct OutlineMotion {
    centre: vec2<f32>,
    vel: vec2<f32>,
    inv_mass: f32,
}

fn outline_motion(o: BodyOutline) -> OutlineMotion {
    var centre = vec2<f32>(0.0);
    var momentum = vec2<f32>(0.0);
    var mass = 0.0;
    var pinned = false;
    for (var k = 0u; k < o.count; k++) {
        let i = outline_points[o.first + k];
        let st = state[i];
        centre += st.xy;
        let w = info[i].inv_mass;
        if (w > 0.0) {
            momentum += st.zw / w;
            mass += 1.0 / w;
        } else {
            pinned = true;
        }
    }
    centre = centre / f32(o.count);
    if (pinned || mass <= 0.0) {
        return OutlineMotion(centre, vec2<f32>(0.0), 0.0);
    }
    return OutlineMotion(centre, momentum / mass, 1.0 / mass);
}

// A body holding a centre, as tangle_test finds it: its nearest edge's
// squared distance from the centre, direction and the outline's winding.
struct TangleFind {
    body: u32,
    d2: f32,
    dir: vec2<f32>,
    orient: f32,
}

// Whether holder `a` holds its centre deeper than `b` (farther from its
// nearest edge; ties: the lower body index).
fn deeper(a: TangleFind, b: TangleFind) -> bool {
    return a.d2 > b.d2 || (a.d2 == b.d2 && a.body < b.body);
}

// Body `c` against the outline centre `p` of a body of assembly `group`
// (filter `pf`): kept in `found` when it is among the two that hold `p`
// deepest. CPU mirror: cpu::body_collide::untangle::tangle_test.
fn tangle_test(c: u32, p: vec2<f32>, group: u32, pf: ContactFilter, sleeping: bool, found: ptr<function, array<TangleFind, 2>>) {
    if (!may_touch(c, p, group, pf, sleeping)) {
        return;
    }
    let s = scan_outline(outlines[c], p, vec2<f32>(0.0), false);
    if (!s.inside) {
        return;
    }
    let f = TangleFind(c, s.d2, s.dir, s.orient);
    if (deeper(f, (*found)[0])) {
        (*found)[1] = (*found)[0];
        (*found)[0] = f;
    } else if (deeper(f, (*found)[1])) {
        (*found)[1] = f;
    }
}

// Body `c` as the anchor of assembly `group` for the centre `q` (see
// assembly_anchor): kept in `best` when it holds `q` deeper.
fn anchor_test(c: u32, group: u32, q: vec2<f32>, best: ptr<function, vec2<u32>>) {
    let oc = outlines[c];
    if (oc.group != group || oc.count < 3u) {
        return;
    }
    let s = scan_outline(oc, q, vec2<f32>(0.0), false);
    let d2 = bitcast<f32>((*best).y);
    if (s.inside && (s.d2 > d2 || (s.d2 == d2 && c < (*best).x))) {
        *best = vec2<u32>(c, bitcast<u32>(s.d2));
    }
}

// The centre body b (outline `o`, centre `p`) parts from `q`, the centre
// of a body it is tangled with: the centre of the body of b's own assembly
// that holds `q` deepest (ties: the lower index), or `p` when none does.
// A body alone in its assembly always gets `p`; the cells of a ship
// wrapped round another body all get the same cell's, so that their
// partings agree instead of cancelling. CPU mirror:
// cpu::body_collide::untangle::assembly_anchor.
fn assembly_anchor(b: u32, o: BodyOutline, p: vec2<f32>, q: vec2<f32>) -> vec2<f32> {
    var best = vec2<u32>(NO_BODY, bitcast<u32>(-1.0));
    let cell = grid_cell(q, sim.inv_cell);
    let slot = cell_slot(cell, sim.table_mask);
    let key = cell_key(cell);
    let entries = entry_base(sim.table_mask, sim.num_colliders);
    let end = grid[slot + 1u];
    for (var e = grid[slot]; e < end; e++) {
        let c = grid[entries + 2u * e];
        if (c < sim.num_bodies && grid[entries + 2u * e + 1u] == key) {
            anchor_test(c, o.group, q, &best);
        }
    }
    let large = grid[large_base(sim.table_mask)];
    for (var k = 0u; k < large; k++) {
        let c = grid[large_base(sim.table_mask) + 1u + k];
        if (c < sim.num_bodies) {
            anchor_test(c, o.group, q, &best);
        }
    }
    if (best.x == NO_BODY || best.x == b) {
        return p;
    }
    return outline_motion(outlines[best.x]).centre;
}

// Adds velocity change `dv` (fixed point) to every moving point of outline
// `o`.
fn add_outline_velocity(o: BodyOutline, dv: vec2<i32>) {
    for (var k = 0u; k < o.count; k++) {
        let i = outline_points[o.first + k];
        if (info[i].inv_mass > 0.0) {
            atomicAdd(&acc[4u * i + 2u], dv.x);
            atomicAdd(&acc[4u * i + 3u], dv.y);
        }
    }
}

// Body b's tangle with `f` in its slot `k` (see the header): the slot,
// the pair's parting speed, and the wakes.
fn tangle_with(b: u32, o: BodyOutline, m: OutlineMotion, f: TangleFind, k: u32) {
    let other = outlines[f.body];
    let om = outline_motion(other);
    // Away from the other's centre; two centres on one spot part along the
    // other's nearest face, each its own way (a held tangle has no face:
    // no direction, so its contacts inside stand down too).
    var n = assembly_anchor(b, o, m.centre, om.centre) - om.centre;
    let len2 = dot(n, n);
    if (len2 > TINY_DIST2) {
        n = n / sqrt(len2);
    } else {
        n = face_normal(f.dir) * f.orient;
        if (b > f.body) {
            n = -n;
        }
    }
    let w = TANGLE_WORDS * b + 4u * k;
    atomicStore(&tangles[w], other.group + 1u);
    atomicStore(&tangles[w + 1u], f.body);
    atomicStore(&tangles[w + 2u], bitcast<u32>(n.x));
    atomicStore(&tangles[w + 3u], bitcast<u32>(n.y));
    // Half the missing parting speed from each side's thread (a pair
    // tangled both ways gets all of it), split by the sides' inverse
    // masses, so that momentum is kept.
    let missing = sim.untangle_speed - dot(m.vel - om.vel, n);
    let ws = m.inv_mass + om.inv_mass;
    if (!(missing > 0.0 && ws > 0.0)) {
        return;
    }
    let j = 0.5 * missing / ws;
    atomicMax(&sleep_speed[o.group], SLEEP_WAKE);
    atomicMax(&sleep_speed[other.group], SLEEP_WAKE);
    add_outline_velocity(o, fixed(n * (j * m.inv_mass), sim.contact_scale));
    add_outline_velocity(other, fixed(n * (-j * om.inv_mass), sim.contact_scale));
}

// Tangle recovery for body b (see the header). CPU mirror:
// cpu::body_collide::untangle.
@compute @workgroup_size(WORKGROUP_SIZE)
fn untangle(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let b = linear_index(gid, groups);
    if (b >= sim.num_bodies) {
        return;
    }
    // Last step's tangles (whether the narrow phase found the other's
    // points inside this body, and the other), cleared.
    var last: array<vec2<u32>, 2>;
    for (var k = 0u; k < 2u; k++) {
        let w = TANGLE_WORDS * b + 4u * k;
        last[k] = vec2<u32>(atomicLoad(&tangles[w]), atomicLoad(&tangles[w + 1u]));
    }
    for (var w = 0u; w < TANGLE_WORDS; w++) {
        atomicStore(&tangles[TANGLE_WORDS * b + w], 0u);
    }
    let o = outlines[b];
    if (o.count < 3u) {
        return;
    }
    let m = outline_motion(o);
    let p = m.centre;
    let pf = filters[o.filter_id];
    let sleeping = asleep(o.group);
    let none = TangleFind(NO_BODY, -1.0, vec2<f32>(0.0), 1.0);
    var found = array<TangleFind, 2>(none, none);
    let cell = grid_cell(p, sim.inv_cell);
    let slot = cell_slot(cell, sim.table_mask);
    let key = cell_key(cell);
    let entries = entry_base(sim.table_mask, sim.num_colliders);
    let end = grid[slot + 1u];
    for (var e = walk_start(slot, end, sleeping); e < end; e++) {
        let c = grid[entries + 2u * e];
        if (c < sim.num_bodies && grid[entries + 2u * e + 1u] == key) {
            tangle_test(c, p, o.group, pf, sleeping, &found);
        }
    }
    let large = grid[large_base(sim.table_mask)];
    for (var k = 0u; k < large; k++) {
        let c = grid[large_base(sim.table_mask) + 1u + k];
        if (c < sim.num_bodies) {
            tangle_test(c, p, o.group, pf, sleeping, &found);
        }
    }
    // A tangle holds while the narrow phase finds the other's points
    // inside this body: last step's kept tangles fill the free slots.
    for (var k = 0u; k < 2u; k++) {
        let held = last[k];
        if ((held.x & TANGLE_KEPT) == 0u || held.y >= sim.num_bodies || held.y == found[0].body || held.y == found[1].body) {
            continue;
        }
        let f = TangleFind(held.y, 0.0, vec2<f32>(0.0), 1.0);
        if (found[0].body == NO_BODY) {
            found[0] = f;
        } else if (found[1].body == NO_BODY) {
            found[1] = f;
        }
    }
    for (var k = 0u; k < 2u; k++) {
        if (found[k].body != NO_BODY) {
            tangle_with(b, o, m, found[k], k);
        }
    }
}
