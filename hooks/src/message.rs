//! How a message quotes what it did not write: an OS error without std's
//! error code ([`os_error`]), text read from a file escaped and cut
//! ([`Shown`]), and the characters a terminal shows as something else, or
//! as nothing ([`is_bidi`], [`is_invisible`]).

use std::fmt;
use std::io;

/// Returns `e` as an operator reads it: "Permission denied", without std's
/// " (os error 13)", which says the same again as a number. Every message
/// of this crate that quotes an OS error writes it through this, and so do
/// the `io` program's.
///
/// ```
/// use io_hooks::text::os_error;
///
/// # #[cfg(unix)] {
/// let e = std::io::Error::from_raw_os_error(13);
/// assert_eq!(os_error(&e).to_string(), "Permission denied");
/// # }
/// let e = std::io::Error::other("no answer");
/// assert_eq!(os_error(&e).to_string(), "no answer");
/// ```
pub fn os_error(e: &io::Error) -> impl fmt::Display + '_ {
    OsMessage(e)
}

/// [`os_error`]'s `Display`.
struct OsMessage<'a>(&'a io::Error);

impl fmt::Display for OsMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.0.to_string();
        let text = match self.0.raw_os_error() {
            Some(code) => text
                .strip_suffix(&format!(" (os error {code})"))
                .map(str::to_owned)
                .unwrap_or(text),
            None => text,
        };
        f.write_str(&text)
    }
}

/// Whether `c` reorders how a terminal shows the text around it: the
/// embeddings and overrides (U+202A to U+202E), the isolates (U+2066 to
/// U+2069) and the three invisible marks (U+200E, U+200F, U+061C). Text
/// from outside shown with one of them unescaped can read in another order
/// than its bytes hold ("Trojan Source"); this crate's messages escape
/// them (through [`is_invisible`], which holds this list).
pub(crate) fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

/// Whether `c` shows as nothing, or breaks a line, on a terminal without
/// being a control character: the bidirectional characters
/// (the embeddings, overrides, isolates and marks), the zero-width ones (U+200B to U+200D, U+2060 to
/// U+2064, the byte order mark U+FEFF, the soft hyphen U+00AD, U+180E),
/// the deprecated format characters U+206A to U+206F, the line and
/// paragraph separators U+2028 and U+2029 (a line break to a terminal
/// that honours them), the interlinear annotation marks U+FFF9 to U+FFFB,
/// the Hangul fillers, the musical format characters and the tag
/// characters U+E0000 to U+E007F (which can spell text no one sees).
/// Outside text shown with one unescaped can say more, or other, than it
/// appears to; this crate's messages escape them, and an embedder that shows
/// outside text (its events' fields, its own files) can escape the same set.
///
/// ```
/// assert!(io_hooks::text::is_invisible('\u{feff}'));
/// assert!(io_hooks::text::is_invisible('\u{e0041}'));
/// assert!(io_hooks::text::is_invisible('\u{202e}'));
/// assert!(!io_hooks::text::is_invisible('é'));
/// ```
pub fn is_invisible(c: char) -> bool {
    is_bidi(c)
        || matches!(
            c,
            '\u{ad}'
                | '\u{115f}'
                | '\u{1160}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200d}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{2060}'..='\u{206f}'
                | '\u{3164}'
                | '\u{feff}'
                | '\u{ffa0}'
                | '\u{fff9}'..='\u{fffb}'
                | '\u{1d173}'..='\u{1d17a}'
                | '\u{e0000}'..='\u{e007f}'
        )
}

/// Text read from a file, as a message shows it: every control character
/// and bidirectional control escaped (`\r`, `\x1b`, `\u{202e}`), and at most
/// [`SHOWN`] characters of it, then `…`.
pub(crate) struct Shown<'a>(pub(crate) &'a str);

/// The most characters of a file's text a message shows.
const SHOWN: usize = 80;

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.0.chars().enumerate() {
            if i == SHOWN {
                return f.write_str("…");
            }
            match c {
                '\r' => f.write_str("\\r")?,
                '\n' => f.write_str("\\n")?,
                '\t' => f.write_str("\\t")?,
                c if c.is_control() || is_invisible(c) => {
                    let code = u32::from(c);
                    if code <= 0xff {
                        write!(f, "\\x{code:02x}")?;
                    } else {
                        write!(f, "\\u{{{code:x}}}")?;
                    }
                }
                c => write!(f, "{c}")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_from_a_file_is_escaped_and_cut() {
        let shown = Shown("a\r\n\t\x1b[1m\u{202e}\u{7f}é").to_string();
        assert_eq!(shown, "a\\r\\n\\t\\x1b[1m\\u{202e}\\x7fé");
        let long = "x".repeat(SHOWN + 1);
        assert_eq!(Shown(&long).to_string(), format!("{}…", "x".repeat(SHOWN)));
        let exact = "x".repeat(SHOWN);
        assert_eq!(Shown(&exact).to_string(), exact);
    }
}
