//! [`HookEnv`]: the variables a hook's child is given, each named by the
//! embedder; and one hook's, made once when the hooks are built
//! (`ChildEnv`), with only the event's tag left to each fire.

use std::ffi::{OsStr, OsString};
use std::path::Path;

/// The environment variables a `run` hook's child is given beside the
/// environment it inherits, each named by the embedder: the engine names
/// none of its own, and with none named ([`HookEnv::new`], the default) a
/// child's environment is the host's, as it always was.
///
/// Three carry what the engine knows, under the name the embedder gives:
/// the hooks' root, absolute ([`root`](Self::root)), the event's tag
/// ([`event`](Self::event)) and the hook's name, else its key path as
/// written, `hook[2]` ([`hook`](Self::hook)). Others are the embedder's
/// own, the same for every hook and event ([`set`](Self::set), such as the
/// id of the run the host is in), or removed from what the child inherits
/// ([`remove`](Self::remove), so that a variable the host was itself given
/// by an outer run never reads as this one's). [`Hooks::with_env`](crate::Hooks::with_env)
/// gives them to the hooks.
///
/// Each hook's variables are made once, when they are given to the hooks;
/// each event adds only its tag. Any variable at all makes the child's
/// environment a copy of the host's, made at each spawn (std's `Command`):
/// a few microseconds for an environment of some forty variables.
///
/// A name holds neither `=` nor NUL (a name is the embedder's own word,
/// not outside input); a later variable of the same name replaces an
/// earlier one, and the engine's three come after [`set`](Self::set)'s and
/// [`remove`](Self::remove)'s.
///
/// ```ignore-windows
/// use io_hooks::{Action, HookEnv, HookFilter, HookSpec, Hooks};
/// # #[derive(io_hooks::HookEvents, serde::Serialize)]
/// # #[serde(tag = "event")]
/// # enum Ev { #[serde(rename = "deployed")] Deployed }
/// let dir = tempfile::tempdir()?;
/// let argv = ["/bin/sh", "-c", "printf '%s %s %s %s' \"$CI_EVENT\" \"$CI_HOOK\" \"$CI_BUILD\" \"$CI_ROOT\" > env.txt"];
/// let spec = HookSpec::new(HookFilter::<Ev>::ALL, Action::run(argv)).with_name("notify");
/// let env = HookEnv::new()
///     .root("CI_ROOT")
///     .event("CI_EVENT")
///     .hook("CI_HOOK")
///     .set("CI_BUILD", "b-17");
/// let hooks = Hooks::new(vec![spec], dir.path()).with_env(env);
/// let _ = hooks.fire_event(&Ev::Deployed);
/// let root = std::path::absolute(dir.path())?;
/// assert_eq!(
///     std::fs::read_to_string(root.join("env.txt"))?,
///     format!("deployed notify b-17 {}", root.display())
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookEnv {
    /// The name of the variable holding the hooks' root.
    root: Option<&'static str>,
    /// The name of the variable holding the event's tag.
    event: Option<&'static str>,
    /// The name of the variable holding the hook's name or key path.
    hook: Option<&'static str>,
    /// The embedder's own, in order: set (`Some`) or removed (`None`).
    fixed: Vec<(&'static str, Option<OsString>)>,
}

impl HookEnv {
    /// Returns an environment that names no variable: a child's is the
    /// host's, unchanged.
    pub fn new() -> Self {
        HookEnv::default()
    }

    /// Returns it with `name` holding the hooks' root, absolute (not
    /// necessarily UTF-8): the directory a relative `append` path and
    /// `run` program are resolved against, and the child's working
    /// directory.
    #[must_use]
    pub fn root(mut self, name: &'static str) -> Self {
        self.root = Some(name);
        self
    }

    /// Returns it with `name` holding the event's tag (`deployed`), as the
    /// event enum declares it.
    #[must_use]
    pub fn event(mut self, name: &'static str) -> Self {
        self.event = Some(name);
        self
    }

    /// Returns it with `name` holding the hook's name (`name = "audit"`,
    /// [`HookSpec::with_name`](crate::HookSpec::with_name)), else its key
    /// path as written ([`Origin::key`](crate::Origin::key): `hook[2]`,
    /// `stage.apply.hook[1]`; `hook[N]` for a hook built in code).
    #[must_use]
    pub fn hook(mut self, name: &'static str) -> Self {
        self.hook = Some(name);
        self
    }

    /// Returns it with `name` set to `value` for every hook and event (the
    /// id of the run the host is in, say).
    #[must_use]
    pub fn set(self, name: &'static str, value: impl Into<OsString>) -> Self {
        self.fixed_pair(name, Some(value.into()))
    }

    /// Returns it with `name` removed from the environment a child
    /// inherits: for a variable the host names but has no value for here,
    /// which the host may itself have been given by an outer program.
    #[must_use]
    pub fn remove(self, name: &'static str) -> Self {
        self.fixed_pair(name, None)
    }

    /// Returns whether it names no variable: a child's environment is then
    /// the host's, unchanged.
    pub fn is_empty(&self) -> bool {
        self.root.is_none() && self.event.is_none() && self.hook.is_none() && self.fixed.is_empty()
    }

    /// `name` set (`Some`) or removed, replacing an earlier one.
    fn fixed_pair(mut self, name: &'static str, value: Option<OsString>) -> Self {
        self.fixed.retain(|(n, _)| *n != name);
        self.fixed.push((name, value));
        self
    }

    /// The variables of the hook called `hook` in `root` (absolute), made
    /// once; `None` when it names none.
    pub(crate) fn for_hook(&self, root: &Path, hook: &str) -> Option<ChildEnv> {
        if self.is_empty() {
            return None;
        }
        let mut fixed: Vec<(OsString, Option<OsString>)> = Vec::with_capacity(self.fixed.len() + 2);
        let mut put = |name: &str, value: Option<OsString>| {
            fixed.retain(|(n, _)| n != name);
            fixed.push((name.into(), value));
        };
        for (name, value) in &self.fixed {
            put(name, value.clone());
        }
        if let Some(name) = self.root {
            put(name, Some(root.as_os_str().to_owned()));
        }
        if let Some(name) = self.hook {
            put(name, Some(hook.into()));
        }
        if let Some(name) = self.event {
            // The event's own, given at each fire, comes last.
            fixed.retain(|(n, _)| n != name);
        }
        Some(ChildEnv {
            fixed: fixed.into_boxed_slice(),
            event: self.event.map(OsString::from),
        })
    }
}

/// One hook's variables, made when the hooks are built: every one but the
/// event's tag, and the name the tag goes under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChildEnv {
    /// Set (`Some`) or removed, in order, one per name.
    fixed: Box<[(OsString, Option<OsString>)]>,
    /// The name of the variable holding the event's tag.
    event: Option<OsString>,
}

impl ChildEnv {
    /// Every variable, with `tag` as the event's: what the child is given.
    pub(crate) fn with_tag<'a>(
        &'a self,
        tag: &'static str,
    ) -> impl Iterator<Item = (&'a OsStr, Option<&'a OsStr>)> + 'a {
        let fixed = self
            .fixed
            .iter()
            .map(|(name, value)| (name.as_os_str(), value.as_deref()));
        let event = self
            .event
            .as_deref()
            .map(|name| (name, Some(OsStr::new(tag))));
        fixed.chain(event)
    }
}
