//! Packing what body-body collisions need: every point's assembly and
//! contact filter, the bodies' outlines, which bodies and free points
//! collide, and the grid's cell size and table size.
//!
//! All of it is a function of the world's items (never of the state). An
//! edit that appends items linked to no earlier point packs the new items
//! alone (`append_contacts`); any other edit packs it again whole: a
//! union-find over the points and one pass over the memberships, linear in
//! points + springs + members.

use std::collections::HashMap;

use super::Packed;
use crate::layout::*;
use glam::Vec2;

use crate::error::WorldError;
use crate::params::Params;
use crate::world::{MaterialHandle, PointHandle, World};

/// Union-find over point indices; the representative of a set is its
/// smallest index, so assemblies are numbered the same way on every run.
struct Assemblies(Vec<u32>);

impl Assemblies {
    fn new(n: usize) -> Self {
        Self((0..n as u32).collect())
    }
    fn find(&mut self, mut i: u32) -> u32 {
        while self.0[i as usize] != i {
            let up = self.0[self.0[i as usize] as usize];
            self.0[i as usize] = up;
            i = up;
        }
        i
    }
    fn union(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        self.0[hi as usize] = lo;
    }
}

/// The automatic grid cell: 0.625x the 95th percentile of the colliders'
/// rest extents, so that most bodies span at most 3 x 3 cells (with the
/// margin that the earlier 1.25x left for 2 x 2: deformation and the point
/// radius). Smaller cells hold fewer bodies, and a point's walk of its
/// cell is the narrow phase's dearest part (docs/physics.md, "The broad
/// phase"); 0.1 m without colliders. Rest extents are positive (a body
/// has two distinct rest positions).
fn auto_cell(p95_extent: Option<f32>) -> f32 {
    p95_extent.map_or(0.1, |e| 0.625 * e)
}

/// The 95th percentile of the colliders' rest extents, sorted, or `None`
/// without colliders.
fn p95_extent(sorted: &[f32]) -> Option<f32> {
    if sorted.is_empty() {
        return None;
    }
    Some(sorted[(sorted.len() * 95 / 100).min(sorted.len() - 1)])
}

/// A body's rest extent: the larger side of its members' rest box.
pub(super) fn rest_extent(members: &[Member]) -> f32 {
    let (mut lo, mut hi) = ([f32::MAX; 2], [f32::MIN; 2]);
    for m in members {
        for k in 0..2 {
            lo[k] = lo[k].min(m.rest[k]);
            hi[k] = hi[k].max(m.rest[k]);
        }
    }
    (hi[0] - lo[0]).max(hi[1] - lo[1])
}

/// An outline whose rest shape encloses less than this fraction of its
/// extent squared (its points in a line) has no inside and no outward side.
const FLAT_OUTLINE: f64 = 1e-6;

/// Reverses an outline that runs clockwise in the body's rest shape, so
/// that every outline is counter-clockwise at rest and its edges' outside
/// is known (the narrow phase needs it for points exactly on an edge).
/// Returns whether the outline encloses an area at rest: a flat one (its
/// points in a line) is no collider, since its edges run both ways and a
/// point near it was pulled through rather than pushed off.
fn counter_clockwise(outline: &mut [u32], points: &[PointHandle], rest: &[Vec2]) -> bool {
    // The outline's rest positions, looked up by a scan of the body's
    // points (by a map for large bodies, where the scan is quadratic).
    let q: Vec<Vec2> = if points.len() <= 64 {
        let at = |o: u32| {
            points
                .iter()
                .position(|p| p.0 == o)
                .expect("an outline point is a body point")
        };
        outline.iter().map(|&o| rest[at(o)]).collect()
    } else {
        let rest_of: HashMap<u32, Vec2> = points
            .iter()
            .map(|p| p.0)
            .zip(rest.iter().copied())
            .collect();
        outline.iter().map(|p| rest_of[p]).collect()
    };
    let twice_area: f64 = (0..q.len())
        .map(|k| {
            let (a, b) = (q[k], q[(k + 1) % q.len()]);
            a.x as f64 * b.y as f64 - a.y as f64 * b.x as f64
        })
        .sum();
    if twice_area < 0.0 {
        outline.reverse();
    }
    let (lo, hi) = q.iter().fold((Vec2::MAX, Vec2::MIN), |(lo, hi), p| {
        (lo.min(*p), hi.max(*p))
    });
    let extent = (hi - lo).max_element() as f64;
    twice_area.abs() > 2.0 * FLAT_OUTLINE * extent * extent
}

