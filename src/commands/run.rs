//! `io run`: a scripted run with the config's hooks installed, showing
//! progress as it goes.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

use io_harness::{
    Config, EventKind, Flow, HookSpec, Hooks, Observer, Outcome, RunEvent,
    run::{
        Contract, FileStore, Policy, Record, RunOutcome, RunResult, ScriptedProvider, StoreError,
        new_run_id, resume_in_observed,
    },
    run_with_observed,
};

use crate::cli::exit::{CmdResult, EXIT_CANCELLED, EXIT_USAGE};
use crate::cli::hook_report::{
    STDERR_TAIL, print_background, print_problems, report, say_hooks_in_force, stderr_tail,
};
use crate::cli::journals::{journal_key, store};
use crate::cli::load::{load_at, script_error};
use crate::cli::log::{Verbosity, log_to_stderr};
use crate::cli::output::{err, out, pasteable, safe, safe_line};
use crate::cli::selection::Selection;
use crate::cli::signals::{
    claim_last_line, on_signal, on_signal_backlog, run_ending, run_started, stopped_by,
};

/// Run a scripted session in ROOT with the config's hooks installed, or
/// resume a stored run.
#[derive(clap::Args)]
#[command(after_help = "\
Example:
  io run examples/demo/script.toml --root /tmp/ws
  io run --resume r-0123456789ab --root /tmp/ws
  io run --resume r-0123456789ab --adopt-journal")]
pub(crate) struct Args {
    /// The script of model turns.
    #[arg(required_unless_present = "resume", conflicts_with = "resume")]
    script: Option<PathBuf>,
    /// Resume this run from its last committed step.
    #[arg(long, value_name = "RUN_ID", add = clap_complete::ArgValueCompleter::new(crate::commands::completions::run_ids))]
    resume: Option<String>,
    /// With --resume: the journal is yours though no `io` of yours sealed
    /// it (copied from another machine, or begun by an `io` older than
    /// sealed journals); say what it will run, re-seal it with your key,
    /// and resume it.
    #[arg(long, requires = "resume", conflicts_with = "script")]
    adopt_journal: bool,
    /// The workspace and discovery root [default: the nearest directory
    /// at or above the working directory holding io.local.toml, io.toml
    /// or .git, else the working directory].
    #[arg(long)]
    root: Option<PathBuf>,
    /// A `[profile.<name>]` to apply.
    #[arg(long, add = clap_complete::ArgValueCompleter::new(crate::commands::completions::profiles))]
    profile: Option<String>,
    /// Show the last lines (up to 4 KiB) a failing `run` hook wrote to
    /// its stderr, under its failure.
    #[arg(long)]
    stderr: bool,
}

