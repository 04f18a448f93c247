//! The scene hash: a fingerprint of a world's dynamics that checkpoints
//! store.

use super::Packed;
use super::items::area_stiffness;
use crate::fnv::Fnv;
use crate::frequency::DEFAULT_AREA_STIFFNESS;
use crate::layout::{BodyOutline, NO_JOINS, PlaneInfo, PlanetInfo, SegmentInfo, SimParams};
use crate::params::Params;

/// A fingerprint of everything that defines a world's dynamics: the
/// parameters (`dt`, `substeps`, `rod_iterations`, `contact_iterations`,
/// `contact_relax_iterations`, sleeping and the uniform ones),
/// every point's mass, material and layers, the resolved materials, springs
/// and bodies (with their rest shapes), and the colliders. It leaves out the
/// state (`pos`, `vel`), which is what a checkpoint replaces, and the body
/// frames, which are recomputed every substep.
///
/// Stable across runs, platforms and backends: checkpoints store it to
/// refuse loading into another scene.
pub fn scene_hash(packed: &Packed, params: &Params) -> u64 {
    let mut h = Fnv::new();
    h.bytes(b"softbody scene v1");
    h.slice("dt", &[params.dt]);
    h.slice("steps", &[params.substeps, params.rod_iterations]);
    // Hashed only when not the default, so that a scene at the default
    // hashes as one without the field, and its checkpoints still match.
    if params.contact_iterations != 1 {
        h.slice("contact_iterations", &[params.contact_iterations]);
    }
    if params.contact_relax_iterations != 1 {
        h.slice(
            "contact_relax_iterations",
            &[params.contact_relax_iterations],
        );
    }
    // The collision grid (cell size, its inverse, table size) chooses how
    // contact candidates are found, not the dynamics: a step is bitwise the
    // same for any cell (tests/stages/broad_phase.rs). Left out for scenes with
    // contacts, so that a checkpoint loads whatever the grid, automatic or
    // `collision_cell`; kept in the hash of scenes without contacts, so
    // that their hashes, and the checkpoints that carry them, stay valid.
    // Sleeping is hashed from the parameters, only when not the default
    // (as above), so that scenes from before it keep their hashes.
    let sleep = Params::default();
    let sleeping = [params.sleep_speed, params.sleep_time, params.wake_speed];
    if sleeping != [sleep.sleep_speed, sleep.sleep_time, sleep.wake_speed] {
        h.slice("sleep", &sleeping);
    }
    let mut sim = packed.sim;
    if packed.has_contacts() {
        sim.cell = 0.0;
        sim.inv_cell = 0.0;
        sim.table_mask = 0;
    }
    // The uniforms as they were before sleeping's fields (which come from
    // the parameters above): the first 76 bytes and a zero word.
    let head = std::mem::offset_of!(SimParams, sleep_motion_sq);
    let mut old_sim = bytemuck::bytes_of(&sim)[..head].to_vec();
    old_sim.extend_from_slice(&[0; 4]);
    h.bytes(b"sim");
    h.bytes(&1u64.to_le_bytes());
    h.bytes(&old_sim);
    h.slice("point_info", &packed.point_info);
    // Only where some point's differs from 1: the hashes of scenes that
    // have none stay as they were.
    if packed.gravity_scale.iter().any(|&g| g != 1.0) {
        h.slice("gravity_scale", &packed.gravity_scale);
    }
    h.slice("materials", &packed.materials);
    h.slice("springs", &packed.springs);
    // Bodies as their first four fields; the area fields only when a body
    // is off the default rule (`area_stiffness` with the default parameter,
    // inflation 1; area_norm follows from the members), so that scenes from
    // before the area term keep their hashes. Each body's `first` as a
    // fresh pack lays the members out, body by body, whatever holes
    // removals left (`follow.rs`).
    let mut first = 0;
    let shape: Vec<[u32; 4]> = packed
        .bodies
        .iter()
        .map(|b| {
            first += b.count;
            [
                first - b.count,
                b.count,
                b.stiffness.to_bits(),
                b.damping.to_bits(),
            ]
        })
        .collect();
    h.slice("bodies", &shape);
    let area: Vec<[f32; 2]> = packed
        .bodies
        .iter()
        .map(|b| [b.area_stiffness, b.inflation])
        .collect();
    let at_default = packed.bodies.iter().zip(&area).all(|(b, &a)| {
        a == [
            area_stiffness(None, b.stiffness, DEFAULT_AREA_STIFFNESS),
            1.0,
        ]
    });
    if !at_default {
        h.slice("body_area", &area);
    }
    // Members as (rest offset, point, body), without the weight `Member`
    // carries, so that the hash does not depend on the solver's member
    // layout and existing checkpoints still load: the weights are hashed
    // with `point_info`.
    let members: Vec<[u32; 4]> = packed
        .body_members()
        .map(|(b, m)| [m.rest[0].to_bits(), m.rest[1].to_bits(), m.point, b])
        .collect();
    h.slice("members", &members);
    // Only in worlds with kinematic bodies: the hashes of others stay.
    if !packed.kinematic.is_empty() {
        h.slice("kinematic", &packed.kinematic);
    }
    // The planets as they were hashed before they could pull (16 bytes
    // each), and their pulls only where one has any.
    let planets: Vec<[u32; 4]> = packed
        .planets
        .iter()
        .map(|p| {
            [
                p.origin[0].to_bits(),
                p.origin[1].to_bits(),
                p.radius.to_bits(),
                p.layers,
            ]
        })
        .collect();
    h.slice("planets", &planets);
    if packed.planets.iter().any(|p| p.gravity != 0.0) {
        let pulls: Vec<f32> = packed.planets.iter().map(|p| p.gravity).collect();
        h.slice("planet_gravity", &pulls);
    }
    // The half-planes as they were hashed before they could move (16
    // bytes each), and their motions only where one moves.
    let planes: Vec<[u32; 4]> = packed
        .planes
        .iter()
        .map(|p| {
            [
                p.normal0[0].to_bits(),
                p.normal0[1].to_bits(),
                p.offset0.to_bits(),
                p.layers,
            ]
        })
        .collect();
    h.slice("planes", &planes);
    if !packed.terrain.segments.is_empty() {
        // Without the open ends, which follow from the polylines, so that
        // terrain scenes from before them keep their hashes.
        let segments: Vec<_> = packed
            .terrain
            .segments
            .iter()
            .map(|s| SegmentInfo { open_ends: 0, ..*s })
            .collect();
        h.slice("terrain", &segments);
    }
    if packed.planets.iter().any(PlanetInfo::moves) {
        let motions: Vec<[f32; 3]> = packed
            .planets
            .iter()
            .map(|p| [p.velocity[0], p.velocity[1], p.spin])
            .collect();
        h.slice("planet_motion", &motions);
    }
    if packed.planes.iter().any(PlaneInfo::moves) {
        let motions: Vec<[f32; 5]> = packed
            .planes
            .iter()
            .map(|p| {
                [
                    p.velocity[0],
                    p.velocity[1],
                    p.spin,
                    p.pivot0[0],
                    p.pivot0[1],
                ]
            })
            .collect();
        h.slice("plane_motion", &motions);
    }
    // The world's joints, only where there are any: body, other (+1, 0
    // the world), then the motor's speed and torque and the limits (NaN
    // where it has none).
    if !packed.joints.is_empty() {
        let joints: Vec<[u32; 6]> = packed
            .joints
            .iter()
            .map(|j| {
                let (speed, torque) = j
                    .motor
                    .map_or((f32::NAN, f32::NAN), |m| (m.speed, m.max_torque));
                let [lower, upper] = j.limits.unwrap_or([f32::NAN; 2]);
                [
                    j.body.0,
                    j.other.map_or(0, |o| o.0 + 1),
                    speed.to_bits(),
                    torque.to_bits(),
                    lower.to_bits(),
                    upper.to_bits(),
                ]
            })
            .collect();
        h.slice("joints", &joints);
        // The springs, only where a joint has one: the hashes of joints
        // without stay. Per joint, hertz, damping ratio and target (NaN
        // where it has none).
        if packed.joints.iter().any(|j| j.spring.is_some()) {
            let springs: Vec<[u32; 3]> = packed
                .joints
                .iter()
                .map(|j| {
                    j.spring.map_or([f32::NAN.to_bits(); 3], |s| {
                        [
                            s.hertz.to_bits(),
                            s.damping_ratio.to_bits(),
                            s.target.to_bits(),
                        ]
                    })
                })
                .collect();
            h.slice("joint_springs", &springs);
        }
    }
    // The contact data as it was hashed before the lists of joined bodies
    // (each point's assembly and filter, the outlines back to back), and
    // the lists only where bodies collide and some body is joined to
    // another: the hashes of other scenes stay.
    let contact_points: Vec<[u32; 2]> = packed
        .contact_points
        .iter()
        .map(|c| [c.group, c.filter_id])
        .collect();
    h.slice("contact_points", &contact_points);
    let mut first = 0;
    let outlines: Vec<BodyOutline> = packed
        .outlines
        .iter()
        .map(|o| {
            first += o.count;
            BodyOutline {
                first: first - o.count,
                ..*o
            }
        })
        .collect();
    h.slice("outlines", &outlines);
    let outline = |o: &BodyOutline| (o.first as usize, (o.first + o.count) as usize);
    let rings: Vec<u32> = packed
        .outlines
        .iter()
        .flat_map(|o| {
            let (a, b) = outline(o);
            packed.outline_points[a..b].iter().copied()
        })
        .collect();
    h.slice("outline_points", &rings);
    let list = |at: usize| {
        let n = packed.outline_points[at] as usize;
        &packed.outline_points[at..=at + n]
    };
    if packed.has_joined_bodies() {
        let body_lists: Vec<u32> = packed
            .outlines
            .iter()
            .flat_map(|o| list(outline(o).1).iter().copied())
            .collect();
        h.slice("body_joins", &body_lists);
        let point_lists: Vec<u32> = packed
            .contact_points
            .iter()
            .flat_map(|c| match c.joins {
                NO_JOINS => &[][..],
                at => list(at as usize),
            })
            .copied()
            .collect();
        h.slice("point_joins", &point_lists);
    }
    h.slice("contact_filters", &packed.contact_filters);
    h.finish()
}
