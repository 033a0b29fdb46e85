//! Waiting for a child without reaping it: a pidfd polled against the
//! deadline, or `waitid(WNOHANG | WNOWAIT)` at growing intervals where
//! there is none, while the event line is written to its stdin.

use std::os::fd::OwnedFd;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
use rustix::io::{Errno, write};
use rustix::process::{Pid, WaitId, WaitIdOptions, waitid};
#[cfg(target_os = "linux")]
use rustix::process::{PidfdFlags, pidfd_open};

/// The longest sleep between two `waitid` checks when there is no pidfd.
const MAX_POLL_SLICE: Duration = Duration::from_millis(20);

/// How to wait for the child; [`WaitMode::Poll`] forces the fallback so
/// tests can exercise it on a kernel with pidfds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum WaitMode {
    /// A pidfd when the kernel gives one, else polling.
    Auto,
    /// `waitid(WNOHANG)` polling only.
    #[cfg_attr(not(test), allow(dead_code))]
    Poll,
}

/// Makes `fd` non-blocking: a write to it (or a read from it) that would
/// wait returns `EAGAIN` instead.
pub(super) fn set_nonblocking(fd: &OwnedFd) -> rustix::io::Result<()> {
    let flags = fcntl_getfl(fd)?;
    fcntl_setfl(fd, flags | OFlags::NONBLOCK)
}

/// Makes `fd`, an end of a pipe just made, non-blocking in one system call
/// where [`set_nonblocking`] makes two: a fresh pipe end's status flags are
/// its access mode alone, which `F_SETFL` ignores, so there is nothing to
/// read first and keep (`F_GETFL`). A `run` hook makes one a fire.
pub(super) fn set_fresh_pipe_nonblocking(fd: &OwnedFd) -> rustix::io::Result<()> {
    fcntl_setfl(fd, OFlags::NONBLOCK)
}

/// Writes `line` to the child's stdin then closes it, while waiting for the
/// child to exit. Returns whether it exited before `deadline`.
///
/// Once the child has exited, whatever is left unwritten is dropped: only
/// the exit status counts, and a grandchild that inherited stdin must not
/// keep us waiting.
pub(super) fn feed_and_wait(
    waiter: &mut Waiter,
    writer: OwnedFd,
    line: &[u8],
    deadline: Option<Instant>,
) -> bool {
    let mut stdin = Some(writer);
    let mut rest = line;
    loop {
        if let Some(fd) = &stdin {
            loop {
                if rest.is_empty() {
                    // Closing our end is the child's EOF.
                    stdin = None;
                    break;
                }
                match write(fd, rest) {
                    Ok(n) => rest = &rest[n..],
                    Err(Errno::INTR) => {}
                    Err(Errno::AGAIN) => break,
                    // EPIPE cannot happen while we hold a reader; any error
                    // means the hook will not read the rest, which is its
                    // business: stop writing and wait for its status.
                    Err(_) => {
                        stdin = None;
                        break;
                    }
                }
            }
        }
        let remaining = match deadline {
            Some(deadline) => match deadline.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => Some(left),
                _ => return waiter.exited_now(),
            },
            None => None,
        };
        if waiter.wait(stdin.as_ref(), remaining) {
            return true;
        }
    }
}

/// Watches one child for its exit without reaping it.
pub(super) struct Waiter {
    pid: Pid,
    /// Readable once the child has exited; `None` where the kernel refused
    /// one, and we poll `waitid` instead.
    pidfd: Option<OwnedFd>,
    /// The next sleep between two `waitid` checks.
    slice: Duration,
}

impl Waiter {
    pub(super) fn new(pid: Pid, mode: WaitMode) -> Self {
        let pidfd = match mode {
            #[cfg(target_os = "linux")]
            WaitMode::Auto => pidfd_open(pid, PidfdFlags::empty()).ok(),
            // No pidfds outside Linux (rustix offers them only there).
            #[cfg(not(target_os = "linux"))]
            WaitMode::Auto => None,
            WaitMode::Poll => None,
        };
        Waiter {
            pid,
            pidfd,
            slice: Duration::from_millis(1),
        }
    }

