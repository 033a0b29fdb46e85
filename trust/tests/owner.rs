//! Who may write a file besides the running user: its owner, its mode
//! bits, its POSIX ACL, and the same of every directory above it, the
//! sticky bit's protection included.
#![cfg(unix)] // Unix owners, modes and links; Windows: tests/windows.rs.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::{is_root, prerequisite};
use io_trust::owner::{OthersMayWrite, Writer, others_may_write, others_may_write_dir};

fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// A private directory (0700, this user's) holding `io.local.toml` at 0600.
fn private() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    chmod(dir.path(), 0o700);
    let file = dir.path().join("io.local.toml");
    fs::write(&file, "").unwrap();
    chmod(&file, 0o600);
    (dir, file)
}

fn me() -> u32 {
    rustix::process::geteuid().as_raw()
}

#[test]
fn a_private_file_in_a_private_directory_is_no_one_elses() {
    let (dir, file) = private();
    assert_eq!(others_may_write(&file), None);
    assert_eq!(others_may_write_dir(dir.path()), None);
    // Read bits for others change nothing.
    chmod(&file, 0o644);
    chmod(dir.path(), 0o755);
    assert_eq!(others_may_write(&file), None);
}

#[test]
fn a_group_or_other_write_bit_on_the_file_is_found() {
    let (_dir, file) = private();
    let gid = fs::metadata(&file)
        .map(|m| std::os::unix::fs::MetadataExt::gid(&m))
        .unwrap();
    chmod(&file, 0o620);
    let found = others_may_write(&file).unwrap();
    assert_eq!(
        found,
        OthersMayWrite {
            path: file.clone(),
            is_file: true,
            how: Writer::Group { gid, mode: 0o620 },
        }
    );
    assert_eq!(
        found.to_string(),
        format!("it may be written by its group (gid {gid}, mode 620)")
    );
    chmod(&file, 0o602);
    assert_eq!(
        others_may_write(&file).unwrap().how,
        Writer::Anyone { mode: 0o602 }
    );
    assert_eq!(
        others_may_write(&file).unwrap().to_string(),
        "anyone may write it (mode 602)"
    );
}

#[test]
fn a_directory_above_that_a_group_or_anyone_may_write_is_found() {
    let (dir, file) = private();
    chmod(dir.path(), 0o770);
    let found = others_may_write(&file).unwrap();
    assert_eq!(found.path, dir.path());
    assert!(!found.is_file);
    assert!(
        matches!(found.how, Writer::Group { mode: 0o770, .. }),
        "{found:?}"
    );
    assert!(
        found.to_string().starts_with(&format!(
            "the directory {} above it may be written by its group",
            dir.path().display()
        )),
        "{found}"
    );
    assert_eq!(others_may_write_dir(dir.path()).unwrap().path, dir.path());

    // Two levels up.
    chmod(dir.path(), 0o700);
    let sub = dir.path().join("a/b");
    fs::create_dir_all(&sub).unwrap();
    fs::write(sub.join("f"), "").unwrap();
    chmod(&sub.join("f"), 0o600);
    chmod(&dir.path().join("a"), 0o777);
    let found = others_may_write(&sub.join("f")).unwrap();
    assert_eq!(found.path, dir.path().join("a"));
    assert_eq!(found.how, Writer::Anyone { mode: 0o777 });
    assert_eq!(
        others_may_write_dir(&sub).unwrap().path,
        dir.path().join("a")
    );
}

