//! Boxes, and grids of boxes that share corners (ships).

use super::*;

/// A box of 4 points: one shape-matched body plus springs on its 4 edges and
/// 2 diagonals.
///
/// Defaults: centre at the origin, rotation `0`, diagonals on, the
/// [`ShapeStyle`] defaults.
///
/// The [`Shape`] holds points `[bottom-left, bottom-right, top-right,
/// top-left]` of the unrotated box (counter-clockwise), springs `[0-1, 1-2,
/// 2-3, 3-0, 0-2, 1-3]` (edges, then diagonals) and the one body, over the
/// 4 points in that order, which are its outline (no explicit
/// `Body::boundary`).
///
/// ```
/// use softbody::prelude::*;
///
/// let mut world = World::default();
/// let crate_box = BoxShape::new(Vec2::new(0.0, 2.0), Vec2::new(1.0, 0.5))
///     .rotation(0.3)
///     .mass(2.0)
///     .build(&mut world)?;
/// assert_eq!(crate_box.points.len(), 4);
/// assert_eq!(crate_box.springs.len(), 6);
/// assert_eq!(crate_box.bodies.len(), 1);
/// # Ok::<(), WorldError>(())
/// ```
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxShape {
    /// Centre, in metres.
    pub center: Vec2,
    /// Width and height, in metres, both `> 0`.
    pub size: Vec2,
    /// Counter-clockwise rotation about the centre, in radians.
    pub rotation: f32,
    /// Whether to add the 2 diagonal springs.
    pub diagonals: bool,
    /// Points, bodies and springs.
    pub style: ShapeStyle,
}

impl BoxShape {
    /// A box of this size centred here.
    pub fn new(center: Vec2, size: Vec2) -> Self {
        Self {
            center,
            size,
            rotation: 0.0,
            diagonals: true,
            style: ShapeStyle::DEFAULT,
        }
    }
    /// Rotated counter-clockwise by `angle` radians about its centre.
    pub fn rotation(mut self, angle: f32) -> Self {
        self.rotation = angle;
        self
    }
    /// With or without the 2 diagonal springs.
    pub fn diagonals(mut self, on: bool) -> Self {
        self.diagonals = on;
        self
    }
    style_setters!();

    /// Adds the box to the world.
    pub fn build(self, world: &mut World) -> Result<Shape, WorldError> {
        arg_vec(world, "BoxShape.center", self.center)?;
        arg_size(world, "BoxShape.size", self.size)?;
        arg_finite(world, "BoxShape.rotation", self.rotation)?;
        let rot = Vec2::from_angle(self.rotation);
        let half = self.size * 0.5;
        add_shape(world, &self.style, |add| {
            for corner in [
                Vec2::new(-half.x, -half.y),
                Vec2::new(half.x, -half.y),
                Vec2::new(half.x, half.y),
                Vec2::new(-half.x, half.y),
            ] {
                add.point(self.center + rot.rotate(corner))?;
            }
            if self.style.springs {
                for (a, b) in [(0, 1), (1, 2), (2, 3), (3, 0)] {
                    add.spring(a, b)?;
                }
                if self.diagonals {
                    add.spring(0, 2)?;
                    add.spring(1, 3)?;
                }
            }
            add.body([0, 1, 2, 3])
        })
    }
}

/// Where a [`BoxGrid`] is placed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GridAnchor {
    /// The grid's centre is here; it rotates about its centre.
    Center(Vec2),
    /// Corner `(0, 0)` (the bottom-left of the unrotated grid) is here; the
    /// grid rotates about that corner.
    Origin(Vec2),
}

