// Stage 5a: the broad phase of body-body collisions (Spooner's
// broad phase, Gaul's grid). Built all on the GPU, in a step's first substep and
// in every later one where some collider changed its cells (below):
//
//   clear                  sets the workgroups of bounds / bounds_large;
//   bounds / bounds_large  each collider's bounding box, and whether its
//                          cells (or its waking) changed since the last
//                          build (`note_cells`);
//   open                   sets the workgroups of the build's dispatches
//                          below (all of them, or none where the grid is
//                          kept), empties the large list;
//   count                  colliders spanning at most GRID_MAX_CELLS cells
//                          count themselves into those cells' hash slots,
//                          larger ones go on the large list (which every
//                          point tests);
//   scan_up / scan_down    exclusive prefix sums of the slot counts: where
//                          each slot's entries start;
//   fill                   every collider writes (collider, cell key) into
//                          its slots, taking places by counting the slot
//                          back down, so the counts end at zero and the
//                          next substep needs no clearing.
//
// Every dispatch after `clear` and `open` is indirect: they write their
// workgroups (`args`, rows of LIST_ROW) from `full`, their counts for the
// world. A step's first substep always builds (`clear`), so that whatever
// changed between steps (edits, uploads) is built in. In the substeps
// after it, `clear_if_moved` runs the boxes only where some point may have
// moved since the substep before (the fused motion kernel's `moved`,
// shared.wgsl `may_move`), and `open` builds only where some collider's
// tagged cells (`cells`: the cells of its box, and whether it is an awake
// body) differ from the last build's. Otherwise the grid and the stamps
// stay as the last build left them, which is what a build would make again:
// the entries and stamps follow from the tagged cells alone. A sleeping
// world so skips the whole stage, and a world where one body falls onto a
// sleeping pile builds when that body enters new cells.
//
// The order of entries within a slot depends on the atomics, but the narrow
// phase's result does not depend on it (body_collide.wgsl).
// CPU mirror: src/cpu/broad_phase.rs.
//
// Colliders: `colliders[0 .. num_colliders]` are bodies (small outlines
// first), `colliders[num_colliders ..]` free points; a grid entry names a
// body by its index and free point f as `num_bodies + f`.
//
// `grid` holds the slot starts (table_mask + 2 of them; the last is the
// total), then the large list (its length, then the bodies), then the
// entries as (collider, cell key) pairs.

@group(0) @binding(0) var<uniform> sim: SimParams;
// Per point (position, velocity); only positions are read.
@group(0) @binding(1) var<storage, read> state: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> outlines: array<BodyOutline>;
@group(0) @binding(3) var<storage, read> outline_points: array<u32>;
@group(0) @binding(4) var<storage, read> colliders: array<u32>;
@group(0) @binding(5) var<storage, read_write> aabbs: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read_write> grid: array<atomic<u32>>;
// Per slot, the stamp of the last broad phase in which an awake body
// entered it; after the slots, the stamp, which `open` advances each
// build; then the stamp of the last build that listed an awake large
// body; then the word `note_cells` sets when a collider's cells changed
// (`changed_word`); then whether `bounds` measures every box
// (`measure_all_word`). A sleeping point tests awake bodies alone, so the narrow phase
// skips its slot unless it holds this substep's stamp (body_collide.wgsl,
// `deepest`). Stamps rather than flags: nothing needs clearing. The CPU
// mirror marks its slots afresh each substep (cpu::broad_phase, `awake`).
@group(0) @binding(12) var<storage, read_write> slot_awake: array<atomic<u32>>;
// Sleeping's steps at rest per assembly (sleep.wgsl).
@group(0) @binding(13) var<storage, read> rest_steps: array<u32>;
// Per collider (colliders' order, then the free points), its tagged cells
// at the last build (`tagged_cells`). CPU mirror: `Grid::cells`.
@group(0) @binding(17) var<storage, read_write> cells: array<vec4<i32>>;

