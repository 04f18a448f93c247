//! Stage 4, mirror of `shaders/shape_match.wgsl`: shape matching with
//! damping toward rigid motion (seed 001), in two kernels.
//!
//! `frames` reduces each body to its best-fit rigid frame: weighted centroid
//! and velocity, rotation `theta = -atan2(sum w r x q, sum w r . q)` kept as
//! `(cos, sin)`, and angular velocity `L / I`. Small bodies are reduced by one
//! thread each; large ones by a workgroup, whose strided partial sums and
//! tree reduction are reproduced here in the same order.
//!
//! `apply` gathers, per point, the contributions of every body it belongs to.

use glam::Vec2;

use super::{cross2, par, perp, v2};
use crate::layout::{
    BodyFrame, BodyInfo, LARGE_BODY_THREADS, Member, PointInfo, SMALL_BODY_MAX_POINTS, SimParams,
};
use crate::pack::Adjacency;

/// Sums below this count as zero when choosing a rotation or an angular
/// velocity (a collapsed body keeps the identity rotation, never NaN).
pub const TINY_SUM: f32 = 1e-30;

/// First-pass sums: weight, weighted position, weighted velocity.
#[derive(Clone, Copy, Default)]
struct Moments {
    w: f32,
    wp: Vec2,
    wv: Vec2,
}

impl Moments {
    fn of(w: f32, p: Vec2, v: Vec2) -> Self {
        Self {
            w,
            wp: p * w,
            wv: v * w,
        }
    }
    fn add(self, o: Self) -> Self {
        Self {
            w: self.w + o.w,
            wp: self.wp + o.wp,
            wv: self.wv + o.wv,
        }
    }
}

/// Second-pass sums about the centroid: `sum w r.q`, `sum w r x q`,
/// `sum w r x (v - V)`, `sum w |r|^2`.
#[derive(Clone, Copy, Default)]
struct Fit {
    a: f32,
    b: f32,
    l: f32,
    i: f32,
}

impl Fit {
    fn of(w: f32, r: Vec2, q: Vec2, dv: Vec2) -> Self {
        Self {
            a: w * r.dot(q),
            b: w * cross2(r, q),
            l: w * cross2(r, dv),
            i: w * r.dot(r),
        }
    }
    fn add(self, o: Self) -> Self {
        Self {
            a: self.a + o.a,
            b: self.b + o.b,
            l: self.l + o.l,
            i: self.i + o.i,
        }
    }
}

/// The frame from the two sums (shared by the small and large reductions),
/// with the body's per-substep coefficients `pull = k h` and
/// `relax = 1 - exp(-c h)` computed once here rather than per point.
fn finish(body: &BodyInfo, h: f32, c: Vec2, vel: Vec2, fit: Fit) -> BodyFrame {
    let m = fit.a.abs().max(fit.b.abs());
    let rot = if m > TINY_SUM {
        let (a, b) = (fit.a / m, fit.b / m);
        let len = (a * a + b * b).sqrt();
        [a / len, -b / len]
    } else {
        [1.0, 0.0]
    };
    let omega = if fit.i > TINY_SUM { fit.l / fit.i } else { 0.0 };
    BodyFrame {
        centroid: c.to_array(),
        vel: vel.to_array(),
        rot,
        omega,
        pull: body.stiffness * h,
        relax: 1.0 - (-body.damping * h).exp(),
        _pad: 0,
    }
}

fn member_state(
    m: &Member,
    info: &[PointInfo],
    pos: &[[f32; 2]],
    vel: &[[f32; 2]],
) -> (f32, Vec2, Vec2) {
    let p = m.point as usize;
    (info[p].weight, v2(pos[p]), v2(vel[p]))
}

