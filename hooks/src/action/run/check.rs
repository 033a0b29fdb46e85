//! What would make a hook fail each time it fires, found without running it
//! or creating anything: the checks [`Hooks::check`](crate::Hooks::check)
//! and [`Hooks::new`](crate::Hooks::new) run.
//!
//! **Only the program is judged, never an argument.** An argument is the
//! program's own business: in `run = ["sh", "-c", "echo \"$HOME\""]` the `$`
//! is the shell's to expand, as intended. The program itself (`run[1]`) and
//! an `append` path are ours, and no shell expands a `~` or `$` in them.
//!
//! **A program that exists must also be able to start.** `execve` refuses a
//! file that neither begins with `#!` nor is a binary of this system's
//! format, and a `#!` line whose interpreter is missing (or ends in `\r`,
//! a Windows line ending) fails every event. So the first bytes of the
//! program are read, never run, through io-beneath: the path is made
//! canonical first, so a link in `PATH` such as `/usr/bin/python3 ->
//! python3.12` is followed by us, and the program's own directory, as the
//! kernel will find it, is the root its one name is opened beneath (a
//! program may lie anywhere, outside the hooks' root, so the hooks' root is
//! no capability for it). That name is opened with no link followed
//! ([`Open::nofollow`]: one swapped in since is refused), judged before it
//! is opened (a FIFO or a device is refused, never waited on), and at most
//! [`HEAD`] bytes of it are read.
//!
//! **On Windows** (issue 47) there is no execute bit and no `#!` line: a
//! program is found with `PATHEXT` and judged by its extension
//! (io-supervisor's [`is_executable`]: `.com`, `.exe`, `.bat`, `.cmd`),
//! and by its kind: a `.exe` or `.com` must begin with `MZ` (the
//! executable format Windows loads), while a `.bat` or `.cmd` is text
//! `cmd.exe` reads, and starts whatever it holds.

use std::ffi::OsStr;
#[cfg(unix)]
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use io_beneath::{Open, Root};

use super::run_problem::{RunProblem, WORD_GAP};
use crate::action::shell::shell_would_expand;
use io_supervisor::{is_executable, resolve_program_in as resolve};

/// How much of a program is read to tell how it starts: the most of a `#!`
/// line Linux reads (`BINPRM_BUF_SIZE`, 256 bytes since 5.1).
const HEAD: usize = 256;

/// What would make `argv` fail each time it runs: its program holds a `~`
/// or `$` no shell will expand, is missing, not executable or a directory,
/// or cannot be started (see the module's documentation).
pub(crate) fn run(argv: &[String], root: &Path) -> Vec<RunProblem> {
    let program = argv.first().map(String::as_str).unwrap_or("");
    let path_var = std::env::var_os("PATH");
    // A whole shell line in one element: "not in PATH" and "install
    // `notify-send hello`" would be about a program nobody meant. A program
    // whose name holds a space and exists is run as it is. Only a space or
    // a tab, what separates a shell's words as typed: a `\r` or another
    // control character in a name is shown escaped as the name it is.
    if program.contains(WORD_GAP)
        && !resolve(program, root, path_var.as_deref()).is_ok_and(|path| path.exists())
    {
        return vec![RunProblem::ShellLine {
            argv: argv.to_vec(),
        }];
    }
    // Nothing else is said of such a program: every other finding (no such
    // file as `root/~/bin/x`) would be about a path nobody meant.
    if shell_would_expand(program) {
        return vec![RunProblem::NotExpanded {
            text: program.to_owned(),
        }];
    }
    let Ok(path) = resolve(program, root, path_var.as_deref()) else {
        let local = root.join(program);
        let in_root = (!program.is_empty() && local.is_file()).then(|| format!("./{program}"));
        return vec![RunProblem::NotInPath {
            program: program.to_owned(),
            in_root,
        }];
    };
    // `root/./x` shown as `root/x`.
    let path: PathBuf = path.components().collect();
    judge(program, path, root, path_var.as_deref())
        .into_iter()
        .collect()
}

