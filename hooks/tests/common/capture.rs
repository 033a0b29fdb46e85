//! A real `tracing` subscriber writing into a buffer, for the tests that
//! read what the engine logs.

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use tracing_subscriber::fmt::MakeWriter;

/// What a capturing subscriber has written so far.
#[derive(Clone, Default)]
pub(crate) struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    /// Everything written so far, as text.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(PoisonError::into_inner)).into_owned()
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

/// Runs `f` with a subscriber that records everything at TRACE and above,
/// given what it has written so far, and returns what it wrote in all. A
/// thread `f` starts that takes the subscriber of its starter (as the
/// engine's background workers do) logs to it too.
///
/// tracing caches each callsite's interest process-wide, computed by the
/// first thread to reach it: a test reaching a `warn!` with no subscriber
/// would silence it for every test. So captures run one at a time, every
/// call that can log happens inside one, and the cache is rebuilt against
/// the capturing subscriber before `f` runs.
pub(crate) fn capture_with<R>(f: impl FnOnce(&Captured) -> R) -> (R, String) {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let out = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(out.clone())
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .finish();
    let r = tracing::subscriber::with_default(subscriber, || {
        tracing::callsite::rebuild_interest_cache();
        f(&out)
    });
    (r, out.text())
}

/// [`capture_with`] for an `f` that need not read the log as it goes.
pub(crate) fn capture<R>(f: impl FnOnce() -> R) -> (R, String) {
    capture_with(|_| f())
}
