//! Stage 3b, mirror of `shaders/rods.wgsl`: one Jacobi iteration of hard
//! distance constraints (Lisitsa's hard constraint, Firth's
//! impulse-level distance constraint), averaged per point with mass
//! splitting.

use glam::Vec2;

use super::{par, safe_dir, v2};
use crate::layout::{HALF_INDEX, HALF_IS_B, PointInfo, SimParams};
use crate::pack::HalfSprings;

/// The full projection a rod asks of its ends: `(dp_a, dv_a, dp_b, dv_b)`
/// restoring the rest length and removing the relative velocity along the
/// rod, split by inverse mass. `None` when both ends are pinned.
#[inline]
pub fn rod_deltas(
    rest: f32,
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
    let dp = dir * ((rest - dist) / w);
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
    halves: &HalfSprings,
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
            let (mut p, mut v) = (v2(pos_in[i]), v2(vel_in[i]));
            let count = halves.count(i);
            let w = info[i].inv_mass * count as f32;
            let mut dp = Vec2::ZERO;
            let mut dv = Vec2::ZERO;
            for s in halves.of(i) {
                let o = (s.other & HALF_INDEX) as usize;
                let wo = info[o].inv_mass * halves.count(o) as f32;
                let (po, vo) = (v2(pos_in[o]), v2(vel_in[o]));
                if s.other & HALF_IS_B == 0 {
                    if let Some((dpa, dva, _, _)) = rod_deltas(s.rest, p, po, v, vo, w, wo) {
                        dp += dpa;
                        dv += dva;
                    }
                } else if let Some((_, _, dpb, dvb)) = rod_deltas(s.rest, po, p, vo, v, wo, w) {
                    dp += dpb;
                    dv += dvb;
                }
            }
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
