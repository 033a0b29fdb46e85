//! The JSON Schema gives `io check`'s verdict on `where` values (issue 45,
//! deliverable 8): a number out of its field's range, a wrong type, a range
//! of the wrong form or the wrong way round. Compared here value by value,
//! the schema (`io_hooks::hook_file_schema`, what `io schema`
//! embeds) against the loader (`TomlFile::hooks`, what `io check` runs), on
//! an event of every field type, `f64` included, which io's own events do
//! not have. `tests/hidden_hooks.rs` compares whole files through `io` and
//! taplo.
//!
//! What JSON Schema cannot say is named, and checked to be only that: no
//! keyword compares two values of one instance, so a range the wrong way
//! round is refused only where one of the schema's thresholds lies between
//! its bounds (every integer from -128 to 128; beyond, `2^k` and `3 * 2^k`
//! of either sign); and JSON has one number 2 (`2.0` is an integer to a
//! validator), so a float with no fraction on an integer field is the
//! loader's alone.

use std::path::Path;

use io_hooks::{HookEvents, Layout, TomlFile};
use serde_json::Value;

#[derive(HookEvents, serde::Serialize)]
#[allow(dead_code)] // only its fields' types are read
enum Ev {
    #[hook(tag = "sample")]
    Sample {
        small: u8,
        count: u64,
        delta: i64,
        ratio: f64,
        name: String,
        ok: bool,
    },
}

/// The file schema for `Ev`, compiled.
fn validator() -> jsonschema::Validator {
    let schema = io_hooks::hook_file_schema::<Ev>(|_| String::new(), "hooks", &Layout::new());
    jsonschema::draft202012::new(&schema).expect("the schema compiles")
}

/// The file whose one hook filters `field` on `value` (TOML).
fn file(field: &str, value: &str) -> String {
    format!("[[hook]]\non = [\"sample\"]\nwhere.{field} = {value}\nappend = \"a\"\n")
}

/// The schema's verdict and the loader's on `text`.
fn verdicts(validator: &jsonschema::Validator, text: &str) -> (bool, bool) {
    let table: toml::Table = toml::from_str(text).expect("TOML");
    let json = serde_json::to_value(&table).expect("TOML as JSON");
    let schema = validator.is_valid(&json);
    let loader = TomlFile::new("io.local.toml", text)
        .hooks::<Ev>(Path::new("/p"))
        .is_ok();
    (schema, loader)
}

#[track_caller]
fn agree(validator: &jsonschema::Validator, field: &str, value: &str) {
    let text = file(field, value);
    let (schema, loader) = verdicts(validator, &text);
    assert_eq!(
        schema, loader,
        "the schema says {schema}, the loader {loader}, on where.{field} = {value}"
    );
}

#[test]
fn types_bounds_and_range_forms_get_the_loaders_verdict() {
    let validator = validator();
    let all = [
        "0",
        "1",
        "-1",
        "255",
        "256",
        "1.5",
        "-0.5",
        "\"1\"",
        "true",
        "[1, 2]",
        "[1, 1.5]",
        "[]",
        "[[1]]",
        "{ glob = \"a*\" }",
        "{ glob = 1 }",
        "{}",
        "{ mim = 1 }",
        "{ min = 1, glob = \"a\" }",
        "{ min = \"1\" }",
        "{ max = true }",
        "{ min = 1 }",
        "{ max = 1.5 }",
        "{ min = 0.5, max = 2 }",
        "{ min = -1 }",
        "{ max = -1 }",
        "{ min = 256 }",
        "{ max = 255 }",
        "{ min = 255, max = 300 }",
        "[{ min = 1 }, 5]",
        "[{ min = 1.5 }]",
        "9223372036854775807",
        "-9223372036854775808",
        "{ min = -9223372036854775808 }",
        "\"a\"",
        "[\"a\", \"b\"]",
        "false",
        "[true]",
    ];
    for field in ["small", "count", "delta", "ratio", "name", "ok"] {
        for value in all {
            agree(&validator, field, value);
        }
    }
}

/// Whether one of the schema's thresholds lies in `(max, min]`: every
/// integer from -128 to 128, and beyond, `2^k` and `3 * 2^k` of either
/// sign (the thresholds the module's docs and docs/hooks.md name).
fn a_threshold_between(max: f64, min: f64) -> bool {
    let beyond = (0..64).flat_map(|k| [2f64.powi(k), 3.0 * 2f64.powi(k)]);
    let thresholds = (-128..=128)
        .map(f64::from)
        .chain(beyond.clone())
        .chain(beyond.map(|t| -t));
    thresholds.into_iter().any(|t| max < t && t <= min)
}

