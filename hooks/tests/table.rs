//! `[[hook]]` tables: every key, every default, and every error an operator
//! can meet, asserted as the whole message they read.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

use std::path::{Path, PathBuf};
use std::time::Duration;

use io_hooks::{
    Action, AppendAction, DEFAULT_TIMEOUT, Flow, HookEvents, HookFilter, HookSpec, HookTables,
    RunAction, TableError, TableErrorKind, TomlFile,
};
use proptest::prelude::*;

/// A small event enum of our own: the engine knows nothing of the harness's.
#[derive(HookEvents)]
#[allow(dead_code)]
enum Ev {
    #[hook(tag = "started")]
    Started,
    #[hook(tag = "step")]
    Step,
    #[hook(tag = "tool_call")]
    ToolCall,
    #[hook(tag = "finished")]
    Finished,
}

const ROOT: &str = "/work/project";

fn load(text: &str) -> Result<Vec<HookSpec<Ev>>, TableError> {
    TomlFile::new("io.local.toml", text).hooks::<Ev>(Path::new(ROOT))
}

fn err(text: &str) -> String {
    match load(text) {
        Ok(hooks) => panic!("expected an error, loaded {hooks:?}"),
        Err(e) => e.to_string(),
    }
}

/// An action as these tests compare it: its key, its value as a built-in
/// action's type, and the engine's keys it carries.
type Seen = (
    &'static str,
    Option<AppendAction>,
    Option<RunAction>,
    Option<Duration>,
    bool,
);

fn seen(action: &Action) -> Seen {
    (
        action.key(),
        action.get::<AppendAction>().cloned(),
        action.get::<RunAction>().cloned(),
        action.timeout(),
        action.background(),
    )
}

fn names(f: HookFilter<Ev>) -> Vec<&'static str> {
    f.tags().collect()
}

// ---- what loads, and what it becomes ----

#[test]
fn a_bare_append_hook_wants_every_event_and_continues_on_failure() {
    let hooks = load("[[hook]]\nappend = \"audit.jsonl\"\n").unwrap();
    assert_eq!(hooks.len(), 1);
    assert!(hooks[0].on.is_all());
    assert_eq!(
        seen(&hooks[0].action),
        seen(&Action::append(PathBuf::from("/work/project/audit.jsonl")))
    );
    assert_eq!(hooks[0].on_failure, Flow::Continue);
}

#[test]
fn every_key_is_read() {
    let hooks = load(
        "[[hook]]\n\
         on = [\"step\", \"finished\"]\n\
         run = [\"/usr/local/bin/notify\", \"--channel\", \"ops\"]\n\
         on_failure = \"cancel\"\n\
         timeout_ms = 2000\n",
    )
    .unwrap();
    assert_eq!(names(hooks[0].on), ["step", "finished"]);
    assert_eq!(
        seen(&hooks[0].action),
        seen(&Action::run_with_timeout(
            vec!["/usr/local/bin/notify", "--channel", "ops"],
            Duration::from_millis(2000)
        ))
    );
    assert_eq!(hooks[0].on_failure, Flow::Cancel);
}

#[test]
fn a_run_hook_defaults_to_five_seconds() {
    let hooks = load("[[hook]]\nrun = [\"cargo\", \"fmt\"]\n").unwrap();
    assert_eq!(
        seen(&hooks[0].action),
        seen(&Action::run_with_timeout(
            vec!["cargo", "fmt"],
            DEFAULT_TIMEOUT
        ))
    );
    assert_eq!(DEFAULT_TIMEOUT, Duration::from_millis(5000));
}

#[test]
fn on_failure_continue_may_be_written_out() {
    let hooks = load("[[hook]]\nrun = [\"x\"]\non_failure = \"continue\"\n").unwrap();
    assert_eq!(hooks[0].on_failure, Flow::Continue);
}

