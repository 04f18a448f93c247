//! Stiffness given as a frequency and a damping ratio
//! (`softbody::Frequency`): what it means in the solver, in the builders
//! and in scene files.
//!
//! The solver is explicit, so a link given `hz` rings at `hz` up to the
//! scheme's phase error, `(omega h)^2 / 24` relative (0.02% at 5 Hz with
//! `h = 1/480 s`); the tests allow 1%.

use softbody::prelude::*;
use softbody::scene::Scene;

#[test]
fn params_convert_to_and_from_a_frequency() {
    let mut p = Params::default();
    let d = p.shape_frequency();
    assert!(
        (d.hz - 40.0).abs() < 1e-3 && (d.damping_ratio - 0.2).abs() < 1e-4,
        "{d:?}"
    );
    p.set_shape_frequency(Frequency::new(4.0, 1.0));
    let w = std::f32::consts::TAU * 4.0;
    assert_eq!((p.shape_stiffness, p.shape_damping), (w * w, 2.0 * w));
    p.set_spring_frequency(Frequency::new(4.0, 0.5), 2.0);
    assert_eq!((p.spring_stiffness, p.spring_damping), (w * w, w));
}

#[test]
fn a_style_sets_springs_from_a_frequency_with_its_mass() {
    let f = Frequency::new(10.0, 0.2);
    let style = ShapeStyle::new()
        .mass(3.0)
        .spring_frequency(f)
        .body_frequency(f);
    assert_eq!(style.spring_stiffness, Some(f.shape_stiffness() * 1.5));
    assert_eq!(style.spring_damping, Some(f.damping_rate()));
    assert_eq!(style.body_stiffness, Some(f.shape_stiffness()));
    assert_eq!(style.body_damping, Some(f.damping_rate()));
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
