//! Synthetic juror pools: how precise is routing when jurors' errors are correlated? (pure)
//!
//! No capable model runs on the build machines, so the routing thresholds are chosen on a
//! simulation instead. A *pool* is a list of models, each with its accuracy (the chance that
//! one of its ballots names the true outcome). Each question has a true outcome, YES or NO with
//! equal odds. Votes are driven by uniform draws so that correlation never changes a ballot's
//! accuracy, only how errors cluster:
//!
//! - **between models** (`between`): with this probability a model's judgement of the question
//!   is the question's *shared* draw (all such models err together), else its own draw;
//! - **within a model** (`within`): with this probability a ballot repeats its model's
//!   judgement, else it is a fresh draw (`within` = 1: a deterministic model, like the embedded
//!   juror reading one prompt; 0: independent ballots).
//!
//! A draw u ∈ [0, 1) votes for the truth when u < accuracy; otherwise it errs: NULL for the
//! first `null_share` of the error range, the opposite answer for the rest — so copies of one
//! draw cast the very same wrong vote. The committee is the real one in miniature: T
//! iterations of M ballots, each ballot's model drawn uniformly with replacement, KL early
//! stopping with [`EarlyStopping`], then [`crate::stats::summarize`] and both routing rules on
//! the same ballots: the plain rule ([`route_plain`]) and the full one ([`route`]) with
//! evidence that is relevant and a yes/no question, so only the vote-side guards differ.
//!
//! Every run is reproducible from its seed (ChaCha8).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::{Decision, RoutingInputs, RoutingPolicy, route, route_plain};
use crate::bundle::{EvidenceItem, Source};
use crate::stats::{BallotRecord, EarlyStopping, Outcome, StopTracker, posterior_mean, summarize};

/// One juror pool and how its errors are correlated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    /// Accuracy of each model in the pool (one entry per model).
    pub accuracies: Vec<f64>,
    /// Probability that a ballot repeats its model's judgement of the question.
    pub within: f64,
    /// Probability that a model's judgement is the question's shared one.
    pub between: f64,
    /// Share of errors that are NULL rather than the opposite answer.
    pub null_share: f64,
}

/// The committee's shape (the node's defaults: T = 10, M = 3, ε = 0.02, τ = 2).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Shape {
    /// T: the most iterations.
    pub iterations: u32,
    /// M: ballots per iteration.
    pub ballots: u32,
    /// The stopping rule; `None` runs all T iterations.
    pub stopping: Option<EarlyStopping>,
}

impl Default for Shape {
    fn default() -> Self {
        Self {
            iterations: 10,
            ballots: 3,
            stopping: Some(EarlyStopping::default()),
        }
    }
}

/// What one rule did on a scenario's questions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RuleFigures {
    /// Questions auto-resolved.
    pub resolved: u64,
    /// Of those, resolved to the true outcome.
    pub correct: u64,
    /// resolved / questions.
    pub coverage: f64,
    /// correct / resolved (`None` when nothing resolved).
    pub precision: Option<f64>,
}

impl RuleFigures {
    fn new(resolved: u64, correct: u64, questions: u64) -> Self {
        Self {
            resolved,
            correct,
            coverage: ratio(resolved, questions).unwrap_or(0.0),
            precision: ratio(correct, resolved),
        }
    }
}

/// A scenario's result under the old and the new rule, on the same ballots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcomes {
    /// The scenario.
    pub scenario: Scenario,
    /// Questions simulated.
    pub questions: u64,
    /// Mean valid ballots per question.
    pub mean_ballots: f64,
    /// Mean n_eff per question.
    pub mean_n_eff: f64,
    /// The seed's rule (plain posterior, lower bound, kappa).
    pub old: RuleFigures,
    /// The rule with the correlation guard.
    pub new: RuleFigures,
}

