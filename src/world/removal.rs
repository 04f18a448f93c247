//! Removing bodies, points and springs from a world, at a cost in
//! proportion to what is removed: the items that touch a removed one are
//! found by the points' links (`links.rs`), and survivors from the end
//! fill the holes ([`Remap`]), so only the items that move are renumbered.

use crate::error::{Item, WorldError};

use super::*;

/// The indices `handles` names, sorted and without repeats, or the error
/// for the first one past `len` (an item of the kind `item` makes).
fn known(
    handles: impl Iterator<Item = u32>,
    len: usize,
    item: fn(u32) -> Item,
) -> Result<Vec<u32>, WorldError> {
    let mut v: Vec<u32> = handles.collect();
    if let Some(&h) = v.iter().find(|&&h| h as usize >= len) {
        let len = len as u32;
        return Err(WorldError::UnknownHandle { item: item(h), len });
    }
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// What a removal did: the remaps of points, springs and bodies, and which
/// surviving bodies lost points. Pass it to the solvers' `apply_removal`
/// so that they follow the world without being rebuilt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removal {
    /// Old point index to new.
    pub(crate) points: Remap,
    /// Old spring index to new.
    pub(crate) springs: Remap,
    /// Old body index to new.
    pub(crate) bodies: Remap,
    /// Surviving bodies (new indices) that lost some of their points: their
    /// rest shape is the rest shape of the points they kept.
    pub(crate) reshaped: Vec<BodyHandle>,
    /// The world's generation before and after.
    pub(crate) generation: (u64, u64),
}

impl Removal {
    /// Where a point went, or `None` if it was removed.
    pub fn point(&self, h: PointHandle) -> Option<PointHandle> {
        self.points.get(h.0).map(PointHandle)
    }
    /// Where a spring went, or `None` if it was removed.
    pub fn spring(&self, h: SpringHandle) -> Option<SpringHandle> {
        self.springs.get(h.0).map(SpringHandle)
    }
    /// Where a body went, or `None` if it was removed.
    pub fn body(&self, h: BodyHandle) -> Option<BodyHandle> {
        self.bodies.get(h.0).map(BodyHandle)
    }
    /// Old point index to new, for every point.
    pub fn point_remap(&self) -> &Remap {
        &self.points
    }
    /// Old spring index to new, for every spring.
    pub fn spring_remap(&self) -> &Remap {
        &self.springs
    }
    /// Old body index to new, for every body.
    pub fn body_remap(&self) -> &Remap {
        &self.bodies
    }
    /// Surviving bodies (new indices) that lost some of their points: their
    /// rest shape is now the rest shape of the points they kept.
    pub fn reshaped(&self) -> &[BodyHandle] {
        &self.reshaped
    }
    /// The world's [`generation`](World::generation) before and after this
    /// removal.
    pub fn generations(&self) -> (u64, u64) {
        self.generation
    }
}

impl World {
    /// Which removals the world has seen: 0 for a world that has seen none,
    /// and after each removal a number no other removal in this process has
    /// had (so a removal made on a clone of the world is not taken for one
    /// made on the world itself). A solver remembers the generation it
    /// follows, and refuses to follow a world whose generation moved
    /// without being told how (see `GpuSolver::apply_removal`).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Removes a body and the points no other body contains, with every
    /// spring that touches a removed point.
    ///
    /// Points shared with other bodies stay, and so do springs between
    /// surviving points (a removed cell of a [`BoxGrid`](crate::shapes::BoxGrid)
    /// whose four corners are all shared keeps its diagonal springs). The
    /// last items of each kind move into the removed ones' places, so a
    /// removal costs what the removed body touches, not what the world
    /// holds; the returned [`Removal`] says where each item went, and
    /// [keys](World::body_key) name the same items throughout.
    ///
    /// ```
    /// use softbody::prelude::*;
    ///
    /// let mut world = World::default();
    /// let a = BoxShape::new(Vec2::ZERO, Vec2::ONE).build(&mut world)?;
    /// let b = BoxShape::new(Vec2::new(3.0, 0.0), Vec2::ONE).build(&mut world)?;
    /// let removal = world.remove_body(a.bodies[0])?;
    /// assert_eq!(world.points().len(), 4);
    /// assert_eq!(removal.body(b.bodies[0]), Some(BodyHandle(0)));
    /// assert_eq!(removal.point(a.points[0]), None);
    /// # Ok::<(), WorldError>(())
    /// ```
    pub fn remove_body(&mut self, body: BodyHandle) -> Result<Removal, WorldError> {
        self.remove_bodies(&[body])
    }

