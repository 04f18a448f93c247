//! Checkpoints: the evolving state of a run, written exactly, so that a run
//! resumed from one ends bitwise identical to the same run done in one go.
//!
//! What evolves is the position and velocity of every point (pinned points
//! moved with `move_pinned_point` included), the step count, for
//! sleeping how many steps each assembly has been at rest, and for the
//! body contacts each point's warm start. Nothing
//! else carries over from one step to the next: the body frames are
//! recomputed from the positions in every substep, and the second copy of
//! the GPU state is scratch, so neither is saved. Everything static (the
//! parameters, springs, bodies, colliders) comes from the scene; the
//! checkpoint stores the scene's [`scene_hash`](crate::pack::scene_hash)
//! and refuses to load into a different one.
//!
//! The file is binary, little-endian, floats as their IEEE bits:
//!
//! | bytes | content |
//! |---|---|
//! | 20 | magic `softbody-checkpoint` and a NUL |
//! | 4 | format version, `3` |
//! | 8 | scene hash |
//! | 8 | step count |
//! | 8 | time in seconds, f64 |
//! | 8 | number of points `n` |
//! | 8 n | positions, `n` pairs of f32 |
//! | 8 n | velocities, `n` pairs of f32 |
//! | 4 n | steps at rest of the assembly each point is the root of, u32 (0 elsewhere) |
//! | 16 n | warm starts, four u32 per point ([`CpuSolver::warm_starts`]) |
//! | 8 | FNV-1a 64 of everything before, to catch truncated or damaged files |
//!
//! Version 2 files (without the warm starts) still load, their contacts
//! starting cold; version 1 files (without the steps at rest either) load
//! with everything awake.
//!
//! Writing is atomic: the bytes go to a temporary file in the same
//! directory, which is synced and then renamed over the target, so a crash
//! leaves either the old checkpoint or the new one, never half of one
//! (through symbolic links, and in place into a FIFO or a device:
//! [`write_atomically`]). Reading takes the header first and reads no
//! further than the length it gives ([`Checkpoint::read`]).
//!
//! ```
//! use softbody::checkpoint::Checkpoint;
//! use softbody::prelude::*;
//!
//! let mut world = World::default();
//! world.add_plane(HalfPlane::floor(0.0))?;
//! Wheel::new(Vec2::new(0.0, 2.0), 0.5, 12).build(&mut world)?;
//! let mut a = CpuSolver::new(&world)?;
//! for _ in 0..50 { a.step(); }
//! let saved = Checkpoint::of_cpu(&a, 50.0 * world.params.dt as f64);
//! for _ in 0..50 { a.step(); }
//!
//! let bytes = saved.to_bytes()?;
//! let mut b = CpuSolver::new(&world)?;
//! Checkpoint::from_bytes(&bytes)?.restore_cpu(&mut b)?;
//! for _ in 0..50 { b.step(); }
//! assert_eq!(a.positions(), b.positions()); // bitwise
//! assert_eq!(b.steps(), 100);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::Read;
use std::path::{Path, PathBuf};

pub use crate::files::{check_writable, resolve_links, write_atomically};

use crate::cpu::CpuSolver;
use crate::fnv::fnv;
use crate::gpu::{GpuSolver, SolverError};
use crate::solver::Solver;
use crate::world::MAX_ITEMS;

const MAGIC: &[u8; 20] = b"softbody-checkpoint\0";
const VERSION: u32 = 3;
/// The version before warm starting, read as all contacts cold.
const VERSION_COLD: u32 = 2;
/// The version before sleeping, read as all awake (and cold).
const VERSION_AWAKE: u32 = 1;
/// Bytes before the state: magic, version, hash, step, time, count.
const HEADER: usize = 20 + 4 + 8 + 8 + 8 + 8;

/// The state of a run at the end of a step.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// [`scene_hash`](crate::pack::scene_hash) of the world it belongs to.
    pub scene_hash: u64,
    /// Steps taken.
    pub step: u64,
    /// Simulated time, in seconds.
    pub time: f64,
    /// Positions, one per point.
    pub pos: Vec<[f32; 2]>,
    /// Velocities, one per point.
    pub vel: Vec<[f32; 2]>,
    /// Steps each assembly has been at rest, by its root point (0
    /// elsewhere): [`CpuSolver::rest_steps`]. Empty or all zero: everything
    /// awake.
    pub rest_steps: Vec<u32>,
    /// Each point's warm start ([`CpuSolver::warm_starts`]). Empty: every
    /// contact starts cold.
    pub warm: Vec<[u32; 4]>,
}

