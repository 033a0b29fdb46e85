//! A child's stderr, when its end is kept: drained on a thread of its own
//! while the child runs, its last bytes kept, and the drain ended with the
//! child.

#[cfg(unix)]
use std::os::fd::OwnedFd;

#[cfg(unix)]
use rustix::event::{PollFd, PollFlags, poll};
#[cfg(unix)]
use rustix::io::Errno;

#[cfg(unix)]
use super::wait::set_nonblocking;
// Windows drains with a blocking read on a thread: `windows/stderr.rs`.

/// The last bytes a child wrote to its stderr, at most `limit` of them.
///
/// Filled by
/// [`Supervisor::run_argv_keeping_stderr`](crate::Supervisor::run_argv_keeping_stderr);
/// opt-in: by default a child's stderr is null.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StderrTail {
    pub(super) limit: usize,
    pub(super) tail: Vec<u8>,
}

impl StderrTail {
    /// Returns an empty tail that keeps at most `limit` bytes.
    pub fn new(limit: usize) -> Self {
        StderrTail {
            limit,
            tail: Vec::new(),
        }
    }

    /// Returns the last bytes the child wrote to its stderr, at most the
    /// limit; empty before a run, or when it wrote nothing.
    pub fn bytes(&self) -> &[u8] {
        &self.tail
    }
}

/// At most this much is read from a child's stderr once the child has ended
/// (what it left in the pipe; a grandchild may still be writing to it):
/// more than a pipe holds by default, and a bound on a writer that never
/// stops.
#[cfg(unix)]
const FINAL_READ: usize = 1 << 20;

/// Reads a child's stderr on a thread of its own while the child runs, so
/// that a child writing megabytes never blocks on a full pipe, keeping only
/// the last `limit` bytes. The drain ends with the child: [`finish`]
/// (called once the child is reaped) tells the thread to read what is left
/// in the pipe and stop, and joins it. A grandchild that keeps the pipe open
/// then holds nothing of ours: before, the thread waited for its end of
/// file, and each such run left a thread and a pipe behind until runs
/// failed with "Too many open files".
///
/// [`finish`]: Drainer::finish
#[cfg(unix)]
pub(super) struct Drainer {
    /// Dropped to tell the thread that the child has ended.
    stop: OwnedFd,
    /// The thread, which owns the tail and returns it: nothing reads the
    /// tail before the thread is joined, so it needs no lock.
    thread: std::thread::JoinHandle<Vec<u8>>,
}

/// Appends `bytes` to `tail`, keeping only its last `limit` bytes.
pub(super) fn keep(tail: &mut Vec<u8>, limit: usize, bytes: &[u8]) {
    tail.extend_from_slice(bytes);
    let excess = tail.len().saturating_sub(limit);
    tail.drain(..excess);
}

#[cfg(unix)]
impl Drainer {
    /// `None` when no thread could be started; the pipe is then closed, and
    /// the child's writes to stderr fail rather than block.
    pub(super) fn start(pipe: std::process::ChildStderr, limit: usize) -> Option<Drainer> {
        // std's pipe is close-on-exec on every Unix (rustix's `pipe_with`
        // is missing on macOS), so no hook inherits the stop pipe.
        let (stopped, stop) = std::io::pipe().ok()?;
        let (stopped, stop) = (OwnedFd::from(stopped), OwnedFd::from(stop));
        let thread = std::thread::Builder::new()
            .name("hook-stderr".to_owned())
            .spawn(move || {
                let mut tail = Vec::new();
                drain(&OwnedFd::from(pipe), &stopped, &mut |bytes| {
                    keep(&mut tail, limit, bytes);
                });
                tail
            })
            .ok()?;
        Some(Drainer { stop, thread })
    }

    /// Returns the tail: the thread is told the child has ended, reads what is left
    /// in the pipe, and is joined.
    pub(super) fn finish(self) -> Vec<u8> {
        drop(self.stop);
        // The thread does not panic (it reads, appends and trims); were it
        // to, the run would report no stderr rather than fail.
        self.thread.join().unwrap_or_default()
    }
}

