// Structs and helpers shared by every kernel. Prepended to each stage's file
// (see src/gpu/shaders.rs); the Rust twins live in src/layout and
// tests/shaders.rs checks that both agree field by field.

const WORKGROUP_SIZE: u32 = 64u;
const LARGE_BODY_THREADS: u32 = 256u;

const MAX_PLANETS: u32 = 256u;
const SMALL_BODY_MAX_POINTS: u32 = 32u;
const MAX_PLANES: u32 = 64u;

const KIND_SPRING: u32 = 0u;
const KIND_SOFT: u32 = 1u;
const KIND_ROD: u32 = 2u;

// Squared distance below which two points count as coincident and a fixed
// direction is used instead of normalising (never NaN).
const TINY_DIST2: f32 = 1e-24;

struct SimParams {
    gravity: vec2<f32>,
    h: f32,
    point_radius: f32,
    num_points: u32,
    num_springs: u32,
    num_bodies: u32,
    num_planets: u32,
    num_planes: u32,
    num_small_bodies: u32,
    num_large_bodies: u32,
    num_colliders: u32,
    num_small_colliders: u32,
    num_free: u32,
    table_mask: u32,
    cell: f32,
    inv_cell: f32,
    restitution_threshold: f32,
    contact_scale: f32,
    sleep_motion_sq: f32,
    wake_speed_sq: f32,
    sleep_steps: u32,
    // The speed at which a tangled pair is parted, m/s (src/layout,
    // UNTANGLE_PACE point radii per second).
    untangle_speed: f32,
    // The step dt, s.
    dt: f32,
    // The fastest a collider contact pushes out the depth a point had at
    // the substep's start, m/s (push_depth).
    push_speed: f32,
    // push_speed over the contact passes a substep runs: how fast one pass
    // pushes a point that has not settled out of another body, m/s.
    body_push_speed: f32,
    // UNTANGLE_PUSH untangle_speed over the contact passes a substep runs:
    // how fast one pass pushes a point of a pair placed tangled
    // (TANGLE_FRESH) out, m/s.
    untangle_push: f32,
    _pad0: u32,
}

// Sleeping (sleep.wgsl): a point's assembly (the index of its root
// point) and its own inverse mass, which `info` loses while it sleeps.
struct SleepPoint {
    group: u32,
    inv_mass: f32,
}

// A speed report that wakes an assembly: the bits of +inf, above every
// finite squared speed.
const SLEEP_WAKE: u32 = 0x7f800000u;
// The flag a touch (sleep.wgsl) sets in a sleeping assembly's speed
// word: the top bit, which no squared motion's bits have (src/layout,
// SLEEP_TOUCHED).
const SLEEP_TOUCHED: u32 = 0x80000000u;
// How many times the rest window's reach an assembly must stray in a step
// for touch to count it as moved (src/layout, TOUCH_MOTION).
const TOUCH_MOTION: f32 = 4.0;
const SLEEP_WINDOW: u32 = 4u;
// The bit of a body's tangle word (body_collide.wgsl, `tangles`) the
// narrow phase sets when it finds a point of the other assembly inside the
// body (src/layout, TANGLE_KEPT).
const TANGLE_KEPT: u32 = 0x80000000u;
// The bit of a tangle word that marks a pair placed tangled, found while
// an outline point of either body had not settled (src/layout,
// TANGLE_FRESH); the bit that marks a pair found by an edge passing
// through the other rather than by a centre (TANGLE_CROSSED), and the
// three flags (TANGLE_FLAGS).
const TANGLE_FRESH: u32 = 0x40000000u;
const TANGLE_CROSSED: u32 = 0x20000000u;
const TANGLE_FLAGS: u32 = 0xe0000000u;
// Words per body in that buffer: two tangles of four words (src/layout,
// TANGLE_WORDS).
const TANGLE_WORDS: u32 = 8u;
// Bodies a point's near list holds, and words per point of its record
// after the warm starts (body_collide.wgsl, "The near list"; src/layout,
// NEAR_SLOTS, NEAR_RECORD_WORDS).
const NEAR_SLOTS: u32 = 4u;
const NEAR_RECORD_WORDS: u32 = 8u;
// The deepest a tangled pair's contact inside pushes per contact pass, in
// multiples of untangle_speed h; a pair placed so, that much a substep
// (src/layout, UNTANGLE_PUSH; sim.untangle_push).
const UNTANGLE_PUSH: f32 = 2.0;
// The least area ratio the area term assumes (src/layout, AREA_MIN_RATIO).
const AREA_MIN_RATIO: f32 = 0.5;

