//! What a hook receives: the event-line schema checked against real lines,
//! the hand-written `Serialize` checked against the flattened shape it
//! replaced, the derive's writer (`HookEvents::write_json`) and the line
//! `RunEvent::json_line` builds on it checked against serde's bytes, and
//! `io events TAG` / `io schema --events`.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;
// The bench crate exports these; here they are private to the test.
#[allow(unreachable_pub)]
#[path = "../bench/src/flattened.rs"]
mod flattened;
mod fuzz_support;

use std::collections::BTreeSet;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use flattened::Flattened;
use io_harness::{EventKind, HookEvents, Outcome, RunEvent, schema::events_schema};
use proptest::prelude::*;
use serde_json::{Value, json};

const EXAMPLES: &str = include_str!("../examples/events.jsonl");

fn validator() -> jsonschema::Validator {
    jsonschema::draft202012::new(&events_schema()).expect("the schema compiles")
}

/// Every line a test checks: the shipped recording, then one line of every
/// variant from the fuzz sample with each of the four `seq`/`at` shapes.
fn real_lines() -> Vec<String> {
    let mut lines: Vec<String> = EXAMPLES.lines().map(str::to_owned).collect();
    for event in every_envelope_shape() {
        lines.push(serde_json::to_string(&event).expect("serialisable"));
    }
    lines
}

fn every_envelope_shape() -> Vec<RunEvent> {
    let mut events = Vec::new();
    for event in fuzz_support::sample_events() {
        for (seq, at) in [
            (None, None),
            (Some(7), None),
            (None, Some("2026-11-30T03:00:00.123Z".to_owned())),
            (Some(u64::MAX), Some("x".to_owned())),
        ] {
            events.push(RunEvent {
                seq,
                at,
                ..event.clone()
            });
        }
    }
    events
}

fn errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

#[test]
fn every_real_line_validates_against_the_schema() {
    let validator = validator();
    let lines = real_lines();
    let mut kinds = BTreeSet::new();
    for line in &lines {
        let value: Value = serde_json::from_str(line).expect("a JSON line");
        let errs = errors(&validator, &value);
        assert!(errs.is_empty(), "{line}\n{errs:#?}");
        kinds.insert(value["event"].as_str().expect("a tag").to_owned());
    }
    assert_eq!(
        kinds.len(),
        EventKind::TAGS.len(),
        "every variant was checked"
    );
    assert!(lines.len() > 27 * 4 + 100);
}

/// The schema would not reject anything if its branches were loose: show
/// that each of the three ways a line can be wrong fails, on every variant.
#[test]
fn a_missing_run_id_a_wrong_type_and_an_unknown_tag_each_fail() {
    let validator = validator();
    for event in fuzz_support::sample_events() {
        let line = serde_json::to_value(&event).expect("serialisable");
        let tag = event.tag();

        let mut missing = line.clone();
        missing.as_object_mut().expect("object").remove("run_id");
        assert!(!validator.is_valid(&missing), "{tag}: no run_id passed");

        let mut wrong = line.clone();
        wrong["depth"] = json!("0");
        assert!(!validator.is_valid(&wrong), "{tag}: a string depth passed");

        // Each field of the variant's own, given the wrong type (`args` is
        // any JSON value, so nothing is wrong for it).
        let own: Vec<String> = line
            .as_object()
            .expect("object")
            .keys()
            .filter(|k| {
                !matches!(
                    k.as_str(),
                    "event" | "run_id" | "depth" | "seq" | "at" | "args"
                )
            })
            .cloned()
            .collect();
        for field in &own {
            let mut wrong = line.clone();
            wrong[field] = match &line[field] {
                Value::String(_) => json!(12),
                _ => json!({ "not": "this" }),
            };
            assert!(
                !validator.is_valid(&wrong),
                "{tag}: a wrong `{field}` passed"
            );
            let mut absent = line.clone();
            absent.as_object_mut().expect("object").remove(field);
            assert!(!validator.is_valid(&absent), "{tag}: no `{field}` passed");
        }

        let mut unknown = line.clone();
        unknown["event"] = json!(format!("{tag}_x"));
        assert!(
            !validator.is_valid(&unknown),
            "{tag}: an unknown tag passed"
        );
    }
    assert!(!validator.is_valid(&json!({"run_id": "r", "depth": 0})));
    assert!(!validator.is_valid(&json!([])));
}

#[test]
fn the_schema_has_one_branch_per_tag_and_a_description_everywhere() {
    let schema = events_schema();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let branches = schema["oneOf"].as_array().expect("oneOf");
    let tags: Vec<&str> = branches
        .iter()
        .map(|b| b["properties"]["event"]["const"].as_str().expect("const"))
        .collect();
    assert_eq!(tags, EventKind::TAGS);
    for (branch, doc) in branches.iter().zip(EventKind::DOCS) {
        assert_eq!(branch["description"], *doc);
        for (name, field) in branch["properties"].as_object().expect("properties") {
            if name != "event" {
                let described = field["description"].as_str().is_some_and(|d| !d.is_empty());
                assert!(described, "`{name}` of {} has no doc", tags[0]);
            }
        }
    }
    for field in schema["properties"].as_object().expect("envelope").values() {
        assert!(field["description"].as_str().is_some_and(|d| !d.is_empty()));
    }
    // `seq` and `at` are left out when unknown, never written as null.
    assert_eq!(schema["required"], json!(["run_id", "depth"]));
    assert_eq!(schema["properties"]["seq"]["type"], "integer");
    assert_eq!(schema["properties"]["at"]["type"], "string");
}

