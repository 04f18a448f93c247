//! What a builder is about to add, checked in full before the world
//! changes, then added in one go.

use super::*;

/// What a builder is about to add, in indices local to the shape.
pub(super) struct Plan {
    pub(super) pos: Vec<Vec2>,
    /// Points whose mass differs from the style's (pinned rope ends, hub).
    pub(super) mass_overrides: Vec<(u32, f32)>,
    pub(super) springs: Vec<[u32; 2]>,
    pub(super) bodies: Vec<PlanBody>,
}

/// A body a builder is about to add, in indices local to the shape.
pub(super) struct PlanBody {
    pub(super) points: Vec<u32>,
    /// Its outline when `points` in order is not one (a hub inside).
    pub(super) boundary: Option<Vec<u32>>,
}

impl PlanBody {
    /// A body whose points, in order, are its outline.
    pub(super) fn outlined(points: Vec<u32>) -> Self {
        Self {
            points,
            boundary: None,
        }
    }
}

impl Plan {
    pub(super) fn with_points(n: usize) -> Self {
        Self {
            pos: Vec::with_capacity(n),
            mass_overrides: Vec::new(),
            springs: Vec::new(),
            bodies: Vec::new(),
        }
    }

    pub(super) fn mass_of(&self, style: &ShapeStyle, k: u32) -> f32 {
        self.mass_overrides
            .iter()
            .rev()
            .find(|(i, _)| *i == k)
            .map_or(style.mass, |(_, m)| *m)
    }

    /// Everything [`World::add_point`], [`World::add_spring`] and
    /// [`World::add_body`] would check, with the indices they would report.
    pub(super) fn check(&self, world: &World, style: &ShapeStyle) -> Result<(), WorldError> {
        let base_p = world.points().len() as u64;
        let base_s = world.springs().len() as u64;
        let base_b = world.bodies().len() as u64;
        for (what, base, n) in [
            ("points", base_p, self.pos.len()),
            ("springs", base_s, self.springs.len()),
            ("bodies", base_b, self.bodies.len()),
        ] {
            if base + n as u64 > MAX_ITEMS {
                return Err(WorldError::TooMany {
                    what,
                    count: base + n as u64,
                    limit: MAX_ITEMS,
                });
            }
        }
        let point = |k: usize| Item::Point((base_p + k as u64) as u32);
        if !self.pos.is_empty() {
            crate::validate::check_velocity(point(0), "vel", style.vel)?;
            if style.material.index() >= world.materials().len() {
                return Err(WorldError::IndexOutOfRange {
                    item: point(0),
                    field: "material",
                    index: style.material.0,
                    len: world.materials().len() as u32,
                });
            }
        }
        for (k, p) in self.pos.iter().enumerate() {
            crate::validate::check_position(point(k), "pos", *p)?;
            crate::validate::check_mass(point(k), self.mass_of(style, k as u32))?;
        }
        if !self.springs.is_empty() {
            let item = Item::Spring(base_s as u32);
            crate::validate::check_opt_non_negative(item, "stiffness", style.spring_stiffness)?;
            crate::validate::check_opt_non_negative(item, "damping", style.spring_damping)?;
        }
        for (k, &[a, b]) in self.springs.iter().enumerate() {
            let item = Item::Spring((base_s + k as u64) as u32);
            let d = self.pos[a as usize].distance(self.pos[b as usize]);
            // Finite and within MAX_LENGTH: the positions were checked
            // within MAX_COORD above.
            if d == 0.0 {
                return Err(WorldError::ZeroLengthSpring {
                    item,
                    a: (base_p + a as u64) as u32,
                    b: (base_p + b as u64) as u32,
                });
            }
        }
        if !self.bodies.is_empty() {
            let item = Item::Body(base_b as u32);
            crate::validate::check_opt_non_negative(item, "stiffness", style.body_stiffness)?;
            crate::validate::check_opt_non_negative(item, "damping", style.body_damping)?;
            crate::validate::check_opt_non_negative(
                item,
                "area_stiffness",
                style.body_area_stiffness,
            )?;
            crate::validate::check_inflation(item, style.inflation)?;
        }
        for (k, body) in self.bodies.iter().enumerate() {
            let first = self.pos[body.points[0] as usize];
            if body.points.iter().all(|&i| self.pos[i as usize] == first) {
                return Err(WorldError::DegenerateBody {
                    item: Item::Body((base_b + k as u64) as u32),
                    reason: "rest shape has fewer than 2 distinct positions".into(),
                });
            }
        }
        Ok(())
    }

    /// Checks, then adds everything.
    pub(super) fn commit(self, world: &mut World, style: &ShapeStyle) -> Result<Shape, WorldError> {
        self.check(world, style)?;
        let mut shape = Shape {
            points: Vec::with_capacity(self.pos.len()),
            springs: Vec::with_capacity(self.springs.len()),
            bodies: Vec::with_capacity(self.bodies.len()),
        };
        for (k, &pos) in self.pos.iter().enumerate() {
            let p = Point::new(pos)
                .mass(self.mass_of(style, k as u32))
                .vel(style.vel)
                .material(style.material)
                .layers(style.layers);
            shape.points.push(world.add_point(p)?);
        }
        for &[a, b] in &self.springs {
            let s = Spring {
                stiffness: style.spring_stiffness,
                damping: style.spring_damping,
                ..Spring::new(shape.points[a as usize], shape.points[b as usize])
                    .kind(style.spring_kind)
            };
            shape.springs.push(world.add_spring(s)?);
        }
        for body in &self.bodies {
            let handles = |local: &[u32]| -> Vec<PointHandle> {
                local.iter().map(|&i| shape.points[i as usize]).collect()
            };
            let b = Body {
                stiffness: style.body_stiffness,
                damping: style.body_damping,
                area_stiffness: style.body_area_stiffness,
                inflation: style.inflation,
                boundary: body.boundary.as_deref().map(handles),
                material: style.material,
                category: style.category,
                mask: style.mask,
                ..Body::new(handles(&body.points))
            };
            shape.bodies.push(world.add_body(b)?);
        }
        Ok(shape)
    }
}

// ---------------------------------------------------------------------------
