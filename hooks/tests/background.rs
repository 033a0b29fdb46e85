//! Background `run` hooks (`background = true`): the thread that fires goes
//! on at once; per hook, events reach the hook in the order fired, none
//! lost, through a bounded queue that makes the firing thread wait when
//! full (said once); failures are told with the event they were given; the
//! host waits for them at its end, on drop, and ends them with its
//! interrupt. Real children, real files, a real `tracing` subscriber.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use common::capture::{capture, capture_with};
use common::{Ev, filter, step, wait_until, within};
use io_hooks::{
    Action, Flow, HookFailure, HookSpec, Hooks, QUEUE_BYTES, QUEUE_EVENTS, RunAction, TomlFile,
};
use io_supervisor::ProcessError;

/// Bounds every wait on a child: far above what any of them needs.
const PATIENCE: Duration = Duration::from_secs(60);

fn background(argv: &[&str], on: &[&str]) -> HookSpec<Ev> {
    let action = Action::run_in_background(argv.iter().copied(), PATIENCE);
    HookSpec::new(filter(on), action)
}

/// A hook that waits for `gate` to exist, then appends its event to `out`:
/// what it does cannot happen before the test opens the gate.
fn gated(dir: &Path) -> Vec<String> {
    let gate = dir.join("gate").display().to_string();
    let out = dir.join("out.jsonl").display().to_string();
    vec![
        "/bin/sh".into(),
        "-c".into(),
        // Bounded on its own too (60 s), should the test be killed before
        // its hooks can end it.
        "n=0; until [ -e \"$0\" ] || [ $n -ge 6000 ]; do sleep 0.01; n=$((n+1)); done; \
         cat >> \"$1\""
            .into(),
        gate,
        out,
    ]
}

/// Runs `fire` while a thread of the test's waits for the full queue to be
/// said in `log`, then opens `gate`; `fire` is given whether the gate has
/// been opened, to check that a fire it expects to wait did.
fn fire_until_full_then_open(
    log: &common::capture::Captured,
    gate: &Path,
    fire: impl FnOnce(&AtomicBool),
) {
    let opened = AtomicBool::new(false);
    std::thread::scope(|s| {
        let opener = s.spawn(|| {
            let said = wait_until(PATIENCE, || log.text().contains("queue is full"));
            opened.store(true, Ordering::SeqCst);
            std::fs::write(gate, "").unwrap();
            said
        });
        fire(&opened);
        assert!(opener.join().unwrap(), "the full queue was never said");
    });
}

/// A background hook on `step` that appends each event to `dir/out.jsonl`,
/// and that file.
fn tee(dir: &Path) -> (HookSpec<Ev>, std::path::PathBuf) {
    let out = dir.join("out.jsonl");
    let spec = background(&["tee", "-a", &out.display().to_string()], &["step"]);
    (spec, out)
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn step_line(n: u64) -> String {
    format!("{{\"event\":\"step\",\"run_id\":1,\"depth\":0,\"n\":{n}}}")
}

#[test]
fn fire_returns_before_the_hook_has_run_and_the_wait_sees_it_done() {
    let dir = tempfile::tempdir().unwrap();
    let argv = gated(dir.path());
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let hooks = Hooks::new(vec![background(&argv, &["step"])], dir.path());
    let mut reports = Vec::new();
    for n in 1..=3 {
        let flow = hooks.fire_with(&step(n), &step(n), |run| {
            let line = String::from_utf8_lossy(run.line).into_owned();
            reports.push((
                run.number(),
                run.background,
                run.result.is_ok(),
                run.event,
                run.seq,
                line,
            ));
        });
        assert_eq!(flow, Flow::Continue);
    }
    // Every fire returned while the hook was still at its gate: nothing can
    // have been written. The report of a queued event says its event and
    // line, and no `seq`, which only the worker's report has.
    let queued: Vec<_> = (1..=3)
        .map(|n| (1, true, true, "step", None, step_line(n) + "\n"))
        .collect();
    assert_eq!(reports, queued);
    assert_eq!(lines(&dir.path().join("out.jsonl")), Vec::<String>::new());
    std::fs::write(dir.path().join("gate"), "").unwrap();
    within(PATIENCE, "the background hook's queue", {
        let hooks = Arc::new(hooks);
        move || hooks.wait_background()
    });
    let expected: Vec<String> = (1..=3).map(step_line).collect();
    assert_eq!(lines(&dir.path().join("out.jsonl")), expected);
}

#[test]
fn more_events_than_the_queue_holds_arrive_every_one_in_order_and_the_wait_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    let argv = gated(dir.path());
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let events = QUEUE_EVENTS as u64 + 76;
    let gate = dir.path().join("gate");
    let (_, log) = capture_with(|log| {
        let hooks = Hooks::new(vec![background(&argv, &["step"])], dir.path());
        // The hook holds its first event at the gate until the queue is
        // full and the firing thread waits, as the warning says; a thread
        // of the test's opens the gate once it has.
        fire_until_full_then_open(log, &gate, |opened| {
            for n in 1..=events {
                assert_eq!(hooks.fire_event(&step(n)), Flow::Continue);
                // The hook holds event 1 at the gate and the queue holds the
                // next QUEUE_EVENTS: this one could only be queued once the
                // gate had opened and the hook had taken one.
                if n == QUEUE_EVENTS as u64 + 2 {
                    assert!(opened.load(Ordering::SeqCst), "a full queue took event {n}");
                }
            }
        });
        hooks.wait_background();
    });
    let expected: Vec<String> = (1..=events).map(step_line).collect();
    let got = lines(&out);
    assert_eq!(got.len(), expected.len(), "events lost or repeated");
    assert_eq!(got, expected, "events out of the order they were fired in");
    assert_eq!(
        log.matches("background queue is full").count(),
        1,
        "the full queue is said once per hook:\n{log}"
    );
    assert!(
        log.contains("hook[1]'s background queue is full (1024 events): the run waits"),
        "{log}"
    );
}

