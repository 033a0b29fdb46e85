//! The key's file and the chain's MAC, held up by their own tests (and
//! mutation testing: `cargo mutants -p io-trust --file 'trust/src/key/*.rs'`).

use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use super::file::{self, judge_dir, judge_file};
use super::fresh;
use super::{Chain, KEY_FILE, Key, KeyError, Mismatch, Refusal, Tag};
use rustix::fs::FileType;

/// A fresh temporary directory, and a key directory `data` in it (not
/// made).
fn temp() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let data = tmp.path().join("data");
    (tmp, data)
}

/// The tag `key` gives the first record `b"r"` of sequence `b"id"`: what
/// tells two keys apart in these tests, since a key shows nothing.
fn fingerprint(key: &Key) -> String {
    key.chain(b"id").seal(b"r").to_string()
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).expect("metadata").mode() & 0o7777
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

fn is_root() -> bool {
    let root = rustix::process::geteuid().is_root();
    if !root {
        // Said out loud: this test ran nothing.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED, this test ran nothing: it needs root, to give a file to another user"
        );
    }
    root
}

/// The error `load_or_create(dir)` gives, which must be a refusal.
fn refused(dir: &Path) -> (PathBuf, Refusal, String) {
    match Key::load_or_create(dir) {
        Err(e @ KeyError::Refused { .. }) => {
            let text = e.to_string();
            let KeyError::Refused { path, refusal } = e else {
                unreachable!()
            };
            (path, refusal, text)
        }
        other => panic!("a refusal, not {other:?}"),
    }
}

// --- the file ---------------------------------------------------------------

#[test]
fn a_key_is_made_on_first_use_0600_in_a_0700_directory_and_read_back_after() {
    let (_tmp, data) = temp();
    let deep = data.join("share/io");
    let first = Key::load_or_create(&deep).expect("made");
    let file = deep.join(KEY_FILE);
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(&deep), 0o700 & !umask());
    assert_eq!(mode(&data.join("share")), 0o700 & !umask());
    let bytes = std::fs::read(&file).expect("the key");
    assert_eq!(bytes.len(), 32);
    assert_ne!(bytes, [0; 32], "random bytes, not none");
    // Nothing else is left in the directory: the key's temporary name is
    // gone.
    let names: Vec<_> = std::fs::read_dir(&deep)
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, [KEY_FILE]);
    let again = Key::load_or_create(&deep).expect("read back");
    assert_eq!(fingerprint(&first), fingerprint(&again));
    assert_eq!(
        fingerprint(&again),
        fingerprint(&Key::from_bytes(bytes.try_into().expect("32")))
    );
    assert_eq!(
        std::fs::read(&file).expect("the key").len(),
        32,
        "not rewritten"
    );
}

#[test]
fn load_makes_nothing_when_there_is_no_key_and_judges_one_that_is_there() {
    let (tmp, data) = temp();
    // No directory: none, and nothing made.
    assert!(Key::load(&data).expect("none").is_none());
    assert!(!data.exists(), "no directory made");
    // A directory without a key: none, and the directory stays empty.
    std::fs::create_dir(&data).expect("mkdir");
    chmod(&data, 0o700);
    assert!(Key::load(&data).expect("none").is_none());
    assert_eq!(std::fs::read_dir(&data).expect("dir").count(), 0);
    // The key once made: the same key.
    let made = Key::load_or_create(&data).expect("made");
    let loaded = Key::load(&data).expect("read").expect("a key");
    assert_eq!(fingerprint(&made), fingerprint(&loaded));
    // A key others may read is refused as `load_or_create` refuses it.
    chmod(&data.join(KEY_FILE), 0o644);
    assert!(matches!(
        Key::load(&data),
        Err(KeyError::Refused {
            refusal: Refusal::Exposed { .. },
            ..
        })
    ));
    drop(tmp);
}

/// The process's umask, read without changing it for long (tests run on
/// threads of one process; a umask of 0 for an instant widens nothing they
/// make, since every mode here is given explicitly or judged after).
fn umask() -> u32 {
    let old = rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o022));
    rustix::process::umask(old);
    old.bits() as u32
}