    /// Removes several bodies at once, as [`World::remove_body`] removes
    /// one: the points no surviving body contains go with them, with every
    /// spring that touches a removed point. The solvers follow the one
    /// [`Removal`] with one `apply_removal`. Repeated handles are fine; an unknown one is
    /// refused before anything is removed.
    ///
    /// ```
    /// use softbody::prelude::*;
    ///
    /// let mut world = World::default();
    /// let boxes: Vec<BodyHandle> = (0..4)
    ///     .map(|i| {
    ///         let at = Vec2::new(2.0 * i as f32, 0.0);
    ///         Ok(BoxShape::new(at, Vec2::ONE).build(&mut world)?.bodies[0])
    ///     })
    ///     .collect::<Result<_, WorldError>>()?;
    /// let removal = world.remove_bodies(&[boxes[0], boxes[2]])?;
    /// assert_eq!(world.bodies().len(), 2);
    /// // The last box fills the first one's place; the second stays.
    /// assert_eq!(removal.body(boxes[3]), Some(BodyHandle(0)));
    /// assert_eq!(removal.body(boxes[1]), Some(BodyHandle(1)));
    /// # Ok::<(), WorldError>(())
    /// ```
    pub fn remove_bodies(&mut self, bodies: &[BodyHandle]) -> Result<Removal, WorldError> {
        let removed = known(bodies.iter().map(|b| b.0), self.bodies.len(), Item::Body)?;
        // A point goes when every body that holds it goes.
        let mut points: Vec<u32> = removed
            .iter()
            .flat_map(|&b| self.bodies[b as usize].points.iter().map(|p| p.0))
            .filter(|&p| (self.links.bodies_of(p).iter()).all(|b| removed.binary_search(b).is_ok()))
            .collect();
        points.sort_unstable();
        points.dedup();
        Ok(self.remove_items(points, removed, Vec::new()))
    }

    /// Removes points, every spring that touches one of them, and the
    /// points from the bodies that contain them. A body left with fewer
    /// than 2 points, or whose remaining rest positions coincide, is
    /// removed too; a body that keeps enough points keeps their rest
    /// positions (it is listed in [`Removal::reshaped`]). Repeated handles
    /// are fine.
    pub fn remove_points(&mut self, points: &[PointHandle]) -> Result<Removal, WorldError> {
        let removed = known(points.iter().map(|p| p.0), self.points.len(), Item::Point)?;
        Ok(self.remove_items(removed, Vec::new(), Vec::new()))
    }

    /// Removes springs and rods alone: the points and bodies stay where
    /// they are, and the last springs move into the removed ones' places.
    /// This breaks a joint made of springs or rods between bodies (a
    /// tow bar, a rope's link); a joint made of shared points breaks with
    /// [`World::remove_points`] of those points. Repeated handles are
    /// fine; an unknown one is refused before anything is removed.
    ///
    /// ```
    /// use softbody::prelude::*;
    ///
    /// let mut world = World::default();
    /// let a = world.add_point(Point::new(Vec2::ZERO))?;
    /// let b = world.add_point(Point::new(Vec2::X))?;
    /// let link = world.add_spring(Spring::new(a, b))?;
    /// let removal = world.remove_springs(&[link])?;
    /// assert!(world.springs().is_empty());
    /// assert_eq!(removal.point(b), Some(b));
    /// # Ok::<(), WorldError>(())
    /// ```
    pub fn remove_springs(&mut self, springs: &[SpringHandle]) -> Result<Removal, WorldError> {
        let removed = known(
            springs.iter().map(|s| s.0),
            self.springs.len(),
            Item::Spring,
        )?;
        Ok(self.remove_items(Vec::new(), Vec::new(), removed))
    }
}