/// Why a checkpoint could not be read, written or restored.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading or writing the file failed.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The bytes are not a checkpoint, or not a whole one.
    #[error("not a softbody checkpoint: {0}")]
    Format(String),
    /// A checkpoint of another scene.
    #[error(
        "the checkpoint belongs to another scene (scene hash {found:016x}, this scene has {expected:016x}): load it with the scene and parameters it was saved from"
    )]
    SceneMismatch { expected: u64, found: u64 },
    /// Restoring into the solver failed.
    #[error(transparent)]
    Solver(#[from] SolverError),
}

/// A checkpoint's simulated time: finite and not negative (the state is
/// checked when it is restored; the time was taken as it came, NaN
/// included).
fn check_time(time: f64) -> Result<(), CheckpointError> {
    if time.is_finite() && time >= 0.0 {
        Ok(())
    } else {
        Err(CheckpointError::Format(format!(
            "simulated time {time} s: a checkpoint's time is finite and not negative"
        )))
    }
}

/// Refuses a checkpoint of scene `found` for scene `expected`.
fn same_scene(found: u64, expected: u64) -> Result<(), CheckpointError> {
    if found != expected {
        return Err(CheckpointError::SceneMismatch { expected, found });
    }
    Ok(())
}

impl Checkpoint {
    /// The state of a CPU solver, at simulated time `time`.
    pub fn of_cpu(solver: &CpuSolver, time: f64) -> Self {
        Self {
            scene_hash: solver.scene_hash(),
            step: solver.steps(),
            time,
            pos: solver.positions().to_vec(),
            vel: solver.velocities().to_vec(),
            rest_steps: solver.rest_steps().to_vec(),
            warm: solver.warm_starts().to_vec(),
        }
    }

    /// The state of a GPU solver (reads it back, waiting for the GPU).
    pub fn of_gpu(
        solver: &GpuSolver,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        time: f64,
    ) -> Result<Self, SolverError> {
        let state = solver.read_state(device, queue)?;
        Ok(Self {
            scene_hash: solver.scene_hash(),
            step: solver.steps(),
            time,
            pos: state.pos,
            vel: state.vel,
            rest_steps: solver.read_rest_steps(device, queue)?,
            warm: solver.read_warm_starts(device, queue)?,
        })
    }

    /// The state of either solver (a GPU one is read back).
    pub fn of(solver: &Solver, time: f64) -> Result<Self, SolverError> {
        match solver {
            Solver::Cpu(s) => Ok(Self::of_cpu(s, time)),
            Solver::Gpu { ctx, solver } => Self::of_gpu(solver, &ctx.device, &ctx.queue, time),
        }
    }

    /// Puts the state and step count into either solver, of the same scene.
    pub fn restore(&self, solver: &mut Solver) -> Result<(), CheckpointError> {
        match solver {
            Solver::Cpu(s) => self.restore_cpu(s),
            Solver::Gpu { ctx, solver } => self.restore_gpu(solver, &ctx.queue),
        }
    }

    /// Refuses a checkpoint of another scene.
    pub fn check_scene(&self, scene_hash: u64) -> Result<(), CheckpointError> {
        same_scene(self.scene_hash, scene_hash)
    }

    /// Puts the state and step count into a CPU solver of the same scene.
    pub fn restore_cpu(&self, solver: &mut CpuSolver) -> Result<(), CheckpointError> {
        self.check_scene(solver.scene_hash())?;
        solver
            .set_state(&self.pos, &self.vel)
            .map_err(SolverError::from)?;
        if !self.rest_steps.is_empty() {
            solver
                .set_rest_steps(&self.rest_steps)
                .map_err(SolverError::from)?;
        }
        if !self.warm.is_empty() {
            solver
                .set_warm_starts(&self.warm)
                .map_err(SolverError::from)?;
        }
        solver.set_steps(self.step);
        Ok(())
    }

