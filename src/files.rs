//! Writing files safely, for checkpoints and the program's outputs:
//! atomically (a crash leaves the old file or the new one, never half),
//! through symbolic links, in place into FIFOs and devices, and checked for
//! writability before a run rather than after it.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically: to a temporary file next to it,
/// synced, then renamed over it, so that `path` holds either its old
/// contents or all of the new ones (checkpoints, and the program's state
/// files).
///
/// A symbolic link is written through: the file it points to is replaced
/// (atomically, in that file's directory) and the link stays a link; a
/// dangling link creates the file it points to, as the shell's `>` would
/// ([`resolve_links`]). A path that exists and is not a regular file (a
/// FIFO, a character device such as `/dev/stdout`) is written in place,
/// not replaced by a regular file: the bytes go to its reader or device.
/// The temporary file has a short name of its own
/// (`.softbody-{pid}-{n}.tmp`), so any valid file name can be written.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let path = resolve_links(path)?;
    if let Ok(m) = std::fs::metadata(&path)
        && !m.is_file()
        && !m.is_dir()
    {
        let mut f = std::fs::OpenOptions::new().write(true).open(&path)?;
        return f.write_all(bytes);
    }
    let dir = dir_of(&path);
    let (tmp, mut f) = new_file(dir, "tmp")?;
    let result = (|| {
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, &path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    // Make the rename itself durable where directories can be synced.
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Checks, up front and leaving everything as it was, that
/// [`write_atomically`] (or a plain create) can write `path`: its
/// directory accepts a new file (one is created and removed again), and an
/// existing regular file can be opened for writing. A path that exists and
/// is not a regular file is written in place and is not opened here
/// (opening a FIFO waits for a reader). Symbolic links are followed
/// ([`resolve_links`]).
pub fn check_writable(path: &Path) -> std::io::Result<()> {
    let path = resolve_links(path)?;
    match std::fs::metadata(&path) {
        Ok(m) if m.is_dir() => {
            return Err(std::io::Error::other("is a directory"));
        }
        Ok(m) if !m.is_file() => return Ok(()),
        Ok(_) => {
            std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .map_err(|e| explain(e, "it cannot be opened for writing".into()))?;
        }
        Err(_) => {}
    }
    let dir = dir_of(&path);
    let (probe, f) = new_file(dir, "probe").map_err(|e| {
        explain(
            e,
            format!("directory {} does not accept a new file", dir.display()),
        )
    })?;
    drop(f);
    std::fs::remove_file(probe)
}

/// `e` with what it means said first.
fn explain(e: std::io::Error, what: String) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("{what}: {e}"))
}

/// `path` with the symbolic links of its last component followed, as far
/// as they go: the file that [`write_atomically`] writes. A relative link
/// is taken from the link's own directory; a dangling link gives the path
/// it points to. Fails after 40 links (a loop). A path that is not a link
/// comes back as it is.
pub fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(path),
        }
    }
    Err(std::io::Error::other(format!(
        "{}: more than 40 symbolic links (a loop?)",
        path.display()
    )))
}

