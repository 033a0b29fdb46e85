//! `io check --json` always prints one JSON object (issue 45, deliverable
//! 5): on a config error too, `{"ok": false, "error", "file", "key",
//! "line", "column", "message", …}`, with the exit code and the stderr
//! paragraph as without `--json`; and a root whose name is not UTF-8 is
//! written, never a panic (it was exit 101). Before, a config error left
//! stdout empty, so `io check --json | jq …` read nothing and exited 0.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use common::{IoEnv, output_within};

/// `io args…` in `cwd`, with every directory it could write to under
/// `env`'s temp dir.
fn io_in(env: &IoEnv, cwd: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_io"));
    command
        .args(args)
        .current_dir(cwd)
        .env("IO_CONFIG_HOME", env.user())
        .env("IO_DATA_HOME", env.dir().join("data"))
        .env("HOME", env.dir())
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = command.spawn().expect("io runs");
    output_within(child, Duration::from_secs(120), &format!("io {args:?}"))
}

/// The one JSON object `out` printed on stdout (exactly one line).
fn the_object(out: &Output) -> Value {
    let text = String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8");
    assert_eq!(text.lines().count(), 1, "one line: {text}");
    serde_json::from_str(&text).expect("one JSON object")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// One config error `io check --json` is asked about: the files written
/// in the root, the arguments, and what the object says.
struct Case {
    files: &'static [(&'static str, &'static [u8])],
    args: &'static [&'static str],
    error: &'static str,
    /// The file, under the root.
    file: Option<&'static str>,
    key: Option<&'static str>,
    position: Option<(u64, u64)>,
}

const CASES: &[Case] = &[
    Case {
        files: &[("io.local.toml", b"[[hook]]\non = [\n")],
        args: &[],
        error: "syntax",
        file: Some("io.local.toml"),
        key: None,
        position: Some((2, 7)),
    },
    Case {
        files: &[("io.local.toml", b"[[hook]]\nappend = \"a\"\nbogus = 1\n")],
        args: &[],
        error: "hook_table",
        file: Some("io.local.toml"),
        key: Some("hook[1].bogus"),
        position: Some((3, 1)),
    },
    Case {
        files: &[(
            "io.local.toml",
            b"[[hook]]\non = [\"nope\"]\nappend = \"a\"\n",
        )],
        args: &[],
        error: "hook_table",
        file: Some("io.local.toml"),
        key: Some("hook[1].on"),
        position: Some((2, 7)),
    },
    Case {
        files: &[("io.toml", b"[[hook]]\nappend = \"a\"\n")],
        args: &[],
        error: "project_hooks",
        file: Some("io.toml"),
        key: Some("hook"),
        position: None,
    },
    Case {
        files: &[("io.local.toml", b"a = 1\n\xff\n")],
        args: &[],
        error: "not_utf8",
        file: Some("io.local.toml"),
        key: None,
        position: Some((2, 1)),
    },
    Case {
        files: &[("io.local.toml", b"a = 1\nb\x00\n")],
        args: &[],
        error: "nul",
        file: Some("io.local.toml"),
        key: None,
        position: Some((2, 2)),
    },
    Case {
        files: &[],
        args: &["--profile", "ci"],
        error: "unknown_profile",
        file: None,
        key: None,
        position: None,
    },
    Case {
        files: &[],
        args: &["--event", "nope"],
        error: "unknown_event",
        file: None,
        key: None,
        position: None,
    },
];

/// Checks that `out` is a config error `case` describes, its object's
/// message the first line of stderr's paragraph, found at `root`.
fn assert_case(case: &Case, out: &Output, root: &Path) {
    let what = format!("{:?} {:?}", case.files.first().map(|f| f.0), case.args);
    assert_eq!(out.status.code(), Some(1), "{what}: {}", stderr(out));
    let object = the_object(out);
    let first = stderr(out)
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("io: "))
        .expect("a paragraph on stderr")
        .to_owned();
    let file = case
        .file
        .map(|rel| root.join(rel).to_str().expect("a UTF-8 root").to_owned());
    let (line, column) = case.position.unzip();
    assert_eq!(
        object,
        json!({
            "root": root.to_str(),
            "root_why": object["root_why"].clone(),
            "profile": case.args.iter().position(|a| *a == "--profile").map(|i| case.args[i + 1]),
            "error": case.error,
            "file": file,
            "key": case.key,
            "line": line,
            "column": column,
            "message": first,
            "ok": false,
        }),
        "{what}"
    );
    assert!(object["root_why"].is_string(), "{what}: {object}");
}

#[test]
fn each_kind_of_config_error_is_one_object_with_ok_false_and_the_same_exit_code() {
    for case in CASES {
        let env = IoEnv::new();
        for (rel, bytes) in case.files {
            env.file(rel, bytes, 0o644);
        }
        let root = env.root().canonicalize().expect("root");
        let out = io_in(&env, &root, &[&["check", "--json"][..], case.args].concat());
        assert_case(case, &out, &root);
        // Without --json: the same exit code and paragraph, nothing on
        // stdout.
        let text = io_in(&env, &root, &[&["check"][..], case.args].concat());
        assert_eq!(text.status.code(), Some(1));
        assert_eq!(stderr(&text), stderr(&out));
        assert!(text.stdout.is_empty());
    }
}

