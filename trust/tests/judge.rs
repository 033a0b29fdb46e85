//! The one decision: whose file is this, by evidence or by the operator's
//! recorded word, with the reason in words.
#![cfg(unix)] // Unix owners, modes and links; Windows: tests/windows.rs.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use common::{commit, git, is_root, prerequisite, repo};
use io_trust::owner::Writer;
use io_trust::store::{Store, StoreError};
use io_trust::{Doubt, Evidence, Place, Rejection, Verdict, judge};

const CONTENT: &[u8] = b"[[hook]]\nrun = [\"true\"]\n";

fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// A store in a private data directory of its own.
fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    chmod(dir.path(), 0o700);
    let store = Store::new(dir.path().join("io"));
    (dir, store)
}

/// `dir/io.local.toml` holding [`CONTENT`], 0600, in a directory 0700.
fn local(dir: &Path) -> PathBuf {
    chmod(dir, 0o700);
    let file = dir.join("io.local.toml");
    fs::write(&file, CONTENT).unwrap();
    chmod(&file, 0o600);
    file
}

fn verdict(file: &Path, store: &Store) -> Verdict {
    judge(file, CONTENT, Place::Local, Some(store)).unwrap()
}

fn doubts(verdict: &Verdict) -> &[Doubt] {
    match verdict {
        Verdict::NotOperators(
            Rejection::NotTrusted { doubts, .. } | Rejection::NoStore { doubts },
        )
        | Verdict::Operators(Evidence::Trusted { doubts }) => doubts,
        other => panic!("no doubts: {other:?}"),
    }
}

#[test]
fn an_untracked_file_of_yours_in_a_work_tree_is_yours_without_asking() {
    let Some(dir) = repo() else { return };
    let file = local(dir.path());
    let (_data, store) = store();
    let got = verdict(&file, &store);
    assert!(got.is_operators(), "{got}");
    let work_tree = fs::canonicalize(dir.path()).unwrap();
    assert!(
        matches!(&got, Verdict::Operators(Evidence::Untracked { work_tree: w }) if *w == work_tree),
        "{got:?}"
    );
    assert_eq!(
        got.to_string(),
        format!(
            "the git index of the work tree {} does not list it, you own it, and no one else \
             may write it",
            work_tree.display()
        )
    );
    // The store was not needed, so it was not read: even a broken one.
    fs::create_dir_all(store.dir()).unwrap();
    chmod(store.dir(), 0o700);
    fs::write(store.file(), "broken\n").unwrap();
    assert!(verdict(&file, &store).is_operators());
    assert!(
        judge(&file, CONTENT, Place::Local, None)
            .unwrap()
            .is_operators()
    );
}

#[test]
fn a_tracked_file_is_refused_and_trusting_it_changes_nothing() {
    let Some(dir) = repo() else { return };
    let file = local(dir.path());
    commit(dir.path(), &["io.local.toml"]);
    let (_data, store) = store();
    store.trust(&file, CONTENT).unwrap();
    let got = verdict(&file, &store);
    assert!(!got.is_operators());
    assert!(!got.trust_would_help());
    assert!(!got.changed());
    assert_eq!(
        got.to_string(),
        format!(
            "the git index of the work tree {} lists it (as `io.local.toml`), so it came with \
             the clone",
            fs::canonicalize(dir.path()).unwrap().display()
        )
    );
}

#[test]
fn an_archive_without_a_work_tree_needs_the_operators_trust_of_this_content() {
    let dir = tempfile::tempdir().unwrap();
    let file = local(dir.path());
    let (_data, store) = store();
    let got = verdict(&file, &store);
    assert!(!got.is_operators());
    assert!(got.trust_would_help());
    assert!(matches!(doubts(&got), [Doubt::NoWorkTree]), "{got:?}");
    assert_eq!(
        got.to_string(),
        "no git work tree holds it, and you have not trusted it"
    );

    store.trust(&file, CONTENT).unwrap();
    let got = verdict(&file, &store);
    assert!(got.is_operators());
    assert_eq!(
        got.to_string(),
        "you trusted this content (no git work tree holds it)"
    );

    let edited = judge(&file, b"[[hook]]\n", Place::Local, Some(&store)).unwrap();
    assert!(!edited.is_operators());
    assert!(edited.changed());
    assert_eq!(
        edited.to_string(),
        "no git work tree holds it, and it changed since you trusted it"
    );

    // No store to ask: refused, saying so.
    let got = judge(&file, CONTENT, Place::Local, None).unwrap();
    assert!(matches!(
        got,
        Verdict::NotOperators(Rejection::NoStore { .. })
    ));
    assert!(got.trust_would_help());
    assert_eq!(
        got.to_string(),
        "no git work tree holds it, and there is no data directory to record your trust in"
    );
}

