//! The simulation as the window sees it: the world, its solver, the
//! renderer's view of it, picking and dragging, spawned bodies (synced in
//! place) and the edits that need a re-upload (parameters baked into
//! items, reset).

use glam::Vec2;

use super::AppError;
use crate::error::WorldError;
use crate::gpu::{GpuSolver, SolverError};
use crate::params::Params;
use crate::render::{Dragger, Picker, Renderer, Topology};
use crate::shapes::{Blob, BoxGrid, BoxShape, Wheel};
use crate::world::World;

/// What a right click (or a key) spawns at the cursor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SpawnKind {
    #[default]
    Box,
    Wheel,
    Blob,
    /// A 3x2 grid of boxes sharing corners.
    Ship,
}

impl SpawnKind {
    pub const ALL: [SpawnKind; 4] = [
        SpawnKind::Box,
        SpawnKind::Wheel,
        SpawnKind::Blob,
        SpawnKind::Ship,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SpawnKind::Box => "box",
            SpawnKind::Wheel => "wheel",
            SpawnKind::Blob => "blob",
            SpawnKind::Ship => "ship",
        }
    }

    /// Half the size of the box around the shape in a world of `unit`
    /// length units per metre (`Params::length_unit`): the shapes are the
    /// same size in any unit.
    pub fn half_extent(self, unit: f32) -> Vec2 {
        unit * match self {
            SpawnKind::Box => Vec2::splat(0.5),
            SpawnKind::Wheel => Vec2::splat(WHEEL_RADIUS),
            SpawnKind::Blob => Vec2::splat(BLOB_RADIUS),
            SpawnKind::Ship => SHIP_CELL * Vec2::new(3.0, 2.0) / 2.0,
        }
    }

    fn build(self, at: Vec2, world: &mut World) -> Result<(), WorldError> {
        let unit = world.params.length_unit;
        match self {
            SpawnKind::Box => BoxShape::new(at, 2.0 * self.half_extent(unit)).build(world)?,
            SpawnKind::Wheel => Wheel::new(at, unit * WHEEL_RADIUS, 12).build(world)?,
            SpawnKind::Blob => Blob::new(at, unit * BLOB_RADIUS, 16).build(world)?,
            SpawnKind::Ship => BoxGrid::new(3, 2, unit * SHIP_CELL)
                .center(at)
                .build(world)?,
        };
        Ok(())
    }
}

const WHEEL_RADIUS: f32 = 0.6;
const BLOB_RADIUS: f32 = 0.7;
const SHIP_CELL: Vec2 = Vec2::splat(0.45);

/// How many shape heights [`clear_spot`] looks above the asked-for spot.
pub const CLEAR_SPOT_TRIES: usize = 64;

/// Where a shape of half size `half` (m) asked for at `at` goes in
/// `world`: at `at` when its box grown by `margin` is clear (it holds no
/// point, meets no body's bounding box, planet, half-plane's solid side or
/// terrain segment), otherwise the first clear spot found stepping `up` (a
/// unit vector) by the box's extent along it, up to [`CLEAR_SPOT_TRIES`]
/// times, else `at` after all.
///
/// Without this, shapes spawned at one spot sit inside each other, and
/// bodies placed deep inside each other are thrown apart, or inside a
/// planet or the ground rise out of it (docs/physics.md, "Deep
/// overlaps"); a ship spawned across a planet's centre is pulled apart.
pub fn clear_spot(world: &World, at: Vec2, half: Vec2, margin: f32, up: Vec2) -> Vec2 {
    let reach = half + Vec2::splat(margin.max(0.0));
    let points = world.points();
    let boxes: Vec<(Vec2, Vec2)> = world
        .bodies()
        .iter()
        .filter_map(|b| {
            let mut at = b
                .points
                .iter()
                .map(|h| points.get(h.index()).map(|p| p.pos));
            let first = at.next()??;
            at.try_fold((first, first), |(lo, hi), p| Some((lo.min(p?), hi.max(p?))))
        })
        .collect();
    let segments: Vec<(Vec2, Vec2)> = world
        .terrains()
        .iter()
        .flat_map(|t| {
            let ends = t.points.last().zip(t.points.first());
            let closing = ends.filter(|_| t.closed).map(|(&a, &b)| (a, b));
            t.points.windows(2).map(|s| (s[0], s[1])).chain(closing)
        })
        .collect();
    let clear = |c: Vec2| {
        let (lo, hi) = (c - reach, c + reach);
        let meets =
            |(a, b): &(Vec2, Vec2)| a.x <= hi.x && lo.x <= b.x && a.y <= hi.y && lo.y <= b.y;
        !points.iter().any(|p| {
            let d = (p.pos - c).abs();
            d.x <= reach.x && d.y <= reach.y
        }) && !boxes.iter().any(meets)
            && world
                .planets()
                .iter()
                .all(|pl| (pl.center.clamp(lo, hi) - pl.center).length() >= pl.radius)
            && world
                .planes()
                .iter()
                .all(|pl| pl.normal.dot(c) - reach.dot(pl.normal.abs()) >= pl.offset)
            && segments.iter().all(|&(a, b)| {
                // The segment's distance from the box's centre, against
                // the box's circumscribed circle.
                let ab = b - a;
                let t =
                    ((c - a).dot(ab) / ab.length_squared().max(f32::MIN_POSITIVE)).clamp(0.0, 1.0);
                (a + ab * t - c).length() > reach.length()
            })
    };
    let step = 2.0 * reach.dot(up.abs());
    (0..=CLEAR_SPOT_TRIES)
        .map(|i| at + up * (step * i as f32))
        .find(|c| c.is_finite() && clear(*c))
        .unwrap_or(at)
}

