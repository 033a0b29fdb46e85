//! The index reader against indexes the real `git` wrote: versions 2, 3
//! and 4, a sparse index, a SHA-256 repository; and the ones it must
//! refuse rather than read as "nothing listed": a damaged checksum, a
//! skipped one, a split index, an unknown version or extension, a count
//! the file cannot hold.
#![cfg(unix)] // Unix owners, modes and links; Windows: tests/windows.rs.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{commit, git, repo, write};
use io_trust::index::{
    Index, IndexError, IndexProblem, ObjectFormat, Tracking, WorkTree, tracking,
};
use sha1::Digest;

/// The index of the work tree at `dir`.
fn index_of(dir: &Path) -> Result<Index, IndexError> {
    WorkTree::at(dir)
        .expect("a work tree")
        .expect("a .git")
        .index()
}

fn problem(e: IndexError) -> IndexProblem {
    match e {
        IndexError::Format { problem, .. } => problem,
        other => panic!("not a format problem: {other}"),
    }
}

/// A repository holding these committed files.
const FILES: [(&str, &str); 5] = [
    ("io.local.toml", "[[hook]]\n"),
    ("src/main.rs", "fn main() {}\n"),
    ("src/cli/output.rs", "\n"),
    ("src/cli/output_tests.rs", "\n"),
    ("docs/a much longer name to strip a prefix from.md", "\n"),
];

fn committed() -> Option<tempfile::TempDir> {
    let dir = repo()?;
    write(dir.path(), &FILES);
    commit(dir.path(), &["."]);
    Some(dir)
}

/// That `index` lists [`FILES`] and `more` other entries, and none of a
/// few near misses.
fn assert_lists_the_files(index: &Index, more: usize) {
    for (path, _) in FILES {
        assert!(index.lists(path), "{path} is not listed");
    }
    for path in [
        "src",
        "src/cli",
        "src/main",
        "io.local",
        "IO.LOCAL.TOML",
        "x",
    ] {
        assert!(!index.lists(path), "{path} is listed");
    }
    assert_eq!(index.len(), FILES.len() + more);
}

#[test]
fn a_version_2_index_lists_what_git_added_and_nothing_else() {
    let Some(dir) = committed() else { return };
    let index = index_of(dir.path()).unwrap();
    assert_eq!(index.version(), 2);
    assert!(!index.is_empty());
    assert_eq!(index.object_format(), ObjectFormat::Sha1);
    assert_lists_the_files(&index, 0);
    let mut paths: Vec<PathBuf> = index.paths().map(Path::to_path_buf).collect();
    paths.sort();
    assert_eq!(
        paths[0],
        Path::new("docs/a much longer name to strip a prefix from.md")
    );
}

#[test]
fn a_version_3_index_lists_intent_to_add_and_skip_worktree_entries() {
    let Some(dir) = committed() else { return };
    write(dir.path(), &[("new.toml", "x")]);
    assert!(git(dir.path(), &["add", "-N", "new.toml"]));
    assert!(git(
        dir.path(),
        &["update-index", "--skip-worktree", "src/main.rs"]
    ));
    assert!(git(dir.path(), &["update-index", "--index-version", "3"]));
    let index = index_of(dir.path()).unwrap();
    assert_eq!(index.version(), 3);
    assert!(index.lists("new.toml"), "an intent-to-add entry");
    assert!(index.lists("src/main.rs"), "a skip-worktree entry");
    assert!(index.lists("io.local.toml"));
    assert!(!index.lists("new"));
}

#[test]
fn a_version_4_index_rebuilds_its_prefix_compressed_paths() {
    let Some(dir) = committed() else { return };
    assert!(git(dir.path(), &["update-index", "--index-version", "4"]));
    let index = index_of(dir.path()).unwrap();
    assert_eq!(index.version(), 4);
    assert_lists_the_files(&index, 0);
    // A name of 0xfff bytes or more, whose length the flags cannot hold,
    // sharing a long prefix with the next: listed without the file (too
    // long a path for the system to make).
    let long = format!("{}/leaf", vec!["n".repeat(250); 17].join("/"));
    let next = format!("{}/leaf2", vec!["n".repeat(250); 17].join("/"));
    for path in [&long, &next] {
        let cacheinfo = format!("100644,{EMPTY_BLOB},{path}");
        assert!(git(
            dir.path(),
            &["update-index", "--add", "--cacheinfo", &cacheinfo]
        ));
    }
    for version in ["2", "4", "2"] {
        assert!(git(
            dir.path(),
            &["update-index", "--index-version", version]
        ));
        let index = index_of(dir.path()).unwrap();
        assert_eq!(index.version().to_string(), version);
        assert!(index.lists(&long), "v{version}: the long path");
        assert!(index.lists(&next), "v{version}: the one after it");
        assert_lists_the_files(&index, 2);
    }
}

