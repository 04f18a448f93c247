//! Packing one item of a world: a point's, a spring's and a body's
//! records, and the defaults they resolve.

use glam::Vec2;

use crate::layout::*;
use crate::params::Params;
use crate::world::{Body, PINNED_WEIGHT_RATIO, Point, Spring};

pub(super) fn point_info_of(p: &Point) -> PointInfo {
    PointInfo {
        inv_mass: if p.is_pinned() { 0.0 } else { 1.0 / p.mass },
        weight: if p.is_pinned() { 0.0 } else { p.mass },
        material: p.material.0,
        layers: p.layers,
    }
}

pub(super) fn spring_info_of(s: &Spring, rest: f32, params: &Params) -> SpringInfo {
    SpringInfo {
        a: s.a.0,
        b: s.b.0,
        rest,
        stiffness: s.stiffness.unwrap_or(params.spring_stiffness),
        damping: s.damping.unwrap_or(params.spring_damping),
        kind: s.kind.code(),
    }
}

/// A body's info and members, exactly as [`Packed::from_world`] packs them.
pub(super) fn pack_body(
    body: &Body,
    rest: &[Vec2],
    first: u32,
    info: impl Fn(usize) -> PointInfo,
    params: &Params,
) -> (BodyInfo, Vec<Member>) {
    // A pinned point (inverse mass 0) weighs PINNED_WEIGHT_RATIO times
    // the body's free mass, so that how far a body sags from a pin does
    // not depend on its mass.
    let free: f32 = body.points.iter().map(|p| info(p.index()).weight).sum();
    let pinned = PINNED_WEIGHT_RATIO * if free > 0.0 { free } else { 1.0 };
    let weights: Vec<f64> = body
        .points
        .iter()
        .map(|p| {
            let i = info(p.index());
            (if i.inv_mass == 0.0 { pinned } else { i.weight }) as f64
        })
        .collect();
    let total: f64 = weights.iter().sum();
    let (mut cx, mut cy) = (0.0f64, 0.0f64);
    for (r, w) in rest.iter().zip(&weights) {
        cx += r.x as f64 * w;
        cy += r.y as f64 * w;
    }
    cx /= total;
    cy /= total;
    let members: Vec<Member> = body
        .points
        .iter()
        .zip(rest)
        .zip(&weights)
        .map(|((p, r), &w)| Member {
            rest: [(r.x as f64 - cx) as f32, (r.y as f64 - cy) as f32],
            point: p.0,
            // Exact: the f32 weight widened to f64 and back.
            weight: w as f32,
        })
        .collect();
    // The stiffnesses are resolved with the world's other bodies
    // (`resolve_body_stiffness`): a default depends on how many bodies
    // share the body's points.
    let info = BodyInfo {
        first,
        count: body.points.len() as u32,
        stiffness: 0.0,
        damping: body.damping.unwrap_or(params.shape_damping),
        area_stiffness: 0.0,
        area_norm: area_norm(&members),
        inflation: body.inflation,
        // Set with the world's other bodies (`rebuild_impact_bodies`).
        reach: 0.0,
    };
    (info, members)
}

/// The shape stiffness of a body without its own: the parameter `param`
/// over `sharing`, the most bodies that share one of the body's points
/// (1 for a body whose points are its own). The pulls of the bodies at a
/// point add up, so the default load there, `k h^2` summed over its
/// bodies, stays one body's however many share it: the four cells around
/// an inner corner of a `BoxGrid` each take a quarter (docs/physics.md,
/// "Stability bounds").
pub(crate) fn default_shape_stiffness(param: f32, sharing: u32) -> f32 {
    param / sharing.max(1) as f32
}

/// A body's area stiffness: its own when given, else the parameter
/// `param`'s but at most the body's shape stiffness `shape`. The area term
/// pushes every point
/// along its offset from the centroid, which is not the direction that
/// changes the area fastest unless the body is round; shape matching holds
/// the difference, and an area term much stiffer than the shape rings
/// against it: worlds of random bodies diverge from about twice the shape
/// stiffness (docs/physics.md, "Area").
pub(super) fn area_stiffness(own: Option<f32>, shape: f32, param: f32) -> f32 {
    own.unwrap_or(param.min(shape))
}

/// A rest shape whose second moment's determinant is below this fraction
/// of its trace squared is flat (its points in a line, or one heavy point
/// and the rest weightless): it has no area to keep.
const FLAT_SHAPE: f64 = 1e-6;

/// `1 / sqrt(det A_qq)` of the members' rest offsets (already about their
/// weighted centroid), `A_qq = sum w q q^T`, from the packed f32 offsets
/// so that a body at rest has an area ratio of 1 to rounding; 0 for a flat
/// shape.
pub(super) fn area_norm(members: &[Member]) -> f32 {
    let (mut xx, mut yy, mut xy) = (0.0f64, 0.0f64, 0.0f64);
    for m in members {
        let (w, x, y) = (m.weight as f64, m.rest[0] as f64, m.rest[1] as f64);
        xx += w * x * x;
        yy += w * y * y;
        xy += w * x * y;
    }
    let det = xx * yy - xy * xy;
    let trace = xx + yy;
    if det > FLAT_SHAPE * trace * trace && det.is_finite() {
        (1.0 / det.sqrt()) as f32
    } else {
        0.0
    }
}
