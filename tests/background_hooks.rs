//! Background `run` hooks through `io` (issue 35): `io run` goes on while a
//! notifier works, hands it every event in order, waits for it before it
//! reports, prints its failures naming the event; `io check` and `io replay
//! --dry-run` show which hooks are background; the two refusals come at
//! their line.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use common::IoEnv;
use common::io_env::{code, stderr, stdout};
use std::time::Duration;

/// Three steps, then an answer.
const SCRIPT: &str = "goal = \"three steps\"\n\n\
     [[turn]]\nsay = \"one\"\n\n\
     [[turn]]\nsay = \"two\"\n\n\
     [[turn]]\nsay = \"three\"\n\n\
     [[turn]]\nanswer = \"done\"\n";

/// A notifier that takes its time over each event and appends it: what it
/// writes shows which events it was given, in which order, and whether the
/// last had reached it when `io` exited.
const SLOW_NOTIFIER: &str = "[[hook]]\non = [\"step\", \"finished\"]\n\
     run = [\"/bin/sh\", \"-c\", \"sleep 0.2; cat >> notified.jsonl\"]\n\
     timeout_ms = 20000\nbackground = true\n";

fn tags(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let tag = value["event"].as_str().unwrap_or_default();
            match value["step"].as_u64() {
                Some(step) if tag == "step" => format!("step {step}"),
                _ => tag.to_owned(),
            }
        })
        .collect()
}

