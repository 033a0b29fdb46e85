#![no_main]
//! `RunEvent` lines as `io replay` reads them: one line at a time,
//! `serde_json::from_str::<RunEvent>`. The oracle is the in-suite one:
//! `tests/fuzz_support/mod.rs`.

#[path = "../../tests/fuzz_support/mod.rs"]
mod fuzz_support;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fuzz_support::check_event_lines(data);
});
