//! End-to-end committee tests with scripted (replay) jurors: early stopping counted call by
//! call, failing jurors, insufficient ballots, deadlines, reproducible draws, and the report.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a panic is the report

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use veritas::bundle::{Bundle, EvidenceItem, Rubric, Source};
use veritas::commitment::commit_bundle;
use veritas::jury::committee::{Committee, CommitteeConfig, PoolMember, run_committee};
use veritas::jury::replay::{ReplayJuror, Script};
use veritas::jury::{Archetype, committee_seed};
use veritas::policy::{Decision, RoutingPolicy};
use veritas::report::{QuestionInfo, Report};
use veritas::stats::{BallotRecord, Outcome, kl_bits, posterior_mean, summarize};

fn bundle() -> Bundle {
    Bundle {
        question: "Is the Arctic warming faster than the global average?".into(),
        clarifications: Vec::new(),
        evidence: (1..=3)
            .map(|id| EvidenceItem {
                id,
                url: format!("https://example.org/{id}"),
                title: format!("Source {id}"),
                snippet: "The Arctic has warmed nearly four times faster than the globe.".into(),
                published_at: None,
                source: Source::Local,
                submitter: None,
            })
            .collect(),
    }
}

fn committee(jurors: Vec<Arc<ReplayJuror>>, config: CommitteeConfig) -> Committee {
    let archetypes = Archetype::shipped();
    Committee {
        archetype_weights: vec![1; archetypes.len()],
        archetypes,
        jurors: jurors
            .into_iter()
            .map(|j| PoolMember {
                juror: j,
                weight: 1,
            })
            .collect(),
        config,
    }
}

async fn run(c: &Committee) -> Report {
    let b = bundle();
    let root = commit_bundle(&b).unwrap().root;
    let seed = committee_seed(&root, &[0u8; 32]);
    let run = run_committee(
        c,
        Arc::new(b.clone()),
        Arc::new(Rubric::default()),
        seed,
        root,
        &mut |_| {},
    )
    .await
    .unwrap();
    Report::build(
        QuestionInfo {
            clock: None,
            text: b.question.clone(),
            id: None,
            chain_id: None,
            oracle: None,
            clarifications: Vec::new(),
        },
        &b,
        &Rubric::default(),
        run,
        &RoutingPolicy::default(),
    )
    .unwrap()
}

fn yes_juror() -> Arc<ReplayJuror> {
    Arc::new(ReplayJuror::new(
        "replay/yes",
        Script::Fixed(Outcome::Yes),
        Duration::ZERO,
    ))
}

#[tokio::test]
async fn unanimous_committee_stops_early_counted() {
    // The default rule (ε = 0.02 bit, τ = 2) on unanimous ballots, M = 3: D after t = 2..5 is
    // about 0.043, 0.0138, 0.0061, 0.0032 bit, so t = 3 and 4 are stable and it stops after t = 4.
    let d: Vec<f64> = (2..=5u64)
        .map(|t| {
            kl_bits(
                &posterior_mean([3 * t, 0, 0]),
                &posterior_mean([3 * (t - 1), 0, 0]),
            )
        })
        .collect();
    let eps = CommitteeConfig::default().stopping.epsilon;
    assert!(d[0] > eps && d[1] < eps && d[2] < eps, "{d:?}");
    // The original design's suggested ε = 0.01 would still count t = 3 as moving (one more iteration).
    assert!(d[1] > 0.01 && d[2] < 0.01, "{d:?}");

    for (m, t) in [(3u32, 10u32), (3, 15), (5, 10)] {
        let juror = yes_juror();
        let c = committee(
            vec![juror.clone()],
            CommitteeConfig {
                iterations: t,
                ballots_per_iteration: m,
                concurrency: m as usize,
                ..CommitteeConfig::default()
            },
        );
        let report = run(&c).await;
        let calls = juror.calls() as u64;
        assert_eq!(
            calls,
            u64::from(4 * m),
            "T = {t}, M = {m}: calls counted at the juror"
        );
        assert_eq!(report.committee.calls, calls);
        assert_eq!(report.committee.stop_iteration, 4);
        assert!(report.committee.stopped_early);
        let ratio = calls as f64 / f64::from(t * m);
        assert!(ratio <= 0.4 + 1e-12, "T = {t}, M = {m}: {ratio}");
        println!(
            "T = {t}, M = {m}: {calls} of {} calls = {:.0}%",
            t * m,
            ratio * 100.0
        );
        // Twelve (or more) agreeing ballots clear every plain threshold, but they come from
        // one model: n_eff = 1, so only the correlation guard escalates (issue 14).
        assert_eq!(report.routing.decision, Decision::Escalate);
        assert_eq!(report.stats.n_eff, 1.0);
        assert_eq!(
            report.routing.reasons.len(),
            1,
            "{:?}",
            report.routing.reasons
        );
        assert!(report.routing.reasons[0].starts_with("effective lower 95% bound of YES"));
    }

    // Three different models agreeing are three judgements: resolved.
    let three: Vec<_> = ["replay/a", "replay/b", "replay/c"]
        .into_iter()
        .map(|name| {
            Arc::new(ReplayJuror::new(
                name,
                Script::Fixed(Outcome::Yes),
                Duration::ZERO,
            ))
        })
        .collect();
    let report = run(&committee(three, CommitteeConfig::default())).await;
    assert_eq!(
        report.routing.decision,
        Decision::Resolve,
        "{:?}",
        report.routing.reasons
    );
    assert!(report.stats.n_eff >= 2.9, "{}", report.stats.n_eff);

    // Without early stopping every one of the T × M calls is made.
    let juror = yes_juror();
    let c = committee(
        vec![juror.clone()],
        CommitteeConfig {
            early_stopping: false,
            ..CommitteeConfig::default()
        },
    );
    let report = run(&c).await;
    assert_eq!(juror.calls(), 30);
    assert_eq!(report.committee.stop_iteration, 10);
}

