//! What building the hooks finds wrong, as data: [`Problem`].
//!
//! Each action checks its own hooks when they are built (`action/run/check.rs`,
//! `action/append/file.rs`), and these are the only build-time checks:
//! [`Hooks::new`] runs them (and logs each problem once, at warn level),
//! [`Hooks::check`] runs them without creating any file, and both hand the
//! list back to the caller as these types.
//!
//! [`Hooks::new`]: crate::Hooks::new
//! [`Hooks::check`]: crate::Hooks::check

use std::fmt;
use std::path::{Path, PathBuf};

/// Something that will make one hook fail each time it fires, found when the
/// hooks were built. Its `Display` is one line for an operator, starting
/// `hook[N]: `; [`hint`](Self::hint) says what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Problem {
    /// The hook's position in [`Hooks::specs`](crate::Hooks::specs), from 0.
    pub index: usize,
    /// What is wrong.
    pub kind: ProblemKind,
}

impl Problem {
    /// The hook's number as messages write it, `hook[N]`: counted from 1.
    pub fn number(&self) -> usize {
        self.index + 1
    }

    /// What the operator can do about it, when there is something to say.
    pub fn hint(&self) -> Option<String> {
        self.kind.hint()
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hook[{}]: {}", self.number(), self.kind)
    }
}

/// An error, so that a host may return it with `?`. As for the crate's
/// errors, `Display` says all of it (the kind's text after `hook[N]: `)
/// and `source()` returns nothing, so a chain printer says nothing twice;
/// the kind is the public [`kind`](Self::kind) field.
impl std::error::Error for Problem {}

/// What is wrong with one hook, as found when the hooks were built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProblemKind {
    /// A bare program name (no `/`) is not an executable file in any
    /// absolute `PATH` entry.
    NotInPath {
        /// The program as written.
        program: String,
        /// `./NAME`, when the hooks' root holds a file of that name.
        in_root: Option<String>,
    },
    /// A program containing `/`, taken relative to the hooks' root, does
    /// not exist.
    NoSuchProgram {
        /// The program as written.
        program: String,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// The program exists but is not executable.
    NotExecutable {
        /// The program as written.
        program: String,
        /// The file.
        path: PathBuf,
    },
    /// The program is reached through a symbolic link (at its end or on
    /// its way), and the file it leads to is not executable. A hint then
    /// names that file, never the link: `chmod` follows a link, and a
    /// link a repository committed can lead out of the hooks' root.
    LinkNotExecutable {
        /// The program as written.
        program: String,
        /// The path as looked for, through the link.
        path: PathBuf,
        /// Where the link leads, every link followed.
        target: PathBuf,
        /// Whether that is outside the hooks' root, where no hint points.
        out_of_root: bool,
    },
    /// The program is not a regular file: a FIFO, a socket or a device,
    /// which no system runs.
    ProgramNotRegular {
        /// The program as written.
        program: String,
        /// The file.
        path: PathBuf,
        /// What it is, as `a FIFO`.
        kind: &'static str,
    },
    /// The program is a directory.
    ProgramIsDirectory {
        /// The program as written.
        program: String,
        /// The directory.
        path: PathBuf,
    },
    /// A `~`, `$NAME` or `${NAME}` that a shell would expand, which a hook
    /// takes literally because there is no shell.
    NotExpanded {
        /// `run[N]` (from 1) or `append`.
        key: String,
        /// The text as written.
        text: String,
    },
    /// The `append` path is a directory.
    AppendIsDirectory {
        /// The path.
        path: PathBuf,
    },
    /// The `append` path is a symbolic link, which an append never follows.
    AppendIsSymlink {
        /// The path.
        path: PathBuf,
    },
    /// The `append` path exists and is not a regular file (a FIFO, a socket,
    /// a device).
    AppendNotRegular {
        /// The path.
        path: PathBuf,
    },
    /// The directory the `append` file would be created in does not exist.
    AppendNoParent {
        /// The path.
        path: PathBuf,
        /// Its missing directory.
        parent: PathBuf,
    },
    /// The `append` path is under the hooks' root and leads out of it:
    /// through `..`, or a directory that is a symbolic link to somewhere
    /// outside (a clone's `logs -> ~/.bashrc.d`).
    AppendLeavesRoot {
        /// The path.
        path: PathBuf,
        /// The link, as written under the root, when one was found.
        through: Option<String>,
    },
    /// The `append` file could not be created for another reason.
    AppendCannotCreate {
        /// The path.
        path: PathBuf,
        /// The system's reason, as an operator reads it.
        cause: String,
    },
    /// The program is an executable file the system cannot start: it does
    /// not begin with a `#!` line naming an interpreter, nor is it a binary
    /// of this system's format (ELF; Mach-O on macOS). `execve` refuses it
    /// with "Exec format error".
    NotAProgram {
        /// The program as written.
        program: String,
        /// The file.
        path: PathBuf,
    },
    /// The program's `#!` line ends in a carriage return: the file was saved
    /// with Windows line endings, so the system looks for an interpreter
    /// whose name ends in `\r`, and finds none.
    ShebangCarriageReturn {
        /// The program as written.
        program: String,
        /// The file.
        path: PathBuf,
    },
    /// The interpreter the program's `#!` line names cannot be found: not
    /// an executable file, or, for `#!/usr/bin/env NAME`, `NAME` is not an
    /// executable file in any absolute `PATH` entry.
    NoInterpreter {
        /// The program as written.
        program: String,
        /// The file.
        path: PathBuf,
        /// The interpreter as the `#!` line writes it (or the `NAME` after
        /// `env`), from the file's first 256 bytes, lossily decoded: it
        /// comes from the file, so `Display` escapes it and shows at most
        /// 80 characters of it.
        interpreter: String,
        /// Whether it was named through `env`, so looked up in `PATH`.
        via_env: bool,
    },
}

