//! What `io` writes, and how it makes outside text safe to write: stdout
//! and stderr that never panic, the escaping of every line and every JSON
//! value it prints.

use std::ffi::OsStr;
use std::io::Write;
use std::process::ExitCode;

use io_hooks::text::is_invisible;
use io_hooks::text::os_error;
use io_hooks::text::pasteable_word;

use super::exit::CmdResult;

/// Prints `value` as pretty JSON, then a newline.
pub(crate) fn print_json(value: &serde_json::Value) -> CmdResult {
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    out(&format!("{text}\n"))?;
    Ok(ExitCode::SUCCESS)
}

/// `text` made safe to print on a terminal: every control character but
/// newline and tab escaped (`\x1b`, `\r`), so nothing a hook or an event
/// carries can move the cursor, clear the screen or retitle the window; and
/// every bidirectional override, isolate and mark escaped (`\u{202e}`), so
/// nothing can show its text in another order than the bytes hold it
/// ("Trojan Source"), as is every other character that shows as nothing or
/// breaks a line without being a control (`\u{feff}`, `\u{2028}`, the tag
/// characters U+E0000 to U+E007F: [`is_invisible`]). Applying it twice
/// changes nothing more.
pub(crate) fn safe(text: &str) -> String {
    escape(text, true)
}

/// [`safe`] for text that must stay on one line, such as a run id or a
/// model's answer on a line `io` itself writes: newline and tab escaped too
/// (`\n`, `\t`), so outside text cannot end the line and write one that
/// reads as `io`'s own.
pub(crate) fn safe_line(text: &str) -> String {
    escape(text, false)
}

/// [`safe`], keeping newline and tab when `lines`, else [`safe_line`].
fn escape(text: &str, lines: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' if lines => out.push(c),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let code = u32::from(c);
                if code <= 0xff {
                    out.push_str(&format!("\\x{code:02x}"));
                } else {
                    out.push_str(&format!("\\u{{{code:x}}}"));
                }
            }
            c if is_invisible(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

/// Returns a command for the operator to paste (a resume hint, a fix):
/// `words`, each one word to a POSIX shell
/// ([`shell_word`](io_hooks::text::shell_word): bare when plain, else in
/// single quotes), joined by spaces. Every command `io` prints to be
/// pasted is built here, so none holds an unquoted word a clone or the
/// model chose (a root named `w$(touch${IFS}PWNED)`).
///
/// # Errors
/// The index of the first word that cannot be printed as it is, and why
/// ([`pasteable_word`]: not UTF-8, or a character a terminal does not show
/// as it is): the caller prints no command then, and says why.
pub(crate) fn pasteable(words: &[&OsStr]) -> Result<String, (usize, &'static str)> {
    let mut line = String::new();
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            line.push(' ');
        }
        line.push_str(&pasteable_word(word).map_err(|why| (i, why))?);
    }
    Ok(line)
}

/// Writes `value` as compact JSON that is safe to print on a terminal and
/// is still the same JSON. serde_json escapes the C0 controls, but writes
/// DEL, the C1 controls (U+009B is a CSI), the bidirectional characters and
/// the other invisible ones ([`is_invisible`]) as they are; here each
/// becomes its `\uXXXX` escape (a surrogate pair past U+FFFF), which a JSON
/// reader turns back into the same character. It is written as it is serialised,
/// so a long string is never copied.
pub(crate) fn write_safe_json(
    out: &mut impl Write,
    value: &impl serde::Serialize,
) -> std::io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(out, SafeJson);
    value
        .serialize(&mut serializer)
        .map_err(std::io::Error::from)
}

/// serde_json's compact formatter, escaping what [`write_safe_json`] says.
struct SafeJson;

impl serde_json::ser::Formatter for SafeJson {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        // A fragment is whole chars; serde_json has escaped the C0 ones.
        let mut start = 0;
        for (at, c) in fragment.char_indices() {
            if c.is_control() || is_invisible(c) {
                writer.write_all(&fragment.as_bytes()[start..at])?;
                // Past the first plane, JSON writes a surrogate pair.
                for unit in c.encode_utf16(&mut [0; 2]) {
                    write!(writer, "\\u{unit:04x}")?;
                }
                start = at + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }
}

/// [`safe_line`], written into `out` a piece at a time instead of
/// returned: a string of any length is escaped holding a few KiB more, not
/// a copy several times its size.
pub(crate) fn write_safe_line(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    const PIECE: usize = 4096;
    let mut rest = text;
    while !rest.is_empty() {
        // A char is at most 4 bytes: a boundary is at most 3 back.
        let mut end = rest.len().min(PIECE);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let (piece, after) = rest.split_at(end);
        out.write_all(safe_line(piece).as_bytes())?;
        rest = after;
    }
    Ok(())
}

/// Writes to stdout; a closed pipe (`io events | head`) is not an error.
/// Any other failure (a full disk, `/dev/full`) is returned, for the caller
/// to report on stderr through [`err`]: `print!` would panic instead.
pub(crate) fn out(text: &str) -> Result<(), String> {
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(format!("could not write to stdout: {}", os_error(&e))),
    }
}

