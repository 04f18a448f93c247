//! Every WGSL file parses and validates with naga, and every struct shared
//! with WGSL has the size and field offsets of naga's layout. No GPU needed.

mod common;

use common::naga::check_layout;
use common::naga::parse_and_validate;
use softbody::gpu::shaders::{FRAGMENTS, SHARED, STAGES, stage_source};
use softbody::layout::*;

#[test]
fn every_stage_parses_and_validates() {
    assert_eq!(STAGES.len(), 16);
    for (name, _) in STAGES {
        let source = stage_source(name).unwrap();
        let module = parse_and_validate(name, &source);
        assert!(
            module
                .entry_points
                .iter()
                .all(|e| e.stage == naga::ShaderStage::Compute),
            "{name}: every entry point is a compute kernel"
        );
    }
}

#[test]
fn shader_files_on_disk_are_the_ones_compiled_in() {
    // Every .wgsl in shaders/ and its folders is the prelude, a registered
    // stage or a fragment that some stage holds; shaders/render is the
    // renderer's (tests/render.rs).
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut on_disk: Vec<String> = Vec::new();
    let mut folders = vec![String::new()];
    while let Some(folder) = folders.pop() {
        for e in std::fs::read_dir(dir.join(&folder)).unwrap() {
            let e = e.unwrap();
            let name = format!("{folder}{}", e.file_name().into_string().unwrap());
            if e.file_type().unwrap().is_dir() {
                if name != "render" {
                    folders.push(format!("{name}/"));
                }
            } else if name.ends_with(".wgsl") {
                on_disk.push(name);
            }
        }
    }
    on_disk.sort();
    let mut known: Vec<String> = STAGES.iter().map(|(n, _)| format!("{n}.wgsl")).collect();
    known.push("shared.wgsl".into());
    for (name, src) in FRAGMENTS {
        known.push(format!("{name}.wgsl"));
        assert!(
            STAGES.iter().any(|(_, stage)| stage.contains(src)),
            "fragment {name} is in no stage"
        );
    }
    known.sort();
    assert_eq!(on_disk, known);
}

#[test]
fn rust_structs_match_naga_layouts() {
    let module = parse_and_validate("shared.wgsl", SHARED);
    check_layout!(
        module,
        SimParams,
        [
            gravity,
            h,
            point_radius,
            num_points,
            num_springs,
            num_bodies,
            num_planets,
            num_planes,
            num_small_bodies,
            num_large_bodies,
            num_colliders,
            num_small_colliders,
            num_free,
            table_mask,
            cell,
            inv_cell,
            restitution_threshold,
            contact_scale,
            sleep_motion_sq,
            wake_speed_sq,
            sleep_steps,
            untangle_speed,
            dt,
            push_speed,
            body_push_speed,
            untangle_push,
            _pad0
        ]
    );
    check_layout!(module, SleepPoint, [group, inv_mass]);
    check_layout!(module, ContactPoint, [group, filter_id, joins]);
    check_layout!(module, BodyOutline, [first, count, group, filter_id]);
    check_layout!(module, ContactHit, [depth, body, edge, t, n]);
    check_layout!(
        module,
        ContactFilter,
        [
            category,
            mask,
            elasticity,
            friction,
            decay,
            static_friction,
            dynamic_friction,
            _pad0
        ]
    );
    check_layout!(module, PointInfo, [inv_mass, weight, material, layers]);
    check_layout!(
        module,
        MaterialInfo,
        [elasticity, friction, static_friction, dynamic_friction]
    );
    check_layout!(module, SpringInfo, [a, b, rest, stiffness, damping, kind]);
    check_layout!(module, HalfSpring, [other, rest, pull, damp]);
    check_layout!(module, RecordRange, [start, count]);
    check_layout!(
        module,
        BodyInfo,
        [
            first,
            count,
            stiffness,
            damping,
            area_stiffness,
            area_norm,
            inflation,
            reach
        ]
    );
    check_layout!(module, Member, [rest, point, weight]);
    check_layout!(module, PointMember, [rest, body, relax]);
    check_layout!(module, BodyFrame, [centroid, vel, rot, omega, pull]);
    check_layout!(module, ListHead, [groups, count]);
    check_layout!(module, "ListHeadUniform", ListHead, [groups, count]);
    check_layout!(
        module,
        PlanetInfo,
        [
            center, velocity, radius, layers, gravity, spin, origin, _pad0, _pad1
        ]
    );
    check_layout!(
        module,
        PlaneInfo,
        [
            normal, offset, layers, velocity, pivot, normal0, pivot0, spin, offset0, _pad0, _pad1
        ]
    );
    check_layout!(module, Colliders, [planets, planes]);
    check_layout!(
        module,
        SegmentInfo,
        [
            a, b, normal, normal_a, normal_b, layers, thickness, terrain, open_ends
        ]
    );
    check_layout!(
        module,
        TerrainGrid,
        [origin, cell, inv_cell, cols, rows, num_segments, _pad0]
    );
    // Declared by the commands stage, its only user.
    let module = parse_and_validate("commands", &stage_source("commands").unwrap());
    check_layout!(module, Command, [kind, subject, scalar, flags, a, b, pivot]);
    let module = parse_and_validate("query", &stage_source("query").unwrap());
    check_layout!(module, RayQuery, [origin, dir, max, _pad0, _pad1, _pad2]);
    check_layout!(module, RayHitRecord, [t, kind, index, _pad, point, normal]);
    let module = parse_and_validate("events", &stage_source("events").unwrap());
    check_layout!(
        module,
        ContactEvent,
        [kind, a, b, point_index, point, approach, _pad1]
    );
}

