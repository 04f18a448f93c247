//! Checkpoints: the evolving state of a run, written exactly, so that a run
//! resumed from one ends bitwise identical to the same run done in one go.
//!
//! What evolves is the position and velocity of every point (pinned points
//! moved with `move_pinned_point` included), the step count, for
//! sleeping how many steps each assembly has been at rest, each point's
//! anchor (where its motion is measured from) and support (the body whose
//! motion wakes it while it sleeps), and for the
//! body contacts each point's warm start and each body's tangles (tangle
//! recovery holds a pair it is parting while the narrow phase finds their
//! points in each other). Nothing
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
//! | 4 | format version, `6` |
//! | 8 | scene hash |
//! | 8 | step count |
//! | 8 | time in seconds, f64 |
//! | 8 | number of points `n` |
//! | 8 | number of tangle records `b`: the bodies, or 0 |
//! | 8 n | positions, `n` pairs of f32 |
//! | 8 n | velocities, `n` pairs of f32 |
//! | 4 n | steps at rest of the assembly each point is the root of, u32 (0 elsewhere) |
//! | 16 n | warm starts, four u32 per point ([`CpuSolver::warm_starts`]; the sign bit of the third is [`WARM_SETTLED`](crate::layout::WARM_SETTLED), its rest a warm start or a placement allowance, of the fourth [`WARM_SKIN`](crate::layout::WARM_SKIN)) |
//! | 32 b | tangles, eight u32 per body ([`CpuSolver::tangles`]) |
//! | 8 n | sleep anchors, `n` pairs of f32 ([`CpuSolver::sleep_anchors`]) |
//! | 4 n | sleep supports, u32 ([`CpuSolver::sleep_supports`]) |
//! | 8 | FNV-1a 64 of everything before, to catch truncated or damaged files |
//!
//! Version 5 files (without the supports) still load, every point
//! without a support; version 4 files (without the anchors) still load, each point's
//! anchor taken at its position; version 3 files (without the tangles) still load, their tangles found
//! again from the positions; version 2 files (without the warm starts)
//! load with their contacts starting cold; version 1 files (without the steps at rest either) load
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
const VERSION: u32 = 6;
/// The version before sleep supports, read with every point unsupported.
const VERSION_UNSUPPORTED: u32 = 5;
/// The version before sleep anchors, read with each point anchored at its
/// position.
const VERSION_UNANCHORED: u32 = 4;
/// The version before tangle recovery, read without tangles.
const VERSION_UNTANGLED: u32 = 3;
/// The version before warm starting, read as all contacts cold.
const VERSION_COLD: u32 = 2;
/// The version before sleeping, read as all awake (and cold).
const VERSION_AWAKE: u32 = 1;
/// Bytes before the state: magic, version, hash, step, time, count (and
/// from version 4 the tangle records' count, [`HEADER_TANGLES`]).
const HEADER: usize = 20 + 4 + 8 + 8 + 8 + 8;
/// A version 4 header: [`HEADER`] and the tangle records' count. Every
/// file is at least this long (its checksum follows the header).
const HEADER_TANGLES: usize = HEADER + 8;

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
    /// Each body's tangles ([`CpuSolver::tangles`]). Empty: found again
    /// from the positions at the next step.
    pub tangles: Vec<[u32; 8]>,
    /// Each point's sleep anchor ([`CpuSolver::sleep_anchors`]). Empty:
    /// each point anchored where it is.
    pub anchors: Vec<[f32; 2]>,
    /// Each point's sleep support ([`CpuSolver::sleep_supports`]). Empty:
    /// no point has one.
    pub supports: Vec<u32>,
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
            tangles: solver.tangles(),
            anchors: solver.sleep_anchors().to_vec(),
            supports: solver.sleep_supports().to_vec(),
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
            tangles: solver.read_tangles(device, queue)?,
            anchors: solver.read_sleep_anchors(device, queue)?,
            supports: solver.read_sleep_supports(device, queue)?,
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
        if !self.tangles.is_empty() {
            solver
                .set_tangles(&self.tangles)
                .map_err(SolverError::from)?;
        }
        if !self.anchors.is_empty() {
            solver
                .set_sleep_anchors(&self.anchors)
                .map_err(SolverError::from)?;
        }
        if !self.supports.is_empty() {
            solver
                .set_sleep_supports(&self.supports)
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
        if !self.tangles.is_empty() {
            solver.set_tangles(queue, &self.tangles)?;
        }
        if !self.anchors.is_empty() {
            solver.set_sleep_anchors(queue, &self.anchors)?;
        }
        if !self.supports.is_empty() {
            solver.set_sleep_supports(queue, &self.supports)?;
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
        let b = self.tangles.len();
        crate::validate::check_tangles(b, &self.tangles).map_err(SolverError::from)?;
        if !self.anchors.is_empty() {
            crate::validate::check_sleep_anchors(n, &self.anchors).map_err(SolverError::from)?;
        }
        if !self.supports.is_empty() {
            // The body count is the scene's, checked on restore.
            crate::validate::check_sleep_supports(n, u32::MAX as usize, &self.supports)
                .map_err(SolverError::from)?;
        }
        let mut out = Vec::with_capacity(HEADER_TANGLES + 48 * n + 32 * b + 8);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&self.scene_hash.to_le_bytes());
        out.extend_from_slice(&self.step.to_le_bytes());
        out.extend_from_slice(&self.time.to_bits().to_le_bytes());
        out.extend_from_slice(&(n as u64).to_le_bytes());
        out.extend_from_slice(&(b as u64).to_le_bytes());
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
        for word in self.tangles.iter().flatten() {
            out.extend_from_slice(&word.to_le_bytes());
        }
        for k in 0..n {
            let a = self.anchors.get(k).unwrap_or(&self.pos[k]);
            out.extend_from_slice(&a[0].to_bits().to_le_bytes());
            out.extend_from_slice(&a[1].to_bits().to_le_bytes());
        }
        for k in 0..n {
            let s = self.supports.get(k).copied().unwrap_or(u32::MAX);
            out.extend_from_slice(&s.to_le_bytes());
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
        if bytes.len() < HEADER_TANGLES || &bytes[..20] != MAGIC {
            return Err(CheckpointError::Format(
                "the file does not start with the checkpoint header".into(),
            ));
        }
        let version = u32::from_le_bytes(bytes[20..24].try_into().expect("4 bytes"));
        if ![
            VERSION,
            VERSION_UNSUPPORTED,
            VERSION_UNANCHORED,
            VERSION_UNTANGLED,
            VERSION_COLD,
            VERSION_AWAKE,
        ]
        .contains(&version)
        {
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
        // At most 2^30 points and bodies (MAX_ITEMS): no overflow.
        let per_point = match version {
            VERSION_AWAKE => 16,
            VERSION_COLD => 20,
            VERSION_UNTANGLED | VERSION_UNANCHORED => 36,
            VERSION_UNSUPPORTED => 44,
            _ => 48,
        };
        if version < VERSION_UNANCHORED {
            return Ok((n, HEADER as u64 + per_point * n + 8));
        }
        let b = u64_at(HEADER);
        if b > MAX_ITEMS {
            return Err(CheckpointError::Format(format!(
                "the header gives {b} tangle records, more than {MAX_ITEMS}: damaged"
            )));
        }
        Ok((n, HEADER_TANGLES as u64 + per_point * n + 32 * b + 8))
    }

    /// Parses a checkpoint's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CheckpointError> {
        let bad = |m: &str| CheckpointError::Format(m.to_string());
        if bytes.len() < HEADER_TANGLES {
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
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let version = u32_at(20);
        // Where the state starts: after the tangle records' count from
        // version 4.
        let start = if version >= VERSION_UNANCHORED {
            HEADER_TANGLES
        } else {
            HEADER
        };
        let pair = |k: usize| {
            let at = start + 8 * k;
            let f = |o: usize| {
                f32::from_bits(u32::from_le_bytes(
                    bytes[o..o + 4].try_into().expect("4 bytes"),
                ))
            };
            [f(at), f(at + 4)]
        };
        let time = f64::from_bits(u64_at(40));
        check_time(time)?;
        let rest_steps = if version == VERSION_AWAKE {
            Vec::new()
        } else {
            (0..n).map(|k| u32_at(start + 16 * n + 4 * k)).collect()
        };
        let warm: Vec<[u32; 4]> = if version >= VERSION_UNTANGLED {
            let at = |k: usize, w: usize| u32_at(start + 20 * n + 16 * k + 4 * w);
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
        let b = if version >= VERSION_UNANCHORED {
            u64_at(HEADER) as usize
        } else {
            0
        };
        let tangles: Vec<[u32; 8]> = if version >= VERSION_UNANCHORED {
            let at = start + 36 * n;
            (0..b)
                .map(|k| std::array::from_fn(|w| u32_at(at + 32 * k + 4 * w)))
                .collect()
        } else {
            Vec::new()
        };
        crate::validate::check_tangles(tangles.len(), &tangles)
            .map_err(|e| CheckpointError::Format(format!("{e}")))?;
        let anchors: Vec<[f32; 2]> = if version >= VERSION_UNSUPPORTED {
            let at = start + 36 * n + 32 * b;
            let f = |o: usize| f32::from_bits(u32_at(o));
            (0..n).map(|k| [f(at + 8 * k), f(at + 8 * k + 4)]).collect()
        } else {
            Vec::new()
        };
        if !anchors.is_empty() {
            crate::validate::check_sleep_anchors(n, &anchors)
                .map_err(|e| CheckpointError::Format(format!("{e}")))?;
        }
        let supports: Vec<u32> = if version == VERSION {
            let at = start + 44 * n + 32 * b;
            (0..n).map(|k| u32_at(at + 4 * k)).collect()
        } else {
            Vec::new()
        };
        if !supports.is_empty() {
            crate::validate::check_sleep_supports(n, u32::MAX as usize, &supports)
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
            tangles,
            anchors,
            supports,
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
        let mut bytes = Vec::with_capacity(HEADER_TANGLES);
        r.by_ref()
            .take(HEADER_TANGLES as u64)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        let (n, expected) = Self::header(&bytes, scene_hash, max_points)?;
        // One byte more than the header gives tells a longer file.
        r.take(expected - bytes.len() as u64 + 1)
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
mod tests;
