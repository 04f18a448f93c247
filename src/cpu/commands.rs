//! Mirror of `shaders/commands.wgsl`: the caller's commands at the start
//! of a step ([`crate::commands`]), then the wake of the assemblies they
//! woke. The body sums are taken as the kernel's workgroup takes them
//! (each of [`REDUCE_THREADS`] threads sums its stride of the members,
//! then a tree), so both paths add in the same order.

use glam::Vec2;

use super::v2;
use crate::layout::{
    BodyInfo, COMMAND_BODY_ANGULAR_IMPULSE, COMMAND_BODY_IMPULSE, COMMAND_BODY_LIMIT,
    COMMAND_BODY_LOCAL_IMPULSE, COMMAND_BODY_MOTOR, COMMAND_BODY_SPRING, COMMAND_BODY_TARGET,
    COMMAND_BODY_TELEPORT, COMMAND_BODY_VELOCITY, COMMAND_KINEMATIC, COMMAND_POINT_IMPULSE,
    COMMAND_POINT_VELOCITY, COMMAND_SET_ANGLE, Command, LIMIT_PASSES, LIMIT_PUSH_RATE, Member,
    PIVOT_NONE, PointInfo, REDUCE_THREADS, SimParams, SleepPoint,
};

/// What the commands read and change.
pub struct Target<'a> {
    pub bodies: &'a [BodyInfo],
    pub members: &'a [Member],
    /// Each point's own inverse mass (sleeping's records: a sleeping
    /// point's is its own, not 0).
    pub sleep_points: &'a [SleepPoint],
    /// Each assembly's steps at rest, and the parameters that say when
    /// it sleeps.
    pub rest_steps: &'a [u32],
    pub sim: &'a SimParams,
    pub pos: &'a mut [[f32; 2]],
    pub vel: &'a mut [[f32; 2]],
    /// The body contacts' warm starts, whose settled bit a teleport clears
    /// (empty when nothing can collide).
    pub warm: &'a mut [[u32; 4]],
}

/// WGSL `teleport`: moves point `p` to `x`, keeping its velocity, and
/// unsettles it ([`WARM_SETTLED`] clear, no placement allowance yet).
fn teleport(t: &mut Target, p: usize, x: Vec2) {
    t.pos[p] = x.to_array();
    if let Some(w) = t.warm.get_mut(p) {
        w[2] = 0;
    }
}

/// WGSL `own_mass`.
fn own_mass(t: &Target, p: u32) -> f32 {
    let w = t.sleep_points[p as usize].inv_mass;
    if w > 0.0 { 1.0 / w } else { 0.0 }
}

fn cross2(a: Vec2, b: Vec2) -> f32 {
    a.x * b.y - a.y * b.x
}

/// WGSL `turning`: `w x d`.
fn turning(w: f32, d: Vec2) -> Vec2 {
    Vec2::new(-w * d.y, w * d.x)
}

/// WGSL `reduce` (`shaders/reduce.wgsl`) over `count` members whose
/// terms `term` gives: each of [`REDUCE_THREADS`] threads sums its stride
/// in order, then the tree.
pub(crate) fn reduce<const K: usize>(
    count: u32,
    mut term: impl FnMut(u32) -> [f32; K],
) -> [f32; K] {
    let threads = REDUCE_THREADS as usize;
    let mut sums = [[0.0f32; K]; REDUCE_THREADS as usize];
    for (t, s) in sums.iter_mut().enumerate() {
        let mut j = t as u32;
        while j < count {
            for (s, v) in s.iter_mut().zip(term(j)) {
                *s += v;
            }
            j += REDUCE_THREADS;
        }
    }
    let mut half = threads / 2;
    while half > 0 {
        let (low, high) = sums.split_at_mut(half);
        for (a, b) in low.iter_mut().zip(&high[..half]) {
            for (a, b) in a.iter_mut().zip(b) {
                *a += b;
            }
        }
        half /= 2;
    }
    sums[0]
}