#[test]
fn two_directories_get_two_keys() {
    let (_tmp, one) = temp();
    let (_tmp2, two) = temp();
    let a = Key::load_or_create(&one).expect("one");
    let b = Key::load_or_create(&two).expect("two");
    assert_ne!(fingerprint(&a), fingerprint(&b));
    assert_ne!(
        std::fs::read(one.join(KEY_FILE)).expect("one"),
        std::fs::read(two.join(KEY_FILE)).expect("two")
    );
}

#[test]
fn makers_racing_agree_on_one_key() {
    let (_tmp, data) = temp();
    let barrier = std::sync::Barrier::new(8);
    let keys: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    fingerprint(&Key::load_or_create(&data).expect("a key"))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("joined"))
            .collect()
    });
    assert!(keys.iter().all(|k| *k == keys[0]), "{keys:?}");
    let on_disk: [u8; 32] = std::fs::read(data.join(KEY_FILE))
        .expect("key")
        .try_into()
        .expect("32 bytes");
    assert_eq!(keys[0], fingerprint(&Key::from_bytes(on_disk)));
}

#[test]
fn the_loser_of_a_race_takes_the_winners_key_and_leaves_no_file_behind() {
    let (_tmp, data) = temp();
    let winner = Key::load_or_create(&data).expect("the winner's");
    let dir = rustix::fs::open(
        &data,
        rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECTORY,
        rustix::fs::Mode::empty(),
    )
    .expect("dir");
    let mine = [9; 32];
    let got = file::install_as(&dir, &data, &mine, ".mine.tmp").expect("the name's key");
    assert_eq!(fingerprint(&Key::from_bytes(got)), fingerprint(&winner));
    assert_ne!(got, mine);
    assert_eq!(std::fs::read_dir(&data).expect("dir").count(), 1);
}

#[test]
fn a_temporary_name_already_taken_by_a_file_or_a_link_is_never_written_through() {
    let (_tmp, data) = temp();
    std::fs::create_dir(&data).expect("dir");
    chmod(&data, 0o700);
    let elsewhere = data.join("elsewhere");
    std::fs::write(&elsewhere, "kept").expect("a file");
    std::fs::write(data.join(".taken.tmp"), "kept").expect("a file");
    symlink(&elsewhere, data.join(".link.tmp")).expect("link");
    symlink(data.join("nothing"), data.join(".dangling.tmp")).expect("link");
    let dir = rustix::fs::open(
        &data,
        rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECTORY,
        rustix::fs::Mode::empty(),
    )
    .expect("dir");
    for temp in [".taken.tmp", ".link.tmp", ".dangling.tmp"] {
        let e = file::install_as(&dir, &data, &[9; 32], temp).expect_err("taken");
        assert_eq!(
            e.to_string(),
            format!(
                "{}: cannot make the key file: File exists",
                data.join(temp).display()
            )
        );
    }
    assert_eq!(std::fs::read(&elsewhere).expect("kept"), b"kept");
    assert_eq!(
        std::fs::read(data.join(".taken.tmp")).expect("kept"),
        b"kept"
    );
    assert!(!data.join("nothing").exists());
    assert!(!data.join(KEY_FILE).exists());
}

#[test]
fn a_temporary_name_is_hidden_this_processs_and_never_the_same_twice() {
    let (_tmp, data) = temp();
    let a = fresh::temp_name(&data).expect("a name");
    let b = fresh::temp_name(&data).expect("a name");
    assert_ne!(a, b);
    let prefix = format!(".{KEY_FILE}.{}.", std::process::id());
    for name in [&a, &b] {
        assert!(
            name.starts_with(&prefix) && name.ends_with(".tmp"),
            "{name}"
        );
        assert_eq!(name.len(), prefix.len() + 16 + 4, "{name}");
    }
}

#[test]
fn a_key_is_written_0600_whatever_mode_its_file_was_made_with() {
    let (_tmp, data) = temp();
    std::fs::create_dir(&data).expect("dir");
    let path = data.join("k");
    std::fs::write(&path, "").expect("file");
    chmod(&path, 0o644);
    let fd = std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .expect("open");
    file::write_key(fd.into(), &[5; 32]).expect("written");
    assert_eq!(mode(&path), 0o600);
    assert_eq!(std::fs::read(&path).expect("read"), [5; 32]);
}

