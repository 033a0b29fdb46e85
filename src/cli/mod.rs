//! The `io` commands. Each returns its exit code or an error message; `main`
//! prints the message on stderr.

pub(crate) mod check;
pub(crate) mod demo;
pub(crate) mod replay;
pub(crate) mod run;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use io_harness::{Config, HookRun, HookSpec, OnFailure};
use io_hooks::text::OsMessage;

/// A command's result: its exit code, or the one paragraph to print on
/// stderr before exiting 1.
pub(crate) type CmdResult = Result<ExitCode, String>;

/// Exit code of a run or replay a hook cancelled.
pub(crate) const EXIT_CANCELLED: u8 = 3;

/// Loads the config as `Config::discover` does, with the profile applied.
pub(crate) fn load(root: Option<&Path>, profile: Option<&str>) -> Result<Config, String> {
    let root = match root {
        Some(root) => root.to_path_buf(),
        None => std::env::current_dir()
            .map_err(|e| format!("cannot tell the current directory: {}", OsMessage(&e)))?,
    };
    let config = Config::discover(&root).map_err(|e| e.to_string())?;
    match profile {
        Some(name) => config.with_profile(name).map_err(|e| e.to_string()),
        None => Ok(config),
    }
}

/// One line saying what a hook does: its events, action, `on_failure`.
pub(crate) fn describe(spec: &HookSpec<io_harness::EventKind>, root: &Path) -> String {
    let on = if spec.on.is_all() {
        "every event".to_owned()
    } else {
        spec.on.tags().collect::<Vec<_>>().join(", ")
    };
    let action = spec.action.describe(root);
    // Spelled out for cancel; any other value reads as the table writes it.
    let on_failure = match spec.on_failure {
        OnFailure::Cancel => "cancel the run",
        other => other.as_str(),
    };
    format!("on {on}: {action}; on failure: {on_failure}")
}

/// `hook[2] ok (1.3 ms)` or `hook[2] FAILED: exited with status 1 (1.3 ms)`.
pub(crate) fn report(run: &HookRun<'_>) -> String {
    let ms = millis(run.elapsed);
    match run.result {
        Ok(()) => format!("hook[{}] ok ({ms})", run.number()),
        Err(failure) => format!("hook[{}] FAILED: {failure} ({ms})", run.number()),
    }
}

pub(crate) fn millis(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// Writes to stdout; a closed pipe (`io events | head`) is not an error.
/// Any other failure (a full disk, `/dev/full`) is returned, for the caller
/// to report on stderr through [`err`]: `print!` would panic instead.
pub(crate) fn out(text: &str) -> Result<(), String> {
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(format!("could not write to stdout: {}", OsMessage(&e))),
    }
}

/// Writes to stderr, ignoring any failure: there is nowhere left to report
/// one, and `eprint!` would panic (exit 101) on a full or closed stderr. Every
/// message `io` prints on stderr goes through here.
pub(crate) fn err(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// The directory `io run` keeps its journals in.
pub(crate) fn store_dir(root: &Path) -> PathBuf {
    root.join(".io").join("runs")
}

/// Sends `tracing` warnings (failed hooks, files that cannot be created) to
/// stderr, one line each, without timestamps: what an operator reads.
pub(crate) fn log_to_stderr() {
    let subscriber = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::WARN)
        .with_target(false)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .without_time()
        // On a failed write the subscriber would report it with
        // `eprintln!`, which panics on the same full or closed stderr.
        .log_internal_errors(false)
        .finish();
    // Only fails if one is set already, which leaves that one in place.
    let _ = tracing::subscriber::set_global_default(subscriber);
}
