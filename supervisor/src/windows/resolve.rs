//! Which program an argv names on Windows: a name containing `/`, `\` or
//! `:` is taken from the root; a bare one is looked up in the absolute
//! entries of `PATH` (`;`-separated), with the extensions `PATHEXT` lists
//! that Windows can start without a shell: `.com`, `.exe`, `.bat`, `.cmd`.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::error::ProcessError;

/// `PATHEXT` when it is unset, or lists none of [`STARTABLE`]: Windows' own
/// default, less what a shell alone can start.
const DEFAULT_PATHEXT: &str = ".COM;.EXE;.BAT;.CMD";

/// The extensions `CreateProcess` (and std, which runs a `.bat` or `.cmd`
/// through `cmd.exe` itself) can start. `PATHEXT` may list more (`.VBS`,
/// `.JS`, `.PY`): those start through a file association, which is a
/// shell's work, and are never searched for.
const STARTABLE: [&str; 4] = [".com", ".exe", ".bat", ".cmd"];

/// Whether `program` names a path (it contains `/`, `\` or a drive's `:`),
/// taken from the root, rather than a bare name looked up on `PATH`.
pub(crate) fn names_a_path(program: &str) -> bool {
    program.contains(['/', '\\', ':'])
}

/// The absolute entries of `path_var`, in order (a quoted entry unquoted,
/// as `cmd.exe` reads it). A relative entry (`.`, empty, `bin`, or `\bin`
/// without its drive) would resolve against the working directory, which is
/// the repository.
fn absolute_dirs(path_var: &OsStr) -> impl Iterator<Item = PathBuf> {
    std::env::split_paths(path_var).filter(|dir| dir.is_absolute())
}

/// `path_var` with only its absolute entries, in order: what a child gets
/// as its `PATH`.
pub(crate) fn absolute_entries(path_var: &OsStr) -> OsString {
    // Only an entry holding `"` cannot be joined; split_paths removed them.
    std::env::join_paths(absolute_dirs(path_var)).unwrap_or_default()
}

/// Whether every entry of `path_var` is absolute: [`absolute_entries`]
/// would keep it whole. (An empty `path_var` is one empty entry.)
pub(crate) fn only_absolute_entries(path_var: &OsStr) -> bool {
    std::env::split_paths(path_var).all(|dir| dir.is_absolute())
}

/// The extensions searched, in `pathext`'s order, lower-cased: those of
/// [`STARTABLE`] it lists, or the default's when it lists none.
fn extensions(pathext: Option<&OsStr>) -> Vec<&'static str> {
    let listed = |pathext: &str| -> Vec<&'static str> {
        let mut found = Vec::new();
        for ext in pathext.split(';') {
            let ext = ext.trim();
            if let Some(&known) = STARTABLE.iter().find(|k| k.eq_ignore_ascii_case(ext))
                && !found.contains(&known)
            {
                found.push(known);
            }
        }
        found
    };
    let found = pathext
        .and_then(OsStr::to_str)
        .map(listed)
        .unwrap_or_default();
    if found.is_empty() {
        listed(DEFAULT_PATHEXT)
    } else {
        found
    }
}

/// Whether `path`'s extension is one of `exts`, in any case.
fn has_extension_in(path: &Path, exts: &[&str]) -> bool {
    path.extension()
        .and_then(OsStr::to_str)
        .is_some_and(|ext| exts.iter().any(|e| e[1..].eq_ignore_ascii_case(ext)))
}

/// Returns the program `program` names, as
/// [`resolve_program`](crate::resolve_program) finds it, with `path_var`
/// for `PATH` and `PATHEXT` as it is now.
///
/// On Windows: a name containing `/`, `\` or `:` is `root` joined with it
/// (an absolute path stays as it is). A bare name is searched for in the
/// absolute entries of `path_var` only, each directory in turn: the name as
/// written when its extension is one `PATHEXT` lists, then the name with
/// each extension `PATHEXT` lists, in its order (a bare `fmt` finds
/// `fmt.exe`, or `fmt.cmd`). Only `.com`, `.exe`, `.bat` and `.cmd` are
/// ever searched for: `CreateProcess` starts nothing else without a shell's
/// file associations. `None` (no `PATH`) searches nowhere.
///
/// # Errors
/// [`ProcessError::NotFound`] when a bare name is in no absolute entry of
/// `path_var`, or `program` is empty.
pub fn resolve_program_in(
    program: &str,
    root: &Path,
    path_var: Option<&OsStr>,
) -> Result<PathBuf, ProcessError> {
    let pathext = std::env::var_os("PATHEXT");
    resolve_with(program, root, path_var, pathext.as_deref())
}

/// [`resolve_program_in`] with `pathext` for `PATHEXT`.
pub(crate) fn resolve_with(
    program: &str,
    root: &Path,
    path_var: Option<&OsStr>,
    pathext: Option<&OsStr>,
) -> Result<PathBuf, ProcessError> {
    let not_found = || ProcessError::NotFound {
        program: program.to_owned(),
    };
    if program.is_empty() {
        return Err(not_found());
    }
    if names_a_path(program) {
        return Ok(root.join(program));
    }
    let exts = extensions(pathext);
    let as_written = has_extension_in(Path::new(program), &exts);
    for dir in absolute_dirs(path_var.unwrap_or_default()) {
        if as_written {
            let path = dir.join(program);
            if is_file_with(&path, &exts) {
                return Ok(path);
            }
        }
        for ext in &exts {
            let path = dir.join(format!("{program}{ext}"));
            if is_file_with(&path, &exts) {
                return Ok(path);
            }
        }
    }
    Err(not_found())
}