/// The empty blob's SHA-1, which git knows without storing it.
const EMPTY_BLOB: &str = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";

#[test]
fn a_sparse_index_directory_entry_lists_everything_under_it() {
    let Some(dir) = committed() else { return };
    let sparse = git(
        dir.path(),
        &["sparse-checkout", "init", "--cone", "--sparse-index"],
    ) && git(dir.path(), &["sparse-checkout", "set", "docs"]);
    if !common::prerequisite("a git with sparse index (2.32 or later)", sparse) {
        return;
    }
    let index = index_of(dir.path()).unwrap();
    assert!(
        index.paths().any(|p| p == Path::new("src/")),
        "{:?}",
        index.paths().collect::<Vec<_>>()
    );
    assert!(index.lists("src/main.rs"));
    assert!(
        index.lists("src/cli/anything.toml"),
        "all under a sparse directory"
    );
    assert!(!index.lists("src"));
    assert!(!index.lists("srcx/main.rs"));
    assert_eq!(
        index.listed_ignoring_case("SRC/Main.rs"),
        vec![Path::new("src/")]
    );
    // And through `tracking`: a file under the sparse directory is tracked.
    fs::create_dir_all(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src/io.local.toml"), "").unwrap();
    assert!(matches!(
        tracking(&dir.path().join("src/io.local.toml")).unwrap(),
        Tracking::Tracked { .. }
    ));
}

#[test]
fn a_sha256_repositorys_index_is_read() {
    let dir = tempfile::tempdir().unwrap();
    if !common::prerequisite(
        "a git with SHA-256 repositories",
        git(dir.path(), &["init", "-q", "--object-format=sha256"]),
    ) {
        return;
    }
    write(dir.path(), &FILES);
    commit(dir.path(), &["."]);
    for version in ["2", "4"] {
        assert!(git(
            dir.path(),
            &["update-index", "--index-version", version]
        ));
        let index = index_of(dir.path()).unwrap();
        assert_eq!(index.object_format(), ObjectFormat::Sha256);
        assert_lists_the_files(&index, 0);
    }
}

#[test]
fn a_damaged_index_is_refused_not_read_as_listing_nothing() {
    let Some(dir) = committed() else { return };
    let path = dir.path().join(".git/index");
    let mut bytes = fs::read(&path).unwrap();
    // A byte of a path, so the entries would still parse.
    let at = bytes
        .windows(13)
        .position(|w| w == b"io.local.toml")
        .unwrap();
    bytes[at] = b'x';
    fs::write(&path, &bytes).unwrap();
    assert_eq!(
        problem(index_of(dir.path()).unwrap_err()),
        IndexProblem::Checksum
    );
    let e = tracking(&dir.path().join("io.local.toml")).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "the git index `{}` does not match its checksum: it is damaged, or was cut short",
            path.display()
        )
    );
    // Cut short.
    fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    assert_eq!(
        problem(index_of(dir.path()).unwrap_err()),
        IndexProblem::Checksum
    );
    fs::write(&path, &bytes[..7]).unwrap();
    assert_eq!(
        problem(index_of(dir.path()).unwrap_err()),
        IndexProblem::Truncated
    );
}

#[test]
fn an_index_written_without_its_checksum_is_refused() {
    let Some(dir) = repo() else { return };
    write(dir.path(), &FILES);
    assert!(git(dir.path(), &["-c", "index.skipHash=true", "add", "."]));
    let bytes = fs::read(dir.path().join(".git/index")).unwrap();
    if !common::prerequisite(
        "a git with index.skipHash (2.40 or later)",
        bytes.ends_with(&[0; 20]),
    ) {
        return;
    }
    assert_eq!(
        problem(index_of(dir.path()).unwrap_err()),
        IndexProblem::ChecksumSkipped
    );
}

