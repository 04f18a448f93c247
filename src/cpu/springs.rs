//! Stage 3a, mirror of `shaders/springs.wgsl`: force springs and soft
//! distance constraints (seed 001), Jacobi, gathered per point from the
//! point's own spring records.

use glam::Vec2;

use super::{par, safe_dir, v2};
use crate::layout::{HALF_INDEX, HALF_IS_B, HALF_SOFT, HalfSpring, PointInfo, SimParams};
use crate::pack::HalfSprings;

/// The position and velocity changes a spring or soft constraint gives its
/// two ends `(dp_a, dv_a, dp_b, dv_b)`, from the state at the start of the
/// stage. Both ends evaluate this same function on the same inputs in the
/// same order, so the two halves are exactly opposite impulses. The
/// record's coefficients are those of the substep (see [`HalfSpring`]).
#[inline]
pub fn spring_deltas(
    s: &HalfSpring,
    pa: Vec2,
    pb: Vec2,
    va: Vec2,
    vb: Vec2,
    wa: f32,
    wb: f32,
) -> (Vec2, Vec2, Vec2, Vec2) {
    let w = wa + wb;
    if w == 0.0 {
        return (Vec2::ZERO, Vec2::ZERO, Vec2::ZERO, Vec2::ZERO);
    }
    let d = pb - pa;
    let dist = d.length();
    let dir = safe_dir(d, dist);
    let err = s.rest - dist;
    if s.other & HALF_SOFT == 0 {
        // Force along the spring, then damping of the relative velocity
        // along it, split by inverse mass (seed 001, with its slip fixed).
        let impulse = dir * (s.pull * err);
        let mut dva = -impulse * wa;
        let mut dvb = impulse * wb;
        let vrel = ((vb + dvb) - (va + dva)).dot(dir);
        let change = vrel * s.damp;
        dva -= dir * (change * wa / w);
        dvb += dir * (change * wb / w);
        (Vec2::ZERO, dva, Vec2::ZERO, dvb)
    } else {
        // Soft constraint: close the fraction alpha of the length error and
        // of the relative velocity along the constraint.
        let alpha = s.pull;
        let dp = dir * (err * alpha / w);
        let vrel = (vb - va).dot(dir);
        let dv = dir * (vrel * alpha / w);
        (-dp * wa, dv * wa, dp * wb, -dv * wb)
    }
}

/// Every point sums the changes of the springs and soft constraints that
/// touch it, all computed from `(pos_in, vel_in)`.
#[allow(clippy::too_many_arguments)]
pub fn springs(
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
            let p = v2(pos_in[i]);
            let v = v2(vel_in[i]);
            let w = info[i].inv_mass;
            let mut dp = Vec2::ZERO;
            let mut dv = Vec2::ZERO;
            for s in halves.of(i) {
                let o = (s.other & HALF_INDEX) as usize;
                let (po, vo, wo) = (v2(pos_in[o]), v2(vel_in[o]), info[o].inv_mass);
                if s.other & HALF_IS_B == 0 {
                    let (dpa, dva, _, _) = spring_deltas(s, p, po, v, vo, w, wo);
                    dp += dpa;
                    dv += dva;
                } else {
                    let (_, _, dpb, dvb) = spring_deltas(s, po, p, vo, v, wo, w);
                    dp += dpb;
                    dv += dvb;
                }
            }
            *pos_out = (p + dp).to_array();
            *vel_out = (v + dv).to_array();
        },
    );
}
