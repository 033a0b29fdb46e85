//! The console excerpts of the README and of docs/io.md (where the README's
//! detail moved, issue 43) are copies of real runs: each block's commands
//! are run as the document's sections set them up, and each run of lines
//! between two `…` must appear, consecutively and in order, in what the
//! commands print, once run ids, times, durations and the temporary
//! directory are put back as the document writes them (issue 21, item 7).
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::console::{assert_excerpt, console_blocks, io_as_shown, normalise};
use common::run_io;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The documents whose `console` blocks are checked, in order.
const DOCUMENTS: [&str; 2] = ["README.md", "docs/io.md"];

/// The `io.local.toml` of "Write a hook".
const WRITE_A_HOOK: &str = "[[hook]]\non = [\"refused\", \"approval_requested\", \"approval_decided\", \"spawned\"]\nappend = \"audit.jsonl\"\n";

/// The `io.local.toml` of the block where `io.toml` is a link to a file
/// outside the root (a `~/.netrc`): a comment, so only the link speaks.
const NETRC_LINK: &str = "# io.toml links to a ~/.netrc outside the root\n";

/// "Write a hook" unpacked from an archive: no `.git`, so `io trust` is
/// needed ("Trust a file `io` cannot vouch for"); the comment tells it
/// from [`WRITE_A_HOOK`] in the setup.
const ARCHIVE: &str = "# io.local.toml\n[[hook]]\non = [\"refused\", \"approval_requested\", \"approval_decided\", \"spawned\"]\nappend = \"audit.jsonl\"\n";

/// A hook table where hooks may not go: "Check it"'s refusal.
const HIDDEN_TABLE: &str =
    "[[hook]]\nappend = \"audit.jsonl\"\n\n[[ci.hook]]\nappend = \"ci.jsonl\"\n";

/// Two scripts that cannot start and a shell hook whose `$HOME` is the
/// shell's: the section on programs that must be able to start.
const CANNOT_START: &str = "[[hook]]\non = [\"finished\"]\nrun = [\"./scripts/notify\"]\n\n[[hook]]\non = [\"tool_call\"]\nrun = [\"./scripts/check-tool-call\"]\non_failure = \"cancel\"\n\n[[hook]]\non = [\"step\"]\nrun = [\"sh\", \"-c\", \"echo \\\"$HOME\\\" >> seen.txt\"]\n";

/// A catch-all `append` hook whose file is the one the replay section
/// replays.
const OWN_FILE: &str = "[[hook]]\nappend = \"events.jsonl\"\n";

/// "Write a hook" plus a policy check on `tool_call` that refuses `exec`
/// and cancels: the setup of the `--dry-run` and `--stderr` excerpts.
const WITH_POLICY: &str = "[[hook]]\non = [\"refused\", \"approval_requested\", \"approval_decided\", \"spawned\"]\nappend = \"audit.jsonl\"\n\n[[hook]]\non = [\"tool_call\"]\nrun = [\"./check-tool-call\"]\non_failure = \"cancel\"\n";

const POLICY_SCRIPT: &str = "#!/bin/sh\nread -r event\ncase \"$event\" in\n  *'\"tool\":\"exec\",'*) echo 'policy: exec needs a human here; use the approval flow' >&2; exit 1 ;;\nesac\nexit 0\n";

