//! One hook, checked and typed: what `[[hook]]` tables become.

use std::path::PathBuf;

use crate::action::Action;
use crate::origin::Origin;
use crate::registry::{HookEvents, HookFilter};
use crate::r#where::Where;

/// One `[[hook]]` table after validation.
///
/// Its fields are public to read; it is built with [`HookSpec::new`] (and
/// [`with_on_failure`](HookSpec::with_on_failure)), so a field added later
/// breaks no caller.
///
/// ```
/// use io_hooks::{Action, HookEvents, HookFilter, HookSpec, Flow};
///
/// #[derive(HookEvents)]
/// enum Ev {
///     #[hook(tag = "done")]
///     Done,
/// }
///
/// let spec = HookSpec::<Ev>::new(HookFilter::ALL, Action::append("audit.jsonl"))
///     .with_on_failure(Flow::Cancel);
/// assert_eq!(spec.on_failure, Flow::Cancel);
/// ```
#[non_exhaustive]
pub struct HookSpec<E> {
    /// What every message calls it beside its key path (`name = "…"`):
    /// printable, at most 64 characters, not digits alone, unique in its
    /// array; `None` when the table has none.
    pub name: Option<String>,
    /// `false` (`enabled = false`): the hook is switched off and never
    /// fires; [`Hooks::off`](crate::Hooks::off) lists it, for the host to
    /// say so at every start.
    pub enabled: bool,
    /// The events this hook wants; [`HookFilter::ALL`] when `on` was absent.
    pub on: HookFilter<E>,
    /// What the fields of an event of `on` must be (`where`); empty when
    /// the table has none.
    pub r#where: Where<E>,
    /// What it does with each matching event.
    pub action: Action,
    /// What a failure of this hook does to the run.
    pub on_failure: Flow,
    /// Where it was written: set by
    /// [`HookTables::into_specs`](crate::HookTables::into_specs) and
    /// [`TomlFile::hooks`](crate::TomlFile::hooks) from the file's name and
    /// the table's key path; `None` for a spec built in code, which
    /// [`Hooks`](crate::Hooks) names by its position (`hook[N]`). Every
    /// message about the hook names it so.
    pub origin: Option<Origin>,
    /// The root a table's relative `append` path was resolved against when
    /// it was read ([`HookTables::into_specs`](crate::HookTables::into_specs));
    /// `None` for a spec built in code. [`Hooks::new`](crate::Hooks::new)
    /// checks that it is the hooks' own root.
    pub(crate) read_with: Option<PathBuf>,
}

impl<E> HookSpec<E> {
    /// A hook wanting the events `on` and doing `action`; a failure is
    /// logged and the run goes on ([`Flow::Continue`]).
    pub fn new(on: HookFilter<E>, action: Action) -> Self {
        HookSpec {
            name: None,
            enabled: true,
            on,
            r#where: Where::none(),
            action,
            on_failure: Flow::Continue,
            origin: None,
            read_with: None,
        }
    }

    /// The same hook, with `on_failure` set.
    #[must_use]
    pub fn with_on_failure(mut self, on_failure: Flow) -> Self {
        self.on_failure = on_failure;
        self
    }

    /// The same hook, called `name` in its messages beside its key path.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The same hook, switched on or (`false`) off: one switched off never
    /// fires.
    #[must_use]
    pub fn with_enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    /// The same hook, written at `origin`: what its messages name it.
    ///
    /// ```
    /// use io_hooks::{Action, HookEvents, HookFilter, HookSpec, Origin};
    ///
    /// #[derive(HookEvents)]
    /// enum Ev {
    ///     #[hook(tag = "done")]
    ///     Done,
    /// }
    ///
    /// let spec = HookSpec::<Ev>::new(HookFilter::ALL, Action::append("audit.jsonl"))
    ///     .with_origin(Origin::new(Some("deploy.toml"), "stage.apply.hook[1]"));
    /// assert_eq!(
    ///     spec.origin.map(|o| o.to_string()).as_deref(),
    ///     Some("deploy.toml: stage.apply.hook[1]")
    /// );
    /// ```
    #[must_use]
    pub fn with_origin(mut self, origin: Origin) -> Self {
        self.origin = Some(origin);
        self
    }
}

impl<E> Clone for HookSpec<E> {
    fn clone(&self) -> Self {
        HookSpec {
            name: self.name.clone(),
            enabled: self.enabled,
            on: self.on,
            r#where: self.r#where.clone(),
            action: self.action.clone(),
            on_failure: self.on_failure,
            origin: self.origin.clone(),
            read_with: self.read_with.clone(),
        }
    }
}

impl<E: HookEvents> std::fmt::Debug for HookSpec<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = f.debug_struct("HookSpec");
        // Shown only when set: most hooks have no name and are on.
        if let Some(name) = &self.name {
            s.field("name", name);
        }
        if !self.enabled {
            s.field("enabled", &self.enabled);
        }
        s.field("on", &self.on);
        // Shown only when there is one: most hooks have none.
        if !self.r#where.is_empty() {
            s.field("where", &self.r#where);
        }
        s.field("action", &self.action)
            .field("on_failure", &self.on_failure);
        // Shown only when there is one: a spec built in code has none.
        if let Some(origin) = &self.origin {
            s.field("origin", origin);
        }
        s.finish()
    }
}

/// What the host does next, continue or cancel its run: an observer's
/// answer to an event ([`Hooks::fire`](crate::Hooks::fire)), and what a
/// hook's failure answers (its `on_failure`, [`HookSpec::on_failure`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[must_use]
#[non_exhaustive]
pub enum Flow {
    /// Go on; as a hook's `on_failure`, log the failure at warn level and
    /// go on (the default).
    #[default]
    Continue,
    /// End the run at its next boundary: where the host can stop cleanly
    /// (between two jobs, two requests, two steps of a loop). As a hook's
    /// `on_failure`, its failure answers this.
    Cancel,
}

impl Flow {
    /// Every value, the default first: the one source of `on_failure`'s
    /// values, for the parser, its messages and the schema.
    pub const ALL: [Flow; 2] = [Flow::Continue, Flow::Cancel];

    /// Returns the value as written in a `[[hook]]` table's `on_failure`
    /// (`continue`, `cancel`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Flow::Continue => "continue",
            Flow::Cancel => "cancel",
        }
    }
}
