//! `io demo`: the spec's four hooks on a real run, in a fresh temporary
//! workspace, so it works from any directory and leaves the repo untouched.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use io_harness::run::RunOutcome;
use io_hooks::text::OsMessage;

use super::run::{Start, run_in};
use super::{CmdResult, check, load, out};

/// The demo, embedded so the binary carries it: (path, contents, executable).
const FILES: &[(&str, &str, bool)] = &[
    (
        "workspace/Cargo.toml",
        include_str!("../../examples/demo/workspace/Cargo.toml"),
        false,
    ),
    (
        "workspace/src/lib.rs",
        include_str!("../../examples/demo/workspace/src/lib.rs"),
        false,
    ),
    (
        "workspace/io.local.toml",
        include_str!("../../examples/demo/workspace/io.local.toml"),
        false,
    ),
    (
        "workspace/scripts/notify",
        include_str!("../../examples/demo/workspace/scripts/notify"),
        true,
    ),
    (
        "workspace/scripts/check-tool-call",
        include_str!("../../examples/demo/workspace/scripts/check-tool-call"),
        true,
    ),
    (
        "script.toml",
        include_str!("../../examples/demo/script.toml"),
        false,
    ),
];

pub(crate) fn demo(dir: Option<&Path>) -> CmdResult {
    let base = match dir {
        Some(dir) => dir.to_path_buf(),
        None => fresh_dir()?,
    };
    lay_out(&base)?;
    let root = base.join("workspace");
    let script = base.join("script.toml");
    out(&format!(
        "== io demo in {}\n== the config (io check):\n",
        base.display()
    ))?;
    check::check(Some(&root), None, None)?;
    super::log_to_stderr(super::Verbosity::default());

    out("\n== io run script.toml: the policy check will stop it\n")?;
    let config = load(Some(&root), None)?;
    let first = run_in(&config, Start::Script(&script), false)?;
    let mut last = first.clone();
    if let RunOutcome::Cancelled { .. } = first.outcome {
        out(&format!("\n== io run --resume {}\n", first.run_id))?;
        last = run_in(&config, Start::Resume(&first.run_id), false)?;
    }

    out("\n== what the hooks left behind\n")?;
    let audit = fs::read_to_string(root.join("audit.jsonl")).unwrap_or_default();
    out(&format!(
        "audit.jsonl: {} lines; the last:\n  {}\n",
        audit.lines().count(),
        audit.lines().last().unwrap_or("")
    ))?;
    let notes = fs::read_to_string(root.join("notifications.log")).unwrap_or_default();
    out("notifications.log (the notify hook's stdin):\n")?;
    for line in notes.lines() {
        out(&format!("  {line}\n"))?;
    }
    let greet = fs::read_to_string(root.join("src/greet.rs")).unwrap_or_default();
    out(&format!("src/greet.rs after the formatter hook:\n{greet}"))?;
    Ok(if matches!(last.outcome, RunOutcome::Completed { .. }) {
        ExitCode::SUCCESS
    } else {
        super::run::exit_code(&last)
    })
}

/// A new directory under the system's temporary directory.
fn fresh_dir() -> Result<PathBuf, String> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("io-demo-{}-{stamp}", std::process::id()));
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {}", dir.display(), OsMessage(&e)))?;
    Ok(dir)
}

fn lay_out(base: &Path) -> Result<(), String> {
    for (rel, text, executable) in FILES {
        let path = base.join(rel);
        let fail = |e: std::io::Error| format!("{}: {}", path.display(), OsMessage(&e));
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(fail)?;
        }
        fs::write(&path, text).map_err(fail)?;
        if *executable {
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).map_err(fail)?;
        }
    }
    Ok(())
}
