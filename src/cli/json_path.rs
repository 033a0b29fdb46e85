//! How `io` writes a path in JSON.

use std::path::Path;

/// `path` as a JSON string: as `Path::display` writes it, each sequence
/// that is not UTF-8 as U+FFFD. JSON strings are Unicode text, so a path
/// that is not is written as the text output shows it, never refused
/// (serde_json's own `Serialize` for a path fails on one, and `json!`
/// panics on that failure).
pub(crate) fn path_json(path: &Path) -> serde_json::Value {
    serde_json::Value::String(path.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `/tmp/r`, a byte (Unix) or a lone surrogate (Windows) that is not
    /// UTF-8, then `/a`.
    #[cfg(unix)]
    fn not_utf8() -> std::ffi::OsString {
        use std::os::unix::ffi::OsStrExt;
        std::ffi::OsStr::from_bytes(b"/tmp/r\xff/a").to_owned()
    }

    #[cfg(windows)]
    fn not_utf8() -> std::ffi::OsString {
        use std::os::windows::ffi::OsStringExt;
        let mut wide: Vec<u16> = "/tmp/r".encode_utf16().collect();
        wide.push(0xD800);
        wide.extend("/a".encode_utf16());
        std::ffi::OsString::from_wide(&wide)
    }

    #[test]
    fn a_path_that_is_not_utf8_is_written_lossily() {
        let path = not_utf8();
        let path = Path::new(&path);
        assert_eq!(path_json(path), "/tmp/r\u{fffd}/a");
        assert_eq!(path_json(Path::new("/tmp/r")), "/tmp/r");
    }
}
