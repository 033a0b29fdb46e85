//! How `io` meets a signal: what it sets up before anything else (the
//! descriptors a child may inherit, the signals it catches, the thread that
//! receives `SIGINT`, `SIGTERM`, `SIGHUP` and `SIGQUIT`), how the first
//! one stops a run in flight before its next tool call, and how any other
//! ends every child and `io` at once, with the lines it then prints.
//!
//! On Windows (issue 47) the same is done on the console's events, in
//! `signals/windows.rs`: Ctrl-C as `SIGINT`, Ctrl-Break as `SIGBREAK`
//! (21), and a closed console, which ends every child and `io` at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

#[cfg(unix)]
use io_hooks::text::os_error;

use super::output::{err, safe, safe_line};

#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows::signal_name;

/// What `io` prints if a signal ends it now: the run in flight and the
/// command that resumes it, set while `io run` runs one.
static ON_SIGNAL: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Set by the signal thread before it ends `io` ([`end_now`]).
static SIGNALLED: AtomicBool = AtomicBool::new(false);

/// Sets (or, with `None`, clears) the line a signal that ends `io` prints.
pub(crate) fn on_signal(line: Option<String>) {
    *ON_SIGNAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = line;
}

/// For `io run` once its run has returned, to say how it ended itself:
/// clears the line a signal would print and returns `true`, unless a
/// signal is ending `io` already, whose thread then prints that line (and
/// `io` must not print it twice): `false`, and the line is left for it.
/// Decided under the line's lock, which the signal thread takes after it
/// says it is ending `io`, so exactly one of them prints.
pub(crate) fn claim_last_line() -> bool {
    let mut line = ON_SIGNAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if SIGNALLED.load(Ordering::SeqCst) {
        return false;
    }
    *line = None;
    true
}

/// The background queues of the hooks `io run` or `io replay` fires, set
/// while they fire: what a signal that ends `io` says was not delivered.
static BACKLOG: std::sync::Mutex<Option<Backlog>> = std::sync::Mutex::new(None);

/// What [`io_hooks::Hooks::backlog`] returns, kept for the signal thread:
/// called, it gives up on every background queue and says what each hook
/// was not given.
pub(crate) type Backlog = std::sync::Arc<dyn Fn() -> Vec<io_hooks::Undelivered> + Send + Sync>;