#[test]
fn a_thousand_events_reach_a_background_hook_in_the_order_fired() {
    let dir = tempfile::tempdir().unwrap();
    let (spec, out) = tee(dir.path());
    let hooks = Hooks::new(vec![spec], dir.path());
    for n in 1..=1000 {
        assert_eq!(hooks.fire_event(&step(n)), Flow::Continue);
    }
    hooks.wait_background();
    let expected: Vec<String> = (1..=1000).map(step_line).collect();
    assert_eq!(lines(&out), expected);
}

#[test]
fn a_failure_is_told_and_logged_with_the_event_it_was_given_and_never_cancels() {
    let dir = tempfile::tempdir().unwrap();
    let told = Arc::new(Mutex::new(Vec::new()));
    let (flows, log) = capture(|| {
        let seen = Arc::clone(&told);
        let hooks = Hooks::new(
            vec![
                background(&["/bin/sh", "-c", "exit 3"], &["step"]),
                background(&["true"], &["step"]),
            ],
            dir.path(),
        )
        .on_background(move |run| {
            let result = run.result.map_err(ToString::to_string);
            let line = String::from_utf8_lossy(run.line).into_owned();
            seen.lock().unwrap_or_else(PoisonError::into_inner).push((
                run.number(),
                run.event,
                run.seq,
                result,
                line,
            ));
        });
        let flows: Vec<Flow> = (1..=2).map(|n| hooks.fire_event(&step(n))).collect();
        hooks.wait_background();
        flows
    });
    assert_eq!(flows, [Flow::Continue, Flow::Continue]);
    let mut told = told.lock().unwrap_or_else(PoisonError::into_inner).clone();
    told.sort();
    let failed = Err("exited with status 3".to_owned());
    assert_eq!(
        told,
        [
            (1, "step", Some(1), failed.clone(), step_line(1) + "\n"),
            (1, "step", Some(2), failed, step_line(2) + "\n"),
            (2, "step", Some(1), Ok(()), step_line(1) + "\n"),
            (2, "step", Some(2), Ok(()), step_line(2) + "\n"),
        ]
    );
    assert!(
        log.contains(
            "hook[1] failed in the background on `step` (its event 2): exited with status 3; \
             the run goes on"
        ),
        "{log}"
    );
    assert!(!log.contains("hook[2] failed"), "{log}");
}

#[test]
fn dropping_the_hooks_delivers_every_queued_event_first() {
    let dir = tempfile::tempdir().unwrap();
    let argv = gated(dir.path());
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let hooks = Hooks::new(vec![background(&argv, &["step"])], dir.path());
    for n in 1..=5 {
        assert_eq!(hooks.fire_event(&step(n)), Flow::Continue);
    }
    assert_eq!(lines(&dir.path().join("out.jsonl")), Vec::<String>::new());
    std::fs::write(dir.path().join("gate"), "").unwrap();
    within(PATIENCE, "dropping the hooks", move || drop(hooks));
    let expected: Vec<String> = (1..=5).map(step_line).collect();
    assert_eq!(lines(&dir.path().join("out.jsonl")), expected);
}

