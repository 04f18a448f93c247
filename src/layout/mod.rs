//! Structs shared between Rust and WGSL (`shaders/shared.wgsl`).
//!
//! Every struct here is `#[repr(C)]`, `Pod`, padded explicitly, and checked
//! field by field against naga's layout of the WGSL struct of the same name
//! in `tests/shaders.rs`. The CPU reference path works on the same structs, so
//! both paths read identical data.

use bytemuck::{Pod, Zeroable};

/// Threads per workgroup of every per-item kernel.
pub const WORKGROUP_SIZE: u32 = 64;
/// Threads per workgroup of the large-body reduction.
pub const LARGE_BODY_THREADS: u32 = 256;
/// Per-point and per-body dispatches come in this many interleaved stripes
/// of workgroups (WGSL `spread_index`, `src/gpu/shaders.rs` `spread_grid`).
pub const SPREAD: u32 = 16;
/// Bodies with at most this many points are reduced by one thread each;
/// larger ones by a workgroup of [`LARGE_BODY_THREADS`] threads.
pub const SMALL_BODY_MAX_POINTS: u32 = 32;

/// Capacity of the planet table. Static colliders live in one uniform
/// buffer: every point tests every collider, and a uniform buffer is read
/// once per SIMD batch (lavapipe) or from the constant cache (GPUs) instead
/// of once per point.
pub const MAX_PLANETS: usize = 256;
/// Capacity of the half-plane table.
pub const MAX_PLANES: usize = 64;

/// Spring kind codes, as in WGSL.
pub const KIND_SPRING: u32 = 0;
/// Soft distance constraint.
pub const KIND_SOFT: u32 = 1;
/// Hard rod.
pub const KIND_ROD: u32 = 2;

/// Uniform parameters of one substep (WGSL `SimParams`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SimParams {
    /// Gravity, m/s^2.
    pub gravity: [f32; 2],
    /// Substep length `h`, s.
    pub h: f32,
    /// Point radius for static collisions, m.
    pub point_radius: f32,
    pub num_points: u32,
    pub num_springs: u32,
    pub num_bodies: u32,
    pub num_planets: u32,
    pub num_planes: u32,
    /// Bodies reduced one per thread; they come first in `body_order`.
    pub num_small_bodies: u32,
    /// Bodies reduced one per workgroup; they follow in `body_order`.
    pub num_large_bodies: u32,
    /// Bodies whose outline is a polygon (at least 3 points), listed in
    /// `collider_order`; zero when body collisions are off.
    pub num_colliders: u32,
    /// The first `num_small_colliders` of them have at most
    /// `SMALL_BODY_MAX_POINTS` outline points (bounds by one thread each);
    /// the rest by a workgroup each.
    pub num_small_colliders: u32,
    /// Free points (in no body) that collide as disks of `point_radius`.
    pub num_free: u32,
    /// Slots of the collision grid's hash table minus one (a power of two
    /// minus one).
    pub table_mask: u32,
    /// Collision grid cell size, m.
    pub cell: f32,
    /// `1 / cell`, 1/m.
    pub inv_cell: f32,
    /// Approach speed below which contacts do not bounce, m/s
    /// ([`Params::restitution_threshold`](crate::Params::restitution_threshold)).
    pub restitution_threshold: f32,
    /// Scale of the fixed-point contact accumulators, a power of two
    /// chosen from the bodies' sizes when the world is packed
    /// ([`contact_scale`]).
    pub contact_scale: f32,
    /// Squared distance a point may stray from its anchor while its
    /// assembly counts as at rest, m^2: `(SLEEP_WINDOW sleep_speed dt)^2`
    /// ([`Params::sleep_speed`](crate::Params::sleep_speed)).
    pub sleep_motion_sq: f32,
    /// Squared approach speed above which a contact wakes both sides,
    /// m^2/s^2 ([`Params::wake_speed`](crate::Params::wake_speed)).
    pub wake_speed_sq: f32,
    /// Steps an assembly stays at rest before it sleeps; 0: never
    /// ([`Params::sleep_steps`](crate::Params::sleep_steps)).
    pub sleep_steps: u32,
    /// The speed at which a tangled pair of bodies is parted, m/s:
    /// [`UNTANGLE_PACE`] point radii per second (docs/physics.md, "Tangle
    /// recovery").
    pub untangle_speed: f32,
    /// The step `dt`, s: how far a moving collider goes in a step (its
    /// speed times this) is how near it wakes a sleeping point.
    pub dt: f32,
    /// The fastest a collider contact pushes out the depth a point had
    /// at the substep's start, m/s
    /// ([`Params::push_speed`](crate::Params::push_speed)).
    pub push_speed: f32,
    /// The fastest one contact pass pushes a point that has not settled
    /// out of another body ([`WARM_SETTLED`]), m/s: `push_speed` over
    /// `Params::contact_iterations`, so that the passes of a substep
    /// together push it out at `push_speed`.
    pub body_push_speed: f32,
    /// The fastest one contact pass pushes a point of a pair placed
    /// tangled ([`TANGLE_FRESH`]) out of the other body, m/s:
    /// [`UNTANGLE_PUSH`] times `untangle_speed` over
    /// `Params::contact_iterations`, so that the passes of a substep
    /// together push it at `UNTANGLE_PUSH` times the pace.
    pub untangle_push: f32,
    /// Pads the struct to WGSL's size (a multiple of its 8-byte
    /// alignment).
    pub _pad0: u32,
}