impl World {
    /// Removes the points `points` (sorted, without repeats), the bodies
    /// `bodies` (likewise) and the springs `springs` (any order), and with
    /// them every spring that touches a removed point; a body that loses
    /// points keeps the others, or goes when too few are left. Visits only
    /// the removed items, what touches them, and the items that move into
    /// their places.
    fn remove_items(&mut self, points: Vec<u32>, bodies: Vec<u32>, springs: Vec<u32>) -> Removal {
        let gone = |p: u32| points.binary_search(&p).is_ok();
        let mut springs = springs;
        for &p in &points {
            springs.extend_from_slice(self.links.springs_of(p));
        }
        springs.sort_unstable();
        springs.dedup();
        // The surviving bodies that lose points: reshaped, or removed when
        // what is left is degenerate.
        let mut bodies = bodies;
        let mut touched: Vec<u32> = points
            .iter()
            .flat_map(|&p| self.links.bodies_of(p).iter().copied())
            .filter(|b| bodies.binary_search(b).is_err())
            .collect();
        touched.sort_unstable();
        touched.dedup();
        let mut reshaped = Vec::new();
        for b in touched {
            let (body, rest) = (&self.bodies[b as usize], &self.rest_shapes[b as usize]);
            let rs: Vec<Vec2> = (body.points.iter().zip(rest))
                .filter(|(p, _)| !gone(p.0))
                .map(|(_, r)| *r)
                .collect();
            if rs.len() < 2 || rs.iter().all(|r| *r == rs[0]) {
                bodies.push(b);
            } else {
                reshaped.push((b, rs));
            }
        }
        bodies.sort_unstable();
        let point_map = Remap::from_removed(self.points.len(), &points);
        let spring_map = Remap::from_removed(self.springs.len(), &springs);
        let body_map = Remap::from_removed(self.bodies.len(), &bodies);

        // Out of the fingerprints while the keys name the items as they
        // are (a reshaped body goes back in below, as it will be).
        let (keys, f) = (&self.point_keys, &mut self.fingerprints);
        for &p in &points {
            f.point(keys, p as usize, &self.points[p as usize], Edit::Take);
        }
        for &s in &springs {
            f.spring(keys, &self.springs[s as usize], Edit::Take);
        }
        for b in bodies.iter().chain(reshaped.iter().map(|(b, _)| b)) {
            f.body(keys, &self.bodies[*b as usize], Edit::Take);
        }
        // The survivors' links to removed springs and bodies go.
        for &s in &springs {
            let spring = self.springs[s as usize];
            for end in [spring.a.0, spring.b.0].into_iter().filter(|&e| !gone(e)) {
                self.links.take_spring(end, s);
            }
        }
        for &b in &bodies {
            for p in self.bodies[b as usize].points.iter().filter(|p| !gone(p.0)) {
                self.links.take_body(p.0, b);
            }
        }
        for (b, rs) in reshaped.iter_mut() {
            let body = &mut self.bodies[*b as usize];
            body.points.retain(|p| !gone(p.0));
            if let Some(boundary) = &mut body.boundary {
                boundary.retain(|p| !gone(p.0));
            }
            if body.rest.is_some() {
                body.rest = Some(rs.clone());
            }
            self.rest_shapes[*b as usize] = std::mem::take(rs);
        }

        // Springs, then bodies, then points move into the holes, each
        // renaming itself in the links of what it touches.
        for (old, new) in spring_map.moves() {
            let s = self.springs[old as usize];
            self.links.rename_spring(s.a.0, old, new);
            self.links.rename_spring(s.b.0, old, new);
        }
        spring_map.apply_in_place(&mut self.springs);
        spring_map.apply_in_place(&mut self.rest_lengths);
        for (old, new) in body_map.moves() {
            for p in &self.bodies[old as usize].points {
                self.links.rename_body(p.0, old, new);
            }
            self.bodies.swap(old as usize, new as usize);
            self.rest_shapes.swap(old as usize, new as usize);
        }
        self.bodies.truncate(body_map.new_len());
        self.rest_shapes.truncate(body_map.new_len());
        for (old, new) in point_map.moves() {
            let (from, to) = (PointHandle(old), PointHandle(new));
            for &s in self.links.springs_of(old) {
                let spring = &mut self.springs[s as usize];
                for end in [&mut spring.a, &mut spring.b] {
                    if *end == from {
                        *end = to;
                    }
                }
            }
            for &b in self.links.bodies_of(old) {
                let body = &mut self.bodies[b as usize];
                let boundary = body.boundary.iter_mut().flatten();
                for p in body.points.iter_mut().chain(boundary) {
                    if *p == from {
                        *p = to;
                    }
                }
            }
            self.links.move_point(old, new);
        }
        point_map.apply_in_place(&mut self.points);
        self.links.truncate_points(point_map.new_len());
        self.point_keys.remap(&point_map);
        self.body_keys.remap(&body_map);
        self.remap_joints(&body_map);
        let reshaped: Vec<BodyHandle> = reshaped
            .iter()
            .map(|(b, _)| BodyHandle(body_map.get(*b).expect("reshaped bodies stay")))
            .collect();
        for b in &reshaped {
            let body = &self.bodies[b.index()];
            self.fingerprints.body(&self.point_keys, body, Edit::Add);
        }
        debug_assert!(self.fingerprints_hold());
        debug_assert!((self.links).hold(self.points.len(), &self.springs, &self.bodies));
        let before = self.generation;
        self.generation = REMOVAL_TOKENS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        Removal {
            points: point_map,
            springs: spring_map,
            bodies: body_map,
            reshaped,
            generation: (before, self.generation),
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use crate::shapes::{Blob, BoxGrid, BoxShape, Rope, Wheel};
    use crate::world::{BodyHandle, PointHandle, SpringHandle, World};

    /// Each item as its keys name it: a point's key and data, a spring's
    /// ends' keys and data, a body's key, its points' keys and rest shape.
    fn described(w: &World) -> (Vec<String>, Vec<String>, Vec<String>) {
        let key = |p: PointHandle| format!("{:?}", w.point_key(p).unwrap());
        let points = (w.points().iter().enumerate())
            .map(|(i, p)| format!("{} {p:?}", key(PointHandle(i as u32))))
            .collect();
        let springs = (w.springs().iter().zip(w.rest_lengths()))
            .map(|(s, r)| format!("{} {} {:?} {r}", key(s.a), key(s.b), s.kind))
            .collect();
        let bodies = (w.bodies().iter().enumerate())
            .map(|(i, b)| {
                let pts: Vec<String> = b.points.iter().map(|p| key(*p)).collect();
                let outline: Vec<String> = b.outline().iter().map(|p| key(*p)).collect();
                let body = w.body_key(BodyHandle(i as u32)).unwrap();
                format!("{body:?} {pts:?} {outline:?} {:?}", w.rest_shapes()[i])
            })
            .collect();
        (points, springs, bodies)
    }

    /// Removals of bodies, points and springs, in many shapes and orders:
    /// after each, every surviving item is found where the removal says,
    /// the same item by its keys; at most as many items move as go; the
    /// links and fingerprints hold.
    #[test]
    fn every_survivor_is_where_the_removal_says() {
        let mut w = World::default();
        BoxGrid::new(4, 3, Vec2::splat(0.5)).build(&mut w).unwrap();
        Wheel::new(Vec2::new(5.0, 0.0), 1.0, 12)
            .build(&mut w)
            .unwrap();
        Rope::new(Vec2::new(0.0, 5.0), Vec2::new(4.0, 5.0), 8)
            .build(&mut w)
            .unwrap();
        for k in 0..6 {
            let at = Vec2::new(k as f32 * 1.5, 9.0);
            BoxShape::new(at, Vec2::splat(0.5)).build(&mut w).unwrap();
            Blob::new(at + Vec2::Y * 2.0, 0.4, 8 + k)
                .center_point(k % 2 == 0)
                .build(&mut w)
                .unwrap();
        }
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as u32
        };
        for round in 0..30 {
            if w.bodies().is_empty() {
                break;
            }
            let before = described(&w);
            let r = match round % 3 {
                0 => {
                    let picks: Vec<BodyHandle> =
                        (0..2).map(|_| BodyHandle(next(w.bodies().len()))).collect();
                    w.remove_bodies(&picks).unwrap()
                }
                1 => {
                    let picks: Vec<PointHandle> = (0..3)
                        .map(|_| PointHandle(next(w.points().len())))
                        .collect();
                    w.remove_points(&picks).unwrap()
                }
                _ if !w.springs().is_empty() => {
                    let picks: Vec<SpringHandle> = (0..3)
                        .map(|_| SpringHandle(next(w.springs().len())))
                        .collect();
                    w.remove_springs(&picks).unwrap()
                }
                _ => continue,
            };
            let after = described(&w);
            for (old, was) in before.0.iter().enumerate() {
                if let Some(new) = r.point(PointHandle(old as u32)) {
                    assert_eq!(&after.0[new.index()], was, "round {round}: point {old}");
                }
            }
            for (old, was) in before.1.iter().enumerate() {
                if let Some(new) = r.spring(SpringHandle(old as u32)) {
                    assert_eq!(&after.1[new.index()], was, "round {round}: spring {old}");
                }
            }
            let reshaped = r.reshaped();
            for (old, was) in before.2.iter().enumerate() {
                if let Some(new) = r.body(BodyHandle(old as u32))
                    && !reshaped.contains(&new)
                {
                    assert_eq!(&after.2[new.index()], was, "round {round}: body {old}");
                }
            }
            for map in [r.point_remap(), r.spring_remap(), r.body_remap()] {
                assert!(map.moves().count() <= map.old_len() - map.new_len());
                assert_eq!(map.removed().count(), map.old_len() - map.new_len());
            }
            assert!(w.links.hold(w.points().len(), w.springs(), w.bodies()));
            assert!(w.fingerprints_hold());
        }
        assert!(w.bodies().len() < 12, "the removals removed");
    }
}
