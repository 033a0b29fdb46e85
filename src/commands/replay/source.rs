//! Where `io replay` reads its events from, and how far: a regular file
//! (named, or on stdin) only to the end it had when the replay began, so
//! that what the replay's own hooks append to it is never read back as
//! more of the recording; and which hooks would append to the input
//! itself, which the replay leaves out (or, when `--hook` chose one,
//! refuses), so that a replay never writes into the recording it reads.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{Read, Seek};
use std::path::Path;

use io_harness::AppendAction;
use io_hooks::text::os_error;

use crate::cli::output::pasteable;
use crate::cli::selection::Selection;

use id::FileId;

/// A file's identity, and stdin as a file: Unix's device and inode.
#[cfg(unix)]
mod id {
    use std::fs::{File, Metadata};
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    use std::path::Path;

    /// A file's identity: its device and inode.
    pub(super) type FileId = (u64, u64);

    /// The identity of `file`, whose metadata is `meta`.
    pub(super) fn of_file(_file: &File, meta: &Metadata) -> Option<FileId> {
        Some((meta.dev(), meta.ino()))
    }

    /// The identity of the file at `path`, its last name not followed.
    pub(super) fn of_path(path: &Path) -> Option<FileId> {
        std::fs::symlink_metadata(path)
            .ok()
            .map(|m| (m.dev(), m.ino()))
    }

    /// A duplicate of stdin's descriptor, as a file.
    pub(super) fn stdin_file() -> Option<File> {
        std::io::stdin()
            .as_fd()
            .try_clone_to_owned()
            .ok()
            .map(File::from)
    }
}

/// A file's identity, and stdin as a file, the Windows way (issue 47): its
/// volume's serial number and its file index, read on a handle by
/// same-file (std's are unstable there).
#[cfg(windows)]
mod id {
    use std::fs::{File, Metadata};
    use std::os::windows::io::AsHandle;
    use std::path::Path;

    /// A file's identity: a handle to it, which same-file compares by
    /// volume serial number and file index.
    pub(super) type FileId = same_file::Handle;

    /// The identity of `file`.
    pub(super) fn of_file(file: &File, _meta: &Metadata) -> Option<FileId> {
        same_file::Handle::from_file(file.try_clone().ok()?).ok()
    }

    /// The identity of the file at `path` (a reparse point there is
    /// followed; an append fails on one, so writes nothing), from a handle
    /// with no access to its data, as std's `metadata` opens one: the path
    /// is an `append` hook's, which a clone may have put a file at.
    pub(super) fn of_path(path: &Path) -> Option<FileId> {
        use std::os::windows::fs::OpenOptionsExt;
        /// `FILE_FLAG_BACKUP_SEMANTICS`: a directory is opened too.
        const BACKUP_SEMANTICS: u32 = 0x0200_0000;
        #[allow(
            clippy::disallowed_methods,
            reason = "a look, as `metadata` is: no access to the file's data is asked for, and \
                      nothing is read or written through the handle; only its identity is taken"
        )]
        let file = std::fs::OpenOptions::new()
            .access_mode(0)
            .custom_flags(BACKUP_SEMANTICS)
            .open(path)
            .ok()?;
        same_file::Handle::from_file(file).ok()
    }

    /// A duplicate of stdin's handle, as a file, when it is a regular
    /// file; a console or a pipe is read through std's stdin, which knows
    /// a console's text.
    pub(super) fn stdin_file() -> Option<File> {
        let file = File::from(std::io::stdin().as_handle().try_clone_to_owned().ok()?);
        file.metadata().ok()?.is_file().then_some(file)
    }
}

/// The input, opened.
pub(super) struct Source {
    /// Its name in messages: its path, or `stdin`.
    pub(super) name: String,
    /// Its bytes: for a regular file, only as many as it held when opened.
    pub(super) reader: Box<dyn Read>,
    /// What was opened, when it could be told (a file, a FIFO, a pipe).
    id: Option<FileId>,
}