/// Where the active list's points start, in words after the contact
/// counts (WGSL `ACTIVE_POINTS`; `body_collide.wgsl`, `counts`): the word
/// before them counts the points appended.
pub const ACTIVE_POINTS: u32 = 1;

/// Bodies a point's near list holds (WGSL `NEAR_SLOTS`;
/// `body_collide/near.wgsl`): a substep's first narrow phase notes the
/// bodies that may touch a point, and its later narrow phases test those
/// rather than walk the grid. A point near more walks the grid again.
pub const NEAR_SLOTS: u32 = 4;

/// Words per point of the near list's record in the warm-start buffer
/// (WGSL `NEAR_RECORD_WORDS`), after the points' warm starts: the broad
/// phase's stamp, the count, the position, then [`NEAR_SLOTS`] bodies.
pub const NEAR_RECORD_WORDS: u32 = 4 + NEAR_SLOTS;

/// A point's sleeping record (WGSL `SleepPoint`): its assembly, the index
/// of the assembly's root point ([`ContactPoint::group`]), and its own
/// inverse mass, which the solver's point info loses while it sleeps.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SleepPoint {
    pub group: u32,
    pub inv_mass: f32,
}

/// A speed report that wakes an assembly (WGSL `SLEEP_WAKE`): the bits of
/// `+inf`, above every finite squared speed.
pub const SLEEP_WAKE: u32 = 0x7f80_0000;
/// The flag a touch sets in a sleeping assembly's speed word (WGSL
/// `SLEEP_TOUCHED`, sleeping's `touch`): the top bit, which the bits of no
/// squared motion (a float `>= 0`) have, so the test of an assembly's own
/// motion masks it off while other points set it.
pub const SLEEP_TOUCHED: u32 = 0x8000_0000;
/// How many times the rest window's reach (`SLEEP_WINDOW sleep_speed dt`)
/// an assembly must stray from its anchors for sleeping's touch to count
/// it as moved (WGSL `TOUCH_MOTION`): a body that only shakes at the edge
/// of rest, as one just woken in a settled pile does, wakes no neighbour
/// (at 1, a pour's wedged bodies and their neighbours woke each other for
/// good); an edit's `wake_point` always counts.
pub const TOUCH_MOTION: f32 = 4.0;
/// Steps at rest after which an assembly's points take their positions as
/// new anchors (WGSL `SLEEP_WINDOW`): an assembly is at rest while every
/// point stays within `SLEEP_WINDOW sleep_speed dt` of its anchor, so
/// steady motion counts as at rest below `sleep_speed`, as measured step
/// by step, while a shake of a millimetre or so that goes back and forth
/// within the window does not keep it awake (docs/physics.md, "Sleeping").
pub const SLEEP_WINDOW: u32 = 4;

