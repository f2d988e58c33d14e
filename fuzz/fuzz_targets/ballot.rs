//! A juror's answer is LLM output: any text, fenced or not, valid JSON or not. Every answer
//! must become either a ballot whose fields are in range and whose ids are in the bundle, or
//! a typed [`BallotError`] with a message, never a panic.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use veritas_core::ballot::{
    BallotContent, BallotError, BallotValidator, MAX_REASONING_CHARS, SchemaOptions,
};
use veritas_core::bundle::{Bundle, Criterion, EvidenceItem, Rubric, Source};

/// One question's validator: its bundle ids, its criteria, and whether all must be scored.
struct Case {
    ids: Vec<u32>,
    criteria: Vec<String>,
    require_rubric: bool,
    validator: BallotValidator,
}

fn case(ids: &[u32], criteria: &[&str], require_rubric: bool) -> Case {
    let item = |id: u32| EvidenceItem {
        id,
        url: format!("https://example.org/{id}"),
        title: format!("t{id}"),
        snippet: "s".into(),
        published_at: None,
        source: Source::Web,
        submitter: None,
    };
    let bundle = Bundle {
        question: "Did it rain in Paris on 2026-07-14?".into(),
        clarifications: Vec::new(),
        evidence: ids.iter().copied().map(item).collect(),
    };
    let rubric = Rubric {
        criteria: criteria
            .iter()
            .map(|c| Criterion {
                id: (*c).into(),
                description: format!("{c}?"),
            })
            .collect(),
    };
    let validator = BallotValidator::new(&bundle, &rubric, SchemaOptions { require_rubric })
        .unwrap_or_else(|e| panic!("the generated schema must compile: {e}"));
    Case {
        ids: ids.to_vec(),
        criteria: criteria.iter().map(|c| (*c).to_owned()).collect(),
        require_rubric,
        validator,
    }
}

/// Chat jurors (rubric required), the embedded juror (rubric optional), and a bundle without
/// evidence; ids are not contiguous so an off-by-one in the id check shows.
fn cases() -> &'static [Case; 3] {
    static CASES: OnceLock<[Case; 3]> = OnceLock::new();
    CASES.get_or_init(|| {
        let criteria = ["relevance", "source_quality"];
        [
            case(&[1, 2, 3, 7], &criteria, true),
            case(&[1, 2, 3, 7], &criteria, false),
            case(&[], &[], false),
        ]
    })
}

/// The properties of an accepted ballot, checked independently of the validator's code.
fn check_valid(case: &Case, b: &BallotContent) {
    assert!(
        b.confidence.is_finite() && (0.0..=1.0).contains(&b.confidence),
        "confidence {} out of range",
        b.confidence
    );
    for ids in [&b.supporting_evidence_ids, &b.refuting_evidence_ids] {
        for (i, id) in ids.iter().enumerate() {
            assert!(case.ids.contains(id), "id {id} is not in the bundle");
            assert!(!ids[..i].contains(id), "id {id} listed twice");
        }
    }
    for (key, score) in &b.rubric_scores {
        assert!(case.criteria.contains(key), "unknown criterion {key:?}");
        assert!(
            score.is_finite() && (0.0..=1.0).contains(score),
            "score {score} out of range"
        );
    }
    if case.require_rubric {
        for c in &case.criteria {
            assert!(
                b.rubric_scores.contains_key(c),
                "criterion {c:?} not scored"
            );
        }
    }
    assert!(b.reasoning.chars().count() <= MAX_REASONING_CHARS);
    // The code checks agree with the schema, and the ballot survives a trip through JSON
    // (reports store it so; the audit reads it back).
    if let Err(e) = case.validator.check(b) {
        panic!("accepted ballot fails the code checks: {e}");
    }
    let text = serde_json::to_string(b).unwrap_or_else(|e| panic!("cannot encode: {e}"));
    match case.validator.parse(&text) {
        Ok(again) => assert_eq!(&again, b, "JSON round trip changed the ballot"),
        Err(e) => panic!("re-encoded ballot {text} rejected: {e}"),
    }
}

fn check_error(e: &BallotError) {
    let message = e.to_string();
    let detail = match e {
        BallotError::NotJson(m) | BallotError::Schema(m) | BallotError::Invalid(m) => m,
    };
    assert!(!detail.trim().is_empty(), "error without a reason: {e:?}");
    assert!(message.len() > detail.len());
}

fuzz_target!(|data: &[u8]| {
    // Jurors' answers arrive as Rust strings (decoded by the HTTP client or llama.cpp).
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let [strict, lax, empty] = cases();
    let results: Vec<_> = [strict, lax, empty]
        .into_iter()
        .map(|case| {
            let result = case.validator.parse(text);
            match &result {
                Ok(b) => check_valid(case, b),
                Err(e) => check_error(e),
            }
            result
        })
        .collect();
    // A ballot that passes the chat juror's schema passes the embedded juror's laxer one,
    // unchanged; one accepted for an empty bundle cites nothing.
    if let Ok(b) = &results[0] {
        assert_eq!(
            results[1].as_ref().ok(),
            Some(b),
            "strict accepts, lax differs"
        );
    }
    if let Ok(b) = &results[2] {
        assert!(b.supporting_evidence_ids.is_empty() && b.refuting_evidence_ids.is_empty());
        assert!(b.rubric_scores.is_empty());
    }
    // Deterministic: the same text gives the same verdict.
    assert_eq!(strict.validator.parse(text), results[0]);
});
