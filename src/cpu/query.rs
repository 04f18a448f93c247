//! Mirror of `shaders/query.wgsl`: ray casts against the bodies' outlines
//! and the planets and half-planes, with the kernel's rules and float
//! operations (docs/physics.md, "Queries").

use glam::Vec2;

use super::v2;
use crate::layout::{
    BodyOutline, PlaneInfo, PlanetInfo, QUERY_BOX_SLACK, RAY_BODY, RAY_NONE, RAY_PLANE, RAY_PLANET,
    RAY_TERRAIN, RayHitRecord, RayQuery, SegmentInfo, SimParams,
};

/// What a ray cast reads.
pub struct Scene<'a> {
    pub sim: &'a SimParams,
    pub pos: &'a [[f32; 2]],
    pub outlines: &'a [BodyOutline],
    pub outline_points: &'a [u32],
    /// The bodies with an outline of 3 points or more, first in
    /// `Packed::colliders` (`sim.num_colliders` of them).
    pub bodies: &'a [u32],
    pub planets: &'a [PlanetInfo],
    pub planes: &'a [PlaneInfo],
    /// The terrain's segments.
    pub segments: &'a [SegmentInfo],
    /// Each listed body's outline box `[min, max]`, by its place in
    /// `bodies` ([`body_boxes`]).
    pub boxes: Vec<[f32; 4]>,
}

/// WGSL `outline_box`: outline `o`'s box `[min, max]`.
fn outline_box(pos: &[[f32; 2]], outline_points: &[u32], o: &BodyOutline) -> [f32; 4] {
    let (mut lo, mut hi) = (Vec2::splat(3.4e38), Vec2::splat(-3.4e38));
    for k in 0..o.count {
        let a = v2(pos[outline_points[(o.first + k) as usize] as usize]);
        (lo, hi) = (lo.min(a), hi.max(a));
    }
    [lo.x, lo.y, hi.x, hi.y]
}

/// WGSL `body_boxes`: the box of each of the first `sim.num_colliders`
/// bodies of `bodies`, once a batch.
pub fn body_boxes(
    sim: &SimParams,
    pos: &[[f32; 2]],
    outlines: &[BodyOutline],
    outline_points: &[u32],
    bodies: &[u32],
) -> Vec<[f32; 4]> {
    bodies[..sim.num_colliders as usize]
        .iter()
        .map(|&b| outline_box(pos, outline_points, &outlines[b as usize]))
        .collect()
}

/// WGSL `grown`: box `b` grown by [`QUERY_BOX_SLACK`].
fn grown(b: [f32; 4]) -> [f32; 4] {
    let m = QUERY_BOX_SLACK * (1.0 + b[0].abs().max(b[1].abs()).max(b[2].abs().max(b[3].abs())));
    [b[0] - m, b[1] - m, b[2] + m, b[3] + m]
}

/// WGSL `slab`.
fn slab(span: (f32, f32), o: f32, d: f32, lo: f32, hi: f32) -> (f32, f32) {
    if d == 0.0 {
        return if o >= lo && o <= hi { span } else { (1.0, 0.0) };
    }
    let ta = (lo - o) / d;
    let tb = (hi - o) / d;
    (span.0.max(ta.min(tb)), span.1.min(ta.max(tb)))
}

/// WGSL `ray_box`: where along the ray (within `[0, max]`) it enters box
/// `b` grown, or `-1` when it misses it.
fn ray_box(r: &RayQuery, b: [f32; 4]) -> f32 {
    let g = grown(b);
    let mut span = (0.0, r.max);
    span = slab(span, r.origin[0], r.dir[0], g[0], g[2]);
    span = slab(span, r.origin[1], r.dir[1], g[1], g[3]);
    if span.0 > span.1 { -1.0 } else { span.0 }
}

fn cross2(a: Vec2, b: Vec2) -> f32 {
    a.x * b.y - a.y * b.x
}

