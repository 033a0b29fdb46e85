//! An action added through the plug-in gets the engine's `background` and
//! `timeout_ms` by declaring that it honours them (`ActionKind::BACKGROUND`,
//! `ActionKind::TIMEOUT`), and never a background hook whose failure
//! cancels: those rules are the engine's, not each action's.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::ThreadId;

use std::time::Duration;

use io_hooks::{
    Action, ActionKind, ActionTable, AppendAction, DEFAULT_TIMEOUT, Effects, Execute, Fire, Flow,
    HookEvents, HookFailure, HookFilter, HookKey, HookSpec, Hooks, Layout, Origin, Prepare,
    RunAction, TableError, TomlFile,
};

#[derive(HookEvents, serde::Serialize)]
#[serde(tag = "event")]
enum Ev {
    #[serde(rename = "tick")]
    Tick { n: u32 },
}

/// The thread (its id and name) each event's line was executed on, with
/// the event's tag and its timeout, by everyone.
type Seen = Arc<Mutex<Vec<(String, ThreadId, Option<String>)>>>;

/// What `Fire` said besides the line: the tag, the timeout, and whether the
/// deadline was the timeout from about when the event began.
type Said = Arc<Mutex<Vec<(&'static str, Option<Duration>, bool)>>>;

/// `tally = true`: records each line and the thread it ran on; honours the
/// engine's `background` and `timeout_ms`.
struct TallyKind(Seen, Said);

#[derive(Debug, Clone)]
struct Tally(Seen, Said);

impl ActionKind for TallyKind {
    type Action = Tally;
    const KEY: HookKey = HookKey::new(
        "tally",
        "`true`, as in `tally = true`",
        |_| serde_json::json!({ "const": true }),
    );
    const OPTIONS: &'static [HookKey] = &[HookKey::new(
        "tone",
        "a tone from 0 to 9, as in `tone = 3`",
        |_| serde_json::json!({ "type": "integer" }),
    )];
    const VERB: &'static str = "tallies";
    const TIMEOUT: bool = true;
    const BACKGROUND: bool = true;

    fn validate(&self, table: &mut ActionTable<'_>) -> Result<Tally, TableError> {
        let shown = format!("{table:?}");
        assert!(shown.contains(r#"key: "tally""#), "{shown}");
        if let Some(tone) = table.option::<u8>("tone")?
            && tone > 9
        {
            return Err(table.refuse("tone", "a tone is from 0 to 9"));
        }
        match table.value::<bool>()? {
            true => Ok(Tally(Arc::clone(&self.0), Arc::clone(&self.1))),
            false => Err(table.refuse("tally", "write `tally = true`, or no hook")),
        }
    }
}

impl Execute for Tally {
    fn describe(&self, _: &Path) -> String {
        "tally".to_owned()
    }
    fn prepare(&self, _: &mut Prepare<'_>) -> Self {
        self.clone()
    }
    fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
        let line = String::from_utf8_lossy(fire.line()).into_owned();
        let thread = std::thread::current();
        let began = std::time::Instant::now();
        let near = match (fire.timeout(), fire.deadline()) {
            (Some(timeout), Some(deadline)) => {
                deadline <= began + timeout && deadline + Duration::from_secs(5) > began + timeout
            }
            _ => false,
        };
        let mut said = self.1.lock().unwrap_or_else(PoisonError::into_inner);
        said.push((fire.tag(), fire.timeout(), near));
        let mut seen = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        seen.push((line, thread.id(), thread.name().map(str::to_owned)));
        Ok(())
    }
}

fn tally(seen: &Seen) -> TallyKind {
    TallyKind(Arc::clone(seen), Said::default())
}

fn hooks(text: &str, seen: &Seen, dir: &Path) -> Hooks<Ev> {
    let layout = Layout::new().action(tally(seen));
    let specs = TomlFile::new("app.toml", text)
        .layout(&layout)
        .hooks::<Ev>(dir)
        .unwrap();
    Hooks::new(specs, dir)
}

