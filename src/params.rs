//! Simulation parameters: one struct, every field with its unit, default and
//! stability bound.
//!
//! Units are SI by convention (metres, seconds, kilograms) but nothing in the
//! solver depends on that: any consistent set works, and
//! [`Params::with_length_unit`] gives the defaults for another length unit.

use glam::Vec2;

use crate::error::{Item, WorldError};
use crate::frequency::{
    DEFAULT_AREA_STIFFNESS, DEFAULT_SHAPE, DEFAULT_SPRING, DEFAULT_SPRING_STIFFNESS, Frequency,
};
use crate::validate::check_elasticity;

/// Global simulation parameters.
///
/// Per-item values (a spring's stiffness, a body's damping, a point's
/// material) override the defaults below; the defaults are what builders and
/// scene files use when an item does not say.
///
/// Stability: the solver is explicit (symplectic Euler with Jacobi stages), so
/// stiffnesses and damping rates must satisfy bounds in the substep
/// `h = dt / substeps`, summed over the links that meet at a point.
/// [`Packed::stability`](crate::pack::Packed::stability) checks a whole world
/// against them; the solvers log its warnings when they are built.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// Length units per metre that the defaults were scaled by
    /// ([`Params::with_length_unit`]): 1 for metres, 100 for centimetres.
    /// The solver never reads it (each length and speed it uses is a
    /// field of its own); the window and the `softbody` program size what
    /// they spawn and label what they show by it
    /// ([`length_symbol`](Self::length_symbol)). Default `1`; finite and
    /// `> 0`.
    pub length_unit: f32,
    /// Length of one step, in seconds. Default `1/60`.
    /// Range `0 < dt <=` [`MAX_DT`] (1 s), with a substep `dt / substeps` of
    /// at least [`MIN_H`] (1e-9 s).
    pub dt: f32,
    /// Substeps per step; each runs every stage once with `h = dt / substeps`.
    /// Default `8`. Range `1..=1024`. More substeps allow stiffer springs and
    /// bodies (the bounds below scale with `h^2`) and reduce tunnelling.
    pub substeps: u32,
    /// Gravity, in m/s^2, applied to every non-pinned point. Default `(0, -9.81)`.
    /// Each component within `±`[`MAX_GRAVITY`] (1e6 m/s^2).
    pub gravity: Vec2,
    /// Radius of every point, in metres: for collisions with planets and
    /// half-planes, a body point's margin against other bodies' outlines,
    /// and the disk a free point (one in no body) collides as with other
    /// free points. Default `0.02`. Range `0..=1e8` m
    /// ([`MAX_LENGTH`](crate::world::MAX_LENGTH)); `0` turns the free
    /// points' disks off. A solver's `set_params` changes it only while
    /// it stays above 0 and at most a quarter of the packed collision cell
    /// (else [`WorldError::NeedsSync`]: set it in `world.params` and
    /// `sync`).
    pub point_radius: f32,
    /// Default coefficient of restitution for points, unitless, `[0, 1]`:
    /// `0` stops the normal motion on contact, `1` bounces without loss.
    /// Default `0.3`.
    pub elasticity: f32,
    /// Default viscous friction rate for points in contact, in 1/s, `>= 0`
    /// (Lisitsa 2023): on top of Coulomb friction, the tangential velocity
    /// decays like `exp(-friction t)` while in contact, so `1 / friction`
    /// is the time to lose 63% of the sliding speed. Unconditionally
    /// stable (exponential form, one contact per point). Default `5`.
    pub friction: f32,
    /// Default Coulomb coefficient of static friction, unitless, `>= 0`: a
    /// contact holds while its tangential velocity change is at most this
    /// times its normal velocity change, so a body rests on a slope
    /// shallower than `atan(static_friction)` (31 degrees for the default
    /// `0.6`, Box2D's default friction). A pair's is the geometric mean of
    /// its sides' (Box2D's rule).
    pub static_friction: f32,
    /// Default Coulomb coefficient of dynamic (sliding) friction, unitless,
    /// `>= 0`: a sliding contact loses this times its normal velocity
    /// change in tangential speed. Default `0.6`, equal to the static
    /// one, so that friction does not jump at the cone's edge (where the
    /// two solver paths' last bits would then part); a pair's is the
    /// geometric mean of its sides'.
    pub dynamic_friction: f32,
    /// Approach speed below which a contact does not bounce, in m/s,
    /// `>= 0` (Box2D's restitution threshold): slower approaches are
    /// stopped (elasticity 0), so resting contacts and piles do not
    /// micro-bounce. Default `0.5`; [`Params::with_length_unit`] scales it
    /// with the length unit.
    pub restitution_threshold: f32,
    /// The fastest a collider contact (half-plane, planet, terrain
    /// segment) pushes a point out of the depth it already had at the
    /// substep's start, in m/s, `> 0` (Box2D's contact push speed,
    /// Unreal's maximum depenetration velocity): a body placed or
    /// teleported into the ground rises out of it at this speed rather
    /// than being thrown out by its shape's springs. Bodies placed inside
    /// each other part at this speed too (a body contact of a point that
    /// has not settled since it was placed). What the substep's own
    /// motion took in (a landing, at any speed) is pushed out whole.
    /// Default `3`; [`Params::with_length_unit`] scales it with the
    /// length unit (docs/physics.md, "Deep overlaps").
    pub push_speed: f32,
    /// Default stiffness `k` of force springs, in N/m. The force is
    /// `k (L - |d|)` along the spring. Default `7896`: 20 Hz between two
    /// 1 kg points ([`DEFAULT_SPRING`];
    /// give a spring's stiffness as a frequency with
    /// [`Frequency::spring_stiffness`] or the shape builders'
    /// `spring_frequency`, which use the points' masses).
    /// Stability: `k h^2 (1/m_a + 1/m_b) < 1` summed over the springs of a
    /// point; with the defaults (`h = 1/480 s`, unit masses) `k < ~100,000`.
    /// For soft constraints the same field is a relaxation rate in 1/s: each
    /// substep closes the fraction `1 - exp(-k h)` of the error.
    pub spring_stiffness: f32,
    /// Default damping rate `c` of springs, in 1/s, `>= 0`: the relative
    /// velocity along a spring decays like `exp(-c t)` (damping ratio
    /// `c / (2 omega)`). Each link removes the fraction
    /// `alpha = 1 - exp(-c h)` of a velocity difference, and the links at a
    /// point add up: the damping is monotone while the sum of the alphas of
    /// the links at each free point is `<= 1`, and unstable above 2.
    /// Default `12.6`: damping ratio 0.05 at 20 Hz (shape matching does
    /// most of the damping).
    pub spring_damping: f32,
    /// Default shape-matching stiffness `k` of soft bodies, in 1/s^2: every
    /// point is accelerated by `k (target - p)`, so a body's deformations
    /// ring at `sqrt(k) / (2 pi)` Hz whatever its size and masses.
    /// Default `63165`: 40 Hz ([`DEFAULT_SHAPE`];
    /// set both shape fields from a frequency with
    /// [`Params::set_shape_frequency`]). A body without its own stiffness
    /// whose points other bodies share gets this over the most bodies
    /// sharing one of its points (a `BoxGrid`'s cells a quarter), so that
    /// the default load at a point is one body's.
    /// Stability: `k h^2 < 1` summed over the bodies that share a point.
    pub shape_stiffness: f32,
    /// Default shape-matching damping rate `c`, in 1/s, `>= 0`: velocities
    /// relax toward the body's rigid motion by `alpha = 1 - exp(-c h)` per
    /// substep (damping ratio `c / (2 sqrt(k))`); alphas of all the bodies
    /// and springs at a point add up (see `spring_damping`). Default
    /// `100.5`: damping ratio 0.2 at 40 Hz, so that a deformation's
    /// ringing dies to 2% in 0.08 s and bodies come to rest.
    pub shape_damping: f32,
    /// Default area stiffness `k_a` of soft bodies, in 1/s^2: a body whose
    /// enclosed area (the fitted deformation's determinant times its rest
    /// area) differs from its target is pulled toward the dilation about
    /// its centroid that restores it, every point accelerated by `k_a`
    /// times its distance from that dilated position (docs/physics.md,
    /// "Area"). Squashing a body then pushes it out sideways, as a nearly
    /// incompressible 2-D solid does, on top of shape matching's pull.
    /// Default `15791`: 20 Hz ([`DEFAULT_AREA_STIFFNESS`]; set it from a
    /// frequency with [`Params::set_area_frequency`]), so a body's
    /// breathing mode rings at about 45 Hz with the default shape. `0`
    /// turns it off. A body without its own `Body::area_stiffness` gets at
    /// most its shape stiffness: an area term much stiffer than the shape
    /// rings against it. Damped by shape matching's damping toward rigid
    /// motion. Stability: adds to the shape stiffness in `k h^2 < 1`.
    pub area_stiffness: f32,
    /// Jacobi iterations of the hard-rod projection per substep. Default `4`.
    /// Range `0..=64`; more iterations make long chains of rods stiffer
    /// (Jacobi converges slowly, about one rod further per iteration).
    pub rod_iterations: u32,
    /// Whether shape-matched bodies collide with each other and free points
    /// with each other (see docs/physics.md, "Body-body collisions").
    /// Default `true`. Speed limit: a point stops at a body of thickness
    /// `T` when its speed relative to it is below `(T + point_radius) / h`
    /// (57.6 m/s for `T` = 0.1 m with the defaults). Packed with the
    /// world: a solver's `set_params` refuses to change it
    /// ([`WorldError::NeedsSync`]); set it in `world.params` and `sync`.
    pub body_collisions: bool,
    /// Passes of the body-contact solve per substep (find every point's
    /// deepest contact, resolve, apply), all against the substep's one
    /// broad phase. Default `2`. Range `1..=16`. Contacts are Jacobi with
    /// mass splitting, so a point shared by `n` contacts gets about `1/n`
    /// of each per pass: in deep piles one pass leaves penetration that
    /// the pile's weight drives further in, and a corner that a loaded
    /// body presses into its support by millimetres every substep is,
    /// now and then, pushed back only in part and dips: the settled pour
    /// of 480 bodies keeps 66 bodies jittering with one pass, 14 with two
    /// (docs/physics.md, "Piles"). Each pass costs one narrow phase, the
    /// dearest contact stage. No effect without body collisions.
    pub contact_iterations: u32,
    /// Relax passes of the body contacts per substep, after the
    /// `contact_iterations` passes: each solves the velocity part of the
    /// contacts the last pass found again, from the velocities that pass
    /// left, without pushing (Box2D v3's relax step). Mass splitting leaves
    /// part of each contact's approach speed in a pile, which the next
    /// substep turns into penetration and a push: a relax pass halves what
    /// is left. Default `1`. Range `0..=16`. Each costs a resolve and an
    /// apply, and a recount in worlds with free points; no narrow phase
    /// (docs/physics.md, "Piles"). No effect without body collisions.
    pub contact_relax_iterations: u32,
    /// Cell size of the collision grid, in metres; `None`: chosen when the
    /// world is uploaded, 0.625x the 95th percentile of the bodies' rest
    /// extents. Must be finite and `> 0`; either is raised to at least 4
    /// `point_radius` (a free point's disk then spans at most 2 x 2 cells).
    /// Resolved when the world is packed (`new`, `sync`); a solver's
    /// `set_params` refuses to change it
    /// ([`WorldError::NeedsSync`]).
    /// Bodies that come to span more than 9 cells (3 x 3) are tested against
    /// every point instead of through the grid: correct, but slower.
    pub collision_cell: Option<f32>,
    /// Speed below which an assembly (points joined by bodies, springs or
    /// rods) counts as at rest, in m/s, `>= 0`: once per step, each of its
    /// points' distance from where it stood up to
    /// [`SLEEP_WINDOW`](crate::layout::SLEEP_WINDOW) (4) steps before is
    /// compared with `sleep_speed` times those 4 steps, so steady motion
    /// slower than this counts as rest, and so does a shake of a few
    /// millimetres that goes nowhere. An assembly at rest for `sleep_time`
    /// sleeps: its points stop exactly and cost the contact solve nothing
    /// until something wakes them (docs/physics.md, "Sleeping"). Default
    /// `0.05` (Box2D's). `0` turns sleeping off. [`Params::with_length_unit`]
    /// scales it with the length unit.
    pub sleep_speed: f32,
    /// Seconds an assembly stays slower than `sleep_speed` before it
    /// sleeps, `>= 0` and finite; rounded up to whole steps (at least
    /// one). Default `0.5` (Box2D's).
    pub sleep_time: f32,
    /// Approach speed above which a body contact wakes the sleeping
    /// assemblies on both sides, in m/s, `>= 0`: a body landing on a
    /// sleeping pile wakes what it hits; one set down more gently rests on
    /// it as on the ground, and sleeps in turn. Default `4` (a landing
    /// from 0.8 m): above the contact solve's noise in a settled pile,
    /// whose wedged points read approach speeds of metres per second (at
    /// 1 m/s a pour of 480 bodies keeps 18 of its 3,120 points awake at
    /// 15 s, at 2 m/s none). Edits, `set_state` and `wake` wake
    /// everything.
    pub wake_speed: f32,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            length_unit: 1.0,
            dt: 1.0 / 60.0,
            substeps: 8,
            gravity: Vec2::new(0.0, -9.81),
            point_radius: 0.02,
            elasticity: 0.3,
            friction: 5.0,
            static_friction: 0.6,
            dynamic_friction: 0.6,
            restitution_threshold: 0.5,
            push_speed: 3.0,
            spring_stiffness: DEFAULT_SPRING_STIFFNESS,
            spring_damping: DEFAULT_SPRING.damping_rate(),
            shape_stiffness: DEFAULT_SHAPE.shape_stiffness(),
            shape_damping: DEFAULT_SHAPE.damping_rate(),
            area_stiffness: DEFAULT_AREA_STIFFNESS,
            rod_iterations: 4,
            body_collisions: true,
            contact_iterations: 2,
            contact_relax_iterations: 1,
            collision_cell: None,
            sleep_speed: 0.05,
            sleep_time: 0.5,
            wake_speed: 4.0,
        }
    }
}

