//! A child's stderr on Windows, when its end is kept: read on a thread of
//! its own while the child runs, its last bytes kept, and the tail taken
//! once the child has ended.
//!
//! Windows' anonymous pipes cannot be polled, nor a blocking read on one
//! ended from outside without `unsafe` (`CancelSynchronousIo`), so the
//! drain cannot be told to stop as on Unix. Once the child has ended, the
//! tail is taken when the thread reaches its end of file, or after
//! [`FINAL_WAIT`] at most: a grandchild that keeps the pipe open (one the
//! child started and left running; a timeout or an interrupt ends them all
//! with the job) holds only that thread, which ends with the grandchild.

use std::io::Read;
use std::process::ChildStderr;
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::stderr::keep;

/// How long the tail waits for the drain's end of file once the child has
/// ended. The child's own end is closed by then: only a process it left
/// running holds the pipe.
const FINAL_WAIT: Duration = Duration::from_millis(100);

/// Reads a child's stderr on a thread of its own, keeping its last `limit`
/// bytes, until its end of file.
pub(crate) struct Drainer {
    /// The tail, shared with the thread (which may outlive the run).
    tail: Arc<Mutex<Vec<u8>>>,
    /// Disconnected when the thread has read its end of file.
    done: Receiver<()>,
}

impl Drainer {
    /// `None` when no thread could be started; the pipe is then closed, and
    /// the child's writes to stderr fail rather than block.
    pub(crate) fn start(mut pipe: ChildStderr, limit: usize) -> Option<Drainer> {
        let tail = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&tail);
        let (over, done) = channel::<()>();
        std::thread::Builder::new()
            .name("hook-stderr".to_owned())
            .spawn(move || {
                // Dropped when the drain ends: `done` is disconnected.
                let _over = over;
                let mut buf = [0u8; 8192];
                loop {
                    match pipe.read(&mut buf) {
                        Ok(0) => return,
                        Ok(n) => {
                            let mut tail = kept.lock().unwrap_or_else(PoisonError::into_inner);
                            keep(&mut tail, limit, &buf[..n]);
                        }
                        // Windows has no EINTR: an error is the pipe's
                        // end (a broken pipe reads as end of file already).
                        Err(_) => return,
                    }
                }
            })
            .ok()?;
        Some(Drainer { tail, done })
    }

    /// Returns the tail, once the drain has read its end of file or
    /// [`FINAL_WAIT`] has passed, whichever comes first.
    pub(crate) fn finish(self) -> Vec<u8> {
        // Nothing is ever sent: this returns at the disconnection, or at
        // the wait's end.
        let _ = self.done.recv_timeout(FINAL_WAIT);
        std::mem::take(&mut *self.tail.lock().unwrap_or_else(PoisonError::into_inner))
    }
}
