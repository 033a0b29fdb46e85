//! The rules of [`super`], both ways where the kernel has `openat2`: by it,
//! and by the walk the tests force.

use super::*;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::time::Duration;

/// A FIFO at `path`, made here (no `mkfifo` program is run).
fn mkfifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        FileType::Fifo,
        Mode::from_raw_mode(0o600),
        0,
    )
    .expect("mkfifo");
}

/// `body`'s value, or a failed test naming `what` once it has run for
/// `limit`: an open that blocks (a FIFO's) fails the test instead of
/// hanging it.
fn within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    body: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        let _ = tx.send(body());
    });
    match rx.recv_timeout(limit) {
        Ok(value) => {
            let _ = worker.join();
            value
        }
        // The sender was dropped without a value: `body` panicked.
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("the worker sends before it returns"),
        },
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("hung: {what} did not finish within {limit:?}")
        }
    }
}

/// The root's descriptor.
fn fd_of(root: &Root) -> BorrowedFd<'_> {
    root.fd.as_ref().expect("an open root").as_fd()
}

/// The per-event open of a log: appending, created 0600, no link at its
/// end, unjudged.
fn per_event() -> Open {
    Open::write().create(0o600).nofollow().unjudged()
}

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

/// `stays_beneath` reads the bytes; it says what `components()` says: only
/// `.` and plain names.
#[test]
fn stays_beneath_is_components() {
    let cases = [
        "", ".", "..", "/", "//a", "a", "a/", "a//b", "./a", "a/.", "a/./b", ".a", "..a", "a..",
        "a/..", "../a", "a/../b", "a/..b", "a/b../c", "./..", "/a", "a/ ..", "...", "a/...",
    ];
    for case in cases {
        let path = Path::new(case);
        let by_components = path
            .components()
            .all(|c| matches!(c, Component::CurDir | Component::Normal(_)));
        assert_eq!(stays_beneath(path), by_components, "{case:?}");
    }
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
        let how = Open::append().create(0o600).dirs(0o700).own_state();
        let opened = root.open_file("state/runs/r.jsonl", &how).unwrap();
        assert_eq!(opened.via(), Via::Direct);
        assert!(root.is_owned(Path::new("./STATE/x")));
        assert!(!root.is_owned(Path::new("stated/x")));
        // A link inside owned state, even one that stays beneath, is
        // refused; one that leads out says so.
        symlink("../../real", path.join("state/runs/back")).unwrap();
        symlink(&outside, path.join("state/out")).unwrap();
        let inside = root.open_file("state/runs/back/x", &Open::read().own_state());
        let out = root.open_file("state/out/secret", &Open::read().own_state());
        if walk {
            assert!(
                matches!(inside, Err(Error::Outside { through: Some(_) })),
                "{inside:?}"
            );
        } else {
            assert!(matches!(inside, Err(Error::Link)), "{inside:?}");
        }
        assert!(matches!(out, Err(Error::Outside { .. })), "{out:?}");
        // And any open but one of owned state refuses it by name, in any
        // case.
        for rel in ["state/runs/r.jsonl", "./STATE/new", "State/runs/x"] {
            for how in [write(), Open::read(), per_event()] {
                let got = root.open_file(rel, &how);
                assert!(
                    matches!(&got, Err(Error::Owned { name, way: Way::Name }) if name == "state"),
                    "walk {walk} {rel} {how:?}: {got:?}"
                );
            }
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
        assert!(
            matches!(&got, Err(Error::Owned { name, way: Way::Link(Some(_)) }) if name == "state"),
            "{rel} {how:?}: {got:?}"
        );
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
        assert!(cloexec(fd_of(&root)));
        let file = root.open_file("real/g", &write()).unwrap();
        assert!(cloexec(file.file().as_fd()), "walk {walk}");
        let read = root.open_file("real/g", &Open::read()).unwrap();
        assert!(cloexec(read.file().as_fd()), "walk {walk}");
        let mut unjudged = Root::open(&path).unwrap();
        unjudged.walk = walk;
        let fd = unjudged.open_file("real/h", &per_event()).unwrap();
        assert!(cloexec(fd.file().as_fd()), "walk {walk}");
    }
    let err = Root::open(path.join("real/g")).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(Errno::NOTDIR.raw_os_error()));
    assert!(format!("{:?}", Root::open(&path).unwrap().own("state")).contains("state"));
}

