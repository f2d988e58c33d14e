//! The search planner: one LLM call that turns a question into 3–5 search queries and the
//! rubric jurors score.
//!
//! The planner is a convenience, never a single point of failure: without a model, or when the
//! model errs or answers outside the contract (bad JSON, wrong counts, empty or oversized
//! queries), [`plan`] falls back to the question itself plus its key terms and a default
//! rubric, and records why in [`Plan::fallback_reason`] so the report shows it. A model plan
//! always searches the question text too, first: a weak model's queries ("Yes", "No") can
//! find nothing, and the search must not end up worse than with no planner at all.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::bundle::{Criterion, Rubric};
use crate::evidence::normalize::{collapse_whitespace, format_published, truncate_chars};
use crate::llm::{ChatModel, ChatRequest, JsonSchema, LlmError};
use crate::question::{QuestionKind, terms::key_terms};
pub use veritas_core::config::evidence::PlannerConfig;

/// What to search for and how jurors should judge what is found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// The search queries, in the order collectors run them.
    pub queries: Vec<String>,
    /// The criteria jurors score.
    pub rubric: Rubric,
    /// The planning model's label, when a model plan was used.
    pub model: Option<String>,
    /// Why the fallback plan was used instead of a model plan; `None` for a model plan.
    pub fallback_reason: Option<String>,
    /// Wall time of the planning call, in milliseconds (0 without a call).
    pub latency_ms: u64,
    /// The model's classification of the question (yes/no, multi-outcome, open); routing
    /// escalates anything but yes/no. `None` for the fallback plan, which leaves the call to
    /// the deterministic check in [`crate::question::kind`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question_kind: Option<QuestionKind>,
}

/// Why a model plan was rejected (the text lands in [`Plan::fallback_reason`]).
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The model call failed.
    #[error("planner model failed: {0}")]
    Llm(#[from] LlmError),
    /// The answer was not the requested JSON.
    #[error("planner answer is not valid JSON for the schema: {0}")]
    Json(String),
    /// Too few or too many distinct non-empty queries.
    #[error("planner returned {count} distinct queries, expected {min}..={max}")]
    QueryCount {
        /// Distinct non-empty queries returned.
        count: usize,
        /// Fewest allowed.
        min: usize,
        /// Most allowed.
        max: usize,
    },
    /// A query is longer than allowed.
    #[error("planner query of {chars} characters exceeds {max}")]
    QueryTooLong {
        /// Its length in characters.
        chars: usize,
        /// The limit.
        max: usize,
    },
    /// The rubric is empty, too long, or has empty or duplicate criteria.
    #[error("planner rubric rejected: {0}")]
    Rubric(String),
}

/// The shape the model must answer in.
#[derive(Debug, Deserialize)]
struct RawPlan {
    queries: Vec<String>,
    rubric: Vec<RawCriterion>,
    #[serde(default)]
    question_type: Option<QuestionKind>,
}

#[derive(Debug, Deserialize)]
struct RawCriterion {
    id: String,
    description: String,
}

const SYSTEM_PROMPT: &str = "You plan evidence searches for an oracle that resolves questions \
about real-world events as YES, NO or NULL (not enough evidence). Write short, specific search \
queries that would find reports settling the question, including queries that could find \
evidence against the obvious answer. Then write a rubric: the few criteria a careful juror \
should score when reading the evidence. Finally classify the question: question_type is yes_no \
when it can be answered YES or NO, multi_outcome when it asks which of several named outcomes \
happens (a winner, a candidate), open when it asks for a value, a name, a time or an \
explanation. Answer only with JSON matching the schema.";

/// The JSON Schema of a plan (OpenAI structured-output dialect: every object closed, every
/// property required).
pub fn plan_schema(config: &PlannerConfig) -> JsonSchema {
    JsonSchema {
        name: "search_plan".to_owned(),
        schema: json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["queries", "rubric", "question_type"],
            "properties": {
                "question_type": {"type": "string", "enum": ["yes_no", "multi_outcome", "open"]},
                "queries": {
                    "type": "array",
                    "minItems": config.min_queries,
                    "maxItems": config.max_queries,
                    "uniqueItems": true,
                    "items": {"type": "string", "minLength": 1, "maxLength": config.max_query_chars}
                },
                "rubric": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": config.max_criteria,
                    "items": {
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["id", "description"],
                        "properties": {
                            "id": {"type": "string", "minLength": 1, "maxLength": 40,
                                   "description": "short snake_case key"},
                            "description": {"type": "string", "minLength": 1,
                                            "maxLength": config.max_criterion_chars}
                        }
                    }
                }
            }
        }),
    }
}

