//! Background `run` hooks through `io` (issue 35): `io run` goes on while a
//! notifier works, hands it every event in order, waits for it before it
//! reports, prints its failures naming the event; `io check` and `io replay
//! --dry-run` show which hooks are background; the two refusals come at
//! their line.

mod common;

use common::IoEnv;
use common::io_env::{code, stderr, stdout};

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
    let stdout = stdout(&out);
    let failed = "  hooks: hook[1] FAILED in the background on `finished` (its event 1): exited \
                  with status 4 (";
    let at = stdout.find(failed).unwrap_or_else(|| panic!("{stdout}"));
    // Printed before io says how the run ended.
    let ended = stdout
        .find("\nrun r-")
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(at < ended, "{stdout}");
    assert!(
        stdout.contains("ms; --stderr shows its stderr)\n"),
        "{stdout}"
    );
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
fn io_replay_waits_for_a_background_hook_and_prints_its_failures_after_the_events() {
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
    let text = stdout(&out);
    for n in 1..=2 {
        assert!(
            text.contains(&format!(
                "hooks: hook[1] FAILED in the background on `step` (its event {n}): exited with \
                 status 2 ("
            )),
            "{text}"
        );
    }
    assert_eq!(text.matches("hook[1] queued").count(), 2, "{text}");

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
