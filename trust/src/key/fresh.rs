//! What making a key file needs on every platform: random bytes, and a
//! temporary name for the key before it is whole.

use std::io;
use std::path::Path;

use super::KEY_FILE;
use super::key_error::KeyError;

/// A name for the key before it is whole, in the same directory (a link
/// cannot cross file systems): hidden, this process's, and random, so no
/// two makers share one.
pub(super) fn temp_name(dir: &Path) -> Result<String, KeyError> {
    let mut salt = [0; 8];
    random(&mut salt, dir)?;
    let salt = u64::from_le_bytes(salt);
    Ok(format!(
        ".{KEY_FILE}.{}.{salt:016x}.tmp",
        std::process::id()
    ))
}

/// Fills `bytes` from the operating system's random generator.
pub(super) fn random(bytes: &mut [u8], dir: &Path) -> Result<(), KeyError> {
    getrandom::fill(bytes).map_err(|e| {
        let cause = match e.raw_os_error() {
            Some(code) => io::Error::from_raw_os_error(code),
            None => io::Error::other(e.to_string()),
        };
        KeyError::io(dir, "draw random bytes for a key from the system", cause)
    })
}
