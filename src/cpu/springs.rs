//! Stage 3a, mirror of `shaders/springs.wgsl`: force springs and soft
//! distance constraints (Lisitsa 2023), Jacobi, gathered per point from the
//! point's own spring records.

use glam::Vec2;

use super::{par, safe_dir, v2};
use crate::layout::{HALF_INDEX, HALF_IS_B, HALF_SOFT, HalfSpring, PointInfo, SimParams};
use crate::pack::HalfSprings;

/// The change `(dp, dv)` a spring or soft constraint gives its end `b` per
/// unit of that end's inverse mass, from the state at the start of the
/// stage; end `a` gets the opposite change times its own inverse mass. Both
/// ends evaluate this same function on the same inputs in the same order,
/// so the two halves are exactly opposite impulses. The record's
/// coefficients are those of the substep (see [`HalfSpring::coefficients`]:
/// a force spring's pull is `k h E`, its damping and a soft constraint's
/// pull are already divided by the spring's summed inverse mass).
#[inline]
pub fn spring_push(s: &HalfSpring, pa: Vec2, pb: Vec2, va: Vec2, vb: Vec2) -> (Vec2, Vec2) {
    let d = pb - pa;
    let dist = d.length();
    let dir = safe_dir(d, dist);
    let err = s.rest - dist;
    let vrel = (vb - va).dot(dir);
    if s.other & HALF_SOFT == 0 {
        // Force along the spring, then damping of the relative velocity
        // along it, split by inverse mass (Lisitsa 2023, with its slip fixed),
        // in one impulse per unit inverse mass (docs/physics.md).
        (Vec2::ZERO, dir * (s.pull * err + s.damp * vrel))
    } else {
        // Soft constraint: close the fraction alpha of the length error and
        // of the relative velocity along the constraint.
        (dir * (err * s.pull), -dir * (vrel * s.pull))
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
            // A pinned or sleeping point takes no change: its springs are
            // not evaluated (the other ends evaluate them for themselves).
            let mine = if w == 0.0 { &[][..] } else { halves.of(i) };
            for s in mine {
                let o = (s.other & HALF_INDEX) as usize;
                let (po, vo) = (v2(pos_in[o]), v2(vel_in[o]));
                if s.other & HALF_IS_B == 0 {
                    let (gp, gv) = spring_push(s, p, po, v, vo);
                    dp -= gp;
                    dv -= gv;
                } else {
                    let (gp, gv) = spring_push(s, po, p, vo, v);
                    dp += gp;
                    dv += gv;
                }
            }
            // Per unit inverse mass until here.
            let (dp, dv) = (dp * w, dv * w);
            *pos_out = (p + dp).to_array();
            *vel_out = (v + dv).to_array();
        },
    );
}
