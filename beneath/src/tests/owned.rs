//! Rule 1 against every way a path can reach owned state (issue 44): by its
//! name, through `..`, through a link to it, a chain of links, a link to a
//! file in it, and a link made before the state itself. The hostile root of
//! [`super::hostile`] owns `state`.

use super::*;

/// The names under `dir`, sorted.
fn listing(dir: &Path) -> Vec<OsString> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    names
}

/// Whether `got` is owned state's refusal of `name`, reached `way`.
fn is_owned(got: &Result<Opened, Error>, way: &Way) -> bool {
    matches!(got, Err(Error::Owned { name, way: w }) if name == "state" && w == way)
}

/// The opens an action or a tool makes: created and written, the
/// per-event append (`O_NOFOLLOW`, unjudged), an unjudged append that
/// follows its last name, and a read.
fn every_open() -> [Open; 4] {
    [
        write(),
        per_event(),
        Open::append().create(0o600).unjudged(),
        Open::read(),
    ]
}

/// `state/x`, `./STATE/x` and the HFS+ spelling of `state` are owned by
/// their names: every open but one of owned state refuses them, whichever
/// way it resolves, and `kind_of` says so before anything is opened.
#[test]
fn owned_state_by_its_name_is_refused_to_every_open_but_its_own() {
    for walk in BOTH {
        let (_tmp, path, _outside) = hostile();
        let root = root(&path, walk);
        for rel in ["state/runs/new", "./STATE/x", "st\u{200c}ate/x", "state"] {
            for how in every_open() {
                let got = root.open_file(rel, &how);
                assert!(
                    is_owned(&got, &Way::Name),
                    "walk {walk} {rel} {how:?}: {got:?}"
                );
            }
            let kind = root.kind_of(rel);
            assert!(
                matches!(&kind, Err(Error::Owned { way: Way::Name, .. })),
                "walk {walk} {rel}: {kind:?}"
            );
        }
        assert_eq!(listing(&path.join("state/runs")), Vec::<OsString>::new());
        // An open of owned state reaches it, unjudged too; a name missing
        // in it is missing, not refused.
        let own = Open::append().create(0o600).unjudged().own_state();
        let opened = root.open_file("state/runs/r.jsonl", &own).unwrap();
        assert_eq!(opened.via(), Via::Direct);
        let missing = root.open_file("state/none/x", &Open::read().own_state());
        assert_eq!(
            io_kind(&missing),
            Some(io::ErrorKind::NotFound),
            "{missing:?}"
        );
        assert_eq!(root.kind_of("real").unwrap(), Some(Kind::Directory));
    }
}

/// A path whose `..` climbs back into owned state is refused as owned
/// state's, by every open and by `kind_of`, whichever way it resolves; one
/// whose `..` leads anywhere else is refused as leading out, as before.
#[test]
fn dot_dot_into_owned_state_is_refused_as_owned_states() {
    for walk in BOTH {
        let (_tmp, path, _outside) = hostile();
        let root = root(&path, walk);
        for how in every_open() {
            let up = root.open_file("real/../state/runs/x", &how);
            assert!(is_owned(&up, &Way::Up), "walk {walk} {how:?}: {up:?}");
            // Through a link, read as words: `in` is `real`, whose `..` is
            // the root.
            let linked = root.open_file("in/../state/x", &how);
            let via_in = Way::Link(Some(PathBuf::from("in")));
            assert!(
                is_owned(&linked, &via_in),
                "walk {walk} {how:?}: {linked:?}"
            );
            for rel in ["real/../real/x", "state/../real/x", "real/../../x", "/x"] {
                let got = root.open_file(rel, &how);
                assert!(
                    matches!(got, Err(Error::Outside { through: None })),
                    "walk {walk} {rel} {how:?}: {got:?}"
                );
            }
        }
        let kind = root.kind_of("real/../state/runs/x");
        assert!(
            matches!(&kind, Err(Error::Owned { way: Way::Up, .. })),
            "{kind:?}"
        );
        assert!(!path.join("state/runs/x").exists() && !path.join("state/x").exists());
    }
}

