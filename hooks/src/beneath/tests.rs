//! The rules of [`super`], both ways where the kernel has `openat2`: by it,
//! and by the walk the tests force.

use super::*;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::time::Duration;

/// A root and, beside it, a directory outside it holding `secret`: the root
/// has `out -> <outside>`, `rel-secret -> ../outside/secret`, `in -> real`,
/// `real/`, `state/` (owned) and `into-state -> state`.
fn hostile() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let (root, outside) = (tmp.path().join("root"), tmp.path().join("outside"));
    std::fs::create_dir_all(root.join("real")).unwrap();
    std::fs::create_dir_all(root.join("state/runs")).unwrap();
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret"), "s").unwrap();
    symlink(&outside, root.join("out")).unwrap();
    symlink("../outside/secret", root.join("rel-secret")).unwrap();
    symlink("real", root.join("in")).unwrap();
    symlink("state", root.join("into-state")).unwrap();
    (tmp, root, outside)
}

/// The root, owning `state`, resolving by `openat2` (`walk` false) or the
/// walk.
fn root(path: &Path, walk: bool) -> Root {
    let mut root = Root::open(path).unwrap().own("state");
    root.walk = walk;
    root
}

/// Whether `openat2` answers here: what the walk and it disagree on is
/// tested only then.
fn kernel_resolves() -> bool {
    cfg!(target_os = "linux") && {
        let dir = tempfile::tempdir().unwrap();
        let _ = Root::open(dir.path())
            .unwrap()
            .open_file("x", &Open::read());
        !NO_OPENAT2.load(Ordering::Relaxed)
    }
}

const BOTH: [bool; 2] = [false, true];

fn write() -> Open {
    Open::write().create(0o666).truncate().dirs(0o777)
}

fn io_kind(got: &Result<Opened, Error>) -> Option<io::ErrorKind> {
    match got {
        Err(Error::Io(e)) => Some(e.kind()),
        _ => None,
    }
}

fn errno(got: &Result<Opened, Error>) -> Option<i32> {
    match got {
        Err(Error::Io(e)) => e.raw_os_error(),
        _ => None,
    }
}

#[test]
fn a_link_out_of_the_root_is_refused_both_ways_and_nothing_lands_outside() {
    for walk in BOTH {
        let (_tmp, path, outside) = hostile();
        let root = root(&path, walk);
        for rel in ["out/new", "out/secret", "out/deeper/new", "rel-secret"] {
            for how in [write(), Open::read(), Open::append().create(0o600)] {
                let got = root.open_file(rel, &how);
                assert!(
                    matches!(got, Err(Error::Outside { .. })),
                    "walk {walk} {rel} {how:?}: {got:?}"
                );
            }
        }
        let mut left: Vec<_> = std::fs::read_dir(&outside)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        left.sort();
        assert_eq!(left, ["secret"], "walk {walk}");
        assert_eq!(std::fs::read(outside.join("secret")).unwrap(), b"s");
    }
}

#[test]
fn dot_dot_and_absolute_paths_are_refused_before_any_open() {
    for walk in BOTH {
        let (_tmp, path, _outside) = hostile();
        let root = root(&path, walk);
        for rel in ["../outside/new", "a/../../outside/new", "/tmp/x", "a/.."] {
            let got = root.open_file(rel, &write());
            assert!(
                matches!(got, Err(Error::Outside { through: None })),
                "walk {walk} {rel}: {got:?}"
            );
        }
        assert!(!path.join("a").exists(), "no directory was made first");
        let none = root.open_file(".", &Open::read());
        assert_eq!(io_kind(&none), Some(io::ErrorKind::InvalidInput));
    }
    assert!(stays_beneath(Path::new("a/./b")));
    assert!(!stays_beneath(Path::new("/a")));
    assert!(!stays_beneath(Path::new("a/../b")));
}

