//! A command printed for an operator to paste: each word quoted for a POSIX
//! shell ([`shell_word`]), and printed only when it can be printed as it is
//! ([`pasteable_word`]).
//!
//! On Windows (issue 47) the operator's shell is PowerShell or cmd, and a
//! POSIX quoting is wrong for both: there a word is quoted for PowerShell
//! ([`powershell_word`]: single quotes, in which PowerShell expands
//! nothing, each `'` doubled), and the command is PowerShell's
//! (`New-Item -ItemType Directory -Force -Path` for `mkdir -p`). cmd has no
//! quoting that keeps `%` from expanding, so no command is printed for it.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::path::Path;

use crate::message::is_invisible;

/// Returns `word` as a POSIX shell reads it back as one word, unchanged: as
/// it is when it is not empty and holds only `A-Z a-z 0-9 _ @ % + = : , . /
/// -` (and does not begin with `=`, which zsh expands as `=cmd`), else in
/// single quotes, a `'` in it written `'\''`. Inside single quotes a POSIX
/// shell expands nothing (`$`, `` ` ``, `\`, `!` under `sh`, a newline), so
/// a word a clone named `w$(touch${IFS}PWNED)` arrives as those bytes.
///
/// A word is an argument, not a command's first word, where a bare
/// `NAME=value` would be an assignment. A NUL cannot be in any argument.
///
/// ```
/// use io_hooks::text::shell_word;
///
/// assert_eq!(shell_word("/tmp/ws"), "/tmp/ws");
/// assert_eq!(shell_word("w$(touch${IFS}PWNED)"), "'w$(touch${IFS}PWNED)'");
/// assert_eq!(shell_word("it's"), r"'it'\''s'");
/// assert_eq!(shell_word(""), "''");
/// ```
pub fn shell_word(word: &str) -> Cow<'_, str> {
    let bare = |b: u8| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(&b);
    if !word.is_empty() && !word.starts_with('=') && word.bytes().all(bare) {
        return Cow::Borrowed(word);
    }
    let mut quoted = String::with_capacity(word.len() + 2);
    quoted.push('\'');
    for (i, part) in word.split('\'').enumerate() {
        if i > 0 {
            quoted.push_str("'\\''");
        }
        quoted.push_str(part);
    }
    quoted.push('\'');
    Cow::Owned(quoted)
}

/// Why a word is not printed to paste: it is not UTF-8, so the terminal
/// would show other characters than its bytes, and a shell would read back
/// what was shown, not the word (`$'\xff'` would say it, but is not POSIX
/// `sh`).
const NOT_UTF8: &str = "is not UTF-8";

/// Why a word is not printed to paste: it holds a control or an invisible
/// character ([`is_invisible`]), which is printed escaped (`\n`,
/// `\u{202e}`) or shows as nothing, so what is pasted is not the word.
const NOT_SHOWN: &str =
    "holds a control or invisible character, which a terminal does not show as it is";

/// Returns `word` quoted by [`shell_word`] when it can be printed as it
/// is, so that what an operator copies from the terminal and pastes is the
/// word: UTF-8, with no control character (a newline, an escape) and no
/// invisible one ([`is_invisible`]). A POSIX shell has no quoting that shows
/// other bytes as text (`$'…'` is bash's and zsh's), so such a word is
/// never half-printed: the caller says why instead (the error's `Display`).
///
/// ```ignore-windows
/// use std::ffi::OsStr;
/// use std::os::unix::ffi::OsStrExt;
/// use io_hooks::text::pasteable_word;
///
/// assert_eq!(pasteable_word(OsStr::new("/my logs")).unwrap(), "'/my logs'");
/// assert_eq!(pasteable_word(OsStr::from_bytes(b"/a\xff")), Err("is not UTF-8"));
/// assert_eq!(
///     pasteable_word(OsStr::new("a\nb")),
///     Err("holds a control or invisible character, which a terminal does not show as it is")
/// );
/// ```
///
/// # Errors
/// Why the word cannot be printed as it is, in words that follow the
/// word's name in a sentence: `is not UTF-8`, or `holds a control or
/// invisible character, which a terminal does not show as it is`.
pub fn pasteable_word(word: &OsStr) -> Result<Cow<'_, str>, &'static str> {
    let text = word.to_str().ok_or(NOT_UTF8)?;
    if text.chars().any(|c| c.is_control() || is_invisible(c)) {
        return Err(NOT_SHOWN);
    }
    #[cfg(not(windows))]
    return Ok(shell_word(text));
    #[cfg(windows)]
    Ok(powershell_word(text))
}

/// Returns `word` as PowerShell reads it back as one word, unchanged: as it
/// is when it is not empty, does not begin with `-` (a parameter's name)
/// and holds only `A-Z a-z 0-9 _ . / \ :`, else in single quotes, inside
/// which PowerShell expands nothing (`$`, `` ` ``, `@(…)`), each quote in
/// it doubled: `'` and the typographic single quotes PowerShell also takes
/// for one (U+2018, U+2019, U+201A, U+201B).
#[cfg_attr(
    not(windows),
    allow(dead_code, reason = "Windows' quoting, tested everywhere")
)]
pub(crate) fn powershell_word(word: &str) -> Cow<'_, str> {
    let bare = |b: u8| b.is_ascii_alphanumeric() || b"_./\\:".contains(&b);
    if !word.is_empty() && !word.starts_with('-') && word.bytes().all(bare) {
        return Cow::Borrowed(word);
    }
    let mut quoted = String::with_capacity(word.len() + 2);
    quoted.push('\'');
    for c in word.chars() {
        if matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{201b}') {
            quoted.push(c);
        }
        quoted.push(c);
    }
    quoted.push('\'');
    Cow::Owned(quoted)
}