#[test]
fn a_split_index_is_refused() {
    let Some(dir) = committed() else { return };
    assert!(git(dir.path(), &["update-index", "--split-index"]));
    assert_eq!(
        problem(index_of(dir.path()).unwrap_err()),
        IndexProblem::Split
    );
    assert!(git(dir.path(), &["update-index", "--no-split-index"]));
    assert_lists_the_files(&index_of(dir.path()).unwrap(), 0);
}

/// `body` (an index without its trailer) with its SHA-1 appended.
fn sealed(body: &[u8]) -> Vec<u8> {
    let mut bytes = body.to_vec();
    bytes.extend_from_slice(&sha1::Sha1::digest(body));
    bytes
}

/// A version 2 index of one entry named `name`, before its checksum.
fn one_entry(version: u32, name: &[u8], flags: u16, mode: u32) -> Vec<u8> {
    let mut body = b"DIRC".to_vec();
    body.extend(version.to_be_bytes());
    body.extend(1u32.to_be_bytes());
    let mut stat = [0u8; 40];
    stat[24..28].copy_from_slice(&mode.to_be_bytes());
    body.extend(stat);
    body.extend([0u8; 20]);
    body.extend(flags.to_be_bytes());
    body.extend(name);
    let size = (62 + name.len() + 8) & !7;
    body.resize(12 + size, 0);
    body
}

/// `body` with the bytes at `at` replaced by `with`, or `with` appended
/// when `at` is its length.
fn patched(body: &[u8], at: usize, with: &[u8]) -> Vec<u8> {
    let mut b = body.to_vec();
    if at == b.len() {
        b.extend_from_slice(with);
    } else {
        b[at..at + with.len()].copy_from_slice(with);
    }
    b
}

/// Hand-made indexes that break the format, each with what is said.
fn broken() -> Vec<(Vec<u8>, IndexProblem)> {
    let ok = one_entry(2, b"a", 1, 0o100644);
    let end = ok.len();
    let entry = |what| IndexProblem::Entry { at: 12, what };
    vec![
        (patched(&ok, 0, b"X"), IndexProblem::Signature),
        (patched(&ok, 7, &[5]), IndexProblem::Version(5)),
        (patched(&ok, 7, &[1]), IndexProblem::Version(1)),
        (
            patched(&ok, 8, &u32::MAX.to_be_bytes()),
            IndexProblem::Count(u32::MAX),
        ),
        (patched(&ok, 11, &[2]), IndexProblem::Count(2)),
        (
            patched(&ok, end, b"abcd\0\0\0\0"),
            IndexProblem::Extension(*b"abcd"),
        ),
        (patched(&ok, end, b"link\0\0\0\0"), IndexProblem::Split),
        (
            patched(&ok, end, b"TREE\0\0\0\x09"),
            IndexProblem::Truncated,
        ),
        (
            one_entry(2, b"a", 2, 0o100644),
            entry("gives a name length its name does not have"),
        ),
        (
            one_entry(2, b"a", 0x4001, 0o100644),
            entry("has extended flags, which a version 2 index may not"),
        ),
        (one_entry(2, b"", 0, 0o100644), entry("has an empty path")),
        (
            one_entry(2, b"d/", 2, 0o040000),
            entry("is a directory but not a sparse one (skip-worktree, `dir/`)"),
        ),
        // "ab" and its NUL end at byte 77; the padding runs to 84.
        (
            patched(&one_entry(2, b"ab", 2, 0o100644), 83, &[1]),
            entry("is not padded with NULs"),
        ),
    ]
}

#[test]
fn hand_made_indexes_that_break_the_format_are_refused() {
    let ok = one_entry(2, b"a", 1, 0o100644);
    assert!(Index::parse(&sealed(&ok)).unwrap().lists("a"));
    for (n, (body, want)) in broken().into_iter().enumerate() {
        assert_eq!(Index::parse(&sealed(&body)).unwrap_err(), want, "case {n}");
    }
    // An optional extension (upper case) is passed over.
    let tree = patched(&ok, ok.len(), b"TREE\0\0\0\x01x");
    assert!(Index::parse(&sealed(&tree)).unwrap().lists("a"));
}

