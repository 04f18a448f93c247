// Tangle recovery, part of stage 5b (body_collide.wgsl, see its header):
// once per step, each body whose outline's centre lies inside another
// body's outline, or, placed there, whose outline edge passes through
// another's with neither end deep inside, is tangled with it and the pair
// parted. CPU mirror:
// src/cpu/body_collide/untangle.rs.

// The first word of body `b`'s tangle slot with assembly `group` this
// step (untangle), or NO_BODY when they are not tangled.
fn tangle_word(b: u32, group: u32) -> u32 {
    for (var k = 0u; k < 2u; k++) {
        let w = TANGLE_WORDS * b + 4u * k;
        if ((atomicLoad(&tangles[w]) & ~TANGLE_FLAGS) == group + 1u) {
            return w;
        }
    }
    return NO_BODY;
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
// squared distance from the centre, direction and the outline's winding;
// or holding an edge's midpoint, as crossing_test finds it (`crossed`).
struct TangleFind {
    body: u32,
    d2: f32,
    dir: vec2<f32>,
    orient: f32,
    crossed: bool,
}

// Whether holder `a` holds its centre deeper than `b` (farther from its
// nearest edge; ties: the lower body index).
fn deeper(a: TangleFind, b: TangleFind) -> bool {
    return a.d2 > b.d2 || (a.d2 == b.d2 && a.body < b.body);
}

// Body `c` against the outline centre `p` of a body of assembly `group`
// (filter `pf`): kept in `found` when it is among the two that hold `p`
// deepest. CPU mirror: cpu::body_collide::untangle::tangle_test.
fn tangle_test(c: u32, p: vec2<f32>, group: u32, joins: u32, pf: ContactFilter, sleeping: bool, found: ptr<function, array<TangleFind, 2>>) {
    if (!may_touch(c, p, group, joins, pf, sleeping)) {
        return;
    }
    let s = scan_outline(outlines[c], p, vec2<f32>(0.0), false);
    if (!s.inside) {
        return;
    }
    keep_find(TangleFind(c, s.d2, s.dir, s.orient, false), found);
}

// Keeps `f` in `found` when it is among the two deepest, one entry per
// body. CPU mirror: cpu::body_collide::untangle::keep_find.
fn keep_find(f: TangleFind, found: ptr<function, array<TangleFind, 2>>) {
    if (f.body == (*found)[0].body || f.body == (*found)[1].body) {
        let k = select(1u, 0u, f.body == (*found)[0].body);
        if (deeper(f, (*found)[k])) {
            (*found)[k] = f;
        }
        if (deeper((*found)[1], (*found)[0])) {
            let first = (*found)[0];
            (*found)[0] = (*found)[1];
            (*found)[1] = first;
        }
    } else if (deeper(f, (*found)[0])) {
        (*found)[1] = (*found)[0];
        (*found)[0] = f;
    } else if (deeper(f, (*found)[1])) {
        (*found)[1] = f;
    }
}

// Puts `f` in a free slot of `found`, unless its body is there already or
// none is free: tangles found by edges or held from the last step fill
// what the centres left. CPU mirror: cpu::body_collide::untangle::take_free.
fn take_free(f: TangleFind, found: ptr<function, array<TangleFind, 2>>) {
    if (f.body == (*found)[0].body || f.body == (*found)[1].body) {
        return;
    }
    if ((*found)[0].body == NO_BODY) {
        (*found)[0] = f;
    } else if ((*found)[1].body == NO_BODY) {
        (*found)[1] = f;
    }
}

// Body `c` against an outline edge `a`-`e` (midpoint `m`) of a body of
// assembly `group`: kept in `found` when the edge passes through it, the
// midpoint more than BODY_PUSH_SLOP point radii inside and neither end
// more than one. CPU mirror: cpu::body_collide::untangle::crossing_test.
fn crossing_test(c: u32, a: vec2<f32>, m: vec2<f32>, e: vec2<f32>, group: u32, joins: u32, pf: ContactFilter, sleeping: bool, found: ptr<function, array<TangleFind, 2>>) {
    if (!may_touch(c, m, group, joins, pf, sleeping)) {
        return;
    }
    let oc = outlines[c];
    let r = sim.point_radius;
    let deep = BODY_PUSH_SLOP * r;
    let s = scan_outline(oc, m, vec2<f32>(0.0), false);
    if (!s.inside || s.d2 <= deep * deep) {
        return;
    }
    let sa = scan_outline(oc, a, vec2<f32>(0.0), false);
    if (sa.inside && sa.d2 > r * r) {
        return;
    }
    let se = scan_outline(oc, e, vec2<f32>(0.0), false);
    if (se.inside && se.d2 > r * r) {
        return;
    }
    keep_find(TangleFind(c, s.d2, s.dir, s.orient, true), found);
}

// The bodies that body `o`'s outline edges pass through with neither end
// deep inside: bodies placed so that their corners lie on each other's
// faces, whose overlap no point's contact sees, added to `found`'s free
// slots. CPU mirror: cpu::body_collide::untangle::crossings.
fn crossings(o: BodyOutline, pf: ContactFilter, sleeping: bool, found: ptr<function, array<TangleFind, 2>>) {
    var crossed = array<TangleFind, 2>(TangleFind(NO_BODY, -1.0, vec2<f32>(0.0), 1.0, false), TangleFind(NO_BODY, -1.0, vec2<f32>(0.0), 1.0, false));
    let entries = entry_base(sim.table_mask, sim.num_colliders);
    let large = grid[large_base(sim.table_mask)];
    for (var k = 0u; k < o.count; k++) {
        let a = state[outline_points[o.first + k]].xy;
        let e = state[outline_points[o.first + select(k + 1u, 0u, k + 1u == o.count)]].xy;
        let m = (a + e) * 0.5;
        let cell = grid_cell(m, sim.inv_cell);
        let slot = cell_slot(cell, sim.table_mask);
        let key = cell_key(cell);
        let end = grid[slot + 1u];
        for (var n = walk_start(slot, end, sleeping); n < end; n++) {
            let c = grid[entries + 2u * n];
            if (c < sim.num_bodies && grid[entries + 2u * n + 1u] == key) {
                crossing_test(c, a, m, e, o.group, o.first + o.count, pf, sleeping, &crossed);
            }
        }
        for (var l = 0u; l < large; l++) {
            let c = grid[large_base(sim.table_mask) + 1u + l];
            if (c < sim.num_bodies) {
                crossing_test(c, a, m, e, o.group, o.first + o.count, pf, sleeping, &crossed);
            }
        }
    }
    for (var k = 0u; k < 2u; k++) {
        if (crossed[k].body != NO_BODY) {
            take_free(crossed[k], found);
        }
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

// The partings one accumulator is sized for (fixed_of's count): a body
// tangled with more bodies at once than this may carry its sum past
// fixed_of's bound. CPU mirror: cpu::body_collide::untangle::TANGLE_SHARE.
const TANGLE_SHARE: u32 = 64u;

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

// Whether an outline point of `o` has not settled (WARM_SETTLED): the
// body was placed where it is (built, spawned or teleported). CPU mirror:
// cpu::body_collide::untangle::outline_fresh.
fn outline_fresh(o: BodyOutline) -> bool {
    for (var k = 0u; k < o.count; k++) {
        if ((warm[outline_points[o.first + k]].z & WARM_SETTLED) == 0u) {
            return true;
        }
    }
    return false;
}

// Body b's tangle with `f` in its slot `k` (see body_collide.wgsl's
// header): the slot, the pair's parting speed, and the wakes. `fresh`:
// b has a point that has not settled, or the pair was fresh last step;
// the slot is fresh (TANGLE_FRESH) then or when the other has one.
fn tangle_with(b: u32, o: BodyOutline, m: OutlineMotion, f: TangleFind, k: u32, fresh: bool) {
    let other = outlines[f.body];
    let om = outline_motion(other);
    let flag = select(0u, TANGLE_FRESH, fresh || outline_fresh(other)) | select(0u, TANGLE_CROSSED, f.crossed);
    // Away from the other's centre; two centres on one spot part along the
    // other's nearest face, each its own way (a held tangle has no face:
    // no direction, so its contacts inside stand down too). Two bodies of
    // one assembly part from their own centres.
    var anchor = m.centre;
    if (other.group != o.group) {
        anchor = assembly_anchor(b, o, m.centre, om.centre);
    }
    var n = anchor - om.centre;
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
    atomicStore(&tangles[w], (other.group + 1u) | flag);
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
    let j0 = 0.5 * missing / ws;
    // Both sides scaled alike to fit their accumulators, which take at
    // most TANGLE_SHARE partings each (fit_of).
    let sc = sim.contact_scale;
    let j = j0 * min(fit_of(n * (j0 * m.inv_mass), sc, TANGLE_SHARE), fit_of(n * (-j0 * om.inv_mass), sc, TANGLE_SHARE));
    atomicMax(&sleep_speed[o.group], SLEEP_WAKE);
    atomicMax(&sleep_speed[other.group], SLEEP_WAKE);
    add_outline_velocity(o, fixed_of(n * (j * m.inv_mass), sc, TANGLE_SHARE));
    add_outline_velocity(other, fixed_of(n * (-j * om.inv_mass), sc, TANGLE_SHARE));
}

// Tangle recovery for body b (see body_collide.wgsl's header). CPU mirror:
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
    let none = TangleFind(NO_BODY, -1.0, vec2<f32>(0.0), 1.0, false);
    var found = array<TangleFind, 2>(none, none);
    let cell = grid_cell(p, sim.inv_cell);
    let slot = cell_slot(cell, sim.table_mask);
    let key = cell_key(cell);
    let entries = entry_base(sim.table_mask, sim.num_colliders);
    let end = grid[slot + 1u];
    for (var e = walk_start(slot, end, sleeping); e < end; e++) {
        let c = grid[entries + 2u * e];
        if (c < sim.num_bodies && grid[entries + 2u * e + 1u] == key) {
            tangle_test(c, p, o.group, o.first + o.count, pf, sleeping, &found);
        }
    }
    let large = grid[large_base(sim.table_mask)];
    for (var k = 0u; k < large; k++) {
        let c = grid[large_base(sim.table_mask) + 1u + k];
        if (c < sim.num_bodies) {
            tangle_test(c, p, o.group, o.first + o.count, pf, sleeping, &found);
        }
    }
    // A body placed (or last step tangled so) whose edges pass through
    // another's: tangled with it too.
    let fresh = outline_fresh(o);
    if (fresh || (last[0].x & TANGLE_FRESH) != 0u || (last[1].x & TANGLE_FRESH) != 0u) {
        crossings(o, pf, sleeping, &found);
    }
    // A tangle holds while the narrow phase finds the other's points
    // inside this body: last step's kept tangles fill the free slots.
    for (var k = 0u; k < 2u; k++) {
        let held = last[k];
        if ((held.x & TANGLE_KEPT) == 0u || held.y >= sim.num_bodies) {
            continue;
        }
        take_free(TangleFind(held.y, 0.0, vec2<f32>(0.0), 1.0, false), &found);
    }
    for (var k = 0u; k < 2u; k++) {
        let f = found[k];
        if (f.body == NO_BODY) {
            continue;
        }
        // Fresh last step with the same body: fresh until it parts.
        var was_fresh = false;
        for (var l = 0u; l < 2u; l++) {
            was_fresh = was_fresh || (last[l].y == f.body && (last[l].x & TANGLE_FRESH) != 0u);
        }
        tangle_with(b, o, m, f, k, fresh || was_fresh);
    }
}
