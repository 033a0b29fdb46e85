//! The public API of the published crates, io-beneath, io-hooks,
//! io-hooks-derive, io-supervisor, io-winsec and io-trust, is checked in (`beneath/public-api.txt`,
//! `hooks/public-api.txt`, `hooks-derive/public-api.txt`,
//! `supervisor/public-api.txt`, `winsec/public-api.txt`, `trust/public-api.txt`):
//! each public item's path and kind, with its signature (a field's type, a
//! variant's fields, a function's arguments and return, a trait's items,
//! the traits a type implements). This test regenerates each listing from
//! rustdoc's JSON and fails when it differs, so a change to what an
//! embedder compiles against cannot merge unnoticed: the version and
//! CHANGELOG.md must say so (README.md, "Releases").
//!
//! cargo-semver-checks is the standard tool for this, and was measured
//! (README.md, "Releases"); it needs a published baseline, which these
//! crates do not have yet, and does not look at a proc-macro crate.
//!
//! `IO_UPDATE_PUBLIC_API=1` rewrites the listings instead of comparing, and
//! only for a version whose CHANGELOG.md section is not dated: a released
//! version's API does not change.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The workspace's root (this package's directory).
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Auto traits that are not stable, so not part of what an embedder can
/// rely on.
const UNNAMEABLE: [&str; 2] = ["core::marker::Freeze", "core::marker::UnsafeUnpin"];

/// The environment variable that rewrites the listings.
const UPDATE: &str = "IO_UPDATE_PUBLIC_API";

/// The published crates: package name, crate name, listing file.
const CRATES: [(&str, &str, &str); 6] = [
    ("io-beneath", "io_beneath", "beneath/public-api.txt"),
    ("io-hooks", "io_hooks", "hooks/public-api.txt"),
    (
        "io-hooks-derive",
        "io_hooks_derive",
        "hooks-derive/public-api.txt",
    ),
    (
        "io-supervisor",
        "io_supervisor",
        "supervisor/public-api.txt",
    ),
    ("io-winsec", "io_winsec", "winsec/public-api.txt"),
    ("io-trust", "io_trust", "trust/public-api.txt"),
];

#[test]
fn each_published_crates_public_api_matches_its_listing() {
    if cfg!(windows) {
        // The listings are each crate's API on Linux, where they are made.
        eprintln!(
            "skipped on Windows: the listings are the Linux API (Windows-only items are not in \
             them), and this runs cargo rustdoc"
        );
        return;
    }
    let version = workspace_version();
    let changelog = std::fs::read_to_string(root().join("CHANGELOG.md")).expect("CHANGELOG.md");
    let update = std::env::var_os(UPDATE).is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (package, krate, listing) in CRATES {
        let json = rustdoc_json(package, krate);
        let generated = listing_of(&json, krate, &version);
        let path = root().join(listing);
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        let section = fingerprint(&changes_of(&changelog, &version));
        if without_fingerprint(&checked_in) == generated {
            // The API as listed: a rewrite only records the section as it
            // is now, the mark the next change of the API is measured by.
            if update && fingerprint_in(&checked_in) != Some(section.as_str()) {
                std::fs::write(&path, with_fingerprint(&generated, &section))
                    .expect("write the listing");
            }
            continue;
        }
        if update {
            if let Some(date) = released(&changelog, &version) {
                panic!(
                    "{package}: its public API changed, and {version} was released on {date} \
                     (CHANGELOG.md): raise the version in Cargo.toml's [workspace.package] \
                     (before 1.0, the minor number for a change that breaks, the patch number \
                     for an addition), add its `## [x.y.z]` section to CHANGELOG.md saying what \
                     changed, and run this again"
                );
            }
            let same_version = checked_in.lines().next() == generated.lines().next();
            if same_version && fingerprint_in(&checked_in) == Some(section.as_str()) {
                panic!(
                    "{package}: its public API changed, and CHANGELOG.md's `## [{version}]` \
                     section is as it was when {listing} was last written: say what changed \
                     there (Added, Changed, Removed; a change that breaks says so and how to \
                     move), and run this again"
                );
            }
            std::fs::write(&path, with_fingerprint(&generated, &section))
                .expect("write the listing");
            continue;
        }
        stale.push(format!(
            "{listing} ({package}):\n{}",
            diff(&checked_in, &generated)
        ));
    }
    assert!(
        stale.is_empty(),
        "the public API changed:\n\n{}\n\nIf the change is meant: the version in Cargo.toml's \
         [workspace.package] and its `## [x.y.z]` section in CHANGELOG.md must say so (a new \
         version when the one in Cargo.toml has a dated, released section), then rewrite the \
         listing with `{UPDATE}=1 cargo test --locked --test public_api` and commit it.",
        stale.join("\n\n")
    );
}

