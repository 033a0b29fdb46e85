//! How `io` meets a signal: what it sets up before anything else (the
//! descriptors a child may inherit, the signals it catches, the thread that
//! ends every child on `SIGINT`, `SIGTERM`, `SIGHUP` or `SIGQUIT`), and the
//! line it then prints.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use io_hooks::text::os_error;

use super::output::{err, safe};

/// What `io` prints if a signal ends it now: the run in flight and the
/// command that resumes it, set while `io run` runs one.
static ON_SIGNAL: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Sets (or, with `None`, clears) the line a signal that ends `io` prints.
pub(crate) fn on_signal(line: Option<String>) {
    *ON_SIGNAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = line;
}

/// The background queues of the hooks `io run` or `io replay` fires, set
/// while they fire: what a signal that ends `io` says was not delivered.
static BACKLOG: std::sync::Mutex<Option<io_hooks::Backlog>> = std::sync::Mutex::new(None);

/// Sets (or, with `None`, clears) the hooks whose background queues a
/// signal that ends `io` gives up on and reports.
pub(crate) fn on_signal_backlog(backlog: Option<io_hooks::Backlog>) {
    *BACKLOG
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = backlog;
}

/// What a signal that ends `io` says of each background hook that was
/// given an event: how many it did not receive (the one cut short in
/// flight, those still queued), or that it received every one. Said
/// always, and from the queues themselves, so a worker that has not yet
/// woken up cannot make it missing.
fn backlog_lines() -> String {
    let backlog = BACKLOG
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    let Some(backlog) = backlog else {
        return String::new();
    };
    let mut text = String::new();
    for hook in backlog.abandon() {
        let key = hook.origin.key();
        let line = match (hook.not_delivered(), hook.in_flight) {
            (0, _) => format!(
                "io: {key} (background): the signal came after it had received all {} event(s) \
                 it was given\n",
                hook.given
            ),
            (n, in_flight) => format!(
                "io: {key} (background): {n} of the {} event(s) it was given were not \
                 delivered whole: {} in flight when the signal came (its child ended with \
                 it), {} never handed to it\n",
                hook.given,
                u64::from(in_flight),
                hook.dropped
            ),
        };
        text.push_str(&safe(&line));
    }
    text
}

/// The line a signal that ends `io` now prints, if any ([`on_signal`]).
pub(crate) fn signal_line() -> Option<String> {
    ON_SIGNAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

/// What `io` sets up before anything else, for itself and what it spawns:
///
/// - Every descriptor above 2 it inherited is made close-on-exec, so only
///   stdin, stdout and stderr reach a hook.
/// - `SIGCHLD` and `SIGXFSZ` are caught, not ignored, whatever the parent
///   left: an ignored `SIGCHLD` has the kernel reap children unasked, so no
///   exit status could be read (a git check would read "untracked", and
///   every hook would fail); `SIGXFSZ` would kill `io` at a file size
///   limit, mid-line, where caught it makes the write fail (`EFBIG`). A
///   caught signal is back at its default in every child `io` spawns.
///   (Setting a disposition outright needs `unsafe`; signal-hook's handler,
///   which only sets a flag, is the safe way to end an inherited `SIG_IGN`.)
/// - `SIGINT`, `SIGTERM`, `SIGHUP` and `SIGQUIT` (those not ignored when
///   `io` started) are received on a thread, which kills the process group of
///   every child in flight, waits (boundedly) for them to be reaped, says
///   which run it interrupted and how to resume it (`io run`), and exits
///   with 128 + the signal's number.
///
/// Returns the flag the signal thread sets before it starts ending things.
pub(crate) fn start_process() -> &'static AtomicBool {
    use signal_hook::consts::{SIGCHLD, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGXFSZ};
    static SIGNALLED: AtomicBool = AtomicBool::new(false);
    static CAUGHT: AtomicBool = AtomicBool::new(false);

    close_fds::set_fds_cloexec(3, &[]);
    for signal in [SIGCHLD, SIGXFSZ] {
        if let Err(e) = signal_hook::flag::register(signal, &CAUGHT) {
            err(&format!(
                "io: could not catch signal {signal}: {}\n",
                os_error(&e)
            ));
        }
    }
    // A signal the parent left ignored (`nohup` ignores SIGHUP, a shell's
    // `&` SIGINT) is the parent's choice, and stays ignored.
    let ignored = ignored_signals();
    // SIGQUIT too: Ctrl-\ is an operator's "stop now" as much as Ctrl-C,
    // and by default it would end `io` (with a core) and leave its hooks
    // running.
    let ending = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
        .into_iter()
        .filter(|&signal| ignored & (1 << (signal - 1)) == 0);
    match signal_hook::iterator::Signals::new(ending) {
        Ok(mut signals) => {
            let started = std::thread::Builder::new()
                .name("signals".to_owned())
                .spawn(move || {
                    if let Some(signal) = signals.forever().next() {
                        SIGNALLED.store(true, Ordering::SeqCst);
                        // What the signal ends, as it was when it came: the
                        // interrupt below lets the main thread go on, and
                        // clear it, before this one prints.
                        let line = signal_line();
                        // Counted first, while the event a worker runs is
                        // still in flight (the interrupt ends it, and the
                        // worker would then drop the rest itself), and
                        // before any worker takes another.
                        let undelivered = backlog_lines();
                        let supervisor = io_harness::process_supervisor();
                        supervisor.interrupt();
                        supervisor.wait_reaped(REAP_WITHIN);
                        err(&undelivered);
                        if let Some(line) = line {
                            err(&line);
                        }
                        std::process::exit(128 + signal);
                    }
                });
            // Without this thread a caught Ctrl-C would end nothing: `io`
            // stops here, before any work, rather than run unstoppable.
            if let Err(e) = started {
                err(&no_thread(&e));
                std::process::exit(1);
            }
        }
        Err(e) => err(&format!(
            "io: could not receive SIGINT/SIGTERM/SIGHUP/SIGQUIT: {}\n",
            os_error(&e)
        )),
    }
    &SIGNALLED
}

/// The error for a thread the system would not start: at a process limit
/// (`ulimit -u`, `RLIMIT_NPROC`, which counts threads) `EAGAIN`.
fn no_thread(e: &std::io::Error) -> String {
    format!(
        "io: cannot start a thread: {}; is the process limit (`ulimit -u`, RLIMIT_NPROC) too low for this user?\n",
        os_error(e)
    )
}

/// The signals this process ignores, as the kernel's mask (bit `n - 1` is
/// signal `n`) from `/proc/self/status`: the one way to read a disposition
/// without `unsafe`. None when it cannot be read.
fn ignored_signals() -> u64 {
    #[allow(
        clippy::disallowed_methods,
        reason = "the kernel's own file of this process, a path nobody else shapes"
    )]
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let hex = status.lines().find_map(|l| l.strip_prefix("SigIgn:"))?;
            u64::from_str_radix(hex.trim(), 16).ok()
        })
        .unwrap_or(0)
}

/// How long `io`, interrupted, waits for its killed children to be reaped
/// before it exits anyway.
const REAP_WITHIN: Duration = Duration::from_secs(5);