/// Shape matching's atomic view of a plane-impact head (the frames kernels
/// raise its counts) has the layout of `ListHead`.
#[test]
fn the_plane_impact_head_views_match_the_rust_head() {
    let module = parse_and_validate("shape_match", &stage_source("shape_match").unwrap());
    check_layout!(module, "PlaneImpactHeadAtomic", ListHead, [groups, count]);
}

#[test]
fn shared_constants_match() {
    let module = parse_and_validate("shared.wgsl", SHARED);
    let literal = |name: &str| literal_of(&module, name);
    let constant = |name: &str| match literal(name) {
        naga::Literal::U32(v) => v,
        l => panic!("const {name} is {l:?}, not a u32"),
    };
    let float = |name: &str| match literal(name) {
        naga::Literal::F32(v) => v,
        l => panic!("const {name} is {l:?}, not an f32"),
    };
    assert_eq!(constant("WORKGROUP_SIZE"), WORKGROUP_SIZE);
    assert_eq!(constant("LARGE_BODY_THREADS"), LARGE_BODY_THREADS);
    assert_eq!(constant("SPREAD"), SPREAD);
    assert_eq!(constant("KIND_SPRING"), KIND_SPRING);
    assert_eq!(constant("KIND_SOFT"), KIND_SOFT);
    assert_eq!(constant("KIND_ROD"), KIND_ROD);
    assert_eq!(constant("MAX_PLANETS") as usize, MAX_PLANETS);
    assert_eq!(constant("HALF_IS_B"), HALF_IS_B);
    assert_eq!(constant("HALF_SOFT"), HALF_SOFT);
    assert_eq!(constant("HALF_INDEX"), HALF_INDEX);
    assert_eq!(constant("MAX_PLANES") as usize, MAX_PLANES);
    assert_eq!(constant("SMALL_BODY_MAX_POINTS"), SMALL_BODY_MAX_POINTS);
    assert_eq!(constant("CONTACT_FREE"), CONTACT_FREE);
    assert_eq!(constant("NO_JOINS"), NO_JOINS);
    assert_eq!(constant("IMPACT_NONE"), IMPACT_NONE);
    assert_eq!(constant("REMOVED"), softbody::world::Remap::REMOVED);
    assert_eq!(constant("LIST_ROW"), LIST_ROW);
    assert_eq!(constant("NO_BODY"), ContactHit::NONE.body);
    assert_eq!(constant("QUIET_EDGE"), ContactHit::QUIET.edge);
    assert_eq!(constant("GRID_MAX_CELLS"), GRID_MAX_CELLS);
    assert_eq!(constant("SCAN_THREADS"), SCAN_THREADS);
    assert_eq!(constant("SCAN_ITEMS"), SCAN_ITEMS);
    assert_eq!(constant("SCAN_BLOCK"), SCAN_BLOCK);
    assert_eq!(constant("SLEEP_WAKE"), SLEEP_WAKE);
    assert_eq!(constant("SLEEP_WINDOW"), SLEEP_WINDOW);
    assert_eq!(constant("TANGLE_KEPT"), TANGLE_KEPT);
    assert_eq!(constant("TANGLE_FRESH"), TANGLE_FRESH);
    assert_eq!(constant("TANGLE_CROSSED"), TANGLE_CROSSED);
    assert_eq!(constant("SEGMENT_OPEN_A"), SEGMENT_OPEN_A);
    assert_eq!(constant("SEGMENT_OPEN_B"), SEGMENT_OPEN_B);
    assert_eq!(constant("TANGLE_FLAGS"), TANGLE_FLAGS);
    assert_eq!(constant("TANGLE_WORDS"), TANGLE_WORDS);
    assert_eq!(constant("ACTIVE_POINTS"), ACTIVE_POINTS);
    assert_eq!(constant("NEAR_SLOTS"), NEAR_SLOTS);
    assert_eq!(constant("NEAR_RECORD_WORDS"), NEAR_RECORD_WORDS);
    assert_eq!(float("UNTANGLE_PUSH"), UNTANGLE_PUSH);
    assert_eq!(float("CONTACT_LIMIT_UNITS"), CONTACT_LIMIT_UNITS);
    assert_eq!(float("RESTING_SLOP"), RESTING_SLOP);
    assert_eq!(float("BODY_PUSH_SLOP"), BODY_PUSH_SLOP);
    assert_eq!(constant("WARM_SETTLED"), WARM_SETTLED);
    assert_eq!(constant("WARM_SKIN"), WARM_SKIN);
    assert_eq!(float("SKIN_PUSH_SHARE"), SKIN_PUSH_SHARE);
    assert_eq!(float("INFLATION_RATE"), INFLATION_RATE);
    assert_eq!(float("AREA_MIN_RATIO"), AREA_MIN_RATIO);
}

