//! The rules of the [crate](crate) on Windows, under wine where wine can
//! show them. What wine 8.0 cannot make (a symbolic link or a junction:
//! creating one reports success and makes nothing) is tested on a real
//! Windows only, and skipped with `IO_UNDER_WINE=1`, saying so.

use super::*;
use std::ffi::OsString;
use std::io::{Read, Write};

/// Whether this runs under wine (`.ci/windows` sets `IO_UNDER_WINE=1`);
/// then says that `what` is skipped, and why.
fn skipped_under_wine(what: &str, why: &str) -> bool {
    let wine = std::env::var_os("IO_UNDER_WINE").is_some_and(|v| v == "1");
    if wine {
        eprintln!("skipped under wine: {what}: {why}");
    }
    wine
}

/// A root at a new temporary directory, owning `.io`, with `notes.md` and
/// `.io/run.jsonl` in it.
fn root() -> (tempfile::TempDir, Root) {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("notes.md"), "# notes\n").unwrap();
    std::fs::create_dir(tmp.path().join(".io")).unwrap();
    std::fs::write(tmp.path().join(".io/run.jsonl"), "{}\n").unwrap();
    let root = Root::open(tmp.path()).unwrap().own(".io");
    (tmp, root)
}

/// `FILE_SHARE_READ`: others may open the file to read it, and only that.
const FILE_SHARE_READ: u32 = 1;

/// The names under `dir`, sorted.
fn listing(dir: &Path) -> Vec<OsString> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    names
}

/// The opens an action or a tool makes: created and written, the
/// per-event append (no link at its end, unjudged), an unjudged append,
/// and a read.
fn every_open() -> [Open; 4] {
    [
        Open::write().create(0o600).dirs(0o700),
        Open::append().create(0o600).nofollow().unjudged(),
        Open::append().create(0o600).unjudged(),
        Open::read(),
    ]
}

#[test]
fn dot_dot_prefixes_and_absolute_paths_are_refused_before_any_open() {
    let (tmp, root) = root();
    let before = listing(tmp.path());
    let outside = [
        "..\\x",
        "../x",
        "a\\..\\..\\x",
        "C:\\Windows\\win.ini",
        "C:x",
        "\\x",
        "/x",
        "\\\\.\\CON",
        "\\\\?\\C:\\x",
        "\\\\.\\pipe\\p",
        "\\\\server\\share\\x",
    ];
    for rel in outside {
        for how in every_open() {
            let got = root.open_file(rel, &how);
            assert!(
                matches!(got, Err(Error::Outside { through: None })),
                "{rel}: {got:?}"
            );
        }
    }
    for rel in [".\\a\\..\\.io\\run.jsonl", "a/b/../../.IO/x"] {
        let got = root.open_file(rel, &Open::read());
        assert!(
            matches!(&got, Err(Error::Owned { way: Way::Up, .. })),
            "{rel}: {got:?}"
        );
    }
    let up = root.open_file("a\\..\\.io\\run.jsonl", &Open::read());
    assert!(
        matches!(&up, Err(Error::Owned { name, way: Way::Up }) if name == ".io"),
        "{up:?}"
    );
    assert_eq!(
        up.unwrap_err().to_string(),
        "it reaches `.io`, the program's own state, through `..`, and that state is reached by \
         its own names alone"
    );
    assert_eq!(listing(tmp.path()), before, "nothing was made");
}

