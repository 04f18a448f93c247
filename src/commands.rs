//! Commands a program queues on a solver: impulses, forces, velocities and
//! teleports of points and bodies, applied at the start of the next step
//! (on the GPU inside the caller's encoder, by `shaders/commands.wgsl`;
//! on the CPU by `cpu::commands`), in the order queued. Queueing one
//! checks it and wakes the assembly it acts on.
//!
//! ```
//! use softbody::commands::Command;
//! use softbody::prelude::*;
//!
//! let mut world = World::default();
//! world.params.gravity = Vec2::ZERO;
//! let ship = BoxShape::new(Vec2::ZERO, Vec2::new(2.0, 1.0)).build(&mut world)?;
//! let mut cpu = CpuSolver::new(&world)?;
//! // A push on the ship's nose: it moves off and turns.
//! cpu.queue(Command::BodyImpulse {
//!     body: ship.bodies[0],
//!     impulse: Vec2::new(0.0, 4.0),
//!     at: Vec2::new(1.0, 0.0),
//! })?;
//! cpu.step();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use glam::Vec2;

use crate::error::{Item, WorldError};
use crate::layout::{self, COMMAND_SET_ANGLE};
use crate::pack::Packed;
use crate::validate::{check_finite, check_position, check_vec_within, check_velocity};
use crate::world::{BodyHandle, MAX_STATE, PointHandle};

