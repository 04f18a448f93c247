// Commands: impulses, velocities and teleports the caller queued, applied
// at the start of a step, in the order queued (docs/physics.md,
// "Commands"). CPU mirror: src/cpu/commands.rs.
//
//   apply    one workgroup walks the commands in turn. A point command is
//            one thread's. A body command sums over the body's members
//            with their own masses (pinned members are left out and never
//            moved; in a kinematic body, all pinned, every member counts by
//            its shape-matching weight, moves, and takes no impulse):
//            first the mass and centre of mass c, then the
//            inertia I = sum m |x - c|^2 and the best-fit angle from rest
//            (atan2 of sum m q x (x - c) and sum m q . (x - c)), each by a
//            tree reduction over the workgroup in a fixed order (so runs
//            are bitwise reproducible), then changes every member:
//              impulse J at a:   v += J / M + w x (x - c), w = (a - c) x J / I
//              local impulse:    the same with J = R j and a = c + R b, R
//                                the best-fit rotation from rest
//              angular impulse L: v += w x (x - c), w = L / I
//              velocity (u, w):  v = u + w x (x - c)
//              teleport to (p, t): x = p + R(t - angle) (x - c)
//                                (a teleported point is unsettled again:
//                                set down inside another body, it parts
//                                at the push speed; docs/physics.md,
//                                "Deep overlaps")
//              target (p, t):    v = u + w x (x - c), u = (p - c) / dt,
//                                w = (t - angle, wrapped to [-pi, pi]) / dt
//            so an impulse changes the body's momentum by exactly J and its
//            angular momentum about c by (a - c) x J.
//   joints   motors, springs and angle limits, at the start of every
//            substep of the step (before its forces), over the substep h. Each
//            is one thread's: it sums its body's and the other's members
//            alone (the world's spin and angle are 0), for the centre c,
//            mass M, inertia I, spin w = L / I (L = sum m (x - c) x v) and
//            best-fit angle t, and changes the relative spin w_a - w_b by
//            dw: a motor toward its speed s, dw = s - (w_a - w_b); a
//            spring toward its angle t0 at the natural frequency omega
//            and damping ratio zeta, one implicit Euler substep of the
//            oscillator (Box2D's revolute spring; stable at any omega h):
//              w' = (w - h omega^2 (t - t0)) / (1 + 2 zeta omega h + (omega h)^2)
//            for the relative spin w and angle t, dw = w' - w; a limit
//            where the spin leaves its range: to at most w_max = (hi -
//            t) / h, at least (lo - t) / h, for the relative angle t =
//            t_a - t_b (wrapped) inside the range (it reaches the limit at
//            the substep's end and no further), and to the overshoot times
//            min(1 / h, LIMIT_PUSH_RATE) outside it. Where the host
//            found a pivot (`commands::joint_pivot`: the mean of up to
//            four points the two share, a hinge; or of the ends of up to
//            two springs that tie them; against the world, the pinned
//            points) both turn about it, with the force at the pivot that
//            moves it alike in both (Box2D's revolute joint, its angular
//            and point rows solved at once):
//              m = 1 / M_a + 1 / M_b,  d = c_b - c_a,  r_a = pivot - c_a
//              dw_b = -dw (I_a + d . r_a / m) / (I_a + I_b + |d|^2 / m)
//              dw_a = dw_b + dw,  F = -(dw_b perp(d) + dw perp(r_a)) / m
//              body a: v += F / M_a + dw_a x (x - c_a)
//              body b: v += -F / M_b + dw_b x (x - c_b)
//            the angular impulse j = dw_a I_a - r_a x F; a side that holds
//            (1 / I = 0: the world, a kinematic side, one held by two
//            pinned points or more, one asleep) leaves the other to turn
//            about the pivot by all of dw, j = dw (I + M |r|^2). Without
//            a pivot, angular impulses about each centre:
//              j = dw / (1 / I_a + 1 / I_b),  dw_a = j / I_a,  dw_b = -j / I_b
//            A motor's |j| is at most its torque times h: past it the
//            whole change scales down. The pair keeps its momentum and
//            angular momentum. The joints are grouped in colours whose
//            joints touch no common point (`commands::order_for_kernels`):
//            a colour's at once, the colours in turn, so the result does
//            not depend on the threads; in each substep the limits run
//            LIMIT_PASSES times, so that a chain's settle together, the
//            motors and springs in the first pass only. A limit or a
//            spring does nothing where both sides sleep (or its body,
//            against the world), and queueing one wakes nothing.
//   wake     (after apply) every point whose assembly's count is 0 gets
//            its own inverse mass back: the queueing woke the targets'
//            assemblies (wake_point), and they move in this step rather
//            than the next.

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read_write> info: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> sleep_points: array<SleepPoint>;
@group(0) @binding(3) var<storage, read> bodies: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> members: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read_write> state: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> list: CommandList;
@group(0) @binding(7) var<storage, read> rest_steps: array<u32>;
// The body contacts' warm starts (one word when nothing can collide).
@group(0) @binding(8) var<storage, read_write> warm: array<vec4<u32>>;
// Where each colour of the limits starts in `list`, then the end.
@group(0) @binding(9) var<storage, read> colors: array<u32>;