#[test]
fn argv_stays_an_array_and_metacharacters_are_arguments() {
    let hooks =
        load("[[hook]]\nrun = [\"echo\", \"a; rm -rf /\", \"|\", \"`x`\", \"\"]\n").unwrap();
    let Some(RunAction { argv, .. }) = hooks[0].action.get() else {
        panic!("a run hook")
    };
    assert_eq!(argv, &["echo", "a; rm -rf /", "|", "`x`", ""]);
}

#[test]
fn append_paths_are_relative_to_the_root_and_absolute_ones_are_kept() {
    let hooks = load(
        "[[hook]]\nappend = \"logs/audit.jsonl\"\n\
         [[hook]]\nappend = \"/var/log/io.jsonl\"\n\
         [[hook]]\nappend = \"../up.jsonl\"\n",
    )
    .unwrap();
    let paths: Vec<_> = hooks
        .iter()
        .map(|h| match h.action.get::<AppendAction>() {
            Some(AppendAction { path, .. }) => path.clone(),
            None => panic!("an append hook, not {:?}", h.action),
        })
        .collect();
    assert_eq!(
        paths,
        [
            PathBuf::from("/work/project/logs/audit.jsonl"),
            PathBuf::from("/var/log/io.jsonl"),
            PathBuf::from("/work/project/../up.jsonl"),
        ]
    );
}

#[test]
fn hooks_keep_the_order_they_were_written_in() {
    let hooks = load(
        "[[hook]]\non = [\"started\"]\nappend = \"a\"\n\
         [[hook]]\non = [\"finished\"]\nrun = [\"b\"]\n",
    )
    .unwrap();
    assert_eq!(names(hooks[0].on), ["started"]);
    assert_eq!(names(hooks[1].on), ["finished"]);
}

#[test]
fn the_inline_array_form_is_the_same_hooks() {
    let tables = load("[[hook]]\non = [\"step\"]\nappend = \"a\"\n").unwrap();
    let inline = load("hook = [{ on = [\"step\"], append = \"a\" }]\n").unwrap();
    // Compared field by field, as values: two `Debug` strings agree just as
    // well when `Debug` leaves a field out.
    let fields = |hooks: &[HookSpec<Ev>]| -> Vec<(HookFilter<Ev>, Seen, Flow)> {
        hooks
            .iter()
            .map(|h| (h.on, seen(&h.action), h.on_failure))
            .collect()
    };
    assert_eq!(fields(&tables), fields(&inline));
    assert_eq!(tables.len(), 1);
    assert_eq!(names(inline[0].on), ["step"]);
    assert!(
        matches!(inline[0].action.get(), Some(AppendAction { path, .. }) if path.ends_with("a")),
        "{:?}",
        inline[0].action
    );
}

#[test]
fn a_repeated_event_name_is_refused_at_the_repeat() {
    // Harmless to the filter, but a likely mistake, and the schema's
    // `uniqueItems` refuses it too (issue 21).
    let err = load("[[hook]]\non = [\"step\", \"step\"]\nappend = \"a\"\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "io.local.toml: key `hook[1].on`: `step` is named twice; name each event once \
         (line 2, column 15)"
    );
}

#[test]
fn an_empty_hook_array_is_a_declaration_of_no_hooks() {
    assert!(load("hook = []\n").unwrap().is_empty());
}

#[test]
fn a_file_without_hook_has_none_and_other_keys_are_not_its_business() {
    let file = TomlFile::new("io.local.toml", "[db]\nx = 1\n[[worker]]\nname = \"a\"\n");
    let got = file.hooks::<Ev>(Path::new(ROOT)).unwrap();
    assert!(got.is_empty());
    assert!(file.hook_keys().unwrap().is_empty());
}

/// No `hook` key and `hook = []` both load as no hooks; `hook_keys` tells
/// them apart, for an embedder to which a written `hook` means something
/// (io: a file that says `hook` replaces the user scope's hooks).
#[test]
fn no_hook_key_and_an_empty_hook_array_are_told_apart_by_hook_keys() {
    let absent = TomlFile::new("app.toml", "x = 1\n");
    let empty = TomlFile::new("app.toml", "x = 1\nhook = []\n");
    for file in [&absent, &empty] {
        assert!(file.hooks::<Ev>(Path::new(ROOT)).unwrap().is_empty());
    }
    assert_eq!(absent.hook_keys().unwrap(), Vec::<String>::new());
    assert_eq!(empty.hook_keys().unwrap(), ["hook"]);
}