/// What to run: a script from the start, or a stored run from where it
/// stopped.
pub(crate) enum Start<'a> {
    Script(&'a Path),
    Resume(&'a str),
    /// A resume of a journal the operator adopts (`--adopt-journal`).
    Adopt(&'a str),
}

/// Runs `io run` at `verbosity`.
///
/// Returns 0 when the run completed, 3 when a hook cancelled it, 1 when it
/// failed; an error when the config or the script cannot be read or the
/// run cannot start.
pub(crate) fn exec(args: &Args, verbosity: Verbosity) -> CmdResult {
    let start = match (&args.script, &args.resume) {
        (_, Some(run_id)) if args.adopt_journal => Start::Adopt(run_id),
        (_, Some(run_id)) => Start::Resume(run_id),
        (Some(script), None) => Start::Script(script),
        // clap requires one of the two.
        (None, None) => return Ok(ExitCode::from(EXIT_USAGE)),
    };
    let (config, root) = load_at(args.root.as_deref(), args.profile.as_deref())?;
    log_to_stderr(verbosity, &config, &Selection::all(config.hook_specs()));
    say_hooks_in_force(&config, &root, verbosity.quiet);
    let result = run_in(&config, start, args.stderr);
    // A signal stopped the run: io exits as the signal would have it.
    if let Some(code) = stopped_exit_code() {
        if let Err(e) = &result {
            err(&format!("io: {}\n", safe(e)));
        }
        return Ok(code);
    }
    Ok(exit_code(&result?))
}

/// Runs (or resumes) with `config`'s hooks, printing progress; the result
/// carries the run id and outcome. `stderr`: show a failed hook's stderr
/// tail under its report.
pub(crate) fn run_in(config: &Config, start: Start<'_>, stderr: bool) -> Result<RunResult, String> {
    let root = config.root();
    let store = store(root, journal_key()?);
    // Judged before the hooks are built: a run refused here leaves no file
    // behind (an `append` hook's file, made when it is built, would say
    // the hook had been installed).
    let problems = Hooks::check_beneath(config.hook_specs(), &config.hooks_root());
    if let Err(refused) = cancel_hooks_can_run(config.hook_specs(), &problems) {
        print_problems(&problems);
        return Err(refused);
    }
    // Named before it starts, so that each `run` hook's child is told it
    // (`IO_RUN_ID`): the id its journal and `io runs` give it.
    let run_id = match start {
        Start::Script(_) => new_run_id(),
        Start::Resume(run_id) | Start::Adopt(run_id) => run_id.to_owned(),
    };
    let hooks = config.hooks().with_env(Config::hook_env(Some(&run_id)));
    print_problems(hooks.problems());
    let hooks = if stderr {
        hooks.capture_stderr(STDERR_TAIL)
    } else {
        hooks
    };
    // A background hook's failure is printed on stderr by its worker as it
    // happens, one whole line: nothing is held for later, so a signal loses
    // none and a long run holds none.
    let hooks = hooks.on_background(|run| print_background(&run, "  "));
    on_signal_backlog(Some(std::sync::Arc::new(hooks.backlog())));
    let progress = Progress::new(&hooks, root, config.profile());
    let result = match start {
        Start::Script(script) => {
            let script = std::path::absolute(script).unwrap_or_else(|_| script.to_path_buf());
            let (provider, text) = ScriptedProvider::read(&script).map_err(|e| script_error(&e))?;
            let contract = Contract {
                origin: Some(script.display().to_string()),
                script: Some(text),
                mcp_servers: mcp_servers(config)?,
                profile: config.profile().map(str::to_owned),
                run_id: Some(run_id),
                ..Contract::new(provider.goal(), root)
            };
            pollster::block_on(run_with_observed(
                &contract,
                &provider,
                &store,
                &Policy::default(),
                provider.operator(),
                &progress,
            ))
        }
        Start::Resume(run_id) | Start::Adopt(run_id) => {
            let adopt = matches!(start, Start::Adopt(_));
            let (origin, script) = origin(config, &store, run_id, adopt)?;
            same_profile(config, &store, run_id)?;
            let provider =
                ScriptedProvider::from_toml(&origin, &script).map_err(|e| script_error(&e))?;
            // The journal names what the run was, never where it acts or
            // what it runs: the workspace is the root, the MCP servers the
            // configuration's own.
            let place = Contract {
                mcp_servers: mcp_servers(config)?,
                ..Contract::new(String::new(), root)
            };
            pollster::block_on(resume_in_observed(
                run_id,
                &place,
                &provider,
                &store,
                &Policy::default(),
                provider.operator(),
                &progress,
            ))
        }
    }
    .map_err(|e| e.to_string());
    // Ended without its `finished` (a store error): a signal now stops
    // no run.
    run_ending();
    // The run's last event reaches every background hook before io says
    // how the run ended (a signal meanwhile ends them, as it ends io).
    hooks.wait_background();
    // The run has returned: a signal now ends no run, and io says how it
    // ended, unless a signal is ending io already and says it.
    let last_line = claim_last_line();
    on_signal_backlog(None);
    let result = result?;
    progress.finish();
    say_ending(&result, config, last_line)?;
    Ok(result)
}

/// Says how the run ended: its outcome on stdout, and the command that
/// resumes it unless it completed; then, when a signal stopped it and no
/// signal is ending `io` already (`last_line`), the signal's last line.
fn say_ending(result: &RunResult, config: &Config, last_line: bool) -> Result<(), String> {
    let resume = resume_command(&result.run_id, config.root(), config.profile());
    let hint = match &result.outcome {
        RunOutcome::Completed { .. } => String::new(),
        _ => format!("\n  resume with: {resume}"),
    };
    // The outcome carries the model's final answer: outside input, kept on
    // the one line, so that no line of it reads as io's own.
    let ending = format!("{} {}", result.run_id, result.outcome);
    let printed = out(&format!("run {}{}\n", safe_line(&ending), safe(&hint)));
    if stopped_by().is_some() && last_line {
        // The last line, on stderr as a signal's always is, even when
        // stdout is gone (a closed terminal's `SIGHUP`).
        err(&ended_line(
            &result.run_id,
            result.outcome.as_outcome(),
            &resume,
        ));
    }
    printed
}

/// Refuses to resume `run_id` under another profile than the one its
/// journal says it began with: the profile's hooks (a policy check) are
/// part of what the run was, and a resume without them would go on
/// unchecked. A journal begun before profiles were kept says none, and is
/// not held to one.
fn same_profile(config: &Config, store: &FileStore, run_id: &str) -> Result<(), String> {
    // `origin` has read and verified the record already; anything but a
    // `begin` naming a profile holds the resume to none.
    let Ok(Some(Record::Begin {
        profile: Some(began),
        ..
    })) = store.begin(run_id)
    else {
        return Ok(());
    };
    if config.profile() == Some(began.as_str()) {
        return Ok(());
    }
    let given = config.profile().map_or_else(
        || "no `--profile`".to_owned(),
        |p| format!("`--profile {p}`"),
    );
    Err(format!(
        "run `{run_id}` began with `--profile {began}`, and this resume gives {given}: the \
         profile's hooks (a policy check among them) are part of what the run was. Resume it \
         with the same: {}",
        resume_command(run_id, config.root(), Some(&began))
    ))
}

/// A policy check that cannot run is not a policy check: a run whose
/// `on_failure = "cancel"` hook has a problem (printed just before) would
/// be cancelled at that hook's first event, after the step's tools had run.
/// So the run is not started, and the error names each such hook and the
/// way out. A `continue` hook's problem is only warned about.
fn cancel_hooks_can_run(
    specs: &[HookSpec<EventKind>],
    problems: &[io_hooks::Problem],
) -> Result<(), String> {
    let mut broken: Vec<String> = problems
        .iter()
        .filter(|p| {
            specs
                .get(p.index)
                .is_some_and(|spec| spec.on_failure == Flow::Cancel)
        })
        .map(|p| p.origin.label())
        .collect();
    broken.dedup();
    let (hooks, has) = match broken.as_slice() {
        [] => return Ok(()),
        [one] => (one.clone(), "has"),
        [rest @ .., last] => (format!("{} and {last}", rest.join(", ")), "have"),
    };
    Err(format!(
        "the run was not started: {hooks} {has} `on_failure = \"cancel\"` and cannot run as \
         written (the problem is above), so the first event it is given would cancel the run, \
         after that step's tools had run; fix it (`io check` shows it), or set \
         `on_failure = \"continue\"` to run without the check"
    ))
}

pub(crate) fn exit_code(result: &RunResult) -> ExitCode {
    match result.outcome {
        RunOutcome::Completed { .. } => ExitCode::SUCCESS,
        RunOutcome::Cancelled { .. } => ExitCode::from(EXIT_CANCELLED),
        RunOutcome::Failed { .. } => ExitCode::from(1),
        // `io`'s observer says so on a signal, whose code it is; Ctrl-C's
        // otherwise.
        RunOutcome::Interrupted { .. } => stopped_exit_code().unwrap_or(ExitCode::from(130)),
    }
}

/// 128 + the signal that stopped the run, when one did: `io`'s exit code
/// then, whatever the run's ending.
pub(crate) fn stopped_exit_code() -> Option<ExitCode> {
    stopped_by().map(|signal| ExitCode::from(u8::try_from(128 + signal).unwrap_or(u8::MAX)))
}

/// Returns the command that resumes `run_id` in `root` with `profile` (a
/// profile's policy check is part of what the run was), each word quoted
/// to paste into a POSIX shell ([`pasteable`]): `io run --resume r-1 --root
/// '/w $x' --profile ci`. When the root's name cannot be printed as it is
/// (not UTF-8, a control character), the same with `--root .` and the root
/// to run it in, shown escaped; when the id or the profile cannot, why no
/// command is printed.
pub(crate) fn resume_command(run_id: &str, root: &Path, profile: Option<&str>) -> String {
    let mut words: Vec<&OsStr> = vec![
        OsStr::new("io"),
        OsStr::new("run"),
        OsStr::new("--resume"),
        OsStr::new(run_id),
        OsStr::new("--root"),
        root.as_os_str(),
    ];
    if let Some(profile) = profile {
        words.extend([OsStr::new("--profile"), OsStr::new(profile)]);
    }
    let root_at = 5;
    let bad_root = match pasteable(&words) {
        Ok(command) => return command,
        Err((at, why)) if at == root_at => why,
        Err((at, why)) => return unprinted(at, why),
    };
    words[root_at] = OsStr::new(".");
    match pasteable(&words) {
        Ok(command) => format!(
            "{command}, run in the root, {} (its name {bad_root}, so it is not printed to paste)",
            root.display()
        ),
        Err((at, why)) => unprinted(at, why),
    }
}

/// Why [`resume_command`] prints no command: word `at` (the run's id, or
/// the profile's name) cannot be printed as it is.
fn unprinted(at: usize, why: &str) -> String {
    let what = if at == 3 {
        "run's id"
    } else {
        "profile's name"
    };
    format!("`io run --resume` (no command to paste is printed: the {what} {why})")
}

/// The MCP servers of the config's `[[mcp]]` tables (`name` and `command`,
/// an argv), from the last scope that declares `mcp`, as hooks are. Other
/// keys of those tables belong to whoever owns `[[mcp]]` and are left alone.
fn mcp_servers(config: &Config) -> Result<BTreeMap<String, Vec<String>>, String> {
    let Some((source, value)) = config
        .sources()
        .iter()
        .rev()
        .find_map(|s| s.document().get("mcp").map(|v| (s, v)))
    else {
        return Ok(BTreeMap::new());
    };
    let file = source.path().display();
    let tables = value
        .as_array()
        .ok_or_else(|| format!("{file}: key `mcp`: expected an array of tables, as `[[mcp]]`"))?;
    let mut servers = BTreeMap::new();
    for (i, table) in tables.iter().enumerate() {
        let key = format!("mcp[{}]", i + 1);
        let name = table
            .get("name")
            .and_then(toml::Value::as_str)
            .ok_or_else(|| {
                format!("{file}: key `{key}.name`: expected the server's name, a string")
            })?;
        let command: Option<Vec<String>> = table
            .get("command")
            .and_then(toml::Value::as_array)
            .and_then(|argv| argv.iter().map(|a| a.as_str().map(str::to_owned)).collect());
        let command = command
            .filter(|argv| argv.first().is_some_and(|p| !p.is_empty()))
            .ok_or_else(|| {
                format!("{file}: key `{key}.command`: expected an argv array, program first, as `command = [\"./scripts/docs-mcp\"]`")
            })?;
        servers.insert(name.to_owned(), command);
    }
    Ok(servers)
}

/// The name and the text of the script a stored run was started from, as
/// its journal pinned them, from a journal that may be trusted: not tracked
/// by git (a clone's), reached through no symbolic link, owned by this user
/// and writable by nobody else, and sealed with this user's key (checked by
/// [`FileStore::begin`]), or adopted by the operator first (`adopt`). No
/// file is read: a resume runs the script its run began with, never one the
/// journal merely names.
fn origin(
    config: &Config,
    store: &FileStore,
    run_id: &str,
    adopt: bool,
) -> Result<(String, String), String> {
    let journal = store.journal(run_id).map_err(|e| e.to_string())?;
    let path = store.dir().join(journal.file_name().unwrap_or_default());
    match config.tracks(&journal) {
        Ok(false) => {}
        Ok(true) => {
            return Err(format!(
                "{}: refused: git tracks this journal, so it came with the clone, not from a run \
                 of yours; a run is resumed only from a journal its own user's runs wrote",
                path.display()
            ));
        }
        Err(reason) => {
            return Err(format!(
                "{}: refused: whether git tracks this journal could not be told ({reason})",
                path.display()
            ));
        }
    }
    if adopt {
        adopt_journal(store, run_id, &path)?;
    }
    let begin = store.begin(run_id).map_err(|e| match e {
        StoreError::Unsealed { line: 1, .. } => format!(
            "{e}. If the run is yours (its journal copied from another machine, or begun by an \
             `io` from before journals were sealed), add `--adopt-journal` to this command: it \
             says what the run will do, seals the journal with your key and resumes it"
        ),
        e => e.to_string(),
    })?;
    match begin {
        None => Err(format!("no run `{run_id}` in {}", store.dir().display())),
        Some(Record::Begin {
            origin,
            script: Some(script),
            ..
        }) => Ok((
            origin.unwrap_or_else(|| "the journal's script".to_owned()),
            script,
        )),
        Some(Record::Begin {
            origin: Some(_), ..
        }) => Err(format!(
            "run `{run_id}` was begun by an `io` that kept no copy of its script in the journal, \
             so it cannot be resumed: a resume runs only the script its run began with, and \
             reads no file a journal names. Start it again with `io run SCRIPT`"
        )),
        Some(_) => Err(format!(
            "run `{run_id}` does not say which script it came from, so it cannot be resumed here"
        )),
    }
}

/// How much of a goal the adoption's notice shows.
const GOAL_SHOWN: usize = 60;

/// Adopts `run_id`'s journal (at `path`): seals it with this user's key
/// when no `io` of theirs did, saying first what the run is and what it
/// will do (on stderr, before the run's first line). Nothing is said of a
/// journal the key already verifies.
fn adopt_journal(store: &FileStore, run_id: &str, path: &Path) -> Result<(), String> {
    let Some(records) = store.adopt(run_id).map_err(|e| e.to_string())? else {
        return Ok(());
    };
    let (goal, origin) = match records.first() {
        Some(Record::Begin { goal, origin, .. }) => (goal.as_str(), origin.as_deref()),
        _ => ("", None),
    };
    let steps = records
        .iter()
        .filter_map(|r| match r {
            Record::Step { step, .. } => Some(*step),
            Record::End { steps, .. } => Some(*steps),
            _ => None,
        })
        .next_back()
        .unwrap_or(0);
    let mut shown: String = goal.chars().take(GOAL_SHOWN).collect();
    if goal.chars().count() > GOAL_SHOWN {
        shown.push('…');
    }
    let from = origin.map_or_else(String::new, |o| format!(", begun from {o}"));
    err(&safe(&format!(
        "io: adopted {}: no `io` of yours had sealed it; it is sealed with your key now, and run \
         {run_id} resumes after step {steps} with the script its journal pinned{}: {}\n",
        path.display(),
        safe_line(&from),
        safe_line(&shown)
    )));
    Ok(())
}

/// Fires each event at the hooks and prints a line of progress for it:
/// streamed text as it arrives, then each other event with what its hooks
/// did.
struct Progress<'h> {
    hooks: &'h Hooks,
    /// The root the run acts on, for the resume command a signal prints.
    root: &'h Path,
    /// The profile the run was started with, which its resume needs too.
    profile: Option<&'h str>,
    /// The run whose streamed text is on the current line, if any.
    streaming: Mutex<Option<String>>,
}

impl<'h> Progress<'h> {
    fn new(hooks: &'h Hooks, root: &'h Path, profile: Option<&'h str>) -> Self {
        Progress {
            hooks,
            root,
            profile,
            streaming: Mutex::new(None),
        }
    }

    fn finish(&self) {
        let mut streaming = lock(&self.streaming);
        if streaming.take().is_some() {
            let _ = out("\n");
        }
    }
}

impl Progress<'_> {
    /// What a signal does from the top-level run's `started` on: it stops
    /// the run ([`run_started`]), or, should it end `io` at once (a second
    /// one), says which run it interrupted and how to go on with it; and
    /// from its `finished` on, once its end is journaled, it ends `io` at
    /// once, saying there is nothing to resume if the run completed.
    fn follow(&self, event: &RunEvent) {
        if event.depth != 0 {
            return;
        }
        match &event.kind {
            EventKind::Started { .. } => {
                let resume = resume_command(&event.run_id, self.root, self.profile);
                on_signal(Some(ended_line(
                    &event.run_id,
                    Outcome::Interrupted,
                    &resume,
                )));
                run_started(&event.run_id);
            }
            EventKind::Finished { outcome, .. } => {
                run_ending();
                let resume = resume_command(&event.run_id, self.root, self.profile);
                on_signal(Some(ended_line(&event.run_id, *outcome, &resume)));
            }
            _ => {}
        }
    }
}

