//! What tests/collectors.rs needs besides its scenarios: finding rsyslogd,
//! syslog-ng and logrotate; the configurations docs/collectors.md gives an
//! operator, read from the page; a daemon run in the foreground that is
//! always stopped and reaped; and a reader of what a collector shipped.

use std::ffi::OsString;
use std::fs::File;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use crate::common::{output_within, prerequisite, wait_until};

/// A program and what it needs to start from where it is: the private
/// copy `.ci/collectors` unpacks needs its module directory and, for
/// syslog-ng, its own library directory named.
#[derive(Debug, Clone)]
pub(crate) struct Program {
    path: PathBuf,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
}

impl Program {
    /// The program with its own arguments, ready for more.
    pub(crate) fn command(&self) -> Command {
        let mut command = Command::new(&self.path);
        command.args(&self.args).envs(self.env.iter().cloned());
        command
    }

    /// Runs it with `args` under a watchdog; its exit status and its output
    /// (stdout then stderr).
    pub(crate) fn run(&self, args: &[&std::ffi::OsStr]) -> (ExitStatus, String) {
        let child = self
            .command()
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", self.path.display()));
        let out = output_within(
            child,
            Duration::from_secs(60),
            &self.path.display().to_string(),
        );
        let text = String::from_utf8_lossy(&[out.stdout, out.stderr].concat()).into_owned();
        (out.status, text)
    }
}

/// The three programs, found and able to start.
#[derive(Debug, Clone)]
pub(crate) struct Tools {
    pub(crate) rsyslogd: Program,
    pub(crate) syslog_ng: Program,
    pub(crate) logrotate: Program,
    /// syslog-ng's `major.minor`, for a configuration's `@version:`.
    pub(crate) syslog_ng_version: String,
}

/// Where `.ci/collectors` unpacked the programs: `IO_COLLECTORS_DIR`, else
/// `target/collectors` in the repository.
fn private_dir() -> PathBuf {
    std::env::var_os("IO_COLLECTORS_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("target/collectors"),
        PathBuf::from,
    )
}

/// The one directory under `parent` that holds `file`.
fn dir_holding(parent: &Path, file: &str) -> Option<PathBuf> {
    std::fs::read_dir(parent)
        .ok()?
        .filter_map(|entry| Some(entry.ok()?.path()))
        .find(|dir| dir.join(file).is_file())
}

/// `name` from the private directory, else from `/usr/sbin`, if it is there.
fn program(dir: &Path, name: &str) -> Option<Program> {
    let path = [
        dir.join("usr/sbin").join(name),
        Path::new("/usr/sbin").join(name),
    ]
    .into_iter()
    .find(|p| p.is_file())?;
    let mut program = Program {
        args: Vec::new(),
        env: Vec::new(),
        path,
    };
    if program.path.starts_with(dir) {
        let lib = dir.join("usr/lib");
        match name {
            "rsyslogd" => {
                let modules = dir_holding(&lib, "rsyslog/imfile.so")?.join("rsyslog");
                program.args = vec!["-M".into(), modules.into()];
            }
            "syslog-ng" => {
                let own = lib.join("syslog-ng");
                let modules = dir_holding(&own, "libaffile.so")?;
                program.args = vec![format!("--module-path={}", modules.display()).into()];
                program.env = vec![("LD_LIBRARY_PATH".into(), own.into())];
            }
            _ => {}
        }
    }
    Some(program)
}

/// The three programs, each found and run once to show it starts.
fn find() -> Option<Tools> {
    let dir = private_dir();
    let rsyslogd = program(&dir, "rsyslogd")?;
    let syslog_ng = program(&dir, "syslog-ng")?;
    let logrotate = program(&dir, "logrotate")?;
    let starts = |p: &Program, flag: &str| {
        let (status, text) = p.run(&[flag.as_ref()]);
        status.success().then_some(text)
    };
    starts(&rsyslogd, "-v")?;
    starts(&logrotate, "--version")?;
    let version = starts(&syslog_ng, "--version")?;
    // `Installer-Version: 3.38.1`
    let full = version
        .lines()
        .find_map(|l| l.strip_prefix("Installer-Version:"))?
        .trim();
    let syslog_ng_version = full.split('.').take(2).collect::<Vec<_>>().join(".");
    Some(Tools {
        rsyslogd,
        syslog_ng,
        logrotate,
        syslog_ng_version,
    })
}

/// The collectors, or `None` after saying loudly that the test ran nothing
/// and how to run it (under `CI=true`, a panic instead), as
/// [`prerequisite`] says it. Looked for once per test binary.
pub(crate) fn tools() -> Option<Tools> {
    static FOUND: OnceLock<Option<Tools>> = OnceLock::new();
    let found = FOUND.get_or_init(find).clone();
    let what = format!(
        "rsyslogd, syslog-ng or logrotate (`bash .ci/collectors`, as root, unpacks Debian's into \
         {}; then `cargo test --test collectors`)",
        private_dir().display()
    );
    if prerequisite(&what, found.is_some()) {
        return found;
    }
    None
}

