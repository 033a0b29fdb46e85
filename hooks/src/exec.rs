//! Executing hooks. (Interface only: matching, `append` and `run` land with
//! the executor work.)

use std::path::{Path, PathBuf};

use crate::registry::{HookEvents, HookFilter};
use crate::spec::HookSpec;

/// Every hook of one config, ready to receive events.
pub struct Hooks<E> {
    specs: Vec<HookSpec<E>>,
    root: PathBuf,
    wanted: HookFilter<E>,
}

impl<E: HookEvents> Hooks<E> {
    /// Builds the hooks of `specs`, in the order written; `root` is the
    /// discovery root, the working directory of every `run` hook.
    pub fn new(specs: Vec<HookSpec<E>>, root: &Path) -> Self {
        let wanted = specs
            .iter()
            .fold(HookFilter::EMPTY, |acc, s| acc.union(s.on));
        Hooks {
            specs,
            root: root.to_path_buf(),
            wanted,
        }
    }

    /// Whether the config declared no hook.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// The hooks, in the order written.
    pub fn specs(&self) -> &[HookSpec<E>] {
        &self.specs
    }

    /// The discovery root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The union of every hook's filter.
    pub fn wanted(&self) -> HookFilter<E> {
        self.wanted
    }
}
