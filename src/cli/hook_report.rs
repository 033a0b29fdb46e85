//! The lines `io` prints about hooks: which are in force and from where,
//! what one does, how one ran (or failed, in the background too), the tail
//! of a failed hook's stderr, and the problems found when they were built.

use std::path::Path;
use std::time::Duration;

use io_harness::{Config, EventKind, Flow, HookRun, HookSpec, LOCAL_FILE, PROJECT_FILE};
use io_hooks::HookFailure;
use io_supervisor::ProcessError;

use super::discovery_root::DiscoveryRoot;
use super::output::{err, safe};

/// How much of a failed hook's stderr `--stderr` shows: its last 4 KiB.
pub(crate) const STDERR_TAIL: usize = 4096;

/// The line `io run` and `io replay` print on stderr before the first
/// event: how many hooks are in force and from which file, or that none is
/// and why, with the hooks it replaced and what was passed over (the root
/// search stopped below a directory others may write, a variable naming
/// the user-scope directory that is not absolute); then a line for each
/// hook switched off ([`say_hooks_off`]). Under `-q` (`quiet`) the line is
/// said only when something was passed over: a file that was not read may
/// hold hooks the operator counts on.
pub(crate) fn say_hooks_in_force(config: &Config, root: &DiscoveryRoot, quiet: bool) {
    let passed = passed_over(root);
    if !quiet || !passed.is_empty() {
        let mut line = hooks_in_force_line(config);
        for what in passed {
            line.push_str("; ");
            line.push_str(&what);
        }
        line.push('\n');
        err(&safe(&line));
    }
    say_hooks_off(config);
}

/// What the search for config files passed over, each in a phrase that
/// says what was not read and how to have it read: said at every start
/// and by `io check`.
pub(crate) fn passed_over(root: &DiscoveryRoot) -> Vec<String> {
    let mut passed = Vec::new();
    if let Some((dir, reason)) = &root.stopped {
        passed.push(format!(
            "the root search stopped below {}, which {reason}, so no `{LOCAL_FILE}` at or \
             above it was read (name the root with --root to read one)",
            dir.display()
        ));
    }
    for var in Config::user_dir_passed_over() {
        passed.push(format!(
            "{var} is not an absolute path, so no user-scope file was looked for there (set \
             it to an absolute one)"
        ));
    }
    passed
}

/// One line on stderr for each hook in force switched off (`enabled =
/// false`): `io: hook[3] "audit" is switched off (enabled = false): it
/// never fires`. Said at every start, `-q` included (the callers call it
/// even then): a hook off on purpose is never silent.
fn say_hooks_off(config: &Config) {
    let mut text = String::new();
    for (index, spec) in config.hook_specs().iter().enumerate() {
        if !spec.enabled {
            text.push_str(&format!(
                "io: {} is switched off (enabled = false): it never fires\n",
                hook_label(spec, index)
            ));
        }
    }
    err(&safe(&text));
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
        Flow::Cancel => "cancel the run",
        other => other.as_str(),
    };
    format!("on {on}: {action}; on failure: {on_failure}")
}

/// `hook[2] ok (1.3 ms)` or `profile.ci.hook[2] FAILED: exited with status
/// 1 (1.3 ms; --stderr shows its stderr)`: the hook named by its key path in
/// the file in force ([`hook_key`]). A hook that exited non-zero talks
/// through its stderr, so when that was not captured the line says how to
/// see it. A background hook's event is `hook[2] queued`: what it did is
/// told later ([`background_report`]).
pub(crate) fn report(run: &HookRun<'_>) -> String {
    let ms = millis(run.elapsed);
    let key = run.origin.label();
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

/// What io's messages call the hook `spec`, at `index` of the array in
/// force: its key path ([`hook_key`]), then its name in quotes when it has
/// one (`hook[3] "audit"`).
pub(crate) fn hook_label(spec: &HookSpec<EventKind>, index: usize) -> String {
    let key = hook_key(spec, index);
    match &spec.name {
        Some(name) => format!("{key} \"{name}\""),
        None => key,
    }
}

/// What a background hook did with an event, when it failed: `hook[2]
/// FAILED in the background on `step` (its event 3): … (20.1 ms)`, and the
/// tail of its stderr under it when it was captured, indented by `indent`;
/// `None` when it succeeded.
pub(crate) fn background_report(run: &HookRun<'_>, indent: &str) -> Option<String> {
    let key = run.origin.label();
    let failure = run.result.err()?;
    let ms = millis(run.elapsed);
    let hint = match (failure, run.stderr) {
        (HookFailure::Process(ProcessError::Exit { .. }), None) => "; --stderr shows its stderr",
        _ => "",
    };
    let mut text = format!(
        "{indent}hooks: {key} FAILED in the background on `{}` (its event {}): {failure} ({ms}{hint})\n",
        run.event,
        run.seq.unwrap_or_default()
    );
    if let Some(tail) = run.stderr {
        text.push_str(&stderr_tail(&key, tail, &format!("{indent}    ")));
    }
    Some(text)
}

/// Whether a background hook's `run` failed because `io`'s own interrupt
/// ended it: the line a signal prints counts that one, as cut short.
pub(crate) fn interrupted(run: &HookRun<'_>) -> bool {
    matches!(
        run.result,
        Err(HookFailure::Process(ProcessError::Interrupted))
    )
}

/// Prints on stderr, from the background hook's worker, what it did with
/// an event when it failed ([`background_report`], indented by `indent`),
/// as it happens: one whole line, held nowhere. A failure the interrupt
/// caused is left to the line a signal prints ([`interrupted`]).
pub(crate) fn print_background(run: &HookRun<'_>, indent: &str) {
    if interrupted(run) {
        return;
    }
    if let Some(text) = background_report(run, indent) {
        err(&safe(&text));
    }
}

/// Prints on stderr, once each, what building `hooks` found wrong, with
/// hints: `io run` and `io replay` show them before the first event. Each
/// names its hook by its key path in the file in force.
pub(crate) fn print_problems(problems: &[io_hooks::Problem]) {
    let mut text = String::new();
    for problem in problems {
        let key = problem.origin.label();
        text.push_str(&format!("io: {key}: {}\n", problem.message()));
        if let Some(hint) = problem.hint() {
            text.push_str(&format!("      hint: {hint}\n"));
        }
    }
    err(&safe(&text));
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

/// Returns `d` in milliseconds to a tenth, as io's lines give a hook's
/// time: `1.3 ms`.
pub(crate) fn millis(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}
