//! Real log collectors shipping an `append` hook's file, configured as
//! docs/collectors.md tells an operator (each configuration is read from
//! that page, so the page and the test cannot differ). Threads appending
//! through the engine and `io replay` processes appending through the same
//! hook write at once; syslog-ng's file source ships the file while
//! logrotate renames it six times, rsyslog's imfile ships it unrotated.
//! Every line must arrive once, whole, unaltered and in order per writer.
//! A 1 MiB line must arrive whole through each with the page's settings,
//! and what each does with it without them is pinned too.
//!
//! rsyslog through rotations is a test of its own, ignored: Debian 12's
//! rsyslog 8.2302 loses a line or three in about half of its runs
//! (docs/collectors.md, "rsyslog").
//!
//! Needs rsyslogd, syslog-ng and logrotate. `bash .ci/collectors` (as
//! root: it installs their libraries with apt-get) unpacks Debian's
//! packages into `target/collectors`, where these tests look (or in
//! `IO_COLLECTORS_DIR`; else `/usr/sbin`), installing neither daemon as the
//! system logger; then
//!
//! ```sh
//! cargo test --test collectors
//! ```
//!
//! Without them the binary says once that it ran nothing and how to run it
//! (under `CI=true` each test fails). Every daemon runs in the foreground on
//! files in the test's temporary directory, and is stopped and reaped at
//! the end, failing or not (killed by the kernel should the test's thread
//! end first).
//!
//! The ignored tests: the soak (syslog-ng, 8 threads and 4 processes
//! through many rotations) and rsyslog through rotations:
//!
//! ```sh
//! cargo test --release --test collectors -- --ignored --nocapture
//! ```
//!
//! `IO_COLLECTORS_ROTATIONS` sets the soak's rotations (default 100), and
//! it fails past `IO_COLLECTORS_LIMIT_S` seconds (default 600).
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod collectors_support;
mod common;

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use collectors_support::{Daemon, Tail, Tools, documented, put, tools};
use common::{IoEnv, output_within, wait_until};
use io_harness::{Config, EventKind, Flow, Hooks, Observer, RunEvent};

/// The file the page's configurations read: the test's own, in their place.
const DOC_AUDIT: &str = "/srv/agent/audit.jsonl";
/// Where the page's configurations ship to.
const DOC_SHIPPED: &str = "/var/log/io/audit.jsonl";
/// How long anything a collector should do may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(60);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Collector {
    Rsyslog,
    SyslogNg,
}

/// The page's configuration as written, or without its long-line setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limit {
    Documented,
    Default,
}

/// A discovery root with an `append` hook on every event
/// (`root/audit.jsonl`), an empty user scope, and a directory for the
/// collector's configuration, state and output.
struct Site {
    env: IoEnv,
    audit: PathBuf,
    shipped: PathBuf,
    work: PathBuf,
}

impl Site {
    fn new() -> Site {
        let env = IoEnv::new();
        env.write(
            "io.local.toml",
            "[[hook]]\nappend = \"audit.jsonl\"\non_failure = \"cancel\"\n",
        );
        let work = env.dir().join("collector");
        std::fs::create_dir(&work).expect("the collector's directory");
        Site {
            audit: env.root().join("audit.jsonl"),
            shipped: env.dir().join("shipped.jsonl"),
            work,
            env,
        }
    }

    /// The hooks `io` would run here: an append to `audit.jsonl`, created
    /// (0600) as they are built.
    fn hooks(&self) -> Hooks {
        Config::discover_with(&self.env.root(), None)
            .expect("the config")
            .hooks()
    }

    /// docs/collectors.md's block starting `first`, on this site's files.
    fn documented(&self, first: &str) -> String {
        let text = put(&documented(first), DOC_AUDIT, &self.audit);
        put(&text, DOC_SHIPPED, &self.shipped)
    }
}

/// `text` without its one line holding `setting`.
fn without(text: &str, setting: &str) -> String {
    let kept: Vec<&str> = text.lines().filter(|l| !l.contains(setting)).collect();
    assert_eq!(kept.len() + 1, text.lines().count(), "one `{setting}` line");
    kept.join("\n") + "\n"
}

