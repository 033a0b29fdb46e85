//! Whose `ci.local.toml` it is: the runner asks `io_trust::judge`, the rule
//! io asks of its own local file, so a clone's committed file or an
//! archive's runs no hook unless the evidence (untracked in the operator's
//! work tree, theirs alone) or the operator's word on this very content
//! (`Ci::trust`) says it is theirs.

mod common;

use std::path::{Path, PathBuf};

use ci_runner::{Ci, ConfigError, OPERATOR_FILE, Outcome, PROJECT_FILE};
use common::{assert_own_words, data_dir, git, prerequisite, work_tree};
use io_trust::store::{ContentHash, Store};

/// A valid `ci.toml` with one pipeline, `check`.
const PROJECT: &str = "[[pipeline.check.job]]\nname = \"test\"\ncommands = [[\"true\"]]\n";

/// Every event to `events.jsonl`: the hook whose running the tests look for.
const LOG: &str = "[[hook]]\nappend = \"events.jsonl\"\n";

/// Writes `ci.toml` and `operator` as `ci.local.toml` in `dir`.
fn files(dir: &Path, operator: &str) {
    std::fs::write(dir.join(PROJECT_FILE), PROJECT).unwrap();
    std::fs::write(dir.join(OPERATOR_FILE), operator).unwrap();
}

/// Loads `dir` with the data directory `data` and runs `check`; whether
/// the `LOG` hook wrote its events.
fn hook_ran(dir: &Path, data: &Path) -> Result<bool, ConfigError> {
    let ci = Ci::load(dir, data)?;
    let report = ci.run("check").expect("`check` is declared");
    assert_eq!(report.outcome, Outcome::Passed, "{report:?}");
    assert_eq!(report.hook_failures, Vec::<String>::new());
    Ok(dir.join("events.jsonl").exists())
}

/// `dir`'s `ci.local.toml` by its directory's real path, as the store and
/// the index name it.
fn real(dir: &Path) -> PathBuf {
    std::fs::canonicalize(dir).unwrap()
}

#[test]
fn a_committed_ci_local_toml_is_refused_trusted_or_not_and_its_hook_never_runs() {
    let dir = tempfile::tempdir().unwrap();
    if !prerequisite("a usable git", git(dir.path(), &["init", "-q"])) {
        return;
    }
    files(dir.path(), LOG);
    assert!(git(dir.path(), &["add", "--", PROJECT_FILE, OPERATOR_FILE]));
    assert!(git(dir.path(), &["commit", "-q", "-m", "a clone's files"]));
    let (data, file, top) = (
        data_dir(dir.path()),
        dir.path().join(OPERATOR_FILE),
        real(dir.path()),
    );

    let e = Ci::load(dir.path(), &data).unwrap_err();
    assert!(
        matches!(&e, ConfigError::Tracked { key: Some(k), listed, .. }
            if k == "hook" && listed == Path::new(OPERATOR_FILE)),
        "{e}"
    );
    let untrack = format!(
        "Untrack it with `git -C {} rm --cached -- ci.local.toml` and list it in `.gitignore`.",
        top.display()
    );
    assert_eq!(
        e.to_string(),
        format!(
            "{}: key `hook`: this `ci.local.toml` is listed by the git index of the work tree \
             {}, so it arrives with a clone just as `ci.toml` does, and its hooks never run, \
             trusted or not. {untrack}",
            file.display(),
            top.display()
        )
    );
    assert_own_words(&e.to_string(), dir.path());

    // Trusting it is refused, and records nothing: it still does not load.
    let e = Ci::trust(dir.path(), &data).unwrap_err();
    assert!(matches!(&e, ConfigError::Tracked { key: None, .. }), "{e}");
    let message = e.to_string();
    assert!(
        message.starts_with(&format!(
            "{}: not trusted: this `ci.local.toml` is listed",
            file.display()
        )),
        "{message}"
    );
    assert!(message.ends_with(&untrack), "{message}");
    assert!(!data.exists(), "a refused trust made the data directory");
    assert!(matches!(
        Ci::load(dir.path(), &data),
        Err(ConfigError::Tracked { .. })
    ));
    assert!(
        !dir.path().join("events.jsonl").exists(),
        "the committed hook ran"
    );

    // The fix it prints, done: untracked in the operator's work tree, it is
    // theirs by evidence, with no trust asked.
    assert!(git(&top, &["rm", "-q", "--cached", "--", OPERATOR_FILE]));
    assert!(
        hook_ran(dir.path(), &data).unwrap(),
        "the untracked hook did not run"
    );
    assert!(
        !data.exists(),
        "the store was asked although the evidence sufficed"
    );
}