#[test]
fn a_fresh_repository_without_an_index_lists_nothing() {
    let Some(dir) = repo() else { return };
    assert!(!dir.path().join(".git/index").exists());
    assert!(index_of(dir.path()).unwrap().is_empty());
    fs::write(dir.path().join("io.local.toml"), "").unwrap();
    assert_eq!(
        tracking(&dir.path().join("io.local.toml")).unwrap(),
        Tracking::Untracked {
            work_tree: fs::canonicalize(dir.path()).unwrap()
        }
    );
}

#[test]
fn a_git_directory_that_cannot_be_one_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let dot_git = dir.path().join(".git");
    let file = dir.path().join("io.local.toml");
    fs::write(&file, "").unwrap();
    let said = || tracking(&file).unwrap_err().to_string();

    fs::create_dir(&dot_git).unwrap();
    assert_eq!(
        said(),
        format!(
            "`{}` is not a git directory: it has no `HEAD`",
            dot_git.display()
        )
    );
    fs::remove_dir(&dot_git).unwrap();

    let gone = dir.path().join("gone");
    fs::write(&dot_git, format!("gitdir: {}\n", gone.display())).unwrap();
    assert_eq!(
        said(),
        format!(
            "`{}` names `{}`, which is not a git directory: it has no `HEAD`",
            dot_git.display(),
            gone.display()
        )
    );
    fs::write(&dot_git, "not a pointer\n").unwrap();
    assert_eq!(
        said(),
        format!(
            "`{}` is a file that does not start `gitdir: `, as git's do",
            dot_git.display()
        )
    );
    fs::remove_file(&dot_git).unwrap();

    rustix::fs::mknodat(
        rustix::fs::CWD,
        &dot_git,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    assert_eq!(
        said(),
        format!(
            "`{}` is neither a directory nor a file (a FIFO, a socket or a device), which no \
             repository has: remove it",
            dot_git.display()
        )
    );
}

#[test]
fn an_index_that_is_a_fifo_is_refused_without_waiting_on_it() {
    let Some(dir) = committed() else { return };
    let index = dir.path().join(".git/index");
    fs::remove_file(&index).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &index,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let e = index_of(dir.path()).unwrap_err();
    assert!(matches!(e, IndexError::Read { .. }), "{e}");
    assert!(e.to_string().contains("not a regular file"), "{e}");
}

#[test]
fn worktrees_submodules_and_enclosing_repositories_are_each_asked() {
    let Some(dir) = committed() else { return };
    // A linked worktree: `.git` is a `gitdir:` file, the index is its own,
    // `objects` and `refs` are the main repository's (`commondir`).
    let linked = tempfile::tempdir().unwrap();
    let wt = linked.path().join("wt");
    assert!(git(
        dir.path(),
        &["worktree", "add", "-q", wt.to_str().unwrap()]
    ));
    assert!(wt.join(".git").is_file());
    assert!(matches!(
        tracking(&wt.join("io.local.toml")).unwrap(),
        Tracking::Tracked { .. }
    ));
    fs::write(wt.join("mine.toml"), "").unwrap();
    assert!(matches!(
        tracking(&wt.join("mine.toml")).unwrap(),
        Tracking::Untracked { .. }
    ));

    // A repository made inside the work tree does not hide the outer
    // index, which lists its file.
    let inner = dir.path().join("src");
    assert!(git(&inner, &["init", "-q"]));
    assert_eq!(
        tracking(&inner.join("main.rs")).unwrap(),
        Tracking::Tracked {
            work_tree: fs::canonicalize(dir.path()).unwrap(),
            listed: PathBuf::from("src/main.rs"),
        }
    );
}