/// Starts `collector` on the site with the page's configuration, checked
/// by the collector itself first.
fn start(tools: &Tools, collector: Collector, site: &Site, limit: Limit) -> Daemon {
    let work = &site.work;
    let (name, mut command) = match collector {
        Collector::Rsyslog => {
            let mut ours = site.documented("# /etc/rsyslog.d/io-audit.conf");
            if limit == Limit::Default {
                ours = without(&ours, "maxMessageSize=");
            }
            std::fs::write(work.join("io-audit.conf"), ours).expect("write");
            // As Debian's rsyslog.conf: inputs loaded, then rsyslog.d
            // included. Its internal messages stay here, not in the
            // machine's log.
            let main = format!(
                "global(workDirectory=\"{w}\" processInternalMessages=\"on\")\n\
                 module(load=\"immark\")\n\
                 *.* action(type=\"omfile\" file=\"{w}/internal.log\")\n\
                 include(file=\"{w}/io-audit.conf\")\n",
                w = work.display()
            );
            let conf = work.join("rsyslog.conf");
            std::fs::write(&conf, main).expect("write");
            let check: [&OsStr; 3] = ["-N1".as_ref(), "-f".as_ref(), conf.as_os_str()];
            let (status, text) = tools.rsyslogd.run(&check);
            assert!(status.success(), "rsyslogd -N1: {status}\n{text}");
            let mut command = tools.rsyslogd.command();
            command.arg("-n").arg("-f").arg(&conf);
            command.arg("-i").arg(work.join("rsyslogd.pid"));
            ("rsyslogd", command)
        }
        Collector::SyslogNg => {
            let mut ours = site.documented("# /etc/syslog-ng/conf.d/io-audit.conf");
            if limit == Limit::Default {
                ours = without(&ours, "log-msg-size(");
            }
            std::fs::write(work.join("io-audit.conf"), ours).expect("write");
            let main = format!(
                "@version: {}\n@include \"{}/io-audit.conf\"\n",
                tools.syslog_ng_version,
                work.display()
            );
            let conf = work.join("syslog-ng.conf");
            std::fs::write(&conf, main).expect("write");
            let check: [&OsStr; 3] = ["--syntax-only".as_ref(), "-f".as_ref(), conf.as_os_str()];
            let (status, text) = tools.syslog_ng.run(&check);
            assert!(
                status.success(),
                "syslog-ng --syntax-only: {status}\n{text}"
            );
            let mut command = tools.syslog_ng.command();
            command.args(["-F", "-e", "--no-caps", "-f"]).arg(&conf);
            command.arg(format!("--persist-file={}/persist", work.display()));
            command.arg(format!("--pidfile={}/syslog-ng.pid", work.display()));
            command.arg(format!("--control={}/syslog-ng.ctl", work.display()));
            ("syslog-ng", command)
        }
    };
    command.current_dir(work);
    Daemon::start(name, command, &work.join(format!("{name}.out")))
}

/// What the writers write: mostly short tokens with quotes, a backslash,
/// non-ASCII and escaped control characters, and one line in 100 of 64 KiB
/// (past a pipe's atomic write and rsyslog's default message size, so it
/// is often still being written when a collector reads). The 1 MiB line
/// has tests of its own, below.
fn text(seq: u64) -> String {
    match seq % 100 {
        42 => "k".repeat(64 << 10),
        _ => format!("tok {seq} \"q\" \\ é\n\t"),
    }
}

/// The `seq`th event of `writer`.
fn event(writer: &str, seq: u64) -> RunEvent {
    RunEvent {
        kind: EventKind::Token {
            step: u32::try_from(seq / 10).expect("small"),
            text: text(seq),
        },
        run_id: writer.to_owned(),
        depth: 0,
        seq: Some(seq),
        at: Some("2026-12-01T18:28:24.442Z".to_owned()),
    }
}