impl Packed {
    /// Packs the contact data of `world`, whose items must be the packed
    /// ones, and sets the contact fields of `sim`.
    pub(crate) fn pack_contacts(&mut self, world: &World) {
        self.contact_points.clear();
        self.outlines.clear();
        self.outline_points.clear();
        self.outline_holes = 0;
        self.colliders.clear();
        self.contact_filters.clear();
        self.filter_keys.clear();
        self.body_filters = 0;
        self.collider_extents.clear();
        self.sim.num_colliders = 0;
        self.sim.num_small_colliders = 0;
        self.sim.num_free = 0;
        let fresh = self.append_contacts(world, 0, 0, 0);
        debug_assert!(fresh, "contact data packed from nothing");
    }

    /// Packs the contact data of the packed points `n0..`, springs `s0..`
    /// and bodies `b0..` of `world`, whose links touch no earlier point,
    /// behind what is packed for the earlier ones, and sets the contact
    /// fields of `sim`: what [`pack_contacts`](Self::pack_contacts) makes
    /// of all of them. Returns `false`, changing nothing, when a new body
    /// needs a new filter while the free points' filters follow the
    /// bodies' (its number would come before theirs): pack everything.
    pub(crate) fn append_contacts(
        &mut self,
        world: &World,
        n0: usize,
        s0: usize,
        b0: usize,
    ) -> bool {
        let params = &world.params;
        let n = self.point_info.len();
        let on = params.body_collisions;
        // The packed items are the world's first ones; items appended since
        // are packed (with the contact data again) by `append_from`.
        let nb = self.bodies.len().min(world.bodies().len());
        let bodies = &world.bodies()[b0..nb];
        let rest_shapes = &world.rest_shapes()[b0..nb];
        let points = &world.points()[n0..n.min(world.points().len())];

        // Filters: distinct (category, mask, material), in order of first
        // use, the bodies' first.
        let mut filter_index: HashMap<[u32; 3], u32> = self
            .filter_keys
            .iter()
            .zip(0u32..)
            .map(|(k, i)| (*k, i))
            .collect();
        let body_filters_follow = self.body_filters as usize == self.filter_keys.len();
        if !body_filters_follow
            && bodies
                .iter()
                .any(|b| !filter_index.contains_key(&[b.category, b.mask, b.material.0]))
        {
            return false;
        }
        let mut filter =
            |key: [u32; 3], keys: &mut Vec<[u32; 3]>, filters: &mut Vec<ContactFilter>| -> u32 {
                *filter_index.entry(key).or_insert_with(|| {
                    let [category, mask, material] = key;
                    let m = world.resolve_material(MaterialHandle(material));
                    filters.push(ContactFilter {
                        category,
                        mask,
                        elasticity: m.elasticity,
                        friction: m.friction,
                        decay: (-m.friction * params.h()).exp(),
                        static_friction: m.static_friction,
                        dynamic_friction: m.dynamic_friction,
                        ..Default::default()
                    });
                    keys.push(key);
                    filters.len() as u32 - 1
                })
            };

        // Assemblies of the new points: their links join no earlier point.
        let mut asm = Assemblies::new(n - n0);
        let local = |p: u32| p - n0 as u32;
        for b in bodies {
            for w in b.points.windows(2) {
                asm.union(local(w[0].0), local(w[1].0));
            }
        }
        for s in &self.springs[s0..] {
            asm.union(local(s.a), local(s.b));
        }
        let mut group = |p: u32| asm.find(local(p)) + n0 as u32;
        let body_groups: Vec<u32> = bodies.iter().map(|b| group(b.points[0].0)).collect();
        // Which bodies of an assembly do not collide (`joins.rs`).
        let joined = super::joins::joined_bodies(
            b0,
            &body_groups,
            &self.point_members,
            bodies.iter().map(|b| b.points.iter().map(|p| p.index())),
            self.springs[s0..].iter().map(|s| (s.a, s.b)),
        );
        let mut joins_at = Vec::with_capacity(bodies.len());
        let mut unions = HashMap::new();
        let mut union_at: HashMap<usize, u32> = HashMap::new();

        let mut body_filter = Vec::with_capacity(bodies.len());
        let mut encloses = Vec::with_capacity(bodies.len());
        for (((b, rest), &body_group), own) in bodies
            .iter()
            .zip(rest_shapes)
            .zip(&body_groups)
            .zip(&joined)
        {
            let f = filter(
                [b.category, b.mask, b.material.0],
                &mut self.filter_keys,
                &mut self.contact_filters,
            );
            body_filter.push(f);
            let first = self.outline_points.len();
            self.outline_points.extend(b.outline().iter().map(|p| p.0));
            encloses.push(counter_clockwise(
                &mut self.outline_points[first..],
                &b.points,
                rest,
            ));
            self.outlines.push(BodyOutline {
                first: first as u32,
                count: (self.outline_points.len() - first) as u32,
                group: body_group,
                filter_id: f,
            });
            // Its joined bodies behind its outline, then the unions of the
            // shared points it is the last body of (`joins.rs`).
            joins_at.push(super::joins::push_joins(&mut self.outline_points, own));
            let me = (b0 + joins_at.len() - 1) as u32;
            for p in &b.points {
                let of = self.point_members.of(p.index());
                if of.len() > 1 && of.iter().map(|m| m.body).max() == Some(me) {
                    let bodies = of.iter().map(|m| m.body);
                    if let Some(at) = super::joins::union_joins(
                        &mut self.outline_points,
                        bodies,
                        b0,
                        &joined,
                        &mut unions,
                    ) {
                        union_at.insert(p.index(), at);
                    }
                }
            }
        }
        if body_filters_follow {
            self.body_filters = self.filter_keys.len() as u32;
        }

        // A body point takes the filter of the first body that holds it; a
        // free point collides as a disk on its static-collision layers.
        let disks = on && params.point_radius > 0.0;
        let mut free_points = Vec::new();
        for (i, p) in (n0..).zip(points) {
            let joins = union_at.get(&i).copied().unwrap_or_else(|| {
                let first = self.point_members.of(i).first().map(|m| m.body);
                super::joins::point_joins(first, b0, &joined, &joins_at)
            });
            let f = match self.point_members.of(i).first() {
                Some(m) => body_filter[m.body as usize - b0],
                None => {
                    let f = filter(
                        [p.layers, p.layers, p.material.0],
                        &mut self.filter_keys,
                        &mut self.contact_filters,
                    );
                    if disks {
                        free_points.push(i as u32);
                        f | CONTACT_FREE
                    } else {
                        f
                    }
                }
            };
            self.contact_points.push(ContactPoint {
                group: group(i as u32),
                filter_id: f,
                joins,
            });
        }

        let (mut small, mut large) = (Vec::new(), Vec::new());
        let mut extents = Vec::new();
        if on {
            for (b, &enclosed) in (b0..).zip(&encloses) {
                let o = &self.outlines[b];
                if o.count < 3 || !enclosed {
                    continue;
                }
                if o.count <= SMALL_BODY_MAX_POINTS {
                    small.push(b as u32);
                } else {
                    large.push(b as u32);
                }
                let info = &self.bodies[b];
                let span = info.first as usize..(info.first + info.count) as usize;
                extents.push(rest_extent(&self.members[span]));
            }
        }
        extents.sort_by(f32::total_cmp);
        self.collider_extents =
            super::append::merge_sorted(&self.collider_extents, &extents, |x, y| {
                x.total_cmp(y).is_lt()
            });
        // The colliders: small bodies, large bodies, free points, each in
        // order, the new ones behind the old of their kind.
        let (old_small, old_bodies) = (
            self.sim.num_small_colliders as usize,
            self.sim.num_colliders as usize,
        );
        let old = std::mem::take(&mut self.colliders);
        self.colliders = old[..old_small]
            .iter()
            .chain(&small)
            .chain(&old[old_small..old_bodies])
            .chain(&large)
            .chain(&old[old_bodies..])
            .chain(&free_points)
            .copied()
            .collect();
        self.sim.num_small_colliders += small.len() as u32;
        self.sim.num_colliders += (small.len() + large.len()) as u32;
        self.sim.num_free += free_points.len() as u32;
        self.size_grid(params);
        self.packed_body_collisions = on;
        self.packed_free_disks = disks;
        true
    }

