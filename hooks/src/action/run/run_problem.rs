//! What building the hooks finds wrong with a `run` hook's program
//! ([`RunProblem`]), in words for an operator, with what to do about it.

use std::fmt;
use std::path::{Path, PathBuf};

/// The key that chooses the action, which its problems name.
pub(crate) const KEY: &str = "run";
use crate::action::shell::{not_expanded_hint, write_not_expanded};
use crate::message::Shown;
use crate::paste::command_on;

/// Something that will make a `run` hook fail each time it fires, found
/// when the hooks were built, in the words a [`Problem`](crate::Problem) says.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) enum RunProblem {
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
    NotRegular {
        /// The program as written.
        program: String,
        /// The file.
        path: PathBuf,
        /// What it is, as `a FIFO`.
        kind: &'static str,
    },
    /// The program is a directory.
    IsDirectory {
        /// The program as written.
        program: String,
        /// The directory.
        path: PathBuf,
    },
    /// The program holds a `~`, `$NAME` or `${NAME}` that a shell would
    /// expand, which a hook takes literally because there is no shell.
    NotExpanded {
        /// The program as written.
        text: String,
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
    /// The program holds a space and names no file: a whole shell line in
    /// one element (`run = ["notify-send hello"]`), which a hook, having no
    /// shell, would look up as one program named `notify-send hello`.
    ShellLine {
        /// The whole `run` array as written; the program is its first
        /// element.
        argv: Vec<String>,
    },
}

impl RunProblem {
    /// What the operator can do about it (see [`Problem::hint`](crate::Problem::hint)).
    pub(crate) fn hint(&self) -> Option<String> {
        Some(match self {
            RunProblem::NotInPath {
                in_root: Some(local),
                ..
            } => format!("to run the file in the hooks' root, write `{local}`"),
            RunProblem::NotInPath { program, .. } => format!(
                "install `{program}`, or name it by its path (`/usr/local/bin/{program}`, `./scripts/{program}`)"
            ),
            RunProblem::NoSuchProgram { .. } => "a program containing `/` is relative to the \
                 hooks' root: write its path from there (`./scripts/NAME`) or in full"
                .to_owned(),
            #[cfg(windows)]
            RunProblem::NotExecutable { .. } | RunProblem::LinkNotExecutable { .. } => {
                WINDOWS_NOT_EXECUTABLE.to_owned()
            }
            #[cfg(not(windows))]
            RunProblem::NotExecutable { path, .. } => {
                format!("make it executable: {}", command_on("chmod +x", path))
            }
            #[cfg(not(windows))]
            RunProblem::LinkNotExecutable {
                out_of_root: true, ..
            } => "it leads out of the hooks' root, so no command here changes it: point the \
                  hook at a program in the root, or name the program by its own path"
                .to_owned(),
            #[cfg(not(windows))]
            RunProblem::LinkNotExecutable { target, .. } => {
                format!("make it executable: {}", command_on("chmod +x", target))
            }
            RunProblem::NotRegular { .. } => {
                "name a program: a regular file, executable, that the hook runs".to_owned()
            }
            RunProblem::IsDirectory { .. } => "name the program inside it".to_owned(),
            RunProblem::ShellLine { argv } => shell_line_hint(argv),
            RunProblem::NotExpanded { .. } => not_expanded_hint(),
            #[cfg(windows)]
            RunProblem::NotAProgram { .. } => WINDOWS_NOT_A_PROGRAM.to_owned(),
            #[cfg(not(windows))]
            RunProblem::NotAProgram { .. } => "make its first line `#!` and the interpreter \
                 that runs it, as in `#!/bin/sh`"
                .to_owned(),
            RunProblem::ShebangCarriageReturn { path, .. } => format!(
                "save it with Unix line endings: {}",
                command_on(r"sed -i 's/\r$//'", path)
            ),
            RunProblem::NoInterpreter {
                interpreter,
                via_env: true,
                ..
            } => format!(
                "install `{}`, or change the `#!` line to an interpreter that is installed",
                Shown(interpreter)
            ),
            RunProblem::NoInterpreter { .. } => {
                "change the `#!` line to an interpreter that exists, as in `#!/bin/sh`".to_owned()
            }
        })
    }

    /// What the operator can do about it, none in the kernel's trees
    /// ([`Problem::hint`](crate::Problem::hint)).
    pub(crate) fn operator_hint(&self) -> Option<String> {
        crate::action::problem_kind::hint(self.path(), self.hint())
    }

    /// The file the problem is about, when it is about one.
    pub(crate) fn path(&self) -> Option<&Path> {
        match self {
            RunProblem::NotInPath { .. }
            | RunProblem::ShellLine { .. }
            | RunProblem::NotExpanded { .. } => None,
            RunProblem::LinkNotExecutable { target, .. } => Some(target),
            RunProblem::NoSuchProgram { path, .. }
            | RunProblem::NotExecutable { path, .. }
            | RunProblem::NotRegular { path, .. }
            | RunProblem::IsDirectory { path, .. }
            | RunProblem::NotAProgram { path, .. }
            | RunProblem::ShebangCarriageReturn { path, .. }
            | RunProblem::NoInterpreter { path, .. } => Some(path),
        }
    }
}

