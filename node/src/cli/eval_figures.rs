//! The pictures `veritas eval` writes next to its JSON lines (pure: claims in, charts out).
//!
//! - **Coverage–accuracy**: rank the claims by how sure the committee is and read the accuracy
//!   of the k surest at coverage k/N — the curve every routing threshold moves along. Two
//!   rankings: the leading outcome's posterior (what the prototype's rule reads) and its *effective*
//!   95% lower bound (counts scaled by n_eff/N, what routing reads now).
//! - **Reliability**: every (claim, outcome) probability with a gold label, in ten bins; a
//!   calibrated committee sits on the diagonal. The expected calibration error (ECE) is noted.

use crate::plot::{Chart, Series};
use crate::stats::{Outcome, effective::effective_sample, posterior::leading_outcome};

/// What the pictures need of one claim.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// Posterior mean (YES, NO, NULL).
    pub posterior: [f64; 3],
    /// Valid votes (YES, NO, NULL).
    pub counts: [u64; 3],
    /// Effective sample size of the ballots.
    pub n_eff: f64,
    /// The right answer; `None` for DISPUTED (any resolution of it is wrong).
    pub gold: Option<Outcome>,
}

impl Scored {
    fn leading(&self) -> Option<Outcome> {
        (self.counts.iter().sum::<u64>() > 0).then(|| leading_outcome(self.counts))
    }

    fn correct(&self) -> bool {
        self.gold.is_some() && self.leading() == self.gold
    }
}

/// At most this many points per curve (the SVG stays small for thousands of claims).
const MAX_POINTS: usize = 200;

/// (coverage, accuracy) of the k highest-scoring claims, for every k.
pub fn selective_curve(rows: &[Scored], score: impl Fn(&Scored) -> f64) -> Vec<(f64, f64)> {
    let mut ranked: Vec<(f64, bool)> = rows.iter().map(|r| (score(r), r.correct())).collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    let n = ranked.len();
    let step = n.div_ceil(MAX_POINTS).max(1);
    let mut out = Vec::new();
    let mut correct = 0usize;
    for (k, (_, ok)) in ranked.iter().enumerate() {
        correct += usize::from(*ok);
        let taken = k + 1;
        if taken % step == 0 || taken == n {
            out.push((taken as f64 / n as f64, correct as f64 / taken as f64));
        }
    }
    out
}

/// The coverage–accuracy chart of a run.
pub fn coverage_chart(rows: &[Scored], resolved: u64) -> Chart {
    let lead = |r: &Scored| r.leading().map_or(0.0, |o| r.posterior[o.index()]);
    let bound = |r: &Scored| {
        r.leading().map_or(0.0, |o| {
            effective_sample(r.counts, r.n_eff).ci95[o.index()][0]
        })
    };
    Chart {
        title: "Accuracy of the surest claims against coverage".into(),
        x_label: "coverage (share of claims auto-resolved)".into(),
        y_label: "accuracy on those claims".into(),
        series: vec![
            Series {
                name: "ranked by posterior (plain rule)".into(),
                color: "#d62728",
                points: selective_curve(rows, lead),
                ..Series::default()
            },
            Series {
                name: "ranked by effective lower bound".into(),
                color: "#1f77b4",
                points: selective_curve(rows, bound),
                ..Series::default()
            },
        ],
        diagonal: false,
        notes: vec![
            format!(
                "{} claims; a point is the accuracy of the k surest (coverage k/N). DISPUTED claims count as wrong.",
                rows.len()
            ),
            format!("The routing thresholds in force resolved {resolved} of them."),
        ],
        ..Chart::default()
    }
}

/// Ten equal-width bins of predicted probability: (mean predicted, observed frequency, count).
pub fn reliability_bins(rows: &[Scored]) -> Vec<(f64, f64, usize)> {
    let mut sums = [(0.0f64, 0usize, 0usize); 10];
    for r in rows {
        let Some(gold) = r.gold else { continue };
        for k in Outcome::ALL {
            let p = r.posterior[k.index()];
            if !p.is_finite() {
                continue;
            }
            let bin = ((p * 10.0).floor() as usize).min(9);
            sums[bin].0 += p;
            sums[bin].1 += usize::from(k == gold);
            sums[bin].2 += 1;
        }
    }
    sums.iter()
        .filter(|(_, _, n)| *n > 0)
        .map(|(p, hits, n)| (p / *n as f64, *hits as f64 / *n as f64, *n))
        .collect()
}

