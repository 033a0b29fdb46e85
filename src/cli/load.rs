//! Loading the config a command acts on: the root (given or found), the
//! files read from it, the profile applied, and a config or script error
//! shown with the line it points into.

use std::ffi::OsStr;
use std::path::Path;

use io_harness::{Config, ConfigError, LOCAL_FILE, Scope, Source};
use io_hooks::text::os_error;

use super::discovery_root::DiscoveryRoot;
use super::output::{pasteable, safe};

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
    not_displaced(&config, &root)?;
    Ok((config, root))
}

/// The discovery root: `root` when given (`--root`), else the one found
/// from the working directory; an error when that cannot be told.
pub(crate) fn find_root(root: Option<&Path>) -> Result<DiscoveryRoot, String> {
    Ok(match root {
        Some(root) => DiscoveryRoot::given(root),
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

/// Refuses a root the search found when a directory above it, `above`,
/// holds an `io.local.toml` with hooks that a run at the root would not
/// have: a marker nearer the working directory (a clone's `src/io.toml`, a
/// submodule's `.git`) must not turn the operator's hooks off, a `cancel`
/// policy among them. The error names both roots and the `--root` that
/// picks each. An outer file that does not load is refused too: what it
/// would have put in force cannot be told. Whose file is whose is the
/// config's judgement ([`operators_hooks`]), so it follows that rule.
///
/// # Errors
/// The refusal, one paragraph.
pub(crate) fn not_displaced(config: &Config, root: &DiscoveryRoot) -> Result<(), String> {
    let Some(above) = root.above.as_deref() else {
        return Ok(());
    };
    if operators_hooks(config).is_some() {
        // The operator's own file at the nearer root: their word.
        return Ok(());
    }
    let what = match Config::discover(above) {
        Ok(outer) => match operators_hooks(&outer) {
            None => return Ok(()),
            Some(file) => format!(
                "{} above it declares hooks that a run at {} has in force and one at the root \
                 found would not",
                file.path().display(),
                above.display()
            ),
        },
        Err(e) => format!(
            "{} above it holds an `{LOCAL_FILE}` that does not load, so which hooks a run there \
             has cannot be told ({e})",
            above.display()
        ),
    };
    Err(format!(
        "not taking {} as the root ({}): {what}, and a marker nearer the working directory \
         does not turn them off without your word. Say which root you mean: {} runs with them, \
         {} without them",
        root.path.display(),
        root.why,
        root_flag(above),
        root_flag(&root.path),
    ))
}

/// The local-scope file of `config` that declares hooks (at its top level
/// or in a profile) and that the config loaded, so judged the operator's;
/// `None` when there is none. The judgement is `Config`'s: a file it
/// refuses never gets here.
fn operators_hooks(config: &Config) -> Option<&Source> {
    config.sources().iter().find(|s| {
        s.scope() == Scope::Local
            && (s.declares_hooks() || s.profiles().any(|p| s.profile_hooks(p).is_some()))
    })
}

/// `` `--root DIR` ``, the directory as one word to paste, or, when its
/// name cannot be printed as it is, `--root` and why it is not printed.
fn root_flag(dir: &Path) -> String {
    match pasteable(&[OsStr::new("--root"), dir.as_os_str()]) {
        Ok(flag) => format!("`{flag}`"),
        Err((_, why)) => format!(
            "`--root` naming {} (its name {why}, so it is not printed to paste)",
            dir.display()
        ),
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