/// Static per-point data (WGSL `PointInfo`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PointInfo {
    /// `1 / mass`, `0` for pinned points.
    pub inv_mass: f32,
    /// Shape-matching weight: the mass, or `0` when pinned (a pinned
    /// member's weight is relative to its body, [`Member::weight`]).
    pub weight: f32,
    /// Index into the material table.
    pub material: u32,
    /// Collision layer mask.
    pub layers: u32,
}

/// Resolved contact material (WGSL `MaterialInfo`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MaterialInfo {
    pub elasticity: f32,
    /// Viscous friction rate, 1/s.
    pub friction: f32,
    /// Coulomb coefficient of static friction, unitless.
    pub static_friction: f32,
    /// Coulomb coefficient of dynamic (sliding) friction, unitless.
    pub dynamic_friction: f32,
}

/// A resolved spring (WGSL `SpringInfo`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SpringInfo {
    pub a: u32,
    pub b: u32,
    /// Rest length, m.
    pub rest: f32,
    pub stiffness: f32,
    pub damping: f32,
    /// `KIND_SPRING`, `KIND_SOFT` or `KIND_ROD`.
    pub kind: u32,
}

/// Where one point's records lie in a per-point table (WGSL `RecordRange`,
/// bound as `vec2<u32>` and fetched in one load): `count` records from
/// `start`. A table may hold records no range names (room an edit left);
/// the ranges of two points never overlap.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct RecordRange {
    /// Index of the point's first record.
    pub start: u32,
    /// Number of the point's records.
    pub count: u32,
}

impl RecordRange {
    /// The indices of the records, as a range.
    pub fn span(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.count) as usize
    }
}

/// In [`HalfSpring::other`]: set when this end is the spring's `b`.
pub const HALF_IS_B: u32 = 1 << 31;
/// In [`HalfSpring::other`]: set for a soft constraint (else a force spring;
/// rods have their own adjacency).
pub const HALF_SOFT: u32 = 1 << 30;
/// In [`HalfSpring::other`]: the other end's point index.
pub const HALF_INDEX: u32 = HALF_SOFT - 1;

/// One end's view of a spring, soft constraint or rod (WGSL `HalfSpring`),
/// stored in that end's adjacency so that the per-point gather reads its
/// springs contiguously instead of through an index, in one 16-byte load.
/// The coefficients are those of one substep `h`, computed on the CPU when
/// the world is packed (and again when `h` changes), so that the kernel
/// computes no `exp` and both paths use the same bits.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct HalfSpring {
    /// The other end (`& HALF_INDEX`) and the flags `HALF_IS_B`, `HALF_SOFT`.
    pub other: u32,
    /// Rest length, m.
    pub rest: f32,
    /// Force spring: `stiffness * h * exp(-damping * h)`, kg/s (times an
    /// end's inverse mass: that end's velocity change per metre of stretch,
    /// damping folded in). Soft constraint: `(1 - exp(-stiffness * h)) / W`,
    /// kg (times an end's inverse mass: the fraction of the error that end
    /// closes), `W` the spring's summed inverse mass. Rod: unused (0).
    pub pull: f32,
    /// Force spring: `(exp(-damping * h) - 1) / W`, kg (times an end's
    /// inverse mass: the change of the relative velocity along the spring
    /// per unit of it). Otherwise unused (0).
    pub damp: f32,
}

impl HalfSpring {
    /// `pull` and `damp` of a spring of `kind` for a substep `h` whose ends
    /// have inverse masses summing to `w` (1/kg): both ends' records hold
    /// the same pair, so that a kernel needs neither the other end's mass
    /// nor a division (docs/physics.md, "Stage 3a: force springs and soft
    /// constraints"). Two pinned ends (`w == 0`) get zeros: the spring does
    /// nothing.
    pub fn coefficients(kind: u32, stiffness: f32, damping: f32, h: f32, w: f32) -> (f32, f32) {
        if w == 0.0 {
            return (0.0, 0.0);
        }
        match kind {
            KIND_SPRING => {
                let e = (-damping * h).exp();
                (stiffness * h * e, (e - 1.0) / w)
            }
            KIND_SOFT => ((1.0 - (-stiffness * h).exp()) / w, 0.0),
            _ => (0.0, 0.0),
        }
    }
}

