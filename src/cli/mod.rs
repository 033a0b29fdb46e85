//! The `io` commands. Each returns its exit code or an error message; `main`
//! prints the message on stderr.

pub(crate) mod check;
pub(crate) mod demo;
pub(crate) mod events;
pub(crate) mod replay;
pub(crate) mod run;
pub(crate) mod runs;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use io_harness::OsMessage;
use io_harness::{
    Config, ConfigError, EventKind, HookRun, HookSpec, Hooks, LOCAL_FILE, OnFailure, PROJECT_FILE,
};
use io_hooks::HookFailure;
use io_hooks::text::is_invisible;
use io_supervisor::ProcessError;

/// A command's result: its exit code, or the one paragraph to print on
/// stderr before exiting 1.
pub(crate) type CmdResult = Result<ExitCode, String>;

/// Exit code of a run or replay a hook cancelled.
pub(crate) const EXIT_CANCELLED: u8 = 3;

/// Exit code of a usage error, as clap exits on one.
pub(crate) const EXIT_USAGE: u8 = 2;

/// How much of a failed hook's stderr `--stderr` shows: its last 4 KiB.
pub(crate) const STDERR_TAIL: usize = 4096;

/// Prints `value` as pretty JSON, then a newline.
pub(crate) fn print_json(value: &serde_json::Value) -> CmdResult {
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    out(&format!("{text}\n"))?;
    Ok(ExitCode::SUCCESS)
}

/// Loads the config as `Config::discover` does, with the profile applied.
pub(crate) fn load(root: Option<&Path>, profile: Option<&str>) -> Result<Config, String> {
    load_at(root, profile).map(|(config, _)| config)
}

/// [`load`], and the root it chose with the reason ([`Root`]).
pub(crate) fn load_at(
    root: Option<&Path>,
    profile: Option<&str>,
) -> Result<(Config, Root), String> {
    let root = match root {
        Some(root) => Root {
            path: root.to_path_buf(),
            why: "given with --root".to_owned(),
        },
        None => Root::find(
            &std::env::current_dir()
                .map_err(|e| format!("cannot tell the current directory: {}", OsMessage(&e)))?,
        ),
    };
    let config = Config::discover(&root.path).map_err(|e| with_source_line(&e))?;
    let config = match profile {
        Some(name) => config.with_profile(name).map_err(|e| e.to_string())?,
        None => config,
    };
    Ok((config, root))
}

/// The names whose presence makes a directory a project's top, as git's
/// `.git` does: the nearest directory at or above the working directory
/// holding any of them is the root.
const ROOT_MARKERS: [&str; 3] = [LOCAL_FILE, PROJECT_FILE, ".git"];

/// The discovery root a command acts on, and why it is that one (what
/// `io check` prints).
#[derive(Debug)]
pub(crate) struct Root {
    pub(crate) path: PathBuf,
    pub(crate) why: String,
}

impl Root {
    /// The nearest directory at or above `cwd` that holds `io.local.toml`,
    /// `io.toml` or `.git` (any kind of file, a link too: its presence is
    /// the operator's project saying where its top is), so that a run
    /// started in `src/` has the project's hooks. The search goes up to the
    /// filesystem's top, but never into a directory another user could have
    /// put such a file in (one owned by neither this user nor root, or
    /// writable by others, or by a group that is not this user's own): a
    /// `/tmp/io.local.toml` another user wrote must not become the hooks of
    /// everyone who runs `io` under `/tmp`. With none found, the root is
    /// `cwd`, as before.
    pub(crate) fn find(cwd: &Path) -> Root {
        let mut dir = cwd;
        let stopped = loop {
            if let Some(marker) = ROOT_MARKERS
                .iter()
                .find(|m| std::fs::symlink_metadata(dir.join(m)).is_ok())
            {
                let why = if dir == cwd {
                    format!("the working directory, which holds `{marker}`")
                } else {
                    format!(
                        "it holds `{marker}`; found from the working directory, {}",
                        cwd.display()
                    )
                };
                return Root {
                    path: dir.to_path_buf(),
                    why,
                };
            }
            let Some(parent) = dir.parent() else {
                break None;
            };
            if let Some(reason) = untrusted(parent) {
                break Some((parent, reason));
            }
            dir = parent;
        };
        let mut why = format!(
            "the working directory; no `{LOCAL_FILE}`, `{PROJECT_FILE}` or `.git` in it or above it"
        );
        if let Some((at, reason)) = stopped {
            why.push_str(&format!(
                "; the search stopped below {}, which {reason}",
                at.display()
            ));
        }
        Root {
            path: cwd.to_path_buf(),
            why,
        }
    }
}

