//! docs/hooks.md, "Writing a policy check" (issue 46 item 7), is a real
//! walk-through: its files are `examples/policy/`, and each of its
//! `console` blocks is run in a copy of them, in order, as the section sets
//! it up, and must appear in what `io` prints (`tests/common/console.rs`).
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::ffi::OsStr;
use std::fs;
use std::path::Path;

use common::console::{assert_excerpt, console_blocks, io_as_shown};

/// The section's blocks: those of docs/hooks.md from its heading on.
fn section_blocks() -> Vec<String> {
    let all = console_blocks("docs/hooks.md");
    let doc = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/hooks.md"))
        .expect("docs/hooks.md");
    let (before, _) = doc
        .split_once("## Writing a policy check")
        .expect("the section");
    let earlier = before.matches("```console\n").count();
    all[earlier..].to_vec()
}

/// `examples/policy/` copied into a git work tree (its `io.local.toml` is
/// untracked, so the operator's), as the section's `cp` and `git init` do.
fn walk_through() -> tempfile::TempDir {
    let dir = common::checkout();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/policy");
    for file in [
        "io.local.toml",
        "session.toml",
        "policy/io.toml",
        "policy/refuse",
    ] {
        let to = dir.path().join(file);
        fs::create_dir_all(to.parent().expect("a parent")).expect("mkdir");
        fs::copy(from.join(file), &to).expect("copy");
    }
    dir
}

/// What running each `$ ` line of `block` in `dir` prints, `dir` written
/// as `shown`: `io` with its arguments, after `VAR=VALUE` words (`$PWD` is
/// `dir`), its stdout to a file after `>`.
fn run_block(block: &str, dir: &Path, user: &Path, shown: &str) -> String {
    let mut printed = String::new();
    for command in block.lines().filter_map(|l| l.strip_prefix("$ ")) {
        let (command, into) = match command.split_once(" > ") {
            Some((command, file)) => (command, Some(file)),
            None => (command, None),
        };
        let pwd = dir.display().to_string();
        let mut vars: Vec<(String, String)> = vec![
            ("IO_CONFIG_HOME".into(), user.display().to_string()),
            (
                "IO_DATA_HOME".into(),
                user.join(".io-data").display().to_string(),
            ),
        ];
        let mut words = command.split_whitespace().peekable();
        while let Some((name, value)) = words.peek().and_then(|w| w.split_once('=')) {
            vars.push((name.to_owned(), value.replace("$PWD", &pwd)));
            words.next();
        }
        assert_eq!(
            words.next(),
            Some("io"),
            "a document runs `{command}`, which this test cannot"
        );
        let args: Vec<&str> = words.collect();
        let vars: Vec<(&str, &OsStr)> = vars
            .iter()
            .map(|(name, value)| (name.as_str(), OsStr::new(value.as_str())))
            .collect();
        match into {
            None => printed.push_str(&io_as_shown(dir, &args, &vars)),
            Some(file) => {
                let out = common::run_io(dir, user, &args, &vars);
                fs::write(dir.join(file), &out.stdout).expect("the file `>` names");
                printed.push_str(&String::from_utf8_lossy(&out.stderr));
            }
        }
    }
    let real = dir.canonicalize().expect("canonical").display().to_string();
    printed.replace(&real, shown)
}

#[test]
fn writing_a_policy_check_runs_as_the_section_says() {
    let blocks = section_blocks();
    let firsts: Vec<&str> = blocks
        .iter()
        .map(|b| b.lines().next().unwrap_or_default())
        .collect();
    let ci = "$ IO_CONFIG_HOME=$PWD/policy io replay policy/session.jsonl --expect policy/session.golden.json";
    assert_eq!(
        firsts,
        [
            "$ io check",
            "$ io check",
            "$ io run session.toml --stderr",
            "$ io replay policy/session.jsonl --hook no-force --json > policy/session.golden.json",
            ci,
            ci,
        ],
        "the section's console blocks changed: give each new one its setup here"
    );
    let dir = walk_through();
    let user = tempfile::tempdir().expect("the user scope");
    let local = dir.path().join("io.local.toml");
    let wide = fs::read_to_string(&local).expect("io.local.toml");
    let (narrowed, exec) = (
        "where.tool = [\"exec\", \"exec_background\"]",
        "where.tool = \"exec\"",
    );
    assert!(wide.contains(narrowed), "the example names both tools");
    let shown = "/tmp/policy";
    for (at, block) in blocks.iter().enumerate() {
        match at {
            // 1: the policy as first aimed, at `exec` alone.
            0 => fs::write(&local, wide.replace(narrowed, exec)).expect("narrow"),
            1 => fs::write(&local, &wide).expect("widen"),
            // 4: a CI checkout, which has no io.local.toml.
            4 => fs::remove_file(&local).expect("no io.local.toml in CI"),
            // 4: someone narrows the committed policy again.
            5 => {
                let ci = dir.path().join("policy/io.toml");
                let text = fs::read_to_string(&ci).expect("policy/io.toml");
                assert!(text.contains(narrowed), "{text}");
                fs::write(&ci, text.replace(narrowed, exec)).expect("narrow");
            }
            _ => {}
        }
        let printed = run_block(block, dir.path(), user.path(), shown);
        assert_excerpt(&format!("docs/hooks.md: {}", firsts[at]), block, &printed);
    }
}

/// The example's CI file is `io.local.toml`'s policy hook, word for word:
/// what CI tests is what the operator runs.
#[test]
fn the_ci_policy_is_the_local_files_policy_hook() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/policy");
    let local = fs::read_to_string(dir.join("io.local.toml")).expect("io.local.toml");
    let ci = fs::read_to_string(dir.join("policy/io.toml")).expect("policy/io.toml");
    // A file's first hook: its lines from the first `[[hook]]` to the
    // next, comments and blank lines left out.
    let hook = |text: &str| -> Vec<String> {
        text.lines()
            .skip_while(|l| *l != "[[hook]]")
            .enumerate()
            .take_while(|(i, l)| *i == 0 || *l != "[[hook]]")
            .map(|(_, l)| l.to_owned())
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    };
    assert!(hook(&ci).len() > 5, "{ci}");
    assert_eq!(hook(&ci), hook(&local));
}
