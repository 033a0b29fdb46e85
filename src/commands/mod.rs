//! The `io` commands, one module each, as cargo's binary keeps one file
//! per command in its `commands` folder: each holds its clap `Args` (its
//! flags, its help) and an `exec` that takes them and returns the
//! command's exit code or the one paragraph `main` prints on stderr.

pub(crate) mod check;
pub(crate) mod completions;
pub(crate) mod demo;
pub(crate) mod events;
pub(crate) mod replay;
pub(crate) mod run;
pub(crate) mod runs;
pub(crate) mod schema;
pub(crate) mod trust;
