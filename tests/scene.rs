//! Scene files: the examples in scenes/ load, generators build what the
//! builders build, and every kind of bad input is an error that names its
//! JSON path, never a panic (a property test throws random and mutated
//! files at the loader).

use proptest::prelude::*;
use softbody::prelude::*;
use softbody::scene::{MAX_SCENE_POINTS, Scene, SceneError};

fn load(json: &str) -> Result<World, SceneError> {
    Scene::parse(json)?.build()
}

/// Loading fails with an error at `path` whose message contains `what`.
#[track_caller]
fn fails(json: &str, path: &str, what: &str) {
    match load(json) {
        Ok(_) => panic!("{json} loaded"),
        Err(e) => {
            eprintln!("{e}");
            assert_eq!(e.path, path, "path of {e}");
            assert!(e.message.contains(what), "message of {e:?} lacks {what:?}");
        }
    }
}

fn scene_files() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes");
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// Every example scene loads, and is within every stability bound and
/// the sag limit: none starts with a warning.
#[test]
fn every_example_scene_loads() {
    let files = scene_files();
    assert!(files.len() >= 5, "{files:?}");
    for (name, text) in &files {
        let world = load(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!world.points().is_empty(), "{name}");
        let warnings = softbody::pack::Packed::from_world(&world)
            .unwrap()
            .stability(world.params.h())
            .warnings();
        assert!(warnings.is_empty(), "{name}: {warnings:?}");
        eprintln!(
            "{name}: {} points, {} springs, {} bodies",
            world.points().len(),
            world.springs().len(),
            world.bodies().len()
        );
    }
}

#[test]
fn the_many_boxes_scene_is_a_100_by_100_array() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenes/many-boxes.json"
    ))
    .unwrap();
    let world = load(&text).unwrap();
    assert_eq!(world.bodies().len(), 100 * 100);
    assert_eq!(world.points().len(), 4 * 100 * 100);
}

#[test]
fn listed_items_and_parameters() {
    let world = load(
        r#"{
        "params": { "dt": 0.01, "substeps": 4, "gravity": [0, -1], "point_radius": 0.05,
                    "elasticity": 0.5, "friction": 2, "spring_stiffness": 100,
                    "spring_damping": 1, "shape_stiffness": 50, "shape_damping": 2,
                    "rod_iterations": 3, "contact_iterations": 2,
                    "contact_relax_iterations": 0, "static_friction": 0.7,
                    "dynamic_friction": 0.4, "restitution_threshold": 0.5, "push_speed": 2,
                    "body_collisions": false, "sleep_speed": 0.1, "sleep_time": 1,
                    "wake_speed": 3 },
        "materials": [{ "elasticity": 0.9 }],
        "planets": [{ "center": [0, -10], "radius": 9, "layers": 2 }],
        "planes": [{ "normal": [0, 2], "offset": -1 }],
        "points": [
            { "pos": [0, 0] },
            { "pos": [1, 0], "vel": [0, 1], "mass": 2, "material": 1, "layers": 3 },
            { "pos": [0, 1], "mass": 0 }
        ],
        "springs": [
            { "a": 0, "b": 1 },
            { "a": 1, "b": 2, "rest_length": 1.5, "stiffness": 7, "damping": 0.5, "kind": "soft" },
            { "a": 0, "b": 2, "kind": "rod" }
        ],
        "bodies": [
            { "points": [0, 1, 2] },
            { "points": [0, 1], "rest": [[0, 0], [2, 0]], "stiffness": 10, "damping": 1 }
        ]
    }"#,
    )
    .unwrap();
    let mut expected = World::new(Params {
        dt: 0.01,
        substeps: 4,
        gravity: Vec2::new(0.0, -1.0),
        point_radius: 0.05,
        elasticity: 0.5,
        friction: 2.0,
        spring_stiffness: 100.0,
        spring_damping: 1.0,
        shape_stiffness: 50.0,
        shape_damping: 2.0,
        rod_iterations: 3,
        contact_iterations: 2,
        contact_relax_iterations: 0,
        static_friction: 0.7,
        dynamic_friction: 0.4,
        restitution_threshold: 0.5,
        push_speed: 2.0,
        body_collisions: false,
        sleep_speed: 0.1,
        sleep_time: 1.0,
        wake_speed: 3.0,
        ..Params::default()
    });
    let m = expected
        .add_material(Material {
            elasticity: Some(0.9),
            friction: None,
            ..Material::DEFAULT
        })
        .unwrap();
    expected
        .add_planet(Planet {
            layers: 2,
            ..Planet::new(Vec2::new(0.0, -10.0), 9.0)
        })
        .unwrap();
    expected
        .add_plane(HalfPlane::new(Vec2::new(0.0, 2.0), -1.0))
        .unwrap();
    let p0 = expected.add_point(Point::new(Vec2::ZERO)).unwrap();
    let p1 = expected
        .add_point(
            Point::new(Vec2::X)
                .vel(Vec2::Y)
                .mass(2.0)
                .material(m)
                .layers(3),
        )
        .unwrap();
    let p2 = expected.add_point(Point::new(Vec2::Y).pinned()).unwrap();
    expected.add_spring(Spring::new(p0, p1)).unwrap();
    expected
        .add_spring(
            Spring::new(p1, p2)
                .rest_length(1.5)
                .stiffness(7.0)
                .damping(0.5)
                .kind(SpringKind::Soft),
        )
        .unwrap();
    expected
        .add_spring(Spring::new(p0, p2).kind(SpringKind::Rod))
        .unwrap();
    expected.add_body(Body::new(vec![p0, p1, p2])).unwrap();
    expected
        .add_body(
            Body::new(vec![p0, p1])
                .rest(vec![Vec2::ZERO, Vec2::new(2.0, 0.0)])
                .stiffness(10.0)
                .damping(1.0),
        )
        .unwrap();
    assert_eq!(world, expected);
}

#[test]
fn generators_build_what_the_builders_build() {
    let world = load(
        r#"{
        "materials": [{ "friction": 1 }],
        "points": [{ "pos": [9, 9], "mass": 0 }],
        "shapes": [
            { "box": { "center": [0, 1], "size": [1, 0.5], "rotation": 0.3, "mass": 2,
                       "diagonals": false, "vel": [1, 0] } },
            { "grid": { "cells": [3, 2], "cell": [0.5, 0.4], "origin": [1, 1], "rotation": 0.1,
                        "material": 1, "spring_kind": "soft", "spring_stiffness": 50 } },
            { "wheel": { "center": [4, 2], "radius": 0.5, "n": 9, "hub_mass": 0,
                         "body_stiffness": 300, "body_damping": 2 } },
            { "blob": { "center": [6, 2], "radius": 0.5, "n": 12, "center_point": true,
                        "springs": false, "layers": 5 } },
            { "rope": { "a": [0, 5], "b": [2, 5], "n": 6, "pin_first": true, "pin_last": true,
                        "spring_kind": "rod", "spring_damping": 3 } },
            { "box": { "center": [0, 8], "size": [0.3, 0.3],
                       "array": { "count": [3, 2], "spacing": [0.5, 0.7] } } }
        ],
        "springs": [{ "a": 0, "b": 1 }]
    }"#,
    )
    .unwrap();
    let mut w = World::default();
    let m = w
        .add_material(Material {
            elasticity: None,
            friction: Some(1.0),
            ..Material::DEFAULT
        })
        .unwrap();
    let pin = w
        .add_point(Point::new(Vec2::new(9.0, 9.0)).pinned())
        .unwrap();
    let first_box = BoxShape::new(Vec2::new(0.0, 1.0), Vec2::new(1.0, 0.5))
        .rotation(0.3)
        .mass(2.0)
        .diagonals(false)
        .vel(Vec2::X)
        .build(&mut w)
        .unwrap();
    BoxGrid::new(3, 2, Vec2::new(0.5, 0.4))
        .origin(Vec2::ONE)
        .rotation(0.1)
        .material(m)
        .spring_kind(SpringKind::Soft)
        .spring_stiffness(50.0)
        .build(&mut w)
        .unwrap();
    Wheel::new(Vec2::new(4.0, 2.0), 0.5, 9)
        .hub_mass(0.0)
        .body_stiffness(300.0)
        .body_damping(2.0)
        .build(&mut w)
        .unwrap();
    Blob::new(Vec2::new(6.0, 2.0), 0.5, 12)
        .center_point(true)
        .springs(false)
        .layers(5)
        .build(&mut w)
        .unwrap();
    Rope::new(Vec2::new(0.0, 5.0), Vec2::new(2.0, 5.0), 6)
        .pin_first(true)
        .pin_last(true)
        .spring_kind(SpringKind::Rod)
        .spring_damping(3.0)
        .build(&mut w)
        .unwrap();
    for j in 0..2 {
        for i in 0..3 {
            BoxShape::new(
                Vec2::new(0.0, 8.0) + Vec2::new(i as f32 * 0.5, j as f32 * 0.7),
                Vec2::splat(0.3),
            )
            .build(&mut w)
            .unwrap();
        }
    }
    w.add_spring(Spring::new(pin, first_box.points[0])).unwrap();
    assert_eq!(world, w);
}