    /// Waits up to `timeout` (forever when `None`) for the child to exit or,
    /// when `stdin` is given, for room in the pipe. Returns whether the child
    /// has exited.
    fn wait(&mut self, stdin: Option<&OwnedFd>, timeout: Option<Duration>) -> bool {
        if let Some(pidfd) = &self.pidfd {
            let mut fds = [
                PollFd::new(pidfd, PollFlags::IN),
                // Polled only while there is something left to write.
                match stdin {
                    Some(fd) => PollFd::new(fd, PollFlags::OUT),
                    None => PollFd::new(pidfd, PollFlags::empty()),
                },
            ];
            let timeout = timeout.and_then(|t| Timespec::try_from(t).ok());
            match poll(&mut fds, timeout.as_ref()) {
                // Readable (or an error on the pidfd): the process is no
                // longer running.
                Ok(_) => return !fds[0].revents().is_empty(),
                // The caller recomputes the time left.
                Err(Errno::INTR) => return false,
                // Anything else would repeat: poll `waitid` from now on.
                Err(_) => self.pidfd = None,
            }
        }
        if self.exited_now() {
            return true;
        }
        let nap = timeout.map_or(self.slice, |t| t.min(self.slice));
        self.slice = (self.slice * 2).min(MAX_POLL_SLICE);
        match stdin {
            // Wakes early when the pipe has room.
            Some(fd) => {
                let nap = Timespec::try_from(nap).ok();
                let _ = poll(&mut [PollFd::new(fd, PollFlags::OUT)], nap.as_ref());
            }
            None => std::thread::sleep(nap),
        }
        self.exited_now()
    }

    /// Whether the child has exited, without waiting and without reaping.
    pub(super) fn exited_now(&self) -> bool {
        match &self.pidfd {
            Some(pidfd) => {
                let zero = Timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                };
                matches!(poll(&mut [PollFd::new(pidfd, PollFlags::IN)], Some(&zero)), Ok(n) if n > 0)
            }
            None => {
                let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
                match waitid(WaitId::Pid(self.pid), options) {
                    Ok(status) => status.is_some(),
                    Err(Errno::INTR) => false,
                    // ECHILD: something else reaped it (a host ignoring
                    // SIGCHLD); it has exited either way.
                    Err(_) => true,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// Non-blocking whatever it was before: a second call leaves it so, and
    /// a read of an empty pipe says so instead of waiting.
    #[test]
    fn set_nonblocking_makes_a_descriptor_non_blocking_and_keeps_it_so() {
        let (reader, writer) = rustix::pipe::pipe().unwrap();
        for _ in 0..2 {
            set_nonblocking(&writer).unwrap();
            assert!(fcntl_getfl(&writer).unwrap().contains(OFlags::NONBLOCK));
        }
        set_nonblocking(&reader).unwrap();
        let mut buf = [0u8; 1];
        assert_eq!(rustix::io::read(&reader, &mut buf), Err(Errno::AGAIN));
        drop(writer);
    }

    /// On a fresh pipe end, the one call leaves the flags the two would.
    #[test]
    fn a_fresh_pipe_end_is_made_non_blocking_as_by_get_and_set() {
        let (_r1, w1) = std::io::pipe().unwrap();
        let (_r2, w2) = std::io::pipe().unwrap();
        let (w1, w2) = (OwnedFd::from(w1), OwnedFd::from(w2));
        set_nonblocking(&w1).unwrap();
        set_fresh_pipe_nonblocking(&w2).unwrap();
        assert_eq!(fcntl_getfl(&w2).unwrap(), fcntl_getfl(&w1).unwrap());
        assert!(
            fcntl_getfl(&w2)
                .unwrap()
                .contains(OFlags::NONBLOCK | OFlags::WRONLY)
        );
        assert_eq!(
            rustix::io::fcntl_getfd(&w2).unwrap(),
            rustix::io::fcntl_getfd(&w1).unwrap()
        );
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn auto_uses_a_pidfd_where_the_kernel_has_them() {
        let mut child = Command::new("/bin/sh")
            .args(["-c", "exit 0"])
            .spawn()
            .unwrap();
        let waiter = Waiter::new(Pid::from_child(&child), WaitMode::Auto);
        let forced = Waiter::new(Pid::from_child(&child), WaitMode::Poll);
        child.wait().unwrap();
        assert!(waiter.pidfd.is_some(), "pidfd_open refused on this kernel");
        assert!(forced.pidfd.is_none());
    }
}