// Whether an assembly that has rested `steps` steps sleeps, with
// `sleep_steps` (SimParams; 0: sleeping is off). CPU mirror:
// cpu::sleep::asleep.
fn sleeps(steps: u32, sleep_steps: u32) -> bool {
    return sleep_steps > 0u && steps >= sleep_steps;
}

struct PointInfo {
    inv_mass: f32,
    weight: f32,
    material: u32,
    layers: u32,
}

// A PointInfo record fetched as one vec4 and rebuilt (see half_spring).
fn point_info(r: vec4<u32>) -> PointInfo {
    return PointInfo(bitcast<f32>(r.x), bitcast<f32>(r.y), r.z, r.w);
}

struct MaterialInfo {
    elasticity: f32,
    friction: f32,
    static_friction: f32,
    dynamic_friction: f32,
}

struct SpringInfo {
    a: u32,
    b: u32,
    rest: f32,
    stiffness: f32,
    damping: f32,
    kind: u32,
}

const HALF_IS_B: u32 = 0x80000000u;
const HALF_SOFT: u32 = 0x40000000u;
const HALF_INDEX: u32 = 0x3fffffffu;

// Where one point's records lie in a per-point table (src/layout,
// RecordRange): bound as vec2<u32>, fetched in one load.
struct RecordRange {
    start: u32,
    count: u32,
}

fn record_range(r: vec2<u32>) -> RecordRange {
    return RecordRange(r.x, r.y);
}

// Coefficients of one substep (src/layout, HalfSpring).
struct HalfSpring {
    other: u32,
    rest: f32,
    pull: f32,
    damp: f32,
}

// 16-byte records are bound as arrays of vec4 and fetched in one load, then
// rebuilt: lavapipe loads a struct member by member, each with its own
// per-lane loop, which costs about twice as much as one vec4 load.
fn half_spring(r: vec4<u32>) -> HalfSpring {
    return HalfSpring(r.x, bitcast<f32>(r.y), bitcast<f32>(r.z), bitcast<f32>(r.w));
}

// 32 bytes: fetched as two vec4 (shape_match.wgsl).
struct BodyInfo {
    first: u32,
    count: u32,
    stiffness: f32,
    damping: f32,
    area_stiffness: f32,
    area_norm: f32,
    inflation: f32,
    reach: f32,
}

fn body_info(r: vec4<u32>, s: vec4<u32>) -> BodyInfo {
    return BodyInfo(
        r.x, r.y, bitcast<f32>(r.z), bitcast<f32>(r.w),
        bitcast<f32>(s.x), bitcast<f32>(s.y), bitcast<f32>(s.z), bitcast<f32>(s.w),
    );
}

struct Member {
    rest: vec2<f32>,
    point: u32,
    weight: f32,
}

fn member_of(r: vec4<u32>) -> Member {
    return Member(bitcast<vec2<f32>>(r.xy), r.z, bitcast<f32>(r.w));
}

struct PointMember {
    rest: vec2<f32>,
    body: u32,
    relax: f32,
}

fn point_member(r: vec4<u32>) -> PointMember {
    return PointMember(bitcast<vec2<f32>>(r.xy), r.z, bitcast<f32>(r.w));
}

// 32 bytes: stored and fetched as two vec4 (shape_match.wgsl).
struct BodyFrame {
    centroid: vec2<f32>,
    vel: vec2<f32>,
    rot: vec2<f32>,
    omega: f32,
    pull: f32,
}

// The head of a list dispatched over indirectly (src/layout, ListHead):
// the workgroups of the dispatches over it (their indirect arguments;
// rows of at most LIST_ROW), then the count of entries. The lists of
// bodies with plane impacts (shape_match.wgsl) and of active points
// (body_collide.wgsl). The kernels dispatched over a list read its head
// as a uniform (ListHeadUniform: the same layout), once for all lanes on
// a software adapter.
struct ListHead {
    groups: array<u32, 3>,
    count: u32,
}
struct ListHeadUniform {
    groups: vec3<u32>,
    count: u32,
}

