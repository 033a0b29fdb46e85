//! `io check`: load the config as a run would, and say what it does, what
//! will not work as written, and what costs more than it may seem to.

use std::path::Path;
use std::process::ExitCode;

use io_harness::{
    Config, Cost, EventKind, HookEvents, HookSpec, Hooks, LOCAL_FILE, PROJECT_FILE, Problem,
};
use io_hooks::{Kind, UnknownEvent};

use super::{CmdResult, describe, load_at, out, replaced, safe};

pub(crate) fn check(root: Option<&Path>, profile: Option<&str>, event: Option<&str>) -> CmdResult {
    let (config, root) = load_at(root, profile)?;
    // Checked before anything is printed: an unknown tag is an error.
    let event = event
        .map(|tag| {
            let kind = EventKind::from_tag(tag)
                .ok_or_else(|| format!("--event: {}", UnknownEvent::new::<EventKind>(tag)))?;
            Ok::<_, String>((tag, kind))
        })
        .transpose()?;
    let mut text = format!("root: {} ({})\n", root.path.display(), root.why);
    text.push_str(&files_read(&config));
    if let Some(name) = config.profile() {
        text.push_str(&format!("profile: {name}\n"));
    }
    for line in replaced(&config) {
        text.push_str(&line);
        text.push('\n');
    }
    let specs = config.hook_specs();
    let problems = Hooks::check(specs, config.root());
    match config.hooks_in_force() {
        None => text.push_str("no hooks declared\n"),
        Some(in_force) => {
            text.push_str(&format!("{} hook(s), {in_force}:\n", specs.len()));
            for (i, spec) in specs.iter().enumerate() {
                text.push_str(&hook_lines(i, spec, &problems, config.root()));
            }
        }
    }
    if let Some((tag, kind)) = event {
        text.push_str(&on_event(specs, tag, kind));
    }
    let broken = {
        let mut hooks: Vec<usize> = problems.iter().map(Problem::number).collect();
        hooks.dedup();
        hooks.len()
    };
    if broken == 0 {
        text.push_str("ok\n");
        out(&safe(&text))?;
        Ok(ExitCode::SUCCESS)
    } else {
        text.push_str(&format!(
            "FAILED: {broken} hook(s) cannot work as written\n"
        ));
        out(&safe(&text))?;
        Ok(ExitCode::from(1))
    }
}

/// `files read:` with each file's scope and which one's hooks are in force,
/// or, when there is none, the files discovery looked for.
fn files_read(config: &Config) -> String {
    if config.sources().is_empty() {
        let mut text = "no config file found; looked at:\n".to_owned();
        for path in looked_at(config) {
            text.push_str(&format!("  {}\n", path.display()));
        }
        return text;
    }
    let mut text = "files read:\n".to_owned();
    for source in config.sources() {
        let mark = if source.in_force() {
            "  <- hooks in force"
        } else {
            ""
        };
        text.push_str(&format!(
            "  {:7}  {}{mark}\n",
            source.scope().as_str(),
            source.path().display()
        ));
    }
    text
}

/// `    where: tool = "exec"` under a hook with a filter; nothing otherwise.
/// Its strings are escaped as TOML writes them, and the whole is [`safe`].
fn filter_line(spec: &HookSpec<EventKind>) -> String {
    if spec.filter.is_empty() {
        return String::new();
    }
    format!("    where: {}\n", spec.filter)
}

/// `io check --event TAG`: the hooks an event of `tag` fires, and those it
/// fires only where their filter lets it through, naming the fields the
/// filter turns the rest away on.
fn on_event(specs: &[HookSpec<EventKind>], tag: &str, kind: Kind<EventKind>) -> String {
    let wanting = specs
        .iter()
        .enumerate()
        .filter(|(_, s)| s.on.contains_kind(kind));
    let (firing, filtered): (Vec<_>, Vec<_>) = wanting.partition(|(_, s)| s.filter.is_empty());
    let mut text = if firing.is_empty() && filtered.is_empty() {
        format!("on `{tag}`: no hook fires\n")
    } else if firing.is_empty() {
        format!("on `{tag}`: no hook fires whatever its fields\n")
    } else {
        let numbers: Vec<String> = firing
            .iter()
            .map(|(i, _)| format!("hook[{}]", i + 1))
            .collect();
        format!("on `{tag}`: {} fire(s)\n", numbers.join(", "))
    };
    for (i, spec) in filtered {
        let fields: Vec<String> = spec.filter.fields().map(|f| format!("`{f}`")).collect();
        text.push_str(&format!(
            "on `{tag}`: hook[{}] fires only where {}; its filter turns the rest away on {}\n",
            i + 1,
            spec.filter,
            fields.join(", ")
        ));
    }
    text
}

/// One hook's line (`hook[N]` numbered from 1, as every command numbers
/// them), then its problems and the notes on what it costs.
fn hook_lines(
    index: usize,
    spec: &HookSpec<EventKind>,
    problems: &[Problem],
    root: &Path,
) -> String {
    let mut text = format!("  hook[{}]  {}\n", index + 1, describe(spec, root));
    text.push_str(&filter_line(spec));
    for problem in problems.iter().filter(|p| p.index == index) {
        text.push_str(&problem_lines(problem));
    }
    for note in cost_notes(spec) {
        text.push_str(&format!("    note: {note}\n"));
    }
    text
}

/// A problem and its hint, indented under its hook and made [`safe`]: a
/// program or path may hold anything the file's author typed.
pub(crate) fn problem_lines(problem: &Problem) -> String {
    let mut text = format!("    problem: {}\n", problem.kind);
    if let Some(hint) = problem.hint() {
        text.push_str(&format!("      hint: {hint}\n"));
    }
    safe(&text)
}

/// What a hook costs that its line does not say: a spawn per token, or a
/// spawn per event, for an action that spawns a process (as its entry
/// declares). Neither changes the exit code.
fn cost_notes(spec: &HookSpec<EventKind>) -> Vec<String> {
    if !spec.action.effects().spawns_process {
        return Vec::new();
    }
    if spec.on.is_all() {
        return vec![
            "no `on`: this spawns a process for every event, every token included; name the events it needs".to_owned(),
        ];
    }
    spec.on
        .tags()
        .filter_map(|tag| {
            let kind = EventKind::from_tag(tag)?;
            (EventKind::frequency(kind) == Cost::PerToken).then(|| {
                format!("`{tag}` fires once per streamed token: this spawns a process for each")
            })
        })
        .collect()
}

/// The files discovery looks for, in scope order.
fn looked_at(config: &Config) -> Vec<std::path::PathBuf> {
    let mut paths = Vec::new();
    if let Some(dir) = Config::user_dir() {
        paths.push(dir.join(PROJECT_FILE));
    }
    paths.push(config.root().join(PROJECT_FILE));
    paths.push(config.root().join(LOCAL_FILE));
    paths
}