/// The walk cannot tell where a link leads, so it follows none and names
/// it; `openat2` follows a link that stays under the root.
#[test]
fn a_link_that_stays_beneath_is_followed_only_by_openat2_and_the_walk_names_it() {
    let (_tmp, path, _outside) = hostile();
    let walked = root(&path, true).open_file("in/f", &write());
    assert!(
        matches!(&walked, Err(Error::Outside { through: Some(l) }) if l == Path::new("in")),
        "{walked:?}"
    );
    assert_eq!(
        walked.unwrap_err().to_string(),
        "it goes through the symbolic link `in`, which may lead out of the root (without \
         openat2 no link is followed)"
    );
    if kernel_resolves() {
        let opened = root(&path, false).open_file("in/f", &write()).unwrap();
        assert_eq!(opened.via(), Via::LinkBeneath);
        assert!(opened.via().through_link());
        assert!(path.join("real/f").is_file());
        // A link at the end, to a file that stays beneath: followed too.
        std::fs::write(path.join("real/g"), "g").unwrap();
        symlink("real/g", path.join("to-g")).unwrap();
        let read = root(&path, false).open_file("to-g", &Open::read()).unwrap();
        assert_eq!(read.via(), Via::LinkBeneath);
        assert_eq!(read.read_bounded(10).unwrap().unwrap(), b"g");
    }
}

#[test]
fn owned_state_is_reached_with_no_link_at_all() {
    for walk in BOTH {
        let (_tmp, path, outside) = hostile();
        let root = root(&path, walk);
        // By its name: made, written, read back, nothing through a link.
        let how = Open::append().create(0o600).dirs(0o700);
        let opened = root.open_file("state/runs/r.jsonl", &how).unwrap();
        assert_eq!(opened.via(), Via::Direct);
        assert!(root.is_owned(Path::new("./STATE/x")));
        assert!(!root.is_owned(Path::new("stated/x")));
        // A link inside owned state, even one that stays beneath, is
        // refused; one that leads out says so.
        symlink("../../real", path.join("state/runs/back")).unwrap();
        symlink(&outside, path.join("state/out")).unwrap();
        let inside = root.open_file("state/runs/back/x", &Open::read());
        let out = root.open_file("state/out/secret", &Open::read());
        if walk {
            assert!(
                matches!(inside, Err(Error::Outside { through: Some(_) })),
                "{inside:?}"
            );
        } else {
            assert!(matches!(inside, Err(Error::Link)), "{inside:?}");
        }
        assert!(matches!(out, Err(Error::Outside { .. })), "{out:?}");
        // And `not_owned` refuses it by name, in any case.
        for rel in ["state/runs/r.jsonl", "./STATE/new", "State/runs/x"] {
            let got = root.open_file(rel, &write().not_owned());
            assert!(matches!(got, Err(Error::Owned)), "{rel}: {got:?}");
        }
    }
}

/// A link that stays beneath the root but leads into owned state: refused
/// whatever it is opened for, and nothing is created there; a link to
/// nothing is never made into a file.
#[test]
fn owned_state_is_never_reached_through_a_link_from_elsewhere() {
    if !kernel_resolves() {
        eprintln!("openat2 is not available here: the walk follows no link at all");
        return;
    }
    let (_tmp, path, _outside) = hostile();
    std::fs::write(path.join("state/runs/r.jsonl"), "journal").unwrap();
    symlink("state/runs/r.jsonl", path.join("notes")).unwrap();
    symlink("state/runs/new.jsonl", path.join("fresh")).unwrap();
    symlink("real/none", path.join("nothing")).unwrap();
    let root = root(&path, false);
    for (rel, how) in [
        ("notes", Open::read()),
        ("notes", write()),
        ("into-state/runs/new.jsonl", write()),
        ("into-state/runs/r.jsonl", Open::read()),
        ("fresh", write()),
    ] {
        let got = root.open_file(rel, &how);
        assert!(matches!(got, Err(Error::Owned)), "{rel} {how:?}: {got:?}");
    }
    let nothing = root.open_file("nothing", &write());
    assert!(matches!(nothing, Err(Error::LinkToNothing)), "{nothing:?}");
    assert_eq!(
        std::fs::read(path.join("state/runs/r.jsonl")).unwrap(),
        b"journal"
    );
    assert!(!path.join("state/runs/new.jsonl").exists());
    assert!(!path.join("real/none").exists());
    // A loop is what the system says it is.
    symlink("loop", path.join("loop")).unwrap();
    let looped = root.open_file("loop", &write());
    assert_eq!(
        errno(&looped),
        Some(Errno::LOOP.raw_os_error()),
        "{looped:?}"
    );
}

