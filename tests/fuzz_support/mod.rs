//! The oracles shared by the fuzz targets (`fuzz/`, run by cargo-fuzz) and
//! the bounded proptest suite (`tests/fuzz_config.rs`,
//! `tests/fuzz_replay.rs`): one definition of "loads or fails cleanly", two
//! drivers.
//!
//! Structured inputs are decoded from plain bytes ([`Choices`]), so that
//! libFuzzer's byte mutations and proptest's byte vectors both reach the
//! same document model without a second generator to keep in step.
#![allow(dead_code)] // each driver uses its own subset

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use io_harness::{
    AppendAction, Config, ConfigError, EventKind, Flow, HookEvents, RunAction, RunEvent,
};

// ---- config files, in every scope ----

/// `dir`, made the top of an empty git work tree as `git init` leaves one
/// (`HEAD`, `objects/`, `refs/`, no index): a local file there is the
/// operator's (`tests/common/mod.rs`'s `work_tree`; this file is shared
/// with the fuzz targets, which have no `common`).
fn work_tree(dir: tempfile::TempDir) -> tempfile::TempDir {
    let git = dir.path().join(".git");
    for sub in ["objects", "refs"] {
        fs::create_dir_all(git.join(sub)).expect("a .git directory");
    }
    fs::write(git.join("HEAD"), "ref: refs/heads/main\n").expect(".git/HEAD");
    dir
}

/// A discovery root (an empty git work tree of its own, so that a local
/// file's hooks are the operator's) and a user-scope directory, reused
/// across inputs; each check writes exactly one file.
pub(crate) struct Scratch {
    root: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Default for Scratch {
    fn default() -> Self {
        Self::new()
    }
}

impl Scratch {
    pub(crate) fn new() -> Self {
        Scratch {
            root: work_tree(tempfile::tempdir().expect("temp root")),
            home: tempfile::tempdir().expect("temp home"),
        }
    }

    /// A scratch whose directories live in `dir`, emptied first. For the
    /// fuzz targets, which keep theirs in a `static` that is never dropped
    /// (libFuzzer ends with `exit`): in the system temp dir, each run would
    /// leave two directories behind.
    pub(crate) fn in_dir(dir: &Path) -> Self {
        let _ = fs::remove_dir_all(dir);
        fs::create_dir_all(dir).expect("scratch dir");
        Scratch {
            root: work_tree(tempfile::tempdir_in(dir).expect("temp root")),
            home: tempfile::tempdir_in(dir).expect("temp home"),
        }
    }

    pub(crate) fn root(&self) -> &Path {
        self.root.path()
    }

    fn file(&self, which: Which) -> PathBuf {
        match which {
            Which::User => self.home.path().join("io.toml"),
            Which::Project => self.root().join("io.toml"),
            Which::Local => self.root().join("io.local.toml"),
        }
    }

    /// Writes `bytes` as the one file of `which` scope and discovers.
    fn discover(&self, which: Which, bytes: &[u8]) -> (PathBuf, Result<Config, ConfigError>) {
        for w in [Which::User, Which::Project, Which::Local] {
            let _ = fs::remove_file(self.file(w));
        }
        let path = self.file(which);
        fs::write(&path, bytes).expect("write the input");
        let got = Config::discover_with(self.root(), Some(self.home.path()));
        let _ = fs::remove_file(&path);
        (path, got)
    }

    /// Loads `bytes` as the user, the project and the local file in turn,
    /// and as `Config::from_toml` text; panics on any broken invariant.
    /// Returns how many loads were tried.
    ///
    /// Invariants: no panic; an error names its file first; a project-scope
    /// load never yields a hook, under any profile; a load that succeeds can
    /// apply every profile it lists. (`Config::hooks` is never called: it
    /// would create `append` files wherever the input says.)
    pub(crate) fn check_config_bytes(&self, bytes: &[u8]) -> usize {
        for which in [Which::User, Which::Project, Which::Local] {
            let (path, got) = self.discover(which, bytes);
            check_loaded(&path.display().to_string(), which, got);
        }
        if let Ok(text) = std::str::from_utf8(bytes) {
            check_loaded("io.toml", Which::Project, Config::from_toml(text));
        }
        4
    }