/// Outline `o`'s corner `k`.
fn corner(s: &Scene, o: &BodyOutline, k: u32) -> Vec2 {
    v2(s.pos[s.outline_points[(o.first + k) as usize] as usize])
}

/// Outline `o`'s corner `k` and the next.
fn edge(s: &Scene, o: &BodyOutline, k: u32) -> (Vec2, Vec2) {
    let next = if k + 1 == o.count { 0 } else { k + 1 };
    (corner(s, o, k), corner(s, o, next))
}

/// WGSL `winding`: the sign of the signed area about the first corner.
fn winding(s: &Scene, o: &BodyOutline) -> f32 {
    let at = |k: u32| corner(s, o, k) - corner(s, o, 0);
    let mut area = 0.0;
    for k in 1..o.count.saturating_sub(1) {
        area += cross2(at(k), at(k + 1));
    }
    if area < 0.0 { -1.0 } else { 1.0 }
}

/// WGSL `enter_edge`.
fn enter_edge(r: &RayQuery, a: Vec2, b: Vec2, w: f32) -> f32 {
    let (origin, dir) = (v2(r.origin), v2(r.dir));
    let e = b - a;
    let outward = w * Vec2::new(e.y, -e.x);
    if dir.dot(outward) >= 0.0 {
        return f32::INFINITY;
    }
    let denom = cross2(dir, e);
    let ap = a - origin;
    let t = cross2(ap, e) / denom;
    let u = cross2(ap, dir) / denom;
    if t < 0.0 || t > r.max || !(0.0..=1.0).contains(&u) {
        return f32::INFINITY;
    }
    // +0 for -0, as the kernel's atomicMin on the bits needs.
    t.abs()
}

/// WGSL `body_entry`: (t, edge).
fn body_entry(s: &Scene, r: &RayQuery, b: u32) -> (f32, u32) {
    let o = &s.outlines[b as usize];
    let w = winding(s, o);
    let (mut best, mut best_edge) = (f32::INFINITY, 0);
    for k in 0..o.count {
        let (a, c) = edge(s, o, k);
        let t = enter_edge(r, a, c, w);
        if t < best {
            (best, best_edge) = (t, k);
        }
    }
    (best, best_edge)
}

/// WGSL `cast_rays` for one ray.
pub fn cast(s: &Scene, r: &RayQuery) -> RayHitRecord {
    let (origin, dir) = (v2(r.origin), v2(r.dir));
    let mut best = (f32::INFINITY, u32::MAX);
    for (&body, &bx) in s.bodies[..s.sim.num_colliders as usize]
        .iter()
        .zip(&s.boxes)
    {
        // A body whose box the ray misses, or enters past the nearest hit
        // so far, cannot be nearer (nor tie it).
        let enter = ray_box(r, bx);
        if enter < 0.0 || enter > best.0 {
            continue;
        }
        let (t, _) = body_entry(s, r, body);
        if t < best.0 || (t == best.0 && body < best.1) {
            best = (t, body);
        }
    }
    let mut hit = RayHitRecord {
        t: f32::INFINITY,
        kind: RAY_NONE,
        ..Default::default()
    };
    if best.1 != u32::MAX && best.0.is_finite() {
        let body = best.1;
        let o = &s.outlines[body as usize];
        let w = winding(s, o);
        let (t, k) = body_entry(s, r, body);
        let (a, c) = edge(s, o, k);
        let e = c - a;
        let n = (w * Vec2::new(e.y, -e.x)).normalize();
        hit = RayHitRecord {
            t,
            kind: RAY_BODY,
            index: body,
            point: (origin + t * dir).to_array(),
            normal: n.to_array(),
            ..Default::default()
        };
    }
    for (k, p) in s.planets[..s.sim.num_planets as usize].iter().enumerate() {
        let d = origin - v2(p.center);
        let a = dir.dot(dir);
        let half_b = d.dot(dir);
        let c = d.dot(d) - p.radius * p.radius;
        let disc = half_b * half_b - a * c;
        if c > 0.0 && half_b < 0.0 && disc >= 0.0 {
            let tp = (-half_b - disc.sqrt()) / a;
            if tp <= r.max && tp < hit.t {
                let at = origin + tp * dir;
                hit = RayHitRecord {
                    t: tp,
                    kind: RAY_PLANET,
                    index: k as u32,
                    point: at.to_array(),
                    normal: (at - v2(p.center)).normalize().to_array(),
                    ..Default::default()
                };
            }
        }
    }
    for (k, p) in s.planes[..s.sim.num_planes as usize].iter().enumerate() {
        let n = v2(p.normal);
        let toward = n.dot(dir);
        let above = n.dot(origin) - p.offset;
        if above > 0.0 && toward < 0.0 {
            let tp = -above / toward;
            if tp <= r.max && tp < hit.t {
                hit = RayHitRecord {
                    t: tp,
                    kind: RAY_PLANE,
                    index: k as u32,
                    point: (origin + tp * dir).to_array(),
                    normal: p.normal,
                    ..Default::default()
                };
            }
        }
    }
    for (k, sg) in s.segments.iter().enumerate() {
        if let Some(tp) = segment_entry(sg, origin, dir)
            && tp <= r.max
            && tp < hit.t
        {
            hit = RayHitRecord {
                t: tp,
                kind: RAY_TERRAIN,
                index: k as u32,
                point: (origin + tp * dir).to_array(),
                normal: sg.normal,
                ..Default::default()
            };
        }
    }
    hit
}

