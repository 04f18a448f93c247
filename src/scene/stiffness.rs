//! The stiffness keys of bodies and springs: a frequency and damping ratio,
//! or a stiffness and damping, resolved against the parameters.

use super::*;

/// A key at fault and what is wrong with it.
pub(super) type KeyError = (&'static str, String);

/// A stiffness and damping given as rates or as a frequency and damping
/// ratio (docs/scene-format.md, "Stiffness as a frequency").
pub(super) struct Stiffness {
    pub(super) rate: Option<f32>,
    pub(super) damping: Option<f32>,
    pub(super) hz: Option<f32>,
    pub(super) ratio: Option<f32>,
}

/// The keys of one stiffness: rate, damping, frequency, damping ratio.
pub(super) type StiffnessKeys = [&'static str; 4];
pub(super) const SHAPE_KEYS: StiffnessKeys = [
    "shape_stiffness",
    "shape_damping",
    "shape_frequency",
    "shape_damping_ratio",
];
/// The area stiffness has a frequency but no damping of its own (shape
/// matching's damps it): its damping keys are never given.
pub(super) const AREA_KEYS: StiffnessKeys = [
    "area_stiffness",
    "area_damping",
    "area_frequency",
    "area_damping_ratio",
];
pub(super) const BODY_KEYS: StiffnessKeys = [
    "body_stiffness",
    "body_damping",
    "body_frequency",
    "body_damping_ratio",
];
pub(super) const SPRING_KEYS: StiffnessKeys = [
    "spring_stiffness",
    "spring_damping",
    "spring_frequency",
    "spring_damping_ratio",
];

impl Stiffness {
    /// The stiffness and damping rates: as given, or from the frequency
    /// (`to_rate` turns it into a stiffness) and the damping ratio
    /// (`default_ratio` when only the frequency is given). A quantity given
    /// both ways, or a ratio without a frequency, is an error.
    pub(super) fn resolve(
        &self,
        [rate, damping, hz, ratio]: StiffnessKeys,
        default_ratio: f32,
        to_rate: impl Fn(Frequency) -> f32,
    ) -> Result<(Option<f32>, Option<f32>), KeyError> {
        if self.rate.is_some() && self.hz.is_some() {
            return Err((hz, format!("give `{rate}` or `{hz}`, not both")));
        }
        if self.damping.is_some() && self.ratio.is_some() {
            return Err((ratio, format!("give `{damping}` or `{ratio}`, not both")));
        }
        let Some(f) = self.hz else {
            if self.ratio.is_some() {
                return Err((
                    ratio,
                    format!("needs `{hz}`: a damping ratio is relative to a frequency"),
                ));
            }
            return Ok((self.rate, self.damping));
        };
        let f = Frequency::new(f, self.ratio.unwrap_or(default_ratio));
        f.check(Item::Params, hz, ratio).map_err(|e| {
            let (_, field) = item_field(&e);
            (field.unwrap_or(hz), describe(&e))
        })?;
        let (k, c) = (to_rate(f), f.damping_rate());
        if !(k.is_finite() && c.is_finite()) {
            return Err((
                hz,
                format!(
                    "{} Hz gives a stiffness or damping too large for f32 (stiffness {k}, damping {c})",
                    f.hz
                ),
            ));
        }
        Ok((Some(k), Some(self.damping.unwrap_or(c))))
    }
}
