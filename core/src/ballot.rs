//! Ballots: what a juror answers, the JSON Schema it must match, and the report row.
//!
//! The schema is built per question, so evidence ids must be ids of *this* bundle and rubric
//! scores must be keyed by *this* rubric's criteria. Every answer is checked twice: against the
//! schema (what a structured-output server was asked to honour) and in code (ranges, ids,
//! duplicates), because not every server enforces a schema. An answer that fails either check
//! becomes a *failed* ballot with the reason kept; it is never counted.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::bundle::{Bundle, Rubric};
use crate::stats::{BallotRecord, Outcome};

/// Longest accepted `reasoning`, in characters.
pub const MAX_REASONING_CHARS: usize = 4000;

/// Longest `reasoning` the schema asks for: short enough that a grammar-bound answer closes
/// within the jurors' default 600-token budget, where the accepted [`MAX_REASONING_CHARS`]
/// would not (an answer cut at `max_tokens` is not JSON). Measured against llama-server with
/// gemma-3-270m: answers cut at 600 tokens held 560–960 characters of reasoning (the model
/// spends tokens on whitespace and odd words), so 500 leaves room.
pub const SCHEMA_REASONING_CHARS: usize = 500;

/// Steps of the [0, 1] numbers (`confidence`, rubric scores) in the schema sent: 0, 0.05, …, 1.
/// Grammar-constrained servers compile JSON Schema's `minimum`/`maximum` for integers only
/// (llama.cpp's `json-schema-to-grammar`), so a `number` in [0, 1] decoded as 100 or as the
/// criterion's position (1, 2, 3…): 10 of 300 ballots of gemma-3-270m over 50 dev claims, and
/// all six ballots of one CI run. Listed values are compiled as alternatives, so the decoder
/// cannot leave the range; answers are still accepted anywhere in [0, 1].
pub const SCHEMA_UNIT_STEPS: u32 = 20;

/// A valid ballot's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BallotContent {
    /// The juror's vote.
    pub vote: Outcome,
    /// How sure the juror is, 0–1.
    pub confidence: f64,
    /// Evidence ids that support the claim.
    pub supporting_evidence_ids: Vec<u32>,
    /// Evidence ids that refute the claim.
    pub refuting_evidence_ids: Vec<u32>,
    /// One score 0–1 per rubric criterion id.
    pub rubric_scores: BTreeMap<String, f64>,
    /// A short justification.
    pub reasoning: String,
}

/// Why a juror's answer is not a valid ballot.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BallotError {
    /// The answer is not JSON.
    #[error("answer is not JSON: {0}")]
    NotJson(String),
    /// The answer does not match the question's ballot schema.
    #[error("answer violates the ballot schema: {0}")]
    Schema(String),
    /// A value is out of range or refers to something that does not exist.
    #[error("invalid ballot: {0}")]
    Invalid(String),
}

/// Options for [`ballot_schema`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemaOptions {
    /// Whether every rubric criterion must be scored (chat jurors: yes; the embedded juror,
    /// which only emits a vote, leaves rubric scores empty).
    pub require_rubric: bool,
}

/// The JSON Schema of a ballot for this bundle and rubric, as sent to the model.
pub fn ballot_schema(bundle: &Bundle, rubric: &Rubric, options: SchemaOptions) -> Value {
    schema_of(bundle, rubric, options, SchemaForm::Sent)
}

/// Which of the two ballot schemas: what the model is asked for is stricter than what is
/// accepted, so a grammar-bound answer stays short and in range, and a long justification or
/// a confidence of 0.87 is no reason to throw a vote away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SchemaForm {
    /// Reasoning up to [`SCHEMA_REASONING_CHARS`], [0, 1] numbers in [`SCHEMA_UNIT_STEPS`] steps.
    Sent,
    /// Reasoning up to [`MAX_REASONING_CHARS`], [0, 1] numbers of any precision.
    Accepted,
}

/// A number in [0, 1] in the given form of the schema.
fn unit_number(form: SchemaForm) -> Value {
    match form {
        SchemaForm::Sent => {
            let steps: Vec<f64> = (0..=SCHEMA_UNIT_STEPS)
                .map(|k| f64::from(k) / f64::from(SCHEMA_UNIT_STEPS))
                .collect();
            json!({ "type": "number", "minimum": 0, "maximum": 1, "enum": steps })
        }
        SchemaForm::Accepted => json!({ "type": "number", "minimum": 0, "maximum": 1 }),
    }
}

