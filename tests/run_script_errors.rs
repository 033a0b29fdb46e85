//! The `io run` script's errors in the operator's words, as the config's
//! are (issue 33 item 6): the file, the key path, what is wrong and what is
//! accepted, the line and column, then the line with a caret; an unknown
//! key gets the nearest; and a call the run loop would refuse for its
//! arguments is refused at load, before any step, instead of a run that
//! completes having done nothing.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use common::IoEnv;
use common::io_env::{code, no_hooks_line, stderr, stdout};

/// `io run script.toml` on `script` in a fresh root: its output, and the
/// root.
fn run(script: &str) -> (std::process::Output, IoEnv) {
    let env = IoEnv::new();
    env.write("script.toml", script);
    let out = env.io(&["run", "script.toml"]);
    (out, env)
}

/// The error `io run` prints for `script`, which must not start a run:
/// exit 1, nothing on stdout, no journal.
fn refused(script: &str) -> String {
    let (out, env) = run(script);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(stdout(&out), "", "no run started");
    assert!(!env.root().join(".io").exists(), "no journal");
    let err = stderr(&out);
    let rest = err
        .strip_prefix(&no_hooks_line(&env.root()))
        .unwrap_or(&err)
        .to_owned();
    rest.replace(&format!("{}/", env.root().display()), "")
}

#[test]
fn an_unknown_key_is_named_with_the_nearest_its_table_takes_and_the_line() {
    assert_eq!(
        refused("goal = \"g\"\n\n[[turn]]\ncals = []\n"),
        "io: script.toml: key `turn[1].cals`: unknown key `cals` (did you mean `calls`?); a \
         turn takes `say`, `calls`, `replan`, `answer`, `server_tools`, `fail` (line 4, column 1)\n   \
         |\n 4 | cals = []\n   | ^\n"
    );
    for (script, expected) in [
        (
            "gaol = \"g\"\n",
            "key `gaol`: unknown key `gaol` (did you mean `goal`?); a script takes `goal`, \
             `fallback`, `turn`, `child`, `operator` (line 1, column 1)",
        ),
        (
            "goal = \"g\"\n[[turn]]\ncalls = [{ tool = \"exec\", agrs = {} }]\n",
            "key `turn[1].calls[1].agrs`: unknown key `agrs` (did you mean `args`?); a call takes \
             `tool`, `args` (line 3, column 27)",
        ),
        (
            "goal = \"g\"\n[operator]\napprov = false\n",
            "key `operator.approv`: unknown key `approv` (did you mean `approve`?); `[operator]` \
             takes `approve`, `answers` (line 3, column 1)",
        ),
        (
            "goal = \"g\"\n[[child]]\ngoal = \"c\"\n[[child.turn]]\nanwser = \"x\"\n",
            "key `child[1].turn[1].anwser`: unknown key `anwser` (did you mean `answer`?); a turn \
             takes `say`, `calls`, `replan`, `answer`, `server_tools`, `fail` (line 5, column 1)",
        ),
        // A value of the wrong type: serde's words, at the key path.
        (
            "goal = \"g\"\n[[turn]]\nfail = \"twice\"\n",
            "key `turn[1].fail`: invalid type: string \"twice\", expected u32 (line 3, column 8)",
        ),
    ] {
        let err = refused(script);
        assert!(
            err.starts_with(&format!("io: script.toml: {expected}\n")),
            "{script}\n{err}"
        );
    }
}

#[test]
fn a_string_where_argv_takes_an_array_is_refused_at_load_and_nothing_runs() {
    let script = "goal = \"list\"\n\n[[turn]]\ncalls = [{ tool = \"exec\", args = { argv = \"ls -l\" } }]\n\n[[turn]]\nanswer = \"listed\"\n";
    assert_eq!(
        refused(script),
        "io: script.toml: key `turn[1].calls[1].args.argv`: `exec` takes `argv` as an array of \
         strings (as `[\"ls\", \"-l\"]`: no shell splits a string), and this is a string (line 4, \
         column 43)\n   |\n 4 | calls = [{ tool = \"exec\", args = { argv = \"ls -l\" } }]\n   \
         |                                           ^\n"
    );
    for (script, expected) in [
        (
            "goal = \"g\"\n[[turn]]\ncalls = [{ tool = \"write_file\", args = { path = \"a\" } }]\n",
            "key `turn[1].calls[1].args`: `write_file` needs `content`, a string, and this call \
             has none (line 3, column 40)",
        ),
        (
            "goal = \"g\"\n[[turn]]\ncalls = [{ tool = \"exec\", args = { argv = [\"ls\", 1] } }]\n",
            "key `turn[1].calls[1].args.argv`: `exec` takes `argv` as an array of strings (as \
             `[\"ls\", \"-l\"]`: no shell splits a string), and this is an array holding \
             something that is not a string (line 3, column 43)",
        ),
        (
            "goal = \"g\"\n[[child]]\ngoal = \"c\"\n[[child.turn]]\ncalls = [{ tool = \"read_file\", args = { path = 3 } }]\n",
            "key `child[1].turn[1].calls[1].args.path`: `read_file` takes `path` as a string, and \
             this is a number (line 5, column 48)",
        ),
    ] {
        let err = refused(script);
        assert!(
            err.starts_with(&format!("io: script.toml: {expected}\n")),
            "{script}\n{err}"
        );
    }
}

#[test]
fn a_tool_the_loop_does_not_have_is_still_the_models_to_call() {
    // A script stands in for a model, which may call a tool the loop lacks:
    // the loop refuses it in the run, as before, and the run goes on.
    let (out, _env) = run(
        "goal = \"g\"\n[[turn]]\ncalls = [{ tool = \"frobnicate\", args = { x = 1 } }]\n\n[[turn]]\nanswer = \"done\"\n",
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("completed after 2 steps: done"),
        "{}",
        stdout(&out)
    );
}