#[test]
fn files_and_dirs_are_created_with_the_modes_given_and_plain_paths_work() {
    for walk in BOTH {
        let (_tmp, path, _outside) = hostile();
        let root = root(&path, walk);
        let private = Open::write().create(0o600).truncate().dirs(0o700);
        use std::io::Write;
        root.open_file("p/q/f", &private)
            .unwrap()
            .into_file()
            .write_all(b"one")
            .unwrap();
        root.open_file("./p/q/f", &private)
            .unwrap()
            .into_file()
            .write_all(b"two")
            .unwrap();
        let read = root.open_file("p/q/f", &Open::read()).unwrap();
        assert_eq!(read.via(), Via::Direct);
        assert!(!read.via().through_link());
        assert_eq!(read.read_bounded(3).unwrap().unwrap(), b"two");
        let over = root.open_file("p/q/f", &Open::read()).unwrap();
        assert_eq!(
            over.read_bounded(2).unwrap(),
            None,
            "one read past the limit"
        );
        let missing = root.open_file("p/none", &Open::read());
        assert_eq!(io_kind(&missing), Some(io::ErrorKind::NotFound));
        let no_dir = root.open_file("none/f", &Open::write().create(0o600));
        assert_eq!(io_kind(&no_dir), Some(io::ErrorKind::NotFound));
        let mode = |p: &str| {
            std::fs::metadata(path.join(p))
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(
            (mode("p"), mode("p/q"), mode("p/q/f")),
            (0o700, 0o700, 0o600)
        );
        // A file where a directory should be.
        let through_a_file = root.open_file("p/q/f/g", &Open::read());
        assert_eq!(errno(&through_a_file), Some(Errno::NOTDIR.raw_os_error()));
        // A directory is opened to read (its read says what it is), never
        // to write.
        let dir = root.open_file("p", &Open::read()).unwrap();
        assert!(dir.read_bounded(10).is_err());
        let dir = root.open_file("p", &Open::write());
        assert_eq!(errno(&dir), Some(Errno::ISDIR.raw_os_error()), "{dir:?}");
    }
}

#[test]
fn a_special_file_is_refused_by_its_type_without_blocking() {
    use crate::test_watchdog::{mkfifo, within};
    for walk in BOTH {
        let (_tmp, path, _outside) = hostile();
        mkfifo(&path.join("pipe"));
        let got = within(Duration::from_secs(20), "the opens", move || {
            let root = root(&path, walk);
            let read = root.open_file("pipe", &Open::read()).map(drop);
            let append = root
                .open_file("pipe", &Open::append().create(0o600))
                .map(drop);
            let through = root.open_file("pipe/new", &write()).map(drop);
            // A device, where this user may make one (root): `/dev/null`'s
            // numbers, a read of which would succeed and say nothing.
            let null = rustix::fs::mknodat(
                rustix::fs::CWD,
                path.join("null"),
                FileType::CharacterDevice,
                Mode::from_raw_mode(0o600),
                rustix::fs::makedev(1, 3),
            )
            .is_ok()
            .then(|| root.open_file("null", &Open::read()).map(drop));
            (read, append, through, null)
        });
        let (read, append, through, null) = got;
        assert!(
            matches!(read, Err(Error::NotRegular { kind: "a FIFO" })),
            "{read:?}"
        );
        assert!(
            matches!(
                append,
                Err(Error::NotRegular {
                    kind: "a FIFO or a socket"
                })
            ),
            "{append:?}"
        );
        assert!(
            matches!(&through, Err(Error::Io(e)) if e.raw_os_error() == Some(Errno::NOTDIR.raw_os_error())),
            "{through:?}"
        );
        match null {
            Some(null) => assert!(
                matches!(
                    null,
                    Err(Error::NotRegular {
                        kind: "a character device"
                    })
                ),
                "{null:?}"
            ),
            None => eprintln!("no device node could be made here: only the FIFO was tested"),
        }
    }
}

/// A FIFO read through the root is reached with `O_PATH` and never opened:
/// a writer waiting for a reader stays waiting.
#[test]
fn a_fifo_is_judged_without_being_opened() {
    use crate::test_watchdog::mkfifo;
    if Proc::open().is_none() {
        eprintln!("no /proc here: the FIFO is opened O_NONBLOCK and judged instead");
        return;
    }
    let (_tmp, path, _outside) = hostile();
    let fifo = path.join("pipe");
    mkfifo(&fifo);
    let root = root(&path, false);
    let got = root.open_file("pipe", &Open::read());
    assert!(
        matches!(got, Err(Error::NotRegular { kind: "a FIFO" })),
        "{got:?}"
    );
    // A writer's non-blocking open succeeds only while a reader has it open.
    let writer = rustix::fs::open(&fifo, OFlags::WRONLY | OFlags::NONBLOCK, Mode::empty());
    assert_eq!(writer.err(), Some(Errno::NXIO), "no reader has it open");
}

/// The operator's own file may be reached through a link that leads out
/// of the root, and the open says so; a link beneath says that too.
#[test]
fn anywhere_follows_a_link_out_and_says_where_it_led() {
    for walk in BOTH {
        let (_tmp, path, _outside) = hostile();
        std::fs::write(path.join("real/mine"), "m").unwrap();
        symlink("real/mine", path.join("near")).unwrap();
        let root = root(&path, walk);
        let how = Open::read().links(Links::Anywhere);
        let far = root.open_file("rel-secret", &how).unwrap();
        assert_eq!(far.via(), Via::LinkOut, "walk {walk}");
        assert_eq!(far.read_bounded(10).unwrap().unwrap(), b"s");
        let near = root.open_file("near", &how).unwrap();
        let expected = if walk { Via::LinkOut } else { Via::LinkBeneath };
        assert_eq!(near.via(), expected, "walk {walk}");
        let plain = root.open_file("real/mine", &how).unwrap();
        assert_eq!(plain.via(), Via::Direct);
        // Never to write.
        let written = root.open_file("rel-secret", &Open::write().links(Links::Anywhere));
        assert!(matches!(written, Err(Error::Outside { .. })), "{written:?}");
    }
}

#[test]
fn a_file_of_the_kernels_is_refused_before_a_read() {
    if !Path::new("/proc/self/environ").exists() {
        eprintln!("no /proc here");
        return;
    }
    for walk in BOTH {
        let (_tmp, path, _outside) = hostile();
        symlink("/proc/self/environ", path.join("env")).unwrap();
        let got = root(&path, walk).open_file("env", &Open::read().links(Links::Anywhere));
        assert!(
            matches!(got, Err(Error::Kernel { fs: "proc" })),
            "walk {walk}: {got:?}"
        );
        assert_eq!(
            got.unwrap_err().to_string(),
            "it is a file of the kernel's proc file system (as under /proc or /sys), whose \
             reads can block or hold secrets"
        );
    }
}

/// Every descriptor opened here is close-on-exec, so a hook spawned
/// meanwhile inherits none; the root must be a directory.
#[test]
fn descriptors_are_close_on_exec_and_the_root_is_a_directory() {
    let (_tmp, path, _outside) = hostile();
    let cloexec = |fd: BorrowedFd<'_>| {
        rustix::io::fcntl_getfd(fd)
            .unwrap()
            .contains(rustix::io::FdFlags::CLOEXEC)
    };
    for walk in BOTH {
        let root = root(&path, walk);
        assert!(cloexec(root.as_fd()));
        let file = root.open_file("real/g", &write()).unwrap();
        assert!(cloexec(file.file().as_fd()), "walk {walk}");
        let read = root.open_file("real/g", &Open::read()).unwrap();
        assert!(cloexec(read.file().as_fd()), "walk {walk}");
        for extra in [OFlags::empty(), OFlags::CLOEXEC] {
            let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW | extra;
            let resolve = if walk { Resolve::Walk } else { Resolve::Auto };
            let fd = open_beneath(
                root.as_fd(),
                Path::new("real/h"),
                flags,
                Mode::from_raw_mode(0o600),
                resolve,
            );
            assert!(cloexec(fd.unwrap().as_fd()), "walk {walk} {extra:?}");
        }
    }
    let err = Root::open(path.join("real/g")).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(Errno::NOTDIR.raw_os_error()));
    assert!(format!("{:?}", Root::open(&path).unwrap().own("state")).contains("state"));
}

