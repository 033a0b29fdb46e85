//! The console excerpts of the documents are copies of real runs: what
//! their checks share (the blocks of a document, `io` run as a terminal
//! shows it, what changes from run to run written one way, and the excerpt
//! found in what was printed).

use std::ffi::OsStr;
use std::fs;
use std::path::Path;

use super::output_within;

/// The `console` blocks of `doc`, in order.
pub(crate) fn console_blocks(doc: &str) -> Vec<String> {
    let readme = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(doc)).expect(doc);
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in readme.lines() {
        match (&mut current, line) {
            (None, "```console") => current = Some(String::new()),
            (Some(block), "```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), line) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

/// What `io args…`, run in `dir` with `dir` as its user scope (unless
/// `vars` sets `IO_CONFIG_HOME`) and `vars` added, shows on a terminal: stdout and stderr through one pipe, in the order written
/// (`io`'s stdout is flushed at each line, its stderr at each write).
pub(crate) fn io_as_shown(dir: &Path, args: &[&str], vars: &[(&str, &OsStr)]) -> String {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let (mut reader, writer) = std::io::pipe().expect("pipe");
    let mut command = Command::new(env!("CARGO_BIN_EXE_io"));
    command
        .args(args)
        .current_dir(dir)
        .env("IO_CONFIG_HOME", dir)
        .env("IO_DATA_HOME", dir.join(".io-data"))
        .env_remove("RUST_LOG")
        .envs(vars.iter().copied())
        .stdin(Stdio::null())
        .stdout(writer.try_clone().expect("pipe"))
        .stderr(writer);
    let child = command.spawn().expect("io runs");
    // Our copies of the write end go with the command, so the reader sees
    // the end of the output when `io` (and anything holding it) is gone.
    drop(command);
    let read = std::thread::spawn(move || {
        let mut text = Vec::new();
        reader.read_to_end(&mut text).expect("read");
        text
    });
    output_within(
        child,
        std::time::Duration::from_secs(120),
        &format!("io {args:?}"),
    );
    String::from_utf8_lossy(&read.join().expect("the reader")).into_owned()
}

/// `text` with what changes from run to run written one way: run ids
/// (`r-` and 12 hex digits) as `r-ID`, `"at"` times as `T`, durations
/// (`1.3 ms`) as `N ms`.
pub(crate) fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let hex12 = |s: &str| s.len() >= 12 && s.as_bytes()[..12].iter().all(u8::is_ascii_hexdigit);
        if let Some(after) = rest.strip_prefix("r-").filter(|s| hex12(s)) {
            out.push_str("r-ID");
            rest = &after[12..];
        } else if let Some(after) = rest.strip_prefix("\"at\":\"") {
            out.push_str("\"at\":\"T\"");
            rest = after.split_once('"').map_or("", |(_, r)| r);
        } else if c.is_ascii_digit()
            && !out.ends_with(|p: char| p.is_ascii_alphanumeric() || p == '.')
        {
            let digits = rest
                .find(|d: char| !d.is_ascii_digit() && d != '.')
                .unwrap_or(rest.len());
            if rest[digits..].starts_with(" ms") && rest[..digits].contains('.') {
                out.push('N');
            } else {
                out.push_str(&rest[..digits]);
            }
            rest = &rest[digits..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Each run of `excerpt`'s lines between `…` lines (the `$ ` lines left
/// out) appears in `printed` as consecutive lines, the runs in order.
#[track_caller]
pub(crate) fn assert_excerpt(name: &str, excerpt: &str, printed: &str) {
    let printed: Vec<String> = normalise(printed).lines().map(str::to_owned).collect();
    let excerpt = normalise(excerpt);
    let mut from = 0;
    let mut runs = 0;
    for run in excerpt.split("…\n") {
        let lines: Vec<&str> = run.lines().filter(|l| !l.starts_with("$ ")).collect();
        if lines.is_empty() {
            continue;
        }
        let found = (from..=printed.len().saturating_sub(lines.len()))
            .find(|&at| lines.iter().enumerate().all(|(i, l)| printed[at + i] == *l));
        let Some(at) = found else {
            panic!(
                "block `{name}`: these lines are not in the real output (after line {from}):\n{}\n--- the real output:\n{}",
                lines.join("\n"),
                printed.join("\n")
            );
        };
        from = at + lines.len();
        runs += 1;
    }
    assert!(runs > 0, "{name}: an empty excerpt");
}
