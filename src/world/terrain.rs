//! Terrain: static polylines (chains of segments, as Box2D's chain
//! shapes) that points collide with by the rules of half-planes.

use glam::Vec2;

use super::{ALL_LAYERS, TerrainHandle, World, next_index};
use crate::error::{Item, WorldError};
use crate::layout::MAX_SEGMENTS;
use crate::validate::{MAX_LENGTH, check_bounded, check_position};

/// A static polyline of segments `points[k] -> points[k + 1]` (and back to
/// the first with `closed`). Its outward normal is on the right of each
/// segment's direction and its solid side on the left, as Box2D's chain
/// shapes: a counter-clockwise loop is solid inside, and a ground listed
/// from right to left is solid below. A point collides with it by the
/// rules of a half-plane (push-out, restitution, Coulomb and viscous
/// friction; docs/physics.md, "Terrain"): in front of its nearest segment
/// within the point radius, or behind it within `thickness`.
///
/// ```
/// use softbody::prelude::*;
/// let mut world = World::default();
/// // A valley from x = 6 to x = -6, solid below.
/// world.add_terrain(Terrain::new(vec![
///     Vec2::new(6.0, 3.0),
///     Vec2::new(2.0, 0.5),
///     Vec2::new(-2.0, 0.5),
///     Vec2::new(-6.0, 3.0),
/// ]))?;
/// # Ok::<(), WorldError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Terrain {
    /// The vertices, m: at least 2 (3 when closed), each segment longer
    /// than zero.
    pub points: Vec<Vec2>,
    /// Whether the last point joins the first.
    pub closed: bool,
    /// Collision layers, default [`ALL_LAYERS`].
    pub layers: u32,
    /// How deep behind a segment a point still counts as inside (and is
    /// pushed back out), m; `None` (the default): 25 point radii (0.5 m
    /// with the default radius). A point faster than `thickness / h` can
    /// cross it within a substep. Finite, `> 0`.
    pub thickness: Option<f32>,
}

impl Terrain {
    /// An open polyline through `points` on all layers.
    pub fn new(points: Vec<Vec2>) -> Self {
        Self {
            points,
            closed: false,
            layers: ALL_LAYERS,
            thickness: None,
        }
    }
    /// Joined back to its first point.
    #[must_use]
    pub fn closed(mut self) -> Self {
        self.closed = true;
        self
    }
    /// On these collision layers.
    #[must_use]
    pub fn layers(mut self, layers: u32) -> Self {
        self.layers = layers;
        self
    }
    /// With this thickness, m ([`Terrain::thickness`]).
    #[must_use]
    pub fn thickness(mut self, t: f32) -> Self {
        self.thickness = Some(t);
        self
    }
    /// Its segments as `(a, b)`.
    pub fn segments(&self) -> impl Iterator<Item = (Vec2, Vec2)> + '_ {
        let n = self.points.len();
        let count = if self.closed { n } else { n.saturating_sub(1) };
        (0..count).map(move |k| (self.points[k], self.points[(k + 1) % n]))
    }
}

/// The thickness of a terrain without one, in point radii.
pub const TERRAIN_THICKNESS_RADII: f32 = 25.0;

impl World {
    /// Adds a terrain polyline. Refused with a [`WorldError`] naming it:
    /// fewer than 2 points (3 closed), a point out of range, a segment of
    /// zero length, a thickness that is not finite and `> 0`, or more
    /// than [`MAX_SEGMENTS`] segments in all.
    pub fn add_terrain(&mut self, t: Terrain) -> Result<TerrainHandle, WorldError> {
        let index = next_index(self.terrains.len(), "terrains")?;
        let item = Item::Terrain(index);
        let least = if t.closed { 3 } else { 2 };
        if t.points.len() < least {
            return Err(WorldError::DegenerateTerrain {
                item,
                reason: format!(
                    "{} points; a{} polyline needs at least {least}",
                    t.points.len(),
                    if t.closed { " closed" } else { "n open" }
                ),
            });
        }
        for p in &t.points {
            check_position(item, "points", *p)?;
        }
        if let Some((k, _)) = t.segments().enumerate().find(|(_, (a, b))| a == b) {
            return Err(WorldError::DegenerateTerrain {
                item,
                reason: format!("segment {k} has zero length (its ends coincide)"),
            });
        }
        if let Some(th) = t.thickness {
            check_bounded(item, "thickness", th, MAX_LENGTH, "0 < thickness <= 1e8 m")?;
            if th <= 0.0 {
                return Err(WorldError::OutOfRange {
                    item,
                    field: "thickness",
                    value: th as f64,
                    expected: "0 < thickness <= 1e8 m",
                });
            }
        }
        let total: usize = self.terrains.iter().map(|t| t.segments().count()).sum();
        let count = total + t.segments().count();
        if count > MAX_SEGMENTS {
            return Err(WorldError::TooMany {
                what: "terrain segments",
                count: count as u64,
                limit: MAX_SEGMENTS as u64,
            });
        }
        self.terrains.push(t);
        Ok(TerrainHandle(index))
    }

    /// The terrain polylines.
    pub fn terrains(&self) -> &[Terrain] {
        &self.terrains
    }
}
