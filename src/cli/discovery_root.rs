//! Finding the discovery root a command acts on when `--root` is not
//! given, as git finds a repository's top, and the trust rule that keeps
//! the search out of directories another user could write.

use std::path::{Path, PathBuf};

use io_harness::{LOCAL_FILE, PROJECT_FILE};

/// The names whose presence makes a directory a project's top, as git's
/// `.git` does: the nearest directory at or above the working directory
/// holding any of them is the root.
const ROOT_MARKERS: [&str; 3] = [LOCAL_FILE, PROJECT_FILE, ".git"];

/// The discovery root a command acts on, and why it is that one (what
/// `io check` prints).
#[derive(Debug)]
pub(crate) struct DiscoveryRoot {
    /// The directory.
    pub(crate) path: PathBuf,
    /// Why it is the root: given with `--root`, or what the search found.
    pub(crate) why: String,
    /// The nearest directory above a root the search found that holds an
    /// `io.local.toml`, looked for under the same rule as a marker: the
    /// operator's hooks there, which the nearer marker would leave out
    /// (`load` refuses that). `None` for a root given with `--root`.
    pub(crate) above: Option<PathBuf>,
    /// When the search found no marker and stopped short of the
    /// filesystem's top: the directory it did not enter and why, so that
    /// the line that says which hooks are in force says what was passed
    /// over.
    pub(crate) stopped: Option<(PathBuf, &'static str)>,
}

impl DiscoveryRoot {
    /// The root `--root` gave: the operator's word, searched no further.
    pub(crate) fn given(path: &Path) -> DiscoveryRoot {
        DiscoveryRoot {
            path: path.to_path_buf(),
            why: "given with --root".to_owned(),
            above: None,
            stopped: None,
        }
    }

    /// Returns the nearest directory at or above `cwd` that holds `io.local.toml`,
    /// `io.toml` or `.git` (any kind of file, a link too: its presence is
    /// the operator's project saying where its top is), so that a run
    /// started in `src/` has the project's hooks. The search goes up to the
    /// filesystem's top, but never into a directory another user could have
    /// put such a file in (one owned by neither this user nor root, or
    /// writable by others, or by a group that is not this user's own): a
    /// `/tmp/io.local.toml` another user wrote must not become the hooks of
    /// everyone who runs `io` under `/tmp`. With none found, the root is
    /// `cwd`, as before. Above the root found, it goes on, under the same
    /// rule, to the nearest `io.local.toml` ([`DiscoveryRoot::above`]).
    pub(crate) fn find(cwd: &Path) -> DiscoveryRoot {
        let (searched, stopped) = searchable(cwd);
        let found = searched.iter().enumerate().find_map(|(at, dir)| {
            ROOT_MARKERS
                .iter()
                .find(|m| std::fs::symlink_metadata(dir.join(m)).is_ok())
                .map(|marker| (at, marker))
        });
        if let Some((at, marker)) = found {
            let dir = searched[at];
            let why = if dir == cwd {
                format!("the working directory, which holds `{marker}`")
            } else {
                format!(
                    "it holds `{marker}`; found from the working directory, {}",
                    cwd.display()
                )
            };
            let above = searched[at + 1..]
                .iter()
                .find(|d| std::fs::symlink_metadata(d.join(LOCAL_FILE)).is_ok())
                .map(|d| d.to_path_buf());
            return DiscoveryRoot {
                path: dir.to_path_buf(),
                why,
                above,
                stopped: None,
            };
        }
        let mut why = format!(
            "the working directory; no `{LOCAL_FILE}`, `{PROJECT_FILE}` or `.git` in it or above it"
        );
        if let Some((at, reason)) = stopped {
            why.push_str(&format!(
                "; the search stopped below {}, which {reason}",
                at.display()
            ));
        }
        DiscoveryRoot {
            path: cwd.to_path_buf(),
            why,
            above: None,
            stopped: stopped.map(|(at, reason)| (at.to_path_buf(), reason)),
        }
    }
}

/// `cwd` and each directory above it the search may take a file from,
/// nearest first, and where and why it stopped short of the filesystem's
/// top, if it did ([`untrusted`]).
fn searchable(cwd: &Path) -> (Vec<&Path>, Option<(&Path, &'static str)>) {
    let mut dirs = vec![cwd];
    let mut dir = cwd;
    while let Some(parent) = dir.parent() {
        if let Some(reason) = untrusted(parent) {
            return (dirs, Some((parent, reason)));
        }
        dirs.push(parent);
        dir = parent;
    }
    (dirs, None)
}

/// Why the root search may not take a file from `dir`: another user could
/// have written it there. `None` when only this user (or root) could.
#[cfg(unix)]
fn untrusted(dir: &Path) -> Option<&'static str> {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::metadata(dir) else {
        return Some("cannot be looked at");
    };
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me && meta.uid() != 0 {
        Some("another user owns")
    } else if meta.mode() & 0o002 != 0 {
        Some("anyone may write")
    } else if meta.mode() & 0o020 != 0 && meta.gid() != rustix::process::getegid().as_raw() {
        Some("a group may write")
    } else {
        None
    }
}

/// Why the root search may not take a file from `dir` on Windows (issue
/// 47): its owner is neither this user, SYSTEM, the Administrators group
/// nor TrustedInstaller (root's place on Unix), or its DACL lets someone
/// else add, change or remove an entry in it (a NULL DACL lets anyone).
/// `None` when only this user (or the system) could have written there.
#[cfg(windows)]
fn untrusted(dir: &Path) -> Option<&'static str> {
    use io_winsec::{Security, Sid, rights};
    use std::os::windows::fs::OpenOptionsExt;
    /// `READ_CONTROL`, and `FILE_FLAG_BACKUP_SEMANTICS`, which opening a
    /// directory takes.
    const READ_CONTROL: u32 = 0x0002_0000;
    const BACKUP_SEMANTICS: u32 = 0x0200_0000;
    #[allow(
        clippy::disallowed_methods,
        reason = "opened for its owner and DACL only (READ_CONTROL, no data access), to judge \
                  whose it is"
    )]
    let opened = std::fs::OpenOptions::new()
        .access_mode(READ_CONTROL)
        .custom_flags(BACKUP_SEMANTICS)
        .open(dir);
    let judged = opened
        .and_then(|file| Security::of_file(&file))
        .and_then(|security| Ok((security, io_winsec::current_user()?)));
    let Ok((security, me)) = judged else {
        return Some("cannot be looked at");
    };
    match &security.owner {
        Some(owner)
            if *owner == me
                || owner.is_system_or_administrators()
                || *owner == Sid::trusted_installer() => {}
        _ => return Some("another user owns"),
    }
    match security.granted_to_others(&me, rights::WRITE | rights::DELETE_CHILD) {
        Some(None) => Some("anyone may write"),
        Some(Some(_)) => Some("another user or a group may write"),
        None => None,
    }
}
