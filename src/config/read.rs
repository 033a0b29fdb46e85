//! Reading a config file: what may be read at all (hardening), then parsing
//! and checking its `hook` arrays and `[profile.<name>]` bodies.

use std::fmt;
use std::io::{self, Read};
use std::path::Path;

use io_hooks::text::{deserialize_table, toml_key};
use io_hooks::{HookTables, TableErrorKind, TomlFile};
use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};

use super::{ConfigError, LOCAL_FILE, Scope, Source, git, hook_layout};

/// The largest config file read, in bytes: 1 MiB, far above any config a
/// person writes, and a bound on what a hostile file can make a load hold.
pub(super) const MAX_FILE: u64 = 1024 * 1024;

/// Reads `path`; `None` when there is no such file.
pub(super) fn read_if_present(path: &Path) -> Result<Option<String>, ConfigError> {
    let read_error = |cause| ConfigError::Read {
        path: path.to_path_buf(),
        cause,
    };
    let bytes = match read_regular(path, MAX_FILE) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            return Err(ConfigError::TooLarge {
                path: path.to_path_buf(),
                limit: MAX_FILE,
            });
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // A symbolic link to nothing is a file the operator meant to be
            // read: say so rather than skip it.
            if std::fs::symlink_metadata(path).is_ok() {
                return Err(read_error(io::Error::new(
                    io::ErrorKind::NotFound,
                    "a symbolic link to a file that does not exist",
                )));
            }
            return Ok(None);
        }
        Err(cause) => return Err(read_error(cause)),
    };
    // Where a text stops being text is named by line and column only, so
    // that no byte of something that is not a config (a link to
    // `/proc/self/environ`, to a key file) reaches the terminal.
    if let Some(nul) = bytes.iter().position(|&b| b == 0) {
        let (line, column) = position_of(&bytes, nul);
        return Err(ConfigError::Nul {
            path: path.to_path_buf(),
            position: (line, column),
        });
    }
    String::from_utf8(bytes).map(Some).map_err(|e| {
        let (line, column) = position_of(e.as_bytes(), e.utf8_error().valid_up_to());
        ConfigError::NotUtf8 {
            path: path.to_path_buf(),
            position: (line, column),
        }
    })
}

/// The line and column (each from 1, the column in characters) of byte
/// `end` of `bytes`, which may not all be UTF-8.
fn position_of(bytes: &[u8], end: usize) -> (usize, usize) {
    let before = String::from_utf8_lossy(&bytes[..end]);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn not_regular() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        "not a regular file (a FIFO, a socket or a device), so it is not read",
    )
}

/// The magic numbers (`statfs`'s `f_type`) of the kernel's own file
/// systems, whose "regular" files are not files: `/proc/kmsg` and
/// tracefs's `trace_pipe` block a read until the kernel has something to
/// say, `/proc/self/environ` holds the environment's secrets, and a
/// `/sys` attribute can act when read. No config lives there.
const KERNEL_FILE_SYSTEMS: [(i64, &str); 8] = [
    (0x9fa0, "proc"),
    (0x6265_6572, "sysfs"),
    (0x6462_6720, "debugfs"),
    (0x7472_6163, "tracefs"),
    (0x7363_6673, "securityfs"),
    (0x0027_e0eb, "cgroup"),
    (0x6367_7270, "cgroup2"),
    (0x6265_6570, "configfs"),
];

/// The bytes of the regular file at `path`, or `None` once it holds more
/// than `limit`: a config file's read, and an `io run` script's.
///
/// Only a regular file (or a symbolic link to one) is read. A FIFO would
/// block the read until someone writes to it, and a link to a device such
/// as `/dev/zero` (a repository can commit one) would never stop reading.
/// This look before opening keeps a device from being opened at all
/// (opening one can act: a tape rewinds); [`open_regular`] checks the file
/// it opened again, since a file can be swapped in between. A directory is
/// left to the read, which names it.
pub(crate) fn read_regular(path: &Path, limit: u64) -> io::Result<Option<Vec<u8>>> {
    if let Ok(meta) = std::fs::metadata(path)
        && !meta.is_file()
        && !meta.is_dir()
    {
        return Err(not_regular());
    }
    read_bounded(open_regular(path)?, limit)
}