/// The one-liner (`TomlFile::new(..).hooks::<E>(root)`) is as strict as any
/// embedder's loader: a near miss of `hook` is refused at its key, never
/// loaded as no hooks.
#[test]
fn the_one_liner_refuses_a_near_miss_of_hook_rather_than_loading_none() {
    for (text, key) in [
        ("[[hooks]]\nappend = \"a\"\n", "hooks"),
        ("[[Hook]]\nappend = \"a\"\n", "Hook"),
        ("model = 1\n[[hok]]\nrun = [\"x\"]\n", "hok"),
    ] {
        let e = TomlFile::new("app.toml", text)
            .hooks::<Ev>(Path::new(ROOT))
            .expect_err(text);
        assert!(
            matches!(e.kind(), TableErrorKind::HiddenHooks { written, placed: true, .. } if written == key),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            format!(
                "app.toml: key `{key}`: did you mean `hook`? Hooks are declared only as \
                 `[[hook]]` tables, so `{key}` would load as no hooks at all (line {}, column 3)",
                text.lines().count() - 1
            )
        );
    }
}

#[test]
fn hook_tables_embed_in_a_larger_document_and_name_their_own_path() {
    #[derive(serde::Deserialize)]
    struct Doc {
        profile: std::collections::BTreeMap<String, Profile>,
    }
    #[derive(serde::Deserialize)]
    struct Profile {
        hook: Option<HookTables>,
    }
    let text =
        "[profile.ci]\nmodel = \"m\"\n[[profile.ci.hook]]\nappend = \"a\"\n[[profile.ci.hook]]\n";
    let file = TomlFile::new("io.local.toml", text);
    let mut doc: Doc = file.deserialize().unwrap();
    let tables = doc.profile.remove("ci").unwrap().hook.unwrap();
    assert_eq!(tables.len(), 2);
    let e = tables
        .into_specs::<Ev>(&file, "profile.ci.hook", Path::new(ROOT))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "io.local.toml: key `profile.ci.hook[2]`: the table has neither `append` nor `run`; \
         a hook needs exactly one of them (line 5, column 1)"
    );

    // A shape error deep in the larger document names its whole path.
    let text = "[[profile.ci.hook]]\nappend = \"a\"\ntimout_ms = 3\n";
    let file = TomlFile::new("io.local.toml", text);
    let e = file.deserialize::<Doc>().err().unwrap();
    assert_eq!(e.key(), Some("profile.ci.hook[1].timout_ms"));
    assert_eq!(e.position(), Some((3, 1)));
}

// ---- the errors, whole ----

#[test]
fn neither_append_nor_run_names_the_table_counting_from_one() {
    assert_eq!(
        err("[[hook]]\nappend = \"a\"\n\n[[hook]]\non = [\"step\"]\n"),
        "io.local.toml: key `hook[2]`: the table has neither `append` nor `run`; \
         a hook needs exactly one of them (line 4, column 1)"
    );
}

#[test]
fn both_append_and_run_names_the_table() {
    assert_eq!(
        err("[[hook]]\nappend = \"a\"\nrun = [\"b\"]\n"),
        "io.local.toml: key `hook[1]`: the table has both `append` and `run`; \
         a hook needs exactly one of them (write two `[[hook]]` tables for two actions) \
         (line 1, column 1)"
    );
}

#[test]
fn an_empty_run_names_no_program() {
    assert_eq!(
        err("[[hook]]\nrun = []\n"),
        "io.local.toml: key `hook[1].run`: `run = []` names no program; write the program \
         first, then its arguments, as in `run = [\"tee\", \"-a\", \"events.jsonl\"]` (line 2, column 7)"
    );
}