#[test]
fn an_added_action_that_asks_runs_on_its_worker_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let seen = Seen::default();
    let hooks = hooks(
        "[[hook]]\ntally = true\nbackground = true\n",
        &seen,
        dir.path(),
    );
    let mut queued = Vec::new();
    for n in 0..50 {
        let flow = hooks.fire_with(&Ev::Tick { n }, &Ev::Tick { n }, |run| {
            queued.push(run.background);
        });
        assert_eq!(flow, Flow::Continue);
    }
    hooks.wait_background();
    assert!(queued.iter().all(|q| *q), "{queued:?}");
    let seen = seen.lock().unwrap();
    let lines: Vec<&str> = seen.iter().map(|(line, ..)| line.as_str()).collect();
    let expected: Vec<String> = (0..50)
        .map(|n| format!("{{\"event\":\"tick\",\"n\":{n}}}\n"))
        .collect();
    assert_eq!(lines, expected);
    let here = std::thread::current().id();
    assert!(seen.iter().all(|(_, thread, _)| *thread != here));
}

#[test]
fn a_background_worker_thread_is_named_by_its_hook_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let seen = Seen::default();
    let mut specs = TomlFile::new("app.toml", "[[hook]]\ntally = true\nbackground = true\n")
        .layout(&Layout::new().action(tally(&seen)))
        .hooks::<Ev>(dir.path())
        .unwrap();
    let staged = Origin::new(Some("deploy.toml"), "stage.apply.hook[1]");
    specs.push(specs[0].clone().with_origin(staged));
    // A key no thread can be named by: only code can give one.
    specs.push(specs[0].clone().with_origin(Origin::new(None, "a\0b")));
    let hooks = Hooks::new(specs, dir.path());
    let flow = hooks.fire(&Ev::Tick { n: 1 }, &Ev::Tick { n: 1 });
    assert_eq!(flow, Flow::Continue);
    hooks.wait_background();
    let seen = seen.lock().unwrap();
    let mut names: Vec<&str> = seen.iter().filter_map(|(.., n)| n.as_deref()).collect();
    names.sort_unstable();
    assert_eq!(names, ["hook[1]", "hook[3]", "stage.apply.hook[1]"]);
}

/// A table cannot ask for both: `background = true` with
/// `on_failure = "cancel"` is refused for an added action as for `run`.
#[test]
fn an_added_background_action_that_cancels_is_refused_at_its_line() {
    let seen = Seen::default();
    let layout = Layout::new().action(tally(&seen));
    let err = TomlFile::new(
        "app.toml",
        "[[hook]]\ntally = true\non_failure = \"cancel\"\nbackground = true\n",
    )
    .layout(&layout)
    .hooks::<Ev>(Path::new("/p"))
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "app.toml: key `hook[1].background`: `background = true` cannot go with `on_failure = \
         \"cancel\"`: a cancel from the background would land on a later step than the event \
         that caused it, and a policy check must block; remove `background`, or make the hook \
         `on_failure = \"continue\"` (line 4, column 14)"
    );
}

/// Built in code, a background action whose failure cancels runs while the
/// host waits (its cancel must come with its event), and building the
/// hooks says so rather than keep it silent.
#[test]
fn an_added_action_whose_failure_cancels_runs_while_the_host_waits() {
    let dir = tempfile::tempdir().unwrap();
    let seen = Seen::default();
    let action = Action::new::<TallyKind>(Tally(Arc::clone(&seen), Said::default()));
    let spec =
        HookSpec::new(HookFilter::<Ev>::ALL, action.in_background()).with_on_failure(Flow::Cancel);
    let hooks = Hooks::new(vec![spec], dir.path());
    let problems: Vec<String> = hooks.problems().iter().map(ToString::to_string).collect();
    assert_eq!(
        problems,
        [
            "hook[1]: it runs in the background and its failure cancels the run, which cannot go \
          together: a cancel from the background would land on a later step than the event \
          that caused it, so it runs while the host waits"
        ]
    );
    let mut queued = Vec::new();
    let flow = hooks.fire_with(&Ev::Tick { n: 1 }, &Ev::Tick { n: 1 }, |run| {
        queued.push(run.background);
    });
    assert_eq!(flow, Flow::Continue);
    assert_eq!(queued, [false]);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].1, std::thread::current().id());
}

