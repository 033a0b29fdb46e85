//! A hook has no shell, and its problems' hints are written for one: what a
//! shell would have expanded in a program or a path (and a hook takes
//! literally), and the trees no command fixes. A command to paste is
//! `crate::paste`'s.

use std::fmt;
use std::path::Path;

/// Whether a shell would have expanded something in `text`: a leading `~`,
/// or `$` followed by a name or `{`.
pub(crate) fn shell_would_expand(text: &str) -> bool {
    if text.starts_with('~') {
        return true;
    }
    let bytes = text.as_bytes();
    bytes
        .windows(2)
        .any(|w| w[0] == b'$' && (w[1] == b'{' || w[1] == b'_' || w[1].is_ascii_alphabetic()))
}

/// The message of a `~`, `$NAME` or `${NAME}` that a shell would expand, and
/// a hook takes literally, in the value of `key` (`run[1]`, `append`).
pub(crate) fn write_not_expanded(f: &mut fmt::Formatter<'_>, key: &str, text: &str) -> fmt::Result {
    write!(
        f,
        "`{key}` = `{text}`: the `~` or `$` is taken literally, because there is no shell"
    )
}

/// The hint for what [`write_not_expanded`] says.
pub(crate) fn not_expanded_hint() -> String {
    "write the absolute path in its place: nothing expands `~` or `$NAME`, because a hook \
     never runs through a shell"
        .to_owned()
}

/// Whether `path` is under `/proc`, `/sys` or `/dev`, the kernel's own
/// trees (`/dev/shm`, an ordinary file system, aside): no `mkdir` or `chmod`
/// there makes a hook work, so a problem about such a path gets no hint.
pub(crate) fn is_kernels(path: &Path) -> bool {
    ["/proc", "/sys", "/dev"]
        .iter()
        .any(|tree| path.starts_with(tree))
        && !path.starts_with("/dev/shm")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_trees_are_told_apart() {
        for path in [
            "/proc/x",
            "/proc",
            "/sys/kernel/x",
            "/dev/null",
            "/dev/nope/a",
        ] {
            assert!(is_kernels(Path::new(path)), "{path}");
        }
        for path in [
            "/dev/shm/x",
            "/process/x",
            "/devices",
            "/tmp/proc",
            "proc/x",
        ] {
            assert!(!is_kernels(Path::new(path)), "{path}");
        }
    }

    #[test]
    fn what_a_shell_would_expand_is_recognised() {
        for yes in [
            "~",
            "~/a",
            "~bob/x",
            "$HOME/bin",
            "${HOME}/x",
            "a$_b",
            "--to=$USER",
        ] {
            assert!(shell_would_expand(yes), "{yes}");
        }
        for no in ["a~b", "$", "$1", "cost$", "plain", "$$", "a/$-"] {
            assert!(!shell_would_expand(no), "{no}");
        }
    }
}
