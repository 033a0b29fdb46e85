//! Why a hook failed ([`HookFailure`]), and how an OS error reads in every
//! message ([`OsMessage`]): used by the process runner, every action and
//! [`Hooks`](crate::Hooks), and using none of them.

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::time::Duration;

/// Why a hook failed. Its `Display` is written for an operator, and never
/// includes the event.
#[derive(Debug)]
#[non_exhaustive]
pub enum HookFailure {
    /// The event could not be serialised as JSON. The hook fails, and its
    /// `on_failure` applies, like any other failure.
    ///
    /// serde's reason is kept: the event type's `Serialize` is the
    /// embedder's own code, so what its errors say is the embedder's choice,
    /// and serde_json's own reasons (`key must be a string`) never quote a
    /// value. Without it an operator cannot tell which field to fix.
    Serialize {
        /// The event's tag.
        event: &'static str,
        /// serde's reason.
        cause: String,
    },
    /// The `append` file could not be opened or written.
    Append {
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
    /// A bare program name is not an executable file in any absolute entry
    /// of `PATH` (relative entries, `.` and empty ones included, are never
    /// searched).
    NotFound {
        /// The program as written.
        program: String,
    },
    /// The program could not be spawned.
    Spawn {
        /// The program as written.
        program: String,
        /// The cause.
        cause: io::Error,
    },
    /// The program exited with a non-zero status.
    Exit {
        /// The status.
        code: i32,
    },
    /// The program was killed by a signal it did not get from us.
    Signal {
        /// The signal's number.
        signal: i32,
    },
    /// The program was still running at its timeout, so its process group
    /// was killed.
    TimedOut {
        /// The hook's `timeout_ms`.
        timeout: Duration,
    },
    /// The program's exit status could not be collected (as when the host
    /// ignores `SIGCHLD`, which makes the kernel reap children unasked).
    Wait {
        /// The cause.
        cause: io::Error,
    },
    /// The host interrupted its children
    /// ([`Interrupt::interrupt`](crate::Interrupt::interrupt)): the program's
    /// process group was killed, or, after the interrupt, it was not
    /// spawned.
    Interrupted,
    /// An action failed in a way of its own, which its module declares as
    /// a type of its own: an action added to the engine fails this way
    /// without an edit here. (`append`'s ways of failing are the variants
    /// `Append` and `ShortWrite`, and `run`'s those from `NotFound` on,
    /// which [`process`](crate::process) shares.) Its `Display` is the
    /// cause's, and `source()` the cause's own `source()`.
    Action {
        /// The action's key, as in `count`.
        action: &'static str,
        /// What went wrong, as the action's module says it; reach its type
        /// with `downcast_ref`.
        cause: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl HookFailure {
    /// An action's own failure: `cause`, of the action whose key is
    /// `action`.
    pub fn action(
        action: &'static str,
        cause: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        HookFailure::Action {
            action,
            cause: cause.into(),
        }
    }
}

impl fmt::Display for HookFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HookFailure::Serialize { event, cause } => {
                write!(
                    f,
                    "could not serialise the `{event}` event as JSON: {cause}"
                )
            }
            HookFailure::Append { path, cause } => {
                write!(
                    f,
                    "could not append to `{}`: {}",
                    path.display(),
                    OsMessage(cause)
                )
            }
            HookFailure::ShortWrite { path, written, len } => write!(
                f,
                "could not append to `{}`: wrote {written} of {len} bytes",
                path.display()
            ),
            HookFailure::NotFound { program } => write!(
                f,
                "could not spawn `{program}`: not found in any absolute `PATH` entry"
            ),
            HookFailure::Spawn { program, cause } => {
                write!(f, "could not spawn `{program}`: {}", OsMessage(cause))
            }
            HookFailure::Exit { code } => write!(f, "exited with status {code}"),
            HookFailure::Signal { signal } => {
                write!(f, "was killed by signal {signal}")?;
                if let Some(name) = signal_name(*signal) {
                    write!(f, " ({name})")?;
                }
                Ok(())
            }
            HookFailure::TimedOut { timeout } => write!(
                f,
                "timed out after {} ms and was killed",
                timeout.as_millis()
            ),
            HookFailure::Interrupted => {
                f.write_str("was interrupted, and its process group killed")
            }
            HookFailure::Action { cause, .. } => cause.fmt(f),
            HookFailure::Wait { cause } => {
                write!(f, "could not collect its exit status: {}", OsMessage(cause))
            }
        }
    }
}

/// Its `Display` states the cause (an OS error, through [`OsMessage`]), so
/// `source()` returns nothing: a chain printer shows each cause once. The
/// `io::Error` itself is the variant's `cause` field (not `source`, which
/// derive macros such as thiserror's would take for the chain's next link).
/// An action's own failure ([`HookFailure::Action`]) shows its cause, and
/// `source()` is the cause's next link.
impl std::error::Error for HookFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            HookFailure::Action { cause, .. } => cause.source(),
            _ => None,
        }
    }
}

/// An `io::Error` as an operator reads it: "Permission denied", without
/// std's " (os error 13)". Every message of this crate that quotes an OS
/// error writes it through this, and an embedder's own messages can too.
///
/// ```
/// use io_hooks::text::OsMessage;
/// let e = std::io::Error::from_raw_os_error(13);
/// assert_eq!(OsMessage(&e).to_string(), "Permission denied");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct OsMessage<'a>(pub &'a io::Error);

impl fmt::Display for OsMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.0.to_string();
        let text = match self.0.raw_os_error() {
            Some(code) => text
                .strip_suffix(&format!(" (os error {code})"))
                .map(str::to_owned)
                .unwrap_or(text),
            None => text,
        };
        f.write_str(&text)
    }
}

