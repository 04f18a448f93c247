//! Stage 6, mirror of `shaders/sleep.wgsl`: sleeping, once per step after
//! the last substep. Assemblies (points joined by bodies, springs or rods)
//! are the islands: each counts the steps its points have stayed near
//! their anchors (within `SLEEP_WINDOW sleep_speed dt`, the anchors taken
//! again every `SLEEP_WINDOW` steps at rest), and once that reaches
//! `sleep_steps` its points
//! sleep, as pinned points (inverse mass 0, velocity 0) until a contact
//! that approaches faster than the wake speed, or an edit, wakes them.

use super::collide::near_moving_collider;
use super::v2;
use crate::layout::{
    BodyOutline, ContactHit, PlaneInfo, PlanetInfo, PointInfo, SLEEP_TOUCHED, SLEEP_WAKE,
    SLEEP_WINDOW, SimParams, SleepPoint, TOUCH_MOTION,
};
use crate::world::{Remap, Removal};

/// The bits of the squared distance from `last` to `p`, which order as the
/// values do for values `>= 0` (WGSL `atomicMax` on them).
#[inline]
pub fn motion_bits(p: [f32; 2], last: [f32; 2]) -> u32 {
    let (dx, dy) = (p[0] - last[0], p[1] - last[1]);
    (dx * dx + dy * dy).to_bits()
}

/// The colliders sleeping's measure tests for moving ones, with the
/// points' layers.
pub struct MovingColliders<'a> {
    pub info: &'a [PointInfo],
    pub planets: &'a [PlanetInfo],
    pub planes: &'a [PlaneInfo],
}

/// Every point raises its assembly's largest squared motion from its
/// anchor (WGSL `measure`); the maximum does not depend on the order.
/// A kinematic body's point that moves (a pinned point with a velocity:
/// its assembly never sleeps while it moves, as sleeping would zero the
/// velocities its motion lives in) and, with `moving` (a world where a
/// planet or half-plane moves), a point that a moving collider's surface
/// reaches within a step (`cpu::collide::near_moving_collider`) report
/// [`SLEEP_WAKE`] instead.
pub fn measure(
    sim: &SimParams,
    (pos, vel): (&[[f32; 2]], &[[f32; 2]]),
    points: &[SleepPoint],
    last: &[[f32; 2]],
    speed: &mut [u32],
    moving: Option<MovingColliders>,
) {
    let n = sim.num_points as usize;
    for (i, ((p, sp), last)) in pos[..n].iter().zip(points).zip(last).enumerate() {
        let s = &mut speed[sp.group as usize];
        let kinematic = sp.inv_mass == 0.0 && vel[i] != [0.0; 2];
        let near = kinematic
            || moving.as_ref().is_some_and(|m| {
                near_moving_collider(sim, m.info[i].layers, v2(*p), m.planets, m.planes)
            });
        *s = (*s).max(if near {
            SLEEP_WAKE
        } else {
            motion_bits(*p, *last)
        });
    }
}

/// Whether assembly `g` moved this step (WGSL `moved`): its measured
/// motion, a touch's flag masked off, is [`TOUCH_MOTION`] times the rest
/// limit or more.
#[inline]
fn moved(sim: &SimParams, speed: &[u32], g: u32) -> bool {
    let limit = TOUCH_MOTION * TOUCH_MOTION * sim.sleep_motion_sq;
    speed[g as usize] & !SLEEP_TOUCHED >= limit.to_bits()
}

/// An awake point's support after this step (WGSL `next_support`): the
/// body of its contact `hit`, or without one its support `old` still,
/// while the point at `p` stays within the rest window's reach
/// (`sqrt(sleep_motion_sq)`) of that body's box (`aabbs`, the broad
/// phase's): a point resting on a body finds the contact in some substeps
/// and not in others.
pub fn next_support(sim: &SimParams, aabbs: &[[f32; 4]], hit: u32, old: u32, p: [f32; 2]) -> u32 {
    if hit < sim.num_bodies || old >= sim.num_bodies {
        return hit;
    }
    let reach = sim.sleep_motion_sq.sqrt();
    let bb = aabbs[old as usize];
    let inside = p[0] >= bb[0] - reach
        && p[1] >= bb[1] - reach
        && p[0] <= bb[2] + reach
        && p[1] <= bb[3] + reach;
    if inside { old } else { u32::MAX }
}

