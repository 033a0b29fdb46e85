//! Which program an argv names: a name containing `/` is taken from the
//! root, a bare one is looked up in the absolute entries of `PATH` only.

use std::ffi::{OsStr, OsString};
#[cfg(unix)]
use std::os::unix::ffi::OsStrExt;
#[cfg(unix)]
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

#[cfg(unix)]
use super::error::ProcessError;
// Windows: `PATHEXT`, `\` and `;` (issue 47), beside these.
#[cfg(windows)]
pub(super) use super::windows::resolve::{absolute_entries, names_a_path, only_absolute_entries};
#[cfg(windows)]
pub use super::windows::resolve::{is_executable, resolve_program_in};

/// Whether `program` names a path (it contains `/`), taken from the root,
/// rather than a bare name looked up on `PATH`.
#[cfg(unix)]
pub(super) fn names_a_path(program: &str) -> bool {
    program.contains('/')
}

/// The search path when `PATH` is unset: glibc's own default, whose
/// entries are both absolute.
#[cfg(unix)]
const DEFAULT_PATH: &str = "/bin:/usr/bin";

/// Whether an entry of `PATH` is absolute: the one test the search and the
/// child's `PATH` both use, so the child never searches where we did not.
#[cfg(unix)]
fn is_absolute_entry(entry: &[u8]) -> bool {
    entry.first() == Some(&b'/')
}

/// The absolute entries of `path_var`, in order, as bytes.
#[cfg(unix)]
fn absolute_dirs(path_var: &OsStr) -> impl Iterator<Item = &[u8]> {
    path_var
        .as_encoded_bytes()
        .split(|&b| b == b':')
        .filter(|entry| is_absolute_entry(entry))
}

/// `path_var` with only its absolute entries, in order: what a child gets
/// as its `PATH`.
#[cfg(unix)]
pub(super) fn absolute_entries(path_var: &OsStr) -> OsString {
    let mut kept = OsString::with_capacity(path_var.len());
    for entry in absolute_dirs(path_var) {
        if !kept.is_empty() {
            kept.push(":");
        }
        // Split at an ASCII byte, so each entry is a whole `OsStr`.
        kept.push(OsStr::from_bytes(entry));
    }
    kept
}

/// Whether every entry of `path_var` is absolute: [`absolute_entries`]
/// would return it unchanged. (An empty `path_var` is one empty entry.)
#[cfg(unix)]
pub(super) fn only_absolute_entries(path_var: &OsStr) -> bool {
    path_var
        .as_encoded_bytes()
        .split(|&b| b == b':')
        .all(is_absolute_entry)
}

/// Returns the program `program` names, as
/// [`resolve_program`](crate::resolve_program) finds it, with `path_var`
/// for `PATH`.
///
/// For a caller that reads `PATH` once for several programs; `None` is an
/// unset `PATH`, and then `/bin:/usr/bin` is searched. The path returned is
/// absolute when `root` is.
///
/// A name containing `/` is `root` joined with it (an absolute path stays
/// as it is). A bare name is searched for in the absolute entries of
/// `path_var` only: an empty, `.` or other relative entry would resolve
/// against the working directory, which is the repository, and a file
/// planted there must never run.
///
/// # Errors
/// [`ProcessError::NotFound`] when a bare name is in no absolute entry of
/// `path_var`, or `program` is empty.
#[cfg(unix)]
pub fn resolve_program_in(
    program: &str,
    root: &Path,
    path_var: Option<&OsStr>,
) -> Result<PathBuf, ProcessError> {
    let not_found = || ProcessError::NotFound {
        program: program.to_owned(),
    };
    if program.is_empty() {
        return Err(not_found());
    }
    if program.contains('/') {
        return Ok(root.join(program));
    }
    let path_var = path_var.unwrap_or(OsStr::new(DEFAULT_PATH));
    // Each candidate is written into one buffer, in place: a `PathBuf` per
    // entry was most of a `run` hook's own instructions.
    let mut candidate = Vec::with_capacity(path_var.len() + 1 + program.len());
    for dir in absolute_dirs(path_var) {
        candidate.clear();
        candidate.extend_from_slice(dir);
        if !dir.ends_with(b"/") {
            candidate.push(b'/');
        }
        candidate.extend_from_slice(program.as_bytes());
        // Split at an ASCII byte and joined with UTF-8: a whole `OsStr`.
        let path = Path::new(OsStr::from_bytes(&candidate));
        if is_executable(path) {
            return Ok(path.to_path_buf());
        }
    }
    Err(not_found())
}

