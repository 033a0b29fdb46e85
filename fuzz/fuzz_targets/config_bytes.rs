#![no_main]
//! `Config` over arbitrary bytes, as the user, project and
//! local file and as `Config::from_toml` text. The oracle is the one the
//! in-suite proptests use: `tests/fuzz_support/mod.rs`.

#[path = "../../tests/fuzz_support/mod.rs"]
mod fuzz_support;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

static SCRATCH: OnceLock<fuzz_support::Scratch> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    // Under fuzz/target (ignored), emptied at each start: nothing is left
    // in the system temp dir.
    let scratch = SCRATCH.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target/scratch")
            .join(env!("CARGO_BIN_NAME"));
        fuzz_support::Scratch::in_dir(&dir)
    });
    scratch.check_config_bytes(data);
});