#[test]
fn the_runs_last_event_reaches_a_background_hook_before_io_run_exits() {
    let env = IoEnv::new();
    env.write("io.local.toml", SLOW_NOTIFIER);
    env.write("script.toml", SCRIPT);
    let out = env.io(&["run", "script.toml"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // io has exited: every event it fired is in the file, in order, the
    // run's last one included.
    let notified = std::fs::read_to_string(env.root().join("notified.jsonl")).expect("notified");
    assert_eq!(
        tags(&notified),
        ["step 1", "step 2", "step 3", "step 4", "finished"]
    );
    // Each event's line says it was queued, not how the hook did.
    let stdout = stdout(&out);
    assert_eq!(
        stdout.matches("hooks: hook[1] queued").count(),
        5,
        "{stdout}"
    );
    assert!(!stdout.contains("FAILED"), "{stdout}");
}

#[test]
fn a_background_failure_is_printed_naming_the_event_it_was_given() {
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"finished\"]\nrun = [\"/bin/sh\", \"-c\", \"exit 4\"]\nbackground = true\n",
    );
    env.write("script.toml", SCRIPT);
    let out = env.io(&["run", "script.toml"]);
    // A background hook's failure never ends the run.
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // Printed on stderr by the hook's worker as it failed (issue 45), in
    // the words of a blocking hook's failure.
    let stderr = stderr(&out);
    let failed = "  hooks: hook[1] FAILED in the background on `finished` (its event 1): exited \
                  with status 4 (";
    assert!(stderr.contains(failed), "{stderr}");
    assert!(
        stderr.contains("ms; --stderr shows its stderr)\n"),
        "{stderr}"
    );
    assert!(!stdout(&out).contains("FAILED"), "{}", stdout(&out));
}

#[test]
fn io_check_and_a_dry_run_show_a_background_hook() {
    let env = IoEnv::new();
    env.write("io.local.toml", SLOW_NOTIFIER);
    let out = env.io(&["check"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "hook[1]  on step, finished: run [\"/bin/sh\",\"-c\",\"sleep 0.2; cat >> \
             notified.jsonl\"] (timeout 20000 ms, in the background); on failure: continue"
        ),
        "{}",
        stdout(&out)
    );
    env.write(
        "events.jsonl",
        "{\"event\":\"step\",\"run_id\":\"r\",\"depth\":0,\"step\":1,\"moved_the_workspace\":true}\n",
    );
    let out = env.io(&["replay", "--dry-run", "events.jsonl"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("  hook[1] would fire in the background\n"),
        "{}",
        stdout(&out)
    );
    assert!(!env.root().join("notified.jsonl").exists());
}

#[test]
fn background_with_cancel_or_on_append_is_refused_at_its_line() {
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"step\"]\nrun = [\"policy-check\"]\non_failure = \"cancel\"\n\
         background = true\n",
    );
    let out = env.io(&["check"]);
    assert_ne!(code(&out), 0);
    let err = stderr(&out);
    assert!(
        err.contains(
            "key `hook[1].background`: `background = true` cannot go with `on_failure = \
             \"cancel\"`: a cancel from the background would land on a later step than the \
             event that caused it, and a policy check must block; remove `background`, or make \
             the hook `on_failure = \"continue\"` (line 5, column 14)"
        ),
        "{err}"
    );
    env.write(
        "io.local.toml",
        "[[hook]]\nappend = \"audit.jsonl\"\nbackground = true\n",
    );
    let out = env.io(&["check"]);
    assert_ne!(code(&out), 0);
    let err = stderr(&out);
    assert!(
        err.contains(
            "key `hook[1].background`: `background` applies only to a `run` hook, and this \
             hook appends (an append is one write, done in microseconds, which never holds \
             the run up); remove it (line 3, column 14)"
        ),
        "{err}"
    );
}

#[test]
fn io_replay_waits_for_a_background_hook_and_prints_its_failures_as_they_happen() {
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"step\"]\nrun = [\"/bin/sh\", \"-c\", \"sleep 0.2; exit 2\"]\n\
         background = true\n",
    );
    let step = |n: u32| {
        format!(
            "{{\"event\":\"step\",\"run_id\":\"r\",\"depth\":0,\"step\":{n},\"moved_the_workspace\":true}}\n"
        )
    };
    env.write("events.jsonl", &format!("{}{}", step(1), step(2)));
    let out = env.io(&["replay", "events.jsonl"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // The failures on stderr, as they happened; the events' lines on stdout.
    let text = stderr(&out);
    for n in 1..=2 {
        assert!(
            text.contains(&format!(
                "hooks: hook[1] FAILED in the background on `step` (its event {n}): exited with \
                 status 2 ("
            )),
            "{text}"
        );
    }
    assert_eq!(
        stdout(&out).matches("hook[1] queued").count(),
        2,
        "{}",
        stdout(&out)
    );

    let out = env.io(&["replay", "--json", "events.jsonl"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let late: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v.get("background").cloned())
        .collect();
    assert_eq!(late.len(), 2, "{}", stdout(&out));
    for (n, report) in late.iter().enumerate() {
        assert_eq!(report["hook"], 1);
        assert_eq!(report["event"], "step");
        assert_eq!(report["seq"], n as u64 + 1);
        assert_eq!(report["ok"], false);
        assert_eq!(report["error"], "exited with status 2");
    }
}

/// A `step` event's line for `io replay`.
fn step_event(n: u32) -> String {
    format!(
        "{{\"event\":\"step\",\"run_id\":\"r\",\"depth\":0,\"step\":{n},\"moved_the_workspace\":true}}\n"
    )
}

/// `io replay -` in `env`, its stdin, stdout and stderr piped, started with
/// the signals that end `io` at their default, and every directory it may
/// touch in the test's temp dir.
fn replay_from_stdin(env: &IoEnv, args: &[&str]) -> std::process::Child {
    let mut command = env.command(&["replay", "-"]);
    command
        .args(args)
        .env("IO_DATA_HOME", env.dir().join("data"))
        .env("HOME", env.dir())
        .stdin(std::process::Stdio::piped());
    common::with_ending_signals_at_default(&mut command)
        .spawn()
        .expect("io runs")
}

/// Reads `from` to its end on a thread, keeping at most the first `keep`
/// bytes and counting the lines that contain `marker`.
fn drain(
    mut from: impl std::io::Read + Send + 'static,
    marker: &'static str,
    keep: usize,
) -> (
    std::sync::Arc<std::sync::atomic::AtomicUsize>,
    std::thread::JoinHandle<String>,
) {
    use std::io::BufRead;
    use std::sync::atomic::Ordering;
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = std::sync::Arc::clone(&count);
    let thread = std::thread::spawn(move || {
        let mut kept = String::new();
        let mut reader = std::io::BufReader::new(&mut from);
        let mut line = String::new();
        while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
            if line.contains(marker) {
                counted.fetch_add(1, Ordering::SeqCst);
            }
            if kept.len() + line.len() <= keep {
                kept.push_str(&line);
            }
            line.clear();
        }
        kept
    });
    (count, thread)
}

/// Issue 45: a background failure was printed with the next event's line
/// or at the end, so a SIGTERM lost it (5 failures, 0 printed), and the
/// count of events the hook never received was said in 4 of 9 tries. Now
/// each failure is printed by the hook's worker as it happens, and the
/// signal says, every time, from the queue itself, what was not delivered:
/// the event cut short in flight and those still queued.
#[test]
fn five_background_failures_then_sigterm_prints_all_five_and_counts_the_rest() {
    use std::io::Write;
    use std::sync::atomic::Ordering;
    for attempt in 1..=3 {
        let env = IoEnv::new();
        // Events 1 to 5 fail at once; event 6 stays in flight; 7 and 8 wait.
        env.write(
            "io.local.toml",
            "[[hook]]\non = [\"step\"]\nbackground = true\ntimeout_ms = 60000\n\
             run = [\"/bin/sh\", \"-c\", \"n=$(cat | sed 's/.*\\\"step\\\":\\\\([0-9]*\\\\).*/\\\\1/'); \
             if [ $n -le 5 ]; then exit 3; fi; echo $$ > pid; exec sleep 60\"]\n",
        );
        let mut child = replay_from_stdin(&env, &[]);
        let io_pid = rustix::process::Pid::from_child(&child);
        let (queued, out) = drain(child.stdout.take().unwrap(), "hook[1] queued", 1 << 20);
        let (failed, err) = drain(
            child.stderr.take().unwrap(),
            "FAILED in the background",
            1 << 20,
        );
        let mut stdin = child.stdin.take().unwrap();
        let events: String = (1..=8).map(step_event).collect();
        stdin.write_all(events.as_bytes()).unwrap();
        stdin.flush().unwrap();
        let pid = env.root().join("pid");
        let ready = common::wait_until(Duration::from_secs(60), || {
            queued.load(Ordering::SeqCst) == 8 && common::read_pid(&pid).is_some()
        });
        // Every failure so far is printed before any signal: none is held.
        let printed = common::wait_until(Duration::from_secs(20), || {
            failed.load(Ordering::SeqCst) == 5
        });
        rustix::process::kill_process(io_pid, rustix::process::Signal::TERM).unwrap();
        let output = common::output_within(child, Duration::from_secs(60), "io replay -");
        drop(stdin);
        let (out, err) = (out.join().unwrap(), err.join().unwrap());
        assert!(
            ready,
            "attempt {attempt}: the sixth event never began: {out}\n{err}"
        );
        assert!(
            printed,
            "attempt {attempt}: the five failures were not printed as they came:\n{err}"
        );
        assert_eq!(output.status.code(), Some(143), "attempt {attempt}: {err}");
        for n in 1..=5 {
            assert!(
                err.contains(&format!(
                    "hooks: hook[1] FAILED in the background on `step` (its event {n}): exited \
                     with status 3 ("
                )),
                "attempt {attempt}: {err}"
            );
        }
        assert_eq!(failed.load(Ordering::SeqCst), 5, "attempt {attempt}: {err}");
        assert!(
            err.contains(
                "io: hook[1] (background): 3 of the 8 event(s) it was given were not delivered \
                 whole: 1 in flight when the signal came (its child ended with it), 2 never \
                 handed to it\n"
            ),
            "attempt {attempt}: {err}"
        );
    }
}

/// The peak resident memory (`VmHWM`, bytes) of `io replay - --stderr` over
/// `n` events, each of which a background hook fails on after writing 4000
/// bytes to its stderr: read once every event has been executed, while `io`
/// waits for a next line. Also checks that every failure was printed.
fn peak_of_replaying_failures(n: u32) -> u64 {
    use std::io::Write;
    use std::sync::atomic::Ordering;
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"step\"]\nbackground = true\n\
         run = [\"/bin/sh\", \"-c\", \"cat >/dev/null; printf '%4000s\\\\n' x >&2; \
         printf . >> done; exit 1\"]\n",
    );
    let mut child = replay_from_stdin(&env, &["--stderr"]);
    let pid = child.id();
    let (_, out) = drain(child.stdout.take().unwrap(), "queued", 0);
    let (failed, err) = drain(
        child.stderr.take().unwrap(),
        "FAILED in the background",
        4096,
    );
    let mut stdin = child.stdin.take().unwrap();
    // Written from a thread: the replay may read slower than this writes.
    let writer = std::thread::spawn(move || {
        let mut events = String::new();
        for k in 1..=n {
            events.push_str(&step_event(k));
        }
        stdin.write_all(events.as_bytes()).unwrap();
        stdin
    });
    let done = env.root().join("done");
    let executed = common::wait_until(Duration::from_secs(600), || {
        std::fs::metadata(&done).is_ok_and(|m| m.len() == u64::from(n))
    });
    // Each failure is printed by the worker as it ends: at most a moment
    // after the hook's last one.
    let all = executed
        && common::wait_until(Duration::from_secs(20), || {
            failed.load(Ordering::SeqCst) == n as usize
        });
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    drop(writer.join().unwrap());
    let output = common::output_within(child, Duration::from_secs(120), "io replay -");
    out.join().unwrap();
    let err = err.join().unwrap();
    assert!(
        all,
        "{} of {n} failures printed while io ran: {err}",
        failed.load(Ordering::SeqCst)
    );
    assert_eq!(output.status.code(), Some(0), "{err}");
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmHWM in {status}"));
    kib * 1024
}

/// Issue 45: `io replay` held every background failure's message until its
/// end (200k events: 80 MB, against 12 MB for the same hook blocking). Each
/// is printed as it happens and held nowhere: 1500 failures, each with
/// 4 KiB of the hook's stderr (6 MiB of text), cost less than 2 MiB over
/// 20 of them.
#[test]
fn background_failures_take_no_memory_that_grows_with_their_number() {
    let baseline = peak_of_replaying_failures(20);
    let peak = peak_of_replaying_failures(1500);
    let over = peak.saturating_sub(baseline);
    eprintln!("peak {} KiB, baseline {} KiB", peak >> 10, baseline >> 10);
    assert!(
        over < 2 << 20,
        "{} KiB over a baseline of {} KiB",
        over >> 10,
        baseline >> 10
    );
}

/// The issue's own figure: 200,000 events through a failing background
/// hook, within the same bound. About ten minutes on two cores; run it with
/// `cargo test --test background_hooks -- --ignored`.
#[test]
#[ignore = "200,000 spawns: about ten minutes"]
fn two_hundred_thousand_background_failures_take_bounded_memory() {
    let baseline = peak_of_replaying_failures(20);
    let peak = peak_of_replaying_failures(200_000);
    assert!(
        peak.saturating_sub(baseline) < 2 << 20,
        "peak {} KiB, baseline {} KiB",
        peak >> 10,
        baseline >> 10
    );
}

/// Issue 45: Ctrl-C after "finished: completed", while a background hook
/// still had the run's last event, said "run interrupted; resume it with
/// …", and the resume answered "already completed". The run had ended and
/// its end is journaled: the signal says so, and what the hook did not
/// receive.
#[test]
fn a_signal_after_the_run_completed_says_it_completed_not_how_to_resume() {
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"finished\"]\nbackground = true\ntimeout_ms = 60000\n\
         run = [\"/bin/sh\", \"-c\", \"echo $$ > pid; exec sleep 60\"]\n",
    );
    env.write("script.toml", SCRIPT);
    let mut command = env.command(&["run", "script.toml"]);
    command
        .env("IO_DATA_HOME", env.dir().join("data"))
        .env("HOME", env.dir());
    let child = common::with_ending_signals_at_default(&mut command)
        .spawn()
        .expect("io runs");
    let io_pid = rustix::process::Pid::from_child(&child);
    let pid = common::read_pid(&env.root().join("pid"));
    rustix::process::kill_process(io_pid, rustix::process::Signal::TERM).unwrap();
    let out = common::output_within(child, Duration::from_secs(60), "io run");
    assert!(pid.is_some(), "the hook never got `finished`");
    assert_eq!(out.status.code(), Some(143), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        stdout(&out).contains("finished: completed after 4 steps"),
        "{}",
        stdout(&out)
    );
    let line = err
        .lines()
        .find(|l| l.starts_with("io: run "))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        line.ends_with(" had completed; the signal ended only its hooks' work"),
        "{err}"
    );
    assert!(!err.contains("resume"), "{err}");
    assert!(
        err.contains(
            "io: hook[1] (background): 1 of the 1 event(s) it was given were not delivered \
             whole: 1 in flight when the signal came (its child ended with it), 0 never handed \
             to it\n"
        ),
        "{err}"
    );
}
