//! Every error type of both crates, made by a real failure and printed as a
//! chain printer prints it (`Display`, then each `source()`, joined with
//! ": "): no cause shows twice, and an OS error reads one way, without
//! std's " (os error N)".
#![cfg(unix)] // Unix-only: it compares the system's error texts (strerror), which Windows words its own way (issue 47)

use std::error::Error;
use std::fs;
use std::process::Stdio;
use std::time::Duration;

use io_harness::run::{FileStore, RunError, ScriptedProvider, Store, StoreError};
use io_harness::{Config, ConfigError, EventKind, HookFilter, HookSpec};
use io_hooks::{Action, TomlFile, UnknownEvent};
use io_supervisor::ProcessError;

/// `Display` and each `source()` below it, outermost first.
fn chain(error: &dyn Error) -> Vec<String> {
    let mut links = vec![error.to_string()];
    let mut next = error.source();
    while let Some(cause) = next {
        links.push(cause.to_string());
        next = cause.source();
    }
    links
}

/// A message without std's " (os error N)" suffix, so a cause an outer
/// message quotes through `io_hooks::text::os_error` is still recognised.
fn without_os_code(text: &str) -> &str {
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => &text[..at],
        _ => text,
    }
}

/// Prints the chain and checks it; returns the printed line.
fn checked(error: &dyn Error) -> String {
    let links = chain(error);
    let printed = links.join(": ");
    for (i, inner) in links.iter().enumerate().skip(1) {
        let inner = without_os_code(inner);
        for outer in &links[..i] {
            assert!(
                !outer.contains(inner),
                "`{inner}` shows twice in the chain `{printed}`"
            );
        }
    }
    assert!(
        !printed.contains("(os error"),
        "an OS error keeps std's code: `{printed}`"
    );
    printed
}

#[test]
fn hook_failures_show_each_cause_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Spawning a directory: EACCES from the kernel.
    let spawn = io_supervisor::run_argv(
        &["/".to_owned()],
        dir.path(),
        b"",
        Stdio::null(),
        Duration::from_secs(5),
    )
    .expect_err("a directory is not a program");
    assert!(matches!(spawn, ProcessError::Spawn { .. }), "{spawn:?}");
    assert_eq!(checked(&spawn), "could not spawn `/`: Permission denied");

    // Appending to a directory: EISDIR, through the executor.
    #[derive(io_hooks::HookEvents, serde::Serialize)]
    enum Ev {
        #[hook(tag = "done")]
        Done,
    }
    let hooks = io_hooks::Hooks::new(
        vec![HookSpec::new(HookFilter::ALL, Action::append(dir.path()))],
        dir.path(),
    );
    let mut printed = Vec::new();
    let _ = hooks.fire_with(&Ev::Done, &Ev::Done, |run| {
        if let Err(failure) = run.result {
            printed.push(checked(failure));
        }
    });
    assert_eq!(
        printed,
        [format!(
            "could not append to `{}`: Is a directory",
            dir.path().display()
        )]
    );
}

#[test]
fn table_and_event_errors_show_each_cause_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let table = TomlFile::new(
        "io.local.toml",
        "[[hook]]\non = [\"stepp\"]\nappend = \"a\"\n",
    )
    .hooks::<EventKind>(dir.path())
    .expect_err("an unknown event");
    assert!(checked(&table).starts_with("io.local.toml: key `hook[1].on`: unknown event `stepp`"));
    let unknown = UnknownEvent::new::<EventKind>("stepp");
    assert!(checked(&unknown).starts_with("unknown event `stepp` (did you mean `step`?)"));
}

#[test]
fn config_errors_show_each_cause_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("missing");
    let root = Config::discover_with(&missing, None).expect_err("no such root");
    assert!(matches!(root, ConfigError::Root { .. }), "{root:?}");
    assert!(checked(&root).ends_with(": No such file or directory"));

    // A file that exists but cannot be read: a directory in its place.
    fs::create_dir(dir.path().join("io.local.toml")).expect("dir");
    let read = Config::discover_with(dir.path(), None).expect_err("unreadable");
    assert!(matches!(read, ConfigError::Read { .. }), "{read:?}");
    assert!(checked(&read).ends_with(": cannot be read: Is a directory"));

    let table = Config::from_toml("[[hook]]\nappend = 1\n").expect_err("a bad table");
    checked(&table);
}

#[test]
fn store_and_run_errors_show_each_cause_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("file");
    fs::write(&file, "").expect("write");
    // A store beneath a regular file: ENOTDIR.
    let create = FileStore::new(file.join("runs")).expect_err("beneath a file");
    assert!(matches!(create, StoreError::Io { .. }), "{create:?}");
    assert!(checked(&create).ends_with(": Not a directory"));
    checked(&RunError::from(create));

    let store = FileStore::new(dir.path().join("runs")).expect("store");
    fs::write(dir.path().join("runs/r1.jsonl"), "{not json\n").expect("write");
    let decode = store.load("r1").expect_err("a bad line");
    assert!(
        matches!(decode, StoreError::Corrupt { line: 1, .. }),
        "{decode:?}"
    );
    let run = RunError::from(decode);
    let printed = checked(&run);
    assert!(printed.starts_with("the store failed: "), "{printed}");
    assert!(
        printed.contains("r1.jsonl: line 1 of 1 is not a whole record"),
        "{printed}"
    );

    let bad_id = store.load("../x").expect_err("not a run id");
    assert!(
        checked(&bad_id)
            .ends_with("`../x` is not a run id (letters, digits, `-`, `_` and `.` only)")
    );
}

#[test]
fn provider_errors_show_each_cause_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("script.toml");
    let Err(read) = ScriptedProvider::from_path(&missing) else {
        panic!("a missing script loaded");
    };
    assert_eq!(
        checked(&read),
        format!("{}: No such file or directory", missing.display())
    );
    let Err(parse) = ScriptedProvider::from_toml("s.toml", "goal = 1\n") else {
        panic!("a bad script loaded");
    };
    assert!(checked(&parse).starts_with("s.toml: "));
}
