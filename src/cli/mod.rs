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

use io_harness::{Config, ConfigError, EventKind, HookRun, HookSpec, Hooks, OnFailure};
use io_hooks::text::OsMessage;

/// A command's result: its exit code, or the one paragraph to print on
/// stderr before exiting 1.
pub(crate) type CmdResult = Result<ExitCode, String>;

/// Exit code of a run or replay a hook cancelled.
pub(crate) const EXIT_CANCELLED: u8 = 3;

/// Exit code of a usage error, as clap exits on one.
pub(crate) const EXIT_USAGE: u8 = 2;

/// How much of a failed hook's stderr `--stderr` shows: its last 4 KiB.
pub(crate) const STDERR_TAIL: usize = 4096;

/// Loads the config as `Config::discover` does, with the profile applied.
pub(crate) fn load(root: Option<&Path>, profile: Option<&str>) -> Result<Config, String> {
    let root = match root {
        Some(root) => root.to_path_buf(),
        None => std::env::current_dir()
            .map_err(|e| format!("cannot tell the current directory: {}", OsMessage(&e)))?,
    };
    let config = Config::discover(&root).map_err(|e| with_source_line(&e))?;
    match profile {
        Some(name) => config.with_profile(name).map_err(|e| e.to_string()),
        None => Ok(config),
    }
}

/// A config error's message, then, when it has a position in a file that
/// may be shown, the line it points into (cut around the column, and
/// [`safe`]) with a caret under the column, as toml's own errors show it.
/// The first line is the message alone, unchanged. The line comes from the
/// text that was parsed, never from reading the file again.
fn with_source_line(error: &ConfigError) -> String {
    let message = error.to_string();
    let Some(source) = error.source_line() else {
        return message;
    };
    let number = source.line.to_string();
    let gutter = " ".repeat(number.len());
    // The caret goes under the column as printed: a tab stays a tab, and
    // an escaped character takes as many columns as its escape.
    let pad: String = source
        .text
        .chars()
        .take(source.caret)
        .map(|c| match c {
            '\t' => "\t".to_owned(),
            c => " ".repeat(safe(c.encode_utf8(&mut [0; 4])).chars().count()),
        })
        .collect();
    format!(
        "{message}\n {gutter} |\n {number} | {}\n {gutter} | {pad}^",
        safe(&source.text)
    )
}

