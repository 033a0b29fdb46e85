//! Loading the config a command acts on: the root (given or found), the
//! files read from it, the profile applied, and a config or script error
//! shown with the line it points into.

use std::path::Path;

use io_harness::{Config, ConfigError};
use io_hooks::text::os_error;

use super::discovery_root::DiscoveryRoot;
use super::output::safe;

/// Loads the config as `Config::discover` does, with the profile applied.
pub(crate) fn load(root: Option<&Path>, profile: Option<&str>) -> Result<Config, String> {
    load_at(root, profile).map(|(config, _)| config)
}

/// [`load`], and the root it chose with the reason ([`DiscoveryRoot`]).
pub(crate) fn load_at(
    root: Option<&Path>,
    profile: Option<&str>,
) -> Result<(Config, DiscoveryRoot), String> {
    let root = find_root(root)?;
    let config = config_at(&root, profile).map_err(|e| with_source_line(&e))?;
    Ok((config, root))
}

/// The discovery root: `root` when given (`--root`), else the one found
/// from the working directory; an error when that cannot be told.
pub(crate) fn find_root(root: Option<&Path>) -> Result<DiscoveryRoot, String> {
    Ok(match root {
        Some(root) => DiscoveryRoot {
            path: root.to_path_buf(),
            why: "given with --root".to_owned(),
        },
        None => DiscoveryRoot::find(
            &std::env::current_dir()
                .map_err(|e| format!("cannot tell the current directory: {}", os_error(&e)))?,
        ),
    })
}

/// The config discovered at `root`, with `profile` applied: the error as
/// it is, for a caller that reports its parts ([`with_source_line`] makes
/// the paragraph).
pub(crate) fn config_at(
    root: &DiscoveryRoot,
    profile: Option<&str>,
) -> Result<Config, ConfigError> {
    let config = Config::discover(&root.path)?;
    match profile {
        Some(name) => config.with_profile(name),
        None => Ok(config),
    }
}

/// A config error's message, then, when it has a position in a file that
/// may be shown, the line it points into (cut around the column, and
/// [`safe`]) with a caret under the column, as toml's own errors show it.
/// The first line is the message alone, unchanged. The line comes from the
/// text that was parsed, never from reading the file again.
pub(crate) fn with_source_line(error: &ConfigError) -> String {
    with_line(error.to_string(), error.source_line())
}

/// A script's error as a config error is shown ([`with_source_line`]): the
/// message, then the line under it when the script may be shown (one read
/// through a symbolic link is [`ProviderError::Parse`](io_harness::run::ProviderError::Parse), with no line).
pub(crate) fn script_error(error: &io_harness::run::ProviderError) -> String {
    match error {
        io_harness::run::ProviderError::Script(table) => {
            with_line(table.to_string(), table.source_line())
        }
        other => other.to_string(),
    }
}

/// `message`, then `source` with a caret under its column.
fn with_line(message: String, source: Option<&io_harness::SourceLine>) -> String {
    let Some(source) = source else {
        return message;
    };
    let number = source.line.to_string();
    let gutter = " ".repeat(number.len());
    // The caret goes under the column as printed: a tab stays a tab, and
    // an escaped character takes as many columns as its escape.
    let pad: String = source
        .text
        .chars()
        .take(source.caret)
        .map(|c| match c {
            '\t' => "\t".to_owned(),
            c => " ".repeat(safe(c.encode_utf8(&mut [0; 4])).chars().count()),
        })
        .collect();
    format!(
        "{message}\n {gutter} |\n {number} | {}\n {gutter} | {pad}^",
        safe(&source.text)
    )
}
