//! Each call into Windows, run: every `unsafe` block of the crate is
//! reached by one of these (under wine in CI, `.ci/windows`).
#![cfg(windows)]

use std::fs::{File, OpenOptions};
use std::os::windows::fs::OpenOptionsExt;

use io_winsec::{Security, Sid, current_user, is_administrator, make_private, rights};

/// Whether the tests run under wine, which keeps no DACL that is set on a
/// file: it reads back one made from the file's Unix mode bits (SYSTEM,
/// the user, and Everyone for the other bits), so what `make_private` did
/// cannot be seen there, though the call succeeds.
fn under_wine(what: &str) -> bool {
    let wine = std::env::var_os("IO_UNDER_WINE").is_some();
    if wine {
        eprintln!("skipped under wine: {what}: wine 8.0 keeps no DACL set on a file");
    }
    wine
}

/// `READ_CONTROL | WRITE_DAC`, and `FILE_FLAG_BACKUP_SEMANTICS`, which
/// opening a directory needs.
fn open_for_security(path: &std::path::Path) -> File {
    OpenOptions::new()
        .access_mode(0x0002_0000 | 0x0004_0000)
        .custom_flags(0x0200_0000)
        .open(path)
        .expect("open for its security")
}

#[test]
fn the_running_user_has_a_sid_of_revision_1() {
    let me = current_user().expect("the token's user");
    assert_eq!(me.as_bytes()[0], 1);
    assert!(me.to_string().starts_with("S-1-"), "{me}");
    assert_eq!(me.to_string().parse::<Sid>().as_ref(), Ok(&me));
    // Asked twice, the same.
    assert_eq!(current_user().expect("again"), me);
}

#[test]
fn whether_the_user_is_an_administrator_can_be_told() {
    let admin = is_administrator().expect("the token's groups");
    eprintln!("the running user is an administrator: {admin}");
    assert_eq!(is_administrator().expect("again"), admin);
}

#[test]
fn a_file_made_private_has_one_entry_and_is_the_users() {
    let dir = tempfile::tempdir().expect("a directory");
    let path = dir.path().join("key");
    std::fs::write(&path, b"secret").expect("written");
    let me = current_user().expect("me");
    let file = open_for_security(&path);
    let before = Security::of_file(&file).expect("its security");
    assert!(before.owner.is_some(), "a file has an owner: {before:?}");
    make_private(&file, false).expect("made private");
    if under_wine("the private DACL read back") {
        return;
    }
    let after = Security::of_file(&file).expect("its security again");
    assert_eq!(after.dacl, Some(Security::private_dacl(&me, false)));
    assert_eq!(
        after.granted_to_others(&me, rights::READ | rights::WRITE),
        None
    );
}

#[test]
fn a_directory_made_private_passes_its_entry_on() {
    let dir = tempfile::tempdir().expect("a directory");
    let me = current_user().expect("me");
    let handle = open_for_security(dir.path());
    make_private(&handle, true).expect("made private");
    if under_wine("the private, inheritable DACL read back") {
        return;
    }
    let got = Security::of_file(&handle).expect("its security");
    assert_eq!(got.dacl, Some(Security::private_dacl(&me, true)));
    let inner = dir.path().join("inner");
    std::fs::write(&inner, b"x").expect("written");
    let inner = Security::of_file(&open_for_security(&inner)).expect("inner's security");
    assert_eq!(
        inner.granted_to_others(&me, rights::READ | rights::WRITE),
        None,
        "{inner:?}"
    );
}

#[test]
fn a_handle_without_read_control_is_an_error_not_a_guess() {
    let dir = tempfile::tempdir().expect("a directory");
    let path = dir.path().join("f");
    std::fs::write(&path, b"x").expect("written");
    // FILE_READ_ATTRIBUTES only: no READ_CONTROL.
    let file = OpenOptions::new()
        .access_mode(0x80)
        .open(&path)
        .expect("opened");
    match Security::of_file(&file) {
        Err(e) => eprintln!("refused, as it should be: {e}"),
        Ok(got) if std::env::var_os("IO_UNDER_WINE").is_some() => {
            eprintln!("skipped under wine: it reads security without READ_CONTROL ({got:?})");
        }
        Ok(got) => panic!("read without READ_CONTROL: {got:?}"),
    }
}
