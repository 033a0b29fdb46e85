//! `io runs`: the root's runs, newest first, each with how it last ended
//! and, where it can go on, the command that resumes it; the journals that
//! may not be trusted are passed over unread, and counted.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use io_harness::Outcome;
use io_harness::run::{RunSummary, StoreError};

use super::run::resume_command;
use crate::cli::exit::CmdResult;
use crate::cli::journals::{journal_key, store};
use crate::cli::load::load;
use crate::cli::output::{out, safe, safe_line};

/// List the root's runs, newest first: how each last ended, and the
/// command that resumes it. Only journals your `io` wrote are listed (each
/// record's MAC verifies with your key); the others are counted, by why.
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

/// Why a journal was passed over, in the order `io runs` counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum PassedOver {
    /// Git tracks it: it came with the clone.
    Tracked,
    /// A record's MAC does not verify with this user's key, or it has none.
    Unsealed,
    /// Another user's, or others may write it.
    NotYours,
    /// Whether git tracks it could not be told.
    Unchecked,
    /// Anything else: a link on its way, a FIFO, a record that is not one,
    /// a read the system refused.
    Unreadable,
}

impl PassedOver {
    /// Why, in the operator's words, after a count.
    fn why(self) -> &'static str {
        match self {
            PassedOver::Tracked => "tracked by git (it came with the clone)",
            PassedOver::Unsealed => "not written by this user's io (no valid MAC)",
            PassedOver::NotYours => "not yours alone (another user's, or others may write it)",
            PassedOver::Unchecked => "not checked (whether git tracks it could not be told)",
            PassedOver::Unreadable => "unreadable",
        }
    }

    /// Why a journal whose summary failed with `e` was passed over.
    fn of(e: &StoreError) -> Self {
        match e {
            StoreError::Unsealed { .. } => PassedOver::Unsealed,
            StoreError::Untrusted { .. } => PassedOver::NotYours,
            _ => PassedOver::Unreadable,
        }
    }
}

/// Runs `io runs`.
///
/// Returns 0; an error when the config or the key cannot be loaded, the
/// store cannot be listed or stdout cannot be written.
pub(crate) fn exec(args: &Args) -> CmdResult {
    let config = load(args.root.as_deref(), None)?;
    let root = config.root();
    let store = store(root, journal_key()?);
    let mut listed: Vec<RunSummary> = Vec::new();
    let mut passed_over: Vec<PassedOver> = Vec::new();
    for run_id in store.runs().map_err(|e| e.to_string())? {
        let journal = store.journal(&run_id).map_err(|e| e.to_string())?;
        // A journal git tracks came with the clone: passed over unread, as
        // a resume refuses it.
        match config.tracks(&journal) {
            Ok(false) => {}
            Ok(true) => {
                passed_over.push(PassedOver::Tracked);
                continue;
            }
            Err(_) => {
                passed_over.push(PassedOver::Unchecked);
                continue;
            }
        }
        match store.summary(&run_id) {
            Ok(Some(summary)) => listed.push(summary),
            // Gone since it was listed.
            Ok(None) => {}
            Err(e) => passed_over.push(PassedOver::of(&e)),
        }
    }
    let mut text = if listed.is_empty() {
        format!("no runs in {}\n", store.dir().display())
    } else {
        format!("runs in {}, newest first:\n", store.dir().display())
    };
    // Newest first, then by id.
    listed.sort_by(|a, b| {
        b.written
            .cmp(&a.written)
            .then_with(|| a.run_id.cmp(&b.run_id))
    });
    for summary in &listed {
        text.push_str(&run_lines(summary, root));
    }
    text.push_str(&passed_over_line(passed_over));
    out(&safe(&text))?;
    Ok(ExitCode::SUCCESS)
}

/// The line that counts the journals passed over, by why (`passed over 2
/// journals: 1 …, 1 …`); nothing when none was.
fn passed_over_line(mut passed_over: Vec<PassedOver>) -> String {
    if passed_over.is_empty() {
        return String::new();
    }
    passed_over.sort();
    let total = passed_over.len();
    let mut whys: Vec<String> = Vec::new();
    for chunk in passed_over.chunk_by(|a, b| a == b) {
        whys.push(format!("{} {}", chunk.len(), chunk[0].why()));
    }
    format!(
        "passed over {total} {}: {}; `io run --resume ID` says why for one\n",
        if total == 1 { "journal" } else { "journals" },
        whys.join(", ")
    )
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
        Some(Outcome::Interrupted) => format!("interrupted after {steps}"),
        None => format!(
            "no ending after {steps} (running now, or ended by a second signal, a SIGKILL or a crash)"
        ),
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
            safe_line(&resume_command(&run.run_id, root, run.profile.as_deref()))
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::{PassedOver, passed_over_line};

    #[test]
    fn the_passed_over_line_counts_by_why_in_one_order_and_is_absent_when_none_was() {
        assert_eq!(passed_over_line(Vec::new()), "");
        assert_eq!(
            passed_over_line(vec![PassedOver::Unreadable]),
            "passed over 1 journal: 1 unreadable; `io run --resume ID` says why for one\n"
        );
        assert_eq!(
            passed_over_line(vec![
                PassedOver::Unreadable,
                PassedOver::Unsealed,
                PassedOver::NotYours,
                PassedOver::Unsealed,
                PassedOver::Unchecked,
                PassedOver::Tracked,
            ]),
            "passed over 6 journals: 1 tracked by git (it came with the clone), 2 not written by \
             this user's io (no valid MAC), 1 not yours alone (another user's, or others may write \
             it), 1 not checked (whether git tracks it could not be told), 1 unreadable; `io run \
             --resume ID` says why for one\n"
        );
    }
}
