//! The process's one [`Supervisor`]: every child `io` starts (a hook's, the
//! run loop's `exec` and `mcp` commands, a `git` the trust decision asks)
//! is in flight on it. It sits at the bottom, below the config and the run
//! loop that spawn on it, so that neither names the crate's root.

use io_supervisor::Supervisor;

/// The one [`Supervisor`] of this process: the hooks
/// [`Config::hooks`](crate::Config::hooks) builds and the run loop's `exec`
/// and `mcp` commands are in flight on it, so that `io`, on `SIGINT`,
/// `SIGTERM` or `SIGHUP`, ends them all with one call. Nothing calls it but
/// the host.
pub fn process_supervisor() -> &'static Supervisor {
    static SUPERVISOR: std::sync::OnceLock<Supervisor> = std::sync::OnceLock::new();
    SUPERVISOR.get_or_init(Supervisor::new)
}