/// `Fire` carries the event's tag and, for an action that honours
/// `timeout_ms`, the hook's timeout and its deadline, on the host's thread
/// and on a background worker alike.
#[test]
fn fire_carries_the_tag_the_timeout_and_the_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let seen = Seen::default();
    let said = Said::default();
    let layout = Layout::new().action(TallyKind(Arc::clone(&seen), Arc::clone(&said)));
    let text = "[[hook]]\ntally = true\n[[hook]]\ntally = true\ntimeout_ms = 700\n\
                background = true\n";
    let specs = TomlFile::new("app.toml", text)
        .layout(&layout)
        .hooks::<Ev>(dir.path())
        .unwrap();
    assert_eq!(specs[0].action.timeout(), Some(DEFAULT_TIMEOUT));
    assert_eq!(
        specs[1].action.describe(dir.path()),
        "tally (timeout 700 ms, in the background)"
    );
    let hooks = Hooks::new(specs, dir.path());
    assert_eq!(hooks.fire_event(&Ev::Tick { n: 1 }), Flow::Continue);
    hooks.wait_background();
    let mut said = said.lock().unwrap().clone();
    said.sort_by_key(|(_, timeout, _)| *timeout);
    assert_eq!(
        said,
        [
            ("tick", Some(Duration::from_millis(700)), true),
            ("tick", Some(DEFAULT_TIMEOUT), true)
        ]
    );
}

/// `mute = true`, with an option `volume` it declares and never reads; it
/// honours neither `timeout_ms` nor `background`.
struct CarelessKind;

#[derive(Debug, Clone, PartialEq)]
struct Careless;

impl ActionKind for CarelessKind {
    type Action = Careless;
    const KEY: HookKey = HookKey::new(
        "mute",
        "`true` or `false`, as in `mute = true`",
        |_| serde_json::json!({ "type": "boolean" }),
    );
    const OPTIONS: &'static [HookKey] = &[HookKey::new(
        "volume",
        "a whole number, as in `volume = 3`",
        |_| serde_json::json!({}),
    )];
    const VERB: &'static str = "mutes";

    fn validate(&self, table: &mut ActionTable<'_>) -> Result<Careless, TableError> {
        if table.cancels() {
            return Err(table.refuse("mute", "a mute cannot cancel"));
        }
        Ok(Careless)
    }
}

/// Says what it was prepared with, as a problem; fails once the hooks are
/// interrupted.
impl Execute for Careless {
    fn describe(&self, _: &Path) -> String {
        "mute".to_owned()
    }
    fn prepare(&self, cx: &mut Prepare<'_>) -> Self {
        assert!(cx.beneath().is_open() && cx.beneath().path() == cx.root());
        let said = format!("creates {}, cancels {}", cx.creates(), cx.cancels());
        cx.problem(said, None);
        self.clone()
    }
    fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
        assert_eq!(
            (fire.tag(), fire.timeout(), fire.deadline()),
            ("tick", None, None)
        );
        // The root the engine holds open, not one the action opens again.
        assert!(fire.beneath().is_open() && fire.beneath().path() == fire.root());
        match fire.supervisor().is_interrupted() {
            true => Err(HookFailure::action("mute", "interrupted")),
            false => Ok(()),
        }
    }
}