/// How much of a program is read to tell how it starts: the most of a `#!`
/// line Linux reads (`BINPRM_BUF_SIZE`, 256 bytes since 5.1).
pub(crate) const HEAD: usize = 256;

impl ProblemKind {
    /// What the operator can do about it: a command or an edit that fixes
    /// it, or `None` when there is none to give. A path under `/proc`, `/sys`
    /// or `/dev` (but `/dev/shm`, an ordinary file system) gets none: the
    /// kernel owns those, and no `mkdir` or `chmod` there makes a hook work.
    pub fn hint(&self) -> Option<String> {
        if self.path().is_some_and(is_kernels) {
            return None;
        }
        Some(match self {
            ProblemKind::NotInPath {
                in_root: Some(local),
                ..
            } => format!("to run the file in the hooks' root, write `{local}`"),
            ProblemKind::NotInPath { program, .. } => format!(
                "install `{program}`, or name it by its path (`/usr/local/bin/{program}`, `./scripts/{program}`)"
            ),
            ProblemKind::NoSuchProgram { .. } => "a program containing `/` is relative to the \
                 hooks' root: write its path from there (`./scripts/NAME`) or in full"
                .to_owned(),
            ProblemKind::NotExecutable { path, .. } => {
                format!("make it executable: chmod +x {}", Quoted(path))
            }
            ProblemKind::LinkNotExecutable {
                out_of_root: true, ..
            } => "it leads out of the hooks' root, so no command here changes it: point the \
                  hook at a program in the root, or name the program by its own path"
                .to_owned(),
            ProblemKind::LinkNotExecutable { target, .. } => {
                format!("make it executable: chmod +x {}", Quoted(target))
            }
            ProblemKind::ProgramNotRegular { .. } => {
                "name a program: a regular file, executable, that the hook runs".to_owned()
            }
            ProblemKind::ProgramIsDirectory { .. } => "name the program inside it".to_owned(),
            ProblemKind::NotExpanded { .. } => "write the absolute path in its place: nothing \
                 expands `~` or `$NAME`, because a hook never runs through a shell"
                .to_owned(),
            ProblemKind::AppendIsDirectory { .. } => {
                "name a file, as in `append = \"logs/audit.jsonl\"`".to_owned()
            }
            ProblemKind::AppendIsSymlink { .. } => "name the file the link points to".to_owned(),
            ProblemKind::AppendNotRegular { .. } => "name a regular file".to_owned(),
            ProblemKind::AppendNoParent { parent, .. } => {
                format!("create it: mkdir -p {}", Quoted(parent))
            }
            ProblemKind::AppendLeavesRoot { .. } => leaves_root_hint(),
            ProblemKind::AppendCannotCreate { .. } => return None,
            ProblemKind::NotAProgram { .. } => "make its first line `#!` and the interpreter \
                 that runs it, as in `#!/bin/sh`"
                .to_owned(),
            ProblemKind::ShebangCarriageReturn { path, .. } => format!(
                "save it with Unix line endings: sed -i 's/\\r$//' {}",
                Quoted(path)
            ),
            ProblemKind::NoInterpreter {
                interpreter,
                via_env: true,
                ..
            } => format!(
                "install `{}`, or change the `#!` line to an interpreter that is installed",
                Shown(interpreter)
            ),
            ProblemKind::NoInterpreter { .. } => {
                "change the `#!` line to an interpreter that exists, as in `#!/bin/sh`".to_owned()
            }
        })
    }

