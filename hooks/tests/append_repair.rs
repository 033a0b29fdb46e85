//! Issue 22: repairing a log never removes another writer's bytes, and
//! building the hooks changes no file.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use io_hooks::{Flow, Hooks};

use common::{append, assert_child_passed, is_reexec, reexec, started, step};

/// The body of the concurrent writer: reads a path per line on stdin,
/// appends [`WRITER_LINES`] lines of its own to it as fast as it can, one
/// `write` each, then answers `done`.
const WRITER: &str = "a_concurrent_writer";
const WRITER_LINES: usize = 400;

/// Not a test of its own: the concurrent writer, re-executed.
#[test]
fn a_concurrent_writer() {
    if !is_reexec(WRITER) {
        return;
    }
    let mut out = std::io::stdout();
    for path in std::io::stdin().lock().lines() {
        let path = path.unwrap();
        let mut log = fs::OpenOptions::new().append(true).open(&path).unwrap();
        for n in 0..WRITER_LINES {
            log.write_all(format!("{{\"w\":{n}}}\n").as_bytes())
                .unwrap();
            let pause = Instant::now();
            while pause.elapsed() < Duration::from_micros(20) {
                std::hint::spin_loop();
            }
        }
        out.write_all(b"done\n").unwrap();
        out.flush().unwrap();
    }
}

/// 200 tries of an append cut short by a file size limit while another
/// process appends its own lines to the same log: every line the other
/// process wrote is in the log, whole, on a line of its own. Before, the
/// repair read the size, compared the tail and truncated, and cut off a
/// line appended in between (or, finding one, appended a newline after it,
/// gluing it to the fragment).
#[test]
fn a_repair_removes_no_line_of_a_concurrent_writer() {
    const NAME: &str = "a_repair_removes_no_line_of_a_concurrent_writer";
    const TRIES: usize = 200;
    const LIMIT: u64 = 16384;
    if is_reexec(NAME) {
        let dir = std::env::current_dir().unwrap();
        // Started before the limit, which it would inherit.
        let mut writer = Command::new(std::env::current_exe().unwrap())
            .args([WRITER, "--exact", "--nocapture", "--test-threads=1"])
            .env(common::REEXEC, WRITER)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut to_writer = writer.stdin.take().unwrap();
        let mut from_writer = BufReader::new(writer.stdout.take().unwrap());
        common::limit_file_size(LIMIT);

        let event = started(&"g".repeat(4000));
        let line_len = serde_json::to_string(&event).unwrap().len() as u64 + 1;
        let (mut cut, mut after_fragment) = (0, 0);
        for t in 0..TRIES {
            let log = dir.join(format!("log-{t}"));
            // Room for the writer's first lines (a third of them), not for
            // the event: it is cut short while the writer is writing.
            let room = line_len - 300;
            let filler = [vec![b'x'; (LIMIT - room - 1) as usize], b"\n".to_vec()].concat();
            fs::write(&log, &filler).unwrap();
            let hooks = Hooks::new(vec![append(&log, &[], Flow::Continue)], &dir);
            writeln!(to_writer, "{}", log.display()).unwrap();
            let start = Instant::now();
            while fs::metadata(&log).unwrap().len() == filler.len() as u64 {
                assert!(start.elapsed() < Duration::from_secs(10), "the writer");
            }
            let mut short = false;
            let _ = hooks.fire_with(&event, &event, |run| {
                short = run
                    .result
                    .is_err_and(|e| e.to_string().contains(&format!("of {line_len} bytes")));
            });
            // (Past the test harness's own words.)
            let mut done = String::new();
            while !done.ends_with("done\n") {
                done.clear();
                assert_ne!(
                    from_writer.read_line(&mut done).unwrap(),
                    0,
                    "the writer ended"
                );
            }

            let text = fs::read_to_string(&log).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for n in 0..WRITER_LINES {
                let line = format!("{{\"w\":{n}}}");
                assert!(
                    lines.contains(&line.as_str()),
                    "try {t}: {line} lost:\n{text}"
                );
            }
            assert!(text.starts_with(std::str::from_utf8(&filler).unwrap()));
            assert!(text.ends_with('\n'), "try {t}: torn end:\n{text}");
            if short {
                cut += 1;
                let fragment = lines.iter().position(|l| l.starts_with("{\"event\""));
                if fragment.is_some_and(|i| i + 1 < lines.len()) {
                    after_fragment += 1;
                }
            }
        }
        drop(to_writer);
        assert!(writer.wait().unwrap().success());
        eprintln!(
            "{cut} of {TRIES} appends cut short, {after_fragment} with the writer's lines after"
        );
        assert!(after_fragment > 0, "the race was never run");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    assert_child_passed(&reexec(NAME, &[], dir.path()));
}

/// An existing `NOTES.md` without a final newline, named by a hook whose
/// filter never matches: building the hooks, again and again (as each
/// `io replay` does), and firing events it does not want leave it byte for
/// byte. Before, every build added a newline.
#[test]
fn building_the_hooks_changes_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("NOTES.md");
    fs::write(&notes, "# notes\nno final newline").unwrap();
    let modified = fs::metadata(&notes).unwrap().modified().unwrap();
    for _ in 0..3 {
        let hooks = Hooks::new(
            vec![append(&notes, &["finished"], Flow::Continue)],
            dir.path(),
        );
        assert!(hooks.problems().is_empty());
        let _ = hooks.fire_event(&step(1));
    }
    assert_eq!(fs::read(&notes).unwrap(), b"# notes\nno final newline");
    assert_eq!(fs::metadata(&notes).unwrap().modified().unwrap(), modified);
    // A missing file is still created, empty.
    let fresh = dir.path().join("fresh.jsonl");
    let _hooks = Hooks::new(
        vec![append(&fresh, &["finished"], Flow::Continue)],
        dir.path(),
    );
    assert_eq!(fs::read(&fresh).unwrap(), b"");
}
