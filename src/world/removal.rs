//! Removing bodies and points from a world, and the map from old indices
//! to new ones that the solvers follow.

use glam::Vec2;

use crate::error::{Item, WorldError};

use super::*;

/// Where the items that survived a removal went: old index to new index.
///
/// Removal keeps the order of the surviving items and closes the gaps, like
/// [`Vec::retain`], so every index after a removed item moves down.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Remap {
    /// New index of each old item, or [`Remap::REMOVED`].
    map: Vec<u32>,
    new_len: usize,
}

impl Remap {
    /// Marks a removed item in [`Remap::as_slice`].
    pub const REMOVED: u32 = u32::MAX;

    /// The remap that keeps the items whose flag is `true`.
    pub fn from_kept(kept: &[bool]) -> Self {
        let mut next = 0u32;
        let map = kept
            .iter()
            .map(|&k| {
                if k {
                    next += 1;
                    next - 1
                } else {
                    Self::REMOVED
                }
            })
            .collect();
        Self {
            map,
            new_len: next as usize,
        }
    }
    /// The new index of old item `old`, or `None` if it was removed (or
    /// never existed).
    pub fn get(&self, old: u32) -> Option<u32> {
        self.map
            .get(old as usize)
            .copied()
            .filter(|&i| i != Self::REMOVED)
    }
    /// New index of every old item, [`Remap::REMOVED`] for removed ones.
    pub fn as_slice(&self) -> &[u32] {
        &self.map
    }
    /// Items before the removal.
    pub fn old_len(&self) -> usize {
        self.map.len()
    }
    /// Items after the removal.
    pub fn new_len(&self) -> usize {
        self.new_len
    }
    /// Whether nothing was removed.
    pub fn is_identity(&self) -> bool {
        self.new_len == self.map.len()
    }
    /// The runs of consecutive survivors, as `(old start, new start, length)`:
    /// moving each run is the whole compaction (a solver copies them on the
    /// GPU instead of reading the state back).
    pub fn kept_runs(&self) -> Vec<(usize, usize, usize)> {
        let mut runs: Vec<(usize, usize, usize)> = Vec::new();
        for (old, &new) in self.map.iter().enumerate() {
            if new == Self::REMOVED {
                continue;
            }
            match runs.last_mut() {
                Some((o, _, len)) if *o + *len == old => *len += 1,
                _ => runs.push((old, new as usize, 1)),
            }
        }
        runs
    }
    /// Keeps the survivors of `items` in place, in order.
    pub fn retain_in_place<T>(&self, items: &mut Vec<T>) {
        let mut kept = self.map.iter().map(|&m| m != Self::REMOVED);
        items.retain(|_| kept.next().unwrap_or(true));
    }
    /// The first removed item, or `old_len` when none was: every item
    /// before it keeps its index.
    pub fn first_removed(&self) -> usize {
        self.map
            .iter()
            .position(|&m| m == Self::REMOVED)
            .unwrap_or(self.map.len())
    }
    /// Keeps the survivors of `items`, in order.
    pub fn retain<T: Clone>(&self, items: &[T]) -> Vec<T> {
        items
            .iter()
            .zip(&self.map)
            .filter(|(_, m)| **m != Self::REMOVED)
            .map(|(t, _)| t.clone())
            .collect()
    }
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
    /// indices of everything after a removed item move down; the returned
    /// [`Removal`] says where each item went.
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
    /// spring that touches a removed point. One pass over the world for
    /// all of them, where a removal each would renumber the world once per
    /// body; the solvers follow the one [`Removal`] with one
    /// `apply_removal`. Repeated handles are fine; an unknown one is
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
    /// assert_eq!(removal.body(boxes[3]), Some(BodyHandle(1)));
    /// # Ok::<(), WorldError>(())
    /// ```
    pub fn remove_bodies(&mut self, bodies: &[BodyHandle]) -> Result<Removal, WorldError> {
        let mut remove_body = vec![false; self.bodies.len()];
        for body in bodies {
            let Some(flag) = remove_body.get_mut(body.index()) else {
                return Err(WorldError::UnknownHandle {
                    item: Item::Body(body.0),
                    len: self.bodies.len() as u32,
                });
            };
            *flag = true;
        }
        // A point goes when every body that holds it goes.
        let mut in_kept_body = vec![false; self.points.len()];
        for (other, _) in self.bodies.iter().zip(&remove_body).filter(|(_, r)| !**r) {
            for p in &other.points {
                in_kept_body[p.index()] = true;
            }
        }
        let mut remove_point = vec![false; self.points.len()];
        for (body, _) in self.bodies.iter().zip(&remove_body).filter(|(_, r)| **r) {
            for p in &body.points {
                remove_point[p.index()] = !in_kept_body[p.index()];
            }
        }
        Ok(self.remove_marked(&remove_point, &remove_body))
    }

