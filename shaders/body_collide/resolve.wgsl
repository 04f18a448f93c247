// Resolve, relax and apply, part of stage 5b (body_collide.wgsl): each
// contact's fixed-point changes into the accumulators, with mass
// splitting, and the accumulators added to the state. CPU mirror:
// src/cpu/body_collide/resolve.rs.

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
                let ci = atomicLoad(&counts[i]);
                let count_j = atomicLoad(&counts[j]);
                let split_w = split(wi, ci) + split(wj, count_j);
                let dist = sqrt(d2);
                var n = vec2<f32>(1.0, 0.0);
                if (d2 > TINY_DIST2) {
                    n = d / dist;
                } else if (j < i) {
                    n = vec2<f32>(-1.0, 0.0);
                }
                let vrel = v - state[j].zw;
                let threshold = contact_threshold(vrel, n, reach - dist, sim.h, sim.point_radius, sim.restitution_threshold);
                let r = contact_response(vrel, n, reach - dist, pair_material(pf, jf), sim.h, threshold);
                let push0 = (n * (reach - dist) + r.zw) / split_w;
                let jv0 = r.xy / split_w;
                // Scaled as the partner, which finds the same pair from its
                // side, scales its own (fit_of).
                let sc = sim.contact_scale;
                let push = push0 * min(fit_of(push0 * wi, sc, ci), fit_of(push0 * wj, sc, count_j));
                let jv = jv0 * min(fit_of(jv0 * wi, sc, ci), fit_of(jv0 * wj, sc, count_j));
                out += vec4<i32>(fixed_of(push * wi, sc, ci), fixed_of(jv * wi, sc, ci));
            }
        }
    }
    return out;
}

