//! The trust store: its format on disk, its modes, and every way it
//! refuses to be read rather than say "nothing trusted".
#![cfg(unix)] // Unix owners, modes and links; Windows: tests/windows.rs.

mod common;

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use io_trust::owner::Writer;
use io_trust::store::{ContentHash, Lookup, MAX_STORE, Store, StoreError, Trusted};

fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// A data directory (`data/io`, not made yet) in a private temp dir, and a
/// project directory beside it.
fn dirs() -> (tempfile::TempDir, Store, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    chmod(dir.path(), 0o700);
    let project = dir.path().join("project");
    fs::create_dir(&project).unwrap();
    let store = Store::new(dir.path().join("data/io"));
    (dir, store, project)
}

#[test]
fn no_store_trusts_nothing_and_trusting_makes_it_private() {
    let (_dir, store, project) = dirs();
    let file = project.join("io.local.toml");
    assert!(store.list().unwrap().is_empty());
    assert_eq!(store.lookup(&file, b"x").unwrap(), Lookup::Unknown);
    assert_eq!(store.untrust(&file).unwrap(), None);
    assert!(
        !store.dir().exists(),
        "untrusting nothing made the directory"
    );

    let record = store.trust(&file, b"x").unwrap();
    assert_eq!(
        record,
        Trusted {
            path: fs::canonicalize(&project).unwrap().join("io.local.toml"),
            hash: ContentHash::of(b"x"),
        }
    );
    assert_eq!(fs::metadata(store.dir()).unwrap().mode() & 0o777, 0o700);
    assert_eq!(
        fs::metadata(store.dir().parent().unwrap()).unwrap().mode() & 0o777,
        0o700
    );
    assert_eq!(fs::metadata(store.file()).unwrap().mode() & 0o777, 0o600);
    assert_eq!(store.lookup(&file, b"x").unwrap(), Lookup::Trusted);
    assert_eq!(
        store.lookup(&file, b"y").unwrap(),
        Lookup::Changed {
            trusted: ContentHash::of(b"x")
        }
    );
    // Trusting again replaces the hash; the record stays one.
    store.trust(&file, b"y").unwrap();
    assert_eq!(store.list().unwrap().len(), 1);
    assert_eq!(store.lookup(&file, b"y").unwrap(), Lookup::Trusted);
    assert_eq!(
        store.untrust(&file).unwrap().unwrap().hash,
        ContentHash::of(b"y")
    );
    assert_eq!(store.lookup(&file, b"y").unwrap(), Lookup::Unknown);
    assert!(store.list().unwrap().is_empty());
}

#[test]
fn the_store_is_one_line_a_record_with_awkward_names_escaped() {
    let (_dir, store, project) = dirs();
    let odd = project.join("a%b\nc\td\u{7f}é.toml");
    let plain = project.join("io.local.toml");
    store.trust(&plain, b"one").unwrap();
    store.trust(&odd, b"two").unwrap();
    let real = fs::canonicalize(&project).unwrap();
    let text = fs::read(store.file()).unwrap();
    let want = format!(
        "io-trust store, version 1\n{}  {}/a%25b%0Ac%09d%7Fé.toml\n{}  {}/io.local.toml\n",
        ContentHash::of(b"two"),
        real.display(),
        ContentHash::of(b"one"),
        real.display()
    );
    assert_eq!(String::from_utf8(text).unwrap(), want);
    assert_eq!(
        ContentHash::of(b"one").to_string(),
        "7692c3ad3540bb803c020b3aee66cd8887123234ea0c6e7143c0add73ff431ed"
    );
    let listed: Vec<PathBuf> = store.list().unwrap().into_iter().map(|r| r.path).collect();
    assert_eq!(
        listed,
        vec![
            real.join("a%b\nc\td\u{7f}é.toml"),
            real.join("io.local.toml")
        ]
    );
    assert_eq!(store.lookup(&odd, b"two").unwrap(), Lookup::Trusted);
}

