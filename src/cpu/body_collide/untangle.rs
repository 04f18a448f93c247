//! Tangle recovery, part of stage 5b (`shaders/body_collide/untangle.wgsl`'s
//! `untangle`): once per step, each body whose outline's centre lies
//! inside another body's outline is tangled with it (with up to two), and
//! stays so while the narrow phase finds the other's points inside it; a
//! body placed there (or in such a pair last step) is also tangled with a
//! body that one of its outline edges passes through with neither end
//! deep inside ([`TANGLE_CROSSED`]); the
//! pair is parted at `SimParams::untangle_speed`, and for the rest of the
//! step the narrow phase stands the pair's outside contacts down and
//! pushes its inside contacts along the pair's direction (docs/physics.md,
//! "Tangle recovery").

use std::sync::atomic::{AtomicU32, Ordering};

use super::*;
use crate::layout::{
    TANGLE_CROSSED, TANGLE_FLAGS, TANGLE_FRESH, TANGLE_KEPT, UNTANGLE_PUSH, WARM_SETTLED,
};
use crate::world::Remap;

/// The partings one accumulator is sized for (WGSL `TANGLE_SHARE`,
/// [`fixed_of`]'s count): a body tangled with more bodies at once than
/// this may carry its sum past `fixed_of`'s bound.
pub const TANGLE_SHARE: u32 = 64;

/// Every body's tangles (WGSL `tangles`), in the GPU's words: per body
/// [`TANGLE_WORDS`](crate::layout::TANGLE_WORDS) words, two slots of four: the other body's assembly
/// plus one (0: none) with [`TANGLE_KEPT`] set by the narrow phase when it
/// finds a point of that assembly inside the body, the other body, and the
/// bits of the unit direction from the other's outline centre to this
/// body's. Atomic, as on the GPU: the narrow phase marks them from every
/// point's thread.
#[derive(Debug, Default)]
pub struct TangleWords(Vec<[AtomicU32; 8]>);

impl TangleWords {
    /// `bodies` bodies, none tangled.
    pub fn new(bodies: usize) -> Self {
        TangleWords((0..bodies).map(|_| Default::default()).collect())
    }

    /// `bodies` bodies, none tangled, in the allocation it has.
    pub fn reset(&mut self, bodies: usize) {
        self.0.clear();
        self.extend(bodies);
    }

    /// `bodies` bodies: the first ones' words kept, any more untangled.
    pub fn extend(&mut self, bodies: usize) {
        self.0.resize_with(bodies, Default::default);
    }

    /// The words, as a checkpoint keeps them.
    pub fn words(&self) -> Vec<[u32; 8]> {
        self.0
            .iter()
            .map(|t| std::array::from_fn(|w| t[w].load(Ordering::Relaxed)))
            .collect()
    }

    /// Sets the words (one record per body, checked by the caller).
    pub fn set(&self, words: &[[u32; 8]]) {
        for (t, w) in self.0.iter().zip(words) {
            for (a, &v) in t.iter().zip(w) {
                a.store(v, Ordering::Relaxed);
            }
        }
    }

    /// After a removal: `old`'s words for the bodies kept (`bodies`,
    /// old to new), each slot under [`remap_tangle`] with `outlines` the
    /// new ones (these sized for them, none tangled before).
    pub fn remap_from(&self, old: &TangleWords, bodies: &Remap, outlines: &[BodyOutline]) {
        for (b, words) in old.words().iter().enumerate() {
            if let Some(t) = bodies.get(b as u32).and_then(|nb| self.0.get(nb as usize)) {
                store_remapped(t, words, bodies, outlines);
            }
        }
    }

    /// After a removal, in place: the kept bodies' words moved with them
    /// (`bodies`, old to new), the rest cut, and each slot under
    /// [`remap_tangle`] with `outlines` the new ones: what
    /// [`remap_from`](Self::remap_from) makes, without a copy.
    pub fn follow_removal(&mut self, bodies: &Remap, outlines: &[BodyOutline]) {
        let words = &mut self.0;
        for (old, new) in bodies.moves() {
            let (old, new) = (old as usize, new as usize);
            if old < words.len() && new < words.len() {
                let moving: [u32; 8] =
                    std::array::from_fn(|w| words[old][w].load(Ordering::Relaxed));
                for (a, v) in words[new].iter().zip(moving) {
                    a.store(v, Ordering::Relaxed);
                }
            }
        }
        words.truncate(bodies.prefix_len(words.len()));
        for t in words.iter_mut() {
            // Read without atomics (nothing else holds them): a scan the
            // compiler can widen, as most bodies are tangled with none.
            let now: [u32; 8] = std::array::from_fn(|w| *t[w].get_mut());
            if now != [0; 8] {
                store_remapped(t, &now, bodies, outlines);
            }
        }
    }

