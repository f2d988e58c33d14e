//! After the report: following each question to its end.
//!
//! The watcher stores what the chain says happened (the pooled verdict, a dispute, the
//! arbiter's ruling, expiry, settlement). Each tick the follower moves this node's jobs along
//! `reported → finalised → final / disputed / arbitrated / expired` and does the node's part:
//!
//! - **reveal again**: a commit-reveal question we reported on whose reveal phase is open with
//!   our commitment still on-chain lost our reveal to a reorg: the job goes back to the
//!   pipeline, which reveals the saved commitment again;
//! - **finalize**: a question this node reported on whose report window ran out before the
//!   quorum is closed with `finalize(id)` (posted escalated by the contract); so is a
//!   commit-reveal question whose reveal deadline passed with a commit unrevealed (the
//!   contract burns that commit's bond);
//! - **settle**: a Resolved verdict this node reported on that became final gets `settle(id)`,
//!   so the fee reaches the reporting operators' credits. Reporters take turns (by report
//!   order, [`SETTLE_STAGGER_SECS`] apart) so a quorum does not race to send the same call;
//! - **second opinion**: on a dispute the committee runs again on the current evidence and
//!   its report is written for the arbiter (`reports/<id>.dispute.json`, served by the API).
//!
//! Time is the chain's (the latest block's timestamp, or the wall clock when later). Jobs the
//! pipeline still owns (not yet reported) are left alone, except that an expired question
//! ends as `expired` whatever its stage.

use std::{
    collections::{HashMap, HashSet},
    sync::Arc,
    time::Duration,
};

use alloy::{
    primitives::{Address, U256},
    sol_types::SolCall,
};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::jobs::JobRunner;
use crate::chain::ViewCall;
use crate::{
    chain::{ChainError, ChainProvider},
    contract::IVeritasOracle,
    poster::Poster,
    store::{ChainStatus, Job, Lifecycle, Stage, Store},
};

/// Seconds between two reporters' turns to send `settle`.
pub const SETTLE_STAGGER_SECS: u64 = 2;

/// What the follower may send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FollowConfig {
    /// Call `finalize` on reported questions whose report window ran out.
    pub finalize_expired: bool,
    /// Call `settle` on final Resolved verdicts this node reported on.
    pub settle_final: bool,
    /// Time between ticks.
    pub tick: Duration,
}

/// Follows reported questions to their end (see the module docs).
pub struct Follower {
    store: Arc<Store>,
    poster: Arc<Poster>,
    pipeline: Arc<JobRunner>,
    provider: ChainProvider,
    oracle: Address,
    config: FollowConfig,
    /// Report deadlines (unix s) read once per report round, by the round they were read in:
    /// the round's opening (max(resolveAfter, askedAt), or a deferral's reopening) +
    /// reportWindow, as the contract computes it.
    deadlines: HashMap<U256, (u32, u64)>,
    /// Commit-reveal questions among them: `finalize` is also due once the reveal deadline
    /// passed (an operator that committed never revealed), which can be before the report
    /// deadline.
    commit_reveal: HashSet<U256>,
    /// Whether a reported question is commit-reveal, asked once per process.
    is_commit_reveal: HashMap<U256, bool>,
    /// Second opinions running.
    opinions: JoinSet<()>,
    opining: HashSet<U256>,
}

impl std::fmt::Debug for Follower {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Follower")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Follower {
    /// A follower for this node's jobs.
    pub fn new(
        store: Arc<Store>,
        poster: Arc<Poster>,
        pipeline: Arc<JobRunner>,
        provider: ChainProvider,
        oracle: Address,
        config: FollowConfig,
    ) -> Self {
        Self {
            store,
            poster,
            pipeline,
            provider,
            oracle,
            config,
            deadlines: HashMap::new(),
            commit_reveal: HashSet::new(),
            is_commit_reveal: HashMap::new(),
            opinions: JoinSet::new(),
            opining: HashSet::new(),
        }
    }

