//! The embedded juror: llama.cpp's next-token probabilities of " YES", " NO" and " NULL".
//!
//! The prompt is a few-shot completion (a base model follows patterns, not instructions):
//! three worked examples, then this question's evidence and claim — the *prefix*, shared by
//! every persona — then one short persona line ending in `Verdict:` — the *suffix*. The model
//! is deterministic given the prompt, so the first ballot of a question scores every
//! archetype in one pass (the prefix's KV cache reused for each suffix) and every ballot
//! samples its vote from its archetype's distribution with its own seeded RNG.
//!
//! Contextual calibration (Zhao et al., 2021) divides the distribution by the one the model
//! gives a content-free input (evidence and claim "N/A") and renormalises; it is optional
//! because it helps only when `veritas eval` says so.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use tokio::sync::OnceCell;

use super::archetype::Archetype;
use super::ballot::{BallotContent, BallotValidator, SchemaOptions};
use super::juror::{BallotTask, Juror, JurorAnswer, JurorError};
use super::sampler::sample_vote;
use crate::bundle::Bundle;
use crate::commitment::root::Root;
use crate::llm::LlmError;
use crate::llm::llama::{LocalModel, ScoreResult};

/// The candidate next tokens, in K order (YES, NO, NULL).
pub const CANDIDATES: [&str; 3] = [" YES", " NO", " NULL"];

/// Questions whose distributions are kept (a committee works on one question at a time;
/// a few more let concurrent questions share the juror).
const CACHED_QUESTIONS: usize = 8;

const FEW_SHOT: &str = "Each case lists evidence and a claim, then a juror's verdict: YES if \
the evidence shows the claim is true, NO if the evidence shows it is false, NULL if the \
evidence does not settle it.

Evidence:
[1] Water: At sea level, pure water boils at 100 degrees Celsius.
Claim: Water boils at 100 degrees Celsius at sea level.
Juror: reads only what the evidence states.
Verdict: YES

Evidence:
[1] Moon: The Moon orbits the Earth once every 27.3 days.
Claim: The Moon does not orbit the Earth.
Juror: reads only what the evidence states.
Verdict: NO

Evidence:
[1] Paris: Paris is the capital and largest city of France.
Claim: Paris has the oldest library in the world.
Juror: reads only what the evidence states.
Verdict: NULL
";

/// The shared prefix: few-shot examples, then this question's evidence and claim.
pub fn prefix(bundle: &Bundle) -> String {
    let mut out = String::from(FEW_SHOT);
    out.push_str("\nEvidence:\n");
    for item in &bundle.evidence {
        out.push_str(&format!(
            "[{}] {}: {}\n",
            item.id,
            one_line(&item.title),
            one_line(&item.snippet)
        ));
    }
    out.push_str(&format!("Claim: {}\n", one_line(&bundle.question)));
    out
}

/// The persona suffix; the next token after it is the vote.
pub fn suffix(archetype: &Archetype) -> String {
    format!(
        "Juror: {}\nVerdict:",
        one_line(&archetype.bias).to_lowercase()
    )
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn content_free_bundle() -> Bundle {
    Bundle {
        question: "N/A".to_owned(),
        clarifications: Vec::new(),
        evidence: vec![crate::bundle::EvidenceItem {
            id: 1,
            url: String::new(),
            title: "N/A".to_owned(),
            snippet: "N/A".to_owned(),
            published_at: None,
            source: crate::bundle::Source::Local,
            submitter: None,
        }],
    }
}

/// Renormalise the candidates' probabilities; optionally divide by a calibration vector first.
pub fn distribution(raw: &[f64], calibration: Option<&[f64; 3]>) -> Result<[f64; 3], LlmError> {
    let mut p = [0.0; 3];
    for (k, slot) in p.iter_mut().enumerate() {
        let x = raw.get(k).copied().unwrap_or(0.0);
        *slot = match calibration {
            Some(c) if c[k] > 0.0 => x / c[k],
            _ => x,
        };
    }
    let total: f64 = p.iter().sum();
    if !(total.is_finite() && total > 0.0) {
        return Err(LlmError::Malformed(
            "the model gives YES, NO and NULL zero probability".to_owned(),
        ));
    }
    Ok(p.map(|x| x / total))
}

/// Per-question cells of the distributions, keyed by the question's Merkle root.
type QuestionCache = Mutex<Vec<(Root, Arc<OnceCell<Arc<QuestionScores>>>)>>;

/// One question's distributions, per archetype.
#[derive(Debug)]
struct QuestionScores {
    /// The distribution each archetype's votes are drawn from (calibrated when enabled).
    dists: HashMap<String, [f64; 3]>,
    /// Prompt tokens (prefix + suffix) per archetype.
    tokens: HashMap<String, u64>,
    /// Validation without a rubric requirement: this juror emits votes only.
    validator: BallotValidator,
}

/// The embedded juror.
pub struct LocalJuror {
    model: Arc<LocalModel>,
    archetypes: Vec<Archetype>,
    calibrate: bool,
    calibration: OnceCell<HashMap<String, [f64; 3]>>,
    cache: QuestionCache,
}

impl std::fmt::Debug for LocalJuror {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalJuror")
            .field("model", &self.model.label())
            .field("calibrate", &self.calibrate)
            .finish_non_exhaustive()
    }
}

impl LocalJuror {
    /// A juror over the loaded model, scoring `archetypes` (the committee's list).
    pub fn new(model: Arc<LocalModel>, archetypes: Vec<Archetype>, calibrate: bool) -> Self {
        Self {
            model,
            archetypes,
            calibrate,
            calibration: OnceCell::new(),
            cache: Mutex::new(Vec::new()),
        }
    }

