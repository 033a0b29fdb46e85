//! Whether a repository's git index tracks a file, asked of `git` itself.

use std::ffi::OsString;
use std::io::{self, Read};
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use io_hooks::text::os_error;
use io_supervisor::ProcessError;

/// How long git may take to answer. `ls-files` on one path answers in
/// milliseconds even in a large repository; a git that has not answered
/// by then is stuck (a FIFO planted as `.git/index`, a hung network
/// file system) and will not.
const ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// The most of git's stdout or stderr that is kept. `ls-files` on one name
/// prints a few paths; more than this is not an answer to that question.
const MAX_OUTPUT: u64 = 1024 * 1024;

/// Whether the file `root/name` is tracked by the git index of a repository
/// holding it, as the file `io` reads: `Err` with the reason when git ran
/// but its answer could not be had.
///
/// Every repository whose work tree holds `root` is asked, innermost first:
/// a root with a `.git` of its own inside an enclosing repository's work
/// tree is asked of both, because the enclosing index can track the file
/// too. Each is asked for `name` in any case (`:(icase)`) and, when `name`
/// is a symbolic link, for its target where that lies in the work tree; a
/// path git lists counts only when it is the same file (device and inode)
/// as `root/name`. So a tracked `IO.LOCAL.TOML` counts where the file system
/// folds case (it is the file read) and not where it is a different file,
/// and `io.local.toml -> config/hooks.toml` counts when `config/hooks.toml`
/// is tracked.
///
/// Not tracked, without asking: no `.git` in `root` or any directory above
/// it (git has no repository to find), or no `git` in an absolute `PATH`
/// entry (an empty or `.` entry cannot run one planted in the repository).
/// Each repository is asked through its own `.git` and no other. Anything
/// else is `Err`, and the file is refused rather than taken for untracked:
/// a `.git` this user cannot read, one git does not take for a repository,
/// a git that failed, was killed at its deadline or by a signal to `io`, or
/// printed what cannot be read.
pub(super) fn tracks(root: &Path, name: &str) -> Result<bool, String> {
    tracks_within(root, name, ANSWER_WITHIN)
}

