//! `veritas audit` (the real binary, offline) against reports a careful forger edited: after
//! each edit the statistics, the routing and the call count are recomputed, so only the check
//! under test can catch it. The honest reports come from the real committee loop with replay
//! jurors in-process, written as a node writes them. Also: a juror whose task panics is a
//! failed ballot at its position and the report still audits; a report file too large, not
//! JSON or of the wrong shape is refused with a clear error, never a panic.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use veritas::audit::MAX_REPORT_BYTES;
use veritas::bundle::{Bundle, Rubric};
use veritas::cli::resolve::read_evidence;
use veritas::commitment::commit_bundle;
use veritas::jury::committee::{Committee, CommitteeConfig, PoolMember, run_committee};
use veritas::jury::replay::{ReplayJuror, Script};
use veritas::jury::{Archetype, BallotTask, Juror, JurorAnswer, JurorError, committee_seed};
use veritas::policy::{Decision, RoutingInputs, RoutingPolicy, route};
use veritas::report::{QuestionInfo, Report};
use veritas::stats::{BallotRecord, Outcome, summarize};

use crate::support::veritas;

/// The Arctic question over the shared fixture's items (relevant: routing can resolve it).
fn bundle() -> Bundle {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/evidence-arctic.json");
    Bundle {
        question: "Is the Arctic warming faster than the global average?".into(),
        clarifications: Vec::new(),
        evidence: read_evidence(&fixture).unwrap(),
    }
}

/// A juror answering YES, except that its task panics at (iteration, slot) `at`.
struct PanicsAt {
    inner: ReplayJuror,
    at: (u32, u32),
}

#[async_trait]
impl Juror for PanicsAt {
    fn label(&self) -> &str {
        self.inner.label()
    }

    async fn ballot(&self, task: &BallotTask) -> Result<JurorAnswer, JurorError> {
        if (task.iteration, task.slot) == self.at {
            panic!(
                "juror bug at iteration {}, slot {}",
                task.iteration, task.slot
            );
        }
        self.inner.ballot(task).await
    }
}

fn yes(label: &str) -> Arc<dyn Juror> {
    Arc::new(ReplayJuror::new(
        label,
        Script::Fixed(Outcome::Yes),
        Duration::ZERO,
    ))
}

/// The report of a committee of `jurors` (weight 1 each) on [`bundle`].
async fn committee_report(jurors: Vec<Arc<dyn Juror>>, config: CommitteeConfig) -> Report {
    let archetypes = Archetype::shipped();
    let committee = Committee {
        archetype_weights: vec![1; archetypes.len()],
        archetypes,
        jurors: jurors
            .into_iter()
            .map(|juror| PoolMember { juror, weight: 1 })
            .collect(),
        config,
    };
    let b = bundle();
    let root = commit_bundle(&b).unwrap().root;
    let run = run_committee(
        &committee,
        Arc::new(b.clone()),
        Arc::new(Rubric::default()),
        committee_seed(&root, &[0u8; 32]),
        root,
        &mut |_| {},
    )
    .await
    .unwrap();
    let question = QuestionInfo {
        clock: None,
        text: b.question.clone(),
        id: None,
        chain_id: None,
        oracle: None,
        clarifications: Vec::new(),
    };
    Report::build(
        question,
        &b,
        &Rubric::default(),
        run,
        &RoutingPolicy::default(),
    )
    .unwrap()
}

/// What a forger recomputes after editing ballots: statistics, routing, call count.
fn reseal(r: &mut Report) {
    let records: Vec<BallotRecord> = r.ballots.iter().map(|b| b.record()).collect();
    r.stats = summarize(&records);
    let inputs = RoutingInputs::from_bundle(&r.question.text, &r.evidence);
    r.routing = route(&r.stats, &inputs, &r.routing.policy);
    r.committee.calls = r.ballots.len() as u64;
}

