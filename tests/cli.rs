//! The `softbody` program: exit codes, outputs, the GPU-vs-CPU check, and
//! checkpoints that resume bitwise identical on both backends.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn softbody(args: &[&str]) -> Output {
    softbody_log(args, None)
}

/// `softbody` with `RUST_LOG` set to `log` (`None`: unset, so the default
/// of warnings and errors).
fn softbody_log(args: &[&str], log: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_softbody"));
    cmd.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    match log {
        Some(l) => cmd.env("RUST_LOG", l),
        None => cmd.env_remove("RUST_LOG"),
    };
    let out = cmd.output().expect("the binary runs");
    show(args, &format!(" (RUST_LOG {log:?})"), &out);
    out
}

/// Prints a run's command line, exit code and output (shown when a test
/// fails).
fn show(args: &[&str], note: &str, out: &Output) {
    eprintln!(
        "softbody {}{note}\n--- exit {:?}\n{}{}",
        args.join(" "),
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `softbody`, killed (and the test failed) if it runs past `secs`
/// seconds: for runs that used to hang.
fn softbody_within(args: &[&str], secs: u64) -> Output {
    run_within(Command::new(env!("CARGO_BIN_EXE_softbody")), args, secs)
}

/// `softbody` with at most 1 GB of address space (`ulimit -v`) and 60
/// seconds: for runs that used to read until memory ran out, which then
/// fail at once instead of taking the machine's memory.
#[cfg(unix)]
fn softbody_small(args: &[&str]) -> Output {
    let mut cmd = Command::new("sh");
    cmd.args([
        "-c",
        "ulimit -v 1000000 && exec \"$0\" \"$@\"",
        env!("CARGO_BIN_EXE_softbody"),
    ]);
    run_within(cmd, args, 60)
}

fn run_within(mut cmd: Command, args: &[&str], secs: u64) -> Output {
    let mut child = cmd
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("RUST_LOG", "off")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("softbody {} ran past {secs} s", args.join(" "));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    show(args, "", &out);
    out
}

/// `softbody simulate` of the pendulum scene, 3 steps on the CPU, with
/// `extra` options.
fn simulate_pendulum(extra: &[&str]) -> Output {
    let mut args = vec![
        "simulate",
        "--scene",
        "scenes/pendulum.json",
        "--steps",
        "3",
        "--backend",
        "cpu",
    ];
    args.extend_from_slice(extra);
    softbody(&args)
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("exited normally")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A fresh directory for one test's files.
fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn help_and_usage_errors() {
    let out = softbody(&["--help"]);
    assert_eq!(code(&out), 0);
    for cmd in ["simulate", "check", "render", "run"] {
        assert!(stdout(&out).contains(cmd), "{cmd}");
    }
    assert_eq!(code(&softbody(&["simulate", "--steps", "ten"])), 2);
    assert_eq!(
        code(&softbody(&["simulate", "--every", "5"])),
        2,
        "--every needs --trace"
    );
    assert_eq!(code(&softbody(&["frobnicate"])), 2);
    assert_eq!(code(&softbody(&["check", "--tolerance", "NaN"])), 2);
    let out = softbody(&["check", "--tolerance", "-1"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("finite number >= 0"),
        "reaches the check"
    );
    let out = softbody(&["simulate", "--trace", "t.csv", "--every", "0"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("at least 1"));
    // Near usize::MAX used to overflow an allocation (a panic).
    for n in ["18446744073709551615", "2000001"] {
        let out = softbody(&["simulate", "--bodies", n, "--backend", "cpu"]);
        assert_eq!(code(&out), 2, "--bodies {n}");
        assert!(stderr(&out).contains("2000000 bodies"), "{}", stderr(&out));
    }
    // 2 and 3 samples are not guaranteed for the window's formats (wgpu
    // panicked on them); refused before any window opens.
    for n in ["2", "3", "8"] {
        assert_eq!(code(&softbody(&["run", "--msaa", n])), 2, "--msaa {n}");
    }
    // `--frames 0` presented a frame anyway (the count is checked after
    // presenting); a window that closes at once is not a request.
    let out = softbody(&["run", "--frames", "0"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--frames"), "{}", stderr(&out));
    assert_eq!(
        code(&softbody(&[
            "check",
            "--scene",
            "scenes/boxes.json",
            "--bodies",
            "5"
        ])),
        2,
        "--bodies is for the default scene only"
    );
}

/// `--sample ship` runs the seed's game headless, and refuses to be
/// combined with a scene.
#[test]
fn simulate_runs_the_ship_sample() {
    let out = softbody(&[
        "simulate",
        "--sample",
        "ship",
        "--steps",
        "12",
        "--backend",
        "cpu",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("the ship sample"),
        "{}",
        stdout(&out)
    );
    let out = softbody(&["simulate", "--sample", "ship", "--bodies", "5"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("--sample"), "{}", stderr(&out));
}

#[test]
fn simulate_without_a_scene_runs_the_default_scene() {
    let out = softbody(&[
        "simulate",
        "--bodies",
        "16",
        "--steps",
        "12",
        "--backend",
        "cpu",
    ]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).starts_with("default scene"));
    assert!(stdout(&out).contains("t =    0.20 s"));
    // The CPU backend uses every core (bitwise the same as one thread).
    assert!(
        stdout(&out).contains("backend: CPU reference (all threads)"),
        "{}",
        stdout(&out)
    );
    // The starting line has no steps to time.
    assert!(
        stdout(&out).contains("       - ms/step"),
        "{}",
        stdout(&out)
    );
}

/// Output paths are checked before the run: one that cannot be written
/// used to fail after the run, having overwritten the others already.
#[test]
fn outputs_are_checked_before_the_run() {
    let d = dir("outputs");
    let keep = d.join("keep.csv");
    std::fs::write(&keep, "keep").unwrap();
    let missing = d.join("nodir").join("x.json");
    for (option, bad) in [("--out", &missing), ("--save-state", &d)] {
        let out = softbody(&[
            "simulate",
            "--bodies",
            "5",
            "--steps",
            "3",
            "--backend",
            "cpu",
            "--trace",
            s(&keep),
            option,
            s(bad),
        ]);
        assert_eq!(code(&out), 2, "{option}");
        assert!(stderr(&out).contains(option), "{}", stderr(&out));
        assert_eq!(std::fs::read_to_string(&keep).unwrap(), "keep");
    }
}

/// A directory that does not accept a new file is refused before the run,
/// naming it: it used to be found after the run, losing its state and
/// checkpoint (exit 1). `/proc` refuses new files to every user; a mode
/// 555 directory to all but root.
#[test]
fn an_output_in_a_directory_that_takes_no_new_file_is_refused_up_front() {
    let d = dir("unwritable");
    let keep = d.join("keep.csv");
    std::fs::write(&keep, "keep").unwrap();
    let mut bad = vec![(PathBuf::from("/proc/softbody-state.json"), "/proc")];
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let ro = d.join("ro");
        std::fs::create_dir(&ro).unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        if std::fs::File::create(ro.join("probe")).is_err() {
            bad.push((ro.join("state.json"), "ro"));
        } else {
            eprintln!("SKIPPED: the mode 555 directory (root writes there)");
        }
    }
    for (path, dir_name) in &bad {
        if !Path::new("/proc/self").exists() && dir_name == &"/proc" {
            continue;
        }
        for option in ["--out", "--save-state"] {
            let out = simulate_pendulum(&["--trace", s(&keep), option, s(path)]);
            assert_eq!(code(&out), 2, "{option} {}", path.display());
            let err = stderr(&out);
            assert!(err.contains(option), "{err}");
            assert!(err.contains("does not accept a new file"), "{err}");
            assert!(err.contains(dir_name), "{err}");
            assert!(!stdout(&out).contains("t ="), "before the run");
            assert_eq!(std::fs::read_to_string(&keep).unwrap(), "keep");
        }
    }
    // File names up to the limit of 255 bytes are written (the temporary
    // file used to be named after them, 255 bytes and more).
    let (long_state, long_ckpt) = (d.join("s".repeat(250)), d.join("c".repeat(255)));
    let out = simulate_pendulum(&["--out", s(&long_state), "--save-state", s(&long_ckpt)]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(long_state.is_file() && long_ckpt.is_file());
    // Nothing is left behind by the probes or the writes.
    let mut names: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    names.sort();
    assert!(names.is_empty(), "{names:?}");
}

/// Two outputs naming one file, or an output naming an input, are
/// refused before the run (exit 2, naming both options), however the path
/// is spelled and through hard and symbolic links: the trace was lost
/// under the state, the scene replaced by the state, a checkpoint
/// truncated by the trace.
#[test]
fn an_output_may_not_name_another_output_or_an_input() {
    let d = dir("same_file");
    let scene = d.join("p.json");
    std::fs::copy("scenes/pendulum.json", &scene).unwrap();
    let scene_text = std::fs::read(&scene).unwrap();
    let ckpt = d.join("ck.bin");
    let out = softbody(&[
        "simulate",
        "--scene",
        s(&scene),
        "--steps",
        "2",
        "--backend",
        "cpu",
        "--save-state",
        s(&ckpt),
    ]);
    assert_eq!(code(&out), 0);
    let ckpt_bytes = std::fs::read(&ckpt).unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    let at = |rest: &str| format!("{}/{rest}", s(&d));
    let mut cases: Vec<(Vec<String>, [&str; 2])> = vec![
        (
            vec![
                "--trace".into(),
                at("same.out"),
                "--out".into(),
                at("same.out"),
            ],
            ["--trace", "--out"],
        ),
        (
            vec!["--out".into(), at("x"), "--save-state".into(), at("x")],
            ["--out", "--save-state"],
        ),
        // A new file, spelled three ways.
        (
            vec![
                "--out".into(),
                at("./a.json"),
                "--trace".into(),
                at("sub/../a.json"),
            ],
            ["--out", "--trace"],
        ),
        (
            vec![
                "--trace".into(),
                at("a.json"),
                "--save-state".into(),
                at("sub/..//a.json"),
            ],
            ["--trace", "--save-state"],
        ),
        (vec!["--out".into(), at("./p.json")], ["--out", "--scene"]),
        (
            vec![
                "--load-state".into(),
                s(&ckpt).into(),
                "--trace".into(),
                at("sub/../ck.bin"),
            ],
            ["--trace", "--load-state"],
        ),
    ];
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        std::fs::hard_link(&scene, d.join("hard.json")).unwrap();
        symlink(&scene, d.join("sub/link.json")).unwrap();
        symlink("../new.json", d.join("sub/dangling.json")).unwrap();
        cases.extend([
            (vec!["--out".into(), at("hard.json")], ["--out", "--scene"]),
            (
                vec!["--save-state".into(), at("sub/link.json")],
                ["--save-state", "--scene"],
            ),
            (
                vec![
                    "--out".into(),
                    at("sub/dangling.json"),
                    "--trace".into(),
                    at("new.json"),
                ],
                ["--out", "--trace"],
            ),
        ]);
    }
    for (extra, options) in &cases {
        let mut args = vec![
            "simulate",
            "--scene",
            s(&scene),
            "--steps",
            "3",
            "--backend",
            "cpu",
        ];
        args.extend(extra.iter().map(String::as_str));
        let out = softbody(&args);
        assert_eq!(code(&out), 2, "{extra:?}");
        for option in options {
            assert!(
                stderr(&out).contains(option),
                "{option} in {}",
                stderr(&out)
            );
        }
        assert!(stderr(&out).contains("the same file"), "{}", stderr(&out));
    }
    // Refused before anything was written.
    assert_eq!(std::fs::read(&scene).unwrap(), scene_text);
    assert_eq!(std::fs::read(&ckpt).unwrap(), ckpt_bytes);
    for new in ["same.out", "x", "a.json", "new.json"] {
        assert!(!d.join(new).exists(), "{new}");
    }
    // `render` too (refused before it looks for a GPU).
    let out = softbody(&[
        "render",
        "--scene",
        s(&scene),
        "--out",
        &at("sub/../p.json"),
    ]);
    if cfg!(feature = "window") {
        assert_eq!(code(&out), 2);
        assert!(stderr(&out).contains("--out"), "{}", stderr(&out));
        assert!(stderr(&out).contains("--scene"), "{}", stderr(&out));
    }
    assert_eq!(std::fs::read(&scene).unwrap(), scene_text);
    // Different files are fine.
    let out = softbody(&[
        "simulate",
        "--scene",
        s(&scene),
        "--steps",
        "3",
        "--backend",
        "cpu",
        "--out",
        &at("a.json"),
        "--trace",
        &at("b.csv"),
    ]);
    assert_eq!(code(&out), 0);
}

/// Outputs through symbolic links and into files that are not regular:
/// the state used to be renamed over the path, which replaced a link with
/// a regular file (its target unchanged) and a FIFO or a device (e.g.
/// `/dev/stdout`) with a regular file.
#[cfg(unix)]
#[test]
fn outputs_write_through_links_and_into_devices() {
    use std::os::unix::fs::{FileTypeExt, symlink};
    let d = dir("links");
    let (target, ckpt) = (d.join("target.json"), d.join("new.bin"));
    std::fs::write(&target, "old").unwrap();
    symlink(&target, d.join("link.json")).unwrap();
    // Dangling: the checkpoint is created where it points.
    symlink("new.bin", d.join("dangling.bin")).unwrap();
    let out = simulate_pendulum(&[
        "--out",
        s(&d.join("link.json")),
        "--save-state",
        s(&d.join("dangling.bin")),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    for link in ["link.json", "dangling.bin"] {
        let m = std::fs::symlink_metadata(d.join(link)).unwrap();
        assert!(m.file_type().is_symlink(), "{link} is still a link");
    }
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(v["step"], 3);
    assert_eq!(
        softbody::checkpoint::Checkpoint::read(&ckpt).unwrap().step,
        3
    );

    // Character devices (mknod needs root): the null device takes both
    // outputs; the full device fails the write (exit 1, saying why); both
    // stay devices.
    let (null, full) = (d.join("null"), d.join("full"));
    let made = [(&null, "3"), (&full, "7")].iter().all(|(p, minor)| {
        Command::new("mknod")
            .args([s(p), "c", "1", minor])
            .status()
            .is_ok_and(|st| st.success())
    });
    if !made {
        eprintln!("SKIPPED: the device part (mknod needs root)");
        return;
    }
    let out = simulate_pendulum(&["--out", s(&null), "--save-state", s(&null)]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = simulate_pendulum(&["--out", s(&full)]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("No space left on device"),
        "{}",
        stderr(&out)
    );
    for dev in [&null, &full] {
        let m = std::fs::symlink_metadata(dev).unwrap();
        assert!(
            m.file_type().is_char_device(),
            "{} is still a device",
            dev.display()
        );
    }
}

#[cfg(not(feature = "window"))]
#[test]
fn window_commands_say_they_are_not_built_in() {
    for args in [
        &["run"][..],
        &[
            "render",
            "--scene",
            "scenes/boxes.json",
            "--steps",
            "5",
            "--out",
            "x.png",
        ][..],
    ] {
        let out = softbody(args);
        assert_eq!(code(&out), 1);
        assert!(
            stderr(&out).contains("built without the `window` feature"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn bad_scenes_exit_2_naming_the_json_path() {
    let d = dir("bad_scenes");
    let cases = [
        (r#"{"points": [{"pos": [0, 0]}"#, "EOF"),
        (
            r#"{"points": [{"pos": [0, 0]}], "springs": [{"a": 0, "b": 3}]}"#,
            "springs[0].b: point index 3 is out of range",
        ),
        (
            r#"{"points": [{"pos": [0, "x"]}]}"#,
            "points[0].pos[1]: invalid type",
        ),
        (
            r#"{"points": [{"pos": [0, 0], "mas": 1}]}"#,
            "points[0].mas: unknown field",
        ),
        (
            r#"{"shapes": [{"grid": {"cells": [100000, 100000], "cell": [1, 1]}}]}"#,
            "shapes[0]: the scene asks for 10000200001 points",
        ),
    ];
    for (k, (json, want)) in cases.iter().enumerate() {
        let path = d.join(format!("bad{k}.json"));
        std::fs::write(&path, json).unwrap();
        for cmd in ["simulate", "check"] {
            let out = softbody(&[cmd, "--scene", s(&path), "--steps", "1"]);
            assert_eq!(code(&out), 2);
            assert!(stderr(&out).contains(want), "{want:?} in {}", stderr(&out));
            assert!(!stderr(&out).contains("panicked"));
        }
    }
    let out = softbody(&["simulate", "--scene", s(&d.join("missing.json"))]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("cannot read"));
}

#[test]
fn stability_warnings_reach_stderr_unless_logging_is_off() {
    let d = dir("warnings");
    // 2e5 N/m between two 1 kg points at the default substep (1/480 s):
    // k h^2 (1/m_a + 1/m_b) = 1.7, past the bound of 1 but not past 4,
    // where the spring would diverge on its own and be refused.
    let stiff = d.join("stiff.json");
    std::fs::write(
        &stiff,
        r#"{"points": [{"pos": [0, 0]}, {"pos": [1, 0]}],
            "springs": [{"a": 0, "b": 1, "stiffness": 200000}]}"#,
    )
    .unwrap();
    let calm = d.join("calm.json");
    std::fs::write(
        &calm,
        r#"{"points": [{"pos": [0, 0]}, {"pos": [1, 0]}], "springs": [{"a": 0, "b": 1}]}"#,
    )
    .unwrap();
    let run = |scene: &Path, log| {
        let out = softbody_log(
            &[
                "simulate",
                "--scene",
                s(scene),
                "--steps",
                "1",
                "--backend",
                "cpu",
            ],
            log,
        );
        assert_eq!(code(&out), 0);
        stderr(&out)
    };
    let err = run(&stiff, None);
    assert!(err.contains("WARN"), "{err}");
    assert!(err.contains("point 0: spring load"), "{err}");
    assert!(err.contains("raise substeps or lower stiffness"), "{err}");
    assert!(!run(&calm, None).contains("WARN"));
    assert!(!run(&stiff, Some("off")).contains("spring load"));
}

#[test]
fn simulate_writes_the_state_and_a_trace() {
    let d = dir("simulate");
    let (state, trace) = (d.join("state.json"), d.join("trace.csv"));
    let out = softbody(&[
        "simulate",
        "--scene",
        "scenes/ships.json",
        "--steps",
        "30",
        "--backend",
        "cpu",
        "--out",
        s(&state),
        "--trace",
        s(&trace),
        "--every",
        "10",
    ]);
    assert_eq!(code(&out), 0);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(v["step"], 30);
    assert!((v["time"].as_f64().unwrap() - 0.5).abs() < 1e-6);
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 100);
    assert_eq!(points[0]["pos"].as_array().unwrap().len(), 2);
    assert_eq!(points[0]["vel"].as_array().unwrap().len(), 2);
    let bodies = v["bodies"].as_array().unwrap();
    assert_eq!(bodies.len(), 21);
    assert!(bodies[0]["centroid"][1].as_f64().unwrap() < 10.0, "it fell");
    assert!(bodies[0]["angle"].as_f64().unwrap().abs() <= std::f64::consts::PI);

    let text = std::fs::read_to_string(&trace).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(
        rows[0],
        "step,time,kinetic_energy,potential_energy,momentum_x,momentum_y,angular_momentum,max_speed"
    );
    assert_eq!(rows.len(), 1 + 4, "steps 0, 10, 20, 30");
    assert!(rows[4].starts_with("30,0.5"));
    let col = |row: &str, k: usize| row.split(',').nth(k).unwrap().parse::<f64>().unwrap();
    // Falling from rest: kinetic energy grows, potential energy drops.
    assert!(col(rows[2], 2) > col(rows[1], 2));
    assert!(col(rows[2], 3) < col(rows[1], 3));
}

/// scenes/boxes.json in centimetres: `simulate` and `check` speak the
/// scene's unit, and `check`'s default tolerance is 5 mm in it (0.5 cm),
/// not 5e-3 of its unit (0.05 mm, far below the paths' rounding).
#[test]
fn a_scene_in_centimetres_is_reported_and_checked_in_centimetres() {
    let d = dir("centimetres");
    let scene = d.join("boxes_cm.json");
    std::fs::write(
        &scene,
        r#"{"params": {"length_unit": 100, "dt": 0.016666668, "substeps": 8},
            "planes": [{"normal": [0, 1], "offset": 0},
                       {"normal": [1, 0.2], "offset": -400},
                       {"normal": [-1, 0.2], "offset": -400}],
            "shapes": [{"box": {"center": [-220, 60], "size": [50, 50],
                        "array": {"count": [8, 4], "spacing": [62, 62]}}}]}"#,
    )
    .unwrap();
    let out = softbody(&[
        "simulate",
        "--scene",
        s(&scene),
        "--steps",
        "6",
        "--backend",
        "cpu",
    ]);
    assert_eq!(code(&out), 0);
    let text = stdout(&out);
    assert!(text.contains(" cm  max speed"), "{text}");
    assert!(text.contains(" cm/s "), "{text}");
    assert!(text.contains(" kg cm2/s2 "), "{text}");
    if common::gpu().is_none() {
        return;
    }
    let out = softbody(&["check", "--scene", s(&scene), "--steps", "60"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}");
    assert!(text.contains("positions:  max deviation"), "{text}");
    assert!(text.contains(" cm (step"), "{text}");
    assert!(
        text.contains("ok: within tolerance over 60 steps"),
        "{text}"
    );
    // The old default, 5e-3 of the scene's unit, fails it over one run
    // on each path.
    let out = softbody(&[
        "check",
        "--scene",
        s(&scene),
        "--steps",
        "60",
        "--tolerance",
        "5e-3",
        "--resync",
        "0",
    ]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
}

#[test]
fn check_passes_within_its_tolerance_and_fails_below_the_paths_rounding() {
    if common::gpu().is_none() {
        return;
    }
    let out = softbody(&["check", "--scene", "scenes/boxes.json", "--steps", "60"]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("positions:  max deviation"));
    assert!(stdout(&out).contains("ok: within tolerance over 60 steps"));

    let out = softbody(&[
        "check",
        "--scene",
        "scenes/boxes.json",
        "--steps",
        "60",
        "--tolerance",
        "1e-9",
    ]);
    assert_eq!(code(&out), 1);
    assert!(
        stdout(&out).contains("FAILED: tolerance first exceeded at step"),
        "{}",
        stdout(&out)
    );
}

/// `check` on the default scene of 600 bodies passes: by default the CPU
/// restarts from the GPU's state every step (`--resync 1`), so the paths'
/// parting does not compound through the pile's contacts (one run on each
/// path passes 5 mm at step 21, on lavapipe, as the first bodies land).
#[test]
fn check_passes_on_the_default_scene_comparing_step_by_step() {
    if common::gpu().is_none() {
        return;
    }
    let out = softbody(&["check", "--bodies", "600", "--steps", "30"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}");
    assert!(text.contains("every 1 steps (--resync)"), "{text}");
    assert!(
        text.contains("ok: within tolerance over 30 steps"),
        "{text}"
    );
    let out = softbody(&["check", "--bodies", "10", "--resync", "-1"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
}

/// One run of `steps` steps, against the same run split at `split` with a
/// checkpoint in between: the final states are the same bytes.
fn resume_is_bitwise(backend: &str, scene: &str, steps: u32, split: u32) {
    let d = dir(&format!("resume_{backend}"));
    let (whole, part, ckpt) = (d.join("whole.json"), d.join("part.json"), d.join("c.bin"));
    let n = steps.to_string();
    let first = split.to_string();
    let rest = (steps - split).to_string();
    let run = |args: &[&str]| {
        let mut all = vec!["simulate", "--scene", scene, "--backend", backend];
        all.extend_from_slice(args);
        assert_eq!(code(&softbody(&all)), 0);
    };
    run(&["--steps", &n, "--out", s(&whole)]);
    run(&["--steps", &first, "--save-state", s(&ckpt)]);
    run(&[
        "--steps",
        &rest,
        "--load-state",
        s(&ckpt),
        "--out",
        s(&part),
    ]);
    let (a, b) = (
        std::fs::read(&whole).unwrap(),
        std::fs::read(&part).unwrap(),
    );
    assert!(a.len() > 1000);
    assert!(a == b, "{backend}: the resumed run differs");
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
}

#[test]
fn a_resumed_run_is_bitwise_identical_on_the_cpu() {
    resume_is_bitwise("cpu", "scenes/ships.json", 90, 37);
}

#[test]
fn a_resumed_run_is_bitwise_identical_on_the_gpu() {
    if common::gpu().is_none() {
        return;
    }
    resume_is_bitwise("gpu", "scenes/ships.json", 90, 37);
}

#[test]
fn a_checkpoint_refuses_another_scene_and_damage() {
    let d = dir("refuse");
    let ckpt = d.join("c.bin");
    let out = softbody(&[
        "simulate",
        "--scene",
        "scenes/boxes.json",
        "--steps",
        "3",
        "--backend",
        "cpu",
        "--save-state",
        s(&ckpt),
    ]);
    assert_eq!(code(&out), 0);
    let out = softbody(&[
        "simulate",
        "--scene",
        "scenes/ships.json",
        "--steps",
        "3",
        "--backend",
        "cpu",
        "--load-state",
        s(&ckpt),
    ]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("belongs to another scene"));

    let mut bytes = std::fs::read(&ckpt).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    let damaged = d.join("damaged.bin");
    std::fs::write(&damaged, &bytes).unwrap();
    bytes.truncate(mid);
    let truncated = d.join("truncated.bin");
    std::fs::write(&truncated, &bytes).unwrap();
    for (path, want) in [(&damaged, "checksum"), (&truncated, "truncated")] {
        let out = softbody(&[
            "simulate",
            "--scene",
            "scenes/boxes.json",
            "--steps",
            "3",
            "--backend",
            "cpu",
            "--load-state",
            s(path),
        ]);
        assert_eq!(code(&out), 2);
        assert!(stderr(&out).contains(want), "{}", stderr(&out));
    }

    // A checkpoint of this scene with a point too few (a valid file) is bad
    // input too, naming the file (it exited 1 without the name).
    let mut short = softbody::checkpoint::Checkpoint::read(&ckpt).unwrap();
    short.pos.pop();
    short.vel.pop();
    short.rest_steps.pop();
    short.warm.pop();
    short.anchors.pop();
    short.supports.pop();
    let short_path = d.join("short.bin");
    short.write(&short_path).unwrap();
    let load = |path: &Path, steps: &str| {
        softbody(&[
            "simulate",
            "--scene",
            "scenes/boxes.json",
            "--steps",
            steps,
            "--backend",
            "cpu",
            "--load-state",
            s(path),
        ])
    };
    let out = load(&short_path, "3");
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("short.bin"), "{}", stderr(&out));
    // A step count that would pass u64::MAX after the checkpoint's step
    // used to wrap around and run no step at all. Run with a time limit: if
    // the checkpoint's step were not restored, this would try to run
    // 1.8e19 steps (a mutation audit's run went 16 minutes before it was
    // killed).
    let out = softbody_within(
        &[
            "simulate",
            "--scene",
            "scenes/boxes.json",
            "--steps",
            "18446744073709551615",
            "--backend",
            "cpu",
            "--load-state",
            s(&ckpt),
        ],
        60,
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("largest step count"),
        "{}",
        stderr(&out)
    );
}

/// A checkpoint near `u64::MAX` steps with a trace every K steps, where
/// the next multiple of K is past `u64::MAX`: the step arithmetic wrapped
/// and the run spun for ever (or panicked, with overflow checks).
#[test]
fn a_run_near_the_largest_step_count_ends() {
    let d = dir("near_max");
    let ckpt = d.join("c.bin");
    let scene = ["--scene", "scenes/pendulum.json", "--backend", "cpu"];
    let run = |args: &[&str]| {
        let mut all = vec!["simulate"];
        all.extend_from_slice(&scene);
        all.extend_from_slice(args);
        softbody_within(&all, 60)
    };
    assert_eq!(code(&run(&["--steps", "2", "--save-state", s(&ckpt)])), 0);
    let mut c = softbody::checkpoint::Checkpoint::read(&ckpt).unwrap();
    for (at, every, rows) in [
        // The audit's case: 2^63 + 5, a row every 2^63 + 1 steps.
        (
            (1u64 << 63) + 5,
            "9223372036854775809",
            vec![(1u64 << 63) + 5],
        ),
        // The last steps there are: rows at the even steps, the next past
        // u64::MAX.
        (u64::MAX - 3, "2", vec![u64::MAX - 3, u64::MAX - 1]),
    ] {
        c.step = at;
        let big = d.join("big.bin");
        c.write(&big).unwrap();
        let trace = d.join("trace.csv");
        let state = d.join("state.json");
        let out = run(&[
            "--load-state",
            s(&big),
            "--steps",
            "3",
            "--trace",
            s(&trace),
            "--every",
            every,
            "--out",
            s(&state),
        ]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
        assert_eq!(v["step"].as_u64(), Some(at + 3));
        let text = std::fs::read_to_string(&trace).unwrap();
        let steps: Vec<u64> = text
            .lines()
            .skip(1)
            .map(|row| row.split(',').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(steps, rows);
    }
}

/// Inputs that do not end are refused after a few bytes: a scene file
/// (JSON has no NUL byte, and at most `MAX_SCENE_BYTES` are read) and a
/// checkpoint (its header first, then no more than the length it gives,
/// for no more points than the scene's). Both were read whole, until
/// memory ran out.
#[cfg(unix)]
#[test]
fn endless_inputs_are_refused_without_reading_them_whole() {
    let scene = ["simulate", "--scene", "scenes/pendulum.json"];
    for (args, want) in [
        (
            &["simulate", "--scene", "/dev/zero"][..],
            "cannot read /dev/zero: byte 0 is NUL: it is not JSON text",
        ),
        (
            &["simulate", "--scene", "/dev/urandom"][..],
            "is NUL: it is not JSON text",
        ),
        (
            &[&scene[..], &["--load-state", "/dev/zero"]].concat()[..],
            "--load-state /dev/zero: not a softbody checkpoint",
        ),
        (
            &[&scene[..], &["--load-state", "/dev/urandom"]].concat()[..],
            "--load-state /dev/urandom: not a softbody checkpoint",
        ),
    ] {
        if !Path::new(args[args.len() - 1]).exists() {
            continue;
        }
        let mut all = args.to_vec();
        all.extend_from_slice(&["--steps", "1", "--backend", "cpu"]);
        let out = softbody_small(&all);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(want), "{want:?} in {}", stderr(&out));
    }
    // A checkpoint of this scene with more bytes after it, and one whose
    // header gives more points than the scene has: refused, naming the
    // file.
    let d = dir("endless");
    // A (sparse) scene file one byte over the limit: refused by its length.
    let big = d.join("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(softbody::scene::MAX_SCENE_BYTES + 1)
        .unwrap();
    let out = softbody_small(&["simulate", "--scene", s(&big), "--backend", "cpu"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("big.json: it is longer than the limit of 2147483648 bytes"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_file(&big).unwrap();
    let ckpt = d.join("c.bin");
    let out = softbody(
        &[
            &scene[..],
            &["--steps", "2", "--backend", "cpu", "--save-state", s(&ckpt)],
        ]
        .concat(),
    );
    assert_eq!(code(&out), 0);
    let bytes = std::fs::read(&ckpt).unwrap();
    let longer = d.join("longer.bin");
    std::fs::write(&longer, [&bytes[..], &[0; 1000]].concat()).unwrap();
    let mut more = bytes.clone();
    more[48..56].copy_from_slice(&(1u64 << 29).to_le_bytes());
    let more_points = d.join("more.bin");
    std::fs::write(&more_points, &more).unwrap();
    for (path, want) in [
        (&longer, "longer than the"),
        (&more_points, "gives 536870912 points, more than 4"),
    ] {
        let out = softbody_small(
            &[
                &scene[..],
                &["--steps", "1", "--backend", "cpu", "--load-state", s(path)],
            ]
            .concat(),
        );
        assert_eq!(code(&out), 2);
        assert!(stderr(&out).contains(want), "{want:?} in {}", stderr(&out));
        assert!(stderr(&out).contains(s(path)), "{}", stderr(&out));
    }
}

/// A run that goes non-finite: `simulate` says so and writes no checkpoint
/// (no solver would restore it); `check` fails, naming the step.
#[test]
fn a_run_that_blows_up_is_reported() {
    let d = dir("blowup");
    // A spring that diverges on its own (2e6 N/m between 1 kg points:
    // k h^2 (1/m_a + 1/m_b) = 17, past 4) is refused before any step, as
    // bad input.
    let refused = d.join("refused.json");
    std::fs::write(
        &refused,
        r#"{"points": [{"pos": [0, 0]}, {"pos": [1, 0]}],
            "springs": [{"a": 0, "b": 1, "stiffness": 2000000}]}"#,
    )
    .unwrap();
    for backend in ["cpu", "gpu"] {
        if backend == "gpu" && common::gpu().is_none() {
            continue;
        }
        let out = softbody_log(
            &["simulate", "--scene", s(&refused), "--backend", backend],
            Some("off"),
        );
        assert_eq!(code(&out), 2, "{backend}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("spring 0 diverges"),
            "{}",
            stderr(&out)
        );
    }
    // `render` too (it exited 1, as if the GPU had failed).
    if cfg!(feature = "window") && common::gpu().is_some() {
        let png = d.join("refused.png");
        let out = softbody_log(
            &["render", "--scene", s(&refused), "--out", s(&png)],
            Some("off"),
        );
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        assert!(
            stderr(&out).contains("spring 0 diverges"),
            "{}",
            stderr(&out)
        );
        assert!(!png.exists());
    }
    // And `run`, before it opens a window (it exited 1).
    if cfg!(feature = "window") {
        let out = softbody_log(
            &["run", "--scene", s(&refused), "--frames", "1"],
            Some("off"),
        );
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        assert!(
            stderr(&out).contains("spring 0 diverges"),
            "{}",
            stderr(&out)
        );
    }
    // Three damped links along one line at a light point: each is stable,
    // but their damping fractions sum to 2.6 (docs/physics.md, "Stability
    // bounds"), and its velocity is multiplied by -1.6 every substep.
    let stiff = d.join("stiff.json");
    std::fs::write(
        &stiff,
        r#"{"params": {"gravity": [0, 0]},
            "points": [{"pos": [0, 0], "vel": [1, 0]}, {"pos": [1, 0], "mass": 1000},
                       {"pos": [-1, 0], "mass": 1000}, {"pos": [2, 0], "mass": 1000}],
            "springs": [{"a": 0, "b": 1, "stiffness": 1, "damping": 1000},
                        {"a": 0, "b": 2, "stiffness": 1, "damping": 1000},
                        {"a": 0, "b": 3, "stiffness": 1, "damping": 1000}]}"#,
    )
    .unwrap();
    // `simulate` fails (it exited 0 without --save-state), stopping at the
    // first report or trace point where the state is not finite (here the
    // report at step 20); the error names the step and the time.
    let run = |extra: &[&str]| {
        let mut args = vec!["simulate", "--scene", s(&stiff), "--steps", "60"];
        args.extend_from_slice(&["--backend", "cpu"]);
        args.extend_from_slice(extra);
        softbody_log(&args, Some("off"))
    };
    let out = run(&[]);
    assert_eq!(code(&out), 1);
    assert!(
        stdout(&out).contains("NON-FINITE STATE"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains(
            "the simulation diverged: the state is not finite (NaN or infinite) at step 20 (t = 0.333 s)"
        ),
        "{}",
        stderr(&out)
    );
    // With a trace every 5 steps it is found at step 15. The trace and the
    // state (nulls where not finite) are written there, for diagnosis; the
    // checkpoint is not (no solver would load it back), and it says so.
    let (ckpt, trace, state) = (d.join("c.bin"), d.join("t.csv"), d.join("s.json"));
    let out = run(&[
        "--trace",
        s(&trace),
        "--every",
        "5",
        "--out",
        s(&state),
        "--save-state",
        s(&ckpt),
    ]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("at step 15 (t = 0.250 s)"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("not writing --save-state"),
        "{}",
        stderr(&out)
    );
    assert!(!ckpt.exists());
    let rows = std::fs::read_to_string(&trace).unwrap();
    let last = rows.lines().last().unwrap();
    assert!(last.starts_with("15,") && last.contains("NaN"), "{rows}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(v["step"], 15);
    assert!(v["points"][0]["pos"][0].is_null());
    if common::gpu().is_none() {
        return;
    }
    let out = softbody_log(
        &["check", "--scene", s(&stiff), "--steps", "60"],
        Some("off"),
    );
    assert_eq!(code(&out), 1);
    assert!(
        stdout(&out).contains("FAILED: NON-FINITE STATE on the"),
        "{}",
        stdout(&out)
    );
    // `render` says the simulation diverged (exit 1); it said `point 0:
    // pos is not finite`, which reads like bad input.
    #[cfg(feature = "window")]
    {
        let png = d.join("x.png");
        let out = softbody_log(
            &[
                "render",
                "--scene",
                s(&stiff),
                "--steps",
                "60",
                "--out",
                s(&png),
            ],
            Some("off"),
        );
        assert_eq!(code(&out), 1);
        assert!(
            stderr(&out).contains(
                "the simulation diverged: the state is not finite (NaN or infinite) after 60 steps"
            ),
            "{}",
            stderr(&out)
        );
        assert!(!png.exists());
    }
}

/// `render` simulates a scene file headless and writes a PNG of it.
#[cfg(feature = "window")]
#[test]
fn render_writes_a_png_of_a_scene() {
    if common::gpu().is_none() {
        return;
    }
    let out_png = dir("render").join("boxes.png");
    let out = softbody(&[
        "render",
        "--scene",
        "scenes/boxes.json",
        "--steps",
        "10",
        "--size",
        "160x100",
        "--out",
        s(&out_png),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let bytes = std::fs::read(&out_png).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    // Width and height from the IHDR chunk.
    let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    assert_eq!((w, h), (160, 100));
    let bad = softbody(&["render", "--size", "0x10", "--out", s(&out_png)]);
    assert_eq!(code(&bad), 2, "{}", stderr(&bad));
}

/// A headless run on a machine without a desktop session prints no
/// "error" that is not one: Mesa's Vulkan device-selection layer would
/// otherwise probe for a Wayland display and libwayland print `error:
/// XDG_RUNTIME_DIR is invalid or not set` twice
/// (`softbody::gpu::quiet_display_probe`).
#[test]
fn a_headless_run_without_a_desktop_session_prints_no_error() {
    let Some(_) = common::gpu() else { return };
    let out = Command::new(env!("CARGO_BIN_EXE_softbody"))
        .args([
            "simulate",
            "--bodies",
            "16",
            "--steps",
            "2",
            "--backend",
            "gpu",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("NODEVICE_SELECT")
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs");
    show(
        &["simulate", "--backend", "gpu"],
        " (no XDG_RUNTIME_DIR)",
        &out,
    );
    assert_eq!(code(&out), 0);
    assert!(!stderr(&out).contains("error"), "{}", stderr(&out));
}