#[test]
fn the_version_in_cargo_toml_has_a_changelog_section() {
    let version = workspace_version();
    let changelog = std::fs::read_to_string(root().join("CHANGELOG.md")).expect("CHANGELOG.md");
    let heading = format!("## [{version}]");
    assert!(
        changelog.lines().any(|line| line.starts_with(&heading)),
        "CHANGELOG.md has no `{heading}` section for the version in Cargo.toml: add one \
         saying what changed (Keep a Changelog: Added, Changed, Removed, Fixed)"
    );
    // The derive is pinned to the engine's version exactly, and io-harness
    // and the outside crate name that version: one number, in every file.
    for manifest in [
        "Cargo.toml",
        "hooks/Cargo.toml",
        "outside/ci-runner/Cargo.toml",
    ] {
        let text = std::fs::read_to_string(root().join(manifest)).expect("a manifest");
        for line in text.lines().filter(|l| l.starts_with("io-hooks")) {
            assert!(
                line.contains(&format!("version = \"{version}\""))
                    || line.contains(&format!("version = \"={version}\""))
                    || !line.contains("version ="),
                "{manifest}: `{line}` does not name version {version}"
            );
        }
    }
}

/// Cut short, the listing diff shows what changed: lines removed, then
/// lines added.
#[test]
fn a_stale_listing_is_shown_as_the_lines_that_changed() {
    let old = "# header\nfn a()\nfn b()\n";
    let new = "# header\nfn a()\nfn b(x: u8)\n";
    assert_eq!(diff(old, new), "- fn b()\n+ fn b(x: u8)");
}

/// `[workspace.package] version`.
fn workspace_version() -> String {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let table: toml::Table = text.parse().expect("Cargo.toml is TOML");
    table["workspace"]["package"]["version"]
        .as_str()
        .expect("a version")
        .to_owned()
}

/// The line of a listing that records its version's changelog section as
/// it was when the listing was last rewritten, so that the next rewrite can
/// ask for the section to have changed with the API. Not compared.
const FINGERPRINT: &str = "# CHANGELOG.md's section for this version, when this was written: ";

/// What the changelog says is changing in `version`: its `## [Unreleased]`
/// section, where changes are written while the version is being made,
/// and the version's own.
fn changes_of(changelog: &str, version: &str) -> String {
    format!(
        "{}\n{}",
        section_of(changelog, "Unreleased"),
        section_of(changelog, version)
    )
}

