//! Stiffness as a natural frequency and a damping ratio (Box2D v3's "soft
//! step" parametrisation; docs/physics.md, "Stiffness as a frequency").
//!
//! The solver stores shape matching as an acceleration per metre `k`
//! (1/s^2) with a relaxation rate `c` (1/s), and force springs as `k` in
//! N/m with the same kind of rate. A [`Frequency`] says the same thing in
//! terms a user can reason about at any size, mass and substep count: how
//! many times a second the link would oscillate undamped, and how much of
//! that oscillation the damping removes (0: none, 1: critically damped, no
//! overshoot). This module is the one home of the conversions.

use std::f32::consts::TAU;

use crate::error::{Item, WorldError};

/// A link's stiffness as a natural frequency and a damping ratio.
///
/// For a shape-matched body every point is pulled toward its target like
/// a unit mass on a spring of angular frequency `omega = 2 pi hz`, and its
/// velocity relative to the body's rigid motion decays at `2 zeta omega`:
/// the body's deformations ring at `hz` whatever its size or its points'
/// masses. For a force spring the same `hz` means `k = omega^2 mu`, with
/// `mu` the reduced mass of its ends.
///
/// Stability: explicit substeps need `omega h` well below 1 (each link's
/// own bound is about `hz < 1 / (2 pi h)`, 76 Hz at the default `h = 1/480
/// s`; the links at a point add up, see
/// [`Packed::stability`](crate::pack::Packed::stability)), and the summed
/// damping fractions at a point below 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frequency {
    /// Natural frequency, in Hz (1/s), finite and `>= 0`.
    pub hz: f32,
    /// Damping ratio `zeta`, unitless, finite and `>= 0`: 0 rings forever,
    /// 1 is critically damped.
    pub damping_ratio: f32,
}

impl Frequency {
    /// A frequency in Hz with a damping ratio.
    pub const fn new(hz: f32, damping_ratio: f32) -> Self {
        Self { hz, damping_ratio }
    }

    /// The angular frequency `omega = 2 pi hz`, in rad/s.
    pub const fn omega(&self) -> f32 {
        TAU * self.hz
    }

    /// The shape-matching stiffness `omega^2`, in 1/s^2
    /// ([`Params::shape_stiffness`](crate::Params::shape_stiffness),
    /// `Body::stiffness`).
    pub const fn shape_stiffness(&self) -> f32 {
        self.omega() * self.omega()
    }

    /// The damping rate `2 zeta omega`, in 1/s
    /// ([`Params::shape_damping`](crate::Params::shape_damping),
    /// [`Params::spring_damping`](crate::Params::spring_damping)).
    pub const fn damping_rate(&self) -> f32 {
        2.0 * self.damping_ratio * self.omega()
    }

    /// The stiffness in N/m of a force spring between points of masses
    /// `mass_a` and `mass_b` (kg; `0` for a pinned point, which does not
    /// move): `omega^2 mu`, with the reduced mass `mu = m_a m_b / (m_a +
    /// m_b)`, or the free end's mass when the other is pinned. `0` when
    /// both are pinned.
    pub fn spring_stiffness(&self, mass_a: f32, mass_b: f32) -> f32 {
        let mu = match (mass_a > 0.0, mass_b > 0.0) {
            (true, true) => mass_a * mass_b / (mass_a + mass_b),
            (true, false) => mass_a,
            (false, true) => mass_b,
            (false, false) => 0.0,
        };
        self.shape_stiffness() * mu
    }

    /// The frequency of shape matching with stiffness `k` (1/s^2) and
    /// damping rate `c` (1/s), the inverse of
    /// [`shape_stiffness`](Self::shape_stiffness) and
    /// [`damping_rate`](Self::damping_rate). A stiffness of 0 has
    /// frequency 0 and, taken as a limit, damping ratio 0.
    pub fn of_shape(k: f32, c: f32) -> Self {
        let omega = k.max(0.0).sqrt();
        let damping_ratio = if omega > 0.0 { c / (2.0 * omega) } else { 0.0 };
        Self::new(omega / TAU, damping_ratio)
    }