/// What a program can do to a point or a body between steps. Forces and
/// torques act for one step: they are queued as the impulse they give
/// over the step (`F dt`, `tau dt`). Pinned points are never moved, and
/// count for nothing in a body's mass. A kinematic body
/// ([`Body::kinematic`](crate::world::Body::kinematic)) is steered by its
/// velocity, target and teleport, all its points counting by their
/// shape-matching weights; impulses and forces do nothing to it. Velocities, positions and the
/// points at which impulses act are in world coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Command {
    /// Changes the point's velocity by `impulse / mass` (N s).
    PointImpulse { point: PointHandle, impulse: Vec2 },
    /// A force on the point for the next step (N).
    PointForce { point: PointHandle, force: Vec2 },
    /// Sets the point's velocity (m/s).
    PointVelocity { point: PointHandle, velocity: Vec2 },
    /// Moves the point to `position` (m), keeping its velocity. A point
    /// moved inside another body leaves it at `Params::push_speed`
    /// (docs/physics.md, "Deep overlaps").
    PointTeleport { point: PointHandle, position: Vec2 },
    /// An impulse (N s) at the world point `at` (m): the body's momentum
    /// changes by exactly `impulse`, its angular momentum about its centre
    /// of mass `c` by `(at - c) x impulse`, every point moving as a rigid
    /// body would.
    BodyImpulse {
        body: BodyHandle,
        impulse: Vec2,
        at: Vec2,
    },
    /// A force (N) at the world point `at` for the next step.
    BodyForce {
        body: BodyHandle,
        force: Vec2,
        at: Vec2,
    },
    /// A force (N) at the offset `at` from the centre of mass, both in the
    /// body's own frame, for the next step: a thruster fixed to a ship,
    /// whatever way the ship faces. The frame is the rest shape's axes
    /// (the world's axes as the body was built) turned by the body's
    /// best-fit rotation from rest now, found at the step on the GPU.
    BodyLocalForce {
        body: BodyHandle,
        force: Vec2,
        at: Vec2,
    },
    /// An angular impulse about the centre of mass (kg m^2/s,
    /// counter-clockwise positive).
    BodyAngularImpulse { body: BodyHandle, impulse: f32 },
    /// A torque about the centre of mass for the next step (N m).
    BodyTorque { body: BodyHandle, torque: f32 },
    /// Sets every point's velocity to that of a rigid body moving at
    /// `linear` (m/s) and turning at `angular` (rad/s) about its centre of
    /// mass.
    BodyVelocity {
        body: BodyHandle,
        linear: Vec2,
        angular: f32,
    },
    /// Moves the body rigidly so that its centre of mass is at `position`
    /// (m), and with `angle` turns it so that its best-fit angle from its
    /// rest shape is `angle` (rad); the velocities stay as they are. A
    /// body moved into another parts from it at `Params::push_speed`
    /// instead of being thrown out (docs/physics.md, "Deep overlaps").
    BodyTeleport {
        body: BodyHandle,
        position: Vec2,
        angle: Option<f32>,
    },
    /// A motor for the next step: drives the body's spin relative to
    /// `other`'s (to the world's with `None`) toward `speed` (rad/s,
    /// counter-clockwise positive) with a torque of at most `max_torque`
    /// (N m), as Box2D's revolute joint motor and rapier's motor velocity
    /// do; the reaction turns `other` the other way, so the pair keeps its
    /// momentum and angular momentum. Queue it every step the motor runs
    /// (a throttle), or let the world keep it
    /// ([`Joint::motor`](crate::world::Joint::motor)). Join the two bodies first to make an axle: a wheel
    /// whose hub point is also a point of the chassis body turns about it,
    /// the motor turning both about the points they share (or a body
    /// driven against the world about its one pinned point), with the
    /// force there that keeps the axle whole. The spins are `L / I` about
    /// each body's centre of mass over its free points; a kinematic side,
    /// or one held by two pinned points or more, is as a wall that takes
    /// no reaction. Motors and angle limits act at the start of every
    /// substep of the step (the torque bound on each substep's impulse,
    /// `max_torque h`), after the other commands, which act once.
    BodyMotor {
        body: BodyHandle,
        other: Option<BodyHandle>,
        speed: f32,
        max_torque: f32,
    },
    /// An angle limit for the next step: keeps the body's best-fit angle
    /// from rest relative to `other`'s (to the world's with `None`) within
    /// `[lower, upper]` (rad, each within `[-pi, pi]`, counter-clockwise
    /// positive; both angles are 0 as the bodies were built), as Box2D's
    /// revolute joint limit and rapier's joint limits do. At the start of
    /// every substep of the step (as Box2D v3 solves its joints), where
    /// the bodies' relative spin would carry the angle past a limit within
    /// the substep, the pair's spins change so that it reaches the limit
    /// at the substep's end; an angle already past a limit comes back at
    /// [`LIMIT_PUSH_RATE`](crate::layout::LIMIT_PUSH_RATE) (60/s) times
    /// the overshoot. The pair turns about what joins it
    /// ([`joint_pivot`]): the points the bodies share (a hinge), or the
    /// springs that tie them, or against the world its pinned points, with
    /// the force there that keeps the joint whole; the pair keeps its
    /// momentum and angular momentum. Each substep solves the limits
    /// [`LIMIT_PASSES`](crate::layout::LIMIT_PASSES) (2) times, so that a
    /// chain's settle together. Queue it every step, or let the world keep
    /// it ([`Joint::limits`](crate::world::Joint::limits)). Unlike the
    /// other commands it wakes nothing: a sleeping side is as a wall, and
    /// a limit whose sides both sleep does nothing. Pinned points,
    /// kinematic sides and the spins count as a motor's.
    ///
    /// ```
    /// use softbody::commands::Command;
    /// use softbody::prelude::*;
    ///
    /// // Two boxes hinged at a shared corner, the first pinned at another.
    /// let mut world = World::default();
    /// let mut add = |x: f32, y: f32, mass: f32| world.add_point(Point::new(Vec2::new(x, y)).mass(mass));
    /// let (pin, hinge) = (add(0.0, 0.0, 0.0)?, add(1.0, 0.0, 1.0)?);
    /// let (a, b) = (add(1.0, 0.2, 1.0)?, add(0.0, 0.2, 1.0)?);
    /// let (c, d, e) = (add(2.0, 0.0, 1.0)?, add(2.0, 0.2, 1.0)?, add(1.0, 0.2, 1.0)?);
    /// let first = world.add_body(Body::new(vec![pin, hinge, a, b]))?;
    /// let second = world.add_body(Body::new(vec![hinge, c, d, e]))?;
    /// let mut cpu = CpuSolver::new(&world)?;
    /// for _ in 0..120 {
    ///     // The second box bends at most 0.4 rad either way.
    ///     cpu.queue(Command::BodyAngleLimit {
    ///         body: second,
    ///         other: Some(first),
    ///         lower: -0.4,
    ///         upper: 0.4,
    ///     })?;
    ///     cpu.step();
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    BodyAngleLimit {
        body: BodyHandle,
        other: Option<BodyHandle>,
        lower: f32,
        upper: f32,
    },
    /// An angular spring for the next step: pulls the body's best-fit
    /// angle from rest relative to `other`'s (to the world's with `None`;
    /// both 0 as the bodies were built) toward `target` (rad, within
    /// `[-pi, pi]`, counter-clockwise positive, the shorter way round) at
    /// the natural frequency `hertz` (Hz, `0` turns it off) with the
    /// damping ratio `damping_ratio` (`1`: critically damped, `0`:
    /// undamped), as Box2D's revolute joint spring and rapier's motor
    /// position target do: a servo that holds an angle (a turret, a
    /// robot's arm) or a joint that bends back (a ragdoll's knee). At the
    /// start of every substep of the step, one implicit Euler substep of
    /// the oscillator sets the pair's relative spin (docs/physics.md,
    /// "Commands"), so it is stable at any frequency; the frequency is the
    /// angle's whatever the bodies' inertia, as Box2D's `hertz` is. Its
    /// torque has no bound, and it turns about what joins the bodies as a
    /// motor does ([`joint_pivot`]); the pair keeps its momentum and
    /// angular momentum. Queue it every step, or let the world keep it
    /// ([`Joint::spring`](crate::world::Joint::spring)). Like an angle
    /// limit it wakes nothing: a sleeping side is as a wall, and a spring
    /// whose sides both sleep does nothing.
    BodySpring {
        body: BodyHandle,
        other: Option<BodyHandle>,
        hertz: f32,
        damping_ratio: f32,
        target: f32,
    },
    /// Sets the body's velocity and spin to those that bring its centre of
    /// mass to `position` (m), and with `angle` its best-fit angle from
    /// rest to `angle` (rad, the shorter way round), over the next step:
    /// Box2D's `b2Body_SetTargetTransform`. Meant for kinematic bodies
    /// (a platform on a path, queued every step); a dynamic body takes the
    /// velocity and goes on from there.
    BodyTarget {
        body: BodyHandle,
        position: Vec2,
        angle: Option<f32>,
    },
}

