//! Every check of a value given to the engine, with the bounds it checks
//! against: the bottom layer that the world, the parameters, the packing
//! and the solvers call, so that each rule has one home and each error
//! names the item and field at fault.

use glam::Vec2;

use crate::error::{Item, WorldError};
use crate::layout::{MAX_INFLATION, MIN_INFLATION};

/// Smallest non-zero mass, kg: below it `1 / mass` loses meaning in f32.
pub const MIN_MASS: f32 = 1.0e-12;
/// Largest mass, kg: with coordinates within [`MAX_COORD`], a body's
/// weighted sums (`m |r|^2`, up to 1e27 a point) stay far from f32
/// overflow (3.4e38) for any body the engine accepts.
pub const MAX_MASS: f32 = 1.0e12;

/// Largest coordinate, m, of a position given to the engine (points, rest
/// shapes, planet centres, half-plane offsets, pinned points moved; a
/// state written back has the wider [`MAX_STATE`]): the world is the
/// square `|x|, |y| <= 1e7` m. Beyond it an
/// f32 position resolves no better than a metre, and far beyond it squared
/// distances overflow: without this bound a 2e19 m box's squared
/// distances overflow f32 to NaN in one step, with no error.
pub const MAX_COORD: f32 = 1.0e7;
/// Largest length, m: rest lengths, planet radii, the point radius.
pub const MAX_LENGTH: f32 = 1.0e8;
/// Largest velocity component, m/s, of a point given to the engine.
pub const MAX_SPEED: f32 = 1.0e7;
/// Largest position coordinate, m, and velocity component, m/s, of a
/// *state* written back (`set_state`, a checkpoint restored): the engine's
/// own states may drift past [`MAX_COORD`] (a point flung away), and are
/// taken back as long as f32 stays safe: squared distances up to about
/// 4e30. A state at 1e20 is refused: it would step to NaN.
pub const MAX_STATE: f32 = 1.0e15;

/// A value that must be finite and within `-max..=max`; `expected` spells
/// the bound out for the message.
pub(crate) fn check_bounded(
    item: Item,
    field: &'static str,
    v: f32,
    max: f32,
    expected: &'static str,
) -> Result<(), WorldError> {
    check_finite(item, field, v)?;
    if v.abs() > max {
        return Err(WorldError::OutOfRange {
            item,
            field,
            value: v as f64,
            expected,
        });
    }
    Ok(())
}

/// A vector, finite and each component within `-max..=max`.
pub(crate) fn check_vec_within(
    item: Item,
    field: &'static str,
    v: Vec2,
    max: f32,
    expected: &'static str,
) -> Result<(), WorldError> {
    check_vec(item, field, v)?;
    for c in [v.x, v.y] {
        check_bounded(item, field, c, max, expected)?;
    }
    Ok(())
}

/// A position within [`MAX_COORD`].
pub(crate) fn check_position(item: Item, field: &'static str, v: Vec2) -> Result<(), WorldError> {
    check_vec_within(item, field, v, MAX_COORD, "|x|, |y| <= 1e7 m")
}

/// A velocity within [`MAX_SPEED`].
pub(crate) fn check_velocity(item: Item, field: &'static str, v: Vec2) -> Result<(), WorldError> {
    check_vec_within(item, field, v, MAX_SPEED, "|vx|, |vy| <= 1e7 m/s")
}

/// A state's position and velocity within [`MAX_STATE`].
pub(crate) fn check_state_entry(item: Item, pos: Vec2, vel: Vec2) -> Result<(), WorldError> {
    const STATE: &str = "a state within 1e15 (m, m/s)";
    // Both finite first: a NaN is named as such even beside a value out of
    // range.
    check_vec(item, "pos", pos)?;
    check_vec(item, "vel", vel)?;
    check_vec_within(item, "pos", pos, MAX_STATE, STATE)?;
    check_vec_within(item, "vel", vel, MAX_STATE, STATE)
}

