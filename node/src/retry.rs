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

use crate::clock::{Clock as _, SystemClock};

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

/// The longest wait a server's `Retry-After` can ask for. Each client also caps its waits at
/// its own `max_backoff`; this bound holds whatever a configuration says, so a server cannot
/// park a call for a day.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(5 * 60);

/// The longest `Retry-After` value read, in bytes. An HTTP date is 29 bytes; anything much
/// longer is not a value a server means.
const MAX_RETRY_AFTER_LEN: usize = 64;

/// Read a `Retry-After` header value: delay-seconds (digits, with a fraction accepted as some
/// servers send one) or an HTTP date (RFC 9110 §10.2.3), relative to `now`; at most
/// [`MAX_RETRY_AFTER`]. `None` when unreadable: empty, longer than 64 bytes, negative, signed,
/// exponent notation, `inf`/`NaN`, or any other text. Never panics, whatever the header says.
pub fn parse_retry_after(value: &str, now: DateTime<Utc>) -> Option<Duration> {
    let value = value.trim();
    if value.is_empty() || value.len() > MAX_RETRY_AFTER_LEN {
        return None;
    }
    let wait = match delay_seconds(value) {
        Some(wait) => wait,
        None => {
            let at = DateTime::parse_from_rfc2822(value)
                .ok()?
                .with_timezone(&Utc);
            (at - now).to_std().unwrap_or(Duration::ZERO)
        }
    };
    Some(wait.min(MAX_RETRY_AFTER))
}

/// The `Retry-After` of an HTTP answer, read by [`parse_retry_after`] as of now; `None` when
/// absent, not text, or unreadable.
pub fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    retry_after_at(headers, SystemClock.now_utc())
}

/// [`retry_after`] as of `now` (a client's own clock, so an HTTP-date `Retry-After` and the
/// wait it causes are read on one clock).
pub fn retry_after_at(
    headers: &reqwest::header::HeaderMap,
    now: DateTime<Utc>,
) -> Option<Duration> {
    headers
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| parse_retry_after(v, now))
}

/// `digits[.digits]` as a duration; more seconds than a `u64` holds saturate (the caller caps
/// the result anyway), fractions beyond nanoseconds are cut.
fn delay_seconds(value: &str) -> Option<Duration> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (whole, fraction) = match value.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (value, None),
    };
    if !digits(whole) || fraction.is_some_and(|f| !digits(f)) {
        return None;
    }
    // All digits: parsing fails only on overflow.
    let seconds = whole.parse::<u64>().unwrap_or(u64::MAX);
    let nanos = fraction.map_or(0, |f| {
        let nine: String = f.chars().chain(std::iter::repeat('0')).take(9).collect();
        nine.parse::<u32>().unwrap_or(0)
    });
    // `nanos` < 10^9, so `Duration::new` cannot carry into (and overflow) the seconds.
    Some(Duration::new(seconds, nanos))
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

    #[test]
    fn hostile_retry_after_values_are_capped_or_refused() {
        let now = Utc::now();
        // Huge delays are capped: more than an f64 `Duration` holds (it panicked), more
        // than a u64 holds, and a date in the year 9999.
        for huge in [
            "99999999999999999999",
            "18446744073709551616",
            "20000000000000000000.5",
            "Fri, 31 Dec 9999 23:59:59 GMT",
        ] {
            assert_eq!(
                parse_retry_after(huge, now),
                Some(MAX_RETRY_AFTER),
                "{huge}"
            );
        }
        // Not delay-seconds nor a date.
        for bad in [
            "1e300", "-1", "+5", "inf", "NaN", "-0", "", "   ", "1.", ".5", "5 5", "0x10",
            "١٢", // Arabic-Indic digits are not ASCII digits
        ] {
            assert_eq!(parse_retry_after(bad, now), None, "{bad:?}");
        }
        let long = format!("{}1", "0".repeat(MAX_RETRY_AFTER_LEN));
        assert_eq!(parse_retry_after(&long, now), None, "overlong");
        assert_eq!(
            parse_retry_after("1.0000000019", now),
            Some(Duration::new(1, 1))
        );
    }

    proptest::proptest! {
        /// Whatever the header holds: no panic, never above the cap, and delay-seconds that
        /// fit are read exactly.
        #[test]
        fn retry_after_never_panics_nor_exceeds_the_cap(value in ".{0,80}", secs in 0u64..600) {
            let now = Utc::now();
            if let Some(wait) = parse_retry_after(&value, now) {
                proptest::prop_assert!(wait <= MAX_RETRY_AFTER);
            }
            proptest::prop_assert_eq!(
                parse_retry_after(&secs.to_string(), now),
                Some(Duration::from_secs(secs).min(MAX_RETRY_AFTER))
            );
        }

        /// Numbers of any size and shape, as text.
        #[test]
        fn numeric_retry_after_is_bounded(x in proptest::num::f64::ANY, digits in "[0-9]{1,40}(\\.[0-9]{0,20})?") {
            let now = Utc::now();
            for value in [x.to_string(), format!("{x:e}"), digits] {
                if let Some(wait) = parse_retry_after(&value, now) {
                    proptest::prop_assert!(wait <= MAX_RETRY_AFTER, "{value}");
                }
            }
        }
    }
}
