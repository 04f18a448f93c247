//! Stage 6, mirror of `shaders/sleep.wgsl`: sleeping, once per step after
//! the last substep. Assemblies (points joined by bodies, springs or rods)
//! are the islands: each counts the steps its points have stayed near
//! their anchors (within `SLEEP_WINDOW sleep_speed dt`, the anchors taken
//! again every `SLEEP_WINDOW` steps at rest), and once that reaches
//! `sleep_steps` its points
//! sleep, as pinned points (inverse mass 0, velocity 0) until a contact
//! that approaches faster than the wake speed, or an edit, wakes them.

use crate::layout::{PointInfo, SLEEP_WINDOW, SimParams, SleepPoint};

/// The bits of the squared distance from `last` to `p`, which order as the
/// values do for values `>= 0` (WGSL `atomicMax` on them).
#[inline]
pub fn motion_bits(p: [f32; 2], last: [f32; 2]) -> u32 {
    let (dx, dy) = (p[0] - last[0], p[1] - last[1]);
    (dx * dx + dy * dy).to_bits()
}

/// Every point raises its assembly's largest squared motion from its
/// anchor (WGSL `measure`); the maximum does not depend on the order.
pub fn measure(
    sim: &SimParams,
    pos: &[[f32; 2]],
    points: &[SleepPoint],
    last: &[[f32; 2]],
    speed: &mut [u32],
) {
    let n = sim.num_points as usize;
    for ((p, sp), last) in pos[..n].iter().zip(points).zip(last) {
        let s = &mut speed[sp.group as usize];
        *s = (*s).max(motion_bits(*p, *last));
    }
}

/// Each assembly's root counts the steps at rest, or starts again, and
/// clears its speed (WGSL `update`).
pub fn update(sim: &SimParams, points: &[SleepPoint], speed: &mut [u32], rest_steps: &mut [u32]) {
    for (i, sp) in points[..sim.num_points as usize].iter().enumerate() {
        if sp.group as usize != i {
            continue;
        }
        let fastest = std::mem::take(&mut speed[i]);
        rest_steps[i] = if fastest < sim.sleep_motion_sq.to_bits() {
            (rest_steps[i] + 1).min(sim.sleep_steps)
        } else {
            0
        };
    }
}

/// Whether an assembly that has rested `steps` steps sleeps (WGSL
/// `sleeps`).
#[inline]
pub fn asleep(sim: &SimParams, steps: u32) -> bool {
    sim.sleep_steps > 0 && steps >= sim.sleep_steps
}

/// The points of sleeping assemblies lose their inverse mass and their
/// velocity; the others get their own inverse mass back. A point whose
/// assembly's count is a multiple of `SLEEP_WINDOW` (0 included) takes
/// its position as its anchor (WGSL `settle`).
pub fn settle(
    sim: &SimParams,
    points: &[SleepPoint],
    rest_steps: &[u32],
    info: &mut [PointInfo],
    pos: &[[f32; 2]],
    vel: &mut [[f32; 2]],
    last: &mut [[f32; 2]],
) {
    let n = sim.num_points as usize;
    for (i, (sp, info)) in points[..n].iter().zip(&mut info[..n]).enumerate() {
        let steps = rest_steps[sp.group as usize];
        let sleeps = asleep(sim, steps);
        info.inv_mass = if sleeps { 0.0 } else { sp.inv_mass };
        if sleeps {
            vel[i] = [0.0; 2];
        }
        if steps.is_multiple_of(SLEEP_WINDOW) {
            last[i] = pos[i];
        }
    }
}

/// Every point gets its own inverse mass back, every assembly starts
/// counting again, and motion is measured from `pos` (WGSL `wake`).
pub fn wake(
    sim: &SimParams,
    pos: &[[f32; 2]],
    points: &[SleepPoint],
    info: &mut [PointInfo],
    last: &mut [[f32; 2]],
    speed: &mut [u32],
    rest_steps: &mut [u32],
) {
    let n = sim.num_points as usize;
    for (info, sp) in info[..n].iter_mut().zip(points) {
        info.inv_mass = sp.inv_mass;
    }
    last[..n].copy_from_slice(&pos[..n]);
    speed[..n].fill(0);
    rest_steps[..n].fill(0);
}

/// Points asleep in `info` (the solver's point info), from the packed
/// `own` one: inverse mass 0 where their own is not (pinned points do not
/// count).
pub fn sleeping_points(info: &[PointInfo], own: &[PointInfo]) -> usize {
    info.iter()
        .zip(own)
        .filter(|(now, own)| now.inv_mass == 0.0 && own.inv_mass != 0.0)
        .count()
}

/// Points that move now: neither pinned nor asleep (inverse mass above
/// zero in the point info the stages read).
pub fn awake_points(info: &[PointInfo]) -> usize {
    info.iter().filter(|p| p.inv_mass != 0.0).count()
}