/// `veritas audit FILE` on `bytes`: (exit code, stdout + stderr).
fn audit(dir: &Path, name: &str, bytes: &[u8]) -> (i32, String) {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let (code, out, err) = veritas(&["audit", path.to_str().unwrap()], dir);
    (code, format!("{out}{err}"))
}

fn json_of(r: &Report) -> Value {
    serde_json::to_value(r).unwrap()
}

#[tokio::test]
async fn each_forgery_is_named_by_the_audit() {
    let dir = tempfile::tempdir().unwrap();
    let three = || vec![yes("replay/a"), yes("replay/b"), yes("replay/c")];
    let resolved = committee_report(three(), CommitteeConfig::default()).await;
    // One model agreeing with itself: escalated by the correlation guard.
    let escalated = committee_report(vec![yes("replay/a")], CommitteeConfig::default()).await;
    assert_eq!(resolved.routing.decision, Decision::Resolve);
    assert_eq!(escalated.routing.decision, Decision::Escalate);
    for (name, r) in [("resolved", &resolved), ("escalated", &escalated)] {
        let (code, out) = audit(dir.path(), name, &serde_json::to_vec(r).unwrap());
        assert_eq!(code, 0, "{name}: {out}");
        assert!(out.contains("OK: every recomputed value matches"), "{out}");
    }

    let mut deleted = resolved.clone();
    let gone = deleted.ballots.remove(4);
    reseal(&mut deleted);
    let mut duplicated = resolved.clone();
    duplicated.ballots.push(resolved.ballots[0].clone());
    reseal(&mut duplicated);
    let mut out_of_range = resolved.clone();
    out_of_range.ballots[4].slot = resolved.committee.ballots_per_iteration;
    let mut flipped_to_escalate = resolved.clone();
    flipped_to_escalate.routing.decision = Decision::Escalate;
    let mut flipped_to_resolve = escalated.clone();
    flipped_to_resolve.routing.decision = Decision::Resolve;
    let without = |r: &Report, key: &str| {
        let mut v = json_of(r);
        v["committee"].as_object_mut().unwrap().remove(key);
        v
    };
    let with = |r: &Report, key: &str, value: Value| {
        let mut v = json_of(r);
        v["committee"][key] = value;
        v
    };
    let cases: [(&str, Value, String); 10] = [
        (
            "ballot deleted",
            json_of(&deleted),
            format!(
                "MISMATCH report.ballots (iteration {}, slot {}): recomputed a ballot (a failed one included), found (missing)",
                gone.iteration, gone.slot
            ),
        ),
        (
            "ballot duplicated",
            json_of(&duplicated),
            format!(
                "MISMATCH report.ballots[{}]: recomputed each (iteration, slot) once, found iteration 1, slot 0 again (first at ballots[0])",
                resolved.ballots.len()
            ),
        ),
        (
            "slot out of range",
            json_of(&out_of_range),
            "MISMATCH report.ballots[4]: recomputed iteration in 1..=".into(),
        ),
        (
            "M removed",
            without(&resolved, "M"),
            "MISMATCH report.committee.M: recomputed a value, found (missing)".into(),
        ),
        (
            "M zero",
            with(&resolved, "M", json!(0)),
            "MISMATCH report.committee.M: recomputed an integer ≥ 1, found 0".into(),
        ),
        (
            "juror weights removed",
            without(&resolved, "juror_weights"),
            "MISMATCH report.committee.juror_weights: recomputed a value, found (missing)".into(),
        ),
        (
            "juror weights emptied",
            with(&resolved, "juror_weights", json!([])),
            "MISMATCH report.committee.juror_weights: recomputed a non-empty list".into(),
        ),
        (
            "archetype weights of another type",
            with(&resolved, "archetype_weights", json!("a, b")),
            "MISMATCH report.committee.archetype_weights: recomputed a sequence, found a, b".into(),
        ),
        (
            "claims escalate where the policy resolves",
            json_of(&flipped_to_escalate),
            "MISMATCH report.routing.decision: recomputed resolve, found escalate".into(),
        ),
        (
            "claims resolve where the policy escalates",
            json_of(&flipped_to_resolve),
            "MISMATCH report.routing.decision: recomputed escalate, found resolve".into(),
        ),
    ];
    for (what, report, expected) in cases {
        let (code, out) = audit(dir.path(), "forged.json", report.to_string().as_bytes());
        assert_eq!(code, 1, "{what}: {out}");
        assert!(out.contains(&expected), "{what}: no `{expected}` in\n{out}");
    }
}