/// The parameters of [`Params`] that only take effect through a re-upload:
/// they are resolved into every spring, body and material when the world is
/// packed. [`GpuSolver::set_params`] updates the rest, except the
/// parameters of the contact data, which it refuses
/// ([`WorldError::NeedsSync`]).
pub fn baked_params_differ(a: &Params, b: &Params) -> bool {
    a.elasticity != b.elasticity
        || a.friction != b.friction
        || a.static_friction != b.static_friction
        || a.dynamic_friction != b.dynamic_friction
        || a.spring_stiffness != b.spring_stiffness
        || a.spring_damping != b.spring_damping
        || a.shape_stiffness != b.shape_stiffness
        || a.shape_damping != b.shape_damping
        || a.area_stiffness != b.area_stiffness
}

pub struct Sim {
    /// The scene as it started, for reset.
    pub initial: World,
    /// The world the solver follows: the one uploaded last, with the
    /// shapes spawned since; its point states are as of the upload (or
    /// the spawn, for a spawned shape).
    pub world: World,
    pub solver: GpuSolver,
    pub topology: Topology,
    pub picker: Picker,
    pub dragger: Dragger,
    /// Stability warnings of the world as uploaded (see `Packed::stability`).
    pub warnings: Vec<String>,
    /// Simulated time since the last reset, s.
    pub time: f64,
}

/// The stability warnings of the world a solver holds, from its packed
/// copy (packing the world again for them cost a second pass over it).
fn warnings(solver: &GpuSolver) -> Vec<String> {
    solver.packed().stability(solver.params().h()).warnings()
}

