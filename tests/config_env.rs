//! `Config::discover` reads the user scope from the environment. The
//! environment is process-wide, so this file holds exactly one test: nothing
//! else in this binary can race it.

use std::fs;

use io_harness::{Config, Scope};

#[test]
fn discover_finds_the_user_scope_through_the_environment() {
    let root = tempfile::tempdir().unwrap();
    let io_home = tempfile::tempdir().unwrap();
    let xdg = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    fs::write(
        io_home.path().join("io.toml"),
        "[[hook]]\nappend = \"io-home\"\n",
    )
    .unwrap();
    fs::create_dir(xdg.path().join("io")).unwrap();
    fs::write(
        xdg.path().join("io/io.toml"),
        "[[hook]]\nappend = \"xdg\"\n",
    )
    .unwrap();
    fs::create_dir_all(home.path().join(".config/io")).unwrap();
    fs::write(
        home.path().join(".config/io/io.toml"),
        "[[hook]]\nappend = \"home\"\n",
    )
    .unwrap();

    let in_force = || {
        let config = Config::discover(root.path()).unwrap();
        let won = config.hooks_in_force().expect("a user-scope file");
        assert_eq!(won.source.scope(), Scope::User);
        won.source.path().to_path_buf()
    };

    #[cfg(unix)]
    {
        // SAFETY: this is the only test in this binary, so no other thread reads
        // or writes the environment while it runs.
        unsafe {
            std::env::set_var("IO_CONFIG_HOME", io_home.path());
            std::env::set_var("XDG_CONFIG_HOME", xdg.path());
            std::env::set_var("HOME", home.path());
        }
        assert_eq!(in_force(), io_home.path().join("io.toml"));

        unsafe { std::env::remove_var("IO_CONFIG_HOME") };
        assert_eq!(in_force(), xdg.path().join("io/io.toml"));

        unsafe { std::env::remove_var("XDG_CONFIG_HOME") };
        assert_eq!(in_force(), home.path().join(".config/io/io.toml"));

        unsafe { std::env::remove_var("HOME") };
        let config = Config::discover(root.path()).unwrap();
        assert!(config.sources().is_empty(), "no variable, no user scope");
    }
    // Windows (issue 47): IO_CONFIG_HOME, then %APPDATA%\io; XDG_* and
    // HOME are not read there.
    #[cfg(windows)]
    {
        // SAFETY: this is the only test in this binary, so no other thread
        // reads or writes the environment while it runs.
        unsafe {
            std::env::set_var("IO_CONFIG_HOME", io_home.path());
            std::env::set_var("APPDATA", xdg.path());
            std::env::set_var("HOME", home.path());
        }
        assert_eq!(in_force(), io_home.path().join("io.toml"));

        unsafe { std::env::remove_var("IO_CONFIG_HOME") };
        assert_eq!(in_force(), xdg.path().join("io").join("io.toml"));

        // Without APPDATA, Windows' known folder: the profile's own, which
        // holds no `io\io.toml` here.
        unsafe { std::env::remove_var("APPDATA") };
        let config = Config::discover(root.path()).unwrap();
        assert!(config.sources().is_empty(), "no variable, no user scope");
    }
}