#[test]
fn device_names_are_refused_in_any_case_and_with_any_extension() {
    let (tmp, root) = root();
    let before = listing(tmp.path());
    let devices = [
        "CON",
        "con",
        "NUL",
        "nul.txt",
        "Com1",
        "COM9.log",
        "lpt1 .md",
        "AUX",
        "PRN",
        "CONIN$",
        "conout$",
        "a\\NUL",
        "COM\u{b9}",
    ];
    for rel in devices {
        for how in every_open() {
            let got = root.open_file(rel, &how);
            assert!(
                matches!(got, Err(Error::NotRegular { kind: DEVICE })),
                "{rel}: {got:?}"
            );
        }
    }
    assert_eq!(
        root.open_file("nul", &Open::read())
            .unwrap_err()
            .to_string(),
        "it is a device Windows reserves by its name (`CON`, `NUL`, `COM1`, ...), not a regular \
         file"
    );
    assert_eq!(root.kind_of("con").unwrap(), Some(Kind::Special(DEVICE)));
    // Names that only start like one are files.
    for name in ["console", "nullable.txt", "com10", "lpt", "CONx"] {
        drop(root.open_file(name, &Open::write().create(0o600)).unwrap());
    }
    assert_eq!(listing(tmp.path()).len(), before.len() + 5);
}

#[test]
fn an_alternate_data_stream_is_refused_and_nothing_is_written() {
    let (tmp, root) = root();
    let before = listing(tmp.path());
    for rel in [
        "notes.md:secret",
        "notes.md::$DATA",
        "notes.md:x:$DATA",
        "new:stream",
        "a\\b:c\\d",
        ".io::$INDEX_ALLOCATION\\run.jsonl",
    ] {
        for how in every_open() {
            let got = root.open_file(rel, &how);
            let Err(Error::Io(e)) = &got else {
                panic!("{rel}: {got:?}");
            };
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{rel}");
            assert!(e.to_string().contains("alternate data stream"), "{e}");
        }
    }
    assert_eq!(listing(tmp.path()), before);
    let notes = std::fs::read_to_string(tmp.path().join("notes.md")).unwrap();
    assert_eq!(notes, "# notes\n");
}

#[test]
fn owned_state_is_refused_by_any_spelling_win32_opens_as_its_name() {
    let (tmp, root) = root();
    for rel in [
        ".io\\run.jsonl",
        ".IO\\run.jsonl",
        ".Io/run.jsonl",
        ".io.\\run.jsonl",
        ".io \\run.jsonl",
        ".io. . \\run.jsonl",
        ".\\.io\\run.jsonl",
        ".io",
        ".IO.",
    ] {
        for how in every_open() {
            let got = root.open_file(rel, &how);
            assert!(
                matches!(&got, Err(Error::Owned { name, way: Way::Name }) if name == ".io"),
                "{rel}: {got:?}"
            );
        }
        assert!(root.is_owned(Path::new(rel)), "{rel}");
    }
    assert!(matches!(
        root.kind_of(".IO."),
        Err(Error::Owned { way: Way::Name, .. })
    ));
    assert_eq!(
        std::fs::read_to_string(tmp.path().join(".io/run.jsonl")).unwrap(),
        "{}\n"
    );
    // An open of that state reaches it, and makes what it needs.
    let journal = Open::append().create(0o600).dirs(0o700).own_state();
    let mut file = root
        .open_file(".io\\runs\\1.jsonl", &journal)
        .unwrap()
        .into_file();
    file.write_all(b"{\"n\":1}\n").unwrap();
    drop(file);
    assert_eq!(
        std::fs::read_to_string(tmp.path().join(".io/runs/1.jsonl")).unwrap(),
        "{\"n\":1}\n"
    );
}

/// Whether `alias` opens the file `name` does under `dir`: the file
/// system made it an alias of it.
fn aliases(dir: &Path, alias: &str, name: &str) -> bool {
    let id = |path: PathBuf| {
        let dir = Dir::open_ambient_dir(path, cap_std::ambient_authority()).ok()?;
        let meta = dir.dir_metadata().ok()?;
        Some((meta.dev(), meta.ino()))
    };
    id(dir.join(alias)).is_some_and(|alias| Some(alias) == id(dir.join(name)))
}