    /// The grid's cell, table size and the contact scale, from the
    /// colliders and their rest extents.
    pub(super) fn size_grid(&mut self, params: &Params) {
        // At least 4 point radii, so that a free disk's box spans at most
        // 2 x 2 cells (the broad phase and the disk search rely on it).
        let typical = p95_extent(&self.collider_extents);
        let cell = params
            .collision_cell
            .unwrap_or_else(|| auto_cell(typical))
            .max(4.0 * params.point_radius);
        // The fixed-point scale follows the bodies' size (free disks: 20
        // point radii), never the grid: a step does not depend on the cell.
        self.sim.contact_scale = contact_scale(typical.unwrap_or(20.0 * params.point_radius));
        let slots = (4 * self.colliders.len()).next_power_of_two().max(64) as u32;
        self.sim.table_mask = slots - 1;
        self.sim.cell = cell;
        self.sim.inv_cell = 1.0 / cell;
    }

    /// The contact filters' `decay` for a substep `h`.
    pub(crate) fn refresh_contact_decay(&mut self, h: f32) {
        for f in &mut self.contact_filters {
            f.decay = (-f.friction * h).exp();
        }
    }

    /// What of `params` the contact data packed here does not fit, as the
    /// field and why: body collisions on or off, free points disks or not
    /// (both as recorded when it was packed), and a point radius past a
    /// quarter of the packed cell. Every edit packs the contact data again
    /// with the world's parameters; `set_params` and
    /// `GpuSolver::from_packed` cannot.
    fn contact_misfit(&self, params: &Params) -> Option<(&'static str, String)> {
        if !self.terrain.segments.is_empty() && params.point_radius > self.terrain.radius {
            return Some((
                "point_radius",
                format!(
                    "the terrain's cells were listed for points of {} m",
                    self.terrain.radius
                ),
            ));
        }
        let on = params.body_collisions;
        if on != self.packed_body_collisions {
            return Some((
                "body_collisions",
                format!(
                    "the contact data was packed with body_collisions {}",
                    self.packed_body_collisions
                ),
            ));
        }
        if (on && params.point_radius > 0.0) != self.packed_free_disks {
            return Some((
                "point_radius",
                format!(
                    "free points collide as disks only with a radius above 0, and were packed {}",
                    if self.packed_free_disks {
                        "as disks"
                    } else {
                        "without a radius"
                    }
                ),
            ));
        }
        if on && 4.0 * params.point_radius > self.sim.cell {
            return Some((
                "point_radius",
                format!(
                    "{} m needs a collision cell of at least {} m, the packed one is {} m",
                    params.point_radius,
                    4.0 * params.point_radius,
                    self.sim.cell
                ),
            ));
        }
        None
    }

