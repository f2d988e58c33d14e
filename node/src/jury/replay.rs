//! A replay juror (`kind = "replay"`): answers instantly from a fixed vote or a JSONL script.
//!
//! This is a test and load-test juror, never a default: it reads no evidence. It exists so the
//! committee, the node's pipeline and its latency can be exercised without a model. A script
//! line is either a ballot object (validated like any model answer, so a script can also
//! produce invalid ballots) or `{"error": "..."}` for a failed call; lines are used in order
//! and the script wraps around.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;

use super::ballot::BallotContent;
use super::juror::{BallotTask, Juror, JurorAnswer, JurorError};
use crate::llm::LlmError;
use crate::stats::Outcome;

/// What the replay juror answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Script {
    /// Always this vote, confidence 1.
    Fixed(Outcome),
    /// These answers in turn.
    Lines(Vec<Value>),
    /// The vote of each seat, confidence 1: the ballot at `(iteration - 1) * per_iteration +
    /// slot`; `None` is a failed call. Read by seat, not by call order, so the ballots an
    /// iteration runs at once get the same votes in every run.
    Seats {
        /// Votes in seat order.
        votes: Vec<Option<Outcome>>,
        /// M, the ballots of one iteration.
        per_iteration: u32,
    },
}

/// The replay juror.
#[derive(Debug)]
pub struct ReplayJuror {
    label: String,
    script: Script,
    delay: Duration,
    next: AtomicUsize,
}

impl ReplayJuror {
    /// A juror named `label` that answers from `script` after `delay`.
    pub fn new(label: impl Into<String>, script: Script, delay: Duration) -> Self {
        Self {
            label: label.into(),
            script,
            delay,
            next: AtomicUsize::new(0),
        }
    }

    /// Read a JSONL script (blank lines skipped).
    ///
    /// # Errors
    /// [`JurorError::Script`] on an unreadable file, a bad line or an empty script.
    pub fn load_script(path: &Path) -> Result<Script, JurorError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| JurorError::Script(format!("cannot read {}: {e}", path.display())))?;
        let lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| {
                serde_json::from_str(l).map_err(|e| {
                    JurorError::Script(format!("{} line {}: {e}", path.display(), i + 1))
                })
            })
            .collect::<Result<Vec<Value>, _>>()?;
        if lines.is_empty() {
            return Err(JurorError::Script(format!("{} is empty", path.display())));
        }
        Ok(Script::Lines(lines))
    }

    /// Calls answered so far.
    pub fn calls(&self) -> usize {
        self.next.load(Ordering::SeqCst)
    }
}

/// A vote with confidence 1 and no evidence cited.
fn fixed(vote: Outcome, reasoning: &str) -> BallotContent {
    BallotContent {
        vote,
        confidence: 1.0,
        supporting_evidence_ids: Vec::new(),
        refuting_evidence_ids: Vec::new(),
        rubric_scores: Default::default(),
        reasoning: reasoning.to_owned(),
    }
}

#[async_trait]
impl Juror for ReplayJuror {
    fn label(&self) -> &str {
        &self.label
    }

    async fn ballot(&self, task: &BallotTask) -> Result<JurorAnswer, JurorError> {
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        let content = match &self.script {
            Script::Fixed(vote) => fixed(*vote, "replay juror (fixed vote)"),
            Script::Seats {
                votes,
                per_iteration,
            } => {
                let seat = u64::from(task.iteration.saturating_sub(1)) * u64::from(*per_iteration)
                    + u64::from(task.slot);
                match usize::try_from(seat).ok().and_then(|i| votes.get(i)) {
                    Some(Some(vote)) => fixed(*vote, "replay juror (scripted vote)"),
                    Some(None) => {
                        return Err(JurorError::Llm(LlmError::Transport {
                            endpoint: format!("replay:{}", self.label),
                            reason: "scripted failure".to_owned(),
                        }));
                    }
                    None => {
                        return Err(JurorError::Script(format!(
                            "no scripted vote for seat {seat}"
                        )));
                    }
                }
            }
            Script::Lines(lines) => {
                let Some(line) = lines.get(n % lines.len().max(1)) else {
                    return Err(JurorError::Script("empty script".to_owned()));
                };
                if let Some(reason) = line.get("error") {
                    return Err(JurorError::Llm(LlmError::Transport {
                        endpoint: format!("replay:{}", self.label),
                        reason: reason.as_str().unwrap_or("scripted failure").to_owned(),
                    }));
                }
                task.validator.validate_value(line)?
            }
        };
        if let Script::Fixed(_) | Script::Seats { .. } = self.script {
            task.validator.check(&content).or_else(|e| {
                // A fixed vote cannot score a rubric; only that omission is tolerated.
                if task.rubric.criteria.is_empty() {
                    Err(e)
                } else {
                    Ok(())
                }
            })?;
        }
        Ok(JurorAnswer {
            content,
            usage: Default::default(),
            probabilities: None,
        })
    }
}