/// What would keep `program`, found at `path`, from running: missing, a
/// directory, not a regular file, not executable, or unable to start.
fn judge(
    program: &str,
    path: PathBuf,
    root: &Path,
    path_var: Option<&OsStr>,
) -> Option<RunProblem> {
    let owned = || program.to_owned();
    let problem = match std::fs::metadata(&path) {
        Err(_) => RunProblem::NoSuchProgram {
            program: owned(),
            path,
        },
        Ok(meta) if meta.is_dir() => RunProblem::IsDirectory {
            program: owned(),
            path,
        },
        Ok(meta) if !meta.is_file() => RunProblem::NotRegular {
            program: owned(),
            path,
            kind: kind_of(&meta.file_type()),
        },
        Ok(_) if !is_executable(&path) => match through_link(&path, root) {
            Some((target, out_of_root)) => RunProblem::LinkNotExecutable {
                program: owned(),
                path,
                target,
                out_of_root,
            },
            None => RunProblem::NotExecutable {
                program: owned(),
                path,
            },
        },
        Ok(_) => return unstartable(owned(), path, root, path_var),
    };
    Some(problem)
}

/// Why the executable file `path` cannot start, read from its first bytes;
/// `None` when it can, or when it cannot be read (an execute-only binary)
/// or is no longer a regular file: nothing to judge, and the first event
/// will say.
fn unstartable(
    program: String,
    path: PathBuf,
    root: &Path,
    path_var: Option<&OsStr>,
) -> Option<RunProblem> {
    #[cfg(windows)]
    if is_batch(&path) {
        return None;
    }
    let head = head(&path)?;
    #[cfg(windows)]
    let started = {
        let _ = (root, path_var);
        windows_start(&head)
    };
    #[cfg(unix)]
    let started = start(&head, root, path_var);
    Some(match started {
        Start::Ok => return None,
        Start::Unknown => RunProblem::NotAProgram { program, path },
        Start::CarriageReturn => RunProblem::ShebangCarriageReturn { program, path },
        Start::NoInterpreter {
            interpreter,
            via_env,
        } => RunProblem::NoInterpreter {
            program,
            path,
            interpreter,
            via_env,
        },
    })
}

/// What a file that is neither a regular file nor a directory is.
#[cfg(windows)]
fn kind_of(_: &std::fs::FileType) -> &'static str {
    "a device or another file that is not a regular one"
}

/// Whether `path` names a batch file (`.bat`, `.cmd`): text `cmd.exe`
/// reads, with no format of its own to judge.
#[cfg(windows)]
fn is_batch(path: &Path) -> bool {
    path.extension()
        .and_then(OsStr::to_str)
        .is_some_and(|ext| ext.eq_ignore_ascii_case("bat") || ext.eq_ignore_ascii_case("cmd"))
}

/// How a `.exe` or `.com` whose first bytes are `head` starts on Windows:
/// a program Windows loads begins with `MZ`; anything else (a script saved
/// as `.exe`, a DOS `.com` no 64-bit Windows runs) does not start.
#[cfg(windows)]
fn windows_start(head: &[u8]) -> Start {
    match head.starts_with(b"MZ") {
        true => Start::Ok,
        false => Start::Unknown,
    }
}

/// What a file that is neither a regular file nor a directory is.
#[cfg(unix)]
fn kind_of(file_type: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_socket() {
        "a socket"
    } else if file_type.is_char_device() {
        "a character device"
    } else {
        "a block device"
    }
}

/// Where `path` leads when a symbolic link is on its way (every link
/// followed), and whether that lies outside `root` while `path` is in it:
/// a hint's `chmod` must name the file itself, and never one a link a
/// repository committed carries out of the root. `None` when no link is on
/// the way. For a message and a hint only: nothing is opened.
fn through_link(path: &Path, root: &Path) -> Option<(PathBuf, bool)> {
    let target = std::fs::canonicalize(path).ok()?;
    let written = std::path::absolute(path).ok()?;
    let real_root = std::fs::canonicalize(root).ok()?;
    // A link above the root, or above a program outside it, is the
    // operator's own way to a directory, not one on the program's way.
    let (unlinked, in_root) = match std::path::absolute(root)
        .ok()
        .and_then(|root| written.strip_prefix(root).ok().map(Path::to_path_buf))
    {
        Some(rest) => (real_root.join(rest), true),
        None => (
            std::fs::canonicalize(written.parent()?)
                .ok()?
                .join(written.file_name()?),
            false,
        ),
    };
    if target == unlinked {
        return None;
    }
    Some((target.clone(), in_root && !target.starts_with(real_root)))
}

/// How a program's first bytes say it starts.
#[derive(Debug, PartialEq, Eq)]
#[cfg_attr(windows, allow(dead_code, reason = "no `#!` line on Windows"))]
enum Start {
    /// A binary of this system's format, or a `#!` line whose interpreter
    /// is there (or cannot be judged without running it).
    Ok,
    /// Neither a `#!` line nor a known binary format.
    Unknown,
    /// A `#!` line ending in `\r`.
    CarriageReturn,
    /// A `#!` line whose interpreter is not an executable file.
    NoInterpreter {
        /// As written, lossily decoded.
        interpreter: String,
        /// Named through `env`, and so looked up in `PATH`.
        via_env: bool,
    },
}