/// One line saying what a hook does: its events, action, `on_failure`.
pub(crate) fn describe(spec: &HookSpec<EventKind>, root: &Path) -> String {
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

/// `hook[2] ok (1.3 ms)` or `hook[2] FAILED: exited with status 1 (1.3 ms)`;
/// `number` is the hook's `N` in the config.
pub(crate) fn report(run: &HookRun<'_>, number: usize) -> String {
    let ms = millis(run.elapsed);
    match run.result {
        Ok(()) => format!("hook[{number}] ok ({ms})"),
        Err(failure) => format!("hook[{number}] FAILED: {failure} ({ms})"),
    }
}

/// The hooks a command runs: all of the config's, or those `--hook` chose,
/// each remembering its number in the config.
pub(crate) struct Selection {
    /// The chosen hooks, in the order written.
    pub(crate) specs: Vec<HookSpec<EventKind>>,
    /// `hook[N]`'s `N` for each of `specs`.
    numbers: Vec<usize>,
}

impl Selection {
    /// All of `all` when `wanted` is empty, else the hooks numbered `wanted`
    /// (from 1, as `hook[N]`); an error names a number out of range and the
    /// valid range.
    pub(crate) fn new(all: &[HookSpec<EventKind>], wanted: &[usize]) -> Result<Self, String> {
        if wanted.is_empty() {
            return Ok(Selection {
                specs: all.to_vec(),
                numbers: (1..=all.len()).collect(),
            });
        }
        if let Some(bad) = wanted.iter().find(|n| **n == 0 || **n > all.len()) {
            let valid = match all.len() {
                0 => "no hooks are declared".to_owned(),
                1 => "the only hook is hook[1]".to_owned(),
                n => format!("the hooks are hook[1] to hook[{n}]"),
            };
            return Err(format!("--hook {bad}: there is no hook[{bad}]; {valid}"));
        }
        let numbers: Vec<usize> = wanted
            .iter()
            .copied()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        Ok(Selection {
            specs: numbers.iter().map(|n| all[n - 1].clone()).collect(),
            numbers,
        })
    }

    /// The config's number for the hook at `index` in [`Self::specs`].
    pub(crate) fn number(&self, index: usize) -> usize {
        self.numbers.get(index).copied().unwrap_or(index + 1)
    }

    /// The numbers of the hooks that `kind` would fire.
    pub(crate) fn would_fire(&self, kind: &EventKind) -> Vec<usize> {
        self.specs
            .iter()
            .enumerate()
            .filter(|(_, s)| s.on.contains(kind))
            .map(|(i, _)| self.number(i))
            .collect()
    }
}

/// Prints on stderr, once each, what building `hooks` found wrong, with
/// hints: `io run` and `io replay` show them before the first event.
pub(crate) fn print_problems(hooks: &Hooks, selection: &Selection) {
    let mut text = String::new();
    for problem in hooks.problems() {
        let number = selection.number(problem.index);
        text.push_str(&format!("io: hook[{number}]: {}\n", problem.kind));
        if let Some(hint) = problem.hint() {
            text.push_str(&format!("      hint: {hint}\n"));
        }
    }
    err(&safe(&text));
}

/// `text` made safe to print on a terminal: every control character but
/// newline and tab escaped (`\x1b`, `\r`), so nothing a hook or an event
/// carries can move the cursor, clear the screen or retitle the window.
pub(crate) fn safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let code = u32::from(c);
                if code <= 0xff {
                    out.push_str(&format!("\\x{code:02x}"));
                } else {
                    out.push_str(&format!("\\u{{{code:x}}}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// A failed hook's stderr tail, each line under `indent` and made
/// [`safe`].
pub(crate) fn stderr_tail(number: usize, tail: &[u8], indent: &str) -> String {
    if tail.is_empty() {
        return format!("{indent}hook[{number}] wrote nothing to stderr\n");
    }
    let text = String::from_utf8_lossy(tail);
    let mut out = format!(
        "{indent}hook[{number}] stderr (its last {} KiB at most):\n",
        STDERR_TAIL / 1024
    );
    // Split on newlines alone: a `\r` before one is shown, not dropped.
    for line in text.strip_suffix('\n').unwrap_or(&text).split('\n') {
        out.push_str(&format!("{indent}| {}\n", safe(line)));
    }
    out
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

/// `-q` and `-v`, as given.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Verbosity {
    /// `-q`: errors only.
    pub(crate) quiet: bool,
    /// `-v` once: info; twice or more: debug.
    pub(crate) verbose: u8,
}

impl Verbosity {
    /// The level to log at: `-q` or `-v` when given, else `RUST_LOG` when
    /// it is a plain level (`debug`), else warn.
    fn level(self) -> tracing::Level {
        match (self.quiet, self.verbose) {
            (true, _) => tracing::Level::ERROR,
            (false, 1) => tracing::Level::INFO,
            (false, 2..) => tracing::Level::DEBUG,
            (false, 0) => std::env::var("RUST_LOG")
                .ok()
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(tracing::Level::WARN),
        }
    }
}

/// Sends `tracing` events at `verbosity`'s level to stderr, one line each,
/// without timestamps: what an operator reads. Colour only on a terminal,
/// and never when `NO_COLOR` is set.
///
/// The engine's own warnings about hooks (a failure, a problem found when
/// the hooks were built) are left out at the default level and below:
/// `io run` and `io replay` report each of those themselves, once, after the
/// event it belongs to. From `-v` on they are logged as well, as an embedder
/// would see them.
pub(crate) fn log_to_stderr(verbosity: Verbosity) {
    use tracing_subscriber::Layer;
    use tracing_subscriber::layer::SubscriberExt;

    let level = verbosity.level();
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(colour)
        .without_time()
        // On a failed write the subscriber would report it with
        // `eprintln!`, which panics on the same full or closed stderr.
        .log_internal_errors(false)
        .with_filter(tracing_subscriber::filter::filter_fn(move |meta| {
            let reported_by_io =
                level < tracing::Level::INFO && meta.target().starts_with("io_hooks::exec");
            *meta.level() <= level && !reported_by_io
        }));
    let subscriber = tracing_subscriber::registry().with(layer);
    // Only fails if one is set already, which leaves that one in place.
    let _ = tracing::subscriber::set_global_default(subscriber);
}