#[test]
fn a_name_the_file_system_opens_as_owned_state_is_refused_by_the_file_it_opens() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("\u{e9}tat")).unwrap();
    std::fs::write(tmp.path().join("\u{e9}tat/x"), "s").unwrap();
    std::fs::create_dir(tmp.path().join(".io")).unwrap();
    std::fs::write(tmp.path().join(".io/x"), "s").unwrap();
    let root = Root::open(tmp.path()).unwrap().own("\u{e9}tat").own(".io");
    let mut compared = 0;
    // A letter outside ASCII in another case, which same_name does not
    // fold, and the 8.3 short names a file system may give `.io`.
    for (alias, owned) in [
        ("\u{c9}TAT", "\u{e9}tat"),
        ("IO~1", ".io"),
        ("_IO~1", ".io"),
        ("IO~2", ".io"),
    ] {
        if !aliases(tmp.path(), alias, owned) {
            eprintln!("`{alias}` is no alias of `{owned}` on this file system: not compared");
            continue;
        }
        compared += 1;
        let kind = root.kind_of(alias);
        assert!(
            matches!(&kind, Err(Error::Owned { name, .. }) if name == owned),
            "{alias}: {kind:?}"
        );
        for rel in [format!("{alias}\\x"), alias.to_owned()] {
            for how in every_open() {
                let got = root.open_file(&rel, &how);
                assert!(
                    matches!(&got, Err(Error::Owned { name, way: Way::Name }) if name == owned),
                    "{rel}: {got:?}"
                );
            }
        }
    }
    // An open of owned state reaches it by such a name too.
    let own = root.open_file("\u{c9}TAT\\x", &Open::read().own_state());
    assert_eq!(own.unwrap().read_bounded(10).unwrap().unwrap(), b"s");
    // NTFS and wine both fold `É` to `é`; wine 8.0 makes no 8.3 names.
    assert!(compared >= 1, "no alias to compare: {compared}");
    // A name with a `~` that is no alias is a file like any other.
    let plain = root.open_file("notes~1.md", &Open::write().create(0o600));
    assert!(plain.is_ok(), "{plain:?}");
}

#[test]
fn files_and_dirs_are_created_and_appends_go_to_the_end() {
    let (tmp, root) = root();
    let log = Open::append().create(0o600).dirs(0o700);
    let mut first = root
        .open_file("logs\\a\\run.log", &log)
        .unwrap()
        .into_file();
    let mut second = root.open_file("logs/a/run.log", &log).unwrap().into_file();
    first.write_all(b"one\n").unwrap();
    second.write_all(b"two\n").unwrap();
    first.write_all(b"three\n").unwrap();
    drop((first, second));
    let path = tmp.path().join("logs/a/run.log");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\nthree\n");
    // Without `dirs`, a missing directory is missing.
    let got = root.open_file("missing\\x", &Open::write().create(0o600));
    assert!(matches!(&got, Err(Error::Io(e)) if e.kind() == io::ErrorKind::NotFound));
    assert!(!tmp.path().join("missing").exists());
    // Write, then truncate.
    drop(
        root.open_file("w.txt", &Open::write().create(0o600))
            .unwrap(),
    );
    let mut w = root.open_file("w.txt", &Open::write()).unwrap().into_file();
    w.write_all(b"long text").unwrap();
    drop(w);
    let mut w = root
        .open_file("w.txt", &Open::write().truncate())
        .unwrap()
        .into_file();
    w.write_all(b"x").unwrap();
    drop(w);
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("w.txt")).unwrap(),
        "x"
    );
    let read = root.open_file("notes.md", &Open::read()).unwrap();
    assert_eq!(read.via(), Via::Direct);
    assert_eq!(read.read_bounded(100).unwrap().unwrap(), b"# notes\n");
    let missing = root.open_file("nothing.md", &Open::read());
    assert!(matches!(&missing, Err(Error::Io(e)) if e.kind() == io::ErrorKind::NotFound));
}