#[test]
fn a_sticky_directory_protects_only_an_entry_this_user_owns() {
    let (dir, file) = private();
    // `/tmp`'s shape: anyone may write, and the sticky bit keeps them from
    // renaming or removing what they do not own.
    let shared = dir.path().join("shared");
    fs::create_dir(&shared).unwrap();
    chmod(&shared, 0o1777);
    let mine = shared.join("mine");
    fs::create_dir(&mine).unwrap();
    chmod(&mine, 0o700);
    fs::rename(&file, mine.join("io.local.toml")).unwrap();
    assert_eq!(others_may_write(&mine.join("io.local.toml")), None);
    // The sticky directory itself is writable by anyone.
    assert_eq!(
        others_may_write_dir(&shared).unwrap().how,
        Writer::Anyone { mode: 0o1777 }
    );
    // Without the sticky bit, anyone may rename `mine` away.
    chmod(&shared, 0o777);
    assert_eq!(
        others_may_write(&mine.join("io.local.toml")).unwrap().path,
        shared
    );

    chmod(&shared, 0o1777);
    if !prerequisite("root (to give an entry to another user)", is_root()) {
        return;
    }
    rustix::fs::chown(&mine, Some(rustix::fs::Uid::from_raw(65534)), None).unwrap();
    let found = others_may_write(&mine.join("io.local.toml")).unwrap();
    // `mine` is another user's now: it is the first finding.
    assert_eq!(found.path, mine);
    assert_eq!(
        found.how,
        Writer::Owner {
            uid: 65534,
            me: me()
        }
    );
}

#[test]
fn a_file_or_directory_another_user_owns_is_found() {
    if !prerequisite("root (to give a file to another user)", is_root()) {
        return;
    }
    let (dir, file) = private();
    let nobody = Some(rustix::fs::Uid::from_raw(65534));
    rustix::fs::chown(&file, nobody, None).unwrap();
    let found = others_may_write(&file).unwrap();
    assert_eq!(found.how, Writer::Owner { uid: 65534, me: 0 });
    assert_eq!(
        found.to_string(),
        "another user (uid 65534) owns it, not you (uid 0)"
    );

    // A directory above owned by another user (root's are accepted).
    rustix::fs::chown(&file, Some(rustix::fs::Uid::from_raw(0)), None).unwrap();
    rustix::fs::chown(dir.path(), nobody, None).unwrap();
    let found = others_may_write(&file).unwrap();
    assert_eq!((found.path.as_path(), found.is_file), (dir.path(), false));
}

#[test]
fn a_directory_reached_through_a_link_is_judged_where_it_really_is() {
    let (dir, file) = private();
    // `link -> open/real`: the real directory's parent may be written by
    // anyone, which the path as given does not show.
    let open = dir.path().join("open");
    fs::create_dir_all(open.join("real")).unwrap();
    fs::rename(&file, open.join("real/io.local.toml")).unwrap();
    let links = tempfile::tempdir().unwrap();
    chmod(links.path(), 0o700);
    std::os::unix::fs::symlink(open.join("real"), links.path().join("link")).unwrap();
    let via_link = links.path().join("link/io.local.toml");
    assert_eq!(others_may_write(&via_link), None);
    chmod(&open, 0o777);
    assert_eq!(others_may_write(&via_link).unwrap().path, open);
}

#[test]
fn a_file_that_cannot_be_looked_at_is_not_taken_for_safe() {
    let (dir, _file) = private();
    let gone = dir.path().join("gone");
    let found = others_may_write(&gone).unwrap();
    assert!(matches!(found.how, Writer::Unknown { .. }), "{found:?}");
    assert!(
        found
            .to_string()
            .starts_with("who may write it cannot be told ("),
        "{found}"
    );
    assert!(matches!(
        others_may_write_dir(&gone).unwrap().how,
        Writer::Unknown { .. }
    ));
}

/// A POSIX ACL in its extended-attribute form: the version, then each
/// (tag, permissions, id).
fn acl(entries: &[(u16, u16, u32)]) -> Vec<u8> {
    let mut bytes = 2u32.to_le_bytes().to_vec();
    for (tag, perm, id) in entries {
        bytes.extend(tag.to_le_bytes());
        bytes.extend(perm.to_le_bytes());
        bytes.extend(id.to_le_bytes());
    }
    bytes
}