fn ratio(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

/// The vote a uniform draw casts for a model of accuracy `accuracy` when the truth is `truth`.
fn vote_of(u: f64, accuracy: f64, truth: Outcome, null_share: f64) -> Outcome {
    if u < accuracy {
        return truth;
    }
    let into_errors = (u - accuracy) / (1.0 - accuracy).max(f64::MIN_POSITIVE);
    if into_errors < null_share {
        Outcome::Null
    } else if truth == Outcome::Yes {
        Outcome::No
    } else {
        Outcome::Yes
    }
}

/// Relevant evidence and a yes/no question: the simulation is about votes only.
fn neutral_inputs() -> RoutingInputs {
    RoutingInputs::from_bundle(
        "Did the simulated event happen?",
        &[EvidenceItem {
            id: 1,
            url: String::new(),
            title: "simulated event".to_owned(),
            snippet: "The simulated event happened.".to_owned(),
            published_at: None,
            source: Source::Local,
            submitter: None,
        }],
    )
}

/// Simulate `questions` questions of `scenario` and route each one with both rules.
pub fn run(
    scenario: &Scenario,
    shape: &Shape,
    policy: &RoutingPolicy,
    questions: u64,
    seed: u64,
) -> Outcomes {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let inputs = neutral_inputs();
    let k = scenario.accuracies.len().max(1);
    let pool = Pool {
        scenario,
        names: (0..k).map(|i| format!("model-{i}")).collect(),
    };
    let mut tally = Tally::default();
    for _ in 0..questions {
        let question = pool.question(&mut rng);
        let records = pool.committee(&mut rng, shape, &question);
        tally.add(&records, question.truth, &inputs, policy);
    }
    Outcomes {
        scenario: scenario.clone(),
        questions,
        mean_ballots: tally.ballots as f64 / questions.max(1) as f64,
        mean_n_eff: tally.n_eff / questions.max(1) as f64,
        old: RuleFigures::new(tally.old_resolved, tally.old_correct, questions),
        new: RuleFigures::new(tally.new_resolved, tally.new_correct, questions),
    }
}

/// A scenario's models, named as their ballots record them.
struct Pool<'a> {
    scenario: &'a Scenario,
    names: Vec<String>,
}

/// One simulated question: its true outcome and each model's judgement of it (a draw).
struct Question {
    truth: Outcome,
    judgements: Vec<f64>,
}

impl Pool<'_> {
    /// Draw a question: the truth, then each model's judgement, the question's shared draw
    /// with probability `between`, else its own.
    fn question(&self, rng: &mut ChaCha8Rng) -> Question {
        let truth = if rng.random_bool(0.5) {
            Outcome::Yes
        } else {
            Outcome::No
        };
        let shared: f64 = rng.random();
        let judgements = (0..self.names.len())
            .map(|_| {
                let own: f64 = rng.random();
                if rng.random_bool(self.scenario.between.clamp(0.0, 1.0)) {
                    shared
                } else {
                    own
                }
            })
            .collect();
        Question { truth, judgements }
    }

    /// The committee on one question: up to T iterations of M ballots, stopped early once
    /// the posterior settles.
    fn committee(&self, rng: &mut ChaCha8Rng, shape: &Shape, q: &Question) -> Vec<BallotRecord> {
        let mut records: Vec<BallotRecord> = Vec::new();
        let mut counts = [0u64; 3];
        let mut tracker: Option<StopTracker> = shape.stopping.map(|s| s.tracker());
        for t in 1..=shape.iterations {
            for _ in 0..shape.ballots {
                let (vote, record) = self.ballot(rng, q, t);
                counts[vote.index()] += 1;
                records.push(record);
            }
            let valid: u64 = counts.iter().sum();
            if let Some(tracker) = tracker.as_mut()
                && tracker.observe(posterior_mean(counts), valid)
            {
                break;
            }
        }
        records
    }

    /// One ballot of iteration `iteration`: a model drawn uniformly, repeating its judgement
    /// with probability `within`, else voting on a fresh draw.
    fn ballot(
        &self,
        rng: &mut ChaCha8Rng,
        q: &Question,
        iteration: u32,
    ) -> (Outcome, BallotRecord) {
        let m = rng.random_range(0..self.names.len());
        let fresh: f64 = rng.random();
        let u = if rng.random_bool(self.scenario.within.clamp(0.0, 1.0)) {
            q.judgements[m]
        } else {
            fresh
        };
        let accuracy = self.scenario.accuracies.get(m).copied().unwrap_or(0.5);
        let vote = vote_of(u, accuracy, q.truth, self.scenario.null_share);
        let record = BallotRecord {
            iteration,
            model: self.names[m].clone(),
            archetype: "simulated".to_owned(),
            vote: Some(vote),
        };
        (vote, record)
    }
}