/// Most steps `sleep_time` may come to (a day at 60 steps per second).
pub const MAX_SLEEP_STEPS: u32 = 5_184_000;

/// Largest accepted `substeps`.
pub const MAX_SUBSTEPS: u32 = 1024;
/// Largest `dt`, s.
pub const MAX_DT: f32 = 1.0;
/// Smallest substep `dt / substeps`, s.
pub const MIN_H: f32 = 1.0e-9;
/// Largest gravity component, m/s^2 (about 100,000 g).
pub const MAX_GRAVITY: f32 = 1.0e6;
/// Largest accepted `rod_iterations`.
pub const MAX_ROD_ITERATIONS: u32 = 64;
/// Largest accepted `contact_iterations`.
pub const MAX_CONTACT_ITERATIONS: u32 = 16;

impl Params {
    /// The defaults for a world measured in a length unit of
    /// `1 / units_per_metre` m (Box2D v3's `b2SetLengthUnitsPerMeter`,
    /// rapier's `IntegrationParameters::length_unit`): every default that
    /// is a length or a speed is scaled by `units_per_metre` (`gravity`,
    /// `point_radius`, `restitution_threshold`, `push_speed`, `sleep_speed`,
    /// `wake_speed`); stiffnesses (N/m is kg/s^2, shape and area
    /// stiffnesses are 1/s^2), rates, times and coefficients do not depend
    /// on the length unit, and the collision cell and the contacts'
    /// fixed-point scale follow the bodies' sizes. So a scene whose
    /// positions and sizes are given in centimetres behaves, with
    /// `Params::with_length_unit(100.0)`, as the same scene in metres with
    /// the defaults (docs/physics.md, "Units"). Fails for a factor that is
    /// not finite and positive, or that takes a default out of its range.
    pub fn with_length_unit(units_per_metre: f32) -> Result<Self, WorldError> {
        // `validate` refuses a factor that is no length unit first, by
        // name, whatever it made of the defaults.
        let d = Self::default();
        let p = Self {
            gravity: d.gravity * units_per_metre,
            point_radius: d.point_radius * units_per_metre,
            restitution_threshold: d.restitution_threshold * units_per_metre,
            push_speed: d.push_speed * units_per_metre,
            sleep_speed: d.sleep_speed * units_per_metre,
            wake_speed: d.wake_speed * units_per_metre,
            length_unit: units_per_metre,
            ..d
        };
        p.validate()?;
        Ok(p)
    }

