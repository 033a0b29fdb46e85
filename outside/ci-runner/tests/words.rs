//! The runner's operators read its words only: every error loading its
//! files, every problem found in its hooks and every failure of a hook or
//! a command names `ci.toml`, `ci.local.toml`, its pipelines and its events,
//! and never a word of io-harness, the first program io-hooks served.

mod common;

use std::mem::discriminant;
use std::path::Path;
use std::time::Duration;

use ci_runner::{CiEvent, Config, ConfigError};
use common::{assert_own_words, checkout_with, script};

/// A valid `ci.toml` with one pipeline, `check`.
const PROJECT: &str = "[[pipeline.check.job]]\nname = \"test\"\ncommands = [[\"true\"]]\n";

/// `ci.toml` texts refused, one for each way the project file can be.
const BAD_PROJECT: &[&str] = &[
    "[pipeline",
    "[[hook]]\nappend = \"a.jsonl\"\n",
    "hook = []\n",
    "[[pipeline.check.hook]]\nappend = \"a.jsonl\"\n",
    "[[hooks]]\nappend = \"a.jsonl\"\n",
    "[pipeline.check]\nHook = []\n",
    "[[jobs.nightly.hook]]\nappend = \"a.jsonl\"\n",
    "[[pipeline.check.job]]\nname = \"t\"\ncommands = [[\"true\"]]\nretries = 1\n",
    "[[pipeline.check.job]]\nname = \"t\"\ncommands = \"make\"\n",
    "[[pipeline.check.job]]\ncommands = [[\"true\"]]\n",
    "[[pipeline.check.job]]\nname = \"t\"\ncommands = [[]]\n",
    "[[pipeline.check.job]]\nname = \"t\"\ncommands = [[\"\"]]\n",
    "[[pipeline.check.job]]\nname = \"t\"\ncommands = [[\"true\"]]\ntimeout_ms = -1\n",
    "[pipelines.check]\n",
];

/// `ci.local.toml` texts refused, one for each way the operator file can be.
const BAD_OPERATOR: &[&str] = &[
    "hook = [",
    "[[hook]]\nappend = 3\n",
    "hook = 1\n",
    "hook = [1]\n",
    "[[hook]]\non = \"job_started\"\nappend = \"a\"\n",
    "[[hook]]\non = { a = 1 }\nappend = \"a\"\n",
    "[[hook]]\non_failure = \"stop\"\nappend = \"a\"\n",
    "[[hook]]\nappend = \"a\"\ntimout_ms = 1\n",
    "[[hook]]\non = [\"job_startd\"]\nappend = \"a\"\n",
    "[[hook]]\non = []\nappend = \"a\"\n",
    "[[hook]]\non = [\"job_started\"]\n",
    "[[hook]]\nappend = \"a\"\nrun = [\"x\"]\n",
    "[[hook]]\nrun = []\n",
    "[[hook]]\nrun = [\"\"]\n",
    "[[hook]]\nrun = [\"x\", \"a\\u0000b\"]\n",
    "[[hook]]\nappend = \"\"\n",
    "[[hook]]\nappend = \"a\\u0000\"\n",
    "[[hook]]\nappend = \"a\"\ntimeout_ms = 5\n",
    "[[hook]]\nrun = [\"x\"]\ntimeout_ms = 0\n",
    "[[hook]]\non = [\"job_started\", \"job_started\"]\nappend = \"a\"\n",
    "[[hooks]]\nappend = \"a\"\n",
    "[[Hook]]\nappend = \"a\"\n",
    "[pipeline.check]\nHook = []\n",
    "[[jobs.check.hook]]\nappend = \"a\"\n",
    "[[pipelines.check.hook]]\nappend = \"a\"\n",
    "[[pipeline.check.hook]]\nrun = []\n",
    "[[pipeline.chek.hook]]\nappend = \"a\"\n",
    "[[pipeline.nightly.hook]]\nappend = \"a\"\n",
    "[pipeline.check]\nretries = 1\n",
    "model = \"x\"\n",
    // The runner's own action, `status`: its own refusals, and the
    // engine's for it.
    "[[hook]]\nstatus = \"\"\n",
    "[[hook]]\nstatus = \"/etc/motd\"\n",
    "[[hook]]\nstatus = 3\n",
    "[[hook]]\nstatus = \"s\"\ntimeout_ms = 5\n",
    "[[hook]]\nstatis = \"s\"\n",
    // A hook table's keys with no header above them: in no table at all.
    "on = [\"job_started\"]\nstatus = \"s\"\n",
    "[pipeline.check]\nstatus = \"s\"\n",
];