/// The `append` action's per-event open: beneath the root, the last name
/// never followed when the flags say so, a FIFO on the way no directory.
#[test]
fn the_append_open_stays_beneath_and_follows_no_last_link() {
    for walk in BOTH {
        let (_tmp, path, outside) = hostile();
        let mut root = Root::open(&path).unwrap();
        root.walk = walk;
        let create = |name: &str| root.open_file(name, &per_event());
        for name in [
            "out/new",
            "./out/new",
            "../outside/new",
            "real/../../outside/new",
        ] {
            let got = create(name);
            assert!(
                matches!(got, Err(Error::Outside { .. })),
                "walk {walk} {name}: {got:?}"
            );
        }
        if walk {
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
                "walk {walk}: {last:?}"
            );
        }
        mkfifo(&path.join("pipe"));
        let got = within(Duration::from_secs(20), "the open", move || {
            root.open_file("pipe/new", &per_event()).map(drop)
        });
        assert!(
            matches!(&got, Err(Error::Io(e)) if e.raw_os_error() == Some(Errno::NOTDIR.raw_os_error())),
            "walk {walk}: {got:?}"
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

/// A lazy root that could not be opened when it was made is opened at each
/// open: missing, an open fails as the directory's open does; made since,
/// an open goes through. Its paths are kept as given and made absolute.
#[test]
fn a_lazy_root_is_opened_at_each_open_until_it_exists() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("later");
    let root = Root::lazy(&dir);
    assert!(!root.is_open());
    assert_eq!((root.given(), root.path()), (dir.as_path(), dir.as_path()));
    let missing = root.open_file("log", &Open::append().create(0o600));
    assert_eq!(io_kind(&missing), Some(io::ErrorKind::NotFound));
    std::fs::create_dir(&dir).unwrap();
    for how in [Open::append().create(0o600), per_event()] {
        root.open_file("log", &how).expect("opened now");
    }
    assert!(!root.is_open(), "still opened at each open");
    assert!(dir.join("log").is_file());
    assert!(Root::lazy(&dir).is_open());
    assert!(Root::open(tmp.path().join("none")).is_err());
    assert!(format!("{root:?}").contains("open: false"));
}

/// A relative root is made absolute against the working directory, and an
/// empty one is the working directory itself; `is_at` compares roots so.
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
    assert!(!dot.is_at(Path::new("/elsewhere")));
    assert_eq!(Root::open("").unwrap().path(), cwd);
}

