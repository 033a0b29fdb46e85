//! Issue 46, through `io`: `where.args.<name>` on a tool call's arguments,
//! checked at load against the tools' one table (`src/tool_name.rs`), and
//! matched on the call as the run makes it; `io check` saying which tools a
//! policy on `where.tool` lets through unseen.
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

fn lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// A run that writes two files and runs two commands, one of them in the
/// background.
const CALLS: &str = "goal = \"g\"\n\
     [[turn]]\ncalls = [\
       { tool = \"write_file\", args = { path = \"notes.txt\", content = \"a\" } }, \
       { tool = \"write_file\", args = { path = \"secret.env\", content = \"b\" } }, \
       { tool = \"exec\", args = { argv = [\"git\", \"status\"] } }, \
       { tool = \"exec_background\", args = { argv = [\"git\", \"push\", \"--force\"] } }\
     ]\n\
     [[turn]]\nanswer = \"done\"\n";

#[test]
fn where_args_fires_on_the_calls_whose_argument_matches_and_no_other() {
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"tool_call\"]\nwhere.tool = [\"write_file\", \"edit_file\"]\n\
         where.args.path = { glob = \"*.env\" }\nappend = \"secrets.jsonl\"\n\n\
         [[hook]]\non = [\"tool_call\"]\nwhere.tool = { glob = \"exec*\" }\n\
         where.args.argv = { glob = \"git push*\" }\nappend = \"pushes.jsonl\"\n",
    );
    env.write("script.toml", CALLS);
    let out = io(&env, &["run", "script.toml"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let read = |name: &str| std::fs::read_to_string(env.root().join(name)).expect(name);
    let secrets = lines(&read("secrets.jsonl"));
    assert_eq!(secrets.len(), 1, "{secrets:?}");
    assert_eq!(secrets[0]["args"]["path"], "secret.env");
    // `argv` is matched as the command line an operator reads.
    let pushes = lines(&read("pushes.jsonl"));
    assert_eq!(pushes.len(), 1, "{pushes:?}");
    assert_eq!(pushes[0]["tool"], "exec_background");
    assert_eq!(pushes[0]["args"]["argv"][1], "push");
}

#[test]
fn a_cancel_policy_on_an_argument_stops_the_run_that_makes_that_call() {
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"tool_call\"]\nwhere.tool = \"write_file\"\n\
         where.args.path = \"secret.env\"\nrun = [\"false\"]\non_failure = \"cancel\"\n",
    );
    env.write("script.toml", CALLS);
    let out = io(&env, &["run", "script.toml"]);
    assert_eq!(code(&out), 3, "cancelled: {}", stderr(&out));
    // Without the matching call, the same policy lets the run finish.
    env.write("script.toml", &CALLS.replace("secret.env", "public.txt"));
    let out = io(&env, &["run", "script.toml"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

/// `io check`'s refusal of a `where.args` as written.
fn refusal(env: &IoEnv, filter: &str) -> String {
    env.write(
        "io.local.toml",
        &format!("[[hook]]\non = [\"tool_call\"]\n{filter}\nappend = \"a.jsonl\"\n"),
    );
    let out = io(env, &["check"]);
    assert_ne!(code(&out), 0, "refused: {filter}\n{}", stdout(&out));
    stderr(&out)
}

#[test]
fn an_argument_no_named_tool_takes_is_refused_at_load_with_the_nearest() {
    let env = IoEnv::new();
    let err = refusal(&env, "where.tool = \"write_file\"\nwhere.args.pth = \"a\"");
    assert!(err.contains("key `hook[1].where.args.pth`"), "{err}");
    assert!(
        err.contains("tool `write_file` takes no argument `pth` (did you mean `path`?)"),
        "{err}"
    );
    let err = refusal(&env, "where.tool = \"exec\"\nwhere.args.path = \"a\"");
    assert!(
        err.contains("tool `exec` takes no argument `path`"),
        "{err}"
    );
    assert!(
        err.contains(
            "name the tools that take it in `where.tool`: `read_file`, `write_file`, `edit_file`"
        ),
        "{err}"
    );
    // Without `where.tool`, only an argument every tool takes: none is.
    let err = refusal(&env, "where.args.path = \"a\"");
    assert!(
        err.contains("without `where.tool`, `where.args` names only an argument every tool takes"),
        "{err}"
    );
    let err = refusal(&env, "where.tool = \"exec\"\nwhere.args = {}");
    assert!(
        err.contains("key `hook[1].where.args`: `{}` names no argument"),
        "{err}"
    );
    // The argument's type.
    let err = refusal(&env, "where.tool = \"write_file\"\nwhere.args.path = 3");
    assert!(err.contains("is a string, and this is an integer"), "{err}");
    let err = refusal(&env, "where.tool = \"exec\"\nwhere.args.argv = { min = 1 }");
    assert!(
        err.contains("is a string, and this is a range of integers"),
        "{err}"
    );
}

#[test]
fn an_mcp_tools_free_form_arguments_are_refused_with_the_reason() {
    let env = IoEnv::new();
    let err = refusal(
        &env,
        "where.tool = \"mcp__fs__write\"\nwhere.args.path = \"a\"",
    );
    assert!(
        err.contains("the arguments of `mcp__…` are free-form"),
        "{err}"
    );
    assert!(
        err.contains("each MCP server declares its tools' arguments when it starts"),
        "{err}"
    );
    let err = refusal(&env, "where.tool = \"mcp\"\nwhere.args.params = \"a\"");
    assert!(
        err.contains("argument `params` of `mcp` is free-form"),
        "{err}"
    );
    // A glob that may name an MCP server's tool names its free-form arguments.
    let err = refusal(
        &env,
        "where.tool = { glob = \"*\" }\nwhere.args.path = \"a\"",
    );
    assert!(err.contains("takes no argument `path`"), "{err}");
}

#[test]
fn io_check_says_which_tools_a_policy_on_where_tool_lets_through() {
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"tool_call\"]\nwhere.tool = \"exec\"\nwhere.args.argv = { glob = \"rm *\" }\n\
         run = [\"false\"]\non_failure = \"cancel\"\n\n\
         [[hook]]\non = [\"tool_call\"]\nwhere.tool = \"exec\"\nappend = \"a.jsonl\"\n",
    );
    let out = io(&env, &["check"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("where: tool = \"exec\", args.argv = { glob = \"rm *\" }"),
        "{text}"
    );
    let unseen: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("does not see:"))
        .collect();
    // Only the cancelling hook is a policy; the `append` one is not.
    assert_eq!(unseen.len(), 1, "{text}");
    for tool in [
        "`exec_background` (runs commands)",
        "`write_file` (writes files)",
        "`edit_file` (writes files)",
        "`spawn` (starts runs",
        "`mcp__…`",
    ] {
        assert!(unseen[0].contains(tool), "{tool}: {text}");
    }
    assert!(!unseen[0].contains("`read_file`"), "{text}");
    assert!(!unseen[0].contains("`exec` "), "{text}");
    let out = io(&env, &["check", "--json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let through = report["hooks"][0]["lets_through"]
        .as_array()
        .expect("a list");
    let tools: Vec<&str> = through.iter().filter_map(|t| t["tool"].as_str()).collect();
    assert!(tools.contains(&"exec_background"), "{tools:?}");
    assert!(tools.contains(&"mcp__…"), "{tools:?}");
    assert_eq!(report["hooks"][1]["lets_through"], serde_json::Value::Null);
    // A policy that names every tool that reaches sees them all.
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"tool_call\"]\n\
         where.tool = [\"exec\", \"exec_background\", \"write_file\", \"edit_file\", \"spawn\", \"mcp\", { glob = \"mcp__*\" }]\n\
         run = [\"false\"]\non_failure = \"cancel\"\n",
    );
    let out = io(&env, &["check", "--json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(report["hooks"][0]["lets_through"], serde_json::json!([]));
    assert!(!stdout(&io(&env, &["check"])).contains("does not see"));
}

#[test]
fn io_replay_reads_a_recorded_calls_arguments_and_names_the_argument_that_turned_it_away() {
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"tool_call\"]\nwhere.tool = [\"exec\", \"exec_background\"]\n\
         where.args.argv = { glob = \"rm *\" }\nappend = \"rm.jsonl\"\n",
    );
    env.write(
        "events.jsonl",
        "{\"event\":\"started\",\"goal\":\"g\",\"run_id\":\"r-1\",\"depth\":0,\"seq\":0}\n\
         {\"event\":\"tool_call\",\"step\":1,\"tool\":\"exec\",\"args\":{\"argv\":[\"rm\",\"-rf\",\"x\"]},\"run_id\":\"r-1\",\"depth\":0,\"seq\":1}\n\
         {\"event\":\"tool_call\",\"step\":1,\"tool\":\"exec\",\"args\":{\"argv\":[\"ls\"]},\"run_id\":\"r-1\",\"depth\":0,\"seq\":2}\n",
    );
    let out = io(&env, &["replay", "--dry-run", "events.jsonl"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let line = |seq: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(seq))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(line("1 ").contains("hook[1] would fire"), "{text}");
    assert!(
        line("2 ").contains("hook[1] turned away by `where.args.argv`"),
        "{text}"
    );
    let out = io(&env, &["replay", "events.jsonl"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let written = std::fs::read_to_string(env.root().join("rm.jsonl")).expect("rm.jsonl");
    let written = lines(&written);
    assert_eq!(written.len(), 1, "{written:?}");
    assert_eq!(written[0]["seq"], 1);
}