/// A resolved soft body (WGSL `BodyInfo`): its members are
/// `members[first .. first + count]`. 32 bytes, fetched as two `vec4`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct BodyInfo {
    pub first: u32,
    pub count: u32,
    /// Shape stiffness, 1/s^2.
    pub stiffness: f32,
    /// 1/s.
    pub damping: f32,
    /// Area stiffness, 1/s^2: the pull toward the dilation that gives the
    /// body its target area (docs/physics.md, "Area").
    pub area_stiffness: f32,
    /// `1 / sqrt(det A_qq)`, with `A_qq = sum w q q^T` the rest shape's
    /// weighted second moment, in 1/(kg m^2): it turns the fitted
    /// deformation's determinant into the area ratio. `0` for a flat body
    /// (its rest points in a line), which has no area to keep.
    pub area_norm: f32,
    /// Target area over rest area, unitless, in
    /// [`MIN_INFLATION`]`..=`[`MAX_INFLATION`]: `1` keeps the rest area, a
    /// pressure body is inflated or deflated by changing it at run time.
    pub inflation: f32,
    /// The largest distance of a member from the rest centroid, m: how far
    /// the body reaches at rest (where it looks for half-plane and planet
    /// impacts); `-1` for a body that takes no part in impacts (see
    /// [`Packed::impact_home`](crate::pack::Packed::impact_home)).
    pub reach: f32,
}

impl BodyInfo {
    /// The indices of its members in [`Packed::members`](crate::pack::Packed::members).
    pub fn span(&self) -> std::ops::Range<usize> {
        self.first as usize..(self.first + self.count) as usize
    }
}

/// The smallest inflation (target area over rest area).
pub const MIN_INFLATION: f32 = 0.01;
/// The largest inflation (target area over rest area).
pub const MAX_INFLATION: f32 = 100.0;
/// How fast a body's area term follows a change of its inflation, 1/s
/// (WGSL `INFLATION_RATE`): the inflation it aims at moves toward the set
/// one by at most the factor `exp(INFLATION_RATE h)` a substep, so a body's
/// target area grows or shrinks at most `e^4`-fold (55-fold) a second and
/// its size at half that rate: a point at distance `r` from the centroid
/// of a body inflating at the full rate moves outward at about `2 r` per
/// second (docs/physics.md, "Area").
pub const INFLATION_RATE: f32 = 4.0;

/// The area ratio the area term assumes at the least: a body squashed
/// flatter is pushed out as if at this ratio, so the push is bounded. A
/// body turned inside out (a ratio of 0 or less) is not pushed.
pub const AREA_MIN_RATIO: f32 = 0.5;

/// One point's membership in one body (WGSL `Member`), in body order: body
/// `b`'s members are `members[first .. first + count]` of its [`BodyInfo`].
/// The frames reduction reads one per member, so it carries the point's
/// shape-matching weight as well as its index: one load per member, not
/// two.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Member {
    /// Rest offset `q` from the body's weighted rest centroid, m.
    pub rest: [f32; 2],
    pub point: u32,
    /// The point's shape-matching weight, kg: a copy of
    /// [`PointInfo::weight`], or for a pinned point
    /// [`PINNED_WEIGHT_RATIO`](crate::world::PINNED_WEIGHT_RATIO) times the
    /// body's free mass.
    pub weight: f32,
}

/// One point's membership in one body as the per-point gather reads it
/// (WGSL `PointMember`): the [`Member`] record's rest offset kept in the
/// point's adjacency, so that `apply` reads its memberships contiguously
/// (one 16-byte load each, no index to follow), with the body and its
/// per-substep damping fraction in place of the point and its weight.
/// Built on the CPU when the world is packed, and again when `h` changes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PointMember {
    /// Rest offset `q` from the body's weighted rest centroid, m.
    pub rest: [f32; 2],
    pub body: u32,
    /// `1 - exp(-damping * h)` of the body: the fraction of the velocity's
    /// departure from rigid motion removed per substep (computed on the CPU,
    /// so both paths use the same bits and the kernels no `exp`).
    pub relax: f32,
}

