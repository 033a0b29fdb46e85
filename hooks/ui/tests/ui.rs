//! Compile-fail and pass cases for `#[derive(HookEvents)]`.
//!
//! `tests/ui/*.rs` must fail with exactly the checked-in `.stderr`;
//! `tests/ui-pass/*.rs` must compile and run. Regenerate the `.stderr` files
//! with `TRYBUILD=overwrite cargo test -p io-hooks-ui`, then read each one.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui-pass/*.rs");
}