/// One body reduced sequentially (WGSL `frames`, one thread per body).
pub fn frame_small(
    h: f32,
    body: &BodyInfo,
    info: &[PointInfo],
    members: &[Member],
    pos: &[[f32; 2]],
    vel: &[[f32; 2]],
) -> BodyFrame {
    let ms = &members[body.first as usize..(body.first + body.count) as usize];
    let mut mo = Moments::default();
    for m in ms {
        let (w, p, v) = member_state(m, info, pos, vel);
        mo = mo.add(Moments::of(w, p, v));
    }
    let c = mo.wp / mo.w;
    let vc = mo.wv / mo.w;
    let mut fit = Fit::default();
    for m in ms {
        let (w, p, v) = member_state(m, info, pos, vel);
        fit = fit.add(Fit::of(w, p - c, v2(m.rest), v - vc));
    }
    finish(body, h, c, vc, fit)
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
    info: &[PointInfo],
    members: &[Member],
    pos: &[[f32; 2]],
    vel: &[[f32; 2]],
) -> BodyFrame {
    let threads = LARGE_BODY_THREADS as usize;
    let ms = &members[body.first as usize..(body.first + body.count) as usize];
    let partial = (0..threads)
        .map(|t| {
            let mut mo = Moments::default();
            for m in ms.iter().skip(t).step_by(threads) {
                let (w, p, v) = member_state(m, info, pos, vel);
                mo = mo.add(Moments::of(w, p, v));
            }
            mo
        })
        .collect();
    let mo = tree_reduce(partial, Moments::add);
    let c = mo.wp / mo.w;
    let vc = mo.wv / mo.w;
    let partial = (0..threads)
        .map(|t| {
            let mut fit = Fit::default();
            for m in ms.iter().skip(t).step_by(threads) {
                let (w, p, v) = member_state(m, info, pos, vel);
                fit = fit.add(Fit::of(w, p - c, v2(m.rest), v - vc));
            }
            fit
        })
        .collect();
    finish(body, h, c, vc, tree_reduce(partial, Fit::add))
}

/// Every body's frame from `(pos, vel)`: bodies of at most
/// `SMALL_BODY_MAX_POINTS` points as by one thread (WGSL `frames`), larger
/// ones as by a workgroup (WGSL `frames_large`); `body_order` lists them in
/// that split.
#[allow(clippy::too_many_arguments)]
pub fn frames(
    sim: &SimParams,
    info: &[PointInfo],
    bodies: &[BodyInfo],
    members: &[Member],
    pos: &[[f32; 2]],
    vel: &[[f32; 2]],
    frames_out: &mut [BodyFrame],
    parallel: bool,
) {
    let n = sim.num_bodies as usize;
    par::map(parallel, &mut frames_out[..n], |b| {
        let body = &bodies[b];
        if body.count <= SMALL_BODY_MAX_POINTS {
            frame_small(sim.h, body, info, members, pos, vel)
        } else {
            frame_large(sim.h, body, info, members, pos, vel)
        }
    });
}

/// The velocity change body frame `f` asks of a point at `p` moving at `v`
/// whose rest offset in the body is `q`: a pull toward its target
/// `c + R q` plus relaxation toward the body's rigid motion.
#[inline]
pub fn member_dv(f: &BodyFrame, q: Vec2, p: Vec2, v: Vec2) -> Vec2 {
    let (cos, sin) = (f.rot[0], f.rot[1]);
    let c = v2(f.centroid);
    let target = c + Vec2::new(cos * q.x - sin * q.y, sin * q.x + cos * q.y);
    let rigid = v2(f.vel) + perp(p - c) * f.omega;
    (target - p) * f.pull + (rigid - v) * f.relax
}

/// Every point gathers the contributions of the bodies it belongs to. The
/// frames already hold everything read from other points, so each point
/// reads only its own state and the update is in place; pinned points do
/// not move.
#[allow(clippy::too_many_arguments)]
pub fn apply(
    sim: &SimParams,
    info: &[PointInfo],
    members: &[Member],
    adj: &Adjacency,
    frames: &[BodyFrame],
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
        for &m in adj.of(i) {
            let mem = &members[m as usize];
            dv += member_dv(&frames[mem.body as usize], v2(mem.rest), p, v);
        }
        *vel = (v + dv).to_array();
    });
}