#[test]
fn a_key_file_others_may_read_or_write_is_refused_and_left_as_it_is() {
    for (bits, said) in [
        (
            0o644,
            "its group and others may read the key file (mode 644)",
        ),
        (0o640, "its group may read the key file (mode 640)"),
        (0o604, "others may read the key file (mode 604)"),
        (0o620, "its group may write the key file (mode 620)"),
        (0o602, "others may write the key file (mode 602)"),
        (
            0o660,
            "its group may read and write the key file (mode 660)",
        ),
        (0o610, "its group may execute the key file (mode 610)"),
    ] {
        let (_tmp, data) = temp();
        Key::load_or_create(&data).expect("made");
        let path = data.join(KEY_FILE);
        let before = std::fs::read(&path).expect("key");
        chmod(&path, bits);
        let (at, refusal, text) = refused(&data);
        assert_eq!(at, path);
        assert_eq!(refusal, Refusal::Exposed { mode: bits });
        assert_eq!(
            text,
            format!(
                "{}: refused: {said}, so its key may be known to them and proves nothing; remove \
                 it (a new key is made at the next use, and what the old one sealed no longer \
                 verifies), or, if no one else can have read it, make it yours alone (chmod 600)",
                path.display()
            )
        );
        assert_eq!(std::fs::read(&path).expect("key"), before, "never replaced");
        assert_eq!(mode(&path), bits, "never changed");
    }
}

#[test]
fn a_key_file_of_the_wrong_size_is_refused() {
    for len in [0_usize, 1, 31, 33, 1000] {
        let (_tmp, data) = temp();
        std::fs::create_dir(&data).expect("dir");
        chmod(&data, 0o700);
        let path = data.join(KEY_FILE);
        std::fs::write(&path, vec![1; len]).expect("key");
        chmod(&path, 0o600);
        let (at, refusal, text) = refused(&data);
        assert_eq!(at, path);
        assert_eq!(refusal, Refusal::Size { len: len as u64 });
        assert_eq!(
            text,
            format!(
                "{}: refused: the key file holds {len} bytes, and a key is exactly 32: a key is \
                 written whole before the file takes its name, so this is not one; remove it (a \
                 new key is made at the next use, and what the old one sealed no longer verifies)",
                path.display()
            )
        );
        assert_eq!(std::fs::read(&path).expect("kept").len(), len);
    }
}

#[test]
fn a_key_file_that_is_a_link_a_directory_or_a_fifo_is_refused_without_a_read() {
    let (_tmp, data) = temp();
    let real = tempfile::tempdir().expect("elsewhere");
    Key::load_or_create(real.path()).expect("a real key elsewhere");
    std::fs::create_dir(&data).expect("dir");
    chmod(&data, 0o700);
    let path = data.join(KEY_FILE);
    // A link, even to a key that would pass.
    symlink(real.path().join(KEY_FILE), &path).expect("link");
    let (at, refusal, text) = refused(&data);
    assert_eq!((at, refusal), (path.clone(), Refusal::Link));
    assert!(
        text.ends_with(
            "refused: the key file is a symbolic link, and a key is read from a regular file \
             only; remove the link (a new key is made at the next use, and what the old one \
             sealed no longer verifies), or put the file it leads to in its place"
        ),
        "{text}"
    );
    std::fs::remove_file(&path).expect("unlink");
    // A directory.
    std::fs::create_dir(&path).expect("a directory");
    chmod(&path, 0o700);
    assert_eq!(refusal_of(&data), Refusal::NotAFile);
    std::fs::remove_dir(&path).expect("rmdir");
    // A FIFO no one writes: refused at once, not waited on.
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &path,
        FileType::Fifo,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        0,
    )
    .expect("mkfifo");
    let (_, refusal, text) = refused(&data);
    assert_eq!(refusal, Refusal::NotAFile);
    assert!(
        text.ends_with(
            "refused: the key file is not a regular file; remove it (a new key is made at the \
             next use, and what the old one sealed no longer verifies)"
        ),
        "{text}"
    );
}

fn refusal_of(dir: &Path) -> Refusal {
    refused(dir).1
}

