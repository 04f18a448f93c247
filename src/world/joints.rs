//! Joints the world keeps: a motor, an angular spring, an angle limit or
//! any of them together between a body and another body (or the world),
//! as Box2D's revolute joint and rapier's joint motors and limits are.
//! The solvers turn each into the commands `Command::BodySpring`,
//! `Command::BodyMotor` and `Command::BodyAngleLimit` at every step, so a
//! ragdoll's limits and a car's motors are set once rather than queued
//! every step.

use super::{BodyHandle, JointHandle, World, next_index};
use crate::commands::Command;
use crate::error::{Item, WorldError};
use crate::validate::{check_angle_limits, check_angular_spring, check_motor};

/// A joint's motor: drives the body's spin relative to the other body's
/// (or the world's) toward `speed` (rad/s, counter-clockwise positive)
/// with at most `max_torque` (N m, `>= 0`), as
/// [`Command::BodyMotor`] does for one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motor {
    /// Target relative spin, rad/s.
    pub speed: f32,
    /// Largest torque, N m; `0` turns the motor off.
    pub max_torque: f32,
}

/// A joint's angular spring: pulls the body's angle relative to the other
/// body's toward `target` (rad, within `[-pi, pi]`) at the natural
/// frequency `hertz` (Hz, `>= 0`) with the damping ratio `damping_ratio`
/// (`>= 0`; `1` critically damped), as [`Command::BodySpring`] does for
/// one step (Box2D's revolute spring).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AngularSpring {
    /// Natural frequency, Hz; `0` turns the spring off.
    pub hertz: f32,
    /// Damping ratio: `0` undamped, `1` critically damped.
    pub damping_ratio: f32,
    /// The relative angle it pulls toward, rad.
    pub target: f32,
}

/// A joint between `body` and `other` (the world with `None`) that the
/// world keeps: an optional [`AngularSpring`], an optional [`Motor`] and
/// an optional angle limit, solved at the start of every substep of every
/// step as the commands [`Command::BodySpring`], [`Command::BodyMotor`]
/// and [`Command::BodyAngleLimit`] are, in that order (about the
/// points that join the bodies, `commands::joint_pivot`). Add it with
/// [`World::add_joint`]; it goes when either body is removed. Like a
/// queued limit or spring it wakes nothing, so a limited ragdoll still
/// falls asleep; adding or changing a joint wakes its bodies at the solver's
/// `sync`.
///
/// ```
/// use softbody::prelude::*;
///
/// let mut world = World::default();
/// let a = BoxShape::new(Vec2::ZERO, Vec2::ONE).build(&mut world)?;
/// let b = BoxShape::new(Vec2::new(1.0, 0.0), Vec2::ONE).build(&mut world)?;
/// let hinge = world.add_joint(
///     Joint::new(b.bodies[0], Some(a.bodies[0]))
///         .limits(-0.5, 0.5)
///         .motor(2.0, 50.0),
/// )?;
/// assert_eq!(world.joints()[hinge.index()].limits, Some([-0.5, 0.5]));
/// // Refused, naming the joint and the field:
/// let err = world.add_joint(Joint::new(a.bodies[0], None).limits(1.0, 0.0));
/// assert!(err.unwrap_err().to_string().starts_with("joint 1: lower limit"));
/// # Ok::<(), WorldError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Joint {
    /// The body the joint turns.
    pub body: BodyHandle,
    /// The body it turns against, or the world (`None`).
    pub other: Option<BodyHandle>,
    /// Its angular spring, if any.
    pub spring: Option<AngularSpring>,
    /// Its motor, if any.
    pub motor: Option<Motor>,
    /// Its angle limit `[lower, upper]`, rad, each within `[-pi, pi]`
    /// and `lower <= upper`: the body's best-fit angle from rest relative
    /// to `other`'s (both 0 as built), if any.
    pub limits: Option<[f32; 2]>,
}

