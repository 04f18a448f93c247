//! Stage 4, mirror of `shaders/shape_match.wgsl`: shape matching with
//! damping toward rigid motion (Lisitsa 2023), kernel by kernel.
//!
//! `frames` reduces each body to its best-fit rigid frame: weighted centroid
//! and velocity, rotation `theta = -atan2(sum w r x q, sum w r . q)` kept as
//! `(cos, sin)`, and angular velocity `L / I`, all from one pass of sums
//! over the members. Small bodies are reduced by one thread each; large
//! ones by a workgroup, whose strided partial sums and tree reduction are
//! reproduced here in the same order. The frames kernels also list the
//! bodies that may have half-plane or planet impacts
//! (`list_plane_impacts`), whose impacts `plane_impacts` then solves.
//!
//! `apply` gathers, per point, the contributions of every body it belongs to.

use glam::Vec2;

use super::collide::{collider_contact, collider_velocity};
use super::impact::is_impact;
use super::{cross2, par, perp, v2};
use crate::layout::{
    AREA_MIN_RATIO, BodyFrame, BodyInfo, INFLATION_RATE, LARGE_BODY_THREADS, MaterialInfo, Member,
    PlaneInfo, PlanetInfo, PointInfo, PointMember, SMALL_BODY_MAX_POINTS, SimParams,
};
use crate::pack::PointMembers;

/// Sums below this count as zero when choosing a rotation or an angular
/// velocity (a collapsed body keeps the identity rotation, never NaN).
pub const TINY_SUM: f32 = 1e-30;

/// The sums of one pass over a body's members, about a reference member
/// `(p0, v0)` (the body's first): with `r = p - p0`, `u = v - v0`,
/// `[W, sum w r, sum w u, sum w q, sum w r.q, sum w r x q, sum w r x u,
/// sum w |r|^2, sum w (r.x q.x - r.y q.y), sum w (r.x q.y + r.y q.x)]`,
/// laid out as the WGSL kernel's three `vec4`s and an `f32` (the last two
/// complete the matrix `sum w r q^T` whose determinant gives the area). Taking
/// the reference inside the body keeps every sum small, so the centroid
/// forms below cancel no more digits than the two-pass ones would.
#[derive(Clone, Copy, Default, PartialEq, Debug)]
pub struct Sums(pub [f32; 13]);

impl Sums {
    /// One member's terms.
    #[inline]
    pub fn of(w: f32, r: Vec2, u: Vec2, q: Vec2) -> Self {
        Sums([
            w,
            w * r.x,
            w * r.y,
            w * u.x,
            w * u.y,
            w * q.x,
            w * q.y,
            w * r.dot(q),
            w * cross2(r, q),
            w * cross2(r, u),
            w * r.dot(r),
            w * (r.x * q.x - r.y * q.y),
            w * (r.x * q.y + r.y * q.x),
        ])
    }

    /// Component-wise sum.
    #[inline]
    pub fn plus(self, o: Self) -> Self {
        let mut s = self.0;
        for (a, b) in s.iter_mut().zip(o.0) {
            *a += b;
        }
        Sums(s)
    }
}