/// A non-negative length within [`MAX_LENGTH`].
pub(crate) fn check_length(item: Item, field: &'static str, v: f32) -> Result<(), WorldError> {
    check_non_negative(item, field, v)?;
    check_bounded(item, field, v, MAX_LENGTH, "0..=1e8 m")
}

pub(crate) fn check_finite(item: Item, field: &'static str, v: f32) -> Result<(), WorldError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(WorldError::NonFinite { item, field })
    }
}

/// A point's mass: `0` (pinned) or in [`MIN_MASS`]`..=`[`MAX_MASS`], as
/// [`World::add_point`](crate::world::World::add_point) and the shape builders (before they add anything)
/// check it.
pub(crate) fn check_mass(item: Item, mass: f32) -> Result<(), WorldError> {
    check_non_negative(item, "mass", mass)?;
    if mass != 0.0 && !(MIN_MASS..=MAX_MASS).contains(&mass) {
        return Err(WorldError::OutOfRange {
            item,
            field: "mass",
            value: mass as f64,
            expected: "0 (pinned) or 1e-12..=1e12",
        });
    }
    Ok(())
}

pub(crate) fn check_vec(item: Item, field: &'static str, v: Vec2) -> Result<(), WorldError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(WorldError::NonFinite { item, field })
    }
}

pub(crate) fn check_non_negative(
    item: Item,
    field: &'static str,
    v: f32,
) -> Result<(), WorldError> {
    check_finite(item, field, v)?;
    if v < 0.0 {
        return Err(WorldError::Negative {
            item,
            field,
            value: v,
        });
    }
    Ok(())
}

pub(crate) fn check_opt_non_negative(
    item: Item,
    field: &'static str,
    v: Option<f32>,
) -> Result<(), WorldError> {
    v.map_or(Ok(()), |v| check_non_negative(item, field, v))
}

pub(crate) fn check_capacity(what: &'static str, len: usize, max: usize) -> Result<(), WorldError> {
    if len >= max {
        return Err(WorldError::TooMany {
            what,
            count: len as u64 + 1,
            limit: max as u64,
        });
    }
    Ok(())
}

/// Checks an inflation (target area over rest area): finite and in
/// [`MIN_INFLATION`]`..=`[`MAX_INFLATION`].
pub(crate) fn check_inflation(item: Item, ratio: f32) -> Result<(), WorldError> {
    check_finite(item, "inflation", ratio)?;
    if !(MIN_INFLATION..=MAX_INFLATION).contains(&ratio) {
        return Err(WorldError::OutOfRange {
            item,
            field: "inflation",
            value: ratio as f64,
            expected: "0.01 ..= 100 (target area over rest area)",
        });
    }
    Ok(())
}

/// An elasticity: finite and in `0..=1`.
pub(crate) fn check_elasticity(item: Item, e: f32) -> Result<(), WorldError> {
    if !e.is_finite() {
        return Err(WorldError::NonFinite {
            item,
            field: "elasticity",
        });
    }
    if !(0.0..=1.0).contains(&e) {
        return Err(WorldError::OutOfRange {
            item,
            field: "elasticity",
            value: e as f64,
            expected: "0..=1",
        });
    }
    Ok(())
}

/// `got` entries of `what` where `expected` are needed: a
/// [`WorldError::LengthMismatch`].
fn check_len(what: &'static str, expected: usize, got: usize) -> Result<(), WorldError> {
    if got != expected {
        return Err(WorldError::LengthMismatch {
            what,
            expected,
            got,
        });
    }
    Ok(())
}

/// Checks that a state has one position and one velocity per point.
pub fn check_state_len(n: usize, pos: &[[f32; 2]], vel: &[[f32; 2]]) -> Result<(), WorldError> {
    check_len("positions", n, pos.len())?;
    check_len("velocities", n, vel.len())
}