/// Bare names already found on `PATH`, remembered as a shell's `hash`
/// remembers them: a name is looked up in `PATH` once, and again only when
/// `PATH` changes or the file found is no longer an executable file. One
/// check of that file replaces a look in every directory before it (nine
/// on this project's machines, about 2% of a `run` hook on `true`).
///
/// As with `hash`, a program installed later in an earlier directory of an
/// unchanged `PATH` is not seen while the one found still runs.
#[derive(Debug, Default)]
pub(super) struct Found {
    /// The `PATH` the names were found on (`None`: unset).
    path_var: Option<OsString>,
    names: Vec<(String, PathBuf)>,
}

/// The most names [`Found`] keeps; past it, it starts again.
const FOUND_MAX: usize = 64;

impl Found {
    /// Returns the file `program` was found as on `path_var`, when it is
    /// remembered and still an executable file; forgets every name when
    /// `path_var` is not the `PATH` they were found on.
    pub(super) fn get(&mut self, program: &str, path_var: Option<&OsStr>) -> Option<PathBuf> {
        if self.path_var.as_deref() != path_var {
            self.names.clear();
            self.path_var = path_var.map(OsStr::to_os_string);
            return None;
        }
        let at = self.names.iter().position(|(name, _)| name == program)?;
        if is_executable(&self.names[at].1) {
            return Some(self.names[at].1.clone());
        }
        self.names.swap_remove(at);
        None
    }

    /// Remembers that `program` was found as `exe` on `path_var`.
    pub(super) fn put(&mut self, program: &str, path_var: Option<&OsStr>, exe: &Path) {
        if self.path_var.as_deref() != path_var {
            return;
        }
        if self.names.len() >= FOUND_MAX {
            self.names.clear();
        }
        self.names.push((program.to_owned(), exe.to_path_buf()));
    }
}

