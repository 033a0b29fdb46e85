//! `io check`: load the config as a run would, and say what it does.

use std::path::Path;
use std::process::ExitCode;

use super::{CmdResult, describe, load, out};

pub(crate) fn check(root: Option<&Path>, profile: Option<&str>) -> CmdResult {
    let config = load(root, profile)?;
    let mut text = String::new();
    if config.sources().is_empty() {
        text.push_str("no config file found\n");
    } else {
        text.push_str("files read:\n");
        for source in config.sources() {
            let mark = if source.in_force() {
                "  <- hooks in force"
            } else {
                ""
            };
            text.push_str(&format!(
                "  {:7}  {}{mark}\n",
                source.scope().as_str(),
                source.path().display()
            ));
        }
    }
    if let Some(name) = config.profile() {
        text.push_str(&format!("profile: {name}\n"));
    }
    match config.hooks_in_force() {
        None => text.push_str("no hooks declared\n"),
        Some(in_force) => {
            let specs = config.hook_specs();
            text.push_str(&format!("{} hook(s), {in_force}:\n", specs.len()));
            for (i, spec) in specs.iter().enumerate() {
                text.push_str(&format!(
                    "  hook[{}]  {}\n",
                    i + 1,
                    describe(spec, config.root())
                ));
            }
        }
    }
    text.push_str("ok\n");
    out(&text)?;
    Ok(ExitCode::SUCCESS)
}