#[test]
fn a_case_variant_counts_only_when_it_is_the_same_file() {
    let Some(dir) = repo() else { return };
    write(dir.path(), &[("IO.LOCAL.TOML", "x")]);
    commit(dir.path(), &["IO.LOCAL.TOML"]);
    let file = dir.path().join("io.local.toml");
    // A hard link is a case-folding file system's situation anywhere: two
    // names, one file.
    fs::hard_link(dir.path().join("IO.LOCAL.TOML"), &file).unwrap();
    assert_eq!(
        tracking(&file).unwrap(),
        Tracking::Tracked {
            work_tree: fs::canonicalize(dir.path()).unwrap(),
            listed: PathBuf::from("IO.LOCAL.TOML"),
        }
    );
    fs::remove_file(&file).unwrap();
    fs::write(&file, "x").unwrap();
    assert!(matches!(
        tracking(&file).unwrap(),
        Tracking::Untracked { .. }
    ));
}

#[test]
fn a_link_to_a_listed_file_in_the_work_tree_counts_as_listed() {
    let Some(dir) = committed() else { return };
    let link = dir.path().join("src/io.local.toml");
    std::os::unix::fs::symlink("../io.local.toml", &link).unwrap();
    assert_eq!(
        tracking(&link).unwrap(),
        Tracking::Tracked {
            work_tree: fs::canonicalize(dir.path()).unwrap(),
            listed: PathBuf::from("io.local.toml"),
        }
    );
    // A link to a file of the work tree that its index does not list.
    fs::write(dir.path().join("mine.toml"), "").unwrap();
    fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink("../mine.toml", &link).unwrap();
    assert!(matches!(
        tracking(&link).unwrap(),
        Tracking::Untracked { .. }
    ));
    // A link out of the work tree leads to no file its index lists.
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("hooks.toml"), "").unwrap();
    fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(outside.path().join("hooks.toml"), &link).unwrap();
    assert!(matches!(
        tracking(&link).unwrap(),
        Tracking::Untracked { .. }
    ));
}

#[test]
fn the_callers_git_environment_changes_nothing() {
    // The reader reads no environment variable at all; this test holds it
    // to that: GIT_DIR and GIT_INDEX_FILE naming another repository.
    let Some(dir) = committed() else { return };
    let other = repo().unwrap();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "the_callers_git_environment_changes_nothing_child",
            "--exact",
            "--nocapture",
        ])
        .env("IO_TRUST_CHILD_ROOT", dir.path())
        .env("GIT_DIR", other.path().join(".git"))
        .env("GIT_INDEX_FILE", other.path().join(".git/index"))
        .env("GIT_WORK_TREE", other.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("1 passed"),
        "{out:?}"
    );
}

#[test]
fn the_callers_git_environment_changes_nothing_child() {
    let Some(root) = std::env::var_os("IO_TRUST_CHILD_ROOT") else {
        return;
    };
    let got = tracking(&Path::new(&root).join("io.local.toml")).unwrap();
    assert!(matches!(got, Tracking::Tracked { .. }), "{got:?}");
}

/// An index of `version` holding `entries` (each already made), before its
/// checksum.
fn index_of_entries(version: u32, entries: &[Vec<u8>]) -> Vec<u8> {
    let mut body = b"DIRC".to_vec();
    body.extend(version.to_be_bytes());
    body.extend(u32::try_from(entries.len()).unwrap().to_be_bytes());
    for entry in entries {
        body.extend(entry);
    }
    body
}

/// One entry's bytes: stat (with `mode`), a zero object name, `flags`,
/// `extended` when given, then `name` as given (a v4 entry's prefix length
/// and suffix, or a v2/v3 name, which is padded with NULs to 8).
fn entry_bytes(name: &[u8], flags: u16, extended: Option<u16>, mode: u32, pad: bool) -> Vec<u8> {
    let mut e = vec![0u8; 40];
    e[24..28].copy_from_slice(&mode.to_be_bytes());
    e.extend([0u8; 20]);
    e.extend(flags.to_be_bytes());
    if let Some(extended) = extended {
        e.extend(extended.to_be_bytes());
    }
    e.extend(name);
    if pad {
        let size = (e.len() + 8) & !7;
        e.resize(size, 0);
    } else {
        e.push(0);
    }
    e
}

const FILE: u32 = 0o100644;
const DIR: u32 = 0o040000;

