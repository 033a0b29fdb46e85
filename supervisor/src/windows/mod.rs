//! Windows (issue 47): what the Unix files do, the Windows way. A child
//! and everything it starts live in a job object of its own (process-wrap),
//! which a timeout or an interrupt terminates as a process group is killed
//! on Unix; the program is found with `PATHEXT`; stdin is fed and stderr
//! drained on threads, since Windows' anonymous pipes cannot be polled.
//!
//! One file per Unix file it stands beside: which program an argv names
//! (`resolve.rs`, for `../resolve.rs`), one child from spawn to exit
//! (`run.rs`, for `../run.rs` and `../wait.rs`), and draining stderr
//! (`stderr.rs`, for `../stderr.rs`).

pub(crate) mod resolve;
pub(crate) mod run;
pub(crate) mod stderr;