/// A body's best-fit rigid frame, recomputed every substep (WGSL `BodyFrame`).
/// Also what a renderer or user reads as the body's transform. 32 bytes:
/// the kernels store and fetch it as two `vec4`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct BodyFrame {
    /// Weighted centroid, m.
    pub centroid: [f32; 2],
    /// Weighted mean velocity, m/s.
    pub vel: [f32; 2],
    /// `(cos theta, sin theta)` of the best-fit rotation from rest.
    pub rot: [f32; 2],
    /// Angular velocity from angular momentum / inertia, rad/s.
    pub omega: f32,
    /// `stiffness * h`: the pull toward the targets per substep, 1/s.
    /// (The body's damping fraction travels with its memberships,
    /// [`PointMember::relax`]; its area term's dilation rate is kept
    /// beside the frames, one `f32` per body.)
    pub pull: f32,
}

/// The head of a list built on the GPU and dispatched over indirectly
/// (WGSL `ListHead`; the entries are in a buffer of their own): the
/// workgroup counts of the dispatches over it, which read them as their
/// indirect arguments, then the count of entries. Two lists have one:
/// the bodies whose half-plane and planet impacts shape matching's
/// `plane_impacts` solves in a substep (the frames kernels raise the
/// counts as they list bodies; always at least one workgroup, whose first
/// thread empties the next substep's list), and the active list of points
/// the contact passes run over on a CPU adapter (`body_collide/narrow.wgsl`,
/// `list_args`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct ListHead {
    /// Workgroups `(x, y, z)`: one thread per entry, rows of at most
    /// [`LIST_ROW`] workgroups.
    pub groups: [u32; 3],
    /// Entries listed.
    pub count: u32,
}

impl ListHead {
    /// No entries, one workgroup (an empty plane-impact list).
    pub const EMPTY: ListHead = ListHead {
        groups: [1, 1, 1],
        count: 0,
    };
}

/// Workgroups in a row of a dispatch over a [`ListHead`]'s list (the
/// least `max_compute_workgroups_per_dimension` a device may have).
pub const LIST_ROW: u32 = 65535;

/// How far outside a half-plane or planet a point may have stood at the
/// start of a substep, as a fraction of `point_radius`, for its contact
/// to count as one that persists (WGSL `RESTING_SLOP`): such a contact
/// does not bounce whatever its approach speed (docs/physics.md,
/// "Friction and restitution"). A point pushed out of a collider stands
/// on its surface to within rounding; 1% of the radius is far above
/// that and far below any gap a falling point crosses in a substep.
pub const RESTING_SLOP: f32 = 0.01;

/// How deep, in point radii counted from the outline's outside, a point
/// that has not settled ([`WARM_SETTLED`]) may have stood in another
/// body's outline at a substep's start for its contact to push the whole
/// depth out (WGSL `BODY_PUSH_SLOP`); from deeper it leaves at
/// `push_speed` ([`Params::push_speed`](crate::Params::push_speed);
/// docs/physics.md, "Deep overlaps"). 2: the point's disk lies wholly
/// inside the outline.
pub const BODY_PUSH_SLOP: f32 = 2.0;

/// The bit of a point's warm-start word `[2]` (an `f32` that is never
/// negative, so its sign bit is free; WGSL `WARM_SETTLED`) set once a
/// point has **settled** since it was placed: a substep's first narrow
/// phase found it without a body contact, or within a skin step of the
/// body it touches, or its placement allowance ran out
/// (`cpu::body_collide::moved_on`; docs/physics.md, "Bodies built
/// touching"). With the bit, the rest of the word is the warm start the
/// point may still take back, and its body contacts push their whole
/// depth out; without it, the rest is the point's placement allowance,
/// the depth its body contacts may keep ([`placed_push`](crate::cpu::body_collide::placed_push)).
/// Zeroed warm starts (a new point, a teleport, `set_state`, an edit that
/// packs the world again) have it clear and no allowance yet, so a body
/// placed inside another leaves it at the push speed ([`BODY_PUSH_SLOP`])
/// and bodies built touching part slowly, while a contact that a pile's
/// load presses deep is pushed out whole.
pub const WARM_SETTLED: u32 = 0x8000_0000;

