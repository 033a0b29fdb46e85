#![no_main]
//! `where` filters decoded from the bytes, loaded against `EventKind`'s
//! field table and matched against events decoded from the rest (issue
//! 32). The oracle is the in-suite one: `tests/fuzz_support/mod.rs`.

#[path = "../../tests/fuzz_support/mod.rs"]
mod fuzz_support;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fuzz_support::check_where(data);
});