impl Command {
    /// The command as the kernels take it, checked against `packed` (the
    /// world the solver steps, with time step `dt`), and the points whose
    /// assemblies it wakes (a motor's second one is its other body's; an
    /// angle limit wakes none).
    /// Refuses a handle the world does not have and a
    /// value that is not finite or out of range, naming it.
    pub fn encode(
        &self,
        packed: &Packed,
        dt: f32,
    ) -> Result<(layout::Command, Option<PointHandle>, Option<PointHandle>), WorldError> {
        const LIMIT: &str = "|x|, |y| <= 1e15";
        let vector = |item, field, v| check_vec_within(item, field, v, MAX_STATE, LIMIT);
        let scalar = |item, field, v: f32| {
            check_finite(item, field, v)?;
            crate::validate::check_bounded(item, field, v, MAX_STATE, "|value| <= 1e15")
        };
        let point = |p: PointHandle| -> Result<Item, WorldError> {
            let n = packed.pos.len() as u32;
            if p.0 >= n {
                return Err(WorldError::UnknownHandle {
                    item: Item::Point(p.0),
                    len: n,
                });
            }
            Ok(Item::Point(p.0))
        };
        let body = |b: BodyHandle| -> Result<(Item, PointHandle), WorldError> {
            let info = packed
                .bodies
                .get(b.index())
                .ok_or(WorldError::UnknownHandle {
                    item: Item::Body(b.0),
                    len: packed.bodies.len() as u32,
                })?;
            let first = packed.members[info.first as usize].point;
            Ok((Item::Body(b.0), PointHandle(first)))
        };
        let is_kinematic = |b: BodyHandle| packed.kinematic.binary_search(&b.0).is_ok();
        // How a motor's or a limit's side takes the impulse: kinematic (0:
        // its members count by weight, and it takes none), free (1), or
        // held by two pinned points or more (2: it cannot turn, and takes
        // none; a body pinned at one point turns about it).
        let takes = |b: BodyHandle| {
            let info = packed.bodies[b.index()];
            let members = &packed.members[info.first as usize..][..info.count as usize];
            let pins = members
                .iter()
                .filter(|m| packed.point_info[m.point as usize].inv_mass == 0.0)
                .count();
            if is_kinematic(b) {
                0.0
            } else if pins >= 2 {
                2.0
            } else {
                1.0
            }
        };
        // A joint's sides (a motor, a spring or a limit): how each takes
        // the impulse, the other body (plus 1; 0 the world) and the
        // pivot; the other body's first point, which a motor wakes.
        let join = |c: &mut layout::Command,
                    item: Item,
                    b: BodyHandle,
                    other: Option<BodyHandle>|
         -> Result<Option<PointHandle>, WorldError> {
            c.b = [takes(b), 0.0];
            let mut other_first = None;
            if let Some(o) = other {
                other_first = Some(body(o)?.1);
                if o == b {
                    return Err(WorldError::SelfMotor { item });
                }
                c.flags = o.0 + 1;
                c.b[1] = takes(o);
            }
            c.pivot = joint_pivot(packed, b.0, other.map(|o| o.0));
            Ok(other_first)
        };
        let mut c = layout::Command::default();
        let mut also_wakes = None;
        let wakes = match *self {
            Command::PointImpulse { point: p, impulse } => {
                vector(point(p)?, "impulse", impulse)?;
                (c.kind, c.subject, c.a) = (layout::COMMAND_POINT_IMPULSE, p.0, impulse.into());
                Some(p)
            }
            Command::PointForce { point: p, force } => {
                vector(point(p)?, "force", force)?;
                let impulse = force * dt;
                vector(point(p)?, "force", impulse)?;
                (c.kind, c.subject, c.a) = (layout::COMMAND_POINT_IMPULSE, p.0, impulse.into());
                Some(p)
            }
            Command::PointVelocity { point: p, velocity } => {
                check_velocity(point(p)?, "velocity", velocity)?;
                (c.kind, c.subject, c.a) = (layout::COMMAND_POINT_VELOCITY, p.0, velocity.into());
                Some(p)
            }
            Command::PointTeleport { point: p, position } => {
                check_position(point(p)?, "position", position)?;
                (c.kind, c.subject, c.a) = (layout::COMMAND_POINT_TELEPORT, p.0, position.into());
                Some(p)
            }
            Command::BodyImpulse {
                body: b,
                impulse,
                at,
            } => {
                let (item, first) = body(b)?;
                vector(item, "impulse", impulse)?;
                check_position(item, "at", at)?;
                c.kind = layout::COMMAND_BODY_IMPULSE;
                (c.subject, c.a, c.b) = (b.0, impulse.into(), at.into());
                Some(first)
            }
            Command::BodyForce { body: b, force, at } => {
                let (item, first) = body(b)?;
                vector(item, "force", force)?;
                vector(item, "force", force * dt)?;
                check_position(item, "at", at)?;
                c.kind = layout::COMMAND_BODY_IMPULSE;
                (c.subject, c.a, c.b) = (b.0, (force * dt).into(), at.into());
                Some(first)
            }
            Command::BodyLocalForce { body: b, force, at } => {
                let (item, first) = body(b)?;
                vector(item, "force", force)?;
                vector(item, "force", force * dt)?;
                check_position(item, "at", at)?;
                c.kind = layout::COMMAND_BODY_LOCAL_IMPULSE;
                (c.subject, c.a, c.b) = (b.0, (force * dt).into(), at.into());
                Some(first)
            }
            Command::BodyAngularImpulse { body: b, impulse } => {
                let (item, first) = body(b)?;
                scalar(item, "angular impulse", impulse)?;
                c.kind = layout::COMMAND_BODY_ANGULAR_IMPULSE;
                (c.subject, c.scalar) = (b.0, impulse);
                Some(first)
            }
            Command::BodyTorque { body: b, torque } => {
                let (item, first) = body(b)?;
                scalar(item, "torque", torque)?;
                c.kind = layout::COMMAND_BODY_ANGULAR_IMPULSE;
                (c.subject, c.scalar) = (b.0, torque * dt);
                Some(first)
            }
            Command::BodyVelocity {
                body: b,
                linear,
                angular,
            } => {
                let (item, first) = body(b)?;
                check_velocity(item, "linear velocity", linear)?;
                scalar(item, "angular velocity", angular)?;
                c.kind = layout::COMMAND_BODY_VELOCITY;
                (c.subject, c.a, c.scalar) = (b.0, linear.into(), angular);
                Some(first)
            }
            Command::BodyTeleport {
                body: b,
                position,
                angle,
            }
            | Command::BodyTarget {
                body: b,
                position,
                angle,
            } => {
                let (item, first) = body(b)?;
                check_position(item, "position", position)?;
                if let Some(angle) = angle {
                    scalar(item, "angle", angle)?;
                    (c.scalar, c.flags) = (angle, COMMAND_SET_ANGLE);
                }
                (c.subject, c.a) = (b.0, position.into());
                if matches!(self, Command::BodyTarget { .. }) {
                    // A target's velocity reaches it in one step.
                    (c.kind, c.b) = (layout::COMMAND_BODY_TARGET, [1.0 / dt, 0.0]);
                } else {
                    c.kind = layout::COMMAND_BODY_TELEPORT;
                }
                Some(first)
            }
            Command::BodyMotor {
                body: b,
                other,
                speed,
                max_torque,
            } => {
                let (item, first) = body(b)?;
                crate::validate::check_motor(item, speed, max_torque)?;
                c.kind = layout::COMMAND_BODY_MOTOR;
                (c.subject, c.scalar) = (b.0, speed);
                c.a = [max_torque * packed.sim.h, 0.0];
                also_wakes = join(&mut c, item, b, other)?;
                Some(first)
            }
            Command::BodyAngleLimit {
                body: b,
                other,
                lower,
                upper,
            } => {
                let (item, _) = body(b)?;
                crate::validate::check_angle_limits(item, lower, upper)?;
                c.kind = layout::COMMAND_BODY_LIMIT;
                (c.subject, c.scalar, c.a) = (b.0, 1.0 / packed.sim.h, [lower, upper]);
                join(&mut c, item, b, other)?;
                None
            }
            Command::BodySpring {
                body: b,
                other,
                hertz,
                damping_ratio,
                target,
            } => {
                let (item, _) = body(b)?;
                crate::validate::check_angular_spring(item, hertz, damping_ratio, target)?;
                c.kind = layout::COMMAND_BODY_SPRING;
                let omega_h = 2.0 * std::f64::consts::PI * hertz as f64 * packed.sim.h as f64;
                let divisor = 1.0 + 2.0 * damping_ratio as f64 * omega_h + omega_h * omega_h;
                c.subject = b.0;
                c.scalar = (1.0 / divisor) as f32;
                c.a = [target, (omega_h * omega_h / packed.sim.h as f64) as f32];
                join(&mut c, item, b, other)?;
                None
            }
        };
        if c.kind >= layout::COMMAND_BODY_IMPULSE
            && c.kind != layout::COMMAND_BODY_MOTOR
            && is_kinematic(BodyHandle(c.subject))
        {
            c.flags |= layout::COMMAND_KINEMATIC;
        }
        Ok((c, wakes, also_wakes))
    }
}