/// Plan the search for `question`: a model plan when `model` is given and answers within the
/// contract, the fallback plan otherwise. Never fails; the reason for a fallback is recorded.
pub async fn plan(
    question: &str,
    resolve_after: Option<DateTime<Utc>>,
    config: &PlannerConfig,
    model: Option<&dyn ChatModel>,
) -> Plan {
    let Some(model) = model.filter(|_| config.enabled) else {
        let reason = if config.enabled {
            "no planner model configured"
        } else {
            "planner disabled in configuration"
        };
        return fallback_plan(question, reason);
    };
    let request = ChatRequest {
        system: SYSTEM_PROMPT.to_owned(),
        user: user_prompt(question, resolve_after, config),
        json_schema: Some(plan_schema(config)),
        temperature: config.temperature,
        max_tokens: config.max_tokens,
        seed: Some(0),
        // One plan per question: no prefix to share.
        cache_key: None,
    };
    let started = std::time::Instant::now();
    let outcome = match model.chat(&request).await {
        Ok(response) => validate(&response.content, config),
        Err(err) => Err(PlanError::Llm(err)),
    };
    let latency_ms = duration_ms(started.elapsed());
    match outcome {
        Ok((queries, rubric, question_kind)) => {
            let queries = question_first(question, queries);
            tracing::info!(target: "veritas::evidence::planner", model = model.label(), queries = queries.len(), criteria = rubric.criteria.len(), latency_ms, "search planned");
            Plan {
                queries,
                rubric,
                model: Some(model.label().to_owned()),
                fallback_reason: None,
                latency_ms,
                question_kind,
            }
        }
        Err(err) => {
            tracing::warn!(target: "veritas::evidence::planner", model = model.label(), error = %err, "planner failed, using the fallback plan");
            let mut plan = fallback_plan(question, &err.to_string());
            plan.latency_ms = latency_ms;
            plan
        }
    }
}

/// The question text as the first query, then `others` (the model's queries, or the fallback's
/// key terms); one equal to the question, ignoring case, is kept once, and empty ones go.
fn question_first(question: &str, others: Vec<String>) -> Vec<String> {
    let question = collapse_whitespace(question);
    let others = others
        .into_iter()
        .filter(|q| !q.eq_ignore_ascii_case(&question));
    std::iter::once(question.clone())
        .chain(others)
        .filter(|q| !q.is_empty())
        .collect()
}

fn duration_ms(elapsed: Duration) -> u64 {
    u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
}

fn user_prompt(
    question: &str,
    resolve_after: Option<DateTime<Utc>>,
    config: &PlannerConfig,
) -> String {
    let when = match resolve_after {
        Some(at) => format!(
            "The question is resolved as of {}: only evidence published before then counts.\n",
            format_published(at)
        ),
        None => String::new(),
    };
    format!(
        "Question: {question}\n{when}Write {min} to {max} search queries (at most {chars} \
         characters each) and 2 to {crit} rubric criteria.",
        min = config.min_queries,
        max = config.max_queries,
        chars = config.max_query_chars,
        crit = config.max_criteria,
    )
}

/// Check a model's answer against the plan contract and normalise it: queries trimmed and
/// deduplicated (case-insensitively), criterion ids made snake_case.
///
/// # Errors
/// [`PlanError`] naming the first broken rule.
pub fn validate(
    answer: &str,
    config: &PlannerConfig,
) -> Result<(Vec<String>, Rubric, Option<QuestionKind>), PlanError> {
    let raw: RawPlan = serde_json::from_str(strip_code_fence(answer))
        .map_err(|err| PlanError::Json(err.to_string()))?;

    let queries = checked_queries(raw.queries, config)?;
    let rubric = checked_rubric(raw.rubric, config)?;
    Ok((queries, rubric, raw.question_type))
}