/// The frame from a body's sums (shared by the small and large
/// reductions), with the body's per-substep pull `k h` computed once here
/// rather than per point (its damping fraction `1 - exp(-c h)` comes with
/// each membership record, [`PointMember::relax`]), and its area term's
/// dilation rate `d`, 1/s.
// Inlined into `frame_small`: called through a function, the sums went
// through memory and the frames reduction took 55% longer.
#[inline(always)]
pub fn finish(body: &BodyInfo, h: f32, p0: Vec2, v0: Vec2, s: Sums) -> (BodyFrame, f32) {
    let s = s.0;
    let total = s[0];
    let c_rel = Vec2::new(s[1], s[2]) / total;
    let v_rel = Vec2::new(s[3], s[4]) / total;
    let sq = Vec2::new(s[5], s[6]);
    // About the centroid: A = sum w (r - c).q, B = sum w (r - c) x q,
    // L = sum w (r - c) x (u - V), I = sum w |r - c|^2.
    let a = s[7] - c_rel.dot(sq);
    let b = s[8] - cross2(c_rel, sq);
    let l = s[9] - total * cross2(c_rel, v_rel);
    let i = s[10] - total * c_rel.dot(c_rel);
    let m = a.abs().max(b.abs());
    let rot = if m > TINY_SUM {
        let (a, b) = (a / m, b / m);
        let len = (a * a + b * b).sqrt();
        [a / len, -b / len]
    } else {
        [1.0, 0.0]
    };
    let omega = if i > TINY_SUM { l / i } else { 0.0 };
    // A body turned inside out (ratio <= 0) gets none: pushing it out
    // would hold it inverted against shape matching's proper rotation,
    // which turns it back through a flat shape.
    let mut dilation = 0.0;
    if body.area_norm > 0.0 {
        let n = body.area_norm;
        let (an, bn) = (a * n, b * n);
        let d1 = (s[11] - (c_rel.x * sq.x - c_rel.y * sq.y)) * n;
        let d2 = (s[12] - (c_rel.x * sq.y + c_rel.y * sq.x)) * n;
        let ratio = area_ratio(an, bn, d1, d2);
        if ratio > 0.0 {
            let scale = (body.inflation / ratio.max(AREA_MIN_RATIO)).sqrt();
            dilation = body.area_stiffness * h * (scale - 1.0);
        }
    }
    let frame = BodyFrame {
        centroid: (p0 + c_rel).to_array(),
        vel: (v0 + v_rel).to_array(),
        rot,
        omega,
        pull: body.stiffness * h,
    };
    (frame, dilation)
}

/// The area ratio `det(sum w (r - c) q^T) / det(A_qq)` from the matrix's
/// entries scaled by `1 / sqrt(det A_qq)`: `a = m00 + m11`,
/// `b = m01 - m10`, `d1 = m00 - m11`, `d2 = m01 + m10`, so that
/// `det = (a^2 + b^2 - d1^2 - d2^2) / 4` (negative for a body turned
/// inside out).
#[inline]
pub fn area_ratio(a: f32, b: f32, d1: f32, d2: f32) -> f32 {
    0.25 * (a * a + b * b - d1 * d1 - d2 * d2)
}

/// A member's terms about the reference `(p0, v0)`.
#[inline]
fn member_sums(m: &Member, pos: &[[f32; 2]], vel: &[[f32; 2]], p0: Vec2, v0: Vec2) -> Sums {
    let p = m.point as usize;
    Sums::of(m.weight, v2(pos[p]) - p0, v2(vel[p]) - v0, v2(m.rest))
}

/// The reference member's position and velocity.
fn reference(
    body: &BodyInfo,
    members: &[Member],
    pos: &[[f32; 2]],
    vel: &[[f32; 2]],
) -> (Vec2, Vec2) {
    let p = members[body.first as usize].point as usize;
    (v2(pos[p]), v2(vel[p]))
}

/// One body reduced sequentially (WGSL `frames`, one thread per body).
#[inline(always)]
pub fn frame_small(
    h: f32,
    body: &BodyInfo,
    members: &[Member],
    pos: &[[f32; 2]],
    vel: &[[f32; 2]],
) -> (BodyFrame, f32) {
    let (p0, v0) = reference(body, members, pos, vel);
    let ms = &members[body.first as usize..(body.first + body.count) as usize];
    let mut sums = Sums::default();
    for m in ms {
        sums = sums.plus(member_sums(m, pos, vel, p0, v0));
    }
    finish(body, h, p0, v0, sums)
}

/// Tree reduction over `LARGE_BODY_THREADS` partial sums, in the order of
/// the workgroup's shared-memory reduction.
fn tree_reduce<T: Copy>(mut s: Vec<T>, add: impl Fn(T, T) -> T) -> T {
    let mut stride = s.len() / 2;
    while stride > 0 {
        for t in 0..stride {
            s[t] = add(s[t], s[t + stride]);
        }
        stride /= 2;
    }
    s[0]
}

