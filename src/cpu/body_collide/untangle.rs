//! Tangle recovery, part of stage 5b (`shaders/body_collide.wgsl`'s
//! `untangle`): once per step, each body whose outline's centre lies
//! inside another body's outline is tangled with it (with up to two), and
//! stays so while the narrow phase finds the other's points inside it; the
//! pair is parted at `SimParams::untangle_speed`, and for the rest of the
//! step the narrow phase stands the pair's outside contacts down and
//! pushes its inside contacts along the pair's direction (docs/physics.md,
//! "Tangle recovery").

use std::sync::atomic::{AtomicU32, Ordering};

use super::*;
use crate::layout::UNTANGLE_PUSH;

/// One of a body's two tangle slots this step (WGSL `tangles`, four words
/// from `TANGLE_WORDS b + 4 k`): the other body's assembly plus one (0:
/// none), the other body, and the unit direction from the other's outline
/// centre to this body's. Whether the narrow phase found a point of the
/// other assembly inside the body (WGSL `TANGLE_KEPT`) is kept apart, in
/// [`Bindings::tangle_kept`], since the narrow phase sets it from every
/// point's thread.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tangle {
    pub group: u32,
    pub body: u32,
    pub dir: Vec2,
}

/// A body's tangle slots.
pub type Tangles = [Tangle; 2];

/// Per body and slot (`2 b + k`), whether the narrow phase found a point
/// of the slot's other assembly inside the body since the last
/// [`untangle()`] (WGSL `TANGLE_KEPT`): set from every point's thread.
#[derive(Debug, Default)]
pub struct TangleKept(pub Vec<AtomicU32>);

impl TangleKept {
    /// `n` bodies, none kept.
    pub fn new(n: usize) -> Self {
        TangleKept((0..2 * n).map(|_| AtomicU32::new(0)).collect())
    }

    /// Whether mark `k` is set.
    pub fn get(&self, k: usize) -> bool {
        self.0[k].load(Ordering::Relaxed) != 0
    }

    /// Sets mark `k`.
    pub fn set(&self, k: usize) {
        self.0[k].store(1, Ordering::Relaxed);
    }

    /// Clears every mark.
    pub fn clear(&self) {
        for k in &self.0 {
            k.store(0, Ordering::Relaxed);
        }
    }
}

impl Clone for TangleKept {
    fn clone(&self) -> Self {
        TangleKept(
            self.0
                .iter()
                .map(|k| AtomicU32::new(k.load(Ordering::Relaxed)))
                .collect(),
        )
    }
}

/// The slot of body `b`'s tangle with assembly `group` this step (WGSL
/// `tangle_word`), if they are tangled.
pub fn tangle_slot(bind: &Bindings, b: u32, group: u32) -> Option<usize> {
    bind.tangles[b as usize]
        .iter()
        .position(|t| t.group == group + 1)
}

/// A tangled pair's contact inside (WGSL `test_body` when tangled), body
/// `b`'s slot `k`: the depth to push, no deeper than [`UNTANGLE_PUSH`]
/// times the pace per substep, and the normal, the pair's direction out of
/// `b`; marks the tangle kept.
pub fn tangled_contact(bind: &Bindings, b: u32, k: usize, d2: f32) -> (f32, Vec2) {
    bind.tangle_kept[2 * b as usize + k].store(1, Ordering::Relaxed);
    let sim = bind.sim;
    let depth = (sim.point_radius + d2.sqrt()).min(UNTANGLE_PUSH * sim.untangle_speed * sim.h);
    (depth, -bind.tangles[b as usize][k].dir)
}

