//! A command's result, and the exit codes `io --help` lists beside 0 and
//! 1: what every command returns to `main`.

use std::process::ExitCode;

/// A command's result: its exit code, or the one paragraph to print on
/// stderr before exiting 1.
pub(crate) type CmdResult = Result<ExitCode, String>;

/// Exit code of a run or replay a hook cancelled.
pub(crate) const EXIT_CANCELLED: u8 = 3;

/// Exit code of a usage error, as clap exits on one.
pub(crate) const EXIT_USAGE: u8 = 2;
