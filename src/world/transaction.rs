//! All-or-nothing additions: a transaction that truncates the world back
//! to where it started when it fails.

use std::ops::Deref;

use super::*;

/// Additions to a [`World`] that are kept together or not at all; see
/// [`World::transaction`].
///
/// It offers the world's `add_*` methods, each with the world's own checks,
/// and through `Deref` everything that reads the world. It offers nothing
/// that changes or removes an item already there: additions only append,
/// so truncating back to the lengths the transaction started from restores
/// the world exactly.
pub struct Transaction<'w> {
    world: &'w mut World,
    start: Lengths,
    /// Set when the closure succeeded; otherwise dropping the transaction
    /// (on an error or a panic) rolls back.
    keep: bool,
}

/// The length and capacity of each list an `add_*` call appends to.
/// `rest_lengths` and `rest_shapes` run parallel to `springs` and
/// `bodies`, and the point and body keys to `points` and `bodies`; the
/// fingerprints' sums only grow, and nothing else in a [`World`] changes
/// when an item is added.
#[derive(Clone, Copy)]
struct Lengths {
    points: (usize, usize),
    springs: (usize, usize),
    rest_lengths: (usize, usize),
    bodies: (usize, usize),
    rest_shapes: (usize, usize),
    planets: (usize, usize),
    planes: (usize, usize),
    materials: (usize, usize),
    point_keys: (usize, usize),
    body_keys: (usize, usize),
    /// The fingerprints' sums, which additions only add to.
    fingerprints: fingerprint::Fingerprints,
}

fn mark<T>(v: &Vec<T>) -> (usize, usize) {
    (v.len(), v.capacity())
}

/// Truncates `v` back to `len`, and gives back memory it grew by (a failed
/// build of a large shape would otherwise keep its allocation).
fn truncate<T>(v: &mut Vec<T>, (len, capacity): (usize, usize)) {
    v.truncate(len);
    v.shrink_to(capacity);
}

impl Lengths {
    fn of(w: &World) -> Self {
        Self {
            points: mark(&w.points),
            springs: mark(&w.springs),
            rest_lengths: mark(&w.rest_lengths),
            bodies: mark(&w.bodies),
            rest_shapes: mark(&w.rest_shapes),
            planets: mark(&w.planets),
            planes: mark(&w.planes),
            materials: mark(&w.materials),
            point_keys: w.point_keys.mark(),
            body_keys: w.body_keys.mark(),
            fingerprints: w.fingerprints,
        }
    }

    fn restore(self, w: &mut World) {
        let (s0, b0) = (self.springs.0, self.bodies.0);
        let touched = (w.springs[s0..].iter().flat_map(|s| [s.a.0, s.b.0])).chain(
            w.bodies[b0..]
                .iter()
                .flat_map(|b| b.points.iter().map(|p| p.0)),
        );
        w.links
            .truncate(self.points.0, (s0 as u32, b0 as u32), touched);
        w.point_keys.truncate(self.point_keys);
        w.body_keys.truncate(self.body_keys);
        truncate(&mut w.points, self.points);
        truncate(&mut w.springs, self.springs);
        truncate(&mut w.rest_lengths, self.rest_lengths);
        truncate(&mut w.bodies, self.bodies);
        truncate(&mut w.rest_shapes, self.rest_shapes);
        truncate(&mut w.planets, self.planets);
        truncate(&mut w.planes, self.planes);
        truncate(&mut w.materials, self.materials);
        w.fingerprints = self.fingerprints;
    }
}

