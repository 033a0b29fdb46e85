//! A resumed run says so (issue 21, item 8): the `started` and `finished`
//! a resume repeats carry `"resumed": true`; a first run's lines carry no
//! `resumed` at all, as before.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;
mod run_support;

use run_support::{Env, both, cancelled_run, text};

#[test]
fn a_resumes_started_and_finished_carry_resumed_true_and_a_first_runs_do_not() {
    let env = Env::new();
    let run_id = cancelled_run(
        &env,
        "[[hook]]\non = [\"started\", \"finished\"]\nappend = \"audit.jsonl\"\n",
    );
    let out = env.io(&["run", "--resume", &run_id]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(
        text(&out.stdout).contains(&format!("[{run_id}] resumed: two files")),
        "progress says it: {}",
        both(&out)
    );
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(env.root().join("audit.jsonl"))
        .expect("the audit log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let seen: Vec<(&str, Option<bool>)> = lines
        .iter()
        .map(|l| {
            (
                l["event"].as_str().expect("event"),
                l.get("resumed").map(|r| r.as_bool().expect("a boolean")),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("started", None),
            ("finished", None),
            ("started", Some(true)),
            ("finished", Some(true)),
        ]
    );
    assert!(lines.iter().all(|l| l["run_id"] == run_id.as_str()));
}

#[test]
fn the_event_schema_names_resumed_on_started_and_finished() {
    let env = Env::new();
    let out = env.io(&["schema", "--events"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let text = schema.to_string();
    for tag in ["started", "finished"] {
        let variant = schema
            .pointer("/oneOf")
            .or_else(|| schema.pointer("/$defs/EventKind/oneOf"))
            .and_then(|v| v.as_array())
            .and_then(|all| {
                all.iter()
                    .find(|v| v.pointer("/properties/event/const") == Some(&tag.into()))
            })
            .unwrap_or_else(|| panic!("no `{tag}` in the schema: {text}"));
        assert_eq!(
            variant.pointer("/properties/resumed/type"),
            Some(&"boolean".into()),
            "{tag}: {variant}"
        );
        let required = variant["required"].as_array().expect("required");
        assert!(
            !required.contains(&"resumed".into()),
            "{tag}: `resumed` may be absent"
        );
    }
}

/// A resume's budget goes on from what the first run drew: its
/// `spend_draw.remaining` is the budget less every token of both runs, not
/// a fresh budget less the resume's own.
#[test]
fn a_resumes_spend_draw_counts_the_tokens_drawn_before_the_cancel() {
    let env = Env::new();
    let run_id = cancelled_run(
        &env,
        "[[hook]]\non = [\"spend_draw\"]\nappend = \"spend.jsonl\"\n",
    );
    let out = env.io(&["run", "--resume", &run_id]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let draws: Vec<(u64, u64)> = std::fs::read_to_string(env.root().join("spend.jsonl"))
        .expect("the spend log")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON");
            (
                v["tokens"].as_u64().expect("tokens"),
                v["remaining"].as_u64().expect("remaining"),
            )
        })
        .collect();
    assert_eq!(draws.len(), 2, "one draw a step, one step a run: {draws:?}");
    let [(first, after_first), (second, after_second)] = [draws[0], draws[1]];
    assert!(
        first > 0 && second > 0,
        "each turn says something: {draws:?}"
    );
    assert_eq!(
        after_second,
        after_first - second,
        "the resume went on from {after_first}, not from a fresh budget: {draws:?}"
    );
}