fn schema_of(bundle: &Bundle, rubric: &Rubric, options: SchemaOptions, form: SchemaForm) -> Value {
    let max_reasoning = match form {
        SchemaForm::Sent => SCHEMA_REASONING_CHARS,
        SchemaForm::Accepted => MAX_REASONING_CHARS,
    };
    let ids: Vec<u32> = bundle.evidence.iter().map(|e| e.id).collect();
    // Bounded everywhere, so a grammar-constrained decoder cannot run away: unique ids of
    // this bundle (so at most its size), scores in [0, 1], a bounded justification.
    // An empty bundle gets an empty list, not an empty `enum`: llama.cpp's server refuses a
    // schema with `enum: []` (HTTP 400), which failed every ballot of such a question.
    let id_list = if ids.is_empty() {
        json!({ "type": "array", "maxItems": 0 })
    } else {
        json!({
            "type": "array",
            "items": { "type": "integer", "enum": ids },
            "uniqueItems": true,
            "maxItems": ids.len()
        })
    };
    let mut criteria = serde_json::Map::new();
    for c in &rubric.criteria {
        let mut score = unit_number(form);
        score["description"] = json!(c.description);
        criteria.insert(c.id.clone(), score);
    }
    let required_criteria: Vec<&str> = if options.require_rubric {
        rubric.criteria.iter().map(|c| c.id.as_str()).collect()
    } else {
        Vec::new()
    };
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": [
            "vote", "confidence", "supporting_evidence_ids", "refuting_evidence_ids",
            "rubric_scores", "reasoning"
        ],
        "properties": {
            "vote": { "type": "string", "enum": ["YES", "NO", "NULL"] },
            "confidence": unit_number(form),
            "supporting_evidence_ids": id_list.clone(),
            "refuting_evidence_ids": id_list,
            "rubric_scores": {
                "type": "object",
                "additionalProperties": false,
                "properties": criteria,
                "required": required_criteria
            },
            "reasoning": { "type": "string", "maxLength": max_reasoning }
        }
    })
}

/// Validates answers for one question (the compiled schema is reused for every ballot).
pub struct BallotValidator {
    schema: jsonschema::Validator,
    evidence_ids: Vec<u32>,
    criteria: Vec<String>,
    require_rubric: bool,
}

impl std::fmt::Debug for BallotValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BallotValidator")
            .field("evidence_ids", &self.evidence_ids)
            .field("criteria", &self.criteria)
            .finish_non_exhaustive()
    }
}

impl BallotValidator {
    /// Compile the schema of this bundle and rubric.
    ///
    /// # Errors
    /// [`BallotError::Schema`] if the generated schema does not compile (a bug, not input).
    pub fn new(
        bundle: &Bundle,
        rubric: &Rubric,
        options: SchemaOptions,
    ) -> Result<Self, BallotError> {
        let schema = schema_of(bundle, rubric, options, SchemaForm::Accepted);
        let schema = jsonschema::validator_for(&schema)
            .map_err(|e| BallotError::Schema(format!("schema does not compile: {e}")))?;
        Ok(Self {
            schema,
            evidence_ids: bundle.evidence.iter().map(|e| e.id).collect(),
            criteria: rubric.criteria.iter().map(|c| c.id.clone()).collect(),
            require_rubric: options.require_rubric,
        })
    }

    /// Parse and validate a model's text answer (a JSON object, optionally in a code fence).
    ///
    /// # Errors
    /// Not JSON, not matching the schema, or failing the checks of [`Self::check`].
    pub fn parse(&self, text: &str) -> Result<BallotContent, BallotError> {
        let mut value: Value = serde_json::from_str(strip_fence(text))
            .map_err(|e| BallotError::NotJson(format!("{e} in {:?}", excerpt(text))))?;
        drop_repeated_citations(&mut value);
        self.validate_value(&value)
    }

    /// Validate a JSON value against the schema, then in code.
    ///
    /// # Errors
    /// As [`Self::parse`].
    pub fn validate_value(&self, value: &Value) -> Result<BallotContent, BallotError> {
        let errors: Vec<String> = self
            .schema
            .iter_errors(value)
            .take(3)
            .map(|e| {
                let path = e.instance_path().to_string();
                if path.is_empty() {
                    e.to_string()
                } else {
                    format!("{path}: {e}")
                }
            })
            .collect();
        if !errors.is_empty() {
            return Err(BallotError::Schema(errors.join("; ")));
        }
        let content: BallotContent = serde_json::from_value(value.clone())
            .map_err(|e| BallotError::Schema(e.to_string()))?;
        self.check(&content)?;
        Ok(content)
    }

