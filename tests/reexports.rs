//! Every engine type `io_harness`'s API hands out or takes is named through
//! `io_harness` itself, so a caller needs no `io-hooks` dependency of its
//! own: this file names each one through `io_harness` alone.

use io_harness::{
    Action, Config, ConfigError, Cost, Effects, EventKind, HookFailure, HookFilter, Kind, Origin,
    Problem, ProcessError, SourceLine, Supervisor, TableErrorKind, UnknownEvent,
};

#[test]
fn the_engine_types_in_the_api_are_reachable_through_io_harness() {
    let token: Kind<EventKind> = EventKind::TOKEN;
    let cost: Cost = EventKind::frequency(token);
    assert_eq!(cost, Cost::PerItem);

    let unknown: UnknownEvent = HookFilter::<EventKind>::from_names(["stepp"]).unwrap_err();
    assert_eq!(unknown.suggestion, Some("step"));

    let supervisor: &Supervisor = io_harness::process_supervisor();
    assert_eq!(supervisor.in_flight(), 0);

    // A hook's failure carries the process runner's error, named through
    // `io_harness` (an action's own failure is read by its message).
    let failure = HookFailure::from(ProcessError::Exit { code: 3 });
    assert!(matches!(
        failure,
        HookFailure::Process(ProcessError::Exit { code: 3 })
    ));

    let e = Config::from_toml("model = 1\nx = ?\n").expect_err("not TOML");
    let ConfigError::Table(table) = &e else {
        panic!("a table error: {e}");
    };
    let kind: &TableErrorKind = table.kind();
    assert!(matches!(kind, TableErrorKind::Syntax(_)), "{kind:?}");
    let line: Option<&SourceLine> = e.source_line();
    assert_eq!(line.map(|l| l.line), Some(2));

    // A problem says its action, its message and its hint, named through
    // `io_harness`.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let specs = vec![
        io_harness::HookSpec::<EventKind>::new(HookFilter::ALL, Action::run(["no-such-x"])),
        io_harness::HookSpec::<EventKind>::new(HookFilter::ALL, Action::append(dir.path())),
    ];
    let problems = io_hooks::Hooks::check(&specs, dir.path());
    let problems: Vec<&Problem> = problems.iter().collect();
    assert_eq!(problems[0].action(), "run");
    assert!(
        problems[0]
            .message()
            .starts_with("`no-such-x` is not an executable file in any absolute `PATH` entry"),
        "{}",
        problems[0]
    );
    assert_eq!(problems[1].action(), "append");
    assert_eq!(
        problems[1].message(),
        format!("append: `{}` is a directory", dir.path().display())
    );
    assert!(problems[0].hint().is_some() && problems[1].hint().is_some());

    // Where a hook was written, named through `io_harness`.
    let spec = io_harness::HookSpec::<EventKind>::new(HookFilter::ALL, Action::run(["true"]))
        .with_origin(Origin::new(Some("io.local.toml"), "profile.ci.hook[1]"));
    let origin: Option<&Origin> = spec.origin.as_ref();
    assert_eq!(origin.map(Origin::key), Some("profile.ci.hook[1]"));

    let effects: Effects = Action::run(["true"]).effects();
    assert_eq!(effects, Effects::SPAWNS_PROCESS);
}
