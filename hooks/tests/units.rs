//! The engine's small public operations, each checked in its own crate: the
//! `HookFilter` set operations, `Cost`, `UnknownEvent`, `HookFailure::source`,
//! `HookRun::number`, `HookTables::is_empty` and `TableError::file`.
//! (Written against the mutants cargo-mutants left alive: each assertion
//! here fails under one of them.)

mod common;

use std::error::Error as _;
use std::io;
use std::path::PathBuf;
use std::time::Duration;

use common::{Ev, append, started, step};
use io_hooks::hook_table_schema;
use io_hooks::text::did_you_mean;
use io_hooks::{
    Action, Cost, Flow, HookEvents, HookFailure, HookFilter, HookTables, Hooks, TableErrorKind,
    TomlFile, UnknownEvent,
};
use io_supervisor::ProcessError;

fn f(on: &[&str]) -> HookFilter<Ev> {
    HookFilter::from_names(on).expect("real events")
}

#[test]
fn filters_are_equal_exactly_when_they_hold_the_same_events() {
    assert_eq!(f(&["step", "finished"]), f(&["finished", "step"]));
    assert_ne!(f(&["step"]), f(&["finished"]));
    assert_ne!(f(&["step"]), f(&["step", "finished"]));
    assert_eq!(HookFilter::<Ev>::default(), HookFilter::ALL);
    assert_ne!(HookFilter::<Ev>::EMPTY, HookFilter::ALL);
}

#[test]
fn empty_all_and_len_count_the_events() {
    let empty = HookFilter::<Ev>::EMPTY;
    assert!(empty.is_empty());
    assert!(!empty.is_all());
    assert_eq!(empty.len(), 0);
    assert_eq!(f(&[]), empty, "no names is no event");

    let one = f(&["tool_call"]);
    assert!(!one.is_empty());
    assert!(!one.is_all());
    assert_eq!(one.len(), 1);

    let three = f(&["started", "step", "finished"]);
    assert!(!three.is_all());
    assert_eq!(three.len(), 3);

    let every = f(Ev::TAGS);
    assert!(every.is_all());
    assert!(!every.is_empty());
    assert_eq!(every.len(), 4);
    assert_eq!(every, HookFilter::ALL);
    assert!(HookFilter::<Ev>::ALL.is_all());
    assert_eq!(HookFilter::<Ev>::ALL.len(), Ev::TAGS.len());
}

#[test]
fn a_name_given_twice_is_in_the_set_once() {
    let twice = f(&["step", "step"]);
    assert!(twice.contains(&step(1)));
    assert_eq!(twice.len(), 1);
    assert_eq!(twice, f(&["step"]));
}

#[test]
fn union_holds_the_events_of_either() {
    let a = f(&["started", "step"]);
    let b = f(&["step", "finished"]);
    let u = a.union(b);
    assert_eq!(u, f(&["started", "step", "finished"]));
    assert_eq!(a.union(a), a, "a set united with itself is itself");
    assert_eq!(a.union(HookFilter::EMPTY), a);
    assert!(a.union(HookFilter::ALL).is_all());
}

#[test]
fn contains_tests_only_the_events_bit() {
    let tool = Ev::ToolCall {
        run_id: 1,
        tool: "x".into(),
    };
    let fin = Ev::Finished { run_id: 1 };
    let s = f(&["step", "finished"]);
    assert!(s.contains(&step(1)));
    assert!(s.contains(&fin));
    assert!(!s.contains(&started("g")));
    assert!(!s.contains(&tool));
    let first = f(&["started"]);
    assert!(first.contains(&started("g")));
    assert!(!first.contains(&step(1)));
    assert!(!HookFilter::<Ev>::EMPTY.contains(&fin));
}

/// `only` is the one-event filter a harness builds from a kind: it holds
/// that event and nothing else, wherever the variant stands.
#[test]
fn only_holds_exactly_its_kind() {
    for (i, tag) in Ev::TAGS.iter().enumerate() {
        let kind = Ev::from_tag(tag).expect("a tag of Ev");
        let only = HookFilter::only(kind);
        assert_eq!(only, f(&[tag]), "{tag}");
        assert_eq!(only.len(), 1);
        assert!(only.contains_kind(kind));
        assert_eq!(only.tags().collect::<Vec<_>>(), [Ev::TAGS[i]]);
    }
}