    /// The file the problem is about, when it is about one.
    fn path(&self) -> Option<&Path> {
        match self {
            ProblemKind::NotInPath { .. } | ProblemKind::NotExpanded { .. } => None,
            ProblemKind::LinkNotExecutable { target, .. } => Some(target),
            ProblemKind::NoSuchProgram { path, .. }
            | ProblemKind::NotExecutable { path, .. }
            | ProblemKind::ProgramNotRegular { path, .. }
            | ProblemKind::ProgramIsDirectory { path, .. }
            | ProblemKind::AppendIsDirectory { path }
            | ProblemKind::AppendIsSymlink { path }
            | ProblemKind::AppendNotRegular { path }
            | ProblemKind::AppendNoParent { path, .. }
            | ProblemKind::AppendLeavesRoot { path, .. }
            | ProblemKind::AppendCannotCreate { path, .. }
            | ProblemKind::NotAProgram { path, .. }
            | ProblemKind::ShebangCarriageReturn { path, .. }
            | ProblemKind::NoInterpreter { path, .. } => Some(path),
        }
    }
}

/// Whether `path` is under `/proc`, `/sys` or `/dev`, the kernel's own
/// trees (`/dev/shm`, an ordinary file system, aside).
fn is_kernels(path: &Path) -> bool {
    ["/proc", "/sys", "/dev"]
        .iter()
        .any(|tree| path.starts_with(tree))
        && !path.starts_with("/dev/shm")
}

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProblemKind::NotInPath { program, .. } => write!(
                f,
                "`{program}` is not an executable file in any absolute `PATH` entry (a bare \
                 name is looked up in `PATH` only, never in the hooks' root, and relative \
                 entries such as `.` are skipped)"
            ),
            ProblemKind::NoSuchProgram { program, path } => {
                write!(f, "`{program}`: there is no `{}`", path.display())
            }
            ProblemKind::NotExecutable { program, path } => {
                write!(f, "`{program}`: `{}` is not executable", path.display())
            }
            ProblemKind::LinkNotExecutable {
                program,
                path,
                target,
                out_of_root,
            } => link_not_executable(f, program, path, target, *out_of_root),
            ProblemKind::ProgramNotRegular {
                program,
                path,
                kind,
            } => write!(
                f,
                "`{program}`: `{}` is {kind}, not a program (a program is a regular file)",
                path.display()
            ),
            ProblemKind::ProgramIsDirectory { program, path } => {
                write!(f, "`{program}`: `{}` is a directory", path.display())
            }
            ProblemKind::NotExpanded { key, text } => write!(
                f,
                "`{key}` = `{text}`: the `~` or `$` is taken literally, because there is no shell"
            ),
            ProblemKind::AppendIsDirectory { path } => {
                write!(f, "append: `{}` is a directory", path.display())
            }
            ProblemKind::AppendIsSymlink { path } => write!(
                f,
                "append: `{}` is a symbolic link, which an append hook never follows",
                path.display()
            ),
            ProblemKind::AppendNotRegular { path } => {
                write!(f, "append: `{}` is not a regular file", path.display())
            }
            ProblemKind::AppendNoParent { path, parent } => write!(
                f,
                "append: `{}` cannot be created: there is no directory `{}`",
                path.display(),
                parent.display()
            ),
            ProblemKind::AppendLeavesRoot { path, through } => leaves_root(f, path, through),
            ProblemKind::AppendCannotCreate { path, cause } => {
                write!(f, "append: `{}` cannot be created: {cause}", path.display())
            }
            ProblemKind::NotAProgram { program, path } => write!(
                f,
                "`{program}`: `{}` cannot be started: it neither begins with a `#!` line \
                 naming its interpreter nor is a binary this system runs",
                path.display()
            ),
            ProblemKind::ShebangCarriageReturn { program, path } => write!(
                f,
                "`{program}`: the `#!` line of `{}` ends in a carriage return (`\\r`, a \
                 Windows line ending), so the system looks for an interpreter whose name \
                 ends in one",
                path.display()
            ),
            ProblemKind::NoInterpreter {
                program,
                path,
                interpreter,
                via_env,
            } => no_interpreter(f, program, path, interpreter, *via_env),
        }
    }
}

