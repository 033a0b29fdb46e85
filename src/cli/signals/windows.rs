//! The console's events, the Windows way (issue 47), received through
//! tokio's `tokio::signal::windows` on a thread of their own, on a
//! current-thread runtime: no `unsafe` here (tokio installs the console
//! handler).
//!
//! - Ctrl-C is `SIGINT` (2): the first while a run is in flight stops it
//!   before its next tool call (`interrupted`), and `io` exits with 130
//!   once it has ended; another ends every child in flight and `io` at
//!   once, with 130.
//! - Ctrl-Break is `SIGBREAK` (21), as Ctrl-\ (`SIGQUIT`) is on Unix: the
//!   same, with 149.
//! - A closed console (`CTRL_CLOSE_EVENT`) ends every child in flight (each
//!   job object is terminated) and `io` at once, with 129 (128 + `SIGHUP`,
//!   the Unix hang-up it stands for): Windows gives a process only a few
//!   seconds after it, so no run is waited for. tokio holds the event
//!   (its handler does not return) until `io` exits.
//!
//! A handle `io` inherited marked inheritable is not closed here, where
//! Unix makes every descriptor above 2 close-on-exec: Windows has no
//! safe way to list a process's handles; std opens every handle it makes
//! not inheritable.

use io_hooks::text::os_error;
use tokio::signal::windows::{CtrlBreak, CtrlC, CtrlClose, ctrl_break, ctrl_c, ctrl_close};

use crate::cli::output::err;

/// Ctrl-C's number, as Unix's `SIGINT`.
pub(super) const SIGINT: i32 = 2;
/// Ctrl-Break's number, Windows' C runtime's `SIGBREAK`.
pub(super) const SIGBREAK: i32 = 21;
/// A closed console's number: Unix's `SIGHUP`, the hang-up it stands for.
pub(super) const SIGHUP: i32 = 1;

/// The name of `signal` in what `io` says.
pub(super) fn signal_name(signal: i32) -> &'static str {
    match signal {
        SIGINT => "Ctrl-C",
        SIGBREAK => "Ctrl-Break",
        SIGHUP => "the console closed",
        _ => "a console event",
    }
}

/// Takes the console's Ctrl-C, Ctrl-Break and close events from Windows'
/// default before it returns, and receives them on a thread of their own:
/// `on(SIGINT)`, `on(SIGBREAK)`, and `closed()` for a closed console.
pub(super) fn listen(on: fn(i32), closed: fn() -> !) {
    let events = match (ctrl_c(), ctrl_break(), ctrl_close()) {
        (Ok(c), Ok(b), Ok(close)) => (c, b, close),
        (Err(e), ..) | (_, Err(e), _) | (.., Err(e)) => {
            err(&format!(
                "io: could not receive the console's Ctrl-C, Ctrl-Break and close events: {}\n",
                os_error(&e)
            ));
            return;
        }
    };
    // Without the runtime or the thread a Ctrl-C would end `io` alone
    // (Windows' default), its hooks left running: `io` stops here, before
    // any work, rather than run so.
    let started = tokio::runtime::Builder::new_current_thread()
        .build()
        .and_then(|runtime| {
            std::thread::Builder::new()
                .name("signals".to_owned())
                .spawn(move || receive(&runtime, events, on, closed))
        });
    if let Err(e) = started {
        err(&format!("io: cannot start a thread: {}\n", os_error(&e)));
        std::process::exit(1);
    }
}

/// The event thread: waits for each event on `runtime`, a current-thread
/// one, and does what it says, for as long as `io` runs.
fn receive(
    runtime: &tokio::runtime::Runtime,
    (mut c, mut brk, mut close): (CtrlC, CtrlBreak, CtrlClose),
    on: fn(i32),
    closed: fn() -> !,
) {
    runtime.block_on(async {
        loop {
            tokio::select! {
                Some(()) = c.recv() => on(SIGINT),
                Some(()) = brk.recv() => on(SIGBREAK),
                Some(()) = close.recv() => closed(),
                else => return,
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::{SIGBREAK, SIGHUP, SIGINT, signal_name};

    #[test]
    fn each_console_event_has_its_number_and_name() {
        assert_eq!(128 + SIGINT, 130);
        assert_eq!(128 + SIGBREAK, 149);
        assert_eq!(128 + SIGHUP, 129);
        assert_eq!(signal_name(SIGINT), "Ctrl-C");
        assert_eq!(signal_name(SIGBREAK), "Ctrl-Break");
        assert_eq!(signal_name(SIGHUP), "the console closed");
        assert_eq!(signal_name(15), "a console event");
    }
}