/// What arrived, line by line, and everything wrong with it.
#[derive(Debug, Default)]
struct Ledger {
    keys: HashSet<(String, u64)>,
    next: HashMap<String, u64>,
    lines: u64,
    bytes: u64,
    problems: Vec<String>,
}

impl Ledger {
    fn take(&mut self, line: &[u8]) {
        self.lines += 1;
        self.bytes += line.len() as u64 + 1;
        let n = self.lines;
        let event: RunEvent = match serde_json::from_slice(line) {
            Ok(event) => event,
            Err(e) => {
                let shown = String::from_utf8_lossy(&line[..line.len().min(120)]).into_owned();
                return self.problem(format!(
                    "shipped line {n} is not one whole event ({e}): {shown}"
                ));
            }
        };
        let seq = event.seq.expect("every event has a seq");
        if event != self::event(&event.run_id, seq) {
            self.problem(format!(
                "shipped line {n} ({} {seq}) was altered",
                event.run_id
            ));
        }
        if !self.keys.insert((event.run_id.clone(), seq)) {
            self.problem(format!(
                "shipped line {n}: {} {seq} arrived twice",
                event.run_id
            ));
        }
        let next = self.next.entry(event.run_id.clone()).or_default();
        if seq < *next {
            let writer = event.run_id;
            self.problem(format!(
                "shipped line {n}: {writer} {seq} after a later one"
            ));
        } else {
            *next = seq + 1;
        }
    }

    fn problem(&mut self, problem: String) {
        if self.problems.len() < 20 {
            self.problems.push(problem);
        }
    }
}

/// What the writers, the reader of the shipped file and the rotations
/// share.
#[derive(Debug, Default)]
struct Shared {
    ledger: Mutex<Ledger>,
    /// Lines handed to a writer's append (or to `io replay`'s stdin).
    written: AtomicU64,
    /// Lines the collector has shipped.
    shipped: AtomicU64,
    /// The writers stop at their next line.
    stop: AtomicBool,
    /// The reader reads once more and ends.
    read_done: AtomicBool,
}

impl Shared {
    fn ledger(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.ledger
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn has(&self, writer: &str, seq: u64) -> bool {
        self.ledger().keys.contains(&(writer.to_owned(), seq))
    }
}

/// Stops the writers when dropped, and the reader too when the test is
/// panicking, so that a failure leaves no thread of its scope waiting. (The
/// reader must not stop when the writers do: what they wrote is still
/// being shipped.)
struct StopOnDrop<'a>(&'a Shared);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop.store(true, Ordering::SeqCst);
        if std::thread::panicking() {
            self.0.read_done.store(true, Ordering::SeqCst);
        }
    }
}

