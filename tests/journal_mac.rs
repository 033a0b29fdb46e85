//! A journal `io` did not write is never acted on (issue 44, deliverable
//! 2): every record carries a MAC made with a key only this user's `io`
//! holds, checked before any record is used. A hand-written journal, one
//! changed, reordered or cut after it was written, one a submodule ships,
//! one sealed with another key: refused, and what its script would run
//! never runs; another key's journal resumes only once the operator adopts
//! it. The key's own file: made 0600, refused when others may read it.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;
mod run_support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use common::{git, output_within, prerequisite};
use run_support::{Env, begin, both, cancelled_run_of, text};
use serde_json::json;

/// Two steps: a file, then `touch ran` through `exec`, and the answer. A
/// run cancelled after its first step runs the `exec` when resumed.
const THEN_THE_MARKER: &str = r#"
goal = "a file, then the marker"
[[turn]]
calls = [{ tool = "write_file", args = { path = "a.txt", content = "a" } }]
[[turn]]
calls = [{ tool = "exec", args = { argv = ["/usr/bin/touch", "ran"] } }]
answer = "done"
"#;

/// Every turn runs `touch ran` through `exec`.
const EVERY_TURN_THE_MARKER: &str = r#"
goal = "planted"
[[turn]]
calls = [{ tool = "exec", args = { argv = ["/usr/bin/touch", "ran"] } }]
[[turn]]
calls = [{ tool = "exec", args = { argv = ["/usr/bin/touch", "ran"] } }]
answer = "done"
"#;

/// The marker the scripts' `exec` writes.
fn marker(env: &Env) -> PathBuf {
    env.root().join("ran")
}

/// A hand-written two-record journal of [`EVERY_TURN_THE_MARKER`]: its
/// `begin` (the script pinned in it, as `io` pins it) and a first step.
fn two_records(env: &Env) -> Vec<serde_json::Value> {
    let script = env.write("script.toml", EVERY_TURN_THE_MARKER);
    vec![
        begin(&env.root(), &script, json!({})),
        json!({"step": {"step": 1, "observation": "", "moved_the_workspace": false, "next_seq": 10}}),
    ]
}

/// `io args` with `data` as its data directory (another user's key, or
/// another machine's).
fn io_with_data(env: &Env, data: &Path, args: &[&str]) -> Output {
    let child = env
        .command(args)
        .env("IO_DATA_HOME", data)
        .spawn()
        .expect("io runs");
    output_within(child, Duration::from_secs(120), &format!("io {args:?}"))
}

/// `io run --resume run_id` is refused, exit 1, before anything ran: its
/// stderr names the journal, then `said`; the marker was never written.
fn resume_refused(env: &Env, out: &Output, run_id: &str, said: &str) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}: {}", both(out));
    let whole = format!("{}: refused: {said}", env.journal_path(run_id).display());
    assert!(stderr.contains(&whole), "{whole}\n{stderr}");
    assert!(!marker(env).exists(), "{said}: the journal's exec ran");
    assert!(text(&out.stdout).is_empty(), "{said}: {}", both(out));
}

/// What a refusal of a journal sealed by no `io` of the user's adds.
const ADOPT_HINT: &str = "If the run is yours (its journal copied from another machine, or \
                          begun by an `io` from before journals were sealed), add \
                          `--adopt-journal` to this command";

#[test]
fn a_hand_written_journal_is_refused_and_its_exec_never_runs() {
    let env = Env::new();
    env.plant_journal("r-planted", &two_records(&env));
    let out = env.io(&["run", "--resume", "r-planted"]);
    resume_refused(
        &env,
        &out,
        "r-planted",
        "the journal carries no MAC, so it is not one your `io` wrote",
    );
    assert!(text(&out.stderr).contains(ADOPT_HINT), "{}", both(&out));

    // A MAC of its writer's own: made with another key, or none that
    // verifies.
    let theirs = io_trust::Key::from_bytes([7; 32]);
    let mut chain = theirs.chain(b"r-planted");
    let lines: String = two_records(&env)
        .iter()
        .map(|r| run_support::sealed_line(&mut chain, r))
        .collect();
    env.write_journal("r-planted", &lines);
    let out = env.io(&["run", "--resume", "r-planted"]);
    resume_refused(
        &env,
        &out,
        "r-planted",
        "the journal's MAC does not verify with your key",
    );
    let zeros = lines.replace(&lines[8..72], &"0".repeat(64));
    env.write_journal("r-planted", &zeros);
    let out = env.io(&["run", "--resume", "r-planted"]);
    resume_refused(
        &env,
        &out,
        "r-planted",
        "the journal's MAC does not verify with your key",
    );
}