/// The engine's keys on an action that does not honour them are refused at
/// their line, in words that name this hook's action (never another
/// action's reason), and the list of actions that do honour them grows
/// with the layout's own.
#[test]
fn the_engines_keys_are_refused_on_an_action_that_does_not_honour_them() {
    let seen = Seen::default();
    let layout = Layout::new().action(CarelessKind).action(tally(&seen));
    let read = |text: &str| {
        TomlFile::new("app.toml", text)
            .layout(&layout)
            .hooks::<Ev>(Path::new("/p"))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        read("[[hook]]\nmute = true\nbackground = true\n"),
        "app.toml: key `hook[1].background`: `background` applies only to a `run` or `tally` \
         hook, and this hook mutes; remove it (line 3, column 14)"
    );
    assert_eq!(
        read("[[hook]]\nmute = true\ntimeout_ms = 5\n"),
        "app.toml: key `hook[1].timeout_ms`: `timeout_ms` applies only to a `run` or `tally` \
         hook, and this hook mutes; remove it (line 3, column 14)"
    );
    // `append`'s own reason stays `append`'s.
    assert_eq!(
        read("[[hook]]\nappend = \"a\"\nbackground = true\n"),
        "app.toml: key `hook[1].background`: `background` applies only to a `run` or `tally` \
         hook, and this hook appends (an append is one write, done in microseconds, which never \
         holds the run up); remove it (line 3, column 14)"
    );
    // An action's own option is another action's key of another action.
    assert_eq!(
        read("[[hook]]\nrun = [\"x\"]\nvolume = 3\n"),
        "app.toml: key `hook[1].volume`: `volume` applies only to a `mute` hook, and this hook \
         runs a program; remove it (line 3, column 10)"
    );
    assert_eq!(
        read("[[hook]]\ntally = true\ntimeout_ms = 0\n"),
        "app.toml: key `hook[1].timeout_ms`: `timeout_ms = 0` is not a timeout; write a whole \
         number of milliseconds, at least 1 (line 3, column 14)"
    );
}

/// A value of an added action's key of the wrong type reads as a built-in
/// key's does: what was written, and what the key accepts, with its
/// example; never the words of the Rust type it was read as.
#[test]
fn a_wrong_type_for_an_added_key_says_what_the_key_accepts() {
    let seen = Seen::default();
    let layout = Layout::new().action(tally(&seen)).action(CarelessKind);
    let read = |text: &str| {
        TomlFile::new("app.toml", text)
            .layout(&layout)
            .hooks::<Ev>(Path::new("/p"))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        read("[[hook]]\ntally = 3\n"),
        "app.toml: key `hook[1].tally`: invalid type: integer `3`, expected `true`, as in \
         `tally = true` (line 2, column 9)"
    );
    // An option's too, in its own words.
    assert_eq!(
        read("[[hook]]\ntally = true\ntone = \"3\"\n"),
        "app.toml: key `hook[1].tone`: invalid type: string \"3\", expected a tone from 0 to 9, \
         as in `tone = 3` (line 3, column 8)"
    );
    assert_eq!(
        read("[[hook]]\ntally = true\ntone = 300\n"),
        "app.toml: key `hook[1].tone`: invalid value: integer `300`, expected a tone from 0 to \
         9, as in `tone = 3` (line 3, column 8)"
    );
    assert_eq!(
        read("[[hook]]\ntally = [1]\n"),
        "app.toml: key `hook[1].tally`: invalid type: array, expected `true`, as in \
         `tally = true` (line 2, column 9)"
    );
}

/// An option an action declares and its `validate` leaves unread would be
/// silently off: the engine refuses the table, naming it.
#[test]
fn an_option_the_action_leaves_unread_is_refused_not_ignored() {
    let layout = Layout::new().action(CarelessKind);
    let read = |text: &str| {
        TomlFile::new("app.toml", text)
            .layout(&layout)
            .hooks::<Ev>(Path::new("/p"))
    };
    assert_eq!(read("[[hook]]\nmute = true\n").unwrap().len(), 1);
    assert_eq!(
        read("[[hook]]\nmute = true\nvolume = 3\n")
            .unwrap_err()
            .to_string(),
        "app.toml: key `hook[1].volume`: the `mute` action declares `volume` but does not read \
         it, so its value would be ignored; remove it, and report this to the program's \
         authors (line 3, column 10)"
    );
}