/// Returns whether `path` is, after following links, a regular file that
/// someone may execute (any of its execute bits set): what the search of
/// `PATH` takes for a program.
#[cfg(unix)]
pub fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn resolution_uses_only_absolute_path_entries() {
        let root = tempfile::tempdir().unwrap();
        let bin = tempfile::tempdir().unwrap();
        for dir in [root.path(), bin.path()] {
            let tool = dir.join("tool");
            std::fs::write(&tool, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let plain = bin.path().join("plain");
        std::fs::write(&plain, "").unwrap(); // not executable: skipped
        let path = |s: String| Some(OsString::from(s));
        let abs = bin.path().display().to_string();
        let r = root.path();

        let found = resolve_program_in("tool", r, path(format!(".::bin:{abs}")).as_deref());
        assert_eq!(found.unwrap(), bin.path().join("tool"));
        // An entry ending in `/` names the same directory.
        let found = resolve_program_in("tool", r, path(format!("{abs}/")).as_deref()).unwrap();
        assert_eq!(found.as_os_str(), bin.path().join("tool").as_os_str());
        for only_relative in [".", "", ":", "bin:.", "./"] {
            let got = resolve_program_in("tool", r, path(only_relative.to_owned()).as_deref());
            assert!(
                matches!(got, Err(ProcessError::NotFound { .. })),
                "PATH={only_relative:?}: {got:?}"
            );
        }
        assert!(resolve_program_in("plain", r, path(abs.clone()).as_deref()).is_err());
        assert!(resolve_program_in("", r, path(abs.clone()).as_deref()).is_err());
        // Containing `/`: the root's, never PATH's; absolute stays absolute.
        assert_eq!(
            resolve_program_in("./scripts/x", r, None).unwrap(),
            r.join("./scripts/x")
        );
        assert_eq!(
            resolve_program_in("/usr/bin/env", r, None).unwrap(),
            Path::new("/usr/bin/env")
        );
        // Unset PATH: the absolute default.
        assert!(resolve_program_in("sh", r, None).unwrap().is_absolute());
    }

    /// The child's `PATH` is left as inherited exactly when filtering it
    /// would change nothing.
    #[test]
    fn only_absolute_entries_says_whether_filtering_changes_path() {
        for (path, only_absolute) in [
            ("/usr/bin:/bin", true),
            ("/bin", true),
            ("/a::/b", false),
            ("/usr/bin:", false),
            (":/usr/bin", false),
            (".:/usr/bin:/bin", false),
            ("/usr/bin:bin", false),
        ] {
            let path = OsStr::new(path);
            assert_eq!(only_absolute_entries(path), only_absolute, "{path:?}");
            assert_eq!(absolute_entries(path) == path, only_absolute, "{path:?}");
        }
        // Empty, it is set to itself: one empty entry, dropped.
        assert!(!only_absolute_entries(OsStr::new("")));
        assert_eq!(absolute_entries(OsStr::new("")), "");
    }

    /// An executable `name` in `dir`.
    fn tool(dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn a_found_name_is_kept_while_its_file_runs_and_path_is_unchanged() {
        let (first, second) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let path_var = OsString::from(format!(
            "{}:{}",
            first.path().display(),
            second.path().display()
        ));
        let path_var = Some(path_var.as_os_str());
        let in_second = tool(second.path(), "tool");
        let mut found = Found::default();
        assert_eq!(found.get("tool", path_var), None, "nothing found yet");
        found.put("tool", path_var, &in_second);
        assert_eq!(found.get("tool", path_var), Some(in_second.clone()));
        // As a shell's `hash`: one installed earlier on the same PATH is
        // not seen while the one found still runs.
        tool(first.path(), "tool");
        assert_eq!(found.get("tool", path_var), Some(in_second.clone()));
        assert_eq!(found.get("other", path_var), None);

        // Gone, or no longer executable: looked up again.
        std::fs::set_permissions(&in_second, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(found.get("tool", path_var), None);
        found.put("tool", path_var, &in_second);
        std::fs::remove_file(&in_second).unwrap();
        assert_eq!(found.get("tool", path_var), None);
        assert!(found.names.is_empty(), "{:?}", found.names);
    }

    #[test]
    fn another_path_forgets_every_name_and_is_not_filled_from_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let exe = tool(dir.path(), "tool");
        let (one, two) = (OsString::from("/one"), OsString::from("/two"));
        let mut found = Found::default();
        assert_eq!(found.get("tool", Some(&one)), None);
        found.put("tool", Some(&one), &exe);
        assert_eq!(found.get("tool", Some(&one)), Some(exe.clone()));
        assert_eq!(found.get("tool", Some(&two)), None, "found on another PATH");
        assert_eq!(
            found.get("tool", Some(&one)),
            None,
            "forgotten with the change"
        );
        // A search made on the old PATH, finishing after the change, is
        // not kept for the new one.
        assert_eq!(found.get("tool", None), None);
        found.put("tool", Some(&one), &exe);
        assert_eq!(found.get("tool", None), None);
        found.put("tool", None, &exe);
        assert_eq!(found.get("tool", None), Some(exe));
    }

    #[test]
    fn past_its_bound_it_starts_again() {
        let dir = tempfile::tempdir().unwrap();
        let exe = tool(dir.path(), "tool");
        let mut found = Found::default();
        assert_eq!(found.get("t0", None), None);
        for n in 0..FOUND_MAX {
            found.put(&format!("t{n}"), None, &exe);
        }
        assert_eq!(found.names.len(), FOUND_MAX);
        assert_eq!(found.get("t0", None), Some(exe.clone()));
        found.put("one more", None, &exe);
        assert_eq!(found.names.len(), 1);
        assert_eq!(found.get("one more", None), Some(exe));
    }
}