#[test]
fn the_interrupt_ends_the_child_in_flight_and_gives_the_queued_events_to_no_one() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let out = dir.path().join("out.jsonl");
    // The pid is written once the event is: when the test reads it, the
    // first event's line is in the file.
    let script = format!(
        "cat >> '{}'; echo $$ > '{}'; exec sleep 60",
        out.display(),
        pid_file.display()
    );
    let ((), log) = capture(|| {
        let hooks = Hooks::new(
            vec![background(&["/bin/sh", "-c", &script], &["step"])],
            dir.path(),
        );
        for n in 1..=4 {
            assert_eq!(hooks.fire_event(&step(n)), Flow::Continue);
        }
        assert!(
            wait_until(PATIENCE, || common::read_pid(&pid_file).is_some()),
            "the first event's child never started"
        );
        let pid = common::read_pid(&pid_file).unwrap();
        hooks.supervisor().interrupt();
        hooks.wait_background();
        assert!(
            !common::alive(pid),
            "the child in flight outlived the interrupt"
        );
        assert_eq!(hooks.supervisor().in_flight(), 0);
    });
    assert_eq!(
        lines(&out),
        [step_line(1)],
        "a queued event ran after the interrupt"
    );
    assert!(
        log.contains(
            "hook[1] was interrupted with 3 event(s) still queued for it in the background; \
             they were not given to it"
        ),
        "{log}"
    );
}

#[test]
fn a_hook_that_cancels_runs_while_the_host_waits_whatever_its_action_says() {
    let dir = tempfile::tempdir().unwrap();
    let spec = background(&["/bin/sh", "-c", "exit 1"], &["step"]).with_on_failure(Flow::Cancel);
    let mut failures = Vec::new();
    let (flow, _) = capture(|| {
        let hooks = Hooks::new(vec![spec], dir.path());
        // Said, with the way out in the embedder's words.
        let hints: Vec<_> = hooks
            .problems()
            .iter()
            .map(io_hooks::Problem::hint)
            .collect();
        assert_eq!(
            hints,
            [Some(
                "build its action without `in_background`, or make its `on_failure` \
                 `Flow::Continue`"
                    .to_owned()
            )]
        );
        hooks.fire_with(&step(1), &step(1), |run| {
            failures.push((run.background, run.result.err().map(ToString::to_string)));
        })
    });
    assert_eq!(flow, Flow::Cancel);
    assert_eq!(failures, [(false, Some("exited with status 1".to_owned()))]);
}

#[test]
fn no_worker_starts_for_a_hook_that_never_fires() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = Hooks::new(vec![background(&["true"], &["finished"])], dir.path());
    assert_eq!(hooks.fire_event(&step(1)), Flow::Continue);
    // Nothing queued, nothing to wait for: returns at once, no thread.
    within(Duration::from_secs(10), "waiting on no worker", move || {
        hooks.wait_background();
    });
}

const TABLE: &str = "[[hook]]\non = [\"step\"]\n";

fn read(text: &str) -> Result<Vec<HookSpec<Ev>>, String> {
    let dir = tempfile::tempdir().unwrap();
    TomlFile::new("app.toml", &format!("{TABLE}{text}"))
        .hooks::<Ev>(dir.path())
        .map_err(|e| e.to_string())
}

#[test]
fn background_is_read_on_a_run_hook_and_refused_where_it_cannot_hold() {
    let specs = read("run = [\"notify\"]\nbackground = true\n").unwrap();
    assert!(specs[0].action.get::<RunAction>().is_some());
    assert!(specs[0].action.background());
    let specs = read("run = [\"notify\"]\nbackground = false\n").unwrap();
    assert!(specs[0].action.get::<RunAction>().is_some());
    assert!(!specs[0].action.background());
    assert_eq!(
        read("append = \"a.jsonl\"\nbackground = true\n").unwrap_err(),
        "app.toml: key `hook[1].background`: `background` applies only to a `run` hook, and \
         this hook appends (an append is one write, done in microseconds, which never holds \
         the run up); remove it (line 4, column 14)"
    );
    assert_eq!(
        read("run = [\"check\"]\non_failure = \"cancel\"\nbackground = true\n").unwrap_err(),
        "app.toml: key `hook[1].background`: `background = true` cannot go with \
         `on_failure = \"cancel\"`: a cancel from the background would land on a later step \
         than the event that caused it, and a policy check must block; remove `background`, \
         or make the hook `on_failure = \"continue\"` (line 5, column 14)"
    );
    // Either order of the two keys.
    assert!(
        read("run = [\"check\"]\nbackground = true\non_failure = \"cancel\"\n")
            .unwrap_err()
            .contains("`background = true` cannot go with `on_failure = \"cancel\"`")
    );
    // Written but false, it asks nothing of a cancelling hook.
    assert!(read("run = [\"check\"]\non_failure = \"cancel\"\nbackground = false\n").is_ok());
    assert_eq!(
        read("run = [\"notify\"]\nbackground = \"yes\"\n").unwrap_err(),
        "app.toml: key `hook[1].background`: invalid type: string \"yes\", expected `true` or \
         `false`, as in `background = true` (line 4, column 14)"
    );
}

