// Stage 6: sleeping, once per step after the last substep (Box2D's
// islands, with the assemblies of body contacts as islands: points joined
// by shared bodies, springs or rods). CPU mirror: src/cpu/sleep.rs.
//
//   measure  every point raises its assembly's largest squared motion:
//            the distance from its anchor, where settle left it (what a
//            viewer sees move, where the velocity a step ends with also
//            holds the contact solve's last impulses), by an integer
//            atomicMax on the float's bits, which order the same as the
//            values for values >= 0: the result does not depend on the
//            order. A contact that approaches faster than the wake speed
//            raised it to SLEEP_WAKE already (body_collide.wgsl, resolve);
//            a point that a moving collider's surface reaches within a
//            step raises it to SLEEP_WAKE too, and so does a kinematic
//            body's point that moves (a pinned point with a velocity).
//   touch    (with body contacts) motion passes through contacts: a
//            point's contact from the last narrow phase, or the body a
//            sleeping point rested on when it fell asleep (its support,
//            kept from its last awake step), joins two assemblies; where
//            one side moved this step (its measured motion is above the
//            rest limit, or an edit flagged it) and the other sleeps, the
//            sleeper is flagged SLEEP_TOUCHED (atomicOr of the top bit,
//            which no squared motion has: the moving test masks it off, so
//            the result does not depend on the order) and wakes in update.
//            One hop a step: a sleeper woken by a touch does not move in
//            this step, so it wakes its own neighbours only once it moves.
//   update   each assembly (at its root point) counts the steps all its
//            points have stayed within SLEEP_WINDOW sleep_speed dt of
//            their anchors, or starts again at zero, and clears its speed
//            for the next step.
//   settle   a point of an assembly that has been at rest for
//            sleep_steps steps sleeps: its inverse mass in `info` becomes
//            0, so that every stage treats it as pinned (no motion, no
//            gravity, an immovable side in contacts), and its velocity 0.
//            A point of an awake assembly gets its own inverse mass back.
//            A point whose assembly's count is a multiple of SLEEP_WINDOW
//            (0 included: it moved) takes its position as its anchor.
//   settle_listed  (on a removal followed in place, not in a step) settle
//            for the listed points alone: those whose info the upload
//            wrote from the mirror, with their awake inverse masses.
//   wake_flagged  (in worlds with kinematic bodies, at the start of every
//            substep) the points of a sleeping assembly that a contact
//            flagged this step (SLEEP_WAKE) get their own inverse mass back
//            now, anchored where they are, and the assembly starts counting
//            again: a kinematic body closing in on a sleeper moves it
//            within the step rather than pressing into it until the step's
//            end. The flag stays for update.
//   wake     (on an edit, set_state or new parameters, not in a step)
//            every point gets its own inverse mass back, every assembly
//            starts counting again, motion is measured from here, and no
//            point has a support until its next awake step's touch.
//   remap_supports  (on a removal that keeps what sleeps, over the points
//            before the removal, before their records are compacted) a
//            kept point's support follows its body to the body's new
//            index; a support on a removed body is dropped and the point's
//            assembly wakes (what it rested on is gone); a removed point's
//            support wakes that body's assembly (what it carried is gone).
//            A wake writes what an edit's wake_point writes (a zero count,
//            SLEEP_WAKE), the same words from every thread, so the result
//            does not depend on the order.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read_write> state: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> points: array<SleepPoint>;
@group(0) @binding(3) var<storage, read_write> speed: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> rest_steps: array<u32>;
// PointInfo records as vec4 (point_info in shared.wgsl); settle writes
// the inverse mass, .x.
@group(0) @binding(5) var<storage, read_write> info: array<vec4<u32>>;
// Each point's anchor: its position when settle last anchored it, or when
// it was woken.
@group(0) @binding(6) var<storage, read_write> last: array<vec2<f32>>;
// touch: each point's contact from the last narrow phase (body_collide),
// the outlines (for a body's assembly), and each point's support: the
// body its contact was with while its assembly was awake (0xffffffff:
// none), which it keeps while asleep.
@group(0) @binding(7) var<storage, read> hits: array<ContactHit>;
@group(0) @binding(8) var<storage, read> outlines: array<BodyOutline>;
@group(0) @binding(9) var<storage, read_write> support: array<u32>;
// The bodies' boxes from the broad phase (min, max; grown by
// point_radius).
@group(0) @binding(10) var<storage, read> aabbs: array<vec4<f32>>;

// measure: the colliders (colliders.wgsl), where some move
// (MOVING_COLLIDERS): a point a moving collider's surface will reach
// within a step reports SLEEP_WAKE, so that what a collider pushes or
// carries is awake (a sleeping point is pinned, and a collider would pass
// through it).
@group(0) @binding(11) var<uniform> colliders: Colliders;

// remap_supports: the removal's maps (removal_map.wgsl).
@group(0) @binding(12) var<storage, read> removal_words: array<u32>;
@group(0) @binding(14) var<uniform> removal_spans: array<vec4<u32>, 4>;