/// The first [`HEAD`] bytes of the regular file `path`, opened beneath its
/// own directory (made canonical) with no link followed; `None` when it
/// cannot be opened or read, or is not a regular file.
fn head(path: &Path) -> Option<Vec<u8>> {
    let real = std::fs::canonicalize(path).ok()?;
    let (dir, name) = (real.parent()?, real.file_name()?);
    let opened = Root::open(dir)
        .ok()?
        .open_file(name, &Open::read().nofollow())
        .ok()?;
    if !opened.file().metadata().ok()?.is_file() {
        return None;
    }
    opened.read_head(HEAD as u64).ok()
}

/// The magic numbers of the binaries this system's kernel runs.
#[cfg(all(unix, not(target_os = "macos")))]
const MAGICS: &[&[u8]] = &[b"\x7fELF"];
/// Mach-O, 32 and 64 bits, either byte order, and a universal ("fat")
/// binary.
#[cfg(target_os = "macos")]
const MAGICS: &[&[u8]] = &[
    b"\xfe\xed\xfa\xce",
    b"\xfe\xed\xfa\xcf",
    b"\xce\xfa\xed\xfe",
    b"\xcf\xfa\xed\xfe",
    b"\xca\xfe\xba\xbe",
];

/// How a program whose first bytes are `head` starts, in `root` with
/// `path_var` as `PATH`.
///
/// The `#!` line is split as Linux splits it: after `#!`, spaces and tabs
/// are skipped, the interpreter runs to the next space or tab, and the rest
/// is one argument. Only `\n` ends the line, so a `\r` before it is part of
/// the line, and of the interpreter's name or argument.
#[cfg(unix)]
fn start(head: &[u8], root: &Path, path_var: Option<&OsStr>) -> Start {
    let Some(line) = head.strip_prefix(b"#!") else {
        return if MAGICS.iter().any(|magic| head.starts_with(magic)) {
            Start::Ok
        } else {
            Start::Unknown
        };
    };
    let line = line.split(|&b| b == b'\n').next().unwrap_or_default();
    if line.ends_with(b"\r") {
        return Start::CarriageReturn;
    }
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let line = match line.iter().position(|b| !blank(b)) {
        Some(at) => &line[at..],
        None => return Start::Unknown,
    };
    let (interpreter, argument) = match line.iter().position(blank) {
        Some(at) => (&line[..at], &line[at..]),
        None => (line, &b""[..]),
    };
    // A relative interpreter is taken from the working directory, which for
    // a hook is the hooks' root.
    let interpreter_path = root.join(OsStr::from_bytes(interpreter));
    if !is_executable(&interpreter_path) {
        return Start::NoInterpreter {
            interpreter: String::from_utf8_lossy(interpreter).into_owned(),
            via_env: false,
        };
    }
    if interpreter_path.file_name() != Some(OsStr::new("env")) {
        return Start::Ok;
    }
    match env_program(argument) {
        // As `env` would run it in `root`: a name with `/` a path from
        // `root`, a bare name looked up in `PATH`'s absolute entries.
        Some(name) if !resolve(&name, root, path_var).is_ok_and(|p| is_executable(&p)) => {
            Start::NoInterpreter {
                interpreter: name,
                via_env: true,
            }
        }
        _ => Start::Ok,
    }
}