#[test]
fn a_path_reached_through_a_link_is_the_same_record() {
    let (dir, store, project) = dirs();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&project, &link).unwrap();
    store.trust(&link.join("io.local.toml"), b"x").unwrap();
    assert_eq!(
        store.lookup(&project.join("io.local.toml"), b"x").unwrap(),
        Lookup::Trusted
    );
    let e = store
        .lookup(&dir.path().join("gone/io.local.toml"), b"x")
        .unwrap_err();
    assert!(matches!(e, StoreError::Resolve { .. }), "{e}");
}

/// Writes `text` as the store (its directory made private first).
fn planted(store: &Store, text: &[u8]) {
    fs::create_dir_all(store.dir()).unwrap();
    chmod(store.dir(), 0o700);
    fs::write(store.file(), text).unwrap();
    chmod(&store.file(), 0o600);
}

/// Stores that do not parse, each with the line and what is said of it.
fn unparsable() -> Vec<(String, usize, &'static str)> {
    let hash = ContentHash::of(b"x").to_string();
    let head = "io-trust store, version 1";
    let header = "is not the store's header (`io-trust store, version 1`)";
    let percent = "has a `%` that is not `%XX`";
    let absolute = "does not name an absolute path";
    vec![
        ("nonsense\n".into(), 1, header),
        ("io-trust store, version 2\n".into(), 1, header),
        (head.into(), 1, "is not ended"),
        (format!("{head}\n{hash}  /a\n{hash}  /b"), 3, "is not ended"),
        (format!("{head}\nshort\n"), 2, "is shorter than a hash"),
        (
            format!("{head}\n{}  /a\n", hash.to_uppercase()),
            2,
            "does not start with a SHA-256 in hexadecimal",
        ),
        (
            format!("{head}\n{hash} /a\n"),
            2,
            "has no two spaces after its hash",
        ),
        (format!("{head}\n{hash}  relative\n"), 2, absolute),
        (format!("{head}\n{hash}  /a%00b\n"), 2, absolute),
        (format!("{head}\n{hash}  /a%zz\n"), 2, percent),
        (format!("{head}\n{hash}  /a%4\n"), 2, percent),
        (
            format!("{head}\n{hash}  /a\n{hash}  /a\n"),
            3,
            "names a file an earlier line names",
        ),
        (
            format!("{head}\n{hash}  /a\n\n"),
            3,
            "is shorter than a hash",
        ),
    ]
}

#[test]
fn a_store_that_does_not_parse_is_an_error_naming_the_file_and_line() {
    let (_dir, store, project) = dirs();
    let cases = unparsable();
    for (text, line, what) in cases {
        planted(&store, text.as_bytes());
        let e = store.lookup(&project.join("f"), b"x").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "the trust store {} is not read: line {line} {what}; remove that line, or the \
                 file to start again with nothing trusted",
                store.file().display()
            ),
            "{text:?}"
        );
        // Nor is it written over: the operator's file stays as it is.
        assert!(store.trust(&project.join("f"), b"x").is_err());
        assert_eq!(fs::read(store.file()).unwrap(), text.as_bytes());
    }
    // An empty file is an empty store.
    planted(&store, b"");
    assert!(store.list().unwrap().is_empty());
}

#[test]
fn a_store_others_may_write_is_not_read() {
    let (_dir, store, project) = dirs();
    store.trust(&project.join("f"), b"x").unwrap();
    chmod(&store.file(), 0o620);
    let e = store.list().unwrap_err();
    let StoreError::Exposed { file, why } = &e else {
        panic!("{e}")
    };
    assert_eq!(file, &store.file());
    assert!(matches!(why.how, Writer::Group { .. }), "{e}");
    assert!(
        e.to_string().starts_with(&format!(
            "the trust store {} is not read: it may be written by its group",
            store.file().display()
        )),
        "{e}"
    );
    assert!(store.trust(&project.join("f"), b"x").is_err());
    chmod(&store.file(), 0o600);
    chmod(store.dir(), 0o777);
    assert!(matches!(store.list(), Err(StoreError::Exposed { .. })));
    assert!(matches!(
        store.trust(&project.join("f"), b"x"),
        Err(StoreError::Exposed { .. })
    ));
    // With no store file yet, the directory alone is judged.
    fs::remove_file(store.file()).unwrap();
    assert!(matches!(store.list(), Err(StoreError::Exposed { .. })));
}

