//! The user-scope and data directories on Windows (issue 47):
//! `%IO_CONFIG_HOME%` (`%IO_DATA_HOME%`) first, as on Unix, then `io` in
//! the roaming application data directory, `%APPDATA%\io`, for both: the
//! directory etcetera's Windows strategy gives as its config and its data
//! directory alike. `APPDATA` is read here first, so that the choice is a
//! function of the environment it is given; when it is unset, etcetera
//! asks Windows for the known folder (`SHGetKnownFolderPath`, which needs
//! `unsafe` this crate does not write). `XDG_*` and `HOME` are not read:
//! they are Unix's, and a Windows shell that sets `HOME` (Git Bash) points
//! it at the profile anyway.

use std::ffi::OsString;
use std::path::PathBuf;

/// The variables the user-scope lookup reads, in order.
pub(super) const USER_DIR_VARS: [&str; 2] = ["IO_CONFIG_HOME", "APPDATA"];

/// `%IO_CONFIG_HOME%` if set, else `%APPDATA%\io`.
pub(in crate::config) fn user_dir_from(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    base_dir_from(var, "IO_CONFIG_HOME", known_folder)
}

/// `%IO_DATA_HOME%` if set, else `%APPDATA%\io`.
pub(in crate::config) fn data_dir_from(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    base_dir_from(var, "IO_DATA_HOME", known_folder)
}

/// The roaming application data directory as etcetera finds it when
/// `APPDATA` is not set: Windows' known folder, else the profile's
/// `AppData\Roaming`.
fn known_folder() -> Option<PathBuf> {
    use etcetera::BaseStrategy;
    etcetera::base_strategy::Windows::new()
        .ok()
        .map(|strategy| strategy.data_dir())
}

/// `%OWN%` if set, else `%APPDATA%\io`, else `io` in what `known` finds;
/// each counted only when absolute, as on Unix (a relative one would name
/// a directory in the repository `io` runs in).
fn base_dir_from(
    var: impl Fn(&str) -> Option<OsString>,
    own: &str,
    known: impl FnOnce() -> Option<PathBuf>,
) -> Option<PathBuf> {
    let set = |name: &str| var(name).map(PathBuf::from).filter(|dir| dir.is_absolute());
    if let Some(dir) = set(own) {
        return Some(dir);
    }
    if let Some(dir) = set("APPDATA") {
        return Some(dir.join("io"));
    }
    // An APPDATA that is set but not absolute is not looked past: the known
    // folder is what it should have named, but the operator's environment
    // says otherwise, and `io` says so (`user_dir_passed_over`).
    if var("APPDATA").is_some_and(|v| !v.is_empty()) {
        return None;
    }
    known()
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("io"))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::{base_dir_from, data_dir_from, known_folder, user_dir_from};
    use crate::config::discover::{env, user_dir_passed_over};

    fn known() -> Option<PathBuf> {
        Some(PathBuf::from(r"C:\Users\me\AppData\Roaming"))
    }

    #[test]
    fn io_config_home_comes_first_then_appdata() {
        let vars = [
            ("IO_CONFIG_HOME", r"D:\cfg"),
            ("APPDATA", r"C:\Users\me\AppData\Roaming"),
            ("XDG_CONFIG_HOME", r"C:\xdg"),
            ("HOME", r"C:\Users\me"),
        ];
        assert_eq!(
            base_dir_from(env(&vars), "IO_CONFIG_HOME", known),
            Some(PathBuf::from(r"D:\cfg"))
        );
        assert_eq!(
            base_dir_from(env(&vars[1..]), "IO_CONFIG_HOME", || None),
            Some(PathBuf::from(r"C:\Users\me\AppData\Roaming\io"))
        );
        // XDG_* and HOME are Unix's: not read on Windows.
        assert_eq!(
            base_dir_from(env(&vars[2..]), "IO_CONFIG_HOME", || None),
            None
        );
    }

    #[test]
    fn without_appdata_the_known_folder_is_used() {
        assert_eq!(
            base_dir_from(env(&[("APPDATA", "")]), "IO_DATA_HOME", known),
            Some(PathBuf::from(r"C:\Users\me\AppData\Roaming\io"))
        );
        assert_eq!(
            base_dir_from(env(&[]), "IO_DATA_HOME", || Some(PathBuf::from("rel"))),
            None
        );
    }

    /// With no variable set, both directories are `io` in the known folder
    /// Windows names for roaming application data: an absolute path.
    #[test]
    fn with_no_variable_set_both_are_io_in_the_known_folder() {
        let known = known_folder().expect("Windows names a roaming application data folder");
        assert!(known.is_absolute(), "{}", known.display());
        let io = known.join("io");
        assert_eq!(user_dir_from(|_| None), Some(io.clone()));
        assert_eq!(data_dir_from(|_| None), Some(io));
    }

    #[test]
    fn an_empty_or_relative_variable_counts_as_unset() {
        for rel in ["", ".", "cfg", r".\x", r"..\up", r"\no-drive", "C:no-slash"] {
            let vars = [("IO_DATA_HOME", rel), ("APPDATA", r"C:\A")];
            assert_eq!(
                base_dir_from(env(&vars), "IO_DATA_HOME", || None),
                Some(PathBuf::from(r"C:\A\io")),
                "IO_DATA_HOME={rel}"
            );
        }
        // A relative APPDATA is not looked past to the known folder.
        assert_eq!(
            base_dir_from(env(&[("APPDATA", "rel")]), "IO_DATA_HOME", known),
            None
        );
    }

    #[test]
    fn the_variables_passed_over_are_io_config_home_and_appdata() {
        let vars = [("IO_CONFIG_HOME", "cfg"), ("APPDATA", "a"), ("HOME", "h")];
        assert_eq!(
            user_dir_passed_over(env(&vars)),
            ["IO_CONFIG_HOME=cfg", "APPDATA=a"]
        );
        let vars = [("IO_CONFIG_HOME", "cfg"), ("APPDATA", r"C:\A")];
        assert_eq!(user_dir_passed_over(env(&vars)), ["IO_CONFIG_HOME=cfg"]);
    }
}