/// Opens `path` for reading without any step that can block: `O_NONBLOCK`
/// (a FIFO swapped in after the look above opens at once rather than
/// waiting for a writer, and a read of it or of a blocking device fails
/// rather than waits), `O_NOCTTY` (a terminal never becomes ours). The file
/// opened is then refused unless it is a regular file, or a directory (which
/// the read names), outside the kernel's file systems.
pub(super) fn open_regular(path: &Path) -> io::Result<std::fs::File> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let file = std::fs::File::from(fd);
    let meta = file.metadata()?;
    if !meta.is_file() && !meta.is_dir() {
        return Err(not_regular());
    }
    // `f_type` is an `i64` on x86-64 and narrower on other targets.
    #[allow(clippy::useless_conversion)]
    let kind = i64::from(rustix::fs::fstatfs(&file)?.f_type);
    if let Some((_, name)) = KERNEL_FILE_SYSTEMS.iter().find(|(magic, _)| *magic == kind) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "a file of the kernel's {name} file system (as under /proc or /sys), whose \
                 reads can block or hold secrets, so it is not read"
            ),
        ));
    }
    Ok(file)
}

/// The whole of `file`, or `None` once it holds more than `limit` bytes
/// ([`MAX_FILE`] for a config file).
///
/// The size `stat` reports is not trusted: `/proc` files are "regular" and
/// "empty" (`/proc/self/pagemap` reads on for hundreds of GiB), and a file
/// can grow after any check. It is read in fixed 8 KiB reads (pagemap
/// refuses a read that is not a multiple of 8 bytes), so at most one read
/// past the limit is held.
fn read_bounded(mut file: impl Read, limit: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    let mut chunk = [0; 8192];
    loop {
        match file.read(&mut chunk) {
            Ok(0) => return Ok(Some(bytes)),
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
        if bytes.len() as u64 > limit {
            return Ok(None);
        }
    }
}

/// Whether `path`, every symbolic link followed, lies in `dir`: whether
/// what it holds may be shown. A link that cannot be resolved counts as
/// leading out.
pub(crate) fn within(path: &Path, dir: &Path) -> bool {
    match (std::fs::canonicalize(path), std::fs::canonicalize(dir)) {
        (Ok(file), Ok(dir)) => file.starts_with(dir),
        _ => false,
    }
}

/// `error`, from loading `path`, as the operator may see it: unchanged when
/// `path`, every symbolic link followed, lies in `dir` (the discovery root,
/// or the user-scope directory for the user-scope file); otherwise a
/// [`ConfigError::Withheld`] that names the problem and its position and
/// quotes nothing: no line, no key as written, no parser's message (which
/// can quote a value). Git's answer under the key `hook` quotes nothing and
/// is kept. A link that cannot be resolved counts as leading out.
pub(super) fn withhold(error: ConfigError, path: &Path, dir: &Path) -> ConfigError {
    let (problem, position) = match &error {
        _ if within(path, dir) => return error,
        // Git's answer about the file, under the one key that quotes
        // nothing: as it is.
        ConfigError::TrackedLocal { key, .. } | ConfigError::GitUnanswered { key, .. }
            if key == "hook" =>
        {
            return error;
        }
        ConfigError::Table(e) => match e.kind() {
            TableErrorKind::Syntax(_) => ("not valid TOML".to_owned(), e.position()),
            TableErrorKind::HiddenHooks { .. } => (
                "a key in it would declare hooks where none are read (a misspelling of `hook`, \
                 or `hook` out of place)"
                    .to_owned(),
                e.position(),
            ),
            _ => (
                "a hook or profile in it does not check".to_owned(),
                e.position(),
            ),
        },
        ConfigError::ProjectHooks(_) => (
            "declares hooks, which a project-scoped file may not".to_owned(),
            None,
        ),
        ConfigError::TrackedLocal { .. } => (
            "declares hooks, and the repository's git index tracks it, so they are not loaded"
                .to_owned(),
            None,
        ),
        ConfigError::GitUnanswered { cause, .. } => (
            format!(
                "declares hooks, and whether the repository's git index tracks it could not \
                 be told ({cause}), so they are not loaded"
            ),
            None,
        ),
        _ => return error,
    };
    ConfigError::Withheld {
        path: path.to_path_buf(),
        outside: dir.to_path_buf(),
        problem,
        position,
    }
}

/// Parses and checks one file of `scope`.
pub(super) fn load(
    path: &Path,
    scope: Scope,
    text: &str,
    root: &Path,
) -> Result<Source, ConfigError> {
    let name = path.display().to_string();
    let layout = hook_layout();
    let file = match scope {
        Scope::Project => TomlFile::project(&name, text),
        Scope::User | Scope::Local => TomlFile::new(&name, text),
    }
    .layout(&layout);
    let document: toml::Table = file.deserialize()?;
    // A misspelt or misplaced `hook` would load as no hooks: the engine's
    // refusal, which its schema shares.
    file.check_placement()?;
    // Both refusals come before any table is checked: a file that may not
    // declare hooks is told so, not told how to fix a hook it may not have.
    // The project refusal is the engine's.
    file.check_scope().map_err(|e| match e.kind() {
        TableErrorKind::ProjectHooks { .. } => ConfigError::ProjectHooks(e),
        _ => ConfigError::Table(e),
    })?;
    if scope == Scope::Local
        && let Some(key) = file.hook_keys()?.into_iter().next()
    {
        match git::tracks(root, LOCAL_FILE) {
            Ok(false) => {}
            Ok(true) => {
                return Err(ConfigError::TrackedLocal {
                    path: path.to_path_buf(),
                    key,
                });
            }
            Err(cause) => {
                return Err(ConfigError::GitUnanswered {
                    path: path.to_path_buf(),
                    key,
                    cause,
                });
            }
        }
    }

    let raw: RawDocument = file.deserialize()?;
    let hooks = raw
        .hook
        .map(|tables| tables.into_specs(&file, "hook", root))
        .transpose()?;
    let mut profiles = Vec::new();
    for (profile, body) in raw.profile.map(|p| p.0).unwrap_or_default() {
        let key = format!("profile.{}.hook", toml_key(&profile));
        let hooks = body
            .hook
            .map(|tables| tables.into_specs(&file, &key, root))
            .transpose()?;
        profiles.push((profile, hooks));
    }
    // The refusal above looked at the same parsed document; this is the
    // typed view agreeing with it, kept so that no later change to the raw
    // types can let a project file's hooks through unnoticed.
    if scope == Scope::Project && (hooks.is_some() || profiles.iter().any(|(_, h)| h.is_some())) {
        return Err(ConfigError::ProjectHooks(file.project_refusal("hook")));
    }
    Ok(Source {
        path: path.to_path_buf(),
        scope,
        document,
        hooks,
        profiles,
        in_force: false,
        shown: true,
    })
}

/// The keys of a config file this module owns; every other key is left to
/// [`Source::document`].
#[derive(Deserialize)]
struct RawDocument {
    hook: Option<HookTables>,
    profile: Option<RawProfiles>,
}

/// `[profile.<name>]` tables, in the order written.
struct RawProfiles(Vec<(String, RawProfile)>);

impl<'de> Deserialize<'de> for RawProfiles {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// The profiles' entries, in the order the map gives them.
        struct Entries(Vec<(String, RawProfile)>);
        impl<'de> Deserialize<'de> for Entries {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Entries;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("a table")
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                        let mut out = Vec::new();
                        while let Some(entry) = map.next_entry()? {
                            out.push(entry);
                        }
                        Ok(Entries(out))
                    }
                }
                d.deserialize_map(V)
            }
        }
        let expecting = "a table of profiles, as in `[profile.ci]`";
        deserialize_table(d, &expecting).map(|Entries(entries)| RawProfiles(entries))
    }
}