/// Sets (or, with `None`, clears) the hooks whose background queues a
/// signal that ends `io` gives up on and reports.
pub(crate) fn on_signal_backlog(backlog: Option<Backlog>) {
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
    for hook in backlog() {
        let key = hook.origin.label();
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

/// Where `io run` is with its run: what a signal does now.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Phase {
    /// No run in flight (the config is being read, a replay runs, the run
    /// has reached `finished`): a signal ends `io` at once.
    Idle,
    /// Run `.0` is in flight: the first signal stops it before its next
    /// tool call ([`Observer::interrupted`](io_harness::Observer::interrupted)).
    Running(String),
    /// Signal `.0` stopped the run in flight: `io` exits with 128 + it once
    /// the run has ended; another signal ends `io` at once.
    Stopping(i32),
}

/// The one [`Phase`], read and changed under its lock by the main thread
/// and the signal thread alike.
static PHASE: std::sync::Mutex<Phase> = std::sync::Mutex::new(Phase::Idle);

fn phase() -> std::sync::MutexGuard<'static, Phase> {
    PHASE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Run `run_id` has begun (its `started`): from now until
/// [`run_ending`], a signal stops it rather than ending `io` at once.
pub(crate) fn run_started(run_id: &str) {
    let mut phase = phase();
    if *phase == Phase::Idle {
        *phase = Phase::Running(run_id.to_owned());
    }
}

/// The run has ended (its `finished`, or an error): a signal ends `io` at
/// once again. A signal that stopped it is kept for [`stopped_by`].
pub(crate) fn run_ending() {
    let mut phase = phase();
    if matches!(*phase, Phase::Running(_)) {
        *phase = Phase::Idle;
    }
}

/// The signal that stopped the run in flight, if one did: the run stops
/// before its next tool call, and `io` exits with 128 + it.
pub(crate) fn stopped_by() -> Option<i32> {
    match *phase() {
        Phase::Stopping(signal) => Some(signal),
        _ => None,
    }
}

/// For the signal thread: the id of the run in flight, now stopping on
/// `signal`; `None` when no run is in flight, or one is stopping already.
fn stop_run(signal: i32) -> Option<String> {
    let mut phase = phase();
    let Phase::Running(run_id) = &*phase else {
        return None;
    };
    let run_id = run_id.clone();
    *phase = Phase::Stopping(signal);
    Some(run_id)
}

/// What `io` says when a signal stops run `run_id`.
fn stopping_line(signal: i32, run_id: &str) -> String {
    let name = signal_name(signal);
    format!(
        "io: {name}: stopping run {} before its next tool call; its hooks still get `finished` \
         (another signal ends io now)\n",
        safe_line(run_id)
    )
}

/// The line a signal that ends `io` now prints, if any ([`on_signal`]).
pub(crate) fn signal_line() -> Option<String> {
    ON_SIGNAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

/// The name of `signal` in what `io` says: `SIGINT`, say.
#[cfg(unix)]
fn signal_name(signal: i32) -> &'static str {
    signal_hook::low_level::signal_name(signal).unwrap_or("a signal")
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
///   `io` started) are received on a thread. The first one while a run is
///   in flight ([`run_started`]) stops it: the flag the run reads before
///   each tool call is set, then the process group of every child in
///   flight is killed (so a hook that returns because it was killed finds
///   the flag set), and the run ends itself, `interrupted`
///   ([`stopped_by`]). Any other kills the process group of every child
///   in flight and refuses new ones, waits (boundedly) for them to be
///   reaped, says which run it interrupted and how to resume it (`io
///   run`), and exits with 128 + the signal's number.
///
/// Returns the flag the signal thread sets before it starts ending things.
#[cfg(unix)]
pub(crate) fn start_process() -> &'static AtomicBool {
    use signal_hook::consts::{SIGCHLD, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGXFSZ};
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
                    for signal in signals.forever() {
                        on(signal);
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

/// What `signal` does, on the signal thread: the first one while a run is
/// in flight stops it; any other ends every child and `io` at once.
fn on(signal: i32) {
    if let Some(run_id) = stop_run(signal) {
        // After the flag, so that a hook ended here returns to a run that
        // sees it.
        io_harness::process_supervisor().end_in_flight();
        err(&stopping_line(signal, &run_id));
        return;
    }
    end_now(signal);
}

/// What `io` sets up before anything else on Windows (issue 47): the
/// console's Ctrl-C, Ctrl-Break and close events are taken from Windows'
/// default (which ends `io` alone, leaving its hooks running) before this
/// returns, and received on a thread: Ctrl-C and Ctrl-Break as `SIGINT`
/// and `SIGBREAK` (the first while a run is in flight stops it, any other
/// ends every child and `io`: [`on`]), a closed console ends every child
/// and `io` at once ([`end_now`]); `signals/windows.rs` says more.
///
/// Returns the flag the event thread sets before it starts ending things.
#[cfg(windows)]
pub(crate) fn start_process() -> &'static AtomicBool {
    windows::listen(on, || end_now(windows::SIGHUP));
    &SIGNALLED
}

/// Ends every child in flight and `io` with it, on `signal`: sets the flag
/// that says `io` is ending ([`claim_last_line`] reads it), kills their
/// process groups and refuses new ones, waits (boundedly) for them to be
/// reaped, says what each background hook was not given and prints the
/// line set for it ([`on_signal`]), and exits with 128 + the signal's
/// number.
fn end_now(signal: i32) -> ! {
    SIGNALLED.store(true, Ordering::SeqCst);
    // What the signal ends, as it was when it came: the interrupt below
    // lets the main thread go on, and clear it, before this one prints.
    let line = signal_line();
    // Counted first, while the event a worker runs is still in flight
    // (the interrupt ends it, and the worker would then drop the rest
    // itself), and before any worker takes another.
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

/// The error for a thread the system would not start: at a process limit
/// (`ulimit -u`, `RLIMIT_NPROC`, which counts threads) `EAGAIN`.
#[cfg(unix)]
fn no_thread(e: &std::io::Error) -> String {
    format!(
        "io: cannot start a thread: {}; is the process limit (`ulimit -u`, RLIMIT_NPROC) too low for this user?\n",
        os_error(e)
    )
}

/// The signals this process ignores, as the kernel's mask (bit `n - 1` is
/// signal `n`) from `/proc/self/status`: the one way to read a disposition
/// without `unsafe`. None when it cannot be read.
#[cfg(unix)]
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
