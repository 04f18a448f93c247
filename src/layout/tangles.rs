//! The constants of tangle recovery (`shaders/body_collide/untangle.wgsl`,
//! `cpu::body_collide::untangle`; docs/physics.md, "Tangle recovery"):
//! its pace, its push, and the words of each body's tangle slots.

#[cfg(doc)]
use super::WARM_SETTLED;

/// How fast a tangled pair of bodies (one's outline centre inside the
/// other's outline) is parted, in point radii per second (WGSL
/// `SimParams::untangle_speed`): 2.4 m/s with the default 2 cm radius,
/// whatever the time step. A pace rather than a push, as rapier's recovery
/// pace: fast enough to part a pair pressed together by a deep pile (at
/// 30 radii a second, 0.6 m/s, the default scene of 10,000 bodies kept
/// 440 bodies overlapped at 15 s; at 120, 126), slow enough that a pair
/// held in a pile reads little more than that speed.
pub const UNTANGLE_PACE: f32 = 120.0;

/// The deepest a tangled pair's contact inside pushes per contact pass, in
/// multiples of `untangle_speed h` (a pair placed so, [`TANGLE_FRESH`],
/// that much a substep instead, shared by the passes:
/// `SimParams::untangle_push`): the pair's own
/// contacts part it at about twice the untangle speed at most, so that a
/// pair that passed deep into each other comes apart instead of being
/// flung apart by the push of its deepest points (docs/physics.md,
/// "Tangle recovery").
pub const UNTANGLE_PUSH: f32 = 2.0;

/// The bit of a tangle slot's first word (WGSL `tangles`) that the narrow
/// phase sets when it finds a point of the slot's other assembly inside
/// the body: the tangle holds at the next step even when the centre is
/// out.
pub const TANGLE_KEPT: u32 = 0x8000_0000;

/// The bit of a tangle slot's first word (WGSL `tangles`) that marks a
/// pair placed tangled: found while an outline point of either body had
/// not settled ([`WARM_SETTLED`]: a body built, spawned or teleported
/// there), or fresh at the last step. Its points inside are pushed at
/// most [`UNTANGLE_PUSH`] times the pace per substep, shared by the
/// contact passes (`SimParams::untangle_push`), where a tangle a pile
/// pressed together pushes that much in each pass (docs/physics.md,
/// "Deep overlaps").
pub const TANGLE_FRESH: u32 = 0x4000_0000;

/// The bit of a tangle slot's first word (WGSL `tangles`) that marks a
/// pair found by its edges rather than by a centre: an outline edge of the
/// body passes through the other with neither end deep inside (bodies
/// placed with their corners on each other's faces). Its contacts inside
/// push nothing: they only stop the points' approach along the pair's
/// direction, and the parting pace alone parts it (docs/physics.md,
/// "Deep overlaps").
pub const TANGLE_CROSSED: u32 = 0x2000_0000;

/// The flag bits of a tangle slot's first word ([`TANGLE_KEPT`],
/// [`TANGLE_FRESH`], [`TANGLE_CROSSED`]); the rest is the other body's
/// assembly plus one.
pub const TANGLE_FLAGS: u32 = TANGLE_KEPT | TANGLE_FRESH | TANGLE_CROSSED;

/// Words per body of the tangles buffer (WGSL `TANGLE_WORDS`): a body
/// holds up to two tangles of four words, so that three bodies on one spot
/// are each tangled with both others.
pub const TANGLE_WORDS: u32 = 8;
