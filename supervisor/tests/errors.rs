//! `ProcessError`: one whole message an operator can act on, each cause said
//! once, and no `source()`.
#![cfg(unix)] // Windows: tests/windows.rs

use std::error::Error as _;
use std::io;
use std::time::Duration;

use io_supervisor::ProcessError;

#[test]
fn each_error_reads_as_one_message_with_its_cause_once_and_no_source() {
    let cause = || io::Error::from_raw_os_error(13);
    let cases = [
        (
            ProcessError::NotFound {
                program: "notify".into(),
            },
            "could not spawn `notify`: not found in any absolute `PATH` entry",
        ),
        (
            ProcessError::Spawn {
                program: "x".into(),
                cause: cause(),
            },
            "could not spawn `x`: Permission denied",
        ),
        (ProcessError::Exit { code: 7 }, "exited with status 7"),
        (
            ProcessError::Signal { signal: 9 },
            "was killed by signal 9 (SIGKILL)",
        ),
        (
            ProcessError::Signal { signal: 64 },
            "was killed by signal 64",
        ),
        (
            ProcessError::TimedOut {
                timeout: Duration::from_millis(250),
            },
            "timed out after 250 ms and was killed",
        ),
        (
            ProcessError::Wait { cause: cause() },
            "could not collect its exit status: Permission denied",
        ),
        (
            ProcessError::Interrupted,
            "was interrupted, and its process group killed",
        ),
    ];
    for (error, shown) in &cases {
        assert_eq!(error.to_string(), *shown);
        assert!(error.source().is_none(), "{error:?}");
    }
    // An error that is not the OS's keeps its own words whole.
    let odd = ProcessError::Wait {
        cause: io::Error::other("the reaper said no (os error 5)"),
    };
    assert_eq!(
        odd.to_string(),
        "could not collect its exit status: the reaper said no (os error 5)"
    );
}
