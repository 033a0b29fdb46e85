//! TEMPORARY: stands in for io-hooks' program resolution and bounded wait
//! until the executor branch lands; replaced at merge.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

pub fn resolve_program(program: &str, root: &Path) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(root.join(program));
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .filter(|d| d.is_absolute())
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    })
}

pub enum Ending {
    Exited(i32),
    Signalled,
    TimedOut(Duration),
}

impl Ending {
    pub fn success(&self) -> bool {
        matches!(self, Ending::Exited(0))
    }
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ending::Exited(c) => write!(f, "exited {c}"),
            Ending::Signalled => write!(f, "killed by a signal"),
            Ending::TimedOut(d) => write!(f, "timed out after {} ms", d.as_millis()),
        }
    }
}

pub fn run_capturing(
    mut command: Command,
    timeout: Duration,
    limit: usize,
) -> std::io::Result<(Ending, Vec<u8>)> {
    use std::os::unix::process::CommandExt;
    command.stdout(Stdio::piped()).process_group(0);
    let mut child = command.spawn()?;
    let pid = child.id();
    let mut stdout = child.stdout.take();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(s) = stdout.as_mut() {
            let _ = s.take(limit as u64).read_to_end(&mut out);
        }
        let _ = tx.send((child.wait(), out));
    });
    match rx.recv_timeout(timeout) {
        Ok((status, out)) => {
            let status = status?;
            Ok((status.code().map_or(Ending::Signalled, Ending::Exited), out))
        }
        Err(_) => {
            let _ = std::process::Command::new("kill")
                .arg("-KILL")
                .arg(format!("-{pid}"))
                .status();
            Ok((Ending::TimedOut(timeout), Vec::new()))
        }
    }
}
