//! `io replay EVENTS --expect GOLDEN` (issue 46 item 2), through `io`: a
//! policy tested against a recording in CI. The replay matches the golden
//! file its own `--json` wrote, whatever the timings; a changed verdict
//! exits 1 naming the event and the hook with both sides; a golden file
//! that is not `--json`'s output is refused before any hook fires.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::path::Path;
use std::process::Output;

use common::IoEnv;
use common::io_env::{stderr, stdout};

/// A policy that refuses every `exec` call (`false` fails) and cancels,
/// and an audit log of every event.
const POLICY: &str = "[[hook]]\non = [\"tool_call\"]\nrun = [\"false\"]\non_failure = \"cancel\"\n\n[[hook]]\nappend = \"seen.jsonl\"\n";

const EVENTS: &str = concat!(
    "{\"event\":\"started\",\"goal\":\"g\",\"resumed\":false,\"run_id\":\"r\",\"depth\":0,\"seq\":0}\n",
    "{\"event\":\"tool_call\",\"step\":1,\"tool\":\"exec\",\"args\":{},\"run_id\":\"r\",\"depth\":0,\"seq\":1}\n",
    "{\"event\":\"step\",\"step\":1,\"moved_the_workspace\":true,\"run_id\":\"r\",\"depth\":0,\"seq\":2}\n",
);

fn replay(env: &IoEnv, args: &[&str]) -> Output {
    env.io(&[&["replay", "events.jsonl"][..], args].concat())
}

/// Records the golden file with `--json`, as the CI recipe does.
fn record(env: &IoEnv) -> String {
    let out = replay(env, &["--json"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let golden = stdout(&out);
    env.write("golden.json", &golden);
    golden
}

#[test]
fn a_replay_matches_its_own_json_and_exits_0_whatever_the_timings() {
    let env = IoEnv::new();
    env.write("io.local.toml", POLICY);
    env.write("events.jsonl", EVENTS);
    let golden = record(&env);
    // The recorded timings are not what is compared: rewrite them all.
    let mut other = String::new();
    for line in golden.lines() {
        let mut value: serde_json::Value = serde_json::from_str(line).expect("json");
        if let Some(hooks) = value["hooks"].as_array_mut() {
            for hook in hooks {
                hook["ms"] = serde_json::json!(123_456.0);
                hook["error"] = serde_json::json!("other words");
            }
        }
        other.push_str(&format!("{value}\n"));
    }
    env.write("golden.json", &other);
    let out = replay(&env, &["--expect", "golden.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "matches golden.json: 4 event(s), the same verdicts and flow\n"
    );
}

#[test]
fn a_policy_that_lets_through_what_it_refused_exits_1_naming_event_hook_and_both_sides() {
    let env = IoEnv::new();
    env.write("io.local.toml", POLICY);
    env.write("events.jsonl", EVENTS);
    record(&env);
    // Yesterday's policy refused the call; today's lets it through.
    env.write("io.local.toml", &POLICY.replace("\"false\"", "\"true\""));
    let out = replay(&env, &["--expect", "golden.json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "differs from golden.json at event 2 (seq 1, tool_call), hook[1]:\n  \
         expected: {\"hook\":1,\"key\":\"hook[1]\",\"ok\":false}\n  \
         got:      {\"hook\":1,\"key\":\"hook[1]\",\"ok\":true}\n"
    );

    // A named hook is named beside its key path, as in every other line.
    env.write(
        "io.local.toml",
        &format!(
            "[[hook]]\nname = \"no-exec\"\n{}",
            &POLICY["[[hook]]\n".len()..]
        ),
    );
    record(&env);
    env.write(
        "io.local.toml",
        &format!(
            "[[hook]]\nname = \"no-exec\"\n{}",
            &POLICY["[[hook]]\n".len()..]
        )
        .replace("\"false\"", "\"true\""),
    );
    let out = replay(&env, &["--expect", "golden.json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with(
            "differs from golden.json at event 2 (seq 1, tool_call), hook[1] \"no-exec\":\n"
        ),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_golden_file_that_is_not_json_output_is_refused_before_any_hook_fires() {
    let env = IoEnv::new();
    env.write("io.local.toml", POLICY);
    env.write("events.jsonl", EVENTS);
    let dry = replay(&env, &["--dry-run", "--json"]);
    env.write("dry.json", &stdout(&dry));
    let text = replay(&env, &[]);
    env.write("text.txt", &stdout(&text));
    std::fs::remove_file(env.root().join("seen.jsonl")).expect("the text replay's audit log");
    for (golden, says) in [
        (
            "dry.json",
            "dry.json: line 1: a hook's report without `ok`, as `--dry-run --json` prints",
        ),
        ("text.txt", "text.txt: line 1: not JSON"),
        ("missing.json", "missing.json: "),
    ] {
        let out = replay(&env, &["--expect", golden]);
        assert_eq!(out.status.code(), Some(2), "{golden}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{golden}: {}", stderr(&out));
        assert_eq!(stdout(&out), "", "{golden}");
    }
    // No hook fired for any of them: the audit log was never written.
    assert!(!Path::new(&env.root().join("seen.jsonl")).exists());
    // A golden cut short (no summary line) is refused too, saying so.
    let golden = record(&env);
    let cut: String = golden.lines().take(2).map(|l| format!("{l}\n")).collect();
    env.write("cut.json", &cut);
    let out = replay(&env, &["--expect", "cut.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("ends without the summary line"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn expect_does_not_mix_with_json_or_dry_run() {
    let env = IoEnv::new();
    env.write("events.jsonl", EVENTS);
    for flag in ["--json", "--dry-run"] {
        let out = replay(&env, &["--expect", "golden.json", flag]);
        assert_eq!(out.status.code(), Some(2), "{flag}");
        assert!(
            stderr(&out).contains("cannot be used with"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn a_difference_in_a_hostile_golden_is_printed_one_line_a_side() {
    let env = IoEnv::new();
    env.write("io.local.toml", POLICY);
    env.write("events.jsonl", EVENTS);
    let golden = record(&env);
    // A key path with a newline and an escape sequence, as a clone could
    // commit it: it must not write a line of its own nor reach the terminal.
    let hostile = golden.replacen(
        "\"key\":\"hook[2]\"",
        "\"key\":\"x\\nok: all match\\u001b[2J\"",
        1,
    );
    env.write("golden.json", &hostile);
    let out = replay(&env, &["--expect", "golden.json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.contains("x\\nok: all match\\x1b[2J"), "{text}");
    assert!(!text.contains('\u{1b}'), "{text}");
}
