//! The one way a config file, an `io run` script or a `.git` file is
//! opened: beneath its directory by [`io_beneath`]'s rules, and read
//! only when it is a regular file. A leaf: both the reader of config files
//! and the git call use it, and it uses neither.

use std::io;
use std::path::Path;

use io_beneath::{Links, Open, Root, Via};

/// The bytes of the regular file at `path`, or `None` once it holds more
/// than `limit`, and how it was reached: a config file's read, and an `io
/// run` script's.
///
/// The file is reached from its directory by [`io_beneath`]'s rules
/// ([`Links::Anywhere`]: a config file is the operator's to point
/// elsewhere), in one path walk, and judged on what was reached before it
/// is opened: only a regular file is read, or a directory (whose read names
/// it). A FIFO would block the read until someone writes to it, a link to a
/// device such as `/dev/zero` (a repository can commit one) would never
/// stop reading, and opening a device can act (a tape rewinds), so neither
/// is opened at all; nor is a file of the kernel's own file systems
/// (`/proc/self/environ` holds the environment's secrets).
pub(crate) fn read_regular(path: &Path, limit: u64) -> io::Result<(Option<Vec<u8>>, Via)> {
    let opened = open_regular(path)?;
    let via = opened.via();
    Ok((opened.read_bounded(limit)?, via))
}

/// Opens `path` for reading as [`read_regular`] does.
pub(super) fn open_regular(path: &Path) -> io::Result<io_beneath::Opened> {
    let (dir, name) = match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) if !dir.as_os_str().is_empty() => (dir, name),
        (_, Some(name)) => (Path::new("."), name),
        _ => (path, std::ffi::OsStr::new(".")),
    };
    let how = Open::read().links(Links::Anywhere);
    Root::open(dir)?.open_file(name, &how).map_err(|e| match e {
        io_beneath::Error::Io(e) => e,
        io_beneath::Error::NotRegular { .. } => io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a FIFO, a socket or a device), so it is not read",
        ),
        io_beneath::Error::Kernel { fs } => io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "a file of the kernel's {fs} file system (as under /proc or /sys), whose \
                     reads can block or hold secrets, so it is not read"
            ),
        ),
        other => io::Error::new(io::ErrorKind::InvalidInput, other.to_string()),
    })
}
