// Picking: the point nearest to the cursor, found on the GPU by one
// workgroup (strided scan, then a tree reduction) into an 8-byte result that
// the window reads back asynchronously a frame later. Reads the solver's
// state buffer; never the whole state back to the CPU.
// Rust side: src/render/interact.rs (`Picker`, `PickQuery`).

const PICK_THREADS: u32 = 256u;
const NONE: u32 = 0xffffffffu;

struct PickQuery {
    cursor: vec2<f32>,
    num_points: u32,
    _pad: u32,
}

struct PickResult {
    point: u32,
    dist2: f32,
}

@group(0) @binding(0) var<uniform> query: PickQuery;
// The solver's state: per point (position, velocity).
@group(0) @binding(1) var<storage, read> state: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> result: PickResult;

var<workgroup> best_d: array<f32, PICK_THREADS>;
var<workgroup> best_i: array<u32, PICK_THREADS>;

@compute @workgroup_size(PICK_THREADS)
fn main(@builtin(local_invocation_index) t: u32) {
    // +infinity: a cursor so far away that every squared distance
    // overflows still finds the nearest point (ties go to the lower index);
    // a point whose distance is NaN is never nearest.
    var bd = bitcast<f32>(0x7f800000u);
    var bi = NONE;
    for (var i = t; i < query.num_points; i += PICK_THREADS) {
        let d = state[i].xy - query.cursor;
        let d2 = dot(d, d);
        if (d2 == d2 && (bi == NONE || d2 < bd)) {
            bd = d2;
            bi = i;
        }
    }
    best_d[t] = bd;
    best_i[t] = bi;
    workgroupBarrier();
    for (var s = PICK_THREADS / 2u; s > 0u; s /= 2u) {
        if (t < s) {
            let od = best_d[t + s];
            let oi = best_i[t + s];
            // Ties go to the lower index, so the answer does not depend on
            // the reduction order.
            if (od < best_d[t] || (od == best_d[t] && oi < best_i[t])) {
                best_d[t] = od;
                best_i[t] = oi;
            }
        }
        workgroupBarrier();
    }
    if (t == 0u) {
        result = PickResult(best_i[0], best_d[0]);
    }
}
