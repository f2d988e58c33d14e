//! Waiting for a state a test expects: the one poll loop of the end-to-end tests.
//!
//! A test never sleeps for a state to arrive: it names the state (a verdict on chain, a job's
//! stage, a process's exit) and waits for it here, with a generous timeout that only a broken
//! node reaches. The timeout's panic says what was awaited and what was seen last.

use std::time::{Duration, Instant};

/// How often a state is polled: short next to anvil's block time and the node's own polls.
pub const POLL: Duration = Duration::from_millis(50);

/// Poll `check` until it returns `Some`; after `timeout`, panic with `what()` (say there what
/// was last seen).
pub async fn until<T>(
    timeout: Duration,
    what: impl Fn() -> String,
    mut check: impl AsyncFnMut() -> Option<T>,
) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(Instant::now() < deadline, "{} (after {timeout:?})", what());
        tokio::time::sleep(POLL).await;
    }
}

/// [`until`] for a check that does not await (a file, a child process), off the runtime.
pub fn until_blocking<T>(
    timeout: Duration,
    what: impl Fn() -> String,
    mut check: impl FnMut() -> Option<T>,
) -> T {
    try_until_blocking(timeout, &mut check)
        .unwrap_or_else(|| panic!("{} (after {timeout:?})", what()))
}

/// [`until_blocking`] without the panic: `None` once `timeout` has passed.
pub fn try_until_blocking<T>(timeout: Duration, mut check: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = check() {
            return Some(value);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(POLL);
    }
}