#[test]
fn an_index_is_as_short_as_its_header_and_checksum() {
    assert_eq!(
        Index::parse(b"DIRC\0\0\0\x02\0\0\0").unwrap_err(),
        IndexProblem::Truncated
    );
    assert_eq!(
        Index::parse(b"DIRC\0\0\0\x02\0\0\0\0").unwrap_err(),
        IndexProblem::Checksum
    );
    let empty = Index::parse(&sealed(b"DIRC\0\0\0\x02\0\0\0\0")).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.len(), 0);
    assert_eq!(empty.paths().count(), 0);
}

#[test]
fn a_count_is_refused_as_soon_as_the_bytes_cannot_hold_it() {
    // One entry (64 bytes) and an optional extension of 48 bytes: 112
    // bytes after the header, less than two entries' least (2 x 64).
    let mut body = index_of_entries(2, &[entry_bytes(b"a", 1, None, FILE, true)]);
    body[11] = 2;
    body.extend(b"TREE\0\0\0\x28");
    body.extend([0u8; 40]);
    assert_eq!(
        Index::parse(&sealed(&body)).unwrap_err(),
        IndexProblem::Count(2)
    );
    // At 128 bytes two entries could fit: the second is read, and the
    // extension is no entry.
    body.extend([0u8; 16]);
    body[12 + 64 + 7] = 0x38;
    assert!(matches!(
        Index::parse(&sealed(&body)).unwrap_err(),
        IndexProblem::Entry { .. } | IndexProblem::Truncated
    ));
}

#[test]
fn a_name_length_in_the_flags_must_be_the_names() {
    let long = vec![b'n'; 0xfff];
    let index = Index::parse(&sealed(&index_of_entries(
        2,
        &[entry_bytes(&long, 0xfff, None, FILE, true)],
    )))
    .unwrap();
    assert!(index.lists(Path::new(std::str::from_utf8(&long).unwrap())));
    let shorter = vec![b'n'; 0xffe];
    let index = Index::parse(&sealed(&index_of_entries(
        2,
        &[entry_bytes(&shorter, 0xffe, None, FILE, true)],
    )))
    .unwrap();
    assert_eq!(index.len(), 1);
    let bad = IndexProblem::Entry {
        at: 12,
        what: "gives a name length its name does not have",
    };
    for (name, flags) in [(&b"a"[..], 0xfff), (&shorter[..], 0xfff), (&b"ab"[..], 1)] {
        let body = index_of_entries(2, &[entry_bytes(name, flags, None, FILE, true)]);
        assert_eq!(
            Index::parse(&sealed(&body)).unwrap_err(),
            bad,
            "{} {flags:#x}",
            name.len()
        );
    }
}

#[test]
fn version_3_extended_flags_and_sparse_directories_are_checked() {
    let skip = Some(0x4000);
    let v3 = |name: &[u8], ext: Option<u16>, mode| {
        let extended = if ext.is_some() { 0x4000 } else { 0 };
        entry_bytes(
            name,
            extended | u16::try_from(name.len()).unwrap(),
            ext,
            mode,
            true,
        )
    };
    let entry = |what| IndexProblem::Entry { at: 12, what };
    let parse = |entries: &[Vec<u8>], sparse: bool| {
        let mut body = index_of_entries(3, entries);
        if sparse {
            body.extend(b"sdir\0\0\0\0");
        }
        Index::parse(&sealed(&body))
    };
    assert_eq!(
        parse(&[v3(b"a", Some(0x1000), FILE)], false).unwrap_err(),
        entry("has extended flags that are not defined")
    );
    assert_eq!(
        parse(&[v3(b"d", skip, DIR)], true).unwrap_err(),
        entry("is a directory but not a sparse one (skip-worktree, `dir/`)")
    );
    assert_eq!(
        parse(&[v3(b"d/", Some(0x2000), DIR)], true).unwrap_err(),
        entry("is a directory but not a sparse one (skip-worktree, `dir/`)")
    );
    assert_eq!(
        parse(&[v3(b"a", None, FILE), v3(b"d/", skip, DIR)], false).unwrap_err(),
        IndexProblem::Entry {
            at: 12 + 64,
            what: "is a directory, in an index that is not sparse (no `sdir` extension)"
        }
    );
    let index = parse(&[v3(b"d/", skip, DIR)], true).unwrap();
    assert!(index.lists("d/x") && index.lists("d/e/f"));
    assert!(!index.lists("d/") && !index.lists("d") && !index.lists("dx"));
    // A skip-worktree file is listed like any other.
    assert!(parse(&[v3(b"f", skip, FILE)], false).unwrap().lists("f"));
}

