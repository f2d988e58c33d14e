//! The committee's ballots against the committee it claims: every (iteration, slot) position
//! of the run exactly once, each one the sampler's draw, and the run stopping where the KL
//! rule stops it.
//!
//! The committee block (`M`, `T`, `stop_iteration`, the stopping rule and both weight lists)
//! fixes the positions a run has: iterations 1..=`stop_iteration`, slots 0..`M`. A real
//! committee records every position (a failed or panicking juror is a failed ballot), so a
//! missing, repeated or out-of-range position is a finding that names it, and a committee
//! block that cannot fix the positions (an `M` of 0, no weights) is a finding too, never a
//! skipped check. Draws are
//! consumed in position order, as [`crate::jury::committee`] consumes them.

use std::collections::BTreeMap;

use super::{AuditReport, Mismatch};
use crate::jury::{BallotRow, Sampler, committee::Weight};
use crate::stats::{EarlyStopping, posterior_mean};

/// Positions listed one by one at most (beyond, one finding gives the count).
const LISTED: usize = 20;

/// What the committee block fixes.
struct Shape {
    m: u64,
    iterations: u64,
    stop: u64,
    archetypes: Vec<(String, u64)>,
    jurors: Vec<(String, u64)>,
    rule: EarlyStopping,
    early_stopping: bool,
}

/// The committee block's shape, or a finding for each key that cannot fix one: an `M`, `T`
/// or `stop_iteration` of 0, an empty weight list, a stop after `T`.
fn shape(report: &AuditReport) -> Result<Shape, Vec<Mismatch>> {
    let c = &report.committee;
    let mut out = Vec::new();
    for (key, n) in [
        ("M", c.ballots_per_iteration),
        ("T", c.iterations),
        ("stop_iteration", c.stop_iteration),
    ] {
        if n == 0 {
            out.push(Mismatch::in_report(
                &format!("committee.{key}"),
                "an integer ≥ 1",
                "0",
            ));
        }
    }
    let mut pairs = |key: &str, list: &[Weight]| {
        if list.is_empty() {
            out.push(Mismatch::in_report(
                &format!("committee.{key}"),
                "a non-empty list of {name, weight}",
                "[]",
            ));
        }
        list.iter()
            .map(|w| (w.name.clone(), w.weight))
            .collect::<Vec<_>>()
    };
    let (archetypes, jurors) = (
        pairs("archetype_weights", &c.archetype_weights),
        pairs("juror_weights", &c.juror_weights),
    );
    if out.is_empty() && c.stop_iteration > c.iterations {
        out.push(Mismatch::in_report(
            "committee.stop_iteration",
            format!("at most T = {}", c.iterations),
            c.stop_iteration.to_string(),
        ));
    }
    if !out.is_empty() {
        return Err(out);
    }
    Ok(Shape {
        m: u64::from(c.ballots_per_iteration),
        iterations: u64::from(c.iterations),
        stop: u64::from(c.stop_iteration),
        archetypes,
        jurors,
        rule: EarlyStopping {
            epsilon: c.epsilon,
            tau: c.tau,
            min_ballots: c.min_ballots,
        },
        early_stopping: c.early_stopping,
    })
}

/// Every finding of the committee's ballots against its block, drawn from `seed`.
pub fn check(report: &AuditReport, seed: [u8; 32]) -> Vec<Mismatch> {
    let shape = match shape(report) {
        Ok(s) => s,
        Err(findings) => return findings,
    };
    let ballots = &report.ballots;
    let positions = match listable_positions(&shape, ballots.len()) {
        Ok(p) => p,
        Err(finding) => return vec![finding],
    };
    let (at, mut out) = place(&shape, ballots);
    out.extend(missing(&shape, positions, &at));
    out.extend(drawn(&shape, ballots, &at, seed));
    out.extend(stop(&shape, report));
    out
}

/// The stop_iteration × M positions the ballots must fill. Beyond twice the ballots there
/// is nothing to list one by one (and a huge claimed shape must not make the audit loop
/// for it): that is one finding.
fn listable_positions(shape: &Shape, ballots: usize) -> Result<u64, Mismatch> {
    match shape.stop.checked_mul(shape.m) {
        Some(p) if p <= 2 * ballots as u64 + LISTED as u64 => Ok(p),
        claimed => Err(Mismatch::new(
            "report.committee",
            format!("stop_iteration × M positions for {ballots} ballots"),
            format!(
                "{} × {} = {}",
                shape.stop,
                shape.m,
                claimed.map_or_else(|| "overflow".to_owned(), |p| p.to_string())
            ),
        )),
    }
}

