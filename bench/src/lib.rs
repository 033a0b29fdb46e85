//! Fixtures, baselines and the report for io-harness's benchmarks.
//!
//! The measurements themselves are criterion benches in `benches/hooks.rs`;
//! this library holds what they share and what is worth reading on its own:
//! the baselines each figure is compared with (the naive filter, the raw
//! append loop), the fixtures (every [`EventKind`], a script of 100,000
//! streamed tokens, a store that keeps nothing), and [`report`], the one
//! table `BENCHMARKS.md` shows: each figure and its baseline measured again
//! in alternation, after criterion's own runs of the two.
//!
//! Nothing here is a dependency of the engine or the harness: the arrow
//! points one way, bench → harness → engine.

pub mod collector;
pub mod flattened;
pub mod report;

pub use flattened::Flattened;

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use io_harness::{
    EventKind, HookEvents, Observer, RunEvent,
    run::{Contract, Record, Store, StoreError},
};
use io_hooks::{Action, AppendAction, Flow, HookEnv, HookFilter, HookSpec, Hooks, Kind};

/// One value of every [`EventKind`], in `TAGS` order: the first event of
/// each kind in `examples/events.jsonl`, a real run that a test in the
/// harness keeps holding every kind. What the filter benches test against.
pub fn every_kind() -> Vec<EventKind> {
    let recorded: Vec<EventKind> = include_str!("../../examples/events.jsonl")
        .lines()
        .map(|line| {
            serde_json::from_str::<RunEvent>(line)
                .expect("examples/events.jsonl holds RunEvents")
                .kind
        })
        .collect();
    Kind::<EventKind>::all()
        .map(|wanted| {
            recorded
                .iter()
                .find(|event| event.kind() == wanted)
                .cloned()
                .unwrap_or_else(|| panic!("no `{}` in examples/events.jsonl", wanted.tag()))
        })
        .collect()
}

/// `kind` in the envelope a hook receives, as the run loop builds it.
pub fn envelope(kind: EventKind) -> RunEvent {
    RunEvent {
        kind,
        run_id: "r-7f3a0c19e2d4".to_owned(),
        depth: 0,
        seq: Some(12),
        at: Some("2026-11-30T03:00:00.123Z".to_owned()),
    }
}

/// The filter design `HookFilter` replaced: each hook keeps the names it
/// was given and compares them with the event's tag.
pub struct NaiveFilter {
    names: Vec<String>,
}

impl NaiveFilter {
    /// A filter holding `names`, as written.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        NaiveFilter {
            names: names.into_iter().map(str::to_owned).collect(),
        }
    }

    /// Whether the event's tag is one of the names: a string compare each.
    #[inline]
    pub fn contains(&self, event: &EventKind) -> bool {
        let tag = event.tag();
        self.names.iter().any(|name| name == tag)
    }
}

/// An `append` hook on `on`, writing to `path`.
pub fn append_hook(on: &[&str], path: PathBuf) -> HookSpec<EventKind> {
    HookSpec::new(
        HookFilter::from_names(on).expect("known event names"),
        Action::append(path),
    )
}

/// A `run = ["true"]` hook on `step` that cancels the run on failure, in
/// `dir`: the `run` rows' hook (`spawn/…`, `onespawn`).
pub fn true_hook(dir: &Path) -> Hooks<EventKind> {
    let spec = HookSpec::new(
        HookFilter::from_names(["step"]).expect("known name"),
        Action::run(["true"]),
    )
    .with_on_failure(Flow::Cancel);
    Hooks::new(vec![spec], dir)
}

/// The four variables `io` gives a `run` hook's child (`IO_ROOT`,
/// `IO_EVENT`, `IO_HOOK`, `IO_RUN_ID`), with a run id of `run_id`: what
/// the rows of a hook given variables give it.
pub fn io_env(run_id: &str) -> HookEnv {
    HookEnv::new()
        .root("IO_ROOT")
        .event("IO_EVENT")
        .hook("IO_HOOK")
        .set("IO_RUN_ID", run_id)
}

/// `n` append hooks on `on`, each to its own file in `dir`.
pub fn append_hooks(n: usize, on: &[&str], dir: &Path) -> Hooks<EventKind> {
    let specs = (0..n)
        .map(|i| append_hook(on, dir.join(format!("hook-{i}.jsonl"))))
        .collect();
    Hooks::new(specs, dir)
}

/// The files `hooks` append to, in the order written.
pub fn append_paths(hooks: &Hooks<EventKind>) -> Vec<PathBuf> {
    hooks
        .specs()
        .filter_map(|spec| Some(spec.action.get::<AppendAction>()?.path.clone()))
        .collect()
}

/// The syscall floor of an `append` hook: open (append, create, 0600), one
/// `write` of the whole line, close. No lock, no serialisation, no clock.
pub fn raw_append(path: &Path, line: &[u8]) {
    let mut file = OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .open(path)
        .expect("open for append");
    let written = file.write(line).expect("write");
    assert_eq!(written, line.len(), "one write of the whole line");
}

