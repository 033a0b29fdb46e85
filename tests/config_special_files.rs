//! Round three (issue 22), through the `io` program: a config file that is
//! not a file, or is one of the kernel's, is refused without a read that
//! can block. Each case runs under a watchdog; a regression fails naming
//! what hung, and kills the `io` it left.

mod common;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use common::{io_output, prerequisite};

/// `io check` in `root` (with an empty user scope beside it), which must
/// finish within 10 s.
fn check(root: &Path) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_io"));
    command
        .arg("check")
        .current_dir(root)
        .env("IO_CONFIG_HOME", root.join("no-user-scope"));
    io_output(&mut command, Duration::from_secs(10), "io check")
}

/// `out` refused `file` with `reason`, and printed nothing on stdout.
fn refused(out: &Output, file: &Path, reason: &str) {
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("io: {}: cannot be read: {reason}\n", file.display())
    );
    assert!(out.stdout.is_empty(), "{out:?}");
}

const NOT_REGULAR: &str = "not a regular file (a FIFO, a socket or a device), so it is not read";

#[test]
fn a_fifo_config_is_refused_without_waiting_for_a_writer() {
    let root = tempfile::tempdir().unwrap();
    let fifo = root.path().join("io.local.toml");
    // Should `io` open it and wait for a writer, the watchdog kills it; this
    // releases a reader left stuck all the same.
    let _release = common::fifo(&fifo, true);
    refused(&check(root.path()), &fifo, NOT_REGULAR);
}

#[test]
fn a_link_to_a_character_device_is_refused_without_a_read() {
    // `/dev/null` first: harmless if read, so a regression fails here before
    // it reads `/dev/zero` for ever.
    for device in ["/dev/null", "/dev/zero", "/dev/tty"] {
        if !Path::new(device).exists() {
            continue;
        }
        let root = tempfile::tempdir().unwrap();
        let link = root.path().join("io.local.toml");
        symlink(device, &link).unwrap();
        refused(&check(root.path()), &link, NOT_REGULAR);
    }
}

#[test]
fn a_link_to_a_blocking_proc_file_is_refused_without_a_read() {
    // `/proc/kmsg` is a "regular" file whose read waits for the kernel's
    // next message once its buffer is drained (and drains it: reading it
    // takes the messages from whoever else reads them). Before, `io` read
    // it, and hung. `/proc/self/environ` holds the environment's secrets.
    let kmsg = Path::new("/proc/kmsg");
    if !prerequisite("/proc/kmsg", kmsg.exists()) {
        return;
    }
    for target in ["/proc/kmsg", "/proc/self/environ", "/proc/self/pagemap"] {
        let root = tempfile::tempdir().unwrap();
        let link = root.path().join("io.local.toml");
        symlink(target, &link).unwrap();
        refused(
            &check(root.path()),
            &link,
            "a file of the kernel's proc file system (as under /proc or /sys), whose reads \
             can block or hold secrets, so it is not read",
        );
    }
}

#[test]
fn a_sysfs_file_is_refused_too() {
    let target = Path::new("/sys/kernel/mm/transparent_hugepage/enabled");
    let target = if target.exists() {
        target
    } else {
        Path::new("/sys/power/state")
    };
    if !prerequisite("a file under /sys", target.exists()) {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let link = root.path().join("io.toml");
    symlink(target, &link).unwrap();
    refused(
        &check(root.path()),
        &link,
        "a file of the kernel's sysfs file system (as under /proc or /sys), whose reads can \
         block or hold secrets, so it is not read",
    );
}

#[test]
fn a_directory_named_as_the_config_is_named_by_the_read() {
    // The one non-file let through to the read, which names it.
    let root = tempfile::tempdir().unwrap();
    fs::create_dir(root.path().join("io.toml")).unwrap();
    let out = check(root.path());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot be read: Is a directory"),
        "{out:?}"
    );
}
