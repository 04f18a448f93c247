//! The stability bounds of a packed world at a substep: each bound's worst
//! point, and the links that diverge on their own (docs/physics.md,
//! "Stability bounds").

use super::*;

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
    /// The first force spring, else the first body, that diverges on its
    /// own at this substep ([`WorldError::Unstable`]: a spring past
    /// `2 (1 + E) / E`, a body past `2 (1 + E)`, `E = exp(-c h)` its damping
    /// factor); solvers refuse a world that has one.
    pub diverging: Option<WorldError>,
}

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
        out
    }
}

impl Packed {
    /// The world's worst points against the stability bounds, at substep `h`.
    pub fn stability(&self, h: f32) -> Stability {
        self.stability_from(h, 0, 0, 0)
    }

    /// The bounds of the springs from `s0` and the bodies from `b0` alone,
    /// which touch no point before `n0` (the worst points' indices count
    /// from `n0`).
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
            // The area term stiffens the body's breathing mode by its own k.
            let area = if body.area_norm > 0.0 {
                body.area_stiffness
            } else {
                0.0
            };
            let load = (body.stiffness + area) * h * h;
            shape[i] += load;
            let e = (-body.damping * h).exp();
            damping[i] += 1.0 - e;
            flag(Item::Body(b), "(k + k_area) h^2", load, body_limit(e));
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
            diverging,
        }
    }
}
