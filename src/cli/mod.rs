//! What every `io` command is built of, one job per module: a command's
//! result and the exit codes (`exit`); writing, and escaping what is
//! written (`output`); finding the discovery root (`discovery_root`);
//! loading the config (`load`); the hooks a command runs (`selection`);
//! the lines about hooks (`hook_report`); `-q`, `-v` and the log lines
//! (`log`); meeting a signal (`signals`); and where run journals and
//! their key are kept (`journals`). The commands are in
//! `commands/`.

pub(crate) mod discovery_root;
pub(crate) mod exit;
pub(crate) mod hook_report;
pub(crate) mod journals;
pub(crate) mod json_path;
pub(crate) mod load;
pub(crate) mod log;
pub(crate) mod output;
pub(crate) mod selection;
pub(crate) mod signals;