/// The last line `io` prints when a signal ends it, or stops the run,
/// and run `run_id` has ended with `outcome` (`interrupted` for a run the
/// signal ends in flight): the command that resumes it; for one that had
/// completed, that there is nothing to resume.
fn ended_line(run_id: &str, outcome: Outcome, resume: &str) -> String {
    let run_id = safe_line(run_id);
    let how = match outcome {
        Outcome::Completed => {
            return format!(
                "io: run {run_id} had completed; the signal ended only its hooks' work\n"
            );
        }
        Outcome::Cancelled => "cancelled",
        Outcome::Failed => "failed",
        Outcome::Interrupted => "interrupted",
    };
    format!(
        "io: run {run_id} {how}; resume it with: {}\n",
        safe_line(resume)
    )
}

/// `mutex`'s guard; a thread that panicked holding it left a string whole.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Observer for Progress<'_> {
    /// The first signal while the run is in flight ([`run_started`]) stops
    /// it: read here, under the lock the signal thread set it under before
    /// it ended the hooks in flight.
    fn interrupted(&self) -> bool {
        stopped_by().is_some()
    }

    fn event(&self, event: &RunEvent) -> Flow {
        self.follow(event);
        let mut fired = Vec::new();
        let indent = "  ".repeat(event.depth as usize + 1);
        let mut tails = String::new();
        let flow = self.hooks.fire_with(event, event, |run| {
            fired.push(report(&run));
            if let Some(tail) = run.stderr {
                tails.push_str(&stderr_tail(
                    &run.origin.label(),
                    tail,
                    &format!("{indent}    "),
                ));
            }
        });
        let mut streaming = lock(&self.streaming);
        let mut text = String::new();
        if let EventKind::Token { text: token, .. } = &event.kind {
            if streaming.as_deref() != Some(event.run_id.as_str()) {
                if streaming.is_some() {
                    text.push('\n');
                }
                text.push_str(&format!("{indent}model: "));
                *streaming = Some(event.run_id.clone());
            }
            let token = token.replace('\n', " ");
            // The first token of a line carries the whitespace before it.
            text.push_str(if text.ends_with("model: ") {
                token.trim_start()
            } else {
                &token
            });
        } else {
            if streaming.take().is_some() {
                text.push('\n');
            }
            text.push_str(&format!("{indent}{}", safe_line(&summary(event))));
        }
        if !fired.is_empty() {
            // The hooks' line ends the model's line: a token's hooks are
            // said under it, and the next token starts a line of its own.
            streaming.take();
            text.push_str(&format!("\n{indent}  hooks: {}", fired.join(", ")));
            if flow == Flow::Cancel {
                text.push_str(" -> the run ends at the next step boundary");
            }
            text.push('\n');
            text.push_str(&tails);
        } else if streaming.is_none() {
            text.push('\n');
        }
        // Progress is a courtesy: a closed stdout must not change the run.
        let _ = out(&safe(&text));
        flow
    }
}

