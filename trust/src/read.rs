//! The one way this crate opens a file by path: through io-beneath, from
//! the file's directory, judged before it is read (a FIFO is never waited
//! on, a device never opened, a file of `/proc` never read).

use std::io;
use std::path::Path;

use io_beneath::{Links, Open, Opened, Root};

/// Opens `path` for reading, from its directory, a link on the way treated
/// as `links` says.
pub(crate) fn open(path: &Path, links: Links) -> io::Result<Opened> {
    let (dir, name) = match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) if !dir.as_os_str().is_empty() => (dir, name),
        (_, Some(name)) => (Path::new("."), name),
        _ => (path, std::ffi::OsStr::new(".")),
    };
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
