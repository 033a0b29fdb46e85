//! One or more whole reference runs of 100,000 streamed tokens, outside
//! criterion: what to put under a profiler, which criterion's own loop would
//! drown.
//!
//! ```sh
//! cargo build --release -p io-bench --bin onerun
//! valgrind --tool=callgrind target/release/onerun none 5
//! valgrind --tool=callgrind target/release/onerun hooks 5
//! ```
//!
//! `none` runs with no observer, `hooks` with an `append` hook on `step` and
//! `finished`, `floor` with the raw open+write+close of those events
//! ([`RawAppendObserver`]); the number is how many runs (default 5). Instructions per run
//! are the difference between two counts over the difference in runs, which
//! takes the start-up out.

use io_bench::{
    NullStore, RawAppendObserver, append_hook, envelope, json_line, token_contract, token_script,
};
use io_harness::{
    ApproveAll, Observer,
    run::{Policy, ScriptedProvider},
    run_with_observed,
};
use io_hooks::Hooks;

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "none".to_owned());
    let runs: usize = args
        .next()
        .map(|n| n.parse().expect("a number of runs"))
        .unwrap_or(5);
    let dir = tempfile::tempdir().expect("temp dir");
    let workspace = dir.path().join("ws");
    std::fs::create_dir(&workspace).expect("workspace");
    let provider =
        ScriptedProvider::from_toml("onerun", &token_script(100, 1_000)).expect("script parses");
    let contract = token_contract(100, &workspace);
    let hooks = Hooks::new(
        vec![append_hook(
            &["step", "finished"],
            dir.path().join("audit.jsonl"),
        )],
        dir.path(),
    );
    let step = envelope(io_harness::EventKind::Step {
        step: 3,
        moved_the_workspace: true,
    });
    let floor = RawAppendObserver::new(
        &["step", "finished"],
        dir.path().join("floor.jsonl"),
        json_line(&step),
    );
    let observer: &dyn Observer = match mode.as_str() {
        "hooks" => &hooks,
        "floor" => &floor,
        "none" => &(),
        other => panic!("`{other}`: expected `none`, `hooks` or `floor`"),
    };
    for _ in 0..runs {
        let result = pollster::block_on(run_with_observed(
            &contract,
            &provider,
            &NullStore,
            &Policy::default(),
            &ApproveAll,
            observer,
        ))
        .expect("the run");
        assert_eq!(result.outcome.steps(), 100);
    }
}