#[test]
fn a_checker_shows_a_background_hook_as_such() {
    let root = Path::new("/srv");
    let action = Action::run_in_background(["notify"], Duration::from_millis(2000));
    assert_eq!(
        action.describe(root),
        "run [\"notify\"] (timeout 2000 ms, in the background)"
    );
    let action = Action::run_with_timeout(["notify"], Duration::from_millis(2000));
    assert_eq!(action.describe(root), "run [\"notify\"] (timeout 2000 ms)");
}

/// A failure from a background hook is the process runner's, as a blocking
/// hook's is: an embedder matches it the same way.
#[test]
fn a_background_failure_is_the_process_runners_error() {
    let dir = tempfile::tempdir().unwrap();
    let matched = Arc::new(Mutex::new(None));
    let seen = Arc::clone(&matched);
    let hooks = Hooks::new(
        vec![background(&["/bin/sh", "-c", "exit 9"], &["step"])],
        dir.path(),
    )
    .on_background(move |run| {
        let code = match run.result {
            Err(HookFailure::Process(ProcessError::Exit { code, .. })) => Some(*code),
            _ => None,
        };
        *seen.lock().unwrap_or_else(PoisonError::into_inner) = Some(code);
    });
    capture(|| {
        assert_eq!(hooks.fire_event(&step(1)), Flow::Continue);
        hooks.wait_background();
    });
    assert_eq!(
        *matched.lock().unwrap_or_else(PoisonError::into_inner),
        Some(Some(9))
    );
}

/// The queue's bound in bytes: two events whose lines come to exactly
/// `QUEUE_BYTES` are both queued behind the one the hook holds, and a third
/// makes the firing thread wait, said with the two it holds.
#[test]
fn the_queue_holds_lines_up_to_its_byte_bound_and_no_further() {
    let dir = tempfile::tempdir().unwrap();
    let taken = dir.path().join("taken");
    let gate = dir.path().join("gate");
    let script = format!(
        ": > '{}'; n=0; until [ -e '{}' ] || [ $n -ge 6000 ]; do sleep 0.01; n=$((n+1)); done; \
         cat > /dev/null",
        taken.display(),
        gate.display()
    );
    // A line is the event serialised, and its newline.
    let line_len = |goal: &str| serde_json::to_vec(&common::started(goal)).unwrap().len() + 1;
    let overhead = line_len("");
    let first = "x".repeat(QUEUE_BYTES / 2 - overhead);
    let second = "y".repeat(QUEUE_BYTES - line_len(&first) - overhead);
    assert_eq!(line_len(&first) + line_len(&second), QUEUE_BYTES);
    let (said_early, log) = capture_with(|log| {
        let hooks = Hooks::new(
            vec![background(&["/bin/sh", "-c", &script], &["started"])],
            dir.path(),
        );
        // The hook takes the first event and holds it at the gate: the
        // queue is then empty.
        assert_eq!(hooks.fire_event(&common::started("held")), Flow::Continue);
        assert!(
            wait_until(PATIENCE, || taken.exists()),
            "the hook never started"
        );
        assert_eq!(hooks.fire_event(&common::started(&first)), Flow::Continue);
        assert_eq!(hooks.fire_event(&common::started(&second)), Flow::Continue);
        let said_early = log.text().contains("queue is full");
        fire_until_full_then_open(log, &gate, |opened| {
            assert_eq!(
                hooks.fire_event(&common::started("one more")),
                Flow::Continue
            );
            assert!(
                opened.load(Ordering::SeqCst),
                "a full queue took one more line"
            );
        });
        hooks.wait_background();
        said_early
    });
    assert!(
        !said_early,
        "a queue of exactly QUEUE_BYTES was called full:\n{log}"
    );
    assert!(
        log.contains("hook[1]'s background queue is full (2 events)"),
        "{log}"
    );
}

