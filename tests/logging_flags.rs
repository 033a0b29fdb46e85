//! What `-q`, the default, `-v` and `-vv` log, as `io --help` and
//! docs/io.md say, and every hook named as in the table in force, under
//! `--hook` too (issue 21, item 7): the engine's own lines by where the hook
//! was written, its file and key path, printed as the engine wrote them
//! (issue 36).
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::path::Path;
use std::process::Output;

use common::io_env::stderr;
use common::run_io;

/// The log lines of `out`: those that start with a level.
fn logged(out: &Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter(|l| {
            ["ERROR", " WARN", " INFO", "DEBUG", "TRACE"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .map(str::to_owned)
        .collect()
}

/// Five hooks; `--hook 4 --hook 5` picks one that fails on `started` and
/// one whose program is missing (its name holds a U+202E).
const FIVE: &str = "[[hook]]\non = [\"step\"]\nappend = \"a.jsonl\"\n\n[[hook]]\non = [\"step\"]\nappend = \"b.jsonl\"\n\n[[hook]]\non = [\"step\"]\nappend = \"c.jsonl\"\n\n[[hook]]\non = [\"started\"]\nrun = [\"/bin/false\"]\n\n[[hook]]\non = [\"started\"]\nrun = [\"./nope\\u202e\"]\n";

const STARTED: &str = "{\"event\":\"started\",\"goal\":\"g\",\"run_id\":\"r\",\"depth\":0}\n";

fn replay(dir: &Path, flags: &[&str]) -> Output {
    let mut args = flags.to_vec();
    args.extend(["replay", "events.jsonl", "--hook", "4", "--hook", "5"]);
    let out = run_io(dir, dir, &args, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains('\u{202e}'), "{}", stderr(&out));
    out
}

/// Each level adds what the help says: the default and `-q` no log line
/// here (io reports the failure and the problem itself, with the table's
/// key paths); `-v` the files read, whose hooks are in force and the
/// engine's own warnings, naming `hook[4]` and `hook[5]` of the file as in
/// the table; `-vv` each hook in force. Before, `-v` and `-vv` added
/// nothing but the engine's warnings, which said `hook[1]` and `hook[2]`
/// for the table's `hook[4]` and `hook[5]`; then io rewrote the engine's
/// numbers, and now the engine names each hook by where it was written.
#[test]
fn each_level_logs_what_the_help_says_numbered_as_the_table() {
    let tmp = common::checkout();
    fs::write(tmp.path().join("io.local.toml"), FIVE).expect("config");
    fs::write(tmp.path().join("events.jsonl"), STARTED).expect("events");
    let local = tmp
        .path()
        .canonicalize()
        .expect("root")
        .join("io.local.toml");

    // The hooks in force, said unless -q.
    let in_force = format!(
        "io: 5 hook(s) in force, from {} (local scope)\n",
        local.display()
    );
    for (flags, first) in [(&["-q"][..], ""), (&[], in_force.as_str())] {
        let out = replay(tmp.path(), flags);
        assert!(logged(&out).is_empty(), "{flags:?}: {}", stderr(&out));
        // io's own report, at every level.
        assert!(
            stderr(&out).starts_with(&format!("{first}io: hook[5]: `./nope\\u{{202e}}`")),
            "{flags:?}: {}",
            stderr(&out)
        );
    }

    let out = replay(tmp.path(), &["-v"]);
    let lines = logged(&out);
    assert_eq!(
        lines[..2],
        [
            format!(" INFO config read: {} (local scope)", local.display()),
            format!(
                " INFO 5 hook(s), hooks from {} (local scope)",
                local.display()
            ),
        ],
        "{}",
        stderr(&out)
    );
    let warned = |n: usize, what: &str| {
        lines.iter().any(|l| {
            l.starts_with(&format!(" WARN {}: hook[{n}]", local.display()))
                && l.contains(what)
                && l.contains(&format!(" hook=\"hook[{n}]\""))
                && l.contains(&format!(" file=\"{}\"", local.display()))
        })
    };
    assert!(
        warned(4, "failed on `started`: exited with status 1"),
        "{lines:#?}"
    );
    assert!(
        warned(5, "failed on `started`: could not spawn"),
        "{lines:#?}"
    );
    assert!(warned(5, "it fails each time it fires"), "{lines:#?}");
    assert!(
        !stderr(&out).contains("hook[1]") && !stderr(&out).contains("hook=\"hook[1]\""),
        "{}",
        stderr(&out)
    );
    assert!(!lines.iter().any(|l| l.starts_with("DEBUG")), "{lines:#?}");

    let out = replay(tmp.path(), &["-vv"]);
    let lines = logged(&out);
    assert!(
        lines.contains(&"DEBUG hook[4] on started: run [\"/bin/false\"] (timeout 5000 ms); on failure: continue".to_owned()),
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("DEBUG hook[5] on started: run [\"./nope\\u{202e}\"]")),
        "{lines:#?}"
    );
    assert_eq!(lines.iter().filter(|l| l.starts_with("DEBUG")).count(), 2);
}

/// The default's warn lines: a journal's torn last record, which io drops
/// when it resumes, is logged at the default level; `-q` leaves it out.
#[test]
fn the_default_logs_what_io_reports_nowhere_else_and_q_does_not() {
    let tmp = common::checkout();
    fs::write(
        tmp.path().join("io.local.toml"),
        "[[hook]]\non = [\"tool_call\"]\nrun = [\"/bin/false\"]\non_failure = \"cancel\"\n",
    )
    .expect("config");
    fs::write(
        tmp.path().join("script.toml"),
        "goal = \"g\"\n\n[[turn]]\ncalls = [{ tool = \"read_file\", args = { path = \"io.local.toml\" } }]\n\n[[turn]]\nanswer = \"done\"\n",
    )
    .expect("script");
    let out = run_io(tmp.path(), tmp.path(), &["run", "script.toml"], &[]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let journals: Vec<_> = fs::read_dir(tmp.path().join(".io/runs"))
        .expect("the journals")
        .map(|e| e.expect("an entry").path())
        .collect();
    assert_eq!(journals.len(), 1, "{journals:?}");
    let journal = &journals[0];
    let run_id = journal
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("a run id")
        .to_owned();
    let tear = || {
        let mut file = fs::OpenOptions::new()
            .append(true)
            .open(journal)
            .expect("the journal");
        std::io::Write::write_all(&mut file, b"{\"torn").expect("a torn record");
    };

    tear();
    let out = run_io(
        tmp.path(),
        tmp.path(),
        &["-q", "run", "--resume", &run_id],
        &[],
    );
    assert!(logged(&out).is_empty(), "{}", stderr(&out));

    tear();
    let out = run_io(tmp.path(), tmp.path(), &["run", "--resume", &run_id], &[]);
    let lines = logged(&out);
    assert_eq!(lines.len(), 1, "{}", stderr(&out));
    assert!(
        lines[0].starts_with(" WARN ") && lines[0].contains("dropped a torn last record"),
        "{lines:?}"
    );
}

/// A log line begins with where its hook was written, and the rest is
/// shown as written: a `hook[1]` inside a hook's own program name is the
/// operator's text. Before, io renumbered the engine's `hook[N]` by
/// rewriting the line, and `--hook 2` once turned the program `./hook[1]`
/// into `./hook[2]`, a program the file does not name; now nothing is
/// rewritten.
#[test]
fn a_hook_n_inside_a_message_is_shown_as_written() {
    let tmp = common::checkout();
    let config = "[[hook]]\non = [\"step\"]\nappend = \"a.jsonl\"\n\n\
                  [[hook]]\non = [\"started\"]\nrun = [\"./hook[1]\"]\n";
    fs::write(tmp.path().join("io.local.toml"), config).expect("config");
    fs::write(tmp.path().join("events.jsonl"), STARTED).expect("events");
    let args = ["-v", "replay", "events.jsonl", "--hook", "2"];
    let out = run_io(tmp.path(), tmp.path(), &args, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = logged(&out);
    let spawn = lines
        .iter()
        .find(|l| l.contains("could not spawn"))
        .unwrap_or_else(|| panic!("{lines:#?}"));
    let local = tmp
        .path()
        .canonicalize()
        .expect("root")
        .join("io.local.toml");
    assert!(
        spawn.starts_with(&format!(
            " WARN {}: hook[2] failed on `started`",
            local.display()
        )),
        "{spawn}"
    );
    assert!(spawn.contains("`./hook[1]`"), "{spawn}");
}
