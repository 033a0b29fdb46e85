//! `io completions`: the shell's completion script, from clap's own
//! generator, which knows every flag.

use std::process::ExitCode;

use crate::cli::exit::CmdResult;
use crate::cli::output::out;

/// Print a completion script for SHELL, to be sourced by it.
#[derive(clap::Args)]
#[command(after_help = "\
Example:
  io completions bash > ~/.local/share/bash-completion/completions/io
  io completions zsh > ~/.zfunc/_io        # with fpath+=(~/.zfunc) before compinit
  io completions fish > ~/.config/fish/completions/io.fish")]
pub(crate) struct Args {
    /// The shell.
    shell: clap_complete::Shell,
}

/// Runs `io completions` for `io`'s whole command line, `command`.
///
/// Returns 0; an error when stdout cannot be written.
pub(crate) fn exec(args: &Args, mut command: clap::Command) -> CmdResult {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "io", &mut script);
    out(&String::from_utf8_lossy(&script)).map(|()| ExitCode::SUCCESS)
}
