//! Whether a packed world's arrays fit each other: every index within
//! the array it indexes, the per-point records and the counts matching.

use super::*;

impl<T> PerPoint<T> {
    /// The records some range names, with their indices (an edit may
    /// leave others behind, which nothing reads).
    fn named_records(&self) -> impl Iterator<Item = (usize, &T)> {
        (self.ranges.iter())
            .flat_map(|r| r.span())
            .map(|k| (k, &self.records[k]))
    }

    /// Checks the ranges of `n` points against the records: none, or one
    /// per point, each within the records, no two overlapping (records
    /// that no range names are left alone).
    fn check(&self, n: usize, what: &str) -> Result<(), String> {
        if self.ranges.is_empty() && self.records.is_empty() {
            return Ok(());
        }
        if self.ranges.len() != n {
            return Err(format!(
                "{what}: {} record ranges for {n} points",
                self.ranges.len()
            ));
        }
        let mut named = vec![false; self.records.len()];
        for (i, r) in self.ranges.iter().enumerate() {
            let within = r
                .start
                .checked_add(r.count)
                .is_some_and(|end| end as usize <= self.records.len());
            if !within {
                return Err(format!(
                    "{what}: point {i}'s records {}..+{} pass the {} records",
                    r.start,
                    r.count,
                    self.records.len()
                ));
            }
            for k in r.span() {
                if std::mem::replace(&mut named[k], true) {
                    return Err(format!("{what}: record {k} is in two points' ranges"));
                }
            }
        }
        Ok(())
    }
}

impl Packed {
    /// Checks that the arrays fit each other: every index within the array
    /// it indexes, the per-point records and the counts in `sim` matching
    /// the arrays. [`Packed::from_world`] and the edits always give such a
    /// `Packed`; one edited by hand (its fields are public) may not be, and
    /// without this check makes `GpuSolver::from_packed` panic on an index
    /// out of bounds.
    pub fn check_consistent(&self) -> Result<(), WorldError> {
        self.consistency().map_err(WorldError::InconsistentPacked)
    }

    fn consistency(&self) -> Result<(), String> {
        self.check_counts()?;
        self.check_springs()?;
        self.check_bodies()?;
        self.check_contact_data()?;
        self.check_colliders()?;
        self.check_kinematic()?;
        self.check_terrain()
    }

    /// The kinematic bodies: bodies in order, each with every member
    /// pinned (`move_bodies` poses them; a free member would be moved by
    /// both it and the forces).
    fn check_kinematic(&self) -> Result<(), String> {
        if !self.kinematic.windows(2).all(|w| w[0] < w[1]) {
            return Err("kinematic bodies are not listed in order".into());
        }
        for &b in &self.kinematic {
            let Some(body) = self.bodies.get(b as usize) else {
                return Err(format!("kinematic body {b} of {}", self.bodies.len()));
            };
            let members = self
                .members
                .get(body.first as usize..(body.first as usize + body.count as usize))
                .unwrap_or(&[]);
            if let Some(m) = members.iter().find(|m| {
                self.point_info
                    .get(m.point as usize)
                    .is_none_or(|i| i.inv_mass != 0.0)
            }) {
                return Err(format!(
                    "kinematic body {b} has point {}, which is not pinned",
                    m.point
                ));
            }
        }
        Ok(())
    }

    /// The terrain's grid against its segments and lists: a cell's list
    /// within the lists, every listed segment one of the segments.
    fn check_terrain(&self) -> Result<(), String> {
        let t = &self.terrain;
        let g = &t.grid;
        if g.num_segments as usize != t.segments.len() {
            return Err(format!(
                "terrain grid counts {} segments, there are {}",
                g.num_segments,
                t.segments.len()
            ));
        }
        if t.segments.is_empty() {
            return Ok(());
        }
        let cells = (g.cols as u64 * g.rows as u64) as usize;
        let base = cells + 1;
        let fits = g.cols > 0
            && g.rows > 0
            && g.cell.is_finite()
            && g.cell > 0.0
            && t.cells.len() >= base
            && t.cells[0] == 0
            && t.cells[..base].windows(2).all(|w| w[0] <= w[1])
            && t.cells[cells] as usize == t.cells.len() - base
            && t.cells[base..]
                .iter()
                .all(|&k| (k as usize) < t.segments.len());
        if !fits {
            return Err("terrain cells do not list its segments by its grid".into());
        }
        Ok(())
    }

    /// The array lengths against each other and against `sim`'s counts,
    /// and every point's material.
    fn check_counts(&self) -> Result<(), String> {
        let n = self.pos.len();
        let nb = self.bodies.len();
        let sim = &self.sim;
        for (what, len, want) in [
            ("vel", self.vel.len(), n),
            ("point_info", self.point_info.len(), n),
            ("gravity_scale", self.gravity_scale.len(), n),
            ("sim.num_points", sim.num_points as usize, n),
            (
                "sim.num_springs",
                sim.num_springs as usize,
                self.springs.len(),
            ),
            ("sim.num_bodies", sim.num_bodies as usize, nb),
            (
                "sim.num_planets",
                sim.num_planets as usize,
                self.planets.len(),
            ),
            ("sim.num_planes", sim.num_planes as usize, self.planes.len()),
            (
                "small and large bodies",
                sim.num_small_bodies as usize + sim.num_large_bodies as usize,
                nb,
            ),
            ("body_order", self.body_order.len(), nb),
        ] {
            if len != want {
                return Err(format!("{what} has {len}, expected {want}"));
            }
        }
        for (what, len, max) in [
            ("planets", self.planets.len(), MAX_PLANETS),
            ("planes", self.planes.len(), MAX_PLANES),
        ] {
            if len > max {
                return Err(format!("{len} {what}, more than the {max} a solver holds"));
            }
        }
        for (i, info) in self.point_info.iter().enumerate() {
            if info.material as usize >= self.materials.len() {
                return Err(format!(
                    "point {i} has material {} of {}",
                    info.material,
                    self.materials.len()
                ));
            }
        }
        Ok(())
    }

