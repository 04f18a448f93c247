//! Wheels (a rim around a hub) and blobs (a ring, optionally centred).

use super::*;

/// `n` points on a circle, counter-clockwise from angle `rotation`, plus an
/// optional centre point: the layout of [`Wheel`] and [`Blob`]. `hub` is
/// `None` for no centre point, `Some(mass)` for one, whose mass is `mass` or
/// the style's.
#[allow(clippy::too_many_arguments)]
fn ring(
    world: &mut World,
    what: &'static str,
    fields: [&'static str; 4],
    center: Vec2,
    radius: f32,
    n: usize,
    rotation: f32,
    hub: Option<Option<f32>>,
    style: &ShapeStyle,
) -> Result<Shape, WorldError> {
    let [f_n, f_center, f_radius, f_rotation] = fields;
    arg_count(world, f_n, n, 3, ">= 3")?;
    let total = cap_points(what, n as u128 + hub.is_some() as u128)?;
    arg_vec(world, f_center, center)?;
    arg_positive(world, f_radius, radius)?;
    arg_finite(world, f_rotation, rotation)?;

    add_shape(world, style, |add| {
        for k in 0..n {
            // f64 keeps the angles of a fine ring evenly spaced.
            let a = rotation as f64 + std::f64::consts::TAU * k as f64 / n as f64;
            add.point(center + Vec2::new(a.cos() as f32, a.sin() as f32) * radius)?;
        }
        if let Some(hub_mass) = hub {
            add.point_of_mass(center, hub_mass.unwrap_or(style.mass))?;
        }
        if style.springs {
            for k in 0..n {
                add.spring(k, (k + 1) % n)?;
            }
            if hub.is_some() {
                for k in 0..n {
                    add.spring(k, n)?;
                }
            }
        }
        // With a centre point, the outline is the ring alone.
        match hub {
            Some(_) => add.body_with_boundary(0..total, 0..n),
            None => add.body(0..total),
        }
    })
}

/// A wheel: `n` rim points around a hub point, one body over the rim (in
/// counter-clockwise order) and the hub, springs along the rim and from
/// every rim point to the hub (spokes). The body's outline in body-body
/// collisions (`Body::boundary`) is the rim.
///
/// Defaults: rotation `0` (rim point 0 on the +x side of the hub), hub mass
/// the style's mass, the [`ShapeStyle`] defaults.
///
/// The [`Shape`] holds points `[rim 0, .., rim n-1, hub]`, springs `[rim
/// 0-1, .., rim (n-1)-0, spoke 0, .., spoke n-1]` and the one body, whose
/// points are the shape's points in the same order and whose `boundary` is
/// `[rim 0, .., rim n-1]`.
///
/// ```
/// use softbody::prelude::*;
///
/// let mut world = World::default();
/// let wheel = Wheel::new(Vec2::new(0.0, 1.0), 0.4, 12)
///     .hub_mass(3.0)
///     .build(&mut world)?;
/// assert_eq!(wheel.points.len(), 13);
/// assert_eq!(wheel.springs.len(), 24);
/// let hub = wheel.points[12];
/// assert_eq!(world.point(hub).mass, 3.0);
/// // The hub is inside: the outline in body-body collisions is the rim.
/// let body = &world.bodies()[wheel.bodies[0].index()];
/// assert_eq!(body.outline(), &wheel.points[..12]);
/// # Ok::<(), WorldError>(())
/// ```
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wheel {
    /// Hub position, in metres.
    pub center: Vec2,
    /// Rim radius, in metres, `> 0`.
    pub radius: f32,
    /// Rim points, `>= 3`.
    pub n: usize,
    /// Angle of rim point 0, in radians, counter-clockwise from +x.
    pub rotation: f32,
    /// Mass of the hub; `None`: the style's mass. `Some(0.0)` pins the hub,
    /// making an axle.
    pub hub_mass: Option<f32>,
    /// Points, bodies and springs.
    pub style: ShapeStyle,
}

impl Wheel {
    /// A wheel of `n` rim points of this radius around a hub here.
    pub fn new(center: Vec2, radius: f32, n: usize) -> Self {
        Self {
            center,
            radius,
            n,
            rotation: 0.0,
            hub_mass: None,
            style: ShapeStyle::DEFAULT,
        }
    }
    /// With rim point 0 at this angle (radians, counter-clockwise from +x).
    pub fn rotation(mut self, angle: f32) -> Self {
        self.rotation = angle;
        self
    }
    /// With this hub mass (`0` pins the hub).
    pub fn hub_mass(mut self, mass: f32) -> Self {
        self.hub_mass = Some(mass);
        self
    }
    style_setters!();

    /// Adds the wheel to the world.
    pub fn build(self, world: &mut World) -> Result<Shape, WorldError> {
        ring(
            world,
            "points in one Wheel",
            ["Wheel.n", "Wheel.center", "Wheel.radius", "Wheel.rotation"],
            self.center,
            self.radius,
            self.n,
            self.rotation,
            Some(self.hub_mass),
            &self.style,
        )
    }
}

/// A round soft body: `n` points on a circle (counter-clockwise), one body,
/// springs along the perimeter and, optionally, from every perimeter point
/// to a centre point. The body's outline in body-body collisions is the
/// perimeter: its points in order without a centre point, an explicit
/// `Body::boundary` with one.
///
/// Defaults: no centre point, rotation `0` (point 0 on the +x side), the
/// [`ShapeStyle`] defaults.
///
/// The [`Shape`] holds points `[perimeter 0, .., perimeter n-1]` then the
/// centre point if any, springs `[0-1, .., (n-1)-0]` then the `n` springs
/// to the centre if any, and the one body over all the points, in that
/// order; with a centre point its `boundary` is `[perimeter 0, ..,
/// perimeter n-1]`, without one it has none.
///
/// ```
/// use softbody::prelude::*;
///
/// let mut world = World::default();
/// let blob = Blob::new(Vec2::new(0.0, 1.0), 0.5, 16)
///     .body_stiffness(800.0)
///     .build(&mut world)?;
/// assert_eq!(blob.points.len(), 16);
/// assert_eq!(blob.springs.len(), 16);
/// assert_eq!(blob.bodies.len(), 1);
/// # Ok::<(), WorldError>(())
/// ```
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Blob {
    /// Centre, in metres.
    pub center: Vec2,
    /// Radius, in metres, `> 0`.
    pub radius: f32,
    /// Perimeter points, `>= 3`.
    pub n: usize,
    /// Angle of point 0, in radians, counter-clockwise from +x.
    pub rotation: f32,
    /// Whether to add a centre point, in the body (not its outline) and
    /// linked to every perimeter point.
    pub center_point: bool,
    /// Points, bodies and springs.
    pub style: ShapeStyle,
}

impl Blob {
    /// A blob of `n` points on a circle of this radius.
    pub fn new(center: Vec2, radius: f32, n: usize) -> Self {
        Self {
            center,
            radius,
            n,
            rotation: 0.0,
            center_point: false,
            style: ShapeStyle::DEFAULT,
        }
    }
    /// With point 0 at this angle (radians, counter-clockwise from +x).
    pub fn rotation(mut self, angle: f32) -> Self {
        self.rotation = angle;
        self
    }
    /// With or without a centre point.
    pub fn center_point(mut self, on: bool) -> Self {
        self.center_point = on;
        self
    }
    style_setters!();

    /// Adds the blob to the world.
    pub fn build(self, world: &mut World) -> Result<Shape, WorldError> {
        ring(
            world,
            "points in one Blob",
            ["Blob.n", "Blob.center", "Blob.radius", "Blob.rotation"],
            self.center,
            self.radius,
            self.n,
            self.rotation,
            self.center_point.then_some(None),
            &self.style,
        )
    }
}