/// WGSL `angle_to`: `a - b` wrapped into `[-pi, pi]`.
pub(crate) fn angle_to(a: f32, b: f32) -> f32 {
    let tau = 2.0 * std::f32::consts::PI;
    let d = a - b;
    d - tau * (d / tau + 0.5).floor()
}

/// WGSL `point_command`.
fn point_command(t: &mut Target, c: &Command) {
    let p = c.subject as usize;
    if own_mass(t, c.subject) == 0.0 {
        return;
    }
    match c.kind {
        COMMAND_POINT_IMPULSE => {
            t.vel[p] = (v2(t.vel[p]) + v2(c.a) * t.sleep_points[p].inv_mass).to_array();
        }
        COMMAND_POINT_VELOCITY => t.vel[p] = c.a,
        _ => teleport(t, p, v2(c.a)),
    }
}

/// WGSL `member_mass`: a member's mass in a body command, its own (0 when
/// pinned), or in a kinematic body (all pinned) its shape-matching weight.
fn member_mass(t: &Target, m: &Member, kinematic: bool) -> f32 {
    if kinematic {
        m.weight
    } else {
        own_mass(t, m.point)
    }
}

/// WGSL `mass_center`: the members' mass and centre of mass, `None`
/// without mass.
fn mass_center(t: &Target, members: &[Member], kinematic: bool) -> Option<(f32, Vec2)> {
    let total = reduce(members.len() as u32, |j| {
        let m = &members[j as usize];
        let mass = member_mass(t, m, kinematic);
        let x = v2(t.pos[m.point as usize]);
        [mass, mass * x.x, mass * x.y]
    });
    (total[0] > 0.0).then(|| (total[0], Vec2::new(total[1], total[2]) / total[0]))
}

/// WGSL `body_command`.
fn body_command(t: &mut Target, c: &Command) {
    let b = t.bodies[c.subject as usize];
    let members = &t.members[b.first as usize..(b.first + b.count) as usize];
    let kinematic = c.flags & COMMAND_KINEMATIC != 0;
    let Some((mass, c_m)) = mass_center(t, members, kinematic) else {
        return;
    };
    let second = reduce(b.count, |j| {
        let m = members[j as usize];
        let w = member_mass(t, &m, kinematic);
        let d = v2(t.pos[m.point as usize]) - c_m;
        let q = v2(m.rest);
        [w * d.dot(d), w * cross2(q, d), w * q.dot(d)]
    });
    let inertia = second[0];
    // The best-fit rotation from rest, (cos, sin).
    let fit = Vec2::new(second[2], second[1]);
    let fit_len = fit.length();
    let r = if fit_len > 0.0 {
        fit / fit_len
    } else {
        Vec2::X
    };
    let turn_by = |v: [f32; 2]| Vec2::new(r.x * v[0] - r.y * v[1], r.y * v[0] + r.x * v[1]);
    let (mut dv, mut dw) = (Vec2::ZERO, 0.0);
    match c.kind {
        COMMAND_BODY_IMPULSE => {
            dv = v2(c.a) / mass;
            if inertia > 0.0 {
                dw = cross2(v2(c.b) - c_m, v2(c.a)) / inertia;
            }
        }
        COMMAND_BODY_LOCAL_IMPULSE => {
            let (j, arm) = (turn_by(c.a), turn_by(c.b));
            dv = j / mass;
            if inertia > 0.0 {
                dw = cross2(arm, j) / inertia;
            }
        }
        COMMAND_BODY_ANGULAR_IMPULSE if inertia > 0.0 => dw = c.scalar / inertia,
        _ => {}
    }
    // A kinematic body takes no impulse: its mass is infinite.
    if kinematic {
        (dv, dw) = (Vec2::ZERO, 0.0);
    }
    let set_angle = c.flags & COMMAND_SET_ANGLE != 0;
    let turn = if set_angle {
        c.scalar - second[1].atan2(second[2])
    } else {
        0.0
    };
    let rot = Vec2::new(turn.cos(), turn.sin());
    // A target's velocity and spin: there in one step (`b.x` = 1 / dt).
    let target_v = (v2(c.a) - c_m) * c.b[0];
    let target_w = if set_angle {
        angle_to(c.scalar, second[1].atan2(second[2])) * c.b[0]
    } else {
        0.0
    };
    for m in members {
        let p = m.point as usize;
        if !kinematic && own_mass(t, m.point) == 0.0 {
            continue;
        }
        let d = v2(t.pos[p]) - c_m;
        match c.kind {
            COMMAND_BODY_VELOCITY => t.vel[p] = (v2(c.a) + turning(c.scalar, d)).to_array(),
            COMMAND_BODY_TARGET => t.vel[p] = (target_v + turning(target_w, d)).to_array(),
            COMMAND_BODY_TELEPORT => {
                let x = v2(c.a) + Vec2::new(rot.x * d.x - rot.y * d.y, rot.y * d.x + rot.x * d.y);
                teleport(t, p, x);
            }
            _ => t.vel[p] = (v2(t.vel[p]) + dv + turning(dw, d)).to_array(),
        }
    }
}