// settle_listed: the points to settle.
@group(0) @binding(13) var<storage, read> listed: array<u32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn measure(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let s = state[i];
    let p = s.xy;
    let g = points[i].group;
    // A pinned point that moves is a kinematic body's: its assembly never
    // sleeps while it moves (its motion lives in the velocities, which
    // sleeping would zero), however slowly.
    let kinematic = points[i].inv_mass == 0.0 && any(s.zw != vec2<f32>(0.0));
    if (kinematic || (MOVING_COLLIDERS && near_moving_collider(point_info(info[i]).layers, p))) {
        atomicMax(&speed[g], SLEEP_WAKE);
        return;
    }
    let d = p - last[i];
    atomicMax(&speed[g], bitcast<u32>(dot(d, d)));
}

// Whether assembly `g` moved this step: its measured motion (the low
// bits; a touch's flag masked off) is above the rest limit. A moving
// body's own points and an edit's wake_point (SLEEP_WAKE) count.
fn moved(g: u32) -> bool {
    let limit = TOUCH_MOTION * TOUCH_MOTION * sim.sleep_motion_sq;
    return (atomicLoad(&speed[g]) & ~SLEEP_TOUCHED) >= bitcast<u32>(limit);
}

// Whether assembly `g` slept during this step (its count before update).
fn slept(g: u32) -> bool {
    return sleeps(rest_steps[g], sim.sleep_steps);
}

// An awake point's support after this step: the body of its contact, or
// without one its support still, while the point stays within the rest
// window's reach of that body's box (a point resting on a body finds the
// contact in some substeps and not in others). CPU mirror:
// cpu::sleep::next_support.
fn next_support(hit: u32, old: u32, p: vec2<f32>) -> u32 {
    if (hit < sim.num_bodies || old >= sim.num_bodies) {
        return hit;
    }
    let reach = sqrt(sim.sleep_motion_sq);
    let bb = aabbs[old];
    if (all(p >= bb.xy - reach) && all(p <= bb.zw + reach)) {
        return old;
    }
    return 0xffffffffu;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn touch(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let gi = points[i].group;
    let asleep = slept(gi);
    let b = hits[i].body;
    if (!asleep) {
        support[i] = next_support(b, support[i], state[i].xy);
    }
    if (b < sim.num_bodies) {
        let gb = outlines[b].group;
        if (moved(gi) && slept(gb)) {
            atomicOr(&speed[gb], SLEEP_TOUCHED);
        }
        if (asleep && moved(gb)) {
            atomicOr(&speed[gi], SLEEP_TOUCHED);
        }
    }
    let s = support[i];
    if (asleep && s < sim.num_bodies && moved(outlines[s].group)) {
        atomicOr(&speed[gi], SLEEP_TOUCHED);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn update(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_points || points[i].group != i) {
        return;
    }
    let fastest = atomicExchange(&speed[i], 0u);
    if (fastest < bitcast<u32>(sim.sleep_motion_sq)) {
        rest_steps[i] = min(rest_steps[i] + 1u, sim.sleep_steps);
    } else {
        rest_steps[i] = 0u;
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn settle(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    settle_point(i);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn settle_listed(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = linear_index(gid, groups);
    if (k >= arrayLength(&listed)) {
        return;
    }
    let i = listed[k];
    if (i < sim.num_points) {
        settle_point(i);
    }
}

fn settle_point(i: u32) {
    let sp = points[i];
    let steps = rest_steps[sp.group];
    let asleep = sleeps(steps, sim.sleep_steps);
    info[i].x = bitcast<u32>(select(sp.inv_mass, 0.0, asleep));
    if (asleep) {
        state[i] = vec4<f32>(state[i].xy, 0.0, 0.0);
    }
    if (steps % SLEEP_WINDOW == 0u) {
        last[i] = state[i].xy;
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn wake(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    info[i].x = bitcast<u32>(points[i].inv_mass);
    atomicStore(&speed[i], 0u);
    rest_steps[i] = 0u;
    last[i] = state[i].xy;
    support[i] = 0xffffffffu;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn wake_flagged(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let sp = points[i];
    if (atomicLoad(&speed[sp.group]) < SLEEP_WAKE) {
        return;
    }
    // The root alone writes the count; no thread here reads it.
    if (sp.group == i) {
        rest_steps[i] = 0u;
    }
    if (bitcast<f32>(info[i].x) == 0.0 && sp.inv_mass != 0.0) {
        info[i].x = bitcast<u32>(sp.inv_mass);
        last[i] = state[i].xy;
    }
}

// Wakes assembly `g` as an edit's wake_point does.
fn wake_assembly(g: u32) {
    rest_steps[g] = 0u;
    atomicStore(&speed[g], SLEEP_WAKE);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn remap_supports(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let s = support[i];
    if (s >= sim.num_bodies) {
        return;
    }
    let to = map_new(MAP_BODIES, s);
    if (map_new(MAP_POINTS, i) == REMOVED) {
        if (to != REMOVED) {
            wake_assembly(outlines[s].group);
        }
        return;
    }
    if (to == REMOVED) {
        support[i] = 0xffffffffu;
        wake_assembly(points[i].group);
    } else if (to != s) {
        support[i] = to;
    }
}
