//! The small things an operator reads (issue 21, item 10): `io --help` says
//! where hooks go, the repository ignores `io.local.toml`, the 0600 mode of
//! an `append` log is documented and true, and `io check` says when a
//! profile replaced the file's own hooks.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::run_io;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `io --help` names the two files hooks go in and the one where they are
/// refused. Before, it said hooks go "in io.toml".
#[test]
fn io_help_names_io_local_toml_and_the_user_scope_file() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = run_io(tmp.path(), tmp.path(), &["--help"], &[]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout).replace('\n', " ");
    for words in [
        "Hooks go in ROOT/io.local.toml",
        "$IO_CONFIG_HOME/io.toml, else $XDG_CONFIG_HOME/io/io.toml, else ~/.config/io/io.toml",
        "A project's io.toml arrives with a clone and may not declare any",
    ] {
        assert!(help.contains(words), "`{words}` not in:\n{help}");
    }
    assert!(!help.contains("tables in io.toml"), "{help}");
}

/// The README calls `io.local.toml` gitignored: the repository's own
/// `.gitignore` says so. Before, it listed only `/target`.
#[test]
fn the_repository_ignores_io_local_toml() {
    let ignore = fs::read_to_string(repo().join(".gitignore")).expect(".gitignore");
    assert!(
        ignore.lines().any(|l| l.trim() == "io.local.toml"),
        "{ignore}"
    );
}

/// docs/hooks.md says an `append` log is created 0600 and an existing one
/// keeps its mode, and `io replay` does both. Before, the guide did not
/// say.
#[test]
fn the_0600_mode_of_an_append_log_is_documented_and_true() {
    let guide = fs::read_to_string(repo().join("docs/hooks.md")).expect("docs/hooks.md");
    assert!(guide.contains("**A new log is private: mode 0600.**"));
    assert!(guide.contains("A file\n  that is already there keeps its mode"));

    let tmp = common::checkout();
    fs::write(
        tmp.path().join("io.local.toml"),
        "[[hook]]\nappend = \"new.jsonl\"\n\n[[hook]]\nappend = \"old.jsonl\"\n",
    )
    .expect("config");
    fs::write(tmp.path().join("old.jsonl"), "").expect("old");
    fs::set_permissions(
        tmp.path().join("old.jsonl"),
        fs::Permissions::from_mode(0o640),
    )
    .expect("chmod");
    fs::write(
        tmp.path().join("events.jsonl"),
        "{\"event\":\"started\",\"goal\":\"g\",\"run_id\":\"r\",\"depth\":0}\n",
    )
    .expect("events");
    let out = run_io(tmp.path(), tmp.path(), &["replay", "events.jsonl"], &[]);
    assert_eq!(out.status.code(), Some(0));
    let mode = |name: &str| {
        fs::metadata(tmp.path().join(name))
            .expect(name)
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode("new.jsonl"), 0o600);
    assert_eq!(mode("old.jsonl"), 0o640);
}

/// `io check --profile ci` on a file with hooks of its own and a `ci`
/// profile says the profile replaced them. Before, nothing said the
/// file's two hooks were not in force.
#[test]
fn io_check_says_when_a_profile_replaced_the_files_hooks() {
    let tmp = common::checkout();
    fs::write(
        tmp.path().join("io.local.toml"),
        "[[hook]]\non = [\"step\"]\nappend = \"a.jsonl\"\n\n[[hook]]\non = [\"step\"]\nappend = \"b.jsonl\"\n\n[[profile.ci.hook]]\non = [\"finished\"]\nappend = \"ci.jsonl\"\n",
    )
    .expect("config");
    let out = run_io(tmp.path(), tmp.path(), &["check", "--profile", "ci"], &[]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "\nprofile: ci\nlocal scope: 2 hook(s), replaced by its profile `ci`\n1 hook(s), "
        ),
        "{text}"
    );
    // Without the profile, nothing was replaced.
    let out = run_io(tmp.path(), tmp.path(), &["check"], &[]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("replaced"));
}
