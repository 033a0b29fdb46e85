//! The event registry, checked against the source and the specification.
//!
//! The spec writes the 27 names down; the crate writes them on the enum's
//! variants. This test reads `src/event.rs` and holds the two together, so a
//! variant added without a tag, or with a tag the list doesn't have, fails
//! here as well as at compile time.

use io_harness::{EventKind, HookEvents, Outcome, RunEvent};
use io_hooks::Kind;

/// The spec's list, verbatim ("Which events you may name").
const SPEC_NAMES: &str = "
started step tool_call refused
approval_requested approval_decided spend_draw retry
fell_back_to replan stalled spawned
spawn_refused memory_wrote todo_wrote question_asked
question_answered server_tool_used token sandbox
mcp handle_started handle_polled handle_killed
handle_exited handle_orphaned finished
";

fn spec_names() -> Vec<&'static str> {
    SPEC_NAMES.split_whitespace().collect()
}

/// Each variant of `EventKind` in `src/event.rs` with its literal
/// `#[serde(rename = "…")]`, or `None` where it has none.
fn source_variants() -> Vec<(String, Option<String>)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/event.rs");
    let text = std::fs::read_to_string(path).expect("src/event.rs is readable");
    let file = syn::parse_file(&text).expect("src/event.rs parses");
    let item = file
        .items
        .iter()
        .find_map(|item| match item {
            syn::Item::Enum(e) if e.ident == "EventKind" => Some(e),
            _ => None,
        })
        .expect("src/event.rs defines enum EventKind");
    item.variants
        .iter()
        .map(|v| {
            let mut tag = None;
            for attr in v.attrs.iter().filter(|a| a.path().is_ident("serde")) {
                // Errors are ignored: any other serde item is not ours to judge.
                let _ = attr.parse_nested_meta(|meta| {
                    if meta.path.is_ident("rename") {
                        let lit: syn::LitStr = meta.value()?.parse()?;
                        tag = Some(lit.value());
                    } else if meta.input.peek(syn::Token![=]) {
                        meta.value()?.parse::<syn::Expr>()?;
                    }
                    Ok(())
                });
            }
            (v.ident.to_string(), tag)
        })
        .collect()
}

#[test]
fn every_variant_in_the_source_has_a_literal_tag() {
    let untagged: Vec<String> = source_variants()
        .into_iter()
        .filter(|(_, tag)| tag.is_none())
        .map(|(name, _)| name)
        .collect();
    assert!(
        untagged.is_empty(),
        "variants without #[serde(rename)]: {untagged:?}"
    );
}

#[test]
fn the_source_tags_are_the_spec_names_in_order() {
    let tags: Vec<String> = source_variants()
        .into_iter()
        .filter_map(|(_, tag)| tag)
        .collect();
    assert_eq!(tags, spec_names());
}

#[test]
fn the_generated_table_is_the_spec_names_in_order() {
    assert_eq!(EventKind::TAGS, spec_names().as_slice());
    assert_eq!(EventKind::TAGS.len(), 27);
    let kinds: Vec<Kind<EventKind>> = Kind::all().collect();
    for (i, name) in spec_names().iter().enumerate() {
        assert_eq!(EventKind::from_tag(name), Some(kinds[i]), "{name}");
    }
}

#[test]
fn every_variant_has_a_one_line_doc_saying_when_it_fires() {
    for (tag, doc) in EventKind::TAGS.iter().zip(EventKind::DOCS) {
        assert!(
            doc.contains("once per") || doc.contains("when it happens"),
            "{tag}: {doc:?}"
        );
    }
}

#[test]
fn each_frequency_agrees_with_what_the_doc_says() {
    use io_harness::Cost;
    for kind in Kind::<EventKind>::all() {
        let (tag, doc) = (kind.tag(), kind.doc());
        let expected = match EventKind::frequency(kind) {
            Cost::PerItem => "once per streamed token",
            Cost::PerInvocation => "once per run",
            Cost::PerUnit => "once per",
            Cost::Rare => "",
            other => panic!("{tag}: say here what the doc of a {other:?} event says"),
        };
        assert!(
            doc.contains(expected),
            "{tag}: {doc:?} should say {expected:?}"
        );
        if EventKind::frequency(kind) == Cost::Rare {
            assert!(
                !doc.contains("once per step") && !doc.contains("once per run"),
                "{tag}: {doc:?}"
            );
        }
    }
}

/// One value of every variant, in the order of `Kind::all()`; `index`
/// proves each one is a different variant.
fn one_of_each() -> Vec<EventKind> {
    let started = EventKind::Started {
        goal: "tidy".into(),
        resumed: false,
    };
    let finished = EventKind::Finished {
        outcome: Outcome::Completed,
        steps: 4,
        resumed: false,
    };
    [
        vec![started],
        a_step_and_its_tools(),
        the_model_and_the_budget(),
        what_an_agent_does_besides(),
        handles(),
        vec![finished],
    ]
    .concat()
}