fn tracks_within(root: &Path, name: &str, limit: Duration) -> Result<bool, String> {
    let file = root.join(name);
    let real_root = std::fs::canonicalize(root).map_err(|e| {
        format!(
            "the root `{}` cannot be resolved: {}",
            root.display(),
            os_error(&e)
        )
    })?;
    let repositories: Vec<&Path> = real_root
        .ancestors()
        .filter(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
        .collect();
    if repositories.is_empty() {
        return Ok(false);
    }
    let Ok(git) = io_supervisor::resolve_program("git", root) else {
        return Ok(false);
    };
    let target = std::fs::symlink_metadata(&file)
        .is_ok_and(|m| m.file_type().is_symlink())
        .then(|| std::fs::canonicalize(&file).ok())
        .flatten();
    for dir in repositories {
        let mut pathspecs = vec![pathspec(
            ":(literal,icase)",
            &real_root
                .strip_prefix(dir)
                .unwrap_or(Path::new(""))
                .join(name),
        )];
        if let Some(rel) = target.as_deref().and_then(|t| t.strip_prefix(dir).ok()) {
            pathspecs.push(pathspec(":(literal)", rel));
        }
        readable(dir)?;
        let listed = ls_files(&git, dir, &pathspecs, limit)?;
        if listed.iter().any(|path| same_file(&dir.join(path), &file)) {
            return Ok(true);
        }
    }
    Ok(false)
}

fn pathspec(magic: &str, path: &Path) -> OsString {
    let mut spec = OsString::from(magic);
    spec.push(path);
    spec
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

/// Refuses a `.git` in `dir` that this user cannot read. Git itself would
/// not say so: it would take `dir` for no repository (a checkout another
/// user owns, its `.git` at 0700) and a committed `io.local.toml` would
/// load as untracked. A `.git` that is neither a directory nor a file (a
/// FIFO, a socket, a device) is refused without opening it, and a directory
/// or a file is opened as a config file is (through io-beneath, judged
/// before it is opened): a FIFO
/// a clone commits as `.git`, or swaps in after the look, would otherwise
/// hold `io` at the open, before git's deadline starts.
fn readable(dir: &Path) -> Result<(), String> {
    let dot_git = dir.join(".git");
    let opened = match std::fs::metadata(&dot_git) {
        // A directory opens for reading only when its reader could list it.
        Ok(meta) if meta.is_dir() || meta.is_file() => {
            super::regular::open_regular(&dot_git).map(drop)
        }
        Ok(_) => {
            return Err(format!(
                "`{}` is neither a directory nor a file (a FIFO, a socket or a device), \
                 which no repository has: remove it",
                dot_git.display()
            ));
        }
        Err(e) => Err(e),
    };
    opened.map_err(|e| {
        format!(
            "`{}` exists but cannot be read ({}): run `io` as the user who owns the \
             checkout, or make its `.git` readable",
            dot_git.display(),
            os_error(&e)
        )
    })
}

/// The paths (relative to `dir`) that `git ls-files` lists for `pathspecs`
/// in the repository whose `.git` is in `dir`.
fn ls_files(
    git: &Path,
    dir: &Path,
    pathspecs: &[OsString],
    limit: Duration,
) -> Result<Vec<PathBuf>, String> {
    let mut command = Command::new(git);
    // Only the repository at `dir` matters, not how this process was
    // started: a git hook's GIT_DIR or temporary GIT_INDEX_FILE, a
    // GIT_CEILING_DIRECTORIES that hides the repository, pathspec modes.
    for (key, _) in std::env::vars_os() {
        if key.as_encoded_bytes().starts_with(b"GIT_") {
            command.env_remove(key);
        }
    }
    let (out_read, out_write) =
        io::pipe().map_err(|e| format!("no pipe for git: {}", os_error(&e)))?;
    let (err_read, err_write) =
        io::pipe().map_err(|e| format!("no pipe for git: {}", os_error(&e)))?;
    command
        // Nothing is fetched for a partial clone's missing objects (a
        // fetch would run the transport a hostile config names).
        .env("GIT_NO_LAZY_FETCH", "1")
        // Messages in English, which is what "not a git repository" is
        // recognised in.
        .env("LC_ALL", "C")
        .env_remove("LANGUAGE")
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
        // This `.git` and no other: left to find one, git looks past a
        // `.git` it cannot use to the directories above, and answers for
        // some other repository, or for none.
        .arg("--git-dir")
        .arg(dir.join(".git"))
        .arg("--work-tree")
        .arg(dir)
        .arg("-C")
        .arg(dir)
        .args(["ls-files", "-z", "--"])
        .args(pathspecs)
        .current_dir(dir)
        .stdout(Stdio::from(out_write))
        .stderr(Stdio::from(err_write));
    // Spawned and waited on as a `run` hook is: its own process group,
    // killed and reaped at the deadline, and on the process's interrupt,
    // so that a signal that ends `io` ends git too. Both pipes are drained
    // while it runs, so a long answer cannot stall it; the command (holding
    // our copies of their write ends) is gone once it is spawned.
    // A thread the system refuses (`RLIMIT_NPROC`) is an unanswered
    // check, not a panic; git is not started without its readers. The
    // closure owns `command` (and so the pipes' write ends): returning
    // early drops them, and a reader already started sees end of file.
    let (status, stdout, stderr) = std::thread::scope(|s| {
        let reader = |pipe| std::thread::Builder::new().spawn_scoped(s, || read_capped(pipe));
        let no_thread = |e: io::Error| format!("no thread to read git's answer: {}", os_error(&e));
        let stdout = reader(out_read).map_err(no_thread)?;
        let stderr = reader(err_read).map_err(no_thread)?;
        let status = crate::supervisor::process_supervisor().run_command(command, b"", limit);
        let join = |h: std::thread::ScopedJoinHandle<'_, io::Result<Vec<u8>>>| {
            h.join()
                .unwrap_or_else(|_| Err(io::Error::other("the reader panicked")))
        };
        Ok::<_, String>((status, join(stdout), join(stderr)))
    })?;
    let unreadable = |e: io::Error| format!("git's output could not be read: {}", os_error(&e));
    let stdout = stdout.map_err(unreadable)?;
    let stderr = stderr.map_err(unreadable)?;
    match status {
        Ok(()) => parse_listing(stdout),
        Err(failure) => {
            let said = String::from_utf8_lossy(&stderr);
            let said = said.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            Err(match failure {
                ProcessError::TimedOut { .. } => format!(
                    "git did not answer within {} ms and was killed",
                    limit.as_millis()
                ),
                ProcessError::Exit { code } if !said.is_empty() => {
                    format!("git exited with status {code}: {said}")
                }
                spawn @ ProcessError::Spawn { .. } => spawn.to_string(),
                other => format!("git {other}"),
            })
        }
    }
}

/// `ls-files -z` output: paths, each ended by a NUL.
fn parse_listing(stdout: Vec<u8>) -> Result<Vec<PathBuf>, String> {
    let Some(body) = stdout.strip_suffix(b"\0") else {
        return if stdout.is_empty() {
            Ok(Vec::new())
        } else {
            Err("git's answer was cut short (no NUL after its last path)".to_owned())
        };
    };
    body.split(|&b| b == 0)
        .map(|path| {
            if path.is_empty() {
                Err("git's answer held an empty path".to_owned())
            } else {
                Ok(PathBuf::from(OsString::from_vec(path.to_vec())))
            }
        })
        .collect()
}

/// All of `from`, or an error once it is over [`MAX_OUTPUT`]; what is past
/// the cap is read and dropped, so the writer is never left blocked.
fn read_capped(from: impl Read) -> io::Result<Vec<u8>> {
    let mut from = from;
    let mut bytes = Vec::new();
    (&mut from).take(MAX_OUTPUT + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_OUTPUT {
        io::copy(&mut from, &mut io::sink())?;
        return Err(io::Error::other(format!(
            "more than {} KiB",
            MAX_OUTPUT / 1024
        )));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_must_end_each_path_with_a_nul() {
        assert_eq!(parse_listing(Vec::new()), Ok(Vec::new()));
        assert_eq!(
            parse_listing(b"a\0B/c\0".to_vec()),
            Ok(vec![PathBuf::from("a"), PathBuf::from("B/c")])
        );
        assert!(parse_listing(b"a\0b".to_vec()).is_err());
        assert!(parse_listing(b"a\0\0".to_vec()).is_err());
    }
}