#[test]
fn an_empty_program_names_no_program() {
    assert_eq!(
        err("[[hook]]\nrun = [\"\", \"fmt\"]\n"),
        "io.local.toml: key `hook[1].run`: `run` names no program: its first element is empty; \
         write the program first, then its arguments, as in `run = [\"tee\", \"-a\", \"events.jsonl\"]` \
         (line 2, column 8)"
    );
}

#[test]
fn a_run_string_is_refused_because_there_is_no_shell() {
    assert_eq!(
        err("[[hook]]\nrun = \"cargo fmt\"\n"),
        "io.local.toml: key `hook[1].run`: invalid type: string \"cargo fmt\", expected an argv \
         array, program first, as in `run = [\"tee\", \"-a\", \"events.jsonl\"]` (there is no shell) \
         (line 2, column 7)"
    );
}

#[test]
fn a_misspelled_key_gets_a_did_you_mean() {
    assert_eq!(
        err("[[hook]]\nrun = [\"x\"]\ntimout_ms = 100\n"),
        "io.local.toml: key `hook[1].timout_ms`: unknown key `timout_ms` (did you mean \
         `timeout_ms`?); a hook table takes `on`, `where`, `append`, `run`, `on_failure`, \
         `timeout_ms`, `background`, `name`, `enabled` (line 3, column 1)"
    );
}

#[test]
fn an_unknown_key_far_from_any_gets_the_list_alone() {
    assert_eq!(
        err("[[hook]]\nrun = [\"x\"]\ncommand = \"y\"\n"),
        "io.local.toml: key `hook[1].command`: unknown key `command`; a hook table takes \
         `on`, `where`, `append`, `run`, `on_failure`, `timeout_ms`, `background`, `name`, `enabled` (line 3, column 1)"
    );
}

#[test]
fn quoted_dotted_and_subtable_keys_are_still_unknown_keys() {
    let e = load("[[hook]]\nrun = [\"x\"]\n\"timout_ms\" = 1\n").unwrap_err();
    assert_eq!(e.key(), Some("hook[1].timout_ms"));
    let e = load("[[hook]]\nrun = [\"x\"]\nextra.deep = 1\n").unwrap_err();
    assert_eq!(e.key(), Some("hook[1].extra"));
    let e = load("[[hook]]\nrun = [\"x\"]\n[hook.sub]\n").unwrap_err();
    assert_eq!(e.key(), Some("hook[1].sub"));
    assert!(matches!(e.kind(), TableErrorKind::UnknownKey { .. }));
}

#[test]
fn an_unknown_event_lists_the_events_and_suggests_the_nearest() {
    assert_eq!(
        err("[[hook]]\non = [\"step\", \"tool_cal\"]\nappend = \"a\"\n"),
        "io.local.toml: key `hook[1].on`: unknown event `tool_cal` (did you mean `tool_call`?); \
         expected one of `started`, `step`, `tool_call`, `finished` (line 2, column 15)"
    );
    assert_eq!(
        err("[[hook]]\non = [\"Step\"]\nappend = \"a\"\n"),
        "io.local.toml: key `hook[1].on`: unknown event `Step` (did you mean `step`?); \
         expected one of `started`, `step`, `tool_call`, `finished` (line 2, column 7)"
    );
    assert_eq!(
        err("[[hook]]\non = [\"weather\"]\nappend = \"a\"\n"),
        "io.local.toml: key `hook[1].on`: unknown event `weather`; \
         expected one of `started`, `step`, `tool_call`, `finished` (line 2, column 7)"
    );
}

#[test]
fn an_empty_on_could_never_fire() {
    assert_eq!(
        err("[[hook]]\non = []\nappend = \"a\"\n"),
        "io.local.toml: key `hook[1].on`: `on = []` names no event, so the hook could never \
         fire; leave `on` out for every event, or name one or more of `started`, `step`, \
         `tool_call`, `finished` (line 2, column 6)"
    );
}

