//! Typed errors. Every error names the item it is about.

use std::fmt;

/// The item an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// The global [`Params`](crate::Params).
    Params,
    /// A point, by index.
    Point(u32),
    /// A spring, by index.
    Spring(u32),
    /// A soft body, by index.
    Body(u32),
    /// A planet, by index.
    Planet(u32),
    /// A half-plane, by index.
    Plane(u32),
    /// A material, by index.
    Material(u32),
    /// A query's ray, by its place in the batch (`crate::query`).
    Ray(u32),
    /// A terrain polyline, by index.
    Terrain(u32),
    /// A joint, by index.
    Joint(u32),
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Item::Params => write!(f, "params"),
            Item::Point(i) => write!(f, "point {i}"),
            Item::Spring(i) => write!(f, "spring {i}"),
            Item::Body(i) => write!(f, "body {i}"),
            Item::Planet(i) => write!(f, "planet {i}"),
            Item::Plane(i) => write!(f, "plane {i}"),
            Item::Material(i) => write!(f, "material {i}"),
            Item::Ray(i) => write!(f, "ray {i}"),
            Item::Terrain(i) => write!(f, "terrain {i}"),
            Item::Joint(i) => write!(f, "joint {i}"),
        }
    }
}

/// Something wrong with the world being built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum WorldError {
    /// A reference to a point (or material) that does not exist.
    #[error("{item}: {field} refers to index {index}, but there are only {len}")]
    IndexOutOfRange {
        item: Item,
        field: &'static str,
        index: u32,
        len: u32,
    },
    /// A NaN or infinite value.
    #[error("{item}: {field} is not finite (NaN or infinite)")]
    NonFinite { item: Item, field: &'static str },
    /// A value that must not be negative.
    #[error("{item}: {field} is negative ({value})")]
    Negative {
        item: Item,
        field: &'static str,
        value: f32,
    },
    /// A value outside its documented range.
    #[error("{item}: {field} = {value} is out of range (expected {expected})")]
    OutOfRange {
        item: Item,
        field: &'static str,
        value: f64,
        expected: &'static str,
    },
    /// A spring whose rest length is zero because its two points coincide.
    #[error(
        "{item}: points {a} and {b} coincide, so the rest length is zero and the spring has no direction"
    )]
    ZeroLengthSpring { item: Item, a: u32, b: u32 },
    /// A spring from a point to itself.
    #[error("{item}: both ends are point {a}")]
    SelfSpring { item: Item, a: u32 },
    /// A joint (a motor, a spring or an angle limit) whose other body is
    /// its own body.
    #[error("{item}: a joint's other body is the body itself")]
    SelfMotor { item: Item },
    /// A body that cannot define a shape.
    #[error("{item}: {reason}")]
    DegenerateBody { item: Item, reason: String },
    /// A half-plane normal of zero length.
    #[error("{item}: normal has zero length")]
    ZeroNormal { item: Item },
    /// A terrain polyline that cannot define a surface.
    #[error("{item}: {reason}")]
    DegenerateTerrain { item: Item, reason: String },
    /// A slice whose length does not match the world.
    #[error("{what}: expected {expected} entries (one per point), got {got}")]
    LengthMismatch {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    /// More items than the solver can index (u32) or the device can hold.
    #[error("{what}: {count} is more than the limit of {limit}")]
    TooMany {
        what: &'static str,
        count: u64,
        limit: u64,
    },
    /// A handle to an item the world does not have.
    #[error("{item} does not exist (there are {len})")]
    UnknownHandle { item: Item, len: u32 },
    /// An edit that needs a pinned point got a free one.
    #[error("{item} is not pinned (mass {mass}); only pinned points can be moved")]
    NotPinned { item: Item, mass: f32 },
    /// A solver was asked to follow a world it does not match, e.g. after a
    /// removal it was not told about.
    #[error("the solver is out of sync with the world: {0}")]
    OutOfSync(String),
    /// A [`Packed`](crate::pack::Packed) whose arrays do not fit each
    /// other (its fields are public: one edited by hand, or put together
    /// from two worlds), or whose contact data does not fit the parameters
    /// it is given with, given to `GpuSolver::from_packed`.
    #[error("inconsistent packed world: {0}")]
    InconsistentPacked(String),
    /// A solver's `set_params` was given a parameter that shapes the packed
    /// contact data (`body_collisions`, `collision_cell`, or a
    /// `point_radius` the packed grid cannot take): set it in
    /// `world.params` and call the solver's `sync`, which packs the
    /// contact data again.
    #[error(
        "params: {field} cannot change through set_params ({reason}); set it in world.params and call the solver's sync"
    )]
    NeedsSync { field: &'static str, reason: String },
    /// A force spring or a body that diverges on its own at this substep,
    /// whatever else the world holds: its `w^2 h^2` (for a spring
    /// `k (1/m_a + 1/m_b) h^2`, for a body `k h^2`) is above `limit`, with
    /// its damping factor `E = exp(-c h)`: `2 (1 + E) / E` for a spring,
    /// whose damping also scales its kick, and `2 (1 + E)` for a body,
    /// whose damping does not (4 undamped; docs/physics.md, "Stability
    /// bounds"). Simulating it would only produce NaN, so solvers refuse
    /// it; raise `substeps`, lower the stiffness, or raise the masses.
    #[error(
        "{item} diverges at a substep of {h} s: {what} = {value} is above {limit}; raise substeps, lower the stiffness or raise the masses"
    )]
    Unstable {
        item: Item,
        what: &'static str,
        value: f32,
        limit: f32,
        h: f32,
    },
}