struct Command {
    kind: u32,
    subject: u32,
    scalar: f32,
    flags: u32,
    a: vec2<f32>,
    b: vec2<f32>,
    // A joint's pivot: the mean of these points, PIVOT_NONE unused.
    pivot: vec4<u32>,
}

struct CommandList {
    count: u32,
    // How many of the commands are joints (motors, springs and angle limits, the
    // last ones), in how many colours (`colors`), and whether any is a
    // limit.
    joints: u32,
    colors: u32,
    limits: u32,
    items: array<Command>,
}

const COMMAND_POINT_IMPULSE: u32 = 0u;
const COMMAND_POINT_VELOCITY: u32 = 1u;
const COMMAND_POINT_TELEPORT: u32 = 2u;
const COMMAND_BODY_IMPULSE: u32 = 3u;
const COMMAND_BODY_ANGULAR_IMPULSE: u32 = 4u;
const COMMAND_BODY_VELOCITY: u32 = 5u;
const COMMAND_BODY_TELEPORT: u32 = 6u;
const COMMAND_BODY_LOCAL_IMPULSE: u32 = 7u;
const COMMAND_BODY_TARGET: u32 = 8u;
const COMMAND_BODY_MOTOR: u32 = 9u;
const COMMAND_BODY_LIMIT: u32 = 10u;
const COMMAND_BODY_SPRING: u32 = 11u;
const LIMIT_PUSH_RATE: f32 = 60.0;
const LIMIT_PASSES: u32 = 2u;
const PIVOT_NONE: u32 = 0xffffffffu;
const COMMAND_SET_ANGLE: u32 = 1u;
const COMMAND_KINEMATIC: u32 = 2u;
const PI: f32 = 3.14159265358979;

// A point's own mass, 0 when pinned.
fn own_mass(p: u32) -> f32 {
    let w = sleep_points[p].inv_mass;
    return select(0.0, 1.0 / w, w > 0.0);
}

// Moves point p to x, keeping its velocity, and unsettles it (WARM_SETTLED
// clear, no placement allowance yet).
fn teleport(p: u32, x: vec2<f32>) {
    state[p] = vec4<f32>(x, state[p].zw);
    if (p < arrayLength(&warm)) {
        warm[p].z = 0u;
    }
}

// w x d: the velocity of a point at d from the centre of a body turning at w.
fn turning(w: f32, d: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(-w * d.y, w * d.x);
}

fn point_command(c: Command) {
    let p = c.subject;
    if (own_mass(p) == 0.0) {
        return;
    }
    let s = state[p];
    switch c.kind {
        case COMMAND_POINT_IMPULSE: {
            state[p] = vec4<f32>(s.xy, s.zw + c.a * sleep_points[p].inv_mass);
        }
        case COMMAND_POINT_VELOCITY: {
            state[p] = vec4<f32>(s.xy, c.a);
        }
        default: {
            teleport(p, c.a);
        }
    }
}

// A member's mass in a body command: its own (0 when pinned), or in a
// kinematic body (all pinned) its shape-matching weight.
fn member_mass(m: Member, kinematic: bool) -> f32 {
    return select(own_mass(m.point), m.weight, kinematic);
}

// `a` minus `b`, wrapped into [-pi, pi].
fn angle_to(a: f32, b: f32) -> f32 {
    let d = a - b;
    return d - 2.0 * PI * floor(d / (2.0 * PI) + 0.5);
}