/// Reads what the collector ships into the ledger as it arrives, until
/// told to read once more and end.
fn read_shipped(path: &Path, shared: &Shared) -> (u64, usize) {
    let mut tail = Tail::new(path);
    loop {
        let last = shared.read_done.load(Ordering::SeqCst);
        let mut ledger = shared.ledger();
        tail.read(|line| ledger.take(line));
        shared.shipped.store(ledger.lines, Ordering::SeqCst);
        drop(ledger);
        if last {
            return tail.position();
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// How far the writers may run ahead of what the collector has shipped:
/// they go at the collector's pace, so that a collector polling once a
/// second still sees several rotations in a few thousand lines.
const WINDOW: u64 = 2_000;

/// Whether a writer may write its next line: waits while it is more than
/// [`WINDOW`] lines ahead of the collector; `false` once told to stop.
fn may_write(shared: &Shared) -> bool {
    let go = wait_until(PATIENCE, || {
        shared.stop.load(Ordering::SeqCst)
            || shared.written.load(Ordering::SeqCst)
                < shared.shipped.load(Ordering::SeqCst) + WINDOW
    });
    assert!(go, "the collector shipped nothing for {PATIENCE:?}");
    !shared.stop.load(Ordering::SeqCst)
}

/// A thread appending through the engine until told to stop; how many.
fn append_from_thread(hooks: &Hooks, shared: &Shared, writer: &str) -> u64 {
    let mut seq = 0;
    while may_write(shared) {
        let flow = hooks.event(&event(writer, seq));
        assert_eq!(flow, Flow::Continue, "{writer}: the append of {seq} failed");
        shared.written.fetch_add(1, Ordering::SeqCst);
        seq += 1;
    }
    seq
}

/// Feeds an `io replay -` its events until told to stop; how many.
fn feed_replay(mut stdin: std::process::ChildStdin, shared: &Shared, writer: &str) -> u64 {
    let mut seq = 0;
    while may_write(shared) {
        let mut line = serde_json::to_vec(&event(writer, seq)).expect("serialise");
        line.push(b'\n');
        stdin.write_all(&line).expect("io replay reads its stdin");
        shared.written.fetch_add(1, Ordering::SeqCst);
        seq += 1;
    }
    seq
}

/// `io replay -` processes appending through the site's hook; killed and
/// reaped when dropped, should the test fail before they end.
struct Replays(Vec<(String, Child)>);

impl Replays {
    fn start(site: &Site, n: usize) -> Replays {
        let children = (0..n)
            .map(|p| {
                let err = std::fs::File::create(site.work.join(format!("replay-{p}.err")))
                    .expect("stderr file");
                let child = site
                    .env
                    .command(&["replay", "-"])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .stderr(err)
                    .spawn()
                    .expect("io replay starts");
                (format!("p{p}"), child)
            })
            .collect();
        Replays(children)
    }

    /// Waits for each to end, which it must with 0.
    fn finish(&mut self, site: &Site) {
        for (p, (writer, child)) in self.0.drain(..).enumerate() {
            let out = output_within(child, PATIENCE, &format!("io replay ({writer})"));
            let err = std::fs::read_to_string(site.work.join(format!("replay-{p}.err")));
            assert!(
                out.status.success(),
                "io replay {writer}: {}\n{err:?}",
                out.status
            );
        }
    }
}

impl Drop for Replays {
    fn drop(&mut self) {
        for (_, child) in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// logrotate with the page's configuration, run by hand (`-f`) as its
/// daily run would, and what each rotation showed.
struct Rotations<'a> {
    tools: &'a Tools,
    site: &'a Site,
    conf: PathBuf,
    /// The file just rotated (`audit.jsonl.1`): its inode and size as
    /// logrotate left it.
    last: Option<(u64, u64)>,
    /// Lines that reached a file after logrotate had renamed it: appends
    /// that opened the file before the rename and wrote after it.
    late: u64,
    /// From each rotation to the collector shipping the new file's first
    /// line.
    pickups: Vec<Duration>,
}

impl<'a> Rotations<'a> {
    fn new(tools: &'a Tools, site: &'a Site) -> Self {
        let conf = site.work.join("logrotate.conf");
        let ours = put(
            &documented("# /etc/logrotate.d/io-audit"),
            DOC_AUDIT,
            &site.audit,
        );
        std::fs::write(&conf, ours).expect("write");
        Rotations {
            tools,
            site,
            conf,
            last: None,
            late: 0,
            pickups: Vec::new(),
        }
    }

    /// Counts what reached the last rotated file since logrotate left it.
    fn count_late(&mut self) {
        let rotated = self.site.audit.with_extension("jsonl.1");
        let Some((ino, size)) = self.last else { return };
        let Ok(bytes) = std::fs::read(&rotated) else {
            return;
        };
        let meta = std::fs::metadata(&rotated).expect("stat");
        if meta.ino() == ino && bytes.len() as u64 > size {
            let grown = &bytes[usize::try_from(size).expect("small")..];
            self.late += grown.iter().filter(|&&b| b == b'\n').count() as u64;
        }
    }

    /// Runs logrotate, which must succeed and say nothing; the rotated
    /// file's inode, and its size as the rename left it: a thread looks at
    /// `audit.jsonl.1` over and over while logrotate runs, so that what
    /// reaches the file after the rename (an append that opened it just
    /// before) is counted, not only what reaches it after logrotate ends.
    fn logrotate(&self) -> (u64, u64) {
        let rotated = self.site.audit.with_extension("jsonl.1");
        let before = std::fs::metadata(&rotated).ok().map(|m| m.ino());
        let done = AtomicBool::new(false);
        let state = self.site.work.join("logrotate.state");
        let args: [&OsStr; 4] = [
            "-f".as_ref(),
            "-s".as_ref(),
            state.as_os_str(),
            self.conf.as_os_str(),
        ];
        let (status, text, seen) = std::thread::scope(|s| {
            let watcher = s.spawn(|| {
                loop {
                    let meta = std::fs::metadata(&rotated);
                    if let Ok(meta) = meta.as_ref()
                        && Some(meta.ino()) != before
                    {
                        return Some((meta.ino(), meta.len()));
                    }
                    if done.load(Ordering::SeqCst) {
                        return None;
                    }
                    std::thread::yield_now();
                }
            });
            let (status, text) = self.tools.logrotate.run(&args);
            done.store(true, Ordering::SeqCst);
            (status, text, watcher.join().expect("the watcher"))
        });
        assert!(
            status.success() && text.is_empty(),
            "logrotate: {status}\n{text}"
        );
        let after = std::fs::metadata(&rotated).expect("logrotate renamed the file to .1");
        seen.unwrap_or((after.ino(), after.len()))
    }

    /// Rotates the file, then waits for the collector to ship the first
    /// line of the new one, which the next append creates with mode 0600.
    fn rotate(&mut self, shared: &Shared) {
        self.count_late();
        self.last = Some(self.logrotate());
        let since = Instant::now();
        let mut first = None;
        let created = wait_until(PATIENCE, || {
            first = std::fs::read(&self.site.audit).ok().and_then(|bytes| {
                let end = bytes.iter().position(|&b| b == b'\n')?;
                serde_json::from_slice::<RunEvent>(&bytes[..end]).ok()
            });
            first.is_some()
        });
        assert!(created, "no append created the file again");
        let first = first.expect("a first line");
        let seq = first.seq.expect("a seq");
        let shipped = wait_until(PATIENCE, || shared.has(&first.run_id, seq));
        assert!(
            shipped,
            "the collector never shipped the new file's first line"
        );
        self.pickups.push(since.elapsed());
        let mode = std::fs::metadata(&self.site.audit)
            .expect("stat")
            .permissions()
            .mode();
        assert_eq!(
            mode & 0o777,
            0o600,
            "the file io created after the rotation"
        );
    }
}

/// How many writers of each kind, how many rotations, and how many lines
/// in all at least.
#[derive(Debug, Clone, Copy)]
struct Shape {
    threads: usize,
    processes: usize,
    rotations: usize,
    lines: u64,
}

/// Lines written between two rotations, at least.
const PER_ROTATION: u64 = 500;

/// The writers' names and how many lines each wrote, once the rotations
/// are done.
fn write_through_rotations(
    site: &Site,
    shared: &Shared,
    rotations: &mut Rotations<'_>,
    shape: Shape,
    daemon: &mut Daemon,
) -> Vec<(String, u64)> {
    let hooks = site.hooks();
    let mut replays = Replays::start(site, shape.processes);
    let counts = std::thread::scope(|s| {
        let _stop = StopOnDrop(shared);
        let hooks = &hooks;
        let mut writers = Vec::new();
        for t in 0..shape.threads {
            let name = format!("t{t}");
            writers.push(s.spawn(move || (name.clone(), append_from_thread(hooks, shared, &name))));
        }
        for (name, child) in &mut replays.0 {
            let (stdin, name) = (child.stdin.take().expect("piped"), name.clone());
            writers.push(s.spawn(move || (name.clone(), feed_replay(stdin, shared, &name))));
        }
        for _ in 0..shape.rotations {
            let since = shared.written.load(Ordering::SeqCst);
            let grown = wait_until(PATIENCE, || {
                shared.written.load(Ordering::SeqCst) >= since + PER_ROTATION
            });
            assert!(grown, "the writers stalled");
            daemon.assert_running();
            rotations.rotate(shared);
        }
        let enough = wait_until(PATIENCE, || {
            shared.written.load(Ordering::SeqCst) >= shape.lines
        });
        assert!(enough, "the writers stalled");
        shared.stop.store(true, Ordering::SeqCst);
        writers
            .into_iter()
            .map(|w| w.join().expect("a writer"))
            .collect()
    });
    replays.finish(site);
    counts
}

/// The lines written and never shipped, at most 20.
fn missing(ledger: &Ledger, counts: &[(String, u64)]) -> Vec<(String, u64)> {
    counts
        .iter()
        .flat_map(|(writer, n)| (0..*n).map(move |seq| (writer.clone(), seq)))
        .filter(|key| !ledger.keys.contains(key))
        .take(20)
        .collect()
}

/// Each of `lines` with the name of the uncompressed file that holds it
/// (`audit.jsonl`, `audit.jsonl.1`), if one does.
fn whereabouts(site: &Site, lines: &[(String, u64)]) -> Vec<(String, u64, Option<String>)> {
    let mut found = HashMap::new();
    let dir = site.audit.parent().expect("a directory");
    for entry in std::fs::read_dir(dir).expect("the root").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with("audit.jsonl") || name.ends_with(".gz") {
            continue;
        }
        let bytes = std::fs::read(entry.path()).unwrap_or_default();
        let mut at = 0;
        for line in bytes.split(|&b| b == b'\n') {
            if let Ok(event) = serde_json::from_slice::<RunEvent>(line) {
                let key = (event.run_id, event.seq.unwrap_or(u64::MAX));
                found.insert(key, format!("{name} at {at}, {} bytes", line.len()));
            }
            at += line.len() + 1;
        }
    }
    lines
        .iter()
        .map(|(w, s)| (w.clone(), *s, found.get(&(w.clone(), *s)).cloned()))
        .collect()
}

fn collector_name(collector: Collector) -> &'static str {
    match collector {
        Collector::Rsyslog => "rsyslogd",
        Collector::SyslogNg => "syslog-ng",
    }
}

/// What a run through rotations shipped: lines, bytes, and the figures.
#[derive(Debug)]
struct Shipped {
    lines: u64,
    bytes: u64,
    late: u64,
    pickups: Vec<Duration>,
    took: Duration,
}

/// `collector` ships the site's file while `shape`'s writers append to it
/// and logrotate rotates it; every line must arrive once, whole, unaltered
/// and in order per writer.
fn ship_through_rotations(tools: &Tools, collector: Collector, shape: Shape) -> Shipped {
    let site = Site::new();
    let began = Instant::now();
    // The first line: once it is shipped, the collector is watching.
    assert_eq!(site.hooks().event(&event("ready", 0)), Flow::Continue);
    let mut daemon = start(tools, collector, &site, Limit::Documented);
    let shared = Shared::default();
    let mut rotations = Rotations::new(tools, &site);
    let counts = std::thread::scope(|s| {
        let _stop = StopOnDrop(&shared);
        let reader = s.spawn(|| read_shipped(&site.shipped, &shared));
        let ready = wait_until(PATIENCE, || shared.has("ready", 0));
        assert!(
            ready,
            "the collector never shipped the first line:\n{}",
            daemon.output()
        );
        let counts = write_through_rotations(&site, &shared, &mut rotations, shape, &mut daemon);
        let total = counts.iter().map(|(_, n)| n).sum::<u64>() + 1;
        let all = wait_until(PATIENCE, || shared.shipped.load(Ordering::SeqCst) >= total);
        rotations.count_late();
        daemon.stop();
        shared.read_done.store(true, Ordering::SeqCst);
        let position = reader.join().expect("the reader");
        if !all {
            let missing = missing(&shared.ledger(), &counts);
            panic!(
                "{} of {total} lines shipped ({} newlines in the shipped file, {:?} bytes; \
                 read to {position:?}); missing \
                 (writer, seq, the file it is in): {:?}\n\
                 what arrived wrong: {:#?}\n{}:\n{}\n{}",
                shared.shipped.load(Ordering::SeqCst),
                std::fs::read(&site.shipped)
                    .map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count()),
                std::fs::metadata(&site.shipped).map(|m| m.len()),
                whereabouts(&site, &missing),
                shared.ledger().problems,
                collector_name(collector),
                daemon.output(),
                std::fs::read_to_string(site.work.join("internal.log")).unwrap_or_default(),
            );
        }
        counts
    });
    let ledger = shared.ledger();
    assert!(ledger.problems.is_empty(), "{:#?}", ledger.problems);
    for (writer, n) in &counts {
        assert_eq!(ledger.next.get(writer), Some(n), "{writer}: lines lost");
    }
    let total = counts.iter().map(|(_, n)| n).sum::<u64>() + 1;
    assert_eq!(ledger.lines, total, "lines shipped");
    assert_eq!(ledger.keys.len() as u64, total, "distinct lines shipped");
    Shipped {
        lines: ledger.lines,
        bytes: ledger.bytes,
        late: rotations.late,
        pickups: rotations.pickups,
        took: began.elapsed(),
    }
}

fn report(collector: Collector, shape: Shape, shipped: &Shipped) {
    let mut pickups = shipped.pickups.clone();
    pickups.sort();
    let (median, most) = match pickups.len() {
        0 => (Duration::ZERO, Duration::ZERO),
        n => (pickups[n / 2], pickups[n - 1]),
    };
    println!(
        "{collector:?}: {} lines ({:.1} MiB) from {} threads and {} io replay processes through \
         {} rotations, each shipped once, whole and in order; {} line(s) appended to a file \
         after logrotate renamed it; new file shipped {:.0?} after a rotation at the median, \
         {:.0?} at most; {:.1?} in all",
        shipped.lines,
        shipped.bytes as f64 / f64::from(1 << 20),
        shape.threads,
        shape.processes,
        shape.rotations,
        shipped.late,
        median,
        most,
        shipped.took,
    );
}

/// The in-suite run through rotations: seconds, not minutes.
const SHORT: Shape = Shape {
    threads: 3,
    processes: 2,
    rotations: 6,
    lines: 0,
};

/// The in-suite run without rotations: concurrent writers only.
const STILL: Shape = Shape {
    threads: 3,
    processes: 2,
    rotations: 0,
    lines: 10_000,
};

#[test]
fn syslog_ng_ships_every_line_once_whole_and_in_order_through_rotations() {
    let Some(tools) = tools() else { return };
    let shipped = ship_through_rotations(&tools, Collector::SyslogNg, SHORT);
    report(Collector::SyslogNg, SHORT, &shipped);
}

#[test]
fn rsyslog_ships_every_line_once_whole_and_in_order_from_concurrent_writers() {
    let Some(tools) = tools() else { return };
    let shipped = ship_through_rotations(&tools, Collector::Rsyslog, STILL);
    report(Collector::Rsyslog, STILL, &shipped);
}

/// Fails now and then with Debian 12's rsyslog 8.2302, whose imfile can
/// lose a line that is still being written when it finishes a renamed file
/// (docs/collectors.md, "rsyslog"), so it is not in the default suite.
#[test]
#[ignore = "rsyslog 8.2302 loses a line at a rotation now and then: docs/collectors.md"]
fn rsyslog_ships_every_line_once_whole_and_in_order_through_rotations() {
    let Some(tools) = tools() else { return };
    let shipped = ship_through_rotations(&tools, Collector::Rsyslog, SHORT);
    report(Collector::Rsyslog, SHORT, &shipped);
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
#[ignore = "soak: minutes, bounded by IO_COLLECTORS_LIMIT_S; see the module docs"]
fn syslog_ng_ships_every_line_through_many_rotations() {
    let Some(tools) = tools() else { return };
    let shape = Shape {
        threads: 8,
        processes: 4,
        rotations: usize::try_from(env_or("IO_COLLECTORS_ROTATIONS", 100)).expect("small"),
        lines: 0,
    };
    let limit = Duration::from_secs(env_or("IO_COLLECTORS_LIMIT_S", 600));
    let shipped = ship_through_rotations(&tools, Collector::SyslogNg, shape);
    report(Collector::SyslogNg, shape, &shipped);
    assert!(
        shipped.took < limit,
        "took {:?}, over {limit:?}",
        shipped.took
    );
}

/// The lines `collector` ships of three events appended before it starts:
/// a short one, one whose text is 1 MiB, and a short one.
fn ship_a_long_line(
    tools: &Tools,
    collector: Collector,
    limit: Limit,
) -> (Vec<Vec<u8>>, [Vec<u8>; 3]) {
    let site = Site::new();
    let hooks = site.hooks();
    let long = RunEvent {
        kind: EventKind::Token {
            step: 1,
            text: "m".repeat(1 << 20),
        },
        ..event("long", 0)
    };
    let events = [event("before", 0), long, event("after", 0)];
    for e in &events {
        assert_eq!(hooks.event(e), Flow::Continue);
    }
    let written = events.map(|e| serde_json::to_vec(&e).expect("serialise"));
    let mut daemon = start(tools, collector, &site, limit);
    let mut tail = Tail::new(&site.shipped);
    let mut lines = Vec::new();
    let arrived = wait_until(PATIENCE, || {
        tail.read(|line| lines.push(line.to_vec()));
        lines.last() == Some(&written[2])
    });
    daemon.assert_running();
    assert!(arrived, "the last line never arrived:\n{}", daemon.output());
    daemon.stop();
    tail.read(|line| lines.push(line.to_vec()));
    assert_eq!(lines.first(), Some(&written[0]));
    assert_eq!(lines.last(), Some(&written[2]));
    let middle = lines[1..lines.len() - 1].to_vec();
    (middle, written)
}

#[test]
fn a_one_mib_line_reaches_rsyslog_whole_with_the_documented_max_message_size() {
    let Some(tools) = tools() else { return };
    let (shipped, written) = ship_a_long_line(&tools, Collector::Rsyslog, Limit::Documented);
    assert!(written[1].len() > 1 << 20);
    assert!(
        shipped == [written[1].clone()],
        "the 1 MiB line did not arrive whole"
    );
}

#[test]
fn a_one_mib_line_reaches_syslog_ng_whole_with_the_documented_log_msg_size() {
    let Some(tools) = tools() else { return };
    let (shipped, written) = ship_a_long_line(&tools, Collector::SyslogNg, Limit::Documented);
    assert!(
        shipped == [written[1].clone()],
        "the 1 MiB line did not arrive whole"
    );
}

/// Why the page sets `maxMessageSize`: by default, rsyslog ships the first
/// 8,096 bytes of a longer line and drops the rest.
#[test]
fn without_max_message_size_rsyslog_cuts_a_long_line_and_drops_the_rest() {
    let Some(tools) = tools() else { return };
    let (shipped, written) = ship_a_long_line(&tools, Collector::Rsyslog, Limit::Default);
    let lens: Vec<usize> = shipped.iter().map(Vec::len).collect();
    assert_eq!(lens, [8096], "what arrived of the line");
    assert!(written[1].starts_with(&shipped[0]));
}

/// Why the page sets `log-msg-size`: by default, syslog-ng ships a longer
/// line as pieces of 65,536 bytes, each a line of its own.
#[test]
fn without_log_msg_size_syslog_ng_splits_a_long_line_into_pieces() {
    let Some(tools) = tools() else { return };
    let (shipped, written) = ship_a_long_line(&tools, Collector::SyslogNg, Limit::Default);
    let pieces = written[1].len().div_ceil(65_536);
    assert_eq!(shipped.len(), pieces, "pieces");
    assert!(shipped[..pieces - 1].iter().all(|p| p.len() == 65_536));
    assert_eq!(
        shipped.concat(),
        written[1],
        "the pieces, joined, are the line"
    );
}