/// A profile body: its `hook`, if any. Its other keys belong to others.
///
/// Only a table will do: a derived struct would also take an array and fill
/// `hook` from it by position, which is a way round the project-scope check.
struct RawProfile {
    hook: Option<HookTables>,
}

impl<'de> Deserialize<'de> for RawProfile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Body {
            hook: Option<HookTables>,
        }
        let expecting = "a profile body: a table, as in `[profile.ci]`";
        deserialize_table(d, &expecting).map(|Body { hook }| RawProfile { hook })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader whose reads a signal interrupts before each chunk, as a
    /// `read` on a pipe or a terminal can be when a handler without
    /// `SA_RESTART` runs.
    struct Interrupted<'a> {
        chunks: std::slice::Iter<'a, &'a [u8]>,
        /// Whether the last read was the interrupted one.
        interrupted: bool,
    }

    impl Read for Interrupted<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if !self.interrupted {
                self.interrupted = true;
                return Err(io::ErrorKind::Interrupted.into());
            }
            self.interrupted = false;
            let Some(chunk) = self.chunks.next() else {
                return Ok(0);
            };
            buf[..chunk.len()].copy_from_slice(chunk);
            Ok(chunk.len())
        }
    }

    #[test]
    fn a_read_a_signal_interrupts_is_tried_again_and_loses_nothing() {
        let chunks: &[&[u8]] = &[b"[[hook]]\n", b"on = \"step\"\n"];
        let file = Interrupted {
            chunks: chunks.iter(),
            interrupted: false,
        };
        let bytes = read_bounded(file, MAX_FILE).expect("EINTR is retried, not an error");
        assert_eq!(bytes.as_deref(), Some(&b"[[hook]]\non = \"step\"\n"[..]));
    }

    #[test]
    fn any_other_read_error_is_the_error() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::ErrorKind::PermissionDenied.into())
            }
        }
        let error = read_bounded(Failing, MAX_FILE).expect_err("not retried");
        assert_eq!(error.kind(), io::ErrorKind::PermissionDenied);
    }
}