#[test]
fn on_must_be_an_array_of_strings() {
    assert_eq!(
        err("[[hook]]\non = \"step\"\nappend = \"a\"\n"),
        "io.local.toml: key `hook[1].on`: invalid type: string \"step\", expected an array of \
         event names, as in `on = [\"started\"]` (line 2, column 6)"
    );
    // The example is the enum's first event, whatever the value was.
    for (value, found) in [
        ("3", "integer `3`"),
        ("true", "boolean `true`"),
        ("1.5", "floating point `1.5`"),
        ("{ a = 1 }", "table"),
        ("1979-05-27", "date-time `1979-05-27`"),
    ] {
        assert_eq!(
            err(&format!("[[hook]]\non = {value}\nappend = \"a\"\n")),
            format!(
                "io.local.toml: key `hook[1].on`: invalid type: {found}, expected an array of \
                 event names, as in `on = [\"started\"]` (line 2, column 6)"
            )
        );
    }
    assert_eq!(
        err("[[hook]]\non = [\"step\", 3]\nappend = \"a\"\n"),
        "io.local.toml: key `hook[1].on`: invalid type: integer `3`, expected an event name, a \
         string (line 2, column 15)"
    );
}

/// `TomlFile::position` is how a caller with checks of its own points at
/// the text: the same line and column a hook table's error gives for the
/// same byte, the column counting characters.
#[test]
fn a_callers_position_is_the_line_and_column_errors_give() {
    let text = "# é é\n[[hook]]\nrun = [\"x\"]\ntimeout_ms = 0\n";
    let file = TomlFile::new("io.local.toml", text);
    let value = text.find("0\n").expect("the value");
    assert_eq!(file.position(value), (4, 14));
    assert!(err(text).ends_with("(line 4, column 14)"), "{}", err(text));
    assert_eq!(file.position(text.find('é').expect("é") + 2), (1, 4));
    assert_eq!(file.position(0), (1, 1));
}

#[test]
fn timeout_ms_must_be_a_whole_number_of_at_least_one() {
    for (value, col) in [("0", 14), ("-5", 14)] {
        assert_eq!(
            err(&format!("[[hook]]\nrun = [\"x\"]\ntimeout_ms = {value}\n")),
            format!(
                "io.local.toml: key `hook[1].timeout_ms`: `timeout_ms = {value}` is not a \
                 timeout; write a whole number of milliseconds, at least 1 (line 3, column {col})"
            )
        );
    }
    assert_eq!(
        err("[[hook]]\nrun = [\"x\"]\ntimeout_ms = 1.5\n"),
        "io.local.toml: key `hook[1].timeout_ms`: invalid type: floating point `1.5`, expected \
         a whole number of milliseconds, at least 1, as in `timeout_ms = 2000` (line 3, column 14)"
    );
    assert_eq!(
        err("[[hook]]\nrun = [\"x\"]\ntimeout_ms = \"2000\"\n"),
        "io.local.toml: key `hook[1].timeout_ms`: invalid type: string \"2000\", expected \
         a whole number of milliseconds, at least 1, as in `timeout_ms = 2000` (line 3, column 14)"
    );
    let hooks = load("[[hook]]\nrun = [\"x\"]\ntimeout_ms = 1\n").unwrap();
    assert!(hooks[0].action.get::<RunAction>().is_some());
    assert_eq!(hooks[0].action.timeout(), Some(Duration::from_millis(1)));
}

/// TOML integers past `i64::MAX` (the toml crate reads them up to
/// `u64::MAX`) are a timeout too long to matter, not a type error: they
/// saturate at `i64::MAX` milliseconds.
#[test]
fn a_timeout_past_i64_max_saturates_rather_than_failing() {
    for value in ["9223372036854775808", "18446744073709551615"] {
        let hooks = load(&format!("[[hook]]\nrun = [\"x\"]\ntimeout_ms = {value}\n"))
            .unwrap_or_else(|e| panic!("timeout_ms = {value}: {e}"));
        let most = Duration::from_millis(i64::MAX as u64);
        assert!(hooks[0].action.get::<RunAction>().is_some());
        assert_eq!(
            hooks[0].action.timeout(),
            Some(most),
            "timeout_ms = {value}"
        );
    }
}