/// The `append` action's per-event open: beneath the root, the last name
/// never followed when the flags say so, a FIFO on the way no directory.
#[test]
fn the_append_open_stays_beneath_and_follows_no_last_link() {
    use crate::test_watchdog::{mkfifo, within};
    for resolve in [Resolve::Auto, Resolve::Walk] {
        let (_tmp, path, outside) = hostile();
        let fd = open_dir(&path).unwrap();
        let create = |name: &str| {
            let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW;
            open_beneath(
                fd.as_fd(),
                Path::new(name),
                flags,
                Mode::from_raw_mode(0o600),
                resolve,
            )
        };
        for name in [
            "out/new",
            "./out/new",
            "../outside/new",
            "real/../../outside/new",
        ] {
            let got = create(name);
            assert!(
                matches!(got, Err(Error::Outside { .. })),
                "{resolve:?} {name}: {got:?}"
            );
        }
        if resolve == Resolve::Walk {
            let walked = create("out/new");
            assert!(
                matches!(walked, Err(Error::Outside { through: Some(l) }) if l == Path::new("out"))
            );
        }
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
        create("real/f").expect("a plain name");
        create("./g").expect("a plain name");
        std::fs::write(path.join("real/file"), "").unwrap();
        symlink("real/file", path.join("to-file")).unwrap();
        for name in ["to-file", "./to-file"] {
            let last = create(name);
            assert!(
                matches!(&last, Err(Error::Io(e)) if e.raw_os_error() == Some(Errno::LOOP.raw_os_error())),
                "{resolve:?}: {last:?}"
            );
        }
        mkfifo(&path.join("pipe"));
        let dir = open_dir(&path).unwrap();
        let got = within(Duration::from_secs(20), "the open", move || {
            let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW;
            open_beneath(
                dir.as_fd(),
                Path::new("pipe/new"),
                flags,
                Mode::from_raw_mode(0o600),
                resolve,
            )
            .map(drop)
        });
        assert!(
            matches!(&got, Err(Error::Io(e)) if e.raw_os_error() == Some(Errno::NOTDIR.raw_os_error())),
            "{resolve:?}: {got:?}"
        );
    }
}