    /// Decodes a structured document from `bytes`, renders it, loads it in
    /// every scope and checks the result against the document's model.
    /// Returns the number of hook tables the model predicted and checked
    /// (0 when the document is not simple enough to predict).
    pub(crate) fn check_config_doc(&self, bytes: &[u8]) -> usize {
        let doc = Doc::decode(&mut Choices::new(bytes));
        let text = doc.render();
        let expected = doc.expected();
        // Refusal is decided on the parsed document, so it is owed only to
        // text that is TOML at all.
        let refusal_owed = doc.declares_hooks() && text.parse::<toml::Table>().is_ok();
        for which in [Which::User, Which::Project, Which::Local] {
            let (path, got) = self.discover(which, text.as_bytes());
            let name = path.display().to_string();
            match (&expected, which) {
                (_, Which::Project) if refusal_owed => {
                    assert!(
                        matches!(&got, Err(ConfigError::ProjectHooks { .. })),
                        "a project file with hooks was not refused:\n{text}\n{got:?}"
                    );
                }
                (Some(model), Which::User | Which::Local) => match &got {
                    Ok(config) => model.check(config, self.root(), &text),
                    Err(e) => panic!("a valid document failed to load:\n{text}\n{e}"),
                },
                _ => {}
            }
            check_loaded(&name, which, got);
        }
        let from_text = Config::from_toml(&text);
        if refusal_owed {
            assert!(
                matches!(from_text, Err(ConfigError::ProjectHooks { .. })),
                "from_toml let hooks through:\n{text}\n{from_text:?}"
            );
        }
        check_loaded("io.toml", Which::Project, from_text);
        expected.map_or(0, |m| m.tables())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    User,
    Project,
    Local,
}

fn check_loaded(name: &str, which: Which, got: Result<Config, ConfigError>) {
    match got {
        Ok(config) => {
            let _ = config.hooks_in_force().map(|h| h.to_string());
            if which == Which::Project {
                assert!(config.hook_specs().is_empty(), "{name}: project hooks");
            }
            for profile in config.profiles() {
                let applied = config
                    .clone()
                    .with_profile(profile)
                    .unwrap_or_else(|e| panic!("{name}: listed profile `{profile}` refused: {e}"));
                if which == Which::Project {
                    assert!(
                        applied.hook_specs().is_empty(),
                        "{name}: project profile hooks"
                    );
                }
            }
            assert!(config.clone().with_profile("\u{0}no such").is_err());
        }
        Err(e) => {
            let message = e.to_string();
            assert!(
                message.starts_with(&format!("{name}: ")),
                "error does not name its file `{name}` first: {message}"
            );
        }
    }
}

// ---- structured documents ----

/// Choices read from bytes; exhausted input reads as zeros, so every byte
/// string decodes to some document.
pub(crate) struct Choices<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Choices<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Choices { bytes, pos: 0 }
    }
    fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }
    fn done(&self) -> bool {
        self.pos >= self.bytes.len()
    }
    fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n.max(1)
    }
    fn chance(&mut self, in_256: u8) -> bool {
        self.byte() < in_256
    }
    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len())]
    }
    fn text(&mut self, pool: &[&str]) -> String {
        if self.chance(200) {
            self.pick(pool).to_owned()
        } else {
            let len = self.below(12);
            let raw: Vec<u8> = (0..len).map(|_| self.byte()).collect();
            String::from_utf8_lossy(&raw).into_owned()
        }
    }
}

const EVENT_NOISE: &[&str] = &["stepp", "Step", "", "tool_call ", "token\u{0}", "é"];
const PATHS: &[&str] = &[
    "audit.jsonl",
    "logs/a.jsonl",
    "../outside.jsonl",
    "/abs/audit.jsonl",
    "",
    "a\u{0}b",
    "x y;|`$(z)",
    "é.jsonl",
    "~/audit.jsonl",
];
const ARGS: &[&str] = &[
    "notify",
    "./scripts/check",
    "/usr/bin/true",
    "",
    "--channel",
    "a;b|c`d`",
    "$(rm -rf /)",
    "\u{0}",
    "é",
];
const FAILURES: &[&str] = &["continue", "cancel", "Cancel", "", "abort"];
const PROFILES: &[&str] = &["ci", "nightly", "my ci", "ci.x", "é", "hook"];
const EXTRA_KEYS: &[&str] = &["timout_ms", "hook", "\"on\"", "mcp", "x.y"];