// The mass (x) and mass times centre (yz) of the `count` members from
// `first`.
fn mass_center(t: u32, first: u32, count: u32, kinematic: bool) -> vec4<f32> {
    var acc = vec4<f32>(0.0);
    for (var j = t; j < count; j += REDUCE_THREADS) {
        let m = member_of(members[first + j]);
        let mass = member_mass(m, kinematic);
        acc += vec4<f32>(mass, mass * state[m.point].xy, 0.0);
    }
    return reduce(t, acc);
}

fn body_command(t: u32, c: Command) {
    let b = bodies[2u * c.subject];
    let first = b.x;
    let count = b.y;
    let kinematic = (c.flags & COMMAND_KINEMATIC) != 0u;
    // Mass and centre of mass.
    let total = mass_center(t, first, count, kinematic);
    let mass = total.x;
    if (mass <= 0.0) {
        return;
    }
    let c_m = total.yz / mass;
    // Inertia and the best-fit angle from rest.
    var acc = vec4<f32>(0.0);
    for (var j = t; j < count; j += REDUCE_THREADS) {
        let m = member_of(members[first + j]);
        let w = member_mass(m, kinematic);
        let d = state[m.point].xy - c_m;
        acc += vec4<f32>(w * dot(d, d), w * cross2(m.rest, d), w * dot(m.rest, d), 0.0);
    }
    let second = reduce(t, acc);
    let inertia = second.x;
    // The best-fit rotation from rest, (cos, sin).
    let fit = vec2<f32>(second.z, second.y);
    let fit_len = length(fit);
    let r = select(vec2<f32>(1.0, 0.0), fit / fit_len, fit_len > 0.0);
    var dv = vec2<f32>(0.0);
    var dw = 0.0;
    switch c.kind {
        case COMMAND_BODY_IMPULSE: {
            dv = c.a / mass;
            dw = select(0.0, cross2(c.b - c_m, c.a) / inertia, inertia > 0.0);
        }
        case COMMAND_BODY_LOCAL_IMPULSE: {
            let j = vec2<f32>(r.x * c.a.x - r.y * c.a.y, r.y * c.a.x + r.x * c.a.y);
            let arm = vec2<f32>(r.x * c.b.x - r.y * c.b.y, r.y * c.b.x + r.x * c.b.y);
            dv = j / mass;
            dw = select(0.0, cross2(arm, j) / inertia, inertia > 0.0);
        }
        case COMMAND_BODY_ANGULAR_IMPULSE: {
            dw = select(0.0, c.scalar / inertia, inertia > 0.0);
        }
        default: {}
    }
    // A kinematic body takes no impulse: its mass is infinite.
    if (kinematic) {
        dv = vec2<f32>(0.0);
        dw = 0.0;
    }
    let set_angle = (c.flags & COMMAND_SET_ANGLE) != 0u;
    let turn = select(0.0, c.scalar - atan2(second.y, second.z), set_angle);
    let rot = vec2<f32>(cos(turn), sin(turn));
    // A target's velocity and spin: there in one step (`b.x` = 1 / dt).
    let target_v = (c.a - c_m) * c.b.x;
    let target_w = select(0.0, angle_to(c.scalar, atan2(second.y, second.z)) * c.b.x, set_angle);
    for (var j = t; j < count; j += REDUCE_THREADS) {
        let p = member_of(members[first + j]).point;
        if (!kinematic && own_mass(p) == 0.0) {
            continue;
        }
        let s = state[p];
        let d = s.xy - c_m;
        switch c.kind {
            case COMMAND_BODY_VELOCITY: {
                state[p] = vec4<f32>(s.xy, c.a + turning(c.scalar, d));
            }
            case COMMAND_BODY_TARGET: {
                state[p] = vec4<f32>(s.xy, target_v + turning(target_w, d));
            }
            case COMMAND_BODY_TELEPORT: {
                teleport(p, c.a + vec2<f32>(rot.x * d.x - rot.y * d.y, rot.y * d.x + rot.x * d.y));
            }
            default: {
                state[p] = vec4<f32>(s.xy, s.zw + dv + turning(dw, d));
            }
        }
    }
}

// A body's centre of mass, its inertia about it, its spin L / I, its
// best-fit angle from rest and its mass, its members counted as
// body_command counts them (0 inertia: no mass).
struct Spin {
    center: vec2<f32>,
    inertia: f32,
    omega: f32,
    angle: f32,
    mass: f32,
}

// 1 / I of a joint's side, 0 for one that takes no reaction (`takes` not
// 1: kinematic, or held by pins) or has no mass.
fn inverse_inertia(s: Spin, takes: f32) -> f32 {
    return select(0.0, 1.0 / s.inertia, s.inertia > 0.0 && takes == 1.0);
}