#[test]
fn no_config_error_names_another_programs_words() {
    let root = Path::new("/srv/ci");
    let mut table_kinds = Vec::new();
    let project = BAD_PROJECT.iter().map(|text| (*text, None));
    let operator = BAD_OPERATOR.iter().map(|text| (PROJECT, Some(*text)));
    for (project, operator) in project.chain(operator) {
        let e = Config::from_texts(root, project, operator).expect_err(operator.unwrap_or(project));
        let message = e.to_string();
        let file = if operator.is_some() {
            "ci.local.toml: "
        } else {
            "ci.toml: "
        };
        assert!(message.starts_with(file), "{message}");
        assert_own_words(&message, root);
        let ConfigError::Table(t) = &e else {
            panic!("not a table error: {e}");
        };
        if !table_kinds.contains(&discriminant(t.kind())) {
            table_kinds.push(discriminant(t.kind()));
        }
    }
    // Every kind of io-hooks' table error that loading produces, the
    // runner's own checks (`Custom`) among them; an action's own refusals
    // (`append`'s empty path, `run`'s empty argv, NUL and bad `timeout_ms`)
    // are one, `Action`.
    assert_eq!(table_kinds.len(), 14);
}

#[test]
fn the_refusals_speak_of_this_runners_files_and_events() {
    let root = Path::new("/srv/ci");
    let err = |project: &str, operator: Option<&str>| {
        Config::from_texts(root, project, operator)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err(BAD_PROJECT[3], None),
        "ci.toml: key `pipeline.check.hook`: a project-scoped file may not declare hooks, \
         because a hook runs or writes on this machine and `ci.toml` arrives with a `git \
         clone`. Write it in `ci.local.toml` instead."
    );
    // A misspelt or misplaced hook in `ci.toml` is told where hooks go,
    // not how to write one where none may be.
    for (text, key) in [
        (BAD_PROJECT[4], "hooks"),
        (BAD_PROJECT[5], "pipeline.check.Hook"),
        (BAD_PROJECT[6], "jobs.nightly.hook"),
    ] {
        assert_eq!(
            err(text, None),
            format!(
                "ci.toml: key `{key}`: a project-scoped file may not declare hooks, because a \
                 hook runs or writes on this machine and `ci.toml` arrives with a `git clone`. \
                 Write it in `ci.local.toml` instead."
            )
        );
    }
    assert_eq!(
        err(PROJECT, Some(BAD_OPERATOR[4])),
        "ci.local.toml: key `hook[1].on`: invalid type: string \"job_started\", expected an \
         array of event names, as in `on = [\"runner_ready\"]` (line 2, column 6)"
    );
    assert_eq!(
        err(PROJECT, Some(BAD_OPERATOR[23])),
        "ci.local.toml: key `jobs.check.hook`: hooks are declared only at the top level \
         (`[[hook]]`) or in a pipeline (`[[pipeline.<name>.hook]]`), so `hook` here would load \
         as no hooks at all (line 1, column 14)"
    );
    // The runner's own action's key, outside any table, names the header
    // for its place.
    assert_eq!(
        err(PROJECT, Some(BAD_OPERATOR[36])),
        "ci.local.toml: key `pipeline.check.status`: `status` is a key of a hook table, and \
         it is written outside any, so it declares no hook and the file would load as no hooks \
         at all; write `[[pipeline.check.hook]]` on the line above it (line 2, column 1)"
    );
    assert_eq!(
        err(PROJECT, Some(BAD_OPERATOR[26])),
        "ci.local.toml: key `pipeline.chek`: `ci.toml` has no pipeline `chek` (did you mean \
         `check`?); its pipelines are `check` (line 1, column 12)"
    );
    assert_eq!(
        err("", Some("[[pipeline.check.hook]]\nappend = \"a\"\n")),
        "ci.local.toml: key `pipeline.check`: `ci.toml` has no pipeline `check`; it declares \
         none (line 1, column 12)"
    );
    assert_eq!(
        err(BAD_PROJECT[10], None),
        "ci.toml: key `pipeline.check.job[1].commands[1]`: a command names its program first, \
         as in `[\"make\", \"test\"]`, and this one is empty (line 3, column 13)"
    );
}