/// The bit of a point's warm-start word `[3]` (an `f32` impulse that is
/// never negative; WGSL `WARM_SKIN`) that the collider stages set while
/// a point that has not settled ([`WARM_SETTLED`]) stood deeper than a
/// substep's skin push in a planet's, half-plane's or terrain segment's
/// contact skin at the substep's start: it is being lifted out slowly
/// ([`SKIN_PUSH_SHARE`]), and the substep's first narrow phase does not
/// settle it. That narrow phase writes the word afresh.
pub const WARM_SKIN: u32 = 0x8000_0000;

/// The share of [`Params::push_speed`](crate::Params::push_speed) at
/// which a collider lifts a point that has not settled out of its
/// contact skin (WGSL `SKIN_PUSH_SHARE`; docs/physics.md, "Bodies built
/// on colliders"): a body built with its outline on the ground is raised
/// the point radius at 1/16 of the push speed (0.19 m/s by default,
/// about 0.1 s), so that its shape does not turn the lift into a hop.
pub const SKIN_PUSH_SHARE: f32 = 1.0 / 16.0;

/// Largest magnitude of one fixed-point contribution, in units of
/// `1 / SimParams::contact_scale` (clamped; an accumulator holds twice
/// that): `2^30`, so a contribution of `x` m or m/s is clamped to
/// `+-2^30 / contact_scale` (1024 m or m/s for bodies of about 0.4 m).
pub const CONTACT_LIMIT_UNITS: f32 = 1_073_741_824.0;

/// Scale of the fixed-point body-contact accumulators for bodies whose
/// typical rest extent is `extent` (in the world's length unit): a
/// contribution `x` (length or speed) is added as the integer
/// `floor(x * scale + 0.5)`. Integer addition does not depend on order,
/// so contacts summed by atomics on the GPU give the same bits on every
/// run and on the CPU.
///
/// The scale is the power of two nearest `2^20 * 0.4 / extent` (`2^20`
/// for the 0.2 to 0.6 m bodies of the default scene: a resolution of
/// about 1e-6 m and m/s and a limit of 1024 per contribution), so the
/// resolution and the limit follow the size of the bodies and a scene in
/// centimetres resolves its contacts as finely, relative to its bodies, as
/// the same scene in metres. A power of two, so that scaling is exact.
pub fn contact_scale(extent: f32) -> f32 {
    if !(extent.is_finite() && extent > 0.0) {
        return 1_048_576.0;
    }
    let e = (0.4f32 / extent).log2().round().clamp(-60.0, 60.0) as i32;
    2f32.powi(20 + e)
}
/// A point in no body that takes part in impacts (WGSL `IMPACT_NONE`; see
/// [`Packed::impact_home`](crate::pack::Packed::impact_home)).
pub const IMPACT_NONE: u32 = u32::MAX;
/// A kinematic body's entry in
/// [`Packed::impact_inv_mass`](crate::pack::Packed::impact_inv_mass)
/// (WGSL `IMPACT_KINEMATIC`): it takes part in body impacts as a side of
/// infinite mass that moves (at its rigid velocity), where a sleeping body
/// is one that does not.
pub const IMPACT_KINEMATIC: f32 = -1.0;

/// In [`ContactPoint::filter_id`]: the point is in no body and collides with
/// other such points as a disk of `point_radius`.
pub const CONTACT_FREE: u32 = 1 << 31;
/// A collider whose bounding box spans more grid cells than this goes on
/// the large list, which every point tests, instead of into the grid. 4 x
/// 4: a box of the automatic cell's typical extent turned by 45 degrees
/// spans up to 4 cells a side (docs/physics.md, "The broad phase").
pub const GRID_MAX_CELLS: u32 = 16;
/// Threads of a prefix-scan workgroup.
pub const SCAN_THREADS: u32 = 256;
/// Consecutive elements scanned by one prefix-scan thread.
pub const SCAN_ITEMS: u32 = 16;
/// Elements scanned by one workgroup: the slot starts of a grid of up to
/// `SCAN_BLOCK - 1` hash slots (2,048 for up to 512 colliders,
/// `Packed::grid_slots`) take one dispatch.
pub const SCAN_BLOCK: u32 = SCAN_ITEMS * SCAN_THREADS;