#[test]
fn tags_and_debug_list_the_set_in_declaration_order() {
    let s = f(&["finished", "started"]);
    assert_eq!(s.tags().collect::<Vec<_>>(), ["started", "finished"]);
    assert_eq!(format!("{s:?}"), r#"{"started", "finished"}"#);
    assert_eq!(HookFilter::<Ev>::EMPTY.tags().count(), 0);
    assert_eq!(HookFilter::<Ev>::ALL.tags().collect::<Vec<_>>(), Ev::TAGS);
}

#[test]
fn from_names_refuses_the_first_unknown_name() {
    let err = HookFilter::<Ev>::from_names(["step", "colour", "stepp"]).unwrap_err();
    assert_eq!(err.name, "colour");
    assert_eq!(err.suggestion, None);
    assert_eq!(err.expected, Ev::TAGS);
    assert_eq!(
        err.to_string(),
        "unknown event `colour`; expected one of `started`, `step`, `tool_call`, `finished`"
    );
    assert_eq!(err, UnknownEvent::new::<Ev>("colour"));
}

#[test]
fn an_events_tag_is_its_entry_in_tags() {
    assert_eq!(started("g").tag(), "started");
    assert_eq!(step(2).tag(), "step");
    assert_eq!(Ev::Finished { run_id: 1 }.tag(), "finished");
}

#[test]
fn cost_classes_read_as_io_events_prints_them() {
    assert_eq!(Cost::PerItem.as_str(), "per item");
    assert_eq!(Cost::PerUnit.as_str(), "per unit");
    assert_eq!(Cost::PerInvocation.as_str(), "per invocation");
    assert_eq!(Cost::Rare.as_str(), "rare");
}

#[test]
fn a_longer_name_may_be_further_off_and_still_suggest() {
    // Ten characters allow three edits; this is two away.
    assert_eq!(
        did_you_mean("tmeout_msx", ["on", "timeout_ms"]),
        Some("timeout_ms")
    );
    // Eight characters allow two edits; this is three away.
    assert_eq!(did_you_mean("tmeot_ma", ["on", "timeout_ms"]), None);
    // Ties go to the earlier candidate.
    assert_eq!(did_you_mean("ab", ["ac", "ad"]), Some("ac"));
}

#[test]
fn a_failure_with_an_os_cause_says_it_once_in_its_message_and_has_no_source() {
    // Access denied: `EACCES`, or Windows' `ERROR_ACCESS_DENIED`.
    let code = if cfg!(windows) { 5 } else { 13 };
    let cause = || io::Error::from_raw_os_error(code);
    let denied = cause().to_string();
    let denied = denied.strip_suffix(&format!(" (os error {code})")).unwrap();
    #[cfg(unix)]
    assert_eq!(denied, "Permission denied");
    let with_cause = [
        HookFailure::Process(ProcessError::Spawn {
            program: "x".into(),
            cause: cause(),
        }),
        HookFailure::Process(ProcessError::Wait { cause: cause() }),
    ];
    // (`append`'s own failures are checked the same way in its module.)
    // The crate's convention: the cause is in `Display`, read one way, and
    // `source()` gives nothing, so a chain printer never says it twice.
    for failure in &with_cause {
        assert!(failure.source().is_none(), "{failure:?}");
        let text = failure.to_string();
        assert_eq!(text.matches(denied).count(), 1, "{text}");
        assert!(!text.contains("os error"), "{text}");
    }
    let without = [
        HookFailure::Serialize {
            event: "step",
            cause: "no".into(),
        },
        HookFailure::Process(ProcessError::NotFound {
            program: "x".into(),
        }),
        HookFailure::Process(ProcessError::Exit { code: 1 }),
        HookFailure::Process(ProcessError::Signal { signal: 9 }),
        HookFailure::Process(ProcessError::TimedOut {
            timeout: Duration::from_millis(5),
        }),
        HookFailure::Process(ProcessError::Interrupted),
    ];
    for failure in &without {
        assert!(failure.source().is_none(), "{failure:?}");
    }
}

/// An action's own failure says what its cause says, and its `source()` is
/// the cause's next link, not the cause (already in the message): a chain
/// printer shows each link once. A cause with no link beneath has none.
#[test]
fn an_action_failures_source_is_its_causes_next_link() {
    #[derive(Debug)]
    struct Full(io::Error);
    impl std::fmt::Display for Full {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("the tally could not be kept")
        }
    }
    impl std::error::Error for Full {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }
    let failure = HookFailure::action("count", Full(io::Error::from_raw_os_error(28)));
    assert_eq!(failure.to_string(), "the tally could not be kept");
    let next = failure.source().expect("the cause's own source");
    let next = next
        .downcast_ref::<io::Error>()
        .expect("the io::Error beneath");
    assert_eq!(next.raw_os_error(), Some(28));
    let plain = HookFailure::action("count", "the tally is not a number");
    assert!(plain.source().is_none(), "{plain:?}");
}

/// A problem is an error a host can return with `?`, saying everything in
/// its `Display`, as every error of the crate does.
#[test]
fn a_problem_is_an_error_whose_display_says_it_all() {
    let dir = tempfile::tempdir().unwrap();
    let specs = vec![append(
        &dir.path().join("nope/a.jsonl"),
        &["step"],
        Flow::Continue,
    )];
    let problems = Hooks::check(&specs, dir.path());
    let problem: &dyn std::error::Error = &problems[0];
    let shown = format!(
        "hook[1]: append: `{}` cannot be created: there is no directory `{}`",
        dir.path().join("nope/a.jsonl").display(),
        dir.path().join("nope").display()
    );
    assert_eq!(problem.to_string(), shown);
    assert!(problem.source().is_none());
    assert_eq!(format!("hook[1]: {}", problems[0].message()), shown);
}

