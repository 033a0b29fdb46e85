//! `io_hooks::text::shell_word` (issue 44 item 4): a word quoted for a
//! POSIX shell is read back by `sh` as that word, whatever it holds. The
//! shell here is the test's: it plays the operator pasting a command.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

use std::ffi::OsStr;
use std::process::Command;

use io_hooks::text::{pasteable_word, shell_word};
use proptest::prelude::*;

/// What `/bin/sh` prints for `printf %s WORD`, `WORD` being `quoted` as
/// written into the command line.
fn as_sh_reads_it(quoted: &str) -> Vec<u8> {
    let out = Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("printf %s {quoted}"))
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("IFS", " \t\n")
        .output()
        .expect("/bin/sh runs");
    assert!(out.status.success(), "sh failed on {quoted:?}: {out:?}");
    out.stdout
}

/// A character a shell treats specially, or a plain one, or any other.
fn shell_char() -> impl Strategy<Value = char> {
    prop_oneof![
        prop::sample::select(vec![
            '\'', '"', '\\', '$', '`', '!', '(', ')', '{', '}', '[', ']', '*', '?', '~', '#', '&',
            ';', '|', '<', '>', ' ', '\t', '\n', '=', '%', '^', ',', '-', '.', '/', ':'
        ]),
        prop::char::range('a', 'z'),
        any::<char>().prop_filter("no NUL: no argument can hold one", |c| *c != '\0'),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn any_word_quoted_is_read_back_by_sh_as_itself(
        chars in prop::collection::vec(shell_char(), 0..24)
    ) {
        let word: String = chars.into_iter().collect();
        prop_assert_eq!(as_sh_reads_it(&shell_word(&word)), word.as_bytes());
    }
}

#[test]
fn the_words_of_the_attacks_are_read_back_as_themselves() {
    for word in [
        "w$(touch${IFS}PWNED)",
        "`touch PWNED`",
        "a'b",
        "'",
        "''",
        "a\\'b",
        "-n",
        "",
        "x;touch PWNED",
        "\n",
        "=ls",
        "!!",
    ] {
        assert_eq!(
            as_sh_reads_it(&shell_word(word)),
            word.as_bytes(),
            "{word:?}"
        );
    }
    assert!(pasteable_word(OsStr::new("w$(touch${IFS}PWNED)")).is_ok());
}