/// The events file by the name messages give it, or stdin for `-`; a
/// regular file is read only to the length it had now.
///
/// # Errors
/// The file cannot be opened, or is a directory.
pub(super) fn open(file: &Path) -> Result<Source, String> {
    if file == Path::new("-") {
        return Ok(stdin());
    }
    // Its name in messages; one that is not UTF-8 is opened as it is and
    // shown as `Path::display` shows it.
    let name = file.display().to_string();
    let file_name = &name;
    #[allow(
        clippy::disallowed_methods,
        reason = "the operator's own path from the command line, opened as their shell would \
                  (a FIFO such as `<(…)` included); it names no file beneath a root"
    )]
    let opened = File::open(file).map_err(|e| format!("{file_name}: {}", os_error(&e)))?;
    if opened.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(format!(
            "{file_name}: is a directory; `io replay` reads a file of event lines (or `-` for \
             stdin)"
        ));
    }
    Ok(bounded(name, opened))
}

/// Stdin as a [`Source`]: read through a duplicate of its descriptor, so
/// that a regular file redirected to it (`< audit.jsonl`) is bounded as a
/// named one is; a pipe or a terminal, which has no length, is read to its
/// end of file, which its writer decides.
fn stdin() -> Source {
    let name = "stdin".to_owned();
    match id::stdin_file() {
        Some(file) => bounded(name, file),
        None => Source {
            name,
            reader: Box::new(std::io::stdin().lock()),
            id: None,
        },
    }
}

/// `file` read from where it stands to the end it has now when it is a
/// regular file, else to its end of file.
fn bounded(name: String, mut file: File) -> Source {
    let Ok(meta) = file.metadata() else {
        return Source {
            name,
            reader: Box::new(file),
            id: None,
        };
    };
    let id = id::of_file(&file, &meta);
    if !meta.is_file() {
        return Source {
            name,
            reader: Box::new(file),
            id,
        };
    }
    // The length at open, from the opened file's own metadata: the end of
    // the recording. Stdin may stand past the start (`{ read; io replay -; }
    // < f`): what is left from there.
    let at = file.stream_position().unwrap_or(0);
    let left = meta.len().saturating_sub(at);
    Source {
        name,
        reader: Box::new(file.take(left)),
        id,
    }
}

/// `selection` without the hooks whose `append` file is the input itself
/// (by device and inode, so through any link or path that names it), and
/// a line for stderr naming each: replayed through them, every event would
/// be written a second time into the recording being replayed, which would
/// then say the run happened twice.
///
/// # Errors
/// `--hook` chose such a hook (`chosen`): the operator asked for exactly
/// that, and is told why not and what to do instead.
pub(super) fn without_own_appends(
    selection: Selection,
    source: &Source,
    chosen: bool,
) -> Result<(Selection, Vec<String>), String> {
    let Some(input) = &source.id else {
        return Ok((selection, Vec::new()));
    };
    let mut own = Vec::new();
    let mut lines = Vec::new();
    for (index, spec) in selection.specs.iter().enumerate() {
        let Some(append) = spec.action.get::<AppendAction>() else {
            continue;
        };
        if identity(&append.path).as_ref() != Some(input) {
            continue;
        }
        let label = selection.label(index);
        let why = format!(
            "it appends to {}, which is the input ({}), so it would write every replayed event \
             into the recording a second time",
            append.path.display(),
            source.name
        );
        if chosen {
            let number = selection.number(index);
            return Err(format!(
                "--hook {number}: {label} cannot replay its own file: {why}. Replay a copy \
                 instead: {}, then `io replay copy.jsonl --hook {number}`",
                copy_command(&append.path)
            ));
        }
        lines.push(format!("io: {label} is left out of this replay: {why}\n"));
        own.push(index);
    }
    Ok((selection.without(&own), lines))
}

/// The command that copies `path` to `copy.jsonl`, quoted to paste into a
/// POSIX shell; where a name cannot be printed to paste (a line break, a
/// name that is not UTF-8), the copy said in words instead.
fn copy_command(path: &Path) -> String {
    let words = [OsStr::new("cp"), path.as_os_str(), OsStr::new("copy.jsonl")];
    match pasteable(&words) {
        Ok(command) => format!("`{command}`"),
        Err((_, why)) => format!(
            "copy {} to copy.jsonl (its name {why}, so no command is printed to paste)",
            path.display()
        ),
    }
}

/// The identity of the file at `path`, its last name not followed, as an
/// append's open never follows it (a link there fails every append, so
/// writes nothing); `None` when there is none yet (an append creates its
/// file when the hooks are built, and a file not there yet is not the
/// input).
fn identity(path: &Path) -> Option<FileId> {
    id::of_path(path)
}