/// A `[[hook]]` table as the fuzzer wrote it, valid or not.
#[derive(Debug, Clone)]
struct Table {
    on: Option<Vec<String>>,
    append: Option<String>,
    run: Option<Vec<String>>,
    on_failure: Option<String>,
    timeout_ms: Option<i64>,
    extra: Option<String>,
}

impl Table {
    fn decode(c: &mut Choices<'_>) -> Self {
        // Half the tables are written carefully, so that whole documents of
        // valid tables (which the model predicts exactly) are common.
        if c.chance(128) {
            return Table::decode_valid(c);
        }
        let on = c.chance(128).then(|| {
            (0..c.below(4))
                .map(|_| {
                    if c.chance(220) {
                        EventKind::TAGS[c.below(EventKind::TAGS.len())].to_owned()
                    } else {
                        c.text(EVENT_NOISE)
                    }
                })
                .collect()
        });
        let (append, run) = match c.below(8) {
            0 => (None, None),
            1 => (Some(c.text(PATHS)), Some(vec![c.text(ARGS)])),
            2..=4 => (Some(c.text(PATHS)), None),
            _ => (
                None,
                Some((0..c.below(4) + 1).map(|_| c.text(ARGS)).collect()),
            ),
        };
        let on_failure = c.chance(96).then(|| c.text(FAILURES));
        let timeout_ms = c.chance(80).then(|| match c.below(6) {
            0 => 0,
            1 => -1,
            2 => i64::MAX,
            _ => i64::from(c.byte()) * 100 + 1,
        });
        let extra = c.chance(16).then(|| c.pick(EXTRA_KEYS).to_owned());
        Table {
            on,
            append,
            run,
            on_failure,
            timeout_ms,
            extra,
        }
    }

