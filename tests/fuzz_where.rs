//! `where` over arbitrary filters and payloads (issue 32): a filter decoded
//! from bytes loads against `EventKind`'s field table or is refused
//! cleanly, and one that loads matches arbitrary events without a panic
//! and without a slow match.
//!
//! This is the bounded, in-suite half; the long half is `cargo fuzz run
//! where_filter` (see ROBUSTNESS.md), which drives the same oracle in
//! `fuzz_support`. `IO_FUZZ_CASES` raises the case count here (default 64).

mod fuzz_support;

use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("IO_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

#[test]
fn every_where_seed_loads_or_is_refused_and_matches_cleanly() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/where_filter");
    let mut seeds: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| std::fs::read(e.expect("a seed").path()).expect("read a seed"))
        .collect();
    seeds.sort();
    assert!(seeds.len() >= 5, "the seeds are checked in");
    let matched: usize = seeds.iter().map(|s| fuzz_support::check_where(s)).sum();
    assert!(matched > 0, "some seed loads and matches an event");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn any_bytes_make_a_filter_that_loads_or_is_refused_and_matches_cleanly(
        bytes in proptest::collection::vec(any::<u8>(), 0..512)
    ) {
        fuzz_support::check_where(&bytes);
    }
}

/// Writes `fuzz/seeds/where_filter`: byte strings (from a fixed
/// generator) that decode to filters that load and match, and a few that
/// are refused. Run by hand: `cargo test --test fuzz_where -- --ignored`.
#[test]
#[ignore = "rewrites the checked-in seeds"]
fn write_where_seeds() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/where_filter");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("seeds dir");
    let mut state: u64 = 32;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        (state >> 33) as u8
    };
    let (mut matching, mut refused) = (0, 0);
    while matching < 12 || refused < 4 {
        let len = 64 + usize::from(next()) * 2;
        let bytes: Vec<u8> = (0..len).map(|_| next()).collect();
        let name = match fuzz_support::check_where(&bytes) {
            0 if refused < 4 => format!("refused-{refused}"),
            0 => continue,
            _ if matching < 12 => format!("matching-{matching:02}"),
            _ => continue,
        };
        if name.starts_with('r') {
            refused += 1;
        } else {
            matching += 1;
        }
        std::fs::write(dir.join(name), bytes).expect("a seed");
    }
}
