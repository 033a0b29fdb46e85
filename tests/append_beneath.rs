//! Issue 22, through `io`: a user-scope `append = "logs/audit.jsonl"` in a
//! clone that commits `logs -> ~/.bashrc.d` is a problem `io check` names,
//! and `io replay` writes nothing through the link. Before, `io check` said
//! ok and the event landed in the directory the link named.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::os::unix::fs::symlink;

use common::run_io;

#[test]
fn io_check_names_an_append_through_a_link_out_of_the_root_and_replay_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, user, outside) = (
        tmp.path().join("clone"),
        tmp.path().join("user"),
        tmp.path().join("bashrc.d"),
    );
    for dir in [&root, &user, &outside] {
        fs::create_dir(dir).unwrap();
    }
    fs::write(
        user.join("io.toml"),
        "[[hook]]\nappend = \"logs/audit.jsonl\"\n",
    )
    .unwrap();
    symlink(&outside, root.join("logs")).unwrap();
    fs::write(
        root.join("events.jsonl"),
        "{\"event\":\"started\",\"goal\":\"$(touch pwned)\",\"run_id\":\"r\",\"depth\":0}\n",
    )
    .unwrap();
    let io = |args: &[&str]| run_io(&root, &user, args, &[]);

    let out = io(&["check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let problem = format!(
        "    problem: append: `{}` leads out of the hooks' root through the symbolic link `logs`\n",
        root.join("logs/audit.jsonl").display()
    );
    assert!(stdout.contains(&problem), "{stdout}");
    assert!(
        stdout.ends_with("FAILED: 1 hook(s) cannot work as written\n"),
        "{stdout}"
    );

    let _ = io(&["replay", "events.jsonl"]);
    assert_eq!(
        fs::read_dir(&outside).unwrap().count(),
        0,
        "nothing outside"
    );
}
