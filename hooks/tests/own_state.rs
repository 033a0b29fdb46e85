//! Issue 44: the embedder's own state under the hooks' root (a name it
//! gives `io_beneath::Root::own`, as io's `.io`) is out of every action's
//! reach. An `append` that reaches it, by its name, through `..` or
//! through a link a clone committed (`logs -> .io/runs`), is a problem when
//! the hooks are built and a failure each time it fires, and an action of
//! the embedder's own that opens through `Fire::beneath` is refused the
//! same way with no code of its own. The engine names no such state by
//! itself: `Hooks::new` owns nothing.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use common::{append, step};
use io_beneath::{Open, Root};
use io_hooks::{
    Action, ActionKind, ActionTable, Execute, Fire, Flow, HookFailure, HookFilter, HookKey,
    HookSpec, Hooks, Prepare, TableError,
};

/// The embedder's own state, as it names it to the root.
const STATE: &str = ".state";

/// A root whose `.state/runs` holds a journal, with the links a clone
/// would commit: `logs -> .state/runs`, `ln -> .state`, `chain -> ln`.
fn clone_with_links_in() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("clone");
    fs::create_dir_all(root.join(".state/runs")).unwrap();
    fs::create_dir(root.join("a")).unwrap();
    fs::write(root.join(".state/runs/r.jsonl"), "journal\n").unwrap();
    symlink(".state/runs", root.join("logs")).unwrap();
    symlink(".state", root.join("ln")).unwrap();
    symlink("ln", root.join("chain")).unwrap();
    (tmp, root)
}

/// The root as the embedder hands it to the hooks: owning `.state`.
fn owning(root: &Path) -> Root {
    Root::lazy(root).own(STATE)
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// What each hook's one event failed with, in hook order, and the flow.
fn fire_failures(hooks: &Hooks<common::Ev>) -> (Flow, Vec<String>) {
    let mut failures = Vec::new();
    let flow = hooks.fire_with(&step(1), &step(1), |run| {
        failures.push(
            run.result
                .err()
                .map_or_else(String::new, |e| ToString::to_string(&e)),
        );
    });
    (flow, failures)
}

/// Every way an `append` can reach the embedder's state is a problem that
/// names the path, the state and the way, with a hint; the hooks built
/// anyway create nothing there, and each event fails (cancelling, as
/// asked) naming the same, with the journal untouched.
#[test]
fn an_append_into_the_embedders_own_state_is_a_problem_and_a_failure() {
    let (_tmp, root) = clone_with_links_in();
    let state = "`.state`, the program's own state";
    let by_link = |link: &str| {
        format!(
            "it reaches {state}, through the symbolic link `{link}`, and that state is never reached through a link"
        )
    };
    let cases = [
        (
            ".state/audit.jsonl",
            format!("it is in {state}, which only the program itself opens"),
        ),
        (
            ".STATE/runs/audit.jsonl",
            format!("it is in {state}, which only the program itself opens"),
        ),
        (
            "a/../.state/runs/audit.jsonl",
            format!(
                "it reaches {state}, through `..`, and that state is reached by its own names alone"
            ),
        ),
        ("logs/audit.jsonl", by_link("logs")),
        ("ln/runs/audit.jsonl", by_link("ln")),
        ("chain/runs/audit.jsonl", by_link("chain")),
        ("logs/r.jsonl", by_link("logs")),
    ];
    let specs: Vec<_> = cases
        .iter()
        .map(|(rel, _)| append(&root.join(rel), &[], Flow::Cancel))
        .collect();
    let problems = Hooks::check_beneath(&specs, &owning(&root));
    let said: Vec<String> = problems.iter().map(io_hooks::Problem::message).collect();
    let expected: Vec<String> = cases
        .iter()
        .map(|(rel, why)| format!("append: `{}` is refused: {why}", root.join(rel).display()))
        .collect();
    assert_eq!(said, expected);
    assert!(
        problems[0]
            .hint()
            .unwrap()
            .starts_with("an append hook never writes `.state`, which holds the program's own state; name a file outside it"),
        "{:?}",
        problems[0].hint()
    );
    assert!(
        problems[3]
            .hint()
            .unwrap()
            .ends_with(", by a path that does not go through the symbolic link `logs`"),
        "{:?}",
        problems[3].hint()
    );

    let hooks = Hooks::beneath(specs, owning(&root));
    assert_eq!(hooks.problems(), problems.as_slice());
    assert_eq!(listing(&root.join(".state")), ["runs"]);
    assert_eq!(listing(&root.join(".state/runs")), ["r.jsonl"]);
    for _ in 0..2 {
        let (flow, failures) = fire_failures(&hooks);
        assert_eq!(flow, Flow::Cancel);
        let expected: Vec<String> = cases
            .iter()
            .map(|(rel, why)| format!("could not append to `{}`: {why}", root.join(rel).display()))
            .collect();
        assert_eq!(failures, expected);
    }
    assert_eq!(listing(&root.join(".state")), ["runs"]);
    assert_eq!(listing(&root.join(".state/runs")), ["r.jsonl"]);
    assert_eq!(
        fs::read_to_string(root.join(".state/runs/r.jsonl")).unwrap(),
        "journal\n"
    );
}

/// The engine names no state by itself: with `Hooks::new`, `.state` is a
/// directory like any other, and an append to it works.
#[test]
fn hooks_built_with_a_path_own_nothing() {
    let (_tmp, root) = clone_with_links_in();
    let log = root.join(".state/audit.jsonl");
    let hooks = Hooks::new(vec![append(&log, &[], Flow::Cancel)], &root);
    assert!(hooks.problems().is_empty(), "{:?}", hooks.problems());
    assert_eq!(hooks.fire_event(&step(1)), Flow::Continue);
    assert_eq!(fs::read_to_string(&log).unwrap().lines().count(), 1);
}

/// A link committed before the state exists (`logs -> .state/runs` in a
/// fresh clone) is a problem when the hooks are built, and once the
/// embedder has made its state, each event is refused through it; a link
/// made after the hooks were built too. Nothing lands in the state.
#[test]
fn state_made_after_the_hooks_were_built_is_refused_through_a_link() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    symlink(".state/runs", root.join("logs")).unwrap();
    let (early, late) = (
        root.join("logs/audit.jsonl"),
        root.join("later/audit.jsonl"),
    );
    let specs = vec![
        append(&early, &[], Flow::Continue),
        append(&late, &[], Flow::Continue),
    ];
    let hooks = Hooks::beneath(specs, owning(root));
    let said: Vec<String> = hooks
        .problems()
        .iter()
        .map(io_hooks::Problem::message)
        .collect();
    assert_eq!(
        said,
        [
            format!(
                "append: `{}` is refused: it reaches `.state`, the program's own state, through \
                 the symbolic link `logs`, and that state is never reached through a link",
                early.display()
            ),
            format!(
                "append: `{}` cannot be created: there is no directory `{}`",
                late.display(),
                root.join("later").display()
            ),
        ]
    );
    // The embedder makes its state, by its name; a link appears after.
    let journal = Open::append().create(0o600).dirs(0o700).own_state();
    drop(
        owning(root)
            .open_file(".state/runs/j.jsonl", &journal)
            .unwrap(),
    );
    symlink(".state/runs", root.join("later")).unwrap();
    let (flow, failures) = fire_failures(&hooks);
    assert_eq!(flow, Flow::Continue);
    for (failure, (path, link)) in failures.iter().zip([(&early, "logs"), (&late, "later")]) {
        let through = format!(
            "could not append to `{}`: it reaches `.state`, the program's own state, through ",
            path.display()
        );
        assert!(failure.starts_with(&through), "{failure}");
        // Without openat2 no link is followed at all, and it is named so.
        assert!(failure.contains(&format!("`{link}`")), "{failure}");
    }
    assert_eq!(listing(&root.join(".state/runs")), ["j.jsonl"]);
}