// clear / clear_if_moved: the fused motion kernel's word (shared.wgsl,
// may_move), cleared here; the dispatches' workgroups (3 words each, in
// the order BroadPhase::record dispatches them) and their full counts.
@group(0) @binding(14) var<storage, read_write> moved: atomic<u32>;
@group(0) @binding(15) var<storage, read_write> args: array<u32>;
@group(0) @binding(16) var<storage, read> full: array<u32>;

// Prefix scan, one level: `scan_in` -> `scan_out`, block totals -> `scan_sums`.
struct ScanLevel {
    len: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}
@group(0) @binding(8) var<uniform> scan_level: ScanLevel;
@group(0) @binding(9) var<storage, read> scan_in: array<u32>;
@group(0) @binding(10) var<storage, read_write> scan_out: array<u32>;
@group(0) @binding(11) var<storage, read_write> scan_sums: array<u32>;

// The cells of a box: (first cell, last cell).
struct CellRange {
    lo: vec2<i32>,
    hi: vec2<i32>,
}

// The most cells an awake large body stamps one by one (CPU mirror:
// cpu::broad_phase::AWAKE_STAMP_CELLS).
const AWAKE_STAMP_CELLS: u32 = 64u;

// The tag of an awake body's cells (`tagged_cells`), added to the last
// row: cells are clamped to +-2^29, so the sum never wraps. CPU mirror:
// cpu::broad_phase::AWAKE_TAG.
const AWAKE_TAG: i32 = 1073741824;

// The dispatches whose workgroups `clear` and `clear_if_moved` set:
// bounds, bounds_large. `open` sets the rest (BroadPhase::record).
const MEASURE_DISPATCHES: u32 = 2u;

// Where in `slot_awake` the word that asks `open` for a build is.
fn changed_word() -> u32 {
    return sim.table_mask + 3u;
}

// Where in `slot_awake` the word is that `clear` sets and
// `clear_if_moved` clears: whether `bounds` measures every box, or keeps
// those of the sleeping bodies.
fn measure_all_word() -> u32 {
    return sim.table_mask + 4u;
}

// Whether collider `c` (a body, or num_bodies and up for a free point)
// is an awake body.
fn awake_body(c: u32) -> bool {
    return c < sim.num_bodies && !sleeps(rest_steps[outlines[c].group], sim.sleep_steps);
}

// The cells of a collider's box, (first x, first y, last x, last y), the
// last row tagged when it is an awake body: its entries and stamps follow
// from them. CPU mirror: cpu::broad_phase::tagged_cells.
fn tagged_cells(c: u32, lo: vec2<f32>, hi: vec2<f32>) -> vec4<i32> {
    let r = cell_range(lo, hi);
    return vec4<i32>(r.lo, r.hi.x, r.hi.y + select(0, AWAKE_TAG, awake_body(c)));
}

// Asks for a build when collider k's tagged cells differ from the last
// build's.
fn note_cells(k: u32, c: u32, lo: vec2<f32>, hi: vec2<f32>) {
    if (any(tagged_cells(c, lo, hi) != cells[k])) {
        atomicStore(&slot_awake[changed_word()], 1u);
    }
}

fn cell_range(lo: vec2<f32>, hi: vec2<f32>) -> CellRange {
    return CellRange(grid_cell(lo, sim.inv_cell), grid_cell(hi, sim.inv_cell));
}

// Whether a range spans at most `max` cells; written so that huge spans
// cannot overflow. CPU mirror: cpu::broad_phase::spans_at_most.
fn spans_at_most(r: CellRange, max: u32) -> bool {
    let span = r.hi - r.lo;
    if (span.x >= i32(max) || span.y >= i32(max)) {
        return false;
    }
    return u32((span.x + 1) * (span.y + 1)) <= max;
}

// Whether a box fits the grid (at most GRID_MAX_CELLS cells).
fn fits(r: CellRange) -> bool {
    return spans_at_most(r, GRID_MAX_CELLS);
}

