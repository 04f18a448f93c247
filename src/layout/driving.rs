//! Structs shared with the kernels that a program drives the world
//! through: commands (`shaders/commands.wgsl`), queries
//! (`shaders/query.wgsl`) and contact events (`shaders/events.wgsl`).

use bytemuck::{Pod, Zeroable};

/// A command queued by the caller and applied at the start of the next
/// step (WGSL `Command`, `shaders/commands.wgsl`; built by
/// [`crate::commands::Command::encode`]). 48 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Command {
    /// One of the `COMMAND_*` kinds.
    pub kind: u32,
    /// The point or body it acts on.
    pub subject: u32,
    /// An angular impulse (kg m^2/s), an angular velocity (rad/s) or an
    /// angle (rad), by kind.
    pub scalar: f32,
    /// [`COMMAND_SET_ANGLE`] for a body teleport or target that sets the
    /// angle; [`COMMAND_KINEMATIC`] for a command on a kinematic body; a
    /// joint's other body plus 1 ([`COMMAND_BODY_MOTOR`],
    /// [`COMMAND_BODY_LIMIT`], [`COMMAND_BODY_SPRING`]).
    pub flags: u32,
    /// An impulse (N s), a velocity (m/s) or a position (m), by kind; a
    /// motor's largest angular impulse (kg m^2/s); a limit's angles (rad);
    /// a spring's target angle (rad) and `h omega^2` (1/s).
    pub a: [f32; 2],
    /// Where a body impulse acts (m); a target's `1 / dt`; how a joint's
    /// sides take its impulse.
    pub b: [f32; 2],
    /// A motor's or a limit's pivot: the points whose mean it is
    /// ([`PIVOT_NONE`] for unused ones; all four unused: no pivot), chosen
    /// by the host (`commands::joint_pivot`). Unused by other kinds.
    pub pivot: [u32; 4],
}

/// An unused entry of [`Command::pivot`].
pub const PIVOT_NONE: u32 = u32::MAX;

/// `v += a / m` for point `subject`.
pub const COMMAND_POINT_IMPULSE: u32 = 0;
/// `v = a` for point `subject`.
pub const COMMAND_POINT_VELOCITY: u32 = 1;
/// `p = a` for point `subject`.
pub const COMMAND_POINT_TELEPORT: u32 = 2;
/// Impulse `a` at `b` on body `subject`.
pub const COMMAND_BODY_IMPULSE: u32 = 3;
/// Angular impulse `scalar` on body `subject`.
pub const COMMAND_BODY_ANGULAR_IMPULSE: u32 = 4;
/// Velocity `a` and angular velocity `scalar` for body `subject`.
pub const COMMAND_BODY_VELOCITY: u32 = 5;
/// Body `subject` moved rigidly to centre `a` (and angle `scalar` with
/// [`COMMAND_SET_ANGLE`]).
pub const COMMAND_BODY_TELEPORT: u32 = 6;
/// Impulse `a` at the offset `b`, both in body `subject`'s frame (turned
/// by its best-fit rotation from rest, about its centre of mass).
pub const COMMAND_BODY_LOCAL_IMPULSE: u32 = 7;
/// Velocity and spin that take body `subject` to centre `a` (and angle
/// `scalar` with [`COMMAND_SET_ANGLE`]) over the next step, `b.x` being
/// `1 / dt`.
pub const COMMAND_BODY_TARGET: u32 = 8;
/// A motor: body `subject`'s spin relative to body `flags - 1` (relative
/// to the world when `flags` is 0) driven toward `scalar` (rad/s) at the
/// start of each substep by an angular impulse of at most `a.x` (kg
/// m^2/s: the torque times the substep `h`), the reaction on the other
/// body; `b.x` and `b.y` say how each side takes it: 1 free, 0
/// kinematic (counted by its members' weights), 2 held by two pinned
/// points or more (no reaction).
pub const COMMAND_BODY_MOTOR: u32 = 9;
/// An angle limit: body `subject`'s best-fit angle from rest relative to
/// body `flags - 1`'s (to the world's, 0, when `flags` is 0) kept within
/// `[a.x, a.y]` (rad) at the start of each substep, over that substep,
/// by an angular impulse on both, `scalar` being `1 / h`; `b.x` and `b.y`
/// say how each side takes it, as a motor's do.
pub const COMMAND_BODY_LIMIT: u32 = 10;
/// An angular spring: body `subject`'s best-fit angle from rest relative
/// to body `flags - 1`'s (to the world's when `flags` is 0) pulled toward
/// `a.x` (rad) at the start of each substep, the relative spin `w` set to
/// `(w - a.y (angle - a.x)) * scalar`: one implicit Euler substep of a
/// damped oscillator of natural frequency `omega` and damping ratio
/// `zeta`, with `a.y = h omega^2` and `scalar = 1 / (1 + 2 zeta omega h +
/// (omega h)^2)`; `b.x` and `b.y` say how each side takes it, as a
/// motor's do.
pub const COMMAND_BODY_SPRING: u32 = 11;
/// How fast an angle limit takes back an angle already past it: the
/// relative spin it sets is the overshoot times this rate (1/s), or over
/// one substep when the substep is longer (WGSL `LIMIT_PUSH_RATE`). What
/// pushes a body past its limit within a substep (gravity, contacts)
/// rests it past by that push over the rate: a chain draped over a box
/// rests 0.003 rad past at 60/s, 0.010 at 20/s (docs/physics.md,
/// "Commands").
pub const LIMIT_PUSH_RATE: f32 = 60.0;
/// How many times the angle limits are solved at the start of each
/// substep; the motors and springs act in the first pass only (WGSL
/// `LIMIT_PASSES`).
pub const LIMIT_PASSES: u32 = 2;
/// A body teleport's or target's flag: turn it to the angle `scalar`.
pub const COMMAND_SET_ANGLE: u32 = 1;
/// A body command's flag: the body is kinematic, so its members count by
/// their shape-matching weights (they are all pinned) and every one of
/// them moves; impulses do nothing to it.
pub const COMMAND_KINEMATIC: u32 = 2;
/// Threads of a workgroup that reduces over a body's members (WGSL
/// `REDUCE_THREADS`, `shaders/reduce.wgsl`): the commands kernel's one
/// workgroup, and `move_bodies`' one per kinematic body.
pub const REDUCE_THREADS: u32 = 256;

