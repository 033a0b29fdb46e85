//! `io trust` and `io untrust`: the operator's word that a root's
//! `io.local.toml`, as it is now, is theirs, recorded in the trust store of
//! their data directory ([`io_trust::store`]); `io trust --list` shows
//! what is recorded.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use io_beneath::{Links, Open, Root};
use io_harness::{Config, LOCAL_FILE};
use io_hooks::text::{os_error, pasteable_word};
use io_trust::store::{ContentHash, Store, Trusted};
use io_trust::{Place, Rejection, Verdict};

use crate::cli::discovery_root::DiscoveryRoot;
use crate::cli::exit::CmdResult;
use crate::cli::output::{out, safe};

/// The most of a file `io trust` reads: a config file's bound (1 MiB), so
/// that what is trusted is what `io` would load.
const MAX_FILE: u64 = 1024 * 1024;

const TRUST_HELP: &str = "\
A root's io.local.toml runs its hooks when io can show it is yours: in a git
work tree whose index (read by io itself) does not list it, owned by you, and
writable by no one else (mode bits and ACLs, the directories above it too).
Anywhere else (an unpacked archive with no .git, another user's file, a
directory others may write, an index io cannot read) its hooks run only once
you trust it: io trust records the file's path and the SHA-256 of its content
in $IO_DATA_HOME/trusted-files (else $XDG_DATA_HOME/io, else
~/.local/share/io). Any change to the file needs io trust again. A file a git
index lists came with the clone and is never loaded, trusted or not.

Read the file before you trust it: its hooks run programs as you.

Example:
  io trust --root ~/src/unpacked
  io trust --list
  io untrust --root ~/src/unpacked";

/// Trust ROOT/io.local.toml as it is now, so that its hooks run; or list
/// what is trusted.
#[derive(clap::Args)]
#[command(after_help = TRUST_HELP)]
pub(crate) struct Args {
    /// The discovery root whose io.local.toml to trust [default: the
    /// nearest directory at or above the working directory holding
    /// io.local.toml, io.toml or .git, else the working directory].
    #[arg(long)]
    root: Option<PathBuf>,
    /// List the files trusted, each with whether it still holds the
    /// content trusted.
    #[arg(long, conflicts_with = "root")]
    list: bool,
}

/// Take back the trust `io trust` recorded for ROOT/io.local.toml.
#[derive(clap::Args)]
#[command(after_help = "Example:\n  io untrust --root ~/src/unpacked")]
pub(crate) struct UntrustArgs {
    /// The discovery root whose io.local.toml to untrust [default: as for
    /// io trust].
    #[arg(long)]
    root: Option<PathBuf>,
}