    /// Checks that `params` fit the contact data packed here, as
    /// `GpuSolver::from_packed` needs: the checks `set_params` makes
    /// (see [`Packed::check_param_change`]). A world packed with other
    /// contact parameters has to be packed again
    /// ([`Packed::from_world`]).
    pub fn check_params_fit(&self, params: &Params) -> Result<(), WorldError> {
        match self.contact_misfit(params) {
            Some((field, reason)) => Err(WorldError::InconsistentPacked(format!(
                "params.{field}: {reason}; pack the world with these parameters"
            ))),
            None => Ok(()),
        }
    }

    /// Checks that parameters `new` can replace `old` on this packed world
    /// without packing its contact data again, as a solver's `set_params`
    /// does: whether bodies collide, the grid's cell, and whether free
    /// points are disks are packed; the point radius may change while it
    /// stays above 0 and within a quarter of the packed cell. `new` must
    /// be valid, and a new substep must leave no spring or body diverging
    /// on its own.
    pub fn check_param_change(&self, old: &Params, new: &Params) -> Result<(), WorldError> {
        new.validate()?;
        if new.collision_cell != old.collision_cell {
            return Err(WorldError::NeedsSync {
                field: "collision_cell",
                reason: "the grid's cell is resolved when the world is packed".into(),
            });
        }
        if let Some((field, reason)) = self.contact_misfit(new) {
            return Err(WorldError::NeedsSync { field, reason });
        }
        // A longer substep can take a spring or body past the point where
        // it diverges on its own.
        if new.h() != old.h() {
            self.check_stability(new.h())?;
        }
        Ok(())
    }

