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
    let check = async || check().await.map_or(Progress::Working(0), Progress::Done);
    poll(POLL, None, timeout, what, check).await
}

/// What a check of [`until_stalled`] saw: done, or not yet with its progress counter.
pub enum Progress<T> {
    /// The awaited state, with its value.
    Done(T),
    /// Not yet; the counter of work done so far (it must move while work is being done).
    Working(u64),
}

/// [`until`] for work whose duration is the machine's business (decoding on the CPU beside
/// other jobs): no deadline on the whole, but a bound on a stall. Panic with `what()` when the
/// progress counter has not moved for `stall`, or after `cap` (a hang guard far above any
/// machine's time). Polls once a second: the counter may cost a request.
pub async fn until_stalled<T>(
    stall: Duration,
    cap: Duration,
    what: impl Fn() -> String,
    check: impl AsyncFnMut() -> Progress<T>,
) -> T {
    poll(Duration::from_secs(1), Some(stall), cap, what, check).await
}

/// The poll loop of [`until`] and [`until_stalled`]: `check` every `every` until it is done;
/// panic with `what()` after `cap`, or, given a `stall` bound, when the progress counter has
/// not moved for that long.
async fn poll<T>(
    every: Duration,
    stall: Option<Duration>,
    cap: Duration,
    what: impl Fn() -> String,
    mut check: impl AsyncFnMut() -> Progress<T>,
) -> T {
    let start = Instant::now();
    let (mut seen, mut moved) = (None, start);
    loop {
        match check().await {
            Progress::Done(value) => return value,
            Progress::Working(count) if seen != Some(count) => {
                (seen, moved) = (Some(count), Instant::now());
            }
            Progress::Working(_) => {}
        }
        if let Some(stall) = stall {
            assert!(
                moved.elapsed() < stall,
                "{} (no progress for {stall:?}, at {seen:?})",
                what()
            );
        }
        assert!(start.elapsed() < cap, "{} (after {cap:?})", what());
        tokio::time::sleep(every).await;
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