/// One line for an event: its tag and its payload, compact.
fn summary(event: &RunEvent) -> String {
    let who = format!("[{}]", event.run_id);
    match &event.kind {
        EventKind::Started { goal, resumed } => {
            let how = if *resumed { "resumed" } else { "started" };
            format!("{who} {how}: {goal}")
        }
        EventKind::Step {
            step,
            moved_the_workspace,
        } => format!(
            "{who} step {step} committed ({})",
            if *moved_the_workspace {
                "moved the workspace"
            } else {
                "no progress"
            }
        ),
        EventKind::Finished { outcome, steps, .. } => {
            let outcome = serde_json::to_value(outcome).unwrap_or_default();
            format!(
                "{who} finished: {} after {}",
                outcome.as_str().unwrap_or("?"),
                io_harness::run::steps(*steps)
            )
        }
        other => {
            let mut fields = serde_json::to_value(other).unwrap_or_default();
            if let Some(map) = fields.as_object_mut() {
                map.shift_remove("event");
                map.shift_remove("step");
            }
            let mut fields = fields.to_string();
            if fields.len() > 100 {
                let mut end = 97;
                while !fields.is_char_boundary(end) {
                    end -= 1;
                }
                fields.truncate(end);
                fields.push_str("...");
            }
            format!("{} {fields}", event.tag())
        }
    }
}