/// `version`'s section of the changelog: its heading to the next.
fn section_of(changelog: &str, version: &str) -> String {
    let heading = format!("## [{version}]");
    let mut lines = changelog.lines().skip_while(|l| !l.starts_with(&heading));
    let first = lines.next().unwrap_or_default();
    std::iter::once(first)
        .chain(lines.take_while(|l| !l.starts_with("## [")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// FNV-1a, 64 bits, in hex: the same on every toolchain (std's
/// `DefaultHasher` promises no such thing).
fn fingerprint(text: &str) -> String {
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{hash:016x}")
}

fn fingerprint_in(listing: &str) -> Option<&str> {
    listing.lines().find_map(|l| l.strip_prefix(FINGERPRINT))
}

fn without_fingerprint(listing: &str) -> String {
    listing
        .lines()
        .filter(|l| !l.starts_with(FINGERPRINT))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The listing with its fingerprint line after the header's two lines.
fn with_fingerprint(listing: &str, section: &str) -> String {
    let mut lines: Vec<String> = listing.lines().map(str::to_owned).collect();
    lines.insert(2.min(lines.len()), format!("{FINGERPRINT}{section}"));
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The date of `version`'s section in the changelog, when it has one: then
/// that version was released.
fn released(changelog: &str, version: &str) -> Option<String> {
    let heading = format!("## [{version}] - ");
    changelog
        .lines()
        .find_map(|line| line.strip_prefix(&heading))
        .map(|date| date.trim().to_owned())
        .filter(|date| date.starts_with(|c: char| c.is_ascii_digit()))
}

/// The lines only in `old` (`- `), then those only in `new` (`+ `).
fn diff(old: &str, new: &str) -> String {
    let (old_lines, new_lines): (BTreeSet<&str>, BTreeSet<&str>) =
        (old.lines().collect(), new.lines().collect());
    let removed = old.lines().filter(|l| !new_lines.contains(l));
    let added = new.lines().filter(|l| !old_lines.contains(l));
    removed
        .map(|l| format!("- {l}"))
        .chain(added.map(|l| format!("+ {l}")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// rustdoc's JSON of `package`'s library, built into a target directory of
/// its own (the JSON output is unstable, so `RUSTC_BOOTSTRAP=1`, which
/// would otherwise rebuild the test build's dependencies each time).
fn rustdoc_json(package: &str, krate: &str) -> Value {
    let target: PathBuf = Path::new(env!("CARGO_TARGET_TMPDIR")).join("public-api");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(root())
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTDOCFLAGS")
        .args([
            "rustdoc",
            "-q",
            "--locked",
            "--offline",
            "--lib",
            "-p",
            package,
        ])
        .args(["--", "-Z", "unstable-options", "--output-format", "json"])
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo rustdoc -p {package} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = target.join("doc").join(format!("{krate}.json"));
    let text = std::fs::read_to_string(&path).expect("rustdoc's JSON");
    serde_json::from_str(&text).expect("rustdoc's JSON parses")
}

/// The listing: a header, then one line per public item, sorted.
fn listing_of(json: &Value, krate: &str, version: &str) -> String {
    let mut api = Api::new(json);
    let root = json["root"].as_u64().expect("a root id");
    api.module(krate, root);
    let mut out = format!(
        "# The public API of {krate} {version}, from rustdoc's JSON (tests/public_api.rs).\n\
         # A change here needs the version and CHANGELOG.md to say so (README.md, \"Releases\").\n"
    );
    for line in &api.lines {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// A walk of the public items from the crate's root.
struct Api<'a> {
    index: &'a serde_json::Map<String, Value>,
    paths: &'a serde_json::Map<String, Value>,
    /// Each local item's public path, for the types that name it.
    public_paths: HashMap<u64, String>,
    /// Modules already walked (a module re-exported twice is listed at
    /// both paths, but walked into once per path).
    walked: HashSet<(u64, String)>,
    lines: BTreeSet<String>,
}

impl<'a> Api<'a> {
    fn new(json: &'a Value) -> Self {
        let mut api = Api {
            index: json["index"].as_object().expect("an index"),
            paths: json["paths"].as_object().expect("paths"),
            public_paths: HashMap::new(),
            walked: HashSet::new(),
            lines: BTreeSet::new(),
        };
        // First the names each local item is reachable by, so that a type
        // is written by its public path, never its private module's.
        let root = json["root"].as_u64().expect("a root id");
        let krate = json["index"][root.to_string()]["name"]
            .as_str()
            .expect("the crate's name")
            .to_owned();
        api.collect_paths(&krate, root);
        api.walked.clear();
        api
    }

    fn item(&self, id: u64) -> Option<&'a Value> {
        self.index.get(&id.to_string())
    }

    /// The public children of a module: (name, id), re-exports followed.
    fn children(&self, module: &'a Value) -> Vec<(String, u64, Option<String>)> {
        let mut out = Vec::new();
        let items = module["inner"]["module"]["items"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for id in items.iter().filter_map(Value::as_u64) {
            let Some(item) = self.item(id) else { continue };
            if item["visibility"] != "public" {
                continue;
            }
            if let Some(using) = item["inner"].get("use") {
                let name = using["name"].as_str().unwrap_or_default().to_owned();
                let source = using["source"].as_str().unwrap_or_default().to_owned();
                let target = using["id"].as_u64();
                match target.and_then(|t| self.item(t).map(|_| t)) {
                    Some(t) if using["is_glob"] == true => {
                        if let Some(m) = self.item(t) {
                            out.extend(self.children(m));
                        }
                    }
                    Some(t) => out.push((name, t, None)),
                    None => out.push((name, target.unwrap_or(u64::MAX), Some(source))),
                }
                continue;
            }
            if let Some(name) = item["name"].as_str() {
                out.push((name.to_owned(), id, None));
            }
        }
        out
    }

    fn collect_paths(&mut self, prefix: &str, module: u64) {
        if !self.walked.insert((module, prefix.to_owned())) {
            return;
        }
        let Some(m) = self.item(module) else { return };
        for (name, id, _) in self.children(m) {
            let path = format!("{prefix}::{name}");
            let shorter = self
                .public_paths
                .get(&id)
                .is_none_or(|known| path.len() < known.len());
            if shorter {
                self.public_paths.insert(id, path.clone());
            }
            if self
                .item(id)
                .is_some_and(|i| i["inner"].get("module").is_some())
            {
                self.collect_paths(&path, id);
            }
        }
    }

    fn module(&mut self, prefix: &str, module: u64) {
        if !self.walked.insert((module, prefix.to_owned())) {
            return;
        }
        let Some(m) = self.item(module) else { return };
        for (name, id, external) in self.children(m) {
            let path = format!("{prefix}::{name}");
            if let Some(source) = external {
                self.lines.insert(format!("pub use {path} = {source}"));
                continue;
            }
            if let Some(item) = self.item(id) {
                self.item_at(&path, item);
            }
        }
    }

    fn item_at(&mut self, path: &str, item: &'a Value) {
        let attrs = attrs_of(item);
        let inner = &item["inner"];
        let (kind, body) = match inner.as_object().and_then(|o| o.iter().next()) {
            Some((k, v)) => (k.as_str(), v),
            None => return,
        };
        match kind {
            "module" => {
                self.lines.insert(format!("mod {path}"));
                let id = item["id"].as_u64().unwrap_or(u64::MAX);
                self.module(path, id);
            }
            "struct" => {
                let generics = self.generics(&body["generics"]);
                let shape = self.struct_shape(&body["kind"]);
                self.lines
                    .insert(format!("{attrs}struct {path}{generics}{shape}"));
                self.impls(path, &body["impls"]);
            }
            "enum" => {
                let generics = self.generics(&body["generics"]);
                self.lines.insert(format!("{attrs}enum {path}{generics}"));
                for id in body["variants"].as_array().into_iter().flatten() {
                    let Some(variant) = id.as_u64().and_then(|id| self.item(id)) else {
                        continue;
                    };
                    let name = variant["name"].as_str().unwrap_or_default();
                    let shape = self.variant_shape(&variant["inner"]["variant"]["kind"]);
                    self.lines.insert(format!(
                        "{}variant {path}::{name}{shape}",
                        attrs_of(variant)
                    ));
                }
                self.impls(path, &body["impls"]);
            }
            "union" => {
                self.lines.insert(format!("{attrs}union {path}"));
                self.impls(path, &body["impls"]);
            }
            "function" => {
                self.lines
                    .insert(format!("{attrs}{}", self.function(path, body)));
            }
            "trait" => self.trait_at(path, &attrs, body),
            "constant" => {
                let ty = self.ty(&body["type"]);
                let value = body["const"]["expr"].as_str().unwrap_or("_");
                self.lines
                    .insert(format!("{attrs}const {path}: {ty} = {value}"));
            }
            "static" => {
                let ty = self.ty(&body["type"]);
                self.lines.insert(format!("{attrs}static {path}: {ty}"));
            }
            "type_alias" => {
                let generics = self.generics(&body["generics"]);
                let ty = self.ty(&body["type"]);
                self.lines
                    .insert(format!("{attrs}type {path}{generics} = {ty}"));
            }
            "macro" => {
                self.lines.insert(format!("{attrs}macro {path}!"));
            }
            "proc_macro" => self.proc_macro_at(path, &attrs, item, body),
            other => {
                self.lines.insert(format!("{attrs}{other} {path}"));
            }
        }
    }

    /// A struct's fields: `(T, _)` for a tuple struct (`_` a private
    /// field), `{ a: T, .. }` for one with named fields.
    fn struct_shape(&self, kind: &Value) -> String {
        match kind.as_object().and_then(|o| o.iter().next()) {
            Some((k, v)) if k == "tuple" => {
                let fields: Vec<String> = v
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|f| match f.as_u64().and_then(|id| self.item(id)) {
                        Some(field) => self.ty(&field["inner"]["struct_field"]),
                        None => "_".to_owned(),
                    })
                    .collect();
                format!("({})", fields.join(", "))
            }
            Some((k, v)) if k == "plain" => {
                let mut fields = self.fields(&v["fields"]);
                if v["has_stripped_fields"] == true {
                    fields.push("..".to_owned());
                }
                format!(" {{ {} }}", fields.join(", "))
            }
            _ => String::new(),
        }
    }

    /// A trait, its supertraits and each of its items.
    fn trait_at(&mut self, path: &str, attrs: &str, body: &'a Value) {
        let generics = self.generics(&body["generics"]);
        let bounds = self.bounds(&body["bounds"]);
        let bounds = if bounds.is_empty() {
            String::new()
        } else {
            format!(": {bounds}")
        };
        let unsafety = if body["is_unsafe"] == true {
            "unsafe "
        } else {
            ""
        };
        self.lines
            .insert(format!("{attrs}{unsafety}trait {path}{generics}{bounds}"));
        for id in body["items"].as_array().into_iter().flatten() {
            if let Some(member) = id.as_u64().and_then(|id| self.item(id)) {
                self.member(path, member);
            }
        }
    }

    /// A procedural macro and its helper attributes. A derive's interface
    /// is also the keys its helper attributes take, which rustdoc does not
    /// see; its docs list them, so each `#[hook(KEY` they write is a line.
    fn proc_macro_at(&mut self, path: &str, attrs: &str, item: &Value, body: &Value) {
        let helpers: Vec<&str> = body["helpers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let kind = body["kind"].as_str().unwrap_or("proc_macro");
        self.lines.insert(format!(
            "{attrs}proc_macro {kind} {path} (helper attributes: {})",
            helpers.join(", ")
        ));
        let docs = item["docs"].as_str().unwrap_or_default();
        for helper in helpers {
            let open = format!("#[{helper}(");
            for (at, _) in docs.match_indices(&open) {
                let key: String = docs[at + open.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !key.is_empty() {
                    self.lines
                        .insert(format!("attribute {path} #[{helper}({key} …)]"));
                }
            }
        }
    }

    /// A trait's or an impl's item.
    fn member(&mut self, path: &str, member: &'a Value) {
        let name = member["name"].as_str().unwrap_or_default();
        let at = format!("{path}::{name}");
        let inner = &member["inner"];
        let line = if let Some(f) = inner.get("function") {
            format!("{}{}", attrs_of(member), self.function(&at, f))
        } else if let Some(c) = inner.get("assoc_const") {
            let value = c["value"]
                .as_str()
                .map(|v| format!(" = {v}"))
                .unwrap_or_default();
            format!(
                "{}const {at}: {}{value}",
                attrs_of(member),
                self.ty(&c["type"])
            )
        } else if let Some(t) = inner.get("assoc_type") {
            let bounds = self.bounds(&t["bounds"]);
            let bounds = if bounds.is_empty() {
                String::new()
            } else {
                format!(": {bounds}")
            };
            let ty = match t.get("type") {
                Some(ty) if !ty.is_null() => format!(" = {}", self.ty(ty)),
                _ => String::new(),
            };
            format!("{}type {at}{bounds}{ty}", attrs_of(member))
        } else {
            format!(
                "{} {at}",
                inner
                    .as_object()
                    .and_then(|o| o.keys().next())
                    .map_or("?", |k| k)
            )
        };
        self.lines.insert(line);
    }

    /// The inherent items of a type, and the traits it implements (blanket
    /// impls aside: they come with the trait, not the type).
    fn impls(&mut self, path: &str, impls: &Value) {
        for id in impls.as_array().into_iter().flatten() {
            let Some(imp) = id.as_u64().and_then(|id| self.item(id)) else {
                continue;
            };
            let body = &imp["inner"]["impl"];
            if !body["blanket_impl"].is_null() {
                continue;
            }
            if body["trait"].is_null() {
                for id in body["items"].as_array().into_iter().flatten() {
                    let Some(member) = id.as_u64().and_then(|id| self.item(id)) else {
                        continue;
                    };
                    if member["visibility"] == "public" {
                        self.member(path, member);
                    }
                }
                continue;
            }
            let generics = self.generics(&body["generics"]);
            let negative = if body["is_negative"] == true { "!" } else { "" };
            let unsafety = if body["is_unsafe"] == true {
                "unsafe "
            } else {
                ""
            };
            let trait_ = self.path(&body["trait"]);
            // Auto traits no stable code can name: what they say is the
            // compiler's business, and they come and go with the toolchain.
            if UNNAMEABLE.iter().any(|t| trait_ == *t) {
                continue;
            }
            let for_ = self.ty(&body["for"]);
            let wheres = self.where_clause(&body["generics"]);
            self.lines.insert(format!(
                "{unsafety}impl{generics} {negative}{trait_} for {for_}{wheres}"
            ));
        }
    }

    fn variant_shape(&self, kind: &Value) -> String {
        match kind.as_object().and_then(|o| o.iter().next()) {
            Some((k, v)) if k == "tuple" => {
                let fields: Vec<String> = v
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|f| match f.as_u64().and_then(|id| self.item(id)) {
                        Some(field) => self.ty(&field["inner"]["struct_field"]),
                        None => "_".to_owned(),
                    })
                    .collect();
                format!("({})", fields.join(", "))
            }
            Some((k, v)) if k == "struct" => {
                let mut fields = self.fields(&v["fields"]);
                if v["has_stripped_fields"] == true {
                    fields.push("..".to_owned());
                }
                format!(" {{ {} }}", fields.join(", "))
            }
            _ => String::new(),
        }
    }

    fn fields(&self, ids: &Value) -> Vec<String> {
        ids.as_array()
            .into_iter()
            .flatten()
            .filter_map(|id| id.as_u64().and_then(|id| self.item(id)))
            .map(|field| {
                let name = field["name"].as_str().unwrap_or_default();
                format!("{name}: {}", self.ty(&field["inner"]["struct_field"]))
            })
            .collect()
    }

    fn function(&self, path: &str, f: &Value) -> String {
        let header = &f["header"];
        let mut out = String::new();
        for (flag, word) in [
            ("is_const", "const "),
            ("is_async", "async "),
            ("is_unsafe", "unsafe "),
        ] {
            if header[flag] == true {
                out.push_str(word);
            }
        }
        let inputs: Vec<String> = f["sig"]["inputs"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|pair| {
                let name = pair[0].as_str().unwrap_or("_");
                let ty = self.ty(&pair[1]);
                match name {
                    "self" => self_arg(&ty),
                    _ => format!("{name}: {ty}"),
                }
            })
            .collect();
        let output = match &f["sig"]["output"] {
            Value::Null => String::new(),
            ty => format!(" -> {}", self.ty(ty)),
        };
        let generics = self.generics(&f["generics"]);
        let wheres = self.where_clause(&f["generics"]);
        out.push_str(&format!(
            "fn {path}{generics}({}){output}{wheres}",
            inputs.join(", ")
        ));
        out
    }

    fn generics(&self, generics: &Value) -> String {
        let params: Vec<String> = generics["params"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["kind"]["type"]["is_synthetic"] != true)
            .map(|p| {
                let name = p["name"].as_str().unwrap_or_default();
                let kind = &p["kind"];
                if let Some(lt) = kind.get("lifetime") {
                    let outlives: Vec<&str> = lt["outlives"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .collect();
                    if outlives.is_empty() {
                        name.to_owned()
                    } else {
                        format!("{name}: {}", outlives.join(" + "))
                    }
                } else if let Some(t) = kind.get("type") {
                    let bounds = self.bounds(&t["bounds"]);
                    let default = match &t["default"] {
                        Value::Null => String::new(),
                        d => format!(" = {}", self.ty(d)),
                    };
                    if bounds.is_empty() {
                        format!("{name}{default}")
                    } else {
                        format!("{name}: {bounds}{default}")
                    }
                } else if let Some(c) = kind.get("const") {
                    format!("const {name}: {}", self.ty(&c["type"]))
                } else {
                    name.to_owned()
                }
            })
            .collect();
        if params.is_empty() {
            String::new()
        } else {
            format!("<{}>", params.join(", "))
        }
    }

    fn where_clause(&self, generics: &Value) -> String {
        let predicates: Vec<String> = generics["where_predicates"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| {
                if let Some(b) = p.get("bound_predicate") {
                    format!("{}: {}", self.ty(&b["type"]), self.bounds(&b["bounds"]))
                } else if let Some(r) = p.get("lifetime_predicate") {
                    let outlives: Vec<&str> = r["outlives"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .collect();
                    format!(
                        "{}: {}",
                        r["lifetime"].as_str().unwrap_or("'_"),
                        outlives.join(" + ")
                    )
                } else if let Some(e) = p.get("eq_predicate") {
                    format!("{} = {}", self.ty(&e["lhs"]), self.term(&e["rhs"]))
                } else {
                    "?".to_owned()
                }
            })
            .collect();
        if predicates.is_empty() {
            String::new()
        } else {
            format!(" where {}", predicates.join(", "))
        }
    }

    fn bounds(&self, bounds: &Value) -> String {
        bounds
            .as_array()
            .into_iter()
            .flatten()
            .map(|b| {
                if let Some(t) = b.get("trait_bound") {
                    let modifier = match t["modifier"].as_str() {
                        Some("maybe") => "?",
                        Some("maybe_const") => "~const ",
                        _ => "",
                    };
                    format!(
                        "{}{modifier}{}",
                        self.hrtb(&t["generic_params"]),
                        self.path(&t["trait"])
                    )
                } else if let Some(lt) = b.get("outlives") {
                    lt.as_str().unwrap_or("'_").to_owned()
                } else if let Some(args) = b.get("use") {
                    let args: Vec<String> = args
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|a| {
                            a.as_str()
                                .map(str::to_owned)
                                .unwrap_or_else(|| a.to_string())
                        })
                        .collect();
                    format!("use<{}>", args.join(", "))
                } else {
                    "?".to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(" + ")
    }

    /// `for<'a> ` of a higher-ranked bound.
    fn hrtb(&self, params: &Value) -> String {
        let names: Vec<&str> = params
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["name"].as_str())
            .collect();
        if names.is_empty() {
            String::new()
        } else {
            format!("for<{}> ", names.join(", "))
        }
    }

    /// A path to a type or trait: a local item by its public path, an
    /// outside one by its full path, with its generic arguments.
    fn path(&self, p: &Value) -> String {
        let written = p["path"].as_str().unwrap_or("?");
        let id = p["id"].as_u64();
        let name = match id {
            Some(id) if self.public_paths.contains_key(&id) => self.public_paths[&id].clone(),
            Some(id) => match self.paths.get(&id.to_string()) {
                Some(summary) => summary["path"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("::"),
                None => written.to_owned(),
            },
            None => written.to_owned(),
        };
        format!("{name}{}", self.args(&p["args"]))
    }

    fn args(&self, args: &Value) -> String {
        if let Some(angle) = args.get("angle_bracketed") {
            let mut parts: Vec<String> = angle["args"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|a| {
                    if let Some(t) = a.get("type") {
                        self.ty(t)
                    } else if let Some(lt) = a.get("lifetime") {
                        lt.as_str().unwrap_or("'_").to_owned()
                    } else if let Some(c) = a.get("const") {
                        c["expr"].as_str().unwrap_or("_").to_owned()
                    } else {
                        "_".to_owned()
                    }
                })
                .collect();
            for c in angle["constraints"].as_array().into_iter().flatten() {
                let name = c["name"].as_str().unwrap_or("?");
                let binding = &c["binding"];
                if let Some(eq) = binding.get("equality") {
                    parts.push(format!("{name} = {}", self.term(eq)));
                } else if let Some(bounds) = binding.get("constraint") {
                    parts.push(format!("{name}: {}", self.bounds(bounds)));
                }
            }
            if parts.is_empty() {
                String::new()
            } else {
                format!("<{}>", parts.join(", "))
            }
        } else if let Some(paren) = args.get("parenthesized") {
            let inputs: Vec<String> = paren["inputs"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| self.ty(t))
                .collect();
            let output = match &paren["output"] {
                Value::Null => String::new(),
                t => format!(" -> {}", self.ty(t)),
            };
            format!("({}){output}", inputs.join(", "))
        } else {
            String::new()
        }
    }

    fn term(&self, term: &Value) -> String {
        if let Some(t) = term.get("type") {
            self.ty(t)
        } else if let Some(c) = term.get("constant") {
            c["expr"].as_str().unwrap_or("_").to_owned()
        } else {
            "?".to_owned()
        }
    }

    fn dyn_trait(&self, v: &Value) -> String {
        let mut parts: Vec<String> = v["traits"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| {
                format!(
                    "{}{}",
                    self.hrtb(&t["generic_params"]),
                    self.path(&t["trait"])
                )
            })
            .collect();
        if let Some(lt) = v["lifetime"].as_str() {
            parts.push(lt.to_owned());
        }
        format!("dyn {}", parts.join(" + "))
    }

    fn function_pointer(&self, v: &Value) -> String {
        let inputs: Vec<String> = v["sig"]["inputs"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|pair| self.ty(&pair[1]))
            .collect();
        let output = match &v["sig"]["output"] {
            Value::Null => String::new(),
            t => format!(" -> {}", self.ty(t)),
        };
        format!(
            "{}fn({}){output}",
            self.hrtb(&v["generic_params"]),
            inputs.join(", ")
        )
    }

    fn ty(&self, ty: &Value) -> String {
        let Some((kind, v)) = ty.as_object().and_then(|o| o.iter().next()) else {
            return "?".to_owned();
        };
        match kind.as_str() {
            "resolved_path" => self.path(v),
            "generic" | "primitive" => v.as_str().unwrap_or("?").to_owned(),
            "borrowed_ref" => {
                let lt = v["lifetime"]
                    .as_str()
                    .map(|l| format!("{l} "))
                    .unwrap_or_default();
                let m = if v["is_mutable"] == true { "mut " } else { "" };
                format!("&{lt}{m}{}", self.ty(&v["type"]))
            }
            "raw_pointer" => {
                let m = if v["is_mutable"] == true {
                    "mut"
                } else {
                    "const"
                };
                format!("*{m} {}", self.ty(&v["type"]))
            }
            "tuple" => {
                let parts: Vec<String> = v
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|t| self.ty(t))
                    .collect();
                format!("({})", parts.join(", "))
            }
            "slice" => format!("[{}]", self.ty(v)),
            "array" => format!(
                "[{}; {}]",
                self.ty(&v["type"]),
                v["len"].as_str().unwrap_or("_")
            ),
            "impl_trait" => format!("impl {}", self.bounds(v)),
            "dyn_trait" => self.dyn_trait(v),
            "function_pointer" => self.function_pointer(v),
            "qualified_path" => {
                let self_ty = self.ty(&v["self_type"]);
                let name = v["name"].as_str().unwrap_or("?");
                match &v["trait"] {
                    Value::Null => format!("{self_ty}::{name}"),
                    t => format!("<{self_ty} as {}>::{name}", self.path(t)),
                }
            }
            "infer" => "_".to_owned(),
            other => format!("?{other}"),
        }
    }
}

/// `self`, `&self`, `&mut self`, or `self: T`.
fn self_arg(ty: &str) -> String {
    match ty {
        "Self" => "self".to_owned(),
        "&Self" => "&self".to_owned(),
        "&mut Self" => "&mut self".to_owned(),
        other => format!("self: {other}"),
    }
}

/// The attributes that change what an embedder may write (`#[non_exhaustive]`,
/// `#[must_use]`, `#[repr]`), as a prefix; a doc or lint attribute is not
/// part of the API.
fn attrs_of(item: &Value) -> String {
    let mut out = String::new();
    for attr in item["attrs"].as_array().into_iter().flatten() {
        let text = match attr {
            Value::String(s) => s.clone(),
            Value::Object(o) => match o.iter().next() {
                Some((k, v)) if k == "repr" => {
                    format!("repr({})", v["kind"].as_str().unwrap_or("?"))
                }
                Some((k, _)) => k.clone(),
                None => continue,
            },
            _ => continue,
        };
        let kept = ["non_exhaustive", "must_use", "repr"]
            .iter()
            .any(|k| text.contains(k));
        if kept {
            let text = text
                .trim_start_matches("#[")
                .trim_end_matches(']')
                .replace('"', "");
            out.push_str(&format!("#[{text}] "));
        }
    }
    out
}

/// The fingerprint line is written after the header, is not compared, and
/// changes when the version's section does.
#[test]
fn a_listings_fingerprint_follows_its_changelog_section_and_is_not_compared() {
    let changelog = "# Changelog\n\n## [0.29.0]\n\n- x\n\n## [0.28.0] - 2026-11-30\n- y\n";
    assert_eq!(section_of(changelog, "0.29.0"), "## [0.29.0]\n\n- x\n");
    let edited = changelog.replace("- x", "- x, and z");
    assert_ne!(
        fingerprint(&section_of(changelog, "0.29.0")),
        fingerprint(&section_of(&edited, "0.29.0"))
    );
    assert_eq!(
        fingerprint(&section_of(changelog, "0.28.0")),
        fingerprint(&section_of(&edited, "0.28.0"))
    );
    // A change written under `## [Unreleased]` counts for the version too.
    let unreleased = changelog.replace(
        "\n\n## [0.29.0]",
        "\n\n## [Unreleased]\n\n- w\n\n## [0.29.0]",
    );
    assert_ne!(
        fingerprint(&changes_of(changelog, "0.29.0")),
        fingerprint(&changes_of(&unreleased, "0.29.0"))
    );
    let listing = "# a\n# b\nfn x()\n";
    let written = with_fingerprint(listing, "00ff");
    assert_eq!(written, format!("# a\n# b\n{FINGERPRINT}00ff\nfn x()\n"));
    assert_eq!(fingerprint_in(&written), Some("00ff"));
    assert_eq!(without_fingerprint(&written), listing);
}

/// A section with a date is a released version, whose API the rewrite
/// refuses to change; one without is the version being written.
#[test]
fn a_dated_changelog_section_is_released_and_an_undated_one_is_not() {
    let changelog = "# Changelog\n\n## [0.29.0]\n\n- x\n\n## [0.28.0] - 2026-11-30\n";
    assert_eq!(released(changelog, "0.28.0").as_deref(), Some("2026-11-30"));
    assert_eq!(released(changelog, "0.29.0"), None);
    assert_eq!(released(changelog, "0.30.0"), None);
}

/// The most types, traits and modules io-hooks' API may name (issue 43,
/// "a small engine API"); docs/decisions.md says what each is for.
const ENGINE_NAMES: usize = 40;

/// The types, traits and modules a listing names: its `struct`, `enum`,
/// `union`, `trait`, `type` and `mod` items, a trait's associated types
/// left out (they are the trait's).
fn names_in(listing: &str, krate: &str) -> BTreeSet<String> {
    let kinds = ["struct ", "enum ", "union ", "trait ", "type ", "mod "];
    listing
        .lines()
        .filter_map(|line| {
            let mut item = line;
            while item.starts_with("#[") {
                item = item.split_once("] ").map_or("", |(_, rest)| rest);
            }
            let rest = kinds.iter().find_map(|k| item.strip_prefix(k))?;
            let path = rest.strip_prefix(krate)?.strip_prefix("::")?;
            let name: String = path
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let name = name.trim_end_matches(':').to_owned();
            Some(name)
        })
        .filter(|name| {
            // `Trait::Assoc` is an associated type; `module::Type` is a
            // name of its own.
            let mut parts = name.split("::");
            let first = parts.next().unwrap_or_default();
            parts.next().is_none() || first.chars().next().is_some_and(char::is_lowercase)
        })
        .collect()
}

#[test]
fn the_engines_api_names_at_most_forty_types_traits_and_modules() {
    let listing =
        std::fs::read_to_string(root().join("hooks/public-api.txt")).expect("hooks' listing");
    let names = names_in(&listing, "io_hooks");
    assert!(
        names.contains("Hooks") && names.contains("text") && names.contains("text::SourceLine")
    );
    assert!(!names.contains("ActionKind::Action"), "{names:?}");
    assert!(
        names.len() <= ENGINE_NAMES,
        "io-hooks names {} types, traits and modules, more than {ENGINE_NAMES}: {names:?}",
        names.len()
    );
}
