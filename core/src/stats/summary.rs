//! The `veritas stats` object: every statistic of one ballot set.

use serde::{Deserialize, Serialize};

use super::{
    Ballot, credible_intervals, effective_sample_size, entropy_bits, fleiss_kappa,
    posterior::counts, posterior_mean, subject_counts, to_wad,
};

/// Vote counts by outcome, serialised as `{"YES":a,"NO":b,"NULL":c}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Valid YES ballots.
    #[serde(rename = "YES")]
    pub yes: u64,
    /// Valid NO ballots.
    #[serde(rename = "NO")]
    pub no: u64,
    /// Valid NULL ballots.
    #[serde(rename = "NULL")]
    pub null: u64,
}

impl Counts {
    /// The counts in K order.
    pub fn as_array(&self) -> [u64; 3] {
        [self.yes, self.no, self.null]
    }
}

impl From<[u64; 3]> for Counts {
    fn from(n: [u64; 3]) -> Self {
        Self {
            yes: n[0],
            no: n[1],
            null: n[2],
        }
    }
}

/// Every statistic of one ballot set; serialises to exactly one `veritas stats` output line
/// (keys in this order; 1e18 integers as decimal strings so JSON readers keep every digit).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Ballots in the set, failed ones included.
    pub ballots: u64,
    /// Ballots with a vote.
    pub valid: u64,
    /// Failed ballots (vote null).
    pub failed: u64,
    /// Valid votes by outcome.
    pub counts: Counts,
    /// Posterior mean (YES, NO, NULL) of Dir(counts + 1).
    pub posterior: [f64; 3],
    /// The posterior in 1e18 fixed point as posted (sums to exactly 10^18).
    #[serde(with = "crate::decimal::triple")]
    pub p_fixed: [u128; 3],
    /// Fleiss' kappa; `null` when undefined (no iteration with 2 valid ballots).
    pub kappa: Option<f64>,
    /// κ·10^18 as posted (exact, half away from zero); `"0"` when undefined.
    #[serde(with = "crate::decimal")]
    pub kappa_fixed: i128,
    /// Exact 95% credible interval `[lo, hi]` of each outcome.
    pub ci95: [[f64; 2]; 3],
    /// Effective sample size (design effect of same-model ballots).
    pub n_eff: f64,
    /// Entropy of the posterior mean in bits.
    pub entropy_bits: f64,
}

/// All statistics of a ballot set (the book's auditor specification, "Statistics of a ballot set").
pub fn summarize<B: Ballot>(ballots: &[B]) -> Summary {
    let n = counts(ballots);
    let valid: u64 = n.iter().sum();
    let posterior = posterior_mean(n);
    let kappa = fleiss_kappa(&subject_counts(ballots));
    Summary {
        ballots: ballots.len() as u64,
        valid,
        failed: ballots.len() as u64 - valid,
        counts: n.into(),
        posterior,
        p_fixed: to_wad(n),
        kappa: kappa.value,
        kappa_fixed: kappa.wad,
        ci95: credible_intervals(n),
        n_eff: effective_sample_size(ballots),
        entropy_bits: entropy_bits(&posterior),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::stats::{BallotRecord, Outcome};

    #[test]
    fn output_shape_and_key_order() {
        let line = r#"[{"iteration":1,"model":"a","archetype":"x","vote":"YES"},
                       {"iteration":1,"model":"b","archetype":"y","vote":"YES"},
                       {"iteration":1,"model":"a","archetype":"z","vote":null}]"#;
        let ballots: Vec<BallotRecord> = serde_json::from_str(line).unwrap();
        let summary = summarize(&ballots);
        let json = serde_json::to_string(&summary).unwrap();
        // n = (2,0,0): α = (3,1,1)/5 → 0.6, 0.2, 0.2; one subject, all YES → κ = 1.
        assert!(json.starts_with(
            r#"{"ballots":3,"valid":2,"failed":1,"counts":{"YES":2,"NO":0,"NULL":0},"posterior":[0.6,0.2,0.2],"p_fixed":["600000000000000000","200000000000000000","200000000000000000"],"kappa":1.0,"kappa_fixed":"1000000000000000000","ci95":[["#
        ));
        let keys: Vec<String> =
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&json)
                .unwrap()
                .keys()
                .cloned()
                .collect();
        assert_eq!(
            keys,
            [
                "ballots",
                "valid",
                "failed",
                "counts",
                "posterior",
                "p_fixed",
                "kappa",
                "kappa_fixed",
                "ci95",
                "n_eff",
                "entropy_bits"
            ]
        );
        let back: Summary = serde_json::from_str(&json).unwrap();
        assert_eq!(back, summary);
    }

    #[test]
    fn readme_worked_example() {
        // The book's auditor specification (book/src/auditor-specification.md): iteration 1 YES(a) YES(b) NO(c), iteration 2
        // YES(a) NULL(b) failed(c).
        //   counts (3,1,1), α = (4,2,2)/8 → (0.5, 0.25, 0.25), exact in 1e18.
        //   κ: subjects (2,1,0), (1,0,1): P = 1/3, 0 → P̄ = 1/6; p = (3,1,1)/5, P̄e = 11/25;
        //      κ = (1/6 − 11/25)/(14/25) = −41/84 = −0.488095238095238095238… → −488095238095238095.
        //   n_eff: a (2 ballots, share 1), b (2, share 1/2), c (1): N = 5, m̄ = 5/3, ā = 3/4,
        //      ρ = 5/8 → 5 / (1 + (2/3)(5/8)) = 60/17.
        //   entropy: 0.5·1 + 2·0.25·2 = 1.5 bits.
        let v = |i, m: &str, vote: Option<Outcome>| BallotRecord {
            iteration: i,
            model: m.into(),
            archetype: "x".into(),
            vote,
        };
        let s = summarize(&[
            v(1, "a", Some(Outcome::Yes)),
            v(1, "b", Some(Outcome::Yes)),
            v(1, "c", Some(Outcome::No)),
            v(2, "a", Some(Outcome::Yes)),
            v(2, "b", Some(Outcome::Null)),
            v(2, "c", None),
        ]);
        assert_eq!((s.ballots, s.valid, s.failed), (6, 5, 1));
        assert_eq!(
            s.p_fixed,
            [
                500_000_000_000_000_000,
                250_000_000_000_000_000,
                250_000_000_000_000_000
            ]
        );
        assert_eq!(s.kappa_fixed, -488_095_238_095_238_095);
        assert!((s.n_eff - 60.0 / 17.0).abs() < 1e-12);
        assert_eq!(s.entropy_bits, 1.5);
    }

    #[test]
    fn empty_set_is_the_prior() {
        let s = summarize::<BallotRecord>(&[]);
        assert_eq!((s.ballots, s.valid, s.failed), (0, 0, 0));
        assert_eq!(s.kappa, None);
        assert_eq!(s.kappa_fixed, 0);
        assert_eq!(s.n_eff, 0.0);
        assert!((s.entropy_bits - 3f64.log2()).abs() < 1e-15);
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains(r#""kappa":null,"kappa_fixed":"0""#));
    }

    #[test]
    fn all_failed_ballots() {
        let b = BallotRecord {
            iteration: 1,
            model: "m".into(),
            archetype: "a".into(),
            vote: None,
        };
        let s = summarize(&[b.clone(), b]);
        assert_eq!((s.ballots, s.valid, s.failed), (2, 0, 2));
        assert_eq!(s.p_fixed, to_wad([0, 0, 0]));
        assert_eq!(s.kappa, None);
    }
}