/// Where a ray from `origin` along `dir` enters terrain segment `s` from
/// its open side (WGSL `segment_entry`): a ray from behind it, or along
/// it, does not see it.
fn segment_entry(s: &SegmentInfo, origin: Vec2, dir: Vec2) -> Option<f32> {
    let (a, b, n) = (v2(s.a), v2(s.b), v2(s.normal));
    let toward = n.dot(dir);
    let above = n.dot(origin - a);
    if !(above > 0.0 && toward < 0.0) {
        return None;
    }
    let tp = -above / toward;
    let ab = b - a;
    let u = (origin + tp * dir - a).dot(ab) / ab.dot(ab);
    (0.0..=1.0).contains(&u).then_some(tp)
}

/// WGSL `holds`: whether outline `o` holds `p` (crossing number).
fn holds(s: &Scene, o: &BodyOutline, p: Vec2) -> bool {
    let mut inside = false;
    for k in 0..o.count {
        let (a, b) = edge(s, o, k);
        if (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y);
            if p.x < x {
                inside = !inside;
            }
        }
    }
    inside
}

/// WGSL `bodies_at` for one point: the lowest body whose outline holds
/// `p`, or `u32::MAX`; a body whose grown box does not hold `p` is passed
/// over.
pub fn body_at(s: &Scene, p: Vec2) -> u32 {
    s.bodies[..s.sim.num_colliders as usize]
        .iter()
        .zip(&s.boxes)
        .filter(|&(_, &bx)| {
            let g = grown(bx);
            p.x >= g[0] && p.y >= g[1] && p.x <= g[2] && p.y <= g[3]
        })
        .map(|(&b, _)| b)
        .filter(|&b| holds(s, &s.outlines[b as usize], p))
        .min()
        .unwrap_or(u32::MAX)
}

/// WGSL `bodies_in_box`: the bodies whose outline's box meets the box
/// `lo..=hi`, in index order.
pub fn bodies_in_box(s: &Scene, lo: Vec2, hi: Vec2) -> Vec<u32> {
    let mut found: Vec<u32> = s.bodies[..s.sim.num_colliders as usize]
        .iter()
        .zip(&s.boxes)
        .filter(|&(_, b)| b[0] <= hi.x && b[1] <= hi.y && b[2] >= lo.x && b[3] >= lo.y)
        .map(|(&b, _)| b)
        .collect();
    found.sort_unstable();
    found
}
