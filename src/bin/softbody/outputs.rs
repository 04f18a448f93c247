//! Output files: checked before a run (writable, distinct, not an input),
//! and the state and trace writers.

use super::*;

/// Refuses an output path that cannot be written, before a run spends its
/// time: a directory, a file in a directory that does not exist or does
/// not accept a new file (proved by creating and removing one: a
/// read-only directory, `/proc`), or an existing file that cannot be
/// opened for writing. (The state and checkpoint are written after the
/// run: a bad path found only then would lose them.) Symbolic links are
/// followed, as the writes follow them.
pub(crate) fn check_output(option: &str, path: &Path) -> Result<()> {
    let bad = |why: String| {
        Err(CliError::Input(format!(
            "{option} {}: {why}",
            path.display()
        )))
    };
    if path.is_dir() {
        return bad("is a directory".into());
    }
    if path.file_name().is_none() {
        return bad("is not a file name".into());
    }
    let target = match softbody::files::resolve_links(path) {
        Ok(t) => t,
        Err(e) => return bad(e.to_string()),
    };
    let via = if target == path {
        String::new()
    } else {
        format!(" (it links to {})", target.display())
    };
    match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => {
            bad(format!("directory {} does not exist{via}", dir.display()))
        }
        _ => softbody::files::check_writable(&target).or_else(|e| bad(format!("{e}{via}"))),
    }
}

/// Refuses, before any work, an output that names the same file as
/// another output (one would replace the other: `--trace x --out x` lost
/// the trace) or as an input (`--scene p.json --out p.json` replaced the
/// scene). Existing character devices (`/dev/null`, a terminal) are
/// written in place and can take several outputs.
pub(crate) fn check_distinct(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<()> {
    let show = |(option, path): (&str, &Path)| format!("{option} {}", path.display());
    for (i, &a) in outputs.iter().enumerate() {
        for &b in &outputs[i + 1..] {
            if same_file(a.1, b.1) {
                return Err(CliError::Input(format!(
                    "{} and {} name the same file: one output would replace the other",
                    show(a),
                    show(b)
                )));
            }
        }
        for &b in inputs {
            if same_file(a.1, b.1) {
                return Err(CliError::Input(format!(
                    "{} names the same file as {}: the output would replace the input",
                    show(a),
                    show(b)
                )));
            }
        }
    }
    Ok(())
}

/// The options of `list` that were given, with their paths.
pub(crate) fn given<'a>(list: &[(&'a str, &'a Option<PathBuf>)]) -> Vec<(&'a str, &'a Path)> {
    list.iter()
        .filter_map(|&(option, path)| Some((option, path.as_deref()?)))
        .collect()
}

/// Whether two paths name one file that writing would replace or
/// truncate: the same device and inode where both exist (hard and
/// symbolic links, any spelling; not for a character device), else the
/// same canonical path, links followed (a file that does not exist yet,
/// spelled `./a.json` and `dir/../a.json`, or reached through a dangling
/// link).
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        if let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return ma.dev() == mb.dev()
                && ma.ino() == mb.ino()
                && !ma.file_type().is_char_device();
        }
    }
    match (canonical(a), canonical(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// `path` absolute, with its links and its `.` and `..` resolved, also
/// for a file that does not exist yet (its directory resolved, the name
/// kept); `None` where even the directory cannot be resolved.
pub(crate) fn canonical(path: &Path) -> Option<PathBuf> {
    let path = softbody::files::resolve_links(path).ok()?;
    if let Ok(c) = std::fs::canonicalize(&path) {
        return Some(c);
    }
    let name = path.file_name()?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(dir).ok()?.join(name))
}

pub(crate) fn create(path: &Path) -> Result<std::io::BufWriter<std::fs::File>> {
    std::fs::File::create(path)
        .map(std::io::BufWriter::new)
        .map_err(|e| failed(format!("cannot write {}: {e}", path.display())))
}

pub(crate) fn io_failed(path: &Path) -> impl Fn(std::io::Error) -> CliError + '_ {
    move |e| failed(format!("writing {}: {e}", path.display()))
}

/// An f32 written exactly: the shortest decimal that reads back as the
/// same f32 (`null` for NaN and infinities, which JSON lacks).
pub(crate) fn json_f32(x: f32) -> String {
    serde_json::to_string(&x).unwrap_or_else(|_| "null".into())
}

pub(crate) fn json_v2(v: [f32; 2]) -> String {
    format!("[{}, {}]", json_f32(v[0]), json_f32(v[1]))
}

/// `{"time", "step", "points": [{"pos", "vel"}], "bodies": [{"centroid", "angle"}]}`,
/// one point or body per line.
pub(crate) fn write_state(
    path: &Path,
    time: f64,
    step: u64,
    packed: &Packed,
    pos: &[[f32; 2]],
    vel: &[[f32; 2]],
) -> Result<()> {
    let frames = body_frames(packed, pos, vel).map_err(failed)?;
    let mut s = String::with_capacity(64 * (pos.len() + frames.len()) + 64);
    let _ = write!(
        s,
        "{{\n\"time\": {},\n\"step\": {step},\n\"points\": [",
        serde_json::to_string(&time).unwrap_or_else(|_| "null".into())
    );
    for (i, (p, v)) in pos.iter().zip(vel).enumerate() {
        let sep = if i == 0 { "\n" } else { ",\n" };
        let _ = write!(
            s,
            "{sep}{{\"pos\": {}, \"vel\": {}}}",
            json_v2(*p),
            json_v2(*v)
        );
    }
    s.push_str("\n],\n\"bodies\": [");
    for (i, f) in frames.iter().enumerate() {
        let sep = if i == 0 { "\n" } else { ",\n" };
        let _ = write!(
            s,
            "{sep}{{\"centroid\": {}, \"angle\": {}}}",
            json_v2(f.centroid),
            json_f32(frame_angle(f))
        );
    }
    s.push_str("\n]\n}\n");
    softbody::files::write_atomically(path, s.as_bytes()).map_err(io_failed(path))
}

/// `x` with `decimals` decimals, or in exponent notation where that would
/// not fit in `width` characters (a blown-up state's energy would otherwise
/// print all of its 70-odd digits).
pub(crate) fn column(x: f64, width: usize, decimals: usize) -> String {
    let fixed = format!("{x:.decimals$}");
    if fixed.len() <= width || !x.is_finite() {
        fixed
    } else {
        format!("{x:.3e}")
    }
}

pub(crate) const TRACE_HEADER: &str =
    "step,time,kinetic_energy,potential_energy,momentum_x,momentum_y,angular_momentum,max_speed";

pub(crate) fn trace_row(step: u64, time: f64, t: &softbody::diagnostics::Totals) -> String {
    format!(
        "{step},{time},{},{},{},{},{},{}",
        t.kinetic, t.potential, t.momentum[0], t.momentum[1], t.angular_momentum, t.max_speed
    )
}

#[cfg(test)]
mod tests {
    use super::column;

    #[test]
    fn summary_columns_switch_to_exponents_only_when_too_wide() {
        assert_eq!(column(95171.63, 12, 1), "95171.6");
        assert_eq!(column(-0.004, 7, 2), "-0.00");
        assert_eq!(column(1234.5, 7, 2), "1234.50");
        assert_eq!(column(12345.5, 7, 2), "1.235e4");
        assert_eq!(column(4.5e76, 12, 1), "4.500e76");
        assert_eq!(column(f64::NAN, 7, 2), "NaN");
        assert_eq!(column(f64::INFINITY, 7, 2), "inf");
    }
}
