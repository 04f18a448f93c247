// Stage 5b: body-body contacts (issue 6; seed 003: restitution only when
// approaching, impulses by inverse mass; seed 004: position corrections
// split by mass). One thread per point, after the broad phase
// (broad_phase.wgsl):
//
//   narrow  a point inside another body's outline (point in polygon) is
//           pushed out to that body's nearest edge; the deepest such
//           contact wins (ties: the lower body index), so the result does
//           not depend on the order of the grid's entries. Free points
//           also collide with each other as disks. Every change is added
//           to fixed-point accumulators with integer atomics: the sums do
//           not depend on order, so runs are bitwise reproducible.
//   apply   adds the accumulators to the state and clears them.
//
// CPU mirror: src/cpu/body_collide.rs.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> info: array<PointInfo>;
@group(0) @binding(2) var<storage, read> pos: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read> vel: array<vec2<f32>>;
@group(0) @binding(4) var<storage, read> contact_points: array<ContactPoint>;
@group(0) @binding(5) var<storage, read> outlines: array<BodyOutline>;
@group(0) @binding(6) var<storage, read> outline_points: array<u32>;
@group(0) @binding(7) var<storage, read> filters: array<ContactFilter>;
@group(0) @binding(8) var<storage, read> colliders: array<u32>;
@group(0) @binding(9) var<storage, read> aabbs: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read> grid: array<u32>;
@group(0) @binding(11) var<storage, read_write> acc: array<atomic<i32>>;

// apply's view of the state and the accumulators.
@group(0) @binding(12) var<storage, read_write> pos_out: array<vec2<f32>>;
@group(0) @binding(13) var<storage, read_write> vel_out: array<vec2<f32>>;
@group(0) @binding(14) var<storage, read_write> acc_sums: array<vec4<i32>>;

const NO_BODY: u32 = 0xffffffffu;

fn large_base() -> u32 {
    return sim.table_mask + 2u;
}

fn entry_base() -> u32 {
    return large_base() + 1u + sim.num_colliders;
}

// The deepest contact so far.
struct Hit {
    depth: f32,
    body: u32,
    edge: u32,
    t: f32,
    // Unit direction from the point to the nearest point of the outline.
    n: vec2<f32>,
}

// Whether the two sides' layers let them collide (seed 002).
fn layers_meet(a: ContactFilter, b: ContactFilter) -> bool {
    return (a.mask & b.category) != 0u && (b.mask & a.category) != 0u;
}

// Point `p` (of assembly `group`, filter `pf`) against body `b`'s outline:
// crossing-number point-in-polygon and the nearest edge, in one pass.
fn test_body(b: u32, p: vec2<f32>, group: u32, pf: ContactFilter, best: ptr<function, Hit>) {
    let o = outlines[b];
    if (o.group == group || !layers_meet(pf, filters[o.filter_id])) {
        return;
    }
    let bb = aabbs[b];
    if (p.x < bb.x || p.y < bb.y || p.x > bb.z || p.y > bb.w) {
        return;
    }
    var inside = false;
    var best_d2 = 3.4028235e38;
    var edge = 0u;
    var edge_t = 0.0;
    var nearest = p;
    var a = pos[outline_points[o.first]];
    for (var k = 0u; k < o.count; k++) {
        var next = k + 1u;
        if (next == o.count) {
            next = 0u;
        }
        let c = pos[outline_points[o.first + next]];
        if ((a.y > p.y) != (c.y > p.y)) {
            let x = a.x + (p.y - a.y) / (c.y - a.y) * (c.x - a.x);
            if (p.x < x) {
                inside = !inside;
            }
        }
        let ac = c - a;
        let len2 = dot(ac, ac);
        var t = 0.0;
        if (len2 > TINY_DIST2) {
            t = clamp(dot(p - a, ac) / len2, 0.0, 1.0);
        }
        let e = a + ac * t;
        let d = e - p;
        let d2 = dot(d, d);
        if (d2 < best_d2) {
            best_d2 = d2;
            edge = k;
            edge_t = t;
            nearest = e;
        }
        a = c;
    }
    if (!inside || best_d2 <= TINY_DIST2) {
        return;
    }
    let depth = sqrt(best_d2);
    if (depth > (*best).depth || (depth == (*best).depth && b < (*best).body)) {
        *best = Hit(depth, b, edge, edge_t, (nearest - p) / depth);
    }
}

// The change of relative velocity `vrel` at a contact with normal `n`
// (pointing the way the first side is pushed): the approaching normal part
// reflected with elasticity `e`, the tangential part decayed by
// `exp(-mu h)` (as against planets).
fn contact_dv(vrel: vec2<f32>, n: vec2<f32>, e: f32, mu: f32) -> vec2<f32> {
    let vn = dot(vrel, n);
    let vt = vrel - n * vn;
    var vn_after = vn;
    if (vn < 0.0) {
        vn_after = vn * -e;
    }
    return n * (vn_after - vn) + vt * (exp(-mu * sim.h) - 1.0);
}