/// The broad phase's dispatches that measure the boxes (bounds,
/// bounds_large), first in its indirect arguments; the build's follow
/// (`shaders/broad_phase.wgsl`, `MEASURE_DISPATCHES`).
pub const MEASURE_DISPATCHES: u32 = 2;

/// One point in body-body collisions (WGSL `ContactPoint`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct ContactPoint {
    /// Its assembly: points joined by shared bodies, springs or rods have
    /// the same group (the island that sleeps as one).
    pub group: u32,
    /// Index into the filter table, `| CONTACT_FREE` for a free disk.
    pub filter_id: u32,
    /// Which bodies of its own assembly the point does not collide with:
    /// [`NO_JOINS`] for all of them (a point of an assembly of one body,
    /// or a point in no body), else the index in `outline_points` of a
    /// list `[n, b_1 .. b_n]`, ascending: the bodies joined to the bodies
    /// it is a member of, those included (docs/physics.md, "What collides
    /// with what").
    pub joins: u32,
}

/// [`ContactPoint::joins`] of a point that collides with no body of its
/// own assembly. A list never starts at index 0 of `outline_points`, where
/// the first outline is.
pub const NO_JOINS: u32 = 0;

/// A body's outline in body-body collisions (WGSL `BodyOutline`): its
/// polygon is `outline_points[first .. first + count]` in order, and the
/// list of the bodies joined to it (itself included; see
/// [`ContactPoint::joins`]) follows at `first + count`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct BodyOutline {
    pub first: u32,
    pub count: u32,
    /// The body's assembly (see [`ContactPoint::group`]).
    pub group: u32,
    /// Index into the filter table.
    pub filter_id: u32,
}

/// Layers and contact material of one side of a body contact (WGSL
/// `ContactFilter`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ContactFilter {
    pub category: u32,
    pub mask: u32,
    pub elasticity: f32,
    /// 1/s.
    pub friction: f32,
    /// `exp(-friction h)`, computed on the CPU when packed (and when `h`
    /// changes): a pair's tangential decay is `sqrt(decay_a decay_b)`,
    /// that of the mean friction rate, without an `exp` in the kernel, so
    /// the GPU's contacts are bitwise the CPU's.
    pub decay: f32,
    /// Coulomb coefficient of static friction; a pair's is `sqrt(a b)`.
    pub static_friction: f32,
    /// Coulomb coefficient of dynamic friction; a pair's is `sqrt(a b)`.
    pub dynamic_friction: f32,
    pub _pad0: u32,
}

/// A point's deepest body contact (WGSL `ContactHit`), found by the narrow
/// phase and resolved after every point's contacts are counted.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ContactHit {
    /// How far the point must move to be `point_radius` outside, m.
    pub depth: f32,
    /// The body hit, or [`ContactHit::NONE`]'s `u32::MAX`.
    pub body: u32,
    /// Edge `edge` of its outline, from point `edge` to the next.
    pub edge: u32,
    /// Where along the edge, `0..=1`.
    pub t: f32,
    /// Unit direction the point is pushed (out of the body).
    pub n: [f32; 2],
}

impl ContactHit {
    /// No contact.
    pub const NONE: ContactHit = ContactHit {
        depth: 0.0,
        body: u32::MAX,
        edge: 0,
        t: 0.0,
        n: [0.0; 2],
    };

    /// No contact, and none possible all substep: the point is quiet (WGSL
    /// `quiet_point`, `QUIET_EDGE`), so the substep's later narrow phase
    /// skips it.
    pub const QUIET: ContactHit = ContactHit {
        edge: u32::MAX,
        ..ContactHit::NONE
    };

    /// Whether this is [`ContactHit::QUIET`].
    pub fn is_quiet(&self) -> bool {
        self.body == u32::MAX && self.edge == u32::MAX
    }
}

mod colliders;
mod driving;
mod tangles;
mod terrain;
pub use colliders::*;
pub use driving::*;
pub use tangles::*;
pub use terrain::*;