/// A reader whose reads a signal interrupts before each chunk, as a
/// `read` on a pipe or a terminal can be when a handler without
/// `SA_RESTART` runs.
struct Interrupted<'a> {
    chunks: std::slice::Iter<'a, &'a [u8]>,
    /// Whether the last read was the interrupted one.
    interrupted: bool,
}

impl Read for Interrupted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.interrupted {
            self.interrupted = true;
            return Err(io::ErrorKind::Interrupted.into());
        }
        self.interrupted = false;
        let Some(chunk) = self.chunks.next() else {
            return Ok(0);
        };
        buf[..chunk.len()].copy_from_slice(chunk);
        Ok(chunk.len())
    }
}

#[test]
fn a_read_a_signal_interrupts_is_tried_again_and_loses_nothing() {
    let chunks: &[&[u8]] = &[b"[[hook]]\n", b"on = \"step\"\n"];
    let file = Interrupted {
        chunks: chunks.iter(),
        interrupted: false,
    };
    let bytes = read_bounded(file, 1024).expect("EINTR is retried, not an error");
    assert_eq!(bytes.as_deref(), Some(&b"[[hook]]\non = \"step\"\n"[..]));
}

#[test]
fn any_other_read_error_is_the_error() {
    struct Failing;
    impl Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::ErrorKind::PermissionDenied.into())
        }
    }
    let error = read_bounded(Failing, 1024).expect_err("not retried");
    assert_eq!(error.kind(), io::ErrorKind::PermissionDenied);
}

/// `append` writes after what is there, `write` from the start, and
/// `truncate` empties the file first.
#[test]
fn append_write_and_truncate_do_what_they_say() {
    use std::io::Write;
    for walk in BOTH {
        let (_tmp, path, _outside) = hostile();
        let root = root(&path, walk);
        let put = |how: Open, bytes: &[u8]| {
            root.open_file("real/log", &how)
                .unwrap()
                .into_file()
                .write_all(bytes)
                .unwrap();
        };
        put(Open::append().create(0o600), b"one\n");
        put(Open::append().create(0o600), b"two\n");
        assert_eq!(std::fs::read(path.join("real/log")).unwrap(), b"one\ntwo\n");
        put(Open::write(), b"ONE");
        assert_eq!(std::fs::read(path.join("real/log")).unwrap(), b"ONE\ntwo\n");
        put(Open::write().truncate(), b"x");
        assert_eq!(std::fs::read(path.join("real/log")).unwrap(), b"x");
        // Without `create`, a missing file is not made.
        let missing = root.open_file("real/none", &Open::append());
        assert_eq!(io_kind(&missing), Some(io::ErrorKind::NotFound));
    }
}