    /// A table that checks, with values still chosen to be awkward (spaces,
    /// metacharacters, `..`, absolute paths, non-ASCII, empty arguments).
    fn decode_valid(c: &mut Choices<'_>) -> Self {
        let nonempty = |c: &mut Choices<'_>, pool: &[&str]| loop {
            let s = c.text(pool);
            if !s.is_empty() && !s.contains('\0') {
                break s;
            }
            if c.done() {
                break "x".to_owned();
            }
        };
        let on = c.chance(160).then(|| {
            (0..=c.below(4))
                .map(|_| EventKind::TAGS[c.below(EventKind::TAGS.len())].to_owned())
                .collect()
        });
        let is_run = c.chance(128);
        let append = (!is_run).then(|| nonempty(c, PATHS));
        let run = is_run.then(|| {
            let mut argv = vec![nonempty(c, ARGS)];
            for _ in 0..c.below(4) {
                argv.push(c.text(ARGS).replace('\0', ""));
            }
            argv
        });
        let on_failure = c
            .chance(96)
            .then(|| c.pick(&["continue", "cancel"]).to_owned());
        let timeout_ms = (is_run && c.chance(96)).then(|| match c.below(3) {
            0 => 1,
            1 => i64::MAX,
            _ => i64::from(c.byte()) * 100 + 1,
        });
        Table {
            on,
            append,
            run,
            on_failure,
            timeout_ms,
            extra: None,
        }
    }

    fn valid(&self) -> bool {
        let known = |n: &String| EventKind::from_tag(n).is_some();
        let on_ok = match &self.on {
            None => true,
            // A repeated name is refused (issue 21: as the schema refuses it).
            Some(names) => {
                !names.is_empty()
                    && names.iter().all(known)
                    && names.iter().collect::<BTreeSet<_>>().len() == names.len()
            }
        };
        let no_nul = |s: &String| !s.contains('\0');
        let action_ok = match (&self.append, &self.run) {
            (Some(path), None) => !path.is_empty() && no_nul(path),
            (None, Some(argv)) => {
                argv.first().is_some_and(|p| !p.is_empty()) && argv.iter().all(no_nul)
            }
            _ => false,
        };
        let failure_ok = self
            .on_failure
            .as_deref()
            .is_none_or(|f| f == "continue" || f == "cancel");
        let timeout_ok = match self.timeout_ms {
            None => true,
            Some(t) => t >= 1 && self.run.is_some(),
        };
        on_ok && action_ok && failure_ok && timeout_ok && self.extra.is_none()
    }

    /// The table's keys as `key = value` lines.
    fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(on) = &self.on {
            out.push(format!("on = {}", array(on)));
        }
        if let Some(path) = &self.append {
            out.push(format!("append = {}", quote(path)));
        }
        if let Some(argv) = &self.run {
            out.push(format!("run = {}", array(argv)));
        }
        if let Some(f) = &self.on_failure {
            out.push(format!("on_failure = {}", quote(f)));
        }
        if let Some(t) = self.timeout_ms {
            out.push(format!("timeout_ms = {t}"));
        }
        if let Some(k) = &self.extra {
            out.push(format!("{k} = 1"));
        }
        out
    }

    fn inline(&self) -> String {
        format!("{{ {} }}", self.lines().join(", "))
    }

    fn check(&self, spec: &io_harness::HookSpec<EventKind>, root: &Path, text: &str) {
        match (&self.on, spec.on.is_all()) {
            (None, true) => {}
            (Some(names), _) => {
                let got: Vec<&str> = spec.on.tags().collect();
                for n in names {
                    assert!(
                        got.contains(&n.as_str()),
                        "`{n}` missing from {got:?}:\n{text}"
                    );
                }
                assert!(got.len() <= names.len(), "{got:?}:\n{text}");
            }
            (None, false) => panic!("no `on` must mean every event:\n{text}"),
        }
        let action = &spec.action;
        match (
            action.get::<AppendAction>(),
            action.get::<RunAction>(),
            &self.append,
            &self.run,
        ) {
            (Some(AppendAction { path, .. }), None, Some(p), None) => {
                assert_eq!(path, &root.join(p), "{text}");
            }
            (None, Some(RunAction { argv, .. }), None, Some(a)) => {
                assert_eq!(argv, a, "{text}");
                let ms = self.timeout_ms.unwrap_or(5000);
                let timeout = action.timeout().expect("a run hook has a timeout");
                assert_eq!(
                    timeout.as_millis(),
                    u128::try_from(ms).expect("valid timeouts are positive"),
                    "{text}"
                );
            }
            other => panic!("action {other:?} is not what was written:\n{text}"),
        }
        let cancel = self.on_failure.as_deref() == Some("cancel");
        assert_eq!(spec.on_failure == Flow::Cancel, cancel, "{text}");
    }
}

/// How the top-level `hook` key is spelled in an inline declaration.
const HOOK_KEY: &[&str] = &["hook", "\"hook\"", "\"\\u0068ook\"", "'hook'"];

#[derive(Debug, Clone)]
enum Item {
    /// `[[hook]]` tables.
    Tables(Vec<Table>),
    /// `hook = [ { … }, … ]`, with the key spelled some way; rendered before
    /// every header, so that it is a top-level key.
    Inline(usize, Vec<Table>),
    /// `[[profile.NAME.hook]]` tables.
    Profile(usize, Vec<Table>),
    /// A section of someone else's, `[other_N]`, with a key in it.
    Other(String),
    /// A line of noise.
    Raw(String),
}

/// A config document: hook tables, profiles and other keys, in order.
#[derive(Debug, Clone)]
pub(crate) struct Doc {
    items: Vec<Item>,
}

fn tables(c: &mut Choices<'_>) -> Vec<Table> {
    (0..c.below(4)).map(|_| Table::decode(c)).collect()
}

