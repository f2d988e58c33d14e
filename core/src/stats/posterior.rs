//! The Dirichlet posterior and its 1e18 fixed-point form (the book's auditor specification, "Statistics of a ballot set": the posterior and
//! "1e18 fixed point").
//!
//! Prior Dir(1,1,1), so α = n + 1 and the posterior mean is P(k) = α_k / Σα. On-chain the
//! mean is posted as three integers scaled by [`WAD`] that sum to exactly 10^18: each is
//! floored, and the one or two units still missing go to the largest remainders (ties in
//! K order). Integer arithmetic only, so anyone rebuilds the same bits.

use super::{Ballot, Outcome};

/// The fixed-point scale of every on-chain probability and of kappa: 10^18 ("wad"), the
/// contracts' `WadTriple.WAD`. The one definition in Rust; the node's `contract` re-exports it.
pub const WAD: u128 = 1_000_000_000_000_000_000;

/// Vote counts (n_YES, n_NO, n_NULL) over the valid ballots; failed ballots are skipped.
pub fn counts<B: Ballot>(ballots: &[B]) -> [u64; 3] {
    let mut n = [0u64; 3];
    for vote in ballots.iter().filter_map(Ballot::vote) {
        n[vote.index()] += 1;
    }
    n
}

/// α = n + 1 in u128, so even `u64::MAX` counts cannot overflow.
fn alpha(counts: [u64; 3]) -> [u128; 3] {
    counts.map(|n| u128::from(n) + 1)
}

/// Posterior mean α_k / Σα of Dir(n + 1), in K order.
pub fn posterior_mean(counts: [u64; 3]) -> [f64; 3] {
    let a = alpha(counts);
    let total = (a[0] + a[1] + a[2]) as f64;
    a.map(|ak| ak as f64 / total)
}

/// The posterior mean in 1e18 fixed point by the largest-remainder rule.
///
/// p_k = floor(α_k·10^18 / Σα); the 10^18 − Σp_k missing units (0, 1 or 2, since each
/// remainder is below one unit) go one each to the outcomes with the largest remainder
/// α_k·10^18 mod Σα, ties broken in K order. The result always sums to exactly 10^18, and
/// each value is > 0 whenever Σα ≤ 10^18 (α_k ≥ 1 makes every floor ≥ 1), i.e. for any
/// ballot set smaller than 10^18 ballots.
pub fn to_wad(counts: [u64; 3]) -> [u128; 3] {
    let a = alpha(counts);
    let total = a[0] + a[1] + a[2];
    // α_k ≤ 2^64 and WAD < 2^60, so α_k·WAD < 2^124: no overflow in u128.
    let mut p = a.map(|ak| ak * WAD / total);
    let rem = a.map(|ak| ak * WAD % total);
    let missing = WAD - (p[0] + p[1] + p[2]);
    let mut order = [0usize, 1, 2];
    // Stable sort: equal remainders keep K order.
    order.sort_by(|&i, &j| rem[j].cmp(&rem[i]));
    for &k in order.iter().take(missing as usize) {
        p[k] += 1;
    }
    p
}

/// The outcome with the largest posterior mean (ties in K order): the verdict's headline.
pub fn leading_outcome(counts: [u64; 3]) -> Outcome {
    let mut best = Outcome::Yes;
    for o in Outcome::ALL {
        if counts[o.index()] > counts[best.index()] {
            best = o;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::stats::BallotRecord;
    use proptest::prelude::*;

    #[test]
    fn hand_worked_vectors() {
        // No ballots: α = (1,1,1), 10^18/3 = 333…333 remainder 1 each; one unit missing,
        // all remainders tie, so YES (first in K order) gets it.
        assert_eq!(
            to_wad([0, 0, 0]),
            [
                333_333_333_333_333_334,
                333_333_333_333_333_333,
                333_333_333_333_333_333
            ]
        );
        // n = (4,1,0): α = (5,2,1), Σ = 8: exactly 0.625, 0.25, 0.125.
        assert_eq!(
            to_wad([4, 1, 0]),
            [
                625_000_000_000_000_000,
                250_000_000_000_000_000,
                125_000_000_000_000_000
            ]
        );
        // n = (3,2,1): α = (4,3,2), Σ = 9: floors 444…444 r 4, 333…333 r 3, 222…222 r 2;
        // one unit missing, it goes to YES (largest remainder 4).
        assert_eq!(
            to_wad([3, 2, 1]),
            [
                444_444_444_444_444_445,
                333_333_333_333_333_333,
                222_222_222_222_222_222
            ]
        );
        // n = (2,2,0): α = (3,3,1), Σ = 7: 3·10^18/7 = 428…571 r 3 (twice), 10^18/7 =
        // 142…857 r 1; one unit missing, YES and NO tie at 3, K order gives it to YES.
        assert_eq!(
            to_wad([2, 2, 0]),
            [
                428_571_428_571_428_572,
                428_571_428_571_428_571,
                142_857_142_857_142_857
            ]
        );
        // n = (4,4,1): α = (5,5,2), Σ = 12, 10^18 ≡ 4 (mod 12): remainders 8, 8, 8, two
        // units missing, they go to YES and NO (K order).
        assert_eq!(
            to_wad([4, 4, 1]),
            [
                416_666_666_666_666_667,
                416_666_666_666_666_667,
                166_666_666_666_666_666
            ]
        );
    }

    #[test]
    fn posterior_mean_vectors() {
        assert_eq!(posterior_mean([0, 0, 0]), [1.0 / 3.0; 3]);
        assert_eq!(posterior_mean([4, 1, 0]), [0.625, 0.25, 0.125]);
    }

    #[test]
    fn huge_counts_do_not_overflow() {
        let p = to_wad([u64::MAX, u64::MAX, u64::MAX]);
        assert_eq!(p.iter().sum::<u128>(), WAD);
        let p = to_wad([u64::MAX, 0, 0]);
        assert_eq!(p.iter().sum::<u128>(), WAD);
    }

    #[test]
    fn counts_skip_failed_ballots() {
        let b = |vote| BallotRecord {
            iteration: 1,
            model: "m".into(),
            archetype: "a".into(),
            vote,
        };
        let set = [
            b(Some(Outcome::Yes)),
            b(None),
            b(Some(Outcome::Null)),
            b(Some(Outcome::Yes)),
        ];
        assert_eq!(counts(&set), [2, 0, 1]);
        assert_eq!(leading_outcome([2, 0, 1]), Outcome::Yes);
        assert_eq!(leading_outcome([1, 1, 0]), Outcome::Yes);
        assert_eq!(leading_outcome([0, 1, 3]), Outcome::Null);
    }

    proptest! {
        #[test]
        fn wad_sums_to_one_and_each_positive(n in prop::array::uniform3(0u64..1_000_000_000_000)) {
            let p = to_wad(n);
            prop_assert_eq!(p.iter().sum::<u128>(), WAD);
            prop_assert!(p.iter().all(|&x| x > 0));
            // Within one unit of the exact value, and ordered like the counts.
            let total = u128::from(n[0] + n[1] + n[2]) + 3;
            for k in 0..3 {
                let exact_floor = (u128::from(n[k]) + 1) * WAD / total;
                prop_assert!(p[k] == exact_floor || p[k] == exact_floor + 1);
            }
        }

        #[test]
        fn wad_any_u64_sums_to_one(n in prop::array::uniform3(any::<u64>())) {
            prop_assert_eq!(to_wad(n).iter().sum::<u128>(), WAD);
        }
    }
}
