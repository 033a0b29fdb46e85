//! `where` through `io`: refused at load with the file, the key
//! `hook[N].where.<field>`, what is accepted and the position; printed by
//! `io check`; reported by `io check --event` and `io replay --dry-run`;
//! applied to a child run's events; refused in a project file with the
//! rest of `hook`; and listed by `io events TAG`.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use common::io_env::{IoEnv, code, stderr, stdout};

const HOOK: &str = "[[hook]]\non = [\"tool_call\"]\nwhere.tool = [\"exec\", { glob = \"write_*\" }]\n\
                    append = \"writes.jsonl\"\n\
                    [[hook]]\non = [\"tool_call\"]\nappend = \"all.jsonl\"\n";

/// A `tool_call` line of run `run_id` at `depth`, calling `tool`.
fn call(tool: &str, run_id: &str, depth: u32) -> String {
    format!(
        "{{\"event\":\"tool_call\",\"step\":1,\"tool\":\"{tool}\",\"args\":{{}},\
         \"run_id\":\"{run_id}\",\"depth\":{depth}}}\n"
    )
}

#[test]
fn every_mistake_in_where_is_refused_at_load_naming_the_file_key_and_position() {
    let cases = [
        (
            "where.tool = \"exec\"",
            "`hook[1].where.tool`: `tool` is not a field every event has, and this hook has no `on`; add `on`",
        ),
        (
            "on = [\"tool_call\"]\nwhere.tol = \"exec\"",
            "`hook[1].where.tol`: event `tool_call` has no field `tol` (did you mean `tool`?); a filter on it may name `step`, `tool`, `run_id`, `depth`, `seq` (line 3, column 7)",
        ),
        (
            "on = [\"tool_call\"]\nwhere.args = \"x\"",
            "`hook[1].where.args`: field `args` of `tool_call` is free-form or nested",
        ),
        (
            "on = [\"tool_call\"]\nwhere.step = \"1\"",
            "`hook[1].where.step`: field `step` of `tool_call` is an integer, and this is a string; write an integer",
        ),
        (
            "on = [\"tool_call\"]\nwhere.tool = []",
            "`hook[1].where.tool`: an empty list matches no value",
        ),
        (
            "on = [\"tool_call\"]\nwhere.tool = { glob = \"[x\" }",
            "`hook[1].where.tool`: `[x` is not a glob: invalid range pattern",
        ),
        // Issue 33: a filter that could never match, which `io check` had
        // passed with `ok`.
        (
            "on = [\"tool_call\"]\nwhere.tool = \"exce\"",
            "`hook[1].where.tool`: field `tool` of `tool_call` holds one of `read_file`, `write_file`, `edit_file`, `spawn`, `exec`, `exec_background`, `poll`, `kill`, `memory_write`, `todo_write`, `ask`, `mcp`, or a string starting with `mcp__`; `exce` is none of them (did you mean `exec`?) (line 3, column 14)",
        ),
        (
            "on = [\"tool_call\"]\nwhere.tool = \"Exec\"",
            "`hook[1].where.tool`: field `tool` of `tool_call` holds one of `read_file`, `write_file`, `edit_file`, `spawn`, `exec`, `exec_background`, `poll`, `kill`, `memory_write`, `todo_write`, `ask`, `mcp`, or a string starting with `mcp__`; `Exec` is none of them (did you mean `exec`?) (line 3, column 14)",
        ),
        (
            "on = [\"tool_call\"]\nwhere.step = -1",
            "`hook[1].where.step`: field `step` of `tool_call` holds an integer from 0 to 4294967295, and `-1` is outside that range, so the hook could never fire (line 3, column 14)",
        ),
        (
            "on = [\"tool_call\"]\nwhere.step = { max = -1 }",
            "`hook[1].where.step`: field `step` of `tool_call` holds an integer from 0 to 4294967295, and `{ max = -1 }` is outside that range, so the hook could never fire (line 3, column 14)",
        ),
        (
            "on = [\"tool_call\"]\nwhere.step = 4294967297",
            "`hook[1].where.step`: field `step` of `tool_call` holds an integer from 0 to 4294967295, and `4294967297` is outside that range, so the hook could never fire (line 3, column 14)",
        ),
        (
            "on = [\"finished\"]\nwhere.outcome = \"canceled\"",
            "`hook[1].where.outcome`: field `outcome` of `finished` holds one of `completed`, `cancelled`, `failed`, `interrupted`; `canceled` is none of them (did you mean `cancelled`?) (line 3, column 17)",
        ),
    ];
    for (body, expected) in cases {
        let env = IoEnv::new();
        let file = env.write(
            "io.local.toml",
            &format!("[[hook]]\n{body}\nappend = \"a\"\n"),
        );
        let out = env.io(&["check"]);
        assert_eq!(code(&out), 1, "{body}");
        let err = stderr(&out);
        let want = format!("io: {}: key {expected}", file.display());
        assert!(err.contains(&want), "{body}:\n{err}\nwanted: {want}");
    }
}