const LIST_ROW: u32 = 65535u;

// A planet: its centre during the current step, its velocity (m/s) and
// spin (rad/s, only its surface's velocity), and its centre at t = 0
// (move_colliders.wgsl).
struct PlanetInfo {
    center: vec2<f32>,
    velocity: vec2<f32>,
    radius: f32,
    layers: u32,
    // Its pull G M, m^3/s^2 (0: none).
    gravity: f32,
    spin: f32,
    origin: vec2<f32>,
    _pad0: u32,
    _pad1: u32,
}

// A half-plane (normal . p >= offset outside) during the current step,
// with the velocity and spin of its pivot (the point it turns about, on
// its boundary or not) and its normal, pivot and offset at t = 0
// (move_colliders.wgsl).
struct PlaneInfo {
    normal: vec2<f32>,
    offset: f32,
    layers: u32,
    velocity: vec2<f32>,
    pivot: vec2<f32>,
    normal0: vec2<f32>,
    pivot0: vec2<f32>,
    spin: f32,
    offset0: f32,
    _pad0: u32,
    _pad1: u32,
}

// A terrain polyline's segment a -> b: its outward normal (on the right
// of a -> b), the normals at its ends, its layers and thickness
// (src/layout/terrain.rs).
struct SegmentInfo {
    a: vec2<f32>,
    b: vec2<f32>,
    normal: vec2<f32>,
    normal_a: vec2<f32>,
    normal_b: vec2<f32>,
    layers: u32,
    thickness: f32,
    // Its polyline's index (contact events name it).
    terrain: u32,
    // Which ends are its polyline's open ends (SEGMENT_OPEN_A,
    // SEGMENT_OPEN_B; layout/terrain.rs): past one, only the end's cap.
    open_ends: u32,
}
const SEGMENT_OPEN_A: u32 = 1u;
const SEGMENT_OPEN_B: u32 = 2u;

// The grid over the terrain: cols x rows cells of `cell` m from `origin`.
struct TerrainGrid {
    origin: vec2<f32>,
    cell: f32,
    inv_cell: f32,
    cols: u32,
    rows: u32,
    num_segments: u32,
    _pad0: u32,
}

struct Colliders {
    planets: array<PlanetInfo, MAX_PLANETS>,
    planes: array<PlaneInfo, MAX_PLANES>,
}

// Linear invocation index of a 1-D problem dispatched as a 2-D grid of
// workgroups (a grid row holds at most 65535 workgroups).
fn linear_index(gid: vec3<u32>, num_groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * num_groups.x * WORKGROUP_SIZE;
}

// linear_index of an indirect dispatch whose rows are `groups_x`
// workgroups wide, as the kernel that wrote its workgroup counts keeps
// them: the builtin num_workgroups is not read, as D3D12 leaves it 0 in
// indirect dispatches that wgpu does not validate (src/gpu/context.rs,
// `instance_flags`).
fn indirect_index(gid: vec3<u32>, groups_x: u32) -> u32 {
    return gid.x + gid.y * groups_x * WORKGROUP_SIZE;
}

// Workgroups of a spread dispatch come in SPREAD interleaved stripes: the
// w-th workgroup of the grid handles block (w % SPREAD) * (G / SPREAD) +
// w / SPREAD of the G blocks of WORKGROUP_SIZE items (G is a multiple of
// SPREAD, see `spread_grid` in src/gpu/shaders.rs). Any run of consecutive
// workgroups then samples the whole index range. A software adapter
// (lavapipe) hands each of its threads one contiguous run of a dispatch's
// workgroups; where the work per item changes along the range (shared-corner
// grids first, loose bodies after) contiguous runs would leave one thread
// with most of the work. On a GPU, whose scheduler balances workgroups
// itself, a block is still WORKGROUP_SIZE consecutive items.
const SPREAD: u32 = 16u;

fn spread_index(gid: vec3<u32>, num_groups: vec3<u32>) -> u32 {
    let w = gid.x / WORKGROUP_SIZE + gid.y * num_groups.x;
    let per_stripe = (num_groups.x * num_groups.y) / SPREAD;
    let block = (w % SPREAD) * per_stripe + w / SPREAD;
    return block * WORKGROUP_SIZE + gid.x % WORKGROUP_SIZE;
}