#[tokio::test]
async fn thirty_percent_failing_calls_still_give_a_verdict_and_list_failures() {
    // Each line is one call; 3 of every 10 fail (transport errors, an invalid ballot).
    let ok = json!({"vote":"YES","confidence":0.9,"supporting_evidence_ids":[1],
        "refuting_evidence_ids":[],"rubric_scores":{},"reasoning":"item 1 says so"});
    let mut lines = vec![ok.clone(); 10];
    lines[2] = json!({"error": "connection reset"});
    lines[5] = json!({"error": "HTTP 503"});
    lines[8] = json!({"vote":"YES","confidence":0.9,"supporting_evidence_ids":[42],
        "refuting_evidence_ids":[],"rubric_scores":{},"reasoning":"cites a missing item"});
    let juror = Arc::new(ReplayJuror::new(
        "replay/flaky",
        Script::Lines(lines),
        Duration::ZERO,
    ));
    let c = committee(
        vec![juror.clone()],
        CommitteeConfig {
            concurrency: 1, // the script is consumed in call order; keep it deterministic
            early_stopping: false,
            ..CommitteeConfig::default()
        },
    );
    let report = run(&c).await;
    assert_eq!(juror.calls(), 30);
    assert_eq!(report.stats.failed, 9, "30% of 30 calls");
    assert_eq!(report.stats.valid, 21);
    assert_eq!(report.routing.outcome, Some(Outcome::Yes));
    // A verdict all the same; one model's agreement is escalated by the correlation guard
    // alone (issue 14), not by the failures.
    assert_eq!(
        report.routing.decision,
        Decision::Escalate,
        "{:?}",
        report.routing.reasons
    );
    assert_eq!(
        report.routing.reasons.len(),
        1,
        "{:?}",
        report.routing.reasons
    );
    assert!(report.routing.reasons[0].starts_with("effective lower 95% bound of YES"));
    let failures: Vec<_> = report.failures().collect();
    assert_eq!(failures.len(), 9);
    assert!(failures.iter().all(|f| f.vote.is_none()));
    assert!(
        failures
            .iter()
            .any(|f| f.failure.as_deref().unwrap().contains("connection reset"))
    );
    assert!(failures.iter().any(|f| {
        f.failure
            .as_deref()
            .unwrap()
            .contains("supporting_evidence_ids/0: 42")
    }));

    // The report's stats are exactly `veritas stats` of its ballots, and it reads back.
    let text = serde_json::to_string(&report).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    for key in [
        "question",
        "evidence",
        "leaves",
        "root",
        "ballots",
        "stats",
        "routing",
        "committee",
    ] {
        assert!(value.get(key).is_some(), "missing {key}");
    }
    let records: Vec<BallotRecord> = serde_json::from_value(value["ballots"].clone()).unwrap();
    assert_eq!(
        serde_json::to_value(summarize(&records)).unwrap(),
        value["stats"]
    );
    let back: Report = serde_json::from_str(&text).unwrap();
    assert_eq!(back, report);
    assert_eq!(report.root, commit_bundle(&bundle()).unwrap().root);
}

#[tokio::test]
async fn too_few_valid_ballots_escalate_as_insufficient() {
    let juror = Arc::new(ReplayJuror::new(
        "replay/down",
        Script::Lines(vec![json!({"error": "service down"})]),
        Duration::ZERO,
    ));
    let report = run(&committee(vec![juror], CommitteeConfig::default())).await;
    assert_eq!(report.stats.valid, 0);
    assert_eq!(report.ballots.len(), 30);
    assert_eq!(report.routing.decision, Decision::Escalate);
    assert_eq!(report.routing.outcome, None);
    assert_eq!(
        report.routing.status.as_deref(),
        Some("insufficient ballots")
    );
}

#[tokio::test]
async fn a_late_juror_fails_its_ballot_at_the_deadline() {
    let slow = Arc::new(ReplayJuror::new(
        "replay/slow",
        Script::Fixed(Outcome::No),
        Duration::from_secs(5),
    ));
    let c = committee(
        vec![slow],
        CommitteeConfig {
            iterations: 1,
            ballot_timeout: Duration::from_millis(50),
            ..CommitteeConfig::default()
        },
    );
    let report = run(&c).await;
    assert_eq!(report.stats.failed, 3);
    assert!(
        report.ballots[0]
            .failure
            .as_deref()
            .unwrap()
            .contains("timed out")
    );
}

#[tokio::test]
async fn draws_are_reproducible_from_the_root() {
    let pairs = |r: &Report| -> Vec<(String, String)> {
        r.ballots
            .iter()
            .map(|b| (b.archetype.clone(), b.model.clone()))
            .collect()
    };
    let jurors = || {
        vec![
            yes_juror(),
            Arc::new(ReplayJuror::new(
                "replay/b",
                Script::Fixed(Outcome::Yes),
                Duration::ZERO,
            )),
        ]
    };
    let cfg = CommitteeConfig {
        early_stopping: false,
        ..CommitteeConfig::default()
    };
    let a = run(&committee(jurors(), cfg.clone())).await;
    let b = run(&committee(jurors(), cfg)).await;
    assert_eq!(pairs(&a), pairs(&b));
    assert_eq!(a.committee.seed, b.committee.seed);
    let distinct: std::collections::BTreeSet<_> = pairs(&a).into_iter().collect();
    assert!(distinct.len() > 3, "30 draws over 5 × 2 pairs should vary");
}