/// `note = "path"`: appends each event's line to `path` through the root
/// the engine holds open, with no check of its own.
struct NoteKind;

#[derive(Debug, Clone)]
struct Note(PathBuf);

impl ActionKind for NoteKind {
    type Action = Note;
    const KEY: HookKey = HookKey::new(
        "note",
        "a path, as in `note = \"notes.jsonl\"`",
        |_| serde_json::json!({ "type": "string" }),
    );
    const VERB: &'static str = "notes";

    fn validate(&self, table: &mut ActionTable<'_>) -> Result<Note, TableError> {
        table.value::<PathBuf>().map(Note)
    }
}

impl Execute for Note {
    fn describe(&self, _: &Path) -> String {
        format!("note to {}", self.0.display())
    }
    fn prepare(&self, _: &mut Prepare<'_>) -> Self {
        self.clone()
    }
    fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
        use std::io::Write;
        let how = Open::append().create(0o600);
        let note = |e: String| HookFailure::action("note", e);
        let opened = fire
            .beneath()
            .open_file(&self.0, &how)
            .map_err(|e| note(format!("`{}`: {e}", self.0.display())))?;
        opened
            .into_file()
            .write_all(fire.line())
            .map_err(|e| note(e.to_string()))
    }
}

/// An embedder's action that opens through `Fire::beneath` is refused the
/// embedder's state as `append` is, by its name and through a link, with
/// no check of its own; elsewhere it writes.
#[test]
fn an_embedders_action_is_refused_the_state_with_no_code_of_its_own() {
    let (_tmp, root) = clone_with_links_in();
    let note = |rel: &str| {
        HookSpec::<common::Ev>::new(
            HookFilter::ALL,
            Action::new::<NoteKind>(Note(PathBuf::from(rel))),
        )
    };
    let hooks = Hooks::beneath(
        vec![
            note(".state/runs/n.jsonl"),
            note("logs/n.jsonl"),
            note("a/n.jsonl"),
        ],
        owning(&root),
    );
    let (_, failures) = fire_failures(&hooks);
    assert_eq!(
        failures[0],
        "`.state/runs/n.jsonl`: it is in `.state`, the program's own state, which only the \
         program itself opens"
    );
    assert!(
        failures[1].starts_with(
            "`logs/n.jsonl`: it reaches `.state`, the program's own state, through the symbolic \
             link `logs`"
        ) || failures[1].contains("`logs`, which may lead out of the root"),
        "{}",
        failures[1]
    );
    assert_eq!(failures[2], "");
    assert_eq!(listing(&root.join(".state/runs")), ["r.jsonl"]);
    assert_eq!(
        fs::read_to_string(root.join("a/n.jsonl")).unwrap(),
        "{\"event\":\"step\",\"run_id\":1,\"depth\":0,\"n\":1}\n"
    );
}
