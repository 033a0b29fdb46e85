//! `ConfigError`'s `source`: the cause a caller walking the error chain
//! finds, for exactly the variants that have one.

use std::error::Error as _;
use std::io;
use std::path::PathBuf;

use io_harness::ConfigError;

#[test]
fn an_os_or_table_cause_is_in_the_message_and_no_error_has_a_source() {
    // EACCES; on Windows ERROR_ACCESS_DENIED, said "Access is denied."
    let (code, said) = if cfg!(windows) {
        (5, "denied")
    } else {
        (13, "Permission denied")
    };
    let os = || io::Error::from_raw_os_error(code);
    for err in [
        ConfigError::Root {
            root: PathBuf::from("/r"),
            cause: os(),
        },
        ConfigError::Read {
            path: PathBuf::from("/r/io.toml"),
            cause: os(),
        },
    ] {
        // The cause is said once, in the message, read one way; `source()`
        // gives nothing, so a chain printer never repeats it.
        assert!(err.source().is_none(), "{err:?}");
        let text = err.to_string();
        assert_eq!(text.matches(said).count(), 1, "{text}");
        assert!(!text.contains("os error"), "{text}");
    }

    let table = io_hooks::TomlFile::new("io.local.toml", "[[hook]\n")
        .deserialize::<toml_free::Empty>()
        .unwrap_err();
    let err = ConfigError::Table(table.clone());
    assert!(err.source().is_none(), "{err:?}");
    assert_eq!(err.to_string(), table.to_string());

    for err in [
        ConfigError::ProjectHooks(table),
        ConfigError::TooLarge {
            path: PathBuf::from("/r/io.toml"),
            limit: 1 << 20,
        },
        ConfigError::TrackedLocal {
            path: "io.local.toml".into(),
            key: "hook".into(),
        },
        ConfigError::UnknownProfile {
            name: "x".into(),
            suggestion: None,
            known: Vec::new(),
            unlisted: 0,
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