/// The lines of `run_id`'s journal, each with its newline.
fn lines_of(env: &Env, run_id: &str) -> Vec<String> {
    env.journal_text(run_id)
        .split_inclusive('\n')
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_journal_changed_after_io_wrote_it_is_refused() {
    let env = Env::new();
    let run_id = cancelled_run_of(&env, "", THEN_THE_MARKER);
    let written = env.journal_text(&run_id);
    let lines = lines_of(&env, &run_id);
    // Every line sealed: `{"mac":"<64 hex>",` then the record.
    for line in &lines {
        assert!(
            line.starts_with("{\"mac\":\"") && line.as_bytes()[72..74] == *b"\",",
            "{line}"
        );
        let record: serde_json::Value = serde_json::from_str(line).expect("one JSON object");
        assert_eq!(
            record.as_object().map(serde_json::Map::len),
            Some(2),
            "{line}"
        );
    }
    let step = lines
        .iter()
        .position(|l| l.contains("\"step\":{"))
        .expect("a step");
    assert!(step > 0);

    // One record changed: the step's observation.
    let mut changed = lines.clone();
    changed[step] = changed[step].replace("\"observation\":\"", "\"observation\":\"x");
    assert_ne!(changed[step], lines[step]);
    env.write_journal(&run_id, &changed.concat());
    let out = env.io(&["run", "--resume", &run_id]);
    resume_refused(
        &env,
        &out,
        &run_id,
        &format!(
            "line {} carries a MAC that does not verify with your key, though the lines before it \
             verify: a record was changed, moved, dropped or put in after your `io` wrote it",
            step + 1
        ),
    );
    assert!(!text(&out.stderr).contains(ADOPT_HINT), "{}", both(&out));
    // Its first record changed: the goal.
    let mut changed = lines.clone();
    changed[0] = changed[0].replace("a file, then the marker", "something else");
    env.write_journal(&run_id, &changed.concat());
    let out = env.io(&["run", "--resume", &run_id]);
    resume_refused(
        &env,
        &out,
        &run_id,
        "the journal's MAC does not verify with your key, so it is not one your `io` wrote as \
         it is: it was sealed with another key (on another machine, by another user's `io`, or \
         before your key was replaced), or changed since",
    );

    // As written, it resumes: the exec runs.
    env.write_journal(&run_id, &written);
    let out = env.io(&["run", "--resume", &run_id]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(marker(&env).exists(), "{}", both(&out));
}

#[test]
fn records_reordered_dropped_or_cut_in_the_middle_are_refused() {
    let env = Env::new();
    let run_id = cancelled_run_of(&env, "", THEN_THE_MARKER);
    let lines = lines_of(&env, &run_id);
    assert!(lines.len() >= 4, "{lines:?}");
    let refused_at = |journal: String, line: usize| {
        env.write_journal(&run_id, &journal);
        let out = env.io(&["run", "--resume", &run_id]);
        resume_refused(&env, &out, &run_id, &format!("line {line} "));
        // Its MAC does not verify, or the cut went through it.
        assert!(
            text(&out.stderr).contains(
                "though the lines before it verify: a record was changed, moved, dropped or put \
                 in after your `io` wrote it"
            ),
            "{}",
            both(&out)
        );
    };
    // Two records swapped.
    let mut swapped = lines.clone();
    swapped.swap(1, 2);
    refused_at(swapped.concat(), 2);
    // One dropped from the middle.
    let mut dropped = lines.clone();
    dropped.remove(1);
    refused_at(dropped.concat(), 2);
    // One cut in the middle, the lines after it kept.
    let mut cut = lines.clone();
    let half = cut[2].len() / 2;
    cut[2] = format!("{}\n", &cut[2][..half]);
    refused_at(cut.concat(), 3);
    // The last cut mid-record and given its newline back: a whole line
    // that is not what was sealed.
    let mut cut = lines.clone();
    let last = cut.len() - 1;
    let half = cut[last].len() / 2;
    cut[last] = format!("{}\n", &cut[last][..half]);
    refused_at(cut.concat(), lines.len());
    // A record put in from another of this user's journals.
    std::fs::remove_file(env.root().join("once")).expect("the hook fails once more");
    let other = cancelled_run_of(&env, "", THEN_THE_MARKER);
    let theirs = lines_of(&env, &other);
    let mut mixed = lines.clone();
    mixed[2] = theirs[2].clone();
    refused_at(mixed.concat(), 3);
}

#[test]
fn a_journal_a_submodule_ships_is_passed_over_by_io_runs_and_refused() {
    let env = Env::new();
    if !prerequisite("git", git(&env.root(), &["init", "-q"])) {
        return;
    }
    // The clone's `.io/runs` is a submodule, whose own repository holds a
    // journal: git lists no path inside it for the superproject.
    let runs = env.outside().join("runs");
    std::fs::create_dir(&runs).expect("runs");
    assert!(git(&runs, &["init", "-q"]));
    let records = two_records(&env);
    let text_of: String = records.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(runs.join("r-shipped.jsonl"), text_of).expect("journal");
    let identity = [
        "-c",
        "user.name=clone",
        "-c",
        "user.email=clone@example.com",
    ];
    assert!(git(&runs, &["add", "r-shipped.jsonl"]));
    assert!(git(
        &runs,
        &[&identity[..], &["commit", "-qm", "runs"]].concat()
    ));
    let url = runs.to_str().expect("utf-8");
    assert!(git(
        &env.root(),
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            url,
            ".io/runs"
        ]
    ));
    assert!(env.journal_path("r-shipped").is_file());
    // This user's own run, beside it, is listed.
    env.write("script.toml", THEN_THE_MARKER);
    let out = env.io(&["run", "script.toml"]);
    let own = run_support::run_id_in(&out);
    std::fs::remove_file(marker(&env)).expect("the own run's marker");

    let out = env.io(&["runs"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let listed = text(&out.stdout);
    assert!(listed.contains(&format!("  {own}  ")), "{listed}");
    assert!(!listed.contains("r-shipped"), "{listed}");
    assert!(!listed.contains("planted"), "{listed}");
    // The submodule's own index lists the journal (io reads the index of
    // every work tree that holds a file, the submodule's included): it came
    // with the clone, and is passed over before its MAC is looked at.
    assert!(
        listed.ends_with(
            "passed over 1 journal: 1 tracked by git (it came with the clone); `io run \
             --resume ID` says why for one\n"
        ),
        "{listed}"
    );
    let out = env.io(&["run", "--resume", "r-shipped"]);
    resume_refused(&env, &out, "r-shipped", "git tracks this journal");
}

#[test]
fn a_journal_sealed_with_another_key_resumes_only_once_adopted() {
    let env = Env::new();
    let run_id = cancelled_run_of(&env, "", THEN_THE_MARKER);
    let journal = env.journal_path(&run_id);
    let ours = env.data();
    // Another machine's io: another data directory, another key.
    let theirs = env.dir().join("another-machine");
    let out = io_with_data(&env, &theirs, &["run", "--resume", &run_id]);
    resume_refused(
        &env,
        &out,
        &run_id,
        "the journal's MAC does not verify with your key",
    );
    assert!(text(&out.stderr).contains(ADOPT_HINT), "{}", both(&out));
    let out = io_with_data(&env, &theirs, &["runs"]);
    assert!(
        text(&out.stdout).starts_with("no runs in ")
            && text(&out.stdout)
                .contains("passed over 1 journal: 1 not written by this user's io (no valid MAC)"),
        "{}",
        both(&out)
    );

    // Adopted: said first, then sealed with their key, and resumed.
    let out = io_with_data(
        &env,
        &theirs,
        &["run", "--resume", &run_id, "--adopt-journal"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(
        text(&out.stderr).contains(&format!(
            "\nio: adopted {}: no `io` of yours had sealed it; it is sealed with your key now, and \
             run {run_id} resumes after step 1 with the script its journal pinned, begun from \
             {}: a file, then the marker\n",
            journal.display(),
            env.root().join("script.toml").display()
        )),
        "{}",
        both(&out)
    );
    assert!(marker(&env).exists(), "the adopted run went on");
    assert!(
        text(&out.stdout).contains(&format!("run {run_id} completed after 2 steps: done")),
        "{}",
        both(&out)
    );
    assert_eq!(
        std::fs::metadata(&journal)
            .expect("journal")
            .permissions()
            .mode()
            & 0o7777,
        0o600
    );
    let names: Vec<_> = std::fs::read_dir(journal.parent().expect("runs"))
        .expect("runs")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.to_string_lossy().contains("adopting")),
        "{names:?}"
    );
    // Theirs now: it verifies with their key, and no longer with ours.
    let out = io_with_data(&env, &theirs, &["runs"]);
    assert!(
        text(&out.stdout).contains(&format!("  {run_id}  ")),
        "{}",
        both(&out)
    );
    let out = io_with_data(&env, &ours, &["runs"]);
    assert!(
        !text(&out.stdout).contains(&format!("  {run_id}  ")),
        "{}",
        both(&out)
    );
}

#[test]
fn a_hand_written_journal_the_operator_adopts_runs_and_nothing_else_is_loosened() {
    let env = Env::new();
    env.plant_journal("r-older", &two_records(&env));
    // The flag needs a resume.
    let out = env.io(&["run", "script.toml", "--adopt-journal"]);
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    assert!(!marker(&env).exists());

    // Others may write it: refused, adopted or not, and left as it was.
    let journal = env.journal_path("r-older");
    let before = env.journal_text("r-older");
    std::fs::set_permissions(&journal, std::fs::Permissions::from_mode(0o666)).expect("0666");
    let out = env.io(&["run", "--resume", "r-older", "--adopt-journal"]);
    resume_refused(
        &env,
        &out,
        "r-older",
        "the journal is writable by anyone (mode 666)",
    );
    assert_eq!(env.journal_text("r-older"), before);

    // Git tracks it: refused before it is read, adopted or not.
    std::fs::set_permissions(&journal, std::fs::Permissions::from_mode(0o600)).expect("0600");
    if prerequisite("git", git(&env.root(), &["init", "-q"])) {
        assert!(git(&env.root(), &["add", "-f", ".io/runs/r-older.jsonl"]));
        let out = env.io(&["run", "--resume", "r-older", "--adopt-journal"]);
        resume_refused(
            &env,
            &out,
            "r-older",
            "git tracks this journal, so it came with the clone",
        );
        assert_eq!(env.journal_text("r-older"), before);
        std::fs::remove_dir_all(env.root().join(".git")).expect("no git");
    }

    // Its own, written by an older io: adopted, it runs from its step.
    let out = env.io(&["run", "--resume", "r-older", "--adopt-journal"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(
        text(&out.stderr).contains("resumes after step 1 with the script its journal pinned"),
        "{}",
        both(&out)
    );
    assert!(marker(&env).exists(), "{}", both(&out));
    assert!(
        env.journal_text("r-older")
            .lines()
            .all(|l| l.starts_with("{\"mac\":\"")),
        "every record sealed"
    );
}

#[test]
fn a_journal_of_this_users_changed_after_it_was_written_is_not_adopted() {
    let env = Env::new();
    let run_id = cancelled_run_of(&env, "", THEN_THE_MARKER);
    let mut lines = lines_of(&env, &run_id);
    let last = lines.len() - 1;
    lines[last] = lines[last].replace("cancelled", "failed");
    env.write_journal(&run_id, &lines.concat());
    let out = env.io(&["run", "--resume", &run_id, "--adopt-journal"]);
    resume_refused(
        &env,
        &out,
        &run_id,
        &format!(
            "line {} carries a MAC that does not verify with your key, though the lines before it \
             verify",
            last + 1
        ),
    );
    assert_eq!(env.journal_text(&run_id), lines.concat(), "not re-sealed");
}

#[test]
fn the_key_is_made_0600_in_a_0700_directory_and_one_others_may_read_is_refused() {
    let env = Env::new();
    env.write("script.toml", THEN_THE_MARKER);
    let out = env.io(&["run", "script.toml"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let key = env.data().join("records.key");
    let mode = |p: &Path| std::fs::metadata(p).expect("mode").permissions().mode() & 0o7777;
    assert_eq!(mode(&key), 0o600);
    assert_eq!(mode(&env.data()), 0o700);
    assert_eq!(std::fs::read(&key).expect("key").len(), 32);
    let bytes = std::fs::read(&key).expect("key");

    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).expect("0644");
    let journals = std::fs::read_dir(env.root().join(".io/runs"))
        .expect("runs")
        .count();
    for args in [&["run", "script.toml"][..], &["runs"]] {
        let out = env.io(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", both(&out));
        let said = format!(
            "io: {}: refused: its group and others may read the key file (mode 644), so its key \
             may be known to them and proves nothing; remove it (a new key is made at the next \
             use, and what the old one sealed no longer verifies), or, if no one else can have \
             read it, make it yours alone (chmod 600)\n",
            key.display()
        );
        assert!(
            text(&out.stderr).ends_with(&said),
            "{args:?}: {}",
            both(&out)
        );
        assert!(text(&out.stdout).is_empty(), "{args:?}: {}", both(&out));
    }
    assert_eq!(
        std::fs::read_dir(env.root().join(".io/runs"))
            .expect("runs")
            .count(),
        journals,
        "no run started"
    );
    assert_eq!(std::fs::read(&key).expect("key"), bytes, "never replaced");
    assert_eq!(mode(&key), 0o644, "never changed");

    // No data directory at all: said, with the variables that name one.
    let child = env
        .command(&["run", "script.toml"])
        .env_remove("IO_DATA_HOME")
        .env_remove("XDG_DATA_HOME")
        .env_remove("HOME")
        .spawn()
        .expect("io runs");
    let out = output_within(child, Duration::from_secs(60), "io run");
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    assert!(
        text(&out.stderr).ends_with(
            "\nio: no data directory for the key that seals run journals: set IO_DATA_HOME (or \
             XDG_DATA_HOME, or HOME) to an absolute path\n"
        ),
        "{}",
        both(&out)
    );
}

/// The store itself, as an embedder holds it: a sealed store goes on from
/// a journal another store (another process) sealed, a store without a
/// key reads records as written, another key's store refuses them until it
/// adopts the journal, and then only that key's store reads it.
#[test]
fn a_sealed_store_goes_on_from_where_another_left_and_adopts_under_its_own_key() {
    use io_harness::run::{FileStore, Key, Record, SealFault, Store, StoreError};
    let dir = tempfile::tempdir().expect("tempdir");
    let runs = dir.path().join("runs");
    let ours = Key::from_bytes([3; 32]);
    let theirs = Key::from_bytes([4; 32]);
    let store = |key: &Key| FileStore::new(&runs).expect("store").sealed(key.clone());
    let reserve = |next_seq| Record::Reserve { next_seq };
    store(&ours).append("r-1", &reserve(1024)).expect("first");
    // A store that never saw the journal reads it to know where its chain is.
    store(&ours).append("r-1", &reserve(2048)).expect("second");
    let read = store(&ours).load("r-1").expect("verified").expect("there");
    assert_eq!(read, [reserve(1024), reserve(2048)]);
    let as_written = FileStore::new(&runs).expect("store").load("r-1");
    assert_eq!(
        as_written.expect("read").expect("there"),
        [reserve(1024), reserve(2048)]
    );
    match store(&theirs).load("r-1") {
        Err(StoreError::Unsealed {
            line: 1,
            fault: SealFault::Mismatch,
            ..
        }) => {}
        other => panic!("refused at line 1, not {other:?}"),
    }
    assert!(
        store(&theirs).append("r-1", &reserve(3072)).is_err(),
        "a journal this key did not seal is not written on"
    );
    let adopted = store(&theirs).adopt("r-1").expect("adopted");
    assert_eq!(adopted, Some(vec![reserve(1024), reserve(2048)]));
    assert_eq!(store(&theirs).adopt("r-1").expect("nothing to do"), None);
    assert_eq!(
        store(&theirs).load("r-1").expect("theirs").map(|r| r.len()),
        Some(2)
    );
    assert!(store(&ours).load("r-1").is_err(), "no longer ours");
    assert_eq!(store(&theirs).adopt("r-none").expect("no journal"), None);
    assert_eq!(
        FileStore::new(&runs)
            .expect("store")
            .adopt("r-1")
            .expect("no key"),
        None
    );
}
