//! What the renderer needs beyond the solver's buffers, built once per
//! upload from the [`World`]: each body's fill triangles and outline, a
//! colour per body, the springs' ends and rest lengths, and the static
//! colliders. Only what moves (positions, velocities) and the body
//! memberships are read from the solver, so drawing does not depend on how
//! the solver lays out springs or colliders internally.
//!
//! A body's outline is its collision outline ([`Body::outline`]): its
//! `boundary` when it has one (the builders give a wheel and a blob with a
//! centre point their rim), else its points in the order given (the
//! [`Body`] contract: boundary order). No point is left off the outline
//! for where it lies: a trailing point strictly inside the polygon of
//! those before it, such as the reflex last corner of a concave body,
//! stays on it.
//! The outline is triangulated by
//! ear clipping in the rest shape, so concave bodies fill correctly; the
//! triangles then follow the points as they move. Each triangle corner
//! records whether the edge to the next corner is an outline edge, so the
//! fill pass draws the outline too (one pass instead of a line pass, which
//! costs about as much as the fill on a software rasteriser). A body whose
//! rest outline has no area (two points, or all in a line) is not drawn;
//! its springs and points still are.
//!
//! [`Body`]: crate::world::Body
//! [`Body::outline`]: crate::world::Body::outline

use std::borrow::Cow;

use glam::Vec2;

use bytemuck::{Pod, Zeroable};

use crate::layout::{BodyInfo, PlaneInfo, PlanetInfo};
use crate::world::{Body, World};

/// Bodies with more outline points than this are filled by a fan from their
/// first point (right for convex shapes) instead of ear clipping, which is
/// quadratic in the number of points.
pub const EAR_CLIP_MAX_POINTS: usize = 256;

/// How a body is coloured when colouring by body: by what it looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BodyKind {
    /// Four points, sharing none with another body.
    Box,
    /// Four points, sharing some with another body: a cell of a ship.
    ShipCell,
    /// A ring around interior points (a wheel's hub, a blob's centre).
    Wheel,
    /// Anything else: a round blob or a user's polygon.
    Blob,
    /// Collinear or two-point bodies: outline only.
    Degenerate,
}

impl BodyKind {
    /// Base colour, sRGB-encoded RGB.
    pub fn base_color(self) -> [f32; 3] {
        match self {
            BodyKind::Box => [0.20, 0.74, 0.76],
            BodyKind::ShipCell => [0.95, 0.45, 0.33],
            BodyKind::Wheel => [0.96, 0.74, 0.24],
            BodyKind::Blob => [0.80, 0.46, 0.88],
            BodyKind::Degenerate => [0.80, 0.80, 0.80],
        }
    }
}

/// A spring as drawn (WGSL `SpringLine` in `shaders/render/draw.wgsl`):
/// its ends, rest length (m) and kind (`KIND_SPRING`, `KIND_SOFT`,
/// `KIND_ROD` of [`crate::layout`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SpringLine {
    pub a: u32,
    pub b: u32,
    pub rest: f32,
    pub kind: u32,
}

/// Set in a [`Topology::fill`] entry when the edge from that corner to the
/// next corner of its triangle is on the body's outline.
pub const OUTLINE_EDGE: u32 = 1 << 31;

/// What the renderer draws beyond the solver's buffers. Fill triangles are
/// given by member indices: indices into the solver's members buffer
/// ([`Packed::members`](crate::pack::Packed)), where body `b`'s `k`-th point
/// is member `first(b) + k`, `first` the number of points of the bodies
/// before it, as a fresh pack lays them out; [`Topology::fill_at`] moves
/// them to where a solver's members lie after removals. Member indices stay below `2^31` ([`MAX_ITEMS`]), which
/// leaves the top bit for [`OUTLINE_EDGE`].
///
/// [`MAX_ITEMS`]: crate::world::MAX_ITEMS
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Topology {
    /// Fill triangles, three entries each: a member index, with
    /// [`OUTLINE_EDGE`] set when the edge to the next corner is an outline
    /// edge (the outline is drawn by the fill's fragment shader).
    pub fill: Vec<u32>,
    /// Per fill triangle, its body's colour (packed like `body_colors`):
    /// the solver's members carry no body index to look it up by.
    pub fill_colors: Vec<u32>,
    /// Per body, packed RGBA8 (sRGB-encoded), red in the low byte.
    pub body_colors: Vec<u32>,
    /// Per body, its fill triangles (in `fill`, body after body).
    pub fill_counts: Vec<u32>,
    /// Per body, what it was taken for.
    pub kinds: Vec<BodyKind>,
    /// Every spring, in the world's order.
    pub springs: Vec<SpringLine>,
    pub planets: Vec<PlanetInfo>,
    pub planes: Vec<PlaneInfo>,
    pub num_points: u32,
}