#[test]
fn a_key_file_another_user_owns_is_refused() {
    if !is_root() {
        return;
    }
    let (_tmp, data) = temp();
    Key::load_or_create(&data).expect("made");
    let path = data.join(KEY_FILE);
    std::os::unix::fs::chown(&path, Some(65534), None).expect("chown");
    let (at, refusal, text) = refused(&data);
    assert_eq!(at, path);
    assert_eq!(
        refusal,
        Refusal::NotYours {
            owner: 65534,
            user: 0
        }
    );
    assert!(
        text.ends_with(
            "refused: the key file is owned by uid 65534, not by you (uid 0); remove it (a new \
             key is made at the next use, and what the old one sealed no longer verifies), or, \
             if it is yours, give it to yourself (chown)"
        ),
        "{text}"
    );
}

#[test]
fn a_directory_others_may_write_in_or_another_user_owns_is_refused() {
    for (bits, said) in [
        (0o770, "its group may write"),
        (0o707, "others may write"),
        (0o777, "its group and others may write"),
        (0o1777, "its group and others may write"),
    ] {
        let (_tmp, data) = temp();
        std::fs::create_dir(&data).expect("dir");
        chmod(&data, bits);
        let (at, refusal, text) = refused(&data);
        assert_eq!(at, data);
        assert_eq!(refusal, Refusal::DirWritable { mode: bits });
        assert_eq!(
            text,
            format!(
                "{}: refused: {said} in the key's directory (mode {bits:o}), and could replace \
                 the key; take their write permission away (chmod go-w), or name a directory of \
                 your own",
                data.display()
            )
        );
        assert!(!data.join(KEY_FILE).exists(), "no key made there");
    }
    // Others may read and enter it: the key file is 0600 itself.
    let (_tmp, data) = temp();
    std::fs::create_dir(&data).expect("dir");
    chmod(&data, 0o755);
    Key::load_or_create(&data).expect("a directory only its owner writes");

    if !is_root() {
        return;
    }
    let (_tmp, data) = temp();
    std::fs::create_dir(&data).expect("dir");
    std::os::unix::fs::chown(&data, Some(65534), None).expect("chown");
    let (_, refusal, text) = refused(&data);
    assert_eq!(
        refusal,
        Refusal::DirNotYours {
            owner: 65534,
            user: 0
        }
    );
    assert!(
        text.ends_with(
            "refused: the key's directory is owned by uid 65534, not by you (uid 0), who could \
             replace the key; name a directory of your own"
        ),
        "{text}"
    );
}

#[test]
fn a_directory_that_cannot_be_opened_or_made_is_an_error_naming_it_and_the_cause() {
    let (tmp, data) = temp();
    std::fs::write(&data, "a file").expect("file");
    chmod(&data, 0o600);
    for dir in [data.clone(), data.join("io")] {
        let e = Key::load_or_create(&dir).expect_err("a file, or beneath one");
        assert!(matches!(e, KeyError::Io { .. }), "{e:?}");
        assert_eq!(e.path(), dir);
        assert_eq!(
            e.to_string(),
            format!(
                "{}: cannot open the key's directory: Not a directory",
                dir.display()
            )
        );
    }
    // A directory to make beneath a link to nothing.
    let dangling = tmp.path().join("dangling");
    symlink(tmp.path().join("nothing"), &dangling).expect("link");
    let e = Key::load_or_create(dangling.join("io")).expect_err("beneath a dangling link");
    assert_eq!(
        e.to_string(),
        format!(
            "{}: cannot make the key's directory: File exists",
            dangling.join("io").display()
        )
    );
}

#[test]
fn the_judgements_of_a_file_and_a_directory() {
    let me = 1000;
    let regular = FileType::RegularFile;
    assert_eq!(judge_file(regular, me, 0o600, me), None);
    assert_eq!(judge_file(regular, me, 0o400, me), None);
    assert_eq!(judge_file(regular, me, 0o700, me), None);
    assert_eq!(judge_file(regular, me, 0o4600, me), None);
    for bits in [0o601, 0o602, 0o604, 0o610, 0o620, 0o640, 0o677] {
        assert_eq!(
            judge_file(regular, me, 0o100_000 | bits, me),
            Some(Refusal::Exposed { mode: bits }),
            "{bits:o}"
        );
    }
    assert_eq!(
        judge_file(regular, 0, 0o600, me),
        Some(Refusal::NotYours { owner: 0, user: me })
    );
    for kind in [FileType::Directory, FileType::Fifo, FileType::Symlink] {
        assert_eq!(judge_file(kind, me, 0o600, me), Some(Refusal::NotAFile));
    }
    assert_eq!(judge_dir(me, 0o700, me), None);
    assert_eq!(judge_dir(me, 0o755, me), None);
    assert_eq!(judge_dir(me, 0o040_755, me), None);
    for bits in [0o720, 0o702, 0o722, 0o1777] {
        assert_eq!(
            judge_dir(me, 0o040_000 | bits, me),
            Some(Refusal::DirWritable { mode: bits }),
            "{bits:o}"
        );
    }
    assert_eq!(
        judge_dir(7, 0o700, me),
        Some(Refusal::DirNotYours { owner: 7, user: me })
    );
}

