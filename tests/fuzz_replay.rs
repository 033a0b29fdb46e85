//! `RunEvent` deserialisation as `io replay` reads a recording, one JSON line
//! at a time: arbitrary bytes never panic, and a line that parses round-trips.
//!
//! The bounded, in-suite half; the long half is
//! `cargo fuzz run run_event_line` (ROBUSTNESS.md), with the same oracle.

mod fuzz_support;

use io_harness::RunEvent;
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("IO_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

#[test]
fn every_event_seed_parses_or_fails_cleanly() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/run_event_line");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        fuzz_support::check_event_lines(&bytes);
        n += 1;
    }
    assert!(n >= 27, "one seed per event kind at least");
}

#[test]
fn every_sample_event_round_trips() {
    for event in fuzz_support::sample_events() {
        let line = serde_json::to_string(&event).unwrap();
        assert_eq!(serde_json::from_str::<RunEvent>(&line).unwrap(), event);
        assert_eq!(fuzz_support::check_event_lines(line.as_bytes()), 1);
    }
}

#[test]
fn deep_nesting_is_refused_not_a_stack_overflow() {
    // serde_json's recursion limit (128) holds through `#[serde(flatten)]`,
    // which buffers the payload before `EventKind` sees it: the event
    // object is one level, so `args` may nest 126 deep and no deeper.
    let line = |depth: usize| {
        format!(
            "{{\"event\":\"tool_call\",\"run_id\":\"r\",\"depth\":0,\"step\":1,\"tool\":\"t\",\"args\":{}{}}}",
            "[".repeat(depth),
            "]".repeat(depth)
        )
    };
    for depth in [1, 126] {
        let got = serde_json::from_str::<RunEvent>(&line(depth));
        assert!(got.is_ok(), "{depth} deep is within the limit: {got:?}");
    }
    for depth in [127, 128, 129, 10_000, 1_000_000] {
        match serde_json::from_str::<RunEvent>(&line(depth)) {
            Ok(_) => panic!("{depth} deep was accepted"),
            Err(e) => assert!(
                e.to_string().starts_with("recursion limit exceeded"),
                "{depth} deep: refused for another reason: {e}"
            ),
        }
    }
}

/// Rewrites `fuzz/seeds/run_event_line/` from [`fuzz_support::sample_events`]
/// plus a few broken lines: `cargo test --test fuzz_replay -- --ignored
/// write_event_seeds`.
#[test]
#[ignore = "rewrites the checked-in seeds"]
fn write_event_seeds() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/run_event_line");
    std::fs::create_dir_all(&dir).unwrap();
    let mut all = String::new();
    for event in fuzz_support::sample_events() {
        let line = serde_json::to_string(&event).unwrap();
        std::fs::write(
            dir.join(format!("{}.jsonl", event.tag())),
            format!("{line}\n"),
        )
        .unwrap();
        all.push_str(&line);
        all.push('\n');
    }
    std::fs::write(dir.join("recording.jsonl"), &all).unwrap();
    let broken = [
        ("torn", "{\"event\":\"step\",\"step\":1,\"moved_the_wo"),
        ("no-tag", "{\"run_id\":\"r\",\"depth\":0}"),
        (
            "unknown-tag",
            "{\"event\":\"stepp\",\"run_id\":\"r\",\"depth\":0}",
        ),
        (
            "tag-twice",
            "{\"event\":\"step\",\"event\":\"token\",\"step\":1,\"moved_the_workspace\":true,\"run_id\":\"r\",\"depth\":0}",
        ),
        (
            "negative-depth",
            "{\"event\":\"finished\",\"outcome\":\"completed\",\"steps\":1,\"run_id\":\"r\",\"depth\":-1}",
        ),
        (
            "huge-number",
            "{\"event\":\"spend_draw\",\"step\":1,\"tokens\":1e400,\"remaining\":0,\"run_id\":\"r\",\"depth\":0}",
        ),
        (
            "deep-args",
            &format!(
                "{{\"event\":\"tool_call\",\"step\":1,\"tool\":\"t\",\"args\":{}{},\"run_id\":\"r\",\"depth\":0}}",
                "[".repeat(200),
                "]".repeat(200)
            ),
        ),
        (
            "lone-surrogate",
            "{\"event\":\"token\",\"step\":1,\"text\":\"\\ud800\",\"run_id\":\"r\",\"depth\":0}",
        ),
        (
            "extra-field",
            "{\"event\":\"step\",\"step\":1,\"moved_the_workspace\":true,\"run_id\":\"r\",\"depth\":0,\"x\":{}}",
        ),
    ];
    for (name, line) in broken {
        std::fs::write(
            dir.join(format!("broken-{name}.jsonl")),
            format!("{line}\n"),
        )
        .unwrap();
    }
}

/// A line built from pieces of real events, so that most cases get past the
/// first byte.
fn event_ish() -> impl Strategy<Value = String> {
    let lines: Vec<String> = fuzz_support::sample_events()
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect();
    (
        prop::sample::select(lines),
        any::<usize>(),
        any::<usize>(),
        "[ -~]{0,12}",
    )
        .prop_map(|(line, at, cut, insert)| {
            let at = line
                .char_indices()
                .map(|(i, _)| i)
                .nth(at % line.len())
                .unwrap_or(0);
            let cut = (at + cut % 8).min(line.len());
            let cut = (cut..=line.len())
                .find(|&i| line.is_char_boundary(i))
                .unwrap_or(line.len());
            format!("{}{}{}", &line[..at], insert, &line[cut..])
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        fuzz_support::check_event_lines(&bytes);
    }

    #[test]
    fn mutated_events_never_panic(lines in prop::collection::vec(event_ish(), 1..8)) {
        fuzz_support::check_event_lines(lines.join("\n").as_bytes());
    }
}