/// The points whose mean is the pivot of a joint (a motor or an angle
/// limit) of body `body` with body `other` (`None`: the world, whose
/// points are the pinned ones), unused entries [`layout::PIVOT_NONE`]:
/// up to four points the body shares with the other (a hinge), in member
/// order; sharing none, the one point that every spring or rod tying the
/// bodies meets (spokes from an axle), else both ends of up to two such
/// ties (rings tied by springs), or
/// against the world the pinned ends of up to four (a body hung from a
/// pin by springs swings about the pin); no pivot without either. The
/// kernels turn both sides about it (`body_joint`). Costs the body's
/// members and their springs.
pub fn joint_pivot(packed: &Packed, body: u32, other: Option<u32>) -> [u32; 4] {
    let is_member = |p: u32, b: u32| {
        packed
            .point_members
            .of(p as usize)
            .iter()
            .any(|r| r.body == b)
    };
    let in_other = |p: u32| match other {
        Some(o) => is_member(p, o),
        None => packed.point_info[p as usize].inv_mass == 0.0,
    };
    let mut pivot = [layout::PIVOT_NONE; 4];
    let info = packed.bodies[body as usize];
    let members = &packed.members[info.first as usize..][..info.count as usize];
    let shared = members.iter().map(|m| m.point).filter(|&p| in_other(p));
    for (slot, p) in pivot.iter_mut().zip(shared) {
        *slot = p;
    }
    if pivot[0] != layout::PIVOT_NONE {
        return pivot;
    }
    let ties = members.iter().flat_map(|m| {
        let p = m.point;
        [&packed.spring_halves, &packed.rod_halves]
            .into_iter()
            .flat_map(move |halves| halves.of(p as usize))
            .map(move |h| (p, h.other & layout::HALF_INDEX))
    });
    let ties = ties.filter(|&(_, q)| in_other(q));
    if other.is_none() {
        // Tied to pinned points, the body swings about them.
        for (slot, (_, q)) in pivot.iter_mut().zip(ties) {
            *slot = q;
        }
    } else {
        // One pass, no allocation (standing joints are encoded every
        // step): the first two ties, and whether every tie shares an end
        // with the first.
        let (mut count, mut same) = (0, [true; 2]);
        for (p, q) in ties {
            if count < 2 {
                (pivot[2 * count], pivot[2 * count + 1]) = (p, q);
            }
            same[0] &= p == pivot[0];
            same[1] &= q == pivot[1];
            count += 1;
        }
        if count > 1 && (same[0] || same[1]) {
            // Spokes from one point of either body (a hubless wheel on
            // its axle): the wheel turns about that point.
            let axle = if same[1] { pivot[1] } else { pivot[0] };
            pivot = [
                axle,
                layout::PIVOT_NONE,
                layout::PIVOT_NONE,
                layout::PIVOT_NONE,
            ];
        }
    }
    pivot
}

