//! The stability bounds of a packed world at a substep: each bound's worst
//! point, the links that diverge on their own (docs/physics.md,
//! "Stability bounds"), and the body that sags most under its own weight
//! ("Small bodies and deep piles").

use super::*;
use glam::Vec2;

/// The worst point of a world for each stability bound (see
/// docs/physics.md, "Stability bounds"). Loads are dimensionless.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stability {
    /// `max_i sum_springs k h^2 (w_a + w_b)` over the force springs at a
    /// free point, and that point; keep below 1. A pinned point carries no
    /// load: it does not move, whatever pulls on it.
    pub spring_load: (f32, u32),
    /// `max_i sum_bodies k h^2` over the bodies containing a point; keep
    /// below 1.
    pub shape_load: (f32, u32),
    /// `max_i` of the summed damping fractions at a free point: each spring,
    /// soft constraint and body at it adds its `alpha = 1 - exp(-c h)`
    /// (soft constraints: `1 - exp(-k h)`). Each link is `alpha` times a
    /// projector in the mass-weighted metric, so this bounds the damping
    /// operator's largest eigenvalue: monotone at or below 1, unstable only
    /// above 2. A spring adds its whole `alpha` at each end: splitting it
    /// between its ends by inverse mass would read half the true value for
    /// equal masses.
    pub damping_load: (f32, u32),
    /// `max_b g / ((k + k_area) L)` over the bodies of 3 points or more,
    /// in a world whose bodies collide, and that body: how far a body
    /// sags under its own weight in its own frame, `g / (k + k_area)`,
    /// against its rest extent `L` (`g` the world's gravity plus the
    /// strongest planet's pull at its surface, times the point's gravity
    /// scale; `k + k_area` summed over the bodies at its softest point;
    /// springs are not weighed, and a point no body's shape matching holds
    /// is left out). Keep below [`SAG_LIMIT`]: a body that sags more is crushed in a pile and its
    /// neighbours pass into it (docs/physics.md, "Small bodies and deep
    /// piles"). Not a stability bound of the integrator: the world steps,
    /// but its piles do not hold.
    pub sag: (f32, u32),
    /// The first force spring, else the first body, that diverges on its
    /// own at this substep ([`WorldError::Unstable`]: a spring past
    /// `2 (1 + E) / E`, a body past `2 (1 + E)`, `E = exp(-c h)` its damping
    /// factor); solvers refuse a world that has one.
    pub diverging: Option<WorldError>,
}

/// The largest sag of a colliding body under its own weight, as a
/// fraction of its rest extent, at which its piles still hold
/// ([`Stability::sag`]). Measured on a pile of 80 turned boxes and 24
/// rings scaled from 8 mm to 8 cm with the default stiffness: at a sag of
/// 1.26% of their extent 18% of the points ended inside other bodies, at
/// 0.42% 1.1%, at 0.25% none (docs/physics.md, "Small bodies and deep
/// piles").
pub const SAG_LIMIT: f32 = 0.0035;

/// The largest undamped `w^2 h^2` a force spring with damping factor
/// `e = exp(-c h)` per substep takes before it diverges on its own. Its
/// damping scales the whole new velocity, kick included: one substep is the
/// matrix `[[1, h], [-e w^2 h, e (1 - w^2 h^2)]]` (docs/physics.md, "Exact
/// discrete behaviour of a two-body spring"), with determinant `e < 1` and
/// trace `1 + e (1 - x)`, which has an eigenvalue beyond -1 exactly when
/// `x > 2 (1 + e) / e`.
fn spring_limit(e: f32) -> f32 {
    2.0 * (1.0 + e) / e
}

/// The same for a body: its pull `k h (target - x)` and its relaxation
/// `alpha (rigid - v)` are both added to the old velocity, so the damping
/// does not scale the pull: one substep of a member relative to the rigid
/// motion is `v' = e v - k h x`, `x' = x + h v'`, with determinant `e` and
/// trace `1 + e - x`, past -1 exactly when `x = k h^2 > 2 (1 + e)`.
/// What a body's stability bound weighs ([`body_load`]).
const BODY_LOAD: &str = "(k + k_area) h^2";

/// A body's load on each of its points at substep `h`, and its bound: the
/// area term stiffens the body's breathing mode by its own k.
/// Refuses body `index` (`body`, with a point that is not pinned) when it
/// diverges on its own at substep `h`.
pub(super) fn check_body(index: u32, body: &BodyInfo, h: f32) -> Result<(), WorldError> {
    let (load, limit) = body_load(body, h);
    if load > limit {
        return Err(WorldError::Unstable {
            item: Item::Body(index),
            what: BODY_LOAD,
            value: load,
            limit,
            h,
        });
    }
    Ok(())
}