#[tokio::test]
async fn a_panicking_juror_is_a_failed_ballot_and_the_report_audits() {
    let juror = PanicsAt {
        inner: ReplayJuror::new("replay/panics", Script::Fixed(Outcome::Yes), Duration::ZERO),
        at: (1, 1),
    };
    let config = CommitteeConfig {
        iterations: 2,
        early_stopping: false,
        ..CommitteeConfig::default()
    };
    let report = committee_report(vec![Arc::new(juror)], config).await;
    // The run completed: both iterations, every (iteration, slot) once, in order.
    let positions: Vec<(u32, u32)> = report
        .ballots
        .iter()
        .map(|b| (b.iteration, b.slot))
        .collect();
    assert_eq!(positions, [(1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2)]);
    let failed: Vec<_> = report.failures().collect();
    assert_eq!(failed.len(), 1, "{:?}", report.ballots);
    assert_eq!((failed[0].iteration, failed[0].slot), (1, 1));
    assert_eq!(failed[0].vote, None);
    assert_eq!(failed[0].model, "replay/panics");
    assert_eq!(
        failed[0].failure.as_deref(),
        Some("juror panicked: juror bug at iteration 1, slot 1")
    );
    assert_eq!((report.stats.valid, report.stats.failed), (5, 1));
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = audit(
        dir.path(),
        "panicked.json",
        &serde_json::to_vec(&report).unwrap(),
    );
    assert_eq!(code, 0, "{out}");
}

#[test]
fn an_oversized_or_misshapen_file_is_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    // Sparse: one byte over the limit on disk without writing it.
    let big = dir.path().join("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(MAX_REPORT_BYTES + 1)
        .unwrap();
    let (code, out, err) = veritas(&["audit", big.to_str().unwrap()], dir.path());
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains(&format!(
            "is larger than a report may be ({} bytes, limit {MAX_REPORT_BYTES}): refused",
            MAX_REPORT_BYTES + 1
        )),
        "{err}"
    );
    let deep = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
    let cases: [(&str, &[u8], &str); 9] = [
        (
            "array",
            b"[]",
            "is JSON but not a report: expected an object, found an array",
        ),
        ("null", b"null", "expected an object, found null"),
        ("truncated", b"{\"question\": {\"text\": ", "is not JSON"),
        (
            "invalid UTF-8",
            b"{\"question\": \"\xff\xfe\"}",
            "is not JSON",
        ),
        ("nested too deep", deep.as_bytes(), "is not JSON"),
        (
            "empty object",
            b"{}",
            "MISMATCH report.question: recomputed a value, found (missing)",
        ),
        (
            "evidence not a list",
            br#"{"question": {"text": "q"}, "evidence": "x"}"#,
            "MISMATCH report.evidence: recomputed a sequence, found x",
        ),
        (
            "ballots of the wrong shape",
            br#"{"question": {"text": "q"}, "evidence": [], "ballots": [{"iteration": "one"}]}"#,
            "MISMATCH report.ballots[0].iteration: recomputed u32, found one",
        ),
        (
            "question id an object",
            br#"{"question": {"text": "q", "id": {}}, "evidence": []}"#,
            "MISMATCH report.question.id",
        ),
    ];
    for (what, bytes, expected) in cases {
        let (code, out) = audit(dir.path(), "bad.json", bytes);
        assert_eq!(code, 1, "{what}: {out}");
        assert!(out.contains(expected), "{what}: no `{expected}` in\n{out}");
        assert!(!out.contains("panicked"), "{what}: {out}");
    }
}
