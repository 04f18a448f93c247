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

/// An `Xvfb` this test started on display `:n`; stopped when dropped.
pub struct Xvfb(Child, u32);

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
        // Killed, it leaves its lock and socket behind.
        remove_display_files(self.1);
    }
}

fn remove_display_files(n: u32) {
    let _ = std::fs::remove_file(format!("/tmp/.X{n}-lock"));
    let _ = std::fs::remove_file(format!("/tmp/.X11-unix/X{n}"));
}

/// Whether display `:n` is free: no lock, or a lock whose process is gone
/// (whose files are then removed).
fn display_free(n: u32) -> bool {
    let lock = format!("/tmp/.X{n}-lock");
    match std::fs::read_to_string(&lock) {
        Ok(text) => {
            let alive = text
                .trim()
                .parse::<u32>()
                .is_ok_and(|pid| Path::new(&format!("/proc/{pid}")).exists());
            if alive {
                return false;
            }
            remove_display_files(n);
            true
        }
        Err(_) => !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists(),
    }
}

/// Starts `Xvfb` on a free display and points `DISPLAY` at it; `None` when
/// there is no `Xvfb` to run or no free display.
pub fn start_xvfb() -> Option<Xvfb> {
    let n = (90..200).find(|&n| display_free(n))?;
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
    let xvfb = Xvfb(child, n);
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