    /// No body tangled.
    pub fn clear(&self) {
        for a in self.0.iter().flatten() {
            a.store(0, Ordering::Relaxed);
        }
    }

    fn load(&self, b: u32, w: usize) -> u32 {
        self.0[b as usize][w].load(Ordering::Relaxed)
    }
}

impl Clone for TangleWords {
    fn clone(&self) -> Self {
        let t = TangleWords::new(self.0.len());
        t.set(&self.words());
        t
    }
}

/// One tangle slot's words (the other's assembly plus one, with
/// [`TANGLE_KEPT`]; the other body; the direction's bits) under a
/// removal's body map, with `outlines` the new ones (WGSL
/// `remap_tangle`): the other body renumbered and its assembly the one it
/// is in now; an empty slot, or one whose other body went, cleared.
pub fn remap_tangle(words: [u32; 4], bodies: &Remap, outlines: &[BodyOutline]) -> [u32; 4] {
    let other = bodies
        .get(words[1])
        .and_then(|b| Some((b, outlines.get(b as usize)?)));
    match other {
        Some((b, o)) if words[0] & !TANGLE_FLAGS != 0 => [
            (o.group + 1) | (words[0] & TANGLE_FLAGS),
            b,
            words[2],
            words[3],
        ],
        _ => [0; 4],
    }
}

/// Stores `words`, a body's two tangle slots, into `t`, each under
/// [`remap_tangle`] (a removal's `bodies` map, `outlines` the new ones).
fn store_remapped(t: &[AtomicU32; 8], words: &[u32; 8], bodies: &Remap, outlines: &[BodyOutline]) {
    for k in 0..2 {
        let slot: [u32; 4] = std::array::from_fn(|w| words[4 * k + w]);
        let new = remap_tangle(slot, bodies, outlines);
        for (a, v) in t[4 * k..4 * k + 4].iter().zip(new) {
            a.store(v, Ordering::Relaxed);
        }
    }
}

/// The first word of body `b`'s tangle slot with assembly `group` this
/// step (WGSL `tangle_word`), if they are tangled.
pub fn tangle_word(bind: &Bindings, b: u32, group: u32) -> Option<usize> {
    (0..2)
        .map(|k| 4 * k)
        .find(|&w| bind.tangles.load(b, w) & !TANGLE_FLAGS == group + 1)
}

/// Whether body `b`'s slot at word `w` holds a pair placed tangled
/// ([`TANGLE_FRESH`]).
pub fn tangle_fresh(bind: &Bindings, b: u32, w: usize) -> bool {
    bind.tangles.load(b, w) & TANGLE_FRESH != 0
}

/// Whether an outline point of `o` has not settled ([`WARM_SETTLED`] in
/// `warm`): the body was placed where it is (WGSL `outline_fresh`).
fn outline_fresh(bind: &Bindings, warm: &[Warm], o: &BodyOutline) -> bool {
    bind.outline_points[o.first as usize..(o.first + o.count) as usize]
        .iter()
        .any(|&i| warm[i as usize][2] & WARM_SETTLED == 0)
}

