//! `true` spawned and waited for, again and again, outside criterion: what
//! to put under `strace -c` or a profiler when the `run` hook's row is
//! compared with a bare spawn.
//!
//! ```sh
//! cargo build --release -p io-bench --bin onespawn
//! strace -f -c target/release/onespawn hook 200
//! strace -f -c target/release/onespawn bare 200
//! ```
//!
//! `hook` fires a `run = ["true"]` hook, `env` the same hook given the
//! four variables `io` names (`IO_ROOT`, `IO_EVENT`, `IO_HOOK`,
//! `IO_RUN_ID`), `bare` runs
//! `Command::new("true").status()`; the number is how many times (default
//! 100). `ab` does both that many times, one of each in turn, and prints
//! the median time of each and the median of the pairs' ratios (`env-ab`:
//! the hook with its variables against the bare spawn); `shape`
//! does the same with the hook against a bare `Command` of the hook's
//! shape (`/usr/bin/true` by its path, in its own process group, in the
//! root, the event on a piped stdin, stdout and stderr to null): what the
//! supervision adds beyond what any spawn of that shape costs.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use io_bench::{envelope, io_env, true_hook};
use io_harness::EventKind;
use io_hooks::Flow;

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "hook".to_owned());
    let times: usize = args
        .next()
        .map(|n| n.parse().expect("a number of spawns"))
        .unwrap_or(100);
    let dir = tempfile::tempdir().expect("temp dir");
    let kind = EventKind::Step {
        step: 3,
        moved_the_workspace: true,
    };
    let event = envelope(kind.clone());
    let hooks = true_hook(dir.path());
    // The same hook given the four variables `io` names (`env`, `env-ab`).
    let with_env = true_hook(dir.path()).with_env(io_env("r-0123456789ab"));
    let hook = || assert_eq!(hooks.fire(&kind, &event), Flow::Continue);
    let hook_env = || assert_eq!(with_env.fire(&kind, &event), Flow::Continue);
    let bare = || assert!(Command::new("true").status().expect("spawn").success());
    match mode.as_str() {
        "hook" => (0..times).for_each(|_| hook()),
        "env" => (0..times).for_each(|_| hook_env()),
        "env-ab" => side_by_side(times, hook_env, bare),
        "bare" => (0..times).for_each(|_| bare()),
        "ab" => side_by_side(times, hook, bare),
        "shape" => side_by_side(times, hook, || shaped(dir.path())),
        other => panic!("`{other}`: expected `hook`, `env`, `bare`, `ab`, `env-ab` or `shape`"),
    }
}

/// `a` and `b` once each, `times` times, in turn (a b, b a, …): the
/// median of each, and the median of the per-pair ratios.
fn side_by_side(times: usize, mut a: impl FnMut(), mut b: impl FnMut()) {
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64() * 1e6
    };
    let (mut at, mut bt, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..times {
        let (x, y) = if i % 2 == 0 {
            let x = time(&mut a);
            (x, time(&mut b))
        } else {
            let y = time(&mut b);
            (time(&mut a), y)
        };
        at.push(x);
        bt.push(y);
        ratios.push(x / y);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        "hook {:.1} us, bare {:.1} us, median ratio {:.3}",
        median(&mut at),
        median(&mut bt),
        median(&mut ratios)
    );
}

/// `true` spawned as a `run` hook spawns it, with none of the supervision:
/// by its path, in its own process group, in `root`, a line on a piped
/// stdin, stdout and stderr to null.
fn shaped(root: &Path) {
    let mut child = Command::new("/usr/bin/true")
        .process_group(0)
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn /usr/bin/true");
    if let Some(mut stdin) = child.stdin.take() {
        // `true` may exit before it is written: only the status counts.
        let _ = stdin.write_all(b"{\"event\":\"step\"}\n");
    }
    assert!(child.wait().expect("wait").success());
}
