//! Discovery: which files a config is read from, in scope order, and the
//! user-scope directory the environment names.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use io_beneath::Via;

use super::read::{load, read_if_present, withhold};
use super::{Config, ConfigError, LOCAL_FILE, PROJECT_FILE, Scope, Source};

/// [`Config::discover_with_data`]: checks the root, then reads the user,
/// project and local files that exist; the trust store is in `data_dir`.
pub(super) fn discover(
    root: &Path,
    user_dir: Option<&Path>,
    data_dir: Option<&Path>,
) -> Result<Config, ConfigError> {
    let root = std::path::absolute(root).map_err(|cause| ConfigError::Root {
        root: root.to_path_buf(),
        cause,
    })?;
    match std::fs::metadata(&root) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(ConfigError::Root {
                root,
                cause: io::Error::new(io::ErrorKind::NotADirectory, "not a directory"),
            });
        }
        Err(cause) => return Err(ConfigError::Root { root, cause }),
    }

    let project = root.join(PROJECT_FILE);
    let local = root.join(LOCAL_FILE);
    let mut sources = Vec::new();
    if let Some(dir) = user_dir {
        let user = dir.join(PROJECT_FILE);
        // The operator's own file, reached also as the project file (the
        // harness pointed at the config directory itself): it is theirs,
        // so it is read once, as the user scope.
        if !same_file(&user, &project)
            && let Some((text, via)) = read_if_present(&user)?
        {
            let source = load(&user, Scope::User, &text, &root, data_dir);
            sources.push(placed(source, &user, dir, via)?);
        }
    }
    // The user's own file, reached also as the project file, is read from
    // the user-scope directory: a link to it from the root is the way to
    // the operator's own file, and what it holds is theirs to see.
    let users = user_dir
        .map(|dir| dir.join(PROJECT_FILE))
        .filter(|user| same_file(user, &project));
    if let Some((text, via)) = read_if_present(users.as_deref().unwrap_or(&project))? {
        let (scope, looked_in) = match (user_dir, &users) {
            (Some(dir), Some(_)) => (Scope::User, dir),
            _ => (Scope::Project, root.as_path()),
        };
        let source = load(&project, scope, &text, &root, data_dir);
        sources.push(placed(source, &project, looked_in, via)?);
    }
    if let Some((text, via)) = read_if_present(&local)? {
        let source = load(&local, Scope::Local, &text, &root, data_dir);
        sources.push(placed(source, &local, &root, via)?);
    }
    Ok(Config {
        root,
        sources,
        profile: None,
    }
    .settled())
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(unix)]
pub(super) fn user_dir_from(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    base_dir_from(var, "IO_CONFIG_HOME", "XDG_CONFIG_HOME", ".config")
}

/// The variables the user-scope lookup reads, in order.
#[cfg(unix)]
const USER_DIR_VARS: [&str; 3] = ["IO_CONFIG_HOME", "XDG_CONFIG_HOME", "HOME"];

/// Each variable the user-scope lookup looked at and did not use because it
/// is set to a relative path (`IO_CONFIG_HOME=cfg`), in the order looked
/// at, up to the one it used: `IO_CONFIG_HOME=cfg`.
pub(super) fn user_dir_passed_over(var: impl Fn(&str) -> Option<OsString>) -> Vec<String> {
    let mut passed = Vec::new();
    for name in USER_DIR_VARS {
        match var(name).filter(|v| !v.is_empty()).map(PathBuf::from) {
            Some(dir) if dir.is_absolute() => break,
            Some(dir) => passed.push(format!("{name}={}", dir.display())),
            None => {}
        }
    }
    passed
}

#[cfg(unix)]
pub(super) fn data_dir_from(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    base_dir_from(var, "IO_DATA_HOME", "XDG_DATA_HOME", ".local/share")
}

/// `$OWN` if set, else `$XDG/io`, else `$HOME/<under_home>/io`: the XDG base
/// directory rule, with io's own variable first.
#[cfg(unix)]
fn base_dir_from(
    var: impl Fn(&str) -> Option<OsString>,
    own: &str,
    xdg: &str,
    under_home: &str,
) -> Option<PathBuf> {
    // An empty or relative variable counts as unset. A relative one would be
    // resolved against the working directory, which is usually the
    // repository: `IO_CONFIG_HOME=.` made a cloned `io.toml` the user-scope
    // file, whose hooks then ran.
    let set = |name: &str| var(name).map(PathBuf::from).filter(|dir| dir.is_absolute());
    if let Some(dir) = set(own) {
        return Some(dir);
    }
    if let Some(dir) = set(xdg) {
        return Some(dir.join("io"));
    }
    set("HOME").map(|home| home.join(under_home).join("io"))
}