/// A version 4 entry: `strip` (as its varint bytes) and `suffix`.
fn v4(strip: &[u8], suffix: &[u8]) -> Vec<u8> {
    let name: Vec<u8> = strip.iter().chain(suffix).copied().collect();
    let len = u16::try_from(suffix.len()).unwrap();
    entry_bytes(&name, len, None, FILE, false)
}

#[test]
fn version_4_prefixes_are_bounded_by_the_path_before() {
    // "abc", then strip 1 and add "d": "abd" (its flags say 3 bytes).
    let mut second = v4(&[1], b"d");
    second[61] = 3;
    let index = Index::parse(&sealed(&index_of_entries(4, &[v4(&[0], b"abc"), second]))).unwrap();
    assert!(index.lists("abc") && index.lists("abd"));
    assert_eq!(index.version(), 4);
    let too_long = |at| IndexProblem::Entry {
        at,
        what: "strips more of the previous path than it has",
    };
    // Stripping more than there is, in one byte and in several.
    let body = index_of_entries(4, &[v4(&[0], b"abc"), v4(&[4], b"d")]);
    assert_eq!(Index::parse(&sealed(&body)).unwrap_err(), too_long(12 + 67));
    // 0x81 0x00 is (1 + 1) * 128 + 0 = 256.
    let body = index_of_entries(4, &[v4(&[0x81, 0], b"d")]);
    assert_eq!(Index::parse(&sealed(&body)).unwrap_err(), too_long(12));
    // A varint past u32::MAX.
    let body = index_of_entries(4, &[v4(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x7f], b"d")]);
    assert_eq!(Index::parse(&sealed(&body)).unwrap_err(), too_long(12));
}

#[test]
fn index_files_git_directories_and_paths_that_cannot_be_read_are_named() {
    let Some(dir) = committed() else { return };
    // An index over the bound is refused by its size, never read (a sparse
    // file: no disk is used).
    let index = dir.path().join(".git/index");
    let saved = fs::read(&index).unwrap();
    fs::File::options()
        .write(true)
        .open(&index)
        .unwrap()
        .set_len(io_trust::index::MAX_INDEX + 1)
        .unwrap();
    let e = index_of(dir.path()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "the git index `{}` holds {} bytes, more than the 256 MiB it is read up to",
            index.display(),
            io_trust::index::MAX_INDEX + 1
        )
    );
    // A link to nothing is not "no index".
    fs::remove_file(&index).unwrap();
    std::os::unix::fs::symlink("gone", &index).unwrap();
    assert!(matches!(
        index_of(dir.path()).unwrap_err(),
        IndexError::Read { .. }
    ));
    fs::remove_file(&index).unwrap();
    fs::write(&index, saved).unwrap();
    // A directory that does not exist cannot be placed in any work tree.
    let gone = dir.path().join("gone/io.local.toml");
    let e = tracking(&gone).unwrap_err();
    assert!(
        e.to_string().starts_with(&format!(
            "`{}` cannot be resolved to its real path: ",
            dir.path().join("gone").display()
        )),
        "{e}"
    );
}

