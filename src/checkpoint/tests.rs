//! The checkpoint format's own tests: round trips, older versions, damage
//! and bounded reads.

use super::{Checkpoint, CheckpointError, HEADER, HEADER_TANGLES};
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
        tangles: vec![],
        anchors: vec![[1.0, 2.5]; 4],
        supports: vec![u32::MAX, 0, 3, u32::MAX],
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
    assert!(e.contains("longer than the 264 bytes"), "{e}");
    assert_eq!(served, bytes.len() + 1);
    // Zeros (/dev/zero): refused at the header.
    let (got, served) = read(&[], 100);
    assert!(got.unwrap_err().contains("checkpoint header"));
    assert_eq!(served, HEADER_TANGLES);
    // A header that gives more points than asked for: refused before
    // the state is read.
    let (got, served) = read(&bytes[..HEADER], 3);
    let e = got.unwrap_err();
    assert!(e.contains("gives 4 points, more than 3"), "{e}");
    assert_eq!(served, HEADER_TANGLES);
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
    assert_eq!(r.served, HEADER_TANGLES);
    // More points than any world holds (MAX_ITEMS, what
    // `Checkpoint::read` allows).
    let mut huge = bytes[..HEADER].to_vec();
    huge[48..56].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let (got, served) = read(&huge, crate::world::MAX_ITEMS);
    assert!(got.unwrap_err().contains("more than 1073741824"));
    assert_eq!(served, HEADER_TANGLES);
}

/// A checkpoint names its scene by hash, so the hash of a scene must not
/// change when only the solver's buffer layouts do. Change these values
/// only with a new checkpoint format version, or when the packed scene
/// data or the default dynamics change (a new default stiffness or
/// contact pass count changes them), or the scenes themselves do (their
/// layout).
#[test]
fn the_scene_hash_of_a_fixed_scene_has_not_changed() {
    let world = default_scene(50).unwrap();
    let solver = CpuSolver::new(&world).unwrap();
    assert_eq!(solver.scene_hash(), 0x730c_baa6_8a1f_ab01);
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
        tangles: vec![
            [0; 8],
            [
                3 | crate::layout::TANGLE_KEPT,
                0,
                0.6f32.to_bits(),
                (-0.8f32).to_bits(),
                0,
                0,
                0,
                0,
            ],
        ],
        anchors: vec![[1.5, 2.0], [3.0, -3.5]],
        supports: vec![1, u32::MAX],
    }
}

/// Writes the right checksum over edited bytes, so that only the edit
/// is wrong with them.
fn reseal(bytes: &mut [u8]) {
    let body = bytes.len() - 8;
    let sum = fnv(&bytes[..body]);
    bytes[body..].copy_from_slice(&sum.to_le_bytes());
}

/// `sample` written in an older format `version` (1 to 3): without the
/// tangles (their count in the header, their records), and ending
/// `per_point` bytes a point earlier (the anchors, 8, and what the
/// version lacks before them).
fn older(version: u32, per_point: usize) -> Vec<u8> {
    let mut c = sample();
    c.tangles.clear();
    let mut bytes = c.to_bytes().unwrap();
    bytes[20..24].copy_from_slice(&version.to_le_bytes());
    bytes.drain(HEADER..HEADER_TANGLES);
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
    let back = Checkpoint::from_bytes(&older(1, 32)).unwrap();
    assert!(back.rest_steps.is_empty() && back.warm.is_empty());
    assert_eq!((back.pos, back.vel), (c.pos, c.vel));
}

/// A version 2 file (from before warm starting) is read with its steps
/// at rest, every contact cold.
#[test]
fn a_version_2_checkpoint_loads_with_every_contact_cold() {
    let c = sample();
    let back = Checkpoint::from_bytes(&older(2, 28)).unwrap();
    assert!(back.warm.is_empty());
    assert_eq!(
        (back.pos, back.vel, back.rest_steps),
        (c.pos, c.vel, c.rest_steps)
    );
}

/// A version 3 file (from before tangle recovery) is read with its warm
/// starts, without tangles (found again from the positions).
#[test]
fn a_version_3_checkpoint_loads_without_tangles() {
    let c = sample();
    let back = Checkpoint::from_bytes(&older(3, 12)).unwrap();
    assert!(back.tangles.is_empty());
    assert_eq!((back.pos, back.warm), (c.pos, c.warm));
}