fn add_fixed(k: u32, dp: vec2<f32>, dv: vec2<f32>) {
    let q = fixed(dp);
    let r = fixed(dv);
    atomicAdd(&acc[4u * k], q.x);
    atomicAdd(&acc[4u * k + 1u], q.y);
    atomicAdd(&acc[4u * k + 2u], r.x);
    atomicAdd(&acc[4u * k + 3u], r.y);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn narrow(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let p = pos[i];
    let v = vel[i];
    let wi = info[i].inv_mass;
    let cp = contact_points[i];
    let pf = filters[cp.filter_id & ~CONTACT_FREE];
    var own = vec4<i32>(0);

    // Bodies: those registered in the point's cell, and the large ones.
    var best = Hit(0.0, NO_BODY, 0u, 0.0, vec2<f32>(0.0));
    let cell = grid_cell(p, sim.inv_cell);
    let slot = cell_slot(cell, sim.table_mask);
    let key = cell_key(cell);
    let end = grid[slot + 1u];
    for (var e = grid[slot]; e < end; e++) {
        let c = grid[entry_base() + 2u * e];
        if (c < sim.num_bodies && grid[entry_base() + 2u * e + 1u] == key) {
            test_body(c, p, cp.group, pf, &best);
        }
    }
    let large = grid[large_base()];
    for (var k = 0u; k < large; k++) {
        test_body(grid[large_base() + 1u + k], p, cp.group, pf, &best);
    }
    if (best.body != NO_BODY) {
        let o = outlines[best.body];
        var next = best.edge + 1u;
        if (next == o.count) {
            next = 0u;
        }
        let ia = outline_points[o.first + best.edge];
        let ib = outline_points[o.first + next];
        let wa = info[ia].inv_mass;
        let wb = info[ib].inv_mass;
        let s = 1.0 - best.t;
        let t = best.t;
        // Generalised inverse mass of the point against the edge point.
        let w = wi + s * s * wa + t * t * wb;
        if (w > 0.0) {
            let bf = filters[o.filter_id];
            let e = max(pf.elasticity, bf.elasticity);
            let mu = sqrt(pf.friction * bf.friction);
            let push = best.n * (best.depth / w);
            let vrel = v - (vel[ia] * s + vel[ib] * t);
            let j = contact_dv(vrel, best.n, e, mu) / w;
            own += vec4<i32>(fixed(push * wi), fixed(j * wi));
            if (wa > 0.0) {
                add_fixed(ia, -push * (s * wa), -j * (s * wa));
            }
            if (wb > 0.0) {
                add_fixed(ib, -push * (t * wb), -j * (t * wb));
            }
        }
    }

    // Free points against free points, as disks; a pair is counted in one
    // cell only, the cell of the lower corner of the boxes' overlap.
    if ((cp.filter_id & CONTACT_FREE) != 0u) {
        let rr = vec2<f32>(sim.point_radius);
        let reach = 2.0 * sim.point_radius;
        let lo = grid_cell(p - rr, sim.inv_cell);
        let hi = grid_cell(p + rr, sim.inv_cell);
        for (var y = lo.y; y <= hi.y; y++) {
            for (var x = lo.x; x <= hi.x; x++) {
                let cell = vec2<i32>(x, y);
                let slot = cell_slot(cell, sim.table_mask);
                let key = cell_key(cell);
                let end = grid[slot + 1u];
                for (var e = grid[slot]; e < end; e++) {
                    let c = grid[entry_base() + 2u * e];
                    if (c < sim.num_bodies || grid[entry_base() + 2u * e + 1u] != key) {
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
                    let q = pos[j];
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
                    let dist = sqrt(d2);
                    var n = vec2<f32>(1.0, 0.0);
                    if (d2 > TINY_DIST2) {
                        n = d / dist;
                    } else if (j < i) {
                        n = vec2<f32>(-1.0, 0.0);
                    }
                    let push = n * ((reach - dist) / w);
                    let e = max(pf.elasticity, jf.elasticity);
                    let mu = sqrt(pf.friction * jf.friction);
                    let jv = contact_dv(v - vel[j], n, e, mu) / w;
                    own += vec4<i32>(fixed(push * wi), fixed(jv * wi));
                }
            }
        }
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
    let i = linear_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let a = acc_sums[i];
    if (any(a != vec4<i32>(0))) {
        let unit = 1.0 / CONTACT_SCALE;
        pos_out[i] = pos_out[i] + vec2<f32>(a.xy) * unit;
        vel_out[i] = vel_out[i] + vec2<f32>(a.zw) * unit;
        acc_sums[i] = vec4<i32>(0);
    }
}