#[test]
fn a_gitdir_file_is_read_as_git_writes_it_and_a_git_directory_needs_its_parts() {
    let Some(dir) = committed() else { return };
    let real = dir.path().join("real.git");
    fs::rename(dir.path().join(".git"), &real).unwrap();
    let dot_git = dir.path().join(".git");
    for text in ["gitdir: real.git\r\n", "gitdir: real.git"] {
        fs::write(&dot_git, text).unwrap();
        let tree = WorkTree::at(dir.path()).unwrap().unwrap();
        assert_eq!(tree.git_dir(), dir.path().join("real.git"), "{text:?}");
        assert_eq!(tree.dir(), dir.path());
        assert_eq!(tree.index_path(), dir.path().join("real.git/index"));
        assert!(tree.index().unwrap().lists("io.local.toml"));
    }
    // A long path (git writes an absolute one) is read whole; a file past
    // 64 KiB is no `gitdir:` file.
    let long = format!("gitdir: {}real.git\n", "./".repeat(1500));
    fs::write(&dot_git, &long).unwrap();
    assert!(
        WorkTree::at(dir.path())
            .unwrap()
            .unwrap()
            .index()
            .unwrap()
            .lists("io.local.toml")
    );
    fs::write(
        &dot_git,
        format!("gitdir: {}real.git\n", "./".repeat(33_000)),
    )
    .unwrap();
    assert_eq!(
        WorkTree::at(dir.path()).unwrap_err().to_string(),
        format!("`{}` is too long to be a `gitdir:` file", dot_git.display())
    );
    fs::write(&dot_git, "gitdir: \n").unwrap();
    assert!(
        WorkTree::at(dir.path())
            .unwrap_err()
            .to_string()
            .contains("does not start `gitdir: `")
    );
    fs::write(&dot_git, "gitdir: real.git\n").unwrap();
    fs::remove_dir_all(real.join("objects")).unwrap();
    fs::write(real.join("objects"), "").unwrap();
    assert_eq!(
        WorkTree::at(dir.path()).unwrap_err().to_string(),
        format!(
            "`{}` names `{}`, which is not a git directory: its `objects` is not a directory",
            dot_git.display(),
            real.display()
        )
    );
    fs::remove_file(real.join("objects")).unwrap();
    assert!(
        WorkTree::at(dir.path())
            .unwrap_err()
            .to_string()
            .ends_with("it has no objects")
    );
}

#[test]
fn a_sparse_directory_in_another_case_counts_without_a_look() {
    let Some(dir) = committed() else { return };
    let sparse = git(
        dir.path(),
        &["sparse-checkout", "init", "--cone", "--sparse-index"],
    ) && git(dir.path(), &["sparse-checkout", "set", "docs"]);
    if !common::prerequisite("a git with sparse index (2.32 or later)", sparse) {
        return;
    }
    // `SRC/` is another directory on this file system; where case folds it
    // is `src/`, whose files are not in the work tree to compare.
    fs::create_dir(dir.path().join("SRC")).unwrap();
    fs::write(dir.path().join("SRC/io.local.toml"), "").unwrap();
    assert_eq!(
        tracking(&dir.path().join("SRC/io.local.toml")).unwrap(),
        Tracking::Tracked {
            work_tree: fs::canonicalize(dir.path()).unwrap(),
            listed: PathBuf::from("src/"),
        }
    );
    fs::create_dir(dir.path().join("other")).unwrap();
    fs::write(dir.path().join("other/io.local.toml"), "").unwrap();
    assert!(matches!(
        tracking(&dir.path().join("other/io.local.toml")).unwrap(),
        Tracking::Untracked { .. }
    ));
}

#[test]
fn each_problem_reads_as_a_clause_after_the_files_name() {
    let said = [
        (
            IndexProblem::Signature,
            "is not a git index (no `DIRC` signature)",
        ),
        (
            IndexProblem::Version(9),
            "has version 9; the versions read are 2, 3 and 4 (`git update-index --index-version 4` rewrites it)",
        ),
        (IndexProblem::Truncated, "ends in the middle of its content"),
        (
            IndexProblem::Count(7),
            "counts 7 entries, more than its bytes could hold",
        ),
        (
            IndexProblem::Entry {
                at: 76,
                what: "has an empty path",
            },
            "has an entry at byte 76 that has an empty path",
        ),
        (
            IndexProblem::Split,
            "is split (`core.splitIndex`), and a split index is not read: `git update-index --no-split-index` joins it",
        ),
        (
            IndexProblem::Extension(*b"ab\x01d"),
            "has a required extension `ab\\x01d` that is not understood",
        ),
        (
            IndexProblem::ChecksumSkipped,
            "has no checksum (written with `index.skipHash`, which `feature.manyFiles` sets), so nothing says it is whole",
        ),
    ];
    for (problem, words) in said {
        assert_eq!(problem.to_string(), words);
    }
}
