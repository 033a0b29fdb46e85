//! `io completions` (issue 46 item 6): the shell's Tab completes event
//! tags, profile names, hook names and run ids from the current root,
//! through clap_complete's dynamic completion. Asked here as the bash
//! script asks: `COMPLETE=bash _CLAP_COMPLETE_INDEX=N io -- io <words>`,
//! the candidates separated by `_CLAP_IFS`. Completion runs in a clone as
//! readily as in the operator's checkout: it runs nothing, writes nothing,
//! offers nothing of a clone's, and says nothing on stderr.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;
mod run_support;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

use common::io_env::{code, stderr, stdout};
use common::{git, output_within, prerequisite};
use run_support::Env;
use serde_json::json;

/// What `_CLAP_IFS` is set to: bash's script sets a vertical tab, a
/// character no candidate may hold.
const IFS: &str = "\u{b}";

/// `io` asked by the shell to complete `words` (the line as typed, `io`
/// first), the last word being the one the cursor is in.
fn ask(env: &Env, words: &[&str]) -> Output {
    let mut command = env.command(&["--"]);
    command
        .args(words)
        .env("COMPLETE", "bash")
        .env("_CLAP_COMPLETE_INDEX", (words.len() - 1).to_string())
        .env("_CLAP_IFS", IFS);
    let child = command.spawn().expect("io runs");
    output_within(
        child,
        Duration::from_secs(60),
        &format!("complete {words:?}"),
    )
}