// ---- the hand-written Serialize against the flattened shape it replaced ----

#[test]
fn the_bytes_are_the_flattened_shapes_for_every_variant_and_read_back() {
    let mut events = every_envelope_shape();
    events.extend(
        EXAMPLES
            .lines()
            .map(|l| serde_json::from_str::<RunEvent>(l).expect("a RunEvent")),
    );
    // A run id and a time an embedder set, which need escaping.
    let odd: Vec<RunEvent> = events
        .iter()
        .map(|event| RunEvent {
            run_id: "r-\"odd\"\\\n\u{1}é".to_owned(),
            at: event.at.as_ref().map(|at| format!("{at}\"\t")),
            ..event.clone()
        })
        .collect();
    events.extend(odd);
    for event in &events {
        let ours = serde_json::to_vec(event).expect("serialisable");
        let theirs = serde_json::to_vec(&Flattened::from(event)).expect("serialisable");
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&theirs)
        );
        // What the hooks write: the same bytes, by the envelope's literals.
        let line = event.json_line().expect("serialisable");
        assert_eq!(
            String::from_utf8_lossy(&line),
            String::from_utf8_lossy(&ours)
        );
        let pretty = serde_json::to_string_pretty(event).expect("serialisable");
        let theirs = serde_json::to_string_pretty(&Flattened::from(event)).expect("serialisable");
        assert_eq!(pretty, theirs);
        let back: RunEvent = serde_json::from_slice(&ours).expect("reads back");
        assert_eq!(&back, event);
        // Through `Value` too: a serializer other than the writer's.
        let value = serde_json::to_value(event).expect("serialisable");
        assert_eq!(
            value,
            serde_json::to_value(Flattened::from(event)).expect("v")
        );
    }
    // The recording itself is written byte for byte as it was read.
    for line in EXAMPLES.lines() {
        let event: RunEvent = serde_json::from_str(line).expect("a RunEvent");
        assert_eq!(serde_json::to_string(&event).expect("serialisable"), line);
    }
}

// ---- the derive's writer against serde ----

/// Text serde_json escapes, and some it does not, longer than the
/// writer's blocks of sixteen bytes.
const ODD: &str = "q\"b\\s\u{1}\n\t\u{1f}é\u{2028}😀 \u{7f} and a few more words";

/// `kind` with each of its string fields (not the tag, not the `outcome`
/// enum) holding [`ODD`]: through JSON, so every variant is covered
/// without naming its fields.
fn with_odd_strings(kind: &EventKind) -> EventKind {
    let mut value = serde_json::to_value(kind).expect("serialisable");
    let map = value.as_object_mut().expect("an object");
    for (key, field) in map.iter_mut() {
        if key != "event" && key != "outcome" && field.is_string() {
            *field = Value::String(ODD.to_owned());
        }
    }
    serde_json::from_value(value).expect("reads back")
}