// Symplectic Euler for one point (Lisitsa 2023), as (p, v): the velocity
// first, then the position with the new velocity. A point of inverse mass
// 0 is left as it is: a pinned point has no velocity (it is packed at
// rest, and nothing gives it any), a kinematic body's point the velocity
// move_bodies posed it with, a sleeping point none. Stage 1
// (integrate.wgsl) and the fused integrate + collide (collide_point.wgsl)
// both step through here, so they stay bitwise alike.
fn euler_point(inv_mass: f32, p: vec2<f32>, v: vec2<f32>, g: vec2<f32>, h: f32) -> vec4<f32> {
    if (inv_mass == 0.0) {
        return vec4<f32>(p, v);
    }
    let nv = v + g * h;
    return vec4<f32>(p + nv * h, nv);
}

// Whether a point may move in this substep: it is awake (its own
// inverse mass) or carries a velocity (a kinematic body's). A sleeping or
// pinned point at rest moves in no stage, so a substep where no point may
// move leaves every position where the one before left it, and the broad
// phase keeps its grid (broad_phase.wgsl, `clear_if_moved`). The fused
// motion kernels note it in their `moved` word, loaded first so that only
// the first such point of a substep stores (shape_match.wgsl,
// collide.wgsl).
fn may_move(inv_mass: f32, v: vec2<f32>) -> bool {
    return inv_mass != 0.0 || any(v != vec2<f32>(0.0));
}

// Unit direction from `d`, or +x when `d` is (nearly) zero.
fn safe_dir(d: vec2<f32>, dist: f32) -> vec2<f32> {
    if (dist * dist > TINY_DIST2) {
        return d / dist;
    }
    return vec2<f32>(1.0, 0.0);
}

fn cross2(a: vec2<f32>, b: vec2<f32>) -> f32 {
    return a.x * b.y - a.y * b.x;
}

fn perp(a: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(-a.y, a.x);
}

// Body-body collisions (src/layout has the meaning of each).
const CONTACT_LIMIT_UNITS: f32 = 1073741824.0;
// src/layout, INFLATION_RATE (1/s).
const INFLATION_RATE: f32 = 4.0;
// src/layout, RESTING_SLOP.
const RESTING_SLOP: f32 = 0.01;

// How deep in point radii a point that has not settled may have stood in
// another body's outline at a substep's start for its contact to push the
// whole depth out; from deeper it leaves at the push speed (push_depth's
// slop; src/layout, BODY_PUSH_SLOP).
const BODY_PUSH_SLOP: f32 = 2.0;
// The bit of a warm-start word .z (an f32 never negative) set once the
// point has been found without a body contact or with its centre outside
// the body it touches (src/layout, WARM_SETTLED).
const WARM_SETTLED: u32 = 0x80000000u;
// The bit of a warm-start word .w (an f32 never negative) the collider
// stages set while a point not yet settled is lifted out of a collider's
// skin (src/layout, WARM_SKIN).
const WARM_SKIN: u32 = 0x80000000u;
// The share of the push speed at which a collider lifts a point not yet
// settled out of its skin (src/layout, SKIN_PUSH_SHARE).
const SKIN_PUSH_SHARE: f32 = 0.0625;
const CONTACT_FREE: u32 = 0x80000000u;
// A ContactPoint's joins when it collides with no body of its own assembly
// (src/layout, NO_JOINS).
const NO_JOINS: u32 = 0u;
// A ContactHit's body when the point has no body contact (src/layout,
// ContactHit::NONE).
const NO_BODY: u32 = 0xffffffffu;
// A ContactHit's edge when the point is quiet this substep (src/layout,
// ContactHit::QUIET; body_collide.wgsl, quiet_point).
const QUIET_EDGE: u32 = 0xffffffffu;
// The active list's words after the contact counts (src/layout,
// ACTIVE_POINTS; body_collide.wgsl, `counts`): the count activate
// appended, then the points.
const ACTIVE_APPENDED: u32 = 0u;
const ACTIVE_POINTS: u32 = 1u;
// A point in no body that takes part in impacts (src/layout, IMPACT_NONE).
const IMPACT_NONE: u32 = 0xffffffffu;
// In a removal's maps (sleep.wgsl remap_supports, events.wgsl remap_pairs,
// remap_contacts.wgsl): what the removal took (world::Remap::REMOVED).
const REMOVED: u32 = 0xffffffffu;
const GRID_MAX_CELLS: u32 = 16u;
const SCAN_THREADS: u32 = 256u;
const SCAN_ITEMS: u32 = 16u;
const SCAN_BLOCK: u32 = 4096u;