// Whether body `body`'s assembly sleeps.
fn body_sleeps(body: u32) -> bool {
    let first = member_of(members[bodies[2u * body].x]).point;
    return sleeps(rest_steps[sleep_points[first].group], sim.sleep_steps);
}

// A joint's body's Spin, summed by one thread over the members in order.
fn spin_alone(body: u32, kinematic: bool) -> Spin {
    let b = bodies[2u * body];
    var total = vec3<f32>(0.0);
    for (var j = 0u; j < b.y; j++) {
        let m = member_of(members[b.x + j]);
        let mass = member_mass(m, kinematic);
        total += vec3<f32>(mass, mass * state[m.point].xy);
    }
    var spin = Spin(vec2<f32>(0.0), 0.0, 0.0, 0.0, 0.0);
    if (total.x <= 0.0) {
        return spin;
    }
    spin.center = total.yz / total.x;
    spin.mass = total.x;
    var second = vec4<f32>(0.0);
    for (var j = 0u; j < b.y; j++) {
        let m = member_of(members[b.x + j]);
        let w = member_mass(m, kinematic);
        let s = state[m.point];
        let d = s.xy - spin.center;
        second += vec4<f32>(w * dot(d, d), w * cross2(d, s.zw), w * cross2(m.rest, d), w * dot(m.rest, d));
    }
    spin.inertia = second.x;
    spin.omega = select(0.0, second.y / second.x, second.x > 0.0);
    spin.angle = atan2(second.z, second.w);
    return spin;
}

// move_by by one thread.
fn move_alone(body: u32, center: vec2<f32>, dv: vec2<f32>, dw: f32) {
    let b = bodies[2u * body];
    for (var j = 0u; j < b.y; j++) {
        let p = member_of(members[b.x + j]).point;
        if (own_mass(p) == 0.0) {
            continue;
        }
        let s = state[p];
        state[p] = vec4<f32>(s.xy, s.zw + dv + turning(dw, s.xy - center));
    }
}

// A joint's pivot, the mean of the points the host chose
// (`commands::joint_pivot`): xy, and z their count (0: no pivot).
fn pivot(c: Command) -> vec3<f32> {
    var sum = vec3<f32>(0.0);
    for (var k = 0u; k < 4u; k++) {
        let p = c.pivot[k];
        if (p != PIVOT_NONE) {
            sum += vec3<f32>(1.0, state[p].xy);
        }
    }
    return vec3<f32>(select(vec2<f32>(0.0), sum.yz / sum.x, sum.x > 0.0), sum.x);
}

