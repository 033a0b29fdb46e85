//! `RLIMIT_NPROC` (issue 22): at a process limit the kernel refuses a new
//! thread (`EAGAIN`), and `io` says so instead of panicking, wherever it
//! starts one: the signal thread every command starts, the git check's
//! readers, the `exec` tool's output reader, a `spawn`'s child run.
//!
//! The limit is not enforced for root (`CAP_SYS_RESOURCE`), and these
//! tests run as root in CI's container: there, `io` is started through
//! `prlimit` and then `setpriv` as an unused uid, which has no other
//! process, so the limit counts `io`'s own threads exactly. As another
//! user, `prlimit` alone: that user's other processes already exceed a
//! limit of 1.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;
mod run_support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use common::{io_output, prerequisite};
use run_support::{Env, both, run_id_in, text};

/// Whether `program` is an executable in `/usr/bin` or `/bin`.
fn have(program: &str) -> bool {
    ["/usr/bin", "/bin"]
        .iter()
        .any(|dir| Path::new(dir).join(program).is_file())
}

/// `io args` in `dir` with at most `limit` processes (threads included)
/// for its user; as root, as a uid of its own (one per call, so tests
/// running at once do not share a count). `None` when the tools are
/// missing.
fn io_limited(dir: &Path, limit: u32, args: &[&str]) -> Option<std::process::Output> {
    let root = rustix::process::geteuid().is_root();
    let tools = have("prlimit") && (!root || have("setpriv"));
    if !prerequisite("prlimit (and setpriv, as root) from util-linux", tools) {
        return None;
    }
    let mut command = Command::new("prlimit");
    command.arg(format!("--nproc={limit}")).arg("--");
    // The data directory (the journal key's): one only `io`'s user may
    // write, under directories no one else may write either, as io-trust's
    // rule asks; the workspace, open to all, is no place for it.
    let private = tempfile::tempdir().expect("a temp dir");
    std::fs::set_permissions(private.path(), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let data = private.path().join("data");
    std::fs::create_dir(&data).expect("data");
    if root {
        static CALLS: AtomicU32 = AtomicU32::new(0);
        let call = CALLS.fetch_add(1, Ordering::Relaxed);
        let uid = 40_000 + (std::process::id() * 8 + call) % 20_000;
        let id = rustix::fs::Uid::from_raw(uid);
        let gid = rustix::fs::Gid::from_raw(uid);
        rustix::fs::chown(&data, Some(id), Some(gid)).expect("chown data");
        command.args([
            "setpriv",
            &format!("--reuid={uid}"),
            &format!("--regid={uid}"),
            "--clear-groups",
        ]);
    }
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    // A copy beside the workspace: the uid `io` drops to may not reach the
    // build's own directory (a checkout under a private home).
    // A hard link where it can be made: it opens nothing for writing. A
    // copy's descriptor, open for writing, is inherited by any child another
    // test thread forks meanwhile, until that child execs; executing the copy
    // then fails with ETXTBSY ("Text file busy"), which is retried.
    let io = dir.parent().expect("a parent").join("io");
    if !io.exists() && std::fs::hard_link(env!("CARGO_BIN_EXE_io"), &io).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_io"), &io).expect("copy io");
    }
    command
        .arg(&io)
        .args(args)
        .current_dir(dir)
        .env("IO_CONFIG_HOME", dir.join("user"))
        .env("IO_DATA_HOME", &data)
        .env("HOME", dir);
    let what = format!("io {args:?} under RLIMIT_NPROC={limit}");
    let mut out = io_output(&mut command, Duration::from_secs(60), &what);
    for _ in 0..20 {
        if !text(&out.stderr).contains("Text file busy") {
            break;
        }
        out = io_output(&mut command, Duration::from_secs(60), &what);
    }
    Some(out)
}

/// A workspace another uid may use: `io`, dropped to it, writes there.
fn open_to_all(env: &Env) {
    for dir in [env.dir(), &env.root(), &env.user()] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    }
}

#[test]
fn with_no_thread_to_spare_every_command_says_why_instead_of_panicking() {
    let env = Env::new();
    open_to_all(&env);
    for args in [&["events", "started"][..], &["check"]] {
        let Some(out) = io_limited(&env.root(), 1, args) else {
            return;
        };
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", both(&out));
        assert!(
            stderr.contains("io: cannot start a thread: ")
                && stderr.contains("is the process limit (`ulimit -u`, RLIMIT_NPROC) too low"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn a_run_at_the_limit_reports_the_threads_it_could_not_start_and_ends() {
    // As another user the count includes every process of theirs: no
    // limit leaves exactly the signal thread room.
    if !prerequisite(
        "root, to run io as a uid with no other process",
        rustix::process::geteuid().is_root(),
    ) {
        return;
    }
    let env = Env::new();
    open_to_all(&env);
    let script = env.write(
        "script.toml",
        r#"
goal = "at the limit"
[[turn]]
calls = [
  { tool = "exec", args = { argv = ["true"] } },
  { tool = "spawn", args = { goal = "child" } },
]
answer = "done"

[[child]]
goal = "child"
[[child.turn]]
answer = "ok"
"#,
    );
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    // Room for `io` and its signal thread, and nothing more.
    let Some(out) = io_limited(&env.root(), 2, &["run", "script.toml"]) else {
        return;
    };
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(!text(&out.stderr).contains("panicked"), "{}", both(&out));
    let journal = env.journal_text(&run_id_in(&out));
    for said in [
        "exec true: Resource temporarily unavailable",
        "[spawn failed] no thread for the child run: Resource temporarily unavailable",
    ] {
        assert!(journal.contains(said), "{said}\n{journal}");
    }

    // Whose `io.local.toml` it is is read from the work tree's index by
    // `io` itself: no `git` and no thread to read its answer, so the
    // verdict is reached at the limit too. (As root, `io` runs as another
    // user here, whose the file is not: that is the verdict.)
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"step\"]\nrun = [\"true\"]\n",
    );
    let Some(out) = io_limited(&env.root(), 2, &["check"]) else {
        return;
    };
    let stderr = text(&out.stderr);
    assert!(
        !stderr.contains("Resource temporarily unavailable"),
        "{}",
        both(&out)
    );
    assert!(!stderr.contains("panicked"), "{}", both(&out));
    if rustix::process::geteuid().is_root() {
        // Refused, its hooks not loaded: root's file is not that user's,
        // and the store in a home that user cannot enter cannot be read.
        assert_eq!(out.status.code(), Some(1), "{}", both(&out));
        assert!(stderr.contains("so its hooks are not loaded"), "{stderr}");
    } else {
        assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    }
}