/// Position of each ballot: (iteration − 1) × M + slot, each at most once; a ballot outside
/// the shape or at a taken position is a finding.
fn place(shape: &Shape, ballots: &[BallotRow]) -> (BTreeMap<u64, usize>, Vec<Mismatch>) {
    let mut out = Vec::new();
    let mut at: BTreeMap<u64, usize> = BTreeMap::new();
    for (i, b) in ballots.iter().enumerate() {
        let (iteration, slot) = (u64::from(b.iteration), u64::from(b.slot));
        let position = match slot {
            s if (1..=shape.stop).contains(&iteration) && s < shape.m => {
                (iteration - 1) * shape.m + s
            }
            _ => {
                out.push(Mismatch::new(
                    format!("report.ballots[{i}]"),
                    format!("iteration in 1..={} and slot in 0..{}", shape.stop, shape.m),
                    format!("iteration {iteration}, slot {slot}"),
                ));
                continue;
            }
        };
        if let Some(first) = at.insert(position, i) {
            at.insert(position, first);
            out.push(Mismatch::new(
                format!("report.ballots[{i}]"),
                "each (iteration, slot) once".to_owned(),
                format!(
                    "iteration {}, slot {} again (first at ballots[{first}])",
                    position / shape.m + 1,
                    position % shape.m
                ),
            ));
        }
    }
    (at, out)
}

/// The positions no ballot fills, the first [`LISTED`] one by one and the rest as a count.
fn missing(shape: &Shape, positions: u64, at: &BTreeMap<u64, usize>) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let missing: Vec<u64> = (0..positions).filter(|p| !at.contains_key(p)).collect();
    for p in missing.iter().take(LISTED) {
        out.push(Mismatch::new(
            format!(
                "report.ballots (iteration {}, slot {})",
                p / shape.m + 1,
                p % shape.m
            ),
            "a ballot (a failed one included)",
            "(missing)",
        ));
    }
    if missing.len() > LISTED {
        out.push(Mismatch::new(
            "report.ballots",
            format!("{positions} positions"),
            format!("{} more missing", missing.len() - LISTED),
        ));
    }
    out
}

/// Each present ballot's (archetype, juror) against the sampler's draw at its position.
fn drawn(
    shape: &Shape,
    ballots: &[BallotRow],
    at: &BTreeMap<u64, usize>,
    seed: [u8; 32],
) -> Vec<Mismatch> {
    let Ok(mut sampler) = Sampler::new(
        seed,
        shape.archetypes.iter().map(|w| w.1).collect(),
        shape.jurors.iter().map(|w| w.1).collect(),
    ) else {
        return vec![Mismatch::new(
            "report.committee.archetype_weights",
            "weights with a positive total",
            "nothing to draw from",
        )];
    };
    let mut out = Vec::new();
    let (mut draws, mut pair) = (0u64, (0usize, 0usize));
    // `at` is in position order: draw up to each present position.
    for (&position, &i) in at {
        while draws <= position {
            pair = sampler.draw();
            draws += 1;
        }
        let record = &ballots[i];
        for (key, expected, found) in [
            (
                "archetype",
                shape.archetypes.get(pair.0),
                record.archetype.as_str(),
            ),
            ("model", shape.jurors.get(pair.1), record.model.as_str()),
        ] {
            let expected = expected.map_or("(no such weight)", |w| w.0.as_str());
            if found != expected {
                out.push(Mismatch::new(
                    format!("report.ballots[{i}].{key}"),
                    expected,
                    found,
                ));
            }
        }
    }
    out
}