/// One body reduced by a workgroup (WGSL `frames_large`): thread `t` sums
/// members `t, t + T, t + 2T, ...`, then the partial sums are tree-reduced.
pub fn frame_large(
    h: f32,
    body: &BodyInfo,
    members: &[Member],
    pos: &[[f32; 2]],
    vel: &[[f32; 2]],
) -> (BodyFrame, f32) {
    let threads = LARGE_BODY_THREADS as usize;
    let (p0, v0) = reference(body, members, pos, vel);
    let ms = &members[body.first as usize..(body.first + body.count) as usize];
    let partial = (0..threads)
        .map(|t| {
            let mut sums = Sums::default();
            for m in ms.iter().skip(t).step_by(threads) {
                sums = sums.plus(member_sums(m, pos, vel, p0, v0));
            }
            sums
        })
        .collect();
    finish(body, h, p0, v0, tree_reduce(partial, Sums::plus))
}

/// The inflation a body's area term aims at this substep (WGSL
/// `ramp_inflation`): its set inflation `target`, approached from the
/// inflation it aimed at the substep before, `now`, by at most the
/// factor `exp(INFLATION_RATE h)` (docs/physics.md, "Area"), so that a
/// pressure body set to a new inflation grows or shrinks at a bounded rate
/// rather than throwing its points.
#[inline]
pub fn ramp_inflation(target: f32, now: f32, h: f32) -> f32 {
    let step = (INFLATION_RATE * h).exp();
    target.clamp(now / step, now * step)
}

/// Every body's frame from `(pos, vel)`: bodies of at most
/// `SMALL_BODY_MAX_POINTS` points as by one thread (WGSL `frames`), larger
/// ones as by a workgroup (WGSL `frames_large`); `body_order` lists them in
/// that split. Each body's area term aims at its inflation ramped from
/// `inflation_now` ([`ramp_inflation`]), which is updated.
#[allow(clippy::too_many_arguments)]
pub fn frames(
    sim: &SimParams,
    bodies: &[BodyInfo],
    members: &[Member],
    pos: &[[f32; 2]],
    vel: &[[f32; 2]],
    frames_out: &mut [BodyFrame],
    dilation_out: &mut [f32],
    inflation_now: &mut [f32],
    parallel: bool,
) {
    let n = sim.num_bodies as usize;
    for (body, now) in bodies[..n].iter().zip(&mut inflation_now[..n]) {
        *now = ramp_inflation(body.inflation, *now, sim.h);
    }
    let inflation_now = &inflation_now[..n];
    par::zip_mut(
        parallel,
        &mut frames_out[..n],
        &mut dilation_out[..n],
        |b, frame, dilation| {
            let body = BodyInfo {
                inflation: inflation_now[b],
                ..bodies[b]
            };
            (*frame, *dilation) = if body.count <= SMALL_BODY_MAX_POINTS {
                frame_small(sim.h, &body, members, pos, vel)
            } else {
                frame_large(sim.h, &body, members, pos, vel)
            };
        },
    );
}

/// What the half-plane and planet impacts read: the colliders, and the
/// points' data and materials.
pub struct Colliders<'a> {
    pub info: &'a [PointInfo],
    pub materials: &'a [MaterialInfo],
    pub planets: &'a [PlanetInfo],
    pub planes: &'a [PlaneInfo],
}

/// Whether a body moving at `v` (its frame's velocity) may have
/// half-plane and planet impacts (WGSL `may_have_plane_impacts`;
/// docs/physics.md, "Impacts"): it takes part (`reach >= 0`) and moves
/// faster than the restitution threshold.
#[inline]
pub fn may_have_plane_impacts(sim: &SimParams, body: &BodyInfo, v: Vec2) -> bool {
    let t = sim.restitution_threshold;
    !(body.reach < 0.0 || v.dot(v) <= t * t)
}