/// The file at `path`, looked for in `dir` and reached `via`, as loaded:
/// its error withheld ([`withhold`]) and its words not shown when a
/// symbolic link was on the way.
fn placed(
    source: Result<Source, ConfigError>,
    path: &Path,
    dir: &Path,
    via: Via,
) -> Result<Source, ConfigError> {
    let mut source = source.map_err(|e| withhold(e, path, dir, via))?;
    source.shown = !via.through_link();
    Ok(source)
}

#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows::USER_DIR_VARS;
#[cfg(windows)]
pub(super) use windows::{data_dir_from, user_dir_from};

/// The environment `vars` as the lookups here take one: the tests' (both
/// platforms').
#[cfg(test)]
fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
    move |name| {
        vars.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| OsString::from(v))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn io_config_home_comes_first() {
        let vars = [
            ("IO_CONFIG_HOME", "/cfg"),
            ("XDG_CONFIG_HOME", "/xdg"),
            ("HOME", "/home/me"),
        ];
        assert_eq!(user_dir_from(env(&vars)), Some(PathBuf::from("/cfg")));
    }

    #[test]
    fn xdg_config_home_comes_next_and_must_be_absolute() {
        let vars = [("XDG_CONFIG_HOME", "/xdg"), ("HOME", "/home/me")];
        assert_eq!(user_dir_from(env(&vars)), Some(PathBuf::from("/xdg/io")));
        let vars = [("XDG_CONFIG_HOME", "rel"), ("HOME", "/home/me")];
        assert_eq!(
            user_dir_from(env(&vars)),
            Some(PathBuf::from("/home/me/.config/io"))
        );
    }

    #[test]
    fn empty_variables_count_as_unset() {
        let vars = [
            ("IO_CONFIG_HOME", ""),
            ("XDG_CONFIG_HOME", ""),
            ("HOME", "/h"),
        ];
        assert_eq!(
            user_dir_from(env(&vars)),
            Some(PathBuf::from("/h/.config/io"))
        );
        assert_eq!(user_dir_from(env(&[])), None);
    }

    #[test]
    fn relative_io_config_home_and_home_are_ignored_too() {
        for rel in [".", "cfg", "./x", "../up"] {
            let vars = [("IO_CONFIG_HOME", rel), ("HOME", "/h")];
            assert_eq!(
                user_dir_from(env(&vars)),
                Some(PathBuf::from("/h/.config/io")),
                "IO_CONFIG_HOME={rel}"
            );
            assert_eq!(user_dir_from(env(&[("HOME", rel)])), None, "HOME={rel}");
        }
    }

    #[test]
    fn the_data_directory_follows_the_same_rule() {
        let vars = [
            ("IO_DATA_HOME", "/data"),
            ("XDG_DATA_HOME", "/xdg"),
            ("HOME", "/h"),
        ];
        assert_eq!(data_dir_from(env(&vars)), Some(PathBuf::from("/data")));
        let vars = [("IO_DATA_HOME", "rel"), ("XDG_DATA_HOME", "/xdg")];
        assert_eq!(data_dir_from(env(&vars)), Some(PathBuf::from("/xdg/io")));
        let vars = [("XDG_DATA_HOME", ""), ("HOME", "/h")];
        assert_eq!(
            data_dir_from(env(&vars)),
            Some(PathBuf::from("/h/.local/share/io"))
        );
        assert_eq!(data_dir_from(env(&[("HOME", ".")])), None);
    }

    #[test]
    fn the_variables_passed_over_are_the_relative_ones_before_the_one_used() {
        let vars = [
            ("IO_CONFIG_HOME", "cfg"),
            ("XDG_CONFIG_HOME", "/x"),
            ("HOME", "h"),
        ];
        assert_eq!(user_dir_passed_over(env(&vars)), ["IO_CONFIG_HOME=cfg"]);
        let vars = [
            ("IO_CONFIG_HOME", "cfg"),
            ("XDG_CONFIG_HOME", "x"),
            ("HOME", "h"),
        ];
        assert_eq!(
            user_dir_passed_over(env(&vars)),
            ["IO_CONFIG_HOME=cfg", "XDG_CONFIG_HOME=x", "HOME=h"]
        );
        let vars = [("IO_CONFIG_HOME", "/c"), ("XDG_CONFIG_HOME", "x")];
        assert!(user_dir_passed_over(env(&vars)).is_empty());
        let vars = [("IO_CONFIG_HOME", ""), ("HOME", "/h")];
        assert!(
            user_dir_passed_over(env(&vars)).is_empty(),
            "empty is unset"
        );
    }
}