const USER_OBJ: u16 = 0x01;
const USER: u16 = 0x02;
const GROUP_OBJ: u16 = 0x04;
const GROUP: u16 = 0x08;
const MASK: u16 = 0x10;
const OTHER: u16 = 0x20;
const UNDEFINED: u32 = u32::MAX;

/// Sets `path`'s access ACL; whether the file system took it.
fn set_acl(path: &Path, entries: &[(u16, u16, u32)]) -> bool {
    rustix::fs::setxattr(
        path,
        "system.posix_acl_access",
        &acl(entries),
        rustix::fs::XattrFlags::empty(),
    )
    .is_ok()
}

#[test]
fn an_acl_that_lets_another_user_write_is_found_unless_masked() {
    let (_dir, file) = private();
    let named_user = [
        (USER_OBJ, 6, UNDEFINED),
        (USER, 6, 65534),
        (GROUP_OBJ, 4, UNDEFINED),
        (MASK, 6, UNDEFINED),
        (OTHER, 4, UNDEFINED),
    ];
    if !prerequisite("a file system with POSIX ACLs", set_acl(&file, &named_user)) {
        return;
    }
    let found = others_may_write(&file).unwrap();
    assert_eq!(found.how, Writer::AclUser { uid: 65534 });
    assert_eq!(
        found.to_string(),
        "a POSIX ACL on it lets another user (uid 65534) write it"
    );

    // The mask takes write away: no one else may write.
    let masked = [
        (USER_OBJ, 6, UNDEFINED),
        (USER, 6, 65534),
        (GROUP_OBJ, 6, UNDEFINED),
        (MASK, 4, UNDEFINED),
        (OTHER, 4, UNDEFINED),
    ];
    assert!(set_acl(&file, &masked));
    assert_eq!(others_may_write(&file), None);
}

#[test]
fn an_acl_for_a_group_this_user_or_a_directory_above_is_judged_too() {
    let (dir, file) = private();
    let named_group = [
        (USER_OBJ, 6, UNDEFINED),
        (GROUP_OBJ, 4, UNDEFINED),
        (GROUP, 7, 100),
        (MASK, 7, UNDEFINED),
        (OTHER, 0, UNDEFINED),
    ];
    if !prerequisite(
        "a file system with POSIX ACLs",
        set_acl(&file, &named_group),
    ) {
        return;
    }
    assert_eq!(
        others_may_write(&file).unwrap().how,
        Writer::AclGroup { gid: 100 }
    );
    assert!(set_acl(
        &file,
        &[
            (USER_OBJ, 6, UNDEFINED),
            (USER, 4, 65534),
            (GROUP_OBJ, 6, UNDEFINED),
            (MASK, 6, UNDEFINED),
            (OTHER, 0, UNDEFINED)
        ]
    ));
    assert!(matches!(
        others_may_write(&file).unwrap().how,
        Writer::Group { .. }
    ));
    // A named entry for this very user is no one else.
    assert!(set_acl(
        &file,
        &[
            (USER_OBJ, 6, UNDEFINED),
            (USER, 6, me()),
            (GROUP_OBJ, 4, UNDEFINED),
            (MASK, 6, UNDEFINED),
            (OTHER, 0, UNDEFINED)
        ]
    ));
    assert_eq!(others_may_write(&file), None);

    // On a directory above, it is found there.
    assert!(rustix::fs::removexattr(&file, "system.posix_acl_access").is_ok());
    chmod(&file, 0o600);
    assert!(set_acl(
        dir.path(),
        &[
            (USER_OBJ, 7, UNDEFINED),
            (USER, 7, 65534),
            (GROUP_OBJ, 5, UNDEFINED),
            (MASK, 7, UNDEFINED),
            (OTHER, 5, UNDEFINED)
        ]
    ));
    let found = others_may_write(&file).unwrap();
    assert_eq!(
        (found.path.as_path(), found.how),
        (dir.path(), Writer::AclUser { uid: 65534 })
    );
}