/// A ray cast's question (WGSL `RayQuery`, `shaders/query.wgsl`): from
/// `origin` along `dir` (any length but zero) as far as `max` lengths of
/// `dir`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RayQuery {
    pub origin: [f32; 2],
    pub dir: [f32; 2],
    pub max: f32,
    pub _pad0: u32,
    pub _pad1: u32,
    pub _pad2: u32,
}

/// A ray cast's answer (WGSL `RayHitRecord`): what it hit first
/// (`kind`: one of the `RAY_*` kinds, and its index), where, the surface's
/// unit normal there (against the ray), and the distance in lengths of the
/// ray's `dir`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RayHitRecord {
    pub t: f32,
    pub kind: u32,
    pub index: u32,
    pub _pad: u32,
    pub point: [f32; 2],
    pub normal: [f32; 2],
}

/// The ray hit nothing.
pub const RAY_NONE: u32 = 0;
/// The ray hit body `index`'s outline.
pub const RAY_BODY: u32 = 1;
/// The ray hit planet `index`.
pub const RAY_PLANET: u32 = 2;
/// The ray hit half-plane `index`.
pub const RAY_PLANE: u32 = 3;
/// The ray hit terrain segment `index` (of all terrain's, in order).
pub const RAY_TERRAIN: u32 = 4;
/// Threads of a ray's workgroup in the query kernel (WGSL
/// `QUERY_THREADS`): each tests every such-numbered body.
pub const QUERY_THREADS: u32 = 64;
/// How much a body's box grows before a ray or point of a query is tested
/// against it, relative to 1 m plus the box's largest coordinate (WGSL
/// `QUERY_BOX_SLACK`): more than the rounding of the edge tests, so that
/// the culling loses no hit.
pub const QUERY_BOX_SLACK: f32 = 1e-4;

/// One contact event (WGSL `ContactEvent`, `shaders/events.wgsl`): body
/// `a` (the lower index) and body `b` (or, with [`EVENT_COLLIDER`], the
/// collider `b & !EVENT_COLLIDER`) began ([`EVENT_BEGIN`]) or ended
/// ([`EVENT_END`]) touching at a step's end; `point` is where a point of
/// their contact was (the lowest-numbered point in it, index `point_index`),
/// at the step the contact began, or the last step it was seen.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ContactEvent {
    pub kind: u32,
    pub a: u32,
    pub b: u32,
    pub point_index: u32,
    pub point: [f32; 2],
    /// For a begin event, the speed at which they met (m/s, `>= 0`): the
    /// largest approach along the contact normal of the pair's points, with
    /// their velocities at the step's start; 0 for an end.
    pub approach: f32,
    pub _pad1: u32,
}

/// Two bodies began touching.
pub const EVENT_BEGIN: u32 = 1;
/// Two bodies stopped touching.
pub const EVENT_END: u32 = 2;
/// Partners a body keeps per step in contact events (WGSL `PAIR_SLOTS`),
/// as the lower-numbered body of each pair, and the colliders it touches:
/// a pair past them is not tracked that step, and counted lost.
pub const PAIR_SLOTS: u32 = 6;
/// Marks an event's `b` as a collider (WGSL `EVENT_COLLIDER`): `b` is then
/// this bit or'd with the collider's index in the collider table, planets
/// first, then half-planes.
pub const EVENT_COLLIDER: u32 = 0x8000_0000;
/// A body touches a collider when one of its points is within this many
/// point radii of the surface (WGSL `EVENT_TOUCH_RADII`): a resting
/// point is at one.
pub const EVENT_TOUCH_RADII: f32 = 1.25;
/// A body that touched a collider stays touching while one of its points
/// is within this many point radii of it (WGSL `EVENT_KEEP_RADII`).
pub const EVENT_KEEP_RADII: f32 = 2.0;
/// Events the log holds between two collections (WGSL `EVENT_CAPACITY`):
/// past it they are counted lost.
pub const EVENT_CAPACITY: u32 = 4096;