impl World {
    /// Runs `f`, which adds items through a [`Transaction`], and keeps them
    /// only if it returns `Ok`. On `Err` (or a panic) the world is truncated
    /// back to what it was before the call: equal to it, with the same
    /// handles to hand out next. The errors are the world's own, with the
    /// indices the items would have had.
    ///
    /// ```
    /// use softbody::prelude::*;
    ///
    /// let mut world = World::default();
    /// let before = world.clone();
    /// let err = world
    ///     .transaction(|tx| {
    ///         let a = tx.add_point(Point::new(Vec2::ZERO))?;
    ///         let b = tx.add_point(Point::new(Vec2::X).mass(-1.0))?;
    ///         tx.add_spring(Spring::new(a, b))
    ///     })
    ///     .unwrap_err();
    /// assert_eq!(err.to_string(), "point 1: mass is negative (-1)");
    /// assert_eq!(world, before);
    /// # Ok::<(), WorldError>(())
    /// ```
    pub fn transaction<T, E>(
        &mut self,
        f: impl FnOnce(&mut Transaction<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut tx = Transaction {
            start: Lengths::of(self),
            world: self,
            keep: false,
        };
        let out = f(&mut tx);
        tx.keep = out.is_ok();
        out
    }
}

impl Drop for Transaction<'_> {
    fn drop(&mut self) {
        if !self.keep {
            self.start.restore(self.world);
        }
    }
}

impl Deref for Transaction<'_> {
    type Target = World;
    fn deref(&self) -> &World {
        self.world
    }
}

