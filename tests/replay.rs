//! The replay driver: delivery order and cancellation at the step boundary.

use std::sync::Mutex;

use io_harness::{
    EventKind, Flow, Observer, RunEvent,
    replay::{ReplayOutcome, replay},
};

struct CancelOn {
    tag: &'static str,
    seen: Mutex<Vec<u64>>,
}

impl Observer for CancelOn {
    fn event(&self, e: &RunEvent) -> Flow {
        self.seen
            .lock()
            .expect("lock")
            .push(e.seq.unwrap_or(u64::MAX));
        if e.tag() == self.tag {
            Flow::Cancel
        } else {
            Flow::Continue
        }
    }
}

fn cancel_on(tag: &'static str) -> CancelOn {
    CancelOn {
        tag,
        seen: Mutex::new(Vec::new()),
    }
}

/// started, then two steps each of token + tool_call + step, then finished.
fn recording() -> Vec<RunEvent> {
    let mut kinds = vec![EventKind::Started {
        goal: "g".into(),
        resumed: false,
    }];
    for step in 1..=2 {
        kinds.push(EventKind::Token {
            step,
            text: "t".into(),
        });
        kinds.push(EventKind::ToolCall {
            step,
            tool: "exec".into(),
            args: serde_json::json!({}).into(),
        });
        kinds.push(EventKind::Step {
            step,
            moved_the_workspace: true,
        });
    }
    kinds.push(EventKind::Finished {
        outcome: io_harness::Outcome::Completed,
        steps: 2,
        resumed: false,
    });
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, kind)| RunEvent {
            kind,
            run_id: "r".into(),
            depth: 0,
            seq: Some(i as u64),
            at: None,
        })
        .collect()
}

#[test]
fn without_a_cancel_every_event_is_delivered_in_order() {
    let obs = cancel_on("nothing");
    assert_eq!(
        replay(recording(), &obs),
        ReplayOutcome::Completed { steps: 2 }
    );
    assert_eq!(
        *obs.seen.lock().expect("lock"),
        (0..8).collect::<Vec<u64>>()
    );
}

#[test]
fn a_cancel_delivers_up_to_and_including_the_next_step_then_stops() {
    let obs = cancel_on("token");
    assert_eq!(
        replay(recording(), &obs),
        ReplayOutcome::Cancelled { steps: 1 }
    );
    assert_eq!(*obs.seen.lock().expect("lock"), [0, 1, 2, 3]);
}

#[test]
fn a_cancel_on_a_step_stops_right_after_it() {
    let obs = cancel_on("step");
    assert_eq!(
        replay(recording(), &obs),
        ReplayOutcome::Cancelled { steps: 1 }
    );
    assert_eq!(*obs.seen.lock().expect("lock"), [0, 1, 2, 3]);
}

#[test]
fn a_cancel_after_the_last_step_delivers_the_rest() {
    let obs = cancel_on("finished");
    assert_eq!(
        replay(recording(), &obs),
        ReplayOutcome::Completed { steps: 2 }
    );
    assert_eq!(obs.seen.lock().expect("lock").len(), 8);
}