/// The hint for a program Windows does not start by its extension (there is
/// no execute bit to set).
#[cfg(windows)]
const WINDOWS_NOT_EXECUTABLE: &str = "Windows starts a program by its extension: name a \
    `.exe`, `.com`, `.bat` or `.cmd` that `PATHEXT` lists, or run the file through its \
    interpreter (`run = [\"python\", \"hook.py\"]`)";

/// The hint for a `.exe` or `.com` that is not a Windows program.
#[cfg(windows)]
const WINDOWS_NOT_A_PROGRAM: &str = "name a program built for Windows (a `.exe` begins with \
    `MZ`), or run the file through its interpreter (`run = [\"python\", \"hook.py\"]`): a \
    `#!` line starts nothing on Windows";

impl fmt::Display for RunProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunProblem::NotInPath { program, .. } => write!(
                f,
                "`{program}` is not an executable file in any absolute `PATH` entry (a bare \
                 name is looked up in `PATH` only, never in the hooks' root, and relative \
                 entries such as `.` are skipped)"
            ),
            RunProblem::NoSuchProgram { program, path } => {
                write!(f, "`{program}`: there is no `{}`", path.display())
            }
            RunProblem::NotExecutable { program, path } => {
                write!(f, "`{program}`: `{}` is not executable", path.display())
            }
            RunProblem::LinkNotExecutable {
                program,
                path,
                target,
                out_of_root,
            } => link_not_executable(f, program, path, target, *out_of_root),
            RunProblem::NotRegular {
                program,
                path,
                kind,
            } => write!(
                f,
                "`{program}`: `{}` is {kind}, not a program (a program is a regular file)",
                path.display()
            ),
            RunProblem::IsDirectory { program, path } => {
                write!(f, "`{program}`: `{}` is a directory", path.display())
            }
            RunProblem::ShellLine { argv } => write!(
                f,
                "`{KEY}[1]` = `{}` looks like a shell line: a hook runs no shell, so it would \
                 look for one program of that whole name, spaces included",
                Shown(argv.first().map_or("", String::as_str))
            ),
            RunProblem::NotExpanded { text } => write_not_expanded(f, &format!("{KEY}[1]"), text),
            RunProblem::NotAProgram { program, path } => write!(
                f,
                "`{program}`: `{}` cannot be started: it neither begins with a `#!` line \
                 naming its interpreter nor is a binary this system runs",
                path.display()
            ),
            RunProblem::ShebangCarriageReturn { program, path } => write!(
                f,
                "`{program}`: the `#!` line of `{}` ends in a carriage return (`\\r`, a \
                 Windows line ending), so the system looks for an interpreter whose name \
                 ends in one",
                path.display()
            ),
            RunProblem::NoInterpreter {
                program,
                path,
                interpreter,
                via_env,
            } => no_interpreter(f, program, path, interpreter, *via_env),
        }
    }
}

/// What separates the words of a shell line as an operator types it.
pub(crate) const WORD_GAP: [char; 2] = [' ', '\t'];

/// What a shell would read specially in a line: with one of these, the
/// line's words alone would not do what it says.
const SHELL_SYNTAX: &[char] = &[
    '|', '&', ';', '<', '>', '(', ')', '$', '`', '\\', '"', '\'', '*', '?', '[', '#', '~', '=',
];

/// [`RunProblem::ShellLine`]'s hint: the array split into words, written as
/// TOML to paste; or, for a line a shell must read (a pipe, quotes, `$`),
/// that shell named as the program.
fn shell_line_hint(argv: &[String]) -> String {
    let line = argv.first().map_or("", String::as_str);
    if line.contains(SHELL_SYNTAX) {
        return match argv {
            [_] => format!(
                "it uses a shell's syntax, which only a shell reads: name the shell as the \
                 program, as in `{KEY} = [\"sh\", \"-c\", {}]`",
                TomlString(line)
            ),
            _ => "it uses a shell's syntax, which only a shell reads: split it into one word \
                  per element, or name the shell as the program (`\"sh\", \"-c\", …`)"
                .to_owned(),
        };
    }
    let words: Vec<String> = line
        .split(WORD_GAP)
        .filter(|word| !word.is_empty())
        .chain(argv.iter().skip(1).map(String::as_str))
        .map(|word| TomlString(word).to_string())
        .collect();
    format!(
        "split it into an array, one word per element: `{KEY} = [{}]`",
        words.join(", ")
    )
}

/// A string as a TOML basic string, to paste into a file: `"` and `\`
/// escaped, and every control or invisible character as `\uXXXX`.
struct TomlString<'a>(&'a str);

impl fmt::Display for TomlString<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"")?;
        for c in self.0.chars() {
            match c {
                '"' => f.write_str("\\\"")?,
                '\\' => f.write_str("\\\\")?,
                c if c.is_control() || crate::message::is_invisible(c) => {
                    write!(f, "\\U{:08X}", u32::from(c))?;
                }
                c => write!(f, "{c}")?,
            }
        }
        f.write_str("\"")
    }
}

/// [`RunProblem::LinkNotExecutable`]'s message.
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

/// [`RunProblem::NoInterpreter`]'s message.
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
/// and `source()` returns nothing.
impl std::error::Error for RunProblem {}