/// Checks that sleeping's steps at rest have one entry per point.
pub fn check_rest_steps(n: usize, steps: &[u32]) -> Result<(), WorldError> {
    check_len("rest steps", n, steps.len())
}

/// Checks sleeping's anchors restored from a checkpoint: one position per
/// point, each finite and within the state's range.
pub fn check_sleep_anchors(n: usize, anchors: &[[f32; 2]]) -> Result<(), WorldError> {
    check_len("sleep anchors", n, anchors.len())?;
    for (i, a) in anchors.iter().enumerate() {
        let item = Item::Point(i as u32);
        let a = Vec2::from_array(*a);
        check_vec(item, "sleep anchor", a)?;
        check_vec_within(
            item,
            "sleep anchor",
            a,
            MAX_STATE,
            "a position within 1e15 m",
        )?;
    }
    Ok(())
}

/// A point's gravity scale: finite, within
/// `±`[`MAX_GRAVITY_SCALE`](crate::world::MAX_GRAVITY_SCALE).
pub(crate) fn check_gravity_scale(item: Item, scale: f32) -> Result<(), WorldError> {
    let max = crate::world::MAX_GRAVITY_SCALE;
    check_bounded(item, "gravity_scale", scale, max, "-1e3..=1e3")
}

/// A planet's pull `G M`: finite, `>= 0`, at most [`MAX_PLANET_GRAVITY`].
pub(crate) fn check_planet_gravity(item: Item, gm: f32) -> Result<(), WorldError> {
    check_non_negative(item, "gravity", gm)?;
    check_bounded(item, "gravity", gm, MAX_PLANET_GRAVITY, "0..=1e20 m^3/s^2")
}

/// The largest pull `G M` a planet may have, m^3/s^2 (the Sun's is 1.3e20).
pub const MAX_PLANET_GRAVITY: f32 = 1.0e20;

/// A collider's angular velocity: finite, within [`MAX_SPIN`].
pub(crate) fn check_spin(item: Item, spin: f32) -> Result<(), WorldError> {
    check_bounded(item, "spin", spin, MAX_SPIN, "|spin| <= 1e4 rad/s")
}

/// The fastest a planet or half-plane may turn, rad/s.
pub const MAX_SPIN: f32 = 1.0e4;

/// Checks sleep supports restored from a checkpoint: one per point, each
/// a body index below `bodies` or `u32::MAX` (none).
pub fn check_sleep_supports(n: usize, bodies: usize, supports: &[u32]) -> Result<(), WorldError> {
    check_len("sleep supports", n, supports.len())?;
    for (i, &b) in supports.iter().enumerate() {
        if b != u32::MAX && b as usize >= bodies {
            return Err(WorldError::IndexOutOfRange {
                item: Item::Point(i as u32),
                field: "sleep support",
                index: b,
                len: bodies as u32,
            });
        }
    }
    Ok(())
}

/// Checks warm-starting state restored from a checkpoint: one entry per
/// point, its two impulses finite (CPU mirror of `body_collide.wgsl`'s
/// `warm`: bodies, then f32 bits).
pub fn check_warm_starts(n: usize, warm: &[[u32; 4]]) -> Result<(), WorldError> {
    check_len("warm starts", n, warm.len())?;
    for (i, w) in warm.iter().enumerate() {
        for (field, bits) in [("warm start left", w[2]), ("warm start impulse", w[3])] {
            if !f32::from_bits(bits).is_finite() {
                return Err(WorldError::NonFinite {
                    item: Item::Point(i as u32),
                    field,
                });
            }
        }
    }
    Ok(())
}