// A joint command, solved by one thread: a motor (COMMAND_BODY_MOTOR,
// in the first round only: `scalar` the speed, `a.x` the largest angular
// impulse), a spring (COMMAND_BODY_SPRING, in the first round only: `a.x`
// the target angle, `a.y` h omega^2, `scalar` the implicit step's
// divisor's inverse) or an angle limit (COMMAND_BODY_LIMIT: `a` the range,
// `scalar` 1 / h). `flags` is the other body plus 1 (0: the world), `b`
// how each side takes the impulse: 1 free, 0 kinematic (counted by its
// members' weights), 2 held by two pinned points or more.
fn body_joint(c: Command, round: u32) {
    let motor = c.kind == COMMAND_BODY_MOTOR;
    if (c.kind != COMMAND_BODY_LIMIT && round > 0u) {
        return;
    }
    let other = c.flags - 1u;
    let asleep_a = body_sleeps(c.subject);
    let asleep_o = c.flags == 0u || body_sleeps(other);
    if (asleep_a && asleep_o) {
        return;
    }
    let a = spin_alone(c.subject, c.b.x == 0.0);
    var o = Spin(vec2<f32>(0.0), 0.0, 0.0, 0.0, 0.0);
    if (c.flags != 0u) {
        o = spin_alone(other, c.b.y == 0.0);
    }
    let inv_a = select(inverse_inertia(a, c.b.x), 0.0, asleep_a);
    let inv_o = select(inverse_inertia(o, c.b.y), 0.0, asleep_o);
    if (inv_a + inv_o <= 0.0) {
        return;
    }
    let w = a.omega - o.omega;
    var dw = 0.0;
    if (motor) {
        dw = c.scalar - w;
    } else if (c.kind == COMMAND_BODY_SPRING) {
        let off = angle_to(angle_to(a.angle, o.angle), c.a.x);
        dw = (w - c.a.y * off) * c.scalar - w;
    } else {
        let angle = angle_to(a.angle, o.angle);
        let push = min(c.scalar, LIMIT_PUSH_RATE);
        let hi = c.a.y - angle;
        let lo = c.a.x - angle;
        let w_max = hi * select(push, c.scalar, hi >= 0.0);
        let w_min = lo * select(push, c.scalar, lo <= 0.0);
        if (w > w_max) {
            dw = w_max - w;
        } else if (w < w_min) {
            dw = w_min - w;
        } else {
            return;
        }
    }
    let at = pivot(c);
    var dv_a = vec2<f32>(0.0);
    var dv_o = vec2<f32>(0.0);
    var dw_a = 0.0;
    var dw_o = 0.0;
    // The angular impulse on the body (minus on the other).
    var j = 0.0;
    if (at.z == 0.0) {
        // No pivot: angular impulses about each centre.
        j = dw / (inv_a + inv_o);
        dw_a = j * inv_a;
        dw_o = -j * inv_o;
    } else {
        let r_a = at.xy - a.center;
        let r_o = at.xy - o.center;
        if (inv_a > 0.0 && inv_o > 0.0) {
            // Both turn about the pivot, which both move alike: the
            // angular impulse with the pivot's force (Box2D's revolute
            // joint, solved at once).
            let m = 1.0 / a.mass + 1.0 / o.mass;
            let d = o.center - a.center;
            dw_o = -dw * (a.inertia + dot(d, r_a) / m) / (a.inertia + o.inertia + dot(d, d) / m);
            dw_a = dw_o + dw;
            let f = -(dw_o * perp(d) + dw * perp(r_a)) / m;
            dv_a = f / a.mass;
            dv_o = -f / o.mass;
            j = dw_a * a.inertia - cross2(r_a, f);
        } else if (inv_a > 0.0) {
            // The other holds: the body turns about the pivot.
            dw_a = dw;
            dv_a = -dw * perp(r_a);
            j = dw * (a.inertia + a.mass * dot(r_a, r_a));
        } else {
            dw_o = -dw;
            dv_o = dw * perp(r_o);
            j = dw * (o.inertia + o.mass * dot(r_o, r_o));
        }
    }
    // A motor's torque bound scales the whole change.
    if (motor && abs(j) > c.a.x) {
        let k = c.a.x / abs(j);
        dv_a *= k;
        dv_o *= k;
        dw_a *= k;
        dw_o *= k;
    }
    if (dw_a != 0.0 || any(dv_a != vec2<f32>(0.0))) {
        move_alone(c.subject, a.center, dv_a, dw_a);
    }
    if (dw_o != 0.0 || any(dv_o != vec2<f32>(0.0))) {
        move_alone(other, o.center, dv_o, dw_o);
    }
}

@compute @workgroup_size(REDUCE_THREADS)
fn apply(@builtin(local_invocation_index) t: u32) {
    // The commands but the joints (motors, springs and limits), which come last,
    // in turn.
    let n = list.count - list.joints;
    for (var k = 0u; k < n; k++) {
        let c = list.items[k];
        if (c.kind < COMMAND_BODY_IMPULSE) {
            if (t == 0u) {
                point_command(c);
            }
        } else {
            body_command(t, c);
        }
        storageBarrier();
        workgroupBarrier();
    }
}

// The joints (motors, springs and limits, the last `list.joints`
// commands), at the start of a substep: the limits LIMIT_PASSES times,
// the motors and springs in the first pass only;
// a colour's at once, a thread each (they share no point), the colours
// in turn.
@compute @workgroup_size(REDUCE_THREADS)
fn joints(@builtin(local_invocation_index) t: u32) {
    let rounds = select(1u, LIMIT_PASSES, list.limits != 0u);
    for (var round = 0u; round < rounds; round++) {
        for (var k = 0u; k < list.colors; k++) {
            for (var i = colors[k] + t; i < colors[k + 1u]; i += REDUCE_THREADS) {
                body_joint(list.items[i], round);
            }
            storageBarrier();
            workgroupBarrier();
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn wake(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(gid, groups);
    if (i >= sim.num_points) {
        return;
    }
    let sp = sleep_points[i];
    if (rest_steps[sp.group] == 0u) {
        info[i].x = bitcast<u32>(sp.inv_mass);
    }
}