/// Whether `path` is, after following links, a regular file with one of
/// `exts` for its extension.
fn is_file_with(path: &Path, exts: &[&str]) -> bool {
    has_extension_in(path, exts) && std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Returns whether `path` is, after following links, a regular file that
/// Windows can start: its extension is `.com`, `.exe`, `.bat` or `.cmd`
/// and `PATHEXT` lists it (Windows has no execute bit; this is what the
/// search of `PATH` takes for a program).
pub fn is_executable(path: &Path) -> bool {
    let pathext = std::env::var_os("PATHEXT");
    is_file_with(path, &extensions(pathext.as_deref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, "").unwrap();
        path
    }

    #[test]
    fn pathext_orders_the_extensions_and_only_startable_ones_count() {
        let ext = |s: &str| extensions(Some(OsStr::new(s)));
        assert_eq!(ext(".CMD;.EXE"), [".cmd", ".exe"]);
        assert_eq!(ext(".VBS;.exe;.JS;.EXE"), [".exe"]);
        assert_eq!(
            ext(".PY;.VBS"),
            [".com", ".exe", ".bat", ".cmd"],
            "none: the default"
        );
        assert_eq!(extensions(None), [".com", ".exe", ".bat", ".cmd"]);
    }

    #[test]
    fn a_bare_name_is_found_with_pathext_in_absolute_entries_only() {
        let (root, first, second) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        let (r, a, b) = (root.path(), first.path(), second.path());
        file(r, "fmt.exe"); // planted in the working directory
        file(a, "fmt"); // no extension: never run
        file(a, "fmt.vbs"); // a shell's file association: never run
        let cmd = file(b, "fmt.cmd");
        let exe = file(b, "fmt.exe");
        let path_var = std::env::join_paths([a, b]).unwrap();
        let find = |name: &str, path_var: &OsStr, pathext: &str| {
            resolve_with(name, r, Some(path_var), Some(OsStr::new(pathext)))
        };
        assert_eq!(find("fmt", &path_var, ".COM;.EXE;.BAT;.CMD").unwrap(), exe);
        assert_eq!(find("fmt", &path_var, ".CMD;.EXE;.VBS").unwrap(), cmd);
        // Written with its extension, in any case.
        assert_eq!(
            find("fmt.CMD", &path_var, ".EXE;.CMD").unwrap(),
            b.join("fmt.CMD")
        );
        // An extension PATHEXT does not list is not searched as written.
        assert!(find("fmt.vbs", &path_var, ".EXE;.VBS").is_err());
        // Relative entries, the working directory's included, never count.
        let relative = OsString::from(".;;bin;\\;.\\sub");
        assert!(matches!(
            find("fmt", &relative, ".EXE"),
            Err(ProcessError::NotFound { .. })
        ));
        assert!(
            resolve_with("fmt", r, None, None).is_err(),
            "no PATH, no search"
        );
        assert!(find("", &path_var, ".EXE").is_err());
        // Containing `/`, `\` or `:`: the root's, never PATH's.
        for path in ["./fmt.cmd", ".\\fmt.cmd", "sub/fmt"] {
            assert_eq!(find(path, &path_var, ".EXE").unwrap(), r.join(path));
        }
        assert_eq!(
            find("C:\\x\\y.exe", &path_var, ".EXE").unwrap(),
            Path::new("C:\\x\\y.exe")
        );
    }

    /// A program is a regular file with a startable extension `PATHEXT`
    /// lists: never one without, never a directory.
    #[test]
    fn an_executable_is_a_file_with_a_startable_extension() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let exts = [".exe", ".cmd"];
        assert!(is_file_with(&file(d, "tool.EXE"), &exts));
        assert!(is_file_with(&file(d, "tool.cmd"), &exts));
        assert!(!is_file_with(&file(d, "tool.bat"), &exts), "not listed");
        assert!(!is_file_with(&file(d, "tool"), &exts));
        assert!(!is_file_with(&file(d, "tool.txt"), &exts));
        std::fs::create_dir(d.join("folder.exe")).unwrap();
        assert!(!is_file_with(&d.join("folder.exe"), &exts), "a directory");
        assert!(!is_file_with(&d.join("missing.exe"), &exts));
        // With this process's PATHEXT, which lists `.exe` wherever Windows
        // runs (wine's included), or the default's.
        assert!(is_executable(&d.join("tool.EXE")));
        assert!(!is_executable(&d.join("tool.txt")));
        assert!(!is_executable(&d.join("folder.exe")));
    }

    #[test]
    fn only_absolute_entries_reach_the_child() {
        for (path, only_absolute) in [
            ("C:\\bin;D:\\tools", true),
            ("\"C:\\Program Files\\x\";C:\\bin", true),
            ("C:\\bin;;D:\\tools", false),
            (".;C:\\bin", false),
            ("C:\\bin;bin", false),
            ("\\bin;C:\\bin", false),
            ("", false),
        ] {
            let path = OsStr::new(path);
            assert_eq!(only_absolute_entries(path), only_absolute, "{path:?}");
        }
        assert_eq!(
            absolute_entries(OsStr::new(".;C:\\bin;;bin;D:\\t")),
            "C:\\bin;D:\\t"
        );
        assert_eq!(absolute_entries(OsStr::new("")), "");
    }
}