/// WGSL `Spin`: a body's centre of mass, its inertia about it, its spin
/// `L / I`, its best-fit angle from rest and its mass.
#[derive(Clone, Copy, Default)]
struct Spin {
    center: Vec2,
    inertia: f32,
    omega: f32,
    angle: f32,
    mass: f32,
}

/// WGSL `inverse_inertia`: 0 for a joint's side that takes no reaction (`takes`
/// not 1: kinematic, or held by pins) or has no mass.
fn inverse_inertia(s: Spin, takes: f32) -> f32 {
    if s.inertia > 0.0 && takes == 1.0 {
        1.0 / s.inertia
    } else {
        0.0
    }
}

/// WGSL `body_sleeps`: whether body `body`'s assembly sleeps.
fn body_sleeps(t: &Target, body: u32) -> bool {
    let first = t.members[t.bodies[body as usize].first as usize].point;
    let group = t.sleep_points[first as usize].group;
    crate::cpu::sleep::asleep(t.sim, t.rest_steps[group as usize])
}

/// WGSL `spin_alone`: a joint's body's [`Spin`], summed by one thread
/// over the members in order.
fn spin_alone(t: &Target, body: u32, kinematic: bool) -> Spin {
    let b = t.bodies[body as usize];
    let members = &t.members[b.first as usize..(b.first + b.count) as usize];
    let mut total = [0.0f32; 3];
    for m in members {
        let mass = member_mass(t, m, kinematic);
        let x = t.pos[m.point as usize];
        add(&mut total, [mass, mass * x[0], mass * x[1]]);
    }
    if total[0] <= 0.0 {
        return Spin::default();
    }
    let center = Vec2::new(total[1], total[2]) / total[0];
    let mut second = [0.0f32; 4];
    for m in members {
        let w = member_mass(t, m, kinematic);
        let d = v2(t.pos[m.point as usize]) - center;
        let q = v2(m.rest);
        let v = v2(t.vel[m.point as usize]);
        add(
            &mut second,
            [
                w * d.dot(d),
                w * cross2(d, v),
                w * cross2(q, d),
                w * q.dot(d),
            ],
        );
    }
    Spin {
        center,
        inertia: second[0],
        omega: if second[0] > 0.0 {
            second[1] / second[0]
        } else {
            0.0
        },
        angle: second[2].atan2(second[3]),
        mass: total[0],
    }
}

/// Adds `b` to `a`, term by term (WGSL's vector `+=`).
fn add<const K: usize>(a: &mut [f32; K], b: [f32; K]) {
    for (a, b) in a.iter_mut().zip(b) {
        *a += b;
    }
}

/// WGSL `move_alone`: moves body `body`'s free members by `dv` and turns
/// them by `dw` about `center`.
fn move_alone(t: &mut Target, body: u32, center: Vec2, dv: Vec2, dw: f32) {
    let b = t.bodies[body as usize];
    for m in &t.members[b.first as usize..(b.first + b.count) as usize] {
        let p = m.point as usize;
        if own_mass(t, m.point) == 0.0 {
            continue;
        }
        t.vel[p] = (v2(t.vel[p]) + dv + turning(dw, v2(t.pos[p]) - center)).to_array();
    }
}