/// Why the root search may not take a file from `dir`: another user could
/// have written it there. `None` when only this user (or root) could.
fn untrusted(dir: &Path) -> Option<&'static str> {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::metadata(dir) else {
        return Some("cannot be looked at");
    };
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me && meta.uid() != 0 {
        Some("another user owns")
    } else if meta.mode() & 0o002 != 0 {
        Some("anyone may write")
    } else if meta.mode() & 0o020 != 0 && meta.gid() != rustix::process::getegid().as_raw() {
        Some("a group may write")
    } else {
        None
    }
}

/// The one line `io run` and `io replay` print on stderr before the first
/// event (unless `-q`): how many hooks are in force and from which file, or
/// that none is and why, with the hooks it replaced.
pub(crate) fn say_hooks_in_force(config: &Config, verbosity: Verbosity) {
    if verbosity.quiet {
        return;
    }
    err(&safe(&format!(
        "{}
",
        hooks_in_force_line(config)
    )));
}

/// [`say_hooks_in_force`]'s line.
fn hooks_in_force_line(config: &Config) -> String {
    let Some(in_force) = config.hooks_in_force() else {
        if config.sources().is_empty() {
            return format!(
                "io: no hooks in force: no config file found (looked for `{LOCAL_FILE}` and `{PROJECT_FILE}` in {}, and the user scope's)",
                config.root().display()
            );
        }
        let read: Vec<String> = config
            .sources()
            .iter()
            .map(|s| s.path().display().to_string())
            .collect();
        return format!(
            "io: no hooks in force: no file read declares `hook` ({})",
            read.join(", ")
        );
    };
    let mut from = format!(
        "{} ({} scope",
        in_force.source.path().display(),
        in_force.source.scope()
    );
    if let Some(profile) = in_force.profile {
        from.push_str(&format!(", profile `{profile}`"));
    }
    from.push(')');
    let mut line = match config.hook_specs().len() {
        // `hook = []`: the file's way of saying none, which replaces the
        // hooks of every scope below it.
        0 => format!("io: no hooks in force: {from} declares `hook` empty"),
        n => format!("io: {n} hook(s) in force, from {from}"),
    };
    for replaced in replaced(config) {
        line.push_str(&format!("; {replaced}"));
    }
    line
}