#[test]
fn collision_keys_build_what_the_api_builds() {
    let json = r#"{
        "params": { "body_collisions": false, "collision_cell": 0.3 },
        "materials": [{ "elasticity": 0.1, "friction": 9 }, { "friction": 0 }],
        "points": [
            { "pos": [0, 0] }, { "pos": [2, 0] }, { "pos": [2, 2] }, { "pos": [0, 2] },
            { "pos": [1, 1] }
        ],
        "shapes": [
            { "box": { "center": [5, 1], "size": [1, 1], "category": 2, "mask": 5,
                       "material": 1 } },
            { "grid": { "cells": [2, 1], "cell": [0.5, 0.5], "origin": [7, 0],
                        "category": 8 } },
            { "wheel": { "center": [10, 1], "radius": 0.5, "n": 7, "mask": 6 } },
            { "blob": { "center": [12, 1], "radius": 0.5, "n": 6, "center_point": true,
                        "category": 3, "mask": 0, "material": 2 } },
            { "rope": { "a": [0, 5], "b": [2, 5], "n": 3, "category": 16, "mask": 16 } }
        ],
        "bodies": [
            { "points": [0, 1, 2, 3, 4], "boundary": [0, 1, 2, 3], "material": 2,
              "category": 4, "mask": 3 },
            { "points": [4, 1, 2], "material": 1 },
            { "points": [5, 6, 7, 8], "boundary": [8, 5, 6], "mask": 4294967295 }
        ]
    }"#;
    let scene = Scene::parse(json).unwrap();
    assert!(!scene.params().unwrap().body_collisions);
    assert_eq!(scene.params().unwrap().collision_cell, Some(0.3));
    let world = scene.build().unwrap();

    let mut w = World::new(Params {
        body_collisions: false,
        collision_cell: Some(0.3),
        ..Params::default()
    });
    let m1 = w
        .add_material(Material {
            elasticity: Some(0.1),
            friction: Some(9.0),
            ..Material::DEFAULT
        })
        .unwrap();
    let m2 = w
        .add_material(Material {
            elasticity: None,
            friction: Some(0.0),
            ..Material::DEFAULT
        })
        .unwrap();
    let p: Vec<PointHandle> = [
        Vec2::ZERO,
        Vec2::new(2.0, 0.0),
        Vec2::splat(2.0),
        Vec2::new(0.0, 2.0),
        Vec2::ONE,
    ]
    .into_iter()
    .map(|pos| w.add_point(Point::new(pos)).unwrap())
    .collect();
    let first_box = BoxShape::new(Vec2::new(5.0, 1.0), Vec2::ONE)
        .category(2)
        .mask(5)
        .material(m1)
        .build(&mut w)
        .unwrap();
    BoxGrid::new(2, 1, Vec2::splat(0.5))
        .origin(Vec2::new(7.0, 0.0))
        .category(8)
        .build(&mut w)
        .unwrap();
    Wheel::new(Vec2::new(10.0, 1.0), 0.5, 7)
        .mask(6)
        .build(&mut w)
        .unwrap();
    Blob::new(Vec2::new(12.0, 1.0), 0.5, 6)
        .center_point(true)
        .style(ShapeStyle::new().category(3).mask(0).material(m2))
        .build(&mut w)
        .unwrap();
    Rope::new(Vec2::new(0.0, 5.0), Vec2::new(2.0, 5.0), 3)
        .category(16)
        .mask(16)
        .build(&mut w)
        .unwrap();
    w.add_body(
        Body::new(p.clone())
            .boundary(p[..4].to_vec())
            .material(m2)
            .category(4)
            .mask(3),
    )
    .unwrap();
    w.add_body(Body::new(vec![p[4], p[1], p[2]]).material(m1))
        .unwrap();
    let q = &first_box.points;
    w.add_body(Body::new(q.clone()).boundary(vec![q[3], q[0], q[1]]))
        .unwrap();
    assert_eq!(world, w);

    // The generators' bodies got the style's category, mask and material.
    let last = world.bodies().len() - 1;
    let b = &world.bodies()[last - 3];
    assert_eq!((b.category, b.mask, b.material), (3, 0, m2));
    assert_eq!(b.boundary.as_ref().map(Vec::len), Some(6));
    assert_eq!(world.bodies()[last].mask, ALL_LAYERS);

    // Missing keys take the defaults.
    let plain = load(
        r#"{"points": [{"pos": [0, 0]}, {"pos": [1, 0]}, {"pos": [0, 1]}],
                         "bodies": [{"points": [0, 1, 2]}]}"#,
    )
    .unwrap();
    assert_eq!(plain.params, Params::default());
    let b = &plain.bodies()[0];
    assert_eq!(b.boundary, None);
    assert_eq!(
        (b.material, b.category, b.mask),
        (MaterialHandle(0), 1, ALL_LAYERS)
    );
}

// ---------------------------------------------------------------------------
// Bad input: each error names the JSON path and what is wrong.