/// Checks tangle recovery's state (one record of
/// [`TANGLE_WORDS`](crate::layout::TANGLE_WORDS) words per body, as
/// [`CpuSolver::tangles`](crate::cpu::CpuSolver::tangles) gives it): one
/// record per body, and in each used slot another body's index and a
/// finite direction.
pub fn check_tangles(bodies: usize, tangles: &[[u32; 8]]) -> Result<(), WorldError> {
    if tangles.len() != bodies {
        return Err(WorldError::OutOfSync(format!(
            "{} tangle records for {bodies} bodies (one per body)",
            tangles.len()
        )));
    }
    for (b, t) in tangles.iter().enumerate() {
        for slot in t.chunks_exact(4) {
            if slot[0] & !crate::layout::TANGLE_FLAGS == 0 {
                continue;
            }
            if slot[1] as usize >= bodies {
                return Err(WorldError::IndexOutOfRange {
                    item: Item::Body(b as u32),
                    field: "tangle",
                    index: slot[1],
                    len: bodies as u32,
                });
            }
            if !(f32::from_bits(slot[2]).is_finite() && f32::from_bits(slot[3]).is_finite()) {
                return Err(WorldError::NonFinite {
                    item: Item::Body(b as u32),
                    field: "tangle direction",
                });
            }
        }
    }
    Ok(())
}

/// Checks that a state has one position and one velocity per point, all
/// finite (a NaN or infinite entry would spread to every point linked to
/// it in one step) and within [`MAX_STATE`]: wider
/// than what a world takes as input, since a running world's points may
/// drift past that, but safe for f32.
pub fn check_state(n: usize, pos: &[[f32; 2]], vel: &[[f32; 2]]) -> Result<(), WorldError> {
    check_state_len(n, pos, vel)?;
    for (i, (p, v)) in pos.iter().zip(vel).enumerate() {
        let item = Item::Point(i as u32);
        check_state_entry(item, Vec2::from_array(*p), Vec2::from_array(*v))?;
    }
    Ok(())
}

/// A motor's speed (rad/s) and torque bound (N m, `>= 0`): finite and
/// within `1e15`. The one home of the rule for `Command::BodyMotor` and
/// [`Joint::motor`](crate::world::Joint::motor).
pub(crate) fn check_motor(item: Item, speed: f32, max_torque: f32) -> Result<(), WorldError> {
    for (field, v) in [("motor speed", speed), ("max torque", max_torque)] {
        check_finite(item, field, v)?;
        check_bounded(item, field, v, MAX_STATE, "|value| <= 1e15")?;
    }
    check_non_negative(item, "max torque", max_torque)
}

/// An angular spring's frequency (Hz) and damping ratio: finite, `>= 0`
/// and at most `1e6`; its target angle (rad) finite and within `[-pi,
/// pi]`. The one home of the rule for `Command::BodySpring` and
/// [`Joint::spring`](crate::world::Joint::spring).
pub(crate) fn check_angular_spring(
    item: Item,
    hertz: f32,
    damping_ratio: f32,
    target: f32,
) -> Result<(), WorldError> {
    for (field, v) in [
        ("spring hertz", hertz),
        ("spring damping ratio", damping_ratio),
    ] {
        check_non_negative(item, field, v)?;
        check_bounded(item, field, v, 1e6, "<= 1e6")?;
    }
    check_bounded(
        item,
        "spring target",
        target,
        std::f32::consts::PI,
        "|angle| <= pi",
    )
}

/// An angle limit's range (rad): each end finite and within `[-pi, pi]`,
/// `lower <= upper`. The one home of the rule for
/// `Command::BodyAngleLimit` and [`Joint::limits`](crate::world::Joint::limits).
pub(crate) fn check_angle_limits(item: Item, lower: f32, upper: f32) -> Result<(), WorldError> {
    let pi = std::f32::consts::PI;
    for (field, v) in [("lower limit", lower), ("upper limit", upper)] {
        check_finite(item, field, v)?;
        check_bounded(item, field, v, pi, "|angle| <= pi")?;
    }
    if lower > upper {
        return Err(WorldError::OutOfRange {
            item,
            field: "lower limit",
            value: lower as f64,
            expected: "<= the upper limit",
        });
    }
    Ok(())
}