/// A step, and a tool call in it: made, refused, or waiting on approval.
fn a_step_and_its_tools() -> Vec<EventKind> {
    use EventKind::*;
    let args = serde_json::json!({"path": "src/x.rs"});
    vec![
        Step {
            step: 1,
            moved_the_workspace: true,
        },
        ToolCall {
            step: 1,
            tool: "write_file".into(),
            args: args.clone().into(),
        },
        Refused {
            step: 1,
            tool: "exec".into(),
            reason: "denied by policy".into(),
        },
        ApprovalRequested {
            step: 1,
            tool: "exec".into(),
            args: args.into(),
        },
        ApprovalDecided {
            step: 1,
            tool: "exec".into(),
            approved: true,
        },
    ]
}

/// What the model and its budget do to a run: spend, retries, fallbacks,
/// replanning, a stall.
fn the_model_and_the_budget() -> Vec<EventKind> {
    use EventKind::*;
    vec![
        SpendDraw {
            step: 1,
            tokens: 120,
            remaining: 880,
        },
        Retry {
            step: 1,
            attempt: 2,
            reason: "timeout".into(),
        },
        FellBackTo {
            step: 1,
            provider: "backup".into(),
            reason: "overloaded".into(),
        },
        Replan {
            step: 2,
            reason: "tests failed".into(),
        },
        Stalled {
            step: 4,
            steps_without_progress: 3,
        },
    ]
}

/// Child runs, memory, todos, questions, server tools, tokens, the sandbox
/// and MCP.
fn what_an_agent_does_besides() -> Vec<EventKind> {
    use EventKind::*;
    vec![
        Spawned {
            step: 2,
            child_run_id: "r-2".into(),
            goal: "docs".into(),
        },
        SpawnRefused {
            step: 2,
            reason: "depth limit".into(),
        },
        MemoryWrote {
            step: 2,
            key: "style".into(),
        },
        TodoWrote { step: 2, items: 3 },
        QuestionAsked {
            step: 3,
            question: "which file?".into(),
        },
        QuestionAnswered {
            step: 3,
            answer: "src/x.rs".into(),
        },
        ServerToolUsed {
            step: 3,
            tool: "web_search".into(),
        },
        Token {
            step: 3,
            text: "fn".into(),
        },
        Sandbox {
            step: 3,
            program: "/usr/bin/cargo".into(),
            outcome: "exited 0".into(),
        },
        Mcp {
            step: 3,
            server: "docs".into(),
            method: "tools/list".into(),
        },
    ]
}

/// A background process handle, from start to orphaned.
fn handles() -> Vec<EventKind> {
    use EventKind::*;
    vec![
        HandleStarted {
            step: 3,
            handle: "h-1".into(),
            argv: vec!["sleep".into(), "1".into()],
        },
        HandlePolled {
            step: 4,
            handle: "h-1".into(),
            running: true,
        },
        HandleKilled {
            step: 4,
            handle: "h-1".into(),
        },
        HandleExited {
            step: 4,
            handle: "h-2".into(),
            code: Some(0),
        },
        HandleOrphaned {
            handle: "h-3".into(),
        },
    ]
}

#[test]
fn every_variant_serialises_with_event_equal_to_its_tag_and_round_trips() {
    let all = one_of_each();
    let kinds: Vec<Kind<EventKind>> = all.iter().map(HookEvents::kind).collect();
    assert_eq!(kinds, Kind::<EventKind>::all().collect::<Vec<_>>());
    for (seq, kind) in all.into_iter().enumerate() {
        let ev = RunEvent {
            kind,
            run_id: "r-1".into(),
            depth: 1,
            seq: Some(seq as u64),
            at: Some("2026-11-30T03:00:00.123Z".into()),
        };
        let value = serde_json::to_value(&ev).expect("serialises");
        assert_eq!(value["event"], ev.tag(), "{value}");
        assert_eq!(value["run_id"], "r-1");
        assert_eq!(value["depth"], 1);
        let line = serde_json::to_string(&ev).expect("serialises");
        assert!(
            line.starts_with(&format!("{{\"event\":\"{}\"", ev.tag())),
            "{line}"
        );
        let back: RunEvent = serde_json::from_str(&line).expect("reads back");
        assert_eq!(back, ev);
    }
}

#[test]
fn the_envelope_requires_run_id_and_depth_but_not_seq_or_at() {
    let ok: RunEvent = serde_json::from_str(
        r#"{"event":"finished","outcome":"cancelled","steps":2,"run_id":"r","depth":0}"#,
    )
    .expect("seq and at are optional");
    assert_eq!(ok.seq, None);
    for missing in [
        r#"{"event":"finished","outcome":"completed","steps":2,"depth":0}"#,
        r#"{"event":"finished","outcome":"completed","steps":2,"run_id":"r"}"#,
    ] {
        assert!(
            serde_json::from_str::<RunEvent>(missing).is_err(),
            "{missing}"
        );
    }
}
