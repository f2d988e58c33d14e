//! How many blocks one `eth_getLogs` asks for.
//!
//! Providers cap log ranges differently and rarely say by how much. The range starts at the
//! configured maximum, halves on every refusal and keeps to the size that last worked (the
//! ceiling), doubles back towards that ceiling after each success, and after
//! [`PROBE_AFTER`] successes in a row probes the configured maximum again, in case the
//! provider's limit was temporary. Pure: the watcher owns the RPC.

/// Successful scans after a refused range before larger ranges are tried again.
pub(super) const PROBE_AFTER: u32 = 100;

/// The adaptive size of a log range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LogRange {
    /// The configured maximum.
    max: u64,
    /// Blocks the next request asks for (at least 1).
    size: u64,
    /// Upper bound on `size`: the size that last worked after a refusal.
    ceiling: u64,
    successes_since_refusal: u32,
}

impl LogRange {
    /// A range starting at `max` blocks (at least 1).
    pub(super) fn new(max: u64) -> Self {
        let max = max.max(1);
        Self {
            max,
            size: max,
            ceiling: max,
            successes_since_refusal: 0,
        }
    }

    /// Blocks the next request asks for.
    pub(super) fn size(&self) -> u64 {
        self.size
    }

    /// The last block of a request from `from`, never beyond `safe`.
    pub(super) fn end(&self, from: u64, safe: u64) -> u64 {
        safe.min(from.saturating_add(self.size - 1))
    }

    /// A range was read: grow back towards the ceiling (and lift the ceiling after a long run
    /// of successes).
    pub(super) fn succeeded(&mut self) {
        self.successes_since_refusal = self.successes_since_refusal.saturating_add(1);
        if self.successes_since_refusal >= PROBE_AFTER {
            self.ceiling = self.max;
        }
        self.size = self.size.saturating_mul(2).min(self.ceiling);
    }

    /// The provider refused a range: halve it. `false` when it was one block already (there is
    /// nothing smaller to ask for; the refusal is then an error).
    pub(super) fn refused(&mut self) -> bool {
        if self.size <= 1 {
            return false;
        }
        self.size = (self.size / 2).max(1);
        self.ceiling = self.size;
        self.successes_since_refusal = 0;
        true
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn halves_on_refusal_and_keeps_to_what_worked() {
        let mut range = LogRange::new(1000);
        assert_eq!(range.end(50, u64::MAX), 1049);
        assert!(range.refused());
        assert!(range.refused());
        assert_eq!(range.size(), 250);
        range.succeeded();
        assert_eq!(range.size(), 250, "never above the size that last worked");
        for _ in 0..PROBE_AFTER - 2 {
            range.succeeded();
        }
        assert_eq!(range.size(), 250);
        range.succeeded();
        assert_eq!(
            range.size(),
            500,
            "probes larger after {PROBE_AFTER} successes"
        );
        range.succeeded();
        assert_eq!(range.size(), 1000);
        range.succeeded();
        assert_eq!(range.size(), 1000, "never above the configured maximum");
    }

    #[test]
    fn one_block_cannot_shrink_and_the_end_stays_below_safe() {
        let mut range = LogRange::new(0);
        assert_eq!(range.size(), 1);
        assert!(!range.refused());
        let range = LogRange::new(10);
        assert_eq!(range.end(7, 9), 9);
        assert_eq!(range.end(u64::MAX - 1, u64::MAX), u64::MAX);
    }

    proptest! {
        #[test]
        fn the_size_stays_within_one_and_the_maximum(
            max in 1u64..100_000,
            steps in proptest::collection::vec(any::<bool>(), 0..400),
        ) {
            let mut range = LogRange::new(max);
            for ok in steps {
                if ok { range.succeeded() } else { range.refused(); }
                prop_assert!((1..=max).contains(&range.size()));
            }
        }
    }
}
