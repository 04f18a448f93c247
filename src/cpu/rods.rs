//! Stage 3b, mirror of `shaders/rods.wgsl`: one Jacobi iteration of hard
//! distance constraints (seed 001's hard constraint, seed 003's
//! impulse-level distance constraint), averaged per point.

use glam::Vec2;

use super::{par, safe_dir, v2};
use crate::layout::{PointInfo, SimParams, SpringInfo};
use crate::pack::Adjacency;

/// The full projection a rod asks of its ends: `(dp_a, dv_a, dp_b, dv_b)`
/// restoring the rest length and removing the relative velocity along the
/// rod, split by inverse mass. `None` when both ends are pinned.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn rod_deltas(
    s: &SpringInfo,
    pa: Vec2,
    pb: Vec2,
    va: Vec2,
    vb: Vec2,
    wa: f32,
    wb: f32,
) -> Option<(Vec2, Vec2, Vec2, Vec2)> {
    let w = wa + wb;
    if w == 0.0 {
        return None;
    }
    let d = pb - pa;
    let dist = d.length();
    let dir = safe_dir(d, dist);
    let dp = dir * ((s.rest - dist) / w);
    let dv = dir * ((vb - va).dot(dir) / w);
    Some((-dp * wa, dv * wa, dp * wb, -dv * wb))
}

/// One iteration with mass splitting: every point moves by the average of
/// its rods' projections, and each rod splits its correction as if its ends
/// had inverse masses `w n` (`n` rods at that end), so both halves of every
/// rod's impulse are equal and opposite and a chain conserves momentum.
#[allow(clippy::too_many_arguments)]
pub fn rods(
    sim: &SimParams,
    info: &[PointInfo],
    springs: &[SpringInfo],
    adj: &Adjacency,
    pos_in: &[[f32; 2]],
    vel_in: &[[f32; 2]],
    pos_out: &mut [[f32; 2]],
    vel_out: &mut [[f32; 2]],
    parallel: bool,
) {
    let n = sim.num_points as usize;
    par::zip_mut(
        parallel,
        &mut pos_out[..n],
        &mut vel_out[..n],
        |i, pos_out, vel_out| {
            let mut dp = Vec2::ZERO;
            let mut dv = Vec2::ZERO;
            for &j in adj.of(i) {
                let s = &springs[j as usize];
                let (a, b) = (s.a as usize, s.b as usize);
                let Some((dpa, dva, dpb, dvb)) = rod_deltas(
                    s,
                    v2(pos_in[a]),
                    v2(pos_in[b]),
                    v2(vel_in[a]),
                    v2(vel_in[b]),
                    info[a].inv_mass * adj.count(a) as f32,
                    info[b].inv_mass * adj.count(b) as f32,
                ) else {
                    continue;
                };
                if a == i {
                    dp += dpa;
                    dv += dva;
                } else {
                    dp += dpb;
                    dv += dvb;
                }
            }
            let (mut p, mut v) = (v2(pos_in[i]), v2(vel_in[i]));
            let count = adj.count(i);
            if count > 0 {
                let inv = 1.0 / count as f32;
                p += dp * inv;
                v += dv * inv;
            }
            *pos_out = p.to_array();
            *vel_out = v.to_array();
        },
    );
}