// Whether sides approaching at `approach` meet in an impact: faster than
// the restitution threshold (docs/physics.md, "Impacts"). CPU mirror:
// cpu::impact::is_impact.
fn is_impact(approach: f32, threshold: f32) -> bool {
    return approach > threshold;
}

struct ContactPoint {
    group: u32,
    filter_id: u32,
    // NO_JOINS, or where its joined bodies' list starts in outline_points.
    joins: u32,
}

struct BodyOutline {
    first: u32,
    count: u32,
    group: u32,
    filter_id: u32,
}

// A point's deepest body contact (body = 0xffffffff: none).
struct ContactHit {
    depth: f32,
    body: u32,
    edge: u32,
    t: f32,
    n: vec2<f32>,
}

struct ContactFilter {
    category: u32,
    mask: u32,
    elasticity: f32,
    friction: f32,
    decay: f32,
    static_friction: f32,
    dynamic_friction: f32,
    _pad0: u32,
}

// A pair's contact material: the larger elasticity, the geometric mean of
// each friction coefficient (Box2D's rules), the tangential decay of the
// mean friction rate. CPU mirror: cpu::body_collide::pair_material.
fn pair_material(a: ContactFilter, b: ContactFilter) -> ContactMaterial {
    return ContactMaterial(max(a.elasticity, b.elasticity), sqrt(a.static_friction * b.static_friction), sqrt(a.dynamic_friction * b.dynamic_friction), sqrt(a.decay * b.decay));
}

// The grid cell holding `p`; coordinates clamped to +-2^29 so that neither
// the conversion nor the span of two cells overflows an i32, even for
// positions that are not finite (mirror: cpu::broad_phase::grid_cell).
fn grid_cell(p: vec2<f32>, inv_cell: f32) -> vec2<i32> {
    return vec2<i32>(clamp(floor(p * inv_cell), vec2<f32>(-536870912.0), vec2<f32>(536870912.0)));
}

// Hash-table slot of a cell.
fn cell_slot(c: vec2<i32>, table_mask: u32) -> u32 {
    return ((bitcast<u32>(c.x) * 73856093u) ^ (bitcast<u32>(c.y) * 19349663u)) & table_mask;
}

// A cell's identity in a slot (the low 16 bits of each coordinate): entries
// of other cells that share the slot are skipped.
fn cell_key(c: vec2<i32>) -> u32 {
    return (bitcast<u32>(c.x) & 0xffffu) | (bitcast<u32>(c.y) << 16u);
}

// The grid buffer's layout (src/pack/contacts.rs, `Packed::grid_words`):
// slot starts (table_mask + 2 of them, the last the total), then the large
// list (its length, then the bodies), then the entries as (collider, cell
// key) pairs.
fn large_base(table_mask: u32) -> u32 {
    return table_mask + 2u;
}

fn entry_base(table_mask: u32, num_colliders: u32) -> u32 {
    return large_base(table_mask) + 1u + num_colliders;
}

// Fixed-point contribution at `scale` (SimParams::contact_scale; see
// src/layout, contact_scale): clamped to +-2^30 units.
fn fixed(x: vec2<f32>, scale: f32) -> vec2<i32> {
    return fixed_of(x, scale, 1u);
}

// Fixed-point contribution to an accumulator that takes at most `count`
// of them before it is applied: clamped to +-2^30 / count units, so that
// their sum stays within +-2^30 (plus rounding) and the i32 accumulator
// cannot wrap. CPU mirror: cpu::broad_phase::fixed_of.
fn fixed_of(x: vec2<f32>, scale: f32, count: u32) -> vec2<i32> {
    let limit = vec2<f32>(CONTACT_LIMIT_UNITS / (scale * f32(max(count, 1u))));
    return vec2<i32>(floor(clamp(x, -limit, limit) * scale + 0.5));
}

