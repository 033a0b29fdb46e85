//! What the Windows ports of issue 47 rely on, run under wine by
//! `.ci/windows` (`x86_64-pc-windows-gnu`) and type-checked for
//! `x86_64-pc-windows-msvc`. That this binary starts at all shows the
//! `bcryptprimitives.dll` shim is found: std imports `ProcessPrng` from it.

use std::collections::HashMap;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn this_is_a_windows_build() {
    assert_eq!(std::env::consts::OS, "windows");
}

#[test]
fn a_hash_map_gets_its_random_keys() {
    // `RandomState` asks `ProcessPrng`, that is, the shim under wine 8.0.
    let mut seen = HashMap::new();
    seen.insert("event", 1);
    assert_eq!(seen.get("event"), Some(&1));
}

#[test]
fn a_child_reads_its_stdin_to_the_end_and_its_exit_code_is_seen() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wine-smoke"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the child starts");
    let mut stdin = child.stdin.take().expect("a stdin pipe");
    stdin
        .write_all(b"{\"event\":\"run_started\"}\n")
        .expect("the line is written");
    drop(stdin); // end of file: the child's read ends here
    let output = child.wait_with_output().expect("the child is waited on");
    assert_eq!(output.status.code(), Some(3));
    assert_eq!(output.stdout, b"{\"event\":\"run_started\"}\n");
}

#[test]
fn a_file_opened_to_append_keeps_both_writes() {
    let dir = std::env::temp_dir().join(format!("wine-smoke-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("the temporary directory is made");
    let path = dir.join("log.jsonl");
    for line in ["first\n", "second\n"] {
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .expect("the file opens to append");
        file.write_all(line.as_bytes())
            .expect("the line is appended");
    }
    let written = fs::read_to_string(&path).expect("the file reads back");
    fs::remove_dir_all(&dir).expect("the temporary directory is removed");
    assert_eq!(written, "first\nsecond\n");
}