/// The floor of `append` hooks in a whole run: an observer that wants the
/// same events and, for each, does only what the spec's open-per-event
/// `append` cannot avoid, [`raw_append`] of a line serialised in advance.
/// No serialisation, no lock, no check. A run with hooks against a run with
/// this observer is the engine's own cost; this observer against none is
/// the syscalls' (`BENCHMARKS.md`, "Targets").
pub struct RawAppendObserver {
    wanted: HookFilter<EventKind>,
    path: PathBuf,
    line: Vec<u8>,
}

impl RawAppendObserver {
    /// Appends `line` to `path` for every event named in `on`.
    pub fn new(on: &[&str], path: PathBuf, line: Vec<u8>) -> Self {
        RawAppendObserver {
            wanted: HookFilter::from_names(on).expect("known event names"),
            path,
            line,
        }
    }
}

impl Observer for RawAppendObserver {
    fn event(&self, _: &RunEvent) -> Flow {
        raw_append(&self.path, &self.line);
        Flow::Continue
    }

    fn wants(&self, kind: Kind<EventKind>) -> bool {
        self.wanted.contains_kind(kind)
    }
}

/// Threads that each run a job of their own, all at once, once per
/// [`run`](Self::run): two threads appending side by side, measured as one
/// call. The threads are made once and wait between calls, so a call costs
/// the jobs and two barrier crossings, not a spawn.
pub struct Crew {
    start: Arc<Barrier>,
    done: Arc<Barrier>,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Crew {
    /// One thread per job.
    pub fn new(jobs: Vec<Box<dyn FnMut() + Send>>) -> Self {
        let start = Arc::new(Barrier::new(jobs.len() + 1));
        let done = Arc::new(Barrier::new(jobs.len() + 1));
        let stop = Arc::new(AtomicBool::new(false));
        let threads = jobs
            .into_iter()
            .map(|mut job| {
                let (start, done, stop) = (start.clone(), done.clone(), stop.clone());
                std::thread::spawn(move || {
                    loop {
                        start.wait();
                        if stop.load(Ordering::Relaxed) {
                            return;
                        }
                        job();
                        done.wait();
                    }
                })
            })
            .collect();
        Crew {
            start,
            done,
            stop,
            threads,
        }
    }

    /// Runs every job once, at the same time; returns when all are done.
    pub fn run(&self) {
        self.start.wait();
        self.done.wait();
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.start.wait();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// How many appends may grow a file before [`timed_appends`] empties it.
pub const APPENDS_PER_ROUND: u64 = 4096;

/// Times `iters` calls of `append`, emptying `files` every
/// [`APPENDS_PER_ROUND`] calls, outside the timed part.
///
/// A bench that appends for seconds at a microsecond an event would grow
/// its files by hundreds of megabytes, and then measure the kernel writing
/// dirty pages back rather than the append: figures drifted upward by half
/// through one run before this. Each round starts from an empty file and
/// grows it by at most a megabyte, as a log between two rotations would.
pub fn timed_appends(iters: u64, files: &[&Path], append: impl FnMut()) -> Duration {
    timed_rounds(iters, APPENDS_PER_ROUND, files, append)
}

/// [`timed_appends`] for a call that appends more than once: `files` are
/// emptied every `per_round` calls.
pub fn timed_rounds(
    iters: u64,
    per_round: u64,
    files: &[&Path],
    mut call: impl FnMut(),
) -> Duration {
    let mut total = Duration::ZERO;
    let mut done = 0;
    while done < iters {
        empty(files);
        let round = (iters - done).min(per_round.max(1));
        let start = Instant::now();
        for _ in 0..round {
            call();
        }
        total += start.elapsed();
        done += round;
    }
    total
}

/// Empties each of `files` (creating it, mode 0600, when missing).
pub fn empty(files: &[&Path]) {
    for file in files {
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(file)
            .expect("empty the file");
    }
}

/// The event as the engine writes it: one JSON line with its newline.
pub fn json_line<T: serde::Serialize + ?Sized>(event: &T) -> Vec<u8> {
    let mut line = Vec::with_capacity(256);
    serde_json::to_writer(&mut line, event).expect("serialisable");
    line.push(b'\n');
    line
}

/// A script whose run streams `steps * tokens_per_step` tokens: `steps`
/// turns of `tokens_per_step` one-word tokens each and no tool call, the
/// last one answering.
pub fn token_script(steps: u32, tokens_per_step: usize) -> String {
    let say = " tok".repeat(tokens_per_step);
    let mut script = String::from("goal = \"stream\"\n");
    for step in 1..=steps {
        script.push_str(&format!("\n[[turn]]\nsay = \"{say}\"\n"));
        if step == steps {
            script.push_str("answer = \"done\"\n");
        }
    }
    script
}

/// A contract that lets a `steps`-step script run to its answer.
pub fn token_contract(steps: u32, workspace: &Path) -> Contract {
    Contract {
        max_steps: steps + 1,
        ..Contract::new("stream", workspace)
    }
}

/// A store that keeps nothing: the run loop's own cost, without a journal's
/// `fsync` per step (which would dwarf everything a hook adds).
#[derive(Debug, Default)]
pub struct NullStore;

impl Store for NullStore {
    fn append(&self, _: &str, _: &Record) -> Result<(), StoreError> {
        Ok(())
    }

    fn load(&self, _: &str) -> Result<Option<Vec<Record>>, StoreError> {
        Ok(None)
    }
}
