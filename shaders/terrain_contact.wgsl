// The terrain's contact with a point (docs/physics.md, "Terrain"),
// appended to the stages that test it (terrain, events), which declare
// `terrain: TerrainGrid`, `segments: array<SegmentInfo>` and
// `terrain_cells: array<u32>` and hold colliders.wgsl. CPU mirror:
// src/cpu/terrain.rs.

// The cell `p` is in, or NO_COLLIDER outside the grid. CPU mirror:
// cpu::terrain::terrain_cell.
fn terrain_cell(p: vec2<f32>) -> u32 {
    let f = (p - terrain.origin) * terrain.inv_cell;
    if (f.x >= 0.0 && f.y >= 0.0 && f.x < f32(terrain.cols) && f.y < f32(terrain.rows)) {
        return u32(f.y) * terrain.cols + u32(f.x);
    }
    return NO_COLLIDER;
}

// The terrain's contact with a disk of `radius` at `p` with layers
// `layers`, as (normal, depth); no contact when depth <= 0. The nearest
// segment listed in p's cell (ties: the first) decides: nearest its face,
// a half-plane's contact; nearest an end, outside (on the side of the
// vertex's normal, or past a polyline's open end) in contact within
// `radius`, inside within the
// thickness. CPU mirror: cpu::terrain::terrain_contact.
fn terrain_contact(layers: u32, p: vec2<f32>, radius: f32) -> vec3<f32> {
    let hit = terrain_hit(layers, p, radius);
    return vec3<f32>(hit.normal, hit.depth);
}

// terrain_contact with the segment that decided it (colliders.wgsl's
// ColliderHit, `k` the segment). CPU mirror: cpu::terrain::terrain_hit.
fn terrain_hit(layers: u32, p: vec2<f32>, radius: f32) -> ColliderHit {
    let none = ColliderHit(vec2<f32>(0.0), 0.0, NO_COLLIDER);
    if (terrain.num_segments == 0u) {
        return none;
    }
    let c = terrain_cell(p);
    if (c == NO_COLLIDER) {
        return none;
    }
    let base = terrain.cols * terrain.rows + 1u;
    let end = terrain_cells[c + 1u];
    var best_d = 0.0;
    var best_k = NO_COLLIDER;
    var best_q = vec2<f32>(0.0);
    var best_u = 0.0;
    for (var j = terrain_cells[c]; j < end; j++) {
        let k = terrain_cells[base + j];
        let s = segments[k];
        if ((s.layers & layers) == 0u) {
            continue;
        }
        let ab = s.b - s.a;
        let u = clamp(dot(p - s.a, ab) / dot(ab, ab), 0.0, 1.0);
        var q = s.a + ab * u;
        if (u <= 0.0) {
            q = s.a;
        } else if (u >= 1.0) {
            q = s.b;
        }
        let d = length(p - q);
        if (best_k == NO_COLLIDER || d < best_d) {
            best_d = d;
            best_k = k;
            best_q = q;
            best_u = u;
        }
    }
    if (best_k == NO_COLLIDER) {
        return none;
    }
    let s = segments[best_k];
    var side = s.normal;
    if (best_u <= 0.0) {
        side = s.normal_a;
    } else if (best_u >= 1.0) {
        side = s.normal_b;
    }
    if (best_u > 0.0 && best_u < 1.0) {
        // Along the face: a half-plane's contact (its normal, not the
        // direction from the nearest point, which rounding turns).
        let sd = dot(p - s.a, s.normal);
        if (sd >= radius || sd <= -s.thickness) {
            return none;
        }
        return ColliderHit(s.normal, radius - sd, best_k);
    }
    let off = p - best_q;
    var dir = side;
    if (best_d > 0.0) {
        dir = off / best_d;
    }
    let open = select(SEGMENT_OPEN_B, SEGMENT_OPEN_A, best_u <= 0.0);
    if (dot(off, side) >= 0.0 || (s.open_ends & open) != 0u) {
        if (best_d >= radius) {
            return none;
        }
        return ColliderHit(dir, radius - best_d, best_k);
    }
    if (best_d >= s.thickness) {
        return none;
    }
    return ColliderHit(-dir, radius + best_d, best_k);
}

