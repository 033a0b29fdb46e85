//! Nothing blocks on a special file (issue 22), the run loop's half: a
//! FIFO committed in the workspace is refused by `read_file`, `write_file`
//! and `edit_file` without a read or write that can wait, and the run goes
//! on.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;
mod run_support;

use common::io_env::no_hooks_line;
use common::mkfifo;
use run_support::{Env, both, run_id_in, text};

/// `io run` of a script whose text is `script`, held by `Env::io`'s
/// watchdog (an open that blocks fails the test there rather than hanging
/// it); it must complete (exit 0). Its journal's text.
fn completed_run(env: &Env, script: &str) -> String {
    let script = env.write("script.toml", script);
    let out = env.io(&["run", script.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    env.journal_text(&run_id_in(&out))
}

/// The script's last call, after the special file's, wrote `after.txt`.
fn went_on(env: &Env) {
    assert_eq!(
        std::fs::read_to_string(env.root().join("after.txt")).expect("after"),
        "went on"
    );
}

#[test]
fn the_file_tools_refuse_a_fifo_without_blocking_and_the_run_goes_on() {
    let env = Env::new();
    // A FIFO nobody writes (a read would wait for ever) and nobody reads
    // (a write-only open would too).
    mkfifo(&env.root().join("pipe"));
    let journal = completed_run(
        &env,
        r#"
goal = "touch the pipe"
[[turn]]
calls = [
  { tool = "read_file", args = { path = "pipe" } },
  { tool = "write_file", args = { path = "pipe", content = "x" } },
  { tool = "edit_file", args = { path = "pipe", old = "a", new = "b" } },
  { tool = "write_file", args = { path = "after.txt", content = "went on" } },
]
answer = "done"
"#,
    );
    went_on(&env);
    for said in [
        "read pipe: refused: `pipe` is a FIFO, not a regular file",
        "write pipe: refused: `pipe` is a FIFO, not a regular file",
        "edit pipe: refused: `pipe` is a FIFO, not a regular file",
    ] {
        assert!(journal.contains(said), "{said}\n{journal}");
    }
}

/// A FIFO where a directory should be (`pipe/x.txt`): each directory on
/// the way is opened as one (`O_DIRECTORY`), so the open fails at once with
/// "not a directory" instead of waiting for a writer that never comes.
#[test]
fn a_fifo_in_the_middle_of_a_path_is_refused_without_blocking() {
    let env = Env::new();
    mkfifo(&env.root().join("pipe"));
    let journal = completed_run(
        &env,
        r#"
goal = "read through the pipe"
[[turn]]
calls = [
  { tool = "read_file", args = { path = "pipe/x.txt" } },
  { tool = "write_file", args = { path = "after.txt", content = "went on" } },
]
answer = "done"
"#,
    );
    went_on(&env);
    assert!(
        journal.contains("[read_file failed] read pipe/x.txt: ")
            && journal.contains("Not a directory"),
        "{journal}"
    );
}

#[test]
fn a_fifo_with_a_reader_is_refused_too_and_gets_no_byte() {
    let env = Env::new();
    let fifo = env.root().join("pipe");
    mkfifo(&fifo);
    // A reader holding the FIFO open: the write-only open then succeeds,
    // and the file type is what refuses it.
    let reader = rustix::fs::open(
        &fifo,
        rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::NONBLOCK,
        rustix::fs::Mode::empty(),
    )
    .expect("open the FIFO for reading");
    let journal = completed_run(
        &env,
        r#"
goal = "write the pipe"
[[turn]]
calls = [{ tool = "write_file", args = { path = "pipe", content = "secret" } }]
answer = "done"
"#,
    );
    assert!(
        journal.contains("write pipe: refused: `pipe` is a FIFO, not a regular file"),
        "{journal}"
    );
    // Nothing buffered: end of file (no writer left) or `EAGAIN`, never
    // a byte.
    let mut buf = [0u8; 16];
    let read = rustix::io::read(&reader, &mut buf);
    assert!(
        matches!(read, Ok(0) | Err(rustix::io::Errno::AGAIN)),
        "no byte was written to the FIFO: {read:?}"
    );
}

#[test]
fn a_journal_that_is_a_fifo_is_refused_without_blocking() {
    let env = Env::new();
    std::fs::create_dir_all(env.root().join(".io/runs")).expect(".io/runs");
    let journal = env.journal_path("r-fifo");
    mkfifo(&journal);
    let out = env.io(&["run", "--resume", "r-fifo"]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{}: refused: the journal is a FIFO, not a regular file",
            journal.display()
        )),
        "{stderr}"
    );
}

/// The script `io run` is named is read as a config file is: a FIFO is
/// refused without waiting for a writer (it waited for ever), and a script
/// that is a symbolic link out of its directory (a clone's `script.toml ->
/// ~/.netrc`) shows nothing of what it leads to when it does not load
/// (toml's message printed the line, password and all).
#[test]
fn a_script_that_is_a_fifo_or_a_link_out_is_refused_showing_nothing() {
    let env = Env::new();
    let script = env.root().join("script.toml");
    mkfifo(&script);
    let out = env.io(&["run", "script.toml"]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    assert_eq!(
        text(&out.stderr),
        format!(
            "{}io: {}: not a regular file (a FIFO, a socket or a device), so it is not read\n",
            no_hooks_line(&env.root()),
            script.display()
        )
    );

    std::fs::remove_file(&script).expect("rm");
    let netrc = "machine example.com login me password FAKE_PW_c0ffee\n";
    std::fs::write(env.outside().join("netrc"), netrc).expect("netrc");
    std::os::unix::fs::symlink(env.outside().join("netrc"), &script).expect("link");
    let out = env.io(&["run", "script.toml"]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    assert!(!both(&out).contains("FAKE_PW"), "{}", both(&out));
    assert_eq!(
        text(&out.stderr),
        format!(
            "{}io: {}: a symbolic link leading out of its directory, and not a script that \
             loads; none of it is shown\n",
            no_hooks_line(&env.root()),
            script.display()
        )
    );
    // The same text where it was named is the operator's own: shown.
    std::fs::remove_file(&script).expect("rm");
    std::fs::write(&script, netrc).expect("in place");
    let out = env.io(&["run", "script.toml"]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    assert!(text(&out.stderr).contains("FAKE_PW"), "{}", both(&out));
}
