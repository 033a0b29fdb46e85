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
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    use super::*;

    #[test]
    fn a_path_that_is_not_utf8_is_written_lossily() {
        let path = Path::new(OsStr::from_bytes(b"/tmp/r\xff/a"));
        assert_eq!(path_json(path), "/tmp/r\u{fffd}/a");
        assert_eq!(path_json(Path::new("/tmp/r")), "/tmp/r");
    }
}
