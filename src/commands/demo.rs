//! `io demo`: the spec's four hooks on a real run, in a fresh temporary
//! workspace, so it works from any directory and leaves the repo untouched.

use std::fs;
use std::io::Write;
#[cfg(unix)]
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use io_harness::run::RunOutcome;
use io_hooks::text::os_error;

use super::check;
use super::run::{Start, run_in};
use crate::cli::exit::CmdResult;
use crate::cli::load::load;
use crate::cli::log::{Verbosity, log_to_stderr};
use crate::cli::output::{err, out, safe};
use crate::cli::selection::Selection;

/// The spec's four hooks on a real run, in a fresh temporary workspace:
/// an audit log, a notification, a formatter and a policy check that
/// stops the run, which is then resumed.
#[derive(clap::Args)]
#[command(after_help = "Example:\n  io demo")]
pub(crate) struct Args {
    /// Lay the demo out here, and keep it, instead of in a new temporary
    /// directory removed at the end. Refused if DIR is a symbolic link
    /// or already holds `workspace` or `script.toml`: nothing is
    /// overwritten.
    #[arg(long)]
    dir: Option<PathBuf>,
}

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
    // The workspace is a fresh git checkout, as `git init` leaves one, in
    // which `io.local.toml` is untracked: the operator's by evidence, with
    // no `io trust` (docs/decisions.md, "Whose file is this").
    ("workspace/.git/HEAD", "ref: refs/heads/main\n", false),
];

/// Runs `io demo`.
///
/// Returns the exit code of the demo's last run; an error when its
/// directory cannot be made, is refused, or a run cannot start.
pub(crate) fn exec(args: &Args) -> CmdResult {
    let (base, temporary) = match args.dir.as_deref() {
        Some(dir) => (dir.to_path_buf(), false),
        None => (fresh_dir()?, true),
    };
    let shown = run_demo(&base, !temporary);
    if temporary {
        // Removed however the run ended, so demos do not pile up in the
        // temporary directory; `--dir` keeps them.
        #[allow(
            clippy::disallowed_methods,
            reason = "the fresh directory `fresh_dir` made under the system's temporary one, \
                      never a `--dir`"
        )]
        let removed = fs::remove_dir_all(&base);
        if let Err(e) = removed {
            err(&safe(&format!(
                "io: could not remove the demo's directory {}: {}\n",
                base.display(),
                os_error(&e)
            )));
        } else if shown.is_ok() {
            out(&safe(&format!(
                "\n== removed {}; `io demo --dir DIR` keeps the files\n",
                base.display()
            )))?;
        }
    }
    shown
}

/// Lays the demo out in `base` (`given`: a `--dir`, which may exist) and
/// runs it there.
fn run_demo(base: &Path, given: bool) -> CmdResult {
    if given {
        refuse_unsafe(base)?;
    }
    lay_out(base)?;
    let root = base.join("workspace");
    let script = base.join("script.toml");
    out(&safe(&format!(
        "== io demo in {}\n== the config (io check):\n",
        base.display()
    )))?;
    check::exec(&check::Args {
        root: Some(root.clone()),
        profile: None,
        event: None,
        json: false,
    })?;
    let config = load(Some(&root), None)?;
    log_to_stderr(
        Verbosity::default(),
        &config,
        &Selection::all(config.hook_specs()),
    );

    out("\n== io run script.toml: the policy check will stop it\n")?;
    let first = run_in(&config, Start::Script(&script), false)?;
    let mut last = first.clone();
    if let RunOutcome::Cancelled { .. } = first.outcome
        && super::run::stopped_exit_code().is_none()
    {
        out(&format!("\n== io run --resume {}\n", first.run_id))?;
        last = run_in(&config, Start::Resume(&first.run_id), false)?;
    }
    // A signal stopped the run: its line, which says how to resume it, is
    // the last.
    if let Some(code) = super::run::stopped_exit_code() {
        return Ok(code);
    }

    out("\n== what the hooks left behind\n")?;
    let audit = own_file(&root, "audit.jsonl");
    let mut text = format!(
        "audit.jsonl: {} lines; the last:\n  {}\n",
        audit.lines().count(),
        audit.lines().last().unwrap_or("")
    );
    let notes = own_file(&root, "notifications.log");
    text.push_str("notifications.log (the notify hook's stdin):\n");
    for line in notes.lines() {
        text.push_str(&format!("  {line}\n"));
    }
    let greet = own_file(&root, "src/greet.rs");
    text.push_str(&format!("src/greet.rs after the formatter hook:\n{greet}"));
    // What the run and its hooks wrote is printed as any outside text is.
    out(&safe(&text))?;
    Ok(if matches!(last.outcome, RunOutcome::Completed { .. }) {
        ExitCode::SUCCESS
    } else {
        super::run::exit_code(&last)
    })
}