// The largest factor, at most 1, by which contribution `x` to an
// accumulator taking at most `count` of them must be scaled to fit
// fixed_of's limit. A contact scales all its contributions by the least
// of their factors: their mass-weighted sum (its momentum) stays zero,
// where the clamp alone would cut one side. CPU mirror:
// cpu::broad_phase::fit_of.
fn fit_of(x: vec2<f32>, scale: f32, count: u32) -> f32 {
    let limit = CONTACT_LIMIT_UNITS / (scale * f32(max(count, 1u)));
    let m = max(abs(x.x), abs(x.y));
    return select(1.0, limit / m, m > limit);
}

// The material of one contact: elasticity, the Coulomb coefficients, and
// the viscous decay factor exp(-friction h) of one substep.
struct ContactMaterial {
    elasticity: f32,
    static_friction: f32,
    dynamic_friction: f32,
    decay: f32,
}

// A restitution threshold no approach passes (the largest f32).
const NO_BOUNCE: f32 = 3.40282347e38;

// The restitution threshold of a point's contact at depth `depth` along
// `n` (with a collider, another body's outline or another free point),
// the point moving at `vrel` relative to the other side after this
// substep's motion: a contact that persists (the point stood within
// RESTING_SLOP radii of the contact at the substep's start: its depth
// then, depth + (vrel . n) h) bounces at no speed, so that a point its
// own body presses into the ground or into a neighbour is stopped, not
// thrown back every substep. CPU mirror: cpu::contact_threshold.
fn contact_threshold(vrel: vec2<f32>, n: vec2<f32>, depth: f32, h: f32, point_radius: f32, threshold: f32) -> f32 {
    if (depth + dot(vrel, n) * h > -RESTING_SLOP * point_radius) {
        return NO_BOUNCE;
    }
    return threshold;
}

// The depth a contact pushes out in this substep (docs/physics.md, "Deep
// overlaps"): all of it, unless the point was more than `slop` (the point
// radius for a collider, BODY_PUSH_SLOP radii for a body's outline) or a
// push speed's step deep at the substep's start (depth + (vrel . n) h, as
// in contact_threshold); then only toward that depth less the step, so
// that a body placed inside a collider or another body leaves it at the
// push speed instead of being flung out by its shape's springs. CPU
// mirror: cpu::push_depth.
fn push_depth(vrel: vec2<f32>, n: vec2<f32>, depth: f32, h: f32, slop: f32, push_speed: f32) -> f32 {
    let before = depth + dot(vrel, n) * h;
    let step = push_speed * h;
    if (before <= max(slop, step)) {
        return depth;
    }
    return max(depth - before + step, 0.0);
}

// Restitution and friction at a contact (docs/physics.md, "Friction and
// restitution"): the relative velocity `vrel` of the side pushed along
// `n`, `depth` to push out, substep `h`, restitution threshold
// `threshold`. Returns (dv, dp): the change of the relative velocity and
// the relative position change friction asks for.
//   An approach faster than `threshold` is reflected with elasticity e, a
//   slower one stopped. The normal impulse per unit mass dvn, the normal
//   velocity change or the push-out speed depth / h where that is more,
//   bounds Coulomb friction: within the static cone (|vt| <= mu_s dvn)
//   the tangential velocity stops, else it loses mu_k dvn; the drift this
//   substep made with what friction removed is taken back (dp). Then the
//   viscous decay (Lisitsa 2023).
fn contact_response(vrel: vec2<f32>, n: vec2<f32>, depth: f32, m: ContactMaterial, h: f32, threshold: f32) -> vec4<f32> {
    let vn = dot(vrel, n);
    let vt = vrel - n * vn;
    var vn_after = vn;
    if (vn < 0.0) {
        vn_after = 0.0;
        if (vn < -threshold) {
            vn_after = -m.elasticity * vn;
        }
    }
    let dvn = max(vn_after - vn, depth / h);
    let vt_len = length(vt);
    var keep = 0.0;
    if (vt_len > m.static_friction * dvn) {
        keep = max(1.0 - m.dynamic_friction * dvn / vt_len, 0.0);
    }
    let vt_kept = vt * keep;
    return vec4<f32>(n * (vn_after - vn) + (vt_kept * m.decay - vt), (vt_kept - vt) * h);
}
