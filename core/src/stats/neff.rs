//! Effective sample size by the prototype's design-effect formula (the book's auditor specification, "Statistics of a ballot set").
//!
//! Ballots from the same model are correlated, so N ballots carry less information than N
//! independent ones. With valid ballots grouped by model: m̄ = N / #models (cluster size),
//! ā = mean, over models with ≥ 2 ballots, of the share of that model's most common vote,
//! ρ = max(0, (ā − 1/3) / (1 − 1/3)) (agreement above chance, as an intra-cluster
//! correlation), and n_eff = N / (1 + (m̄ − 1)·ρ). When no model has 2 ballots, n_eff = N.
//! Failed ballots have no vote and are not counted. Models are summed in name order, so the
//! float result is the same on every run (a `HashMap`'s random order changed its last bits).

use std::collections::BTreeMap;

use super::Ballot;

/// n_eff of the valid ballots (0 for none).
pub fn effective_sample_size<B: Ballot>(ballots: &[B]) -> f64 {
    let mut by_model: BTreeMap<&str, [u64; 3]> = BTreeMap::new();
    let mut n = 0u64;
    for ballot in ballots {
        if let Some(vote) = ballot.vote() {
            by_model.entry(ballot.model()).or_default()[vote.index()] += 1;
            n += 1;
        }
    }
    let shares: Vec<f64> = by_model
        .values()
        .filter_map(|c| {
            let total: u64 = c.iter().sum();
            let top = c.iter().copied().max().unwrap_or(0);
            (total >= 2).then(|| top as f64 / total as f64)
        })
        .collect();
    if shares.is_empty() {
        return n as f64;
    }
    let n = n as f64;
    let mean_cluster = n / by_model.len() as f64;
    let mean_share = shares.iter().sum::<f64>() / shares.len() as f64;
    let rho = ((mean_share - 1.0 / 3.0) / (1.0 - 1.0 / 3.0)).max(0.0);
    n / (1.0 + (mean_cluster - 1.0) * rho)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::stats::BallotRecord;
    use crate::stats::Outcome::{self, *};

    fn set(votes: &[(&str, Option<Outcome>)]) -> Vec<BallotRecord> {
        votes
            .iter()
            .map(|(model, vote)| BallotRecord {
                iteration: 1,
                model: (*model).into(),
                archetype: "a".into(),
                vote: *vote,
            })
            .collect()
    }

    /// Found by the `stats` fuzz target: with a `HashMap` the shares were summed in a random
    /// order, so the same ballots gave n_eff values differing in the last bits.
    #[test]
    fn same_ballots_same_bits() {
        let s = set(&[
            ("a", Some(Yes)),
            ("a", Some(Yes)),
            ("a", Some(No)),
            ("b", Some(No)),
            ("b", Some(No)),
            ("b", Some(Null)),
            ("b", Some(Yes)),
            ("b", Some(Null)),
            ("c", Some(Yes)),
            ("c", Some(Null)),
            ("c", Some(Null)),
            ("c", Some(No)),
        ]);
        // Shares 2/3, 2/5, 2/4 summed in model-name order; m̄ = 4.
        let mean_share: f64 = (2.0 / 3.0 + 2.0 / 5.0 + 2.0 / 4.0) / 3.0;
        let rho = (mean_share - 1.0 / 3.0) / (1.0 - 1.0 / 3.0);
        let expected = 12.0 / (1.0 + 3.0 * rho);
        for _ in 0..200 {
            assert_eq!(effective_sample_size(&s).to_bits(), expected.to_bits());
        }
    }

    #[test]
    fn every_ballot_its_own_model_is_n() {
        let s = set(&[("a", Some(Yes)), ("b", Some(Yes)), ("c", Some(No))]);
        assert_eq!(effective_sample_size(&s), 3.0);
    }

    #[test]
    fn empty_is_zero() {
        assert_eq!(effective_sample_size::<BallotRecord>(&[]), 0.0);
        assert_eq!(effective_sample_size(&set(&[("a", None)])), 0.0);
    }

    #[test]
    fn one_unanimous_model_counts_once() {
        // 6 YES from one model: m̄ = 6, ā = 1, ρ = 1 → n_eff = 6 / (1 + 5) = 1.
        let s = set(&[("a", Some(Yes)); 6]);
        assert_eq!(effective_sample_size(&s), 1.0);
    }

    #[test]
    fn hand_worked_two_models() {
        // a: YES YES NO (share 2/3), b: NO NO NO NO (share 1), failed ballot of c ignored.
        // N = 7, two models → m̄ = 3.5; ā = (2/3 + 1)/2 = 5/6; ρ = (5/6 − 1/3)/(2/3) = 3/4;
        // n_eff = 7 / (1 + 2.5·0.75) = 7 / 2.875 = 2.434782608695652…
        let s = set(&[
            ("a", Some(Yes)),
            ("a", Some(Yes)),
            ("a", Some(No)),
            ("b", Some(No)),
            ("b", Some(No)),
            ("b", Some(No)),
            ("b", Some(No)),
            ("c", None),
        ]);
        assert!((effective_sample_size(&s) - 7.0 / 2.875).abs() < 1e-12);
    }

    #[test]
    fn chance_agreement_gives_n() {
        // One model, votes spread evenly: ā = 1/3, ρ = 0 → n_eff = N.
        let s = set(&[("a", Some(Yes)), ("a", Some(No)), ("a", Some(Null))]);
        assert_eq!(effective_sample_size(&s), 3.0);
    }
}
