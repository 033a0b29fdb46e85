//! `name = "…"` on a hook table: what it may be, and that it is the only
//! one of its array to have it.
//!
//! A name is printed in every message about its hook, so it is refused
//! unless it prints as itself: 1 to [`MAX_NAME`] characters, none a control
//! character, an invisible one ([`is_invisible`]), `"` or `\` (it is shown
//! between quotes, `hook[3] "audit"`), and not all ASCII digits, so that a
//! command line taking a hook by its place (`--hook 3`) or by its name
//! cannot mistake one for the other.

use std::collections::BTreeMap;

use crate::key::NAME;
use crate::message::is_invisible;
use crate::raw::{Cx, RawHook};
use crate::table_error::{TableError, TableErrorKind};

/// The longest name, in characters.
pub(crate) const MAX_NAME: usize = 64;

/// The JSON Schema's `pattern` for a name: no control character, `"` or
/// `\`, and one character at least that is not an ASCII digit. The
/// invisible characters are refused by the reader alone.
pub(crate) const PATTERN: &str = "^[^\"\\\\\\u0000-\\u001f\\u007f]*[^0-9\"\\\\\\u0000-\\u001f\\u007f][^\"\\\\\\u0000-\\u001f\\u007f]*$";

/// Why `name` is not a hook's name, or `None` when it is one.
///
/// Returns the reason, naming the character at fault by its code point and
/// never echoing the name (it may not print as itself).
pub(crate) fn refusal(name: &str) -> Option<String> {
    let count = name.chars().count();
    if count == 0 {
        return Some("an empty name names nothing; write one, or remove `name`".to_owned());
    }
    if count > MAX_NAME {
        return Some(format!(
            "a name of {count} characters is longer than {MAX_NAME}; write a shorter one"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| c.is_control() || is_invisible(*c) || matches!(c, '"' | '\\'))
    {
        return Some(format!(
            "a name may not hold U+{:04X} (a control or invisible character, `\"` or `\\`): it \
             is printed between quotes in every message about the hook; write one that prints \
             as itself",
            u32::from(c)
        ));
    }
    if name.bytes().all(|b| b.is_ascii_digit()) {
        return Some(
            "a name of digits alone would read as the hook's place (`--hook 3`); put a letter \
             in it"
                .to_owned(),
        );
    }
    None
}

/// The table's `name`, taken and checked, and noted in `seen` (each name of
/// the array so far, with the key path of the table that has it).
///
/// # Errors
/// A name [`refusal`] refuses, or one an earlier table of the array has:
/// the error names this table's `name` and the other table.
pub(super) fn take(
    raw: &mut RawHook,
    cx: &Cx<'_>,
    seen: &mut BTreeMap<String, String>,
) -> Result<Option<String>, TableError> {
    let Some(name) = raw.take_text(NAME) else {
        return Ok(None);
    };
    let span = name.span();
    let name = name.into_inner();
    if let Some(reason) = refusal(&name) {
        return Err(cx.error(NAME, span, TableErrorKind::BadName { reason }));
    }
    if let Some(first) = seen.get(&name) {
        let kind = TableErrorKind::RepeatedName {
            name,
            first: first.clone(),
        };
        return Err(cx.error(NAME, span, kind));
    }
    seen.insert(name.clone(), cx.at.to_owned());
    Ok(Some(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_prints_as_itself_and_is_not_a_number() {
        for good in [
            "audit",
            "no rm",
            "policy:exec-1",
            "3rd",
            "é",
            &"x".repeat(MAX_NAME),
        ] {
            assert_eq!(refusal(good), None, "{good:?}");
        }
        for (bad, says) in [
            ("", "empty"),
            ("12", "digits alone"),
            ("a\u{1b}b", "U+001B"),
            ("a\"b", "U+0022"),
            ("a\\b", "U+005C"),
            ("a\u{202e}b", "U+202E"),
            ("a\nb", "U+000A"),
        ] {
            let reason = refusal(bad).expect(bad);
            assert!(reason.contains(says), "{bad:?}: {reason}");
        }
        let long = "x".repeat(MAX_NAME + 1);
        assert!(refusal(&long).expect("long").contains("65 characters"));
    }
}