/// An outline's centre (the mean of its points), the mass-weighted mean
/// velocity of its points and the inverse of their mass (0 when one is
/// pinned): WGSL `outline_motion`.
fn outline_motion(bind: &Bindings, o: &BodyOutline) -> (Vec2, Vec2, f32) {
    let pts = &bind.outline_points[o.first as usize..(o.first + o.count) as usize];
    let mut centre = Vec2::ZERO;
    let mut momentum = Vec2::ZERO;
    let mut mass = 0.0f32;
    let mut pinned = false;
    for &i in pts {
        centre += v2(bind.pos[i as usize]);
        let w = bind.info[i as usize].inv_mass;
        if w > 0.0 {
            momentum += v2(bind.vel[i as usize]) / w;
            mass += 1.0 / w;
        } else {
            pinned = true;
        }
    }
    centre /= o.count as f32;
    if pinned || mass <= 0.0 {
        return (centre, Vec2::ZERO, 0.0);
    }
    (centre, momentum / mass, 1.0 / mass)
}

/// A body holding a centre, as [`tangle_test`] finds it (WGSL
/// `TangleFind`): its nearest edge's squared distance from the centre,
/// direction and the outline's winding.
#[derive(Clone, Copy, Debug)]
struct Found {
    body: u32,
    d2: f32,
    dir: Vec2,
    orient: f32,
}

const NONE: Found = Found {
    body: u32::MAX,
    d2: -1.0,
    dir: Vec2::ZERO,
    orient: 1.0,
};

/// Whether `a` holds its centre deeper than `b` (WGSL `deeper`): farther
/// from its nearest edge; ties: the lower body index.
fn deeper(a: &Found, b: &Found) -> bool {
    a.d2 > b.d2 || (a.d2 == b.d2 && a.body < b.body)
}

/// Body `c` against the outline centre `p` of a body of assembly `group`
/// (WGSL `tangle_test`): kept in `found` when it is among the two that
/// hold `p` deepest.
fn tangle_test(
    bind: &Bindings,
    c: u32,
    p: Vec2,
    group: u32,
    pf: &ContactFilter,
    sleeping: bool,
    found: &mut [Found; 2],
) {
    if !may_touch(bind, c, p, group, pf, sleeping) {
        return;
    }
    let o = &bind.outlines[c as usize];
    let pts = &bind.outline_points[o.first as usize..(o.first + o.count) as usize];
    let s = scan_outline(bind, pts, p);
    if !s.inside {
        return;
    }
    let f = Found {
        body: c,
        d2: s.d2,
        dir: s.dir,
        orient: s.orient,
    };
    if deeper(&f, &found[0]) {
        found[1] = found[0];
        found[0] = f;
    } else if deeper(&f, &found[1]) {
        found[1] = f;
    }
}

/// A pair's parting (WGSL `tangle_with` past its slot): the fixed-point
/// velocity change of each side's outline points (this body's, the
/// other's), the two assemblies it wakes and the other body.
pub type Parting = ([[i32; 2]; 2], [u32; 2], u32);

/// What one body's untangle does: its tangle slots and its pairs'
/// partings.
#[derive(Clone, Copy, Debug, Default)]
pub struct Untangled {
    pub tangles: Tangles,
    pub parts: [Option<Parting>; 2],
}

/// Body `b`'s tangle with `f` (WGSL `tangle_with`): the slot and the
/// parting, if the pair must part faster. `motion` is `b`'s
/// [`outline_motion`].
fn tangle_with(
    bind: &Bindings,
    b: u32,
    o: &BodyOutline,
    (p, vel, w): (Vec2, Vec2, f32),
    f: &Found,
) -> (Tangle, Option<Parting>) {
    let sim = bind.sim;
    let other = &bind.outlines[f.body as usize];
    let (q, other_vel, other_w) = outline_motion(bind, other);
    // Away from the other's centre; two centres on one spot part along the
    // other's nearest face, each its own way (a held tangle has no face:
    // no direction, so its contacts inside stand down too).
    let mut n = p - q;
    let len2 = n.dot(n);
    if len2 > TINY_DIST2 {
        n /= len2.sqrt();
    } else {
        n = face_normal(f.dir) * f.orient;
        if b > f.body {
            n = -n;
        }
    }
    let tangle = Tangle {
        group: other.group + 1,
        body: f.body,
        dir: n,
    };
    // Half the missing parting speed from each side's thread (a pair
    // tangled both ways gets all of it), split by the sides' inverse
    // masses, so that momentum is kept.
    let missing = sim.untangle_speed - (vel - other_vel).dot(n);
    let ws = w + other_w;
    if !(missing > 0.0 && ws > 0.0) {
        return (tangle, None);
    }
    let j = 0.5 * missing / ws;
    let dv = [
        fixed(n * (j * w), sim.contact_scale),
        fixed(n * (-j * other_w), sim.contact_scale),
    ];
    (tangle, Some((dv, [o.group, other.group], f.body)))
}

