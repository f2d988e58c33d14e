//! The committee loop: T iterations of M ballots with KL early stopping.
//!
//! Each iteration draws its M (archetype, juror) pairs from the seeded [`Sampler`] (in order,
//! before any call is made, so draws never depend on timing), runs the ballots in parallel
//! under a concurrency limit and a per-ballot deadline, then feeds the posterior mean of all
//! valid ballots so far to the auditor specification's stopping rule. Failed ballots stay in the result
//! with their reason and are ignored by the statistics; a juror whose task panics is such a
//! failed ballot too, so every (iteration, slot) of the run is in the result exactly once
//! (what `veritas audit` demands of a report).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use alloy::primitives::B256;
use serde::{Deserialize, Serialize};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use super::archetype::Archetype;
use super::ballot::{BallotError, BallotRow, BallotValidator, SchemaOptions};
use super::juror::{BallotTask, Juror, JurorError};
use super::sampler::{Sampler, SamplerError, ballot_seed};
use crate::bundle::{Bundle, Rubric};
use crate::commitment::root::Root;
use crate::stats::{counts, posterior_mean};
pub use veritas_core::config::jury::CommitteeConfig;

/// A juror with its sampling weight.
#[derive(Clone)]
pub struct PoolMember {
    /// The juror.
    pub juror: Arc<dyn Juror>,
    /// Integer sampling weight (0 = never drawn).
    pub weight: u64,
}

impl std::fmt::Debug for PoolMember {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PoolMember")
            .field("juror", &self.juror.label())
            .field("weight", &self.weight)
            .finish()
    }
}

/// Archetypes, jurors and their weights, plus the loop's configuration.
#[derive(Debug, Clone)]
pub struct Committee {
    /// The personas, in the order the sampler indexes them.
    pub archetypes: Vec<Archetype>,
    /// Integer weight per archetype (same order).
    pub archetype_weights: Vec<u64>,
    /// The jurors, in the order the sampler indexes them.
    pub jurors: Vec<PoolMember>,
    /// Loop configuration.
    pub config: CommitteeConfig,
}

/// Why the committee could not run at all (individual ballot failures are not errors).
#[derive(Debug, thiserror::Error)]
pub enum CommitteeError {
    /// Nothing to draw.
    #[error(transparent)]
    Sampler(#[from] SamplerError),
    /// The ballot schema of this question could not be built.
    #[error(transparent)]
    Schema(#[from] BallotError),
    /// T, M or the concurrency limit is zero, or the archetype weights do not match.
    #[error("committee needs T ≥ 1, M ≥ 1, concurrency ≥ 1 and one weight per archetype")]
    Shape,
}

/// A named weight, for the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Weight {
    /// Archetype name or juror label.
    pub name: String,
    /// Its integer weight.
    pub weight: u64,
}

/// The report's `committee` block: enough to regenerate the draws and check the stop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommitteeInfo {
    /// T.
    #[serde(rename = "T")]
    pub iterations: u32,
    /// M.
    #[serde(rename = "M")]
    pub ballots_per_iteration: u32,
    /// ε in bits.
    pub epsilon: f64,
    /// τ.
    pub tau: u32,
    /// Valid ballots required before stopping.
    pub min_ballots: u32,
    /// Whether early stopping was on.
    pub early_stopping: bool,
    /// The ChaCha20 seed, 0x-hex in JSON.
    pub seed: B256,
    /// The chain-fixed inputs the seed was derived from (on-chain questions only; off-chain
    /// the seed is sha256(root ‖ question id)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_inputs: Option<super::SeedInputs>,
    /// The iteration the committee stopped after.
    pub stop_iteration: u32,
    /// Whether it stopped before T by the KL rule.
    pub stopped_early: bool,
    /// Juror calls made (valid and failed).
    pub calls: u64,
    /// KL(P_t ‖ P_t−1) in bits after each iteration (null for the first).
    pub divergences: Vec<Option<f64>>,
    /// Archetype weights in sampler order.
    pub archetype_weights: Vec<Weight>,
    /// Juror weights in sampler order.
    pub juror_weights: Vec<Weight>,
}

/// What the committee produced.
#[derive(Debug, Clone)]
pub struct CommitteeRun {
    /// Every ballot, valid or failed, in (iteration, slot) order.
    pub ballots: Vec<BallotRow>,
    /// The `committee` block of the report.
    pub info: CommitteeInfo,
    /// Wall time of the whole committee.
    pub elapsed: Duration,
}