impl Doc {
    pub(crate) fn decode(c: &mut Choices<'_>) -> Self {
        let mut items = Vec::new();
        let n = c.below(7);
        for _ in 0..n {
            if c.done() && !items.is_empty() {
                break;
            }
            items.push(match c.below(16) {
                0..=5 => Item::Tables(tables(c)),
                6..=7 => Item::Inline(c.below(HOOK_KEY.len()), tables(c)),
                8..=12 => Item::Profile(c.below(PROFILES.len()), tables(c)),
                13..=14 => Item::Other(c.pick(EXTRA_KEYS).to_owned()),
                _ => Item::Raw(c.text(&["[[hook]]", "hook = 1", "[profile.ci]", "#"])),
            });
        }
        Doc { items }
    }

    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        for item in &self.items {
            if let Item::Inline(key, tables) = item {
                let inner: Vec<String> = tables.iter().map(Table::inline).collect();
                out.push_str(&format!("{} = [{}]\n", HOOK_KEY[*key], inner.join(", ")));
            }
        }
        for (i, item) in self.items.iter().enumerate() {
            match item {
                Item::Tables(tables) => {
                    for t in tables {
                        out.push_str("[[hook]]\n");
                        for line in t.lines() {
                            out.push_str(&line);
                            out.push('\n');
                        }
                    }
                }
                Item::Profile(p, tables) => {
                    for t in tables {
                        out.push_str(&format!("[[profile.{}.hook]]\n", key(PROFILES[*p])));
                        for line in t.lines() {
                            out.push_str(&line);
                            out.push('\n');
                        }
                    }
                }
                Item::Other(k) => out.push_str(&format!("[other_{i}]\n{k} = 1\n")),
                Item::Raw(line) => {
                    out.push_str(line);
                    out.push('\n');
                }
                Item::Inline(..) => {}
            }
        }
        out
    }

    /// Whether the document declares `hook` at the top level or in a
    /// profile, in any form, even empty.
    pub(crate) fn declares_hooks(&self) -> bool {
        self.items.iter().any(|item| match item {
            Item::Tables(t) | Item::Profile(_, t) => !t.is_empty(),
            Item::Inline(..) => true,
            _ => false,
        })
    }

    /// What a user- or local-scope load must give, when the document is
    /// simple enough to predict: every table valid, no noise, and the
    /// top-level `hook` written in one form only.
    fn expected(&self) -> Option<Model<'_>> {
        let mut top: Option<Vec<Table>> = None;
        let mut inline_seen = false;
        let mut array_seen = false;
        let mut profiles: BTreeMap<&str, Vec<Table>> = BTreeMap::new();
        for item in &self.items {
            match item {
                Item::Raw(_) => return None,
                Item::Other(_) => {}
                Item::Inline(_, tables) => {
                    if inline_seen || array_seen {
                        return None;
                    }
                    inline_seen = true;
                    top = Some(tables.clone());
                }
                Item::Tables(tables) => {
                    if tables.is_empty() {
                        continue;
                    }
                    if inline_seen {
                        return None;
                    }
                    array_seen = true;
                    top.get_or_insert_with(Vec::new)
                        .extend(tables.iter().cloned());
                }
                Item::Profile(p, tables) => {
                    if !tables.is_empty() {
                        profiles
                            .entry(PROFILES[*p])
                            .or_default()
                            .extend(tables.iter().cloned());
                    }
                }
            }
        }
        let all = top.iter().flatten().chain(profiles.values().flatten());
        if !all.clone().all(Table::valid) {
            return None;
        }
        Some(Model { top, profiles })
    }
}

struct Model<'a> {
    top: Option<Vec<Table>>,
    profiles: BTreeMap<&'a str, Vec<Table>>,
}

impl Model<'_> {
    /// How many tables the model predicts, profiles included; at least 1
    /// so that a predicted empty document still counts as checked.
    fn tables(&self) -> usize {
        1 + self.top.iter().flatten().count() + self.profiles.values().flatten().count()
    }

    fn check(&self, config: &Config, root: &Path, text: &str) {
        let tables = self.top.as_deref().unwrap_or(&[]);
        let specs = config.hook_specs();
        assert_eq!(specs.len(), tables.len(), "{text}");
        for (t, s) in tables.iter().zip(specs) {
            t.check(s, root, text);
        }
        let listed = config.profiles();
        let expected: Vec<&str> = self.profiles.keys().copied().collect();
        assert_eq!(listed, expected, "{text}");
        for (name, tables) in &self.profiles {
            let applied = config.clone().with_profile(name).expect("a listed profile");
            let specs = applied.hook_specs();
            assert_eq!(specs.len(), tables.len(), "profile {name}:\n{text}");
            for (t, s) in tables.iter().zip(specs) {
                t.check(s, root, text);
            }
        }
    }
}