/// Body `b`'s tangle recovery (WGSL `untangle` for one thread).
fn untangle_body(bind: &Bindings, b: u32) -> Untangled {
    let sim = bind.sim;
    let mut out = Untangled::default();
    let o = &bind.outlines[b as usize];
    if o.count < 3 {
        return out;
    }
    let motion = outline_motion(bind, o);
    let p = motion.0;
    let pf = bind.filters[o.filter_id as usize];
    let sleeping = asleep(bind, o.group);
    let mut found = [NONE; 2];
    walk_bodies(bind, p, sleeping, |c| {
        tangle_test(bind, c, p, o.group, &pf, sleeping, &mut found)
    });
    // A tangle holds while the narrow phase finds the other's points
    // inside this body: last step's kept tangles fill the free slots.
    for (k, held) in bind.tangles[b as usize].iter().enumerate() {
        let kept = bind.tangle_kept[2 * b as usize + k].load(Ordering::Relaxed) != 0;
        if !kept
            || held.group == 0
            || held.body >= sim.num_bodies
            || found.iter().any(|f| f.body == held.body)
        {
            continue;
        }
        let f = Found {
            body: held.body,
            d2: 0.0,
            dir: Vec2::ZERO,
            orient: 1.0,
        };
        if let Some(free) = found.iter_mut().find(|f| f.body == u32::MAX) {
            *free = f;
        }
    }
    for (k, f) in found.iter().enumerate() {
        if f.body != u32::MAX {
            (out.tangles[k], out.parts[k]) = tangle_with(bind, b, o, motion, f);
        }
    }
    out
}

/// WGSL `untangle` for every body: each body's tangle slots into `out`
/// (the caller copies them to `tangles` and clears `tangle_kept` once
/// `bind` is done with), and for each pair that must part faster, the
/// velocity changes of both sides' outline points that move (inverse mass
/// above zero) into the velocity part of the accumulators and both
/// assemblies' speeds in `sleep_speed` raised to [`SLEEP_WAKE`]. Apply
/// afterwards. `bind`'s `tangles` and `tangle_kept` are last step's.
pub fn untangle(
    bind: &Bindings,
    acc: &mut [[i32; 4]],
    sleep_speed: &mut [u32],
    out: &mut Vec<Untangled>,
    parallel: bool,
) {
    let n = bind.sim.num_bodies as usize;
    out.clear();
    out.resize(n, Untangled::default());
    par::map(parallel, out, |b| untangle_body(bind, b as u32));
    for (b, u) in out.iter().enumerate() {
        for &(dv, groups, other) in u.parts.iter().flatten() {
            for g in groups {
                let s = &mut sleep_speed[g as usize];
                *s = (*s).max(SLEEP_WAKE);
            }
            for (body, d) in [(b as u32, dv[0]), (other, dv[1])] {
                let o = &bind.outlines[body as usize];
                for &i in &bind.outline_points[o.first as usize..(o.first + o.count) as usize] {
                    if bind.info[i as usize].inv_mass > 0.0 {
                        add4(&mut acc[i as usize], [0, 0], d);
                    }
                }
            }
        }
    }
}
