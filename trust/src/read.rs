//! The one way this crate opens a file by path: through io-beneath, from
//! the file's directory, judged before it is read (a FIFO is never waited
//! on, a device never opened, a file of `/proc` never read).

use std::ffi::OsStr;
use std::io;
use std::path::Path;

use io_beneath::{Links, Open, Opened, Root};

/// `path`'s directory and name: `.` for a bare name's directory, and `.`
/// as the name of a path that has none (`/`, `a/..`).
pub(crate) fn split(path: &Path) -> (&Path, &OsStr) {
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) if !dir.as_os_str().is_empty() => (dir, name),
        (_, Some(name)) => (Path::new("."), name),
        _ => (path, OsStr::new(".")),
    }
}

/// Opens `path` for reading, from its directory, a link on the way treated
/// as `links` says.
pub(crate) fn open(path: &Path, links: Links) -> io::Result<Opened> {
    let (dir, name) = split(path);
    Root::open(dir)?
        .open_file(name, &Open::read().links(links))
        .map_err(words)
}

/// The whole of the regular file at `path`, or `None` once it holds more
/// than `limit` bytes; a link may lead anywhere.
pub(crate) fn read_bounded(path: &Path, limit: u64) -> io::Result<Option<Vec<u8>>> {
    open(path, Links::Anywhere)?.read_bounded(limit)
}

/// io-beneath's refusal as an `io::Error` whose text says it.
fn words(error: io_beneath::Error) -> io::Error {
    match error {
        io_beneath::Error::Io(e) => e,
        io_beneath::Error::NotRegular { .. } => io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a FIFO, a socket or a device), so it is not read",
        ),
        io_beneath::Error::Kernel { fs } => io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("a file of the kernel's {fs} file system, so it is not read"),
        ),
        other => io::Error::new(io::ErrorKind::InvalidInput, other.to_string()),
    }
}

/// An OS error's text without std's " (os error N)".
pub(crate) fn os_error(error: &io::Error) -> String {
    let text = error.to_string();
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_owned(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_splits_into_its_directory_and_its_name() {
        let parts = |p: &'static str| {
            let (dir, name) = split(Path::new(p));
            (dir.to_str().unwrap(), name.to_str().unwrap())
        };
        assert_eq!(parts("/a/b/x"), ("/a/b", "x"));
        assert_eq!(parts("/x"), ("/", "x"));
        assert_eq!(parts("x"), (".", "x"));
        assert_eq!(parts("a/x"), ("a", "x"));
        assert_eq!(parts("/"), ("/", "."));
        assert_eq!(parts("a/.."), ("a/..", "."));
    }

    #[test]
    #[cfg(unix)] // Windows words its errors its own way.
    fn an_os_error_reads_without_its_number() {
        let e = io::Error::from_raw_os_error(2);
        assert_eq!(os_error(&e), "No such file or directory");
        assert_eq!(
            os_error(&io::Error::other("plain (os error 2) x")),
            "plain (os error 2) x"
        );
    }
}