#[test]
fn a_missing_project_file_is_named_in_the_runners_words() {
    let dir = tempfile::tempdir().unwrap();
    let e = ci_runner::Ci::load(dir.path(), &common::data_dir(dir.path())).unwrap_err();
    assert!(matches!(e, ConfigError::Read { .. }), "{e}");
    let message = e.to_string();
    assert!(
        message.ends_with("/ci.toml: could not be read: No such file or directory"),
        "{message}"
    );
    assert_own_words(&message, dir.path());
}

#[test]
fn a_missing_operator_file_is_no_hooks_and_one_that_cannot_be_read_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    common::work_tree(dir.path());
    std::fs::write(dir.path().join("ci.toml"), PROJECT).unwrap();
    let data = common::data_dir(dir.path());
    let config = Config::load(dir.path(), &data).unwrap();
    assert!(config.hooks.is_empty() && config.pipeline_hooks.is_empty());
    // Not text: an error naming it, never taken for no file.
    let file = dir.path().join("ci.local.toml");
    std::fs::write(&file, b"[[hook]]\nappend = \"a\xff\"\n").unwrap();
    let e = Config::load(dir.path(), &data).unwrap_err();
    assert!(matches!(e, ConfigError::Read { .. }), "{e}");
    let message = e.to_string();
    assert_eq!(
        message,
        format!("{}: could not be read: it is not UTF-8", file.display())
    );
    assert_own_words(&message, dir.path());
}

/// One hook for each problem io-hooks finds when hooks are built, and the
/// files that cause them.
const PROBLEMS: &str = r#"
[[hook]]
run = ["no-such-program-for-ci"]
[[hook]]
run = ["./missing"]
[[hook]]
run = ["./plain"]
[[hook]]
run = ["./dir"]
[[hook]]
run = ["~/notify"]
[[hook]]
append = "dir"
[[hook]]
append = "link.jsonl"
[[hook]]
append = "/dev/null"
[[hook]]
append = "no/such/dir/events.jsonl"
[[hook]]
append = "out/events.jsonl"

[[pipeline.check.hook]]
run = ["./not-a-program"]
[[pipeline.check.hook]]
run = ["./crlf"]
[[pipeline.check.hook]]
run = ["./no-interpreter"]
[[pipeline.check.hook]]
run = ["./no-env-interpreter"]
"#;

fn problem_files(dir: &Path, outside: &Path) {
    use std::os::unix::fs::{PermissionsExt, symlink};
    std::fs::write(dir.join("plain"), "#!/bin/sh\n").unwrap();
    std::fs::create_dir(dir.join("dir")).unwrap();
    std::fs::write(dir.join("target.jsonl"), "").unwrap();
    symlink(dir.join("target.jsonl"), dir.join("link.jsonl")).unwrap();
    symlink(outside, dir.join("out")).unwrap();
    let write = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).unwrap();
        let mode = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(dir.join(name), mode).unwrap();
    };
    write("not-a-program", "echo hi\n");
    write("crlf", "#!/bin/sh\r\necho hi\r\n");
    write("no-interpreter", "#!/no/such/interpreter\n");
    write(
        "no-env-interpreter",
        "#!/usr/bin/env no-such-interpreter-for-ci\n",
    );
}

#[test]
fn no_problem_found_in_the_hooks_names_another_programs_words() {
    let outside = tempfile::tempdir().unwrap();
    let (dir, ci) = checkout_with(PROJECT, Some(PROBLEMS), |dir| {
        problem_files(dir, outside.path());
    });
    let problems = ci.problems();
    // One problem per hook: the hooks are numbered in their own arrays.
    assert_eq!(problems.len(), 14, "{problems:#?}");
    assert!(problems[0].starts_with("ci.local.toml: `hook[1]`: `no-such-program-for-ci`"));
    assert!(problems[10].starts_with("ci.local.toml: `pipeline.check.hook[1]`: `./not-a-program`"));
    for problem in &problems {
        assert_own_words(problem, dir.path());
    }
}