    /// Tick until cancelled; a failed tick is logged and tried again on the next one.
    pub async fn run(mut self, cancel: CancellationToken) {
        loop {
            if let Err(e) = self.tick().await {
                warn!(target: "veritas::lifecycle", error = %e, "lifecycle tick failed");
            }
            while let Some(done) = self.opinions.try_join_next() {
                if let Err(e) = done {
                    warn!(target: "veritas::lifecycle", error = %e, "second opinion task died");
                }
            }
            tokio::select! {
                () = cancel.cancelled() => break,
                () = tokio::time::sleep(self.config.tick) => {}
            }
        }
        self.opinions.abort_all();
    }

    /// One pass over the open jobs.
    ///
    /// # Errors
    /// [`ChainError`] from the chain or the store; jobs already handled keep their stage.
    pub async fn tick(&mut self) -> Result<(), ChainError> {
        let jobs = self.store.open_jobs()?;
        if jobs.is_empty() {
            return Ok(());
        }
        let now = self.chain_time().await?;
        for (job, chain) in jobs {
            let qid = job.question.question_id;
            let next = match chain.as_ref().map(|c| c.status) {
                // A deferred question is asked again: as before its first verdict.
                None | Some(ChainStatus::Deferred) => {
                    if job.stage == Stage::Reported && self.reveal_lost(qid).await? {
                        // Our reveal was reorged out: the pipeline reveals again (the same
                        // saved commitment and salt; see `poster::commit_reveal`).
                        warn!(target: "veritas::lifecycle", question = %qid, "our reveal is no longer on-chain (reorged out); revealing again");
                        self.store.set_stage(qid, Stage::Posting)?;
                        continue;
                    }
                    if job.stage == Stage::Reported && self.config.finalize_expired {
                        self.finalize_if_due(qid, job.round, now).await?;
                    }
                    continue;
                }
                Some(ChainStatus::Expired)
                    if !matches!(job.stage, Stage::Resolving | Stage::Posting) =>
                {
                    Stage::Expired
                }
                // Not reported yet: the pipeline owns the job (it sees the verdict on-chain
                // and marks it reported without running the committee).
                _ if !job.stage.is_reported() => continue,
                Some(ChainStatus::Resolved) => match chain.as_ref() {
                    Some(c) => self.resolved(&job, c, now).await?,
                    None => continue,
                },
                Some(ChainStatus::Escalated) => Stage::Finalised,
                Some(ChainStatus::Disputed) => {
                    if chain.as_ref().is_some_and(|c| c.second_opinion.is_none()) {
                        self.second_opinion(&job);
                    }
                    Stage::Disputed
                }
                Some(ChainStatus::Arbitrated) => Stage::Arbitrated,
                Some(ChainStatus::Defaulted) => Stage::Defaulted,
                Some(ChainStatus::Expired) => continue,
            };
            if next != job.stage {
                info!(target: "veritas::lifecycle", question = %qid, from = job.stage.as_str(), to = next.as_str(), "stage");
                self.store.set_stage(qid, next)?;
                if next.is_terminal() {
                    self.deadlines.remove(&qid);
                    self.commit_reveal.remove(&qid);
                    self.is_commit_reveal.remove(&qid);
                }
            }
        }
        Ok(())
    }

    /// A Resolved verdict: final once its challenge window is over (then settle, in turn).
    async fn resolved(&self, job: &Job, c: &Lifecycle, now: u64) -> Result<Stage, ChainError> {
        let qid = job.question.question_id;
        let final_at = match c.final_at {
            Some(t) => t,
            None => {
                let t = self.contract().finalAt(qid).view("finalAt").await?;
                let t = u64::try_from(t).unwrap_or(u64::MAX);
                self.store.set_final_at(qid, t)?;
                t
            }
        };
        if now < final_at {
            return Ok(Stage::Finalised);
        }
        if !self.config.settle_final || c.settled {
            return Ok(Stage::Final);
        }
        let me = self.poster.address();
        let reports = self.store.operator_reports(qid)?;
        let Some(turn) = reports.iter().position(|r| r.operator == me) else {
            // Not one of the reporters: nothing is owed to this node.
            return Ok(Stage::Final);
        };
        if now < final_at.saturating_add(turn as u64 * SETTLE_STAGGER_SECS) {
            // An earlier reporter's turn; ours comes if it does not settle.
            return Ok(Stage::Finalised);
        }
        let pending = self.contract().pendingFee(qid).view("pendingFee").await?;
        if !pending.is_zero() {
            let call = IVeritasOracle::settleCall { id: qid }.abi_encode();
            self.poster.send_call(qid, "settle", call.into()).await?;
        }
        Ok(Stage::Final)
    }

