//! Which hooks an event reaches, in what order, how often the event is
//! serialised, and what the answer is.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{Ev, append, run, started, step};
use io_hooks::{Flow, HookFailure, HookRun, Hooks};
use serde::{Serialize, Serializer};

/// Counts how many times it is serialised.
struct Counted<'a> {
    inner: Ev,
    times: &'a AtomicUsize,
}

impl Serialize for Counted<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.times.fetch_add(1, Ordering::SeqCst);
        self.inner.serialize(s)
    }
}

fn outcomes(hooks: &Hooks<Ev>, ev: &Ev) -> (Flow, Vec<(usize, Option<String>)>) {
    let mut seen = Vec::new();
    let flow = hooks.fire_with(ev, ev, |r: HookRun<'_>| {
        // A hook that ran while the host waited: its event's tag and the
        // line it was given, and no `seq`, which a background report has.
        assert_eq!(r.event, io_hooks::HookEvents::tag(ev));
        assert_eq!(
            r.line,
            [serde_json::to_vec(ev).unwrap(), b"\n".to_vec()].concat()
        );
        assert_eq!((r.seq, r.background), (None, false));
        seen.push((r.index, r.result.err().map(HookFailure::to_string)));
    });
    (flow, seen)
}

#[test]
fn hooks_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Hooks<Ev>>();
    assert_send_sync::<HookFailure>();
}

#[test]
fn an_unwanted_event_is_never_serialised() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let hooks = Hooks::new(vec![append(&log, &["step"], Flow::Continue)], dir.path());
    let times = AtomicUsize::new(0);
    let ev = started("x");
    let counted = Counted {
        inner: ev.clone(),
        times: &times,
    };
    let mut reported = 0;
    assert_eq!(hooks.fire(&ev, &counted), Flow::Continue);
    assert_eq!(
        hooks.fire_with(&ev, &counted, |_| reported += 1),
        Flow::Continue
    );
    assert_eq!(times.load(Ordering::SeqCst), 0);
    assert_eq!(reported, 0, "no hook matched, so none is reported");
    assert_eq!(fs::read_to_string(&log).unwrap(), "");
}

#[test]
fn a_matching_event_is_serialised_once_for_every_hook() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("c"),
    );
    let hooks = Hooks::new(
        vec![
            append(&a, &[], Flow::Continue),
            append(&b, &["step"], Flow::Continue),
            append(&c, &["started", "step"], Flow::Continue),
        ],
        dir.path(),
    );
    let times = AtomicUsize::new(0);
    let ev = step(7);
    let counted = Counted {
        inner: ev.clone(),
        times: &times,
    };
    assert_eq!(hooks.fire(&ev, &counted), Flow::Continue);
    assert_eq!(times.load(Ordering::SeqCst), 1);
    let line = "{\"event\":\"step\",\"run_id\":1,\"depth\":0,\"n\":7}\n";
    for f in [&a, &b, &c] {
        assert_eq!(fs::read_to_string(f).unwrap(), line);
    }
}

#[test]
fn only_hooks_whose_filter_holds_the_kind_run() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let hooks = Hooks::new(
        vec![
            append(&a, &["finished"], Flow::Continue),
            append(&b, &["started"], Flow::Continue),
        ],
        dir.path(),
    );
    let (_, seen) = outcomes(&hooks, &started("g"));
    assert_eq!(seen, [(1, None)]);
    assert_eq!(fs::read_to_string(&a).unwrap(), "");
    assert_eq!(fs::read_to_string(&b).unwrap().lines().count(), 1);
}

#[test]
fn the_kind_decides_matching_and_the_payload_is_what_hooks_receive() {
    // A harness fires its envelope, whose flattened tag is the kind's.
    #[derive(Serialize)]
    struct Envelope<'a> {
        seq: u64,
        #[serde(flatten)]
        kind: &'a Ev,
    }
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let hooks = Hooks::new(
        vec![append(&log, &["finished"], Flow::Continue)],
        dir.path(),
    );
    let ev = Ev::Finished { run_id: 9 };
    assert_eq!(
        hooks.fire(&ev, &Envelope { seq: 3, kind: &ev }),
        Flow::Continue
    );
    assert_eq!(
        fs::read_to_string(&log).unwrap(),
        "{\"seq\":3,\"event\":\"finished\",\"run_id\":9}\n"
    );
}