    /// The springs and rods, and their per-point records.
    fn check_springs(&self) -> Result<(), String> {
        let n = self.pos.len();
        let rods = self.springs.iter().filter(|s| s.kind == KIND_ROD).count();
        if rods != self.num_rods as usize {
            return Err(format!(
                "num_rods is {}, the springs have {rods}",
                self.num_rods
            ));
        }
        for (i, s) in self.springs.iter().enumerate() {
            point_ref(n, "spring", i, s.a)?;
            point_ref(n, "spring", i, s.b)?;
            if s.a == s.b || s.kind > KIND_ROD {
                return Err(format!("spring {i} is not a spring between two points"));
            }
        }
        for (what, halves) in [
            ("spring_halves", &self.spring_halves),
            ("rod_halves", &self.rod_halves),
        ] {
            halves.check(n, what)?;
            for (i, h) in halves.named_records() {
                point_ref(n, what, i, h.other & HALF_INDEX)?;
            }
        }
        Ok(())
    }

    /// The bodies' member ranges, the members, their per-point records and
    /// the body order.
    fn check_bodies(&self) -> Result<(), String> {
        let n = self.pos.len();
        let nb = self.bodies.len();
        let mut members = 0u64;
        for (i, b) in self.bodies.iter().enumerate() {
            if b.first as u64 + b.count as u64 > self.members.len() as u64 {
                return Err(format!(
                    "body {i}'s members run past the {} members",
                    self.members.len()
                ));
            }
            members += b.count as u64;
        }
        if members + self.member_holes as u64 != self.members.len() as u64 {
            return Err(format!(
                "the bodies hold {members} members and {} are holes, there are {}",
                self.member_holes,
                self.members.len()
            ));
        }
        let mut spans: Vec<_> = self.bodies.iter().map(|b| (b.first, b.count)).collect();
        spans.sort_unstable();
        if spans.windows(2).any(|w| w[0].0 + w[0].1 > w[1].0) {
            return Err("two bodies' members overlap".into());
        }
        for body in &self.bodies {
            for (m, i) in self.members[body.span()].iter().zip(body.span()) {
                point_ref(n, "member", i, m.point)?;
            }
        }
        self.point_members.check(n, "point_members")?;
        let named: u64 = self
            .point_members
            .ranges
            .iter()
            .map(|r| r.count as u64)
            .sum();
        if named != members {
            return Err("point_members does not hold every member".into());
        }
        for (i, m) in self.point_members.named_records() {
            if m.body as usize >= nb {
                return Err(format!(
                    "point member {i} refers to body {} of {nb}",
                    m.body
                ));
            }
        }
        let mut seen = vec![false; nb];
        for &b in &self.body_order {
            match seen.get_mut(b as usize) {
                Some(s) if !*s => *s = true,
                _ => return Err(format!("body_order lists body {b} twice or out of range")),
            }
        }
        Ok(())
    }

    /// The contact data, when there is any: one entry per point and body,
    /// filters and outline points in range.
    fn check_contact_data(&self) -> Result<(), String> {
        let n = self.pos.len();
        let nb = self.bodies.len();
        // The contact data, when there is any.
        if !self.contact_points.is_empty() || !self.outlines.is_empty() {
            if self.contact_points.len() != n || self.outlines.len() != nb {
                return Err("the contact data does not have one entry per point and body".into());
            }
            let filters = self.contact_filters.len();
            for (i, c) in self.contact_points.iter().enumerate() {
                if (c.filter_id & !CONTACT_FREE) as usize >= filters {
                    return Err(format!(
                        "contact point {i} has filter {} of {filters}",
                        c.filter_id
                    ));
                }
            }
            for (i, o) in self.outlines.iter().enumerate() {
                if o.first as u64 + o.count as u64 > self.outline_points.len() as u64
                    || o.filter_id as usize >= filters
                {
                    return Err(format!(
                        "outline {i} runs past the outline points or filters"
                    ));
                }
            }
            for o in &self.outlines {
                let span = o.first as usize..(o.first + o.count) as usize;
                for (&p, i) in self.outline_points[span.clone()].iter().zip(span) {
                    point_ref(n, "outline point", i, p)?;
                }
            }
        }
        Ok(())
    }

    /// The grid's colliders: the bodies, then the free points.
    fn check_colliders(&self) -> Result<(), String> {
        let n = self.pos.len();
        let nb = self.bodies.len();
        let sim = &self.sim;
        let colliders = sim.num_colliders as usize;
        if self.colliders.len() != colliders + sim.num_free as usize
            || sim.num_small_colliders > sim.num_colliders
        {
            return Err(format!(
                "{} colliders, sim counts {} bodies and {} free points",
                self.colliders.len(),
                sim.num_colliders,
                sim.num_free
            ));
        }
        for (i, &c) in self.colliders.iter().enumerate() {
            let (kind, len) = if i < colliders {
                ("body", nb)
            } else {
                ("point", n)
            };
            if c as usize >= len {
                return Err(format!("collider {i} refers to {kind} {c} of {len}"));
            }
        }
        Ok(())
    }
}

/// Point `p`, referred to by item `i` of `what`, is one of the `n` points.
fn point_ref(n: usize, what: &str, i: usize, p: u32) -> Result<(), String> {
    if p as usize >= n {
        Err(format!("{what} {i} refers to point {p} of {n}"))
    } else {
        Ok(())
    }
}