    /// The checks done in code whatever the server promised: ranges, known ids, no duplicates.
    ///
    /// # Errors
    /// [`BallotError::Invalid`] naming the first problem.
    pub fn check(&self, b: &BallotContent) -> Result<(), BallotError> {
        let invalid = |m: String| Err(BallotError::Invalid(m));
        if !(b.confidence.is_finite() && (0.0..=1.0).contains(&b.confidence)) {
            return invalid(format!("confidence {} is outside 0–1", b.confidence));
        }
        for (field, ids) in [
            ("supporting_evidence_ids", &b.supporting_evidence_ids),
            ("refuting_evidence_ids", &b.refuting_evidence_ids),
        ] {
            for (i, id) in ids.iter().enumerate() {
                if !self.evidence_ids.contains(id) {
                    return invalid(format!("{field} cites evidence id {id}, not in the bundle"));
                }
                if ids[..i].contains(id) {
                    return invalid(format!("{field} lists evidence id {id} twice"));
                }
            }
        }
        for (key, score) in &b.rubric_scores {
            if !self.criteria.contains(key) {
                return invalid(format!("rubric score for unknown criterion {key:?}"));
            }
            if !(score.is_finite() && (0.0..=1.0).contains(score)) {
                return invalid(format!("rubric score {key} = {score} is outside 0–1"));
            }
        }
        if self.require_rubric
            && let Some(missing) = self
                .criteria
                .iter()
                .find(|c| !b.rubric_scores.contains_key(*c))
        {
            return invalid(format!("rubric criterion {missing:?} not scored"));
        }
        if b.reasoning.chars().count() > MAX_REASONING_CHARS {
            return invalid(format!(
                "reasoning longer than {MAX_REASONING_CHARS} characters"
            ));
        }
        Ok(())
    }
}

/// Keep the first of repeated ids in the two citation lists. llama.cpp's grammar enforces
/// `maxItems` but not `uniqueItems`, so a small model under `json_schema` may cite `1, 2, 1`;
/// citing an item twice says no more than citing it once, and the vote (decoded before the
/// lists) is unaffected, so the repeat is dropped instead of failing the whole ballot.
fn drop_repeated_citations(value: &mut Value) {
    for field in ["supporting_evidence_ids", "refuting_evidence_ids"] {
        if let Some(Value::Array(ids)) = value.get_mut(field) {
            let mut seen: Vec<Value> = Vec::with_capacity(ids.len());
            ids.retain(|id| {
                let first = !seen.contains(id);
                if first {
                    seen.push(id.clone());
                }
                first
            });
        }
    }
}

fn strip_fence(text: &str) -> &str {
    let t = text.trim();
    let Some(rest) = t.strip_prefix("```") else {
        return t;
    };
    let rest = rest.strip_prefix("json").unwrap_or(rest);
    rest.strip_suffix("```").unwrap_or(rest).trim()
}

/// At most 120 characters of `text`, for error messages.
pub(crate) fn excerpt(text: &str) -> String {
    let mut out: String = text.chars().take(120).collect();
    if text.chars().count() > 120 {
        out.push('…');
    }
    out
}

/// One ballot as the report lists it: who voted, what, and what it cost; failed ballots keep
/// their reason and have `vote: null`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BallotRow {
    /// Committee iteration, from 1.
    pub iteration: u32,
    /// Position within the iteration, from 0.
    pub slot: u32,
    /// The juror's model label.
    pub model: String,
    /// The archetype's name.
    pub archetype: String,
    /// The vote; null when the ballot failed.
    #[serde(deserialize_with = "present")]
    pub vote: Option<Outcome>,
    /// Confidence 0–1 (null when failed).
    pub confidence: Option<f64>,
    /// Evidence ids cited in support.
    #[serde(default)]
    pub supporting_evidence_ids: Vec<u32>,
    /// Evidence ids cited against.
    #[serde(default)]
    pub refuting_evidence_ids: Vec<u32>,
    /// Rubric scores by criterion id.
    #[serde(default)]
    pub rubric_scores: BTreeMap<String, f64>,
    /// The juror's justification (null when failed).
    pub reasoning: Option<String>,
    /// Wall time of the juror call, in milliseconds.
    pub latency_ms: u64,
    /// Prompt tokens of this ballot's request (cached ones included).
    pub prompt_tokens: u64,
    /// Of those, the tokens the model server served from its prompt cache (absent in reports
    /// written before it was counted).
    #[serde(default)]
    pub cached_prompt_tokens: u64,
    /// Completion tokens generated for this ballot.
    pub completion_tokens: u64,
    /// Cost in US dollars from the configured prices (0 for local and replay jurors).
    pub cost_usd: f64,
    /// Embedded juror only: the YES / NO / NULL distribution the vote was sampled from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probabilities: Option<[f64; 3]>,
    /// Why the ballot failed; null for a valid ballot.
    pub failure: Option<String>,
}