/// The broad phase's own constants are the Rust ones.
#[test]
fn broad_phase_constants_match() {
    let module = parse_and_validate("broad_phase", &stage_source("broad_phase").unwrap());
    let constant = |name: &str| literal_of(&module, name);
    assert_eq!(
        constant("AWAKE_STAMP_CELLS"),
        naga::Literal::U32(softbody::cpu::broad_phase::AWAKE_STAMP_CELLS)
    );
    assert_eq!(
        constant("AWAKE_TAG"),
        naga::Literal::I32(softbody::cpu::broad_phase::AWAKE_TAG)
    );
    assert_eq!(
        constant("MEASURE_DISPATCHES"),
        naga::Literal::U32(MEASURE_DISPATCHES)
    );
}

/// The embed example declares its own copy of `BodyFrame`, as an embedder
/// would; it must follow the library's layout.
#[test]
fn the_embed_examples_body_frame_matches_the_librarys() {
    let source = include_str!("../examples/embed.wgsl");
    let module = parse_and_validate("examples/embed.wgsl", source);
    check_layout!(module, BodyFrame, [centroid, vel, rot, omega, pull]);
}

/// The literal value of the WGSL constant `name` in `module`.
fn literal_of(module: &naga::Module, name: &str) -> naga::Literal {
    let (_, c) = module
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("const {name} missing"));
    match module.global_expressions[c.init] {
        naga::Expression::Literal(l) => l,
        ref e => panic!("const {name} is {e:?}"),
    }
}

