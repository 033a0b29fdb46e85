//! Background hooks: a hook whose action runs in the background (`run`'s
//! `background = true`) is given each event through a bounded queue of its
//! own, which one worker thread empties in order, one event at a time, each
//! under the action's own limits (a `run` hook's `timeout_ms`).
//!
//! The queue holds at most [`QUEUE_EVENTS`] events and, past its first
//! event, [`QUEUE_BYTES`] bytes of lines: a host that fires faster than the
//! hook keeps up waits at the full queue (said once per hook) rather than
//! lose an event or grow without bound. The worker starts at the hook's
//! first event, so a hook that never fires costs no thread.
//!
//! This module names the layers below (what executes each action, the root, the
//! process [`Supervisor`], the failure type), never the engine
//! above it that owns the workers.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::hook_run::HookRun;
use crate::action::{DynAction, Fire};
use crate::env::ChildEnv;
use crate::hook_failure::HookFailure;
use crate::origin::Origin;
use io_beneath::Root;
use io_supervisor::{StderrTail, Supervisor};

/// The most events one background hook's queue holds. A host that fires
/// while the queue is full waits for the hook to take the next one.
pub const QUEUE_EVENTS: usize = 1024;

/// The most bytes of event lines one background hook's queue holds beyond
/// its first event (an event bigger than this alone still goes through,
/// once the queue has emptied): with [`QUEUE_EVENTS`], what bounds the
/// memory a slow background hook can make its host hold.
pub const QUEUE_BYTES: usize = 64 << 20;

/// What a host is told of each event a background hook finished.
pub(crate) type Report = Arc<dyn Fn(HookRun<'_>) + Send + Sync>;

/// Everything a worker needs, shared with the hooks that started it.
pub(crate) struct Start {
    /// The hook's action, prepared to execute.
    pub(crate) ready: Arc<dyn DynAction>,
    /// Its timeout, when its action honours `timeout_ms`: each event's
    /// deadline is counted from when the worker begins it.
    pub(crate) timeout: Option<Duration>,
    /// The hook's position, from 0.
    pub(crate) index: usize,
    /// The hook's name in messages.
    pub(crate) origin: Origin,
    /// The variables its host names for its child, when it names any.
    pub(crate) env: Option<Arc<ChildEnv>>,
    pub(crate) root: Arc<Root>,
    pub(crate) supervisor: Supervisor,
    pub(crate) stderr_tail: Option<usize>,
    pub(crate) report: Option<Report>,
}

/// One event waiting for its hook.
struct Job {
    line: Vec<u8>,
    event: &'static str,
}

/// A queue's contents, under its lock.
#[derive(Default)]
struct State {
    jobs: VecDeque<Job>,
    /// The bytes of the lines in `jobs`.
    bytes: usize,
    /// Whether the worker is executing an event it took.
    busy: bool,
    /// Whether the worker is giving the host the report of an event it
    /// executed: no longer in flight, but not yet idle, so that a host that
    /// waits for the hooks sees every report made first.
    reporting: bool,
    /// No more events will come: the worker ends once `jobs` is empty.
    closed: bool,
    /// The worker has ended (a report that panicked, say): an event is
    /// then executed by the thread that fires it.
    gone: bool,
    /// Events the worker has taken, for each one's `seq`.
    taken: u64,
    /// Events handed to the hook, queued or executed.
    given: u64,
    /// Events given to the hook and never executed: dropped after the
    /// host's interrupt.
    dropped: u64,
    /// The host gave up on the hook's queue ([`Queues::abandon`]): no
    /// event is queued or executed any more; one fired is counted dropped.
    abandoned: bool,
}

impl State {
    fn full(&self, len: usize) -> bool {
        !self.jobs.is_empty()
            && (self.jobs.len() >= QUEUE_EVENTS || self.bytes.saturating_add(len) > QUEUE_BYTES)
    }
}

/// A queue and the condition its changes are signalled on.
#[derive(Default)]
struct Queue {
    state: Mutex<State>,
    changed: Condvar,
    /// Whether the full queue has been said, once per hook.
    full_said: AtomicBool,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The lock guards plain counters and a queue, which no panic leaves
        // half-changed.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, guard: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.changed
            .wait(guard)
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// The worker's thread name, as a debugger or `top -H` shows it: the
/// hook's key path (`stage.apply.hook[1]`), or `hook[N]` (its index + 1)
/// for a key a thread cannot be named by (one holding NUL, which only an
/// embedder's [`Origin::new`] can give; a key read from TOML is escaped).
fn thread_name(origin: &Origin, index: usize) -> String {
    if origin.key().contains('\0') {
        format!("hook[{}]", index + 1)
    } else {
        origin.key().to_owned()
    }
}

/// Every background hook's queue that has been started, with the hook's
/// position and name: what [`Hooks::backlog`](crate::Hooks::backlog)'s
/// function reads.
#[derive(Default)]
pub(crate) struct Queues(Mutex<Vec<(usize, Origin, Arc<Queue>)>>);

impl Queues {
    fn add(&self, index: usize, origin: Origin, queue: Arc<Queue>) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((index, origin, queue));
    }
}

impl Queues {
    /// Gives up on every background hook's queue, for a host that is
    /// ending (after its interrupt, [`Supervisor::interrupt`]): the events
    /// still queued are dropped, no event fired from now on is queued or
    /// executed, and what each hook that was given an event did not
    /// receive is returned, in hook order. The event a worker is executing
    /// is left to its deadline or the interrupt, and counted as cut short.
    /// Never waits for a worker: the queue's lock is held only between two
    /// events.
    pub(crate) fn abandon(&self) -> Vec<Undelivered> {
        let queues = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out: Vec<Undelivered> = queues
            .iter()
            .map(|(index, origin, queue)| {
                let mut state = queue.lock();
                let queued = state.jobs.len() as u64;
                state.jobs.clear();
                state.bytes = 0;
                state.dropped += queued;
                state.abandoned = true;
                let undelivered = Undelivered {
                    index: *index,
                    origin: origin.clone(),
                    given: state.given,
                    dropped: state.dropped,
                    in_flight: state.busy,
                };
                drop(state);
                queue.changed.notify_all();
                undelivered
            })
            .collect();
        out.sort_by_key(|u| u.index);
        out
    }
}

/// What one background hook was given and did not receive, from the
/// function [`Hooks::backlog`](crate::Hooks::backlog) returns.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Undelivered {
    /// The hook's position in [`Hooks::specs`](crate::Hooks::specs), from
    /// 0.
    pub index: usize,
    /// Where the hook was written, or `hook[index + 1]`: what messages name
    /// it.
    pub origin: Origin,
    /// How many events it was given.
    pub given: u64,
    /// How many of those it was never handed: still queued at the host's
    /// interrupt, or fired after it.
    pub dropped: u64,
    /// Whether it was executing one when it was abandoned: that event is
    /// cut short by the interrupt.
    pub in_flight: bool,
}

