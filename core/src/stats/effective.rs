//! The posterior of the *effective* sample: counts scaled by n_eff / N (routing only).
//!
//! N ballots of one model that agree are one judgement read N times, not N judgements. The
//! design effect says how much: N correlated ballots carry about as much information as n_eff
//! independent ones (Kish). So routing rescales the counts to n' = n · n_eff / N, which keeps
//! the vote *shares* and shrinks the *sample*, and reads the same Dir(n' + 1) posterior it
//! would read for n' independent ballots: its mean and its exact 95% credible interval from
//! the Beta marginal Beta(n'_k + 1, Σn' + 3 − n'_k − 1). With n_eff = N nothing changes;
//! with twelve agreeing ballots of one model (n_eff = 1) the leading outcome's lower bound
//! falls from 0.66 to 0.09, the figure one ballot deserves.
//!
//! Nothing here is posted: the on-chain integers stay those of the plain counts (the book's auditor specification, "Statistics of a ballot set").

use serde::{Deserialize, Serialize};
use statrs::distribution::{Beta, ContinuousCDF};

use super::interval::TAILS;

/// The effective figures of one ballot set.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EffectiveSample {
    /// The effective sample size the counts were scaled to.
    pub n_eff: f64,
    /// n_eff / N, in [0, 1] (1 when there is no valid ballot).
    pub scale: f64,
    /// The scaled counts n · scale, in K order.
    pub counts: [f64; 3],
    /// Posterior mean of Dir(scaled counts + 1).
    pub posterior: [f64; 3],
    /// Exact 95% credible interval `[lo, hi]` of each outcome under that posterior.
    pub ci95: [[f64; 2]; 3],
}

/// Scale `counts` (valid votes in K order) to `n_eff` and compute the posterior figures.
///
/// `n_eff` is clamped to [0, N]: the design effect never makes ballots worth more than
/// independent ones. A non-finite `n_eff` is treated as N (the plain figures).
pub fn effective_sample(counts: [u64; 3], n_eff: f64) -> EffectiveSample {
    let valid: u64 = counts.iter().sum();
    let scale = if valid == 0 || !n_eff.is_finite() {
        1.0
    } else {
        (n_eff / valid as f64).clamp(0.0, 1.0)
    };
    let scaled = counts.map(|n| n as f64 * scale);
    let alpha = scaled.map(|n| n + 1.0);
    let total: f64 = alpha.iter().sum();
    EffectiveSample {
        n_eff: scaled.iter().sum(),
        scale,
        counts: scaled,
        posterior: alpha.map(|a| a / total),
        ci95: alpha.map(|a| beta_interval(a, total - a)),
    }
}

/// The 95% equal-tailed interval of Beta(a, b); a ≥ 1 and b ≥ 2 here, so it always exists.
fn beta_interval(a: f64, b: f64) -> [f64; 2] {
    match Beta::new(a, b) {
        Ok(beta) => TAILS.map(|q| beta.inverse_cdf(q)),
        // Unreachable for finite counts: NaN (serialised as null) rather than a panic.
        Err(_) => [f64::NAN; 2],
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::stats::{credible_intervals, posterior_mean};
    use proptest::prelude::*;

    #[test]
    fn one_model_agreeing_twelve_times_weighs_like_one_ballot() {
        // The case: 12 YES of one model, n_eff = 1 → Dir(2, 1, 1).
        let e = effective_sample([12, 0, 0], 1.0);
        assert_eq!(e.counts, [1.0, 0.0, 0.0]);
        assert_eq!(e.posterior, [0.5, 0.25, 0.25]);
        // Beta(2, 2): the 2.5% quantile is 0.0942993...
        let plain_one = credible_intervals([1, 0, 0]);
        assert!((e.ci95[0][0] - plain_one[0][0]).abs() < 1e-12);
        assert!(
            (e.ci95[0][0] - 0.094_299_3).abs() < 1e-6,
            "{}",
            e.ci95[0][0]
        );
        // The plain figures of the same ballots clear the default bound easily.
        assert!(credible_intervals([12, 0, 0])[0][0] > 0.6);
    }

    #[test]
    fn three_agreeing_models_weigh_like_three_ballots() {
        // 12 YES from three models (4 each): n_eff = 12 / (1 + 3·1) = 3 → Beta(4, 2).
        let e = effective_sample([12, 0, 0], 3.0);
        assert_eq!(e.counts, [3.0, 0.0, 0.0]);
        assert!((e.posterior[0] - 4.0 / 6.0).abs() < 1e-15);
        assert!((e.ci95[0][0] - 0.284_3).abs() < 1e-3, "{}", e.ci95[0][0]);
    }

    #[test]
    fn no_ballots_and_bad_n_eff_are_the_plain_figures() {
        let e = effective_sample([0, 0, 0], 0.0);
        assert_eq!(e.scale, 1.0);
        assert_eq!(e.posterior, posterior_mean([0, 0, 0]));
        let e = effective_sample([3, 1, 0], f64::NAN);
        assert_eq!(e.scale, 1.0);
        assert_eq!(e.counts, [3.0, 1.0, 0.0]);
        // n_eff above N is clamped to N.
        assert_eq!(effective_sample([3, 1, 0], 9.0).scale, 1.0);
    }

    proptest! {
        /// With n_eff = N the effective figures are the plain ones, bit for bit.
        #[test]
        fn n_eff_equal_to_n_changes_nothing(n in prop::array::uniform3(0u64..200)) {
            let total: u64 = n.iter().sum();
            let e = effective_sample(n, total as f64);
            prop_assert_eq!(e.posterior, posterior_mean(n));
            prop_assert_eq!(e.ci95, credible_intervals(n));
        }

        /// Scaling keeps the shares and sums to n_eff.
        #[test]
        fn scaled_counts_keep_shares_and_sum_to_n_eff(
            n in prop::array::uniform3(0u64..200), frac in 0.0f64..=1.0,
        ) {
            let total: u64 = n.iter().sum();
            prop_assume!(total > 0);
            let e = effective_sample(n, frac * total as f64);
            prop_assert!((e.n_eff - frac * total as f64).abs() < 1e-9);
            for (scaled, count) in e.counts.iter().zip(n) {
                prop_assert!((scaled - count as f64 * frac).abs() < 1e-9);
            }
            prop_assert!((e.posterior.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }

        /// Fewer effective ballots never make a majority outcome look *more* certain: its
        /// lower bound only falls as n_eff falls (so the effective test is never laxer than
        /// the plain one at the same threshold).
        #[test]
        fn lower_bound_of_a_majority_falls_with_n_eff(
            lead in 1u64..200, rest in 0u64..200, a in 0.0f64..=1.0, b in 0.0f64..=1.0,
        ) {
            prop_assume!(lead > rest);
            let n = [lead, rest, 0];
            let total = (lead + rest) as f64;
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            let small = effective_sample(n, lo * total).ci95[0][0];
            let large = effective_sample(n, hi * total).ci95[0][0];
            prop_assert!(small <= large + 1e-12, "n_eff {} → {small}, {} → {large}", lo * total, hi * total);
        }
    }
}
