//! When `io check` cannot make its check: the config does not load (a
//! file that cannot be read, is not TOML, or has a hook table that does
//! not check; a profile no file declares), the root cannot be told, or
//! `--event` names no event. The paragraph goes to stderr as for every
//! command, and with `--json` stdout still carries one object, `"ok":
//! false`, whose parts (`error`, `file`, `key`, `line`, `column`,
//! `message`) are what the error itself holds, so a script reads the
//! verdict from stdout whatever happened.

use std::path::Path;

use io_harness::{Config, ConfigError, EventKind, HookEvents, TableErrorKind};
use io_hooks::{Kind, UnknownEvent};
use serde_json::{Value, json};

use crate::cli::discovery_root::DiscoveryRoot;
use crate::cli::exit::CmdResult;
use crate::cli::json_path::path_json;
use crate::cli::load::{config_at, find_root, not_displaced, with_source_line};
use crate::cli::output::{out, write_safe_json};

/// What `io check` checks: the config, the root it was found at, and the
/// event `--event` names.
pub(super) struct Loaded<'a> {
    pub(super) config: Config,
    pub(super) root: DiscoveryRoot,
    pub(super) event: Option<(&'a str, Kind<EventKind>)>,
}

/// Why the check could not be made, in parts.
pub(super) struct Failure {
    /// The root, when it was found before the failure.
    root: Option<DiscoveryRoot>,
    /// What kind of failure: `syntax`, `hook_table`, `read`, … (the
    /// values are listed in docs/io.md).
    error: &'static str,
    /// The file it is in, when it is in one.
    file: Option<Value>,
    /// The key path it is at, when it is at one.
    key: Option<String>,
    /// Its line and column, each from 1 (the column in characters).
    position: Option<(usize, usize)>,
    /// The one line that says it, the first of what stderr says.
    message: String,
    /// The paragraph stderr says: the message, and the line it points
    /// into when the file may be shown.
    paragraph: String,
}

/// Loads what `io check` checks, as a run would: the config at `root`
/// (given, or found from the working directory) with `profile` applied,
/// and the event `event` names.
///
/// # Errors
/// The root cannot be told, the config does not load, or `event` names
/// no event: each as a [`Failure`].
pub(super) fn load<'a>(
    root: Option<&Path>,
    profile: Option<&str>,
    event: Option<&'a str>,
) -> Result<Loaded<'a>, Box<Failure>> {
    let root = find_root(root).map_err(|message| Failure {
        root: None,
        error: "working_directory",
        file: None,
        key: None,
        position: None,
        paragraph: message.clone(),
        message,
    })?;
    let config = match config_at(&root, profile) {
        Ok(config) => config,
        Err(e) => return Err(Box::new(of_config_error(&e, root))),
    };
    if let Err(message) = not_displaced(&config, &root) {
        return Err(Box::new(Failure {
            root: Some(root),
            error: "displaced_root",
            file: None,
            key: None,
            position: None,
            paragraph: message.clone(),
            message,
        }));
    }
    let Some(tag) = event else {
        return Ok(Loaded {
            config,
            root,
            event: None,
        });
    };
    match EventKind::from_tag(tag) {
        Some(kind) => Ok(Loaded {
            config,
            root,
            event: Some((tag, kind)),
        }),
        None => {
            let message = format!("--event: {}", UnknownEvent::new::<EventKind>(tag));
            Err(Box::new(Failure {
                root: Some(root),
                error: "unknown_event",
                file: None,
                key: None,
                position: None,
                paragraph: message.clone(),
                message,
            }))
        }
    }
}

/// `error`, found at `root`, in parts.
fn of_config_error(error: &ConfigError, root: DiscoveryRoot) -> Failure {
    let path = |p: &Path| Some(path_json(p));
    let (kind, file, key, position) = match error {
        ConfigError::Root { .. } => ("root", None, None, None),
        ConfigError::Read { path: p, .. } => ("read", path(p), None, None),
        ConfigError::TooLarge { path: p, .. } => ("too_large", path(p), None, None),
        ConfigError::Untrusted { path: p, key, .. } => {
            ("untrusted", path(p), Some(key.clone()), None)
        }
        ConfigError::TrustStore { path: p, key, .. } => {
            ("trust_store", path(p), Some(key.clone()), None)
        }
        ConfigError::NotUtf8 { path: p, position } => ("not_utf8", path(p), None, Some(*position)),
        ConfigError::Nul { path: p, position } => ("nul", path(p), None, Some(*position)),
        ConfigError::Withheld {
            path: p, position, ..
        } => ("withheld", path(p), None, *position),
        ConfigError::Table(e) | ConfigError::ProjectHooks(e) => {
            let kind = match (error, e.kind()) {
                (ConfigError::ProjectHooks(_), _) => "project_hooks",
                (_, TableErrorKind::Syntax(_)) => "syntax",
                _ => "hook_table",
            };
            let file = Some(Value::String(e.file().to_owned()));
            (kind, file, e.key().map(str::to_owned), e.position())
        }
        ConfigError::TrackedLocal { path: p, key } => {
            ("tracked_local", path(p), Some(key.clone()), None)
        }
        ConfigError::UnknownProfile { .. } => ("unknown_profile", None, None, None),
        // A kind added later: its message says it all.
        _ => ("config", None, None, None),
    };
    Failure {
        root: Some(root),
        error: kind,
        file,
        key,
        position,
        message: error.to_string(),
        paragraph: with_source_line(error),
    }
}

impl Failure {
    /// Says the failure: with `json`, its object on stdout; then its
    /// paragraph on stderr, as `main` prints an error, with exit code 1.
    pub(super) fn report(&self, json: bool, profile: Option<&str>) -> CmdResult {
        if json {
            let mut line = Vec::new();
            write_safe_json(&mut line, &self.json(profile)).map_err(|e| e.to_string())?;
            line.push(b'\n');
            out(&String::from_utf8_lossy(&line))?;
        }
        Err(self.paragraph.clone())
    }

    /// The object `--json` prints: the failure's parts (each `null` when it
    /// has none), the root and the profile asked for, and `"ok": false`.
    fn json(&self, profile: Option<&str>) -> Value {
        json!({
            "root": self.root.as_ref().map(|root| path_json(&root.path)),
            "root_why": self.root.as_ref().map(|root| root.why.as_str()),
            "profile": profile,
            "error": self.error,
            "file": self.file,
            "key": self.key,
            "line": self.position.map(|(line, _)| line),
            "column": self.position.map(|(_, column)| column),
            "message": self.message,
            "ok": false,
        })
    }
}