/// A key that must be written even when its type is an `Option` (serde reads a missing
/// `Option` as `None`): a ballot's `vote` is `null` when it failed, never absent.
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    T::deserialize(d)
}

/// What one model call consumed, valid ballot or not: the operator pays for both.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    /// Prompt tokens of the request (cached ones included).
    pub prompt_tokens: u64,
    /// Of those, the tokens the server served from its prompt cache.
    pub cached_prompt_tokens: u64,
    /// Completion tokens generated.
    pub completion_tokens: u64,
    /// Cost in US dollars.
    pub cost_usd: f64,
}

impl BallotRow {
    /// Record what the ballot's model call consumed.
    pub fn set_usage(&mut self, usage: Usage) {
        self.prompt_tokens = usage.prompt_tokens;
        self.cached_prompt_tokens = usage.cached_prompt_tokens;
        self.completion_tokens = usage.completion_tokens;
        self.cost_usd = usage.cost_usd;
    }

    /// The fields the statistics read (`veritas stats` input).
    pub fn record(&self) -> BallotRecord {
        BallotRecord {
            iteration: self.iteration,
            model: self.model.clone(),
            archetype: self.archetype.clone(),
            vote: self.vote,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::{Criterion, EvidenceItem, Source};

    fn bundle() -> Bundle {
        let item = |id: u32| EvidenceItem {
            id,
            url: format!("https://example.org/{id}"),
            title: format!("t{id}"),
            snippet: "s".into(),
            published_at: None,
            source: Source::Local,
            submitter: None,
        };
        Bundle {
            question: "q?".into(),
            clarifications: Vec::new(),
            evidence: vec![item(1), item(2), item(3)],
        }
    }

    fn rubric() -> Rubric {
        Rubric {
            criteria: vec![Criterion {
                id: "relevance".into(),
                description: "does the evidence address the claim".into(),
            }],
        }
    }

    fn validator() -> BallotValidator {
        BallotValidator::new(
            &bundle(),
            &rubric(),
            SchemaOptions {
                require_rubric: true,
            },
        )
        .unwrap()
    }

    const GOOD: &str = r#"{"vote":"YES","confidence":0.8,"supporting_evidence_ids":[1,3],
        "refuting_evidence_ids":[],"rubric_scores":{"relevance":0.9},"reasoning":"items 1 and 3"}"#;

    #[test]
    fn a_good_ballot_parses() {
        let b = validator().parse(GOOD).unwrap();
        assert_eq!(b.vote, Outcome::Yes);
        assert_eq!(b.supporting_evidence_ids, [1, 3]);
        let fenced = format!("```json\n{GOOD}\n```");
        assert_eq!(validator().parse(&fenced).unwrap(), b);
    }

    #[test]
    fn unknown_ids_and_ranges_fail_with_reasons() {
        let v = validator();
        let cases = [
            (GOOD.replace("[1,3]", "[1,7]"), "supporting_evidence_ids"),
            (GOOD.replace("0.8", "1.5"), "confidence"),
            (
                GOOD.replace("\"relevance\":0.9", "\"relevance\":-0.1"),
                "relevance",
            ),
            (GOOD.replace("\"relevance\"", "\"novelty\""), "novelty"),
            (GOOD.replace("\"YES\"", "\"MAYBE\""), "vote"),
            (
                GOOD.replace(",\"reasoning\":\"items 1 and 3\"", ""),
                "reasoning",
            ),
        ];
        for (text, needle) in cases {
            let err = v.parse(&text).unwrap_err();
            assert!(matches!(err, BallotError::Schema(_)), "{err}");
            assert!(
                err.to_string().contains(needle),
                "{err} should mention {needle}"
            );
        }
        assert!(matches!(v.parse("not json"), Err(BallotError::NotJson(_))));
    }

    #[test]
    fn repeated_citations_keep_their_first_occurrence() {
        let v = validator();
        let text = GOOD.replace("[1,3]", "[3,1,3,1,3]").replace(
            "\"refuting_evidence_ids\":[]",
            "\"refuting_evidence_ids\":[2,2]",
        );
        let b = v.parse(&text).unwrap();
        assert_eq!(b.supporting_evidence_ids, [3, 1]);
        assert_eq!(b.refuting_evidence_ids, [2]);
        // Built in code (not parsed), a repeat is still refused.
        let mut b = v.parse(GOOD).unwrap();
        b.supporting_evidence_ids = vec![1, 1];
        assert!(v.check(&b).unwrap_err().to_string().contains("twice"));
    }

    #[test]
    fn the_schema_asks_for_less_reasoning_than_is_accepted() {
        let s = ballot_schema(
            &bundle(),
            &rubric(),
            SchemaOptions {
                require_rubric: true,
            },
        );
        assert_eq!(
            s.pointer("/properties/reasoning/maxLength"),
            Some(&json!(SCHEMA_REASONING_CHARS))
        );
        let v = validator();
        let long = "x".repeat(SCHEMA_REASONING_CHARS * 2);
        let b = v.parse(&GOOD.replace("items 1 and 3", &long)).unwrap();
        assert_eq!(b.reasoning.len(), SCHEMA_REASONING_CHARS * 2);
        let too_long = "x".repeat(MAX_REASONING_CHARS + 1);
        assert!(v.parse(&GOOD.replace("items 1 and 3", &too_long)).is_err());
    }

    #[test]
    fn the_schema_lists_the_unit_steps_and_any_value_in_range_is_accepted() {
        let s = ballot_schema(
            &bundle(),
            &rubric(),
            SchemaOptions {
                require_rubric: true,
            },
        );
        let steps = s["properties"]["confidence"]["enum"].as_array().unwrap();
        assert_eq!(steps.len(), 21);
        assert_eq!(steps[3], json!(0.15), "exact decimals: {steps:?}");
        assert_eq!(steps[20], json!(1.0));
        assert_eq!(
            s["properties"]["rubric_scores"]["properties"]["relevance"]["enum"],
            s["properties"]["confidence"]["enum"]
        );
        assert!(s.to_string().contains("\"description\""), "{s}");
        // Every listed value is accepted, and so are values between them; out of range is not.
        let v = validator();
        for step in steps.iter().chain([&json!(0.87)]) {
            let text = GOOD.replace("\"relevance\":0.9", &format!("\"relevance\":{step}"));
            assert!(v.parse(&text).is_ok(), "{text}");
        }
        assert!(
            v.parse(&GOOD.replace("\"relevance\":0.9", "\"relevance\":2"))
                .is_err()
        );
    }

    #[test]
    fn an_empty_bundle_gets_empty_lists_not_an_empty_enum() {
        let empty = Bundle {
            question: "q?".into(),
            clarifications: Vec::new(),
            evidence: vec![],
        };
        let options = SchemaOptions {
            require_rubric: true,
        };
        let s = ballot_schema(&empty, &rubric(), options);
        assert!(!s.to_string().contains("\"enum\":[]"), "{s}");
        let v = BallotValidator::new(&empty, &rubric(), options).unwrap();
        let none = GOOD.replace("[1,3]", "[]");
        assert_eq!(
            v.parse(&none).unwrap().supporting_evidence_ids,
            [] as [u32; 0]
        );
        assert!(v.parse(GOOD).is_err(), "an id cited from an empty bundle");
    }

    #[test]
    fn code_checks_catch_what_a_lax_schema_lets_through() {
        let v = validator();
        let mut b = v.parse(GOOD).unwrap();
        b.refuting_evidence_ids = vec![9];
        assert!(v.check(&b).unwrap_err().to_string().contains("id 9"));
        let mut b = v.parse(GOOD).unwrap();
        b.confidence = f64::NAN;
        assert!(v.check(&b).is_err());
        let mut b = v.parse(GOOD).unwrap();
        b.rubric_scores.clear();
        assert!(v.check(&b).unwrap_err().to_string().contains("relevance"));
    }

    #[test]
    fn schema_lists_the_bundle_ids() {
        let s = ballot_schema(
            &bundle(),
            &rubric(),
            SchemaOptions {
                require_rubric: false,
            },
        );
        assert_eq!(
            s["properties"]["supporting_evidence_ids"]["items"]["enum"],
            json!([1, 2, 3])
        );
        assert_eq!(s["properties"]["rubric_scores"]["required"], json!([]));
    }

    #[test]
    fn rows_feed_the_statistics() {
        let row: BallotRow = serde_json::from_value(json!({
            "iteration": 2, "slot": 0, "model": "m", "archetype": "Skeptic", "vote": null,
            "confidence": null, "reasoning": null, "latency_ms": 5, "prompt_tokens": 0,
            "completion_tokens": 0, "cost_usd": 0.0, "failure": "timed out"
        }))
        .unwrap();
        assert_eq!(row.record().vote, None);
        let text = serde_json::to_string(&row).unwrap();
        let rec: BallotRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(rec, row.record());
    }
}