impl Undelivered {
    /// How many events it was given and did not finish receiving: those
    /// dropped, and the one in flight.
    pub fn not_delivered(&self) -> u64 {
        self.dropped + u64::from(self.in_flight)
    }
}

/// One background hook's queue and worker thread.
pub(crate) struct Worker {
    queue: Arc<Queue>,
    thread: Option<JoinHandle<()>>,
    /// The hook's name in messages.
    origin: Origin,
}

impl Worker {
    /// Starts the worker of hook `start.index`, on a thread of its own.
    /// With the `tracing` feature, the thread logs to the subscriber of the
    /// thread that starts it.
    pub(crate) fn start(start: Start, queues: &Queues) -> std::io::Result<Worker> {
        let queue = Arc::new(Queue::default());
        let origin = start.origin.clone();
        queues.add(start.index, origin.clone(), Arc::clone(&queue));
        let theirs = Arc::clone(&queue);
        #[cfg(feature = "tracing")]
        let dispatch = tracing::dispatcher::get_default(Clone::clone);
        let thread = std::thread::Builder::new()
            .name(thread_name(&origin, start.index))
            .spawn(move || {
                let _gone = Gone(&theirs);
                #[cfg(feature = "tracing")]
                tracing::dispatcher::with_default(&dispatch, || work(&theirs, &start));
                #[cfg(not(feature = "tracing"))]
                work(&theirs, &start);
            })?;
        Ok(Worker {
            queue,
            thread: Some(thread),
            origin,
        })
    }

    /// Hands `line` to the worker, waiting while the queue is full; `false`
    /// when the worker has ended and the caller must execute the event
    /// itself.
    pub(crate) fn push(&self, line: &[u8], event: &'static str) -> bool {
        // Copied before the lock, so that the worker, which takes the lock
        // between events, never waits for an allocation and a copy.
        let job = Job {
            line: line.to_vec(),
            event,
        };
        let mut state = self.queue.lock();
        if state.full(line.len()) && !self.queue.full_said.swap(true, Ordering::Relaxed) {
            let origin = &self.origin;
            #[cfg(feature = "tracing")]
            tracing::warn!(
                target: "io_hooks::background",
                hook = origin.key(),
                name = origin.name(),
                file = origin.file(),
                "{origin}'s background queue is full ({} events): the run waits for the hook \
                 to take the next event (said once)",
                state.jobs.len()
            );
            #[cfg(not(feature = "tracing"))]
            let _ = origin;
        }
        while state.full(line.len()) && !state.gone && !state.abandoned {
            state = self.queue.wait(state);
        }
        if state.abandoned {
            // The host is ending: the event is given to no one, and
            // counted so.
            state.given += 1;
            state.dropped += 1;
            return true;
        }
        if state.gone {
            return false;
        }
        state.given += 1;
        state.bytes += line.len();
        state.jobs.push_back(job);
        drop(state);
        self.queue.changed.notify_all();
        true
    }

