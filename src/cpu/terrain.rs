//! Stage 2b, mirror of `shaders/terrain.wgsl`: points against the
//! terrain's polylines after the planets and half-planes, in worlds with
//! terrain: the nearest segment listed in the point's cell, and the
//! contact of a half-plane with it (docs/physics.md, "Terrain").

use glam::Vec2;

use super::body_collide::Warm;
use super::collide::{note_skin, placed, respond};
use super::{collider_push, par, v2};
use crate::layout::{
    MaterialInfo, PointInfo, SEGMENT_OPEN_A, SEGMENT_OPEN_B, SegmentInfo, SimParams, TerrainGrid,
};
use crate::pack::PackedTerrain;

/// The cell of the terrain's grid `p` is in, or `None` outside the grid
/// (WGSL `terrain_cell`).
#[inline]
pub fn terrain_cell(grid: &TerrainGrid, p: Vec2) -> Option<u32> {
    let fx = (p.x - grid.origin[0]) * grid.inv_cell;
    let fy = (p.y - grid.origin[1]) * grid.inv_cell;
    let inside = fx >= 0.0 && fy >= 0.0 && fx < grid.cols as f32 && fy < grid.rows as f32;
    inside.then(|| (fy as u32) * grid.cols + fx as u32)
}

/// The point of segment `s` nearest `p` and where along it (`0`: at `a`,
/// `1`: at `b`, exactly those ends there).
#[inline]
fn nearest_on(s: &SegmentInfo, p: Vec2) -> (Vec2, f32) {
    let (a, b) = (v2(s.a), v2(s.b));
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.dot(ab)).clamp(0.0, 1.0);
    let c = if t <= 0.0 {
        a
    } else if t >= 1.0 {
        b
    } else {
        a + ab * t
    };
    (c, t)
}

/// The terrain's contact with a disk of `radius` at `p` with layers
/// `layers` (WGSL `terrain_contact`): `(normal, depth)`, no contact when
/// `depth <= 0`. Of the segments listed in `p`'s cell on its layers, the
/// nearest (ties: the first) decides. Nearest to its face, the contact is
/// a half-plane's: depth `radius - (p - a) . n` along the normal, within
/// the thickness behind it. Nearest to an end, `p` is outside when on the
/// side of the vertex's normal or past a polyline's open end, and then in
/// contact within `radius` (depth `radius - d`, pushed away from the
/// vertex); inside, within the thickness (depth `radius + d`, pushed back
/// through it).
pub fn terrain_contact(t: &PackedTerrain, layers: u32, p: Vec2, radius: f32) -> (Vec2, f32) {
    terrain_hit(t, layers, p, radius).map_or((Vec2::ZERO, 0.0), |(n, depth, _)| (n, depth))
}

/// [`terrain_contact`] with the segment that decided it (WGSL
/// `terrain_hit`): `(normal, depth > 0, segment)`, or `None`.
pub fn terrain_hit(
    t: &PackedTerrain,
    layers: u32,
    p: Vec2,
    radius: f32,
) -> Option<(Vec2, f32, usize)> {
    let none = None;
    if t.grid.num_segments == 0 {
        return none;
    }
    let Some(c) = terrain_cell(&t.grid, p) else {
        return none;
    };
    let base = (t.grid.cols * t.grid.rows + 1) as usize;
    let (start, end) = (t.cells[c as usize], t.cells[c as usize + 1]);
    let mut best: Option<(f32, usize, Vec2, f32)> = None;
    for j in start..end {
        let k = t.cells[base + j as usize] as usize;
        let s = &t.segments[k];
        if s.layers & layers == 0 {
            continue;
        }
        let (q, u) = nearest_on(s, p);
        let d = (p - q).length();
        if best.is_none_or(|b| d < b.0) {
            best = Some((d, k, q, u));
        }
    }
    let Some((d, k, q, u)) = best else {
        return none;
    };
    let s = &t.segments[k];
    let side = if u <= 0.0 {
        v2(s.normal_a)
    } else if u >= 1.0 {
        v2(s.normal_b)
    } else {
        v2(s.normal)
    };
    if u > 0.0 && u < 1.0 {
        // Along the face: a half-plane's contact (its normal, not the
        // direction from the nearest point, which rounding turns).
        let n = v2(s.normal);
        let sd = (p - v2(s.a)).dot(n);
        if sd >= radius || sd <= -s.thickness {
            return none;
        }
        return Some((n, radius - sd, k));
    }
    let off = p - q;
    let dir = if d > 0.0 { off / d } else { side };
    let open = if u <= 0.0 {
        SEGMENT_OPEN_A
    } else {
        SEGMENT_OPEN_B
    };
    if off.dot(side) >= 0.0 || s.open_ends & open != 0 {
        if d >= radius {
            return none;
        }
        Some((dir, radius - d, k))
    } else {
        if d >= s.thickness {
            return none;
        }
        Some((-dir, radius + d, k))
    }
}

/// Resolves each point's terrain contact ([`terrain_contact`]) as the
/// collide stage resolves a half-plane's (`cpu::collide::respond`) against a surface
/// that does not move; a point that has not settled (`warm`, where the
/// world has body contacts) is lifted out of the skin as there, and one
/// still in it noted (`cpu::collide::note_skin`).
#[allow(clippy::too_many_arguments)]
pub fn collide_terrain(
    sim: &SimParams,
    info: &[PointInfo],
    materials: &[MaterialInfo],
    terrain: &PackedTerrain,
    pos: &mut [[f32; 2]],
    vel: &mut [[f32; 2]],
    warm: Option<&mut [Warm]>,
    parallel: bool,
) {
    let count = sim.num_points as usize;
    // Point i's contact; `warm`, its warm start in a world with body
    // contacts, read (and its skin bit set) only in contact.
    let point = |i: usize, pos: &mut [f32; 2], vel: &mut [f32; 2], warm: Option<&mut Warm>| {
        let pi = info[i];
        if pi.inv_mass == 0.0 {
            return;
        }
        let p = v2(*pos);
        let (n, depth) = terrain_contact(terrain, pi.layers, p, sim.point_radius);
        if depth <= 0.0 {
            return;
        }
        let mat = &materials[pi.material as usize];
        let v = v2(*vel);
        let (push, skin) = collider_push(sim, (v, n), depth, placed(warm.as_deref()));
        let (p, v) = respond(sim, mat, p, v, Vec2::ZERO, n, depth, push);
        *pos = p.to_array();
        *vel = v.to_array();
        if let (true, Some(w)) = (skin, warm) {
            note_skin(w, true, false);
        }
    };
    let warm = warm.map(|w| &mut w[..count]);
    par::zip_mut_with(parallel, &mut pos[..count], &mut vel[..count], warm, point);
}
