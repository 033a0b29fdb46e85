//! No code: the compile-fail and pass cases for `#[derive(HookEvents)]` are in `tests/`.