/// Runs `io trust`.
///
/// Returns 0 once the file is recorded (or, with `--list`, listed); an
/// error when there is no file, no data directory, the store cannot be
/// read or written, or a git index lists the file (trust would not load
/// its hooks).
pub(crate) fn exec(args: &Args) -> CmdResult {
    let store = store()?;
    if args.list {
        return list(&store);
    }
    let file = local_file(args.root.as_deref())?;
    let content = read(&file)?.ok_or_else(|| {
        format!(
            "{}: no such file to trust; io trust records the io.local.toml of the root \
             (--root, else the one found from the working directory)",
            file.display()
        )
    })?;
    let verdict = io_trust::judge(&file, &content, Place::Local, None)
        .map_err(|e| format!("{}: {e}", file.display()))?;
    if let Verdict::NotOperators(Rejection::Tracked { .. }) = verdict {
        return Err(format!(
            "{}: not trusted: {verdict}. Trust cannot load its hooks: a tracked io.local.toml \
             may not declare any. Untrack it with `git rm --cached io.local.toml` (and list it \
             in `.gitignore`), or move the hooks to the user-scope file.",
            file.display()
        ));
    }
    let record = store
        .trust(&file, &content)
        .map_err(|e| format!("{}: not trusted: {e}", file.display()))?;
    let root = file.parent().unwrap_or(Path::new("/"));
    let mut text = format!(
        "trusted {}\n  sha256 {}\n  recorded in {}\n",
        record.path.display(),
        record.hash,
        store.file().display()
    );
    if verdict.is_operators() {
        text.push_str(&format!("  (it needs no trust today: {verdict})\n"));
    }
    text.push_str(&format!(
        "Its hooks run until it changes. To take it back: {}\n",
        untrust_command(root)
    ));
    out(&safe(&text))?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `io untrust`.
///
/// Returns 0, whether or not the file was trusted; an error when there is
/// no data directory or the store cannot be read or written.
pub(crate) fn exec_untrust(args: &UntrustArgs) -> CmdResult {
    let store = store()?;
    let file = local_file(args.root.as_deref())?;
    let removed = store
        .untrust(&file)
        .map_err(|e| format!("{}: not untrusted: {e}", file.display()))?;
    let text = match removed {
        Some(record) => format!(
            "untrusted {} (sha256 {})\n",
            record.path.display(),
            record.hash
        ),
        None => format!("{} was not trusted; nothing to take back\n", file.display()),
    };
    out(&safe(&text))?;
    Ok(ExitCode::SUCCESS)
}

/// `io trust --list`: each record, and whether its file still holds the
/// content trusted.
fn list(store: &Store) -> CmdResult {
    let records = store.list().map_err(|e| e.to_string())?;
    if records.is_empty() {
        out(&safe(&format!(
            "no file is trusted (the store is {})\n",
            store.file().display()
        )))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut text = format!("trusted files, in {}:\n", store.file().display());
    for Trusted { path, hash } in &records {
        let now = match read(path) {
            Ok(Some(content)) if ContentHash::of(&content) == *hash => "as trusted",
            Ok(Some(_)) => "changed since: its hooks do not run until `io trust` again",
            Ok(None) => "gone",
            Err(_) => "cannot be read",
        };
        text.push_str(&format!("  {}  sha256 {hash}  {now}\n", path.display()));
    }
    out(&safe(&text))?;
    Ok(ExitCode::SUCCESS)
}

/// The trust store in the operator's data directory.
fn store() -> Result<Store, String> {
    Config::data_dir().map(Store::new).ok_or_else(|| {
        "no data directory to keep trust in: set IO_DATA_HOME, XDG_DATA_HOME or HOME to an \
         absolute path"
            .to_owned()
    })
}

/// The root's `io.local.toml`: `--root`, else the root found from the
/// working directory, made absolute.
fn local_file(root: Option<&Path>) -> Result<PathBuf, String> {
    let cwd = || {
        std::env::current_dir()
            .map_err(|e| format!("cannot tell the current directory: {}", os_error(&e)))
    };
    let root = match root {
        Some(root) => root.to_path_buf(),
        None => DiscoveryRoot::find(&cwd()?).path,
    };
    let root = std::path::absolute(&root).map_err(|e| {
        format!(
            "{}: cannot be made absolute: {}",
            root.display(),
            os_error(&e)
        )
    })?;
    if !root.is_dir() {
        return Err(format!(
            "{}: not a directory, so it is no root",
            root.display()
        ));
    }
    Ok(root.join(LOCAL_FILE))
}

/// The whole of the regular file at `path` as `io` reads a config file
/// (through io-beneath, a link allowed, at most 1 MiB); `None` when there
/// is none.
pub(crate) fn read(path: &Path) -> Result<Option<Vec<u8>>, String> {
    let (dir, name) = (
        path.parent().unwrap_or(Path::new("/")),
        path.file_name().unwrap_or_default(),
    );
    let opened = Root::open(dir)
        .map_err(io_beneath::Error::Io)
        .and_then(|root| root.open_file(name, &Open::read().links(Links::Anywhere)));
    let opened = match opened {
        Ok(opened) => opened,
        Err(io_beneath::Error::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(None);
        }
        Err(e) => return Err(format!("{}: cannot be read: {e}", path.display())),
    };
    opened
        .read_bounded(MAX_FILE)
        .map_err(|e| format!("{}: cannot be read: {}", path.display(), os_error(&e)))?
        .map(Some)
        .ok_or_else(|| {
            format!(
                "{}: larger than 1 MiB, the most a config file may hold",
                path.display()
            )
        })
}

/// The command that takes `root`'s trust back, to paste: its directory
/// quoted for a POSIX shell, or, when its name cannot be pasted as it is,
/// why no command is printed.
fn untrust_command(root: &Path) -> String {
    match pasteable_word(root.as_os_str()) {
        Ok(word) => format!("io untrust --root {word}"),
        Err(why) => format!(
            "io untrust with --root set to this directory (whose name {why}, so no command to \
             paste is printed)"
        ),
    }
}