// Counts collider `c` into the slots of its cells, or puts a body on the
// large list. A free point's box spans at most 2 x 2 cells (the cell is at
// least 4 point radii) unless its position is not finite: it is left out.
fn insert(c: u32, lo: vec2<f32>, hi: vec2<f32>) {
    let r = cell_range(lo, hi);
    // An awake body stamps its slots.
    var stamp = 0u;
    if (awake_body(c)) {
        stamp = atomicLoad(&slot_awake[sim.table_mask + 1u]);
    }
    if (!fits(r)) {
        if (c < sim.num_bodies) {
            let k = atomicAdd(&grid[large_base(sim.table_mask)], 1u);
            atomicStore(&grid[large_base(sim.table_mask) + 1u + k], c);
            // An awake large body stamps the slots it covers where they
            // are few, else the word after the stamp (every sleeping
            // point may meet it).
            if (stamp != 0u && spans_at_most(r, AWAKE_STAMP_CELLS)) {
                for (var y = r.lo.y; y <= r.hi.y; y++) {
                    for (var x = r.lo.x; x <= r.hi.x; x++) {
                        atomicStore(&slot_awake[cell_slot(vec2<i32>(x, y), sim.table_mask)], stamp);
                    }
                }
            } else if (stamp != 0u) {
                atomicStore(&slot_awake[sim.table_mask + 2u], stamp);
            }
        }
        return;
    }
    for (var y = r.lo.y; y <= r.hi.y; y++) {
        for (var x = r.lo.x; x <= r.hi.x; x++) {
            let slot = cell_slot(vec2<i32>(x, y), sim.table_mask);
            atomicAdd(&counts[slot], 1u);
            if (stamp != 0u) {
                atomicStore(&slot_awake[slot], stamp);
            }
        }
    }
}

// Sets the workgroups of bounds and bounds_large: all, or none where no
// point may have moved.
fn open_bounds(measure: bool) {
    atomicStore(&moved, 0u);
    for (var k = 0u; k < 3u * MEASURE_DISPATCHES; k++) {
        args[k] = select(0u, full[k], measure);
    }
}

// One thread, first in the stage: every box, and a build.
@compute @workgroup_size(1)
fn clear() {
    open_bounds(true);
    atomicStore(&slot_awake[changed_word()], 1u);
    atomicStore(&slot_awake[measure_all_word()], 1u);
}

// One thread, first in the stage: the boxes where some point may have
// moved since the last substep, else nothing. A sleeping body keeps its
// box: within a step the awake set only grows, so it has not moved since
// the step's first substep measured it.
@compute @workgroup_size(1)
fn clear_if_moved() {
    open_bounds(atomicLoad(&moved) != 0u);
    atomicStore(&slot_awake[measure_all_word()], 0u);
}

// One thread, after the boxes: sets the workgroups of the build's
// dispatches (all, or none where no collider's tagged cells changed);
// for a build, empties the large list and advances the stamp.
@compute @workgroup_size(1)
fn open() {
    let build = atomicLoad(&slot_awake[changed_word()]) != 0u;
    for (var k = 3u * MEASURE_DISPATCHES; k < arrayLength(&full); k++) {
        args[k] = select(0u, full[k], build);
    }
    if (!build) {
        return;
    }
    atomicStore(&slot_awake[changed_word()], 0u);
    atomicStore(&grid[large_base(sim.table_mask)], 0u);
    // Never 0, which stamps nothing (after 2^32 builds it wraps).
    if (atomicAdd(&slot_awake[sim.table_mask + 1u], 1u) == 0xffffffffu) {
        atomicAdd(&slot_awake[sim.table_mask + 1u], 1u);
    }
}

