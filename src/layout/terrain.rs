//! Structs shared with the kernels that test terrain: the segments of the
//! static polylines (`shaders/terrain.wgsl`) and the grid that lists the
//! segments near each cell.

use bytemuck::{Pod, Zeroable};

/// One segment of a terrain polyline (WGSL `SegmentInfo`), from `a` to
/// `b`. Its solid side is on the left of `a -> b` and its outward normal
/// on the right, as Box2D's chain shapes: a counter-clockwise loop is solid
/// inside, and a ground listed from right to left is solid below. 56
/// bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SegmentInfo {
    pub a: [f32; 2],
    pub b: [f32; 2],
    /// The unit outward normal: `b - a` turned clockwise.
    pub normal: [f32; 2],
    /// The normal at `a`: the mean of this segment's and the previous
    /// one's (this one's at a polyline's open end). A point nearest `a`
    /// is outside when on this side of it.
    pub normal_a: [f32; 2],
    /// The normal at `b`, as `normal_a`.
    pub normal_b: [f32; 2],
    /// Collision layers (its polyline's).
    pub layers: u32,
    /// How deep behind it a point still counts as inside, m (its
    /// polyline's thickness).
    pub thickness: f32,
    /// Its polyline: the index of its
    /// [`TerrainHandle`](crate::world::TerrainHandle), which contact
    /// events name.
    pub terrain: u32,
    /// Which of its ends are its polyline's open ends
    /// ([`SEGMENT_OPEN_A`], [`SEGMENT_OPEN_B`]): past one there is no
    /// inside, only the end's rounded cap.
    pub open_ends: u32,
}

/// [`SegmentInfo::open_ends`]: `a` is an open end of its polyline (WGSL
/// `SEGMENT_OPEN_A`).
pub const SEGMENT_OPEN_A: u32 = 1;
/// [`SegmentInfo::open_ends`]: `b` is an open end of its polyline (WGSL
/// `SEGMENT_OPEN_B`).
pub const SEGMENT_OPEN_B: u32 = 2;

/// The grid over the terrain (WGSL `TerrainGrid`, a uniform buffer): cell
/// `(i, j)` of `cols x rows` covers `origin + cell [i, i + 1) x [j, j +
/// 1)`, and lists the segments whose box, grown by their thickness and
/// the point radius, meets it (`terrain_cells`: `cols rows + 1` offsets
/// into the lists that follow them). 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct TerrainGrid {
    pub origin: [f32; 2],
    /// Cell size, m.
    pub cell: f32,
    /// `1 / cell`, 1/m.
    pub inv_cell: f32,
    pub cols: u32,
    pub rows: u32,
    /// Segments, 0: no terrain.
    pub num_segments: u32,
    pub _pad0: u32,
}

/// The most cells the terrain's grid has: a larger terrain gets larger
/// cells.
pub const MAX_TERRAIN_CELLS: u32 = 1 << 20;

/// The most segments all terrain holds together.
pub const MAX_SEGMENTS: usize = 1 << 20;