/// WGSL `pivot`: the mean of the points the host chose
/// ([`joint_pivot`](crate::commands::joint_pivot)); `None` for none.
fn pivot(t: &Target, c: &Command) -> Option<Vec2> {
    let mut sum = [0.0f32; 3];
    for &p in c.pivot.iter().filter(|&&p| p != PIVOT_NONE) {
        let x = t.pos[p as usize];
        add(&mut sum, [1.0, x[0], x[1]]);
    }
    (sum[0] > 0.0).then(|| Vec2::new(sum[1], sum[2]) / sum[0])
}

/// `r` turned by a quarter: `w x r = w perp(r)`.
fn perp(r: Vec2) -> Vec2 {
    Vec2::new(-r.y, r.x)
}

/// WGSL `body_joint`, one thread's: a motor or a spring (in round 0
/// only) or an angle limit; `flags` is the other body plus 1 (0: the
/// world), `b` how each side takes the impulse.
fn body_joint(t: &mut Target, c: &Command, round: u32) {
    let motor = c.kind == COMMAND_BODY_MOTOR;
    if c.kind != COMMAND_BODY_LIMIT && round > 0 {
        return;
    }
    let other = c.flags.wrapping_sub(1);
    let asleep_a = body_sleeps(t, c.subject);
    let asleep_o = c.flags == 0 || body_sleeps(t, other);
    if asleep_a && asleep_o {
        return;
    }
    let a = spin_alone(t, c.subject, c.b[0] == 0.0);
    let o = if c.flags != 0 {
        spin_alone(t, other, c.b[1] == 0.0)
    } else {
        Spin::default()
    };
    let inv_a = if asleep_a {
        0.0
    } else {
        inverse_inertia(a, c.b[0])
    };
    let inv_o = if asleep_o {
        0.0
    } else {
        inverse_inertia(o, c.b[1])
    };
    if inv_a + inv_o <= 0.0 {
        return;
    }
    let w = a.omega - o.omega;
    let dw = if motor {
        c.scalar - w
    } else if c.kind == COMMAND_BODY_SPRING {
        let off = angle_to(angle_to(a.angle, o.angle), c.a[0]);
        (w - c.a[1] * off) * c.scalar - w
    } else {
        let angle = angle_to(a.angle, o.angle);
        let push = c.scalar.min(LIMIT_PUSH_RATE);
        let (hi, lo) = (c.a[1] - angle, c.a[0] - angle);
        let w_max = hi * if hi >= 0.0 { c.scalar } else { push };
        let w_min = lo * if lo <= 0.0 { c.scalar } else { push };
        if w > w_max {
            w_max - w
        } else if w < w_min {
            w_min - w
        } else {
            return;
        }
    };
    let (mut da, mut dof) = ((Vec2::ZERO, 0.0), (Vec2::ZERO, 0.0));
    // The angular impulse on the body (minus on the other).
    let j;
    match pivot(t, c) {
        None => {
            // No pivot: angular impulses about each centre.
            j = dw / (inv_a + inv_o);
            (da.1, dof.1) = (j * inv_a, -j * inv_o);
        }
        Some(at) => {
            let (r_a, r_o) = (at - a.center, at - o.center);
            if inv_a > 0.0 && inv_o > 0.0 {
                // Both turn about the pivot, which both move alike.
                let m = 1.0 / a.mass + 1.0 / o.mass;
                let d = o.center - a.center;
                dof.1 = -dw * (a.inertia + d.dot(r_a) / m) / (a.inertia + o.inertia + d.dot(d) / m);
                da.1 = dof.1 + dw;
                let f = -(dof.1 * perp(d) + dw * perp(r_a)) / m;
                (da.0, dof.0) = (f / a.mass, -f / o.mass);
                j = da.1 * a.inertia - cross2(r_a, f);
            } else if inv_a > 0.0 {
                // The other holds: the body turns about the pivot.
                da = (-dw * perp(r_a), dw);
                j = dw * (a.inertia + a.mass * r_a.dot(r_a));
            } else {
                dof = (dw * perp(r_o), -dw);
                j = dw * (o.inertia + o.mass * r_o.dot(r_o));
            }
        }
    }
    // A motor's torque bound scales the whole change.
    if motor && j.abs() > c.a[0] {
        let k = c.a[0] / j.abs();
        (da.0, dof.0, da.1, dof.1) = (da.0 * k, dof.0 * k, da.1 * k, dof.1 * k);
    }
    if da.1 != 0.0 || da.0 != Vec2::ZERO {
        move_alone(t, c.subject, a.center, da.0, da.1);
    }
    if dof.1 != 0.0 || dof.0 != Vec2::ZERO {
        move_alone(t, other, o.center, dof.0, dof.1);
    }
}

