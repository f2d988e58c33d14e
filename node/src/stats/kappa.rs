//! Fleiss' kappa over committee iterations (DESIGN.md §2, "Fleiss' kappa").
//!
//! Subjects are iterations; raters are that iteration's valid ballots. A failed ballot is
//! dropped, so raters per subject may differ, and subjects with fewer than 2 raters are
//! skipped. With S subjects, n_t raters and n_tk votes for k in subject t:
//!
//! ```text
//! P̄  = (1/S) Σ_t (Σ_k n_tk² − n_t) / (n_t (n_t − 1))
//! p_k = Σ_t n_tk / Σ_t n_t        P̄e = Σ_k p_k²        κ = (P̄ − P̄e) / (1 − P̄e)
//! ```
//!
//! κ = 1 when P̄e = 1 (every rating is the same outcome); κ is undefined (reported as null,
//! posted as 0) when no subject has 2 raters. κ ≤ 1 always. With equal raters per subject,
//! or at most 4 raters per subject, κ ≥ −1; with uneven raters of 5 or more it can fall
//! below −1 (see `kappa_below_minus_one_with_uneven_raters`).
//!
//! The posted value κ·10^18 is computed with exact rational arithmetic (big integers) and
//! rounded half away from zero, so it does not depend on any float rounding.

use std::collections::BTreeMap;

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};

use super::{BallotRecord, WAD};

/// Per-iteration vote counts (valid ballots only), in ascending iteration order.
pub fn subject_counts(ballots: &[BallotRecord]) -> Vec<[u64; 3]> {
    let mut by_iteration: BTreeMap<u32, [u64; 3]> = BTreeMap::new();
    for ballot in ballots {
        if let Some(vote) = ballot.vote {
            by_iteration.entry(ballot.iteration).or_default()[vote.index()] += 1;
        }
    }
    by_iteration.into_values().collect()
}

/// Fleiss' kappa of a ballot set: the report's float and the posted 1e18 integer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Kappa {
    /// κ as a float; `None` when undefined (no subject with 2 raters).
    pub value: Option<f64>,
    /// κ·10^18 from the exact rational, rounded half away from zero; 0 when undefined.
    pub wad: i128,
}

/// Fleiss' kappa of per-subject counts (see the module docs for the formula).
pub fn fleiss_kappa(subjects: &[[u64; 3]]) -> Kappa {
    match exact_kappa(subjects) {
        None => Kappa {
            value: None,
            wad: 0,
        },
        Some(kappa) => Kappa {
            value: kappa.to_f64(),
            wad: wad_half_away(&kappa),
        },
    }
}

/// κ·10^18 of per-subject counts, exact and rounded half away from zero (0 when undefined).
pub fn kappa_wad(subjects: &[[u64; 3]]) -> i128 {
    exact_kappa(subjects).map_or(0, |kappa| wad_half_away(&kappa))
}

/// κ as an exact rational; `None` when no subject has 2 raters.
fn exact_kappa(subjects: &[[u64; 3]]) -> Option<BigRational> {
    let big = |x: u64| BigInt::from(x);
    let mut agreement_sum = BigRational::zero();
    let mut rated = 0u64;
    let mut totals = [BigInt::zero(), BigInt::zero(), BigInt::zero()];
    for s in subjects {
        let n: u128 = s.iter().map(|&x| u128::from(x)).sum();
        if n < 2 {
            continue;
        }
        rated += 1;
        let n = BigInt::from(n);
        let squares: BigInt = s.iter().map(|&x| big(x) * big(x)).sum();
        let pairs = &n * (&n - 1u32);
        agreement_sum += BigRational::new(squares - &n, pairs);
        for (total, &x) in totals.iter_mut().zip(s) {
            *total += x;
        }
    }
    if rated == 0 {
        return None;
    }
    let p_bar = agreement_sum / BigInt::from(rated);
    let all: BigInt = totals.iter().sum();
    let expected = BigRational::new(totals.iter().map(|c| c * c).sum(), &all * &all);
    if expected.is_one() {
        return Some(BigRational::one());
    }
    Some((p_bar - &expected) / (BigRational::one() - expected))
}

