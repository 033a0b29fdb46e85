//! serde writes each event with the tag hooks are matched on: the one line
//! io-hooks asks of an embedder's tests, for the disagreement its derive
//! cannot see.

use ci_runner::CiEvent;
use io_hooks::{HookEvents, TagCheckError};

#[test]
fn serde_writes_every_event_with_its_hook_tag() {
    io_hooks::check_tags(&CiEvent::examples()).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_examples_hold_one_event_of_each_kind_in_declaration_order() {
    let tags: Vec<&str> = CiEvent::examples().iter().map(HookEvents::tag).collect();
    assert_eq!(tags, CiEvent::TAGS);
    assert_eq!(
        CiEvent::TAGS,
        [
            "runner_ready",
            "pipeline_started",
            "job_queued",
            "job_started",
            "command_finished",
            "job_finished",
            "pipeline_finished",
            "runner_stopping",
        ]
    );
}

#[test]
fn a_kind_left_out_of_the_examples_is_named() {
    let mut examples = CiEvent::examples();
    examples.pop();
    let err = io_hooks::check_tags(&examples).unwrap_err();
    assert!(
        matches!(
            err,
            TagCheckError::NoExample {
                event: "runner_stopping",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_nested_struct_is_written_inside_the_tagged_object() {
    let examples = CiEvent::examples();
    let queued = serde_json::to_value(&examples[2]).unwrap();
    assert_eq!(
        queued,
        serde_json::json!({"event": "job_queued", "pipeline": "check", "name": "test", "number": 1})
    );
    let finished = serde_json::to_value(&examples[5]).unwrap();
    assert_eq!(
        finished,
        serde_json::json!({
            "event": "job_finished",
            "job": {"pipeline": "check", "name": "test", "number": 1},
            "outcome": "passed"
        })
    );
}