#[test]
fn an_index_that_cannot_be_read_is_a_doubt_that_trust_answers() {
    let Some(dir) = repo() else { return };
    let file = local(dir.path());
    fs::write(dir.path().join("other"), "x").unwrap();
    commit(dir.path(), &["other"]);
    let index = dir.path().join(".git/index");
    let mut bytes = fs::read(&index).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    fs::write(&index, bytes).unwrap();
    let (_data, store) = store();
    let got = verdict(&file, &store);
    assert!(matches!(doubts(&got), [Doubt::Index(_)]), "{got:?}");
    assert_eq!(
        got.to_string(),
        format!(
            "whether git tracks it cannot be told: the git index `{}` does not match its \
             checksum: it is damaged, or was cut short, and you have not trusted it",
            index.display()
        )
    );
    store.trust(&file, CONTENT).unwrap();
    assert!(verdict(&file, &store).is_operators());
}

#[test]
fn a_file_others_may_write_needs_trust_even_untracked_in_a_work_tree() {
    let Some(dir) = repo() else { return };
    let file = local(dir.path());
    let (_data, store) = store();
    chmod(dir.path(), 0o770);
    let got = verdict(&file, &store);
    let [Doubt::OthersMayWrite(others)] = doubts(&got) else {
        panic!("{got:?}")
    };
    assert_eq!(others.path, dir.path());
    assert!(matches!(others.how, Writer::Group { .. }));
    assert!(
        got.to_string().starts_with(&format!(
            "the directory {} above it may be written by its group",
            dir.path().display()
        )),
        "{got}"
    );
    store.trust(&file, CONTENT).unwrap();
    assert!(verdict(&file, &store).is_operators());

    chmod(dir.path(), 0o700);
    chmod(&file, 0o666);
    let other = tempfile::tempdir().unwrap();
    let fresh = Store::new(other.path().join("io"));
    assert!(matches!(
        doubts(&verdict(&file, &fresh)),
        [Doubt::OthersMayWrite(o)] if o.how == Writer::Anyone { mode: 0o666 }
    ));
}

#[test]
fn another_users_file_needs_trust_and_every_doubt_is_named() {
    if !prerequisite("root (to give a file to another user)", is_root()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = local(dir.path());
    rustix::fs::chown(&file, Some(rustix::fs::Uid::from_raw(65534)), None).unwrap();
    let (_data, store) = store();
    let got = verdict(&file, &store);
    assert_eq!(
        got.to_string(),
        "no git work tree holds it; another user (uid 65534) owns it, not you (uid 0), and \
         you have not trusted it"
    );
    assert_eq!(doubts(&got).len(), 2);
}

#[test]
fn the_user_scope_file_is_yours_by_where_it_lives_when_no_one_else_may_write_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = local(dir.path());
    let (_data, store) = store();
    let got = judge(&file, CONTENT, Place::UserScope, Some(&store)).unwrap();
    assert!(
        matches!(got, Verdict::Operators(Evidence::UserScope)),
        "{got:?}"
    );
    assert_eq!(
        got.to_string(),
        "it is in your own configuration directory, you own it, and no one else may write it"
    );
    // A git repository around it is not asked (a dotfiles repository that
    // tracks the operator's own config is theirs).
    if git(dir.path(), &["init", "-q"]) {
        commit(dir.path(), &["io.local.toml"]);
        assert!(
            judge(&file, CONTENT, Place::UserScope, None)
                .unwrap()
                .is_operators()
        );
    }
    chmod(&file, 0o664);
    let got = judge(&file, CONTENT, Place::UserScope, Some(&store)).unwrap();
    assert!(!got.is_operators());
    assert!(matches!(doubts(&got), [Doubt::OthersMayWrite(_)]));
}

#[test]
fn a_store_that_cannot_be_read_is_an_error_not_nothing_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let file = local(dir.path());
    let (_data, store) = store();
    fs::create_dir_all(store.dir()).unwrap();
    chmod(store.dir(), 0o700);
    fs::write(store.file(), "broken\n").unwrap();
    chmod(&store.file(), 0o600);
    let e = judge(&file, CONTENT, Place::Local, Some(&store)).unwrap_err();
    assert!(matches!(e, StoreError::Malformed { line: 1, .. }), "{e}");
}