impl Joint {
    /// A joint between `body` and `other` (the world with `None`) with no
    /// spring, motor or limit yet.
    pub fn new(body: BodyHandle, other: Option<BodyHandle>) -> Self {
        Self {
            body,
            other,
            spring: None,
            motor: None,
            limits: None,
        }
    }
    /// With an angular spring toward `target` rad at `hertz` Hz and the
    /// damping ratio `damping_ratio`.
    #[must_use]
    pub fn spring(mut self, hertz: f32, damping_ratio: f32, target: f32) -> Self {
        self.spring = Some(AngularSpring {
            hertz,
            damping_ratio,
            target,
        });
        self
    }
    /// With a motor toward `speed` rad/s with at most `max_torque` N m.
    #[must_use]
    pub fn motor(mut self, speed: f32, max_torque: f32) -> Self {
        self.motor = Some(Motor { speed, max_torque });
        self
    }
    /// With the angle limit `[lower, upper]`, rad.
    #[must_use]
    pub fn limits(mut self, lower: f32, upper: f32) -> Self {
        self.limits = Some([lower, upper]);
        self
    }
    /// The commands that make it for one step: its spring's, its motor's,
    /// then its limit's (Box2D's order).
    pub fn commands(&self) -> impl Iterator<Item = Command> + '_ {
        let (body, other) = (self.body, self.other);
        let spring = self.spring.map(|s| Command::BodySpring {
            body,
            other,
            hertz: s.hertz,
            damping_ratio: s.damping_ratio,
            target: s.target,
        });
        let motor = self.motor.map(|m| Command::BodyMotor {
            body,
            other,
            speed: m.speed,
            max_torque: m.max_torque,
        });
        let limit = self.limits.map(|[lower, upper]| Command::BodyAngleLimit {
            body,
            other,
            lower,
            upper,
        });
        spring.into_iter().chain(motor).chain(limit)
    }
}

impl World {
    /// Checks joint `index` against this world: known bodies, the other
    /// not the body itself, a spring, a motor and limits within range.
    fn check_joint(&self, index: u32, j: &Joint) -> Result<(), WorldError> {
        let item = Item::Joint(index);
        let len = self.bodies.len() as u32;
        for b in std::iter::once(j.body).chain(j.other) {
            if b.0 >= len {
                return Err(WorldError::UnknownHandle {
                    item: Item::Body(b.0),
                    len,
                });
            }
        }
        if j.other == Some(j.body) {
            return Err(WorldError::SelfMotor { item });
        }
        if let Some(s) = j.spring {
            check_angular_spring(item, s.hertz, s.damping_ratio, s.target)?;
        }
        if let Some(m) = j.motor {
            check_motor(item, m.speed, m.max_torque)?;
        }
        if let Some([lower, upper]) = j.limits {
            check_angle_limits(item, lower, upper)?;
        }
        Ok(())
    }

    /// Adds a joint ([`Joint`]), checked: refused with an error that
    /// names it and what is wrong.
    pub fn add_joint(&mut self, j: Joint) -> Result<JointHandle, WorldError> {
        let index = next_index(self.joints.len(), "joints")?;
        self.check_joint(index, &j)?;
        self.joints.push(j);
        Ok(JointHandle(index))
    }

    /// Replaces joint `h` (a new motor speed, a new limit), checked as
    /// [`World::add_joint`] checks; the solvers take it at `sync`.
    pub fn set_joint(&mut self, h: JointHandle, j: Joint) -> Result<(), WorldError> {
        let len = self.joints.len() as u32;
        if h.0 >= len {
            return Err(WorldError::UnknownHandle {
                item: Item::Joint(h.0),
                len,
            });
        }
        self.check_joint(h.0, &j)?;
        self.joints[h.index()] = j;
        Ok(())
    }

    /// Removes joints (breaks them); the joints after a removed one move
    /// down. Repeated handles are fine; an unknown one is refused before
    /// anything is removed. The solvers take it at `sync`.
    pub fn remove_joints(&mut self, joints: &[JointHandle]) -> Result<(), WorldError> {
        let len = self.joints.len() as u32;
        let mut gone = vec![false; self.joints.len()];
        for h in joints {
            *gone.get_mut(h.index()).ok_or(WorldError::UnknownHandle {
                item: Item::Joint(h.0),
                len,
            })? = true;
        }
        let mut k = 0;
        self.joints.retain(|_| {
            k += 1;
            !gone[k - 1]
        });
        Ok(())
    }

    /// The joints, in the order they were added.
    pub fn joints(&self) -> &[Joint] {
        &self.joints
    }

    /// Follows a removal of bodies: joints of a removed body go, the
    /// others take their bodies' new indices.
    pub(super) fn remap_joints(&mut self, bodies: &super::Remap) {
        self.joints.retain_mut(|j| {
            let Some(body) = bodies.get(j.body.0) else {
                return false;
            };
            j.body = BodyHandle(body);
            match j.other.map(|o| bodies.get(o.0)) {
                Some(None) => false,
                Some(Some(o)) => {
                    j.other = Some(BodyHandle(o));
                    true
                }
                None => true,
            }
        });
    }
}