/// The KL rule replayed on the ballots, iteration by iteration as the committee ran it: the
/// run stops at the first iteration the rule stops (when early stopping is on), else at T.
/// Also `stopped_early` and `calls` (one per ballot).
fn stop(shape: &Shape, report: &AuditReport) -> Vec<Mismatch> {
    let ballots = &report.ballots;
    let mut per_iteration = vec![[0u64; 3]; usize::try_from(shape.stop).unwrap_or(0)];
    for b in ballots {
        let vote = b.vote;
        let slot = usize::try_from(b.iteration)
            .ok()
            .and_then(|t| t.checked_sub(1))
            .and_then(|t| per_iteration.get_mut(t));
        if let (Some(vote), Some(n)) = (vote, slot) {
            n[vote.index()] += 1;
        }
    }
    let mut tracker = shape.rule.tracker();
    let mut counts = [0u64; 3];
    let mut stopped_at = None;
    for (t, n) in per_iteration.iter().enumerate() {
        for (c, k) in counts.iter_mut().zip(n) {
            *c += k;
        }
        let valid = counts.iter().sum();
        if tracker.observe(posterior_mean(counts), valid) && shape.early_stopping {
            stopped_at = Some(t as u64 + 1);
            break;
        }
    }
    let (expected, why) = match stopped_at {
        Some(t) => (t, "the KL rule stops there"),
        None if shape.early_stopping => (shape.iterations, "T: the KL rule does not stop before"),
        None => (shape.iterations, "T: early stopping is off"),
    };
    let mut out = Vec::new();
    if expected != shape.stop {
        out.push(Mismatch::new(
            "report.committee.stop_iteration",
            format!("{expected} ({why})"),
            shape.stop.to_string(),
        ));
    }
    let early = shape.stop < shape.iterations;
    let claimed = report.committee.stopped_early;
    if claimed != early {
        out.push(Mismatch::new(
            "report.committee.stopped_early",
            early.to_string(),
            claimed.to_string(),
        ));
    }
    let calls = report.committee.calls;
    if calls != ballots.len() as u64 {
        out.push(Mismatch::new(
            "report.committee.calls",
            format!("{} (one per ballot)", ballots.len()),
            calls.to_string(),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::json;

    use super::super::fixture::{fields, report, reseal};

    fn ballots(r: &mut serde_json::Value) -> &mut Vec<serde_json::Value> {
        r["ballots"].as_array_mut().unwrap()
    }

    #[test]
    fn a_deleted_ballot_is_a_missing_position() {
        // The forger recomputes stats, routing and calls: only the position check is left.
        for (i, at) in [(0, "iteration 1, slot 0"), (2, "iteration 2, slot 0")] {
            let mut r = report();
            ballots(&mut r).remove(i);
            reseal(&mut r);
            assert_eq!(fields(&r), [format!("report.ballots ({at})")], "ballot {i}");
        }
    }

    #[test]
    fn a_duplicated_or_out_of_range_ballot_is_named() {
        let mut r = report();
        let copy = r["ballots"][1].clone();
        ballots(&mut r).push(copy);
        reseal(&mut r);
        assert_eq!(fields(&r), ["report.ballots[4]"]);
        let mut r = report();
        r["ballots"][3]["slot"] = json!(2);
        assert_eq!(
            fields(&r),
            ["report.ballots[3]", "report.ballots (iteration 2, slot 1)"]
        );
        let mut r = report();
        r["ballots"][3]["iteration"] = json!(3);
        assert!(fields(&r).contains(&"report.ballots[3]".to_string()));
        let mut r = report();
        r["ballots"][3].as_object_mut().unwrap().remove("slot");
        assert_eq!(fields(&r), ["report.ballots[3].slot"]);
    }

    #[test]
    fn a_missing_zero_or_empty_m_or_weight_list_is_a_mismatch() {
        for key in [
            "M",
            "T",
            "stop_iteration",
            "archetype_weights",
            "juror_weights",
            "epsilon",
        ] {
            let mut r = report();
            r["committee"].as_object_mut().unwrap().remove(key);
            assert_eq!(fields(&r), [format!("report.committee.{key}")], "{key}");
        }
        let mut r = report();
        r["committee"]["juror_weights"] = json!([]);
        assert_eq!(fields(&r), ["report.committee.juror_weights"]);
        let mut r = report();
        r["committee"]["juror_weights"][1]["weight"] = json!("1");
        assert_eq!(fields(&r), ["report.committee.juror_weights[1].weight"]);
        let mut r = report();
        r["committee"]["M"] = json!(0);
        assert_eq!(fields(&r), ["report.committee.M"]);
    }

    #[test]
    fn a_huge_claimed_shape_is_refused_without_listing_it() {
        let mut r = report();
        r["committee"]["M"] = json!(u32::MAX);
        r["committee"]["T"] = json!(u32::MAX);
        r["committee"]["stop_iteration"] = json!(u32::MAX);
        assert_eq!(fields(&r), ["report.committee"]);
    }

    #[test]
    fn a_dropped_last_iteration_is_caught_by_the_stopping_rule() {
        // Drop iteration 2 and claim the run stopped after 1: the KL rule (6 valid ballots
        // needed) cannot have stopped there.
        let mut r = report();
        ballots(&mut r).truncate(2);
        r["committee"]["stop_iteration"] = json!(1);
        r["committee"]["stopped_early"] = json!(true);
        reseal(&mut r);
        assert_eq!(fields(&r), ["report.committee.stop_iteration"]);
        // With early stopping off, the run goes to T whatever the ballots say.
        let mut r = report();
        r["committee"]["early_stopping"] = json!(false);
        r["committee"]["stop_iteration"] = json!(1);
        ballots(&mut r).truncate(2);
        reseal(&mut r);
        assert_eq!(
            fields(&r),
            [
                "report.committee.stop_iteration",
                "report.committee.stopped_early"
            ]
        );
    }

    #[test]
    fn a_swapped_juror_is_not_the_draw() {
        let mut r = report();
        let other = if r["ballots"][0]["model"] == "m1" {
            "m2"
        } else {
            "m1"
        };
        r["ballots"][0]["model"] = json!(other);
        reseal(&mut r);
        assert_eq!(fields(&r), ["report.ballots[0].model"]);
    }
}