// One thread per small-outline body, then one per free point. A
// sleeping body's box is measured only by `clear`'s build (large bodies
// are always measured: a workgroup's early return would split it).
@compute @workgroup_size(WORKGROUP_SIZE)
fn bounds(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = indirect_index(gid, LIST_ROW);
    if (k < sim.num_small_colliders) {
        let b = colliders[k];
        if (atomicLoad(&slot_awake[measure_all_word()]) == 0u && !awake_body(b)) {
            let bb = aabbs[b];
            note_cells(k, b, bb.xy, bb.zw);
            return;
        }
        let o = outlines[b];
        var lo = state[outline_points[o.first]].xy;
        var hi = lo;
        for (var j = 1u; j < o.count; j++) {
            let p = state[outline_points[o.first + j]].xy;
            lo = min(lo, p);
            hi = max(hi, p);
        }
        // Grown by the point radius: points that near come in contact.
        let r = vec2<f32>(sim.point_radius);
        aabbs[b] = vec4<f32>(lo - r, hi + r);
        note_cells(k, b, lo - r, hi + r);
    } else if (k < sim.num_small_colliders + sim.num_free) {
        let f = k - sim.num_small_colliders;
        let p = state[colliders[sim.num_colliders + f]].xy;
        let r = vec2<f32>(sim.point_radius);
        note_cells(sim.num_colliders + f, sim.num_bodies + f, p - r, p + r);
    }
}

var<workgroup> red_lo: array<vec2<f32>, LARGE_BODY_THREADS>;
var<workgroup> red_hi: array<vec2<f32>, LARGE_BODY_THREADS>;

// One workgroup per large-outline body: strided min/max, then a tree.
@compute @workgroup_size(LARGE_BODY_THREADS)
fn bounds_large(
    @builtin(local_invocation_index) t: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let k = wid.x + wid.y * LIST_ROW;
    if (k >= sim.num_colliders - sim.num_small_colliders) {
        return;
    }
    let b = colliders[sim.num_small_colliders + k];
    let o = outlines[b];
    var lo = state[outline_points[o.first]].xy;
    var hi = lo;
    for (var j = t; j < o.count; j += LARGE_BODY_THREADS) {
        let p = state[outline_points[o.first + j]].xy;
        lo = min(lo, p);
        hi = max(hi, p);
    }
    red_lo[t] = lo;
    red_hi[t] = hi;
    workgroupBarrier();
    for (var stride = LARGE_BODY_THREADS / 2u; stride > 0u; stride /= 2u) {
        if (t < stride) {
            red_lo[t] = min(red_lo[t], red_lo[t + stride]);
            red_hi[t] = max(red_hi[t], red_hi[t + stride]);
        }
        workgroupBarrier();
    }
    if (t == 0u) {
        let r = vec2<f32>(sim.point_radius);
        aabbs[b] = vec4<f32>(red_lo[0] - r, red_hi[0] + r);
        note_cells(sim.num_small_colliders + k, b, red_lo[0] - r, red_hi[0] + r);
    }
}

// Collider k (colliders' order, then the free points): its grid id and
// box (from `aabbs` for a body).
struct ColliderBox {
    c: u32,
    lo: vec2<f32>,
    hi: vec2<f32>,
}

fn collider_box(k: u32) -> ColliderBox {
    if (k < sim.num_colliders) {
        let c = colliders[k];
        let bb = aabbs[c];
        return ColliderBox(c, bb.xy, bb.zw);
    }
    let f = k - sim.num_colliders;
    let p = state[colliders[k]].xy;
    let r = vec2<f32>(sim.point_radius);
    return ColliderBox(sim.num_bodies + f, p - r, p + r);
}

// One thread per collider: notes its tagged cells and counts it in.
@compute @workgroup_size(WORKGROUP_SIZE)
fn count(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = indirect_index(gid, LIST_ROW);
    if (k >= sim.num_colliders + sim.num_free) {
        return;
    }
    let b = collider_box(k);
    cells[k] = tagged_cells(b.c, b.lo, b.hi);
    insert(b.c, b.lo, b.hi);
}