/// The directory a file is in (`.` for a bare name).
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// A new file in `dir` with a short name of this process's,
/// `.softbody-{pid}-{n}.{ext}`, created exclusively.
fn new_file(dir: &Path, ext: &str) -> std::io::Result<(PathBuf, std::fs::File)> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut tries = 0;
    loop {
        tries += 1;
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(".softbody-{}-{n}.{ext}", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => return Ok((path, f)),
            // Left by an earlier process of the same id.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 100 => {}
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{check_writable, write_atomically};
    use std::path::PathBuf;

    /// A fresh directory for one test's files.
    pub(crate) fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("softbody-files-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    pub(crate) fn names(dir: &std::path::Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// A link is written through, and stays a link: a `rename` onto it
    /// would replace the link itself with a regular file, leaving its
    /// target as it was.
    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_written_through() {
        use std::os::unix::fs::symlink;
        let d = scratch("links");
        std::fs::create_dir(d.join("sub")).unwrap();
        let target = d.join("target.json");
        std::fs::write(&target, "old").unwrap();
        symlink(&target, d.join("abs.json")).unwrap();
        // Relative to the link's own directory, through a link to a link.
        symlink("../target.json", d.join("sub/rel.json")).unwrap();
        symlink("rel.json", d.join("sub/relrel.json")).unwrap();
        for (link, text) in [("abs.json", "one"), ("sub/relrel.json", "two")] {
            write_atomically(&d.join(link), text.as_bytes()).unwrap();
            assert_eq!(std::fs::read_to_string(&target).unwrap(), text);
            let m = std::fs::symlink_metadata(d.join(link)).unwrap();
            assert!(m.file_type().is_symlink(), "{link} is still a link");
        }
        // A dangling link creates its target, as the shell's `>` does.
        symlink("new.json", d.join("dangling.json")).unwrap();
        write_atomically(&d.join("dangling.json"), b"three").unwrap();
        assert_eq!(std::fs::read(d.join("new.json")).unwrap(), b"three");
        assert!(
            std::fs::symlink_metadata(d.join("dangling.json"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        // A loop is an error, not a hang.
        symlink("loop.json", d.join("loop.json")).unwrap();
        let e = write_atomically(&d.join("loop.json"), b"x").unwrap_err();
        assert!(e.to_string().contains("symbolic links"), "{e}");
        assert_eq!(
            names(&d),
            [
                "abs.json",
                "dangling.json",
                "loop.json",
                "new.json",
                "sub",
                "target.json"
            ]
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    /// A FIFO is written in place: a `rename` onto it would replace it
    /// with a regular file, and its reader would get nothing.
    #[cfg(unix)]
    #[test]
    fn a_fifo_is_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        let d = scratch("fifo");
        let fifo = d.join("fifo");
        match std::process::Command::new("mkfifo").arg(&fifo).status() {
            Ok(s) if s.success() => {}
            _ => {
                eprintln!("SKIPPED: mkfifo is not available");
                return;
            }
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        write_atomically(&fifo, b"through the pipe").unwrap();
        let is_fifo = std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo();
        assert!(is_fifo, "still a FIFO");
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        let _ = std::fs::remove_dir_all(&d);
    }

    /// The up-front check changes nothing, refuses a directory that takes
    /// no new file, and does not open a FIFO (which would wait for a
    /// reader).
    #[cfg(unix)]
    #[test]
    fn check_writable_proves_a_write_and_leaves_everything_as_it_was() {
        let d = scratch("writable");
        let file = d.join("file.json");
        std::fs::write(&file, "keep").unwrap();
        check_writable(&file).unwrap();
        check_writable(&d.join("new.json")).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"keep");
        assert_eq!(names(&d), ["file.json"]);
        assert!(check_writable(&d).is_err(), "a directory");
        if std::path::Path::new("/proc/self").exists() {
            let e = check_writable("/proc/softbody.json".as_ref()).unwrap_err();
            assert!(
                e.to_string().contains("directory /proc does not accept"),
                "{e}"
            );
        }
        let fifo = d.join("fifo");
        if std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success())
        {
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || tx.send(check_writable(&fifo).is_ok()));
            let ok = rx.recv_timeout(std::time::Duration::from_secs(10));
            assert_eq!(ok, Ok(true), "returns at once, without a reader");
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    /// A file name of 250 bytes is valid (the limit is 255), and is written
    /// atomically: the temporary file is not named after it, as
    /// `.{name}.tmp{pid}` would be past the limit.
    #[test]
    fn any_valid_file_name_is_written_atomically() {
        let d = scratch("long_name");
        let name = "a".repeat(250);
        let path = d.join(&name);
        write_atomically(&path, b"one").unwrap();
        write_atomically(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(names(&d), [name], "no temporary file is left");
        let _ = std::fs::remove_dir_all(&d);
    }
}