#[test]
fn timeout_ms_on_an_append_hook_is_refused() {
    assert_eq!(
        err("[[hook]]\nappend = \"a\"\ntimeout_ms = 100\n"),
        "io.local.toml: key `hook[1].timeout_ms`: `timeout_ms` applies only to a `run` hook, \
         and this hook appends; remove it (line 3, column 14)"
    );
}

#[test]
fn on_failure_takes_continue_or_cancel_only() {
    assert_eq!(
        err("[[hook]]\nrun = [\"x\"]\non_failure = \"Cancel\"\n"),
        "io.local.toml: key `hook[1].on_failure`: invalid value: string \"Cancel\", expected \
         `\"continue\"` or `\"cancel\"` (line 3, column 14)"
    );
    assert_eq!(
        err("[[hook]]\nrun = [\"x\"]\non_failure = true\n"),
        "io.local.toml: key `hook[1].on_failure`: invalid type: boolean `true`, expected \
         `\"continue\"` or `\"cancel\"` (line 3, column 14)"
    );
}

#[test]
fn append_must_name_a_file() {
    assert_eq!(
        err("[[hook]]\nappend = \"\"\n"),
        "io.local.toml: key `hook[1].append`: `append = \"\"` names no file; write a path, \
         as in `append = \"audit.jsonl\"` (line 2, column 10)"
    );
    assert_eq!(
        err("[[hook]]\nappend = [\"a\"]\n"),
        "io.local.toml: key `hook[1].append`: invalid type: array, expected a file path, \
         as in `append = \"audit.jsonl\"` (line 2, column 10)"
    );
    assert_eq!(
        err("[[hook]]\nappend = \"a\\u0000b\"\n"),
        "io.local.toml: key `hook[1].append`: the `append` path holds a NUL character, which \
         no file name can (line 2, column 10)"
    );
}

#[test]
fn a_nul_in_an_argument_is_refused_at_load_rather_than_at_spawn() {
    assert_eq!(
        err("[[hook]]\nrun = [\"a\", \"b\\u0000\"]\n"),
        "io.local.toml: key `hook[1].run`: element 2 of `run` holds a NUL character, which no \
         program name or argument can (line 2, column 13)"
    );
}

#[test]
fn hook_must_be_an_array_of_tables() {
    assert_eq!(
        err("hook = 5\n"),
        "io.local.toml: key `hook`: invalid type: integer `5`, expected an array of hook \
         tables, written `[[hook]]` (line 1, column 8)"
    );
    assert_eq!(
        err("[hook]\nappend = \"a\"\n"),
        "io.local.toml: key `hook`: invalid type: table, expected an array of hook tables, \
         written `[[hook]]` (line 1, column 1)"
    );
    assert_eq!(
        err("hook = [\"a\"]\n"),
        "io.local.toml: key `hook[1]`: invalid type: string \"a\", expected a hook table, with \
         `append` or `run` and optionally `on`, `where`, `on_failure`, `timeout_ms`, \
         `background`, `name`, `enabled` \
         (line 1, column 9)"
    );
}

#[test]
fn type_errors_use_toml_words_for_tables_arrays_and_date_times() {
    assert_eq!(
        err("hook = {}\n"),
        "io.local.toml: key `hook`: invalid type: table, expected an array of hook tables, \
         written `[[hook]]` (line 1, column 8)"
    );
    assert_eq!(
        err("[[hook]]\nappend = 1979-05-27\n"),
        "io.local.toml: key `hook[1].append`: invalid type: date-time `1979-05-27`, expected a \
         file path, as in `append = \"audit.jsonl\"` (line 2, column 10)"
    );
    assert_eq!(
        err("[[hook]]\non = [07:32:00]\nappend = \"a\"\n"),
        "io.local.toml: key `hook[1].on`: invalid type: date-time `07:32:00`, expected an event \
         name, a string (line 2, column 7)"
    );
    assert_eq!(
        err("[[hook]]\nrun = [\"x\"]\non_failure = [\"cancel\"]\n"),
        "io.local.toml: key `hook[1].on_failure`: invalid type: array, expected `\"continue\"` \
         or `\"cancel\"` (line 3, column 14)"
    );
    assert_eq!(
        err("[[hook]]\nrun = [\"x\"]\ntimeout_ms = { ms = 5 }\n"),
        "io.local.toml: key `hook[1].timeout_ms`: invalid type: table, expected a whole number \
         of milliseconds, at least 1, as in `timeout_ms = 2000` (line 3, column 14)"
    );
}

