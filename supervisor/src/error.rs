//! Why running a program failed ([`ProcessError`]): the supervisor's own
//! error, as ripgrep's process module has its `CommandError`. io-hooks'
//! `run` action fails with it, and an embedder's own commands get it from
//! [`run_argv`](crate::run_argv) and [`run_command`](crate::run_command).

use std::fmt;
use std::io;
use std::process::ExitStatus;
use std::time::Duration;

/// Why a program run by the supervisor failed. Its `Display` is written
/// for an operator, says the cause, and never quotes the program's input.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProcessError {
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
    /// The program exited with a non-zero status (on Windows, the exit
    /// code, which a crash makes an NTSTATUS such as `0xC0000005`, shown so).
    Exit {
        /// The status.
        code: i32,
    },
    /// The program was killed by a signal it did not get from us (Unix
    /// only: Windows has no signals, and a process ended by another reports
    /// the exit code it was given, as [`ProcessError::Exit`]).
    Signal {
        /// The signal's number.
        signal: i32,
    },
    /// The program was still running at its timeout, so its process group
    /// was killed (on Windows, its job object terminated).
    TimedOut {
        /// The timeout it was given (a hook's `timeout_ms`).
        timeout: Duration,
    },
    /// The program's exit status could not be collected (as when the host
    /// ignores `SIGCHLD`, which makes the kernel reap children unasked).
    Wait {
        /// The cause.
        cause: io::Error,
    },
    /// The host interrupted its children
    /// ([`Supervisor::interrupt`](crate::Supervisor::interrupt), or
    /// [`Supervisor::end_in_flight`](crate::Supervisor::end_in_flight) while
    /// it ran): the program's process group was killed, or, after the
    /// interrupt, it was not spawned.
    Interrupted,
}

impl fmt::Display for ProcessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProcessError::NotFound { program } => write!(
                f,
                "could not spawn `{program}`: not found in any absolute `PATH` entry"
            ),
            ProcessError::Spawn { program, cause } => {
                write!(f, "could not spawn `{program}`: {}", OsMessage(cause))
            }
            // Windows: a code with its top bit set is an NTSTATUS (a crash,
            // 0xC0000005), which reads as Microsoft writes it.
            #[cfg(windows)]
            ProcessError::Exit { code } if *code < 0 => {
                write!(f, "exited with status {:#010X}", code.cast_unsigned())
            }
            ProcessError::Exit { code } => write!(f, "exited with status {code}"),
            ProcessError::Signal { signal } => {
                write!(f, "was killed by signal {signal}")?;
                #[cfg(unix)]
                if let Some(name) = signal_name(*signal) {
                    write!(f, " ({name})")?;
                }
                Ok(())
            }
            ProcessError::TimedOut { timeout } => write!(
                f,
                "timed out after {} ms and was killed",
                timeout.as_millis()
            ),
            ProcessError::Wait { cause } => {
                write!(f, "could not collect its exit status: {}", OsMessage(cause))
            }
            ProcessError::Interrupted => {
                f.write_str("was interrupted, and its process group killed")
            }
        }
    }
}

/// An OS error as a message says it: std's text without its
/// " (os error N)", which says the same thing again as a number.
struct OsMessage<'a>(&'a io::Error);

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

/// Its `Display` states the cause (an OS error, without std's " (os error N)"), so
/// `source()` returns nothing: a chain printer shows each cause once. The
/// `io::Error` itself is the variant's `cause` field (not `source`, which
/// derive macros such as thiserror's would take for the chain's next link).
impl std::error::Error for ProcessError {}

/// What a run comes to, on every platform: killed by the interrupt, or
/// still running at it, is [`ProcessError::Interrupted`] (a clean exit that
/// beat the interrupt is a success still); still running at its deadline,
/// [`ProcessError::TimedOut`]; else its `status` read. The status a kill
/// gives (`SIGKILL`, or exit code 1 from a job's termination on Windows) is
/// never read as the child's own: `exited` and `interrupted` say who ended
/// it.
pub(crate) fn outcome(
    status: Result<ExitStatus, ProcessError>,
    exited: bool,
    interrupted: bool,
    timeout: Duration,
) -> Result<(), ProcessError> {
    if interrupted && !matches!(&status, Ok(s) if s.success()) {
        return Err(ProcessError::Interrupted);
    }
    if !exited {
        return Err(ProcessError::TimedOut { timeout });
    }
    let status = status?;
    match status.code() {
        Some(0) => return Ok(()),
        Some(code) => return Err(ProcessError::Exit { code }),
        None => {}
    }
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        return Err(ProcessError::Signal { signal });
    }
    Err(ProcessError::Exit { code: -1 })
}

/// The C name of signal number `signal` (`SIGKILL`), for the signals rustix
/// names; `None` for another number.
///
/// A `match` on rustix's constants, so a name never depends on how rustix
/// prints one; the arms with a `cfg` are the signals only some systems have.
/// (Windows has no signals: there a child never fails with
/// [`ProcessError::Signal`], and the variant prints its number alone.)
#[cfg(unix)]
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

#[cfg(all(test, unix))]
mod tests {
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