#[test]
fn a_store_too_large_or_reached_through_a_link_is_not_read() {
    let (dir, store, project) = dirs();
    let mut big = b"io-trust store, version 1\n".to_vec();
    big.resize(MAX_STORE as usize + 1, b'a');
    planted(&store, &big);
    let e = store.list().unwrap_err();
    assert!(matches!(e, StoreError::TooLarge { .. }), "{e}");
    assert!(e.to_string().contains("larger than 4 MiB"), "{e}");

    // A link in the store's place, even to a good store, is not followed.
    let elsewhere = dir.path().join("elsewhere");
    fs::write(&elsewhere, "io-trust store, version 1\n").unwrap();
    chmod(&elsewhere, 0o600);
    fs::remove_file(store.file()).unwrap();
    std::os::unix::fs::symlink(&elsewhere, store.file()).unwrap();
    assert!(
        matches!(store.list(), Err(StoreError::Io { .. })),
        "{:?}",
        store.list()
    );
    assert!(store.trust(&project.join("f"), b"x").is_err());
}

#[test]
fn a_temporary_file_left_behind_is_made_private_again() {
    let (_dir, store, project) = dirs();
    store.trust(&project.join("f"), b"x").unwrap();
    let tmp = store.dir().join("trusted-files.tmp");
    fs::write(&tmp, "left by a crash").unwrap();
    chmod(&tmp, 0o666);
    store.trust(&project.join("g"), b"x").unwrap();
    assert!(!tmp.exists());
    assert_eq!(fs::metadata(store.file()).unwrap().mode() & 0o777, 0o600);
    assert_eq!(store.list().unwrap().len(), 2);
}

#[test]
fn two_writers_at_once_lose_no_record() {
    let (_dir, store, project) = dirs();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (store, project) = (&store, &project);
            s.spawn(move || {
                for n in 0..10 {
                    store
                        .trust(&project.join(format!("{t}-{n}")), b"x")
                        .unwrap();
                }
            });
        }
    });
    assert_eq!(store.list().unwrap().len(), 40);
}

#[test]
fn a_hash_is_64_lower_case_hex_digits() {
    let hash = ContentHash::of(b"");
    assert_eq!(
        hash.to_string(),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(ContentHash::from_hex(&hash.to_string()), Some(hash));
    assert_eq!(ContentHash::from_hex(&"0".repeat(63)), None);
    assert_eq!(ContentHash::from_hex(&"0".repeat(65)), None);
    assert_eq!(ContentHash::from_hex(&format!("{}g", "0".repeat(63))), None);
    assert_eq!(ContentHash::from_hex(&"F".repeat(64)), None);
    assert_eq!(
        ContentHash::from_hex(&format!("0f{}", "0".repeat(62)))
            .unwrap()
            .0[0],
        0x0f
    );
    assert_eq!(
        ContentHash::from_hex(&format!("a9{}", "0".repeat(62)))
            .unwrap()
            .0[0],
        0xa9
    );
}

#[test]
fn a_data_directory_that_is_a_file_is_an_error_not_an_empty_store() {
    let (dir, _store, project) = dirs();
    let not_a_dir = dir.path().join("data");
    fs::write(&not_a_dir, "").unwrap();
    let store = Store::new(&not_a_dir);
    let e = store.list().unwrap_err();
    assert!(
        matches!(&e, StoreError::Io { path, .. } if *path == not_a_dir.join("trusted-files")),
        "{e}"
    );
    assert!(store.lookup(&project.join("f"), b"x").is_err());
    assert!(store.trust(&project.join("f"), b"x").is_err());
}