/// The C name of signal number `signal` (`SIGKILL`), for the signals rustix
/// names; `None` for another number.
///
/// A `match` on rustix's constants, so a name never depends on how rustix
/// prints one; the arms with a `cfg` are the signals only some systems have.
fn signal_name(signal: i32) -> Option<&'static str> {
    use rustix::process::Signal;
    let name = match Signal::from_named_raw(signal)? {
        Signal::HUP => "SIGHUP",
        Signal::INT => "SIGINT",
        Signal::QUIT => "SIGQUIT",
        Signal::ILL => "SIGILL",
        Signal::TRAP => "SIGTRAP",
        Signal::ABORT => "SIGABRT",
        Signal::BUS => "SIGBUS",
        Signal::FPE => "SIGFPE",
        Signal::KILL => "SIGKILL",
        Signal::USR1 => "SIGUSR1",
        Signal::SEGV => "SIGSEGV",
        Signal::USR2 => "SIGUSR2",
        Signal::PIPE => "SIGPIPE",
        Signal::ALARM => "SIGALRM",
        Signal::TERM => "SIGTERM",
        Signal::CHILD => "SIGCHLD",
        Signal::CONT => "SIGCONT",
        Signal::STOP => "SIGSTOP",
        Signal::TSTP => "SIGTSTP",
        Signal::TTIN => "SIGTTIN",
        Signal::TTOU => "SIGTTOU",
        Signal::URG => "SIGURG",
        Signal::XCPU => "SIGXCPU",
        Signal::XFSZ => "SIGXFSZ",
        Signal::VTALARM => "SIGVTALRM",
        Signal::PROF => "SIGPROF",
        Signal::WINCH => "SIGWINCH",
        Signal::IO => "SIGIO",
        Signal::SYS => "SIGSYS",
        #[cfg(all(
            any(target_os = "linux", target_os = "android"),
            not(any(
                target_arch = "mips",
                target_arch = "mips32r6",
                target_arch = "mips64",
                target_arch = "mips64r6",
                target_arch = "sparc",
                target_arch = "sparc64"
            ))
        ))]
        Signal::STKFLT => "SIGSTKFLT",
        #[cfg(any(
            target_os = "linux",
            target_os = "android",
            target_os = "illumos",
            target_os = "solaris"
        ))]
        Signal::POWER => "SIGPWR",
        #[cfg(any(
            target_os = "macos",
            target_os = "ios",
            target_os = "freebsd",
            target_os = "netbsd",
            target_os = "dragonfly"
        ))]
        Signal::INFO => "SIGINFO",
        #[cfg(any(
            target_os = "macos",
            target_os = "ios",
            target_os = "freebsd",
            target_os = "netbsd",
            target_os = "dragonfly",
            target_os = "illumos",
            target_os = "solaris"
        ))]
        Signal::EMT => "SIGEMT",
        // A signal rustix names on this system and this match does not.
        _ => return None,
    };
    Some(name)
}

#[cfg(test)]
mod signal_tests {
    use super::signal_name;

    /// The names come from rustix's constants, so they must be the C
    /// library's numbers on whatever system this runs.
    #[test]
    fn names_agree_with_the_c_library() {
        let names = [
            (libc::SIGHUP, "SIGHUP"),
            (libc::SIGINT, "SIGINT"),
            (libc::SIGQUIT, "SIGQUIT"),
            (libc::SIGILL, "SIGILL"),
            (libc::SIGTRAP, "SIGTRAP"),
            (libc::SIGABRT, "SIGABRT"),
            (libc::SIGBUS, "SIGBUS"),
            (libc::SIGFPE, "SIGFPE"),
            (libc::SIGKILL, "SIGKILL"),
            (libc::SIGUSR1, "SIGUSR1"),
            (libc::SIGSEGV, "SIGSEGV"),
            (libc::SIGUSR2, "SIGUSR2"),
            (libc::SIGPIPE, "SIGPIPE"),
            (libc::SIGALRM, "SIGALRM"),
            (libc::SIGTERM, "SIGTERM"),
            (libc::SIGCHLD, "SIGCHLD"),
            (libc::SIGCONT, "SIGCONT"),
            (libc::SIGSTOP, "SIGSTOP"),
            (libc::SIGTSTP, "SIGTSTP"),
            (libc::SIGTTIN, "SIGTTIN"),
            (libc::SIGTTOU, "SIGTTOU"),
            (libc::SIGURG, "SIGURG"),
            (libc::SIGXCPU, "SIGXCPU"),
            (libc::SIGXFSZ, "SIGXFSZ"),
            (libc::SIGVTALRM, "SIGVTALRM"),
            (libc::SIGPROF, "SIGPROF"),
            (libc::SIGWINCH, "SIGWINCH"),
            (libc::SIGIO, "SIGIO"),
            (libc::SIGSYS, "SIGSYS"),
        ];
        for (number, name) in names {
            assert_eq!(signal_name(number), Some(name), "signal {number}");
        }
        // The ones only Linux (of the systems the suite runs on) has.
        #[cfg(target_os = "linux")]
        {
            assert_eq!(signal_name(libc::SIGPWR), Some("SIGPWR"));
            assert_eq!(signal_name(libc::SIGSTKFLT), Some("SIGSTKFLT"));
        }
        assert_eq!(signal_name(0), None);
        assert_eq!(signal_name(64), None, "a real-time signal has no name");
    }

    /// Pins the dependency: a signal rustix starts to name on this system
    /// (and `signal_name` would print as a bare number) fails here, so the
    /// `match` grows with it.
    #[test]
    fn every_signal_rustix_names_has_a_name() {
        for number in 1..=64 {
            if rustix::process::Signal::from_named_raw(number).is_some() {
                assert!(signal_name(number).is_some(), "signal {number}");
            }
        }
    }
}