/// A TOML basic string: `"` and `\` escaped, and every control character
/// (DEL included, which TOML forbids raw) as `\uXXXX`.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn array(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| quote(s)).collect();
    format!("[{}]", inner.join(", "))
}

/// A key: bare where TOML allows it, quoted otherwise.
fn key(name: &str) -> String {
    let bare = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare { name.to_owned() } else { quote(name) }
}

// ---- RunEvent lines, as `io replay` reads them ----

/// Reads `bytes` as `io replay` reads a recording: one line at a time,
/// `serde_json::from_str::<RunEvent>`. A line that parses must serialise
/// and parse back to the same envelope and tag. Returns the lines tried.
pub(crate) fn check_event_lines(bytes: &[u8]) -> usize {
    let text = String::from_utf8_lossy(bytes);
    let mut lines = 0;
    for line in text.lines() {
        lines += 1;
        if let Ok(event) = serde_json::from_str::<RunEvent>(line) {
            let again = serde_json::to_string(&event).expect("a parsed event serialises");
            let back: RunEvent = serde_json::from_str(&again)
                .unwrap_or_else(|e| panic!("{again} does not parse back: {e}"));
            assert_eq!(back.tag(), event.tag());
            assert_eq!(back.run_id, event.run_id);
            assert_eq!(back.depth, event.depth);
            assert_eq!(back.seq, event.seq);
            assert_eq!(back.at, event.at);
            assert!(again.starts_with(&format!("{{\"event\":\"{}\"", event.tag())));
        }
    }
    lines
}

/// One event of every kind, as the seeds of the replay fuzzers.
pub(crate) fn sample_events() -> Vec<RunEvent> {
    let kinds = [
        vec![EventKind::Started {
            goal: owned("ship it"),
            resumed: false,
        }],
        a_step_and_its_tools(),
        the_model_and_the_budget(),
        what_an_agent_does_besides(),
        handles(),
        vec![EventKind::Finished {
            outcome: io_harness::Outcome::Completed,
            steps: 3,
            resumed: false,
        }],
    ]
    .concat();
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, kind)| RunEvent {
            kind,
            run_id: owned("r-7f3a"),
            depth: u32::try_from(i % 3).expect("small"),
            seq: (i % 2 == 0).then_some(i as u64),
            at: (i % 4 != 1).then(|| owned("2026-11-30T03:00:00.123Z")),
        })
        .collect()
}

/// `x` as a `String`, which most fields of an event are.
fn owned(x: &str) -> String {
    x.to_owned()
}

/// A step, and a tool call in it: made, refused, or waiting on approval.
fn a_step_and_its_tools() -> Vec<EventKind> {
    use serde_json::json;
    vec![
        EventKind::Step {
            step: 1,
            moved_the_workspace: true,
        },
        EventKind::ToolCall {
            step: 1,
            tool: owned("write_file"),
            args: json!({"path": "src/x.rs", "n": [1, 2.5, null, {"deep": true}]}).into(),
        },
        EventKind::Refused {
            step: 1,
            tool: owned("exec"),
            reason: owned("policy"),
        },
        EventKind::ApprovalRequested {
            step: 1,
            tool: owned("exec"),
            args: json!(["rm", "-rf", "/"]).into(),
        },
        EventKind::ApprovalDecided {
            step: 1,
            tool: owned("exec"),
            approved: false,
        },
    ]
}

/// What the model and its budget do to a run: spend, retries, fallbacks,
/// replanning, a stall.
fn the_model_and_the_budget() -> Vec<EventKind> {
    vec![
        EventKind::SpendDraw {
            step: 1,
            tokens: u64::MAX,
            remaining: 0,
        },
        EventKind::Retry {
            step: 1,
            attempt: 2,
            reason: owned("429"),
        },
        EventKind::FellBackTo {
            step: 1,
            provider: owned("b"),
            reason: owned("down"),
        },
        EventKind::Replan {
            step: 2,
            reason: owned("stuck"),
        },
        EventKind::Stalled {
            step: 3,
            steps_without_progress: 3,
        },
    ]
}