#[test]
fn a_range_the_wrong_way_round_is_refused_wherever_a_threshold_divides_it() {
    let validator = validator();
    let points: Vec<i64> = [
        i64::MIN,
        -(1 << 40),
        -301,
        -300,
        -129,
        -128,
        -127,
        -5,
        -1,
        0,
        1,
        2,
        3,
        10,
        127,
        128,
        129,
        130,
        300,
        301,
        1 << 32,
        (1 << 32) + 1,
        i64::MAX,
    ]
    .to_vec();
    let mut missed = 0;
    for &min in &points {
        for &max in &points {
            let value = format!("{{ min = {min}, max = {max} }}");
            let (schema, loader) = verdicts(&validator, &file("delta", &value));
            assert_eq!(loader, min <= max, "{value}");
            if loader || a_threshold_between(max as f64, min as f64) {
                assert_eq!(schema, loader, "{value}");
            } else {
                // The one thing the schema cannot say: left to io check.
                assert!(schema, "{value}: refused though no threshold divides it");
                missed += 1;
            }
        }
    }
    // Only pairs beyond the band in one step: (-300, -301) and (301, 300),
    // (130, 129), (2^32 + 1, 2^32)…
    assert!(missed > 0 && missed < 8, "{missed}");
    // Every pair within the band, exactly.
    for min in -130..=130 {
        for max in [min - 1, min, min + 1, -130, 0, 130] {
            let value = format!("{{ min = {min}, max = {max} }}");
            let (schema, loader) = verdicts(&validator, &file("delta", &value));
            if (-129..=127).contains(&max) || (-128..=128).contains(&min) {
                assert_eq!(schema, loader, "{value}");
            }
        }
    }
}

#[test]
fn no_range_in_order_is_refused_whatever_its_bounds() {
    // A float field, bounds drawn across every magnitude: the schema never
    // refuses what the loader takes, and refuses each inverted range a
    // threshold divides.
    let validator = validator();
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let magnitude = 10f64.powi((state % 24) as i32 - 6);
        let sign = if state & (1 << 40) == 0 { 1.0 } else { -1.0 };
        sign * magnitude * ((state >> 11) as f64 / (1u64 << 53) as f64)
    };
    for _ in 0..400 {
        let (a, b) = (next(), next());
        let value = format!("{{ min = {a:?}, max = {b:?} }}");
        let (schema, loader) = verdicts(&validator, &file("ratio", &value));
        assert_eq!(loader, a <= b, "{value}");
        if loader {
            assert!(schema, "{value}: a range in order refused");
        } else if a_threshold_between(b, a) {
            assert!(!schema, "{value}: divided by a threshold, yet accepted");
        }
    }
}

#[test]
fn a_float_with_no_fraction_on_an_integer_field_is_the_loaders_alone() {
    // JSON has one number 2: a validator takes `2.0` as an integer.
    let validator = validator();
    for value in ["2.0", "{ min = 2.0 }", "[1, 3.0]"] {
        let (schema, loader) = verdicts(&validator, &file("count", value));
        assert!(schema && !loader, "{value}: {schema} {loader}");
    }
}

/// What `io args…` prints on stdout, run with every directory it could
/// write to in a temp dir.
fn io_stdout(args: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_io"))
        .args(args)
        .current_dir(dir.path())
        .env("IO_CONFIG_HOME", dir.path())
        .env("IO_DATA_HOME", dir.path())
        .env("HOME", dir.path())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("io runs");
    assert_eq!(out.status.code(), Some(0), "io {args:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn io_schema_names_the_programs_version() {
    // `io --version`'s version, as `$id`'s last part (it said 0.28 under
    // 0.29.0).
    let version = io_stdout(&["--version"]);
    let version = version
        .trim_end()
        .strip_prefix("io ")
        .expect("io VERSION")
        .to_owned();
    let hooks: Value = serde_json::from_str(&io_stdout(&["schema"])).expect("JSON");
    let events: Value = serde_json::from_str(&io_stdout(&["schema", "--events"])).expect("JSON");
    assert_eq!(hooks["$id"], format!("urn:io-harness:hooks:{version}"));
    assert_eq!(events["$id"], format!("urn:io-harness:events:{version}"));
    // The rule of order is where the ranges' references point: the file's
    // `$defs`, none left under the table's.
    let order = &hooks["$defs"]["range_in_order"]["then"]["allOf"];
    assert!(order.as_array().is_some_and(|r| r.len() > 257), "{order}");
    assert_eq!(hooks["$defs"]["hook"].get("$defs"), None);
}
