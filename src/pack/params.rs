//! The one place that turns [`Params`] into what the kernels read: the
//! uniform [`SimParams`], and, when the substep changes, the per-substep
//! coefficients packed into the spring, membership and contact records.
//! Both solvers' `set_params` apply what [`Packed::apply_params`] says
//! changed.

use super::Packed;
use crate::error::WorldError;
use crate::layout::{SLEEP_WINDOW, SimParams, UNTANGLE_PACE, UNTANGLE_PUSH};
use crate::params::Params;

/// The uniform parameters for a world's counts.
pub fn sim_params(params: &Params, packed: &Packed) -> SimParams {
    SimParams {
        gravity: params.gravity.to_array(),
        h: params.h(),
        point_radius: params.point_radius,
        restitution_threshold: params.restitution_threshold,
        sleep_motion_sq: (SLEEP_WINDOW as f32 * params.sleep_speed * params.dt).powi(2),
        wake_speed_sq: params.wake_speed * params.wake_speed,
        sleep_steps: params.sleep_steps(),
        untangle_speed: UNTANGLE_PACE * params.point_radius,
        dt: params.dt,
        push_speed: params.push_speed,
        body_push_speed: params.push_speed / params.contact_iterations.max(1) as f32,
        untangle_push: UNTANGLE_PUSH * UNTANGLE_PACE * params.point_radius
            / params.contact_iterations.max(1) as f32,
        ..packed.sim
    }
}

/// What [`Packed::apply_params`] changed, for a solver to apply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParamChange {
    /// The substep changed: the spring and membership records
    /// (`spring_halves`, `point_members`) and the contact filters were
    /// rebuilt with the new coefficients.
    pub substep: bool,
    /// Any parameter changed: sleeping assemblies wake.
    pub any: bool,
}

impl Packed {
    /// Sets [`sim`](Self::sim) from `params` and the world's counts, and
    /// returns it.
    pub fn set_sim(&mut self, params: &Params) -> SimParams {
        self.sim = sim_params(params, self);
        self.sim
    }

    /// Takes `new` parameters in place of `old` without packing the world
    /// again: refuses what needs a sync
    /// ([`check_param_change`](Self::check_param_change)), rebuilds the
    /// per-substep coefficients when the substep changed, and sets
    /// [`sim`](Self::sim). Returns what changed.
    pub fn apply_params(&mut self, old: &Params, new: &Params) -> Result<ParamChange, WorldError> {
        self.check_param_change(old, new)?;
        let substep = new.h() != old.h();
        if substep {
            self.refresh_step_coefficients(new.h());
        }
        self.set_sim(new);
        // The length unit labels; the solver never reads it.
        let same_unit = Params {
            length_unit: old.length_unit,
            ..new.clone()
        };
        Ok(ParamChange {
            substep,
            any: &same_unit != old,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::World;
    use crate::shapes::BoxShape;
    use glam::Vec2;

    /// A change of the length unit alone is no change to the solver: what
    /// sleeps sleeps on. Any parameter it reads is.
    #[test]
    fn the_length_unit_alone_changes_nothing_the_solver_reads() {
        let mut w = World::default();
        BoxShape::new(Vec2::ZERO, Vec2::splat(0.5))
            .build(&mut w)
            .unwrap();
        let mut packed = Packed::from_world(&w).unwrap();
        let old = w.params.clone();
        let relabelled = Params {
            length_unit: 100.0,
            ..old.clone()
        };
        let change = packed.apply_params(&old, &relabelled).unwrap();
        assert_eq!(change, ParamChange::default());
        let heavier = Params {
            gravity: Vec2::new(0.0, -20.0),
            ..old.clone()
        };
        assert!(packed.apply_params(&old, &heavier).unwrap().any);
    }
}
