//! `io runs`: the root's runs, newest first, each with how it last ended
//! and, where it can go on, the command that resumes it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use io_harness::Outcome;
use io_harness::run::RunSummary;

use super::run::{resume_command, store};
use crate::cli::exit::CmdResult;
use crate::cli::load::load;
use crate::cli::output::{out, safe, safe_line};

/// List the root's runs, newest first: how each last ended, and the
/// command that resumes it.
#[derive(clap::Args)]
#[command(after_help = "Example:\n  io runs\n  io runs --root /tmp/ws")]
pub(crate) struct Args {
    /// The discovery root [default: the nearest directory at or above
    /// the working directory holding io.local.toml, io.toml or .git,
    /// else the working directory].
    #[arg(long)]
    root: Option<PathBuf>,
}

/// How much of a goal a line shows.
const GOAL_SHOWN: usize = 60;

/// Runs `io runs`.
///
/// Returns 0; an error when the config cannot be loaded, the store cannot
/// be listed or stdout cannot be written.
pub(crate) fn exec(args: &Args) -> CmdResult {
    let config = load(args.root.as_deref(), None)?;
    let root = config.root();
    let store = store(root);
    let mut listed: Vec<Result<RunSummary, String>> = Vec::new();
    for run_id in store.runs().map_err(|e| e.to_string())? {
        let journal = store.journal(&run_id).map_err(|e| e.to_string())?;
        // A journal git tracks came with the clone: refused unread, as a
        // resume refuses it.
        let refusal = match config.tracks(&journal) {
            Ok(false) => None,
            Ok(true) => {
                Some("refused: git tracks this journal, so it came with the clone".to_owned())
            }
            Err(reason) => Some(format!(
                "refused: whether git tracks it could not be told ({reason})"
            )),
        };
        let entry = match refusal {
            Some(refusal) => Err(format!("{run_id}  {refusal}")),
            None => match store.summary(&run_id) {
                Ok(Some(summary)) => Ok(summary),
                // Gone since it was listed.
                Ok(None) => continue,
                Err(e) => Err(format!("{run_id}  refused: {e}")),
            },
        };
        listed.push(entry);
    }
    if listed.is_empty() {
        out(&safe(&format!("no runs in {}\n", store.dir().display())))?;
        return Ok(ExitCode::SUCCESS);
    }
    // Newest first; the refused after them, by id.
    listed.sort_by(|a, b| match (a, b) {
        (Ok(a), Ok(b)) => b
            .written
            .cmp(&a.written)
            .then_with(|| a.run_id.cmp(&b.run_id)),
        (Ok(_), Err(_)) => std::cmp::Ordering::Less,
        (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
        (Err(a), Err(b)) => a.cmp(b),
    });
    let mut text = format!("runs in {}, newest first:\n", store.dir().display());
    for entry in &listed {
        match entry {
            Ok(summary) => text.push_str(&run_lines(summary, root)),
            Err(refused) => text.push_str(&format!("  {}\n", safe_line(refused))),
        }
    }
    out(&safe(&text))?;
    Ok(ExitCode::SUCCESS)
}

/// A run's line, and under it the command that resumes it, unless it
/// completed or is a child run (resumed with its parent).
fn run_lines(run: &RunSummary, root: &Path) -> String {
    let steps = match run.steps {
        1 => "1 step".to_owned(),
        n => format!("{n} steps"),
    };
    let ending = match run.outcome {
        Some(Outcome::Completed) => format!("completed after {steps}"),
        Some(Outcome::Cancelled) => format!("cancelled after {steps}"),
        Some(Outcome::Failed) => format!("failed after {steps}"),
        None => format!("no ending after {steps} (running now, or ended by a signal or a crash)"),
    };
    let goal: String = run.goal.chars().take(GOAL_SHOWN).collect();
    let cut = if run.goal.chars().count() > GOAL_SHOWN {
        "…"
    } else {
        ""
    };
    let child = if run.depth > 0 {
        format!(" (a child run, depth {})", run.depth)
    } else {
        String::new()
    };
    let mut lines = format!(
        "  {}  {}  {ending}{child}: {}{cut}\n",
        safe_line(&run.run_id),
        run.written,
        safe_line(&goal)
    );
    if run.depth == 0 && run.outcome != Some(Outcome::Completed) {
        lines.push_str(&format!(
            "      resume: {}\n",
            safe_line(&resume_command(&run.run_id, root, None))
        ));
    }
    lines
}
