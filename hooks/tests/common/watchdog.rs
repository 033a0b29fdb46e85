//! A deadline for a test step that could block: a regression fails the test
//! with a message naming what hung, instead of hanging the suite.
//!
//! Shared by both crates' test binaries (`tests/common/mod.rs` includes
//! this file by path), so there is one copy.

use std::time::Duration;

/// Runs `body` on a thread of its own and returns its result, or panics
/// naming `what` if it has not finished within `limit`. A panic in `body`
/// is passed on as it was. A body that hung is left blocked on its thread,
/// which ends with the test process.
#[track_caller]
pub fn within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    body: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        let _ = tx.send(body());
    });
    match rx.recv_timeout(limit) {
        Ok(value) => {
            let _ = worker.join();
            value
        }
        // The sender was dropped without a value: `body` panicked.
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("the worker sends before it returns"),
        },
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("hung: {what} did not finish within {limit:?}")
        }
    }
}

/// When dropped, opens the FIFO at `path` from one side without blocking,
/// then closes it: whatever is blocked opening the other end (a hook's
/// `open` for writing, a `git` reading its index) goes on, so a test that
/// fails because a FIFO hung leaves nothing stuck behind it.
pub struct ReleaseFifo {
    /// The FIFO.
    pub path: std::path::PathBuf,
    /// Open it for writing (releasing a reader) rather than for reading.
    pub for_writing: bool,
}

impl Drop for ReleaseFifo {
    fn drop(&mut self) {
        use rustix::fs::{Mode, OFlags};
        let side = if self.for_writing {
            OFlags::WRONLY
        } else {
            OFlags::RDONLY
        };
        // Fails (ENXIO) only when nobody is blocked on the other end.
        let _ = rustix::fs::open(
            &self.path,
            side | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        );
    }
}
