//! Whether a repository's git index tracks a file, asked of `git` itself.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// How long git may take to answer. `ls-files` on one path answers in
/// milliseconds even in a large repository; a git that has not answered
/// by then is stuck (a FIFO planted as `.git/index`, a hung network
/// file system) and will not.
const ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// Whether the git index of the repository holding `root` tracks
/// `root/name`.
///
/// `git` is looked up only in the absolute entries of `PATH`, so an empty
/// or `.` entry cannot run a `git` planted in the repository, and it is
/// run with an argv, never a shell. Where there is no `git`, where `root`
/// is not in a repository, or where git cannot answer (in time), the
/// answer is "not tracked": this check narrows a hazard the spec leaves
/// open, and without git nobody can have cloned the file in the first
/// place.
pub(super) fn tracks(root: &Path, name: &str) -> bool {
    tracks_within(root, name, ANSWER_WITHIN)
}

fn tracks_within(root: &Path, name: &str, limit: Duration) -> bool {
    let Ok(git) = io_hooks::process::resolve_program("git", root) else {
        return false;
    };
    let mut command = Command::new(git);
    // Only the repository at `root` matters, not how this process was
    // started: a git hook's GIT_DIR or temporary GIT_INDEX_FILE, a
    // GIT_CEILING_DIRECTORIES that hides the repository, pathspec modes.
    for (key, _) in std::env::vars_os() {
        if key.as_encoded_bytes().starts_with(b"GIT_") {
            command.env_remove(key);
        }
    }
    command
        // Nothing is fetched for a partial clone's missing objects (a
        // fetch would run the transport a hostile config names).
        .env("GIT_NO_LAZY_FETCH", "1")
        .arg("--no-pager")
        // A `.git/config` that came with a tarball rather than a clone
        // could name commands; none that `ls-files` could reach may run.
        .args(["-c", "core.fsmonitor=false"])
        .args(["-c", "core.hooksPath=/dev/null"])
        // A repository another user owns is refused by git ("dubious
        // ownership") because its config could run commands; with the
        // overrides above `ls-files` runs none, and without the answer a
        // checkout made by another uid would load cloned hooks.
        .args(["-c", "safe.directory=*"])
        .arg("-C")
        .arg(root)
        .args(["ls-files", "--error-unmatch", "--", name])
        .current_dir(root)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // Spawned and waited on as a `run` hook is: its own process group,
    // killed and reaped at the deadline. Exit 0 is "tracked"; anything
    // else, a timeout included, is "not tracked".
    io_hooks::process::run_command(command, b"", limit).is_ok()
}