var<workgroup> scan_tmp: array<u32, SCAN_THREADS>;
var<workgroup> scan_runs: array<u32, SCAN_RUNS>;

// Threads per run in scan_up's scan of the threads' totals: SCAN_RUNS
// runs of SCAN_RUN threads.
const SCAN_RUN: u32 = 16u;
const SCAN_RUNS: u32 = SCAN_THREADS / SCAN_RUN;

// Exclusive prefix sums within blocks of SCAN_BLOCK elements (SCAN_ITEMS
// consecutive ones per thread), and each block's total. The threads'
// totals are scanned in two barriers rather than a tree's
// 2 log2(SCAN_THREADS): one thread per run of SCAN_RUN threads sums its
// run in order, then each thread adds the runs before its own (at most
// SCAN_RUNS - 1). Barriers are what a CPU driver pays most for (lavapipe
// runs a workgroup's lanes as coroutines that switch at each one); a GPU
// pays for the serial sums a few dozen shared-memory reads. The slot
// starts of a table of up to SCAN_BLOCK - 1 slots take one dispatch.
@compute @workgroup_size(SCAN_THREADS)
fn scan_up(
    @builtin(local_invocation_index) t: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let block = wid.x + wid.y * LIST_ROW;
    let n = scan_level.len;
    let base = block * SCAN_BLOCK + SCAN_ITEMS * t;
    var items: array<u32, SCAN_ITEMS>;
    var total = 0u;
    for (var k = 0u; k < SCAN_ITEMS; k++) {
        var v = 0u;
        if (base + k < n) {
            v = scan_in[base + k];
        }
        items[k] = v;
        total += v;
    }
    scan_tmp[t] = total;
    workgroupBarrier();
    // Each run's first thread: its run's inclusive sums, in place.
    if (t % SCAN_RUN == 0u) {
        var sum = 0u;
        for (var j = t; j < t + SCAN_RUN; j++) {
            sum += scan_tmp[j];
            scan_tmp[j] = sum;
        }
        scan_runs[t / SCAN_RUN] = sum;
    }
    workgroupBarrier();
    var before = 0u;
    for (var r = 0u; r < t / SCAN_RUN; r++) {
        before += scan_runs[r];
    }
    if (t % SCAN_RUN != 0u) {
        before += scan_tmp[t - 1u];
    }
    if (t == SCAN_THREADS - 1u) {
        scan_sums[block] = before + total;
    }
    for (var k = 0u; k < SCAN_ITEMS; k++) {
        if (base + k < n) {
            scan_out[base + k] = before;
        }
        before += items[k];
    }
}

// Adds each block's offset (`scan_in`, the scanned block totals) to its
// elements; block 0's offset is zero.
@compute @workgroup_size(WORKGROUP_SIZE)
fn scan_down(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = indirect_index(gid, LIST_ROW) + SCAN_BLOCK;
    if (j < scan_level.len) {
        scan_out[j] += scan_in[j / SCAN_BLOCK];
    }
}

// Every collider that fits the grid writes its entries.
@compute @workgroup_size(WORKGROUP_SIZE)
fn fill(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = indirect_index(gid, LIST_ROW);
    if (k >= sim.num_colliders + sim.num_free) {
        return;
    }
    let b = collider_box(k);
    let r = cell_range(b.lo, b.hi);
    if (!fits(r)) {
        return;
    }
    for (var y = r.lo.y; y <= r.hi.y; y++) {
        for (var x = r.lo.x; x <= r.hi.x; x++) {
            let cell = vec2<i32>(x, y);
            let slot = cell_slot(cell, sim.table_mask);
            let place = atomicSub(&counts[slot], 1u) - 1u;
            let e = entry_base(sim.table_mask, sim.num_colliders) + 2u * (atomicLoad(&grid[slot]) + place);
            atomicStore(&grid[e], b.c);
            atomicStore(&grid[e + 1u], cell_key(cell));
        }
    }
}
