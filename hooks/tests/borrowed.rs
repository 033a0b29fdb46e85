//! Events that borrow: an enum with a lifetime derives `HookEvents` and is
//! fired through `Hooks` with data that lives only for the call, from hooks
//! built once with the `'static` form of the enum.

use io_hooks::{Action, Flow, HookEvents, HookFilter, HookSpec, Hooks, Kind, TomlFile};
use serde::Serialize;

/// A build's events, borrowing the step's name and output from the caller.
#[derive(HookEvents, Serialize)]
#[serde(tag = "event")]
enum Build<'a> {
    #[serde(rename = "step")]
    Step { name: &'a str, output: &'a [u8] },
    #[serde(rename = "done")]
    Done,
}

/// Hooks built once, with `Build<'static>`: what an embedder keeps in a
/// struct for the life of the program.
fn hooks(dir: &std::path::Path) -> Hooks<Build<'static>> {
    let specs = TomlFile::new(
        "build.toml",
        "[[hook]]\non = [\"step\"]\nappend = \"steps.jsonl\"\n",
    )
    .hooks::<Build<'static>>(dir)
    .expect("the table is valid");
    Hooks::new(specs, dir)
}

/// Fires a step whose name and output are local to this function: the
/// event cannot be `'static`.
fn fire_local_step(hooks: &Hooks<Build<'static>>, n: u32) -> Flow {
    let name = format!("compile {n}");
    let output = vec![b'o', b'k'];
    let event = Build::Step {
        name: &name,
        output: &output,
    };
    hooks.fire_event(&event)
}

#[test]
fn a_borrowed_event_fires_through_hooks_built_for_its_static_form() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let hooks = hooks(dir.path());
    assert_eq!(fire_local_step(&hooks, 1), Flow::Continue);
    assert_eq!(hooks.fire_event(&Build::Done), Flow::Continue);
    let log = std::fs::read_to_string(dir.path().join("steps.jsonl")).expect("the log");
    assert_eq!(
        log,
        "{\"event\":\"step\",\"name\":\"compile 1\",\"output\":[111,107]}\n"
    );
}

#[test]
fn a_borrowed_event_fires_with_a_payload_of_its_own() {
    #[derive(Serialize)]
    struct Envelope<'a, 'e> {
        seq: u64,
        #[serde(flatten)]
        event: &'e Build<'a>,
    }
    let dir = tempfile::tempdir().expect("a temp dir");
    let hooks = Hooks::new(
        vec![HookSpec::new(
            HookFilter::<Build>::from_names(["step"]).expect("a known event"),
            Action::append(dir.path().join("steps.jsonl")),
        )],
        dir.path(),
    );
    let name = String::from("link");
    let event = Build::Step {
        name: &name,
        output: b"",
    };
    let payload = Envelope {
        seq: 7,
        event: &event,
    };
    assert_eq!(hooks.fire(&event, &payload), Flow::Continue);
    let log = std::fs::read_to_string(dir.path().join("steps.jsonl")).expect("the log");
    assert_eq!(
        log,
        "{\"seq\":7,\"event\":\"step\",\"name\":\"link\",\"output\":[]}\n"
    );
}

#[test]
fn a_borrowed_events_kinds_and_filters_need_no_static_data() {
    const STEP: Kind<Build<'static>> = Kind::named("step");
    let name = String::from("test");
    let event = Build::Step {
        name: &name,
        output: b"",
    };
    assert_eq!(event.kind().tag(), STEP.tag());
    assert!(HookFilter::only(STEP).contains(&event));
    assert_eq!(Build::TAGS, ["step", "done"]);
}
