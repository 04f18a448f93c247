//! Ropes: a chain of points joined by springs or rods.

use super::*;

/// A rope: `n` evenly spaced points from `a` to `b`, each linked to the
/// next, and no body.
///
/// Defaults: both ends free, the [`ShapeStyle`] defaults; in particular the
/// links are force springs ([`SpringKind::Spring`]), which stretch under
/// load. Use `.spring_kind(SpringKind::Rod)` for an inextensible chain
/// (stiffer with more [`Params::rod_iterations`](crate::Params::rod_iterations)).
/// The style's body settings are unused.
///
/// The [`Shape`] holds points `[a, .., b]`, springs `[0-1, .., (n-2)-(n-1)]`
/// and no body.
///
/// ```
/// use softbody::prelude::*;
///
/// let mut world = World::default();
/// let rope = Rope::new(Vec2::new(0.0, 3.0), Vec2::new(2.0, 3.0), 21)
///     .pin_first(true)
///     .spring_kind(SpringKind::Rod)
///     .build(&mut world)?;
/// assert_eq!(rope.springs.len(), 20);
/// assert!(world.point(rope.points[0]).is_pinned());
/// # Ok::<(), WorldError>(())
/// ```
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rope {
    /// First end, in metres.
    pub a: Vec2,
    /// Last end, in metres; must differ from `a`.
    pub b: Vec2,
    /// Points, `>= 2`.
    pub n: usize,
    /// Whether the first point is pinned (mass `0`).
    pub pin_first: bool,
    /// Whether the last point is pinned (mass `0`).
    pub pin_last: bool,
    /// Points and springs.
    pub style: ShapeStyle,
}

impl Rope {
    /// A rope of `n` points from `a` to `b`.
    pub fn new(a: Vec2, b: Vec2, n: usize) -> Self {
        Self {
            a,
            b,
            n,
            pin_first: false,
            pin_last: false,
            style: ShapeStyle::DEFAULT,
        }
    }
    /// With the first point pinned or free.
    pub fn pin_first(mut self, on: bool) -> Self {
        self.pin_first = on;
        self
    }
    /// With the last point pinned or free.
    pub fn pin_last(mut self, on: bool) -> Self {
        self.pin_last = on;
        self
    }
    style_setters!();

    /// Adds the rope to the world. Fails with
    /// [`WorldError::ZeroLengthSpring`] when `a == b` (or when the points
    /// are so close that two neighbours coincide in `f32`).
    pub fn build(self, world: &mut World) -> Result<Shape, WorldError> {
        let n = self.n;
        arg_count(world, "Rope.n", n, 2, ">= 2")?;
        let n = cap_points("points in one Rope", n as u128)?;
        arg_vec(world, "Rope.a", self.a)?;
        arg_vec(world, "Rope.b", self.b)?;

        let last = n - 1;
        add_shape(world, &self.style, |add| {
            for k in 0..n {
                let p = if k == last {
                    self.b
                } else {
                    self.a.lerp(self.b, (k as f64 / last as f64) as f32)
                };
                let pinned = (k == 0 && self.pin_first) || (k == last && self.pin_last);
                add.point_of_mass(p, if pinned { 0.0 } else { self.style.mass })?;
            }
            if self.style.springs {
                for k in 0..last {
                    add.spring(k, k + 1)?;
                }
            }
            Ok(())
        })
    }
}