fn body_load(body: &BodyInfo, h: f32) -> (f32, f32) {
    let area = if body.area_norm > 0.0 {
        body.area_stiffness
    } else {
        0.0
    };
    let load = (body.stiffness + area) * h * h;
    (load, body_limit((-body.damping * h).exp()))
}

fn body_limit(e: f32) -> f32 {
    2.0 * (1.0 + e)
}

impl Stability {
    /// The link that diverges on its own, if any, as an error.
    pub fn check(&self) -> Result<(), WorldError> {
        match &self.diverging {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// One line per bound the world exceeds (empty when all is well).
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        let (s, i) = self.spring_load;
        if s >= 1.0 {
            out.push(format!(
                "point {i}: spring load sum k h^2 (1/m_a + 1/m_b) = {s:.3} >= 1: its springs may blow up; raise substeps or lower stiffness"
            ));
        }
        let (s, i) = self.shape_load;
        if s >= 1.0 {
            out.push(format!(
                "point {i}: shape load sum k h^2 = {s:.3} >= 1 over its bodies: may blow up; raise substeps or lower shape stiffness"
            ));
        }
        let (s, i) = self.damping_load;
        if s > 1.0 {
            out.push(format!(
                "point {i}: summed damping fraction {s:.3} > 1: its velocity overshoots (unstable above 2); lower damping or raise substeps"
            ));
        }
        let (s, b) = self.sag;
        if s > SAG_LIMIT {
            let f = s / SAG_LIMIT;
            out.push(format!(
                "body {b}: sags {:.2}% of its size under its own weight (g / (k + k_area) over its extent; keep below {:.2}%): piles of it crush and pass into each other; raise its stiffness and area stiffness {f:.1}-fold (frequencies {:.1}-fold) and substeps {:.1}-fold to keep k h^2, or make it larger (docs/physics.md, \"Small bodies and deep piles\")",
                100.0 * s,
                100.0 * SAG_LIMIT,
                f.sqrt(),
                f.sqrt()
            ));
        }
        out
    }
}

impl Packed {
    /// The world's worst points against the stability bounds, at substep `h`.
    pub fn stability(&self, h: f32) -> Stability {
        Stability {
            sag: self.sag_from(0, 0),
            ..self.stability_from(h, 0, 0, 0)
        }
    }

    /// [`Packed::stability`] of what an append added: the springs from
    /// `s0` and the bodies from `b0`, which touch no point before `n0`,
    /// with the new bodies' sag; the points and bodies it names are the
    /// world's. An edit's check, in proportion to what it added, so that
    /// a body synced in warns as one built with the world does.
    pub(super) fn appended_stability(&self, h: f32, n0: usize, s0: usize, b0: usize) -> Stability {
        let mut s = self.stability_from(h, n0, s0, b0);
        for worst in [&mut s.spring_load, &mut s.shape_load, &mut s.damping_load] {
            worst.1 += n0 as u32;
        }
        s.sag = self.sag_from(n0, b0);
        s
    }

    /// The check of [`Packed::stability`] alone: the link that diverges
    /// on its own at substep `h`, if any, as an error (an edit's check,
    /// which has no use for the warnings' sums and the sag).
    pub(super) fn check_stability(&self, h: f32) -> Result<(), WorldError> {
        self.stability_from(h, 0, 0, 0).check()
    }

    /// [`Packed::check_stability`] of the bodies alone, one check a body:
    /// a removal's, at the parameters the survivors were checked with,
    /// which leaves their springs as they were.
    pub(super) fn check_body_stability(&self, h: f32) -> Result<(), WorldError> {
        for (b, body) in self.bodies.iter().enumerate() {
            let span = body.first as usize..(body.first + body.count) as usize;
            if self.members[span]
                .iter()
                .all(|m| self.point_info[m.point as usize].inv_mass == 0.0)
            {
                continue;
            }
            check_body(b as u32, body, h)?;
        }
        Ok(())
    }

