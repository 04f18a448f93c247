//! Adding a shape's items, by indices local to the shape, through the
//! world's own `add_*` calls in one [`World::transaction`].

use super::*;
use crate::world::Transaction;

/// Adds a shape's points, springs and bodies with the style's settings,
/// collecting their handles.
pub(super) struct Adder<'t, 'w> {
    tx: &'t mut Transaction<'w>,
    style: &'t ShapeStyle,
    shape: Shape,
}

/// Runs `f` on an [`Adder`] in a transaction: the shape it adds, or, on the
/// first error the world reports, the world as it was.
pub(super) fn add_shape(
    world: &mut World,
    style: &ShapeStyle,
    f: impl FnOnce(&mut Adder<'_, '_>) -> Result<(), WorldError>,
) -> Result<Shape, WorldError> {
    world.transaction(|tx| {
        let mut adder = Adder {
            tx,
            style,
            shape: Shape::default(),
        };
        f(&mut adder)?;
        Ok(adder.shape)
    })
}

impl Adder<'_, '_> {
    /// A point at `pos` with the style's mass.
    pub(super) fn point(&mut self, pos: Vec2) -> Result<(), WorldError> {
        self.point_of_mass(pos, self.style.mass)
    }

    /// A point at `pos` whose mass differs from the style's (a pinned rope
    /// end, a hub).
    pub(super) fn point_of_mass(&mut self, pos: Vec2, mass: f32) -> Result<(), WorldError> {
        let style = self.style;
        let p = Point::new(pos)
            .mass(mass)
            .vel(style.vel)
            .material(style.material)
            .layers(style.layers)
            .gravity_scale(style.gravity_scale);
        self.shape.points.push(self.tx.add_point(p)?);
        Ok(())
    }

    /// A spring between the shape's points `a` and `b`.
    pub(super) fn spring(&mut self, a: usize, b: usize) -> Result<(), WorldError> {
        let style = self.style;
        let (a, b) = (self.shape.points[a], self.shape.points[b]);
        let s = Spring {
            stiffness: style.spring_stiffness,
            damping: style.spring_damping,
            ..Spring::new(a, b).kind(style.spring_kind)
        };
        self.shape.springs.push(self.tx.add_spring(s)?);
        Ok(())
    }

    /// A body over the shape's `points`, which in order are its outline.
    pub(super) fn body(
        &mut self,
        points: impl IntoIterator<Item = usize>,
    ) -> Result<(), WorldError> {
        let body = Body::new(self.handles(points));
        self.add_body(body)
    }

    /// A body over the shape's `points` whose outline is `boundary` (a hub
    /// inside).
    pub(super) fn body_with_boundary(
        &mut self,
        points: impl IntoIterator<Item = usize>,
        boundary: impl IntoIterator<Item = usize>,
    ) -> Result<(), WorldError> {
        let body = Body {
            boundary: Some(self.handles(boundary)),
            ..Body::new(self.handles(points))
        };
        self.add_body(body)
    }

    fn handles(&self, local: impl IntoIterator<Item = usize>) -> Vec<PointHandle> {
        local.into_iter().map(|i| self.shape.points[i]).collect()
    }

    fn add_body(&mut self, body: Body) -> Result<(), WorldError> {
        let style = self.style;
        let b = Body {
            stiffness: style.body_stiffness,
            damping: style.body_damping,
            area_stiffness: style.body_area_stiffness,
            inflation: style.inflation,
            material: style.material,
            category: style.category,
            mask: style.mask,
            ..body
        };
        self.shape.bodies.push(self.tx.add_body(b)?);
        Ok(())
    }
}
