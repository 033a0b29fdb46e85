//! The process's one [`Interrupt`]: every child `io` starts (a hook's, the
//! run loop's `exec` and `mcp` commands, a `git` the trust decision asks)
//! is in flight on it. It sits at the bottom, below the config and the run
//! loop that spawn on it, so that neither names the crate's root.

use io_hooks::Interrupt;

/// The one [`Interrupt`] of this process: the hooks
/// [`Config::hooks`](crate::Config::hooks) builds and the run loop's `exec`
/// and `mcp` commands are in flight on it, so that `io`, on `SIGINT`,
/// `SIGTERM` or `SIGHUP`, ends them all with one call. Nothing calls it but
/// the host.
pub fn process_interrupt() -> &'static Interrupt {
    static INTERRUPT: std::sync::OnceLock<Interrupt> = std::sync::OnceLock::new();
    INTERRUPT.get_or_init(Interrupt::new)
}