/// Child runs, memory, todos, questions, server tools, tokens, the sandbox
/// and MCP.
fn what_an_agent_does_besides() -> Vec<EventKind> {
    vec![
        EventKind::Spawned {
            step: 3,
            child_run_id: owned("r-child"),
            goal: owned("sub"),
        },
        EventKind::SpawnRefused {
            step: 3,
            reason: owned("depth"),
        },
        EventKind::MemoryWrote {
            step: 3,
            key: owned("k"),
        },
        EventKind::TodoWrote { step: 3, items: 4 },
        EventKind::QuestionAsked {
            step: 3,
            question: owned("why?"),
        },
        EventKind::QuestionAnswered {
            step: 3,
            answer: owned("because"),
        },
        EventKind::ServerToolUsed {
            step: 3,
            tool: owned("search"),
        },
        EventKind::Token {
            step: 3,
            text: owned("\u{0}é\"\\\n"),
        },
        EventKind::Sandbox {
            step: 3,
            program: owned("/bin/sh"),
            outcome: owned("exited 0"),
        },
        EventKind::Mcp {
            step: 3,
            server: owned("m"),
            method: owned("tools/list"),
        },
    ]
}

/// A background process handle, from start to orphaned.
fn handles() -> Vec<EventKind> {
    vec![
        EventKind::HandleStarted {
            step: 3,
            handle: owned("h1"),
            argv: vec![owned("sleep"), owned("1")],
        },
        EventKind::HandlePolled {
            step: 3,
            handle: owned("h1"),
            running: true,
        },
        EventKind::HandleKilled {
            step: 3,
            handle: owned("h1"),
        },
        EventKind::HandleExited {
            step: 3,
            handle: owned("h1"),
            code: None,
        },
        EventKind::HandleOrphaned {
            handle: owned("h1"),
        },
    ]
}

// ---- `where`, loaded against the field table and matched ----

/// Strings a `where` may name as fields, besides the field table's own.
const FIELD_NOISE: &[&str] = &["tool ", "Tool", "args", "", "goal.x", "é", "run_id", "seq"];
/// Globs, each a feature of the syntax or a way it can go wrong.
const GLOBS: &[&str] = &[
    "write_*",
    "*",
    "**",
    "a/**/b",
    "[abc]",
    "[!a-c]?",
    "[c-a]",
    "[",
    "***",
    "a**",
    "{a,b}",
    "\\*",
    "*aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
    "*a*a*a*a*a*a*a*a*b",
    "[]]",
    "é?",
];
/// Strings a value or a payload may hold.
const VALUES: &[&str] = &[
    "exec",
    "write_file",
    "completed",
    "cancelled",
    "",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "a/x/b",
    "é\u{0}\u{202e}",
];

/// `text` as a TOML basic string (JSON's escapes are TOML's; a DEL it
/// leaves raw makes the document one TOML refuses, which is a case too).
fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| String::from("\"\""))
}

/// A value under `where`, valid or not, nested at most `depth` more.
fn where_value(c: &mut Choices<'_>, depth: u8) -> String {
    match c.below(10) {
        0 | 1 => toml_string(&c.text(VALUES)),
        2 => (i64::from(c.byte()) - 128).to_string(),
        3 => c
            .pick(&["1.5", "-0.0", "inf", "nan", "1e300", "0.1"])
            .to_owned(),
        4 => c.pick(&["true", "false"]).to_owned(),
        5 if depth > 0 => {
            let items: Vec<String> = (0..c.below(4)).map(|_| where_value(c, depth - 1)).collect();
            format!("[{}]", items.join(", "))
        }
        6 => format!("{{ glob = {} }}", toml_string(&c.text(GLOBS))),
        7 => {
            let mut bounds = Vec::new();
            if c.chance(160) {
                bounds.push(format!("min = {}", i64::from(c.byte()) - 128));
            }
            if c.chance(160) {
                bounds.push(format!("max = {}", i64::from(c.byte())));
            }
            if c.chance(40) {
                bounds.push("glob = \"x\"".to_owned());
            }
            format!("{{ {} }}", bounds.join(", "))
        }
        8 => c
            .pick(&[
                "1979-05-27",
                "1979-05-27T07:32:00Z",
                "{ x = 1 }",
                "{}",
                "[]",
            ])
            .to_owned(),
        _ => toml_string(&c.text(GLOBS)),
    }
}

