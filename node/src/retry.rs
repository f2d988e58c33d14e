//! One retry policy for every client and loop: exponential backoff with full jitter, capped,
//! and a server's `Retry-After` honoured.
//!
//! The chat client, the web-search collector, the chain watcher, the job pipeline and the
//! daemon's start-up checks all wait through [`Backoff`]. Remote calls use
//! [`Backoff::wait`]: full jitter (a uniform draw in `[0, ceiling]`) spreads the retries of
//! many questions hitting the same rate-limited server instead of synchronising them, and a
//! `Retry-After` the server sent wins over a shorter draw (never over the cap, so a hostile
//! header cannot park a ballot for an hour). Local loops whose wait is already spread by the
//! chain or the store (the watcher's poll, a job's persisted retry time) use the
//! deterministic [`Backoff::ceiling`].

use std::time::Duration;

use chrono::{DateTime, Utc};
use rand::Rng;

/// Exponential backoff: the `retry`-th wait (0-based) is at most `base · 2^retry`, never
/// above `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// Ceiling of the first wait.
    pub base: Duration,
    /// Largest wait, `Retry-After` included.
    pub max: Duration,
}

impl Backoff {
    /// A backoff from `base`, doubling, capped at `max`.
    pub const fn new(base: Duration, max: Duration) -> Self {
        Self { base, max }
    }

    /// The ceiling of wait number `retry` (0-based): `base · 2^retry`, at most `max`.
    pub fn ceiling(&self, retry: u32) -> Duration {
        self.base
            .saturating_mul(2u32.saturating_pow(retry.min(20)))
            .min(self.max)
    }

    /// Wait number `retry` (0-based) with full jitter: uniform in `[0, ceiling(retry)]`; a
    /// server's `retry_after` wins over a shorter draw; never above `max`.
    pub fn wait(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        let jitter: f64 = rand::rng().random_range(0.0..=1.0);
        let drawn = self.ceiling(retry).mul_f64(jitter);
        match retry_after {
            Some(after) => drawn.max(after).min(self.max),
            None => drawn,
        }
    }
}

/// Read a `Retry-After` header value: delay-seconds (fractions accepted, as some servers send
/// them) or an HTTP date (RFC 9110 §10.2.3), relative to `now`. `None` when unreadable.
pub fn parse_retry_after(value: &str, now: DateTime<Utc>) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let at = DateTime::parse_from_rfc2822(value)
        .ok()?
        .with_timezone(&Utc);
    Some((at - now).to_std().unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn ceiling_doubles_and_caps() {
        let b = Backoff::new(Duration::from_secs(2), Duration::from_secs(10));
        assert_eq!(b.ceiling(0), Duration::from_secs(2));
        assert_eq!(b.ceiling(1), Duration::from_secs(4));
        assert_eq!(b.ceiling(2), Duration::from_secs(8));
        assert_eq!(b.ceiling(3), Duration::from_secs(10));
        assert_eq!(b.ceiling(400), Duration::from_secs(10));
    }

    #[test]
    fn full_jitter_stays_under_the_ceiling_and_retry_after_wins_up_to_the_cap() {
        let b = Backoff::new(Duration::from_millis(100), Duration::from_secs(5));
        let draws: Vec<Duration> = (0..200).map(|_| b.wait(2, None)).collect();
        assert!(draws.iter().all(|d| *d <= Duration::from_millis(400)));
        assert!(
            draws.iter().any(|d| *d < Duration::from_millis(200)),
            "jittered, not fixed"
        );
        assert_eq!(
            b.wait(0, Some(Duration::from_secs(2))),
            Duration::from_secs(2)
        );
        assert_eq!(
            b.wait(0, Some(Duration::from_secs(60))),
            Duration::from_secs(5)
        );
    }

    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        let now = DateTime::parse_from_rfc3339("2026-03-10T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(
            parse_retry_after("0.5", now),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            parse_retry_after("Tue, 10 Mar 2026 12:00:30 GMT", now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            parse_retry_after("Tue, 10 Mar 2026 11:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-3", now), None);
    }
}