#[test]
fn a_hook_run_is_numbered_from_one() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = Hooks::new(
        vec![
            append(&dir.path().join("a.jsonl"), &["started"], Flow::Continue),
            append(&dir.path().join("b.jsonl"), &["step"], Flow::Continue),
            append(&dir.path().join("c.jsonl"), &["step"], Flow::Continue),
        ],
        dir.path(),
    );
    let mut seen = Vec::new();
    let flow = hooks.fire_with(&step(1), &step(1), |run| {
        assert!(run.result.is_ok());
        seen.push((run.index, run.number()));
    });
    assert_eq!(flow, Flow::Continue);
    assert_eq!(seen, [(1, 2), (2, 3)]);
}

#[test]
fn an_empty_hook_array_is_empty_and_a_written_one_is_not() {
    #[derive(serde::Deserialize)]
    struct Doc {
        hook: HookTables,
    }
    let empty: Doc = TomlFile::new("io.toml", "hook = []\n")
        .deserialize()
        .unwrap();
    assert!(empty.hook.is_empty());
    assert_eq!(empty.hook.len(), 0);
    let one: Doc = TomlFile::new("io.toml", "[[hook]]\nappend = \"x\"\n")
        .deserialize()
        .unwrap();
    assert!(!one.hook.is_empty());
    assert_eq!(one.hook.len(), 1);
}

#[test]
fn a_table_error_names_its_file() {
    let root = tempfile::tempdir().unwrap();
    let err = TomlFile::new("conf/io.local.toml", "[[hook]]\nappend = 3\n")
        .hooks::<Ev>(root.path())
        .unwrap_err();
    assert_eq!(err.file(), "conf/io.local.toml");
    assert!(err.to_string().starts_with("conf/io.local.toml: "), "{err}");
}

#[test]
fn a_spec_debugs_as_its_fields() {
    let spec = append(std::path::Path::new("/l/a.jsonl"), &["step"], Flow::Cancel);
    assert_eq!(
        format!("{spec:?}"),
        r#"HookSpec { on: {"step"}, action: AppendAction { path: "/l/a.jsonl" }, on_failure: Cancel }"#
    );
}

#[test]
fn an_action_describes_itself_as_io_check_prints_it() {
    let root = std::path::Path::new("/r");
    let inside = Action::append(root.join("logs/a.jsonl"));
    assert_eq!(inside.describe(root), "append to logs/a.jsonl");
    let outside = Action::append(PathBuf::from("/elsewhere/a.jsonl"));
    assert_eq!(outside.describe(root), "append to /elsewhere/a.jsonl");
    let run = Action::run_with_timeout(["notify", "a b"], Duration::from_millis(250));
    assert_eq!(
        run.describe(root),
        r#"run ["notify","a b"] (timeout 250 ms)"#
    );
}

#[test]
fn a_toml_file_keeps_its_name_and_text() {
    let file = TomlFile::new("conf/io.toml", "model = \"m\"\n");
    assert_eq!(file.name(), "conf/io.toml");
    assert_eq!(file.text(), "model = \"m\"\n");
}

#[test]
fn a_wrong_type_in_a_callers_array_of_tables_is_a_shape_error_not_an_unknown_key() {
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Item {
        name: String,
    }
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Doc {
        item: Vec<Item>,
    }
    let err = TomlFile::new("io.toml", "[[item]]\nname = 3\n")
        .deserialize::<Doc>()
        .unwrap_err();
    assert_eq!(err.key(), Some("item[1].name"));
    assert!(
        matches!(err.kind(), TableErrorKind::Shape(m) if m.starts_with("invalid type")),
        "{:?}",
        err.kind()
    );
}

#[test]
fn the_schemas_one_exclusion_rule_is_written_at_the_top_level() {
    // `timeout_ms` and `background` belong to `run`: beside `append` they
    // are refused. With the built-in actions that is the only exclusion,
    // and it stays where it has always been written; `allOf` holds `run`'s
    // own rule (no `background` with `cancel`), then the rules of `where`.
    let schema = hook_table_schema::<Ev>(|_| String::new());
    let all_of = schema["allOf"].as_array().expect("the rules");
    assert_eq!(
        all_of[0],
        serde_json::json!({ "not": {
            "required": ["background", "on_failure"],
            "properties": {
                "background": { "const": true },
                "on_failure": { "const": "cancel" }
            }
        } })
    );
    assert!(
        all_of[1..].iter().all(|rule| rule["if"]["required"]
            .as_array()
            .is_some_and(|r| r.contains(&"where".into()))),
        "{schema:#}"
    );
    assert_eq!(schema["if"], serde_json::json!({ "required": ["append"] }));
    assert_eq!(
        schema["then"],
        serde_json::json!({ "not": { "anyOf": [
            { "required": ["timeout_ms"] },
            { "required": ["background"] }
        ] } })
    );
}