/// The JSON of a field of `kind`, for a payload.
fn payload_value(
    c: &mut Choices<'_>,
    kind: io_hooks::FieldKind,
    choices: Option<&[&str]>,
) -> serde_json::Value {
    use io_hooks::FieldKind;
    if c.chance(16) {
        return serde_json::Value::Null;
    }
    match (kind, choices) {
        (_, Some(names)) if c.chance(220) => serde_json::json!(c.pick(names)),
        (FieldKind::Str, _) => {
            let text = c.text(VALUES);
            // Now and then a long one, to match a glob against.
            match c.chance(20) {
                true => serde_json::json!(text.repeat(1 + c.below(4096))),
                false => serde_json::json!(text),
            }
        }
        (FieldKind::Integer, _) => serde_json::json!(c.below(256)),
        (FieldKind::Float, _) => serde_json::json!(f64::from(c.byte()) / 3.0),
        (FieldKind::Bool, _) => serde_json::json!(c.chance(128)),
        _ => serde_json::json!({}),
    }
}

/// A `[[hook]]` whose `where` is decoded from `bytes`, loaded against
/// `EventKind`'s field table: it loads or is refused cleanly, never
/// panics. When it loads, events of its `on` (and others) decoded from the
/// rest of the bytes are matched against it: `passes` and `turned_away`
/// agree, and a field `turned_away` names is one the filter names. Returns
/// the events matched.
pub(crate) fn check_where(bytes: &[u8]) -> usize {
    let mut c = Choices::new(bytes);
    let tags = EventKind::TAGS;
    let on: Vec<usize> = (0..=c.below(3)).map(|_| c.below(tags.len())).collect();
    let mut entries = Vec::new();
    for _ in 0..=c.below(4) {
        let kind = c.pick(&on);
        let fields = EventKind::FIELDS.get(kind).copied().unwrap_or(&[]);
        let name = match fields.is_empty() || c.chance(32) {
            true => c.text(FIELD_NOISE),
            false => c.pick(fields).name.to_owned(),
        };
        entries.push(format!(
            "{} = {}",
            toml_string(&name),
            where_value(&mut c, 2)
        ));
    }
    let on_names: Vec<String> = on.iter().map(|&k| toml_string(tags[k])).collect();
    let text = format!(
        "[[hook]]\non = [{}]\nappend = \"w.jsonl\"\nwhere = {{ {} }}\n",
        on_names.join(", "),
        entries.join(", ")
    );
    let Ok(specs) =
        io_hooks::TomlFile::new("fuzz.toml", &text).hooks::<EventKind>(Path::new("/fuzz-root"))
    else {
        return 0;
    };
    let Some(spec) = specs.first() else {
        return 0;
    };
    let filter = &spec.r#where;
    let named: Vec<&str> = filter.fields().collect();
    let mut matched = 0;
    while !c.done() && matched < 8 {
        let kind = if c.chance(200) {
            c.pick(&on)
        } else {
            c.below(tags.len())
        };
        let mut object = serde_json::Map::new();
        object.insert("event".to_owned(), serde_json::json!(tags[kind]));
        for (i, field) in EventKind::FIELDS
            .get(kind)
            .copied()
            .unwrap_or(&[])
            .iter()
            .enumerate()
        {
            let choices = EventKind::field_choices(kind, i);
            object.insert(
                field.name.to_owned(),
                payload_value(&mut c, field.kind, choices),
            );
        }
        let Ok(event) = serde_json::from_value::<EventKind>(serde_json::Value::Object(object))
        else {
            continue;
        };
        // A slow match is libFuzzer's `-timeout` to catch (ROBUSTNESS.md's
        // fuzz command), not a clock read here, which a busy machine trips.
        let passes = filter.passes(&event);
        let away = filter.turned_away(&event);
        assert_eq!(passes, away.is_none(), "{text}\n{event:?}");
        if let Some(field) = away {
            assert!(named.contains(&field), "{field} is not in {named:?}");
        }
        matched += 1;
    }
    matched
}
