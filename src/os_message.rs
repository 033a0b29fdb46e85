//! How an OS error reads in this program's messages.

use std::fmt;
use std::io;

/// An `io::Error` as an operator reads it: "Permission denied", without
/// std's " (os error 13)", as io-hooks' own messages quote one. Every
/// message of `io` that quotes an OS error writes it through this.
///
/// ```
/// use io_harness::OsMessage;
/// let e = std::io::Error::from_raw_os_error(13);
/// assert_eq!(OsMessage(&e).to_string(), "Permission denied");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct OsMessage<'a>(pub &'a io::Error);

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
