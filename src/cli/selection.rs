//! The hooks a command runs: all of the config's, or those `--hook` chose,
//! each named as the file in force names it.

use io_harness::{EventKind, Flow, HookSpec, RunEvent};

use super::hook_report::{hook_key, hook_label};

/// The hooks a command runs: all of the config's, or those `--hook` chose.
/// Each is named by its key path in the file in force (its spec's origin),
/// so a subset is named as the whole is.
pub(crate) struct Selection {
    /// The chosen hooks, in the order written.
    pub(crate) specs: Vec<HookSpec<EventKind>>,
    /// Each of `specs`' place in the array in force, from 1: `--hook`'s
    /// `N`, and the `hook` of `--json`'s objects.
    numbers: Vec<usize>,
}

impl Selection {
    /// All of `all` when `wanted` is empty, else, for each of `wanted`, the
    /// `N`-th hook of the array in force when it is all digits (from 1, as
    /// the key path `hook[N]` or `profile.ci.hook[N]` counts them), else
    /// the hook with that `name` (a name is never all digits); an error
    /// names a number out of range or a name no hook has, and the hooks
    /// there are.
    pub(crate) fn new(all: &[HookSpec<EventKind>], wanted: &[String]) -> Result<Self, String> {
        if wanted.is_empty() {
            return Ok(Self::all(all));
        }
        let wanted = wanted
            .iter()
            .map(|w| number_of(all, w))
            .collect::<Result<Vec<usize>, String>>()?;
        if let Some(bad) = wanted.iter().find(|n| **n == 0 || **n > all.len()) {
            let first = all.first().map(|spec| hook_key(spec, 0));
            // The array's key path, from its first table's: `profile.ci.hook`.
            let array = first
                .as_deref()
                .and_then(|key| key.rsplit_once('['))
                .map_or("hook", |(array, _)| array);
            let valid = match (first.as_deref(), all.len()) {
                (None, _) | (_, 0) => "no hooks are declared".to_owned(),
                (Some(first), 1) => format!("the only hook is {first}"),
                (Some(first), n) => {
                    format!("the hooks are {first} to {}", hook_key(&all[n - 1], n - 1))
                }
            };
            return Err(format!("--hook {bad}: there is no {array}[{bad}]; {valid}"));
        }
        let numbers: Vec<usize> = wanted
            .iter()
            .copied()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        Ok(Selection {
            specs: numbers.iter().map(|n| named(&all[n - 1], n - 1)).collect(),
            numbers,
        })
    }

    /// Every hook of `all`, numbered as written: what a command without
    /// `--hook` runs.
    pub(crate) fn all(all: &[HookSpec<EventKind>]) -> Self {
        Selection {
            specs: all.iter().enumerate().map(|(i, s)| named(s, i)).collect(),
            numbers: (1..=all.len()).collect(),
        }
    }

    /// The place in the array in force of the hook at `index` in
    /// [`Self::specs`], from 1: for `--json`'s objects, which number hooks.
    pub(crate) fn number(&self, index: usize) -> usize {
        self.numbers.get(index).copied().unwrap_or(index + 1)
    }

    /// Each hook's place in the array in force, from 1, in the order of
    /// [`Self::specs`].
    pub(crate) fn numbers(&self) -> &[usize] {
        &self.numbers
    }

    /// The same selection without the hooks at `indexes` in
    /// [`Self::specs`]: the others keep their numbers and names.
    pub(crate) fn without(self, indexes: &[usize]) -> Self {
        let (specs, numbers) = self
            .specs
            .into_iter()
            .zip(self.numbers)
            .enumerate()
            .filter(|(index, _)| !indexes.contains(index))
            .map(|(_, kept)| kept)
            .unzip();
        Selection { specs, numbers }
    }

    /// What messages call the hook at `index` in [`Self::specs`]: its key
    /// path and name ([`hook_label`]).
    pub(crate) fn label(&self, index: usize) -> String {
        match self.specs.get(index) {
            Some(spec) => hook_label(spec, self.number(index) - 1),
            None => format!("hook[{}]", self.number(index)),
        }
    }

    /// The key path of the hook at `index` in [`Self::specs`]
    /// ([`hook_key`]).
    pub(crate) fn key(&self, index: usize) -> String {
        match self.specs.get(index) {
            Some(spec) => hook_key(spec, self.number(index) - 1),
            None => format!("hook[{}]", self.number(index)),
        }
    }
}

/// The place, from 1, that `--hook WANTED` names: `WANTED` itself when it
/// is all digits (checked against the array by the caller), else the place
/// of the hook named so.
fn number_of(all: &[HookSpec<EventKind>], wanted: &str) -> Result<usize, String> {
    if !wanted.is_empty() && wanted.bytes().all(|b| b.is_ascii_digit()) {
        return wanted.parse().map_err(|_| {
            format!(
                "--hook {wanted}: there is no such hook; the hooks in force are {}",
                all.len()
            )
        });
    }
    if let Some(index) = all.iter().position(|s| s.name.as_deref() == Some(wanted)) {
        return Ok(index + 1);
    }
    let names: Vec<String> = all
        .iter()
        .enumerate()
        .filter(|(_, s)| s.name.is_some())
        .map(|(i, s)| hook_label(s, i))
        .collect();
    let known = if names.is_empty() {
        "no hook in force has a `name`; give one a `name = \"…\"`, or choose it by its \
         place, `--hook N`"
            .to_owned()
    } else {
        format!("the named hooks are {}", names.join(", "))
    };
    Err(format!(
        "--hook {wanted}: no hook in force is named \"{wanted}\"; {known}"
    ))
}

/// `spec`, at `index` of the array in force, with an origin: its own, or
/// for a spec read from no file `hook[N]` as the whole array numbers it,
/// so that the engine, given a subset, names it as `io check` does.
fn named(spec: &HookSpec<EventKind>, index: usize) -> HookSpec<EventKind> {
    match spec.origin {
        Some(_) => spec.clone(),
        None => spec.clone().with_origin(
            io_hooks::Origin::new(None, hook_key(spec, index)).named(spec.name.as_deref()),
        ),
    }
}

impl Selection {
    /// The index in [`Self::specs`] of each hook that `event` would fire:
    /// those whose `on` holds it and whose `where` lets it through (its
    /// envelope's fields too); and whether it would run in the background.
    pub(crate) fn would_fire(&self, event: &RunEvent) -> Vec<(usize, bool)> {
        self.specs
            .iter()
            .enumerate()
            .filter(|(_, s)| s.enabled && s.on.contains(&event.kind) && s.r#where.passes(event))
            .map(|(i, s)| {
                let background = s.action.background() && s.on_failure == Flow::Continue;
                (i, background)
            })
            .collect()
    }

    /// The index in [`Self::specs`] of each hook whose `on` holds `event`
    /// and whose `where` turns it away, with the first field it fails on.
    pub(crate) fn turned_away<'s>(&'s self, event: &RunEvent) -> Vec<(usize, &'s str)> {
        self.specs
            .iter()
            .enumerate()
            .filter(|(_, s)| s.enabled && s.on.contains(&event.kind))
            .filter_map(|(i, s)| s.r#where.turned_away(event).map(|f| (i, f)))
            .collect()
    }
}
