//! An action added through the plug-in gets the engine's background queue
//! by saying so (`Execute::background`), and never when its failure
//! cancels: that rule is the engine's, not each action's.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::ThreadId;

use io_hooks::{
    Action, ActionKind, ActionTable, Effects, Execute, Fire, Flow, HookAction, HookEvents,
    HookFailure, HookKey, Hooks, Layout, Origin, Prepare, TableError, TomlFile,
};

#[derive(HookEvents, serde::Serialize)]
#[serde(tag = "event")]
enum Ev {
    #[serde(rename = "tick")]
    Tick { n: u32 },
}

/// The thread (its id and name) each event's line was executed on, by
/// everyone.
type Seen = Arc<Mutex<Vec<(String, ThreadId, Option<String>)>>>;

/// `tally = true`: records each line and the thread it ran on, in the
/// background.
struct TallyKind(Seen);

#[derive(Debug, Clone)]
struct Tally(Seen);

impl PartialEq for Tally {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl ActionKind for TallyKind {
    fn key(&self) -> HookKey {
        HookKey::new("tally", |_| serde_json::json!({ "const": true }))
    }
    fn verb(&self) -> &'static str {
        "tallies"
    }
    fn validate(&self, table: &mut ActionTable<'_>) -> Result<Action, TableError> {
        let shown = format!("{table:?}");
        assert!(shown.contains(r#"key: "tally""#), "{shown}");
        match table.value::<bool>()? {
            true => Ok(Action::new(Tally(Arc::clone(&self.0)))),
            false => Err(table.refuse("tally", "write `tally = true`, or no hook")),
        }
    }
}

impl HookAction for Tally {
    fn key(&self) -> &'static str {
        "tally"
    }
    fn describe(&self, _: &Path) -> String {
        "tally".to_owned()
    }
    fn prepare(&self, _: &mut Prepare<'_>) -> Box<dyn Execute> {
        Box::new(self.clone())
    }
}

impl Execute for Tally {
    fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
        let line = String::from_utf8_lossy(fire.line()).into_owned();
        let mut seen = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let thread = std::thread::current();
        seen.push((line, thread.id(), thread.name().map(str::to_owned)));
        Ok(())
    }
    fn background(&self) -> bool {
        true
    }
}

fn hooks(text: &str, seen: &Seen, dir: &Path) -> Hooks<Ev> {
    let layout = Layout::new().action(TallyKind(Arc::clone(seen)));
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
    let hooks = hooks("[[hook]]\ntally = true\n", &seen, dir.path());
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
    let mut specs = TomlFile::new("app.toml", "[[hook]]\ntally = true\n")
        .layout(&Layout::new().action(TallyKind(Arc::clone(&seen))))
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

#[test]
fn an_added_action_whose_failure_cancels_runs_while_the_host_waits() {
    let dir = tempfile::tempdir().unwrap();
    let seen = Seen::default();
    let hooks = hooks(
        "[[hook]]\ntally = true\non_failure = \"cancel\"\n",
        &seen,
        dir.path(),
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

/// `mute = true`, with an option `volume` it declares and never reads.
struct CarelessKind;

#[derive(Debug, Clone, PartialEq)]
struct Careless;

impl ActionKind for CarelessKind {
    fn key(&self) -> HookKey {
        HookKey::new("mute", |_| serde_json::json!({ "type": "boolean" }))
    }
    fn options(&self) -> &'static [HookKey] {
        const OPTIONS: &[HookKey] = &[HookKey::new("volume", |_| serde_json::json!({}))];
        OPTIONS
    }
    fn verb(&self) -> &'static str {
        "mutes"
    }
    fn validate(&self, table: &mut ActionTable<'_>) -> Result<Action, TableError> {
        if table.cancels() {
            return Err(table.refuse("mute", "a mute cannot cancel"));
        }
        Ok(Action::new(Careless))
    }
}

impl HookAction for Careless {
    fn key(&self) -> &'static str {
        "mute"
    }
    fn describe(&self, _: &Path) -> String {
        "mute".to_owned()
    }
    /// Says what it was prepared with, as a problem.
    fn prepare(&self, cx: &mut Prepare<'_>) -> Box<dyn Execute> {
        let said = format!("creates {}, cancels {}", cx.creates(), cx.cancels());
        cx.problem(said, None);
        Box::new(self.clone())
    }
}

/// Fails once the hooks are interrupted.
impl Execute for Careless {
    fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
        match fire.supervisor().is_interrupted() {
            true => Err(HookFailure::action("mute", "interrupted")),
            false => Ok(()),
        }
    }
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
    let tally = || Layout::new().action(TallyKind(Arc::clone(&seen)));
    assert_eq!(tally(), tally());
    assert_ne!(tally(), Layout::new());
    assert_ne!(tally(), Layout::new().action(CarelessKind));
    let both = tally().action(CarelessKind);
    let other_order = Layout::new()
        .action(CarelessKind)
        .action(TallyKind(Arc::clone(&seen)));
    assert_ne!(both, other_order);
    assert_eq!(both, tally().action(CarelessKind));
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
        problems.iter().map(|p| p.kind.to_string()).collect()
    };
    assert_eq!(
        said(&Hooks::check(&specs, dir.path())),
        ["creates false, cancels false"]
    );
    let hooks = Hooks::new(specs.clone(), dir.path());
    assert_eq!(said(hooks.problems()), ["creates true, cancels false"]);
    let cancelling = specs[0]
        .clone()
        .with_on_failure(io_hooks::OnFailure::Cancel);
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

/// Actions compare by type and value; each effect is its own flag; an
/// action with no rules of its own adds none to the schema.
#[test]
fn actions_compare_by_type_and_value_and_declare_their_effects() {
    assert_eq!(Action::append("a"), Action::append("a"));
    assert_ne!(Action::append("a"), Action::append("b"));
    assert_ne!(Action::append("a"), Action::run(["a"]));
    assert_ne!(Action::new(Careless), Action::append("a"));
    // Read at run time, as a checker reads them.
    let [writes, spawns, sends] = std::hint::black_box([
        Effects::WRITES_FILE,
        Effects::SPAWNS_PROCESS,
        Effects::SENDS_REQUEST,
    ]);
    assert!(writes.writes_file && !writes.spawns_process && !writes.sends_request);
    assert!(spawns.spawns_process && !spawns.writes_file && !spawns.sends_request);
    assert!(sends.sends_request && !sends.writes_file && !sends.spawns_process);
    assert_eq!(Action::new(Careless).effects(), Effects::NONE);
    let layout = Layout::new().action(CarelessKind);
    let schema = io_hooks::schema::hook_file_schema::<Ev>(|_| String::new(), "hooks", &layout);
    let rules = schema["$defs"]["hook"]["allOf"].as_array().unwrap();
    assert!(rules.iter().all(serde_json::Value::is_object), "{rules:?}");
}
