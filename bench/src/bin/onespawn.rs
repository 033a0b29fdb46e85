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
//! `hook` fires a `run = ["true"]` hook, `bare` runs
//! `Command::new("true").status()`; the number is how many times (default
//! 100).

use std::process::Command;

use io_bench::envelope;
use io_harness::EventKind;
use io_hooks::{Action, Flow, HookFilter, HookSpec, Hooks, OnFailure};

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
    let hooks = Hooks::new(
        vec![
            HookSpec::new(
                HookFilter::from_names(["step"]).expect("known name"),
                Action::run(["true"]),
            )
            .with_on_failure(OnFailure::Cancel),
        ],
        dir.path(),
    );
    for _ in 0..times {
        match mode.as_str() {
            "hook" => assert_eq!(hooks.fire(&kind, &event), Flow::Continue),
            "bare" => assert!(Command::new("true").status().expect("spawn").success()),
            other => panic!("`{other}`: expected `hook` or `bare`"),
        }
    }
}