/// The candidates for `words`, checking that the answer said nothing on
/// stderr and exited 0.
fn complete(env: &Env, words: &[&str]) -> Vec<String> {
    let out = ask(env, words);
    assert_eq!(stderr(&out), "", "{words:?}: nothing on stderr");
    assert_eq!(code(&out), 0, "{words:?}");
    let text = stdout(&out);
    text.split(IFS)
        .filter(|c| !c.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A user-scope file with two profiles, one of them holding named hooks,
/// and named hooks at the top level.
const USER: &str = r#"
[[hook]]
name = "audit"
on = ["step"]
append = "audit.jsonl"

[[hook]]
name = "my hook"
on = ["step"]
append = "audit2.jsonl"

[profile.ci]

[profile.strict]
[[profile.strict.hook]]
name = "guard"
on = ["tool_call"]
run = ["false"]
on_failure = "cancel"
"#;

/// A journal's records: a run of `goal` at `depth`, begun and not ended.
fn journal(goal: &str, depth: u32) -> Vec<serde_json::Value> {
    vec![json!({"begin": {
        "goal": goal, "workspace": "/elsewhere", "depth": depth, "max_steps": 50
    }})]
}

#[test]
fn the_registration_script_names_io_and_is_what_complete_bash_io_prints() {
    let env = Env::new();
    let out = env.io(&["completions", "bash"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let script = stdout(&out);
    let io = env!("CARGO_BIN_EXE_io");
    assert!(
        script.contains("-F _clap_complete_io io\n"),
        "registered for `io`: {script}"
    );
    assert!(
        script.contains(&format!("COMPLETE=\"bash\" \\\n        \"{io}\" -- ")),
        "calls io back: {script}"
    );
    let mut command = env.command(&[]);
    command.env("COMPLETE", "bash");
    let same = output_within(
        command.spawn().expect("io runs"),
        Duration::from_secs(60),
        "COMPLETE=bash io",
    );
    assert_eq!(code(&same), 0);
    assert_eq!(stdout(&same), script, "one script, two ways to ask for it");
    // An unknown shell in COMPLETE is said, as a usage error.
    let mut command = env.command(&[]);
    command.env("COMPLETE", "tcsh");
    let out = output_within(
        command.spawn().expect("io runs"),
        Duration::from_secs(60),
        "COMPLETE=tcsh io",
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).starts_with("io: COMPLETE=tcsh: unknown shell `tcsh`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_complete_variable_left_in_the_environment_does_not_stop_a_command_running() {
    // `COMPLETE=bash io check` would have printed the script and exited 0
    // under clap_complete's own rule: a check in CI that passed unrun.
    let env = Env::new();
    env.write("io.local.toml", "[[hook]]\non = [\"step\"]\nbad_key = 1\n");
    let mut command = env.command(&["check"]);
    command.env("COMPLETE", "bash");
    let out = output_within(
        command.spawn().expect("io runs"),
        Duration::from_secs(60),
        "COMPLETE=bash io check",
    );
    assert_eq!(code(&out), 1, "the check ran and failed: {out:?}");
    assert!(stderr(&out).contains("bad_key"), "{}", stderr(&out));
    assert!(!stdout(&out).contains("_clap_complete_io"));
}

#[test]
fn event_tags_are_completed_from_the_registry_of_events() {
    let env = Env::new();
    let tags = complete(&env, &["io", "check", "--event", "to"]);
    assert_eq!(tags, ["tool_call", "todo_wrote", "token"]);
    let out = env.io(&["events", "--json"]);
    let all: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).expect("json");
    let every: Vec<String> = all
        .iter()
        .map(|e| e["event"].as_str().expect("a tag").to_owned())
        .collect();
    // An empty word is offered the flags too.
    let offered: Vec<String> = complete(&env, &["io", "events", ""])
        .into_iter()
        .filter(|c| !c.starts_with('-'))
        .collect();
    assert_eq!(offered, every);
    assert_eq!(
        complete(&env, &["io", "events", "zz"]),
        Vec::<String>::new()
    );
}

#[test]
fn profiles_are_completed_from_the_operators_files_and_not_the_projects() {
    let env = Env::new();
    fs::write(env.user().join("io.toml"), USER).expect("user scope");
    // The operator's own io.local.toml (untracked in their checkout), and
    // the project's io.toml, which came with the clone.
    env.write("io.local.toml", "[profile.mine]\n");
    env.write("io.toml", "[profile.from-the-clone]\n");
    for command in ["check", "run", "replay"] {
        assert_eq!(
            complete(&env, &["io", command, "--profile", ""]),
            ["ci", "mine", "strict"],
            "io {command}"
        );
    }
    assert_eq!(complete(&env, &["io", "run", "--profile", "s"]), ["strict"]);
    // `--root` on the line is the root looked in.
    let other = env.dir().join("other");
    fs::create_dir(&other).expect("other root");
    common::work_tree(&other);
    fs::write(other.join("io.local.toml"), "[profile.elsewhere]\n").expect("write");
    let root = other.to_str().expect("utf-8");
    assert_eq!(
        complete(&env, &["io", "check", "--root", root, "--profile", "e"]),
        ["elsewhere"]
    );
}

#[test]
fn a_clones_committed_config_offers_no_name_and_no_run_id() {
    let env = Env::new();
    fs::write(env.user().join("io.toml"), USER).expect("user scope");
    let root = env.root();
    fs::remove_dir_all(root.join(".git")).expect("a real repository instead");
    if !prerequisite("a usable git", git(&root, &["init", "-q"])) {
        return;
    }
    // Committed: an io.local.toml that declares no hooks (so loads), a
    // project io.toml, and a journal sealed with this user's own key (the
    // operator's run, committed and cloned again).
    env.write("io.local.toml", "[profile.cloned]\n");
    env.write("io.toml", "[profile.project]\n");
    env.seal_journal("r-00000000c10e", &journal("committed", 0));
    assert!(git(&root, &["add", "io.local.toml", "io.toml", ".io"]));
    assert_eq!(
        complete(&env, &["io", "run", "--profile", ""]),
        ["ci", "strict"],
        "only the user-scope file's"
    );
    assert_eq!(
        complete(&env, &["io", "run", "--resume", ""]),
        Vec::<String>::new(),
        "a tracked journal came with the clone"
    );
    // A committed io.local.toml that declares hooks does not load at all:
    // nothing is offered from the root, as the command itself would refuse.
    env.write(
        "io.local.toml",
        "[[hook]]\nname = \"planted\"\non = [\"step\"]\nappend = \"x\"\n",
    );
    assert!(git(&root, &["add", "io.local.toml"]));
    assert_eq!(
        complete(&env, &["io", "replay", "--hook", ""]),
        Vec::<String>::new()
    );
    assert_eq!(
        complete(&env, &["io", "check", "--profile", ""]),
        Vec::<String>::new()
    );
}

#[test]
fn hook_names_are_those_in_force_under_the_lines_profile() {
    let env = Env::new();
    fs::write(env.user().join("io.toml"), USER).expect("user scope");
    // "my hook" would need quoting: not offered.
    assert_eq!(complete(&env, &["io", "replay", "--hook", ""]), ["audit"]);
    assert_eq!(
        complete(&env, &["io", "replay", "--profile", "strict", "--hook", ""]),
        ["guard"]
    );
    assert_eq!(
        complete(&env, &["io", "replay", "--profile=strict", "--hook", "g"]),
        ["guard"]
    );
    // A profile that does not exist: the replay would fail, so nothing.
    assert_eq!(
        complete(&env, &["io", "replay", "--profile", "nope", "--hook", ""]),
        Vec::<String>::new()
    );
}

#[test]
fn run_ids_are_those_of_top_level_journals_this_users_io_sealed() {
    let env = Env::new();
    env.seal_journal("r-000000000001", &journal("mine", 0));
    env.seal_journal("r-000000000002", &journal("another of mine", 0));
    // A child run is resumed with its parent.
    env.seal_journal("r-000000000003", &journal("a child", 1));
    // Planted: no MAC, or a MAC of another key.
    env.plant_journal("r-000000000004", &journal("planted", 0));
    let other = tempfile::tempdir().expect("tempdir");
    let key = io_trust::Key::load_or_create(other.path()).expect("another key");
    let mut chain = key.chain(b"r-000000000005");
    let line = run_support::sealed_line(&mut chain, &journal("forged", 0)[0]);
    env.write_journal("r-000000000005", &line);
    assert_eq!(
        complete(&env, &["io", "run", "--resume", ""]),
        ["r-000000000001", "r-000000000002"]
    );
    assert_eq!(
        complete(&env, &["io", "run", "--resume", "r-0000000000002"]),
        Vec::<String>::new()
    );
    assert_eq!(
        complete(&env, &["io", "run", "--resume", "r-000000000002"]),
        ["r-000000000002"]
    );
}

#[test]
fn with_no_key_no_run_id_is_offered_and_no_key_is_made() {
    let env = Env::new();
    env.plant_journal("r-000000000001", &journal("planted", 0));
    assert!(!env.data().exists());
    assert_eq!(
        complete(&env, &["io", "run", "--resume", ""]),
        Vec::<String>::new()
    );
    assert!(!env.data().exists(), "no data directory, no key made");
}

/// Every path under `dir` with its size, mode and modification time.
fn snapshot(dir: &Path) -> BTreeMap<String, (u64, u32, i64, i64)> {
    let mut seen = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(at) = todo.pop() {
        for entry in fs::read_dir(&at).expect("read_dir") {
            let path = entry.expect("entry").path();
            let meta = fs::symlink_metadata(&path).expect("metadata");
            if meta.is_dir() {
                todo.push(path.clone());
            }
            seen.insert(
                path.display().to_string(),
                (meta.len(), meta.mode(), meta.mtime(), meta.mtime_nsec()),
            );
        }
    }
    seen
}

#[test]
fn completing_runs_no_hook_and_writes_no_file() {
    let env = Env::new();
    let mark = env.dir().join("hook-ran");
    // A hook of every kind, on every event that could be thought to fire.
    let hooks = format!(
        "[[hook]]\nname = \"toucher\"\non = [\"started\", \"step\", \"tool_call\", \"finished\"]\nrun = [\"touch\", \"{}\"]\n\n[[hook]]\nname = \"logger\"\non = [\"step\"]\nappend = \"audit.jsonl\"\n\n[profile.ci]\n",
        mark.display()
    );
    env.write("io.local.toml", &hooks);
    env.seal_journal("r-000000000001", &journal("mine", 0));
    let before = snapshot(env.dir());
    for words in [
        &["io", "run", "--resume", ""][..],
        &["io", "run", "--profile", ""],
        &["io", "replay", "--hook", ""],
        &["io", "check", "--event", ""],
        &["io", ""],
        &["io", "run", "--root", ""],
    ] {
        let _ = complete(&env, words);
    }
    assert!(!mark.exists(), "a hook ran");
    assert_eq!(snapshot(env.dir()), before, "a file was written");
}

#[test]
fn a_name_with_a_control_character_or_that_needs_quoting_is_not_offered() {
    let env = Env::new();
    fs::write(
        env.user().join("io.toml"),
        "[profile.\"ok\"]\n[profile.\"o\\u001b[31mred\"]\n[profile.\"o\\nnew\"]\n[profile.\"o two\"]\n\
         [profile.\"o$(touch x)\"]\n[profile.\"--root\"]\n[profile.\"o\\u202eevil\"]\n",
    )
    .expect("user scope");
    assert_eq!(complete(&env, &["io", "check", "--profile", ""]), ["ok"]);
}

#[test]
fn a_completion_that_fails_says_nothing_on_stderr() {
    let env = Env::new();
    // A config that does not parse: the command would fail; the Tab offers
    // nothing and says nothing.
    env.write("io.local.toml", "[profile.x\n");
    for words in [
        &["io", "check", "--profile", ""][..],
        &["io", "replay", "--hook", ""],
        &["io", "run", "--resume", ""],
    ] {
        assert_eq!(complete(&env, words), Vec::<String>::new(), "{words:?}");
    }
    // A line clap cannot complete at all (an index past the words): exit
    // 1, and still nothing on stderr.
    let mut command = env.command(&["--", "io", "check"]);
    command
        .env("COMPLETE", "bash")
        .env("_CLAP_COMPLETE_INDEX", "9");
    let out = output_within(
        command.spawn().expect("io runs"),
        Duration::from_secs(60),
        "a bad index",
    );
    assert_eq!(stderr(&out), "", "{out:?}");
}

/// The script names the `io` it calls back: run by a path a shell reads
/// only quoted (a clone's directory named `w$(touch${IFS}PWNED)`), no
/// script is written, since clap_complete's bash script double-quotes that
/// path and the `$(…)` would run at every Tab; it is said, and nothing is
/// printed to source.
#[test]
fn no_script_names_an_io_whose_path_a_shell_would_expand() {
    let dir = tempfile::tempdir().expect("tempdir");
    let hostile = dir.path().join("w$(touch${IFS}PWNED)");
    fs::create_dir(&hostile).expect("the clone's directory");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_io"), hostile.join("io")).expect("link");
    let data = dir.path().join("data");
    for (args, complete) in [
        (&["completions", "bash"][..], None),
        (&[][..], Some("bash")),
    ] {
        let mut command = std::process::Command::new("./io");
        command
            .args(args)
            .current_dir(&hostile)
            .env("IO_CONFIG_HOME", dir.path())
            .env("IO_DATA_HOME", &data)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        match complete {
            Some(shell) => command.env("COMPLETE", shell),
            None => command.env_remove("COMPLETE"),
        };
        let out = output_within(
            command.spawn().expect("io runs"),
            Duration::from_secs(60),
            "io completions from a hostile directory",
        );
        assert_eq!(code(&out), 1, "{args:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), "", "{args:?}: nothing to source");
        assert!(
            stderr(&out).starts_with("io: no completion script written: this io is run as '")
                && stderr(&out).contains("w$(touch${IFS}PWNED)/./io'"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert!(!hostile.join("PWNED").exists() && !dir.path().join("PWNED").exists());
}