/// A report that panics ends its worker: nobody waits for it any more, and
/// the hook's later events run while the host waits, none lost.
#[test]
fn a_worker_that_ends_early_is_waited_for_by_no_one_and_its_hook_runs_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let (spec, out) = tee(dir.path());
    let ((), _) = capture(|| {
        let hooks = Hooks::new(vec![spec], dir.path())
            .on_background(|_| panic!("a host's report that panics"));
        assert_eq!(hooks.fire_event(&step(1)), Flow::Continue);
        let hooks = Arc::new(hooks);
        within(PATIENCE, "waiting on a worker that ended", {
            let hooks = Arc::clone(&hooks);
            move || hooks.wait_background()
        });
        let mut background = Vec::new();
        let flow = hooks.fire_with(&step(2), &step(2), |run| background.push(run.background));
        assert_eq!(flow, Flow::Continue);
        assert_eq!(
            background,
            [false],
            "an event was handed to a worker that ended"
        );
    });
    assert_eq!(lines(&out), [step_line(1), step_line(2)]);
}

/// A background hook's failure comes with the end of its stderr when the
/// hooks keep it.
#[test]
fn a_background_failure_comes_with_its_stderr_when_it_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let tails = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&tails);
    let ((), _) = capture(|| {
        let hooks = Hooks::new(
            vec![background(
                &["/bin/sh", "-c", "echo 'chat service said 503' >&2; exit 1"],
                &["step"],
            )],
            dir.path(),
        )
        .capture_stderr(4096)
        .on_background(move |run| {
            let tail = run.stderr.map(<[u8]>::to_vec);
            seen.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(tail);
        });
        assert_eq!(hooks.fire_event(&step(1)), Flow::Continue);
        hooks.wait_background();
    });
    assert_eq!(
        *tails.lock().unwrap_or_else(PoisonError::into_inner),
        [Some(b"chat service said 503\n".to_vec())]
    );
}

/// Issue 45: a host's signal handler asks what was not delivered, and the
/// answer is there at once, whatever the worker is doing: the event in
/// flight and those queued, counted; no event fired afterwards is queued
/// or run; a hook with nothing missing says so.
#[test]
fn the_backlog_says_at_once_what_each_background_hook_was_not_given() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let out = dir.path().join("slow.jsonl");
    let script = format!(
        "cat >> '{}'; echo $$ > '{}'; exec sleep 60",
        out.display(),
        pid_file.display()
    );
    let (quick, tee_out) = tee(dir.path());
    // The quick hook's reports: made once its event is delivered, so after
    // the fourth it has nothing in flight (its lines alone come before its
    // `tee` has ended).
    let reported = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&reported);
    let hooks = Hooks::new(
        vec![quick, background(&["/bin/sh", "-c", &script], &["step"])],
        dir.path(),
    )
    .on_background(move |run| {
        if run.index == 0 {
            counted.fetch_add(1, Ordering::SeqCst);
        }
    });
    let abandon = hooks.backlog();
    assert!(abandon().is_empty(), "no worker has started");
    for n in 1..=4 {
        assert_eq!(hooks.fire_event(&step(n)), Flow::Continue);
    }
    assert!(
        wait_until(PATIENCE, || common::read_pid(&pid_file).is_some()
            && reported.load(Ordering::SeqCst) == 4),
        "the first event's child never started, or the quick hook never reported its fourth"
    );
    assert_eq!(lines(&tee_out).len(), 4);
    let undelivered = abandon();
    let counts: Vec<_> = undelivered
        .iter()
        .map(|u| {
            (
                u.origin.key().to_owned(),
                u.given,
                u.dropped,
                u.in_flight,
                u.not_delivered(),
            )
        })
        .collect();
    assert_eq!(
        counts,
        [
            ("hook[1]".to_owned(), 4, 0, false, 0),
            ("hook[2]".to_owned(), 4, 3, true, 4)
        ]
    );
    // Fired after: given to no one, and counted.
    assert_eq!(hooks.fire_event(&step(5)), Flow::Continue);
    assert_eq!(abandon()[1].dropped, 4);
    hooks.supervisor().interrupt();
    within(PATIENCE, "the interrupted hooks", move || drop(hooks));
    assert_eq!(lines(&out), [step_line(1)], "a dropped event ran");
    assert_eq!(lines(&tee_out).len(), 4);
}