/// A file's `EPERM` (here an immutable file's, as an append-only file's
/// would be), by the one-name `openat` or by `openat2`, is the file's
/// answer: it never leaves `openat2` unasked for the rest of the process,
/// which would send every later open to the walk and refuse the links
/// beneath the root that `openat2` follows.
#[test]
fn a_files_eperm_leaves_openat2_asked() {
    use rustix::fs::{IFlags, ioctl_getflags, ioctl_setflags};
    if !kernel_resolves() {
        eprintln!("skipped: no openat2 here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    /// Lifts the flag even when an assertion fails, so the temp dir goes.
    struct Mutable(File, IFlags);
    impl Drop for Mutable {
        fn drop(&mut self) {
            let _ = ioctl_setflags(&self.0, self.1);
        }
    }
    let mut held = Vec::new();
    // One name (a plain `openat`) and two (`openat2`).
    for rel in ["log", "sub/log"] {
        let path = dir.path().join(rel);
        std::fs::write(&path, "").unwrap();
        let file = File::open(&path).unwrap();
        let flags = ioctl_getflags(&file).unwrap();
        if ioctl_setflags(&file, flags | IFlags::IMMUTABLE).is_err() {
            eprintln!(
                "skipped: cannot make a file immutable here (needs root and ext4 or the like)"
            );
            return;
        }
        held.push(Mutable(file, flags));
    }
    let root = Root::open(dir.path()).unwrap();
    let append = Open::append().nofollow().unjudged();
    for rel in ["log", "sub/log"] {
        match root.open_file(rel, &append) {
            Err(Error::Io(e)) => {
                assert_eq!(e.raw_os_error(), Some(Errno::PERM.raw_os_error()), "{rel}");
            }
            other => panic!("an immutable {rel} opened to append: {other:?}"),
        }
        assert!(
            !NO_OPENAT2.load(Ordering::Relaxed),
            "{rel}: a file's EPERM was taken for openat2's absence"
        );
    }
}

/// `openat2`'s `EAGAIN` is asked again, at most four times in all; any
/// other answer is the answer.
#[test]
#[cfg(target_os = "linux")]
fn eagain_is_retried_a_bounded_number_of_times() {
    for fails in 0..=5 {
        let mut calls = 0;
        let got = retry_again(|| {
            calls += 1;
            match calls <= fails {
                true => Err(Errno::AGAIN),
                false => Ok(calls),
            }
        });
        match fails < AGAIN_TRIES {
            true => assert_eq!(got, Ok(fails + 1)),
            false => assert_eq!(got, Err(Errno::AGAIN)),
        }
        assert_eq!(calls, (fails + 1).min(AGAIN_TRIES), "{fails} failures");
    }
    let mut calls = 0;
    let got: rustix::io::Result<()> = retry_again(|| {
        calls += 1;
        Err(Errno::ACCESS)
    });
    assert_eq!((got, calls), (Err(Errno::ACCESS), 1));
}

/// `nofollow` refuses a link at the end that `Links::Beneath` would
/// follow, judged or not; the link on the way is still followed by
/// `openat2`. An unjudged open does not tell how it got there; on a root
/// that owns state it is judged anyway.
#[test]
fn nofollow_refuses_a_last_link_and_unjudged_tells_nothing() {
    let (_tmp, path, _outside) = hostile();
    std::fs::write(path.join("real/file"), "x").unwrap();
    std::fs::write(path.join("state/x"), "x").unwrap();
    symlink("real/file", path.join("to-file")).unwrap();
    for walk in BOTH {
        let mut plain = Root::open(&path).unwrap();
        plain.walk = walk;
        let read = plain.open_file("to-file", &Open::read().nofollow());
        assert!(
            matches!(read, Err(Error::Link | Error::Outside { .. })),
            "walk {walk}: {read:?}"
        );
        let unjudged = plain
            .open_file("real/file", &Open::read().unjudged())
            .unwrap();
        assert_eq!(unjudged.via(), Via::Untold);
        assert!(Via::Untold.through_link());
        // On a root that owns state, a path with no link is still the one
        // resolution, and one with a link on the way is judged.
        let owning = root(&path, walk);
        let direct = owning
            .open_file("real/file", &Open::read().unjudged())
            .unwrap();
        assert_eq!(direct.via(), Via::Untold);
        let linked = owning.open_file("in/file", &Open::read().unjudged());
        match walk || !kernel_resolves() {
            true => assert!(
                matches!(&linked, Err(Error::Outside { through: Some(l) }) if l == Path::new("in")),
                "{linked:?}"
            ),
            false => assert_eq!(linked.unwrap().via(), Via::LinkBeneath),
        }
        assert!(matches!(
            owning.open_file("into-state/x", &Open::read().unjudged()),
            Err(Error::Owned { .. } | Error::Outside { .. })
        ));
        if !walk && kernel_resolves() {
            let through = plain
                .open_file("in/file", &Open::read().nofollow())
                .unwrap();
            assert_eq!(through.via(), Via::LinkBeneath);
        }
    }
}

/// `read_head` holds at most the bytes asked for, and all of a shorter
/// file; a directory's read fails.
#[test]
fn read_head_reads_at_most_the_head() {
    let (_tmp, path, _outside) = hostile();
    std::fs::write(path.join("real/script"), "#!/bin/sh\necho hi\n").unwrap();
    let root = Root::open(&path).unwrap();
    let head = |limit| {
        root.open_file("real/script", &Open::read())
            .unwrap()
            .read_head(limit)
            .unwrap()
    };
    assert_eq!(head(9), b"#!/bin/sh");
    assert_eq!(head(1000), b"#!/bin/sh\necho hi\n");
    let dir = root.open_file("real", &Open::read()).unwrap();
    assert!(dir.read_head(10).is_err());
}

/// Whether `act` opened the file at `path` (not with `O_PATH`, which opens
/// nothing), as inotify saw it: an `IN_OPEN` is queued at the open itself,
/// so nothing is waited for.
fn opens(path: &Path, act: impl FnOnce()) -> bool {
    use rustix::fs::inotify;
    let watch = inotify::init(inotify::CreateFlags::NONBLOCK | inotify::CreateFlags::CLOEXEC)
        .expect("inotify");
    inotify::add_watch(&watch, path, inotify::WatchFlags::OPEN).expect("watch");
    act();
    let mut buf = [std::mem::MaybeUninit::uninit(); 1024];
    let mut events = inotify::Reader::new(&watch, &mut buf);
    match events.next() {
        Ok(_) => true,
        Err(Errno::AGAIN) => false,
        Err(e) => panic!("inotify: {e}"),
    }
}

/// A FIFO and a device are judged on a descriptor that opens nothing:
/// inotify sees no open of either, where an open of a regular file is seen.
#[test]
fn a_special_file_is_never_opened_even_for_a_moment() {
    if Proc::open().is_none() {
        eprintln!("no /proc here: a special file is opened O_NONBLOCK and judged instead");
        return;
    }
    let (_tmp, path, _outside) = hostile();
    let fifo = path.join("pipe");
    mkfifo(&fifo);
    std::fs::write(path.join("real/file"), "x").unwrap();
    let root = root(&path, false);
    let opened = opens(&fifo, || {
        let got = root.open_file("pipe", &Open::read());
        assert!(matches!(got, Err(Error::NotRegular { .. })), "{got:?}");
    });
    assert!(!opened, "the FIFO was opened to be judged");
    let file = path.join("real/file");
    assert!(opens(&file, || drop(
        root.open_file("real/file", &Open::read())
    )));
}

/// An OS error reads as the operator reads it, without std's code.
#[test]
fn an_os_error_is_shown_without_its_code() {
    let e = Error::Io(io::Error::from_raw_os_error(Errno::NOENT.raw_os_error()));
    assert_eq!(e.to_string(), "No such file or directory");
    let other = Error::Io(io::Error::other("plain words"));
    assert_eq!(other.to_string(), "plain words");
}

/// `Open::read` never makes a terminal the process's own.
#[test]
fn a_read_takes_no_controlling_terminal() {
    assert!(Open::read().flags().contains(OFlags::NOCTTY));
    assert!(!Open::write().flags().contains(OFlags::NOCTTY));
}

/// `kind_of` looks at the last name without following it, its directory
/// reached beneath the root, and opens nothing there.
#[test]
fn kind_of_tells_what_a_name_is_without_following_it() {
    let (_tmp, path, _outside) = hostile();
    std::fs::write(path.join("real/file"), "x").unwrap();
    mkfifo(&path.join("real/pipe"));
    symlink("file", path.join("real/link")).unwrap();
    for walk in BOTH {
        let root = root(&path, walk);
        let kind = |rel: &str| root.kind_of(rel);
        assert_eq!(kind("real/file").unwrap(), Some(Kind::Regular));
        assert_eq!(kind("real").unwrap(), Some(Kind::Directory));
        assert_eq!(kind("in").unwrap(), Some(Kind::Symlink));
        assert_eq!(kind("real/link").unwrap(), Some(Kind::Symlink));
        assert_eq!(kind("real/pipe").unwrap(), Some(Kind::Special("a FIFO")));
        assert_eq!(kind("real/none").unwrap(), None);
        assert_eq!(kind("./real/./file").unwrap(), Some(Kind::Regular));
        let missing = kind("none/file");
        assert_eq!(
            io_kind(&missing.map(|_| unreachable_opened())),
            Some(io::ErrorKind::NotFound)
        );
        let not_dir = root.kind_of("real/file/x");
        assert!(
            matches!(&not_dir, Err(Error::Io(e)) if e.raw_os_error() == Some(Errno::NOTDIR.raw_os_error())),
            "walk {walk}: {not_dir:?}"
        );
        assert!(matches!(
            root.kind_of("real/pipe/x"),
            Err(Error::NotRegular { .. })
        ));
        assert!(matches!(
            root.kind_of("out/secret"),
            Err(Error::Outside { .. })
        ));
        assert!(matches!(
            root.kind_of("../x"),
            Err(Error::Outside { through: None })
        ));
        assert_eq!(
            io_kind(&root.kind_of(".").map(|_| unreachable_opened())),
            Some(io::ErrorKind::InvalidInput)
        );
        if !walk && kernel_resolves() {
            assert_eq!(kind("in/file").unwrap(), Some(Kind::Regular));
            assert_eq!(kind("in/none").unwrap(), None);
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let later = Root::lazy(tmp.path().join("later"));
    assert_eq!(
        io_kind(&later.kind_of("x").map(|_| unreachable_opened())),
        Some(io::ErrorKind::NotFound)
    );
    std::fs::create_dir(tmp.path().join("later")).unwrap();
    assert_eq!(later.kind_of("x").unwrap(), None);
    assert_eq!(Kind::of(FileType::Socket), Kind::Special("a socket"));
}

/// Never called: the type `io_kind` reads an error out of.
fn unreachable_opened() -> Opened {
    unreachable!("only the error is read")
}

/// A write through a link that stays beneath reaches the file, as a
/// write of it by name would; a directory there is refused for a write.
#[test]
fn a_write_through_a_link_beneath_reaches_the_file_and_never_a_directory() {
    if !kernel_resolves() {
        eprintln!("openat2 is not available here: the walk follows no link at all");
        return;
    }
    use std::io::Write;
    let (_tmp, path, _outside) = hostile();
    std::fs::create_dir(path.join("real/sub")).unwrap();
    std::fs::write(path.join("real/file"), "old").unwrap();
    let root = root(&path, false);
    let opened = root
        .open_file("in/file", &Open::write().truncate())
        .unwrap();
    assert_eq!(opened.via(), Via::LinkBeneath);
    opened.into_file().write_all(b"new").unwrap();
    assert_eq!(std::fs::read(path.join("real/file")).unwrap(), b"new");
    let dir = root.open_file("in/sub", &Open::write());
    assert!(
        matches!(&dir, Err(Error::Io(e)) if e.raw_os_error() == Some(Errno::ISDIR.raw_os_error())),
        "{dir:?}"
    );
}

/// Without `/proc`, nothing tells where a link led: a read of the
/// operator's own file lets the kernel follow it (and says it may have led
/// out), and every other open through a link is refused, naming the link.
#[test]
fn without_proc_no_link_is_followed_but_for_the_operators_read() {
    let (_tmp, path, _outside) = hostile();
    std::fs::write(path.join("real/file"), "x").unwrap();
    for walk in BOTH {
        let mut root = root(&path, walk);
        root.no_proc = true;
        let anywhere = Open::read().links(Links::Anywhere);
        let read = root.open_file("rel-secret", &anywhere).unwrap();
        assert_eq!(read.via(), Via::LinkOut, "walk {walk}");
        let direct = root.open_file("real/file", &anywhere).unwrap();
        assert_eq!(direct.via(), Via::Direct, "walk {walk}");
        for (rel, how) in [
            ("in/file", Open::read()),
            ("in/file", Open::write().links(Links::Anywhere)),
            ("in/new", Open::write().create(0o600)),
            ("in/deeper/new", Open::write().create(0o600).dirs(0o700)),
        ] {
            let got = root.open_file(rel, &how);
            assert!(
                matches!(&got, Err(Error::Outside { through: Some(link) }) if link == Path::new("in")),
                "walk {walk} {rel} {how:?}: {got:?}"
            );
        }
        assert!(!path.join("real/new").exists() && !path.join("real/deeper").exists());
        let missing = root.open_file("real/none", &anywhere);
        assert_eq!(
            io_kind(&missing),
            Some(io::ErrorKind::NotFound),
            "walk {walk}"
        );
    }
}

/// A socket and a block device are refused by name, as a FIFO and a
/// character device are (the block device where this user may make one).
#[test]
fn a_socket_and_a_block_device_are_refused_by_their_kind() {
    let (_tmp, path, _outside) = hostile();
    let _listener = std::os::unix::net::UnixListener::bind(path.join("sock")).unwrap();
    let made = rustix::fs::mknodat(
        rustix::fs::CWD,
        path.join("blk"),
        FileType::BlockDevice,
        Mode::from_raw_mode(0o600),
        rustix::fs::makedev(7, 0),
    );
    for walk in BOTH {
        let root = root(&path, walk);
        let sock = root.open_file("sock", &Open::read());
        assert!(
            matches!(sock, Err(Error::NotRegular { kind: "a socket" })),
            "walk {walk}: {sock:?}"
        );
        if made.is_ok() {
            let blk = root.open_file("blk", &Open::read());
            assert!(
                matches!(
                    blk,
                    Err(Error::NotRegular {
                        kind: "a block device"
                    })
                ),
                "walk {walk}: {blk:?}"
            );
        }
    }
}

/// A link to nothing is refused as one however its text climbs, so long
/// as it stays under the root, and as owned state's when it leads there.
#[test]
fn a_link_to_nothing_is_named_by_where_its_words_lead() {
    if !kernel_resolves() {
        eprintln!("openat2 is not available here: the walk follows no link at all");
        return;
    }
    let (_tmp, path, _outside) = hostile();
    symlink("../real/nothing", path.join("real/dang")).unwrap();
    symlink("../state/new", path.join("real/to-state")).unwrap();
    let root = root(&path, false);
    let how = Open::write().create(0o600);
    let dang = root.open_file("in/dang", &how);
    assert!(matches!(dang, Err(Error::LinkToNothing)), "{dang:?}");
    let owned = root.open_file("in/to-state", &how);
    assert!(
        matches!(&owned, Err(Error::Owned { way: Way::Link(Some(link)), .. }) if link == Path::new("in")),
        "{owned:?}"
    );
    assert!(!path.join("real/nothing").exists() && !path.join("state/new").exists());
}

/// A file where a directory should be is that, not a link, for owned
/// state (reached through no link) as for any other path.
#[test]
fn a_file_on_the_way_is_not_a_directory_not_a_link() {
    let (_tmp, path, _outside) = hostile();
    std::fs::write(path.join("state/file"), "x").unwrap();
    std::fs::write(path.join("real/file"), "x").unwrap();
    for walk in BOTH {
        let root = root(&path, walk);
        for (rel, how) in [
            ("state/file/x", Open::read().own_state()),
            ("real/file/x", Open::read().links(Links::None)),
            ("real/file/x", Open::read()),
        ] {
            let got = root.open_file(rel, &how);
            assert!(
                matches!(&got, Err(Error::Io(e)) if e.raw_os_error() == Some(Errno::NOTDIR.raw_os_error())),
                "walk {walk} {rel} {how:?}: {got:?}"
            );
        }
    }
}

/// The walk names a link at the end as it names one on the way: it
/// follows neither.
#[test]
fn the_walk_names_a_link_at_the_end() {
    let (_tmp, path, _outside) = hostile();
    std::fs::write(path.join("real/file"), "x").unwrap();
    symlink("real/file", path.join("to-file")).unwrap();
    let mut root = Root::open(&path).unwrap();
    root.walk = true;
    for how in [
        Open::read(),
        Open::append().create(0o600),
        Open::append().unjudged(),
    ] {
        let got = root.open_file("to-file", &how);
        assert!(
            matches!(&got, Err(Error::Outside { through: Some(link) }) if link == Path::new("to-file")),
            "{how:?}: {got:?}"
        );
    }
}

/// What a test does at a [`Step`].
type Act = Box<dyn FnMut(Step)>;

thread_local! {
    /// What this thread's test does at a [`Step`]: a test's own thread only.
    static BETWEEN: std::cell::RefCell<Option<Act>> = const { std::cell::RefCell::new(None) };
}

/// Called by the crate at each [`Step`].
pub(super) fn between(step: Step) {
    let act = BETWEEN.with(|b| b.borrow_mut().take());
    if let Some(mut act) = act {
        act(step);
        BETWEEN.with(|b| *b.borrow_mut() = Some(act));
    }
}

/// Runs `f` with `act` done at `step` (at each time it is reached), as a
/// race would do it there.
fn racing<T>(step: Step, act: impl FnMut() + 'static, f: impl FnOnce() -> T) -> T {
    let mut act = act;
    BETWEEN.with(|b| {
        *b.borrow_mut() = Some(Box::new(move |at| {
            if at == step {
                act();
            }
        }));
    });
    let got = f();
    BETWEEN.with(|b| *b.borrow_mut() = None);
    got
}

/// A name missing at the first resolution and there a moment later is still
/// missing for an open that makes no directories: only `dirs` goes on to
/// create, and a read creates nothing.
#[test]
fn a_name_that_appears_after_the_first_miss_is_not_opened_without_dirs() {
    for walk in BOTH {
        let tmp = tempfile::tempdir().unwrap();
        let root = root(tmp.path(), walk);
        let dir = tmp.path().join("d");
        let appear = move || {
            let _ = std::fs::create_dir(&dir);
            let _ = std::fs::write(dir.join("f"), "x");
        };
        let got = racing(Step::Resolved, appear, || {
            root.open_file("d/f", &Open::read())
        });
        assert_eq!(
            io_kind(&got),
            Some(io::ErrorKind::NotFound),
            "walk {walk}: {got:?}"
        );
    }
}

/// A directory on the way that is a link, where no link may be (the state a
/// link made after the first resolution leaves): refused, not followed,
/// and nothing is created through it.
#[test]
fn a_directory_on_the_way_that_became_a_link_is_refused_where_no_link_may_be() {
    for walk in BOTH {
        let (_tmp, path, _outside) = hostile();
        let root = root(&path, walk);
        let at = At {
            root: &root,
            fd: fd_of(&root),
        };
        let proc = Proc::open();
        // `openat2` tells a link beneath (`Link`); the walk names it.
        let walks = walk || !kernel_resolves();
        let refused = |got: Option<&Error>, link: &str| match walks {
            false => matches!(got, Some(Error::Link)),
            true => {
                matches!(got, Some(Error::Outside { through: Some(l) }) if l == Path::new(link))
            }
        };
        let got = at.dir(Path::new("in"), Links::None, proc.as_ref());
        assert!(refused(got.as_ref().err(), "in"), "walk {walk}: {got:?}");
        // And by an open, the link made between its two steps.
        let appear = {
            let path = path.clone();
            move || {
                let _ = symlink("real", path.join("late"));
            }
        };
        let how = write().links(Links::None);
        let got = racing(Step::Resolved, appear, || root.open_file("late/f", &how));
        assert!(refused(got.as_ref().err(), "late"), "walk {walk}: {got:?}");
        assert!(!path.join("real/f").exists(), "walk {walk}");
    }
}

/// A file opened for real (a write, or a create) is judged and kept as it
/// is, never opened a second time through `/proc`.
#[test]
fn a_file_opened_for_real_is_kept_not_opened_again() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("f"), "abcdef").unwrap();
    let root = root(tmp.path(), false);
    let at = At {
        root: &root,
        fd: fd_of(&root),
    };
    let mut file = File::open(tmp.path().join("f")).unwrap();
    let mut head = [0; 3];
    file.read_exact(&mut head).unwrap();
    let proc = Proc::open();
    let opened = at
        .finish(file.into(), Via::Direct, &Open::read(), proc.as_ref())
        .unwrap();
    // The same open file, at the offset it was left at.
    let mut rest = String::new();
    opened.into_file().read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "def");
}

/// A link on the way found by the walk after `openat2` said `ELOOP` is
/// named, as the walk names it.
#[test]
fn a_link_the_walk_meets_after_openat2_missed_is_named() {
    let (_tmp, path, _outside) = hostile();
    let root = root(&path, true);
    let at = At {
        root: &root,
        fd: fd_of(&root),
    };
    let got = at.missed(
        Path::new("out/secret"),
        Miss::Errno(Errno::LOOP),
        Links::None,
    );
    assert!(
        matches!(&got, Error::Outside { through: Some(link) } if link == Path::new("out")),
        "{got:?}"
    );
}

/// The walk's `ELOOP` at the last name is a link only when that name is a
/// link: one replaced by a file between the open and the look is the
/// system's `ELOOP`.
#[test]
fn the_walks_eloop_at_the_end_is_a_link_only_when_the_name_is_one() {
    let (_tmp, path, _outside) = hostile();
    let root = Root::open(&path).unwrap();
    let fd = fd_of(&root);
    let got = walk(fd, Path::new("in"), OFlags::RDONLY, Mode::empty());
    assert!(
        matches!(&got, Err(Miss::Link(link)) if link == Path::new("in")),
        "{got:?}"
    );
    let replace = {
        let path = path.clone();
        move || {
            let _ = std::fs::remove_file(path.join("in"));
            let _ = std::fs::write(path.join("in"), "now a file");
        }
    };
    let got = racing(Step::Walked, replace, || {
        walk(fd, Path::new("in"), OFlags::RDONLY, Mode::empty())
    });
    assert!(matches!(got, Err(Miss::Errno(Errno::LOOP))), "{got:?}");
}

/// `ENXIO` is a FIFO or a socket; any other error is itself.
#[test]
fn only_enxio_is_a_fifo_or_a_socket() {
    let nx = nxio(Error::Io(io::Error::from_raw_os_error(
        Errno::NXIO.raw_os_error(),
    )));
    assert!(
        matches!(
            nx,
            Error::NotRegular {
                kind: "a FIFO or a socket"
            }
        ),
        "{nx:?}"
    );
    let other = nxio(Error::Io(io::Error::from_raw_os_error(
        Errno::NOENT.raw_os_error(),
    )));
    assert!(
        matches!(&other, Error::Io(e) if e.kind() == io::ErrorKind::NotFound),
        "{other:?}"
    );
    assert!(matches!(nxio(Error::Link), Error::Link));
}

/// The walk names the link it met by its whole path from the root, at any
/// depth: a link two names down is `a/in`, not `a`.
#[test]
fn the_walk_names_a_link_deeper_than_the_first_name_by_its_whole_path() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("root");
    std::fs::create_dir_all(path.join("a/b/real")).expect("dirs");
    symlink("real", path.join("a/b/in")).expect("link");
    let through = |rel: &str| match root(&path, true).open_file(rel, &write()) {
        Err(Error::Outside {
            through: Some(link),
        }) => link,
        other => panic!("{rel}: {other:?}"),
    };
    assert_eq!(through("a/b/in/f"), Path::new("a/b/in"));
    assert_eq!(through("a/b/in"), Path::new("a/b/in"));
}

mod owned;