/// Two layouts are equal when they read a file alike: the same own
/// actions, known by their keys, in the same order.
#[test]
fn layouts_with_the_same_own_actions_are_equal_and_others_are_not() {
    let seen = Seen::default();
    let tallies = || Layout::new().action(tally(&seen));
    assert_eq!(tallies(), tallies());
    assert_ne!(tallies(), Layout::new());
    assert_ne!(tallies(), Layout::new().action(CarelessKind));
    let both = tallies().action(CarelessKind);
    let other_order = Layout::new().action(CarelessKind).action(tally(&seen));
    assert_ne!(both, other_order);
    assert_eq!(both, tallies().action(CarelessKind));
    // Its `Debug` lists its own actions by key.
    let shown = format!("{both:?}");
    assert!(shown.contains(r#"actions: ["tally", "mute"]"#), "{shown}");
}

/// What an action is prepared with and fires with is the engine's truth:
/// `Hooks::check` creates nothing, `on_failure = "cancel"` is said, and
/// the host's interrupt reaches `Fire`.
#[test]
fn an_added_action_is_prepared_and_fired_with_what_the_hooks_know() {
    let layout = Layout::new().action(CarelessKind);
    let dir = tempfile::tempdir().unwrap();
    let read = |text: &str| {
        TomlFile::new("app.toml", text)
            .layout(&layout)
            .hooks::<Ev>(dir.path())
    };
    let specs = read("[[hook]]\nmute = true\n").unwrap();
    let said = |problems: &[io_hooks::Problem]| -> Vec<String> {
        problems.iter().map(io_hooks::Problem::message).collect()
    };
    assert_eq!(
        said(&Hooks::check(&specs, dir.path())),
        ["creates false, cancels false"]
    );
    let hooks = Hooks::new(specs.clone(), dir.path());
    assert_eq!(said(hooks.problems()), ["creates true, cancels false"]);
    let cancelling = specs[0].clone().with_on_failure(Flow::Cancel);
    assert_eq!(
        said(&Hooks::check(&[cancelling], dir.path())),
        ["creates false, cancels true"]
    );
    // The table's own `on_failure`, read by the action's `validate`.
    assert_eq!(
        read("[[hook]]\nmute = true\non_failure = \"cancel\"\n")
            .unwrap_err()
            .to_string(),
        format!("app.toml: key `hook[1].mute`: a mute cannot cancel (line 2, column 8)")
    );
    assert_eq!(hooks.fire_event(&Ev::Tick { n: 1 }), Flow::Continue);
    hooks.supervisor().interrupt();
    let mut failures = Vec::new();
    let flow = hooks.fire_with(&Ev::Tick { n: 2 }, &Ev::Tick { n: 2 }, |run| {
        failures.push(run.result.map_err(ToString::to_string));
    });
    assert_eq!(flow, Flow::Continue);
    assert_eq!(failures, [Err("interrupted".to_owned())]);
}

/// An action is read as its own type, and named by its kind's key; each
/// effect is its own flag; an action with no rules of its own adds none to
/// the schema.
#[test]
fn actions_are_read_by_type_and_value_and_declare_their_effects() {
    let append = |path: &str| Action::append(path).get::<AppendAction>().cloned();
    assert_eq!(append("a"), append("a"));
    assert_ne!(append("a"), append("b"));
    assert!(Action::append("a").get::<RunAction>().is_none());
    assert!(Action::run(["a"]).get::<AppendAction>().is_none());
    let careless = Action::new::<CarelessKind>(Careless);
    assert_eq!(careless.get::<Careless>(), Some(&Careless));
    assert!(careless.get::<AppendAction>().is_none());
    // Its name is its kind's, declared once.
    assert_eq!(careless.key(), "mute");
    // The engine's keys it does not honour stay off, whatever is asked.
    let asked = careless
        .with_timeout(Duration::from_secs(1))
        .in_background();
    assert_eq!((asked.timeout(), asked.background()), (None, false));
    // Read at run time, as a checker reads them.
    let [writes, spawns, sends] = std::hint::black_box([
        Effects::WRITES_FILE,
        Effects::SPAWNS_PROCESS,
        Effects::SENDS_REQUEST,
    ]);
    assert!(writes.writes_file && !writes.spawns_process && !writes.sends_request);
    assert!(spawns.spawns_process && !spawns.writes_file && !spawns.sends_request);
    assert!(sends.sends_request && !sends.writes_file && !sends.spawns_process);
    assert_eq!(
        Action::new::<CarelessKind>(Careless).effects(),
        Effects::NONE
    );
    let layout = Layout::new().action(CarelessKind);
    let schema = io_hooks::hook_file_schema::<Ev>(|_| String::new(), "hooks", &layout);
    let rules = schema["$defs"]["hook"]["allOf"].as_array().unwrap();
    assert!(rules.iter().all(serde_json::Value::is_object), "{rules:?}");
}