    /// Checks both fields: finite and `>= 0`; the error names `hz_field`
    /// or `ratio_field` of `item`.
    pub fn check(
        &self,
        item: Item,
        hz_field: &'static str,
        ratio_field: &'static str,
    ) -> Result<(), WorldError> {
        crate::validate::check_non_negative(item, hz_field, self.hz)?;
        crate::validate::check_non_negative(item, ratio_field, self.damping_ratio)
    }
}

/// The default shape matching: 40 Hz, damping ratio 0.2. Firm enough that
/// a body landing at 28 m/s (a fall of 40 m) compresses by about `v /
/// omega` = 11 cm, half the size of the pour's 0.22 m bodies, so a pour
/// from that height keeps every body above 0.8 of its area (at 20 Hz a
/// third of them were crushed below half); soft enough to wobble visibly
/// on impact. The damping rate `2 zeta omega` = 100.5 1/s removes a
/// deformation's ringing to 2% in 0.08 s, so bodies come to rest; it is
/// as high as it can be while a point shared by four bodies of a grid,
/// with its eight springs, keeps its summed damping fraction below 1
/// (docs/physics.md, "Stability bounds"). Bodies that share points split
/// the default stiffness between them (`Body::stiffness`).
pub const DEFAULT_SHAPE: Frequency = Frequency::new(40.0, 0.2);

/// The default force spring: 20 Hz between two 1 kg points (the default
/// mass), damping ratio 0.05 (shape matching does most of the damping, and
/// the damping of all the links at a point adds up: a wheel's hub has one
/// spoke per rim point).
pub const DEFAULT_SPRING: Frequency = Frequency::new(20.0, 0.05);

/// The default area stiffness, 1/s^2: 20 Hz, so that a squashed body
/// pushes back on its area on top of its shape, and a body's breathing
/// mode rings at 45 Hz with the default shape matching
/// ([`Params::area_stiffness`](crate::Params::area_stiffness)).
pub const DEFAULT_AREA_STIFFNESS: f32 = Frequency::new(20.0, 0.0).shape_stiffness();

/// [`DEFAULT_SPRING`]'s stiffness between two 1 kg points, N/m
/// (`omega^2 / 2`).
pub const DEFAULT_SPRING_STIFFNESS: f32 = DEFAULT_SPRING.shape_stiffness() * 0.5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frequency_round_trips_through_stiffness_and_damping() {
        let f = Frequency::new(20.0, 0.5);
        let k = f.shape_stiffness();
        assert!((k - (TAU * 20.0).powi(2)).abs() < 1e-2, "{k}");
        let back = Frequency::of_shape(k, f.damping_rate());
        assert!((back.hz - 20.0).abs() < 1e-4 && (back.damping_ratio - 0.5).abs() < 1e-6);
        assert_eq!(Frequency::of_shape(0.0, 5.0), Frequency::new(0.0, 0.0));
    }

    #[test]
    fn a_spring_uses_the_reduced_mass_of_its_free_ends() {
        let f = Frequency::new(10.0, 0.0);
        let w2 = f.shape_stiffness();
        assert_eq!(f.spring_stiffness(2.0, 2.0), w2);
        assert_eq!(f.spring_stiffness(3.0, 0.0), 3.0 * w2);
        assert_eq!(f.spring_stiffness(0.0, 0.0), 0.0);
        assert_eq!(
            DEFAULT_SPRING_STIFFNESS,
            DEFAULT_SPRING.spring_stiffness(1.0, 1.0)
        );
    }

    #[test]
    fn bad_frequencies_are_named() {
        let e = Frequency::new(f32::NAN, 0.5)
            .check(Item::Params, "shape_frequency", "shape_damping_ratio")
            .unwrap_err();
        assert!(e.to_string().contains("shape_frequency"), "{e}");
        let e = Frequency::new(5.0, -1.0)
            .check(Item::Params, "spring_frequency", "spring_damping_ratio")
            .unwrap_err();
        assert!(e.to_string().contains("spring_damping_ratio"), "{e}");
    }
}