#[test]
fn every_matching_hook_runs_in_order_even_after_failures() {
    let dir = tempfile::tempdir().unwrap();
    let order = dir.path().join("order");
    let bad = dir.path().join("no/such/dir/log");
    // Each run hook appends its own number to `order` through its argv.
    let mark = |n: &str, code: &str| {
        run(
            &["/bin/sh", "-c", &format!("echo {n} >> order; exit {code}")],
            5000,
            &[],
            Flow::Continue,
        )
    };
    let hooks = Hooks::new(
        vec![
            mark("0", "1"),
            append(&bad, &[], Flow::Continue),
            mark("2", "0"),
            mark("3", "4"),
        ],
        dir.path(),
    );
    let (flow, seen) = outcomes(&hooks, &step(1));
    assert_eq!(flow, Flow::Continue, "no failed hook asked to cancel");
    let indices: Vec<usize> = seen.iter().map(|s| s.0).collect();
    assert_eq!(indices, [0, 1, 2, 3]);
    assert_eq!(seen[0].1.as_deref(), Some("exited with status 1"));
    assert!(
        seen[1]
            .1
            .as_deref()
            .is_some_and(|e| e.starts_with("could not append to `"))
    );
    assert_eq!(seen[2].1, None);
    assert_eq!(seen[3].1.as_deref(), Some("exited with status 4"));
    assert_eq!(fs::read_to_string(&order).unwrap(), "0\n2\n3\n");
}

#[test]
fn the_answer_is_cancel_iff_a_failed_hook_says_cancel() {
    let dir = tempfile::tempdir().unwrap();
    let ok = || run(&["/bin/sh", "-c", "exit 0"], 5000, &[], Flow::Cancel);
    let fail = |on_failure| run(&["/bin/sh", "-c", "exit 2"], 5000, &[], on_failure);

    let cases: Vec<(Vec<_>, Flow)> = vec![
        (vec![ok()], Flow::Continue),
        (vec![fail(Flow::Continue)], Flow::Continue),
        (vec![fail(Flow::Cancel)], Flow::Cancel),
        (
            vec![fail(Flow::Continue), ok(), fail(Flow::Continue)],
            Flow::Continue,
        ),
        (
            vec![fail(Flow::Cancel), fail(Flow::Continue), ok()],
            Flow::Cancel,
        ),
        (
            vec![ok(), fail(Flow::Continue), fail(Flow::Cancel)],
            Flow::Cancel,
        ),
    ];
    for (i, (specs, want)) in cases.into_iter().enumerate() {
        let n = specs.len();
        let hooks = Hooks::new(specs, dir.path());
        let (flow, seen) = outcomes(&hooks, &step(1));
        assert_eq!(flow, want, "case {i}");
        assert_eq!(seen.len(), n, "case {i}: every hook ran");
    }
}

#[test]
fn fire_event_serialises_the_enum_itself() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let hooks = Hooks::new(vec![append(&log, &[], Flow::Continue)], dir.path());
    assert!(!hooks.is_empty());
    assert_eq!(
        hooks.fire_event(&Ev::Finished { run_id: 4 }),
        Flow::Continue
    );
    assert_eq!(
        fs::read_to_string(&log).unwrap(),
        "{\"event\":\"finished\",\"run_id\":4}\n"
    );
}

#[test]
fn an_event_that_cannot_be_serialised_fails_each_matching_hook() {
    struct Unserialisable;
    impl Serialize for Unserialisable {
        fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("secret-in-error"))
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let hooks = Hooks::new(
        vec![
            append(&log, &[], Flow::Continue),
            append(&log, &[], Flow::Cancel),
        ],
        dir.path(),
    );
    let mut seen = Vec::new();
    let flow = hooks.fire_with(&step(1), &Unserialisable, |r| {
        // No line to give: the event's tag, an empty line, and why.
        assert_eq!(
            (r.event, r.line, r.seq, r.background),
            ("step", &b""[..], None, false)
        );
        seen.push(r.result.err().map(HookFailure::to_string));
    });
    assert_eq!(flow, Flow::Cancel);
    // serde's reason is the event type's own words: kept (docs/decisions.md).
    let msg = "could not serialise the `step` event as JSON: secret-in-error".to_owned();
    assert_eq!(seen, [Some(msg.clone()), Some(msg)]);
    assert_eq!(fs::read_to_string(&log).unwrap(), "");
}

#[test]
fn no_hooks_is_empty_and_wants_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = Hooks::<Ev>::new(Vec::new(), dir.path());
    assert!(hooks.is_empty());
    assert!(hooks.wanted().is_empty());
    assert_eq!(hooks.root(), dir.path());
    assert!(format!("{hooks:?}").starts_with("Hooks { specs: [], root: "));
    assert_eq!(hooks.fire_event(&step(1)), Flow::Continue);
}
