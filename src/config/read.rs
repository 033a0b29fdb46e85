//! Reading a config file: what may be read at all (hardening), then parsing
//! and checking its `hook` arrays and `[profile.<name>]` bodies.

use std::fmt;
use std::io;
use std::path::Path;

use io_beneath::Via;
use io_hooks::text::{deserialize_table, toml_key};
use io_hooks::{HookTables, TableErrorKind, TomlFile};
use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};

use super::regular::read_regular;
use super::{ConfigError, Scope, Source, hook_layout};

/// The largest config file read, in bytes: 1 MiB, far above any config a
/// person writes, and a bound on what a hostile file can make a load hold.
pub(super) const MAX_FILE: u64 = 1024 * 1024;

/// Reads `path`, and says how it was reached (through a symbolic link or
/// not); `None` when there is no such file.
pub(super) fn read_if_present(path: &Path) -> Result<Option<(String, Via)>, ConfigError> {
    let read_error = |cause| ConfigError::Read {
        path: path.to_path_buf(),
        cause,
    };
    let (bytes, via) = match read_regular(path, MAX_FILE) {
        Ok((Some(bytes), via)) => (bytes, via),
        Ok((None, _)) => {
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
    String::from_utf8(bytes)
        .map(|text| Some((text, via)))
        .map_err(|e| {
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

/// `error`, from loading `path` (found in `dir`, the discovery root or the
/// user-scope directory) and reached `via`, as the operator may see it:
/// unchanged when no symbolic link was on the way; otherwise a
/// [`ConfigError::Withheld`] that names the problem and its position and
/// quotes nothing: no line, no key as written, no parser's message (which
/// can quote a value). A link inside the root counts as much as one out of
/// it: a committed `io.toml -> .env` leads to a file git ignores, which is
/// the operator's, not the clone's. Git's answer under the key `hook`
/// quotes nothing and is kept.
pub(super) fn withhold(error: ConfigError, path: &Path, dir: &Path, via: Via) -> ConfigError {
    let (problem, position) = match &error {
        _ if !via.through_link() => return error,
        // Whose file it is, under the one key that quotes nothing: as it
        // is.
        ConfigError::TrackedLocal { key, .. }
        | ConfigError::Untrusted { key, .. }
        | ConfigError::TrustStore { key, .. }
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
        ConfigError::Untrusted { reason, .. } => (
            format!(
                "declares hooks, and it is not known to be yours ({reason}), so they are not \
                 loaded"
            ),
            None,
        ),
        ConfigError::TrustStore { cause, .. } => (
            format!(
                "declares hooks, and whether you trusted it cannot be told ({cause}), so they \
                 are not loaded"
            ),
            None,
        ),
        _ => return error,
    };
    ConfigError::Withheld {
        path: path.to_path_buf(),
        outside: dir.to_path_buf(),
        leads_out: via == Via::LinkOut,
        problem,
        position,
    }
}

/// Parses and checks one file of `scope`; the trust store, when the
/// evidence does not show a file that declares hooks is the operator's, is
/// in `data_dir`.
pub(super) fn load(
    path: &Path,
    scope: Scope,
    text: &str,
    root: &Path,
    data_dir: Option<&Path>,
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
    let mut trusted = false;
    if scope != Scope::Project
        && let Some(key) = file.hook_keys()?.into_iter().next()
    {
        trusted = judged(path, scope, text, key, data_dir)?;
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
        trusted,
    })
}

/// Whether `path`, of `scope`, holding `text` and declaring hooks at
/// `key`, is the operator's: [`io_trust::judge`] decides, with the trust
/// store in `data_dir`; an error when it is not. `true` when it is theirs
/// only because they trusted this content.
fn judged(
    path: &Path,
    scope: Scope,
    text: &str,
    key: String,
    data_dir: Option<&Path>,
) -> Result<bool, ConfigError> {
    use io_trust::{Evidence, Place, Rejection, Verdict};
    let place = match scope {
        Scope::User => Place::UserScope,
        _ => Place::Local,
    };
    let store = data_dir.map(io_trust::store::Store::new);
    let verdict = io_trust::judge(path, text.as_bytes(), place, store.as_ref()).map_err(|e| {
        ConfigError::TrustStore {
            path: path.to_path_buf(),
            key: key.clone(),
            cause: e.to_string(),
        }
    })?;
    let path = path.to_path_buf();
    match verdict {
        Verdict::Operators(evidence) => Ok(matches!(evidence, Evidence::Trusted { .. })),
        Verdict::NotOperators(Rejection::Tracked { .. }) => {
            Err(ConfigError::TrackedLocal { path, key })
        }
        refused => Err(ConfigError::Untrusted {
            path,
            key,
            scope,
            reason: refused.to_string(),
            can_trust: !matches!(refused, Verdict::NotOperators(Rejection::NoStore { .. })),
            changed: refused.changed(),
        }),
    }
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