/// One hook for each way a hook fails when it fires (but a serialisation
/// error, which this runner's events cannot have), each on one event.
const FAILURES: &str = r#"
[[hook]]
on = ["runner_ready"]
run = ["false"]
[[hook]]
on = ["runner_ready"]
run = ["no-such-program-for-ci"]
[[hook]]
on = ["runner_ready"]
run = ["./plain"]
[[hook]]
on = ["runner_ready"]
run = ["sleep", "10"]
timeout_ms = 50
[[hook]]
on = ["runner_ready"]
append = "no/such/dir/events.jsonl"
[[hook]]
on = ["runner_ready"]
run = ["./killed"]
[[hook]]
on = ["runner_ready"]
status = "out/status.txt"
[[hook]]
on = ["runner_stopping"]
run = ["true"]
on_failure = "cancel"
"#;

#[test]
fn no_failure_of_a_hook_or_a_command_names_another_programs_words() {
    let outside = tempfile::tempdir().unwrap();
    let (dir, ci) = checkout_with(PROJECT, Some(FAILURES), |dir| {
        std::fs::write(dir.join("plain"), "#!/bin/sh\n").unwrap();
        script(dir, "killed", "kill -KILL $$");
        std::os::unix::fs::symlink(outside.path(), dir.join("out")).unwrap();
    });
    let fired = ci.fire(None, &CiEvent::RunnerReady);
    assert_eq!(fired.failures.len(), 7, "{:#?}", fired.failures);
    // The runner's own action fails in its own words, and writes nothing
    // through a link out of the checkout.
    assert!(
        fired.failures[6].starts_with(
            "ci.local.toml: `hook[7]` failed on `runner_ready`: the status file could not be \
             opened: "
        ),
        "{}",
        fired.failures[6]
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    assert!(fired.failures[0].starts_with("ci.local.toml: `hook[1]` failed on `runner_ready`: "));
    // After a Ctrl-C, a `run` hook fails as interrupted, without spawning.
    ci.supervisor().interrupt();
    let stopping = ci.fire(None, &CiEvent::RunnerStopping);
    assert_eq!(stopping.failures.len(), 1);
    // And so does a command.
    let command = ci
        .command(&["true".to_owned()], Duration::from_secs(5))
        .unwrap_err();
    let no_pipeline = ci.run("chek").unwrap_err().to_string();
    assert_eq!(
        no_pipeline,
        "`ci.toml` has no pipeline `chek` (did you mean `check`?)"
    );
    let texts = fired.failures.iter().chain(&stopping.failures);
    for text in texts.chain([&command, &no_pipeline]) {
        assert_own_words(text, dir.path());
    }
}

/// What the runner's operator reads for a key a job does not take: serde's
/// message, with the job's keys, not a hook table's.
#[test]
fn an_unknown_key_in_a_job_names_a_jobs_keys() {
    let e = Config::from_texts(Path::new("/srv/ci"), BAD_PROJECT[7], None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ci.toml: key `pipeline.check.job[1].retries`: unknown field `retries`, expected one \
         of `name`, `commands`, `timeout_ms` (line 4, column 1)"
    );
}

#[cfg(unix)]
#[test]
fn a_config_file_that_links_out_of_the_checkout_is_refused_unread() {
    // A clone's `ci.toml -> <a file of the operator's>`: never read, so
    // none of it reaches an error message.
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("config");
    std::fs::write(&secret, "[pipeline.x]\nSECRET-VALUE = 1\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    common::work_tree(dir.path());
    std::os::unix::fs::symlink(&secret, dir.path().join("ci.toml")).unwrap();
    let data = common::data_dir(dir.path());
    let e = Config::load(dir.path(), &data).unwrap_err();
    assert!(matches!(e, ConfigError::Read { .. }), "{e}");
    let message = e.to_string();
    assert!(
        message.starts_with(&format!(
            "{}: could not be read: ",
            dir.path().join("ci.toml").display()
        )),
        "{message}"
    );
    assert!(!message.contains("SECRET"), "{message}");
    assert_own_words(&message, dir.path());
}
