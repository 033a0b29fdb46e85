//! A real log collector tailing an `append` hook's file, for the
//! `collector` bench group: rsyslog or syslog-ng as `.ci/collectors`
//! unpacks them (into `target/collectors`, or `IO_COLLECTORS_DIR`), run in
//! the foreground with docs/collectors.md's configuration, and killed when
//! dropped.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Which collector tails the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collector {
    /// rsyslog's imfile, in inotify mode: it reads at every append.
    Rsyslog,
    /// syslog-ng's file source, which looks for new lines once a second.
    SyslogNg,
}

impl Collector {
    /// Its program's name.
    pub fn name(self) -> &'static str {
        match self {
            Collector::Rsyslog => "rsyslogd",
            Collector::SyslogNg => "syslog-ng",
        }
    }
}

/// A collector running on one file; killed and reaped when dropped.
#[derive(Debug)]
pub struct Tailing {
    child: Child,
    /// Where it ships the lines it reads.
    pub shipped: PathBuf,
}

/// Where `.ci/collectors` unpacked the collectors.
pub fn collectors_dir() -> PathBuf {
    std::env::var_os("IO_COLLECTORS_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/collectors"),
        PathBuf::from,
    )
}

/// The one directory under `parent` holding `file`.
fn dir_holding(parent: &Path, file: &str) -> Option<PathBuf> {
    std::fs::read_dir(parent)
        .ok()?
        .filter_map(|entry| Some(entry.ok()?.path()))
        .find(|dir| dir.join(file).is_file())
}

/// The fenced block of docs/collectors.md whose first line is `first`.
fn documented(first: &str) -> Option<String> {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/collectors.md");
    let page = std::fs::read_to_string(page).ok()?;
    let start = page.find(&format!("```\n{first}\n"))? + 4;
    let body = &page[start..];
    Some(body[..body.find("\n```")?].to_owned() + "\n")
}

impl Tailing {
    /// Starts `collector` on `file` with the page's configuration, its
    /// state and what it ships in `work`, and waits (10 s at most) until
    /// it has shipped a first line appended by `first`. `None` when the
    /// collector is not unpacked, or does not start or ship.
    pub fn start(
        collector: Collector,
        file: &Path,
        work: &Path,
        mut first: impl FnMut(),
    ) -> Option<Tailing> {
        let dir = collectors_dir();
        let shipped = work.join("shipped.jsonl");
        let swap = |text: String| {
            text.replace("/srv/agent/audit.jsonl", &file.display().to_string())
                .replace("/var/log/io/audit.jsonl", &shipped.display().to_string())
        };
        let mut command = match collector {
            Collector::Rsyslog => {
                let ours = swap(documented("# /etc/rsyslog.d/io-audit.conf")?);
                let conf = work.join("rsyslog.conf");
                let main = format!("global(workDirectory=\"{}\")\n{ours}", work.display());
                std::fs::write(&conf, main).ok()?;
                let modules = dir_holding(&dir.join("usr/lib"), "rsyslog/imfile.so")?;
                let mut command = Command::new(dir.join("usr/sbin/rsyslogd"));
                command.arg("-M").arg(modules.join("rsyslog"));
                command.arg("-n").arg("-f").arg(&conf);
                command.arg("-i").arg(work.join("rsyslogd.pid"));
                command
            }
            Collector::SyslogNg => {
                let ours = swap(documented("# /etc/syslog-ng/conf.d/io-audit.conf")?);
                let conf = work.join("syslog-ng.conf");
                // The major.minor of the unpacked copy, for `@version:`.
                let own = dir.join("usr/lib/syslog-ng");
                let modules = dir_holding(&own, "libaffile.so")?;
                let version = modules.file_name()?.to_string_lossy().into_owned();
                std::fs::write(&conf, format!("@version: {version}\n{ours}")).ok()?;
                let mut command = Command::new(dir.join("usr/sbin/syslog-ng"));
                let mut module_path = OsString::from("--module-path=");
                module_path.push(&modules);
                command.arg(module_path).env("LD_LIBRARY_PATH", &own);
                command.args(["-F", "--no-caps", "-f"]).arg(&conf);
                for (flag, name) in [
                    ("--persist-file", "persist"),
                    ("--pidfile", "syslog-ng.pid"),
                    ("--control", "syslog-ng.ctl"),
                ] {
                    let mut arg = OsString::from(format!("{flag}="));
                    arg.push(work.join(name));
                    command.arg(arg);
                }
                command
            }
        };
        let child = command
            .current_dir(work)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let tailing = Tailing { child, shipped };
        first();
        let deadline = Instant::now() + Duration::from_secs(10);
        while tailing.shipped_bytes() == 0 {
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Some(tailing)
    }

    /// How many bytes it has shipped since the output was last emptied.
    pub fn shipped_bytes(&self) -> u64 {
        std::fs::metadata(&self.shipped).map_or(0, |m| m.len())
    }
}

impl Drop for Tailing {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Rotates `file` as logrotate would: renamed to `file.1` (replacing the
/// last one), the next append creating it again.
pub fn rotate(file: &Path) {
    let mut rotated = file.as_os_str().to_owned();
    rotated.push(".1");
    let _ = std::fs::rename(file, rotated);
}

/// Times `iters` calls of `append`, rotating `file` by rename every
/// [`crate::APPENDS_PER_ROUND`] calls, outside the timed part: as
/// [`crate::timed_appends`], but with the rotation a collector follows
/// (emptying the file in place would be a copytruncate, which it does not).
pub fn timed_rotating(iters: u64, file: &Path, mut append: impl FnMut()) -> Duration {
    let mut total = Duration::ZERO;
    let mut done = 0;
    while done < iters {
        rotate(file);
        let round = (iters - done).min(crate::APPENDS_PER_ROUND);
        let start = Instant::now();
        for _ in 0..round {
            append();
        }
        total += start.elapsed();
        done += round;
    }
    total
}