/// Motion passes through contacts (WGSL `touch`, between measure and
/// update): where a point's contact (`hits`, the last narrow phase's) or a
/// sleeping point's support joins an assembly that moved this step to one
/// that slept, the sleeper's speed word gets [`SLEEP_TOUCHED`], so update
/// wakes it. An awake point's support becomes its contact's body (or
/// none). Every test reads the motions as measure left them and the
/// counts as the last update did, so the flags do not depend on the order.
#[allow(clippy::too_many_arguments)]
pub fn touch(
    sim: &SimParams,
    pos: &[[f32; 2]],
    points: &[SleepPoint],
    rest_steps: &[u32],
    hits: &[ContactHit],
    outlines: &[BodyOutline],
    aabbs: &[[f32; 4]],
    support: &mut [u32],
    speed: &mut [u32],
) {
    let slept = |g: u32| asleep(sim, rest_steps[g as usize]);
    let n = sim.num_points as usize;
    let nb = sim.num_bodies;
    // The flag is masked off where motion is read: set in place, it
    // changes no later test.
    for (i, (sp, hit)) in points[..n].iter().zip(&hits[..n]).enumerate() {
        let gi = sp.group;
        let sleeping = slept(gi);
        let b = hit.body;
        if !sleeping {
            support[i] = next_support(sim, aabbs, b, support[i], pos[i]);
        }
        if b < nb {
            let gb = outlines[b as usize].group;
            if moved(sim, speed, gi) && slept(gb) {
                speed[gb as usize] |= SLEEP_TOUCHED;
            }
            if sleeping && moved(sim, speed, gb) {
                speed[gi as usize] |= SLEEP_TOUCHED;
            }
        }
        let s = support[i];
        if sleeping && s < nb && moved(sim, speed, outlines[s as usize].group) {
            speed[gi as usize] |= SLEEP_TOUCHED;
        }
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
/// its position as its anchor (WGSL `settle`). With `listed`, those
/// points alone (WGSL `settle_listed`): after a removal followed in
/// place, those whose info the GPU solver wrote from its mirror
/// (`Changed::noted_points`); every other point is as the last step's
/// settle left it, and an assembly the removal woke gets its points'
/// inverse masses back at the next step's end, as any woken one.
#[allow(clippy::too_many_arguments)]
pub fn settle(
    sim: &SimParams,
    listed: Option<&[u32]>,
    points: &[SleepPoint],
    rest_steps: &[u32],
    info: &mut [PointInfo],
    pos: &[[f32; 2]],
    vel: &mut [[f32; 2]],
    last: &mut [[f32; 2]],
) {
    let n = sim.num_points as usize;
    // One point (WGSL `settle_point`).
    let mut one = |i: usize| {
        let sp = points[i];
        let steps = rest_steps[sp.group as usize];
        let sleeps = asleep(sim, steps);
        info[i].inv_mass = if sleeps { 0.0 } else { sp.inv_mass };
        if sleeps {
            vel[i] = [0.0; 2];
        }
        if steps.is_multiple_of(SLEEP_WINDOW) {
            last[i] = pos[i];
        }
    };
    match listed {
        Some(listed) => (listed.iter().map(|&i| i as usize))
            .filter(|&i| i < n)
            .for_each(&mut one),
        None => (0..n).for_each(one),
    }
}

/// The points of a sleeping assembly that a contact flagged this step
/// ([`SLEEP_WAKE`] in `speed`) get their own inverse mass back, anchored
/// where they are, and the assembly starts counting again; the flag stays
/// for [`update`] (WGSL `wake_flagged`, at the start of each substep of a
/// world with kinematic bodies).
pub fn wake_flagged(
    sim: &SimParams,
    pos: &[[f32; 2]],
    points: &[SleepPoint],
    speed: &[u32],
    rest_steps: &mut [u32],
    info: &mut [PointInfo],
    last: &mut [[f32; 2]],
) {
    let n = sim.num_points as usize;
    for (i, sp) in points[..n].iter().enumerate() {
        if speed[sp.group as usize] < SLEEP_WAKE {
            continue;
        }
        if sp.group as usize == i {
            rest_steps[i] = 0;
        }
        if info[i].inv_mass == 0.0 && sp.inv_mass != 0.0 {
            info[i].inv_mass = sp.inv_mass;
            last[i] = pos[i];
        }
    }
}

/// Every point gets its own inverse mass back, every assembly starts
/// counting again, motion is measured from `pos`, and no point has a
/// support (WGSL `wake`).
#[allow(clippy::too_many_arguments)]
pub fn wake(
    sim: &SimParams,
    pos: &[[f32; 2]],
    points: &[SleepPoint],
    info: &mut [PointInfo],
    last: &mut [[f32; 2]],
    speed: &mut [u32],
    rest_steps: &mut [u32],
    support: &mut [u32],
) {
    let n = sim.num_points as usize;
    for (info, sp) in info[..n].iter_mut().zip(points) {
        info.inv_mass = sp.inv_mass;
    }
    last[..n].copy_from_slice(&pos[..n]);
    speed[..n].fill(0);
    rest_steps[..n].fill(0);
    support[..n].fill(u32::MAX);
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

/// Whether an edit that appended points `from..` to `old`, giving `new`,
/// keeps what slept asleep: sleeping is on, and the points there already
/// keep their assemblies and inverse masses (a new point joined to an old
/// assembly wakes that assembly, [`joined_assemblies`]). The new points
/// start awake; the old ones wake when something touches them.
pub fn keeps_sleeping(old: &crate::pack::Packed, new: &crate::pack::Packed, from: usize) -> bool {
    let (o, n) = (old.sleep_points(), new.sleep_points());
    new.sim.sleep_steps > 0 && o.len() == from && n.len() >= from && o[..] == n[..from]
}

/// The old assemblies (roots below `from`) that the points appended from
/// `from` on (`appended`, their records) joined, in order without repeats.
pub fn joined_assemblies(appended: impl Iterator<Item = SleepPoint>, from: usize) -> Vec<u32> {
    let mut roots: Vec<u32> = appended
        .map(|p| p.group)
        .filter(|&g| (g as usize) < from)
        .collect();
    roots.sort_unstable();
    roots.dedup();
    roots
}

/// Wakes assembly `g` as an edit's `wake_point` does.
fn wake_assembly(g: u32, speed: &mut [u32], rest_steps: &mut [u32]) {
    rest_steps[g as usize] = 0;
    speed[g as usize] = SLEEP_WAKE;
}

/// On a removal that keeps what sleeps, over the points before it: a kept
/// point's support follows its body to the body's new index; a support on
/// a removed body is dropped and the point's assembly wakes; a removed
/// point's support wakes that body's assembly (WGSL `remap_supports`;
/// the removal's maps as functions, old point and old body to new index
/// or [`Remap::REMOVED`]; `sim` and the rest the old ones).
pub fn remap_supports(
    sim: &SimParams,
    points: &[SleepPoint],
    outlines: &[BodyOutline],
    (point, body): (impl Fn(u32) -> u32, impl Fn(u32) -> u32),
    support: &mut [u32],
    speed: &mut [u32],
    rest_steps: &mut [u32],
) {
    let (n, nb) = (sim.num_points as usize, sim.num_bodies);
    for i in 0..n {
        let s = support[i];
        if s >= nb {
            continue;
        }
        let to = body(s);
        if point(i as u32) == Remap::REMOVED {
            if to != Remap::REMOVED {
                wake_assembly(outlines[s as usize].group, speed, rest_steps);
            }
            continue;
        }
        if to == Remap::REMOVED {
            support[i] = u32::MAX;
            wake_assembly(points[i].group, speed, rest_steps);
        } else {
            support[i] = to;
        }
    }
}

/// What a removal does to the assemblies (`old` and `new`, the sleeping
/// records before and after; `points`, the removal's map of points).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RemovalSleep {
    /// The assemblies the removal changed, by their root after it: those
    /// that lost a point, and those whose kept points no longer make one
    /// assembly, or one with others. Their sleep state is not theirs any
    /// more: they wake.
    pub wakes: Vec<u32>,
    /// The assemblies that are whole but whose root is another point now
    /// (the removal moved their points into removed ones' places), as
    /// `(old root's new index, new root)`: their count and speed word move
    /// to the new root, and they sleep on.
    pub moved: Vec<(u32, u32)>,
}

/// [`RemovalSleep`] of a removal.
pub fn removal_sleep(old: &[SleepPoint], new: &[SleepPoint], points: &Remap) -> RemovalSleep {
    removal_sleep_with(
        0..old.len() as u32,
        |i| old[i as usize],
        |i| new.get(i as usize).copied(),
        points,
        (Slots::Dense, Slots::Dense),
    )
}

/// [`removal_sleep`] over some assemblies alone: `olds` holds every old
/// point of them and no other, and `old` and `new` read a point's
/// sleeping record before and after the removal (`None` past the new
/// points). A removal never joins assemblies, so what their survivors
/// make after it holds no other point, and the rest of the world need not
/// be read: a removal whose every changed assembly is among them costs in
/// proportion to them.
pub fn removal_sleep_over(
    olds: &[u32],
    old: impl Fn(u32) -> SleepPoint,
    new: impl Fn(u32) -> Option<SleepPoint>,
    points: &Remap,
) -> RemovalSleep {
    let sorted = |mut ids: Vec<u32>| {
        ids.sort_unstable();
        ids.dedup();
        Slots::Sorted(ids)
    };
    let groups = sorted(olds.iter().map(|&i| old(i).group).collect());
    let roots = (olds.iter())
        .filter_map(|&i| Some(new(points.get(i)?)?.group))
        .collect();
    let slots = (groups, sorted(roots));
    removal_sleep_with(olds.iter().copied(), old, new, points, slots)
}

/// The old points of the assemblies a removal took or moved, when each
/// body it moved is its own assembly (`moved`, their indices in `new`, the
/// packed world after it, as `Packed::follow_plan` returns them): the
/// points it removed among the first `n0` and the moved bodies' points,
/// sorted, for [`removal_sleep_over`].
pub(crate) fn removed_or_moved_points(
    removal: &Removal,
    n0: usize,
    new: &crate::pack::Packed,
    moved: &[u32],
) -> Vec<u32> {
    let map = removal.point_remap();
    let mut olds: Vec<u32> = map.removed().filter(|&p| (p as usize) < n0).collect();
    olds.extend(moved_points(new, moved).filter_map(|p| map.old_of(p)));
    olds.sort_unstable();
    olds.dedup();
    olds
}

/// The points of bodies `moved` of `packed`, body by body.
pub(crate) fn moved_points<'a>(
    packed: &'a crate::pack::Packed,
    moved: &'a [u32],
) -> impl Iterator<Item = u32> + 'a {
    (moved.iter()).flat_map(|&b| {
        packed.members[packed.bodies[b as usize].span()]
            .iter()
            .map(|m| m.point)
    })
}

