//! Events marked `#[hook(last)]` (issue 45): nothing follows them that a
//! cancel could stop, so a hook whose every event is one may not say
//! `on_failure = "cancel"` (refused at load, naming the key and the fix),
//! a hook with other events too is kept and its failure on a last event
//! answers `Flow::Continue`, and the JSON Schema refuses what the loader
//! refuses.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

use std::path::Path;

use io_hooks::{Flow, HookEvents, HookFilter, Hooks, TableErrorKind, TomlFile};
use serde::Serialize;

#[derive(HookEvents, Serialize, Debug, Clone)]
#[serde(tag = "event")]
enum Ev {
    #[serde(rename = "step")]
    Step { step: u32 },
    #[serde(rename = "orphaned")]
    #[hook(last)]
    Orphaned,
    #[serde(rename = "finished")]
    #[hook(last)]
    Finished,
}

fn read(text: &str) -> Result<Vec<io_hooks::HookSpec<Ev>>, io_hooks::TableError> {
    TomlFile::new("app.toml", text).hooks::<Ev>(Path::new("/p"))
}

#[test]
fn the_derive_marks_the_last_events() {
    assert_eq!(Ev::LAST, [false, true, true]);
    assert_eq!(
        HookFilter::<Ev>::LAST.tags().collect::<Vec<_>>(),
        ["orphaned", "finished"]
    );
    assert!(!Ev::Step { step: 1 }.kind().is_last());
    assert!(Ev::Finished.kind().is_last());
    assert!(Ev::Orphaned.kind().is_last());
}

#[test]
fn a_cancel_on_last_events_only_is_refused_at_its_key_with_the_fix() {
    let err = read("[[hook]]\non = [\"finished\"]\nrun = [\"check\"]\non_failure = \"cancel\"\n")
        .unwrap_err();
    assert!(matches!(
        err.kind(),
        TableErrorKind::CancelStopsNothing { .. }
    ));
    assert_eq!(err.key(), Some("hook[1].on_failure"));
    assert_eq!(
        err.to_string(),
        "app.toml: key `hook[1].on_failure`: `on_failure = \"cancel\"` could never stop \
         anything: nothing follows `finished`, the one event in `on`, that a cancel could stop; \
         write `on_failure = \"continue\"` (or leave it out) to have its failure reported, or \
         name in `on` an event that comes before the work a cancel should stop (line 4, \
         column 14)"
    );
    let err = read(
        "[[hook]]\non = [\"finished\", \"orphaned\"]\nappend = \"a\"\non_failure = \"cancel\"\n",
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("nothing follows `orphaned` or `finished`, the events in `on`,"),
        "{err}"
    );
}

#[test]
fn a_cancel_with_other_events_too_loads_and_a_continue_on_last_events_does() {
    for text in [
        "[[hook]]\non = [\"step\", \"finished\"]\nrun = [\"x\"]\non_failure = \"cancel\"\n",
        "[[hook]]\nrun = [\"x\"]\non_failure = \"cancel\"\n",
        "[[hook]]\non = [\"finished\"]\nrun = [\"x\"]\non_failure = \"continue\"\n",
        "[[hook]]\non = [\"finished\"]\nrun = [\"x\"]\n",
    ] {
        assert!(read(text).is_ok(), "{text}");
    }
}

#[test]
fn a_cancelling_hooks_failure_on_a_last_event_is_reported_and_cancels_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[[hook]]\non = [\"step\", \"finished\"]\nrun = [\"/bin/sh\", \"-c\", \"exit 1\"]\n\
                on_failure = \"cancel\"\n";
    let specs = TomlFile::new("app.toml", text)
        .hooks::<Ev>(dir.path())
        .unwrap();
    let hooks = Hooks::new(specs, dir.path());
    let mut failed = Vec::new();
    let flow = hooks.fire_with(&Ev::Finished, &Ev::Finished, |run| {
        failed.push(run.result.is_err());
    });
    assert_eq!((flow, failed), (Flow::Continue, vec![true]));
    assert_eq!(hooks.fire_event(&Ev::Step { step: 1 }), Flow::Cancel);
}

#[test]
fn the_schema_refuses_a_cancel_on_last_events_only() {
    let schema = io_hooks::hook_table_schema::<Ev>(|_| String::new());
    let rule = serde_json::json!({
        "not": {
            "required": ["on", "on_failure"],
            "properties": {
                "on_failure": { "const": "cancel" },
                "on": { "items": { "enum": ["orphaned", "finished"] } }
            }
        }
    });
    let rules = schema["allOf"].as_array().expect("rules");
    assert!(rules.contains(&rule), "{rules:#?}");
}