/// The collider a body whose centroid is at `near` one substep ahead and
/// moves at `v` has its impacts with (WGSL `impact_collider`): of the
/// colliders the centroid reaches within twice the body's rest reach
/// `reach` (as a disk) and approaches faster than the restitution
/// threshold, the deepest (ties: the first). Members test that collider
/// alone, so a body costs one collider test per member rather than one
/// per collider, and one sliding along a half-plane or falling past a
/// wall costs none; the collider its centroid approaches is the one its
/// bulk lands on (a tall bar falling beside a wall lands on the floor,
/// although the wall is nearer its centroid).
pub fn impact_collider(
    sim: &SimParams,
    c: &Colliders,
    near: Vec2,
    v: Vec2,
    reach: f32,
) -> Option<u32> {
    let radius = sim.point_radius + 2.0 * reach;
    let mut best = None;
    let mut best_depth = 0.0f32;
    for k in 0..sim.num_planets + sim.num_planes {
        let (n, depth) = collider_contact(sim, k, u32::MAX, near, c.planets, c.planes, radius);
        // The approach to a moving collider is relative to its surface.
        let vs = collider_velocity(sim, k, near, c.planets, c.planes);
        if depth > best_depth && is_impact(sim, -(v - vs).dot(n)) {
            best_depth = depth;
            best = Some(k);
        }
    }
    best
}

/// The bodies whose half-plane and planet impacts [`plane_impacts`]
/// solves, at their frames `frames` (WGSL `list_plane_impact`, which the
/// frames kernels run for each body once its frame is computed): those
/// that [`may_have_plane_impacts`]. `list` is emptied first (on the GPU
/// the previous substep's `plane_impacts` empties it). Listed here in body
/// order, on the GPU in any: each body's impacts touch only its own points
/// and frame, so the order changes nothing.
pub fn list_plane_impacts(
    sim: &SimParams,
    bodies: &[BodyInfo],
    frames: &[BodyFrame],
    list: &mut Vec<u32>,
) {
    list.clear();
    let n = sim.num_bodies as usize;
    for ((body, f), b) in bodies[..n].iter().zip(frames).zip(0u32..) {
        if may_have_plane_impacts(sim, body, v2(f.vel)) {
            list.push(b);
        }
    }
}

/// Rounds of a body's half-plane or planet impact ([`plane_impact`];
/// WGSL `PLANE_IMPACT_ROUNDS`): each solves its one or two contacts'
/// friction in turn, then their normal impulses together.
pub const PLANE_IMPACT_ROUNDS: u32 = 8;

/// One contact of a body's impact with a half-plane or planet (WGSL
/// `ImpactContact`): the member's offset from the centroid, the
/// collider's normal there, the separation speed the impact asks for
/// (`e` times the approach) and the Coulomb coefficient.
#[derive(Clone, Copy, Debug)]
struct ImpactContact {
    r: Vec2,
    n: Vec2,
    target: f32,
    mu: f32,
}

/// A 2-point manifold's block is solved whole while `det K` is above this
/// fraction of `k11 k22` (WGSL `BLOCK_CONDITION`); below it the two
/// points act nearly as one, and one of them takes the impulse.
pub const BLOCK_CONDITION: f32 = 1e-3;

/// The total normal impulses of a body's impact manifold (WGSL
/// `normal_impulses`), from the totals `a` so far, the body moving at `v`
/// and `w`: the one or two impulses `x >= 0` that leave each point's
/// normal velocity at its target, or above it where its impulse is 0 (a
/// linear complementarity problem of two unknowns, solved by trying its
/// four cases in turn, as Box2D's 2-point block solver; Catto, `b2_contact_solver`).
/// Solved together, two symmetric points get the same impulse, which
/// sequential impulses give them only in the limit: a wheel landing on a
/// face is then not set rocking by the order of its points.
fn normal_impulses(
    m: &[ImpactContact; 2],
    count: usize,
    v: Vec2,
    w: f32,
    inv_m: f32,
    inv_i: f32,
    a: [f32; 2],
) -> [f32; 2] {
    let (c1, c2) = (&m[0], &m[1]);
    let rn1 = cross2(c1.r, c1.n);
    let k11 = inv_m + rn1 * rn1 * inv_i;
    let vn1 = (v + perp(c1.r) * w).dot(c1.n) - c1.target;
    if count == 1 {
        return [(a[0] - vn1 / k11).max(0.0), 0.0];
    }
    let rn2 = cross2(c2.r, c2.n);
    let k22 = inv_m + rn2 * rn2 * inv_i;
    let k12 = inv_m * c1.n.dot(c2.n) + rn1 * rn2 * inv_i;
    let vn2 = (v + perp(c2.r) * w).dot(c2.n) - c2.target;
    let b1 = vn1 - (k11 * a[0] + k12 * a[1]);
    let b2 = vn2 - (k12 * a[0] + k22 * a[1]);
    let det = k11 * k22 - k12 * k12;
    if det > BLOCK_CONDITION * k11 * k22 {
        let x1 = (k12 * b2 - k22 * b1) / det;
        let x2 = (k12 * b1 - k11 * b2) / det;
        if x1 >= 0.0 && x2 >= 0.0 {
            return [x1, x2];
        }
    }
    let x1 = -b1 / k11;
    if x1 >= 0.0 && k12 * x1 + b2 >= 0.0 {
        return [x1, 0.0];
    }
    let x2 = -b2 / k22;
    if x2 >= 0.0 && k12 * x2 + b1 >= 0.0 {
        return [0.0, x2];
    }
    if b1 >= 0.0 && b2 >= 0.0 {
        return [0.0, 0.0];
    }
    a
}