#[test]
fn io_check_prints_each_hooks_filter_and_what_it_turns_away_on_an_event() {
    let env = IoEnv::new();
    env.write("io.local.toml", HOOK);
    let out = env.io(&["check", "--event", "tool_call"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}{}", stderr(&out));
    assert!(
        text.contains("    where: tool = [\"exec\", { glob = \"write_*\" }]\n"),
        "{text}"
    );
    assert!(text.contains("on `tool_call`: hook[2] fire(s)\n"), "{text}");
    assert!(
        text.contains(
            "on `tool_call`: hook[1] fires only where tool = [\"exec\", { glob = \"write_*\" }]; \
             its filter turns the rest away on `tool`\n"
        ),
        "{text}"
    );
}

#[test]
fn a_dry_run_says_which_hooks_a_filter_turned_away_and_on_which_field() {
    let env = IoEnv::new();
    env.write("io.local.toml", HOOK);
    let lines = call("read_file", "r-1", 0) + &call("write_file", "r-1", 0);
    env.write("events.jsonl", &lines);
    let out = env.io(&["replay", "events.jsonl", "--dry-run"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}{}", stderr(&out));
    let read = text
        .find("hook[1] turned away by `where.tool`")
        .expect(&text);
    let write = text.rfind("hook[1] would fire").expect(&text);
    assert!(
        read < write,
        "the read is turned away, the write passes:\n{text}"
    );
    assert_eq!(text.matches("hook[2] would fire").count(), 2, "{text}");
    assert!(
        !env.root().join("writes.jsonl").exists(),
        "a dry run writes nothing"
    );
}

/// `--json` says it too: a hook a filter turned away is an object naming
/// the field, beside the hooks that would fire; the summary is an object
/// too, counting the hook runs that would have been.
#[test]
fn a_dry_runs_json_names_the_hooks_a_filter_turned_away() {
    let env = IoEnv::new();
    env.write("io.local.toml", HOOK);
    env.write("events.jsonl", &call("read_file", "r-1", 0));
    let out = env.io(&["replay", "events.jsonl", "--dry-run", "--json"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}{}", stderr(&out));
    // Every line is JSON, the summary too.
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(
        lines[0]["hooks"],
        serde_json::json!([
            { "hook": 2, "key": "hook[2]" },
            { "hook": 1, "key": "hook[1]", "turned_away": "where.tool" }
        ]),
        "{text}"
    );
    assert_eq!(
        lines[1],
        serde_json::json!({ "outcome": "dry_run", "would_fire": 1 })
    );
}

#[test]
fn a_filter_applies_to_a_child_runs_events_as_to_its_parents() {
    let env = IoEnv::new();
    env.write("io.local.toml", HOOK);
    let lines = [
        call("exec", "r-1", 0),
        call("read_file", "r-1.3.1", 1),
        call("write_file", "r-1.3.1", 1),
        call("read_file", "r-1", 0),
    ]
    .concat();
    env.write("events.jsonl", &lines);
    let out = env.io(&["replay", "events.jsonl"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let read = |name: &str| std::fs::read_to_string(env.root().join(name)).expect(name);
    let writes: Vec<(String, u64)> = read("writes.jsonl")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            (
                v["tool"].as_str().unwrap_or_default().to_owned(),
                v["depth"].as_u64().unwrap_or(9),
            )
        })
        .collect();
    assert_eq!(
        writes,
        [("exec".to_owned(), 0), ("write_file".to_owned(), 1)]
    );
    assert_eq!(read("all.jsonl").lines().count(), 4);
}

#[test]
fn where_in_a_project_file_is_refused_with_the_rest_of_hook() {
    let env = IoEnv::new();
    env.write("io.toml", HOOK);
    let out = env.io(&["check"]);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(
        err.contains("a project-scoped file may not declare hooks"),
        "{err}"
    );
}

#[test]
fn io_events_tag_lists_the_fields_a_filter_may_name() {
    let env = IoEnv::new();
    let out = env.io(&["events", "tool_call"]);
    assert_eq!(code(&out), 0);
    assert!(
        stdout(&out).contains(
            "\nA `where` filter may name `step`, `tool`; `tool` is one of `read_file`, \
             `write_file`, `edit_file`, `spawn`, `exec`, `exec_background`, `poll`, `kill`, \
             `memory_write`, `todo_write`, `ask`, `mcp`, or a string starting with `mcp__`.\n"
        ),
        "{}",
        stdout(&out)
    );
    let out = env.io(&["events", "finished"]);
    assert!(
        stdout(&out).contains(
            "A `where` filter may name `outcome`, `steps`, `resumed`; `outcome` is one of \
             `completed`, `cancelled`, `failed`, or `interrupted`."
        ),
        "{}",
        stdout(&out)
    );
}

/// `finished.outcome` is an enum serde writes as a string
/// (`#[hook(unit_enum)]`): a filter on it lets through only the run's
/// cancelled finish of the example file, and a value of the wrong type is
/// refused at load.
#[test]
fn a_filter_on_finisheds_outcome_lets_through_only_that_outcome() {
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"finished\"]\nwhere.outcome = \"cancelled\"\nappend = \"cancelled.jsonl\"\n",
    );
    let events = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/events.jsonl"
    ))
    .expect("examples/events.jsonl");
    env.write("events.jsonl", &events);
    let out = env.io(&["replay", "events.jsonl"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let log = std::fs::read_to_string(env.root().join("cancelled.jsonl")).expect("the log");
    let outcomes: Vec<(String, u64)> = log
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            (
                v["outcome"].as_str().unwrap_or_default().to_owned(),
                v["steps"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(outcomes, [("cancelled".to_owned(), 5)]);
    assert_eq!(
        events.matches("\"event\":\"finished\"").count(),
        3,
        "the file has three finishes, two of them not cancelled"
    );

    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"finished\"]\nwhere.outcome = true\nappend = \"a\"\n",
    );
    let out = env.io(&["check"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains(
            "key `hook[1].where.outcome`: field `outcome` of `finished` is a string, and this is a bool"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_where_examples_in_docs_hooks_md_load() {
    let guide = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/hooks.md"))
        .expect("docs/hooks.md");
    let section = guide
        .split("## Filtering on fields")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the section");
    let blocks: Vec<&str> = section
        .split("```toml\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .collect();
    // Then two on the envelope (issue 45), and two on a tool call's
    // arguments (issue 46).
    assert_eq!(blocks.len(), 7);
    let filters = ["tool", "tool", "outcome", "depth", "run_id", "tool", "tool"];
    for (block, filter) in blocks.into_iter().zip(filters) {
        let env = IoEnv::new();
        env.file("scripts/check-exec", b"#!/bin/sh\nexit 0\n", 0o755);
        env.file("scripts/notify-cancelled", b"#!/bin/sh\nexit 0\n", 0o755);
        env.file("scripts/notify", b"#!/bin/sh\nexit 0\n", 0o755);
        env.write("io.local.toml", block);
        let out = env.io(&["check"]);
        assert_eq!(code(&out), 0, "{block}\n{}{}", stdout(&out), stderr(&out));
        assert!(
            stdout(&out).contains(&format!("    where: {filter} = ")),
            "{}",
            stdout(&out)
        );
    }
}