/// A project directory for one block, set up as its README section says.
fn project(config: &str) -> tempfile::TempDir {
    let dir = common::checkout();
    fs::write(dir.path().join("io.local.toml"), config).expect("io.local.toml");
    let events = repo().join("examples/events.jsonl");
    fs::create_dir(dir.path().join("examples")).expect("examples/");
    fs::copy(&events, dir.path().join("examples/events.jsonl")).expect("copy");
    fs::copy(&events, dir.path().join("events.jsonl")).expect("copy");
    // The replay section's input errors: a `step` whose `step` is a string
    // and three fields short, and an input with no events.
    fs::write(
        dir.path().join("bad.jsonl"),
        "{\"event\":\"step\",\"step\":\"3\"}\n",
    )
    .expect("bad.jsonl");
    fs::write(dir.path().join("empty.jsonl"), "").expect("empty.jsonl");
    // The scripts of the section on programs that cannot start: a `#!`
    // line saved with Windows line endings, and an interpreter not there.
    let scripts = dir.path().join("scripts");
    fs::create_dir(&scripts).expect("scripts/");
    for (name, text) in [
        ("notify", "#!/bin/sh\r\nexit 0\r\n"),
        ("check-tool-call", "#!/usr/bin/env python4\nprint('ok')\n"),
    ] {
        fs::write(scripts.join(name), text).expect("script");
        fs::set_permissions(
            scripts.join(name),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .expect("chmod");
    }
    let script = dir.path().join("check-tool-call");
    fs::write(&script, POLICY_SCRIPT).expect("script");
    fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    dir
}

/// What running each `$ ` line of `block` in `dir` prints (stdout, then
/// stderr), with `dir` written as `shown`.
fn run_block(block: &str, dir: &Path, shown: &str) -> String {
    let mut printed = String::new();
    for command in block.lines().filter_map(|l| l.strip_prefix("$ ")) {
        let words: Vec<&str> = command.split_whitespace().collect();
        match words[..] {
            ["io", ref args @ ..] => printed.push_str(&io_as_shown(dir, args, &[])),
            ["wc", "-l", file] => {
                let text = fs::read_to_string(dir.join(file)).expect("the file");
                printed.push_str(&format!("{} {file}\n", text.lines().count()));
            }
            ["head", "-1", file] => {
                let text = fs::read_to_string(dir.join(file)).expect("the file");
                printed.push_str(text.lines().next().unwrap_or_default());
                printed.push('\n');
            }
            ["tail", "-1", file] => {
                let text = fs::read_to_string(dir.join(file)).expect("the file");
                printed.push_str(text.lines().last().unwrap_or_default());
                printed.push('\n');
            }
            _ => panic!("a document runs `{command}`, which this test cannot"),
        }
    }
    let real = dir.canonicalize().expect("canonical").display().to_string();
    printed.replace(&real, shown)
}

/// The demo's block: its first line.
const DEMO: &str = "== io run script.toml: the policy check will stop it";

/// Every checked document's `console` blocks, in order, and the name of
/// each: its document and its first line.
fn blocks_and_names() -> (Vec<String>, Vec<String>) {
    let mut blocks = Vec::new();
    let mut names = Vec::new();
    for doc in DOCUMENTS {
        for block in console_blocks(doc) {
            names.push(format!(
                "{doc}: {}",
                block.lines().next().unwrap_or_default()
            ));
            blocks.push(block);
        }
    }
    (blocks, names)
}

#[test]
fn every_console_excerpt_in_the_readme_is_real_output() {
    let (blocks, names) = blocks_and_names();
    // Every block is checked: a new one needs its setup here.
    assert_eq!(
        names,
        [
            "README.md: $ io check",
            "README.md: $ io check",
            "README.md: $ io check",
            "README.md: $ io replay examples/events.jsonl",
            &format!("README.md: {DEMO}"),
            "docs/io.md: $ io check --json",
            "docs/io.md: $ io check",
            "docs/io.md: $ io check",
            "docs/io.md: $ io check",
            "docs/io.md: $ io check",
            "docs/io.md: $ io replay events.jsonl",
            "docs/io.md: $ io replay bad.jsonl",
            "docs/io.md: $ io replay events.jsonl --dry-run",
            "docs/io.md: $ io replay events.jsonl --stderr",
        ],
        "the documents' console blocks changed: give each new one its setup in this test"
    );
    let shown = "/tmp/readme/myproject";
    // Each block's setup, the demo's (set up below) left out.
    let setups: [&str; 13] = [
        WRITE_A_HOOK,
        "[[hook]]\non = [\"stalled\", \"finished\"]\nrun = [\"./scripts/notify\"]\non_failure = \"continue\"\ntimout_ms = 2000\n",
        ARCHIVE,
        WRITE_A_HOOK,
        WRITE_A_HOOK,
        HIDDEN_TABLE,
        NETRC_LINK,
        "[[hook]]\non = [\"refused\", \"approval_requested\", \"approval_decided\", \"spawned\"]\nappend = \"logs/audit.jsonl\"\n\n[[hook]]\non = [\"tool_call\"]\nrun = [\"check-tool-call\"]\non_failure = \"cancel\"\n",
        CANNOT_START,
        OWN_FILE,
        WRITE_A_HOOK,
        WITH_POLICY,
        WITH_POLICY,
    ];
    let others = blocks
        .iter()
        .zip(&names)
        .filter(|(block, _)| !block.starts_with(DEMO));
    for ((block, name), config) in others.zip(setups) {
        let dir = project(config);
        if config == ARCHIVE {
            fs::remove_dir_all(dir.path().join(".git")).expect("an archive: no .git");
        }
        let outside = tempfile::tempdir().expect("tempdir");
        if config == NETRC_LINK {
            let netrc = outside.path().join(".netrc");
            fs::write(
                &netrc,
                "machine example.com login me password not-a-real-one\n",
            )
            .expect(".netrc");
            std::os::unix::fs::symlink(&netrc, dir.path().join("io.toml")).expect("link");
        }
        let printed = run_block(block, dir.path(), shown);
        assert_excerpt(name, block, &printed);
    }

    // The demo's excerpt: `io demo --dir`, with the directory as `/tmp/d`.
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir: PathBuf = tmp.path().join("d");
    let out = run_io(tmp.path(), tmp.path(), &["demo", "--dir", "d"], &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let real = dir.canonicalize().expect("canonical").display().to_string();
    let printed = String::from_utf8_lossy(&out.stdout).replace(&real, "/tmp/d");
    let demo = blocks
        .iter()
        .find(|b| b.starts_with(DEMO))
        .expect("the demo's block");
    assert_excerpt("io demo", demo, &printed);
}

#[test]
fn the_normaliser_keeps_what_is_not_an_id_a_time_or_a_duration() {
    assert_eq!(
        normalise(
            "run r-b47db0cf73e4 at 5 steps (74.6 ms) hook[3] \"at\":\"2026-11-30T04:16:24.277Z\",\"seq\":87"
        ),
        "run r-ID at 5 steps (N ms) hook[3] \"at\":\"T\",\"seq\":87"
    );
}