/// A tangled pair's contact inside (WGSL `test_body` when tangled), body
/// `b`'s slot at word `w`: the depth to push, no deeper than
/// [`UNTANGLE_PUSH`] times the pace per pass (a pair placed tangled,
/// that much a substep: `SimParams::untangle_push` in resolve), and the
/// normal, the pair's direction out of `b`; marks the tangle kept.
pub fn tangled_contact(bind: &Bindings, b: u32, w: usize, d2: f32) -> (f32, Vec2) {
    let first = bind.tangles.0[b as usize][w].fetch_or(TANGLE_KEPT, Ordering::Relaxed);
    let sim = bind.sim;
    // A pair found by its edges pushes nothing.
    let depth = if first & TANGLE_CROSSED != 0 {
        0.0
    } else {
        (sim.point_radius + d2.sqrt()).min(UNTANGLE_PUSH * sim.untangle_speed * sim.h)
    };
    let dir = Vec2::new(
        f32::from_bits(bind.tangles.load(b, w + 2)),
        f32::from_bits(bind.tangles.load(b, w + 3)),
    );
    (depth, -dir)
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
/// direction and the outline's winding; or holding an edge's midpoint, as
/// [`crossing_test`] finds it (`crossed`).
#[derive(Clone, Copy, Debug)]
struct Found {
    body: u32,
    d2: f32,
    dir: Vec2,
    orient: f32,
    crossed: bool,
}

const NONE: Found = Found {
    body: u32::MAX,
    d2: -1.0,
    dir: Vec2::ZERO,
    orient: 1.0,
    crossed: false,
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
    (group, joins): (u32, u32),
    pf: &ContactFilter,
    sleeping: bool,
    found: &mut [Found; 2],
) {
    if !may_touch(bind, c, p, group, joins, pf, sleeping) {
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
        crossed: false,
    };
    keep_find(f, found);
}

/// Keeps `f` in `found` when it is among the two deepest, one entry per
/// body (WGSL `keep_find`).
fn keep_find(f: Found, found: &mut [Found; 2]) {
    if let Some(k) = found.iter().position(|g| g.body == f.body) {
        if deeper(&f, &found[k]) {
            found[k] = f;
        }
        if deeper(&found[1], &found[0]) {
            found.swap(0, 1);
        }
    } else if deeper(&f, &found[0]) {
        found[1] = found[0];
        found[0] = f;
    } else if deeper(&f, &found[1]) {
        found[1] = f;
    }
}

/// Puts `f` in a free slot of `found`, unless its body is there already
/// or none is free (WGSL `take_free`): tangles found by edges or held from
/// the last step fill what the centres left.
fn take_free(f: Found, found: &mut [Found; 2]) {
    if found.iter().any(|g| g.body == f.body) {
        return;
    }
    if let Some(free) = found.iter_mut().find(|g| g.body == u32::MAX) {
        *free = f;
    }
}

/// Body `c` against an outline edge `a`-`e` (midpoint `m`) of a body of
/// assembly `group` (WGSL `crossing_test`): kept in `found` when the edge
/// passes through it, the midpoint more than [`BODY_PUSH_SLOP`] point
/// radii inside and neither end more than one.
#[allow(clippy::too_many_arguments)]
fn crossing_test(
    bind: &Bindings,
    c: u32,
    (a, m, e): (Vec2, Vec2, Vec2),
    (group, joins): (u32, u32),
    pf: &ContactFilter,
    sleeping: bool,
    found: &mut [Found; 2],
) {
    if !may_touch(bind, c, m, group, joins, pf, sleeping) {
        return;
    }
    let o = &bind.outlines[c as usize];
    let pts = &bind.outline_points[o.first as usize..(o.first + o.count) as usize];
    let r = bind.sim.point_radius;
    let deep = BODY_PUSH_SLOP * r;
    let s = scan_outline(bind, pts, m);
    if !s.inside || s.d2 <= deep * deep {
        return;
    }
    for end in [a, e] {
        let se = scan_outline(bind, pts, end);
        if se.inside && se.d2 > r * r {
            return;
        }
    }
    keep_find(
        Found {
            body: c,
            d2: s.d2,
            dir: s.dir,
            orient: s.orient,
            crossed: true,
        },
        found,
    );
}

/// The bodies that body `o`'s outline edges pass through with neither end
/// deep inside (WGSL `crossings`): bodies placed so that their corners lie
/// on each other's faces, whose overlap no point's contact sees, added to
/// `found`'s free slots (docs/physics.md, "Deep overlaps").
fn crossings(
    bind: &Bindings,
    o: &BodyOutline,
    pf: &ContactFilter,
    sleeping: bool,
    found: &mut [Found; 2],
) {
    let pts = &bind.outline_points[o.first as usize..(o.first + o.count) as usize];
    let mut crossed = [NONE; 2];
    for (k, &i) in pts.iter().enumerate() {
        let a = v2(bind.pos[i as usize]);
        let e = v2(bind.pos[pts[(k + 1) % pts.len()] as usize]);
        let m = (a + e) * 0.5;
        walk_bodies(bind, m, sleeping, |c| {
            crossing_test(
                bind,
                c,
                (a, m, e),
                (o.group, o.first + o.count),
                pf,
                sleeping,
                &mut crossed,
            )
        });
    }
    for f in crossed.into_iter().filter(|f| f.body != u32::MAX) {
        take_free(f, found);
    }
}

/// The centre that body `b` (outline `o`, centre `p`) parts from `q`, the
/// centre of a body it is tangled with (WGSL `assembly_anchor`): the
/// centre of the body of `b`'s own assembly that holds `q` deepest (ties:
/// the lower index), or `p` when none does. A body alone in its assembly
/// always gets `p`; the cells of a ship wrapped round another body all get
/// the same cell's, so that their partings agree instead of cancelling.
fn assembly_anchor(bind: &Bindings, b: u32, o: &BodyOutline, p: Vec2, q: Vec2) -> Vec2 {
    let mut best = (u32::MAX, -1.0f32);
    walk_bodies(bind, q, false, |c| {
        let oc = &bind.outlines[c as usize];
        if oc.group != o.group || oc.count < 3 {
            return;
        }
        let pts = &bind.outline_points[oc.first as usize..(oc.first + oc.count) as usize];
        let s = scan_outline(bind, pts, q);
        if s.inside && (s.d2 > best.1 || (s.d2 == best.1 && c < best.0)) {
            best = (c, s.d2);
        }
    });
    if best.0 == u32::MAX || best.0 == b {
        return p;
    }
    outline_motion(bind, &bind.outlines[best.0 as usize]).0
}

/// A pair's parting (WGSL `tangle_with` past its slot): the fixed-point
/// velocity change of each side's outline points (this body's, the
/// other's), the two assemblies it wakes and the other body.
pub type Parting = ([[i32; 2]; 2], [u32; 2], u32);

/// Body `b`'s tangle with `f` in its slot `k` (WGSL `tangle_with`): the
/// slot's words, and the pair's parting, if it must part faster.
/// `motion` is `b`'s [`outline_motion`]; `fresh`, whether `b` has a point
/// that has not settled or the pair was fresh last step (the slot is
/// [`TANGLE_FRESH`] then, or when the other has one, in `warm`).
#[allow(clippy::too_many_arguments)]
fn tangle_with(
    bind: &Bindings,
    warm: &[Warm],
    b: u32,
    o: &BodyOutline,
    (p, vel, w): (Vec2, Vec2, f32),
    f: &Found,
    k: usize,
    fresh: bool,
) -> Option<Parting> {
    let sim = bind.sim;
    let other = &bind.outlines[f.body as usize];
    let (q, other_vel, other_w) = outline_motion(bind, other);
    let mut flag = if fresh || outline_fresh(bind, warm, other) {
        TANGLE_FRESH
    } else {
        0
    };
    if f.crossed {
        flag |= TANGLE_CROSSED;
    }
    // Away from the other's centre; two centres on one spot part along the
    // other's nearest face, each its own way (a held tangle has no face:
    // no direction, so its contacts inside stand down too). Two bodies of
    // one assembly part from their own centres.
    let anchor = if other.group == o.group {
        p
    } else {
        assembly_anchor(bind, b, o, p, q)
    };
    let mut n = anchor - q;
    let len2 = n.dot(n);
    if len2 > TINY_DIST2 {
        n /= len2.sqrt();
    } else {
        n = face_normal(f.dir) * f.orient;
        if b > f.body {
            n = -n;
        }
    }
    let slot = &bind.tangles.0[b as usize][4 * k..4 * k + 4];
    for (a, v) in slot.iter().zip([
        (other.group + 1) | flag,
        f.body,
        n.x.to_bits(),
        n.y.to_bits(),
    ]) {
        a.store(v, Ordering::Relaxed);
    }
    // Half the missing parting speed from each side's thread (a pair
    // tangled both ways gets all of it), split by the sides' inverse
    // masses, so that momentum is kept.
    let missing = sim.untangle_speed - (vel - other_vel).dot(n);
    let ws = w + other_w;
    if !(missing > 0.0 && ws > 0.0) {
        return None;
    }
    let j0 = 0.5 * missing / ws;
    // Both sides scaled alike to fit their accumulators, which take at
    // most TANGLE_SHARE partings each (fit_of).
    let sc = sim.contact_scale;
    let j = j0
        * fit_of(n * (j0 * w), sc, TANGLE_SHARE).min(fit_of(n * (-j0 * other_w), sc, TANGLE_SHARE));
    let dv = [
        fixed_of(n * (j * w), sc, TANGLE_SHARE),
        fixed_of(n * (-j * other_w), sc, TANGLE_SHARE),
    ];
    Some((dv, [o.group, other.group], f.body))
}

/// Body `b`'s tangle recovery (WGSL `untangle` for one thread): its
/// tangle words rewritten, and its pairs' partings.
fn untangle_body(bind: &Bindings, warm: &[Warm], b: u32) -> [Option<Parting>; 2] {
    let sim = bind.sim;
    // Last step's tangles (whether the narrow phase found the other's
    // points inside this body, and the other), cleared.
    let last: [(u32, u32); 2] =
        std::array::from_fn(|k| (bind.tangles.load(b, 4 * k), bind.tangles.load(b, 4 * k + 1)));
    for a in &bind.tangles.0[b as usize] {
        a.store(0, Ordering::Relaxed);
    }
    let mut parts = [None; 2];
    let o = &bind.outlines[b as usize];
    if o.count < 3 {
        return parts;
    }
    let motion = outline_motion(bind, o);
    let p = motion.0;
    let pf = bind.filters[o.filter_id as usize];
    let sleeping = asleep(bind, o.group);
    let mut found = [NONE; 2];
    walk_bodies(bind, p, sleeping, |c| {
        tangle_test(
            bind,
            c,
            p,
            (o.group, o.first + o.count),
            &pf,
            sleeping,
            &mut found,
        )
    });
    // A body placed (or last step tangled so) whose edges pass through
    // another's: tangled with it too.
    let fresh = outline_fresh(bind, warm, o);
    if fresh || last.iter().any(|&(word, _)| word & TANGLE_FRESH != 0) {
        crossings(bind, o, &pf, sleeping, &mut found);
    }
    // A tangle holds while the narrow phase finds the other's points
    // inside this body: last step's kept tangles fill the free slots.
    for (word, body) in last {
        if word & TANGLE_KEPT == 0 || body >= sim.num_bodies {
            continue;
        }
        let f = Found {
            body,
            d2: 0.0,
            dir: Vec2::ZERO,
            orient: 1.0,
            crossed: false,
        };
        take_free(f, &mut found);
    }
    for (k, f) in found.iter().enumerate() {
        if f.body == u32::MAX {
            continue;
        }
        // Fresh last step with the same body: fresh until it parts.
        let was_fresh = last
            .iter()
            .any(|&(word, body)| body == f.body && word & TANGLE_FRESH != 0);
        parts[k] = tangle_with(bind, warm, b, o, motion, f, k, fresh || was_fresh);
    }
    parts
}

/// WGSL `untangle` for every body: each body's tangle words in
/// `bind.tangles` rewritten (last step's read first, by the body's own
/// thread, as on the GPU), and for each pair that must part faster, the
/// velocity changes of both sides' outline points that move (inverse mass
/// above zero) into the velocity part of the accumulators and both
/// assemblies' speeds in `sleep_speed` raised to [`SLEEP_WAKE`]. Apply
/// afterwards. `warm` gives the points' settled bits
/// ([`TANGLE_FRESH`]); `parts` is scratch.
pub fn untangle(
    bind: &Bindings,
    warm: &[Warm],
    acc: &mut [[i32; 4]],
    sleep_speed: &mut [u32],
    parts: &mut Vec<[Option<Parting>; 2]>,
    parallel: bool,
) {
    let n = bind.sim.num_bodies as usize;
    parts.clear();
    parts.resize(n, [None; 2]);
    par::map(parallel, parts, |b| untangle_body(bind, warm, b as u32));
    for (b, body_parts) in parts.iter().enumerate() {
        for &(dv, groups, other) in body_parts.iter().flatten() {
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
