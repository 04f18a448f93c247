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
//            A motor measures the spin of its body and of the other one
//            (w = L / I about each one's c, L = sum m (x - c) x v; the
//            world's is 0), and turns them by an angular impulse
//              j = clamp((s - (w_a - w_b)) / (1 / I_a + 1 / I_b), -j_max, j_max)
//            (1 / I is 0 for a kinematic side, and for one held by two
//            pinned points or more): +j on its body, -j on the other, so
//            the pair's momentum and angular momentum are kept.
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

struct Command {
    kind: u32,
    subject: u32,
    scalar: f32,
    flags: u32,
    a: vec2<f32>,
    b: vec2<f32>,
}

struct CommandList {
    count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
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

// A body's centre of mass, its inertia about it and its spin L / I, its
// members counted as body_command counts them (0 inertia: no mass).
struct Spin {
    center: vec2<f32>,
    inertia: f32,
    omega: f32,
}

fn body_spin(t: u32, body: u32, kinematic: bool) -> Spin {
    let b = bodies[2u * body];
    let total = mass_center(t, b.x, b.y, kinematic);
    var spin = Spin(vec2<f32>(0.0), 0.0, 0.0);
    if (total.x <= 0.0) {
        return spin;
    }
    spin.center = total.yz / total.x;
    var acc = vec4<f32>(0.0);
    for (var j = t; j < b.y; j += REDUCE_THREADS) {
        let m = member_of(members[b.x + j]);
        let w = member_mass(m, kinematic);
        let s = state[m.point];
        let d = s.xy - spin.center;
        acc += vec4<f32>(w * dot(d, d), w * cross2(d, s.zw), 0.0, 0.0);
    }
    let second = reduce(t, acc);
    spin.inertia = second.x;
    spin.omega = select(0.0, second.y / second.x, second.x > 0.0);
    return spin;
}

// Turns body `body`'s free members by `dw` about `center`.
fn spin_by(t: u32, body: u32, center: vec2<f32>, dw: f32) {
    let b = bodies[2u * body];
    for (var j = t; j < b.y; j += REDUCE_THREADS) {
        let p = member_of(members[b.x + j]).point;
        if (own_mass(p) == 0.0) {
            continue;
        }
        let s = state[p];
        state[p] = vec4<f32>(s.xy, s.zw + turning(dw, s.xy - center));
    }
}

// 1 / I of a motor's side, 0 for one that takes no reaction (`takes` not
// 1: kinematic, or held by pins) or has no mass.
fn inverse_inertia(s: Spin, takes: f32) -> f32 {
    return select(0.0, 1.0 / s.inertia, s.inertia > 0.0 && takes == 1.0);
}

// A motor (COMMAND_BODY_MOTOR): `flags` is the other body plus 1 (0: the
// world), `a.y` and `b.x` say how each side takes the impulse: 1 free, 0
// kinematic (counted by weight), 2 held by two pins or more.
fn body_motor(t: u32, c: Command) {
    let other = c.flags - 1u;
    let a = body_spin(t, c.subject, c.a.y == 0.0);
    var o = Spin(vec2<f32>(0.0), 0.0, 0.0);
    if (c.flags != 0u) {
        o = body_spin(t, other, c.b.x == 0.0);
    }
    let inv_a = inverse_inertia(a, c.a.y);
    let inv_o = inverse_inertia(o, c.b.x);
    let k = inv_a + inv_o;
    if (k <= 0.0) {
        return;
    }
    let j = clamp((c.scalar - (a.omega - o.omega)) / k, -c.a.x, c.a.x);
    if (inv_a > 0.0) {
        spin_by(t, c.subject, a.center, j * inv_a);
    }
    // The bodies may share points (a wheel's hub): one after the other.
    storageBarrier();
    workgroupBarrier();
    if (inv_o > 0.0) {
        spin_by(t, other, o.center, -j * inv_o);
    }
}

@compute @workgroup_size(REDUCE_THREADS)
fn apply(@builtin(local_invocation_index) t: u32) {
    let n = list.count;
    for (var k = 0u; k < n; k++) {
        let c = list.items[k];
        if (c.kind < COMMAND_BODY_IMPULSE) {
            if (t == 0u) {
                point_command(c);
            }
        } else if (c.kind == COMMAND_BODY_MOTOR) {
            body_motor(t, c);
        } else {
            body_command(t, c);
        }
        storageBarrier();
        workgroupBarrier();
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
