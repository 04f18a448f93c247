//! An X display for the window tests: `DISPLAY` as it is, or an `Xvfb`
//! started for the test (and stopped afterwards). Without `Xvfb` a window
//! test is skipped with a message, except under `CI=true`, where that is a
//! failure (CI installs `xvfb`, see `.ci/run`). A process opens one window
//! at most (winit makes one event loop per process), so each window test
//! has a test file of its own.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// An `Xvfb` this test started; stopped when dropped.
pub struct Xvfb(Child);

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `Xvfb` on a free display and points `DISPLAY` at it; `None` when
/// there is no `Xvfb` to run.
pub fn start_xvfb() -> Option<Xvfb> {
    let n = (90..200).find(|n| {
        !Path::new(&format!("/tmp/.X{n}-lock")).exists()
            && !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
    })?;
    let child = Command::new("Xvfb")
        .args([
            &format!(":{n}"),
            "-screen",
            "0",
            "1024x768x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let xvfb = Xvfb(child);
    let socket = format!("/tmp/.X11-unix/X{n}");
    let start = Instant::now();
    while !Path::new(&socket).exists() {
        if start.elapsed() > Duration::from_secs(20) {
            panic!("Xvfb :{n} did not come up within 20 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: each window test's file holds a single test that starts a
    // display, so no other thread of its process reads or writes the
    // environment while we do.
    unsafe {
        std::env::set_var("DISPLAY", format!(":{n}"));
        std::env::remove_var("WAYLAND_DISPLAY");
    }
    eprintln!("started Xvfb on :{n}");
    Some(xvfb)
}

/// A display for a window test: `Some(None)` with `DISPLAY` set,
/// `Some(Some(xvfb))` with an `Xvfb` started, `None` (after a message)
/// when the test is to be skipped; panics under `CI=true` without one.
pub fn display() -> Option<Option<Xvfb>> {
    if std::env::var_os("DISPLAY").is_some() {
        return Some(None);
    }
    match start_xvfb() {
        Some(x) => Some(Some(x)),
        None if in_ci() => {
            panic!("CI=true but DISPLAY is unset and Xvfb could not be started; install xvfb")
        }
        None => {
            eprintln!("SKIPPED: DISPLAY is unset and there is no Xvfb (apt-get install xvfb)");
            None
        }
    }
}