/// The change `(dv, domega)` of body `body`'s frame `f` from its impact
/// with collider `k` (WGSL `plane_impact`; docs/physics.md, "Impacts"),
/// or `None` when it has none. Each awake member whose contact with `k`
/// one substep ahead (at `p + u h`, `u` its rigid velocity `v + omega x
/// r`) it approaches faster than the threshold touches; of those, the
/// two outermost along the surface (the least and greatest `r x n`; one
/// when they are the same member) make the body's contact manifold, as
/// a polygon's has at most two points in 2-D (Box2D). The impulses that
/// give each manifold point its separation speed `e v`, with Coulomb
/// friction bounded by `mu_k` times its normal impulse, are solved for
/// the body as a rigid body (mass and moment of inertia from its members'
/// weights) by [`PLANE_IMPACT_ROUNDS`] rounds of friction by sequential
/// impulses (Catto 2005) and the normal impulses as a block
/// (`normal_impulses`), so that a landing loses its sliding speed by
/// Coulomb's law and a body landing on a corner turns.
pub fn plane_impact(
    sim: &SimParams,
    c: &Colliders,
    body: &BodyInfo,
    members: &[Member],
    pos: &[[f32; 2]],
    f: &BodyFrame,
    k: u32,
) -> Option<(Vec2, f32)> {
    let centre = v2(f.centroid);
    let (v0, w0) = (v2(f.vel), f.omega);
    let mut mass = 0.0f32;
    let mut inertia = 0.0f32;
    let mut lo: Option<(f32, ImpactContact)> = None;
    let mut hi: Option<(f32, ImpactContact)> = None;
    for m in &members[body.first as usize..(body.first + body.count) as usize] {
        let i = m.point as usize;
        let r = v2(pos[i]) - centre;
        mass += m.weight;
        inertia += m.weight * r.dot(r);
        let pi = c.info[i];
        if pi.inv_mass == 0.0 {
            continue;
        }
        let u = v0 + perp(r) * w0;
        let (n, depth) = collider_contact(
            sim,
            k,
            pi.layers,
            v2(pos[i]) + u * sim.h,
            c.planets,
            c.planes,
            sim.point_radius,
        );
        if depth <= 0.0 {
            continue;
        }
        let approach = -u.dot(n);
        if !is_impact(sim, approach) {
            continue;
        }
        let mat = c.materials[pi.material as usize];
        let contact = ImpactContact {
            r,
            n,
            target: mat.elasticity * approach,
            mu: mat.dynamic_friction,
        };
        let s = cross2(r, n);
        if lo.is_none_or(|(l, _)| s < l) {
            lo = Some((s, contact));
        }
        if hi.is_none_or(|(h, _)| s > h) {
            hi = Some((s, contact));
        }
    }
    let ((s_lo, a), (s_hi, b)) = (lo?, hi?);
    let manifold = [a, b];
    let count = if s_hi > s_lo { 2 } else { 1 };
    let inv_m = 1.0 / mass;
    let inv_i = if inertia > TINY_SUM {
        1.0 / inertia
    } else {
        0.0
    };
    let (mut v, mut w) = (v0, w0);
    let mut jn = [0.0f32; 2];
    let mut jt = [0.0f32; 2];
    for _ in 0..PLANE_IMPACT_ROUNDS {
        // Friction first, within the normal impulses so far; then the
        // normal impulses, which matter more, as a block.
        for (j, c) in manifold.iter().enumerate().take(count) {
            let t = perp(c.n);
            let rt = cross2(c.r, t);
            let dt = -(v + perp(c.r) * w).dot(t) / (inv_m + rt * rt * inv_i);
            let limit = c.mu * jn[j];
            let total = (jt[j] + dt).clamp(-limit, limit);
            let dt = total - jt[j];
            jt[j] = total;
            v += t * (dt * inv_m);
            w += rt * dt * inv_i;
        }
        let x = normal_impulses(&manifold, count, v, w, inv_m, inv_i, jn);
        for (j, c) in manifold.iter().enumerate().take(count) {
            let d = x[j] - jn[j];
            jn[j] = x[j];
            v += c.n * (d * inv_m);
            w += cross2(c.r, c.n) * d * inv_i;
        }
    }
    Some((v - v0, w - w0))
}