/// round(x·10^18) with ties away from zero. |κ| is far below 10^20, so the result fits.
fn wad_half_away(x: &BigRational) -> i128 {
    let scaled = x.numer().abs() * BigInt::from(WAD);
    let den = x.denom(); // BigRational keeps the denominator positive.
    let (q, r) = scaled.div_rem(den);
    let q = if r * 2u32 >= *den { q + 1u32 } else { q };
    let q = if x.is_negative() { -q } else { q };
    // κ ≤ 1 and |κ| is bounded by the counts, far inside i128 for any real ballot set;
    // saturate rather than panic on absurd inputs.
    q.to_i128().unwrap_or(if x.is_negative() {
        i128::MIN
    } else {
        i128::MAX
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Outcome;
    use proptest::prelude::*;

    const W: i128 = WAD as i128;

    #[test]
    fn perfect_agreement_is_one() {
        // Every rating YES: P̄e = 1, so κ = 1 by definition.
        let k = fleiss_kappa(&[[3, 0, 0], [2, 0, 0]]);
        assert_eq!(
            k,
            Kappa {
                value: Some(1.0),
                wad: W
            }
        );
    }

    #[test]
    fn undefined_without_two_raters() {
        assert_eq!(
            fleiss_kappa(&[]),
            Kappa {
                value: None,
                wad: 0
            }
        );
        // One rater per iteration (the others failed): every subject is skipped.
        assert_eq!(
            fleiss_kappa(&[[1, 0, 0], [0, 1, 0], [0, 0, 0]]),
            Kappa {
                value: None,
                wad: 0
            }
        );
    }

    #[test]
    fn hand_worked_three_iterations() {
        // Subjects (3,0,0), (2,1,0), (1,1,1):
        //   P_t = (9−3)/6 = 1, (5−3)/6 = 1/3, (3−3)/6 = 0 → P̄ = 4/9.
        //   p = (6,2,1)/9 → P̄e = (36+4+1)/81 = 41/81.
        //   κ = (36/81 − 41/81)/(40/81) = −5/40 = −1/8.
        let k = fleiss_kappa(&[[3, 0, 0], [2, 1, 0], [1, 1, 1]]);
        assert_eq!(k.wad, -125_000_000_000_000_000);
        assert_eq!(k.value, Some(-0.125));
    }

    #[test]
    fn hand_worked_uneven_raters_and_skipped_subject() {
        // (2,0,0) with 2 raters, (1,1,1) with 3, (0,1,0) skipped (one rater):
        //   P_t = (4−2)/2 = 1 and 0 → P̄ = 1/2.
        //   p = (3,1,1)/5 → P̄e = 11/25.
        //   κ = (1/2 − 11/25)/(14/25) = (3/50)/(14/25) = 3/28 = 0.107142857142857142857…
        //   κ·10^18 = 107142857142857142.857… → 107142857142857143.
        let k = fleiss_kappa(&[[2, 0, 0], [1, 1, 1], [0, 1, 0]]);
        assert_eq!(k.wad, 107_142_857_142_857_143);
        assert!((k.value.unwrap() - 3.0 / 28.0).abs() < 1e-16);
    }

    #[test]
    fn rounding_is_half_away_from_zero() {
        // 1/(2·10^18) rounds to 1, −1/(2·10^18) to −1; just below half rounds to 0.
        let half = BigRational::new(BigInt::one(), BigInt::from(2 * WAD));
        assert_eq!(wad_half_away(&half), 1);
        assert_eq!(wad_half_away(&-half), -1);
        let below = BigRational::new(BigInt::one(), BigInt::from(2 * WAD + 1));
        assert_eq!(wad_half_away(&below), 0);
        assert_eq!(wad_half_away(&-below), 0);
        assert_eq!(
            wad_half_away(&BigRational::new(BigInt::from(-3), BigInt::from(28))),
            -107_142_857_142_857_143
        );
    }

    #[test]
    fn total_disagreement_of_pairs_is_minus_one() {
        // Each iteration split YES/NO: P̄ = 0, p = (1/2, 1/2, 0), P̄e = 1/2 → κ = −1.
        assert_eq!(kappa_wad(&[[1, 1, 0], [1, 1, 0]]), -W);
    }

    #[test]
    fn kappa_below_minus_one_with_uneven_raters() {
        // (0,1,1), (0,0,5), (0,0,5): P̄ = (0+1+1)/3 = 2/3; p = (0, 1, 11)/12,
        // P̄e = 122/144 = 61/72; κ = (48/72 − 61/72)/(11/72) = −13/11 < −1. Uneven raters of
        // 5 or more break Fleiss' bound; the contract rejects κ < −1 (noted in the report).
        let k = fleiss_kappa(&[[0, 1, 1], [0, 0, 5], [0, 0, 5]]);
        assert_eq!(k.wad, -1_181_818_181_818_181_818);
    }

    #[test]
    fn subjects_group_by_iteration_and_drop_failed() {
        let b = |iteration, vote| BallotRecord {
            iteration,
            model: "m".into(),
            archetype: "a".into(),
            vote,
        };
        let set = [
            b(2, Some(Outcome::No)),
            b(1, Some(Outcome::Yes)),
            b(2, None),
            b(1, Some(Outcome::Yes)),
            b(3, None),
        ];
        assert_eq!(subject_counts(&set), vec![[2, 0, 0], [0, 1, 0]]);
    }

    /// Subjects with 2..=4 raters (the committee's M = 3 with a failed ballot, or M = 4).
    fn small_subjects() -> impl Strategy<Value = Vec<[u64; 3]>> {
        prop::collection::vec(prop::array::uniform3(0u64..=4), 1..12)
            .prop_filter("2..=4 raters", |s| {
                s.iter().all(|c| (2..=4).contains(&c.iter().sum::<u64>()))
            })
    }

    /// Subjects that all have the same number of raters (Fleiss' original setting).
    fn equal_raters() -> impl Strategy<Value = Vec<[u64; 3]>> {
        (2u64..12, 1usize..15).prop_flat_map(|(n, s)| {
            prop::collection::vec((0..=n).prop_flat_map(move |a| (Just(a), 0..=n - a)), s)
                .prop_map(move |v| v.into_iter().map(|(a, b)| [a, b, n - a - b]).collect())
        })
    }

    proptest! {
        #[test]
        fn bounded_with_few_raters(subjects in small_subjects()) {
            let k = fleiss_kappa(&subjects);
            prop_assert!((-W..=W).contains(&k.wad), "{subjects:?} {k:?}");
            let v = k.value.unwrap();
            prop_assert!((-1.0..=1.0).contains(&v));
            prop_assert!((v * 1e18 - k.wad as f64).abs() <= 1e3);
        }

        #[test]
        fn bounded_with_equal_raters(subjects in equal_raters()) {
            let k = fleiss_kappa(&subjects);
            prop_assert!((-W..=W).contains(&k.wad), "{subjects:?} {k:?}");
        }

        #[test]
        fn never_above_one(subjects in prop::collection::vec(prop::array::uniform3(0u64..50), 0..20)) {
            prop_assert!(kappa_wad(&subjects) <= W);
        }
    }
}
