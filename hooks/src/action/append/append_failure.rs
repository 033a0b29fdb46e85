//! How an append fails ([`AppendFailure`]): the `append` action's own
//! failure, carried by [`HookFailure::Action`](crate::HookFailure::Action).

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::message::os_error;

/// Why an `append` hook failed, as its module says it. A hook's failure
/// carries it as [`HookFailure::Action`](crate::HookFailure::Action) with
/// `action` `"append"`, whose message is this one's.
#[derive(Debug)]
#[non_exhaustive]
pub(crate) enum AppendFailure {
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
                os_error(cause)
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

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;
    use crate::hook_failure::HookFailure;

    /// Access denied: `EACCES`, or Windows' `ERROR_ACCESS_DENIED`.
    const DENIED: i32 = if cfg!(windows) { 5 } else { 13 };

    /// As every failure of the crate: an OS cause is said once, in the
    /// operator's words, and `source()` gives nothing, so a chain printer
    /// never says it twice.
    #[test]
    fn a_failure_with_an_os_cause_says_it_once_in_its_message_and_has_no_source() {
        let io = HookFailure::action(
            "append",
            AppendFailure::Io {
                path: PathBuf::from("log"),
                cause: io::Error::from_raw_os_error(DENIED),
            },
        );
        assert!(io.source().is_none(), "{io:?}");
        let text = io.to_string();
        let said = io::Error::from_raw_os_error(DENIED).to_string();
        let said = said.strip_suffix(&format!(" (os error {DENIED})")).unwrap();
        assert_eq!(text, format!("could not append to `log`: {said}"));
        #[cfg(unix)]
        assert_eq!(text, "could not append to `log`: Permission denied");
        let short = HookFailure::action(
            "append",
            AppendFailure::ShortWrite {
                path: PathBuf::from("log"),
                written: 1,
                len: 2,
            },
        );
        assert!(short.source().is_none(), "{short:?}");
        assert_eq!(
            short.to_string(),
            "could not append to `log`: wrote 1 of 2 bytes"
        );
    }
}