#[test]
fn a_directory_opens_for_a_read_that_fails_and_a_file_is_no_directory_on_the_way() {
    let (tmp, root) = root();
    std::fs::create_dir(tmp.path().join("d")).unwrap();
    let mut dir = root.open_file("d", &Open::read()).unwrap().into_file();
    assert!(dir.read(&mut [0; 8]).is_err(), "a directory's read fails");
    assert!(root.open_file("d", &Open::write()).is_err());
    let got = root.open_file("notes.md\\x", &Open::read());
    assert!(matches!(got, Err(Error::Io(_))), "{got:?}");
    assert_eq!(root.kind_of("d").unwrap(), Some(Kind::Directory));
    assert_eq!(root.kind_of("notes.md").unwrap(), Some(Kind::Regular));
    assert_eq!(root.kind_of("d\\none").unwrap(), None);
    let on_a_file = root.kind_of("notes.md\\x");
    assert!(matches!(on_a_file, Err(Error::Io(_))), "{on_a_file:?}");
}

#[test]
fn a_lazy_root_is_opened_at_each_open_until_it_exists() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("later");
    let root = Root::lazy(&path);
    assert!(!root.is_open());
    let got = root.open_file("x", &Open::read());
    assert!(matches!(&got, Err(Error::Io(e)) if e.kind() == io::ErrorKind::NotFound));
    std::fs::create_dir(&path).unwrap();
    std::fs::write(path.join("x"), "x").unwrap();
    assert!(root.open_file("x", &Open::read()).is_ok());
    assert!(root.is_at(&path));
    assert_eq!(root.given(), path);
}

/// A root with links made by std (which on a real Windows needs the
/// privilege to make them, or developer mode): `out` and `out-file` lead
/// out of it, `in` to `real\`, `into-state` to `.io`, `dangling` to
/// nothing; `None` when links cannot be made here.
fn linked() -> Option<(tempfile::TempDir, Root, PathBuf)> {
    use std::os::windows::fs::{symlink_dir, symlink_file};
    let tmp = tempfile::tempdir().unwrap();
    let (dir, outside) = (tmp.path().join("root"), tmp.path().join("outside"));
    std::fs::create_dir_all(dir.join("real")).unwrap();
    std::fs::create_dir_all(dir.join(".io")).unwrap();
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret"), "s").unwrap();
    std::fs::write(dir.join("real/x"), "x").unwrap();
    if let Err(e) = symlink_dir(&outside, dir.join("out")) {
        eprintln!("skipped: this Windows user cannot make a symbolic link ({e})");
        return None;
    }
    symlink_file(outside.join("secret"), dir.join("out-file")).unwrap();
    symlink_dir("real", dir.join("in")).unwrap();
    symlink_dir(".io", dir.join("into-state")).unwrap();
    symlink_file("nothing-yet", dir.join("dangling")).unwrap();
    let root = Root::open(&dir).unwrap().own(".io");
    Some((tmp, root, outside))
}

#[test]
fn no_link_under_the_root_is_followed_and_nothing_lands_through_one() {
    let why = "wine 8.0 makes no symbolic link (creating one reports success and makes nothing)";
    if skipped_under_wine("links on the way", why) {
        return;
    }
    let Some((tmp, root, outside)) = linked() else {
        return;
    };
    for (rel, link) in [
        ("out\\secret", "out"),
        ("out\\new", "out"),
        ("in\\x", "in"),
        ("into-state\\run.jsonl", "into-state"),
        ("out-file", "out-file"),
        ("dangling", "dangling"),
    ] {
        for how in [Open::write().create(0o600).dirs(0o700), Open::read()] {
            let got = root.open_file(rel, &how);
            assert!(
                matches!(&got, Err(Error::Outside { through: Some(l) }) if l == Path::new(link)),
                "{rel}: {got:?}"
            );
        }
    }
    assert_eq!(listing(&outside), [OsString::from("secret")]);
    assert!(!tmp.path().join("root/nothing-yet").exists());
    assert_eq!(root.kind_of("out").unwrap(), Some(Kind::Symlink));
    // The operator's own read may follow one anywhere, and is told so.
    let own = root
        .open_file("out-file", &Open::read().links(Links::Anywhere))
        .unwrap();
    assert_eq!(own.via(), Via::LinkOut);
}