#[test]
fn an_error_without_an_os_code_reads_as_itself() {
    let e = KeyError::io(
        Path::new("/k"),
        "read the key file",
        std::io::Error::other("no luck"),
    );
    assert_eq!(e.to_string(), "/k: cannot read the key file: no luck");
    let e = KeyError::io(
        Path::new("/k"),
        "read the key file",
        std::io::Error::from_raw_os_error(13),
    );
    assert_eq!(
        e.to_string(),
        "/k: cannot read the key file: Permission denied"
    );
    assert_eq!(format!("{:?}", Key::from_bytes([1; 32])), "Key { .. }");
}

// --- the chain --------------------------------------------------------------

/// HMAC-SHA-256 of the concatenation of `parts` under `key`, by the hmac
/// crate directly: the construction the chain must be.
fn hmac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("a key");
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn each_tag_is_the_hmac_of_the_tag_before_and_the_record_from_a_seed_of_the_id() {
    let bytes = [3; 32];
    let key = Key::from_bytes(bytes);
    let seed = hmac(&bytes, &[b"io-trust record chain 1\0", b"run-1"]);
    let one = hmac(&bytes, &[&seed, b"first"]);
    let two = hmac(&bytes, &[&one, b"second"]);
    let mut chain = key.chain(b"run-1");
    assert_eq!(chain.records(), 0);
    assert_eq!(chain.seal(b"first").to_string(), hex(&one));
    assert_eq!(chain.records(), 1);
    let tag = chain.seal(b"second");
    assert_eq!(tag.to_string(), hex(&two));
    assert_eq!(tag.as_bytes(), &two);
    assert_eq!(chain.records(), 2);
    assert_eq!(format!("{chain:?}"), "Chain { records: 2, .. }");
    assert_eq!(format!("{tag:?}"), format!("Tag({})", hex(&two)));
}

/// The tags `key` gives `records` in sequence `id`.
fn sealed(key: &Key, id: &[u8], records: &[&[u8]]) -> Vec<Tag> {
    let mut chain = key.chain(id);
    records.iter().map(|r| chain.seal(r)).collect()
}

/// Verifies `records` against `tags` in order: the first mismatch.
fn verify(key: &Key, id: &[u8], records: &[&[u8]], tags: &[Tag]) -> Result<u64, Mismatch> {
    let mut chain = key.chain(id);
    for (record, tag) in records.iter().zip(tags) {
        chain.verify(record, tag)?;
    }
    Ok(chain.records())
}

#[test]
fn records_verify_in_order_and_a_prefix_verifies_too() {
    let key = Key::from_bytes([4; 32]);
    let records: [&[u8]; 4] = [b"a", b"b", b"c", b"d"];
    let tags = sealed(&key, b"j", &records);
    assert_eq!(verify(&key, b"j", &records, &tags), Ok(4));
    assert_eq!(verify(&key, b"j", &records[..2], &tags[..2]), Ok(2));
    assert_eq!(verify(&key, b"j", &[], &[]), Ok(0));
}

