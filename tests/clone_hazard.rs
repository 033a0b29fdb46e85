//! What a hostile repository can put in the way of loading its config: files
//! that are not files, and a git that is asked whether `io.local.toml` is
//! tracked. Asking must never run anything the repository chose, must not
//! hang, and must answer for the repository at the root, whatever this
//! process's environment says.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use io_harness::{Config, ConfigError};

const HOOKED: &str = "[[hook]]\nappend = \"audit.jsonl\"\n";

/// Runs `Config::discover_with(root, None)` on a thread, giving up after
/// `limit`: `None` when it had not returned by then.
fn discover_within(root: &Path, limit: Duration) -> Option<Result<Config, ConfigError>> {
    let (tx, rx) = mpsc::channel();
    let root = root.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(Config::discover_with(&root, None));
    });
    rx.recv_timeout(limit).ok()
}

// ---- files that are not files ----

#[test]
fn a_fifo_config_file_is_refused_rather_than_waited_on() {
    let root = tempfile::tempdir().unwrap();
    let fifo = root.path().join("io.toml");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: no mkfifo");
        return;
    }
    let got = discover_within(root.path(), Duration::from_secs(5));
    if got.is_none() {
        // Unblock the reader, so the stuck thread ends with the test.
        let _ = fs::OpenOptions::new().write(true).open(&fifo);
    }
    let e = got
        .expect("discover returned within 5 s instead of waiting for a writer")
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: cannot be read: not a regular file (a FIFO, a socket or a device), so it is \
             not read as config",
            fifo.display()
        )
    );
}

#[test]
fn a_symlink_to_a_device_is_refused_rather_than_read_forever() {
    // A repository can commit `io.toml -> /dev/zero` (git tracks symbolic
    // links); reading it would never end and never stop allocating. The
    // harmless `/dev/null` goes first, so that without the refusal the test
    // fails there and never reads `/dev/zero`.
    for device in ["/dev/null", "/dev/zero"] {
        let root = tempfile::tempdir().unwrap();
        let link = root.path().join("io.local.toml");
        std::os::unix::fs::symlink(device, &link).unwrap();
        let e = discover_within(root.path(), Duration::from_secs(5))
            .expect("returned within 5 s")
            .unwrap_err();
        assert!(matches!(e, ConfigError::Read { .. }), "{e}");
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }
}
