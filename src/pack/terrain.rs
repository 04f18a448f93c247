//! The terrain's segments and the grid that lists them by cell
//! (`layout::SegmentInfo`, `layout::TerrainGrid`), built when a world is
//! packed: the one home of the normals at the vertices and of which cells
//! a segment is listed in.

use glam::Vec2;

use crate::layout::{
    EVENT_KEEP_RADII, MAX_TERRAIN_CELLS, SEGMENT_OPEN_A, SEGMENT_OPEN_B, SegmentInfo, TerrainGrid,
};
use crate::params::Params;
use crate::world::{TERRAIN_THICKNESS_RADII, Terrain};

/// The packed terrain: its segments, its grid, and the cells' lists
/// (`cols rows + 1` offsets, then the segment indices they point into).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackedTerrain {
    pub segments: Vec<SegmentInfo>,
    pub grid: TerrainGrid,
    pub cells: Vec<u32>,
    /// The point radius the cells were listed for: a larger one needs
    /// the terrain packed again.
    pub radius: f32,
}

/// `b - a` turned clockwise, unit length: the outward normal of a segment
/// whose solid side is on its left.
fn outward(a: Vec2, b: Vec2) -> Vec2 {
    let d = (b - a).normalize();
    Vec2::new(d.y, -d.x)
}

/// The normal at a vertex between segments of normals `n0` and `n1`: their
/// mean, or `n1` where they cancel (a polyline folded back on itself).
fn vertex_normal(n0: Vec2, n1: Vec2) -> Vec2 {
    (n0 + n1).try_normalize().unwrap_or(n1)
}

/// A polyline's thickness: its own, or [`TERRAIN_THICKNESS_RADII`] point
/// radii (of the default radius where the world's is 0).
pub fn thickness(t: &Terrain, params: &Params) -> f32 {
    let r = if params.point_radius > 0.0 {
        params.point_radius
    } else {
        Params::default().point_radius
    };
    t.thickness.unwrap_or(TERRAIN_THICKNESS_RADII * r)
}

impl PackedTerrain {
    /// The segments of `terrains` in order, and their grid for points of
    /// `params.point_radius`.
    pub fn build(terrains: &[Terrain], params: &Params) -> Self {
        let mut segments = Vec::new();
        for (index, t) in terrains.iter().enumerate() {
            let th = thickness(t, params);
            let normals: Vec<Vec2> = t.segments().map(|(a, b)| outward(a, b)).collect();
            let n = normals.len();
            for (k, (a, b)) in t.segments().enumerate() {
                let prev = (k > 0 || t.closed).then(|| normals[(k + n - 1) % n]);
                let next = (k + 1 < n || t.closed).then(|| normals[(k + 1) % n]);
                let nk = normals[k];
                segments.push(SegmentInfo {
                    a: a.to_array(),
                    b: b.to_array(),
                    normal: nk.to_array(),
                    normal_a: prev.map_or(nk, |p| vertex_normal(p, nk)).to_array(),
                    normal_b: next.map_or(nk, |q| vertex_normal(nk, q)).to_array(),
                    layers: t.layers,
                    thickness: th,
                    terrain: index as u32,
                    open_ends: if prev.is_none() { SEGMENT_OPEN_A } else { 0 }
                        | if next.is_none() { SEGMENT_OPEN_B } else { 0 },
                });
            }
        }
        let radius = params.point_radius;
        let mut packed = Self {
            segments,
            grid: TerrainGrid::default(),
            cells: vec![0],
            radius,
        };
        if !packed.segments.is_empty() {
            packed.list_cells();
        }
        packed
    }

    /// How far in front of a segment a point is looked for: as far as
    /// contact events keep a touch, [`EVENT_KEEP_RADII`] point radii
    /// (contacts need one).
    fn front_reach(&self) -> f32 {
        self.radius * EVENT_KEEP_RADII
    }

    /// A segment's box grown by its reach (its thickness behind it, and
    /// [`front_reach`](Self::front_reach) in front).
    fn reach_box(&self, s: &SegmentInfo) -> (Vec2, Vec2) {
        let (a, b) = (Vec2::from_array(s.a), Vec2::from_array(s.b));
        let m = Vec2::splat(s.thickness.max(self.front_reach()));
        (a.min(b) - m, a.max(b) + m)
    }

    /// The grid over every segment's reach, its cell the mean segment
    /// length or the largest reach if more (doubled until the cells fit
    /// [`MAX_TERRAIN_CELLS`]), and each cell's list of the segments whose
    /// reach meets it, in segment order.
    fn list_cells(&mut self) {
        let boxes: Vec<(Vec2, Vec2)> = self.segments.iter().map(|s| self.reach_box(s)).collect();
        let lo = boxes
            .iter()
            .fold(Vec2::splat(f32::INFINITY), |m, b| m.min(b.0));
        let hi = boxes
            .iter()
            .fold(Vec2::splat(f32::NEG_INFINITY), |m, b| m.max(b.1));
        let mean = self
            .segments
            .iter()
            .map(|s| (Vec2::from_array(s.b) - Vec2::from_array(s.a)).length())
            .sum::<f32>()
            / self.segments.len() as f32;
        let reach = self
            .segments
            .iter()
            .map(|s| s.thickness.max(self.front_reach()))
            .fold(0.0f32, f32::max);
        let mut cell = mean.max(reach);
        let size = hi - lo;
        let dims = |cell: f32| {
            (
                ((size.x / cell).floor() as u64 + 1).max(1),
                ((size.y / cell).floor() as u64 + 1).max(1),
            )
        };
        while {
            let (c, r) = dims(cell);
            c * r > MAX_TERRAIN_CELLS as u64
        } {
            cell *= 2.0;
        }
        let (cols, rows) = dims(cell);
        let grid = TerrainGrid {
            origin: lo.to_array(),
            cell,
            inv_cell: 1.0 / cell,
            cols: cols as u32,
            rows: rows as u32,
            num_segments: self.segments.len() as u32,
            _pad0: 0,
        };
        let cell_of = |p: Vec2| {
            let f = (p - lo) * grid.inv_cell;
            (
                (f.x.max(0.0) as u32).min(grid.cols - 1),
                (f.y.max(0.0) as u32).min(grid.rows - 1),
            )
        };
        let ncells = (grid.cols * grid.rows) as usize;
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); ncells];
        for (k, (a, b)) in boxes.iter().enumerate() {
            let (c0, r0) = cell_of(*a);
            let (c1, r1) = cell_of(*b);
            for r in r0..=r1 {
                for c in c0..=c1 {
                    lists[(r * grid.cols + c) as usize].push(k as u32);
                }
            }
        }
        let mut cells = Vec::with_capacity(ncells + 1 + lists.iter().map(Vec::len).sum::<usize>());
        let mut at = 0u32;
        for l in &lists {
            cells.push(at);
            at += l.len() as u32;
        }
        cells.push(at);
        for l in lists {
            cells.extend(l);
        }
        self.grid = grid;
        self.cells = cells;
    }
}