/// WGSL `apply`: every command of `list` in turn (no joints: those are
/// [`joints`]).
pub fn apply(t: &mut Target, list: &[Command]) {
    for c in list {
        if c.kind < COMMAND_BODY_IMPULSE {
            point_command(t, c);
        } else {
            body_command(t, c);
        }
    }
}

/// WGSL `joints`, at the start of a substep: the joints (motors, springs
/// and angle limits) of `list` colour by colour (`colors`, where each
/// starts in `list`, then the end; from
/// [`order_for_kernels`](crate::commands::order_for_kernels)), the motors
/// and springs once and the limits [`LIMIT_PASSES`] times. A colour's
/// joints touch no common point, so their order within it does not
/// matter.
pub fn joints(t: &mut Target, list: &[Command], colors: &[u32]) {
    let limits = list.iter().any(|c| c.kind == COMMAND_BODY_LIMIT);
    let rounds = if limits { LIMIT_PASSES } else { 1 };
    for round in 0..rounds {
        for color in colors.windows(2) {
            for c in &list[color[0] as usize..color[1] as usize] {
                body_joint(t, c, round);
            }
        }
    }
}

/// WGSL `wake`: every point whose assembly's count is 0 gets its own
/// inverse mass back.
pub fn wake(sim: &SimParams, points: &[SleepPoint], rest_steps: &[u32], info: &mut [PointInfo]) {
    let n = sim.num_points as usize;
    for (sp, info) in points[..n].iter().zip(&mut info[..n]) {
        if rest_steps[sp.group as usize] == 0 {
            info.inv_mass = sp.inv_mass;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reduction adds each thread's stride, then the tree: the sum of
    /// 1..=1000 comes out exact.
    #[test]
    fn reduce_sums_every_term_once() {
        let total = reduce(1000, |j| [1.0, j as f32, 0.0]);
        assert_eq!(total, [1000.0, 499_500.0, 0.0]);
    }

    #[test]
    fn body_velocity_gives_every_free_member_the_rigid_velocity() {
        let bodies = [BodyInfo {
            first: 0,
            count: 3,
            ..Default::default()
        }];
        let members: Vec<Member> = (0..3)
            .map(|k| Member {
                point: k,
                ..Default::default()
            })
            .collect();
        let sleep_points = [
            SleepPoint {
                group: 0,
                inv_mass: 1.0,
            },
            SleepPoint {
                group: 0,
                inv_mass: 1.0,
            },
            SleepPoint {
                group: 0,
                inv_mass: 0.0,
            },
        ];
        let mut pos = vec![[-1.0, 0.0], [1.0, 0.0], [5.0, 5.0]];
        let mut vel = vec![[0.0; 2]; 3];
        let sim = SimParams::default();
        let mut t = Target {
            bodies: &bodies,
            members: &members,
            sleep_points: &sleep_points,
            rest_steps: &[0],
            sim: &sim,
            pos: &mut pos,
            vel: &mut vel,
            warm: &mut [],
        };
        let c = Command {
            kind: COMMAND_BODY_VELOCITY,
            a: [1.0, 0.0],
            scalar: 2.0,
            ..Default::default()
        };
        apply(&mut t, &[c]);
        // About the free points' centre (0, 0); the pinned one stays.
        assert_eq!(vel, vec![[1.0, -2.0], [1.0, 2.0], [0.0, 0.0]]);
    }
}
