//! What `-q` and `-v` choose, and the `tracing` layer that writes io's log
//! lines on stderr, escaped, one line per event.

use io_harness::Config;

use super::hook_report::describe;
use super::output::{err, safe};
use super::selection::Selection;

/// `-q` and `-v`, as given: the flags every command takes.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub(crate) struct Verbosity {
    /// Log errors only.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub(crate) quiet: bool,
    /// Log more. The default (warn) logs what io reports nowhere else, such
    /// as a journal's torn last record it dropped; `-v` (info) adds the
    /// files read and whose hooks are in force, and the engine's own warning
    /// for each hook that failed or has a problem, numbered as in the table;
    /// `-vv` (debug) adds each hook in force. Without -q or -v, `RUST_LOG`
    /// may name the level.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
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

/// Sends `tracing` events at `verbosity`'s level to stderr, one line each
/// (`LEVEL message key=value…`), escaped as everything io prints is, without
/// timestamps: what an operator reads. Colour only on a terminal, and never
/// when `NO_COLOR` is set. Then logs, at info, where `config`'s hooks come
/// from and, at debug, each hook of `selection`.
///
/// What each level adds (`io --help` and docs/io.md say the same):
/// - error (`-q`): errors only.
/// - warn (the default): what io reports nowhere else, such as a journal's
///   torn last record it dropped. The engine's warnings about hooks (a
///   failure, a problem found when the hooks were built) are left out: `io
///   run` and `io replay` report each of those themselves, once, on the line
///   of the event it belongs to or before the first event.
/// - info (`-v`): the files read and whose hooks are in force, and the
///   engine's own warning lines, as an embedder would see them.
/// - debug (`-vv`): each hook in force, as `io check` describes it.
///
/// The engine's lines are printed as they come: each begins with where its
/// hook was written (`/p/io.local.toml: profile.ci.hook[2]`), which a subset
/// chosen with `--hook` does not change.
pub(crate) fn log_to_stderr(verbosity: Verbosity, config: &Config, selection: &Selection) {
    use tracing_subscriber::Layer;
    use tracing_subscriber::layer::SubscriberExt;

    let level = verbosity.level();
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let layer = OperatorLog { level, colour }
        .with_filter(tracing_subscriber::filter::LevelFilter::from_level(level));
    let subscriber = tracing_subscriber::registry().with(layer);
    // Only fails if one is set already, which leaves that one in place.
    if tracing::subscriber::set_global_default(subscriber).is_err() {
        return;
    }
    let sources: Vec<String> = config
        .sources()
        .iter()
        .map(|s| format!("{} ({} scope)", s.path().display(), s.scope()))
        .collect();
    if sources.is_empty() {
        tracing::info!("no config file found");
    } else {
        tracing::info!("config read: {}", sources.join(", "));
    }
    match config.hooks_in_force() {
        Some(in_force) => tracing::info!("{} hook(s), {in_force}", config.hook_specs().len()),
        None => tracing::info!("no hooks declared"),
    }
    for (i, spec) in selection.specs.iter().enumerate() {
        let key = selection.key(i);
        tracing::debug!("{key} {}", describe(spec, config.root()));
    }
}

/// The `tracing` layer of [`log_to_stderr`].
struct OperatorLog {
    level: tracing::Level,
    colour: bool,
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for OperatorLog {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        let meta = event.metadata();
        if self.level < tracing::Level::INFO && meta.target().starts_with("io_hooks::hooks") {
            return;
        }
        let mut fields = LogFields::default();
        event.record(&mut fields);
        let level = level_label(*meta.level(), self.colour);
        let mut line = safe(&fields.message);
        for field in &fields.rest {
            line.push(' ');
            line.push_str(&safe(field));
        }
        // One event, one line, whatever a path in it holds.
        err(&format!("{level} {}\n", line.replace('\n', "\\n")));
    }
}

/// A log line's level, right-aligned in five columns; on a terminal, red
/// for error, yellow for warn, green for info and blue below.
fn level_label(level: tracing::Level, colour: bool) -> String {
    let name = level.as_str();
    if !colour {
        return format!("{name:>5}");
    }
    let code = match level {
        tracing::Level::ERROR => 31,
        tracing::Level::WARN => 33,
        tracing::Level::INFO => 32,
        _ => 34,
    };
    format!("\x1b[{code}m{name:>5}\x1b[0m")
}

/// An event's message, and its other fields as `key=value`.
#[derive(Default)]
struct LogFields {
    message: String,
    rest: Vec<String>,
}

impl tracing::field::Visit for LogFields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.message = format!("{value:?}");
        } else {
            self.rest.push(format!("{}={value:?}", field.name()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_level_has_its_own_colour_and_none_off_a_terminal() {
        use tracing::Level;
        assert_eq!(level_label(Level::WARN, false), " WARN");
        assert_eq!(level_label(Level::DEBUG, false), "DEBUG");
        assert_eq!(level_label(Level::ERROR, true), "\x1b[31mERROR\x1b[0m");
        assert_eq!(level_label(Level::WARN, true), "\x1b[33m WARN\x1b[0m");
        assert_eq!(level_label(Level::INFO, true), "\x1b[32m INFO\x1b[0m");
        assert_eq!(level_label(Level::DEBUG, true), "\x1b[34mDEBUG\x1b[0m");
    }
}