impl Transaction<'_> {
    /// [`World::add_point`].
    pub fn add_point(&mut self, p: Point) -> Result<PointHandle, WorldError> {
        self.world.add_point(p)
    }
    /// [`World::add_spring`].
    pub fn add_spring(&mut self, s: Spring) -> Result<SpringHandle, WorldError> {
        self.world.add_spring(s)
    }
    /// [`World::add_body`].
    pub fn add_body(&mut self, b: Body) -> Result<BodyHandle, WorldError> {
        self.world.add_body(b)
    }
    /// [`World::add_material`].
    pub fn add_material(&mut self, m: Material) -> Result<MaterialHandle, WorldError> {
        self.world.add_material(m)
    }
    /// [`World::add_planet`].
    pub fn add_planet(&mut self, p: Planet) -> Result<PlanetHandle, WorldError> {
        self.world.add_planet(p)
    }
    /// [`World::add_plane`].
    pub fn add_plane(&mut self, p: HalfPlane) -> Result<PlaneHandle, WorldError> {
        self.world.add_plane(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A world with one of everything, and room to spare in no list.
    fn populated() -> World {
        let mut w = World::default();
        let mat = w.add_material(Material::DEFAULT).unwrap();
        let a = w.add_point(Point::new(Vec2::ZERO)).unwrap();
        let b = w.add_point(Point::new(Vec2::X).material(mat)).unwrap();
        let c = w.add_point(Point::new(Vec2::Y)).unwrap();
        w.add_spring(Spring::new(a, b)).unwrap();
        w.add_body(Body::new(vec![a, b, c])).unwrap();
        w.add_planet(Planet::new(Vec2::new(0.0, -10.0), 1.0))
            .unwrap();
        w.add_plane(HalfPlane::floor(-1.0)).unwrap();
        w
    }

    /// Adds one of everything through `tx`, with handles continuing `w`'s.
    fn add_everything(tx: &mut Transaction<'_>) -> Result<(), WorldError> {
        let mat = tx.add_material(Material::DEFAULT)?;
        let a = tx.add_point(Point::new(Vec2::new(2.0, 0.0)).material(mat))?;
        let b = tx.add_point(Point::new(Vec2::new(3.0, 0.0)))?;
        let c = tx.add_point(Point::new(Vec2::new(2.0, 1.0)))?;
        tx.add_spring(Spring::new(a, b))?;
        tx.add_spring(Spring::new(b, c).rest_length(2.0))?;
        tx.add_body(Body::new(vec![a, b, c]))?;
        tx.add_planet(Planet::new(Vec2::new(5.0, -10.0), 1.0))?;
        tx.add_plane(HalfPlane::floor(-2.0))?;
        Ok(())
    }

    fn assert_same(w: &World, before: &World) {
        assert_eq!(w, before);
        assert_eq!(w.points(), before.points());
        assert_eq!(w.springs(), before.springs());
        assert_eq!(w.rest_lengths(), before.rest_lengths());
        assert_eq!(w.bodies(), before.bodies());
        assert_eq!(w.rest_shapes(), before.rest_shapes());
        assert_eq!(w.planets(), before.planets());
        assert_eq!(w.planes(), before.planes());
        assert_eq!(w.materials(), before.materials());
        assert_eq!(w.generation(), before.generation());
    }

    #[test]
    fn a_transaction_that_succeeds_keeps_everything() {
        let mut direct = populated();
        let mut w = direct.clone();
        // The same additions straight on the world: a transaction that
        // keeps whatever happens.
        let mut tx = Transaction {
            start: Lengths::of(&direct),
            world: &mut direct,
            keep: true,
        };
        add_everything(&mut tx).unwrap();
        drop(tx);
        w.transaction(add_everything).unwrap();
        assert_same(&w, &direct);
        assert_eq!(w.materials().len(), 3);
        assert_eq!(w.rest_lengths()[2], 2.0);
        // The value the closure returns is handed back.
        let h = w
            .transaction(|tx| tx.add_point(Point::new(Vec2::ONE)))
            .unwrap();
        assert_eq!(h, PointHandle(6));
    }

    #[test]
    fn a_failed_transaction_leaves_the_world_as_it_was() {
        let mut w = populated();
        let before = w.clone();
        let caps = Lengths::of(&w);
        // Fails after every kind of item was added many times over, at the
        // world's own limit of half-planes (64).
        let err = w
            .transaction(|tx| {
                add_everything(tx)?;
                for _ in 0..1000 {
                    add_everything(tx)?;
                }
                Ok(())
            })
            .unwrap_err();
        assert!(
            matches!(err, WorldError::TooMany { what: "planes", .. }),
            "{err:?}"
        );
        assert_same(&w, &before);
        // The memory it grew by is given back, too.
        let now = Lengths::of(&w);
        for (was, is) in [
            (caps.points, now.points),
            (caps.springs, now.springs),
            (caps.rest_lengths, now.rest_lengths),
            (caps.bodies, now.bodies),
            (caps.rest_shapes, now.rest_shapes),
            (caps.planets, now.planets),
            (caps.planes, now.planes),
            (caps.materials, now.materials),
        ] {
            assert_eq!(was.0, is.0);
            assert!(is.1 < was.1 + 64, "capacity {} grew to {}", was.1, is.1);
        }
        // The next handles are the ones before the failure.
        assert_eq!(
            w.add_point(Point::new(Vec2::ONE)).unwrap(),
            PointHandle(before.points().len() as u32)
        );
    }

    #[test]
    fn the_error_is_the_worlds_own_with_its_index() {
        let mut w = populated();
        let before = w.clone();
        let mut direct = w.clone();
        direct.add_point(Point::new(Vec2::new(4.0, 4.0))).unwrap();
        let expected = direct
            .add_spring(Spring::new(PointHandle(0), PointHandle(0)))
            .unwrap_err();
        let err = w
            .transaction(|tx| {
                tx.add_point(Point::new(Vec2::new(4.0, 4.0)))?;
                tx.add_spring(Spring::new(PointHandle(0), PointHandle(0)))
            })
            .unwrap_err();
        assert_eq!(err, expected);
        assert_eq!(
            err,
            WorldError::SelfSpring {
                item: Item::Spring(1),
                a: 0
            }
        );
        assert_same(&w, &before);
    }

    #[test]
    fn any_error_type_rolls_back_and_reads_see_the_additions() {
        let mut w = populated();
        let before = w.clone();
        let out: Result<(), String> = w.transaction(|tx| {
            let n = tx.points().len();
            tx.add_point(Point::new(Vec2::ONE))
                .map_err(|e| e.to_string())?;
            assert_eq!(tx.points().len(), n + 1);
            Err(format!("refused after {} points", tx.points().len()))
        });
        assert_eq!(out, Err("refused after 4 points".into()));
        assert_same(&w, &before);
    }

    #[test]
    fn a_panic_inside_rolls_back() {
        let mut w = populated();
        let before = w.clone();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            w.transaction(|tx| -> Result<(), WorldError> {
                add_everything(tx)?;
                panic!("a bug in the caller's closure");
            })
        }));
        assert!(caught.is_err());
        assert_same(&w, &before);
    }
}
