//! How an append fails ([`AppendFailure`]): the `append` action's own
//! failure, carried by [`HookFailure::Action`](crate::HookFailure::Action).

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::message::OsMessage;

/// Why an `append` hook failed, as its module says it. A hook's failure
/// carries it as [`HookFailure::Action`](crate::HookFailure::Action) with
/// `action` `"append"`; reach it with `downcast_ref`:
///
/// ```
/// use io_hooks::{Action, AppendFailure, HookFailure, HookFilter, HookSpec, Hooks};
/// # #[derive(io_hooks::HookEvents, serde::Serialize)]
/// # #[serde(tag = "event")]
/// # enum Ev { #[serde(rename = "job_started")] JobStarted }
/// let dir = tempfile::tempdir()?;
/// let log = dir.path().join("no/such/dir/log");
/// let hooks = Hooks::new(vec![HookSpec::new(HookFilter::<Ev>::ALL, Action::append(&log))], dir.path());
/// hooks.fire_with(&Ev::JobStarted, &Ev::JobStarted, |run| {
///     let Err(HookFailure::Action { cause, .. }) = run.result else { panic!("{:?}", run.result) };
///     assert!(matches!(cause.downcast_ref::<AppendFailure>(), Some(AppendFailure::Io { path, .. }) if *path == log));
/// });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum AppendFailure {
    /// The file could not be opened or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: io::Error,
    },
    /// The one `write` of the line wrote only part of it (a full disk, a
    /// file size limit, a FIFO's full buffer). The part was cut back off
    /// when nothing had been written after it, and ended with a newline
    /// otherwise, so the next event starts on a line of its own.
    ShortWrite {
        /// The file.
        path: PathBuf,
        /// The bytes written.
        written: usize,
        /// The bytes in the line.
        len: usize,
    },
}

impl fmt::Display for AppendFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppendFailure::Io { path, cause } => write!(
                f,
                "could not append to `{}`: {}",
                path.display(),
                OsMessage(cause)
            ),
            AppendFailure::ShortWrite { path, written, len } => write!(
                f,
                "could not append to `{}`: wrote {written} of {len} bytes",
                path.display()
            ),
        }
    }
}

/// Its `Display` states the cause (an OS error, without std's " (os error N)"), so
/// `source()` returns nothing, as for every error of the crate.
impl std::error::Error for AppendFailure {}