impl Topology {
    /// The per-triangle colours (as `fill_colors`) that draw body `b` in
    /// `body_colors[b]` (packed like [`Topology::body_colors`]); `None`
    /// when there is not one colour per body.
    pub fn fill_colors_for(&self, body_colors: &[u32]) -> Option<Vec<u32>> {
        (body_colors.len() == self.fill_counts.len()).then(|| {
            body_colors
                .iter()
                .zip(&self.fill_counts)
                .flat_map(|(&c, &n)| std::iter::repeat_n(c, n as usize))
                .collect()
        })
    }

    /// `fill` for a solver whose bodies' members lie at `bodies`' `first`s
    /// (a removal leaves them where they were, [`Packed::members`]): each
    /// entry moved from the body-by-body layout `fill` assumes. Borrowed
    /// when the members lie body by body. A fill that does not fit the
    /// bodies is refused with what does not fit.
    ///
    /// [`Packed::members`]: crate::pack::Packed::members
    pub fn fill_at(&self, bodies: &[BodyInfo]) -> Result<Cow<'_, [u32]>, String> {
        if bodies.len() != self.fill_counts.len() {
            return Err(format!(
                "{} bodies, the solver has {}",
                self.fill_counts.len(),
                bodies.len()
            ));
        }
        let mut prefix = 0u32;
        let body_by_body = bodies.iter().all(|b| {
            let at = b.first == prefix;
            prefix = prefix.wrapping_add(b.count);
            at
        });
        if body_by_body {
            return Ok(Cow::Borrowed(&self.fill));
        }
        let mut fill = Vec::with_capacity(self.fill.len());
        let (mut at, mut prefix) = (0usize, 0u32);
        for (b, (body, &n)) in bodies.iter().zip(&self.fill_counts).enumerate() {
            let corners = self.fill.get(at..at + 3 * n as usize);
            for &e in corners.ok_or("the fill counts run past the fill")? {
                let k = (e & !OUTLINE_EDGE).wrapping_sub(prefix);
                if k >= body.count {
                    return Err(format!(
                        "fill corner at member {} is not one of body {b}'s",
                        e & !OUTLINE_EDGE
                    ));
                }
                fill.push((body.first + k) | (e & OUTLINE_EDGE));
            }
            at += 3 * n as usize;
            prefix += body.count;
        }
        Ok(Cow::Owned(fill))
    }

    /// Builds the fill, outlines and colours of every body of `world`.
    pub fn from_world(world: &World) -> Self {
        let mut shared = vec![0u8; world.points().len()];
        for body in world.bodies() {
            for p in &body.points {
                shared[p.index()] = shared[p.index()].saturating_add(1);
            }
        }
        let mut t = Topology {
            num_points: world.points().len() as u32,
            springs: world
                .springs()
                .iter()
                .zip(world.rest_lengths())
                .map(|(s, &rest)| SpringLine {
                    a: s.a.0,
                    b: s.b.0,
                    rest,
                    kind: s.kind.code(),
                })
                .collect(),
            ..Default::default()
        };
        let mut first = 0u32;
        for (b, (body, rest)) in world.bodies().iter().zip(world.rest_shapes()).enumerate() {
            let b = b as u32;
            let ring = outline(body);
            let n = ring.len();
            let poly: Vec<Vec2> = ring.iter().map(|&k| rest[k]).collect();
            let tris = triangulate(&poly);
            for tri in &tris {
                for c in 0..3 {
                    let (i, j) = (tri[c], tri[(c + 1) % 3]);
                    let on_outline = j == (i + 1) % n || i == (j + 1) % n;
                    let flag = if on_outline { OUTLINE_EDGE } else { 0 };
                    t.fill.push((first + ring[i] as u32) | flag);
                }
            }
            let kind = if tris.is_empty() {
                BodyKind::Degenerate
            } else if ring.len() < body.points.len() {
                BodyKind::Wheel
            } else if ring.len() == 4 {
                if body.points.iter().any(|p| shared[p.index()] > 1) {
                    BodyKind::ShipCell
                } else {
                    BodyKind::Box
                }
            } else {
                BodyKind::Blob
            };
            t.kinds.push(kind);
            let color = pack_color(vary(kind.base_color(), b));
            t.body_colors.push(color);
            t.fill_colors.extend(std::iter::repeat_n(color, tris.len()));
            t.fill_counts.push(tris.len() as u32);
            first += body.points.len() as u32;
        }
        t.planets = world.planets().iter().map(PlanetInfo::from).collect();
        t.planes = world.planes().iter().map(PlaneInfo::from).collect();
        t
    }
}

