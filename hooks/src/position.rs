//! Positions and key paths: where in the file a problem is, as an operator
//! reads it (line and column from 1, `hook[2].on` with tables from 1), and
//! the words a message quotes the file with: a key as TOML writes it, a
//! value clipped, a list as a sentence.
//!
//! It names no other module of the crate: the tables, the actions and the
//! errors all write with it.

use std::borrow::Cow;
use std::fmt;

use serde_path_to_error::Segment;

/// The prefix of the toml crate's private keys (its date-time).
pub(crate) const TOML_PRIVATE: &str = "$__toml_private";
/// The prefix of the keys [`Spanned`](toml::Spanned)'s `Deserialize` reads
/// its value through, which a key path shows; they are dropped from the
/// paths an operator reads.
pub(crate) const SPANNED_PRIVATE: &str = "$__serde_spanned_private";

/// One step of a key path, as an operator reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeySegment {
    Key(String),
    /// An array position, from 1.
    Nth(usize),
    /// A map key serde_path_to_error did not see as a string (a
    /// [`Spanned`](toml::Spanned) key): found in the document by
    /// `table::keypath::resolve`, shown as `?` when it cannot be.
    Unknown,
}

/// The key path of a serde error, for an operator: array positions counted
/// from 1, [`Spanned`](toml::Spanned)'s private keys dropped, and nothing below a hook
/// table's key (`hook[2].on`, not `hook[2].on[3]`: the position points at
/// the element).
pub(crate) fn key_segments(path: &serde_path_to_error::Path) -> Vec<KeySegment> {
    let mut out = Vec::new();
    let mut in_table = false;
    for segment in path {
        match segment {
            Segment::Seq { index } => {
                if in_table && matches!(out.last(), Some(KeySegment::Key(_) | KeySegment::Unknown))
                {
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
            Segment::Unknown => out.push(KeySegment::Unknown),
            Segment::Enum { .. } => {}
        }
    }
    out
}

pub(crate) fn render_key(segments: &[KeySegment]) -> String {
    let mut out = String::new();
    for segment in segments {
        match segment {
            KeySegment::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&toml_key(k));
            }
            KeySegment::Unknown => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push('?');
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
            c if c.is_control() || crate::message::is_invisible(c) => {
                let code = u32::from(c);
                match code > 0xffff {
                    true => out.push_str(&format!("\\U{code:08X}")),
                    false => out.push_str(&format!("\\u{code:04X}")),
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    Cow::Owned(out)
}

/// The most characters of a source line that [`SourceLine`] keeps, around
/// the column it points at: a file may hold a line of a megabyte, and an
/// error shows where it is, not all of it.
pub(crate) const EXCERPT_WIDTH: usize = 100;

/// The line an error points into, cut to at most 100 characters around the column (`…` marks each side that was cut), for a
/// caller to print under the message with a caret at [`caret`](Self::caret).
///
/// The text is as written, not escaped: a terminal needs its control
/// characters escaped, and the caret moved to match.
///
/// ```
/// let long = format!("x = {}!", "a".repeat(500));
/// let line = io_hooks::text::SourceLine::at(&long, 200);
/// assert_eq!(line.line, 1);
/// assert_eq!(line.text.chars().count(), 102, "100 characters and two `…`");
/// assert!(line.text.starts_with('…') && line.text.ends_with('…'));
/// assert_eq!(line.text.chars().nth(line.caret), Some('a'));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLine {
    /// The line's number, from 1.
    pub line: usize,
    /// The line (without its line ending), cut around the column.
    pub text: String,
    /// Where the column falls in [`text`](Self::text), in characters from 0
    /// (one past the last character when the problem is the line's end).
    pub caret: usize,
}

impl SourceLine {
    /// The line of `text` that byte `offset` falls in, cut around it. An
    /// offset past the end, or inside a character, is clamped, as
    /// [`TomlFile::position`](crate::TomlFile::position) clamps it.
    pub fn at(text: &str, offset: usize) -> SourceLine {
        let offset = clamp(text, offset);
        let (line, column) = line_column(text, offset);
        let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let rest = &text[start..];
        let whole = rest.split('\n').next().unwrap_or(rest);
        let whole = whole.strip_suffix('\r').unwrap_or(whole);
        let column = column - 1;
        let total = whole.chars().count();
        let from = if total <= EXCERPT_WIDTH {
            0
        } else {
            column
                .saturating_sub(EXCERPT_WIDTH / 2)
                .min(total - EXCERPT_WIDTH)
        };
        let mut cut = String::new();
        if from > 0 {
            cut.push('…');
        }
        cut.extend(whole.chars().skip(from).take(EXCERPT_WIDTH));
        if from + EXCERPT_WIDTH < total {
            cut.push('…');
        }
        SourceLine {
            line,
            text: cut,
            caret: column - from + usize::from(from > 0),
        }
    }
}

/// `text` cut to at most `max` characters, keeping its start and its end
/// (where a message says what is accepted) around a `…`: for a message
/// that quotes a value or a key as written, which may be a megabyte long.
pub(crate) fn clipped(text: &str, max: usize) -> Cow<'_, str> {
    let total = text.chars().count();
    if total <= max {
        return Cow::Borrowed(text);
    }
    let tail = max / 3;
    let head = max - tail - 1;
    let mut out: String = text.chars().take(head).collect();
    out.push('…');
    out.extend(text.chars().skip(total - tail));
    Cow::Owned(out)
}

/// The 1-based line and character column of byte `offset` in `text`.
///
/// An offset past the end, or inside a character, is clamped rather than
/// trusted: this runs on positions from another crate.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = clamp(text, offset);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// `offset` moved back to the end of `text`, or to the start of the
/// character it falls inside.
fn clamp(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// `items` as a sentence lists them: "a, b or c".
pub(crate) fn or_list(items: &[&str]) -> String {
    struct List<'a>(&'a [&'a str]);
    impl fmt::Display for List<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write_or_list(f, self.0, "", "")
        }
    }
    List(items).to_string()
}

/// `items`, each between `open` and `close`, as a sentence lists them:
/// "`a` or `b`", "`a`, `b` or `c`".
pub(crate) fn write_or_list(
    f: &mut fmt::Formatter<'_>,
    items: &[&str],
    open: &str,
    close: &str,
) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(if i + 1 == items.len() { " or " } else { ", " })?;
        }
        write!(f, "{open}{item}{close}")?;
    }
    Ok(())
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
    fn a_source_line_is_the_line_of_the_offset_without_its_ending() {
        let text = "a = 1\r\nbb = ?\nlast";
        let line = SourceLine::at(text, 12);
        assert_eq!(
            (line.line, line.text.as_str(), line.caret),
            (2, "bb = ?", 5)
        );
        let last = SourceLine::at(text, 99);
        assert_eq!((last.line, last.text.as_str(), last.caret), (3, "last", 4));
        let first = SourceLine::at("é = x", 0);
        assert_eq!(
            (first.line, first.text.as_str(), first.caret),
            (1, "é = x", 0)
        );
    }

    #[test]
    fn a_source_line_is_cut_to_the_width_around_the_column() {
        let exact = "x".repeat(EXCERPT_WIDTH);
        assert_eq!(
            SourceLine::at(&exact, 99).text,
            exact,
            "at the width: whole"
        );
        let line: String = (0..300)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        // Near the start: cut on the right only.
        let start = SourceLine::at(&line, 10);
        assert_eq!(start.text, format!("{}…", &line[..EXCERPT_WIDTH]));
        assert_eq!(start.caret, 10);
        // In the middle: the column half the width in, after the `…`.
        let middle = SourceLine::at(&line, 150);
        assert_eq!(middle.text, format!("…{}…", &line[100..200]));
        assert_eq!(middle.caret, 51);
        assert_eq!(middle.text.chars().nth(middle.caret), line.chars().nth(150));
        // Near the end: cut on the left only, the last characters kept.
        let end = SourceLine::at(&line, 290);
        assert_eq!(end.text, format!("…{}", &line[200..]));
        assert_eq!(end.caret, 91);
        // One past the last character: the caret past the text.
        let past = SourceLine::at(&line, 300);
        assert_eq!(past.caret, past.text.chars().count());
        // One character over the width is cut.
        let over = "x".repeat(EXCERPT_WIDTH + 1);
        assert_eq!(
            SourceLine::at(&over, 0).text.chars().count(),
            EXCERPT_WIDTH + 1
        );
        assert!(SourceLine::at(&over, 0).text.ends_with('…'));
    }

    #[test]
    fn every_table_error_with_a_position_keeps_its_source_line() {
        use crate::TomlFile;
        #[derive(crate::HookEvents, serde::Serialize)]
        #[hook(crate = "crate")]
        #[serde(tag = "event")]
        #[allow(dead_code)] // only its tag is read, by the table
        enum Ev {
            #[serde(rename = "job_started")]
            JobStarted,
        }
        let line = |text: &str| {
            let file = TomlFile::new("app.toml", text);
            let e = file.hooks::<Ev>(std::path::Path::new("/r")).unwrap_err();
            e.source_line().map(|l| (l.line, l.text.clone(), l.caret))
        };
        // A syntax error, a shape error and a validation error.
        assert_eq!(line("a = 1\nb = ?\n"), Some((2, "b = ?".to_owned(), 4)));
        assert_eq!(
            line("[[hook]]\nappend = 1\n"),
            Some((2, "append = 1".to_owned(), 9))
        );
        assert_eq!(
            line("[[hook]]\nappend = \"\"\n"),
            Some((2, "append = \"\"".to_owned(), 9))
        );
        // The project refusal has no position, so no line.
        let project = TomlFile::project("app.toml", "[[hook]]\nappend = \"a\"\n");
        assert_eq!(project.check_scope().unwrap_err().source_line(), None);
    }

    #[test]
    fn clipped_keeps_the_start_and_the_end() {
        assert_eq!(clipped("abcdef", 6), "abcdef");
        assert_eq!(clipped("abcdefg", 6), "abc…fg");
        assert_eq!(clipped("abcdefghij", 7), "abcd…ij");
        assert!(matches!(clipped("abc", 3), Cow::Borrowed(_)));
    }

    #[test]
    fn keys_are_quoted_only_when_they_must_be() {
        assert_eq!(toml_key("hook"), "hook");
        assert_eq!(toml_key("a.b"), "\"a.b\"");
        assert_eq!(toml_key("say \"hi\""), "\"say \\\"hi\\\"\"");
        assert_eq!(toml_key("\u{7}"), "\"\\u0007\"");
    }

    /// A key that could not be found in the document is a `?` in the path,
    /// joined with a `.` like any key, and first with none; an empty path
    /// is the document itself.
    #[test]
    fn an_unknown_key_is_a_question_mark_in_its_place() {
        use KeySegment::{Key, Nth, Unknown};
        let hook = || Key("hook".to_owned());
        assert_eq!(render_key(&[Unknown]), "?");
        assert_eq!(render_key(&[hook(), Nth(2), Unknown]), "hook[2].?");
        assert_eq!(render_key(&[Unknown, hook()]), "?.hook");
        assert_eq!(render_key(&[]), "(top level)");
    }
}