/// Where an assembly's record lies in [`removal_sleep_with`]'s tables: at
/// its root's index (`Dense`, every assembly), or at its place among the
/// roots it names (`Sorted`).
enum Slots {
    Dense,
    Sorted(Vec<u32>),
}

impl Slots {
    fn slot(&self, root: u32) -> usize {
        match self {
            Slots::Dense => root as usize,
            Slots::Sorted(ids) => ids.binary_search(&root).expect("a named root"),
        }
    }

    /// Slots for `dense` roots (`Dense`) or for those named.
    fn len(&self, dense: usize) -> usize {
        match self {
            Slots::Dense => dense,
            Slots::Sorted(ids) => ids.len(),
        }
    }
}

/// [`RemovalSleep`] of the assemblies whose old points `olds` are, their
/// records read by `old` and `new`, kept in tables laid out as `slots`
/// (old roots, new roots) say.
fn removal_sleep_with(
    olds: impl Iterator<Item = u32> + Clone,
    old: impl Fn(u32) -> SleepPoint,
    new: impl Fn(u32) -> Option<SleepPoint>,
    points: &Remap,
    (groups, roots): (Slots, Slots),
) -> RemovalSleep {
    const SPLIT: u32 = u32::MAX;
    let (old_len, new_len) = (points.old_len(), points.new_len());
    let now = |i: u32| new(points.get(i)?);
    // Each old assembly's root, whether it lost a point, its one new root
    // (or SPLIT) and its kept points.
    let mut root_of = vec![(0u32, false, Remap::REMOVED, 0u32); groups.len(old_len)];
    let mut size = vec![0u32; roots.len(new_len)];
    for i in olds.clone() {
        let g = old(i).group;
        let r = &mut root_of[groups.slot(g)];
        r.0 = g;
        match now(i) {
            None => r.1 = true,
            Some(now) => {
                size[roots.slot(now.group)] += 1;
                r.2 = match r.2 {
                    Remap::REMOVED => now.group,
                    same if same == now.group => same,
                    _ => SPLIT,
                };
                r.3 += 1;
            }
        }
    }
    let whole = |&(_, lost, root, kept): &(u32, bool, u32, u32)| {
        !lost && root != SPLIT && size[roots.slot(root)] == kept
    };
    let mut out = RemovalSleep::default();
    for r in root_of.iter().filter(|r| r.2 != Remap::REMOVED && whole(r)) {
        let from = points.get(r.0).expect("a whole assembly keeps its root");
        if from != r.2 {
            out.moved.push((from, r.2));
        }
    }
    out.wakes = olds
        .filter(|&i| !whole(&root_of[groups.slot(old(i).group)]))
        .filter_map(|i| Some(now(i)?.group))
        .collect();
    out.wakes.sort_unstable();
    out.wakes.dedup();
    out
}

/// Moves the count and speed word of each assembly in `moved`
/// ([`RemovalSleep::moved`]) from its old root's slot to its new root's.
pub fn move_roots(moved: &[(u32, u32)], speed: &mut [u32], rest_steps: &mut [u32]) {
    let records: Vec<(u32, u32)> = (moved.iter())
        .map(|&(from, _)| (speed[from as usize], rest_steps[from as usize]))
        .collect();
    for (&(_, to), (s, r)) in moved.iter().zip(records) {
        (speed[to as usize], rest_steps[to as usize]) = (s, r);
    }
}
