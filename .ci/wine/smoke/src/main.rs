//! The child of the smoke test: copies its stdin, to its end, to stdout,
//! then exits with status 3. `tests/smoke.rs` runs it.

use std::io::{Read, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut input = Vec::new();
    if std::io::stdin().read_to_end(&mut input).is_err() {
        return ExitCode::from(1);
    }
    let mut stdout = std::io::stdout();
    if stdout
        .write_all(&input)
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return ExitCode::from(2);
    }
    ExitCode::from(3)
}