    /// The bounds of the springs from `s0` and the bodies from `b0` alone,
    /// which touch no point before `n0` (the worst points' indices count
    /// from `n0`), without the sag (`(0, 0)`: see [`Packed::stability`]).
    pub(super) fn stability_from(&self, h: f32, n0: usize, s0: usize, b0: usize) -> Stability {
        let n = self.pos.len() - n0;
        let mut spring = vec![0.0f32; n];
        let mut shape = vec![0.0f32; n];
        let mut damping = vec![0.0f32; n];
        // The first link found past its own limit (see `spring_limit` and
        // `body_limit`).
        let mut diverging = None;
        let mut flag = |item, what, value: f32, limit: f32| {
            if diverging.is_none() && value > limit {
                diverging = Some(WorldError::Unstable {
                    item,
                    what,
                    value,
                    limit,
                    h,
                });
            }
        };
        for (index, s) in self.springs.iter().enumerate().skip(s0) {
            let (a, b) = (s.a as usize, s.b as usize);
            let (wa, wb) = (self.point_info[a].inv_mass, self.point_info[b].inv_mass);
            let (a, b) = (a - n0, b - n0);
            let w = wa + wb;
            if w == 0.0 {
                continue;
            }
            // Stiffness load and damping fraction of the link.
            let (load, alpha) = match s.kind {
                KIND_SPRING => {
                    let load = s.stiffness * h * h * w;
                    let e = (-s.damping * h).exp();
                    flag(
                        Item::Spring(index as u32),
                        "k (1/m_a + 1/m_b) h^2",
                        load,
                        spring_limit(e),
                    );
                    (load, 1.0 - e)
                }
                KIND_SOFT => (0.0, 1.0 - (-s.stiffness * h).exp()),
                _ => (0.0, 0.0),
            };
            // A pinned end does not move: the link loads and damps the free
            // ends alone.
            for (i, wi) in [(a, wa), (b, wb)] {
                if wi > 0.0 {
                    spring[i] += load;
                    damping[i] += alpha;
                }
            }
        }
        for (b, m) in body_members(&self.bodies[b0..], &self.members) {
            let b = b + b0 as u32;
            let body = &self.bodies[b as usize];
            let i = m.point as usize;
            if self.point_info[i].inv_mass == 0.0 {
                continue;
            }
            let i = i - n0;
            let (load, limit) = body_load(body, h);
            shape[i] += load;
            damping[i] += 1.0 - (-body.damping * h).exp();
            flag(Item::Body(b), BODY_LOAD, load, limit);
        }
        let worst = |v: &[f32]| {
            v.iter().enumerate().fold((0.0f32, 0u32), |best, (i, &x)| {
                if x > best.0 { (x, i as u32) } else { best }
            })
        };
        Stability {
            spring_load: worst(&spring),
            shape_load: worst(&shape),
            damping_load: worst(&damping),
            sag: (0.0, 0),
            diverging,
        }
    }