/// The positions in `body.points` of the body's outline
/// ([`Body::outline`](crate::world::Body::outline)): its boundary, in
/// boundary order, or all its points.
pub fn outline(body: &Body) -> Vec<usize> {
    match &body.boundary {
        Some(boundary) => {
            let at: std::collections::HashMap<u32, usize> = body
                .points
                .iter()
                .enumerate()
                .map(|(k, p)| (p.0, k))
                .collect();
            // The world checks that a boundary lies in its body's points.
            boundary
                .iter()
                .filter_map(|p| at.get(&p.0).copied())
                .collect()
        }
        None => (0..body.points.len()).collect(),
    }
}

fn signed_area(poly: &[Vec2]) -> f32 {
    crate::measure::shoelace(poly.iter().map(|p| p.to_array())) as f32
}

/// Triangles (indices into `poly`) covering a simple polygon of either
/// orientation: ear clipping, or a fan from the first point for polygons
/// above [`EAR_CLIP_MAX_POINTS`] or when clipping finds no ear (a
/// self-intersecting outline). Empty for fewer than 3 points or zero area.
pub fn triangulate(poly: &[Vec2]) -> Vec<[usize; 3]> {
    let n = poly.len();
    let area = signed_area(poly);
    let extent = poly.iter().fold(
        (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    let scale = (extent.1 - extent.0).length_squared();
    if n < 3 || area.abs() <= 1e-6 * scale {
        return Vec::new();
    }
    let fan = || (1..n - 1).map(|k| [0, k, k + 1]).collect();
    if n > EAR_CLIP_MAX_POINTS {
        return fan();
    }
    let ccw = area > 0.0;
    let mut left: Vec<usize> = (0..n).collect();
    let mut out = Vec::with_capacity(n - 2);
    // Is the corner at left[i] convex, with no other remaining point inside?
    let is_ear = |left: &[usize], i: usize| {
        let m = left.len();
        let (a, b, c) = (left[(i + m - 1) % m], left[i], left[(i + 1) % m]);
        let (pa, pb, pc) = (poly[a], poly[b], poly[c]);
        let turn = (pb - pa).perp_dot(pc - pb);
        if (turn > 0.0) != ccw || turn == 0.0 {
            return false;
        }
        left.iter()
            .all(|&k| k == a || k == b || k == c || !in_triangle(poly[k], pa, pb, pc))
    };
    while left.len() > 3 {
        let m = left.len();
        match (0..m).find(|&i| is_ear(&left, i)) {
            Some(i) => {
                out.push([left[(i + m - 1) % m], left[i], left[(i + 1) % m]]);
                left.remove(i);
            }
            None => return fan(),
        }
    }
    out.push([left[0], left[1], left[2]]);
    out
}

/// Whether `p` is inside or on triangle `abc` (either orientation).
fn in_triangle(p: Vec2, a: Vec2, b: Vec2, c: Vec2) -> bool {
    let d1 = (b - a).perp_dot(p - a);
    let d2 = (c - b).perp_dot(p - b);
    let d3 = (a - c).perp_dot(p - c);
    let neg = d1 < 0.0 || d2 < 0.0 || d3 < 0.0;
    let pos = d1 > 0.0 || d2 > 0.0 || d3 > 0.0;
    !(neg && pos)
}

/// The base colour, brighter or darker by up to 15% per body.
fn vary(c: [f32; 3], body: u32) -> [f32; 3] {
    let mut h = body.wrapping_mul(0x9E37_79B9);
    h ^= h >> 15;
    h = h.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 13;
    let k = 0.85 + 0.3 * (h & 0xffff) as f32 / 65535.0;
    c.map(|x| (x * k).min(1.0))
}

fn pack_color(c: [f32; 3]) -> u32 {
    let [r, g, b] = c.map(|x| (x.clamp(0.0, 1.0) * 255.0).round() as u32);
    r | (g << 8) | (b << 16) | (255 << 24)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes::{Blob, BoxGrid, BoxShape, Wheel};

    fn area_of(poly: &[Vec2], tris: &[[usize; 3]]) -> f32 {
        tris.iter()
            .map(|t| signed_area(&[poly[t[0]], poly[t[1]], poly[t[2]]]).abs())
            .sum()
    }

    #[test]
    fn ear_clipping_covers_a_concave_polygon_exactly() {
        // An L shape, clockwise.
        let mut l = vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(2.0, 0.0),
            Vec2::new(2.0, 1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(1.0, 2.0),
            Vec2::new(0.0, 2.0),
        ];
        let tris = triangulate(&l);
        assert_eq!(tris.len(), 4);
        assert!((area_of(&l, &tris) - 3.0).abs() < 1e-5);
        l.reverse();
        assert!((area_of(&l, &triangulate(&l)) - 3.0).abs() < 1e-5);
    }

    #[test]
    fn degenerate_polygons_have_no_fill() {
        assert!(triangulate(&[Vec2::ZERO, Vec2::X]).is_empty());
        assert!(triangulate(&[Vec2::ZERO, Vec2::X, Vec2::X * 2.0]).is_empty());
    }

    /// A concave body whose last corner is reflex keeps it: the outline is
    /// the body's own (dropping trailing points inside the polygon of the
    /// others as hubs would fill the notch).
    #[test]
    fn a_notched_body_keeps_its_reflex_last_corner() {
        let mut w = World::default();
        let pts: Vec<_> = [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0), (1.0, 1.0)]
            .into_iter()
            .map(|(x, y)| {
                w.add_point(crate::world::Point::new(Vec2::new(x, y)))
                    .unwrap()
            })
            .collect();
        w.add_body(Body::new(pts)).unwrap();
        let t = Topology::from_world(&w);
        assert_eq!(t.kinds, vec![BodyKind::Blob]);
        let rest = &w.rest_shapes()[0];
        let area: f32 = t
            .fill
            .chunks(3)
            .map(|tri| {
                let [a, b, c] = [0, 1, 2].map(|k| rest[(tri[k] & !OUTLINE_EDGE) as usize]);
                (b - a).perp_dot(c - a).abs() / 2.0
            })
            .sum();
        assert!(
            (area - 3.0).abs() < 1e-5,
            "area {area}, the notch is 1 of 4"
        );
    }

    /// Bodies 500 m from the origin in millimetres (5e5 units) are filled
    /// as near it: each covers its rest area, none degenerate. Their
    /// signed areas summed from absolute corners lost their sign and size
    /// in rounding there, and some bodies drew no fill.
    #[test]
    fn bodies_far_from_the_origin_are_filled() {
        let mut w = World::new(crate::Params::with_length_unit(1000.0).unwrap());
        let base = Vec2::new(5.0e5, -2.0e5);
        for k in 0..30 {
            let at = base + Vec2::new(120.0 * k as f32, 0.0);
            match k % 3 {
                0 => BoxShape::new(at, Vec2::splat(90.0))
                    .rotation(0.3 * k as f32)
                    .build(&mut w)
                    .map(|_| ()),
                1 => Blob::new(at, 45.0, 9).build(&mut w).map(|_| ()),
                _ => Wheel::new(at, 48.0, 6).build(&mut w).map(|_| ()),
            }
            .unwrap();
        }
        let t = Topology::from_world(&w);
        for (b, (body, rest)) in w.bodies().iter().zip(w.rest_shapes()).enumerate() {
            assert_ne!(t.kinds[b], BodyKind::Degenerate, "body {b}");
            let poly: Vec<Vec2> = outline(body).iter().map(|&k| rest[k]).collect();
            let local: Vec<Vec2> = poly.iter().map(|&p| p - base).collect();
            let tris = triangulate(&poly);
            let (covered, want) = (area_of(&local, &tris), signed_area(&local).abs());
            assert!(
                (covered / want - 1.0).abs() < 1e-3,
                "body {b}: {covered} of {want}"
            );
        }
    }

    #[test]
    fn a_wheel_is_outlined_by_its_rim_and_ships_share_corners() {
        let mut w = World::default();
        Wheel::new(Vec2::ZERO, 1.0, 8).build(&mut w).unwrap();
        Blob::new(Vec2::new(5.0, 0.0), 1.0, 10)
            .center_point(true)
            .build(&mut w)
            .unwrap();
        Blob::new(Vec2::new(10.0, 0.0), 1.0, 10)
            .build(&mut w)
            .unwrap();
        BoxShape::new(Vec2::new(0.0, 5.0), Vec2::ONE)
            .build(&mut w)
            .unwrap();
        BoxGrid::new(2, 1, Vec2::ONE)
            .center(Vec2::new(5.0, 5.0))
            .build(&mut w)
            .unwrap();
        let t = Topology::from_world(&w);
        use BodyKind as K;
        assert_eq!(
            t.kinds,
            vec![
                K::Wheel,
                K::Wheel,
                K::Blob,
                K::Box,
                K::ShipCell,
                K::ShipCell
            ]
        );
        // Rim of 8: 6 triangles; blobs of 10: 8; boxes: 2 each.
        let tris = [6, 8, 8, 2, 2, 2];
        assert_eq!(t.fill.len(), 3 * tris.iter().sum::<usize>());
        let colors: Vec<u32> = tris
            .iter()
            .zip(&t.body_colors)
            .flat_map(|(&k, &c)| std::iter::repeat_n(c, k))
            .collect();
        assert_eq!(t.fill_colors, colors);
        let member = |e: u32| e & !OUTLINE_EDGE;
        // The hub (member 8) is not drawn; the next body starts at member 9.
        assert!(t.fill.iter().all(|&e| member(e) != 8));
        let second = &t.fill[3 * 6..3 * (6 + 8)];
        assert_eq!(second.iter().map(|&e| member(e)).min(), Some(9));
        // Every body's outline edges go once round its outline: n of them.
        let outline_edges: Vec<usize> = {
            let mut start = 0;
            tris.iter()
                .map(|&k| {
                    let body = &t.fill[start..start + 3 * k];
                    start += 3 * k;
                    body.iter().filter(|&&e| e & OUTLINE_EDGE != 0).count()
                })
                .collect()
        };
        assert_eq!(outline_edges, vec![8, 10, 10, 4, 4, 4]);
        // Members index the packed world's members buffer.
        let packed = crate::pack::Packed::from_world(&w).unwrap();
        for &e in &t.fill {
            assert!((member(e) as usize) < packed.members.len());
        }
        assert_eq!(t.body_colors.len(), 6);
    }

    /// After a removal the solver's members stay where they lie, the
    /// removed body's a hole and the body moved into its index still
    /// behind every other: the fill moved to them names the points a
    /// fresh pack's does, and a fill of another world is refused.
    #[test]
    fn the_fill_follows_members_a_removal_left_in_place() {
        let mut w = World::default();
        for k in 0..9 {
            let at = Vec2::new(3.0 * k as f32, 0.0);
            match k % 3 {
                0 => BoxShape::new(at, Vec2::splat(1.0))
                    .build(&mut w)
                    .map(|_| ()),
                1 => Blob::new(at, 0.6, 7 + k).build(&mut w).map(|_| ()),
                _ => Wheel::new(at, 0.7, 5).build(&mut w).map(|_| ()),
            }
            .unwrap();
        }
        let mut p = crate::pack::Packed::from_world(&w).unwrap();
        let r = w.remove_bodies(&[crate::world::BodyHandle(2)]).unwrap();
        p.apply_removal(&w, &r).unwrap();
        assert!(p.member_holes > 0);
        let t = Topology::from_world(&w);
        let fill = t.fill_at(&p.bodies).unwrap();
        assert!(matches!(fill, Cow::Owned(_)));
        let fresh = crate::pack::Packed::from_world(&w).unwrap();
        assert!(matches!(
            t.fill_at(&fresh.bodies).unwrap(),
            Cow::Borrowed(_)
        ));
        assert_eq!(fill.len(), t.fill.len());
        for (&e, &f) in fill.iter().zip(&t.fill) {
            assert_eq!(e & OUTLINE_EDGE, f & OUTLINE_EDGE);
            let (moved, laid) = ((e & !OUTLINE_EDGE) as usize, (f & !OUTLINE_EDGE) as usize);
            assert_eq!(p.members[moved].point, fresh.members[laid].point);
        }
        assert!(t.fill_at(&p.bodies[1..]).is_err());
        let mut other = p.bodies.clone();
        other[3].count -= 1;
        assert!(t.fill_at(&other).is_err());
    }
}
