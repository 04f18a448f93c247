//! The scene's length unit (`params.length_unit`), in what the commands
//! print and in `check`'s default tolerance: a scene in centimetres
//! reports centimetres, and is checked to the same 5 mm as one in metres.

/// Length units per metre: 1 for metres, 100 for centimetres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Unit(pub(crate) f32);

impl Unit {
    /// Metres: the built-in scenes and a scene without `length_unit`.
    pub(crate) const METRE: Unit = Unit(1.0);

    /// The unit's symbol: `m`, `cm`, `mm`, `km`, or `u` for another.
    pub(crate) fn length(self) -> &'static str {
        match self.0 {
            1.0 => "m",
            100.0 => "cm",
            1000.0 => "mm",
            0.001 => "km",
            _ => "u",
        }
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
