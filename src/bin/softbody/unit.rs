//! The world's length unit (`Params::length_unit`), in what the commands
//! print and in `check`'s default tolerance: a scene in centimetres
//! reports centimetres, and is checked to the same 5 mm as one in metres.

/// Length units per metre: 1 for metres, 100 for centimetres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Unit(pub(crate) f32);

impl Unit {
    /// The unit of a world's parameters.
    pub(crate) fn of(params: &softbody::Params) -> Unit {
        Unit(params.length_unit)
    }

    /// The unit's symbol (`Params::length_symbol`).
    pub(crate) fn length(self) -> &'static str {
        softbody::Params {
            length_unit: self.0,
            ..Default::default()
        }
        .length_symbol()
    }

    /// Speeds: the length unit per second.
    pub(crate) fn speed(self) -> String {
        format!("{}/s", self.length())
    }

    /// Kinetic energies: joules in metres, else kg (unit/s)^2.
    pub(crate) fn energy(self) -> String {
        match self.length() {
            "m" => "J".into(),
            l => format!("kg {l}2/s2"),
        }
    }

    /// What a line of output says the unit is, for a unit without a
    /// symbol of its own (empty otherwise).
    pub(crate) fn note(self) -> String {
        match self.length() {
            "u" => format!(" (lengths in u = {} m)", 1.0 / self.0),
            _ => String::new(),
        }
    }
}
