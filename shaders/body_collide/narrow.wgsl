// The narrow phase of stage 5b (body_collide.wgsl): each point's deepest
// contact with another body's outline, the points' contact counts, and
// the quiet points and the active list the later passes skip or run over.
// CPU mirror: src/cpu/body_collide/narrow.rs.

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

// Whether a point at `off` from a corner, beyond it, lies about along
// the corner's outward bisector: as far past one of its edges (f1, f2:
// along each from the corner) as past the other, within
// CORNER_TIP_BALANCE. A corner pointing at it, not one it sits beside (as
// an aligned stack's corners sit one above the other). CPU mirror:
// cpu::body_collide::narrow::facing_tip.
fn facing_tip(off: vec2<f32>, f1: vec2<f32>, f2: vec2<f32>) -> bool {
    let b1 = -dot(off, f1) / sqrt(dot(f1, f1));
    let b2 = -dot(off, f2) / sqrt(dot(f2, f2));
    return min(b1, b2) >= CORNER_TIP_BALANCE * max(b1, b2);
}

// The contact of a point beyond a corner of body `b` (facing neither of
// its edges, f1 and f2 along them from the corner; `s` the scan, whose
// nearest point is the corner): within CORNER_TIP_RADII point radii of
// the corner and about along its bisector (facing_tip), pushed straight
// away from it, so that two corners meeting tip to tip, which face no
// edge of each other, rest that far apart rather than pass into each
// other (and get thrown out of each other's outline). CPU mirror: the
// corner branch of cpu::body_collide::test_body.
fn tip_contact(b: u32, s: OutlineScan, p: vec2<f32>, corner: vec2<f32>, f1: vec2<f32>, f2: vec2<f32>, best: ptr<function, ContactHit>) {
    let tip = sim.point_radius * CORNER_TIP_RADII;
    if (s.d2 >= tip * tip || s.d2 <= TINY_DIST2 || !facing_tip(p - corner, f1, f2)) {
        return;
    }
    let d = sqrt(s.d2);
    keep_deepest(best, ContactHit(tip - d, b, s.edge, s.t, (p - corner) / d));
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
        // corner it faces neither edge there and touches nothing but the
        // corner's tip (tip_contact): the corner itself meets this point's
        // body instead. (Pushing such a point off the corner's side would
        // shove a box resting on another sideways as soon as it overhangs:
        // stacks would snake apart.)
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
            // Beyond the corner: only a point nearly on its tip touches it.
            var corner = a2;
            var f1 = -s.dir;
            var f2 = dir2;
            if (s.raw < 0.0) {
                corner = s.start;
                f1 = s.dir;
                f2 = -dir2;
            }
            tip_contact(b, s, p, corner, f1, f2, best);
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
        // A pair found by its edges (TANGLE_CROSSED) pushes nothing.
        let first = atomicOr(&tangles[tangle], TANGLE_KEPT);
        depth = select(min(r + sqrt(entry.d2), UNTANGLE_PUSH * sim.untangle_speed * sim.h), 0.0, (first & TANGLE_CROSSED) != 0u);
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

// Whether the point at `p` (its ContactPoint `cp`) can have no contact
// this substep: it sleeps, is no free point (whose disks meet sleeping
// ones), no awake body entered its slot (walk_start) and no large body is
// awake (a sleeping point skips sleeping outlines): deepest would test
// nothing, and no later pass of the
// substep would either, as a sleeping point does not move. The substep's
// first narrow phase stores its contact as quiet (QUIET_EDGE), and the
// later one skips it at that load. CPU mirror:
// cpu::body_collide::quiet_point.
fn quiet_point(p: vec2<f32>, cp: ContactPoint) -> bool {
    if ((cp.filter_id & CONTACT_FREE) != 0u || !asleep(cp.group)) {
        return false;
    }
    let slot = cell_slot(grid_cell(p, sim.inv_cell), sim.table_mask);
    let stamp = slot_awake[sim.table_mask + 1u];
    return slot_awake[slot] != stamp && slot_awake[sim.table_mask + 2u] != stamp;
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
            if (walk_touch(c, p, cp.group, cp.joins, pf, sleeping, grow)) {
                test_body(c, p, v, cp.group, &best);
            }
        }
    }
    let large = grid[large_base(sim.table_mask)];
    for (var k = 0u; k < large; k++) {
        let c = grid[large_base(sim.table_mask) + 1u + k];
        if (c < sim.num_bodies && walk_touch(c, p, cp.group, cp.joins, pf, sleeping, grow)) {
            test_body(c, p, v, cp.group, &best);
        }
    }
    if (WARM_PASS) {
        note_near_list(i, p, grow);
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
            if (c < sim.num_bodies && walk_touch(c, p, cp.group, cp.joins, pf, sleeping, grow)) {
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
        note_near_list(i, p, grow);
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

// Stores point i's contact as quiet for the substep (its first narrow
// phase or activate found it so), with the warm start a point without
// contact has (warm_start with no body: no impulse, settled unless a
// collider stage found it in its skin).
fn store_quiet(i: u32) {
    hits[i] = ContactHit(0.0, NO_BODY, QUIET_EDGE, 0.0, vec2<f32>(0.0));
    let w = warm[i];
    let settled = (w.z & WARM_SETTLED) != 0u || (w.w & WARM_SKIN) == 0u;
    warm[i] = vec4<u32>(w.y, NO_BODY, select(0u, WARM_SETTLED, settled), 0u);
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
