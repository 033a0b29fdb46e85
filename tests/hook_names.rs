//! Named hooks and hooks switched off, through `io` (issue 46, deliverable
//! 4): a name beside the key path in every line io prints about the hook,
//! `--hook NAME`, a name repeated in an array refused naming both tables,
//! and `enabled = false` said at every start (`-q` included), in `io
//! check`'s text and JSON, with the hook never firing.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::process::Output;

use common::IoEnv;
use common::io_env::{stderr, stdout};

const EVENTS: &str = concat!(
    "{\"event\":\"started\",\"goal\":\"g\",\"resumed\":false,\"run_id\":\"r\",\"depth\":0,\"seq\":0}\n",
    "{\"event\":\"tool_call\",\"step\":1,\"tool\":\"exec\",\"args\":{},\"run_id\":\"r\",\"depth\":0,\"seq\":1}\n",
    "{\"event\":\"step\",\"step\":1,\"moved_the_workspace\":true,\"run_id\":\"r\",\"depth\":0,\"seq\":2}\n",
);

/// A named policy that refuses every call, and a named audit log switched
/// off.
const NAMED: &str = "[[hook]]\nname = \"no-exec\"\non = [\"tool_call\"]\nrun = [\"false\"]\non_failure = \"cancel\"\n\n[[hook]]\nname = \"audit\"\nenabled = false\nappend = \"seen.jsonl\"\n";

fn env_with(config: &str) -> IoEnv {
    let env = IoEnv::new();
    env.write("io.local.toml", config);
    env.write("events.jsonl", EVENTS);
    env
}

fn replay(env: &IoEnv, args: &[&str]) -> Output {
    env.io(&[&["replay", "events.jsonl"][..], args].concat())
}

const OFF_LINE: &str = "io: hook[2] \"audit\" is switched off (enabled = false): it never fires\n";

#[test]
fn a_named_hook_is_named_beside_its_key_path_in_every_line() {
    let env = env_with(NAMED);
    let out = replay(&env, &["--stderr"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("tool_call          r  hook[1] \"no-exec\" FAILED: exited with status 1"),
        "{text}"
    );
    assert!(
        text.contains("       hook[1] \"no-exec\" wrote nothing to stderr\n"),
        "{text}"
    );
    assert!(
        text.ends_with("a hook with on_failure = \"cancel\" failed (hook[1] \"no-exec\")\n"),
        "{text}"
    );
    // --json keeps `key` the key path, and gives `name` beside it.
    let out = replay(&env, &["--json"]);
    let line = stdout(&out)
        .lines()
        .nth(1)
        .map(str::to_owned)
        .expect("a line");
    let value: serde_json::Value = serde_json::from_str(&line).expect("json");
    assert_eq!(value["hooks"][0]["key"], "hook[1]");
    assert_eq!(value["hooks"][0]["name"], "no-exec");
    // A problem names it so too: io run refuses a cancel hook that cannot run.
    let env = env_with(&NAMED.replace("\"false\"", "\"./no-such-policy\""));
    let out = env.io(&["check"]);
    assert!(
        stdout(&out).contains("  hook[1] \"no-exec\"  on tool_call: run"),
        "{}",
        stdout(&out)
    );
    let out = replay(&env, &[]);
    assert!(
        stderr(&out).contains("io: hook[1] \"no-exec\": `./no-such-policy`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn hook_takes_a_name_or_a_place_and_refuses_a_name_no_hook_has() {
    let env = env_with(NAMED);
    let by_name = replay(&env, &["--hook", "no-exec", "--json"]);
    let by_place = replay(&env, &["--hook", "1", "--json"]);
    assert_eq!(by_name.status.code(), Some(3), "{}", stderr(&by_name));
    let hooks = |out: &Output| -> Vec<String> {
        stdout(out)
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .flat_map(|v| v["hooks"].as_array().cloned().unwrap_or_default())
            .map(|h| h["key"].to_string())
            .collect()
    };
    assert_eq!(hooks(&by_name), ["\"hook[1]\""]);
    assert_eq!(hooks(&by_name), hooks(&by_place));
    let out = replay(&env, &["--hook", "no-rm"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(
            "io: --hook no-rm: no hook in force is named \"no-rm\"; the named hooks are hook[1] \
             \"no-exec\", hook[2] \"audit\""
        ),
        "{}",
        stderr(&out)
    );
    // A name of digits alone is refused where it is written, so `--hook 2`
    // can only be a place.
    let env = env_with("[[hook]]\nname = \"2\"\nappend = \"a\"\n");
    let out = env.io(&["check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out)
            .contains("key `hook[1].name`: a name of digits alone would read as the hook's place"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_name_repeated_in_a_file_is_refused_naming_both_tables() {
    let env = env_with(
        "[[hook]]\nname = \"audit\"\nappend = \"a\"\n\n[[hook]]\nname = \"audit\"\nappend = \"b\"\n",
    );
    for args in [&["check"][..], &["replay", "events.jsonl"]] {
        let out = env.io(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&out).contains(
                "/io.local.toml: key `hook[2].name`: `name = \"audit\"` is already hook[1]'s \
                 name; give each hook of the array a name of its own (line 6, column 8)"
            ),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn a_hook_switched_off_is_said_at_every_start_and_never_fires() {
    let env = env_with(NAMED);
    for args in [&[][..], &["--json"], &["--dry-run"]] {
        let out = replay(&env, args);
        let said = stderr(&out);
        assert!(said.contains(OFF_LINE), "{args:?}: {said}");
        assert!(
            !stdout(&out).contains("hook[2]"),
            "{args:?}: {}",
            stdout(&out)
        );
    }
    // -q silences the line of hooks in force, never this one.
    let out = env.io(&["-q", "replay", "events.jsonl"]);
    assert_eq!(stderr(&out), OFF_LINE);
    assert!(!env.root().join("seen.jsonl").exists(), "it never fired");

    let out = env.io(&["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "  hook[2] \"audit\"  on every event: append to seen.jsonl; on failure: continue\n    \
             off: enabled = false: it never fires\n"
        ),
        "{}",
        stdout(&out)
    );
    let out = env.io(&["check", "--event", "step"]);
    assert!(
        stdout(&out).contains("on `step`: no hook fires"),
        "{}",
        stdout(&out)
    );
    let out = env.io(&["check", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["hooks"][0]["name"], "no-exec");
    assert_eq!(report["hooks"][0]["enabled"], true);
    assert_eq!(report["hooks"][1]["name"], "audit");
    assert_eq!(report["hooks"][1]["enabled"], false);
}

#[test]
fn io_run_says_a_hook_switched_off_at_its_start_and_never_fires_it() {
    let script = "goal = \"write a file\"\n\n[[turn]]\nsay = \"writing\"\ncalls = [{ tool = \"write_file\", args = { path = \"written.txt\", content = \"hi\\n\" } }]\n\n[[turn]]\nanswer = \"done\"\n";
    let env = env_with(
        "[[hook]]\nname = \"log\"\nappend = \"on.jsonl\"\n\n[[hook]]\nname = \"audit\"\nenabled = false\nappend = \"seen.jsonl\"\n",
    );
    env.write("script.toml", script);
    for args in [&["run", "script.toml"][..], &["-q", "run", "script.toml"]] {
        let out = env.io(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(OFF_LINE),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert!(
        env.root().join("on.jsonl").exists(),
        "the hook switched on fired"
    );
    assert!(
        !env.root().join("seen.jsonl").exists(),
        "the one switched off never"
    );
}
