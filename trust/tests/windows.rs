//! io-trust on Windows (issue 47): the rule for whose file it is, the
//! trust store and the git index, on real files (under wine in CI,
//! `.ci/windows`). What wine cannot show (a DACL that is set, so a file
//! others may write) is judged in the unit tests, on the security a handle
//! would give.
#![cfg(windows)]

use std::fs;
use std::path::Path;

use io_trust::index::{Tracking, tracking};
use io_trust::owner::{Writer, others_may_write, others_may_write_dir};
use io_trust::store::{Lookup, Store};
use io_trust::{Place, Verdict, judge};

#[test]
fn a_file_of_yours_in_a_directory_of_yours_is_no_one_elses() {
    let dir = tempfile::tempdir().expect("a directory");
    let file = dir.path().join("io.local.toml");
    fs::write(&file, "").expect("written");
    assert_eq!(others_may_write(&file), None);
    assert_eq!(others_may_write_dir(dir.path()), None);
    // Given with `/` between its names, or its directory in another case:
    // the same answer.
    let slashed = file.to_str().expect("Unicode").replace('\\', "/");
    assert_eq!(others_may_write(Path::new(&slashed)), None);
}

#[test]
fn a_file_that_cannot_be_looked_at_is_not_taken_for_safe() {
    let dir = tempfile::tempdir().expect("a directory");
    let gone = dir.path().join("gone.toml");
    let why = others_may_write(&gone).expect("not safe");
    assert!(why.is_file);
    assert!(matches!(why.how, Writer::Unknown { .. }), "{why:?}");
    assert!(
        why.to_string()
            .starts_with("who may write it cannot be told"),
        "{why}"
    );
    let why = others_may_write_dir(&gone).expect("not safe");
    assert!(!why.is_file && matches!(why.how, Writer::Unknown { .. }));
}

#[test]
fn the_store_trusts_looks_up_and_untrusts_by_the_real_path() {
    let data = tempfile::tempdir().expect("data");
    let project = tempfile::tempdir().expect("project");
    let file = project.path().join("io.local.toml");
    fs::write(&file, "[[hook]]\n").expect("written");
    let store = Store::new(data.path().join("io"));
    assert_eq!(
        store.lookup(&file, b"[[hook]]\n").expect("looked up"),
        Lookup::Unknown
    );
    let record = store.trust(&file, b"[[hook]]\n").expect("trusted");
    assert!(record.path.is_absolute(), "{record:?}");
    assert_eq!(record.path.file_name(), file.file_name());
    // The directory made for it is no one else's.
    assert_eq!(others_may_write_dir(store.dir()), None);
    assert_eq!(
        store.lookup(&file, b"[[hook]]\n").expect("looked up"),
        Lookup::Trusted
    );
    // Reached with `/` between names, or through its directory in another
    // case (Windows folds case), it is the same record.
    let slashed = file.to_str().expect("Unicode").replace('\\', "/");
    assert_eq!(
        store
            .lookup(Path::new(&slashed), b"[[hook]]\n")
            .expect("looked up"),
        Lookup::Trusted
    );
    let upper = project.path().to_str().expect("Unicode").to_uppercase();
    let upper = Path::new(&upper).join("io.local.toml");
    assert_eq!(
        store.lookup(&upper, b"[[hook]]\n").expect("looked up"),
        Lookup::Trusted
    );
    assert!(matches!(
        store.lookup(&file, b"changed").expect("looked up"),
        Lookup::Changed { .. }
    ));
    // Written whole: read back by a store of its own.
    let again = Store::new(store.dir());
    assert_eq!(again.list().expect("listed"), vec![record.clone()]);
    assert_eq!(store.untrust(&file).expect("untrusted"), Some(record));
    assert!(store.list().expect("listed").is_empty());
    // The lock is a sidecar file; the store itself is never locked.
    assert!(store.dir().join("trusted-files.lock").exists());
}

/// What `git init` makes, by hand: git is not run under wine.
fn work_tree(dir: &Path) {
    for sub in [".git/objects", ".git/refs"] {
        fs::create_dir_all(dir.join(sub)).expect("made");
    }
    fs::write(dir.join(".git/HEAD"), "ref: refs/heads/main\n").expect("written");
}

/// A version 2 index listing `names` (sorted), with its SHA-1.
fn index(names: &[&str]) -> Vec<u8> {
    use sha1::Digest;
    let mut body = b"DIRC".to_vec();
    body.extend(2u32.to_be_bytes());
    body.extend((names.len() as u32).to_be_bytes());
    for name in names {
        let start = body.len();
        let mut stat = [0u8; 40];
        stat[24..28].copy_from_slice(&0o100644u32.to_be_bytes());
        body.extend(stat);
        body.extend([0u8; 20]);
        body.extend((name.len() as u16).to_be_bytes());
        body.extend(name.as_bytes());
        let size = (62 + name.len() + 8) & !7;
        body.resize(start + size, 0);
    }
    let sum = sha1::Sha1::digest(&body);
    body.extend_from_slice(&sum);
    body
}

#[test]
fn the_index_lists_slash_separated_paths_and_windows_paths_match_them() {
    let top = tempfile::tempdir().expect("a work tree");
    work_tree(top.path());
    fs::write(top.path().join(".git/index"), index(&["sub/io.local.toml"])).expect("index");
    fs::create_dir(top.path().join("sub")).expect("sub");
    let listed = top.path().join("sub").join("io.local.toml");
    fs::write(&listed, "").expect("written");
    let mine = top.path().join("sub").join("mine.toml");
    fs::write(&mine, "").expect("written");
    let tracked = |t: Tracking| matches!(t, Tracking::Tracked { ref listed, .. } if listed == Path::new("sub/io.local.toml") || listed == Path::new("sub\\io.local.toml"));
    let t = tracking(&listed).expect("read");
    assert!(tracked(t.clone()), "{t:?}");
    // `/` between names, as a caller may give it.
    let slashed = listed.to_str().expect("Unicode").replace('\\', "/");
    let t = tracking(Path::new(&slashed)).expect("read");
    assert!(tracked(t.clone()), "{t:?}");
    // In another case: the same file on a file system that folds case.
    let upper = top.path().join("SUB").join("IO.LOCAL.TOML");
    let t = tracking(&upper).expect("read");
    assert!(
        matches!(&t, Tracking::Tracked { listed, .. } if listed == Path::new("sub/io.local.toml")),
        "{t:?}"
    );
    assert!(matches!(
        tracking(&mine).expect("read"),
        Tracking::Untracked { .. }
    ));
}

#[test]
fn an_unpacked_archive_needs_the_operators_trust_and_then_has_it() {
    let project = tempfile::tempdir().expect("project");
    let data = tempfile::tempdir().expect("data");
    let file = project.path().join("app.local.toml");
    let content = b"[[hook]]\nrun = [\"notify\"]\n";
    fs::write(&file, content).expect("written");
    let store = Store::new(data.path().join("app"));
    let verdict = judge(&file, content, Place::Local, Some(&store)).expect("judged");
    assert!(!verdict.is_operators(), "{verdict}");
    store.trust(&file, content).expect("trusted");
    let verdict = judge(&file, content, Place::Local, Some(&store)).expect("judged");
    assert!(matches!(verdict, Verdict::Operators(_)), "{verdict}");
}
