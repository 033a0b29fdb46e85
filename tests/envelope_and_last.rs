//! Issue 45, through `io`: `where` on the envelope every line carries
//! (`run_id`, `depth`, `seq`) on every event, checked with its types; a
//! `cancel` that could never stop anything (on `finished` alone) refused by
//! `io check` at its key; a cancelling hook's failure on `finished` no
//! longer announces a cancel that cannot come; and hook keys written
//! without a `[[hook]]` header refused, naming the header to write.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::process::Output;

use common::IoEnv;
use common::io_env::{code, stderr, stdout};

/// `io args` in `env`'s root ([`IoEnv::io`]: the user scope and the data
/// directory in the test's temp dir, under a watchdog).
fn io(env: &IoEnv, args: &[&str]) -> Output {
    env.io(args)
}

/// A run that spawns a child, so two runs each end with `finished`: the
/// child at depth 1, then the top-level run at depth 0.
const SPAWNING: &str = "goal = \"parent\"\n\n\
     [[turn]]\ncalls = [{ tool = \"spawn\", args = { goal = \"child\" } }]\n\n\
     [[turn]]\nanswer = \"done\"\n\n\
     [[child]]\ngoal = \"child\"\n[[child.turn]]\nanswer = \"child done\"\n";

fn lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn where_depth_0_on_finished_fires_for_the_top_level_run_only() {
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"finished\"]\nwhere.depth = 0\nappend = \"top.jsonl\"\n\n\
         [[hook]]\non = [\"finished\"]\nappend = \"all.jsonl\"\n\n\
         [[hook]]\nwhere.run_id = { glob = \"*.*\" }\nwhere.seq = { min = 0 }\nappend = \"child.jsonl\"\n",
    );
    env.write("script.toml", SPAWNING);
    let out = io(&env, &["run", "script.toml"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let read = |name: &str| std::fs::read_to_string(env.root().join(name)).expect(name);
    let all = lines(&read("all.jsonl"));
    let depths: Vec<_> = all.iter().map(|l| l["depth"].as_u64()).collect();
    assert_eq!(depths, [Some(1), Some(0)], "both runs end: {all:?}");
    let top = lines(&read("top.jsonl"));
    assert_eq!(top.len(), 1, "{top:?}");
    assert_eq!(top[0]["depth"], 0);
    assert_eq!(top[0]["outcome"], "completed");
    // Without `on`: every event of the child (whose id has the parent's
    // and a dot), and no event of the parent's.
    let child = lines(&read("child.jsonl"));
    assert!(child.len() >= 2, "{child:?}");
    assert!(child.iter().all(|l| l["depth"] == 1), "{child:?}");
    assert_eq!(child[0]["event"], "started");
    assert_eq!(child[child.len() - 1]["event"], "finished");
}

#[test]
fn where_on_an_envelope_field_is_checked_with_its_type_and_the_accepted_forms() {
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"finished\"]\nwhere.depth = \"0\"\nappend = \"top.jsonl\"\n",
    );
    let out = io(&env, &["check"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stderr(&out).contains(
            "io.local.toml: key `hook[1].where.depth`: envelope field `depth` is an integer, and \
             this is a string; write an integer, a list of them, or `{ min = …, max = … }` \
             (line 3, column 15)"
        ),
        "{}",
        stderr(&out)
    );
    env.write(
        "io.local.toml",
        "[[hook]]\nwhere.tool = \"exec\"\nappend = \"a.jsonl\"\n",
    );
    let out = io(&env, &["check"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stderr(&out).contains(
            "key `hook[1].where.tool`: `tool` is not a field every event has, and this hook has \
             no `on`; add `on`, naming the events whose field it is (without `on`, `where` names \
             only `run_id`, `depth`, `seq`, which every event has)"
        ),
        "{}",
        stderr(&out)
    );
    // A dry run says which hook the envelope turns away.
    env.write(
        "io.local.toml",
        "[[hook]]\nwhere.depth = 0\nappend = \"a.jsonl\"\n",
    );
    env.write(
        "events.jsonl",
        "{\"event\":\"finished\",\"outcome\":\"completed\",\"steps\":1,\"run_id\":\"r.1.1\",\"depth\":1}\n\
         {\"event\":\"finished\",\"outcome\":\"completed\",\"steps\":1,\"run_id\":\"r\",\"depth\":0}\n",
    );
    let out = io(&env, &["replay", "--dry-run", "events.jsonl"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("r.1.1  hook[1] turned away by `where.depth`\n"),
        "{text}"
    );
    assert!(text.contains("r  hook[1] would fire\n"), "{text}");
}

#[test]
fn a_cancel_on_finished_alone_is_refused_by_io_check_at_its_key() {
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"finished\"]\nrun = [\"/bin/sh\", \"-c\", \"exit 1\"]\n\
         on_failure = \"cancel\"\n",
    );
    for args in [&["check"][..], &["run", "script.toml"]] {
        env.write("script.toml", SPAWNING);
        let out = io(&env, args);
        assert_eq!(code(&out), 1, "{args:?}: {}", stdout(&out));
        assert!(
            stderr(&out).contains(
                "io.local.toml: key `hook[1].on_failure`: `on_failure = \"cancel\"` could never \
                 stop anything: nothing follows `finished`, the one event in `on`, that a cancel \
                 could stop; write `on_failure = \"continue\"` (or leave it out) to have its \
                 failure reported, or name in `on` an event that comes before the work a cancel \
                 should stop (line 4, column 14)"
            ),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(!stdout(&out).contains("completed"), "{}", stdout(&out));
    }
    // `handle_orphaned` comes as the run ends, as `finished` does.
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"handle_orphaned\", \"finished\"]\nappend = \"a\"\non_failure = \"cancel\"\n",
    );
    let out = io(&env, &["check"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
}

#[test]
fn a_cancelling_hooks_failure_on_finished_announces_no_cancel() {
    let env = IoEnv::new();
    // It fails on `finished` only; on `step` it is a policy check that passes.
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"step\", \"finished\"]\n\
         run = [\"/bin/sh\", \"-c\", \"grep -q '\\\"event\\\":\\\"finished\\\"' && exit 1; exit 0\"]\n\
         on_failure = \"cancel\"\n",
    );
    env.write(
        "script.toml",
        "goal = \"g\"\n[[turn]]\nsay = \"one\"\n[[turn]]\nanswer = \"done\"\n",
    );
    let out = io(&env, &["run", "script.toml"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}{}", stderr(&out));
    assert!(
        text.contains(
            "finished: completed after 2 steps\n    hooks: hook[1] FAILED: exited with status 1"
        ),
        "{text}"
    );
    assert!(!text.contains("-> the run ends"), "{text}");
}

#[test]
fn hook_keys_without_a_hook_header_are_refused_naming_the_header() {
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "on = [\"finished\"]\nappend = \"audit.jsonl\"\n",
    );
    env.write("script.toml", SPAWNING);
    for args in [&["check"][..], &["run", "script.toml"]] {
        let out = io(&env, args);
        assert_eq!(code(&out), 1, "{args:?}: {}", stdout(&out));
        assert!(
            stderr(&out).contains(
                "io.local.toml: key `on`: `on` is a key of a hook table, and it is written \
                 outside any, so it declares no hook and the file would load as no hooks at \
                 all; write `[[hook]]` on the line above it (line 1, column 1)"
            ),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert!(!env.root().join("audit.jsonl").exists());
    // In a profile's body, the profile's header.
    env.write("io.local.toml", "[profile.ci]\nappend = \"audit.jsonl\"\n");
    let out = io(&env, &["check"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("write `[[profile.ci.hook]]` on the line above it"),
        "{}",
        stderr(&out)
    );
    // In the user scope's file too.
    std::fs::remove_file(env.root().join("io.local.toml")).unwrap();
    std::fs::write(env.user().join("io.toml"), "run = [\"notify\"]\n").unwrap();
    let out = io(&env, &["check"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("key `run`: `run` is a key of a hook table"),
        "{}",
        stderr(&out)
    );
}