    /// Returns once every event queued so far has been executed (or the
    /// worker has ended).
    pub(crate) fn wait_idle(&self) {
        let mut state = self.queue.lock();
        while (state.busy || state.reporting || !state.jobs.is_empty()) && !state.gone {
            state = self.queue.wait(state);
        }
    }
}

/// Dropping a worker closes its queue and joins its thread, which first
/// executes every event still queued.
impl Drop for Worker {
    fn drop(&mut self) {
        self.queue.lock().closed = true;
        self.queue.changed.notify_all();
        if let Some(thread) = self.thread.take() {
            // A report that panicked has already ended the thread, and
            // `Gone` said so to every waiter; nothing is left to do.
            let _ = thread.join();
        }
    }
}

/// Marks the queue gone when the worker's thread ends, however it ends, so
/// that nobody waits for it.
struct Gone<'a>(&'a Queue);

impl Drop for Gone<'_> {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.gone = true;
        state.busy = false;
        state.reporting = false;
        state.jobs.clear();
        state.bytes = 0;
        drop(state);
        self.0.changed.notify_all();
    }
}

/// The worker's loop: take the next event, execute it, report it; until the
/// queue is closed and empty.
fn work(queue: &Queue, start: &Start) {
    loop {
        let mut state = queue.lock();
        while state.jobs.is_empty() && !state.closed {
            state = queue.wait(state);
        }
        let Some(job) = state.jobs.pop_front().filter(|_| !state.abandoned) else {
            return;
        };
        state.bytes -= job.line.len();
        state.busy = true;
        state.taken += 1;
        let seq = state.taken;
        drop(state);
        queue.changed.notify_all();

        let ran = execute(start, &job, seq);

        // Delivered: no longer in flight for a host that asks what was not
        // ([`Queues::abandon`]), while one that waits for the hooks waits
        // for the report too.
        let mut state = queue.lock();
        state.busy = false;
        state.reporting = start.report.is_some();
        if start.supervisor.is_interrupted() && !state.jobs.is_empty() {
            drop_interrupted(&mut state, &start.origin);
        }
        drop(state);
        queue.changed.notify_all();
        if let Some(report) = &start.report {
            ran.report(report, start, &job, seq);
            queue.lock().reporting = false;
            queue.changed.notify_all();
        }
    }
}

/// What executing one event came to, for its report.
struct Ran {
    result: Result<(), HookFailure>,
    capture: Option<StderrTail>,
    elapsed: Duration,
}

impl Ran {
    /// Gives the host the report of `job`, the worker's event `seq`.
    fn report(&self, report: &Report, start: &Start, job: &Job, seq: u64) {
        let stderr = match (&self.result, &self.capture) {
            (Err(_), Some(capture)) => Some(capture.bytes()),
            _ => None,
        };
        report(HookRun {
            index: start.index,
            origin: &start.origin,
            event: job.event,
            line: &job.line,
            result: self.result.as_ref().map(|_| ()),
            elapsed: self.elapsed,
            stderr,
            background: true,
            seq: Some(seq),
        });
    }
}

/// Executes one event and logs a failure; the worker reports it.
fn execute(start: &Start, job: &Job, seq: u64) -> Ran {
    let begun = Instant::now();
    let mut capture = start.stderr_tail.map(StderrTail::new);
    let result = start.ready.execute(Fire {
        tag: job.event,
        line: &job.line,
        root: &start.root,
        limit: start.timeout.map(|t| (t, begun + t)),
        supervisor: &start.supervisor,
        capture: capture.as_mut(),
        env: start.env.as_deref(),
    });
    let elapsed = begun.elapsed();
    if let Err(failure) = &result {
        let origin = &start.origin;
        let tag = job.event;
        #[cfg(feature = "tracing")]
        tracing::warn!(
            hook = origin.key(),
            name = origin.name(),
            file = origin.file(),
            event = tag,
            seq,
            "{origin} failed in the background on `{tag}` (its event {seq}): {failure}; the run \
             goes on"
        );
        #[cfg(not(feature = "tracing"))]
        let _ = (origin, tag, failure, seq);
    }
    Ran {
        result,
        capture,
        elapsed,
    }
}

/// After the host's interrupt, the events still queued are not given to
/// the hook (each would fail at once, without spawning): they are
/// dropped, and that is said once, with their number.
fn drop_interrupted(state: &mut State, origin: &Origin) {
    let dropped = state.jobs.len();
    state.jobs.clear();
    state.bytes = 0;
    state.dropped += dropped as u64;
    // Logged under the module's own target: a host that reports what was
    // not delivered itself ([`Queues::abandon`]) filters it with the
    // engine's per-hook lines.
    #[cfg(feature = "tracing")]
    tracing::warn!(
        hook = origin.key(),
        name = origin.name(),
        file = origin.file(),
        "{origin} was interrupted with {dropped} event(s) still queued for it in the \
         background; they were not given to it"
    );
    #[cfg(not(feature = "tracing"))]
    let _ = (origin, dropped);
}
