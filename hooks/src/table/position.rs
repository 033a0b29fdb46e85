//! Positions and key paths: where in the file a problem is, as an operator
//! reads it (line and column from 1, `hook[2].on` with tables from 1).

use std::borrow::Cow;

use serde_path_to_error::Segment;

use super::raw::{SPANNED_PRIVATE, TOML_PRIVATE};

/// One step of a key path, as an operator reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum KeySegment {
    Key(String),
    /// An array position, from 1.
    Nth(usize),
}

/// The key path of a serde error, for an operator: array positions counted
/// from 1, [`Spanned`](toml::Spanned)'s private keys dropped, and nothing below a hook
/// table's key (`hook[2].on`, not `hook[2].on[3]`: the position points at
/// the element).
pub(super) fn key_segments(path: &serde_path_to_error::Path) -> Vec<KeySegment> {
    let mut out = Vec::new();
    let mut in_table = false;
    for segment in path {
        match segment {
            Segment::Seq { index } => {
                if in_table && matches!(out.last(), Some(KeySegment::Key(_))) {
                    break;
                }
                in_table = true;
                out.push(KeySegment::Nth(index.saturating_add(1)));
            }
            Segment::Map { key } => {
                if key.starts_with(SPANNED_PRIVATE) || key.starts_with(TOML_PRIVATE) {
                    continue;
                }
                out.push(KeySegment::Key(key.clone()));
            }
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    out
}

pub(super) fn render_key(segments: &[KeySegment]) -> String {
    let mut out = String::new();
    for segment in segments {
        match segment {
            KeySegment::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&toml_key(k));
            }
            KeySegment::Nth(n) => {
                out.push('[');
                out.push_str(&n.to_string());
                out.push(']');
            }
        }
    }
    if out.is_empty() {
        // The document itself: only a caller's own top-level type can fail
        // here, and the file name already says which document.
        out.push_str("(top level)");
    }
    out
}

/// `key` as it would be written in a TOML key path: bare when it can be,
/// quoted (with escapes) otherwise.
///
/// ```
/// assert_eq!(io_hooks::text::toml_key("ci"), "ci");
/// assert_eq!(io_hooks::text::toml_key("my ci"), "\"my ci\"");
/// assert_eq!(io_hooks::text::toml_key(""), "\"\"");
/// ```
pub fn toml_key(key: &str) -> Cow<'_, str> {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        return Cow::Borrowed(key);
    }
    let mut out = String::with_capacity(key.len() + 2);
    out.push('"');
    for c in key.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    Cow::Owned(out)
}

/// The 1-based line and character column of byte `offset` in `text`.
///
/// An offset past the end, or inside a character, is clamped rather than
/// trusted: this runs on positions from another crate.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_counts_characters_from_one() {
        assert_eq!(line_column("abc", 0), (1, 1));
        assert_eq!(line_column("a\nbc", 3), (2, 2));
        assert_eq!(line_column("é\nxé", 4), (2, 2));
        assert_eq!(line_column("é\nxé", 6), (2, 3));
        assert_eq!(line_column("ab", 99), (1, 3), "past the end is clamped");
        assert_eq!(line_column("é", 1), (1, 1), "inside a character is clamped");
    }

    #[test]
    fn keys_are_quoted_only_when_they_must_be() {
        assert_eq!(toml_key("hook"), "hook");
        assert_eq!(toml_key("a.b"), "\"a.b\"");
        assert_eq!(toml_key("say \"hi\""), "\"say \\\"hi\\\"\"");
        assert_eq!(toml_key("\u{7}"), "\"\\u0007\"");
    }
}