/// [`ProblemKind::LinkNotExecutable`]'s message.
fn link_not_executable(
    f: &mut fmt::Formatter<'_>,
    program: &str,
    path: &Path,
    target: &Path,
    out_of_root: bool,
) -> fmt::Result {
    write!(
        f,
        "`{program}`: `{}` is a symbolic link to `{}`, which is not executable",
        path.display(),
        target.display(),
    )?;
    if out_of_root {
        f.write_str(" and lies outside the hooks' root")?;
    }
    Ok(())
}

/// [`ProblemKind::NoInterpreter`]'s message.
fn no_interpreter(
    f: &mut fmt::Formatter<'_>,
    program: &str,
    path: &Path,
    interpreter: &str,
    via_env: bool,
) -> fmt::Result {
    if via_env {
        write!(
            f,
            "`{program}`: the `#!` line of `{}` runs `{}` through `env`, and it is not an \
             executable file in any absolute `PATH` entry",
            path.display(),
            Shown(interpreter)
        )
    } else {
        write!(
            f,
            "`{program}`: the `#!` line of `{}` names the interpreter `{}`, which is not an \
             executable file",
            path.display(),
            Shown(interpreter)
        )
    }
}

/// An error, so that it can stand on its own; its `Display` says all of it,
/// and `source()` returns nothing (a cause it quotes, such as
/// [`AppendCannotCreate`](Self::AppendCannotCreate)'s, is text in it).
impl std::error::Error for ProblemKind {}

/// Whether `c` reorders how a terminal shows the text around it: the
/// embeddings and overrides (U+202A to U+202E), the isolates (U+2066 to
/// U+2069) and the three invisible marks (U+200E, U+200F, U+061C). Text
/// from outside shown with one of them unescaped can read in another order
/// than its bytes hold ("Trojan Source"); this crate's messages escape
/// them, and an embedder escaping its own output can use the same list.
///
/// ```
/// assert!(io_hooks::text::is_bidi('\u{202e}'));
/// assert!(!io_hooks::text::is_bidi('a'));
/// ```
pub fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

/// Whether `c` shows as nothing, or breaks a line, on a terminal without
/// being a control character: the bidirectional characters
/// ([`is_bidi`]), the zero-width ones (U+200B to U+200D, U+2060 to
/// U+2064, the byte order mark U+FEFF, the soft hyphen U+00AD, U+180E),
/// the deprecated format characters U+206A to U+206F, the line and
/// paragraph separators U+2028 and U+2029 (a line break to a terminal
/// that honours them), the interlinear annotation marks U+FFF9 to U+FFFB,
/// the Hangul fillers, the musical format characters and the tag
/// characters U+E0000 to U+E007F (which can spell text no one sees).
/// Outside text shown with one unescaped can say more, or other, than it
/// appears to; this crate's messages escape them, as `io` does its output.
///
/// ```
/// assert!(io_hooks::text::is_invisible('\u{feff}'));
/// assert!(io_hooks::text::is_invisible('\u{e0041}'));
/// assert!(io_hooks::text::is_invisible('\u{202e}'));
/// assert!(!io_hooks::text::is_invisible('é'));
/// ```
pub fn is_invisible(c: char) -> bool {
    is_bidi(c)
        || matches!(
            c,
            '\u{ad}'
                | '\u{115f}'
                | '\u{1160}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200d}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{2060}'..='\u{206f}'
                | '\u{3164}'
                | '\u{feff}'
                | '\u{ffa0}'
                | '\u{fff9}'..='\u{fffb}'
                | '\u{1d173}'..='\u{1d17a}'
                | '\u{e0000}'..='\u{e007f}'
        )
}

/// Text read from a file, as a message shows it: every control character
/// and bidirectional control escaped (`\r`, `\x1b`, `\u{202e}`), and at most
/// [`SHOWN`] characters of it, then `…`.
struct Shown<'a>(&'a str);

/// The most characters of a file's text a message shows.
const SHOWN: usize = 80;

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.0.chars().enumerate() {
            if i == SHOWN {
                return f.write_str("…");
            }
            match c {
                '\r' => f.write_str("\\r")?,
                '\n' => f.write_str("\\n")?,
                '\t' => f.write_str("\\t")?,
                c if c.is_control() || is_invisible(c) => {
                    let code = u32::from(c);
                    if code <= 0xff {
                        write!(f, "\\x{code:02x}")?;
                    } else {
                        write!(f, "\\u{{{code:x}}}")?;
                    }
                }
                c => write!(f, "{c}")?,
            }
        }
        Ok(())
    }
}