#[test]
fn a_link_as_the_last_name_of_an_append_is_a_failure() {
    let why = "wine 8.0 makes no symbolic link (creating one reports success and makes nothing)";
    if skipped_under_wine("a link at the end of an append", why) {
        return;
    }
    let Some((_tmp, root, outside)) = linked() else {
        return;
    };
    let per_event = Open::append().create(0o600).nofollow().unjudged();
    for rel in ["out-file", "dangling"] {
        let got = root.open_file(rel, &per_event);
        assert!(
            matches!(&got, Err(Error::Io(e)) if e.raw_os_error() == Some(STOPPED_ON_SYMLINK)),
            "{rel}: {got:?}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(outside.join("secret")).unwrap(),
        "s"
    );
}

#[test]
fn a_root_is_made_absolute_and_compared_so() {
    let cwd = std::env::current_dir().unwrap();
    let empty = Root::lazy("");
    assert_eq!(empty.given(), Path::new(""));
    assert_eq!(empty.path(), cwd);
    assert!(empty.is_at(Path::new("")));
    assert!(empty.is_at(&cwd));
    let dot = Root::lazy(".");
    assert_eq!(dot.path(), std::path::absolute(".").unwrap());
    assert!(!dot.is_at(Path::new("C:\\elsewhere")));
    assert_eq!(Root::open("").unwrap().path(), cwd);
}

#[test]
fn read_head_and_read_bounded_read_at_most_their_limit() {
    let (tmp, root) = root();
    std::fs::write(tmp.path().join("script.cmd"), "@echo off\r\necho hi\r\n").unwrap();
    let open = || root.open_file("script.cmd", &Open::read()).unwrap();
    assert_eq!(open().read_head(9).unwrap(), b"@echo off");
    assert_eq!(open().read_head(1000).unwrap(), b"@echo off\r\necho hi\r\n");
    assert_eq!(open().read_bounded(5).unwrap(), None);
    assert_eq!(
        open().read_bounded(100).unwrap().unwrap(),
        b"@echo off\r\necho hi\r\n"
    );
    std::fs::create_dir(tmp.path().join("d")).unwrap();
    let dir = root.open_file("d", &Open::read()).unwrap();
    assert!(dir.read_head(10).is_err());
}

#[test]
fn an_os_error_is_shown_without_its_code() {
    // ERROR_FILE_NOT_FOUND, in the system's words, as wine says them too.
    let e = io::Error::from_raw_os_error(2);
    let words = e.to_string();
    let short = words.strip_suffix(" (os error 2)").unwrap();
    assert_eq!(Error::Io(e).to_string(), short);
    let other = Error::Io(io::Error::other("plain words"));
    assert_eq!(other.to_string(), "plain words");
}

#[test]
fn a_walk_error_names_the_link_as_on_unix() {
    let e = Error::Outside {
        through: Some(PathBuf::from("logs")),
    };
    assert_eq!(
        e.to_string(),
        "it goes through the symbolic link `logs`, which may lead out of the root (on Windows \
         no symbolic link or junction is followed)"
    );
}

#[test]
fn a_read_asks_for_no_write_and_a_look_that_fails_is_the_error() {
    use std::os::windows::fs::OpenOptionsExt;
    let (tmp, root) = root();
    // Held open by another, who lets others read it and not write it (we
    // run as root here, so a read-only file would not tell).
    let held = std::fs::OpenOptions::new()
        .read(true)
        .share_mode(FILE_SHARE_READ)
        .open(tmp.path().join("notes.md"))
        .unwrap();
    let read = root.open_file("notes.md", &Open::read());
    assert!(read.is_ok(), "a read asks for no write: {read:?}");
    assert!(root.open_file("notes.md", &Open::write()).is_err());
    drop(held);
    // A name the system cannot look at is an error, not "no such name".
    let got = root.kind_of("a\u{0}b");
    assert!(matches!(got, Err(Error::Io(_))), "{got:?}");
}