#[test]
fn a_record_changed_moved_dropped_or_from_elsewhere_does_not_verify() {
    let key = Key::from_bytes([4; 32]);
    let records: [&[u8]; 3] = [b"a", b"b", b"c"];
    let tags = sealed(&key, b"j", &records);
    let at = |r: Result<u64, Mismatch>| r.expect_err("a mismatch").record();
    // Changed.
    assert_eq!(at(verify(&key, b"j", &[b"a", b"B", b"c"], &tags)), 2);
    // Reordered, records and tags together.
    let (r, t) = ([records[1], records[0]], [tags[1], tags[0]]);
    assert_eq!(at(verify(&key, b"j", &r, &t)), 1);
    let (r, t) = (
        [records[0], records[2], records[1]],
        [tags[0], tags[2], tags[1]],
    );
    assert_eq!(at(verify(&key, b"j", &r, &t)), 2);
    // Dropped from the middle.
    let (r, t) = ([records[0], records[2]], [tags[0], tags[2]]);
    assert_eq!(at(verify(&key, b"j", &r, &t)), 2);
    // Moved to another sequence, or sealed with another key.
    assert_eq!(at(verify(&key, b"k", &records, &tags)), 1);
    assert_eq!(
        at(verify(&Key::from_bytes([5; 32]), b"j", &records, &tags)),
        1
    );
    // A record of another sequence put in.
    let other = sealed(&key, b"k", &records);
    assert_eq!(
        at(verify(&key, b"j", &records, &[tags[0], other[1], tags[2]])),
        2
    );
    let mismatch = verify(&key, b"j", &[b"a", b"x"], &tags).expect_err("changed");
    assert_eq!(
        mismatch.to_string(),
        "record 2's MAC does not verify with this key"
    );
}

#[test]
fn a_failed_verification_leaves_the_chain_where_it_was() {
    let key = Key::from_bytes([6; 32]);
    let tags = sealed(&key, b"j", &[b"a", b"b"]);
    let mut chain = key.chain(b"j");
    chain.verify(b"a", &tags[0]).expect("a");
    assert_eq!(chain.verify(b"x", &tags[1]).map_err(|m| m.record()), Err(2));
    assert_eq!(chain.records(), 1);
    chain.verify(b"b", &tags[1]).expect("b, after the failure");
    assert_eq!(chain.records(), 2);
    // A writer's chain, cloned before a seal, is the chain before it.
    let mut writer = key.chain(b"j");
    writer.seal(b"a");
    let before: Chain = writer.clone();
    writer.seal(b"lost");
    let mut again = before;
    assert_eq!(again.seal(b"b").to_string(), tags[1].to_string());
}

#[test]
fn a_tag_reads_back_from_its_text_and_nothing_else_does() {
    let key = Key::from_bytes([8; 32]);
    let tag = key.chain(b"j").seal(b"r");
    let text = tag.to_string();
    assert_eq!(text.len(), Tag::HEX_LEN);
    assert_eq!(Tag::HEX_LEN, 64);
    assert_eq!(Tag::LEN, 32);
    let back = Tag::from_hex(&text).expect("its own text");
    assert_eq!(back.as_bytes(), tag.as_bytes());
    let all = "0123456789abcdef".repeat(4);
    let parsed = Tag::from_hex(&all).expect("every digit");
    assert_eq!(parsed.to_string(), all);
    assert_eq!(
        parsed.as_bytes()[..8],
        [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef]
    );
    for bad in [
        String::new(),
        text[..63].to_owned(),
        format!("{text}0"),
        text.to_uppercase(),
        format!("g{}", &text[1..]),
        format!("{}g", &text[..63]),
        format!("/{}", &text[1..]),
        format!(":{}", &text[1..]),
        format!("`{}", &text[1..]),
        format!("G{}", &text[1..]),
        format!(" {}", &text[1..]),
        format!("+{}", &text[1..]),
        format!("{}é", &text[..62]),
    ] {
        assert!(Tag::from_hex(&bad).is_none(), "{bad:?}");
    }
}

/// The key's directory is judged by the crate's one rule for who else may
/// write (`owner::others_may_write_dir`), not by its own bits alone: a
/// directory above it that a group may write could replace the directory,
/// and so the key, though the directory itself is 0700.
#[test]
fn a_directory_above_the_keys_that_others_may_write_is_refused() {
    let (_tmp, data) = temp();
    let above = data.parent().expect("a directory above").to_path_buf();
    std::fs::create_dir(&data).expect("dir");
    chmod(&data, 0o700);
    chmod(&above, 0o770);
    let err = Key::load_or_create(&data).expect_err("a group may replace the directory");
    assert!(
        matches!(&err, KeyError::Exposed { path, .. } if *path == data),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("{}: refused: ", data.display())),
        "{text}"
    );
    assert!(text.contains("its group"), "{text}");
    assert!(!data.join(KEY_FILE).exists(), "no key made there");
    chmod(&above, 0o700);
    Key::load_or_create(&data).expect("once no one else may write above it");
}