    /// `finalize(id)` once the report window of a question we reported on has closed.
    async fn finalize_if_due(&mut self, qid: U256, round: u32, now: u64) -> Result<(), ChainError> {
        let deadline = match self.deadlines.get(&qid) {
            Some((r, d)) if *r == round => *d,
            _ => {
                let contract = self.contract();
                let q = contract.getQuestion(qid).view("getQuestion").await?;
                let p = contract
                    .questionParameters(qid)
                    .view("questionParameters")
                    .await?;
                // A deferred question's window runs from its round's opening.
                let opens = contract.deferral(qid).view("deferral").await?.reportsOpenAt;
                let d = q
                    .resolveAfter
                    .max(q.askedAt)
                    .max(u64::try_from(opens).unwrap_or(u64::MAX))
                    .saturating_add(u64::from(p.reportWindow));
                self.deadlines.insert(qid, (round, d));
                if p.revealWindow > 0 && p.quorum > 1 {
                    self.commit_reveal.insert(qid);
                }
                d
            }
        };
        if now < deadline {
            if !self.commit_reveal.contains(&qid) {
                return Ok(());
            }
            // Commit-reveal: due once the reveal phase is over with a commit unrevealed.
            let phase = self.contract().commitPhase(qid).view("commitPhase").await?;
            if phase.phase != 3 {
                return Ok(());
            }
        }
        let call = IVeritasOracle::finalizeCall { id: qid }.abi_encode();
        if self
            .poster
            .send_call(qid, "finalize", call.into())
            .await?
            .is_some()
        {
            info!(target: "veritas::lifecycle", question = %qid, "report window over before the quorum: finalized");
        }
        Ok(())
    }

    /// A commit-reveal question we reported on whose reveal phase is open with our commitment
    /// still on-chain: our reveal (which clears it) was reorged out. Plain questions cost one
    /// call, once per process.
    async fn reveal_lost(&mut self, qid: U256) -> Result<bool, ChainError> {
        let commit_reveal = match self.is_commit_reveal.get(&qid) {
            Some(c) => *c,
            None => {
                let c = match self.poster.is_commit_reveal(qid).await {
                    Ok(c) => c,
                    // Reorged away: nothing of ours to reveal.
                    Err(ChainError::UnknownQuestion(_)) => return Ok(false),
                    Err(e) => return Err(e),
                };
                self.is_commit_reveal.insert(qid, c);
                c
            }
        };
        if !commit_reveal {
            return Ok(false);
        }
        let contract = self.contract();
        let ours = contract
            .commitmentOf(qid, self.poster.address())
            .view("commitmentOf")
            .await?;
        if ours.is_zero() {
            return Ok(false);
        }
        let phase = contract.commitPhase(qid).view("commitPhase").await?;
        Ok(phase.phase == 2)
    }

    /// Start the committee's second opinion on a disputed question (once per process; a
    /// restart retries one that did not finish, since none was recorded).
    fn second_opinion(&mut self, job: &Job) {
        let qid = job.question.question_id;
        if !self.opining.insert(qid) {
            return;
        }
        let pipeline = Arc::clone(&self.pipeline);
        let job = job.clone();
        self.opinions.spawn(async move {
            if let Err(e) = pipeline.second_opinion(&job).await {
                warn!(target: "veritas::lifecycle", question = %qid, error = %e, "second opinion failed");
            }
        });
    }

    /// The contract's clock as the next transaction would see it: the latest block's
    /// timestamp, or the wall clock when that is later (a chain that mines only on demand,
    /// like anvil, has no newer block until someone sends one; the next one is stamped now).
    async fn chain_time(&self) -> Result<u64, ChainError> {
        let (_, latest) = crate::chain::latest_block(&self.provider).await?;
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        Ok(latest.max(wall))
    }

    fn contract(&self) -> IVeritasOracle::IVeritasOracleInstance<&ChainProvider> {
        IVeritasOracle::new(self.oracle, &self.provider)
    }
}