    /// Each point's sleeping record: its assembly (the one body contacts
    /// use) and its inverse mass (`layout::SleepPoint`).
    pub fn sleep_points(&self) -> Vec<SleepPoint> {
        self.sleep_points_from(0).collect()
    }

    /// Point `i`'s sleeping record, if it is packed.
    pub fn sleep_point(&self, i: u32) -> Option<SleepPoint> {
        let (c, info) = (
            self.contact_points.get(i as usize)?,
            self.point_info.get(i as usize)?,
        );
        Some(SleepPoint {
            group: c.group,
            inv_mass: info.inv_mass,
        })
    }

    /// The sleeping records of points `from..`.
    pub fn sleep_points_from(&self, from: usize) -> impl Iterator<Item = SleepPoint> + '_ {
        self.contact_points[from..]
            .iter()
            .zip(&self.point_info[from..])
            .map(|(c, i)| SleepPoint {
                group: c.group,
                inv_mass: i.inv_mass,
            })
    }

    /// Whether a substep has body-body contacts to look for.
    pub fn has_contacts(&self) -> bool {
        self.sim.num_colliders + self.sim.num_free > 0
    }

    /// Slots of the collision grid's hash table.
    pub fn grid_slots(&self) -> usize {
        self.sim.table_mask as usize + 1
    }

    /// Colliders in the grid: colliding bodies, then free points (WGSL
    /// `cells` has one record each).
    pub fn grid_colliders(&self) -> usize {
        (self.sim.num_colliders + self.sim.num_free) as usize
    }

    /// Capacity of the grid's entry list: every collider in at most
    /// `GRID_MAX_CELLS` cells.
    pub fn grid_capacity(&self) -> usize {
        GRID_MAX_CELLS as usize * (self.sim.num_colliders + self.sim.num_free) as usize
    }

    /// Words of the grid buffer (WGSL `grid` in `broad_phase.wgsl`): the
    /// slot starts (`slots + 1`), the large list (its length, then up to
    /// `num_colliders` bodies), then `(collider, cell key)` per entry.
    pub fn grid_words(&self) -> usize {
        self.grid_slots() + 2 + self.sim.num_colliders as usize + 2 * self.grid_capacity()
    }
}