    /// Score every archetype's suffix after `prefix` in one request.
    async fn score_all(&self, prefix: String) -> Result<(ScoreResult, Vec<[f64; 3]>), LlmError> {
        let suffixes = self.archetypes.iter().map(suffix).collect();
        let candidates = CANDIDATES.iter().map(|c| (*c).to_owned()).collect();
        let result = self.model.score(prefix, suffixes, candidates).await?;
        for c in &result.candidates {
            if !c.is_single_token() {
                tracing::warn!(target: "veritas::jury", candidate = %c.text, tokens = c.tokens.len(),
                    "candidate is not one token; scoring its first token");
            }
        }
        let raw = result
            .suffixes
            .iter()
            .map(|s| distribution(&s.probabilities, None))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((result, raw))
    }

    /// The content-free distributions, computed once per process.
    async fn calibration(&self) -> Result<&HashMap<String, [f64; 3]>, LlmError> {
        self.calibration
            .get_or_try_init(|| async {
                let (_, raw) = self.score_all(prefix(&content_free_bundle())).await?;
                let map: HashMap<String, [f64; 3]> = self
                    .archetypes
                    .iter()
                    .zip(raw)
                    .map(|(a, p)| (a.name.clone(), p))
                    .collect();
                tracing::info!(target: "veritas::jury", calibration = ?map, "content-free distributions");
                Ok(map)
            })
            .await
    }

    async fn question_scores(&self, task: &BallotTask) -> Result<Arc<QuestionScores>, JurorError> {
        let cell = {
            let mut cache = self
                .cache
                .lock()
                .map_err(|_| JurorError::Script("local juror cache poisoned".to_owned()))?;
            if let Some((_, cell)) = cache.iter().find(|(k, _)| *k == task.question_key) {
                cell.clone()
            } else {
                if cache.len() >= CACHED_QUESTIONS {
                    cache.remove(0);
                }
                let cell = Arc::new(OnceCell::new());
                cache.push((task.question_key, cell.clone()));
                cell
            }
        };
        let scores = cell
            .get_or_try_init(|| async {
                let calibration = if self.calibrate {
                    Some(self.calibration().await?)
                } else {
                    None
                };
                let (result, raw) = self.score_all(prefix(&task.bundle)).await?;
                let mut dists = HashMap::new();
                let mut tokens = HashMap::new();
                for ((a, p), s) in self.archetypes.iter().zip(raw).zip(&result.suffixes) {
                    let c = calibration.and_then(|m| m.get(&a.name));
                    dists.insert(a.name.clone(), distribution(&p, c)?);
                    tokens.insert(a.name.clone(), result.prefix_tokens + s.suffix_tokens);
                }
                let validator = BallotValidator::new(
                    &task.bundle,
                    &task.rubric,
                    SchemaOptions {
                        require_rubric: false,
                    },
                )?;
                Ok::<_, JurorError>(Arc::new(QuestionScores {
                    dists,
                    tokens,
                    validator,
                }))
            })
            .await?;
        Ok(scores.clone())
    }
}

#[async_trait]
impl Juror for LocalJuror {
    fn label(&self) -> &str {
        self.model.label()
    }

    async fn ballot(&self, task: &BallotTask) -> Result<JurorAnswer, JurorError> {
        let scores = self.question_scores(task).await?;
        let name = &task.archetype.name;
        let p = *scores.dists.get(name).ok_or_else(|| {
            JurorError::Script(format!(
                "archetype {name:?} is not in the local juror's list"
            ))
        })?;
        let mut rng = task.rng();
        let vote = sample_vote(&mut rng, &p);
        let content = BallotContent {
            vote,
            confidence: p[vote.index()],
            supporting_evidence_ids: Vec::new(),
            refuting_evidence_ids: Vec::new(),
            rubric_scores: Default::default(),
            reasoning: format!(
                "next-token probabilities{}: YES {:.3}, NO {:.3}, NULL {:.3}",
                if self.calibrate { " (calibrated)" } else { "" },
                p[0],
                p[1],
                p[2]
            ),
        };
        let value = serde_json::to_value(&content)
            .map_err(|e| JurorError::Script(format!("cannot encode ballot: {e}")))?;
        let content = scores.validator.validate_value(&value)?;
        Ok(JurorAnswer {
            content,
            usage: super::ballot::Usage {
                prompt_tokens: scores.tokens.get(name).copied().unwrap_or(0),
                ..Default::default()
            },
            probabilities: Some(p),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distribution_renormalises_and_calibrates() {
        let p = distribution(&[0.2, 0.1, 0.1], None).unwrap();
        assert!((p[0] - 0.5).abs() < 1e-12 && (p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        // A model biased to YES on a content-free input is pulled back to uniform.
        let c = [0.5, 0.25, 0.25];
        let q = distribution(&[0.5, 0.25, 0.25], Some(&c)).unwrap();
        assert!(q.iter().all(|x| (x - 1.0 / 3.0).abs() < 1e-12));
        assert!(distribution(&[0.0, 0.0, 0.0], None).is_err());
    }

    #[test]
    fn prompt_ends_where_the_vote_token_goes() {
        let b = content_free_bundle();
        let text = prefix(&b) + &suffix(&Archetype::shipped()[0]);
        assert!(text.ends_with("\nVerdict:"));
        assert!(text.contains("Claim: N/A\nJuror: "));
    }
}