/// Running totals of both rules over a scenario's questions.
#[derive(Debug, Default)]
struct Tally {
    old_resolved: u64,
    old_correct: u64,
    new_resolved: u64,
    new_correct: u64,
    /// Sum of valid ballots.
    ballots: u64,
    /// Sum of n_eff.
    n_eff: f64,
}

impl Tally {
    /// Route one committee's ballots with both rules and count what each did.
    fn add(
        &mut self,
        records: &[BallotRecord],
        truth: Outcome,
        inputs: &RoutingInputs,
        policy: &RoutingPolicy,
    ) {
        let summary = summarize(records);
        self.ballots += summary.valid;
        self.n_eff += summary.n_eff;
        let new = route(&summary, inputs, policy);
        let right = new.outcome == Some(truth);
        if route_plain(&summary, policy) == Decision::Resolve {
            self.old_resolved += 1;
            self.old_correct += u64::from(right);
        }
        if new.decision == Decision::Resolve {
            self.new_resolved += 1;
            self.new_correct += u64::from(right);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(accuracies: &[f64], within: f64, between: f64) -> Scenario {
        Scenario {
            accuracies: accuracies.to_vec(),
            within,
            between,
            null_share: 0.0,
        }
    }

    #[test]
    fn correlation_never_changes_a_ballots_accuracy() {
        // Marginal accuracy of vote_of over a uniform grid is the accuracy, whatever copies.
        let hits = (0..10_000)
            .filter(|i| vote_of(*i as f64 / 10_000.0, 0.8, Outcome::Yes, 0.3) == Outcome::Yes)
            .count();
        assert_eq!(hits, 8_000);
        let nulls = (0..10_000)
            .filter(|i| vote_of(*i as f64 / 10_000.0, 0.8, Outcome::No, 0.3) == Outcome::Null)
            .count();
        // 30% of the 20% error range; ±1 for the grid point on the float boundary.
        assert!((599..=601).contains(&nulls), "{nulls}");
    }

    #[test]
    fn one_deterministic_model_fools_the_old_rule_not_the_new() {
        let policy = RoutingPolicy::default();
        let out = run(
            &scenario(&[0.8], 1.0, 0.0),
            &Shape::default(),
            &policy,
            400,
            7,
        );
        // Every committee is unanimous: the old rule resolves all and is right 80% of the time.
        assert_eq!(out.old.resolved, 400);
        let old = out.old.precision.unwrap_or(1.0);
        assert!((0.74..0.86).contains(&old), "{out:?}");
        assert_eq!(out.new.resolved, 0, "{out:?}");
        assert!((out.mean_n_eff - 1.0).abs() < 1e-9);
    }

    #[test]
    fn three_independent_models_keep_precision_above_95_percent() {
        let policy = RoutingPolicy::default();
        for within in [0.0, 0.5, 0.9, 1.0] {
            let out = run(
                &scenario(&[0.8, 0.8, 0.8], within, 0.0),
                &Shape::default(),
                &policy,
                1_000,
                11,
            );
            if let Some(p) = out.new.precision {
                assert!(p >= 0.95, "within {within}: {out:?}");
            }
            assert!(out.new.resolved <= out.old.resolved);
        }
        let deterministic = run(
            &scenario(&[0.8, 0.8, 0.8], 1.0, 0.0),
            &Shape::default(),
            &policy,
            1_000,
            11,
        );
        assert!(deterministic.new.coverage > 0.3, "{deterministic:?}");
    }

    #[test]
    fn same_seed_same_figures() {
        let s = scenario(&[0.8, 0.7], 0.5, 0.2);
        let policy = RoutingPolicy::default();
        assert_eq!(
            run(&s, &Shape::default(), &policy, 200, 3),
            run(&s, &Shape::default(), &policy, 200, 3)
        );
    }
}
