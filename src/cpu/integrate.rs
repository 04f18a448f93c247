//! Stage 1, mirror of `shaders/integrate.wgsl`: symplectic Euler (Lisitsa 2023).

use super::{par, v2};
use crate::layout::{PointInfo, SimParams};

/// `v += g h; p += v h` for every point that is not pinned; pinned points
/// get zero velocity (whatever `set_state` gave them).
pub fn integrate(
    sim: &SimParams,
    info: &[PointInfo],
    pos: &mut [[f32; 2]],
    vel: &mut [[f32; 2]],
    parallel: bool,
) {
    let g = v2(sim.gravity);
    let n = sim.num_points as usize;
    par::zip_mut(parallel, &mut pos[..n], &mut vel[..n], |i, p, v| {
        if info[i].inv_mass == 0.0 {
            *v = [0.0; 2];
            return;
        }
        let nv = v2(*v) + g * sim.h;
        *p = (v2(*p) + nv * sim.h).to_array();
        *v = nv.to_array();
    });
}