#[test]
fn a_root_that_cannot_be_used_or_a_file_that_cannot_be_read_is_one_object_too() {
    let env = IoEnv::new();
    let missing = env.dir().join("missing");
    let missing_arg = missing.to_str().expect("UTF-8");
    let out = io_in(
        &env,
        &env.root(),
        &["check", "--json", "--root", missing_arg],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let object = the_object(&out);
    assert_eq!(object["ok"], false);
    assert_eq!(object["error"], "root");
    assert_eq!(object["root"], missing_arg);
    assert_eq!(object["root_why"], "given with --root");
    assert_eq!(object["file"], Value::Null);

    // A config file that is a link to nothing: a missing file.
    let root = env.root().canonicalize().expect("root");
    std::os::unix::fs::symlink(env.dir().join("nothing"), root.join("io.local.toml"))
        .expect("link");
    let out = io_in(&env, &root, &["check", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let object = the_object(&out);
    assert_eq!(object["error"], "read");
    assert_eq!(
        object["file"],
        root.join("io.local.toml").to_str().expect("UTF-8")
    );
    assert!(
        stderr(&out).starts_with(&format!(
            "io: {}",
            object["message"].as_str().expect("text")
        )),
        "{}",
        stderr(&out)
    );
}

/// A directory named with the byte 0xff (not UTF-8) in `env`'s temp dir.
fn not_utf8_dir(env: &IoEnv) -> PathBuf {
    let dir = env.dir().join(OsStr::from_bytes(b"r\xff"));
    std::fs::create_dir(&dir).expect("a directory named with 0xff");
    dir
}

#[test]
fn a_root_whose_name_is_not_utf8_is_written_as_its_display_and_never_panics() {
    let env = IoEnv::new();
    let root = not_utf8_dir(&env);
    // The operator's checkout, in which `io.local.toml` is untracked.
    common::work_tree(&root);
    let shown = root.to_string_lossy().into_owned();
    assert!(shown.ends_with("r\u{fffd}"), "{shown}");
    // No file: exit 0, as anywhere else.
    let out = io_in(&env, &root, &["check", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let object = the_object(&out);
    assert_eq!(object["root"], shown.as_str());
    assert_eq!(object["looked_at"][2], format!("{shown}/io.local.toml"));
    assert_eq!(object["ok"], true);
    // A hook, and --event: exit 0, its file written the same way.
    std::fs::write(
        root.join("io.local.toml"),
        "[[hook]]\nappend = \"a.jsonl\"\n",
    )
    .expect("config");
    let out = io_in(&env, &root, &["check", "--json", "--event", "step"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let object = the_object(&out);
    assert_eq!(object["files"][0]["path"], format!("{shown}/io.local.toml"));
    assert_eq!(object["event"]["fires"], json!([1]));
    // --root given so, from elsewhere: the same.
    let mut command = Command::new(env!("CARGO_BIN_EXE_io"));
    command
        .args([
            "check".as_ref(),
            "--json".as_ref(),
            "--root".as_ref(),
            root.as_os_str(),
        ])
        .current_dir(env.dir())
        .env("IO_CONFIG_HOME", env.user())
        .env("IO_DATA_HOME", env.dir().join("data"))
        .env("HOME", env.dir())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = command.spawn().expect("io runs");
    let out = output_within(child, Duration::from_secs(120), "io check --root r\\xff");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let object = the_object(&out);
    assert_eq!(object["root"], shown.as_str());
    assert_eq!(object["root_why"], "given with --root");
    // A config error there: exit 1, one object.
    std::fs::write(root.join("io.local.toml"), "[[hook]]\non = [\n").expect("config");
    let out = io_in(&env, &root, &["check", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let object = the_object(&out);
    assert_eq!(object["error"], "syntax");
    assert_eq!(object["file"], format!("{shown}/io.local.toml"));
}

/// The failure object's `error`, `file` and `key`, its `ok`, and its
/// message the first line of stderr's paragraph.
fn assert_failure(out: &Output, error: &str, file: Option<&Path>, key: Option<&str>) -> Value {
    assert_eq!(out.status.code(), Some(1), "{error}: {}", stderr(out));
    let object = the_object(out);
    assert_eq!(object["ok"], false, "{object}");
    assert_eq!(object["error"], error, "{object}");
    assert_eq!(
        object["file"].as_str(),
        file.and_then(Path::to_str),
        "{object}"
    );
    assert_eq!(object["key"].as_str(), key, "{object}");
    let first = stderr(out).lines().next().map(str::to_owned);
    assert_eq!(
        first.as_deref().and_then(|l| l.strip_prefix("io: ")),
        object["message"].as_str(),
        "{object}"
    );
    object
}

#[test]
fn a_file_not_shown_yours_a_trust_store_unread_and_a_displaced_root_are_one_object_each() {
    let env = IoEnv::new();
    let hooks = b"[[hook]]\nappend = \"a.jsonl\"\n";
    // An archive (no work tree at or above it): its io.local.toml is not
    // shown to be the operator's, and was not trusted.
    let archive = env.dir().join("archive");
    std::fs::create_dir(&archive).expect("archive");
    let archive = archive.canonicalize().expect("archive");
    let local = archive.join("io.local.toml");
    std::fs::write(&local, hooks).expect("io.local.toml");
    let out = io_in(&env, &archive, &["check", "--json"]);
    let object = assert_failure(&out, "untrusted", Some(&local), Some("hook"));
    assert_eq!(object["root"].as_str(), archive.to_str());
    // The same, with a trust store that cannot be read (a directory where
    // the file would be): whether it was trusted cannot be told.
    std::fs::create_dir_all(env.data().join("trusted-files")).expect("a directory");
    let out = io_in(&env, &archive, &["check", "--json"]);
    assert_failure(&out, "trust_store", Some(&local), Some("hook"));
    // A committed, empty src/io.toml below the operator's hooks.
    env.file("io.local.toml", hooks, 0o644);
    env.file("src/io.toml", b"", 0o644);
    let src = env.root().canonicalize().expect("root").join("src");
    let out = io_in(&env, &src, &["check", "--json"]);
    let object = assert_failure(&out, "displaced_root", None, None);
    assert_eq!(object["root"].as_str(), src.to_str());
}