/// Expected calibration error: the bins' |observed − predicted|, weighted by their counts.
pub fn expected_calibration_error(bins: &[(f64, f64, usize)]) -> Option<f64> {
    let total: usize = bins.iter().map(|b| b.2).sum();
    (total > 0).then(|| {
        bins.iter()
            .map(|(p, o, n)| (o - p).abs() * *n as f64)
            .sum::<f64>()
            / total as f64
    })
}

/// The reliability diagram of a run.
pub fn reliability_chart(rows: &[Scored]) -> Chart {
    let bins = reliability_bins(rows);
    let ece = expected_calibration_error(&bins);
    let labelled = rows.iter().filter(|r| r.gold.is_some()).count();
    Chart {
        title: "Reliability of the posterior".into(),
        x_label: "predicted probability (bin mean)".into(),
        y_label: "observed frequency".into(),
        series: vec![Series {
            name: "committee posterior".into(),
            color: "#1f77b4",
            points: bins.iter().map(|(p, o, _)| (*p, *o)).collect(),
            point_labels: bins.iter().map(|b| format!("n={}", b.2)).collect(),
            ..Series::default()
        }],
        diagonal: true,
        notes: vec![
            format!(
                "{labelled} labelled claims × 3 outcomes in ten bins; the dashed line is perfect calibration."
            ),
            match ece {
                Some(e) => format!("Expected calibration error {:.3}.", e),
                None => "No labelled claim.".into(),
            },
        ],
        ..Chart::default()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn row(counts: [u64; 3], gold: Option<Outcome>) -> Scored {
        let total: f64 = counts.iter().sum::<u64>() as f64 + 3.0;
        Scored {
            posterior: counts.map(|n| (n as f64 + 1.0) / total),
            counts,
            n_eff: counts.iter().sum::<u64>() as f64,
            gold,
        }
    }

    #[test]
    fn the_surest_claims_come_first() {
        let rows = [
            row([9, 0, 0], Some(Outcome::Yes)), // sure and right
            row([5, 4, 0], Some(Outcome::No)),  // unsure and wrong
            row([0, 8, 0], Some(Outcome::No)),  // sure and right
            row([6, 0, 0], None),               // DISPUTED: wrong whatever it says
        ];
        let curve = selective_curve(&rows, |r| r.posterior[r.leading().unwrap().index()]);
        assert_eq!(curve.len(), 4);
        assert_eq!(curve[0], (0.25, 1.0));
        assert_eq!(curve[1], (0.5, 1.0));
        assert!((curve[2].1 - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(curve[3], (1.0, 0.5));
    }

    #[test]
    fn a_calibrated_committee_has_a_small_error() {
        // Predicted 0.9 and right nine times in ten.
        let mut rows = Vec::new();
        for i in 0..10 {
            let gold = if i < 9 { Outcome::Yes } else { Outcome::No };
            rows.push(Scored {
                posterior: [0.9, 0.05, 0.05],
                counts: [9, 0, 0],
                n_eff: 9.0,
                gold: Some(gold),
            });
        }
        let bins = reliability_bins(&rows);
        let top = bins.iter().find(|b| b.0 > 0.8).unwrap();
        assert!((top.1 - 0.9).abs() < 1e-12 && top.2 == 10);
        let ece = expected_calibration_error(&bins).unwrap();
        assert!(ece < 0.05, "{ece}");
        // An overconfident one is caught.
        for r in &mut rows {
            r.gold = Some(Outcome::No);
        }
        let ece = expected_calibration_error(&reliability_bins(&rows)).unwrap();
        assert!(ece > 0.5, "{ece}");
    }
}