/// The command that makes a directory and those above it: `mkdir -p`, or
/// PowerShell's on Windows.
#[cfg(not(windows))]
pub(crate) const MAKE_DIRS: &str = "mkdir -p";
/// The command that makes a directory and those above it: `mkdir -p`, or
/// PowerShell's on Windows.
#[cfg(windows)]
pub(crate) const MAKE_DIRS: &str = "New-Item -ItemType Directory -Force -Path";

/// A hint's command on `path`: `chmod +x /a/b` (`command`, then the path
/// as one word), or, when the path cannot be printed to paste
/// ([`pasteable_word`]), `chmod +x on it (its name is not UTF-8, so no
/// command to paste is printed)`. The problem the hint follows names the
/// path, escaped.
pub(crate) fn command_on(command: &str, path: &Path) -> String {
    match pasteable_word(path.as_os_str()) {
        Ok(word) => format!("{command} {word}"),
        Err(why) => format!("{command} on it (its name {why}, so no command to paste is printed)"),
    }
}

#[cfg(test)]
mod tests {
    #[cfg(unix)]
    use std::os::unix::ffi::OsStrExt;

    use super::*;

    #[test]
    fn a_plain_word_stays_bare_and_anything_else_is_single_quoted() {
        for bare in [
            "/a/b-c_d.e+f,g:h@i",
            "r-0123456789ab",
            "ci",
            "100%",
            "a=b",
            "-",
        ] {
            assert_eq!(shell_word(bare), bare);
        }
        for (word, quoted) in [
            ("/my logs", "'/my logs'"),
            ("/it's", r"'/it'\''s'"),
            ("/$HOME/`x`", "'/$HOME/`x`'"),
            ("", "''"),
            ("~", "'~'"),
            ("a*b?[c]", "'a*b?[c]'"),
            ("=ls", "'=ls'"),
            ("a\\b!c", "'a\\b!c'"),
            ("'", r"''\'''"),
            ("é", "'é'"),
        ] {
            assert_eq!(shell_word(word), quoted, "{word}");
        }
    }

    /// PowerShell's quoting, tested on every platform: what Windows prints.
    #[test]
    fn a_powershell_word_is_bare_or_single_quoted_with_quotes_doubled() {
        for bare in [r"C:\Users\me\logs", "a_b.c", "ci", "./x"] {
            assert_eq!(powershell_word(bare), bare);
        }
        for (word, quoted) in [
            (r"C:\my logs", r"'C:\my logs'"),
            ("it's", "'it''s'"),
            ("it\u{2019}s", "'it\u{2019}\u{2019}s'"),
            ("$env:HOME", "'$env:HOME'"),
            ("a`b", "'a`b'"),
            ("-Force", "'-Force'"),
            ("@(1)", "'@(1)'"),
            ("a;b", "'a;b'"),
            ("%PATH%", "'%PATH%'"),
            ("", "''"),
        ] {
            assert_eq!(powershell_word(word), quoted, "{word}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_word_not_shown_as_it_is_is_not_pasteable() {
        assert_eq!(
            pasteable_word(OsStr::from_bytes(b"/r\xffoot")),
            Err(NOT_UTF8)
        );
        for shown_otherwise in ["a\nb", "a\tb", "\u{1b}[2J", "a\u{202e}b", "\u{feff}", "a\0"] {
            assert_eq!(
                pasteable_word(OsStr::new(shown_otherwise)),
                Err(NOT_SHOWN),
                "{shown_otherwise:?}"
            );
        }
        assert_eq!(
            pasteable_word(OsStr::new("w$(touch${IFS}PWNED)")).as_deref(),
            Ok("'w$(touch${IFS}PWNED)'")
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_hint_says_why_it_prints_no_command() {
        assert_eq!(command_on("chmod +x", Path::new("/a b")), "chmod +x '/a b'");
        assert_eq!(
            command_on("mkdir -p", Path::new(OsStr::from_bytes(b"/x\xff"))),
            "mkdir -p on it (its name is not UTF-8, so no command to paste is printed)"
        );
    }

    /// On Windows a hint's command is PowerShell's, its path quoted for
    /// PowerShell; a name that is not Unicode (an unpaired surrogate) gets
    /// no command, saying why.
    #[cfg(windows)]
    #[test]
    fn a_hint_is_a_powershell_command() {
        use std::ffi::OsString;
        use std::os::windows::ffi::OsStringExt;

        assert_eq!(
            command_on(MAKE_DIRS, Path::new(r"C:\my logs")),
            r"New-Item -ItemType Directory -Force -Path 'C:\my logs'"
        );
        assert_eq!(
            pasteable_word(OsStr::new("it's $x")).as_deref(),
            Ok("'it''s $x'")
        );
        let unpaired = OsString::from_wide(&[0x61, 0xd800]);
        assert_eq!(pasteable_word(&unpaired), Err(NOT_UTF8));
        assert_eq!(
            command_on(MAKE_DIRS, Path::new(&unpaired)),
            "New-Item -ItemType Directory -Force -Path on it (its name is not UTF-8, so no \
             command to paste is printed)"
        );
        assert_eq!(pasteable_word(OsStr::new("a\nb")), Err(NOT_SHOWN));
    }
}