/// The body of the fenced block of docs/collectors.md whose first line is
/// `first`, the comment naming the file an operator puts it in.
pub(crate) fn documented(first: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/collectors.md");
    let page = std::fs::read_to_string(&path).expect("docs/collectors.md");
    let start = page
        .find(&format!("```\n{first}\n"))
        .unwrap_or_else(|| panic!("docs/collectors.md has no block starting `{first}`"));
    let body = &page[start + 4..];
    body[..body.find("\n```").expect("the block ends")].to_owned() + "\n"
}

/// `text` with `from` replaced by `to`, which must occur in it: a test that
/// substituted nothing would be testing another configuration.
pub(crate) fn put(text: &str, from: &str, to: &Path) -> String {
    assert!(text.contains(from), "`{from}` is not in:\n{text}");
    text.replace(from, &to.display().to_string())
}

/// A daemon started in the foreground for one test, its output in a file:
/// stopped (SIGTERM, then SIGKILL) and reaped when dropped, whether the
/// test passed or panicked, and killed by the kernel if the thread that
/// started it ends first (a test binary killed outright).
pub(crate) struct Daemon {
    name: &'static str,
    child: Option<Child>,
    log: PathBuf,
}

impl Daemon {
    /// Starts `command`, its stdout and stderr to `log`.
    pub(crate) fn start(name: &'static str, mut command: Command, log: &Path) -> Daemon {
        let out = File::create(log).expect("the daemon's log");
        command
            .stdin(Stdio::null())
            .stdout(out.try_clone().expect("the log again"))
            .stderr(out);
        // SAFETY: `prctl` is a system call, async-signal-safe; the closure
        // allocates nothing and touches only the child's own state.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("{name} does not start: {e}"));
        Daemon {
            name,
            child: Some(child),
            log: log.to_path_buf(),
        }
    }

    /// What the daemon has printed so far.
    pub(crate) fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Panics, with its output, if the daemon is no longer running.
    pub(crate) fn assert_running(&mut self) {
        let child = self.child.as_mut().expect("not stopped yet");
        if let Ok(Some(status)) = child.try_wait() {
            self.child = None;
            panic!("{} ended ({status}):\n{}", self.name, self.output());
        }
    }

    /// Stops it: SIGTERM, up to 10 s to exit, then SIGKILL; reaped either
    /// way. Its exit status, when it exited of its own accord.
    pub(crate) fn stop(&mut self) -> Option<ExitStatus> {
        let mut child = self.child.take()?;
        let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("a pid");
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        let mut status = None;
        wait_until(Duration::from_secs(10), || {
            status = child.try_wait().ok().flatten();
            status.is_some()
        });
        if status.is_none() {
            let _ = child.kill();
            let _ = child.wait();
        }
        status
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Reads a file a collector writes as it grows: whole lines only, a line
/// still being written kept until its newline arrives.
#[derive(Debug)]
pub(crate) struct Tail {
    path: PathBuf,
    file: Option<File>,
    partial: Vec<u8>,
}

impl Tail {
    /// A reader of `path`, which need not exist yet.
    pub(crate) fn new(path: &Path) -> Tail {
        Tail {
            path: path.to_path_buf(),
            file: None,
            partial: Vec::new(),
        }
    }

    /// How far it has read, and how much of that is a line not yet ended.
    pub(crate) fn position(&mut self) -> (u64, usize) {
        use std::io::Seek;
        let at = self.file.as_mut().and_then(|f| f.stream_position().ok());
        (at.unwrap_or(0), self.partial.len())
    }

    /// Calls `each` on every line completed since the last call, without
    /// its newline.
    pub(crate) fn read(&mut self, mut each: impl FnMut(&[u8])) {
        if self.file.is_none() {
            self.file = File::open(&self.path).ok();
        }
        let Some(file) = self.file.as_mut() else {
            return;
        };
        let mut fresh = Vec::new();
        file.read_to_end(&mut fresh).expect("read what was shipped");
        if fresh.is_empty() {
            return;
        }
        self.partial.extend_from_slice(&fresh);
        let Some(end) = self.partial.iter().rposition(|&b| b == b'\n') else {
            return;
        };
        let rest = self.partial.split_off(end + 1);
        // Without the last newline, every piece is a line, an empty one too.
        for line in self.partial[..end].split(|&b| b == b'\n') {
            each(line);
        }
        self.partial = rest;
    }
}
