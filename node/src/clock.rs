//! The node's one source of wall-clock time, injectable so deadlines can be tested.
//!
//! Every stamp the node stores (when a question was seen, when a transaction was sent) and
//! every deadline it computes from one (retry at, recheck until, receipt age) reads the same
//! [`Clock`]. The daemon runs on [`SystemClock`]; a test hands the store a [`ManualClock`] and
//! moves it instead of sleeping. A client's backoff waits through [`Clock::sleep`] too, so a
//! test of a retry or a `Retry-After` reads on a manual clock exactly how long the client chose
//! to wait, and waits not at all. Monotonic intervals (how long a call took) stay on
//! `std::time::Instant`: they are never stored and never compared across processes.

use std::{
    fmt::Debug,
    future::Future,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicI64, Ordering},
    },
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use chrono::{DateTime, Utc};

/// Wall-clock time as Unix milliseconds.
pub trait Clock: Debug + Send + Sync {
    /// Unix time in milliseconds (0 before the epoch).
    fn now_ms(&self) -> i64;

    /// Unix time in whole seconds (the contract's and the job table's unit).
    fn now_secs(&self) -> u64 {
        u64::try_from(self.now_ms() / 1000).unwrap_or(0)
    }

    /// The same instant as a UTC date-time (for `Retry-After` dates and resolution times).
    fn now_utc(&self) -> DateTime<Utc> {
        DateTime::from_timestamp_millis(self.now_ms()).unwrap_or_default()
    }

    /// Wait `duration` (a backoff between retries): a timer on the system clock; on a manual
    /// clock, the clock moves forward by `duration` and the wait ends at once.
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + 'static>> {
        Box::pin(tokio::time::sleep(duration))
    }
}

/// A clock shared by everything one node runs.
pub type SharedClock = Arc<dyn Clock>;

/// The operating system's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0)
    }
}

/// The system clock, shared.
pub fn system() -> SharedClock {
    Arc::new(SystemClock)
}

/// A clock that moves only when told to (tests of deadlines and backoff).
#[derive(Debug, Default)]
pub struct ManualClock {
    ms: AtomicI64,
}

impl ManualClock {
    /// A clock reading `ms` Unix milliseconds.
    pub fn at_ms(ms: i64) -> Self {
        Self {
            ms: AtomicI64::new(ms),
        }
    }

    /// Set the time.
    pub fn set_ms(&self, ms: i64) {
        self.ms.store(ms, Ordering::SeqCst);
    }

    /// Move the time forward by `by` (saturating).
    pub fn advance(&self, by: Duration) {
        let by = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        // fetch_update with a closure that always returns Some cannot fail.
        let _ = self
            .ms
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |ms| {
                Some(ms.saturating_add(by))
            });
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.ms.load(Ordering::SeqCst)
    }

    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + 'static>> {
        self.advance(duration);
        Box::pin(std::future::ready(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_manual_sleep_moves_the_clock_and_returns_at_once() {
        let clock = ManualClock::at_ms(1_000);
        clock.sleep(Duration::from_millis(1_500)).await;
        assert_eq!(clock.now_ms(), 2_500);
    }

    #[test]
    fn manual_clock_moves_only_when_told() {
        let clock = ManualClock::at_ms(1_700_000_000_500);
        assert_eq!(clock.now_ms(), 1_700_000_000_500);
        assert_eq!(clock.now_secs(), 1_700_000_000);
        clock.advance(Duration::from_millis(1_500));
        assert_eq!(clock.now_ms(), 1_700_000_002_000);
        assert_eq!(clock.now_utc().timestamp(), 1_700_000_002);
        clock.set_ms(-5);
        assert_eq!(clock.now_secs(), 0, "before the epoch reads as 0 seconds");
    }

    #[test]
    fn system_clock_is_after_2020() {
        assert!(SystemClock.now_secs() > 1_577_836_800);
    }
}