/// The listed bodies' half-plane and planet impacts (WGSL `plane_impacts`,
/// one thread per entry of `list`, from [`list_plane_impacts`];
/// docs/physics.md, "Impacts"): with the collider [`impact_collider`]
/// finds at a body's frame, [`plane_impact`]'s change of its rigid motion
/// is added to its awake points (`dv + domega x r`) and to its frame.
#[allow(clippy::too_many_arguments)]
pub fn plane_impacts(
    sim: &SimParams,
    c: &Colliders,
    bodies: &[BodyInfo],
    members: &[Member],
    list: &[u32],
    pos: &[[f32; 2]],
    vel: &mut [[f32; 2]],
    frames: &mut [BodyFrame],
) {
    for &b in list {
        let body = &bodies[b as usize];
        let f = &mut frames[b as usize];
        let v = v2(f.vel);
        let Some(k) = impact_collider(sim, c, v2(f.centroid) + v * sim.h, v, body.reach) else {
            continue;
        };
        // Solved in the frame of the collider's surface where the centroid
        // is (a turning planet's surface moves at other speeds elsewhere;
        // the impact takes the one nearest the body's bulk).
        let vs = collider_velocity(sim, k, v2(f.centroid), c.planets, c.planes);
        let relative = BodyFrame {
            vel: (v - vs).to_array(),
            ..*f
        };
        let Some((dv, dw)) = plane_impact(sim, c, body, members, pos, &relative, k) else {
            continue;
        };
        let centre = v2(f.centroid);
        for m in &members[body.first as usize..(body.first + body.count) as usize] {
            let i = m.point as usize;
            if c.info[i].inv_mass != 0.0 {
                let r = v2(pos[i]) - centre;
                vel[i] = (v2(vel[i]) + dv + perp(r) * dw).to_array();
            }
        }
        f.vel = (v + dv).to_array();
        f.omega += dw;
    }
}

/// The velocity change body frame `f` with dilation rate `dilation` asks
/// of a point at `p` moving at `v` through membership `m` (rest offset
/// `q`, damping fraction `relax`): a pull toward its target `c + R q`, the
/// area term's dilation about the centroid, and relaxation toward the
/// body's rigid motion.
#[inline]
pub fn member_dv(f: &BodyFrame, dilation: f32, m: &PointMember, p: Vec2, v: Vec2) -> Vec2 {
    let (cos, sin) = (f.rot[0], f.rot[1]);
    let (c, q) = (v2(f.centroid), v2(m.rest));
    let target = c + Vec2::new(cos * q.x - sin * q.y, sin * q.x + cos * q.y);
    let rigid = v2(f.vel) + perp(p - c) * f.omega;
    (target - p) * f.pull + (p - c) * dilation + (rigid - v) * m.relax
}