    /// Removes points, every spring that touches one of them, and the
    /// points from the bodies that contain them. A body left with fewer
    /// than 2 points, or whose remaining rest positions coincide, is
    /// removed too; a body that keeps enough points keeps their rest
    /// positions (it is listed in [`Removal::reshaped`]). Repeated handles
    /// are fine.
    pub fn remove_points(&mut self, points: &[PointHandle]) -> Result<Removal, WorldError> {
        let mut remove_point = vec![false; self.points.len()];
        for p in points {
            if p.index() >= self.points.len() {
                return Err(WorldError::UnknownHandle {
                    item: Item::Point(p.0),
                    len: self.points.len() as u32,
                });
            }
            remove_point[p.index()] = true;
        }
        let remove_body = vec![false; self.bodies.len()];
        Ok(self.remove_marked(&remove_point, &remove_body))
    }

    /// Removes springs and rods alone: the points and bodies stay where
    /// they are, and only the springs after the first removed one move
    /// down. This breaks a joint made of springs or rods between bodies (a
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
        let mut remove_spring = vec![false; self.springs.len()];
        for s in springs {
            let Some(flag) = remove_spring.get_mut(s.index()) else {
                return Err(WorldError::UnknownHandle {
                    item: Item::Spring(s.0),
                    len: self.springs.len() as u32,
                });
            };
            *flag = true;
        }
        let remove_point = vec![false; self.points.len()];
        let remove_body = vec![false; self.bodies.len()];
        Ok(self.remove_marked_with(&remove_point, &remove_body, &remove_spring))
    }

    fn remove_marked(&mut self, remove_point: &[bool], remove_body: &[bool]) -> Removal {
        let none = vec![false; self.springs.len()];
        self.remove_marked_with(remove_point, remove_body, &none)
    }

    /// Removes the marked points, bodies and springs, and with them every
    /// spring that touches a removed point.
    fn remove_marked_with(
        &mut self,
        remove_point: &[bool],
        remove_body: &[bool],
        remove_spring: &[bool],
    ) -> Removal {
        let points = Remap::from_kept(&remove_point.iter().map(|r| !r).collect::<Vec<_>>());
        let kept_springs: Vec<bool> = self
            .springs
            .iter()
            .zip(remove_spring)
            .map(|(s, r)| !r && !remove_point[s.a.index()] && !remove_point[s.b.index()])
            .collect();
        let springs = Remap::from_kept(&kept_springs);
        // Springs before these keep their ends' indices.
        let p0 = points.first_removed();
        let s0 = self
            .springs
            .iter()
            .position(|s| s.a.index() >= p0 || s.b.index() >= p0)
            .unwrap_or(self.springs.len())
            .min(springs.first_removed());
        // The fingerprints lose the removed items (`fingerprint.rs`); the
        // survivors' hashes name keys, which a removal keeps.
        self.unhash_removed(&points, &springs, remove_body);

        // Bodies: drop removed points with their rest positions. A body
        // that keeps all its points is renumbered in place.
        let mut kept_bodies = Vec::with_capacity(self.bodies.len());
        let mut new_bodies = Vec::with_capacity(self.bodies.len());
        let mut new_rest = Vec::with_capacity(self.bodies.len());
        let mut reshaped = Vec::new();
        let renumber = |p: &mut PointHandle| {
            *p = PointHandle(points.get(p.0).expect("kept above"));
        };
        let old_bodies = std::mem::take(&mut self.bodies);
        let old_rest = std::mem::take(&mut self.rest_shapes);
        for ((mut body, rest), &removed) in old_bodies.into_iter().zip(old_rest).zip(remove_body) {
            if removed {
                kept_bodies.push(false);
                continue;
            }
            if body.points.iter().all(|p| !remove_point[p.index()]) {
                kept_bodies.push(true);
                body.points.iter_mut().for_each(renumber);
                if let Some(boundary) = &mut body.boundary {
                    boundary.iter_mut().for_each(renumber);
                }
                new_bodies.push(body);
                new_rest.push(rest);
                continue;
            }
            let (pts, rs): (Vec<PointHandle>, Vec<Vec2>) = body
                .points
                .iter()
                .zip(&rest)
                .filter_map(|(p, r)| points.get(p.0).map(|i| (PointHandle(i), *r)))
                .unzip();
            self.fingerprints.body(&self.point_keys, &body, Edit::Take);
            let degenerate = pts.len() < 2 || rs.iter().all(|r| *r == rs[0]);
            if degenerate {
                kept_bodies.push(false);
                continue;
            }
            kept_bodies.push(true);
            reshaped.push(BodyHandle(new_bodies.len() as u32));
            body.points = pts;
            if let Some(boundary) = &mut body.boundary {
                boundary.retain(|p| !remove_point[p.index()]);
                boundary.iter_mut().for_each(renumber);
            }
            if body.rest.is_some() {
                body.rest = Some(rs.clone());
            }
            new_bodies.push(body);
            new_rest.push(rs);
        }
        let bodies = Remap::from_kept(&kept_bodies);

        springs.retain_in_place(&mut self.springs);
        for s in &mut self.springs[s0..] {
            s.a = PointHandle(points.get(s.a.0).expect("kept springs have kept ends"));
            s.b = PointHandle(points.get(s.b.0).expect("kept springs have kept ends"));
        }
        springs.retain_in_place(&mut self.rest_lengths);
        points.retain_in_place(&mut self.points);
        self.point_keys.remap(&points);
        self.body_keys.remap(&bodies);
        self.remap_joints(&bodies);
        self.bodies = new_bodies;
        for b in &reshaped {
            let body = &self.bodies[b.index()];
            self.fingerprints.body(&self.point_keys, body, Edit::Add);
        }
        self.rest_shapes = new_rest;
        debug_assert!(self.fingerprints_hold());
        let before = self.generation;
        self.generation = REMOVAL_TOKENS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        Removal {
            points,
            springs,
            bodies,
            reshaped,
            generation: (before, self.generation),
        }
    }
}

impl World {
    /// Takes the hashes of the items `points`, `springs` and `remove_body`
    /// remove out of the fingerprints, before the keys follow the removal.
    /// A body that loses points is rehashed where it is reshaped.
    fn unhash_removed(&mut self, points: &Remap, springs: &Remap, remove_body: &[bool]) {
        let (keys, f) = (&self.point_keys, &mut self.fingerprints);
        let removed = |map: &Remap, i: usize| map.as_slice()[i] == Remap::REMOVED;
        for (i, p) in self.points.iter().enumerate() {
            if removed(points, i) {
                f.point(keys, i, p, Edit::Take);
            }
        }
        for (i, s) in self.springs.iter().enumerate() {
            if removed(springs, i) {
                f.spring(keys, s, Edit::Take);
            }
        }
        for (b, _) in self.bodies.iter().zip(remove_body).filter(|(_, r)| **r) {
            f.body(keys, b, Edit::Take);
        }
    }
}
