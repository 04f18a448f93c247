//! Stage 1, mirror of `shaders/integrate.wgsl`: symplectic Euler (seed 001).

use super::v2;
use crate::layout::{PointInfo, SimParams};

/// `v += g h; p += v h` for every point that is not pinned; pinned points
/// get zero velocity (whatever `set_state` gave them).
pub fn integrate(sim: &SimParams, info: &[PointInfo], pos: &mut [[f32; 2]], vel: &mut [[f32; 2]]) {
    let g = v2(sim.gravity);
    for i in 0..sim.num_points as usize {
        if info[i].inv_mass == 0.0 {
            vel[i] = [0.0; 2];
            continue;
        }
        let v = v2(vel[i]) + g * sim.h;
        let p = v2(pos[i]) + v * sim.h;
        vel[i] = v.to_array();
        pos[i] = p.to_array();
    }
}