/// Progress after one iteration (for progress bars and logs).
#[derive(Debug, Clone, PartialEq)]
pub struct IterationProgress<'a> {
    /// The iteration just finished, from 1.
    pub iteration: u32,
    /// T.
    pub of: u32,
    /// Valid ballots so far.
    pub valid: u64,
    /// Failed ballots so far.
    pub failed: u64,
    /// Posterior mean so far.
    pub posterior: [f64; 3],
    /// KL to the previous iteration, from the second on.
    pub divergence: Option<f64>,
    /// This iteration's ballots, in slot order (the live view shows them as they come).
    pub ballots: &'a [BallotRow],
}

/// Run the committee on one question.
///
/// `seed` is [`super::committee_seed`]; `progress` is called after every iteration.
///
/// # Errors
/// [`CommitteeError`] when the committee cannot run at all; failing jurors are not errors.
pub async fn run_committee(
    committee: &Committee,
    bundle: Arc<Bundle>,
    rubric: Arc<Rubric>,
    seed: [u8; 32],
    question_key: Root,
    progress: &mut (dyn FnMut(&IterationProgress<'_>) + Send),
) -> Result<CommitteeRun, CommitteeError> {
    let cfg = &committee.config;
    committee.check_shape()?;
    let started = Instant::now();
    let mut sampler = committee.sampler(seed)?;
    let shared = Shared::new(bundle, rubric, cfg.concurrency, seed, question_key)?;
    let mut tracker = cfg.stopping.tracker();
    let mut ballots: Vec<BallotRow> = Vec::new();
    let mut divergences = Vec::new();
    let mut stop_iteration = 0;
    let mut stopped_early = false;

    for iteration in 1..=cfg.iterations {
        let rows = cast_iteration(committee, &mut sampler, &shared, iteration).await;
        let first_new = ballots.len();
        ballots.extend(rows);

        let (valid, posterior) = tally(&ballots);
        let stop = tracker.observe(posterior, valid);
        let divergence = tracker.last_divergence().filter(|_| iteration > 1);
        divergences.push(divergence);
        stop_iteration = iteration;
        progress(&IterationProgress {
            iteration,
            of: cfg.iterations,
            valid,
            failed: ballots.len() as u64 - valid,
            posterior,
            divergence,
            ballots: &ballots[first_new..],
        });
        if cfg.early_stopping && stop {
            stopped_early = iteration < cfg.iterations;
            break;
        }
    }

    let info = committee.info(
        seed,
        stop_iteration,
        stopped_early,
        ballots.len() as u64,
        divergences,
    );
    Ok(CommitteeRun {
        ballots,
        info,
        elapsed: started.elapsed(),
    })
}

/// Valid ballots so far and their posterior mean: what the stopping rule observes.
fn tally(ballots: &[BallotRow]) -> (u64, [f64; 3]) {
    let records: Vec<_> = ballots.iter().map(BallotRow::record).collect();
    let n = counts(&records);
    (n.iter().sum(), posterior_mean(n))
}

impl Committee {
    /// Refuse, before any juror call, a committee that could never cast a ballot or whose
    /// weights do not line up with its archetypes.
    fn check_shape(&self) -> Result<(), CommitteeError> {
        let cfg = &self.config;
        if cfg.iterations == 0
            || cfg.ballots_per_iteration == 0
            || cfg.concurrency == 0
            || self.archetype_weights.len() != self.archetypes.len()
        {
            return Err(CommitteeError::Shape);
        }
        Ok(())
    }

    /// The seeded draw of (archetype, juror) pairs, by this committee's weights.
    fn sampler(&self, seed: [u8; 32]) -> Result<Sampler, SamplerError> {
        Sampler::new(
            seed,
            self.archetype_weights.clone(),
            self.jurors.iter().map(|j| j.weight).collect(),
        )
    }

    /// What the report records of a run of this committee (`CommitteeInfo`).
    fn info(
        &self,
        seed: [u8; 32],
        stop_iteration: u32,
        stopped_early: bool,
        calls: u64,
        divergences: Vec<Option<f64>>,
    ) -> CommitteeInfo {
        CommitteeInfo {
            iterations: self.config.iterations,
            ballots_per_iteration: self.config.ballots_per_iteration,
            epsilon: self.config.stopping.epsilon,
            tau: self.config.stopping.tau,
            min_ballots: self.config.stopping.min_ballots,
            early_stopping: self.config.early_stopping,
            seed: B256::from(seed),
            seed_inputs: None,
            stop_iteration,
            stopped_early,
            calls,
            divergences,
            archetype_weights: self
                .archetypes
                .iter()
                .zip(&self.archetype_weights)
                .map(|(a, w)| Weight {
                    name: a.name.clone(),
                    weight: *w,
                })
                .collect(),
            juror_weights: self
                .jurors
                .iter()
                .map(|m| Weight {
                    name: m.juror.label().to_owned(),
                    weight: m.weight,
                })
                .collect(),
        }
    }
}

/// What every ballot task of one committee run shares.
struct Shared {
    bundle: Arc<Bundle>,
    rubric: Arc<Rubric>,
    validator: Arc<BallotValidator>,
    limit: Arc<Semaphore>,
    seed: [u8; 32],
    question_key: Root,
}

impl Shared {
    /// The run's shared state; building the ballot validator fails when the question's
    /// schema cannot be built.
    fn new(
        bundle: Arc<Bundle>,
        rubric: Arc<Rubric>,
        concurrency: usize,
        seed: [u8; 32],
        question_key: Root,
    ) -> Result<Self, CommitteeError> {
        let validator = Arc::new(BallotValidator::new(
            &bundle,
            &rubric,
            SchemaOptions {
                require_rubric: true,
            },
        )?);
        Ok(Self {
            bundle,
            rubric,
            validator,
            limit: Arc::new(Semaphore::new(concurrency)),
            seed,
            question_key,
        })
    }

    /// The ballot task of `archetype` at (`iteration`, `slot`), with its own derived seed.
    fn task(&self, archetype: &Archetype, iteration: u32, slot: u32) -> BallotTask {
        BallotTask {
            bundle: self.bundle.clone(),
            rubric: self.rubric.clone(),
            validator: self.validator.clone(),
            archetype: archetype.clone(),
            iteration,
            slot,
            ballot_seed: ballot_seed(&self.seed, iteration, slot),
            question_key: self.question_key,
        }
    }
}

/// Iteration `iteration`: draws its seats, casts their ballots concurrently (at most the
/// committee's concurrency at a time) and returns them in slot order, a task that died recorded
/// as a failed ballot in its seat.
async fn cast_iteration(
    committee: &Committee,
    sampler: &mut Sampler,
    shared: &Shared,
    iteration: u32,
) -> Vec<BallotRow> {
    let mut set = JoinSet::new();
    // Who sits at each spawned task, so a task that panics still leaves its ballot.
    let mut seats: HashMap<tokio::task::Id, Seat> = HashMap::new();
    let spawned = Instant::now();
    let mut rows: Vec<BallotRow> = Vec::new();
    // Prefix priming: in the first iteration, a juror whose server caches prompt prefixes
    // casts its first ballot alone; its other ballots start when that one ends (or dies),
    // so the server computes the question's shared prefix once instead of once per slot.
    let mut primed: HashMap<usize, watch::Receiver<()>> = HashMap::new();
    for slot in 0..committee.config.ballots_per_iteration {
        let (a, j) = sampler.draw();
        let (Some(archetype), Some(member)) =
            (committee.archetypes.get(a), committee.jurors.get(j))
        else {
            // Unreachable: the sampler returns indices into the weight lists, whose
            // lengths equal the lists' (checked above). Still a ballot at its position.
            rows.push(Seat::unseated(iteration, slot));
            continue;
        };
        let task = shared.task(archetype, iteration, slot);
        let juror = member.juror.clone();
        let seat = Seat {
            iteration,
            slot,
            model: juror.label().to_owned(),
            archetype: archetype.name.clone(),
        };
        let priming = if iteration == 1 && juror.caches_prompt_prefix() {
            prime(&mut primed, j)
        } else {
            (None, None)
        };
        let limits = Limits {
            permits: shared.limit.clone(),
            deadline: committee.config.ballot_timeout,
        };
        let handle = set.spawn(cast_ballot(juror, task, limits, priming));
        seats.insert(handle.id(), seat);
    }
    rows.extend(join_ballots(set, seats, spawned, iteration).await);
    rows.sort_by_key(|r| r.slot);
    log_failures(iteration, &rows);
    rows
}

/// How many ballots may run at once, and how long each may take.
struct Limits {
    permits: Arc<Semaphore>,
    deadline: Duration,
}

/// One ballot task: waits for its juror's primer (if any), then for a permit, then asks the
/// juror under the deadline; the primer's sender is dropped when the ballot ends.
async fn cast_ballot(
    juror: Arc<dyn Juror>,
    task: BallotTask,
    limits: Limits,
    (primer, mut after_primer): (Option<watch::Sender<()>>, Option<watch::Receiver<()>>),
) -> BallotRow {
    // Before taking a permit: with concurrency 1 a waiting ballot holding the only
    // permit would keep the primer from ever starting.
    if let Some(rx) = after_primer.as_mut() {
        // Err means the primer's sender is gone: its ballot ended, however.
        let _ = rx.changed().await;
    }
    let _permit = limits.permits.acquire_owned().await;
    let t0 = Instant::now();
    let deadline = limits.deadline;
    let result = match tokio::time::timeout(deadline, juror.ballot(&task)).await {
        Ok(r) => r,
        Err(_) => Err(JurorError::Deadline(deadline)),
    };
    drop(primer);
    row(&task, juror.label(), result, t0.elapsed())
}

/// Wait for every ballot task of the iteration; a task that died becomes a failed ballot at
/// the seat it was spawned for, so every slot still has its row.
async fn join_ballots(
    mut set: JoinSet<BallotRow>,
    mut seats: HashMap<tokio::task::Id, Seat>,
    spawned: Instant,
    iteration: u32,
) -> Vec<BallotRow> {
    let mut rows = Vec::new();
    while let Some(joined) = set.join_next_with_id().await {
        match joined {
            Ok((_, r)) => rows.push(r),
            Err(e) => {
                let id = e.id();
                let error = JurorError::Panicked(panic_reason(e));
                tracing::error!(target: "veritas::jury", iteration, %error,
                    "ballot task died: recorded as a failed ballot");
                if let Some(seat) = seats.remove(&id) {
                    rows.push(seat.failed(error, spawned.elapsed()));
                }
            }
        }
    }
    rows
}

/// Juror `j`'s place in prefix priming: its first ballot of the question gets the sender
/// (dropped when that ballot ends), every later one a receiver to wait on.
fn prime(
    primed: &mut HashMap<usize, watch::Receiver<()>>,
    j: usize,
) -> (Option<watch::Sender<()>>, Option<watch::Receiver<()>>) {
    match primed.get(&j) {
        Some(rx) => (None, Some(rx.clone())),
        None => {
            let (tx, rx) = watch::channel(());
            primed.insert(j, rx);
            (Some(tx), None)
        }
    }
}

/// One warning per failed ballot of the iteration.
fn log_failures(iteration: u32, rows: &[BallotRow]) {
    for r in rows {
        if let Some(reason) = &r.failure {
            tracing::warn!(target: "veritas::jury", iteration, slot = r.slot, model = %r.model,
                archetype = %r.archetype, reason = %reason, "ballot failed");
        }
    }
}

/// Where a ballot sits and who casts it: enough to record it when its task dies.
struct Seat {
    iteration: u32,
    slot: u32,
    model: String,
    archetype: String,
}

impl Seat {
    /// The failed ballot of a slot whose draw named no archetype or juror.
    fn unseated(iteration: u32, slot: u32) -> BallotRow {
        let seat = Seat {
            iteration,
            slot,
            model: "(no juror)".into(),
            archetype: "(no archetype)".into(),
        };
        seat.failed(
            JurorError::Script("sampler index out of range".into()),
            Duration::ZERO,
        )
    }

    /// A failed ballot at this seat.
    fn failed(self, error: JurorError, latency: Duration) -> BallotRow {
        let mut row = self.empty(latency);
        row.failure = Some(error.to_string());
        row
    }

    /// The seat's row before any answer.
    fn empty(self, latency: Duration) -> BallotRow {
        BallotRow {
            iteration: self.iteration,
            slot: self.slot,
            model: self.model,
            archetype: self.archetype,
            vote: None,
            confidence: None,
            supporting_evidence_ids: Vec::new(),
            refuting_evidence_ids: Vec::new(),
            rubric_scores: Default::default(),
            reasoning: None,
            latency_ms: u64::try_from(latency.as_millis()).unwrap_or(u64::MAX),
            prompt_tokens: 0,
            cached_prompt_tokens: 0,
            completion_tokens: 0,
            cost_usd: 0.0,
            probabilities: None,
            failure: None,
        }
    }
}

/// The panic message of a ballot task (or why it ended without a result).
fn panic_reason(e: tokio::task::JoinError) -> String {
    match e.try_into_panic() {
        Ok(payload) => match payload.downcast::<String>() {
            Ok(s) => *s,
            Err(payload) => payload.downcast_ref::<&str>().map_or_else(
                || "(a non-text panic payload)".to_owned(),
                |s| (*s).to_owned(),
            ),
        },
        Err(e) => e.to_string(),
    }
}

fn row(
    task: &BallotTask,
    model: &str,
    result: Result<super::juror::JurorAnswer, JurorError>,
    latency: Duration,
) -> BallotRow {
    let seat = Seat {
        iteration: task.iteration,
        slot: task.slot,
        model: model.to_owned(),
        archetype: task.archetype.name.clone(),
    };
    let mut row = seat.empty(latency);
    match result {
        Ok(answer) => {
            let c = answer.content;
            row.vote = Some(c.vote);
            row.confidence = Some(c.confidence);
            row.supporting_evidence_ids = c.supporting_evidence_ids;
            row.refuting_evidence_ids = c.refuting_evidence_ids;
            row.rubric_scores = c.rubric_scores;
            row.reasoning = Some(c.reasoning);
            row.set_usage(answer.usage);
            row.probabilities = answer.probabilities;
        }
        Err(e) => {
            if let JurorError::InvalidAnswer { usage, .. } = &e {
                row.set_usage(*usage);
            }
            row.failure = Some(e.to_string());
        }
    }
    row
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use std::sync::Mutex;

    use async_trait::async_trait;
    use tokio::time::Instant as TokioInstant;

    use super::*;
    use crate::bundle::{EvidenceItem, Source};
    use crate::jury::juror::JurorAnswer;
    use crate::jury::replay::{ReplayJuror, Script};
    use crate::stats::Outcome;

    /// A replay juror that records when each of its ballots started and ended (paused clock).
    struct Timed {
        inner: ReplayJuror,
        caches: bool,
        spans: Mutex<Vec<(u32, u32, TokioInstant, TokioInstant)>>,
    }

    #[async_trait]
    impl Juror for Timed {
        fn label(&self) -> &str {
            self.inner.label()
        }
        fn caches_prompt_prefix(&self) -> bool {
            self.caches
        }
        async fn ballot(&self, task: &BallotTask) -> Result<JurorAnswer, JurorError> {
            let start = TokioInstant::now();
            tokio::time::sleep(Duration::from_secs(1)).await;
            let answer = self.inner.ballot(task).await;
            let span = (task.iteration, task.slot, start, TokioInstant::now());
            self.spans.lock().unwrap().push(span);
            answer
        }
    }

    async fn spans(
        caches: bool,
        concurrency: usize,
    ) -> Vec<(u32, u32, TokioInstant, TokioInstant)> {
        let juror = Arc::new(Timed {
            inner: ReplayJuror::new("replay/yes", Script::Fixed(Outcome::Yes), Duration::ZERO),
            caches,
            spans: Mutex::new(Vec::new()),
        });
        let archetypes = Archetype::shipped();
        let committee = Committee {
            archetype_weights: vec![1; archetypes.len()],
            archetypes,
            jurors: vec![PoolMember {
                juror: juror.clone(),
                weight: 1,
            }],
            config: CommitteeConfig {
                iterations: 2,
                early_stopping: false,
                concurrency,
                ..CommitteeConfig::default()
            },
        };
        let bundle = Bundle {
            question: "Is the Arctic warming faster than the global average?".into(),
            clarifications: Vec::new(),
            evidence: vec![EvidenceItem {
                id: 1,
                url: "https://example.org/1".into(),
                title: "Source 1".into(),
                snippet: "The Arctic has warmed nearly four times faster.".into(),
                published_at: None,
                source: Source::Local,
                submitter: None,
            }],
        };
        let mut ignore = |_: &IterationProgress<'_>| {};
        let run = run_committee(
            &committee,
            Arc::new(bundle),
            Arc::new(Rubric::default()),
            [7; 32],
            Root::from([9; 32]),
            &mut ignore,
        );
        // Paused clock: a deadlock lets time jump straight to this deadline.
        let run = tokio::time::timeout(Duration::from_secs(3600), run)
            .await
            .expect("the committee deadlocked")
            .unwrap();
        assert_eq!(
            run.ballots.iter().filter(|b| b.failure.is_none()).count(),
            6
        );
        let mut spans = juror.spans.lock().unwrap().clone();
        spans.sort_by_key(|s| (s.0, s.1));
        spans
    }

    #[tokio::test(start_paused = true)]
    async fn a_caching_server_is_primed_by_one_ballot_before_the_others() {
        let s = spans(true, 3).await;
        let (first_end, others) = (s[0].3, &s[1..3]);
        assert!(
            others.iter().all(|o| o.2 >= first_end),
            "iteration 1's other ballots started before the primer ended: {s:?}"
        );
        // Later iterations are not held back: their three ballots start together.
        assert!(s[3..6].iter().all(|o| o.2 == s[3].2), "{s:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_prefix_cache_the_first_iteration_starts_at_once() {
        let s = spans(false, 3).await;
        assert!(s[0..3].iter().all(|o| o.2 == s[0].2), "{s:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn priming_with_one_ballot_in_flight_still_casts_every_ballot() {
        let s = spans(true, 1).await;
        assert_eq!(s.len(), 6);
    }
}