#[test]
fn malformed_json() {
    let e = load(r#"{"points": [{"pos": [0, 0]}"#).unwrap_err();
    assert!(e.message.contains("EOF"), "{e}");
    let e = load(r#"{"points": [] } trailing"#).unwrap_err();
    assert!(e.message.contains("trailing"), "{e}");
    fails(r#"{"points": [{"pos": [0, 0],}]}"#, "points[0]", "line 1");
    fails(
        "42",
        "",
        "invalid type: integer `42`, expected a JSON object",
    );
    fails("", "", "EOF");
}

#[test]
fn wrong_types() {
    fails(
        r#"{"springs": [{"a": 0, "b": "one"}]}"#,
        "springs[0].b",
        "invalid type: string",
    );
    fails(
        r#"{"points": [{"pos": [0]}]}"#,
        "points[0].pos",
        "invalid length 1",
    );
    fails(
        r#"{"points": [{"pos": [0, 0, 0]}]}"#,
        "points[0].pos",
        "invalid length 3, expected two numbers [x, y]",
    );
    fails(
        r#"{"params": {"substeps": 2.5}}"#,
        "params.substeps",
        "invalid type",
    );
    fails(
        r#"{"params": {"substeps": -1}}"#,
        "params.substeps",
        "invalid value",
    );
    fails(
        r#"{"springs": [{"a": 0, "b": 1, "kind": "rope"}]}"#,
        "springs[0].kind",
        "unknown variant `rope`",
    );
    fails(
        r#"{"shapes": [{"grid": {"cells": [-1, 2], "cell": [1, 1]}}]}"#,
        "shapes[0].grid.cells[0]",
        "invalid value",
    );
    fails(
        r#"{"bodies": {"points": [0, 1]}}"#,
        "bodies",
        "expected a sequence",
    );
}

#[test]
fn items_are_objects_never_arrays() {
    // serde's derived impls would take a struct's fields in order from an
    // array; the format has objects only, and errors name no Rust types.
    let cases = [
        (r#"[{"dt": 0.5}, [], [], [], [[[0, 3]], [[1, 3]]]]"#, ""),
        ("[1, 2]", ""),
        (r#"{"params": [0.5, 8]}"#, "params"),
        (r#"{"materials": [[0.5, 1]]}"#, "materials[0]"),
        (r#"{"planets": [[[0, 0], 1]]}"#, "planets[0]"),
        (r#"{"planes": [[[0, 1], 0]]}"#, "planes[0]"),
        (r#"{"points": [[[0, 0]]]}"#, "points[0]"),
        (
            r#"{"springs": [[0, 1, null, null, null, "rod"]]}"#,
            "springs[0]",
        ),
        (r#"{"bodies": [[[0, 1]]]}"#, "bodies[0]"),
        (
            r#"{"shapes": [{"box": [[0, 0], [1, 1]]}]}"#,
            "shapes[0].box",
        ),
        (
            r#"{"shapes": [{"grid": [[1, 1], [1, 1]]}]}"#,
            "shapes[0].grid",
        ),
        (
            r#"{"shapes": [{"wheel": [[0, 0], 1, 8]}]}"#,
            "shapes[0].wheel",
        ),
        (
            r#"{"shapes": [{"blob": [[0, 0], 1, 8]}]}"#,
            "shapes[0].blob",
        ),
        (
            r#"{"shapes": [{"rope": [[0, 0], [1, 0], 3]}]}"#,
            "shapes[0].rope",
        ),
        (
            r#"{"shapes": [{"box": {"center": [0, 0], "size": [1, 1], "array": [[2, 1], [1, 1]]}}]}"#,
            "shapes[0].box.array",
        ),
    ];
    for (json, path) in cases {
        fails(
            json,
            path,
            "invalid type: sequence, expected a JSON object at line 1",
        );
        let e = load(json).unwrap_err();
        assert!(!e.message.contains("struct"), "{e}");
    }
    // A spring's kind is a string, not an object naming it.
    let two = r#""points": [{"pos": [0, 0]}, {"pos": [1, 0]}]"#;
    fails(
        &format!(r#"{{{two}, "springs": [{{"a": 0, "b": 1, "kind": {{"rod": null}}}}]}}"#),
        "springs[0].kind",
        r#"invalid type: map, expected "spring", "soft" or "rod""#,
    );
    load(&format!(
        r#"{{{two}, "springs": [{{"a": 0, "b": 1, "kind": "rod"}}]}}"#
    ))
    .unwrap();
}

#[test]
fn pairs_are_exactly_two_numbers() {
    for (json, path, what) in [
        (
            r#"{"params": {"gravity": [0, 1, 2]}}"#,
            "params.gravity",
            "invalid length 3, expected two numbers [x, y] at line 1",
        ),
        (
            r#"{"params": {"gravity": []}}"#,
            "params.gravity",
            "invalid length 0, expected two numbers [x, y]",
        ),
        (
            r#"{"points": [{"pos": [0]}]}"#,
            "points[0].pos",
            "invalid length 1, expected two numbers [x, y]",
        ),
        (
            r#"{"points": [{"pos": 3}]}"#,
            "points[0].pos",
            "invalid type: integer `3`, expected two numbers [x, y]",
        ),
        (
            r#"{"bodies": [{"points": [0, 1], "rest": [[0, 0], [1, 0, 0, 0]]}]}"#,
            "bodies[0].rest[1]",
            "invalid length 4, expected two numbers [x, y]",
        ),
        (
            r#"{"shapes": [{"grid": {"cells": [2, 2, 2], "cell": [1, 1]}}]}"#,
            "shapes[0].grid.cells",
            "invalid length 3, expected two whole numbers [nx, ny]",
        ),
        (
            r#"{"shapes": [{"box": {"center": [0, 0], "size": [1, 1], "array": {"count": [4], "spacing": [1, 1]}}}]}"#,
            "shapes[0].box.array.count",
            "invalid length 1, expected two whole numbers [nx, ny]",
        ),
    ] {
        fails(json, path, what);
    }
    // An element keeps its own path.
    fails(
        r#"{"shapes": [{"grid": {"cells": [2, 1.5], "cell": [1, 1]}}]}"#,
        "shapes[0].grid.cells[1]",
        "invalid type: floating point `1.5`, expected u64",
    );
}

#[test]
fn a_shape_is_an_object_with_one_key() {
    let one_key = "an object with exactly one key, the generator: box, grid, wheel, blob or rope";
    fails(
        r#"{"shapes": [{}]}"#,
        "shapes[0]",
        &format!("a shape is {one_key}; found none at line 1 column 14"),
    );
    fails(
        r#"{"shapes": [{"box": {"center": [0, 0], "size": [1, 1]}, "x": 1}]}"#,
        "shapes[0]",
        &format!("a shape is {one_key}; found a second key `x`"),
    );
    fails(
        r#"{"shapes": [{"box": {"center": [0, 0], "size": [1, 1]},
                        "rope": {"a": [0, 0], "b": [1, 0], "n": 3}}]}"#,
        "shapes[0]",
        &format!("a shape is {one_key}; found a second key `rope` at line 2"),
    );
    let expected = format!("expected {one_key}");
    fails(r#"{"shapes": ["box"]}"#, "shapes[0]", &expected);
    fails(r#"{"shapes": [3]}"#, "shapes[0]", &expected);
    // What is wrong inside the generator's object still names its key.
    fails(
        r#"{"shapes": [{"box": {"center": [0, 0]}, "x": 1}]}"#,
        "shapes[0].box",
        "missing field `size`",
    );
}

#[test]
fn null_is_never_a_value() {
    // Optional keys and keys with a default alike: leave the key out.
    let null = "null is not a value: leave the key out to take its default at line 1";
    for (json, path) in [
        (r#"{"params": null}"#, "params"),
        (r#"{"shapes": null}"#, "shapes"),
        (r#"{"params": {"dt": null}}"#, "params.dt"),
        (r#"{"params": {"gravity": null}}"#, "params.gravity"),
        (
            r#"{"materials": [{"friction": null}]}"#,
            "materials[0].friction",
        ),
        (
            r#"{"planets": [{"center": [0, 0], "radius": 1, "layers": null}]}"#,
            "planets[0].layers",
        ),
        (
            r#"{"points": [{"pos": [0, 0], "vel": null}]}"#,
            "points[0].vel",
        ),
        (
            r#"{"points": [{"pos": [0, 0], "mass": null}]}"#,
            "points[0].mass",
        ),
        (
            r#"{"springs": [{"a": 0, "b": 1, "rest_length": null}]}"#,
            "springs[0].rest_length",
        ),
        (
            r#"{"springs": [{"a": 0, "b": 1, "kind": null}]}"#,
            "springs[0].kind",
        ),
        (
            r#"{"bodies": [{"points": [0, 1], "rest": null}]}"#,
            "bodies[0].rest",
        ),
        (
            r#"{"bodies": [{"points": [0, 1], "boundary": null}]}"#,
            "bodies[0].boundary",
        ),
        (
            r#"{"bodies": [{"points": [0, 1], "category": null}]}"#,
            "bodies[0].category",
        ),
        (
            r#"{"shapes": [{"grid": {"cells": [1, 1], "cell": [1, 1], "center": null}}]}"#,
            "shapes[0].grid.center",
        ),
        (
            r#"{"shapes": [{"wheel": {"center": [0, 0], "radius": 1, "n": 3, "hub_mass": null}}]}"#,
            "shapes[0].wheel.hub_mass",
        ),
        (
            r#"{"shapes": [{"box": {"center": [0, 0], "size": [1, 1], "array": null}}]}"#,
            "shapes[0].box.array",
        ),
        (
            r#"{"shapes": [{"rope": {"a": [0, 0], "b": [1, 0], "n": 3, "pin_first": null}}]}"#,
            "shapes[0].rope.pin_first",
        ),
    ] {
        fails(json, path, null);
    }
    // A required key is not optional either.
    fails(
        r#"{"points": [{"pos": null}]}"#,
        "points[0].pos",
        "invalid type: null, expected two numbers [x, y]",
    );
}

#[test]
fn unknown_fields_are_errors() {
    fails(r#"{"pointz": []}"#, "pointz", "unknown field `pointz`");
    fails(
        r#"{"points": [{"pos": [0, 0], "speed": [1, 0]}]}"#,
        "points[0].speed",
        "unknown field `speed`",
    );
    fails(
        r#"{"params": {"timestep": 0.1}}"#,
        "params.timestep",
        "unknown field `timestep`",
    );
    fails(
        r#"{"shapes": [{"cube": {"center": [0, 0]}}]}"#,
        "shapes[0]",
        "unknown generator `cube`, expected one of `box`, `grid`, `wheel`, `blob`, `rope`",
    );
    fails(
        r#"{"shapes": [{"box": {"center": [0, 0], "size": [1, 1], "colour": 3}}]}"#,
        "shapes[0].box.colour",
        "unknown field `colour`",
    );
}

#[test]
fn out_of_range_indices() {
    let two = r#""points": [{"pos": [0, 0]}, {"pos": [1, 0]}]"#;
    fails(
        &format!(r#"{{{two}, "springs": [{{"a": 0, "b": 1}}, {{"a": 7, "b": 1}}]}}"#),
        "springs[1].a",
        "point index 7 is out of range: the scene has 2 points",
    );
    fails(
        &format!(r#"{{{two}, "bodies": [{{"points": [0, 1, 2]}}]}}"#),
        "bodies[0].points[2]",
        "out of range",
    );
    fails(
        &format!(r#"{{{two}, "springs": [{{"a": 4294967295, "b": 0}}]}}"#),
        "springs[0].a",
        "out of range",
    );
    fails(
        r#"{"points": [{"pos": [0, 0], "material": 1}]}"#,
        "points[0].material",
        "refers to index 1, but there are only 1",
    );
    fails(
        r#"{"shapes": [{"box": {"center": [0, 0], "size": [1, 1], "material": 2}}]}"#,
        "shapes[0].box.material",
        "refers to index 2",
    );
    fails(
        r#"{"springs": [{"a": 0, "b": 1}]}"#,
        "springs[0].a",
        "the scene has 0 points",
    );
}

#[test]
fn non_finite_and_negative_values() {
    // JSON has no NaN; a number beyond f32 becomes infinite, which is caught.
    fails(
        r#"{"points": [{"pos": [1e39, 0]}]}"#,
        "points[0].pos",
        "not finite",
    );
    fails(
        r#"{"points": [{"pos": [0, 0], "mass": -1}]}"#,
        "points[0].mass",
        "negative",
    );
    fails(
        r#"{"points": [{"pos": [0, 0], "mass": 1e20}]}"#,
        "points[0].mass",
        "out of range",
    );
    fails(
        r#"{"params": {"dt": 0}}"#,
        "params.dt",
        "out of range (expected 0 < dt <= 1 s)",
    );
    fails(
        r#"{"params": {"dt": 3e38}}"#,
        "params.dt",
        "out of range (expected 0 < dt <= 1 s)",
    );
    fails(
        r#"{"params": {"gravity": [0, 1e39]}}"#,
        "params.gravity[1]",
        "not finite",
    );
    fails(
        r#"{"params": {"elasticity": 2}}"#,
        "params.elasticity",
        "0..=1",
    );
    fails(
        r#"{"params": {"substeps": 5000}}"#,
        "params.substeps",
        "1..=1024",
    );
    fails(
        r#"{"params": {"push_speed": 0}}"#,
        "params.push_speed",
        "> 0",
    );
    fails(
        r#"{"planets": [{"center": [0, 0], "radius": -2}]}"#,
        "planets[0].radius",
        "negative",
    );
    fails(
        r#"{"planes": [{"normal": [0, 0], "offset": 1}]}"#,
        "planes[0]",
        "normal has zero length",
    );
    fails(
        r#"{"materials": [{"friction": -1}]}"#,
        "materials[0].friction",
        "negative",
    );
    let two = r#""points": [{"pos": [0, 0]}, {"pos": [1, 0]}]"#;
    fails(
        &format!(r#"{{{two}, "springs": [{{"a": 1, "b": 1}}]}}"#),
        "springs[0]",
        "both ends are point 1",
    );
    fails(
        &format!(r#"{{{two}, "springs": [{{"a": 0, "b": 1, "stiffness": -5}}]}}"#),
        "springs[0].stiffness",
        "negative",
    );
    fails(
        &format!(r#"{{{two}, "bodies": [{{"points": [0, 0]}}]}}"#),
        "bodies[0].points",
        "listed twice",
    );
    fails(
        &format!(r#"{{{two}, "bodies": [{{"points": [0, 1], "rest": [[0, 0]]}}]}}"#),
        "bodies[0].rest",
        "rest shape has 1 positions for 2 points",
    );
}

#[test]
fn degenerate_bodies_name_points_or_rest() {
    let three = r#""points": [{"pos": [0, 0]}, {"pos": [1, 0]}, {"pos": [0, 0]}]"#;
    for (body, path, what) in [
        (
            r#"{"points": [0, 1, 1]}"#,
            "bodies[0].points",
            "point 1 is listed twice",
        ),
        (
            r#"{"points": [1]}"#,
            "bodies[0].points",
            "needs at least 2 distinct points, has 1",
        ),
        (r#"{"points": []}"#, "bodies[0].points", "has 0"),
        // Without `rest`, the rest shape is the points' positions.
        (
            r#"{"points": [0, 2]}"#,
            "bodies[0].points",
            "rest shape has fewer than 2 distinct positions",
        ),
        (
            r#"{"points": [0, 1, 2], "rest": [[0, 0], [1, 0]]}"#,
            "bodies[0].rest",
            "rest shape has 2 positions for 3 points",
        ),
        (
            r#"{"points": [0, 1], "rest": [[2, 3], [2, 3]]}"#,
            "bodies[0].rest",
            "rest shape has fewer than 2 distinct positions",
        ),
    ] {
        fails(&format!(r#"{{{three}, "bodies": [{body}]}}"#), path, what);
    }
    // Coincident points with a rest shape that is not degenerate are fine.
    load(&format!(
        r#"{{{three}, "bodies": [{{"points": [0, 2], "rest": [[0, 0], [1, 0]]}}]}}"#
    ))
    .unwrap();
}

#[test]
fn bad_collision_keys() {
    let four = r#""points": [{"pos": [0, 0]}, {"pos": [1, 0]}, {"pos": [1, 1]}, {"pos": [0, 1]}]"#;
    fails(
        &format!(r#"{{{four}, "bodies": [{{"points": [0, 1, 2], "boundary": [0, 7, 2]}}]}}"#),
        "bodies[0].boundary[1]",
        "point index 7 is out of range: the scene has 4 points",
    );
    fails(
        &format!(
            r#"{{{four}, "bodies": [{{"points": [0, 1, 2]}}, {{"points": [0, 1, 2], "boundary": [0, 1]}}]}}"#
        ),
        "bodies[1].boundary",
        "boundary needs at least 3 points, has 2",
    );
    fails(
        &format!(r#"{{{four}, "bodies": [{{"points": [0, 1, 2], "boundary": [0, 1, 3]}}]}}"#),
        "bodies[0].boundary",
        "boundary point 3 is not one of the body's points",
    );
    fails(
        &format!(r#"{{{four}, "bodies": [{{"points": [0, 1, 2], "boundary": [0, 1, 2, 0]}}]}}"#),
        "bodies[0].boundary",
        "boundary lists point 0 twice",
    );
    fails(
        &format!(r#"{{{four}, "bodies": [{{"points": [0, 1, 2], "boundary": 3}}]}}"#),
        "bodies[0].boundary",
        "invalid type",
    );
    // Problems with the points come first, and keep their own path.
    fails(
        &format!(r#"{{{four}, "bodies": [{{"points": [0, 0, 2], "boundary": [0, 1]}}]}}"#),
        "bodies[0].points",
        "point 0 is listed twice",
    );
    fails(
        &format!(r#"{{{four}, "bodies": [{{"points": [0, 1, 2], "material": 2}}]}}"#),
        "bodies[0].material",
        "refers to index 2, but there are only 1",
    );
    fails(
        &format!(
            r#"{{{four}, "materials": [{{}}], "bodies": [{{"points": [0, 1, 2], "material": 2}}]}}"#
        ),
        "bodies[0].material",
        "refers to index 2, but there are only 2",
    );
    fails(
        &format!(r#"{{{four}, "bodies": [{{"points": [0, 1, 2], "category": -1}}]}}"#),
        "bodies[0].category",
        "invalid value",
    );
    fails(
        &format!(r#"{{{four}, "bodies": [{{"points": [0, 1, 2], "mask": 4294967296}}]}}"#),
        "bodies[0].mask",
        "invalid value",
    );
    fails(
        r#"{"params": {"body_collisions": 1}}"#,
        "params.body_collisions",
        "invalid type: integer `1`, expected a boolean",
    );
    fails(
        r#"{"params": {"body_collisions": "yes"}}"#,
        "params.body_collisions",
        "invalid type",
    );
    fails(
        r#"{"params": {"collision_cell": 0}}"#,
        "params.collision_cell",
        "collision_cell = 0 is out of range (expected > 0)",
    );
    fails(
        r#"{"params": {"collision_cell": -0.5}}"#,
        "params.collision_cell",
        "out of range (expected > 0)",
    );
    fails(
        r#"{"params": {"collision_cell": 1e39}}"#,
        "params.collision_cell",
        "not finite",
    );
    fails(
        r#"{"params": {"collision_cell": true}}"#,
        "params.collision_cell",
        "invalid type",
    );
    fails(
        r#"{"shapes": [{"box": {"center": [0, 0], "size": [1, 1], "category": 1.5}}]}"#,
        "shapes[0].box.category",
        "invalid type",
    );
    fails(
        r#"{"shapes": [{"wheel": {"center": [0, 0], "radius": 1, "n": 5, "mask": -3}}]}"#,
        "shapes[0].wheel.mask",
        "invalid value",
    );
    fails(
        r#"{"shapes": [{"wheel": {"center": [0, 0], "radius": 1, "n": 5, "boundary": [0, 1, 2]}}]}"#,
        "shapes[0].wheel.boundary",
        "unknown field `boundary`",
    );
}

/// A stiffness given both as a rate and as a frequency, a damping ratio
/// without its frequency, or a frequency out of range is an error that
/// names the key (docs/scene-format.md, "Stiffness as a frequency").
#[test]
fn a_stiffness_given_both_ways_is_an_error_that_names_the_key() {
    fails(
        r#"{ "params": { "shape_stiffness": 100, "shape_frequency": 10 } }"#,
        "params.shape_frequency",
        "give `shape_stiffness` or `shape_frequency`, not both",
    );
    fails(
        r#"{ "params": { "shape_damping_ratio": 0.5 } }"#,
        "params.shape_damping_ratio",
        "needs `shape_frequency`",
    );
    fails(
        r#"{ "params": { "shape_frequency": -1 } }"#,
        "params.shape_frequency",
        "negative",
    );
    fails(
        r#"{ "shapes": [{ "box": { "center": [0, 1], "size": [1, 1], "body_frequency": 1e30 } }] }"#,
        "shapes[0].box.body_frequency",
        "too large for f32",
    );
    fails(
        r#"{ "shapes": [{ "wheel": { "center": [0, 0], "radius": 1, "n": 6,
             "spring_damping": 3, "spring_frequency": 4, "spring_damping_ratio": 1 } }] }"#,
        "shapes[0].wheel.spring_damping_ratio",
        "give `spring_damping` or `spring_damping_ratio`, not both",
    );
}

#[test]
fn bad_generator_arguments() {
    fails(
        r#"{"shapes": [{"box": {"center": [0, 0], "size": [-1, 1]}}]}"#,
        "shapes[0].box.size",
        "expected > 0",
    );
    fails(
        r#"{"shapes": [{"box": {"center": [0, 0], "size": [1, 1], "mass": -2}}]}"#,
        "shapes[0].box.mass",
        "negative",
    );
    fails(
        r#"{"shapes": [{"box": {"center": [0, 0], "size": [1, 1], "spring_stiffness": -2}}]}"#,
        "shapes[0].box.spring_stiffness",
        "negative",
    );
    fails(
        r#"{"shapes": [{"box": {"center": [0, 0], "size": [1, 1], "body_damping": -2}}]}"#,
        "shapes[0].box.body_damping",
        "negative",
    );
    fails(
        r#"{"shapes": [{"grid": {"cells": [0, 2], "cell": [1, 1]}}]}"#,
        "shapes[0].grid.cells[0]",
        "expected >= 1",
    );
    fails(
        r#"{"shapes": [{"grid": {"cells": [2, 2], "cell": [1, 1], "center": [0, 0], "origin": [0, 0]}}]}"#,
        "shapes[0].grid.origin",
        "not both",
    );
    fails(
        r#"{"shapes": [{"wheel": {"center": [0, 0], "radius": 1, "n": 2}}]}"#,
        "shapes[0].wheel.n",
        ">= 3",
    );
    fails(
        r#"{"shapes": [{"blob": {"center": [0, 0], "radius": 0, "n": 8}}]}"#,
        "shapes[0].blob.radius",
        "> 0",
    );
    fails(
        r#"{"shapes": [{"rope": {"a": [0, 0], "b": [0, 0], "n": 4}}]}"#,
        "shapes[0].rope",
        "coincide",
    );
    fails(
        r#"{"shapes": [{"box": {"center": [0, 0], "size": [1, 1], "array": {"count": [2, 2], "spacing": [1e39, 0]}}}]}"#,
        "shapes[0].box.array.spacing",
        "not finite",
    );
    // Far out, a small box's corners coincide in f32: the error says which copy.
    fails(
        r#"{"shapes": [{"box": {"center": [0, 0], "size": [0.1, 0.1], "array": {"count": [3, 1], "spacing": [4e6, 0]}}}]}"#,
        "shapes[0].box",
        "coincide, so the rest length is zero and the spring has no direction (copy [1, 0] of the array)",
    );
    // Further out, beyond the world's 1e7 m: the error says which copy,
    // and names the spacing that took it there.
    fails(
        r#"{"shapes": [{"box": {"center": [0, 0], "size": [1, 1], "array": {"count": [3, 1], "spacing": [3e38, 0]}}}]}"#,
        "shapes[0].box.array.spacing",
        "is out of range (expected |x|, |y| <= 1e7 m) (copy [1, 0] of the array)",
    );
}

/// A generated point out of the world's square is blamed on the argument
/// that put it there: the anchor when it is out itself, else the extent
/// (every one of these used to name `center`, or a rope's `a`, even where
/// the file had no such key).
#[test]
fn a_generated_point_out_of_range_names_its_argument() {
    for (json, path) in [
        (
            r#"{"rope": {"a": [0, 0], "b": [2e7, 0], "n": 3}}"#,
            "rope.b",
        ),
        (
            r#"{"rope": {"a": [3e7, 0], "b": [0, 0], "n": 3}}"#,
            "rope.a",
        ),
        (
            r#"{"box": {"center": [0, 0], "size": [1e30, 1]}}"#,
            "box.size",
        ),
        (
            r#"{"box": {"center": [2e7, 0], "size": [1, 1]}}"#,
            "box.center",
        ),
        (
            r#"{"wheel": {"center": [0, 0], "radius": 2e7, "n": 8}}"#,
            "wheel.radius",
        ),
        (
            r#"{"blob": {"center": [0, 0], "radius": 2e7, "n": 8}}"#,
            "blob.radius",
        ),
        (
            r#"{"grid": {"cells": [4, 4], "cell": [1e7, 1], "origin": [0, 0]}}"#,
            "grid.cell",
        ),
        (
            r#"{"grid": {"cells": [4, 4], "cell": [1, 1], "origin": [2e7, 0]}}"#,
            "grid.origin",
        ),
    ] {
        fails(
            &format!(r#"{{"shapes": [{json}]}}"#),
            &format!("shapes[0].{path}"),
            "out of range",
        );
    }
}

/// An entry whose array makes no copies generates nothing, but a bad value
/// in it is still an error, as in any other entry (it used to load
/// without a word).
#[test]
fn an_entry_with_no_copies_is_still_checked() {
    let none = r#""array": {"count": [0, 1], "spacing": [1, 1]}"#;
    let w = load(&format!(
        r#"{{"shapes": [{{"box": {{"center": [0, 0], "size": [1, 1], {none}}}}}]}}"#
    ))
    .unwrap();
    assert_eq!(w.points().len(), 0);
    fails(
        &format!(
            r#"{{"shapes": [{{"box": {{"center": [0, 0], "size": [1, 1], "mass": -5, {none}}}}}]}}"#
        ),
        "shapes[0].box.mass",
        "(in the copy checked: the array makes none)",
    );
    fails(
        &format!(
            r#"{{"shapes": [{{"box": {{"center": [0, 0], "size": [1, 1], "material": 99, {none}}}}}]}}"#
        ),
        "shapes[0].box.material",
        "index 99",
    );
    // One copy over the limit is refused without being built.
    fails(
        r#"{"shapes": [{"grid": {"cells": [1000000, 1000000], "cell": [1, 1], "array": {"count": [0, 18446744073709551615], "spacing": [1, 1]}}}]}"#,
        "shapes[0].grid",
        "one copy asks for 1000002000001 points, more than the limit",
    );
}

#[test]
fn a_bad_hub_mass_is_reported_at_hub_mass() {
    let wheel = r#""center": [0, 0], "radius": 1, "n": 8"#;
    fails(
        &format!(r#"{{"shapes": [{{"wheel": {{{wheel}, "hub_mass": -1}}}}]}}"#),
        "shapes[0].wheel.hub_mass",
        "mass is negative (-1)",
    );
    // After other points, in a copy of an array: the hub is still found.
    fails(
        &format!(
            r#"{{"points": [{{"pos": [5, 5]}}], "shapes": [
                {{"box": {{"center": [9, 9], "size": [1, 1]}}}},
                {{"wheel": {{{wheel}, "hub_mass": 1e39,
                            "array": {{"count": [2, 1], "spacing": [3, 0]}}}}}}]}}"#
        ),
        "shapes[1].wheel.hub_mass",
        "not finite (NaN or infinite) (copy [0, 0] of the array)",
    );
    // The style's mass, which the rim points have, is still `mass`.
    fails(
        &format!(r#"{{"shapes": [{{"wheel": {{{wheel}, "mass": -1, "hub_mass": 1}}}}]}}"#),
        "shapes[0].wheel.mass",
        "mass is negative (-1)",
    );
    fails(
        &format!(r#"{{"shapes": [{{"wheel": {{{wheel}, "mass": -1}}}}]}}"#),
        "shapes[0].wheel.mass",
        "mass is negative (-1)",
    );
}

#[test]
fn a_hub_mass_out_of_range_adds_nothing() {
    // The builder checks the hub's mass as the world does before it adds
    // the rim points, so that a failed build leaves the world unchanged.
    let mut w = World::default();
    BoxShape::new(Vec2::ZERO, Vec2::ONE).build(&mut w).unwrap();
    let before = w.clone();
    for hub in [1e13, 1e-13] {
        let err = Wheel::new(Vec2::new(3.0, 0.0), 1.0, 8)
            .hub_mass(hub)
            .build(&mut w)
            .unwrap_err();
        assert!(err.to_string().starts_with("point 12: mass = "), "{err}");
        assert_eq!(w.points().len(), 4);
        assert_eq!(w, before);
    }
    for hub in ["1e13", "1e-13"] {
        fails(
            &format!(
                r#"{{"shapes": [{{"wheel": {{"center": [0, 0], "radius": 1, "n": 8, "hub_mass": {hub}}}}}]}}"#
            ),
            "shapes[0].wheel.hub_mass",
            "out of range (expected 0 (pinned) or 1e-12..=1e12)",
        );
    }
}

#[test]
fn required_keys_are_the_documented_ones() {
    // docs/scene-format.md marks these required; every other key has a default.
    let items: &[(&str, &str, &[&str])] = &[
        (
            "planets",
            r#"{"center": [0, 0], "radius": 1}"#,
            &["center", "radius"],
        ),
        (
            "planes",
            r#"{"normal": [0, 1], "offset": 0}"#,
            &["normal", "offset"],
        ),
        ("points", r#"{"pos": [0, 0]}"#, &["pos"]),
        ("springs", r#"{"a": 0, "b": 1}"#, &["a", "b"]),
        ("bodies", r#"{"points": [0, 1]}"#, &["points"]),
    ];
    for (list, full, keys) in items {
        let full: serde_json::Value = serde_json::from_str(full).unwrap();
        for key in *keys {
            let mut item = full.clone();
            item.as_object_mut().unwrap().remove(*key);
            let json = format!(r#"{{"{list}": [{item}]}}"#);
            fails(
                &json,
                &format!("{list}[0]"),
                &format!("missing field `{key}`"),
            );
        }
    }
    let shapes: &[(&str, &str, &[&str])] = &[
        (
            "box",
            r#"{"center": [0, 0], "size": [1, 1]}"#,
            &["center", "size"],
        ),
        (
            "grid",
            r#"{"cells": [1, 1], "cell": [1, 1]}"#,
            &["cells", "cell"],
        ),
        (
            "wheel",
            r#"{"center": [0, 0], "radius": 1, "n": 3}"#,
            &["center", "radius", "n"],
        ),
        (
            "blob",
            r#"{"center": [0, 0], "radius": 1, "n": 3}"#,
            &["center", "radius", "n"],
        ),
        (
            "rope",
            r#"{"a": [0, 0], "b": [1, 0], "n": 2}"#,
            &["a", "b", "n"],
        ),
        (
            "box",
            r#"{"center": [0, 0], "size": [1, 1], "array": {"count": [1, 1], "spacing": [1, 1]}}"#,
            &["array.count", "array.spacing"],
        ),
    ];
    for (name, full, keys) in shapes {
        let full: serde_json::Value = serde_json::from_str(full).unwrap();
        load(&format!(r#"{{"shapes": [{{"{name}": {full}}}]}}"#)).unwrap();
        for key in *keys {
            let mut spec = full.clone();
            let (object, key, path) = match key.split_once('.') {
                Some((outer, inner)) => (
                    spec.get_mut(outer).unwrap(),
                    inner,
                    format!("shapes[0].{name}.{outer}"),
                ),
                None => (&mut spec, *key, format!("shapes[0].{name}")),
            };
            object.as_object_mut().unwrap().remove(key);
            let json = format!(r#"{{"shapes": [{{"{name}": {spec}}}]}}"#);
            fails(&json, &path, &format!("missing field `{key}`"));
        }
    }
}

#[test]
fn documented_rules_and_limits() {
    // Planets and planes are capped (MAX_PLANETS, MAX_PLANES).
    let planets = vec![r#"{"center": [0, -10], "radius": 1}"#; 257].join(", ");
    fails(
        &format!(r#"{{"planets": [{planets}]}}"#),
        "planets[256]",
        "planets: 257 is more than the limit of 256",
    );
    let planes = vec![r#"{"normal": [0, 1], "offset": 0}"#; 65].join(", ");
    fails(
        &format!(r#"{{"planes": [{planes}]}}"#),
        "planes[64]",
        "planes: 65 is more than the limit of 64",
    );
    // A plane's offset is along its normalised normal: y = 1 here.
    let w = load(r#"{"planes": [{"normal": [0, 2], "offset": 1}]}"#).unwrap();
    assert_eq!(w.planes()[0].normal, Vec2::Y);
    assert_eq!(w.planes()[0].offset, 1.0);
    // An array with a count of 0 generates nothing.
    for count in ["[0, 3]", "[3, 0]", "[0, 0]"] {
        let w = load(&format!(
            r#"{{"shapes": [{{"box": {{"center": [0, 0], "size": [1, 1],
                "array": {{"count": {count}, "spacing": [1, 1]}}}}}}]}}"#
        ))
        .unwrap();
        assert!(w.points().is_empty() && w.bodies().is_empty(), "{count}");
    }
    // Radii and grid cells must be positive.
    fails(
        r#"{"shapes": [{"wheel": {"center": [0, 0], "radius": 0, "n": 5}}]}"#,
        "shapes[0].wheel.radius",
        "(expected > 0)",
    );
    fails(
        r#"{"shapes": [{"grid": {"cells": [1, 1], "cell": [1, 0]}}]}"#,
        "shapes[0].grid.cell",
        "(expected > 0)",
    );
    // A grid turns about its centre, or about the corner at `origin`.
    let grid = |anchor: &str| {
        let w = load(&format!(
            r#"{{"shapes": [{{"grid": {{"cells": [2, 1], "cell": [1, 1], {anchor},
                "rotation": 1.5707964}}}}]}}"#
        ))
        .unwrap();
        w.points().iter().map(|p| p.pos).collect::<Vec<_>>()
    };
    let around_centre = grid(r#""center": [5, 5]"#);
    let mean = around_centre.iter().sum::<Vec2>() / around_centre.len() as f32;
    assert!((mean - Vec2::splat(5.0)).length() < 1e-5, "{mean}");
    let around_corner = grid(r#""origin": [5, 5]"#);
    assert_eq!(around_corner[0], Vec2::splat(5.0));
    assert!((around_corner[2] - Vec2::new(5.0, 7.0)).length() < 1e-5);
}

#[test]
fn absurd_sizes_are_refused_before_allocating() {
    // Each of these would need terabytes; they fail at once.
    fails(
        r#"{"shapes": [{"grid": {"cells": [1000000, 1000000], "cell": [1, 1]}}]}"#,
        "shapes[0]",
        "more than the limit",
    );
    fails(
        r#"{"shapes": [{"wheel": {"center": [0, 0], "radius": 1, "n": 1000000000000}}]}"#,
        "shapes[0]",
        "more than the limit",
    );
    fails(
        r#"{"shapes": [{"box": {"center": [0, 0], "size": [1, 1], "array": {"count": [18446744073709551615, 18446744073709551615], "spacing": [1, 1]}}}]}"#,
        "shapes[0]",
        "more than the limit",
    );
    // Under the per-builder cap, over the total.
    let half = 1u64 << 23;
    let json = format!(
        r#"{{"shapes": [{{"rope": {{"a": [0, 0], "b": [1, 0], "n": {half}}}}}, {{"rope": {{"a": [0, 1], "b": [1, 1], "n": {}}}}}]}}"#,
        half + 1
    );
    let scene = Scene::parse(&json).unwrap();
    assert_eq!(scene.total_points(), MAX_SCENE_POINTS as u128 + 1);
    fails(&json, "shapes[1]", "more than the limit of 16777216");
}

// ---------------------------------------------------------------------------
// The loader never panics.

/// Numbers that are small, or invalid, or absurd: never legal and huge,
/// which would only make the test slow.
fn number() -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        (-3i64..12).prop_map(serde_json::Value::from),
        (-4.0f64..4.0).prop_map(serde_json::Value::from),
        prop::sample::select(vec![
            1e39,
            -1e39,
            1e12,
            -1e12,
            4294967296.0,
            1.5e-45,
            0.0,
            -0.0,
            1e300
        ])
        .prop_map(serde_json::Value::from),
        Just(serde_json::Value::from(u64::MAX)),
    ]
}

const KEYS: &[&str] = &[
    "params",
    "points",
    "springs",
    "bodies",
    "planets",
    "planes",
    "shapes",
    "materials",
    "pos",
    "vel",
    "mass",
    "a",
    "b",
    "kind",
    "rest",
    "rest_length",
    "stiffness",
    "damping",
    "center",
    "radius",
    "normal",
    "offset",
    "box",
    "grid",
    "wheel",
    "blob",
    "rope",
    "size",
    "cells",
    "cell",
    "n",
    "array",
    "count",
    "spacing",
    "origin",
    "dt",
    "substeps",
    "gravity",
    "material",
    "layers",
    "pin_first",
    "hub_mass",
    "spring_kind",
    "boundary",
    "category",
    "mask",
    "body_collisions",
    "collision_cell",
    "center_point",
    "bogus",
];

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        number(),
        any::<bool>().prop_map(serde_json::Value::from),
        prop::sample::select(vec!["rod", "soft", "spring", "", "box"])
            .prop_map(serde_json::Value::from),
        Just(serde_json::Value::Null),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(serde_json::Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..5).prop_map(|kv| {
                serde_json::Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
}

/// Replaces one node of `v`, chosen by `pick`, with `with`.
fn replace_node(v: &mut serde_json::Value, pick: &mut usize, with: &serde_json::Value) -> bool {
    if *pick == 0 {
        *v = with.clone();
        return true;
    }
    *pick -= 1;
    match v {
        serde_json::Value::Array(items) => items.iter_mut().any(|x| replace_node(x, pick, with)),
        serde_json::Value::Object(map) => map.values_mut().any(|x| replace_node(x, pick, with)),
        _ => false,
    }
}

fn small_scene_files() -> Vec<String> {
    scene_files()
        .into_iter()
        .filter(|(name, _)| name != "many-boxes.json")
        .map(|(_, text)| text)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_json_never_panics(v in json_value()) {
        let _ = load(&v.to_string());
    }

    #[test]
    fn mutated_scene_values_never_panic(
        file in 0usize..4, pick in 0usize..200, with in json_value()
    ) {
        let files = small_scene_files();
        let mut v: serde_json::Value = serde_json::from_str(&files[file % files.len()]).unwrap();
        let mut pick = pick;
        replace_node(&mut v, &mut pick, &with);
        let _ = load(&v.to_string());
    }

    #[test]
    fn mutated_scene_bytes_never_panic(
        file in 0usize..4,
        edits in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(
            b"0123456789-.e,:[]{}\" ".to_vec())), 1..4),
        delete in any::<bool>(),
    ) {
        let files = small_scene_files();
        let mut bytes = files[file % files.len()].clone().into_bytes();
        for (at, c) in edits {
            let i = at.index(bytes.len());
            if delete { bytes.remove(i); } else { bytes[i] = c; }
        }
        if let Ok(text) = String::from_utf8(bytes) {
            let _ = load(&text);
        }
    }
}

/// `total_points` counts what the generators make, copy by copy (a
/// wheel's hub, a blob's centre point, a grid's corners): the limit check
/// relies on it.
#[test]
fn total_points_is_what_the_generators_make() {
    let scene = Scene::parse(
        r#"{"points": [{"pos": [0, 0]}], "shapes": [
        {"box": {"center": [0, 0], "size": [1, 1]}},
        {"grid": {"cells": [3, 2], "cell": [1, 1]}},
        {"wheel": {"center": [0, 0], "radius": 1, "n": 7}},
        {"blob": {"center": [0, 0], "radius": 1, "n": 9, "center_point": true}},
        {"blob": {"center": [5, 0], "radius": 1, "n": 9}},
        {"rope": {"a": [0, 0], "b": [1, 0], "n": 5,
                  "array": {"count": [2, 3], "spacing": [1, 1]}}}
    ]}"#,
    )
    .unwrap();
    let world = scene.build().unwrap();
    assert_eq!(world.points().len(), 1 + 4 + 12 + 8 + 10 + 9 + 30);
    assert_eq!(scene.total_points(), world.points().len() as u128);
}

/// A plane's `layers` is read (a planet's is checked in
/// `listed_items_and_parameters`); absent, it is every layer.
#[test]
fn a_planes_layers_are_read() {
    let w = load(
        r#"{"planes": [{"normal": [0, 1], "offset": 0, "layers": 6},
                       {"normal": [1, 0], "offset": 0}]}"#,
    )
    .unwrap();
    assert_eq!(w.planes()[0].layers, 6);
    assert_eq!(w.planes()[1].layers, ALL_LAYERS);
}

/// Messages leave out the world's item (`spring 6: `): the path names the
/// listed item, whose world index differs (generated springs come first).
#[test]
fn messages_do_not_name_world_items() {
    let json = r#"{"points": [{"pos": [0, 0]}, {"pos": [1, 0]}],
        "shapes": [{"box": {"center": [5, 0], "size": [1, 1]}}],
        "springs": [{"a": 0, "b": 1, "stiffness": -5}]}"#;
    let e = load(json).unwrap_err();
    assert_eq!(e.path, "springs[0].stiffness");
    assert!(!e.message.starts_with("spring "), "{e:?}");
}

#[test]
fn area_keys_load_and_bad_ones_are_named() {
    let world = load(
        r#"{ "params": { "area_frequency": 10 },
             "points": [{"pos": [0, 0]}, {"pos": [1, 0]}, {"pos": [0, 1]}],
             "bodies": [{"points": [0, 1, 2], "area_stiffness": 50, "inflation": 1.5}] }"#,
    )
    .unwrap();
    let want = Frequency::new(10.0, 0.0).shape_stiffness();
    assert_eq!(world.params.area_stiffness, want);
    let b = &world.bodies()[0];
    assert_eq!((b.area_stiffness, b.inflation), (Some(50.0), 1.5));
    fails(
        r#"{ "params": { "area_stiffness": 100, "area_frequency": 10 } }"#,
        "params.area_frequency",
        "give `area_stiffness` or `area_frequency`, not both",
    );
    fails(
        r#"{ "params": { "area_stiffness": -1 } }"#,
        "params.area_stiffness",
        "negative",
    );
    fails(
        r#"{ "points": [{"pos": [0, 0]}, {"pos": [1, 0]}, {"pos": [0, 1]}],
             "bodies": [{"points": [0, 1, 2], "inflation": 500}] }"#,
        "bodies[0].inflation",
        "0.01 ..= 100",
    );
    // A generator's bodies take both too.
    let world = load(
        r#"{ "shapes": [{ "blob": { "center": [0, 1], "radius": 0.5, "n": 12,
             "body_area_stiffness": 900, "inflation": 2 } }] }"#,
    )
    .unwrap();
    let b = &world.bodies()[0];
    assert_eq!((b.area_stiffness, b.inflation), (Some(900.0), 2.0));
    fails(
        r#"{ "shapes": [{ "blob": { "center": [0, 1], "radius": 0.5, "n": 12, "inflation": 0 } }] }"#,
        "shapes[0].blob.inflation",
        "0.01 ..= 100",
    );
    fails(
        r#"{ "shapes": [{ "box": { "center": [0, 1], "size": [1, 1], "body_area_stiffness": -2 } }] }"#,
        "shapes[0].box.body_area_stiffness",
        "negative",
    );
}

#[test]
fn scene_files_take_frequencies() {
    let scene = Scene::parse(
        r#"{ "params": { "shape_frequency": 10, "shape_damping_ratio": 0.3 },
             "shapes": [{ "box": { "center": [0, 1], "size": [1, 1], "mass": 2,
                                   "body_frequency": 5, "spring_frequency": 5,
                                   "spring_damping_ratio": 1 } }] }"#,
    )
    .unwrap();
    let p = scene.params().unwrap();
    let w = std::f32::consts::TAU * 10.0;
    assert_eq!((p.shape_stiffness, p.shape_damping), (w * w, 2.0 * 0.3 * w));
    let world = scene.build().unwrap();
    let f = Frequency::new(5.0, 0.2);
    let body = &world.bodies()[0];
    assert_eq!(body.stiffness, Some(f.shape_stiffness()));
    // The body's ratio defaults to the default shape's, 0.2.
    assert_eq!(body.damping, Some(f.damping_rate()));
    let spring = &world.springs()[0];
    let f = Frequency::new(5.0, 1.0);
    assert_eq!(spring.stiffness, Some(f.spring_stiffness(2.0, 2.0)));
    assert_eq!(spring.damping, Some(f.damping_rate()));
}

/// Gravity fields in the scene format: a planet's `gravity` (G M) or
/// `surface_gravity`, and `gravity_scale` on points and shapes; bad values
/// are refused by their path.
#[test]
fn gravity_fields_are_read_and_bad_ones_refused_by_path() {
    let world = load(
        r#"{"planets": [{"center": [0, 0], "radius": 2, "surface_gravity": 9.8},
                        {"center": [9, 0], "radius": 1, "gravity": 50}],
            "points": [{"pos": [0, 5], "gravity_scale": 0.5}, {"pos": [1, 5]}],
            "shapes": [{"box": {"center": [0, 8], "size": [1, 1], "gravity_scale": 0}}]}"#,
    )
    .unwrap();
    let (p0, p1) = (&world.planets()[0], &world.planets()[1]);
    assert!((p0.gravity - 9.8 * 4.0).abs() < 1e-4, "{}", p0.gravity);
    assert_eq!(p1.gravity, 50.0);
    let scales: Vec<f32> = world.points().iter().map(|p| p.gravity_scale).collect();
    assert_eq!(scales, [0.5, 1.0, 0.0, 0.0, 0.0, 0.0]);
    fails(
        r#"{"planets": [{"center": [0, 0], "radius": 1, "gravity": 1, "surface_gravity": 1}]}"#,
        "planets[0].surface_gravity",
        "not both",
    );
    fails(
        r#"{"planets": [{"center": [0, 0], "radius": 1, "gravity": -3}]}"#,
        "planets[0].gravity",
        "negative",
    );
    fails(
        r#"{"planets": [{"center": [0, 0], "radius": 1, "surface_gravity": -3}]}"#,
        "planets[0].surface_gravity",
        ">= 0",
    );
    fails(
        r#"{"points": [{"pos": [0, 0], "gravity_scale": 5000}]}"#,
        "points[0].gravity_scale",
        "out of range",
    );
    fails(
        r#"{"shapes": [{"box": {"center": [0, 8], "size": [1, 1], "gravity_scale": 1e9}}]}"#,
        "shapes[0].box.gravity_scale",
        "out of range",
    );
}

/// Moving colliders in the scene format: `velocity` and `spin` on planets
/// and half-planes, a half-plane's `pivot` (kept where it is given); bad
/// values are refused by their path.
#[test]
fn moving_colliders_are_read_and_bad_ones_refused_by_path() {
    let world = load(
        r#"{"planets": [{"center": [0, 0], "radius": 2, "velocity": [1, 0], "spin": 0.5}],
            "planes": [{"normal": [0, 1], "offset": -3, "velocity": [2, 0]},
                       {"normal": [1, 0], "offset": -9, "spin": -0.25, "pivot": [-8, 4]}]}"#,
    )
    .unwrap();
    let p = &world.planets()[0];
    assert_eq!((p.velocity, p.spin), (Vec2::new(1.0, 0.0), 0.5));
    let planes = world.planes();
    assert_eq!(
        (planes[0].velocity, planes[0].pivot),
        (Vec2::new(2.0, 0.0), None)
    );
    assert_eq!(planes[1].spin, -0.25);
    assert_eq!(planes[1].pivot, Some(Vec2::new(-8.0, 4.0)));
    fails(
        r#"{"planets": [{"center": [0, 0], "radius": 1, "spin": 1e9}]}"#,
        "planets[0].spin",
        "out of range",
    );
    fails(
        r#"{"planes": [{"normal": [0, 1], "offset": 0, "velocity": [1e30, 0]}]}"#,
        "planes[0].velocity",
        "out of range",
    );
    fails(
        r#"{"planes": [{"normal": [0, 1], "offset": 0, "pivot": [1e30, 0]}]}"#,
        "planes[0].pivot",
        "out of range",
    );
}

/// Terrain in the scene format: `terrain` polylines with `points`,
/// `closed`, `layers` and `thickness`; bad ones are refused by their path.
#[test]
fn terrain_is_read_and_bad_terrain_refused_by_path() {
    let world = load(
        r#"{"terrain": [{"points": [[4, 1], [0, 0], [-4, 1]]},
                        {"points": [[0, 3], [1, 3], [0, 4]], "closed": true, "thickness": 0.2, "layers": 2}]}"#,
    )
    .unwrap();
    let t = world.terrains();
    assert_eq!(t.len(), 2);
    assert_eq!(t[0].points[1], Vec2::ZERO);
    assert!(!t[0].closed && t[1].closed);
    assert_eq!((t[1].thickness, t[1].layers), (Some(0.2), 2));
    fails(
        r#"{"terrain": [{"points": [[0, 0]]}]}"#,
        "terrain[0]",
        "at least 2",
    );
    fails(
        r#"{"terrain": [{"points": [[0, 0], [1, 0], [1, 0]]}]}"#,
        "terrain[0]",
        "zero length",
    );
    fails(
        r#"{"terrain": [{"points": [[0, 0], [1, 0]], "thickness": -1}]}"#,
        "terrain[0].thickness",
        "out of range",
    );
    fails(r#"{"terrain": [{"closed": true}]}"#, "terrain[0]", "points");
}

/// A kinematic body in the scene format: `"kinematic": true` on a body of
/// pinned points, which move at their velocities as a rigid body (the
/// CPU steps it 1 s); a free point in one is refused by its path.
#[test]
fn kinematic_bodies_are_read_and_bad_ones_refused_by_path() {
    let world = load(
        r#"{"points": [{"pos": [0, 0], "mass": 0, "vel": [1, 0]},
                       {"pos": [2, 0], "mass": 0, "vel": [1, 0]},
                       {"pos": [2, 1], "mass": 0, "vel": [1, 0]},
                       {"pos": [0, 1], "mass": 0, "vel": [1, 0]}],
            "bodies": [{"points": [0, 1, 2, 3], "kinematic": true}]}"#,
    )
    .unwrap();
    assert!(world.bodies()[0].kinematic);
    let mut cpu = CpuSolver::new(&world).unwrap();
    for _ in 0..60 {
        cpu.step();
    }
    let x = cpu.positions()[0];
    assert!((x[0] - 1.0).abs() < 1e-4 && x[1].abs() < 1e-4, "{x:?}");
    fails(
        r#"{"points": [{"pos": [0, 0], "mass": 0}, {"pos": [1, 0]}, {"pos": [0, 1], "mass": 0}],
            "bodies": [{"points": [0, 1, 2], "kinematic": true}]}"#,
        "bodies[0].points",
        "not pinned",
    );
}

/// `kinematic` on a generator makes each body it builds kinematic (pinned,
/// with the rigid motion), as `World::set_kinematic` does; a grid, whose
/// cells share corners, is refused by its path.
#[test]
fn generators_take_kinematic() {
    let world = load(
        r#"{"shapes": [{"box": {"center": [0, 0], "size": [2, 1],
                               "kinematic": {"velocity": [1, 0], "spin": 0.5}}}]}"#,
    )
    .unwrap();
    let mut api = World::default();
    let b = BoxShape::new(Vec2::ZERO, Vec2::new(2.0, 1.0))
        .build(&mut api)
        .unwrap();
    api.set_kinematic(b.bodies[0], Vec2::X, 0.5).unwrap();
    assert!(world.bodies()[0].kinematic);
    assert_eq!(world.points(), api.points());
    fails(
        r#"{"shapes": [{"grid": {"cells": [2, 1], "cell": [1, 1], "kinematic": {}}}]}"#,
        "shapes[0].grid.kinematic",
        "also in kinematic body",
    );
    fails(
        r#"{"shapes": [{"box": {"center": [0, 0], "size": [1, 1], "kinematic": {"spin": "fast"}}}]}"#,
        "shapes[0].box.kinematic.spin",
        "",
    );
}

/// Joints in the scene format: `joints` with `body`, `other`, `spring`
/// (`hertz`, `damping_ratio` and `target`, defaults 1 and 0), `motor`
/// (`speed`, `max_torque`) and `limits`, between generated or listed
/// bodies; bad ones are refused by their path.
#[test]
fn joints_are_read_and_bad_joints_refused_by_path() {
    let boxes = r#""shapes": [{"box": {"center": [0, 0], "size": [1, 1]}},
                            {"box": {"center": [1, 0], "size": [1, 1]}}]"#;
    let world = load(&format!(
        r#"{{{boxes}, "joints": [{{"body": 1, "other": 0, "limits": [-0.5, 0.5],
                                  "motor": {{"speed": 2, "max_torque": 30}}}},
                                 {{"body": 0, "limits": [-1, 0]}},
                                 {{"body": 1, "spring": {{"hertz": 2.5}}}},
                                 {{"body": 0, "other": 1, "spring": {{"hertz": 4,
                                   "damping_ratio": 0.2, "target": -0.7}}}}]}}"#
    ))
    .unwrap();
    assert_eq!(
        world.joints(),
        &[
            Joint::new(BodyHandle(1), Some(BodyHandle(0)))
                .limits(-0.5, 0.5)
                .motor(2.0, 30.0),
            Joint::new(BodyHandle(0), None).limits(-1.0, 0.0),
            Joint::new(BodyHandle(1), None).spring(2.5, 1.0, 0.0),
            Joint::new(BodyHandle(0), Some(BodyHandle(1))).spring(4.0, 0.2, -0.7),
        ]
    );
    let bad = |joint: &str| format!(r#"{{{boxes}, "joints": [{joint}]}}"#);
    let cases = [
        (
            r#"{"body": 2}"#,
            "joints[0].body",
            "body index 2 is out of range: the scene has 2 bodies",
        ),
        (
            r#"{"body": 0, "other": 5}"#,
            "joints[0].other",
            "out of range",
        ),
        (r#"{"body": 0, "other": 0}"#, "joints[0]", "the body itself"),
        (
            r#"{"body": 0, "limits": [1, 0]}"#,
            "joints[0].limits[0]",
            "<= the upper limit",
        ),
        (
            r#"{"body": 0, "limits": [0, 4]}"#,
            "joints[0].limits[1]",
            "pi",
        ),
        (
            r#"{"body": 0, "motor": {"speed": 1, "max_torque": -2}}"#,
            "joints[0].motor.max_torque",
            "negative",
        ),
        (
            r#"{"body": 0, "motor": {"speed": 1}}"#,
            "joints[0].motor",
            "max_torque",
        ),
        (
            r#"{"body": 0, "spring": 1}"#,
            "joints[0].spring",
            "a JSON object",
        ),
        (
            r#"{"body": 0, "spring": {"damping_ratio": 1}}"#,
            "joints[0].spring",
            "hertz",
        ),
        (
            r#"{"body": 0, "spring": {"hertz": -1}}"#,
            "joints[0].spring.hertz",
            "negative",
        ),
        (
            r#"{"body": 0, "spring": {"hertz": 1, "damping_ratio": 2e6}}"#,
            "joints[0].spring.damping_ratio",
            "1e6",
        ),
        (
            r#"{"body": 0, "spring": {"hertz": 1, "target": 3.5}}"#,
            "joints[0].spring.target",
            "pi",
        ),
        (
            r#"{"body": 0, "spring": {"hertz": 1, "stiffness": 3}}"#,
            "joints[0].spring.stiffness",
            "unknown field",
        ),
    ];
    for (joint, path, what) in cases {
        fails(&bad(joint), path, what);
    }
}