/// The plan's queries, whitespace collapsed and repeats (ignoring case) dropped; too long a
/// query or too few or many are errors.
fn checked_queries(raw: Vec<String>, config: &PlannerConfig) -> Result<Vec<String>, PlanError> {
    let mut queries: Vec<String> = Vec::new();
    for query in raw {
        let query = collapse_whitespace(&query);
        if query.is_empty()
            || queries
                .iter()
                .any(|q| q.to_lowercase() == query.to_lowercase())
        {
            continue;
        }
        let chars = query.chars().count();
        if chars > config.max_query_chars {
            return Err(PlanError::QueryTooLong {
                chars,
                max: config.max_query_chars,
            });
        }
        queries.push(query);
    }
    if !(config.min_queries..=config.max_queries).contains(&queries.len()) {
        return Err(PlanError::QueryCount {
            count: queries.len(),
            min: config.min_queries,
            max: config.max_queries,
        });
    }
    Ok(queries)
}

/// The plan's rubric: 1..=max criteria with snake_case ids, unique, and non-empty
/// descriptions within the length limit.
fn checked_rubric(raw: Vec<RawCriterion>, config: &PlannerConfig) -> Result<Rubric, PlanError> {
    if raw.is_empty() || raw.len() > config.max_criteria {
        return Err(PlanError::Rubric(format!(
            "{} criteria, expected 1..={}",
            raw.len(),
            config.max_criteria
        )));
    }
    let mut criteria: Vec<Criterion> = Vec::new();
    for criterion in raw {
        let id = snake_case(&criterion.id);
        let description = criterion.description.trim().to_owned();
        if id.is_empty() || description.is_empty() {
            return Err(PlanError::Rubric(
                "a criterion has an empty id or description".to_owned(),
            ));
        }
        if description.chars().count() > config.max_criterion_chars {
            return Err(PlanError::Rubric(format!(
                "criterion {id} is longer than {} characters",
                config.max_criterion_chars
            )));
        }
        if criteria.iter().any(|c| c.id == id) {
            return Err(PlanError::Rubric(format!("duplicate criterion id {id}")));
        }
        criteria.push(Criterion { id, description });
    }
    Ok(Rubric { criteria })
}

/// Small models often wrap JSON in a Markdown fence even when asked not to.
fn strip_code_fence(text: &str) -> &str {
    let text = text.trim();
    let Some(inner) = text.strip_prefix("```") else {
        return text;
    };
    let inner = inner.strip_prefix("json").unwrap_or(inner);
    inner.strip_suffix("```").unwrap_or(inner).trim()
}

/// Lowercase ASCII snake_case, at most 40 characters: ballots key their scores by these ids.
fn snake_case(raw: &str) -> String {
    let mut out = String::new();
    for c in raw.trim().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    truncate_chars(out.trim_end_matches('_'), 40)
}

/// The plan used without a (working) planner model: the question itself, then its key terms
/// as one query, and [`default_rubric`].
pub fn fallback_plan(question: &str, reason: &str) -> Plan {
    Plan {
        queries: question_first(question, vec![key_terms(question).join(" ")]),
        rubric: default_rubric(),
        model: None,
        fallback_reason: Some(truncate_chars(reason, 500)),
        latency_ms: 0,
        question_kind: None,
    }
}