/// A new directory under the system's temporary directory, made by this
/// call (never one that was there).
fn fresh_dir() -> Result<PathBuf, String> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("io-demo-{}-{stamp}", std::process::id()));
    #[allow(
        clippy::disallowed_methods,
        reason = "a new directory under the system's temporary one, made by this call: \
                  `create_dir` fails on anything already there; 0700 whatever the umask"
    )]
    fs::create_dir(&dir)
        .and_then(|()| set_mode(&dir, 0o700))
        .map_err(|e| format!("{}: {}", dir.display(), os_error(&e)))?;
    Ok(dir)
}

/// The text of `rel` beneath the demo's workspace `root`, or nothing when
/// it cannot be read: a file the demo's own run and hooks wrote.
#[allow(
    clippy::disallowed_methods,
    reason = "the demo's own directory (a fresh one under the system's temporary one, or the \
              operator's `--dir`), laid out anew by `lay_out` and run on by the demo's own \
              script: no clone's and no model's path"
)]
fn own_file(root: &Path, rel: &str) -> String {
    fs::read_to_string(root.join(rel)).unwrap_or_default()
}

/// The top-level names the demo writes in its directory: everything it
/// lays out or runs is beneath one of them.
const TOP: [&str; 2] = ["workspace", "script.toml"];

/// Refuses a `--dir` that is a symbolic link, is not a directory, or holds
/// anything the demo would write (which it would overwrite, or write
/// through when it is a link), naming each.
fn refuse_unsafe(base: &Path) -> Result<(), String> {
    match fs::symlink_metadata(base) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(format!(
                "--dir {}: is a symbolic link, and io demo never writes through one: give the directory it leads to, or a new path",
                base.display()
            ));
        }
        Ok(meta) if !meta.is_dir() => {
            return Err(format!(
                "--dir {}: is not a directory; give a directory, or a new path",
                base.display()
            ));
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("--dir {}: {}", base.display(), os_error(&e))),
    }
    let there: Vec<String> = TOP
        .iter()
        .filter(|name| fs::symlink_metadata(base.join(name)).is_ok())
        .map(|name| format!("`{name}`"))
        .collect();
    if there.is_empty() {
        return Ok(());
    }
    Err(format!(
        "--dir {}: already holds {}, which the demo would overwrite; io demo never overwrites: remove {} or give another directory",
        base.display(),
        there.join(" and "),
        if there.len() == 1 { "it" } else { "them" }
    ))
}

/// The directories [`FILES`] go in, parents first, and the empty ones a
/// git directory holds.
const DIRS: [&str; 6] = [
    "workspace",
    "workspace/src",
    "workspace/scripts",
    "workspace/.git",
    "workspace/.git/objects",
    "workspace/.git/refs",
];

/// Writes the demo's files beneath `base`, creating each directory and file
/// anew: `create_dir` and `O_EXCL` fail on anything already there, a
/// symbolic link included, so nothing is overwritten or written through a
/// link even if one appeared after [`refuse_unsafe`] looked.
#[allow(
    clippy::disallowed_methods,
    reason = "the demo lays out its own directory: every directory and file is made anew \
              (`create_dir`, `O_EXCL`), never opened where something already is"
)]
fn lay_out(base: &Path) -> Result<(), String> {
    let fail = |path: &Path, e: std::io::Error| format!("{}: {}", path.display(), os_error(&e));
    fs::create_dir_all(base).map_err(|e| fail(base, e))?;
    for dir in DIRS {
        let dir = base.join(dir);
        fs::create_dir(&dir).map_err(|e| fail(&dir, e))?;
        // 0755 whatever the umask: a directory a group may write would make
        // the workspace's `io.local.toml` someone else's to change.
        set_mode(&dir, 0o755).map_err(|e| fail(&dir, e))?;
    }
    for (rel, text, executable) in FILES {
        let path = base.join(rel);
        let mode = if *executable { 0o755 } else { 0o644 };
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        options.mode(mode);
        let mut file = options.open(&path).map_err(|e| fail(&path, e))?;
        file.write_all(text.as_bytes())
            .map_err(|e| fail(&path, e))?;
        #[cfg(unix)]
        file.set_permissions(fs::Permissions::from_mode(mode))
            .map_err(|e| fail(&path, e))?;
        #[cfg(windows)]
        let _ = mode;
    }
    Ok(())
}

/// Gives `path` the mode bits `mode`, whatever the umask.
#[cfg(unix)]
#[allow(
    clippy::disallowed_methods,
    reason = "the demo's own directory, made anew by its caller"
)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

/// Nothing on Windows: what the demo makes inherits its directory's DACL
/// (the user's own temporary directory, or the operator's `--dir`).
#[cfg(windows)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    let _ = (path, mode);
    Ok(())
}