/// A link to the owned directory, a link to that link, a link that climbs
/// back into the root, and a link to a file inside owned state: refused
/// as owned state's by every open, naming the first link on the way;
/// nothing is made in owned state. The walk follows none of them.
#[test]
fn links_into_owned_state_are_refused_and_nothing_is_made_there() {
    let (_tmp, path, _outside) = hostile();
    std::fs::write(path.join("state/runs/r.jsonl"), "journal").unwrap();
    symlink("into-state", path.join("chain")).unwrap();
    symlink("real/..", path.join("up")).unwrap();
    symlink("state/runs/r.jsonl", path.join("notes")).unwrap();
    let resolves = kernel_resolves();
    for walk in BOTH {
        let root = root(&path, walk);
        for (rel, first) in [
            ("into-state/runs/new", "into-state"),
            ("chain/runs/new", "chain"),
            ("up/state/runs/new", "up"),
            ("chain/runs/r.jsonl", "chain"),
        ] {
            for how in every_open().into_iter().chain([Open::read().own_state()]) {
                let got = root.open_file(rel, &how);
                let link = Some(PathBuf::from(first));
                match walk || !resolves {
                    true => assert!(
                        matches!(&got, Err(Error::Outside { through }) if *through == link),
                        "walk {rel} {how:?}: {got:?}"
                    ),
                    false => assert!(is_owned(&got, &Way::Link(link)), "{rel} {how:?}: {got:?}"),
                }
            }
        }
        if !walk && resolves {
            let to_file = Way::Link(Some(PathBuf::from("notes")));
            for how in [
                Open::append().create(0o600).unjudged(),
                write(),
                Open::read(),
            ] {
                let got = root.open_file("notes", &how);
                assert!(is_owned(&got, &to_file), "{how:?}: {got:?}");
            }
            let anywhere = root.open_file("notes", &Open::read().links(Links::Anywhere));
            assert!(is_owned(&anywhere, &to_file), "{anywhere:?}");
            let kind = root.kind_of("chain/runs/new");
            assert!(
                matches!(&kind, Err(Error::Owned { way: Way::Link(Some(l)), .. }) if l == Path::new("chain")),
                "{kind:?}"
            );
        }
        // The per-event open never follows its last name.
        let last = root.open_file("notes", &per_event());
        assert_eq!(errno(&last), Some(Errno::LOOP.raw_os_error()), "{last:?}");
    }
    assert_eq!(listing(&path.join("state/runs")), ["r.jsonl"]);
    assert_eq!(
        std::fs::read(path.join("state/runs/r.jsonl")).unwrap(),
        b"journal"
    );
}