/// A path as a POSIX shell reads it back as one word: as it is when it
/// holds only characters no shell treats specially, else in single quotes
/// (a `'` in it written `'\''`). A hint's command is meant to be pasted.
struct Quoted<'a>(&'a Path);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.0.to_string_lossy();
        let plain = !text.is_empty()
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:@".contains(&b));
        if plain {
            return f.write_str(&text);
        }
        f.write_str("'")?;
        for (i, part) in text.split('\'').enumerate() {
            if i > 0 {
                f.write_str("'\\''")?;
            }
            f.write_str(part)?;
        }
        f.write_str("'")
    }
}

/// [`ProblemKind::AppendLeavesRoot`]'s message.
fn leaves_root(f: &mut fmt::Formatter<'_>, path: &Path, through: &Option<String>) -> fmt::Result {
    write!(
        f,
        "append: `{}` leads out of the hooks' root",
        path.display()
    )?;
    match through {
        Some(link) => write!(f, " through the symbolic link `{link}`"),
        None => f.write_str(" (through `..` or a symbolic link)"),
    }
}

/// [`ProblemKind::AppendLeavesRoot`]'s hint.
fn leaves_root_hint() -> String {
    "a relative `append` path is opened beneath the hooks' root and follows no link out \
     of it; name a file under that root, or write an absolute path to append outside it"
        .to_owned()
}

/// Whether a shell would have expanded something in `text`: a leading `~`,
/// or `$` followed by a name or `{`.
pub(crate) fn shell_would_expand(text: &str) -> bool {
    if text.starts_with('~') {
        return true;
    }
    let bytes = text.as_bytes();
    bytes
        .windows(2)
        .any(|w| w[0] == b'$' && (w[1] == b'{' || w[1] == b'_' || w[1].is_ascii_alphabetic()))
}

/// The part of `path` the operator wrote: the path relative to `root` when it
/// is under it.
pub(crate) fn as_written<'a>(path: &'a Path, root: &Path) -> &'a Path {
    path.strip_prefix(root).unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hint_path_is_one_word_to_a_shell() {
        let shown = |p: &str| Quoted(Path::new(p)).to_string();
        assert_eq!(shown("/a/b-c_d.e+f,g:h@i"), "/a/b-c_d.e+f,g:h@i");
        assert_eq!(shown("/my logs"), "'/my logs'");
        assert_eq!(shown("/it's"), "'/it'\\''s'");
        assert_eq!(shown("/$HOME/`x`"), "'/$HOME/`x`'");
        assert_eq!(shown(""), "''");
    }

    #[test]
    fn the_kernels_trees_get_no_hint() {
        for path in [
            "/proc/x",
            "/proc",
            "/sys/kernel/x",
            "/dev/null",
            "/dev/nope/a",
        ] {
            assert!(is_kernels(Path::new(path)), "{path}");
            let kind = ProblemKind::AppendNoParent {
                path: PathBuf::from(path),
                parent: PathBuf::from(path),
            };
            assert_eq!(kind.hint(), None, "{path}");
        }
        for path in [
            "/dev/shm/x",
            "/process/x",
            "/devices",
            "/tmp/proc",
            "proc/x",
        ] {
            assert!(!is_kernels(Path::new(path)), "{path}");
        }
    }

    #[test]
    fn text_from_a_file_is_escaped_and_cut() {
        let shown = Shown("a\r\n\t\x1b[1m\u{202e}\u{7f}é").to_string();
        assert_eq!(shown, "a\\r\\n\\t\\x1b[1m\\u{202e}\\x7fé");
        let long = "x".repeat(SHOWN + 1);
        assert_eq!(Shown(&long).to_string(), format!("{}…", "x".repeat(SHOWN)));
        let exact = "x".repeat(SHOWN);
        assert_eq!(Shown(&exact).to_string(), exact);
    }

    #[test]
    fn what_a_shell_would_expand_is_recognised() {
        for yes in [
            "~",
            "~/a",
            "~bob/x",
            "$HOME/bin",
            "${HOME}/x",
            "a$_b",
            "--to=$USER",
        ] {
            assert!(shell_would_expand(yes), "{yes}");
        }
        for no in ["a~b", "$", "$1", "cost$", "plain", "$$", "a/$-"] {
            assert!(!shell_would_expand(no), "{no}");
        }
    }
}