    /// The symbol of [`length_unit`](Self::length_unit): `m`, `cm`
    /// (100), `mm` (1000), `km` (0.001), or `u` for another.
    pub fn length_symbol(&self) -> &'static str {
        match self.length_unit {
            1.0 => "m",
            100.0 => "cm",
            1000.0 => "mm",
            0.001 => "km",
            _ => "u",
        }
    }

    /// The default shape matching as a frequency and damping ratio
    /// (from [`shape_stiffness`](Self::shape_stiffness) and
    /// [`shape_damping`](Self::shape_damping)).
    pub fn shape_frequency(&self) -> Frequency {
        Frequency::of_shape(self.shape_stiffness, self.shape_damping)
    }

    /// Sets [`shape_stiffness`](Self::shape_stiffness) and
    /// [`shape_damping`](Self::shape_damping) from a frequency and damping
    /// ratio.
    pub fn set_shape_frequency(&mut self, f: Frequency) {
        self.shape_stiffness = f.shape_stiffness();
        self.shape_damping = f.damping_rate();
    }

    /// The default area stiffness as a frequency, Hz (`sqrt(k_a) / 2 pi`).
    pub fn area_frequency(&self) -> f32 {
        Frequency::of_shape(self.area_stiffness, 0.0).hz
    }

    /// Sets [`area_stiffness`](Self::area_stiffness) from a frequency in Hz.
    pub fn set_area_frequency(&mut self, hz: f32) {
        self.area_stiffness = Frequency::new(hz, 0.0).shape_stiffness();
    }

    /// Sets [`spring_stiffness`](Self::spring_stiffness) and
    /// [`spring_damping`](Self::spring_damping) from a frequency and
    /// damping ratio for springs between points of mass `point_mass` (kg;
    /// the spring defaults are in N/m, so they depend on the masses).
    pub fn set_spring_frequency(&mut self, f: Frequency, point_mass: f32) {
        self.spring_stiffness = f.spring_stiffness(point_mass, point_mass);
        self.spring_damping = f.damping_rate();
    }

    /// The substep `h = dt / substeps`, in seconds.
    pub fn h(&self) -> f32 {
        self.dt / self.substeps as f32
    }

    /// Steps an assembly stays at rest before it sleeps: `sleep_time / dt`
    /// rounded up, at least 1; 0 when sleeping is off (`sleep_speed` 0).
    pub fn sleep_steps(&self) -> u32 {
        if self.sleep_speed > 0.0 {
            ((self.sleep_time / self.dt).ceil() as u32).clamp(1, MAX_SLEEP_STEPS)
        } else {
            0
        }
    }

    /// Checks every field; the error names the field and says what is wrong.
    pub fn validate(&self) -> Result<(), WorldError> {
        let finite = |field: &'static str, v: f32| {
            if v.is_finite() {
                Ok(())
            } else {
                Err(WorldError::NonFinite {
                    item: Item::Params,
                    field,
                })
            }
        };
        let non_negative = |field: &'static str, v: f32| {
            finite(field, v)?;
            if v < 0.0 {
                Err(WorldError::Negative {
                    item: Item::Params,
                    field,
                    value: v,
                })
            } else {
                Ok(())
            }
        };
        // A value outside its range, refused naming the field; `expected`
        // spells the range out for the message.
        let require = |ok: bool, field: &'static str, value: f64, expected: &'static str| {
            if ok {
                Ok(())
            } else {
                Err(WorldError::OutOfRange {
                    item: Item::Params,
                    field,
                    value,
                    expected,
                })
            }
        };
        let positive = |field: &'static str, v: f32, expected: &'static str| {
            require(v.is_finite() && v > 0.0, field, v as f64, expected)
        };
        positive(
            "length_unit",
            self.length_unit,
            "finite and > 0 (length units per metre)",
        )?;
        finite("dt", self.dt)?;
        require(
            self.dt > 0.0 && self.dt <= MAX_DT,
            "dt",
            self.dt as f64,
            "0 < dt <= 1 s",
        )?;
        let count = |field: &'static str,
                     v: u32,
                     range: std::ops::RangeInclusive<u32>,
                     expected: &'static str| {
            require(range.contains(&v), field, v as f64, expected)
        };
        count("substeps", self.substeps, 1..=MAX_SUBSTEPS, "1..=1024")?;
        count(
            "rod_iterations",
            self.rod_iterations,
            0..=MAX_ROD_ITERATIONS,
            "0..=64",
        )?;
        count(
            "contact_iterations",
            self.contact_iterations,
            1..=MAX_CONTACT_ITERATIONS,
            "1..=16",
        )?;
        count(
            "contact_relax_iterations",
            self.contact_relax_iterations,
            0..=MAX_CONTACT_ITERATIONS,
            "0..=16",
        )?;
        // The substep, once the count is known to be in range: a dt of
        // 1e-45 s gives h = 0, a world that would silently freeze.
        require(
            self.h() >= MIN_H,
            "dt",
            self.dt as f64,
            "dt / substeps >= 1e-9 s",
        )?;
        for (field, g) in [("gravity.x", self.gravity.x), ("gravity.y", self.gravity.y)] {
            crate::validate::check_bounded(
                Item::Params,
                field,
                g,
                MAX_GRAVITY,
                "|g| <= 1e6 m/s^2",
            )?;
        }
        crate::validate::check_length(Item::Params, "point_radius", self.point_radius)?;
        check_elasticity(Item::Params, self.elasticity)?;
        non_negative("friction", self.friction)?;
        non_negative("static_friction", self.static_friction)?;
        non_negative("dynamic_friction", self.dynamic_friction)?;
        non_negative("restitution_threshold", self.restitution_threshold)?;
        positive("push_speed", self.push_speed, "finite and > 0 (m/s)")?;
        non_negative("spring_stiffness", self.spring_stiffness)?;
        non_negative("spring_damping", self.spring_damping)?;
        non_negative("shape_stiffness", self.shape_stiffness)?;
        non_negative("shape_damping", self.shape_damping)?;
        non_negative("area_stiffness", self.area_stiffness)?;
        non_negative("sleep_speed", self.sleep_speed)?;
        non_negative("sleep_time", self.sleep_time)?;
        non_negative("wake_speed", self.wake_speed)?;
        require(
            self.sleep_time / self.dt <= MAX_SLEEP_STEPS as f32,
            "sleep_time",
            self.sleep_time as f64,
            "at most 5,184,000 steps (a day at 60 steps per second)",
        )?;
        if let Some(cell) = self.collision_cell {
            finite("collision_cell", cell)?;
            require(cell > 0.0, "collision_cell", cell as f64, "> 0")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each value that is not finite and positive, set by `set`, is
    /// refused naming `field`.
    fn refuses_non_positive(field: &str, set: fn(&mut Params, f32)) {
        for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            let mut p = Params::default();
            set(&mut p, bad);
            let e = p.validate().unwrap_err().to_string();
            assert!(e.contains(field), "{e}");
        }
    }

    /// The factor stays in the parameters with its symbol, and a factor
    /// that is no length unit is refused by name.
    #[test]
    fn the_length_unit_is_kept_and_checked() {
        let d = Params::default();
        assert_eq!((d.length_unit, d.length_symbol()), (1.0, "m"));
        for (k, symbol) in [(100.0, "cm"), (1000.0, "mm"), (0.001, "km"), (39.37, "u")] {
            let p = Params::with_length_unit(k).unwrap();
            assert_eq!((p.length_unit, p.length_symbol()), (k, symbol));
            assert_eq!(p.point_radius, d.point_radius * k);
        }
        refuses_non_positive("length_unit", |p, v| p.length_unit = v);
        for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            let e = Params::with_length_unit(bad).unwrap_err().to_string();
            assert!(e.contains("length_unit"), "{e}");
        }
    }

    #[test]
    fn the_push_speed_follows_the_unit_and_is_checked() {
        let d = Params::default();
        assert_eq!(d.push_speed, 3.0);
        let cm = Params::with_length_unit(100.0).unwrap();
        assert_eq!(cm.push_speed, 300.0);
        refuses_non_positive("push_speed", |p, v| p.push_speed = v);
    }
}
