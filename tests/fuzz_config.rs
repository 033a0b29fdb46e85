//! The config loader over arbitrary bytes and over structured documents, in
//! every scope and with every profile: it loads or fails cleanly, never
//! panics, and a valid document loads exactly as written.
//!
//! This is the bounded, in-suite half of the fuzzing; the long half is
//! `cargo fuzz run config_bytes` / `config_doc` (see ROBUSTNESS.md),
//! which drives the same oracles in `fuzz_support`. `IO_FUZZ_CASES` raises
//! the case count here (default 64) for a longer run without cargo-fuzz.

mod fuzz_support;

use fuzz_support::Scratch;
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("IO_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

/// The checked-in seeds of a fuzz target, each file one input.
fn seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.expect("a seed").path();
            let bytes = std::fs::read(&path).expect("read a seed");
            (path.display().to_string(), bytes)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_config_seed_loads_or_fails_cleanly() {
    let scratch = Scratch::new();
    let seeds = seeds("config_bytes");
    assert!(seeds.len() >= 10, "the seeds are checked in");
    for (_, bytes) in seeds {
        scratch.check_config_bytes(&bytes);
    }
}

#[test]
fn every_document_seed_loads_as_its_model_says() {
    let scratch = Scratch::new();
    let seeds = seeds("config_doc");
    assert!(seeds.len() >= 5, "the seeds are checked in");
    let modelled: usize = seeds
        .iter()
        .map(|(_, bytes)| scratch.check_config_doc(bytes))
        .sum();
    assert!(modelled > 0, "some seed is a document the model predicts");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn arbitrary_bytes_in_every_scope(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        Scratch::new().check_config_bytes(&bytes);
    }

    #[test]
    fn structured_documents_in_every_scope(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let modelled = Scratch::new().check_config_doc(&bytes);
        if std::env::var_os("IO_FUZZ_SHOW").is_some() {
            eprintln!("modelled {modelled}");
        }
    }
}