#[test]
fn an_archives_ci_local_toml_runs_only_once_trusted_and_not_after_an_edit() {
    let dir = tempfile::tempdir().unwrap(); // unpacked: no `.git` at or above it
    files(dir.path(), LOG);
    let (data, file) = (data_dir(dir.path()), dir.path().join(OPERATOR_FILE));
    let store = Store::new(&data).file();

    let e = Ci::load(dir.path(), &data).unwrap_err();
    assert!(
        matches!(&e, ConfigError::Untrusted { key, changed: false, .. } if key == "hook"),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        format!(
            "{}: key `hook`: this `ci.local.toml` is not known to be yours (no git work tree \
             holds it, and you have not trusted it), so its hooks are not loaded. Read it, then \
             trust it as it is now with the runner's `Ci::trust`, which records its content's \
             hash in {}; any later edit needs trusting again.",
            file.display(),
            store.display()
        )
    );
    assert_own_words(&e.to_string(), dir.path());
    assert!(!dir.path().join("events.jsonl").exists());

    // The operator read it, and trusts this content.
    let record = Ci::trust(dir.path(), &data).unwrap();
    assert_eq!(record.path, real(dir.path()).join(OPERATOR_FILE));
    assert_eq!(record.hash, ContentHash::of(LOG.as_bytes()));
    assert!(
        hook_ran(dir.path(), &data).unwrap(),
        "the trusted hook did not run"
    );

    // Edited since: refused again, saying why, and the new hook never runs.
    std::fs::remove_file(dir.path().join("events.jsonl")).unwrap();
    let edited = format!("{LOG}\n[[pipeline.check.hook]]\nrun = [\"touch\", \"edited\"]\n");
    std::fs::write(&file, &edited).unwrap();
    let e = Ci::load(dir.path(), &data).unwrap_err();
    assert!(
        matches!(&e, ConfigError::Untrusted { changed: true, .. }),
        "{e}"
    );
    let message = e.to_string();
    assert!(
        message.contains(
            "(no git work tree holds it, and it changed since you trusted it), so its hooks are \
             not loaded. Read what changed, then trust it again as it is now with the runner's \
             `Ci::trust`"
        ),
        "{message}"
    );
    assert_own_words(&message, dir.path());
    assert!(!dir.path().join("edited").exists());

    // Trusted again, the new content runs; taken back, it is refused.
    Ci::trust(dir.path(), &data).unwrap();
    assert!(hook_ran(dir.path(), &data).unwrap());
    assert!(
        dir.path().join("edited").exists(),
        "the edited hook did not run"
    );
    assert!(Store::new(&data).untrust(&file).unwrap().is_some());
    assert!(matches!(
        Ci::load(dir.path(), &data),
        Err(ConfigError::Untrusted { changed: false, .. })
    ));
}

#[test]
fn a_ci_local_toml_that_declares_no_hook_is_not_judged() {
    let dir = tempfile::tempdir().unwrap(); // no work tree: it would be refused
    files(dir.path(), "[pipeline.check]\n");
    let data = data_dir(dir.path());
    let ci = Ci::load(dir.path(), &data).unwrap();
    assert_eq!(ci.run("check").unwrap().outcome, Outcome::Passed);
    // A `hook` key, even an empty one, is judged.
    files(dir.path(), "hook = []\n");
    assert!(matches!(
        Ci::load(dir.path(), &data),
        Err(ConfigError::Untrusted { .. })
    ));
}

#[test]
fn a_ci_local_toml_another_user_owns_in_the_work_tree_needs_trust() {
    let dir = tempfile::tempdir().unwrap();
    work_tree(dir.path());
    files(dir.path(), LOG);
    let file = dir.path().join(OPERATOR_FILE);
    if let Err(e) = std::os::unix::fs::chown(&file, Some(65534), None) {
        eprintln!("SKIPPED, this test ran nothing: it needs root, to chown a file ({e})");
        return;
    }
    let data = data_dir(dir.path());
    let e = Ci::load(dir.path(), &data).unwrap_err();
    assert!(matches!(&e, ConfigError::Untrusted { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("(another user (uid 65534) owns it, not you"),
        "{e}"
    );
    assert!(!dir.path().join("events.jsonl").exists());
    Ci::trust(dir.path(), &data).unwrap();
    assert!(hook_ran(dir.path(), &data).unwrap());
}

#[test]
fn a_trust_store_others_may_write_is_never_read_and_says_so() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    files(dir.path(), LOG);
    let data = data_dir(dir.path());
    Ci::trust(dir.path(), &data).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o777)).unwrap();
    let e = Ci::load(dir.path(), &data).unwrap_err();
    assert!(matches!(&e, ConfigError::TrustStore { .. }), "{e}");
    let message = e.to_string();
    assert!(
        message.starts_with(&format!(
            "{}: the trust store {} is not read: ",
            dir.path().join(OPERATOR_FILE).display(),
            Store::new(&data).file().display()
        )),
        "{message}"
    );
    assert!(
        message.ends_with("make it writable by you alone (`chmod go-w`)"),
        "{message}"
    );
    assert!(!dir.path().join("events.jsonl").exists());
}
