//! `io completions`: the shell's completion script, and the answers `io`
//! gives it at each Tab (clap_complete's dynamic completion: the script
//! calls `COMPLETE=SHELL io -- <the words typed>`, and `io` prints the
//! candidates). The values completed from the current root (event tags,
//! profile names, hook names, run ids) are in `completions/candidates.rs`.

mod candidates;

use std::ffi::OsString;
use std::process::ExitCode;

use clap_complete::env::Shells;

use crate::cli::exit::{CmdResult, EXIT_USAGE};
use crate::cli::output::{err, out, safe_line};

pub(crate) use candidates::{events, hooks, profiles, run_ids};

/// The environment variable that makes `io` a completion request, as
/// clap_complete names it.
const VAR: &str = "COMPLETE";

/// Print the completion script for SHELL, to be sourced by it: Tab then
/// completes commands and flags, and the event tags, profile names, hook
/// names and run ids of the root you are in.
///
/// The script calls `io` back at each Tab (`COMPLETE=SHELL io -- …`, what
/// `COMPLETE=SHELL io` prints is the same script). That call runs no hook,
/// starts no program and writes no file; it offers names only from the
/// files `io` would load as yours.
#[derive(clap::Args)]
#[command(after_help = "\
Example (sourced at each shell start, so it always matches this io):
  echo 'source <(io completions bash)' >> ~/.bashrc
  echo 'source <(io completions zsh)' >> ~/.zshrc
  echo 'io completions fish | source' >> ~/.config/fish/config.fish
Or written once, where the shell loads completions from:
  io completions bash > ~/.local/share/bash-completion/completions/io")]
pub(crate) struct Args {
    /// The shell.
    shell: clap_complete::Shell,
}

/// Runs `io completions`: the registration script for the shell, naming
/// `io` as the program to complete and to call back.
///
/// Returns 0; an error when stdout cannot be written.
pub(crate) fn exec(args: &Args) -> CmdResult {
    let name = args.shell.to_string();
    let shells = Shells::builtins();
    let shell = shells.completer(&name).ok_or_else(|| {
        format!("io completions {name}: no dynamic completion for this shell in clap_complete")
    })?;
    let program = callback()?;
    let mut script = Vec::new();
    shell
        .write_registration(VAR, "io", "io", &program, &mut script)
        .map_err(|e| format!("could not write the completion script: {e}"))?;
    out(&String::from_utf8_lossy(&script)).map(|()| ExitCode::SUCCESS)
}

/// The program the script calls back, as clap_complete names it for
/// `COMPLETE=SHELL io`: `io` as it was run (found on `PATH` when typed
/// `io`), made absolute when it was run by a path with a directory in it.
///
/// # Errors
/// That path is not one word a shell reads bare
/// ([`shell_word`](io_hooks::text::shell_word)): clap_complete writes it
/// into bash's script inside double quotes, where a `$(…)` in a
/// directory's name (a clone's, say) would run at every Tab, and a quote
/// or a space would make the script call a program that is not there.
fn callback() -> Result<String, String> {
    let arg0 = std::env::args_os()
        .next()
        .unwrap_or_else(|| OsString::from("io"));
    let mut program = std::path::PathBuf::from(arg0);
    if program.components().count() > 1
        && let Ok(cwd) = std::env::current_dir()
    {
        program = cwd.join(program);
    }
    let program = program.to_string_lossy().into_owned();
    match io_hooks::text::shell_word(&program) {
        std::borrow::Cow::Borrowed(_) => Ok(program),
        std::borrow::Cow::Owned(quoted) => Err(format!(
            "no completion script written: this io is run as {}, which a shell reads only \
             quoted, and the script would name it unquoted; run io by a path of letters, digits \
             and `_@%+=:,./-` alone, or from PATH as `io`",
            safe_line(&quoted)
        )),
    }
}

/// Answers a shell's completion request when `io` was called as one, and
/// returns the exit code then; `None` for every other call, which runs as
/// typed.
///
/// A request is `COMPLETE` set to a shell's name (not empty, not `0`) and
/// either no argument at all (the registration script) or `--` first (the
/// words to complete). With any other command line the variable is
/// ignored: a `COMPLETE` left in an environment must not turn `io replay …
/// --expect` into a script printed and exit 0, a check that passed
/// without running.
///
/// A completion request is answered quietly: whatever fails (a config that
/// does not load, a journal that does not verify, a panic) is no candidate
/// and exit 1, and nothing reaches stderr, which is the operator's command
/// line as they type it.
pub(crate) fn answer(command: fn() -> clap::Command) -> Option<ExitCode> {
    let shell = std::env::var_os(VAR)?;
    if shell.is_empty() || shell == "0" {
        return None;
    }
    let args: Vec<OsString> = std::env::args_os().collect();
    let registration = args.len() == 1;
    if !registration && args.get(1).is_none_or(|a| a != "--") {
        return None;
    }
    if registration && let Err(refused) = callback() {
        err(&format!("io: {refused}\n"));
        return Some(ExitCode::FAILURE);
    }
    if !registration {
        std::panic::set_hook(Box::new(|_| {}));
    }
    let cwd = std::env::current_dir().ok();
    let answered = std::panic::catch_unwind(|| {
        clap_complete::CompleteEnv::with_factory(command)
            .var(VAR)
            .try_complete(args, cwd.as_deref())
    });
    Some(match answered {
        Ok(Ok(_)) => ExitCode::SUCCESS,
        Ok(Err(e)) if registration => {
            err(&format!(
                "io: {VAR}={}: {}\n",
                safe_line(&shell.to_string_lossy()),
                safe_line(e.to_string().trim().trim_start_matches("error: "))
            ));
            ExitCode::from(EXIT_USAGE)
        }
        _ => ExitCode::FAILURE,
    })
}