#[test]
fn the_derives_writer_writes_serdes_bytes_for_every_variant() {
    let mut kinds: Vec<EventKind> = fuzz_support::sample_events()
        .into_iter()
        .map(|event| event.kind)
        .collect();
    // `resumed` is written only when true (`skip_serializing_if`).
    kinds.push(EventKind::Started {
        goal: "again".to_owned(),
        resumed: true,
    });
    for outcome in [
        Outcome::Completed,
        Outcome::Cancelled,
        Outcome::Failed,
        Outcome::Interrupted,
    ] {
        kinds.push(EventKind::Finished {
            outcome,
            steps: 2,
            resumed: true,
        });
    }
    let tags: BTreeSet<&str> = kinds.iter().map(HookEvents::tag).collect();
    assert_eq!(tags.len(), EventKind::TAGS.len(), "every variant");
    let odd: Vec<EventKind> = kinds.iter().map(with_odd_strings).collect();
    assert!(
        odd.iter()
            .any(|k| serde_json::to_string(k).expect("s").contains(r#"q\"b"#))
    );
    kinds.extend(odd);
    for kind in &kinds {
        let mut fast = Vec::new();
        kind.write_json(&mut fast).expect("writes");
        let serde = serde_json::to_vec(kind).expect("serialisable");
        assert_eq!(
            String::from_utf8_lossy(&fast),
            String::from_utf8_lossy(&serde)
        );
    }
}

/// Text of characters serde_json escapes and others, of lengths either
/// side of sixteen and thirty-two bytes.
fn text() -> impl Strategy<Value = String> {
    let chars = prop_oneof![
        Just('"'),
        Just('\\'),
        (0u32..0x20).prop_map(|c| char::from_u32(c).unwrap_or('\0')),
        Just('\u{7f}'),
        Just('é'),
        Just('\u{2028}'),
        Just('😀'),
        Just('r'),
        Just('-'),
    ];
    prop::collection::vec(chars, 0..40).prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn the_line_hooks_receive_is_serdes_whatever_its_strings_hold(
        run_id in text(),
        at in prop::option::of(text()),
        text in text(),
        seq in prop::option::of(any::<u64>()),
        depth in any::<u32>(),
    ) {
        for kind in [
            EventKind::Started { goal: text.clone(), resumed: seq.is_some() },
            EventKind::Token { step: depth, text: text.clone() },
            EventKind::Finished { outcome: Outcome::Failed, steps: depth, resumed: at.is_none() },
        ] {
            let event = RunEvent { kind, run_id: run_id.clone(), depth, seq, at: at.clone() };
            let line = event.json_line().expect("writes");
            let serde = serde_json::to_vec(&event).expect("serialisable");
            prop_assert_eq!(String::from_utf8_lossy(&line), String::from_utf8_lossy(&serde));
        }
    }
}

// ---- the commands ----

fn io(args: &[&str]) -> Output {
    let home = tempfile::tempdir().expect("temp dir");
    let child = Command::new(env!("CARGO_BIN_EXE_io"))
        .args(args)
        .current_dir(home.path())
        .env("IO_CONFIG_HOME", home.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("io runs");
    common::output_within(child, Duration::from_secs(120), &format!("io {args:?}"))
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8")
}

#[test]
fn io_schema_events_prints_the_event_schema_and_io_schema_the_hook_one() {
    let out = io(&["schema", "--events"]);
    assert_eq!(out.status.code(), Some(0));
    let printed: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(printed, events_schema());

    let out = io(&["schema"]);
    assert_eq!(out.status.code(), Some(0));
    let printed: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(printed, io_harness::schema::hook_schema());
}

#[test]
fn io_events_tag_prints_the_doc_cost_fields_and_a_real_line() {
    let out = io(&["events", "tool_call"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = stdout(&out);
    let example = EXAMPLES
        .lines()
        .find(|l| l.starts_with(r#"{"event":"tool_call","#))
        .expect("a tool_call in the examples");
    assert!(text.starts_with(
        "tool_call: The model called a tool; once per tool call, before it runs.\ncost: per step\n"
    ));
    let tool_doc = &io_harness::schema::event_docs()[2].fields[1];
    assert_eq!(tool_doc.name, "tool");
    assert!(
        text.contains(&format!(
            "\n  tool    string             {}\n",
            tool_doc.doc
        )),
        "{text}"
    );
    assert!(text.contains("\n  args    any JSON value     The call's arguments"));
    assert!(text.contains("\nand the envelope, on every event:\n  run_id  string  "));
    assert!(text.contains("\n  at      string, optional   When it was emitted"));
    assert!(text.ends_with(&format!("\n{example}\n")), "{text}");

    let out = io(&["events", "finished", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let one: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(one["event"], "finished");
    assert_eq!(one["frequency"], "per_run");
    assert_eq!(one["fields"][0]["name"], "outcome");
    assert_eq!(
        one["fields"][0]["type"],
        r#""completed", "cancelled", "failed" or "interrupted""#
    );
    assert_eq!(one["example"]["event"], "finished");
}

#[test]
fn io_events_json_carries_every_events_fields() {
    let out = io(&["events", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let list: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let schema = events_schema();
    for (i, event) in list.as_array().expect("array").iter().enumerate() {
        let names: Vec<&str> = event["fields"]
            .as_array()
            .expect("fields")
            .iter()
            .map(|f| f["name"].as_str().expect("name"))
            .collect();
        let declared: Vec<&str> = schema["oneOf"][i]["properties"]
            .as_object()
            .expect("properties")
            .keys()
            .map(String::as_str)
            .filter(|k| *k != "event")
            .collect();
        assert_eq!(names, declared, "{}", event["event"]);
        assert_eq!(event["example"]["event"], event["event"]);
    }
}

#[test]
fn io_events_with_an_unknown_tag_is_the_unknown_event_error() {
    let out = io(&["events", "stpe"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let expected = io_hooks::UnknownEvent::new::<EventKind>("stpe");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("io: {expected}\n")
    );
    assert!(
        expected
            .to_string()
            .starts_with("unknown event `stpe` (did you mean `step`?)")
    );
}

#[test]
fn the_example_lines_are_embedded_one_per_event() {
    for kind in io_hooks::Kind::<EventKind>::all() {
        let tag = kind.tag();
        let line = io_harness::schema::example_line(kind).expect("an example");
        let event: RunEvent = serde_json::from_str(line).expect("a RunEvent");
        assert_eq!(event.tag(), tag);
        let first = EXAMPLES
            .lines()
            .find(|l| serde_json::from_str::<RunEvent>(l).is_ok_and(|e| e.tag() == tag));
        assert_eq!(Some(line), first);
    }
}
