//! `io check`: load the config as a run would, and say what it does, what
//! will not work as written, and what costs more than it may seem to.
//! What it says when it cannot check at all is `check/failure.rs`'s.

mod failure;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use io_harness::{
    Config, Cost, EventKind, Flow, HookEvents, HookSpec, Hooks, LOCAL_FILE, PROJECT_FILE, Problem,
    TOOLS, ToolClass,
};
use io_hooks::Kind;

use crate::cli::discovery_root::DiscoveryRoot;
use crate::cli::exit::CmdResult;
use crate::cli::hook_report::{describe, hook_key, hook_label, passed_over, replaced};
use crate::cli::json_path::path_json;
use crate::cli::output::{out, safe, write_safe_json};

/// Load the config as a run would and say what its hooks do.
///
/// Reads the user-scope file ($IO_CONFIG_HOME/io.toml, else
/// $XDG_CONFIG_HOME/io/io.toml, else ~/.config/io/io.toml), then
/// ROOT/io.toml, then ROOT/io.local.toml.
#[derive(clap::Args)]
#[command(
    after_help = "Exits 1 when a hook cannot work as written.\n\nWith --json, a check that cannot be made (a config error, an unknown\n--profile or --event) is one object too: {\"ok\": false, \"error\", \"file\",\n\"key\", \"line\", \"column\", \"message\", ...}, with no \"hooks\".\n\nExample:\n  io check --root . --profile ci\n  io check --event finished\n  io check --json | jq '.hooks[] | select(.problems != [])'\n  io check --json | jq -r 'select(.error) | \"\\(.file):\\(.line): \\(.message)\"'"
)]
pub(crate) struct Args {
    /// The discovery root [default: the nearest directory at or above
    /// the working directory holding io.local.toml, io.toml or .git,
    /// else the working directory].
    #[arg(long)]
    pub(crate) root: Option<PathBuf>,
    /// A `[profile.<name>]` to apply.
    #[arg(long, add = clap_complete::ArgValueCompleter::new(crate::commands::completions::profiles))]
    pub(crate) profile: Option<String>,
    /// Also list the hooks that would fire for this event tag, and those
    /// whose `where` filter lets only some of its events through.
    #[arg(long, value_name = "TAG", add = clap_complete::ArgValueCompleter::new(crate::commands::completions::events))]
    pub(crate) event: Option<String>,
    /// One JSON object: the root and why, the files read, every hook
    /// with its problems and notes, and the verdict.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Runs `io check`.
///
/// Returns 0 when every hook can work as written, else 1; an error when
/// the config cannot be loaded or `--event` names no event.
pub(crate) fn exec(args: &Args) -> CmdResult {
    // Checked before anything else is printed: an unknown tag is an error.
    let loaded = failure::load(
        args.root.as_deref(),
        args.profile.as_deref(),
        args.event.as_deref(),
    );
    let (config, root, event) = match loaded {
        Ok(loaded) => (loaded.config, loaded.root, loaded.event),
        Err(failure) => return failure.report(args.json, args.profile.as_deref()),
    };
    let specs = config.hook_specs();
    let problems = Hooks::check_beneath(specs, &config.hooks_root());
    let broken = {
        let mut hooks: Vec<usize> = problems.iter().map(Problem::number).collect();
        hooks.dedup();
        hooks.len()
    };
    if args.json {
        let report = report_json(&config, &root, &problems, event, broken);
        let mut line = Vec::new();
        write_safe_json(&mut line, &report).map_err(|e| e.to_string())?;
        line.push(b'\n');
        out(&String::from_utf8_lossy(&line))?;
    } else {
        out(&safe(&report_text(
            &config, &root, &problems, event, broken,
        )))?;
    }
    Ok(if broken == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// What `io check` prints: the root, the files read, what the search for
/// them passed over, each hook with its problems and notes, what `--event`
/// fires, and the verdict.
fn report_text(
    config: &Config,
    root: &DiscoveryRoot,
    problems: &[Problem],
    event: Option<(&str, Kind<EventKind>)>,
    broken: usize,
) -> String {
    let mut text = format!("root: {} ({})\n", root.path.display(), root.why);
    text.push_str(&files_read(config));
    for what in passed_over(root) {
        text.push_str(&format!("passed over: {what}\n"));
    }
    if let Some(name) = config.profile() {
        text.push_str(&format!("profile: {name}\n"));
    }
    for line in replaced(config) {
        text.push_str(&line);
        text.push('\n');
    }
    let specs = config.hook_specs();
    match config.hooks_in_force() {
        None => text.push_str("no hooks declared\n"),
        Some(in_force) => {
            text.push_str(&format!("{} hook(s), {in_force}:\n", specs.len()));
            for (i, spec) in specs.iter().enumerate() {
                text.push_str(&hook_lines(i, spec, problems, config.root()));
            }
        }
    }
    if let Some((tag, kind)) = event {
        text.push_str(&on_event(specs, tag, kind));
    }
    if broken == 0 {
        text.push_str("ok\n");
    } else {
        text.push_str(&format!(
            "FAILED: {broken} hook(s) cannot work as written\n"
        ));
    }
    text
}

/// `io check --json`: what [`report_text`] says, as one object.
fn report_json(
    config: &Config,
    root: &DiscoveryRoot,
    problems: &[Problem],
    event: Option<(&str, Kind<EventKind>)>,
    broken: usize,
) -> serde_json::Value {
    use serde_json::json;
    let specs = config.hook_specs();
    let files: Vec<serde_json::Value> = config
        .sources()
        .iter()
        .map(|source| {
            json!({
                "path": path_json(source.path()),
                "scope": source.scope().as_str(),
                "hooks_in_force": source.in_force(),
            })
        })
        .collect();
    let looked_at: Vec<serde_json::Value> = if config.sources().is_empty() {
        looked_at(config).iter().map(|p| path_json(p)).collect()
    } else {
        Vec::new()
    };
    let hooks: Vec<serde_json::Value> = specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let problems: Vec<serde_json::Value> = problems
                .iter()
                .filter(|p| p.index == i)
                .map(|p| json!({ "problem": p.message(), "hint": p.hint() }))
                .collect();
            json!({
                "hook": i + 1,
                "key": hook_key(spec, i),
                "name": spec.name,
                "enabled": spec.enabled,
                "file": spec.origin.as_ref().and_then(|o| o.file()),
                "on": (!spec.on.is_all()).then(|| spec.on.tags().collect::<Vec<_>>()),
                "where": (!spec.r#where.is_empty()).then(|| spec.r#where.to_string()),
                "does": describe(spec, config.root()),
                "on_failure": spec.on_failure.as_str(),
                "problems": problems,
                "notes": cost_notes(spec),
                "lets_through": lets_through(spec).map(|tools| {
                    tools
                        .iter()
                        .map(|(tool, class)| json!({ "tool": tool, "can": class.as_str() }))
                        .collect::<Vec<_>>()
                }),
            })
        })
        .collect();
    let event = event.map(|(tag, kind)| {
        let (firing, filtered) = wanting(specs, kind);
        json!({
            "tag": tag,
            "fires": firing.iter().map(|(i, _)| i + 1).collect::<Vec<_>>(),
            "fires_only_where": filtered
                .iter()
                .map(|(i, spec)| json!({
                    "hook": i + 1,
                    "key": hook_key(spec, *i),
                    "where": spec.r#where.to_string(),
                    "fields": spec.r#where.fields().collect::<Vec<_>>(),
                }))
                .collect::<Vec<_>>(),
        })
    });
    json!({
        "root": path_json(&root.path),
        "root_why": root.why,
        "files": files,
        "looked_at": looked_at,
        "passed_over": passed_over(root),
        "profile": config.profile(),
        "replaced": replaced(config),
        "hooks_in_force": config.hooks_in_force().map(|h| h.to_string()),
        "hooks": hooks,
        "event": event,
        "broken": broken,
        "ok": broken == 0,
    })
}

/// The hooks whose `on` holds `kind`: those it fires, and those it fires
/// only where their filter lets it through, each with its index.
type Wanting<'s> = Vec<(usize, &'s HookSpec<EventKind>)>;
fn wanting(specs: &[HookSpec<EventKind>], kind: Kind<EventKind>) -> (Wanting<'_>, Wanting<'_>) {
    specs
        .iter()
        .enumerate()
        .filter(|(_, s)| s.enabled && s.on.contains_kind(kind))
        .partition(|(_, s)| s.r#where.is_empty())
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
        let mark = match (source.in_force(), source.trusted()) {
            (true, true) => "  <- hooks in force (trusted with `io trust`)",
            (true, false) => "  <- hooks in force",
            (false, true) => "  (trusted with `io trust`)",
            (false, false) => "",
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
    if spec.r#where.is_empty() {
        return String::new();
    }
    format!("    where: {}\n", spec.r#where)
}

/// What a policy does not see: for a hook that cancels the run on
/// `tool_call` and names its tools (`where.tool`), the tools of the loop
/// ([`TOOLS`], each with the class it declares) that can run commands,
/// write files, start runs or do what another program decides and that
/// its `where.tool` lets through unseen. `None` for any other hook.
fn lets_through(spec: &HookSpec<EventKind>) -> Option<Vec<(String, ToolClass)>> {
    let tool_call = EventKind::from_tag("tool_call")?;
    if spec.on_failure != Flow::Cancel || !spec.on.contains_kind(tool_call) {
        return None;
    }
    spec.r#where.lets_through(&TOOLS)
}

/// `    does not see: `exec_background` (runs commands), …` under a policy
/// hook that lets such tools through; nothing otherwise.
fn unseen_line(spec: &HookSpec<EventKind>) -> String {
    let tools = lets_through(spec).unwrap_or_default();
    if tools.is_empty() {
        return String::new();
    }
    let named: Vec<String> = tools
        .iter()
        .map(|(tool, class)| format!("`{tool}` ({class})"))
        .collect();
    format!(
        "    does not see: {}; its `where.tool` lets their calls through unchecked\n",
        named.join(", ")
    )
}

/// `io check --event TAG`: the hooks an event of `tag` fires, and those it
/// fires only where their filter lets it through, naming the fields the
/// filter turns the rest away on.
fn on_event(specs: &[HookSpec<EventKind>], tag: &str, kind: Kind<EventKind>) -> String {
    let (firing, filtered) = wanting(specs, kind);
    let mut text = if firing.is_empty() && filtered.is_empty() {
        format!("on `{tag}`: no hook fires\n")
    } else if firing.is_empty() {
        format!("on `{tag}`: no hook fires whatever its fields\n")
    } else {
        let keys: Vec<String> = firing.iter().map(|(i, s)| hook_label(s, *i)).collect();
        format!("on `{tag}`: {} fire(s)\n", keys.join(", "))
    };
    for (i, spec) in filtered {
        let fields: Vec<String> = spec.r#where.fields().map(|f| format!("`{f}`")).collect();
        text.push_str(&format!(
            "on `{tag}`: {} fires only where {}; its filter turns the rest away on {}\n",
            hook_label(spec, i),
            spec.r#where,
            fields.join(", ")
        ));
    }
    text
}

/// One hook's line, named by its key path in the file in force (`hook[N]`
/// or `profile.<name>.hook[N]`, numbered from 1, as every command names
/// them), then its problems and the notes on what it costs.
fn hook_lines(
    index: usize,
    spec: &HookSpec<EventKind>,
    problems: &[Problem],
    root: &Path,
) -> String {
    let mut text = format!("  {}  {}\n", hook_label(spec, index), describe(spec, root));
    if !spec.enabled {
        text.push_str("    off: enabled = false: it never fires\n");
    }
    text.push_str(&filter_line(spec));
    text.push_str(&unseen_line(spec));
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
    let mut text = format!("    problem: {}\n", problem.message());
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
            (EventKind::frequency(kind) == Cost::PerItem).then(|| {
                format!("`{tag}` fires once per streamed token: this spawns a process for each")
            })
        })
        .collect()
}

/// The files discovery looks for, in scope order.
fn looked_at(config: &Config) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    if let Some(dir) = Config::user_dir() {
        paths.push(dir.join(PROJECT_FILE));
    }
    paths.push(config.root().join(PROJECT_FILE));
    paths.push(config.root().join(LOCAL_FILE));
    paths
}
