//! A temporary directory to run `io` in, as an operator would: an empty user
//! scope and a discovery root.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use super::output_within;

/// A temp dir holding an empty user scope (`user/`, `IO_CONFIG_HOME`) and a
/// discovery root (`root/`, the working directory).
pub(crate) struct IoEnv {
    dir: tempfile::TempDir,
}

impl IoEnv {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("user")).expect("user scope");
        std::fs::create_dir(dir.path().join("root")).expect("root");
        IoEnv { dir }
    }

    pub(crate) fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    /// Writes `text` to `rel` under the root; its path.
    pub(crate) fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.root().join(rel);
        std::fs::write(&path, text).expect("write");
        path
    }

    /// `io` with `args`, in the root, with the empty user scope; stdin
    /// empty, stdout and stderr piped.
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_io"));
        command
            .args(args)
            .current_dir(self.root())
            .env("IO_CONFIG_HOME", self.dir.path().join("user"))
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