#[test]
fn a_hook_table_cannot_be_written_as_a_positional_array() {
    // A derived struct would fill `on` and `append` from this by position.
    let e = load("hook = [[[\"step\"], \"audit.jsonl\"]]\n").unwrap_err();
    assert_eq!(e.key(), Some("hook[1]"));
    assert!(
        e.to_string()
            .contains("invalid type: array, expected a hook table"),
        "{e}"
    );
}

#[test]
fn the_second_inline_table_is_hook_2() {
    assert_eq!(
        err("hook = [\n  { run = [\"x\"] },\n  { append = \"y\", run = [\"x\"] },\n]\n"),
        "io.local.toml: key `hook[2]`: the table has both `append` and `run`; a hook needs \
         exactly one of them (write two `[[hook]]` tables for two actions) (line 3, column 3)"
    );
}

#[test]
fn a_syntax_error_names_the_file_and_position() {
    let e = load("[[hook]]\nappend = \"a\"\n[[hook]\n").unwrap_err();
    assert_eq!(e.key(), None);
    assert!(matches!(e.kind(), TableErrorKind::Syntax(_)));
    assert_eq!(e.position(), Some((3, 8)));
    assert_eq!(
        e.to_string(),
        "io.local.toml: not valid TOML: unclosed array table, expected `]` (line 3, column 8)"
    );
}

#[test]
fn columns_count_characters_not_bytes() {
    let e = load("# é è\n[[hook]]\non = [\"é\"]\nappend = \"a\"\n").unwrap_err();
    assert_eq!(e.position(), Some((3, 7)));
    // `stepp` starts at byte 31 and character 30 (zero-based).
    let e = load("hook = [{ append = \"é\", on = [\"stepp\"] }]\n").unwrap_err();
    assert_eq!(e.position(), Some((1, 31)));
}

#[test]
fn the_first_error_in_document_order_is_reported() {
    let e = load("[[hook]]\nrun = []\n[[hook]]\non = [\"nope\"]\n").unwrap_err();
    assert_eq!(e.key(), Some("hook[1].run"));
}

// ---- no input panics ----