    /// Puts the state and step count into a GPU solver of the same scene.
    pub fn restore_gpu(
        &self,
        solver: &mut GpuSolver,
        queue: &wgpu::Queue,
    ) -> Result<(), CheckpointError> {
        self.check_scene(solver.scene_hash())?;
        solver.set_state(queue, &self.pos, &self.vel)?;
        if !self.rest_steps.is_empty() {
            solver.set_rest_steps(queue, &self.rest_steps)?;
        }
        if !self.warm.is_empty() {
            solver.set_warm_starts(queue, &self.warm)?;
        }
        solver.set_steps(self.step);
        Ok(())
    }

    /// The file's bytes. Fails with [`CheckpointError::Format`] when `pos`
    /// and `vel` differ in length (a checkpoint holds one of each per
    /// point), and with [`WorldError::NonFinite`](crate::WorldError) for a
    /// NaN or infinite state, which no solver would restore.
    pub fn to_bytes(&self) -> Result<Vec<u8>, CheckpointError> {
        let n = self.pos.len();
        if self.vel.len() != n {
            return Err(CheckpointError::Format(format!(
                "{n} positions but {} velocities: a checkpoint holds one of each per point",
                self.vel.len()
            )));
        }
        crate::validate::check_state(n, &self.pos, &self.vel).map_err(SolverError::from)?;
        check_time(self.time)?;
        if !self.rest_steps.is_empty() && self.rest_steps.len() != n {
            return Err(CheckpointError::Format(format!(
                "{n} points but {} steps at rest: a checkpoint holds none or one per point",
                self.rest_steps.len()
            )));
        }
        if !self.warm.is_empty() {
            crate::validate::check_warm_starts(n, &self.warm).map_err(SolverError::from)?;
        }
        let mut out = Vec::with_capacity(HEADER + 36 * n + 8);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&self.scene_hash.to_le_bytes());
        out.extend_from_slice(&self.step.to_le_bytes());
        out.extend_from_slice(&self.time.to_bits().to_le_bytes());
        out.extend_from_slice(&(n as u64).to_le_bytes());
        for v in self.pos.iter().chain(&self.vel) {
            out.extend_from_slice(&v[0].to_bits().to_le_bytes());
            out.extend_from_slice(&v[1].to_bits().to_le_bytes());
        }
        for k in 0..n {
            let steps = self.rest_steps.get(k).copied().unwrap_or(0);
            out.extend_from_slice(&steps.to_le_bytes());
        }
        for k in 0..n {
            for word in self.warm.get(k).copied().unwrap_or([0; 4]) {
                out.extend_from_slice(&word.to_le_bytes());
            }
        }
        let sum = fnv(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        Ok(out)
    }

    /// The point count and the file's whole length from the first
    /// [`HEADER`] bytes, refusing another format, another version, another
    /// scene than `scene_hash` (where given), and more than `max_points`
    /// points.
    fn header(
        bytes: &[u8],
        scene_hash: Option<u64>,
        max_points: u64,
    ) -> Result<(u64, u64), CheckpointError> {
        if bytes.len() < HEADER || &bytes[..20] != MAGIC {
            return Err(CheckpointError::Format(
                "the file does not start with the checkpoint header".into(),
            ));
        }
        let version = u32::from_le_bytes(bytes[20..24].try_into().expect("4 bytes"));
        if ![VERSION, VERSION_COLD, VERSION_AWAKE].contains(&version) {
            return Err(CheckpointError::Format(format!(
                "format version {version}, this build reads version {VERSION}"
            )));
        }
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        if let Some(expected) = scene_hash {
            same_scene(u64_at(24), expected)?;
        }
        let n = u64_at(48);
        if n > max_points {
            return Err(CheckpointError::Format(format!(
                "the header gives {n} points, more than {max_points}: damaged"
            )));
        }
        // At most 2^30 points (MAX_ITEMS): no overflow.
        let per_point = match version {
            VERSION_AWAKE => 16,
            VERSION_COLD => 20,
            _ => 36,
        };
        Ok((n, HEADER as u64 + per_point * n + 8))
    }