/// `user scope: 2 hook(s), replaced by io.local.toml`, for each file whose
/// hooks the one in force replaced, and `local scope: 2 hook(s), replaced
/// by its profile `ci`` when a profile replaced the top-level hooks of the
/// file in force.
pub(crate) fn replaced(config: &Config) -> Vec<String> {
    let Some(in_force) = config.hooks_in_force() else {
        return Vec::new();
    };
    let winner = in_force.source.path();
    let name = winner.file_name().map_or_else(
        || winner.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut lines = Vec::new();
    for source in config.sources() {
        if source.in_force() {
            // The profile's hooks replace the file's own, as another
            // file's would.
            if let (Some(profile), Some(own)) = (in_force.profile, source.hooks()) {
                lines.push(format!(
                    "{} scope: {} hook(s), replaced by its profile `{profile}`",
                    source.scope(),
                    own.len()
                ));
            }
            continue;
        }
        let hooks = config
            .profile()
            .and_then(|p| source.profile_hooks(p))
            .or(source.hooks());
        if let Some(hooks) = hooks {
            lines.push(format!(
                "{} scope: {} hook(s), replaced by {name}",
                source.scope(),
                hooks.len()
            ));
        }
    }
    lines
}

/// A config error's message, then, when it has a position in a file that
/// may be shown, the line it points into (cut around the column, and
/// [`safe`]) with a caret under the column, as toml's own errors show it.
/// The first line is the message alone, unchanged. The line comes from the
/// text that was parsed, never from reading the file again.
fn with_source_line(error: &ConfigError) -> String {
    with_line(error.to_string(), error.source_line())
}

/// A script's error as a config error is shown ([`with_source_line`]): the
/// message, then the line under it when the script may be shown (one read
/// through a symbolic link is [`ProviderError::Parse`], with no line).
pub(crate) fn script_error(error: &io_harness::run::ProviderError) -> String {
    match error {
        io_harness::run::ProviderError::Script(table) => {
            with_line(table.to_string(), table.source_line())
        }
        other => other.to_string(),
    }
}

/// `message`, then `source` with a caret under its column.
fn with_line(message: String, source: Option<&io_harness::SourceLine>) -> String {
    let Some(source) = source else {
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

/// What `io` prints if a signal ends it now: the run in flight and the
/// command that resumes it, set while `io run` runs one.
static ON_SIGNAL: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Sets (or, with `None`, clears) the line a signal that ends `io` prints.
pub(crate) fn on_signal(line: Option<String>) {
    *ON_SIGNAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = line;
}

/// The line a signal that ends `io` now prints, if any ([`on_signal`]).
pub(crate) fn signal_line() -> Option<String> {
    ON_SIGNAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

/// `hook[2] ok (1.3 ms)` or `profile.ci.hook[2] FAILED: exited with status
/// 1 (1.3 ms; --stderr shows its stderr)`: the hook named by its key path in
/// the file in force ([`hook_key`]). A hook that exited non-zero talks
/// through its stderr, so when that was not captured the line says how to
/// see it. A background hook's event is `hook[2] queued`: what it did is
/// told later ([`background_report`]).
pub(crate) fn report(run: &HookRun<'_>) -> String {
    let ms = millis(run.elapsed);
    let key = run.origin.key();
    if run.background {
        return format!("{key} queued");
    }
    match run.result {
        Ok(()) => format!("{key} ok ({ms})"),
        Err(failure @ HookFailure::Process(ProcessError::Exit { .. })) if run.stderr.is_none() => {
            format!("{key} FAILED: {failure} ({ms}; --stderr shows its stderr)")
        }
        Err(failure) => format!("{key} FAILED: {failure} ({ms})"),
    }
}

/// What io calls the hook `spec`, at `index` of the array in force: its
/// key path in its file (`hook[2]`, `profile.ci.hook[2]`), without the
/// file, which io names once, at the top. A spec read from no file (none
/// that io reads) is `hook[N]`, counted from 1.
pub(crate) fn hook_key(spec: &HookSpec<EventKind>, index: usize) -> String {
    spec.origin
        .as_ref()
        .map_or_else(|| format!("hook[{}]", index + 1), |o| o.key().to_owned())
}

/// What a background hook did with an event, when it failed: `hook[2]
/// FAILED in the background on `step` (its event 3): … (20.1 ms)`, and the
/// tail of its stderr under it when it was captured, indented by `indent`;
/// `None` when it succeeded.
pub(crate) fn background_report(run: &io_hooks::BackgroundRun<'_>, indent: &str) -> Option<String> {
    let key = run.origin.key();
    let failure = run.result.err()?;
    let ms = millis(run.elapsed);
    let hint = match (failure, run.stderr) {
        (HookFailure::Process(ProcessError::Exit { .. }), None) => "; --stderr shows its stderr",
        _ => "",
    };
    let mut text = format!(
        "{indent}hooks: {key} FAILED in the background on `{}` (its event {}): {failure} ({ms}{hint})\n",
        run.event, run.seq
    );
    if let Some(tail) = run.stderr {
        text.push_str(&stderr_tail(key, tail, &format!("{indent}    ")));
    }
    Some(text)
}

/// The hooks a command runs: all of the config's, or those `--hook` chose.
/// Each is named by its key path in the file in force (its spec's origin),
/// so a subset is named as the whole is.
pub(crate) struct Selection {
    /// The chosen hooks, in the order written.
    pub(crate) specs: Vec<HookSpec<EventKind>>,
    /// Each of `specs`' place in the array in force, from 1: `--hook`'s
    /// `N`, and the `hook` of `--json`'s objects.
    numbers: Vec<usize>,
}

impl Selection {
    /// All of `all` when `wanted` is empty, else the `N`-th hooks of the
    /// array in force for each `N` of `wanted` (from 1, as the key path
    /// `hook[N]` or `profile.ci.hook[N]` counts them); an error names a
    /// number out of range and the hooks there are.
    pub(crate) fn new(all: &[HookSpec<EventKind>], wanted: &[usize]) -> Result<Self, String> {
        if wanted.is_empty() {
            return Ok(Self::all(all));
        }
        if let Some(bad) = wanted.iter().find(|n| **n == 0 || **n > all.len()) {
            let first = all.first().map(|spec| hook_key(spec, 0));
            // The array's key path, from its first table's: `profile.ci.hook`.
            let array = first
                .as_deref()
                .and_then(|key| key.rsplit_once('['))
                .map_or("hook", |(array, _)| array);
            let valid = match (first.as_deref(), all.len()) {
                (None, _) | (_, 0) => "no hooks are declared".to_owned(),
                (Some(first), 1) => format!("the only hook is {first}"),
                (Some(first), n) => {
                    format!("the hooks are {first} to {}", hook_key(&all[n - 1], n - 1))
                }
            };
            return Err(format!("--hook {bad}: there is no {array}[{bad}]; {valid}"));
        }
        let numbers: Vec<usize> = wanted
            .iter()
            .copied()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        Ok(Selection {
            specs: numbers.iter().map(|n| named(&all[n - 1], n - 1)).collect(),
            numbers,
        })
    }

    /// Every hook of `all`, numbered as written: what a command without
    /// `--hook` runs.
    pub(crate) fn all(all: &[HookSpec<EventKind>]) -> Self {
        Selection {
            specs: all.iter().enumerate().map(|(i, s)| named(s, i)).collect(),
            numbers: (1..=all.len()).collect(),
        }
    }

    /// The place in the array in force of the hook at `index` in
    /// [`Self::specs`], from 1: for `--json`'s objects, which number hooks.
    pub(crate) fn number(&self, index: usize) -> usize {
        self.numbers.get(index).copied().unwrap_or(index + 1)
    }

    /// The key path of the hook at `index` in [`Self::specs`]
    /// ([`hook_key`]).
    pub(crate) fn key(&self, index: usize) -> String {
        match self.specs.get(index) {
            Some(spec) => hook_key(spec, self.number(index) - 1),
            None => format!("hook[{}]", self.number(index)),
        }
    }
}

/// `spec`, at `index` of the array in force, with an origin: its own, or
/// for a spec read from no file `hook[N]` as the whole array numbers it,
/// so that the engine, given a subset, names it as `io check` does.
fn named(spec: &HookSpec<EventKind>, index: usize) -> HookSpec<EventKind> {
    match spec.origin {
        Some(_) => spec.clone(),
        None => spec
            .clone()
            .with_origin(io_hooks::Origin::new(None, hook_key(spec, index))),
    }
}

impl Selection {
    /// The index in [`Self::specs`] of each hook that `kind` would fire:
    /// those whose `on` holds it and whose `where` lets it through; and
    /// whether it would run in the background.
    pub(crate) fn would_fire(&self, kind: &EventKind) -> Vec<(usize, bool)> {
        self.specs
            .iter()
            .enumerate()
            .filter(|(_, s)| s.on.contains(kind) && s.r#where.passes(kind))
            .map(|(i, s)| {
                let background = s
                    .action
                    .get::<io_hooks::RunAction>()
                    .is_some_and(|run| run.background)
                    && s.on_failure == OnFailure::Continue;
                (i, background)
            })
            .collect()
    }

    /// The index in [`Self::specs`] of each hook whose `on` holds `kind`
    /// and whose `where` turns it away, with the first field it fails on.
    pub(crate) fn turned_away<'s>(&'s self, kind: &EventKind) -> Vec<(usize, &'s str)> {
        self.specs
            .iter()
            .enumerate()
            .filter(|(_, s)| s.on.contains(kind))
            .filter_map(|(i, s)| s.r#where.turned_away(kind).map(|f| (i, f)))
            .collect()
    }
}

/// Prints on stderr, once each, what building `hooks` found wrong, with
/// hints: `io run` and `io replay` show them before the first event. Each
/// names its hook by its key path in the file in force.
pub(crate) fn print_problems(hooks: &Hooks) {
    let mut text = String::new();
    for problem in hooks.problems() {
        let key = problem.origin.key();
        text.push_str(&format!("io: {key}: {}\n", problem.kind));
        if let Some(hint) = problem.hint() {
            text.push_str(&format!("      hint: {hint}\n"));
        }
    }
    err(&safe(&text));
}

/// `text` made safe to print on a terminal: every control character but
/// newline and tab escaped (`\x1b`, `\r`), so nothing a hook or an event
/// carries can move the cursor, clear the screen or retitle the window; and
/// every bidirectional override, isolate and mark escaped (`\u{202e}`), so
/// nothing can show its text in another order than the bytes hold it
/// ("Trojan Source"), as is every other character that shows as nothing or
/// breaks a line without being a control (`\u{feff}`, `\u{2028}`, the tag
/// characters U+E0000 to U+E007F: [`is_invisible`]). Applying it twice
/// changes nothing more.
pub(crate) fn safe(text: &str) -> String {
    escape(text, true)
}

/// [`safe`] for text that must stay on one line, such as a run id or a
/// model's answer on a line `io` itself writes: newline and tab escaped too
/// (`\n`, `\t`), so outside text cannot end the line and write one that
/// reads as `io`'s own.
pub(crate) fn safe_line(text: &str) -> String {
    escape(text, false)
}

/// [`safe`], keeping newline and tab when `lines`, else [`safe_line`].
fn escape(text: &str, lines: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' if lines => out.push(c),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let code = u32::from(c);
                if code <= 0xff {
                    out.push_str(&format!("\\x{code:02x}"));
                } else {
                    out.push_str(&format!("\\u{{{code:x}}}"));
                }
            }
            c if is_invisible(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

/// Writes `value` as compact JSON that is safe to print on a terminal and
/// is still the same JSON. serde_json escapes the C0 controls, but writes
/// DEL, the C1 controls (U+009B is a CSI), the bidirectional characters and
/// the other invisible ones ([`is_invisible`]) as they are; here each
/// becomes its `\uXXXX` escape (a surrogate pair past U+FFFF), which a JSON
/// reader turns back into the same character. It is written as it is serialised,
/// so a long string is never copied.
pub(crate) fn write_safe_json(
    out: &mut impl Write,
    value: &impl serde::Serialize,
) -> std::io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(out, SafeJson);
    value
        .serialize(&mut serializer)
        .map_err(std::io::Error::from)
}

/// serde_json's compact formatter, escaping what [`write_safe_json`] says.
struct SafeJson;

impl serde_json::ser::Formatter for SafeJson {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        // A fragment is whole chars; serde_json has escaped the C0 ones.
        let mut start = 0;
        for (at, c) in fragment.char_indices() {
            if c.is_control() || is_invisible(c) {
                writer.write_all(&fragment.as_bytes()[start..at])?;
                // Past the first plane, JSON writes a surrogate pair.
                for unit in c.encode_utf16(&mut [0; 2]) {
                    write!(writer, "\\u{unit:04x}")?;
                }
                start = at + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }
}

/// [`safe_line`], written into `out` a piece at a time instead of
/// returned: a string of any length is escaped holding a few KiB more, not
/// a copy several times its size.
pub(crate) fn write_safe_line(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    const PIECE: usize = 4096;
    let mut rest = text;
    while !rest.is_empty() {
        // A char is at most 4 bytes: a boundary is at most 3 back.
        let mut end = rest.len().min(PIECE);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let (piece, after) = rest.split_at(end);
        out.write_all(safe_line(piece).as_bytes())?;
        rest = after;
    }
    Ok(())
}

/// A failed hook's stderr tail, each line under `indent` and made
/// [`safe`].
pub(crate) fn stderr_tail(key: &str, tail: &[u8], indent: &str) -> String {
    if tail.is_empty() {
        return format!("{indent}{key} wrote nothing to stderr\n");
    }
    let text = String::from_utf8_lossy(tail);
    let mut out = format!(
        "{indent}{key} stderr (its last {} KiB at most):\n",
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

/// Sends `tracing` events at `verbosity`'s level to stderr, one line each
/// (`LEVEL message key=value…`), escaped as everything io prints is, without
/// timestamps: what an operator reads. Colour only on a terminal, and never
/// when `NO_COLOR` is set. Then logs, at info, where `config`'s hooks come
/// from and, at debug, each hook of `selection`.
///
/// What each level adds (`io --help` and the README say the same):
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
    fn safe_escapes_every_bidirectional_and_invisible_character_and_nothing_else() {
        for c in ('\u{202a}'..='\u{202e}')
            .chain('\u{2066}'..='\u{2069}')
            .chain(['\u{200e}', '\u{200f}', '\u{61c}'])
        {
            assert_eq!(
                safe(&format!("a{c}b")),
                format!("a\\u{{{:x}}}b", u32::from(c))
            );
        }
        // Visible neighbours, and text in a right-to-left script, stay.
        for kept in [
            "\u{2027}",
            "\u{2030}",
            "\u{2070}",
            "\u{fefe}",
            "\u{e0080}",
            "\u{5d0}\u{5d1}",
            "a\tb\nc",
            "é",
        ] {
            assert_eq!(safe(kept), kept);
        }
        // Every other invisible or line-breaking character is escaped
        // (issue 32): a byte order mark, a line or paragraph separator, a
        // zero-width space or joiner, a tag character.
        for c in [
            '\u{feff}', '\u{2028}', '\u{2029}', '\u{200b}', '\u{200d}', '\u{ad}',
        ]
        .into_iter()
        .chain('\u{e0000}'..='\u{e007f}')
        .chain('\u{2060}'..='\u{206f}')
        {
            assert_eq!(
                safe(&format!("a{c}b")),
                format!("a\\u{{{:x}}}b", u32::from(c)),
                "{:x}",
                u32::from(c)
            );
            assert_eq!(
                safe_line(&c.to_string()),
                format!("\\u{{{:x}}}", u32::from(c))
            );
        }
        let once = safe("\u{1b}[2J\r\u{9b}\u{202e}");
        assert_eq!(once, "\\x1b[2J\\r\\x9b\\u{202e}");
        assert_eq!(safe(&once), once, "applying it twice changes nothing more");
    }

    #[test]
    fn safe_line_escapes_newline_and_tab_too_and_the_rest_as_safe_does() {
        let text = "ok\nrun r-1 cancelled\tx\u{1b}[2J\u{202e}";
        assert_eq!(
            safe_line(text),
            "ok\\nrun r-1 cancelled\\tx\\x1b[2J\\u{202e}"
        );
        assert_eq!(
            safe_line(text).replace("\\n", "\n").replace("\\t", "\t"),
            safe(text)
        );
        let once = safe_line(text);
        assert_eq!(
            safe_line(&once),
            once,
            "applying it twice changes nothing more"
        );
    }

    #[test]
    fn safe_json_keeps_the_json_and_escapes_what_serde_leaves_raw() {
        let value = serde_json::json!({
            "id": "r\u{7f}\u{9b}\u{202e}\u{2066}\u{feff}\u{2028}\u{e0041}",
            "n": "a\tb\nc\u{1b}"
        });
        let mut made = Vec::new();
        write_safe_json(&mut made, &value).expect("json");
        let made = String::from_utf8(made).expect("utf-8");
        assert!(
            made.contains("r\\u007f\\u009b\\u202e\\u2066\\ufeff\\u2028\\udb40\\udc41"),
            "{made}"
        );
        assert!(
            made.contains("a\\tb\\nc\\u001b"),
            "serde's own escapes stay: {made}"
        );
        assert!(
            !made.chars().any(|c| c.is_control() || is_invisible(c)),
            "{made}"
        );
        let back: serde_json::Value = serde_json::from_str(&made).expect("still JSON");
        assert_eq!(back, value);
    }

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