/// An `nx` x `ny` grid of boxes that share their corners, like the modular
/// spaceships of Lisitsa 2023: `(nx + 1) (ny + 1)` points, one 4-point body per
/// cell, springs on every edge once and on each cell's 2 diagonals.
///
/// Defaults: centred at the origin, rotation `0`, diagonals on, the
/// [`ShapeStyle`] defaults.
///
/// The [`Shape`] holds:
/// - points row by row: corner `(i, j)`, `i` in `0..=nx` along the grid's x
///   axis and `j` in `0..=ny` along its y axis, is `points[j * (nx + 1) + i]`;
/// - bodies row by row: cell `(i, j)` is `bodies[j * nx + i]`, over corners
///   `(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)` (counter-clockwise,
///   whatever the rotation: the cell's outline, no explicit
///   `Body::boundary`);
/// - springs: the `nx (ny + 1)` edges along x (row by row), then the
///   `(nx + 1) ny` edges along y (row by row), then per cell (row by row) the
///   diagonals `(i, j)-(i + 1, j + 1)` and `(i + 1, j)-(i, j + 1)`.
///
/// ```
/// use softbody::prelude::*;
///
/// let mut world = World::default();
/// let ship = BoxGrid::new(3, 2, Vec2::splat(0.5))
///     .origin(Vec2::new(-0.75, 1.0))
///     .build(&mut world)?;
/// assert_eq!(ship.points.len(), 4 * 3);
/// assert_eq!(ship.bodies.len(), 6);
/// // 3 * 3 edges along x, 4 * 2 along y, 2 diagonals per cell.
/// assert_eq!(ship.springs.len(), 9 + 8 + 12);
/// # Ok::<(), WorldError>(())
/// ```
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxGrid {
    /// Cells along x, `>= 1`.
    pub nx: usize,
    /// Cells along y, `>= 1`.
    pub ny: usize,
    /// Width and height of one cell, in metres, both `> 0`.
    pub cell: Vec2,
    /// Placement, and the point the rotation turns about.
    pub anchor: GridAnchor,
    /// Counter-clockwise rotation about the anchor, in radians.
    pub rotation: f32,
    /// Whether to add each cell's 2 diagonal springs.
    pub diagonals: bool,
    /// Points, bodies and springs.
    pub style: ShapeStyle,
}

impl BoxGrid {
    /// `nx` x `ny` cells of size `cell`, centred at the origin.
    pub fn new(nx: usize, ny: usize, cell: Vec2) -> Self {
        Self {
            nx,
            ny,
            cell,
            anchor: GridAnchor::Center(Vec2::ZERO),
            rotation: 0.0,
            diagonals: true,
            style: ShapeStyle::DEFAULT,
        }
    }
    /// Centred here, rotating about its centre.
    pub fn center(mut self, center: Vec2) -> Self {
        self.anchor = GridAnchor::Center(center);
        self
    }
    /// With corner `(0, 0)` here, rotating about that corner.
    pub fn origin(mut self, origin: Vec2) -> Self {
        self.anchor = GridAnchor::Origin(origin);
        self
    }
    /// Rotated counter-clockwise by `angle` radians about its anchor.
    pub fn rotation(mut self, angle: f32) -> Self {
        self.rotation = angle;
        self
    }
    /// With or without each cell's 2 diagonal springs.
    pub fn diagonals(mut self, on: bool) -> Self {
        self.diagonals = on;
        self
    }
    style_setters!();

    /// Adds the grid to the world.
    pub fn build(self, world: &mut World) -> Result<Shape, WorldError> {
        let (nx, ny) = (self.nx, self.ny);
        arg_count(world, "BoxGrid.nx", nx, 1, ">= 1")?;
        arg_count(world, "BoxGrid.ny", ny, 1, ">= 1")?;
        cap_points(
            "points in one BoxGrid",
            (nx as u128 + 1).saturating_mul(ny as u128 + 1),
        )?;
        arg_size(world, "BoxGrid.cell", self.cell)?;
        let (anchor, local_anchor) = match self.anchor {
            GridAnchor::Center(c) => (c, self.cell * Vec2::new(nx as f32, ny as f32) * 0.5),
            GridAnchor::Origin(o) => (o, Vec2::ZERO),
        };
        arg_vec(world, "BoxGrid.anchor", anchor)?;
        arg_finite(world, "BoxGrid.rotation", self.rotation)?;

        let rot = Vec2::from_angle(self.rotation);
        let id = |i: usize, j: usize| j * (nx + 1) + i;
        add_shape(world, &self.style, |add| {
            for j in 0..=ny {
                for i in 0..=nx {
                    let local = Vec2::new(i as f32, j as f32) * self.cell - local_anchor;
                    add.point(anchor + rot.rotate(local))?;
                }
            }
            if self.style.springs {
                for j in 0..=ny {
                    for i in 0..nx {
                        add.spring(id(i, j), id(i + 1, j))?;
                    }
                }
                for j in 0..ny {
                    for i in 0..=nx {
                        add.spring(id(i, j), id(i, j + 1))?;
                    }
                }
                if self.diagonals {
                    for j in 0..ny {
                        for i in 0..nx {
                            add.spring(id(i, j), id(i + 1, j + 1))?;
                            add.spring(id(i + 1, j), id(i, j + 1))?;
                        }
                    }
                }
            }
            for j in 0..ny {
                for i in 0..nx {
                    add.body([id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1)])?;
                }
            }
            Ok(())
        })
    }
}