fn toml_ish() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "on",
        "append",
        "run",
        "on_failure",
        "timeout_ms",
        "timout_ms",
        "hook",
        "\"hook\"",
        "x",
        "a.b",
    ]);
    let value = prop::sample::select(vec![
        "[]",
        "[\"\"]",
        "[\"step\"]",
        "[\"stepp\"]",
        "\"a\"",
        "\"\"",
        "0",
        "-1",
        "5000",
        "9223372036854775807",
        "1.5",
        "true",
        "{}",
        "{ run = [\"x\"] }",
        "[[1]]",
        "\"cancel\"",
        "\"continue\"",
        "[\"x\", 1]",
        "1979-05-27",
        "\"a\\u0000\"",
        "nan",
        "inf",
    ]);
    let header = prop::sample::select(vec![
        "[[hook]]",
        "[hook]",
        "[hook.on]",
        "[[hook.run]]",
        "[profile.x]",
        "[[profile.x.hook]]",
        "",
    ]);
    let line = prop_oneof![
        (key.clone(), value.clone()).prop_map(|(k, v)| format!("{k} = {v}")),
        header.prop_map(str::to_owned),
        ".*",
    ];
    prop::collection::vec(line, 0..12).prop_map(|lines| lines.join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_text_loads_or_fails_cleanly(text in ".*") {
        check_no_panic(&text);
    }

    #[test]
    fn arbitrary_bytes_load_or_fail_cleanly(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        check_no_panic(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn toml_ish_documents_load_or_fail_cleanly(text in toml_ish()) {
        check_no_panic(&text);
    }
}

fn check_no_panic(text: &str) {
    let file = TomlFile::new("f.toml", text);
    match file.hooks::<Ev>(Path::new(ROOT)) {
        Ok(_) => {}
        Err(e) => {
            match (e.position(), e.span()) {
                (Some(position), Some(span)) => {
                    assert!(span.start <= span.end && span.end <= text.len(), "{span:?}");
                    assert!(
                        text.get(span.clone()).is_some(),
                        "{span:?} on a char boundary"
                    );
                    assert_eq!(file.position(span.start), position, "{e}");
                }
                (None, None) => {}
                (position, span) => panic!("{position:?} with {span:?}: {e}"),
            }
            let message = e.to_string();
            assert!(message.starts_with("f.toml: "), "{message}");
            if let Some(key) = e.key() {
                assert!(
                    message.starts_with(&format!("f.toml: key `{key}`: ")),
                    "{message}"
                );
            }
            if let Some((line, column)) = e.position() {
                assert!(line >= 1 && column >= 1);
                assert!(line <= text.lines().count().max(1) + 1, "{message}");
            }
        }
    }
}

/// A `main` returning `Result<(), Box<dyn Error>>` prints its error with
/// `Debug`: the operator reads the message as `Display` writes it, not the
/// message again in quotes with its backticks and quotes escaped. `{:#?}`
/// still shows the parts.
#[test]
fn table_error_debug_is_its_message_unquoted() {
    let err = TomlFile::new("build.toml", "[[hook]]\nappend = \"a\" \"b\"\n")
        .deserialize::<toml::Table>()
        .expect_err("not TOML");
    let boxed: Box<dyn std::error::Error> = err.clone().into();
    assert_eq!(format!("{boxed:?}"), err.to_string());
    assert!(
        format!("{boxed:?}").starts_with("build.toml: "),
        "{boxed:?}"
    );
    assert!(format!("{err:#?}").starts_with("TableError {\n    file: \"build.toml\","));
}

/// Each error with a position has the byte span it is about, into the text
/// given to `TomlFile`, starting where the line and column are.
#[test]
fn a_table_errors_span_is_the_bytes_it_is_about() {
    let span_of = |text: &str| {
        let e = load(text).unwrap_err();
        let span = e.span().unwrap_or_else(|| panic!("a span: {e}"));
        let (line, column) = e.position().expect("a position");
        assert_eq!(
            TomlFile::new("f", text).position(span.start),
            (line, column)
        );
        text[span].to_owned()
    };
    // A validation error: the value refused.
    assert_eq!(
        span_of("[[hook]]\non = [\"nope\"]\nappend = \"a\"\n"),
        "\"nope\""
    );
    // A shape error: the value of the wrong type.
    assert_eq!(span_of("[[hook]]\nappend = 5\n"), "5");
    // A syntax error: where the parser stopped.
    let e = load("[[hook]]\nappend = ?\n").unwrap_err();
    assert_eq!(e.span().map(|s| s.start), Some(18));
    assert_eq!(e.position(), Some((2, 10)));
    // A refusal without a place has no span.
    let project = TomlFile::project("p.toml", "hook = 1\n");
    assert_eq!(project.project_refusal("hook").span(), None);
}

/// A caller's span is kept as given when it lies within the text, and cut
/// to the text (on character boundaries) when it does not.
#[test]
fn a_custom_errors_span_is_cut_to_the_text() {
    let text = "name = \"é\"\n";
    let file = TomlFile::new("app.toml", text);
    let custom = |span| TableError::custom(&file, "name", "no", Some(span)).span();
    assert_eq!(custom(7..11), Some(7..11));
    // é is bytes 8 and 9: a span starting inside it starts at its start.
    assert_eq!(custom(9..10), Some(8..10));
    assert_eq!(custom(7..9), Some(7..10), "the end moves past é");
    assert_eq!(custom(5..500), Some(5..text.len()));
    assert_eq!(custom(500..600), Some(text.len()..text.len()));
    assert_eq!(TableError::custom(&file, "name", "no", None).span(), None);
}