/// Every point gathers the contributions of the bodies it belongs to, from
/// its own membership records. The frames already hold everything read
/// from other points, so each point reads only its own state and the update
/// is in place; pinned points do not move.
#[allow(clippy::too_many_arguments)]
pub fn apply(
    sim: &SimParams,
    info: &[PointInfo],
    point_members: &PointMembers,
    frames: &[BodyFrame],
    dilation: &[f32],
    pos: &[[f32; 2]],
    vel: &mut [[f32; 2]],
    parallel: bool,
) {
    let n = sim.num_points as usize;
    par::map_in_place(parallel, &mut vel[..n], |i, vel| {
        if info[i].inv_mass == 0.0 {
            return;
        }
        let p = v2(pos[i]);
        let v = v2(*vel);
        let mut dv = Vec2::ZERO;
        for m in point_members.of(i) {
            let b = m.body as usize;
            dv += member_dv(&frames[b], dilation[b], m, p, v);
        }
        *vel = (v + dv).to_array();
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A box of four 1 kg members, its rest offsets about the centroid.
    fn square() -> (BodyInfo, Vec<Member>) {
        let q = [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]];
        let members: Vec<Member> = q
            .iter()
            .zip(0u32..)
            .map(|(&rest, point)| Member {
                rest,
                point,
                weight: 1.0,
            })
            .collect();
        // A_qq = diag(1, 1): det 1.
        let body = BodyInfo {
            count: 4,
            stiffness: 100.0,
            area_stiffness: 50.0,
            area_norm: 1.0,
            inflation: 1.0,
            ..Default::default()
        };
        (body, members)
    }

    /// The dilation rate `d` of `frame_small`.
    fn dilation(body: &BodyInfo, h: f32, pos: &[[f32; 2]]) -> f32 {
        let (_, members) = square();
        let vel = vec![[0.0; 2]; pos.len()];
        frame_small(h, body, &members, pos, &vel).1
    }

    #[test]
    fn the_area_ratio_is_the_determinant_of_an_affine_map() {
        let (body, members) = square();
        let h = 0.01;
        // p = F q + t, det F = 1.5 * 0.8 - 0.3 * 0.1 = 1.17.
        let f = [[1.5, 0.3], [0.1, 0.8]];
        let pos: Vec<[f32; 2]> = members
            .iter()
            .map(|m| {
                let [x, y] = m.rest;
                [
                    f[0][0] * x + f[0][1] * y + 3.0,
                    f[1][0] * x + f[1][1] * y - 2.0,
                ]
            })
            .collect();
        let want = 50.0 * h * ((1.0f32 / 1.17).sqrt() - 1.0);
        let d = dilation(&body, h, &pos);
        assert!((d - want).abs() < 1e-5, "{d} against {want}");
        // At rest, turned: no dilation.
        let (s, c) = 0.7f32.sin_cos();
        let turned: Vec<[f32; 2]> = members
            .iter()
            .map(|m| [c * m.rest[0] - s * m.rest[1], s * m.rest[0] + c * m.rest[1]])
            .collect();
        assert!(dilation(&body, h, &turned).abs() < 1e-6);
        // Inflated to twice the area: pushed out as by a ratio of 1/2.
        let inflated = BodyInfo {
            inflation: 2.0,
            ..body
        };
        let d = dilation(&inflated, h, &turned);
        assert!((d - 50.0 * h * (2.0f32.sqrt() - 1.0)).abs() < 1e-5, "{d}");
        // Squashed to a tenth: pushed out as at the least ratio.
        let flat: Vec<[f32; 2]> = members
            .iter()
            .map(|m| [m.rest[0], 0.1 * m.rest[1]])
            .collect();
        let d = dilation(&body, h, &flat);
        let most = 50.0 * h * ((1.0 / AREA_MIN_RATIO).sqrt() - 1.0);
        assert!((d - most).abs() < 1e-6, "{d}");
        // Inside out (mirrored): none, shape matching turns it back.
        let mirrored: Vec<[f32; 2]> = members.iter().map(|m| [-m.rest[0], m.rest[1]]).collect();
        assert_eq!(dilation(&body, h, &mirrored), 0.0);
        // A flat body (no area norm) gets none.
        let flat = BodyInfo {
            area_norm: 0.0,
            ..body
        };
        assert_eq!(dilation(&flat, h, &mirrored), 0.0);
    }
}