impl Sim {
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &mut Renderer,
        world: World,
    ) -> Result<Self, AppError> {
        let solver = GpuSolver::new(device, queue, &world)?;
        let mut sim = Self {
            initial: world.clone(),
            topology: Topology::default(),
            picker: Picker::new(device, queue),
            dragger: Dragger::new(device, queue),
            warnings: warnings(&solver),
            world,
            solver,
            time: 0.0,
        };
        sim.bind(device, queue, renderer)?;
        Ok(sim)
    }

    /// Rebinds everything that reads the solver's buffers.
    fn bind(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &mut Renderer,
    ) -> Result<(), AppError> {
        self.topology = Topology::from_world(&self.world);
        let mut encoder = device.create_command_encoder(&Default::default());
        renderer.set_scene(&mut encoder, &self.solver, &self.topology)?;
        queue.submit([encoder.finish()]);
        self.picker.set_solver(&self.solver)?;
        self.dragger.set_solver(&self.solver)?;
        Ok(())
    }

    /// The world with the solver's current positions and velocities (one
    /// blocking readback of the state).
    pub fn current_world(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<World, AppError> {
        let state = self.solver.read_state(device, queue)?;
        let mut world = self.world.clone();
        world.params = self.solver.params().clone();
        world.set_state(state.positions(), state.velocities())?;
        Ok(world)
    }

    /// Uploads `world` in place of the current one (a new solver; the
    /// renderer, picker and dragger rebound). On error nothing changes.
    pub fn upload(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &mut Renderer,
        world: World,
    ) -> Result<(), AppError> {
        self.solver = GpuSolver::new(device, queue, &world)?;
        self.warnings = warnings(&self.solver);
        self.world = world;
        self.bind(device, queue, renderer)
    }

    /// Applies edited parameters: gravity, `dt`, substeps, contact passes
    /// and rod iterations at once through [`GpuSolver::set_params`]; the
    /// ones baked into items at upload ([`baked_params_differ`]) and those
    /// packed into the contact data (which `set_params` refuses with
    /// [`WorldError::NeedsSync`]) by re-uploading the current state.
    pub fn set_params(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &mut Renderer,
        params: Params,
    ) -> Result<(), AppError> {
        params.validate()?;
        if !baked_params_differ(&params, self.solver.params()) {
            let h_changed = params.h() != self.solver.params().h();
            match self.solver.set_params(queue, params.clone()) {
                Ok(()) => {
                    self.world.params = params;
                    if h_changed {
                        self.warnings = warnings(&self.solver);
                    }
                    return Ok(());
                }
                Err(SolverError::World(WorldError::NeedsSync { .. })) => {}
                Err(e) => return Err(e.into()),
            }
        }
        let mut world = self.current_world(device, queue)?;
        world.params = params;
        self.upload_continued(device, queue, renderer, world)
    }

    /// [`upload`](Self::upload) of the current run's world: the step count
    /// carries over, so moving colliders stay where they are.
    fn upload_continued(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &mut Renderer,
        world: World,
    ) -> Result<(), AppError> {
        let steps = self.solver.steps();
        self.upload(device, queue, renderer, world)?;
        self.solver.set_steps(steps);
        Ok(())
    }

    /// Adds each shape at its point (m), at rest, in one sync: the solver
    /// packs and writes the new bodies alone, and what was there keeps its
    /// state, warm starts and sleep (a box dropped on a sleeping pile wakes
    /// what it lands on, not the pile; [`GpuSolver::sync`]). A shape whose
    /// box would hold points already there (of the world, or of a shape
    /// added before it) goes above them instead, against gravity
    /// ([`clear_spot`]), which one readback of the positions tells.
    pub fn spawn(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &mut Renderer,
        shapes: &[(SpawnKind, Vec2)],
    ) -> Result<(), AppError> {
        // Where things are now, for the clear spots; the shapes go into
        // the world the solver follows.
        let mut now = self.current_world(device, queue)?;
        let mut world = self.world.clone();
        world.params = self.solver.params().clone();
        let up = (-world.params.gravity).try_normalize().unwrap_or(Vec2::Y);
        // Two point radii apart, and 5 cm more.
        let unit = world.params.length_unit;
        let margin = 2.0 * world.params.point_radius + 0.05 * unit;
        for &(kind, at) in shapes {
            let at = clear_spot(&now, at, kind.half_extent(unit), margin, up);
            kind.build(at, &mut now)?;
            kind.build(at, &mut world)?;
        }
        self.solver.sync(device, queue, &world)?;
        self.world = world;
        self.warnings = warnings(&self.solver);
        self.bind(device, queue, renderer)
    }

    /// Back to the scene as it started, keeping the edited parameters.
    pub fn reset(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &mut Renderer,
    ) -> Result<(), AppError> {
        let mut world = self.initial.clone();
        world.params = self.solver.params().clone();
        self.upload(device, queue, renderer, world)?;
        self.time = 0.0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Point;

    const HALF: Vec2 = Vec2::splat(0.5);

    /// A world of free points at `at`.
    fn at_points(at: &[Vec2]) -> World {
        let mut w = World::default();
        for &p in at {
            w.add_point(Point::new(p)).unwrap();
        }
        w
    }

    #[test]
    fn a_clear_spot_is_kept() {
        let points = at_points(&[Vec2::new(2.0, 0.0), Vec2::new(0.0, -0.6)]);
        assert_eq!(
            clear_spot(&points, Vec2::ZERO, HALF, 0.05, Vec2::Y),
            Vec2::ZERO
        );
        assert_eq!(
            clear_spot(&World::default(), Vec2::ZERO, HALF, 0.05, Vec2::Y),
            Vec2::ZERO
        );
    }

    #[test]
    fn a_taken_spot_moves_up_past_the_points_there() {
        // A unit box's corners at the origin.
        let points = at_points(&[
            Vec2::new(-0.5, -0.5),
            Vec2::new(0.5, -0.5),
            Vec2::new(0.5, 0.5),
            Vec2::new(-0.5, 0.5),
        ]);
        let at = clear_spot(&points, Vec2::ZERO, HALF, 0.05, Vec2::Y);
        assert_eq!(at.x, 0.0);
        // Above the top corners by at least the margin, one step up.
        assert!(at.y - 0.5 >= 0.5 + 0.05, "{at}");
        assert!((at.y - 1.1).abs() < 1e-6, "{at}");
        // Against gravity whichever way it points.
        let left = clear_spot(&points, Vec2::ZERO, HALF, 0.05, Vec2::NEG_X);
        assert!((left - Vec2::new(-1.1, 0.0)).length() < 1e-6, "{left}");
        // A point within the margin of the box's edge counts.
        let near = at_points(&[Vec2::new(0.54, 0.0)]);
        assert_ne!(
            clear_spot(&near, Vec2::ZERO, HALF, 0.05, Vec2::Y),
            Vec2::ZERO
        );
    }

    #[test]
    fn a_column_of_points_with_no_gap_leaves_the_spot_as_asked() {
        let column: Vec<Vec2> = (0..2000).map(|i| Vec2::new(0.0, i as f32 * 0.1)).collect();
        let points = at_points(&column);
        let at = clear_spot(&points, Vec2::ZERO, HALF, 0.05, Vec2::Y);
        assert_eq!(at, Vec2::ZERO);
    }

    /// A spot inside a body with no point near it (a large box), inside a
    /// planet, below a floor or across a terrain segment is not clear: the
    /// shape goes above them, clear of each (it would be thrown out of a
    /// body, or rise out of a collider, docs/physics.md "Deep overlaps").
    #[test]
    fn a_spot_inside_a_body_or_a_collider_moves_above_it() {
        use crate::shapes::BoxShape;
        use crate::world::{HalfPlane, Planet, Terrain};
        let clear_of = |world: &World, at: Vec2| {
            let c = clear_spot(world, Vec2::ZERO, HALF, 0.05, Vec2::Y);
            assert_ne!(c, Vec2::ZERO, "{at}");
            assert_eq!(c.x, 0.0);
            c
        };
        // A 6 m box around the spot: its corners are far from it.
        let mut w = World::default();
        BoxShape::new(Vec2::ZERO, Vec2::splat(6.0))
            .build(&mut w)
            .unwrap();
        let c = clear_of(&w, Vec2::ZERO);
        assert!(c.y - 0.55 >= 3.0, "{c}");
        // A planet of radius 2 centred on the spot.
        let mut w = World::default();
        w.add_planet(Planet::new(Vec2::ZERO, 2.0)).unwrap();
        let c = clear_of(&w, Vec2::ZERO);
        assert!(c.y - 0.55 >= 2.0, "{c}");
        // A floor 1 m above the spot.
        let mut w = World::default();
        w.add_plane(HalfPlane::floor(1.0)).unwrap();
        let c = clear_of(&w, Vec2::ZERO);
        assert!(c.y - 0.55 >= 1.0, "{c}");
        // A terrain segment across the spot.
        let mut w = World::default();
        w.add_terrain(Terrain::new(vec![
            Vec2::new(3.0, 0.2),
            Vec2::new(-3.0, 0.2),
        ]))
        .unwrap();
        let c = clear_of(&w, Vec2::ZERO);
        assert!(c.y - 0.2 > (HALF + 0.05).length(), "{c}");
        // Beside each of them the spot is kept.
        let mut w = World::default();
        BoxShape::new(Vec2::new(5.0, 0.0), Vec2::splat(2.0))
            .build(&mut w)
            .unwrap();
        w.add_planet(Planet::new(Vec2::new(-5.0, 0.0), 2.0))
            .unwrap();
        w.add_plane(HalfPlane::floor(-1.0)).unwrap();
        assert_eq!(clear_spot(&w, Vec2::ZERO, HALF, 0.05, Vec2::Y), Vec2::ZERO);
    }

    /// In metres and in centimetres alike: a shape spawned into a scene in
    /// centimetres is as large as in metres, not a hundredth of it.
    #[test]
    fn spawned_shapes_fit_the_box_they_are_placed_by() {
        for unit in [1.0, 100.0] {
            for kind in SpawnKind::ALL {
                let mut world = World::new(Params::with_length_unit(unit).unwrap());
                let at = Vec2::new(3.0, -2.0) * unit;
                kind.build(at, &mut world).unwrap();
                let half = kind.half_extent(unit);
                assert!(half.min_element() >= 0.2 * unit, "{half}");
                let mut reach = Vec2::ZERO;
                for p in world.points() {
                    let d = (p.pos - at).abs();
                    reach = reach.max(d);
                    assert!(
                        d.x <= half.x + 1e-5 * unit && d.y <= half.y + 1e-5 * unit,
                        "{} in units of 1/{unit} m: point {} outside {half}",
                        kind.name(),
                        p.pos
                    );
                }
                // It fills its box: no smaller shape in a larger unit.
                assert!(
                    reach.max_element() > 0.9 * half.max_element(),
                    "{reach} in {half}"
                );
            }
        }
    }
}