    /// Parses a checkpoint's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CheckpointError> {
        let bad = |m: &str| CheckpointError::Format(m.to_string());
        if bytes.len() < HEADER + 8 {
            return Err(bad("the file does not start with the checkpoint header"));
        }
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let (n, expected) = Self::header(bytes, None, MAX_ITEMS)?;
        if bytes.len() as u64 != expected {
            return Err(CheckpointError::Format(format!(
                "{} bytes for {n} points, expected {expected}: truncated or damaged",
                bytes.len()
            )));
        }
        let body = bytes.len() - 8;
        if fnv(&bytes[..body]) != u64_at(body) {
            return Err(bad("checksum mismatch: the file is damaged"));
        }
        let n = n as usize;
        let pair = |k: usize| {
            let at = HEADER + 8 * k;
            let f = |o: usize| {
                f32::from_bits(u32::from_le_bytes(
                    bytes[o..o + 4].try_into().expect("4 bytes"),
                ))
            };
            [f(at), f(at + 4)]
        };
        let time = f64::from_bits(u64_at(40));
        check_time(time)?;
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let version = u32_at(20);
        let rest_steps = if version == VERSION_AWAKE {
            Vec::new()
        } else {
            (0..n).map(|k| u32_at(HEADER + 16 * n + 4 * k)).collect()
        };
        let warm: Vec<[u32; 4]> = if version == VERSION {
            let at = |k: usize, w: usize| u32_at(HEADER + 20 * n + 16 * k + 4 * w);
            (0..n)
                .map(|k| [at(k, 0), at(k, 1), at(k, 2), at(k, 3)])
                .collect()
        } else {
            Vec::new()
        };
        if !warm.is_empty() {
            crate::validate::check_warm_starts(n, &warm)
                .map_err(|e| CheckpointError::Format(format!("{e}")))?;
        }
        Ok(Self {
            scene_hash: u64_at(24),
            step: u64_at(32),
            time,
            pos: (0..n).map(pair).collect(),
            vel: (n..2 * n).map(pair).collect(),
            rest_steps,
            warm,
        })
    }

    /// Writes the checkpoint atomically ([`write_atomically`]).
    pub fn write(&self, path: &Path) -> Result<(), CheckpointError> {
        let bytes = self.to_bytes()?;
        write_atomically(path, &bytes).map_err(|source| CheckpointError::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Reads a checkpoint file: its header first, then no more than the
    /// length that header gives, so a file that is not a checkpoint or
    /// does not end (`/dev/urandom`, `/dev/zero`) is refused after a few
    /// bytes. A header may give at most [`MAX_ITEMS`] points (16 GiB of
    /// state); [`Checkpoint::read_for`] takes the scene's.
    pub fn read(path: &Path) -> Result<Self, CheckpointError> {
        Self::read_limited(path, None, MAX_ITEMS)
    }

    /// [`Checkpoint::read`] for a scene: a checkpoint of another scene
    /// ([`CheckpointError::SceneMismatch`]) or with more than its `points`
    /// points is refused from the header, before the state is read.
    pub fn read_for(path: &Path, scene_hash: u64, points: u64) -> Result<Self, CheckpointError> {
        Self::read_limited(path, Some(scene_hash), points)
    }

    fn read_limited(
        path: &Path,
        scene_hash: Option<u64>,
        max_points: u64,
    ) -> Result<Self, CheckpointError> {
        let file = std::fs::File::open(path).map_err(|source| CheckpointError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::read_from(file, scene_hash, max_points.min(MAX_ITEMS)).map_err(|e| match e {
            CheckpointError::Io { source, .. } => CheckpointError::Io {
                path: path.to_path_buf(),
                source,
            },
            e => e,
        })
    }

    /// A checkpoint from any reader: the header first, then no more than
    /// the length it gives (I/O errors carry an empty path).
    fn read_from(
        mut r: impl Read,
        scene_hash: Option<u64>,
        max_points: u64,
    ) -> Result<Self, CheckpointError> {
        let io = |source| CheckpointError::Io {
            path: PathBuf::new(),
            source,
        };
        let mut bytes = Vec::with_capacity(HEADER);
        r.by_ref()
            .take(HEADER as u64)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        let (n, expected) = Self::header(&bytes, scene_hash, max_points)?;
        // One byte more than the header gives tells a longer file.
        r.take(expected - HEADER as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        if bytes.len() as u64 > expected {
            return Err(CheckpointError::Format(format!(
                "longer than the {expected} bytes its header gives for {n} points: damaged"
            )));
        }
        Self::from_bytes(&bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::{Checkpoint, CheckpointError, HEADER};
    use crate::cpu::CpuSolver;
    use crate::files::tests::{names, scratch};
    use crate::fnv::fnv;
    use crate::prelude::{BodyHandle, BoxShape, HalfPlane, Vec2, World};
    use crate::scenes::{bench_scene, default_scene};

    /// A stream: `prefix`, then zeros for ever, counting what it served.
    struct Endless {
        prefix: Vec<u8>,
        served: usize,
    }

    impl std::io::Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let k = buf.len().min(1 << 16);
            for (i, b) in buf[..k].iter_mut().enumerate() {
                *b = self.prefix.get(self.served + i).copied().unwrap_or(0);
            }
            self.served += k;
            Ok(k)
        }
    }

    /// A checkpoint is read header first, then no more than the length the
    /// header gives (it was read whole: `--load-state /dev/urandom` read
    /// until memory ran out).
    #[test]
    fn a_checkpoint_is_read_no_further_than_its_header_says() {
        let c = Checkpoint {
            scene_hash: 7,
            step: 3,
            time: 0.05,
            pos: vec![[1.0, 2.0]; 4],
            vel: vec![[0.5, 0.0]; 4],
            rest_steps: vec![0, 9, 0, 1],
            warm: vec![[0; 4]; 4],
        };
        let bytes = c.to_bytes().unwrap();
        let read = |prefix: &[u8], max_points| {
            let mut r = Endless {
                prefix: prefix.to_vec(),
                served: 0,
            };
            let result = Checkpoint::read_from(&mut r, None, max_points).map_err(|e| e.to_string());
            (result, r.served)
        };
        // Followed by more bytes: one more than the file's length is read.
        let (got, served) = read(&bytes, 100);
        let e = got.unwrap_err();
        assert!(e.contains("longer than the 208 bytes"), "{e}");
        assert_eq!(served, bytes.len() + 1);
        // Zeros (/dev/zero): refused at the header.
        let (got, served) = read(&[], 100);
        assert!(got.unwrap_err().contains("checkpoint header"));
        assert_eq!(served, HEADER);
        // A header that gives more points than asked for: refused before
        // the state is read.
        let (got, served) = read(&bytes[..HEADER], 3);
        let e = got.unwrap_err();
        assert!(e.contains("gives 4 points, more than 3"), "{e}");
        assert_eq!(served, HEADER);
        // Exactly the file: read back as it was.
        let mut exact = &bytes[..];
        assert_eq!(Checkpoint::read_from(&mut exact, Some(7), 4).unwrap(), c);
        // Another scene: refused at the header.
        let mut r = Endless {
            prefix: bytes.clone(),
            served: 0,
        };
        let e = Checkpoint::read_from(&mut r, Some(8), 4).unwrap_err();
        assert!(matches!(e, CheckpointError::SceneMismatch { .. }), "{e}");
        assert_eq!(r.served, HEADER);
        // More points than any world holds (MAX_ITEMS, what
        // `Checkpoint::read` allows).
        let mut huge = bytes[..HEADER].to_vec();
        huge[48..56].copy_from_slice(&(1u64 << 40).to_le_bytes());
        let (got, served) = read(&huge, crate::world::MAX_ITEMS);
        assert!(got.unwrap_err().contains("more than 1073741824"));
        assert_eq!(served, HEADER);
    }

    /// A checkpoint names its scene by hash, so the hash of a scene must not
    /// change when only the solver's buffer layouts do. Change these values
    /// only with a new checkpoint format version, or when the packed scene
    /// data or the default dynamics change (a new default stiffness or
    /// contact pass count changes them).
    #[test]
    fn the_scene_hash_of_a_fixed_scene_has_not_changed() {
        let world = default_scene(50).unwrap();
        let solver = CpuSolver::new(&world).unwrap();
        assert_eq!(solver.scene_hash(), 0x04c9_0259_1567_c572);
        let bench = CpuSolver::new(&bench_scene(1000).unwrap()).unwrap();
        assert_eq!(bench.scene_hash(), 0x7cd3_972c_94e2_42d5);
    }

    /// A body softer than the default area stiffness takes its shape's
    /// (the default rule), and bodies on that rule leave the area fields
    /// out of the hash. Area stiffness or inflation off that rule change
    /// the hash.
    #[test]
    fn the_area_term_enters_the_scene_hash_only_off_its_default() {
        let hash = |area: Option<f32>, inflation: f32| {
            let mut world = World::default();
            world.add_plane(HalfPlane::floor(0.0)).unwrap();
            BoxShape::new(Vec2::new(0.0, 1.0), Vec2::ONE)
                .body_stiffness(500.0)
                .build(&mut world)
                .unwrap();
            BoxShape::new(Vec2::new(0.0, 2.5), Vec2::ONE)
                .build(&mut world)
                .unwrap();
            if let Some(k) = area {
                world.params.area_stiffness = k;
            }
            world.set_inflation(BodyHandle(1), inflation).unwrap();
            CpuSolver::new(&world).unwrap().scene_hash()
        };
        // Fixed: the hash moves only when the dynamics do.
        assert_eq!(hash(None, 1.0), 0x7741_4683_6a6b_3921);
        assert_ne!(hash(Some(100.0), 1.0), hash(None, 1.0));
        assert_ne!(hash(None, 1.5), hash(None, 1.0));
    }

    /// The grid does not change the dynamics, so it does not change the
    /// hash either: a checkpoint loads whatever cell the scene is run with.
    #[test]
    fn the_scene_hash_does_not_depend_on_the_collision_grid() {
        let mut world = default_scene(50).unwrap();
        let auto = CpuSolver::new(&world).unwrap();
        world.params.collision_cell = Some(3.0 * auto.packed().sim.cell);
        let other = CpuSolver::new(&world).unwrap();
        assert_ne!(other.packed().sim.cell, auto.packed().sim.cell);
        assert_eq!(other.scene_hash(), auto.scene_hash());
    }

    /// A small checkpoint whose every field differs from its neighbours'.
    fn sample() -> Checkpoint {
        Checkpoint {
            scene_hash: 0x0123_4567_89ab_cdef,
            step: 42,
            time: 0.7,
            pos: vec![[1.0, 2.0], [3.0, -4.0]],
            vel: vec![[0.5, -0.25], [-1.5, 8.0]],
            rest_steps: vec![30, 0],
            warm: vec![
                [4, 4, 0.5f32.to_bits(), 2.0f32.to_bits()],
                [u32::MAX, 1, 0, 0],
            ],
        }
    }

    /// Writes the right checksum over edited bytes, so that only the edit
    /// is wrong with them.
    fn reseal(bytes: &mut [u8]) {
        let body = bytes.len() - 8;
        let sum = fnv(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
    }

    /// `sample` written in an older format `version`, whose files end
    /// `per_point` bytes a point earlier.
    fn older(version: u32, per_point: usize) -> Vec<u8> {
        let c = sample();
        let mut bytes = c.to_bytes().unwrap();
        bytes[20..24].copy_from_slice(&version.to_le_bytes());
        let end = bytes.len() - 8 - per_point * c.pos.len();
        bytes.drain(end..bytes.len() - 8);
        reseal(&mut bytes);
        bytes
    }

    /// A version 1 file (from before sleeping: no steps at rest) is read,
    /// with everything awake and every contact cold.
    #[test]
    fn a_version_1_checkpoint_loads_with_everything_awake() {
        let c = sample();
        let back = Checkpoint::from_bytes(&older(1, 20)).unwrap();
        assert!(back.rest_steps.is_empty() && back.warm.is_empty());
        assert_eq!((back.pos, back.vel), (c.pos, c.vel));
    }

    /// A version 2 file (from before warm starting) is read with its steps
    /// at rest, every contact cold.
    #[test]
    fn a_version_2_checkpoint_loads_with_every_contact_cold() {
        let c = sample();
        let back = Checkpoint::from_bytes(&older(2, 16)).unwrap();
        assert!(back.warm.is_empty());
        assert_eq!(
            (back.pos, back.vel, back.rest_steps),
            (c.pos, c.vel, c.rest_steps)
        );
    }

    /// Warm starts whose impulses are not finite are refused, in the file
    /// and in the struct.
    #[test]
    fn a_warm_start_that_is_not_finite_is_refused() {
        let mut c = sample();
        c.warm[1][3] = f32::NAN.to_bits();
        let e = c.to_bytes().unwrap_err().to_string();
        assert!(
            e.contains("point 1") && e.contains("warm start impulse"),
            "{e}"
        );
        let mut bytes = sample().to_bytes().unwrap();
        let at = bytes.len() - 8 - 16 + 8;
        bytes[at..at + 4].copy_from_slice(&f32::INFINITY.to_bits().to_le_bytes());
        reseal(&mut bytes);
        let e = Checkpoint::from_bytes(&bytes).unwrap_err().to_string();
        assert!(
            e.contains("point 1") && e.contains("warm start left"),
            "{e}"
        );
    }

    /// Every field comes back from the bytes, `time` included (the program
    /// recomputes its time from the step, so nothing else reads it back).
    #[test]
    fn every_field_round_trips_through_the_bytes() {
        let c = sample();
        let bytes = c.to_bytes().unwrap();
        assert_eq!(bytes.len(), HEADER + 36 * 2 + 8);
        let back = Checkpoint::from_bytes(&bytes).unwrap();
        assert_eq!(back, c);
        assert_eq!(back.time.to_bits(), c.time.to_bits());
    }

    /// A NaN, infinite or negative time is refused when written and when
    /// read (with a valid checksum); it was taken as it came.
    #[test]
    fn a_time_that_is_not_a_time_is_refused() {
        let good = sample().to_bytes().unwrap();
        for time in [f64::NAN, f64::INFINITY, -1.0] {
            let c = Checkpoint { time, ..sample() };
            assert!(
                matches!(c.to_bytes(), Err(CheckpointError::Format(_))),
                "{time}"
            );
            let mut bytes = good.clone();
            bytes[40..48].copy_from_slice(&time.to_bits().to_le_bytes());
            reseal(&mut bytes);
            match Checkpoint::from_bytes(&bytes) {
                Err(CheckpointError::Format(m)) => assert!(m.contains("time"), "{m}"),
                other => panic!("{time}: {other:?}"),
            }
        }
    }

    /// The checksum only catches damage: a file with a valid checksum but
    /// another magic, another format version or bytes past the last point
    /// is refused by the header and length checks themselves.
    #[test]
    fn a_foreign_header_or_length_is_refused_even_with_a_valid_checksum() {
        let good = sample().to_bytes().unwrap();
        let message = |bytes: &[u8]| match Checkpoint::from_bytes(bytes) {
            Err(CheckpointError::Format(m)) => m,
            other => panic!("accepted or wrong error: {other:?}"),
        };
        let mut magic = good.clone();
        magic[0] ^= 0x20;
        reseal(&mut magic);
        assert!(message(&magic).contains("header"), "{}", message(&magic));
        let mut version = good.clone();
        version[20..24].copy_from_slice(&4u32.to_le_bytes());
        reseal(&mut version);
        assert!(
            message(&version).contains("format version 4"),
            "{}",
            message(&version)
        );
        let mut long = good.clone();
        let at = long.len() - 8;
        long.splice(at..at, [0u8; 16]);
        reseal(&mut long);
        assert!(
            message(&long).contains("expected 136"),
            "{}",
            message(&long)
        );
    }

    /// A write that fails after the temporary file was made (here the
    /// rename, over a non-empty directory) leaves nothing behind.
    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let dir = scratch("failed_write");
        std::fs::create_dir_all(dir.join("taken").join("inside")).unwrap();
        let err = sample().write(&dir.join("taken")).unwrap_err();
        assert!(matches!(err, CheckpointError::Io { .. }), "{err:?}");
        let left = names(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(left, ["taken"], "a temporary file was left behind");
    }
}