/// Writes to stderr, ignoring any failure: there is nowhere left to report
/// one, and `eprint!` would panic (exit 101) on a full or closed stderr. Every
/// message `io` prints on stderr goes through here.
pub(crate) fn err(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_escapes_every_bidirectional_and_invisible_character_and_nothing_else() {
        for c in ('\u{202a}'..='\u{202e}')
            .chain('\u{2066}'..='\u{2069}')
            .chain(['\u{200e}', '\u{200f}', '\u{61c}'])
        {
            assert_eq!(
                safe(&format!("a{c}b")),
                format!("a\\u{{{:x}}}b", u32::from(c))
            );
        }
        // Visible neighbours, and text in a right-to-left script, stay.
        for kept in [
            "\u{2027}",
            "\u{2030}",
            "\u{2070}",
            "\u{fefe}",
            "\u{e0080}",
            "\u{5d0}\u{5d1}",
            "a\tb\nc",
            "é",
        ] {
            assert_eq!(safe(kept), kept);
        }
        // Every other invisible or line-breaking character is escaped
        // (issue 32): a byte order mark, a line or paragraph separator, a
        // zero-width space or joiner, a tag character.
        for c in [
            '\u{feff}', '\u{2028}', '\u{2029}', '\u{200b}', '\u{200d}', '\u{ad}',
        ]
        .into_iter()
        .chain('\u{e0000}'..='\u{e007f}')
        .chain('\u{2060}'..='\u{206f}')
        {
            assert_eq!(
                safe(&format!("a{c}b")),
                format!("a\\u{{{:x}}}b", u32::from(c)),
                "{:x}",
                u32::from(c)
            );
            assert_eq!(
                safe_line(&c.to_string()),
                format!("\\u{{{:x}}}", u32::from(c))
            );
        }
        let once = safe("\u{1b}[2J\r\u{9b}\u{202e}");
        assert_eq!(once, "\\x1b[2J\\r\\x9b\\u{202e}");
        assert_eq!(safe(&once), once, "applying it twice changes nothing more");
    }

    /// `/r` then a byte (Unix) or a lone surrogate (Windows) that is not
    /// UTF-8.
    #[cfg(unix)]
    fn not_utf8() -> std::ffi::OsString {
        use std::os::unix::ffi::OsStrExt;
        OsStr::from_bytes(b"/r\xff").to_owned()
    }

    #[cfg(windows)]
    fn not_utf8() -> std::ffi::OsString {
        use std::os::windows::ffi::OsStringExt;
        let mut wide: Vec<u16> = "/r".encode_utf16().collect();
        wide.push(0xD800);
        std::ffi::OsString::from_wide(&wide)
    }

    #[test]
    fn a_command_to_paste_quotes_each_word_or_names_the_one_it_cannot_print() {
        fn words(w: &[&'static str]) -> Vec<&'static OsStr> {
            w.iter().map(|s| OsStr::new(*s)).collect()
        }
        // Quoted for a POSIX shell; on Windows, for PowerShell (io-hooks'
        // `pasteable_word` decides).
        let want = if cfg!(windows) {
            "io run '--root' '/a b/w$(x)' 'it''s'"
        } else {
            "io run --root '/a b/w$(x)' 'it'\\''s'"
        };
        assert_eq!(
            pasteable(&words(&["io", "run", "--root", "/a b/w$(x)", "it's"])),
            Ok(want.to_owned())
        );
        let not_utf8 = not_utf8();
        let mut bad: Vec<&OsStr> = words(&["io", "--root", "x"]);
        bad[2] = &not_utf8;
        assert_eq!(pasteable(&bad), Err((2, "is not UTF-8")));
        assert_eq!(
            pasteable(&words(&["io", "a\nb"])),
            Err((
                1,
                "holds a control or invisible character, which a terminal does not show as it is"
            ))
        );
    }

    #[test]
    fn safe_line_escapes_newline_and_tab_too_and_the_rest_as_safe_does() {
        let text = "ok\nrun r-1 cancelled\tx\u{1b}[2J\u{202e}";
        assert_eq!(
            safe_line(text),
            "ok\\nrun r-1 cancelled\\tx\\x1b[2J\\u{202e}"
        );
        assert_eq!(
            safe_line(text).replace("\\n", "\n").replace("\\t", "\t"),
            safe(text)
        );
        let once = safe_line(text);
        assert_eq!(
            safe_line(&once),
            once,
            "applying it twice changes nothing more"
        );
    }

    #[test]
    fn safe_json_keeps_the_json_and_escapes_what_serde_leaves_raw() {
        let value = serde_json::json!({
            "id": "r\u{7f}\u{9b}\u{202e}\u{2066}\u{feff}\u{2028}\u{e0041}",
            "n": "a\tb\nc\u{1b}"
        });
        let mut made = Vec::new();
        write_safe_json(&mut made, &value).expect("json");
        let made = String::from_utf8(made).expect("utf-8");
        assert!(
            made.contains("r\\u007f\\u009b\\u202e\\u2066\\ufeff\\u2028\\udb40\\udc41"),
            "{made}"
        );
        assert!(
            made.contains("a\\tb\\nc\\u001b"),
            "serde's own escapes stay: {made}"
        );
        assert!(
            !made.chars().any(|c| c.is_control() || is_invisible(c)),
            "{made}"
        );
        let back: serde_json::Value = serde_json::from_str(&made).expect("still JSON");
        assert_eq!(back, value);
    }
}