/// A point of each body of the joints of `packed` that `old` (the joints
/// before a sync) did not have, new or changed: the assemblies a sync
/// wakes, so that a motor turned on moves a sleeping body.
pub(crate) fn joints_to_wake(packed: &Packed, old: &[crate::world::Joint]) -> Vec<PointHandle> {
    packed
        .joints
        .iter()
        .enumerate()
        .filter(|(k, j)| old.get(*k) != Some(j))
        .flat_map(|(_, j)| std::iter::once(j.body).chain(j.other))
        .filter_map(|b| packed.bodies.get(b.index()))
        .filter_map(|info| packed.members.get(info.first as usize))
        .map(|m| PointHandle(m.point))
        .collect()
}

/// Appends the world's joints ([`Packed::joints`]) to `queued` as the
/// kernels take them, encoded at the packed substep: what a step adds to
/// the caller's commands. They wake nothing (a limit must not keep its
/// bodies awake; the solvers wake a joint's bodies when it is added or
/// changed). The world checked each joint against its bodies, and the
/// packed joints name packed bodies only, so every one encodes; one that
/// did not would be left out with a warning rather than stop the step.
pub fn standing_joints(packed: &Packed, queued: &mut Vec<layout::Command>) {
    for joint in &packed.joints {
        for command in joint.commands() {
            match command.encode(packed, packed.sim.dt) {
                Ok((c, _, _)) => queued.push(c),
                Err(e) => log::warn!("a world joint left out of the step: {e}"),
            }
        }
    }
}