/// The rubric used when no model plans: what any juror should weigh for any question.
pub fn default_rubric() -> Rubric {
    let criteria = [
        (
            "direct_evidence",
            "Does an item state the outcome the question asks about directly, rather than hint at it?",
        ),
        (
            "source_reliability",
            "Are the items that settle the question from credible, identifiable sources?",
        ),
        (
            "temporal_fit",
            "Do the items describe the right period and were they published before the resolution time?",
        ),
        (
            "consistency",
            "Do the items agree with each other; if not, which account is better supported?",
        ),
        (
            "sufficiency",
            "Is there enough evidence to answer YES or NO, or should the answer be NULL?",
        ),
    ];
    Rubric {
        criteria: criteria
            .iter()
            .map(|(id, description)| Criterion {
                id: (*id).to_owned(),
                description: (*description).to_owned(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use async_trait::async_trait;

    use super::*;
    use crate::llm::ChatResponse;

    /// A scripted `ChatModel` for the planner's unit tests: it returns the canned answer (or
    /// error) and remembers the request, so the tests check what the planner sends and how it
    /// reads answers. The real HTTP client is tested in `llm`.
    struct Scripted {
        answer: Mutex<Option<Result<String, LlmError>>>,
        seen: Mutex<Option<ChatRequest>>,
    }

    impl Scripted {
        fn answering(answer: Result<&str, LlmError>) -> Self {
            Self {
                answer: Mutex::new(Some(answer.map(str::to_owned))),
                seen: Mutex::new(None),
            }
        }
    }

    #[async_trait]
    impl ChatModel for Scripted {
        fn label(&self) -> &str {
            "scripted/planner"
        }

        async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
            if let Ok(mut seen) = self.seen.lock() {
                *seen = Some(request.clone());
            }
            let answer = self
                .answer
                .lock()
                .ok()
                .and_then(|mut a| a.take())
                .unwrap_or_else(|| Err(LlmError::Unavailable("called twice".to_owned())));
            answer.map(|content| ChatResponse {
                content,
                model: "scripted".to_owned(),
                prompt_tokens: 10,
                cached_prompt_tokens: 0,
                completion_tokens: 10,
                cost_usd: 0.0,
                latency: Duration::from_millis(1),
            })
        }
    }

    const QUESTION: &str =
        "Did the Millbrook City Council approve the Harbor Street bike lane before 1 April 2026?";

    const GOOD: &str = r#"{"queries": ["Millbrook council Harbor Street bike lane vote",
        "Harbor Street bike lane approved", "  Millbrook   bike lane March 2026 ",
        "harbor street bike lane approved"],
        "rubric": [{"id": "Direct Vote Record", "description": "Is the council vote reported?"},
                   {"id": "timing", "description": "Was it before 1 April 2026?"}]}"#;

    #[tokio::test]
    async fn a_valid_model_plan_is_used_and_normalised() {
        let model = Scripted::answering(Ok(GOOD));
        let plan = plan(QUESTION, None, &PlannerConfig::default(), Some(&model)).await;
        assert_eq!(plan.fallback_reason, None);
        assert_eq!(plan.model.as_deref(), Some("scripted/planner"));
        assert_eq!(
            plan.queries,
            [
                QUESTION,
                "Millbrook council Harbor Street bike lane vote",
                "Harbor Street bike lane approved",
                "Millbrook bike lane March 2026"
            ]
        );
        assert_eq!(plan.rubric.criteria[0].id, "direct_vote_record");
        let seen = model.seen.lock().ok().and_then(|s| s.clone());
        let schema = seen.and_then(|r| r.json_schema).map(|s| s.schema);
        assert_eq!(
            schema
                .as_ref()
                .and_then(|s| s.pointer("/properties/queries/maxItems")),
            Some(&json!(5))
        );
    }

    #[tokio::test]
    async fn no_model_falls_back_to_the_question_and_its_key_terms() {
        let plan = plan(QUESTION, None, &PlannerConfig::default(), None).await;
        assert_eq!(plan.queries[0], QUESTION);
        assert_eq!(
            plan.queries[1],
            "millbrook city council approve harbor street bike lane 1 april 2026"
        );
        assert_eq!(
            plan.fallback_reason.as_deref(),
            Some("no planner model configured")
        );
        assert_eq!(plan.rubric, default_rubric());
    }

    #[tokio::test]
    async fn every_broken_answer_falls_back_with_its_reason() {
        let cases: [(Result<&str, LlmError>, &str); 7] = [
            (
                Err(LlmError::Timeout(Duration::from_secs(30))),
                "planner model failed",
            ),
            (
                Ok("I think you should search for the council"),
                "not valid JSON",
            ),
            (
                Ok(r#"{"queries": ["a", "b"], "rubric": [{"id": "x", "description": "y"}]}"#),
                "2 distinct queries",
            ),
            (
                Ok(
                    r#"{"queries": ["a", "A", " a ", ""], "rubric": [{"id": "x", "description": "y"}]}"#,
                ),
                "1 distinct queries",
            ),
            (
                Ok(
                    r#"{"queries": ["a","b","c","d","e","f"], "rubric": [{"id": "x", "description": "y"}]}"#,
                ),
                "6 distinct queries",
            ),
            (
                Ok(r#"{"queries": ["a","b","c"], "rubric": []}"#),
                "0 criteria",
            ),
            (
                Ok(r#"{"queries": ["a","b","c"], "rubric": [{"id": "?!", "description": "y"}]}"#),
                "empty id",
            ),
        ];
        for (answer, reason) in cases {
            let model = Scripted::answering(answer);
            let plan = plan(QUESTION, None, &PlannerConfig::default(), Some(&model)).await;
            let got = plan.fallback_reason.unwrap_or_default();
            assert!(got.contains(reason), "expected {reason:?} in {got:?}");
            assert_eq!(plan.queries[0], QUESTION);
            assert_eq!(plan.model, None);
        }
    }

    #[test]
    fn oversized_queries_and_duplicate_criteria_are_rejected() {
        let config = PlannerConfig::default();
        let long = "q".repeat(201);
        let answer = format!(
            r#"{{"queries": ["a","b","{long}"], "rubric": [{{"id": "x", "description": "y"}}]}}"#
        );
        assert!(matches!(
            validate(&answer, &config),
            Err(PlanError::QueryTooLong {
                chars: 201,
                max: 200
            })
        ));
        let dup = r#"{"queries": ["a","b","c"], "rubric": [{"id": "X", "description": "y"}, {"id": "x", "description": "z"}]}"#;
        assert!(matches!(validate(dup, &config), Err(PlanError::Rubric(_))));
    }

    #[test]
    fn fenced_json_is_accepted() {
        let fenced = format!("```json\n{GOOD}\n```");
        assert!(validate(&fenced, &PlannerConfig::default()).is_ok());
    }

    #[tokio::test]
    async fn a_weak_model_plan_still_searches_for_the_question() {
        let weak = r#"{"queries": ["Yes", "No", "Not enough evidence"],
            "rubric": [{"id": "x", "description": "y"}]}"#;
        let model = Scripted::answering(Ok(weak));
        let weak_plan = plan(QUESTION, None, &PlannerConfig::default(), Some(&model)).await;
        assert_eq!(weak_plan.fallback_reason, None);
        assert_eq!(
            weak_plan.queries,
            [QUESTION, "Yes", "No", "Not enough evidence"]
        );

        let echoing = format!(
            r#"{{"queries": ["{}", "b", "c"], "rubric": [{{"id": "x", "description": "y"}}]}}"#,
            QUESTION.to_uppercase()
        );
        let model = Scripted::answering(Ok(echoing.as_str()));
        let echo_plan = plan(QUESTION, None, &PlannerConfig::default(), Some(&model)).await;
        assert_eq!(echo_plan.queries, [QUESTION, "b", "c"]);
    }

    /// The largest answer the schema admits, at 3 characters per token (English prose runs
    /// about 4 in the tokenizers of the models we use; 3 leaves room for JSON punctuation).
    #[test]
    fn the_default_budget_covers_the_largest_plan_the_schema_admits() {
        let config = PlannerConfig::default();
        let query = "q".repeat(config.max_query_chars);
        let criterion =
            json!({"id": "i".repeat(40), "description": "d".repeat(config.max_criterion_chars)});
        let largest = json!({
            "question_type": "multi_outcome",
            "queries": vec![query; config.max_queries],
            "rubric": vec![criterion; config.max_criteria],
        })
        .to_string();
        let tokens = largest.len().div_ceil(3);
        assert!(
            usize::try_from(config.max_tokens).unwrap_or(usize::MAX) >= tokens,
            "max_tokens {} < {tokens} tokens for {} characters",
            config.max_tokens,
            largest.len()
        );
    }

    #[test]
    fn a_question_of_stop_words_still_searches_for_itself() {
        let plan = fallback_plan("Will it?", "test");
        assert_eq!(plan.queries, ["Will it?"]);
    }
}
