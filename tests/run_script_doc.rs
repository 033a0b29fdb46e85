//! docs/run-script.md, the reference to the `io run` script format: its
//! example runs with `io run` as it says, and its tables name every key the
//! script loader takes and every tool the loop has (issue 21, item 10).
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use common::run_io;
use io_harness::run::ScriptedProvider;

fn doc() -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/run-script.md"))
        .expect("docs/run-script.md")
}

/// The document's one TOML block: the example.
fn example() -> String {
    let doc = doc();
    let (_, rest) = doc.split_once("```toml\n").expect("a toml block");
    let (block, _) = rest.split_once("```").expect("its end");
    assert!(
        !rest.contains("```toml\n"),
        "one example, which this test runs"
    );
    block.to_owned()
}

/// The keys the loader takes where `script` puts an unknown key `zzz`: the
/// list of its "expected one of" error.
fn accepted(script: &str) -> BTreeSet<String> {
    let message = ScriptedProvider::from_toml("s", script)
        .expect_err("an unknown key")
        .to_string();
    let list = message
        .split_once(" takes ")
        .unwrap_or_else(|| panic!("no list of keys in: {message}"))
        .1;
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// The keys documented in the rows of the tables of `doc` (each row's first
/// cell, a `code` span).
fn documented(doc: &str) -> BTreeSet<String> {
    doc.lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once('`'))
        .map(|(key, _)| key.to_owned())
        .collect()
}

#[test]
fn the_example_runs_to_its_answer_through_every_key() {
    let tmp = common::checkout();
    fs::write(tmp.path().join("script.toml"), example()).expect("script");
    fs::write(
        tmp.path().join("io.local.toml"),
        "[[hook]]\nappend = \"events.jsonl\"\n",
    )
    .expect("config");
    let out = run_io(tmp.path(), tmp.path(), &["run", "script.toml"], &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.ends_with(" completed after 3 steps: greet.txt and docs.txt written\n"),
        "{stdout}"
    );
    assert_eq!(
        fs::read_to_string(tmp.path().join("greet.txt")).expect("greet.txt"),
        "hello, world\n"
    );
    assert_eq!(
        fs::read_to_string(tmp.path().join("docs.txt")).expect("docs.txt"),
        "greet\n"
    );
    let events = fs::read_to_string(tmp.path().join("events.jsonl")).expect("the events");
    // What each key of the example is documented to cause.
    for tag in [
        "retry",
        "fell_back_to",
        "replan",
        "server_tool_used",
        "question_answered",
        "approval_decided",
        "spawned",
        "memory_wrote",
        "todo_wrote",
    ] {
        assert!(
            events.contains(&format!("{{\"event\":\"{tag}\"")),
            "no `{tag}` event"
        );
    }
    assert!(events.contains("\"answer\":\"yes\""));
    assert!(events.contains("\"approved\":true"));
}

#[test]
fn the_tables_name_every_key_the_loader_takes_and_every_tool() {
    let doc = doc();
    let keys = documented(&doc);
    let mut loader = BTreeSet::new();
    for script in [
        "zzz = 1\n",
        "goal = \"g\"\n[[turn]]\nzzz = 1\n",
        "goal = \"g\"\n[[turn]]\ncalls = [{ tool = \"t\", zzz = 1 }]\n",
        "goal = \"g\"\n[[child]]\ngoal = \"c\"\nzzz = 1\n",
        "goal = \"g\"\n[operator]\nzzz = 1\n",
    ] {
        loader.extend(accepted(script));
    }
    // Sure of its own reading: the list held the keys of each table.
    for key in ["goal", "say", "tool", "approve"] {
        assert!(loader.contains(key), "{loader:?}");
    }
    let missing: Vec<_> = loader.difference(&keys).collect();
    assert!(
        missing.is_empty(),
        "docs/run-script.md does not document {missing:?}"
    );

    // Every key appears in the example as it is written in a script.
    let example = example();
    for key in &loader {
        assert!(
            example.contains(&format!("\n{key} = "))
                || example.contains(&format!("{{ {key} = "))
                || example.contains(&format!(", {key} = "))
                || example.contains(&format!("[[{key}]]"))
                || example.contains(&format!("[{key}]")),
            "the example does not use `{key}`"
        );
    }

    // The tools: each one the loop has (the default policy allows or asks
    // about exactly those, and denies any other name).
    let policy = io_harness::run::Policy::default();
    let tools: Vec<&String> = keys
        .iter()
        .filter(|k| policy.for_tool(k) != io_harness::run::Rule::Deny)
        .collect();
    assert_eq!(tools.len(), 12, "{tools:?}");
}
