//! Queries a program asks of the world: ray casts against the bodies'
//! outlines (as body contacts see them) and the planets and half-planes,
//! the body under a point, and the bodies whose boxes meet a box.
//! On the CPU at once ([`CpuSolver::cast_rays`](crate::cpu::CpuSolver::cast_rays));
//! on the GPU batched, one workgroup a ray, and read back without waiting
//! a frame later
//! ([`GpuSolver::request_ray_casts`](crate::gpu::GpuSolver::request_ray_casts)).
//! Both follow `shaders/query.wgsl`'s rules (docs/physics.md, "Queries").
//!
//! ```
//! use softbody::prelude::*;
//! use softbody::query::{Hit, Ray};
//!
//! let mut world = World::default();
//! world.add_plane(HalfPlane::floor(0.0))?;
//! BoxShape::new(Vec2::new(0.0, 2.0), Vec2::splat(1.0)).build(&mut world)?;
//! let cpu = CpuSolver::new(&world)?;
//! let down = Ray::new(Vec2::new(0.0, 10.0), Vec2::NEG_Y, 100.0);
//! let hit = cpu.cast_rays(&[down])?[0].unwrap();
//! assert_eq!(hit.what, Hit::Body(BodyHandle(0)));
//! assert!((hit.distance - 7.5).abs() < 1e-4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use glam::Vec2;

use crate::error::{Item, WorldError};
use crate::layout::{RAY_BODY, RAY_PLANE, RAY_PLANET, RAY_TERRAIN, RayHitRecord, RayQuery};
use crate::validate::{check_position, check_vec_within};
use crate::world::{BodyHandle, MAX_STATE};

/// A ray: from `origin` along the unit `dir`, at most `max_distance`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    pub origin: Vec2,
    pub dir: Vec2,
    pub max_distance: f32,
}

impl Ray {
    /// A ray from `origin` toward `dir` (normalised here; a zero or
    /// non-finite `dir` is refused when cast) up to `max_distance` m.
    pub fn new(origin: Vec2, dir: Vec2, max_distance: f32) -> Self {
        Self {
            origin,
            dir: dir.normalize_or_zero(),
            max_distance,
        }
    }

    /// The ray as the kernels take it; refuses a ray that names no
    /// direction or distance, or lies beyond the world's extent.
    pub(crate) fn encode(&self, k: usize) -> Result<RayQuery, WorldError> {
        let item = Item::Ray(k as u32);
        check_position(item, "ray origin", self.origin)?;
        check_vec_within(item, "ray dir", self.dir, 2.0, "a unit vector")?;
        if (self.dir.length() - 1.0).abs() > 1e-3 {
            return Err(WorldError::OutOfRange {
                item,
                field: "ray dir",
                value: self.dir.length() as f64,
                expected: "a unit vector (Ray::new normalises)",
            });
        }
        let max = self.max_distance;
        if !(max.is_finite() && (0.0..=MAX_STATE).contains(&max)) {
            return Err(WorldError::OutOfRange {
                item,
                field: "ray max_distance",
                value: max as f64,
                expected: "0..=1e15 m",
            });
        }
        Ok(RayQuery {
            origin: self.origin.to_array(),
            dir: self.dir.to_array(),
            max,
            ..Default::default()
        })
    }
}

/// What a ray hit first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hit {
    Body(BodyHandle),
    /// A planet, by index.
    Planet(u32),
    /// A half-plane, by index.
    Plane(u32),
    /// A terrain segment, by its index among all terrain's segments (the
    /// polylines' in order, each's in order), seen from its open side.
    Terrain(u32),
}

/// Where a ray hit first: what, the point, the surface's unit normal
/// there (facing the ray's origin) and the distance along the ray, m.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    pub what: Hit,
    pub point: Vec2,
    pub normal: Vec2,
    pub distance: f32,
}

/// A kernel's answer as a hit, or `None` for none.
pub(crate) fn decode(r: &RayHitRecord) -> Option<RayHit> {
    let what = match r.kind {
        RAY_BODY => Hit::Body(BodyHandle(r.index)),
        RAY_PLANET => Hit::Planet(r.index),
        RAY_PLANE => Hit::Plane(r.index),
        RAY_TERRAIN => Hit::Terrain(r.index),
        _ => return None,
    };
    Some(RayHit {
        what,
        point: Vec2::from_array(r.point),
        normal: Vec2::from_array(r.normal),
        distance: r.t,
    })
}

/// Checks the points of a body-under-a-point query, naming a bad one by
/// its place in the batch (as a ray).
pub(crate) fn check_probes(points: &[Vec2]) -> Result<(), WorldError> {
    for (k, p) in points.iter().enumerate() {
        check_position(Item::Ray(k as u32), "point", *p)?;
    }
    Ok(())
}

/// Checks a query box: corners within the world's extent, `lo <= hi`.
pub(crate) fn check_box(lo: Vec2, hi: Vec2) -> Result<(), WorldError> {
    check_position(Item::Ray(0), "box min", lo)?;
    check_position(Item::Ray(0), "box max", hi)?;
    if lo.cmpgt(hi).any() {
        return Err(WorldError::OutOfRange {
            item: Item::Ray(0),
            field: "box",
            value: (hi - lo).min_element() as f64,
            expected: "min <= max in each coordinate",
        });
    }
    Ok(())
}

/// A body index from a kernel, or `None` for `u32::MAX`.
pub(crate) fn body_of(b: u32) -> Option<BodyHandle> {
    (b != u32::MAX).then_some(BodyHandle(b))
}