/// The queued commands as the kernels take them: every command but the
/// joints (motors and angle limits) in the order queued, then the joints
/// grouped by colour, and where each colour starts in that list (then the
/// end). No two joints of a colour touch a common point (through their
/// bodies' members), so the kernel solves a colour's joints at once, a
/// thread each, and the result does not depend on their order; within a
/// colour they keep the order queued. Colours are given greedily in the
/// order queued, the lowest free one (a chain's limits take two).
pub fn order_for_kernels(
    packed: &Packed,
    queued: &[layout::Command],
) -> (Vec<layout::Command>, Vec<u32>) {
    let is_joint = |c: &layout::Command| {
        matches!(
            c.kind,
            layout::COMMAND_BODY_LIMIT | layout::COMMAND_BODY_MOTOR | layout::COMMAND_BODY_SPRING
        )
    };
    let mut list: Vec<layout::Command> = queued.iter().filter(|c| !is_joint(c)).copied().collect();
    let walk = list.len() as u32;
    // Colours each point has taken, as bits; past 64 a joint takes a
    // colour of its own.
    let mut taken: std::collections::HashMap<u32, u64> = std::collections::HashMap::new();
    let mut colored: Vec<(u32, layout::Command)> = vec![];
    let mut own = 64;
    for c in queued.iter().filter(|c| is_joint(c)) {
        let mut bodies = vec![c.subject];
        if c.flags != 0 {
            bodies.push(c.flags - 1);
        }
        let points: Vec<u32> = bodies
            .iter()
            .flat_map(|&b| {
                let info = packed.bodies[b as usize];
                packed.members[info.first as usize..][..info.count as usize]
                    .iter()
                    .map(|m| m.point)
            })
            .collect();
        let used = points
            .iter()
            .fold(0u64, |m, p| m | taken.get(p).copied().unwrap_or(0));
        let color = if used == u64::MAX {
            own += 1;
            own - 1
        } else {
            let color = (!used).trailing_zeros();
            for p in points {
                *taken.entry(p).or_default() |= 1 << color;
            }
            color
        };
        colored.push((color, *c));
    }
    colored.sort_by_key(|(color, _)| *color);
    let mut starts = vec![];
    for (i, (color, c)) in colored.iter().enumerate() {
        if i == 0 || colored[i - 1].0 != *color {
            starts.push(walk + i as u32);
        }
        list.push(*c);
    }
    if !colored.is_empty() {
        starts.push(list.len() as u32);
    }
    (list, starts)
}
