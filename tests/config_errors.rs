//! `ConfigError`'s `source`: the cause a caller walking the error chain
//! finds, for exactly the variants that have one.

use std::error::Error as _;
use std::io;
use std::path::PathBuf;

use io_harness::ConfigError;

#[test]
fn an_os_or_table_cause_is_the_source_and_a_whole_refusal_has_none() {
    let os = || io::Error::from_raw_os_error(13);
    for err in [
        ConfigError::Root {
            root: PathBuf::from("/r"),
            source: os(),
        },
        ConfigError::Read {
            path: PathBuf::from("/r/io.toml"),
            source: os(),
        },
    ] {
        let source = err.source().expect("an OS cause");
        let source = source.downcast_ref::<io::Error>().expect("an io::Error");
        assert_eq!(source.raw_os_error(), Some(13), "{err:?}");
    }

    let table = io_hooks::TomlFile::new("io.local.toml", "[[hook]\n")
        .deserialize::<toml_free::Empty>()
        .unwrap_err();
    let err = ConfigError::Table(table.clone());
    let source = err.source().expect("the table error");
    assert_eq!(source.downcast_ref::<io_hooks::TableError>(), Some(&table));

    for err in [
        ConfigError::ProjectHooks(table),
        ConfigError::TooLarge {
            path: PathBuf::from("/r/io.toml"),
            limit: 1 << 20,
        },
        ConfigError::TrackedLocal {
            file: "io.local.toml".into(),
            key: "hook".into(),
        },
        ConfigError::UnknownProfile {
            name: "x".into(),
            suggestion: None,
            known: Vec::new(),
        },
    ] {
        assert!(err.source().is_none(), "{err:?}");
    }
}

mod toml_free {
    /// Any document: the error under test is TOML syntax.
    #[derive(Debug, serde::Deserialize)]
    pub(crate) struct Empty {}
}