/// A version 4 file (from before sleep anchors) is read with its tangles
/// and without anchors: each point is anchored where it is.
#[test]
fn a_version_4_checkpoint_loads_without_anchors() {
    let c = sample();
    let mut bytes = c.to_bytes().unwrap();
    bytes[20..24].copy_from_slice(&4u32.to_le_bytes());
    let end = bytes.len() - 8;
    bytes.drain(end - 12 * c.pos.len()..end);
    reseal(&mut bytes);
    let back = Checkpoint::from_bytes(&bytes).unwrap();
    assert!(back.anchors.is_empty() && back.supports.is_empty());
    assert_eq!(
        Checkpoint {
            anchors: c.anchors.clone(),
            supports: c.supports.clone(),
            ..back
        },
        c
    );
}

/// A version 5 file (from before sleep supports) is read with its
/// anchors and without supports: no sleeping point has one.
#[test]
fn a_version_5_checkpoint_loads_without_supports() {
    let c = sample();
    let mut bytes = c.to_bytes().unwrap();
    bytes[20..24].copy_from_slice(&5u32.to_le_bytes());
    let end = bytes.len() - 8;
    bytes.drain(end - 4 * c.pos.len()..end);
    reseal(&mut bytes);
    let back = Checkpoint::from_bytes(&bytes).unwrap();
    assert!(back.supports.is_empty());
    assert_eq!(
        Checkpoint {
            supports: c.supports.clone(),
            ..back
        },
        c
    );
}

/// A sleep support that names no body is refused when restored, and the
/// file must hold one per point.
#[test]
fn a_sleep_support_out_of_range_is_refused() {
    let mut world = crate::world::World::default();
    crate::shapes::Wheel::new(glam::Vec2::ZERO, 0.5, 8)
        .build(&mut world)
        .unwrap();
    let mut solver = crate::cpu::CpuSolver::new(&world).unwrap();
    let n = solver.positions().len();
    let mut supports = vec![u32::MAX; n];
    supports[2] = 1;
    let e = solver
        .set_sleep_supports(&supports)
        .unwrap_err()
        .to_string();
    assert!(e.contains("point 2") && e.contains("sleep support"), "{e}");
    let e = solver.set_sleep_supports(&[0]).unwrap_err().to_string();
    assert!(e.contains("sleep supports"), "{e}");
    supports[2] = 0;
    solver.set_sleep_supports(&supports).unwrap();
    assert_eq!(solver.sleep_supports(), &supports[..]);
}

/// Sleep anchors that are not finite are refused, in the struct and in
/// the file.
#[test]
fn a_sleep_anchor_that_is_not_finite_is_refused() {
    let mut c = sample();
    c.anchors[1][0] = f32::NAN;
    let e = c.to_bytes().unwrap_err().to_string();
    assert!(e.contains("point 1") && e.contains("sleep anchor"), "{e}");
    let mut bytes = sample().to_bytes().unwrap();
    let at = bytes.len() - 8 - 8 - 4;
    bytes[at..at + 4].copy_from_slice(&f32::INFINITY.to_bits().to_le_bytes());
    reseal(&mut bytes);
    let e = Checkpoint::from_bytes(&bytes).unwrap_err().to_string();
    assert!(e.contains("point 1") && e.contains("sleep anchor"), "{e}");
}

/// Tangles that name a body out of range or a direction that is not
/// finite are refused, in the struct and in the file.
#[test]
fn a_tangle_out_of_range_or_not_finite_is_refused() {
    let mut c = sample();
    c.tangles[1][1] = 2;
    let e = c.to_bytes().unwrap_err().to_string();
    assert!(e.contains("body 1") && e.contains("tangle"), "{e}");
    let mut bytes = sample().to_bytes().unwrap();
    let at = bytes.len() - 8 - 8 - 16 - 32 + 8;
    bytes[at..at + 4].copy_from_slice(&f32::NAN.to_bits().to_le_bytes());
    reseal(&mut bytes);
    let e = Checkpoint::from_bytes(&bytes).unwrap_err().to_string();
    assert!(
        e.contains("body 1") && e.contains("tangle direction"),
        "{e}"
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
    let at = bytes.len() - 8 - 8 - 16 - 32 * 2 - 16 + 8;
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
    assert_eq!(bytes.len(), HEADER_TANGLES + 48 * 2 + 32 * 2 + 8);
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
    version[20..24].copy_from_slice(&7u32.to_le_bytes());
    reseal(&mut version);
    assert!(
        message(&version).contains("format version 7"),
        "{}",
        message(&version)
    );
    let mut long = good.clone();
    let at = long.len() - 8;
    long.splice(at..at, [0u8; 16]);
    reseal(&mut long);
    assert!(
        message(&long).contains("expected 232"),
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