/// The commands stage's kinds and flags, and the workgroup sum's thread
/// count (`shaders/reduce.wgsl`, in the commands and move_bodies stages),
/// are the Rust constants.
#[test]
fn command_constants_match() {
    for stage in ["commands", "move_bodies"] {
        let module = parse_and_validate(stage, &stage_source(stage).unwrap());
        let constant = |name: &str| literal_of(&module, name);
        assert_eq!(
            constant("REDUCE_THREADS"),
            naga::Literal::U32(REDUCE_THREADS)
        );
        if stage == "commands" {
            for (name, value) in [
                ("COMMAND_POINT_IMPULSE", COMMAND_POINT_IMPULSE),
                ("COMMAND_POINT_VELOCITY", COMMAND_POINT_VELOCITY),
                ("COMMAND_POINT_TELEPORT", COMMAND_POINT_TELEPORT),
                ("COMMAND_BODY_IMPULSE", COMMAND_BODY_IMPULSE),
                ("COMMAND_BODY_ANGULAR_IMPULSE", COMMAND_BODY_ANGULAR_IMPULSE),
                ("COMMAND_BODY_VELOCITY", COMMAND_BODY_VELOCITY),
                ("COMMAND_BODY_TELEPORT", COMMAND_BODY_TELEPORT),
                ("COMMAND_BODY_LOCAL_IMPULSE", COMMAND_BODY_LOCAL_IMPULSE),
                ("COMMAND_BODY_TARGET", COMMAND_BODY_TARGET),
                ("COMMAND_SET_ANGLE", COMMAND_SET_ANGLE),
                ("COMMAND_KINEMATIC", COMMAND_KINEMATIC),
                ("COMMAND_BODY_MOTOR", COMMAND_BODY_MOTOR),
                ("COMMAND_BODY_LIMIT", COMMAND_BODY_LIMIT),
                ("COMMAND_BODY_SPRING", COMMAND_BODY_SPRING),
            ] {
                assert_eq!(constant(name), naga::Literal::U32(value), "{name}");
            }
            assert_eq!(
                constant("LIMIT_PUSH_RATE"),
                naga::Literal::F32(LIMIT_PUSH_RATE)
            );
            assert_eq!(constant("LIMIT_PASSES"), naga::Literal::U32(LIMIT_PASSES));
        }
    }
}

/// Stage `stage`'s WGSL constants are the Rust values: `u32s` and `f32s`
/// by name.
fn assert_constants(stage: &str, u32s: &[(&str, u32)], f32s: &[(&str, f32)]) {
    let module = parse_and_validate(stage, &stage_source(stage).unwrap());
    let literals = u32s
        .iter()
        .map(|&(n, v)| (n, naga::Literal::U32(v)))
        .chain(f32s.iter().map(|&(n, v)| (n, naga::Literal::F32(v))));
    for (name, value) in literals {
        assert_eq!(literal_of(&module, name), value, "{stage}: {name}");
    }
}

/// The query kernels' threads, hit kinds and box slack are the Rust
/// constants.
#[test]
fn query_constants_match() {
    assert_constants(
        "query",
        &[
            ("QUERY_THREADS", QUERY_THREADS),
            ("RAY_NONE", RAY_NONE),
            ("RAY_BODY", RAY_BODY),
            ("RAY_PLANET", RAY_PLANET),
            ("RAY_PLANE", RAY_PLANE),
            ("RAY_TERRAIN", RAY_TERRAIN),
        ],
        &[("QUERY_BOX_SLACK", QUERY_BOX_SLACK)],
    );
}

/// The events stage's slots, collider mark and radii are the Rust
/// constants.
#[test]
fn event_constants_match() {
    assert_constants(
        "events",
        &[
            ("PAIR_SLOTS", PAIR_SLOTS),
            ("EVENT_COLLIDER", EVENT_COLLIDER),
            ("EVENT_CAPACITY", EVENT_CAPACITY),
            ("EVENT_BEGIN", EVENT_BEGIN),
            ("EVENT_END", EVENT_END),
        ],
        &[
            ("EVENT_TOUCH_RADII", EVENT_TOUCH_RADII),
            ("EVENT_KEEP_RADII", EVENT_KEEP_RADII),
        ],
    );
}

/// The narrow phase's face slack and corner tip, and the shares of an
/// accumulator the warm starts and tangle partings take, are the CPU
/// mirror's.
#[test]
fn narrow_constants_match() {
    use softbody::cpu::body_collide::{
        CORNER_TIP_BALANCE, CORNER_TIP_RADII, FACE_SLACK, TANGLE_SHARE, WARM_SHARE,
    };
    assert_constants(
        "body_collide",
        &[("WARM_SHARE", WARM_SHARE), ("TANGLE_SHARE", TANGLE_SHARE)],
        &[
            ("FACE_SLACK", FACE_SLACK),
            ("CORNER_TIP_RADII", CORNER_TIP_RADII),
            ("CORNER_TIP_BALANCE", CORNER_TIP_BALANCE),
        ],
    );
}