    /// [`Stability::sag`] of the bodies from `b0`, which hold no point
    /// before `n0`: `(0, 0)` when bodies do not collide with each other.
    fn sag_from(&self, n0: usize, b0: usize) -> (f32, u32) {
        if !self.packed_body_collisions {
            return (0.0, 0);
        }
        let surface = self
            .planets
            .iter()
            .filter(|p| p.radius > 0.0)
            .map(|p| p.gravity / (p.radius * p.radius))
            .fold(0.0f32, f32::max);
        let g = Vec2::from(self.sim.gravity).length() + surface;
        // Each free point's stiffness summed over its bodies.
        let mut k = vec![0.0f32; self.pos.len() - n0];
        for (b, m) in body_members(&self.bodies[b0..], &self.members) {
            let body = &self.bodies[b0 + b as usize];
            let area = if body.area_norm > 0.0 {
                body.area_stiffness
            } else {
                0.0
            };
            k[m.point as usize - n0] += body.stiffness + area;
        }
        let mut worst = (0.0f32, 0u32);
        for (b, body) in self.bodies.iter().enumerate().skip(b0) {
            let members = &self.members[body.first as usize..(body.first + body.count) as usize];
            if members.len() < 3 {
                continue;
            }
            let (mut lo, mut hi) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
            let mut sag = 0.0f32;
            for m in members {
                let i = m.point as usize;
                lo = lo.min(Vec2::from(m.rest));
                hi = hi.max(Vec2::from(m.rest));
                if self.point_info[i].inv_mass == 0.0 {
                    continue;
                }
                // A point no body's shape matching holds (stiffness 0) is
                // held by its springs or rods, which this does not weigh.
                let (weight, k) = (g * self.gravity_scale[i].abs(), k[i - n0]);
                if weight > 0.0 && k > 0.0 {
                    sag = sag.max(weight / k);
                }
            }
            let extent = (hi - lo).max_element();
            let ratio = sag / extent;
            if extent > 0.0 && ratio > worst.0 {
                worst = (ratio, b as u32);
            }
        }
        worst
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Params;
    use crate::shapes::{BoxShape, ShapeStyle};

    /// The sag of a world of one box of side `side` under `params`.
    fn sag_of(params: Params, side: f32, style: ShapeStyle, planet: Option<Planet>) -> (f32, u32) {
        let mut w = World::new(params);
        if let Some(p) = planet {
            w.add_planet(p).unwrap();
        }
        BoxShape::new(Vec2::new(0.0, 50.0), Vec2::splat(side))
            .style(style)
            .build(&mut w)
            .unwrap();
        let h = w.params.h();
        Packed::from_world(&w).unwrap().stability(h).sag
    }

    /// A removal's check of the bodies alone refuses the body the whole
    /// check refuses, with the same error, and passes what it passes; a
    /// pinned body is not checked.
    #[test]
    fn the_body_check_finds_the_diverging_body_the_whole_check_finds() {
        let mut w = World::default();
        for x in [0.0, 3.0, 6.0] {
            BoxShape::new(Vec2::new(x, 1.0), Vec2::splat(1.0))
                .build(&mut w)
                .unwrap();
        }
        let h = w.params.h();
        let mut packed = Packed::from_world(&w).unwrap();
        assert!(packed.check_body_stability(h).is_ok());
        packed.bodies[1].stiffness = 1.0e9;
        let whole = packed.check_stability(h).unwrap_err();
        assert!(matches!(
            whole,
            WorldError::Unstable {
                item: Item::Body(1),
                ..
            }
        ));
        assert_eq!(packed.check_body_stability(h).unwrap_err(), whole);
        let first = packed.bodies[1].first as usize;
        for m in &packed.members[first..first + 4] {
            packed.point_info[m.point as usize].inv_mass = 0.0;
        }
        assert!(packed.check_body_stability(h).is_ok());
        assert!(packed.check_stability(h).is_ok());
    }

    /// A body synced into a world (an append in place) is weighed as one
    /// built with it: its sag and loads, under its own index.
    #[test]
    fn an_appended_body_is_weighed_as_one_built_with_the_world() {
        let mut w = World::default();
        BoxShape::new(Vec2::new(0.0, 1.0), Vec2::splat(1.0))
            .build(&mut w)
            .unwrap();
        let mut packed = Packed::from_world(&w).unwrap();
        let generation = w.generation();
        let params = w.params.clone();
        BoxShape::new(Vec2::new(3.0, 1.0), Vec2::splat(0.008))
            .build(&mut w)
            .unwrap();
        let (n0, s0, b0) = (packed.pos.len(), packed.springs.len(), packed.bodies.len());
        assert!(packed.sync_in_place(generation, &w, Some(&params)).unwrap());
        let h = w.params.h();
        let appended = packed.appended_stability(h, n0, s0, b0);
        let whole = Packed::from_world(&w).unwrap().stability(h);
        assert_eq!(appended.sag, whole.sag);
        assert_eq!(appended.sag.1, 1);
        assert!(appended.sag.0 > SAG_LIMIT);
        assert!(
            appended
                .warnings()
                .iter()
                .any(|s| s.starts_with("body 1: sags")),
            "{:?}",
            appended.warnings()
        );
        assert_eq!(appended.shape_load, (whole.shape_load.0, n0 as u32));
        // Nothing appended: nothing weighed.
        let none = packed.appended_stability(
            h,
            packed.pos.len(),
            packed.springs.len(),
            packed.bodies.len(),
        );
        assert_eq!(none.sag, (0.0, 0));
    }

    #[test]
    fn a_body_sags_by_its_gravity_over_its_stiffness_and_size() {
        let p = Params::default();
        let k = p.shape_stiffness + p.area_stiffness;
        let style = ShapeStyle::new;
        let (sag, body) = sag_of(p.clone(), 0.25, style(), None);
        assert_eq!(body, 0);
        assert!((sag - 9.81 / k / 0.25).abs() < 1e-6, "{sag}");
        assert!(sag < SAG_LIMIT);
        // 8 mm: past the limit.
        let (sag, _) = sag_of(p.clone(), 0.008, style(), None);
        assert!(sag > SAG_LIMIT, "{sag}");
        // A planet's pull at its surface adds to the world's gravity.
        let planet = Planet::new(Vec2::ZERO, 10.0).surface_gravity(30.0);
        let (with, _) = sag_of(p.clone(), 0.25, style(), Some(planet));
        assert!((with - (9.81 + 30.0) / k / 0.25).abs() < 1e-6, "{with}");
        // Points that float feel none; without body collisions piles do
        // not form.
        assert_eq!(
            sag_of(p.clone(), 0.008, style().gravity_scale(0.0), None).0,
            0.0
        );
        // A body its springs alone hold is not weighed.
        let limp = style().body_stiffness(0.0).body_area_stiffness(0.0);
        assert_eq!(sag_of(p.clone(), 0.008, limp, None).0, 0.0);
        let apart = Params {
            body_collisions: false,
            ..p
        };
        assert_eq!(sag_of(apart, 0.008, style(), None), (0.0, 0));
    }
}
