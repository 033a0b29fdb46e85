//! `io` run as an operator runs it: in a temporary directory holding an
//! empty user scope and a discovery root, each run under a watchdog.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use super::output_within;

/// A temp dir holding an empty user scope (`user/`, `IO_CONFIG_HOME`), a
/// data directory (`data/`, `IO_DATA_HOME`: the journal key, the trust
/// store) and a discovery root (`root/`, the working directory) that is an
/// empty git work tree ([`work_tree`](super::work_tree)), as an operator's
/// checkout is: an `io.local.toml` written there is theirs; removed when
/// dropped.
pub(crate) struct IoEnv {
    dir: tempfile::TempDir,
}

impl IoEnv {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("user")).expect("user scope");
        std::fs::create_dir(dir.path().join("root")).expect("root");
        super::work_tree(&dir.path().join("root"));
        IoEnv { dir }
    }

    /// The temp dir that holds the user scope and the root.
    pub(crate) fn dir(&self) -> &std::path::Path {
        self.dir.path()
    }

    /// The user scope (`IO_CONFIG_HOME`), empty unless a test writes to it.
    pub(crate) fn user(&self) -> PathBuf {
        self.dir.path().join("user")
    }

    /// The data directory (`IO_DATA_HOME`): where `io` keeps the key that
    /// seals journals, and where `io trust` records.
    pub(crate) fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The discovery root, where `io` runs.
    pub(crate) fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    /// Writes `bytes` at `rel` in the root with `mode`, making its
    /// directories.
    pub(crate) fn file(&self, rel: &str, bytes: &[u8], mode: u32) -> PathBuf {
        let path = self.root().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("parent");
        }
        std::fs::write(&path, bytes).expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod");
        path
    }

    /// Writes `text` to `rel` under the root; its path.
    pub(crate) fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.root().join(rel);
        std::fs::write(&path, text).expect("write");
        path
    }

    /// `io` with `args`, in the root, with the empty user scope and the
    /// data directory; stdin empty, stdout and stderr piped.
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_io"));
        command
            .args(args)
            .current_dir(self.root())
            .env("IO_CONFIG_HOME", self.user())
            .env("IO_DATA_HOME", self.data())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// Runs [`command`](Self::command) to its end under a watchdog.
    pub(crate) fn io(&self, args: &[&str]) -> Output {
        let child = self.command(args).spawn().expect("io runs");
        output_within(child, Duration::from_secs(120), &format!("io {args:?}"))
    }
}

/// The exit code; a test fails if `io` was killed by a signal.
pub(crate) fn code(out: &Output) -> i32 {
    out.status.code().expect("exited, not signalled")
}

pub(crate) fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub(crate) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The line `io run` and `io replay` begin stderr with when no config file
/// is found: none in `root`, none in the user scope.
pub(crate) fn no_hooks_line(root: &std::path::Path) -> String {
    format!(
        "io: no hooks in force: no config file found (looked for `io.local.toml` and `io.toml` in {}, and the user scope's)\n",
        root.display()
    )
}
