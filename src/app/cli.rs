//! The window's and the PNG renderer's command-line flags, until the
//! clap CLI (issue 4) takes them over:
//!
//! ```text
//! softbody [--bodies N] [--frames N] [--size WxH] [--msaa 1|4] [--no-vsync] [--no-overlay] [--paused] [--report]
//! softbody render [--bodies N] [--frames N] [--size WxH] [--msaa 1|4] [--out frame.png]
//!                 [--view X,Y,PPM] [--springs] [--points] [--color body|speed]
//! ```
//!
//! `softbody` opens the window on the default scene (`--frames N`: exit
//! after N frames). `softbody render` simulates N steps (default 120)
//! headless and writes a PNG.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{AppOptions, run};
use crate::render::{Camera, ColorMode, RenderOptions, render_png};
use crate::scenes::default_scene;

/// Usage of the window and render flags.
pub const USAGE: &str = "usage: softbody [--bodies N] [--frames N] [--size WxH] [--msaa 1|4] [--no-vsync] [--no-overlay] [--paused] [--report]
       softbody render [--bodies N] [--frames N] [--size WxH] [--msaa 1|4] [--out PATH] [--view X,Y,PPM] [--springs] [--points] [--color body|speed]";

/// Window flags that take a value.
const WINDOW_FLAGS: &[&str] = &["--bodies", "--frames", "--size", "--msaa"];
/// Window flags without a value.
const WINDOW_SWITCHES: &[&str] = &["--no-vsync", "--no-overlay", "--paused", "--report"];

/// Runs the window or the renderer when the arguments ask for one of them;
/// `None` leaves them to the headless main program.
pub fn main(args: Vec<String>) -> Option<ExitCode> {
    let result = if args.first().is_some_and(|a| a == "render") {
        parse_render(&args[1..]).map(|(bodies, steps, size, out, opts)| {
            let world = default_scene(bodies).map_err(|e| e.to_string())?;
            println!(
                "rendering the default scene ({} bodies, {} points) after {steps} steps at {}x{} to {}",
                world.bodies().len(),
                world.points().len(),
                size.0,
                size.1,
                out.display()
            );
            render_png(&world, steps, size, &out, &opts).map_err(|e| e.to_string())
        })
    } else if is_window_command(&args) {
        parse_window(&args).map(|opts| run(opts).map_err(|e| e.to_string()))
    } else {
        return None;
    };
    Some(match result {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    })
}

/// No arguments, or only window flags.
fn is_window_command(args: &[String]) -> bool {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if WINDOW_FLAGS.contains(&a.as_str()) {
            it.next();
        } else if !WINDOW_SWITCHES.contains(&a.as_str()) {
            return false;
        }
    }
    true
}

fn value<T: std::str::FromStr>(flag: &str, v: Option<&String>) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    v.ok_or(format!("{flag} needs a value"))?
        .parse()
        .map_err(|e| format!("{flag}: {e}"))
}

fn size(flag: &str, v: Option<&String>) -> Result<(u32, u32), String> {
    let s: String = value(flag, v)?;
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or(format!("{flag}: expected WxH, got {s:?}"))?;
    Ok((
        value(flag, Some(&w.to_string()))?,
        value(flag, Some(&h.to_string()))?,
    ))
}

fn parse_window(args: &[String]) -> Result<AppOptions, String> {
    let mut opts = AppOptions::default();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--bodies" => opts.bodies = value(flag, it.next())?,
            "--frames" => opts.frames = Some(value(flag, it.next())?),
            "--size" => opts.size = size(flag, it.next())?,
            "--msaa" => opts.msaa = value(flag, it.next())?,
            "--no-vsync" => opts.vsync = false,
            "--no-overlay" => opts.overlay = false,
            "--paused" => opts.paused = true,
            "--report" => opts.report = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(opts)
}

type RenderArgs = (usize, u32, (u32, u32), PathBuf, RenderOptions);

fn parse_render(args: &[String]) -> Result<RenderArgs, String> {
    let mut bodies = AppOptions::default().bodies;
    let mut steps = 120;
    let mut size_px = (1280, 800);
    let mut out = PathBuf::from("frame.png");
    let mut opts = RenderOptions::default();
    opts.draw.springs = false;
    opts.draw.points = false;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--bodies" => bodies = value(flag, it.next())?,
            "--frames" | "--steps" => steps = value(flag, it.next())?,
            "--size" => size_px = size(flag, it.next())?,
            "--msaa" => opts.msaa = value(flag, it.next())?,
            "--out" => out = value(flag, it.next())?,
            "--view" => {
                // X,Y,PPM: the centre in metres and the zoom in pixels per metre.
                let v: String = value(flag, it.next())?;
                let n: Vec<f32> = v
                    .split(',')
                    .map(|x| x.trim().parse::<f32>())
                    .collect::<Result<_, _>>()
                    .map_err(|e| format!("--view: {e}"))?;
                let [x, y, ppm] = n[..] else {
                    return Err(format!("--view: expected X,Y,PPM, got {v:?}"));
                };
                opts.camera = Some(Camera {
                    center: glam::Vec2::new(x, y),
                    pixels_per_metre: ppm,
                });
            }
            "--springs" => opts.draw.springs = true,
            "--points" => opts.draw.points = true,
            "--color" => {
                opts.draw.color = match value::<String>(flag, it.next())?.as_str() {
                    "body" => ColorMode::Body,
                    "speed" => ColorMode::Speed,
                    other => return Err(format!("--color: expected body or speed, got {other:?}")),
                }
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok((bodies, steps, size_px, out, opts))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn window_flags_open_the_window_and_others_fall_through() {
        assert!(is_window_command(&args("")));
        assert!(is_window_command(&args(
            "--bodies 500 --frames 3 --no-vsync"
        )));
        assert!(!is_window_command(&args("--bodies 500 --steps 10")));
        assert!(!is_window_command(&args("--backend cpu")));
        let o = parse_window(&args("--bodies 500 --frames 3 --size 640x480")).unwrap();
        assert_eq!((o.bodies, o.frames, o.size), (500, Some(3), (640, 480)));
    }

    #[test]
    fn render_flags() {
        let (bodies, steps, size, out, opts) = parse_render(&args(
            "--frames 60 --out x.png --size 320x200 --springs --color speed",
        ))
        .unwrap();
        assert_eq!((bodies, steps, size), (20_000, 60, (320, 200)));
        assert_eq!(out, PathBuf::from("x.png"));
        assert!(opts.draw.springs && !opts.draw.points);
        assert_eq!(opts.draw.color, ColorMode::Speed);
        assert!(parse_render(&args("--size 320")).is_err());
        let (.., opts) = parse_render(&args("--view -14,16.5,40")).unwrap();
        let cam = opts.camera.unwrap();
        assert_eq!(
            (cam.center.x, cam.center.y, cam.pixels_per_metre),
            (-14.0, 16.5, 40.0)
        );
        assert!(parse_render(&args("--view 1,2")).is_err());
    }
}