// How much faster a contact's impulse would move its sleeping side than
// its awake one: the ratio of the sides' inverse masses when one side
// sleeps and is the lighter, else 1 (wi, wa, wb: the solver's inverse
// masses, 0 while asleep; sleepers: the real ones). CPU mirror:
// cpu::body_collide::resolve::sleeper_share.
fn sleeper_share(i: u32, ends: vec2<u32>, s: f32, t: f32, wi: f32, wa: f32, wb: f32) -> f32 {
    let we = s * s * wa + t * t * wb;
    if ((wi > 0.0) == (we > 0.0)) {
        return 1.0;
    }
    if (we == 0.0) {
        let re = s * s * sleepers[ends.x].inv_mass + t * t * sleepers[ends.y].inv_mass;
        return max(re / wi, 1.0);
    }
    return max(sleepers[i].inv_mass / we, 1.0);
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

// The depth a body contact of a point that has not settled pushes out in
// one contact pass, given its placement allowance: what lies deeper than
// the allowance, at once where the point went no deeper than the
// allowance plus the push speed's step at the pass's start, else toward
// that start depth less the step. CPU mirror:
// cpu::body_collide::placed_push.
fn placed_push(vrel: vec2<f32>, n: vec2<f32>, depth: f32, allowance: f32) -> f32 {
    let before = depth + dot(vrel, n) * sim.h;
    let kept = max(before - sim.body_push_speed * sim.h, allowance);
    return max(depth - kept, 0.0);
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
        if (!relax) {
            touched[i] = vec2<u32>(hit.body + 1u, hit.edge);
        }
        let ends = edge_ends(hit);
        let wa = info[ends.x].inv_mass;
        let wb = info[ends.y].inv_mass;
        let s = 1.0 - hit.t;
        let t = hit.t;
        // Generalised inverse mass of the point against the edge point.
        let w = wi + s * s * wa + t * t * wb;
        // Neither side has mass to push the other (sleeping or kinematic):
        // sides that close in wake, or a kinematic one would pass through a
        // sleeping one; a sleeping point on a kinematic body's edge that
        // moves off faster than the wake speed wakes too.
        if (!relax && sim.sleep_steps > 0u && wa == 0.0 && wb == 0.0) {
            let ve = state[ends.x].zw * s + state[ends.y].zw * t;
            let dv = v - ve;
            let closing = wi == 0.0 && dot(dv, hit.n) < 0.0;
            if (closing || (any(ve != vec2<f32>(0.0)) && dot(dv, dv) > sim.wake_speed_sq)) {
                atomicMax(&sleep_speed[cp.group], SLEEP_WAKE);
                atomicMax(&sleep_speed[outlines[hit.body].group], SLEEP_WAKE);
            }
        }
        if (w > 0.0) {
            // Solved with split inverse masses, applied with the real ones.
            let ci = atomicLoad(&counts[i]);
            let ca = atomicLoad(&counts[ends.x]);
            let cb = atomicLoad(&counts[ends.y]);
            let split_w = split(wi, ci) + s * s * split(wa, ca) + t * t * split(wb, cb);
            let bf = filters[outlines[hit.body].filter_id];
            let vrel = v - (state[ends.x].zw * s + state[ends.y].zw * t);
            if (!relax && sim.sleep_steps > 0u) {
                let approach = -dot(vrel, hit.n);
                let lift = approach * sleeper_share(i, ends, s, t, wi, wa, wb);
                if (approach > 0.0 && lift * lift > sim.wake_speed_sq) {
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
            let settled_bit = wv.z & WARM_SETTLED;
            let kept = warm_left(wv);
            let allowance = kept.y;
            if (hit.body == wv.y) {
                var left = kept.x;
                var total = bitcast<f32>(wv.w);
                if (vn < 0.0) {
                    total -= vn / split_w;
                } else if (vn > 0.0 && left > 0.0) {
                    pull = min(vn / split_w, left);
                    left -= pull;
                    total -= pull;
                }
                var word = bitcast<u32>(untagged(left));
                if (settled_bit != 0u) {
                    word = bitcast<u32>(left) | settled_bit;
                } else if (allowance > 0.0) {
                    word = wv.z;
                }
                warm[i] = vec4<u32>(wv.x, wv.y, word, bitcast<u32>(total));
            }
            // The allowance the contact keeps: the point's own while it has
            // not settled, else the larger of its edge's ends' (a body placed
            // touching settled ones).
            var placing = allowance;
            if (settled_bit != 0u) {
                placing = max(warm_left(warm[ends.x]).y, warm_left(warm[ends.y]).y);
            }
            let depth = select(hit.depth, 0.0, relax);
            var m = pair_material(pf, bf);
            if (relax) {
                // Restitution and the viscous decay act once per substep,
                // in the contact pass.
                m.elasticity = 0.0;
                m.decay = 1.0;
            }
            let threshold = contact_threshold(vrel, hit.n, depth, sim.h, sim.point_radius, sim.restitution_threshold);
            // A point placed inside another body, or inside one placed
            // over it, leaves it at the push speed until both have settled
            // (the point and its edge's ends), and a pair placed tangled
            // at its pace (TANGLE_FRESH; docs/physics.md, "Deep
            // overlaps").
            var pushed = depth;
            let tangle = tangle_word(hit.body, cp.group);
            if (tangle != NO_BODY) {
                if ((atomicLoad(&tangles[tangle]) & TANGLE_FRESH) != 0u) {
                    pushed = min(depth, sim.untangle_push * sim.h);
                }
            } else if (placing > 0.0) {
                pushed = placed_push(vrel, hit.n, depth, placing);
            } else if ((settled_bit & warm[ends.x].z & warm[ends.y].z) == 0u) {
                pushed = push_depth(vrel, hit.n, depth, sim.h, BODY_PUSH_SLOP * sim.point_radius, sim.body_push_speed);
            }
            let r = contact_response(vrel, hit.n, pushed, m, sim.h, threshold);
            var push = vec2<f32>(0.0);
            if (!relax) {
                push = (hit.n * pushed + r.zw) / split_w;
            }
            let j0 = r.xy / split_w - hit.n * pull;
            // The push and the impulse each scaled alike on its three
            // points to fit their accumulators (fit_of).
            let sc = sim.contact_scale;
            var fp = fit_of(push * wi, sc, ci);
            var fj = fit_of(j0 * wi, sc, ci);
            if (wa > 0.0) {
                fp = min(fp, fit_of(-push * (s * wa), sc, ca));
                fj = min(fj, fit_of(-j0 * (s * wa), sc, ca));
            }
            if (wb > 0.0) {
                fp = min(fp, fit_of(-push * (t * wb), sc, cb));
                fj = min(fj, fit_of(-j0 * (t * wb), sc, cb));
            }
            push = push * fp;
            let j = j0 * fj;
            own += vec4<i32>(fixed_of(push * wi, sc, ci), fixed_of(j * wi, sc, ci));
            if (wa > 0.0) {
                add_fixed(ends.x, -push * (s * wa), -j * (s * wa), ca);
            }
            if (wb > 0.0) {
                add_fixed(ends.y, -push * (t * wb), -j * (t * wb), cb);
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