/// A link committed before owned state exists (`logs -> state/runs` in a
/// fresh clone, before the program's first run makes `state`) is refused
/// by its words while its target is missing, `kind_of` included, and by
/// the directory it resolves to once the program has made it: where a link
/// leads is judged at every open, never remembered.
#[test]
fn owned_state_made_after_a_first_look_is_refused_through_a_link_made_before() {
    if !kernel_resolves() {
        eprintln!("openat2 is not available here: the walk follows no link at all");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path();
    symlink("state/runs", path.join("logs")).unwrap();
    let root = Root::open(path).unwrap().own("state");
    let logs = Way::Link(Some(PathBuf::from("logs")));
    let kind = root.kind_of("logs/audit.jsonl");
    assert!(
        matches!(&kind, Err(Error::Owned { way, .. }) if *way == logs),
        "{kind:?}"
    );
    for how in every_open() {
        let got = root.open_file("logs/audit.jsonl", &how);
        assert!(is_owned(&got, &logs), "before {how:?}: {got:?}");
    }
    assert!(!path.join("state").exists());
    // The program makes its state, by its name.
    let journal = Open::append().create(0o600).dirs(0o700).own_state();
    drop(root.open_file("state/runs/j.jsonl", &journal).unwrap());
    symlink("state", path.join("later")).unwrap();
    for rel in ["logs/audit.jsonl", "later/runs/audit.jsonl", "later/j"] {
        for how in every_open() {
            let got = root.open_file(rel, &how);
            assert!(
                matches!(&got, Err(Error::Owned { name, way: Way::Link(Some(_)) }) if name == "state"),
                "after {rel} {how:?}: {got:?}"
            );
        }
    }
    assert_eq!(listing(&path.join("state/runs")), ["j.jsonl"]);
    assert_eq!(listing(&path.join("state")), ["runs"]);
}

/// Words are read through at most `WORD_LINKS` links, as the kernel
/// follows at most 40, and never out of the root: a chain of exactly that
/// many still names owned state, one more does not, nor does an absolute
/// link or a loop; by the name alone it is `Name`.
#[test]
fn words_are_read_through_a_bounded_number_of_links_and_never_out() {
    let (_tmp, path, _outside) = hostile();
    for i in 1..=WORD_LINKS + 1 {
        let next = match i {
            1 => "state".to_owned(),
            _ => format!("l{}", i - 1),
        };
        symlink(next, path.join(format!("l{i}"))).unwrap();
    }
    symlink("/", path.join("abs")).unwrap();
    symlink("loop", path.join("loop")).unwrap();
    let root = root(&path, true);
    let at = At {
        root: &root,
        fd: fd_of(&root),
    };
    let owned = |rel: &str| at.by_words(Path::new(rel));
    let last = format!("l{WORD_LINKS}/runs/x");
    assert!(
        matches!(owned(&last), Some(Error::Owned { way: Way::Link(Some(l)), .. }) if l == Path::new(&format!("l{WORD_LINKS}"))),
        "{:?}",
        owned(&last)
    );
    assert!(owned(&format!("l{}/runs/x", WORD_LINKS + 1)).is_none());
    for rel in ["abs/../state", "loop/../state", "../root/state/x", "real/x"] {
        assert!(owned(rel).is_none(), "{rel}: {:?}", owned(rel));
    }
    assert!(matches!(
        owned("./state/x"),
        Some(Error::Owned { way: Way::Name, .. })
    ));
    assert!(matches!(
        owned("real/../state/x"),
        Some(Error::Owned { way: Way::Up, .. })
    ));
    // A root that owns nothing reads no words.
    let plain = Root::open(&path).unwrap();
    let at = At {
        root: &plain,
        fd: fd_of(&plain),
    };
    assert!(at.by_words(Path::new("state/x")).is_none());
}

/// Where a link led is judged on the descriptor by the kernel's name for
/// it: in owned state, the owned name; elsewhere beneath the root, none;
/// and where it cannot be told (a file not under the root's path, which a
/// resolution beneath the root gives only when a rename raced it), the
/// first owned name, as if it lay there.
#[test]
fn where_a_descriptor_lies_is_judged_and_refused_when_it_cannot_be_told() {
    let Some(proc) = Proc::open() else {
        eprintln!("no /proc here: no link beneath the root is followed at all");
        return;
    };
    let (_tmp, path, outside) = hostile();
    let root = root(&path, false).own("other");
    let at = At {
        root: &root,
        fd: fd_of(&root),
    };
    let dir = |p: &Path| open_dir(p).unwrap();
    assert_eq!(
        at.lies_in_owned(&dir(&path.join("state/runs")), &proc),
        Some(OsString::from("state"))
    );
    assert_eq!(at.lies_in_owned(&dir(&path.join("real")), &proc), None);
    assert_eq!(at.lies_in_owned(&dir(&path), &proc), None);
    assert_eq!(
        at.lies_in_owned(&dir(&outside), &proc),
        Some(OsString::from("state"))
    );
    let plain = Root::open(&path).unwrap();
    let at = At {
        root: &plain,
        fd: fd_of(&plain),
    };
    assert_eq!(at.lies_in_owned(&dir(&path.join("state")), &proc), None);
}

/// The unjudged open on a root that owns state: one resolution with no
/// link for a plain path, whose misses are an unjudged open's (a file on
/// the way, a name missing); a link on the way judged.
#[test]
fn an_unjudged_open_on_an_owning_root_misses_as_an_unjudged_open() {
    let (_tmp, path, _outside) = hostile();
    std::fs::write(path.join("real/file"), "x").unwrap();
    for walk in BOTH {
        let root = root(&path, walk);
        let not_dir = root.open_file("real/file/x", &per_event());
        assert_eq!(
            errno(&not_dir),
            Some(Errno::NOTDIR.raw_os_error()),
            "{not_dir:?}"
        );
        let missing = root.open_file("real/none/x", &per_event());
        assert_eq!(
            io_kind(&missing),
            Some(io::ErrorKind::NotFound),
            "{missing:?}"
        );
        let made = root.open_file("real/new", &per_event()).unwrap();
        assert_eq!(made.via(), Via::Untold);
        let followed = root.open_file("in/new", &Open::append().create(0o600).unjudged());
        match walk || !kernel_resolves() {
            true => assert!(
                matches!(followed, Err(Error::Outside { .. })),
                "{followed:?}"
            ),
            false => {
                assert_eq!(followed.unwrap().via(), Via::LinkBeneath);
                assert!(path.join("real/new").is_file());
            }
        }
    }
}

/// Each way reads as what it is, naming the owned name and the link.
#[test]
fn owned_states_refusal_says_the_name_and_the_way() {
    let said = |way| {
        Error::Owned {
            name: ".io".into(),
            way,
        }
        .to_string()
    };
    assert_eq!(
        said(Way::Name),
        "it is in `.io`, the program's own state, which only the program itself opens"
    );
    assert_eq!(
        said(Way::Up),
        "it reaches `.io`, the program's own state, through `..`, and that state is reached by \
         its own names alone"
    );
    assert_eq!(
        said(Way::Link(Some(PathBuf::from("logs")))),
        "it reaches `.io`, the program's own state, through the symbolic link `logs`, and that \
         state is never reached through a link"
    );
    assert_eq!(
        said(Way::Link(None)),
        "it reaches `.io`, the program's own state, through a symbolic link, and that state is \
         never reached through a link"
    );
}

/// A name is owned state's as a file system that folds ASCII case, or
/// HFS+, would open it; any other name is not. The first name of a path
/// is read on its bytes as `components()` reads it.
#[test]
fn a_name_is_compared_as_a_case_folding_file_system_opens_it() {
    let owned = OsStr::new(".io");
    for same in [
        ".io",
        ".IO",
        ".Io",
        ".i\u{200c}o",
        "\u{feff}.io",
        ".\u{202e}io",
        ".i\u{206f}o",
    ] {
        assert!(same_name(owned, OsStr::new(same)), "{same:?}");
    }
    let latin1 = <OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b".io\xff");
    for other in [".io2", "io", ".i\u{2010}o", ".iö", ".i\u{200b}o"] {
        assert!(!same_name(owned, OsStr::new(other)), "{other:?}");
    }
    assert!(!same_name(owned, latin1));
    for (rel, first) in [
        ("a/b", Some("a")),
        ("./a", Some("a")),
        ("//a/", Some("a")),
        ("././a/./b", Some("a")),
        ("", None),
        (".", None),
        ("./", None),
    ] {
        assert_eq!(first_name(Path::new(rel)), first.map(OsStr::new), "{rel:?}");
    }
}