/// The drainer's thread: hands what it reads from `pipe` to `sink` until
/// its end of file, an error, or `stopped` becoming readable (its write end
/// dropped), after which it reads at most [`FINAL_READ`] more without
/// waiting, and returns, closing the pipe.
#[cfg(unix)]
fn drain(pipe: &OwnedFd, stopped: &OwnedFd, sink: &mut impl FnMut(&[u8])) {
    let mut buf = [0u8; 8192];
    loop {
        let mut fds = [
            PollFd::new(pipe, PollFlags::IN),
            PollFd::new(stopped, PollFlags::IN),
        ];
        match poll(&mut fds, None) {
            Ok(_) => {}
            Err(Errno::INTR) => continue,
            Err(_) => return,
        }
        if !fds[1].revents().is_empty() {
            break;
        }
        match rustix::io::read(pipe, &mut buf) {
            Ok(0) => return,
            Ok(n) => sink(&buf[..n]),
            Err(Errno::INTR | Errno::AGAIN) => {}
            Err(_) => return,
        }
    }
    if set_nonblocking(pipe).is_err() {
        return;
    }
    let mut left = FINAL_READ;
    while left > 0 {
        match rustix::io::read(pipe, &mut buf) {
            Ok(0) => return,
            Ok(n) => {
                sink(&buf[..n]);
                left = left.saturating_sub(n);
            }
            Err(Errno::INTR) => {}
            Err(_) => return,
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::time::Duration;

    use rustix::io::write;

    use super::super::test_watchdog::{wait_until, within};

    /// Far above every timeout here, far below "forever".
    const HUNG: Duration = Duration::from_secs(20);

    /// What a test's sink kept, readable while the drain runs.
    type Kept = std::sync::Arc<std::sync::Mutex<Vec<u8>>>;

    /// A sink for [`drain`], and what it kept.
    fn sink() -> (impl FnMut(&[u8]) + Send + 'static, Kept) {
        let shared = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = std::sync::Arc::clone(&shared);
        let tail = move |bytes: &[u8]| keep(&mut kept.lock().unwrap(), 1 << 30, bytes);
        (tail, shared)
    }

    fn kept(shared: &std::sync::Mutex<Vec<u8>>) -> Vec<u8> {
        shared.lock().unwrap().clone()
    }

    /// Told to stop with bytes still in the pipe (the hook wrote them just
    /// before it exited), the drain reads them before it returns; told
    /// while a writer never stops, it still returns, after a bounded read.
    #[test]
    fn a_stopped_drain_reads_what_is_left_and_no_more_than_its_bound() {
        let (stopped, stop) = rustix::pipe::pipe().unwrap();
        drop(stop);
        let (pipe, writer) = rustix::pipe::pipe().unwrap();
        write(&writer, b"the last words").unwrap();
        let (mut tail, shared) = sink();
        drain(&pipe, &stopped, &mut tail);
        assert_eq!(kept(&shared), b"the last words");

        // Endless: a writer thread that stops only when the pipe is closed.
        let endless = std::thread::spawn(move || {
            let chunk = [b'x'; 4096];
            while write(&writer, &chunk).is_ok() {}
        });
        let (mut tail, shared) = sink();
        let read = within(HUNG, "a drain beside an endless writer", move || {
            drain(&pipe, &stopped, &mut tail);
            kept(&shared).len()
        });
        assert!(read <= FINAL_READ + 8192, "{read}");
        endless.join().unwrap();
    }

    /// Told to stop with more left to read than its bound (here a file of
    /// twice [`FINAL_READ`], which is never empty and never waits), the
    /// drain reads exactly its bound and returns. A pipe holds far less
    /// than the bound, so the test above cannot tell a drain that reads on
    /// past it while bytes are there at once.
    #[test]
    fn a_stopped_drain_reads_exactly_its_bound_of_what_is_there() {
        let (stopped, stop) = rustix::pipe::pipe().unwrap();
        drop(stop);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stderr");
        std::fs::write(&path, vec![b'x'; 2 * FINAL_READ]).unwrap();
        let source = OwnedFd::from(std::fs::File::open(&path).unwrap());
        let (mut tail, shared) = sink();
        let read = within(HUNG, "a drain of a large file", move || {
            drain(&source, &stopped, &mut tail);
            kept(&shared).len()
        });
        assert_eq!(read, FINAL_READ);
    }

    /// Until it is told to stop, the drain reads everything, however it
    /// arrives, to the pipe's end of file.
    #[test]
    fn an_unstopped_drain_reads_to_the_end_of_file() {
        let (stopped, _stop) = rustix::pipe::pipe().unwrap();
        let (pipe, writer) = rustix::pipe::pipe().unwrap();
        let (mut tail, shared) = sink();
        let watched = std::sync::Arc::clone(&shared);
        let draining = std::thread::spawn(move || drain(&pipe, &stopped, &mut tail));
        write(&writer, b"first ").unwrap();
        assert!(wait_until(HUNG, || kept(&watched) == b"first "));
        write(&writer, b"second").unwrap();
        drop(writer);
        within(HUNG, "the drain to end", move || draining.join().unwrap());
        assert_eq!(kept(&shared), b"first second");
    }
}
