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

use super::{cross2, perp, v2};
use crate::layout::{BodyFrame, BodyInfo, LARGE_BODY_THREADS, Member, PointInfo, SimParams};
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

/// The frame from the two sums (shared by the small and large reductions).
fn finish(body: &BodyInfo, c: Vec2, vel: Vec2, fit: Fit) -> BodyFrame {
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
        stiffness: body.stiffness,
        damping: body.damping,
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
    finish(body, c, vc, fit)
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
    finish(body, c, vc, tree_reduce(partial, Fit::add))
}

/// Every body's frame from `(pos, vel)`; small bodies (the first
/// `num_small_bodies` of `body_order`) one way, large ones the other.
#[allow(clippy::too_many_arguments)]
pub fn frames(
    sim: &SimParams,
    info: &[PointInfo],
    bodies: &[BodyInfo],
    members: &[Member],
    body_order: &[u32],
    pos: &[[f32; 2]],
    vel: &[[f32; 2]],
    frames_out: &mut [BodyFrame],
) {
    let small = sim.num_small_bodies as usize;
    let total = small + sim.num_large_bodies as usize;
    for (k, &b) in body_order[..total].iter().enumerate() {
        let body = &bodies[b as usize];
        frames_out[b as usize] = if k < small {
            frame_small(body, info, members, pos, vel)
        } else {
            frame_large(body, info, members, pos, vel)
        };
    }
}

/// The velocity change body frame `f` asks of a point at `p` moving at `v`
/// whose rest offset in the body is `q`: a pull toward its target
/// `c + R q` plus relaxation toward the body's rigid motion.
#[inline]
pub fn member_dv(f: &BodyFrame, q: Vec2, p: Vec2, v: Vec2, h: f32) -> Vec2 {
    let (cos, sin) = (f.rot[0], f.rot[1]);
    let c = v2(f.centroid);
    let target = c + Vec2::new(cos * q.x - sin * q.y, sin * q.x + cos * q.y);
    let rigid = v2(f.vel) + perp(p - c) * f.omega;
    (target - p) * (f.stiffness * h) + (rigid - v) * (1.0 - (-f.damping * h).exp())
}

/// Every point gathers the contributions of the bodies it belongs to,
/// from `(pos_in, vel_in)`; pinned points do not move.
#[allow(clippy::too_many_arguments)]
pub fn apply(
    sim: &SimParams,
    info: &[PointInfo],
    members: &[Member],
    adj: &Adjacency,
    frames: &[BodyFrame],
    pos_in: &[[f32; 2]],
    vel_in: &[[f32; 2]],
    pos_out: &mut [[f32; 2]],
    vel_out: &mut [[f32; 2]],
) {
    for i in 0..sim.num_points as usize {
        let p = v2(pos_in[i]);
        let v = v2(vel_in[i]);
        let mut dv = Vec2::ZERO;
        for &m in adj.of(i) {
            let mem = &members[m as usize];
            dv += member_dv(&frames[mem.body as usize], v2(mem.rest), p, v, sim.h);
        }
        if info[i].inv_mass == 0.0 {
            dv = Vec2::ZERO;
        }
        pos_out[i] = pos_in[i];
        vel_out[i] = (v + dv).to_array();
    }
}