/// The program `env` runs given `argument`, the rest of a `#!/usr/bin/env`
/// line: its first word that is not `-S` (which only splits the rest) nor
/// an assignment (`NAME=value`). `None` when there is none (`env` alone
/// prints the environment) or another option comes first, which this check
/// does not try to understand.
#[cfg(unix)]
fn env_program(argument: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(argument);
    for word in text.split([' ', '\t']).filter(|w| !w.is_empty()) {
        if word == "-S" || word.contains('=') {
            continue;
        }
        if word.starts_with('-') {
            return None;
        }
        return Some(word.to_owned());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    fn judge(head: &[u8]) -> Start {
        start(head, Path::new("/"), Some(OsStr::new("/bin:/usr/bin")))
    }

    #[cfg(unix)]
    #[test]
    fn a_binary_or_a_script_whose_interpreter_is_there_starts() {
        assert_eq!(judge(b"\x7fELF\x02\x01\x01"), Start::Ok);
        assert_eq!(judge(b"#!/bin/sh\necho hi\n"), Start::Ok);
        assert_eq!(judge(b"#! /bin/sh -e\n"), Start::Ok);
        assert_eq!(judge(b"#!/usr/bin/env sh\n"), Start::Ok);
        assert_eq!(judge(b"#!/usr/bin/env -S sh -e\n"), Start::Ok);
        assert_eq!(judge(b"#!/usr/bin/env A=1 sh\n"), Start::Ok);
        // Options this check does not understand, and `env` alone.
        assert_eq!(judge(b"#!/usr/bin/env -u X nothere\n"), Start::Ok);
        assert_eq!(judge(b"#!/usr/bin/env\n"), Start::Ok);
    }

    #[cfg(unix)]
    #[test]
    fn what_cannot_start_is_told_apart() {
        assert_eq!(judge(b"echo hi\n"), Start::Unknown);
        assert_eq!(judge(b""), Start::Unknown);
        assert_eq!(judge(b"#!\n"), Start::Unknown);
        assert_eq!(judge(b"#!   \n"), Start::Unknown);
        assert_eq!(judge(b"#!/bin/sh\r\necho\r\n"), Start::CarriageReturn);
        assert_eq!(judge(b"#!/usr/bin/env sh\r\n"), Start::CarriageReturn);
        assert_eq!(
            judge(b"#!/no/such/sh\n"),
            Start::NoInterpreter {
                interpreter: "/no/such/sh".into(),
                via_env: false
            }
        );
        assert_eq!(
            judge(b"#!/usr/bin/env -S python-no-such -u\n"),
            Start::NoInterpreter {
                interpreter: "python-no-such".into(),
                via_env: true
            }
        );
        assert_eq!(
            judge(b"#!/usr/bin/env ./no-such\n"),
            Start::NoInterpreter {
                interpreter: "./no-such".into(),
                via_env: true
            }
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_program_on_disk_is_read_and_judged() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let write = |name: &str, text: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).expect("write");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        };
        write("plain", b"echo hi\n");
        write("fine", b"#!/bin/sh\nexit 0\n");
        let judged = |program: &str| run(&[program.to_owned()], dir.path());
        assert!(
            matches!(
                judged("./plain").as_slice(),
                [RunProblem::NotAProgram { .. }]
            ),
            "{:?}",
            judged("./plain")
        );
        assert_eq!(judged("./fine"), Vec::new());
    }

    #[cfg(unix)]
    #[test]
    fn a_line_longer_than_the_head_is_judged_on_what_was_read() {
        let mut long = b"#!/no/".to_vec();
        long.resize(HEAD, b'x');
        match judge(&long) {
            Start::NoInterpreter { interpreter, .. } => assert_eq!(interpreter.len(), HEAD - 2),
            other => panic!("{other:?}"),
        }
    }

    /// A program is judged by its extension (with `PATHEXT`) and its kind,
    /// never by a `#!` line: a `.exe` that is not one (text saved under the
    /// name) cannot start, one beginning with `MZ` can, and a `.cmd` or
    /// `.bat` is text `cmd.exe` reads, whatever it holds; a file with no
    /// startable extension is no program at all.
    #[cfg(windows)]
    #[test]
    fn a_program_is_judged_by_its_extension_and_kind() {
        let dir = tempfile::tempdir().expect("tempdir");
        let write = |name: &str, text: &[u8]| {
            std::fs::write(dir.path().join(name), text).expect("write");
        };
        write("fake.exe", b"#!/bin/sh\necho hi\n");
        write("real.exe", b"MZ\x90\x00\x03");
        write("hook.cmd", b"@echo off\r\nexit /b 0\r\n");
        write("hook.bat", b"#!/no/such/sh\r\n");
        write("script.sh", b"#!/bin/sh\nexit 0\n");
        let judged = |program: &str| run(&[program.to_owned()], dir.path());
        assert!(
            matches!(
                judged("./fake.exe").as_slice(),
                [RunProblem::NotAProgram { .. }]
            ),
            "{:?}",
            judged("./fake.exe")
        );
        assert_eq!(judged("./real.exe"), Vec::new());
        assert_eq!(judged("./hook.cmd"), Vec::new());
        assert_eq!(judged("./hook.bat"), Vec::new());
        assert!(
            !judged("./script.sh").is_empty(),
            "a `#!` line starts nothing here"
        );
    }
}
