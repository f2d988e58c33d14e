//! The report poster: the operator's `submitReport` exactly once per question (the contract
//! pools the operators' reports into the verdict).
//!
//! Exactly once rests on four checks, each covering a crash window the others leave open:
//!
//! 1. `verdictStatus(id)` and `hasReported(id, operator)` are read before anything is sent:
//!    our report already on-chain (from before a crash), or a question no longer open (the
//!    quorum's verdict posted, expired), ends the job as done.
//! 2. `getQuestion(id).questionHash` must equal the hash from the event the job came from, so
//!    a reorg that replaced the question under the same id never gets the old verdict.
//! 3. Each transaction is signed locally and recorded in the store (hash, nonce, fees, signed
//!    bytes) *before* it is broadcast. After a crash the poster finds it, looks up its receipt,
//!    rebroadcasts the very same bytes, or, when stuck past `receipt_timeout`, replaces it at
//!    the same nonce with fees bumped by [`FEE_BUMP_PERCENT`] (nodes demand at least 10%).
//! 4. The contract reverts a second report with `VeritasAlreadyReported` (or `VeritasNotOpen`
//!    once the verdict is posted); gas estimation surfaces that revert before anything is
//!    sent, and it counts as done.
//!
//! Nonces come from a local counter seeded from the account's pending nonce and advanced only
//! once a broadcast succeeded, under one async lock held just for allocate → sign → record →
//! broadcast. Receipt waits happen outside the lock, so several verdicts can be in flight with
//! consecutive nonces. A refused broadcast leaves the counter where it was (no gap); a
//! "nonce too low" answer, or a broadcast whose fate is unknown (timeout), resets it from the
//! chain; "replacement transaction underpriced" (another transaction holds the nonce) re-signs
//! with fees bumped by [`FEE_BUMP_PERCENT`].
//!
//! The parts: [`verdict`] (what one report sends), `batch` (reports ready together share a
//! transaction), `nonce` (nonces, fees, signing and the record before broadcast) and
//! `receipts` (waiting, resuming after a crash, settling), `facts` (the question's standing
//! read at one block, our own events); `commit_reveal` posts the report
//! of a commit-reveal question (`revealWindow` > 0, quorum > 1) as a commitment, then its reveal,
//! with the same records, nonces and receipts.

use std::sync::Arc;
use std::time::Duration;

use alloy::{
    network::EthereumWallet,
    primitives::{Address, B256, U256},
    providers::Provider,
    signers::local::PrivateKeySigner,
};
use tokio::sync::{Mutex, oneshot};

use crate::chain::ViewCall;
use crate::chain::{ChainError, ChainProvider};
use crate::contract::IVeritasOracle;
use crate::policy::not_yet::RoundClock;
use crate::{
    store::{PostIntent, SentTx, Store},
    watcher::events::NewQuestion,
};

mod batch;
mod commit_reveal;
mod cr_txs;
mod facts;
mod nonce;
mod receipts;
mod stake;
pub mod verdict;

pub use commit_reveal::{REVEAL_POLL, report_commitment};
pub use nonce::FEE_BUMP_PERCENT;
pub use verdict::Verdict;

/// Poster settings.
#[derive(Debug, Clone)]
pub struct PosterConfig {
    /// The oracle contract.
    pub oracle: Address,
    /// Chain id transactions are signed for.
    pub chain_id: u64,
    /// How long to wait for a receipt before giving the attempt up (the tx may still land).
    pub receipt_timeout: Duration,
    /// How often the receipt is polled.
    pub receipt_poll: Duration,
    /// How long a ready report waits for others to share its `submitReports` transaction.
    pub batch_window: Duration,
    /// Most reports in one transaction.
    pub max_batch: usize,
    /// Most wei the node stakes in all by topping its stake up itself when a report bond is
    /// short; 0 never tops up.
    pub stake_top_up_limit: U256,
}

/// How a post ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Posted {
    /// Our transaction was mined.
    Mined {
        /// Its hash.
        tx_hash: B256,
        /// Its block.
        block: u64,
        /// Gas it used.
        gas_used: u64,
    },
    /// A verdict was already on-chain (ours before a crash, or another operator's).
    AlreadyOnChain,
}

/// A report waiting for the next batch, and where its transaction goes.
type Queued = (Verdict, oneshot::Sender<Result<Option<SentTx>, ChainError>>);

/// Sends verdicts.
#[derive(Debug)]
pub struct Poster {
    provider: ChainProvider,
    wallet: EthereumWallet,
    from: Address,
    store: Arc<Store>,
    config: PosterConfig,
    /// Next nonce to use; `None` until read from the chain (and after a nonce error).
    nonce: Mutex<Option<u64>>,
    /// Reports waiting for the next `submitReports` batch.
    queue: Mutex<Vec<Queued>>,
    /// Held while a stake shortfall is examined and topped up.
    top_up: Mutex<()>,
}

impl Poster {
    /// Create a poster signing with `signer`.
    pub fn new(
        provider: ChainProvider,
        signer: PrivateKeySigner,
        store: Arc<Store>,
        config: PosterConfig,
    ) -> Self {
        let from = signer.address();
        Self {
            provider,
            wallet: EthereumWallet::from(signer),
            from,
            store,
            config,
            nonce: Mutex::new(None),
            queue: Mutex::new(Vec::new()),
            top_up: Mutex::new(()),
        }
    }

    /// The operator address.
    pub fn address(&self) -> Address {
        self.from
    }

    /// The operator's balance in wei.
    ///
    /// # Errors
    /// [`ChainError::Rpc`].
    pub async fn balance(&self) -> Result<U256, ChainError> {
        self.provider
            .get_balance(self.from)
            .await
            .map_err(|e| ChainError::rpc("eth_getBalance", e))
    }

    pub(super) fn contract(&self) -> IVeritasOracle::IVeritasOracleInstance<&ChainProvider> {
        IVeritasOracle::new(self.config.oracle, &self.provider)
    }

    /// The chain's clock for a report round of `id` (see [`crate::contract::reader::round_clock`]).
    ///
    /// # Errors
    /// [`ChainError`] from the calls.
    pub async fn round_clock(&self, id: U256) -> Result<RoundClock, ChainError> {
        crate::contract::reader::round_clock(&self.provider, self.config.oracle, id).await
    }

    /// The report round `id` is in on-chain: how many times it was deferred.
    ///
    /// # Errors
    /// [`ChainError`] from the call; [`ChainError::Contract`] for a count out of range.
    pub async fn round(&self, id: U256) -> Result<u32, ChainError> {
        let latest = alloy::eips::BlockId::latest();
        crate::contract::reader::round_at(&self.provider, self.config.oracle, id, latest).await
    }

    /// The on-chain status of a question.
    ///
    /// # Errors
    /// [`ChainError`] from the call.
    pub async fn status(&self, id: U256) -> Result<IVeritasOracle::VerdictStatus, ChainError> {
        self.contract()
            .verdictStatus(id)
            .view("verdictStatus")
            .await
    }

    /// Post `intent` for `question` exactly once (see the module docs).
    ///
    /// # Errors
    /// [`ChainError`]: check [`ChainError::is_retryable`]. A [`ChainError::ReceiptTimeout`]
    /// leaves the transaction recorded; the next call picks it up.
    pub async fn post(
        self: &Arc<Self>,
        question: &NewQuestion,
        intent: &PostIntent,
    ) -> Result<Posted, ChainError> {
        let verdict = Verdict::from_intent(intent)?;
        let qid = intent.question_id;
        // A commit-reveal question takes a commitment, then the report: never a batch.
        if self.is_commit_reveal(verdict.id).await? {
            return self.post_commit_reveal(question, &verdict).await;
        }
        if self.on_chain(verdict.id).await? {
            self.reconcile_after_post(qid).await?;
            return Ok(Posted::AlreadyOnChain);
        }
        self.check_question(question, verdict.id).await?;

        // A transaction from an earlier attempt (or before a crash) may still be pending.
        if let Some(outcome) = self.resume_pending(qid, &verdict).await? {
            return Ok(outcome);
        }

        // Join the next batch: reports ready within `batch_window` of each other go out in
        // one `submitReports` transaction.
        let (reply, answer) = oneshot::channel();
        let leader = {
            let mut queue = self.queue.lock().await;
            queue.push((verdict, reply));
            queue.len() == 1
        };
        if leader {
            // Spawned, so a job cancelled while waiting never strands the others' reports.
            let poster = Arc::clone(self);
            tokio::spawn(async move {
                tokio::time::sleep(poster.config.batch_window).await;
                let queued = std::mem::take(&mut *poster.queue.lock().await);
                let mut queued = queued.into_iter().peekable();
                while queued.peek().is_some() {
                    let chunk: Vec<Queued> =
                        queued.by_ref().take(poster.config.max_batch).collect();
                    poster.send_batch(chunk).await;
                }
            });
        }
        let sent = answer.await.map_err(|_| ChainError::Contract {
            op: "submitReports",
            reason: "the batch was dropped before it was sent".into(),
        })??;
        match sent {
            Some(sent) => self.wait(qid, &sent).await,
            None => Ok(Posted::AlreadyOnChain),
        }
    }

    /// Whether there is nothing (more) to send for `id`: our report is on-chain, or the question
    /// no longer takes reports (verdict posted by the quorum, disputed, arbitrated, expired), or
    /// a commit-reveal question's commit phase ended without a commitment of ours.
    ///
    /// # Errors
    /// [`ChainError`] from the calls; [`ChainError::UnknownQuestion`] for an id never asked.
    pub async fn on_chain(&self, id: U256) -> Result<bool, ChainError> {
        self.on_chain_asking(id, 2).await
    }

    /// [`Self::on_chain`]; `rounds`: how many more times the whole check may be read again
    /// after a `canReport` that said no for a reason that changed meanwhile (our top-up, our
    /// report landing). Only the first round may top the stake up.
    async fn on_chain_asking(&self, id: U256, rounds: u8) -> Result<bool, ChainError> {
        let facts = self.facts(id).await?;
        // Every status after Asked is past the reports (the enum only grows after Asked).
        if !facts.open || facts.reported {
            return Ok(true);
        }
        // Contract v3 binds a question to the operators of its ask's epoch: a key added later
        // (or removed) must not spend a committee on it.
        if facts.can_report {
            // Plain questions (phase 0) and an open commit phase: a committee to run.
            if facts.phase < 2 {
                return Ok(false);
            }
            // The commit phase is over without a commitment of ours. A commitment withheld
            // past its reveal deadline reopens its slot at `finalize` (issue #43), so a spare
            // operator that first sees the question now looks again until the slot reopens
            // or the question closes, without a committee run for a slot that may not reopen.
            if facts.on_chain == B256::ZERO {
                return Err(commit_reveal::wait_for_reopen(id));
            }
            return Ok(true);
        }
        // No also means a free stake below the report bond, which passes (or is topped up
        // here): only an operator outside the epoch fails the question.
        match self.why_not(id, rounds == 2).await? {
            stake::CannotReport::AskAgain if rounds > 0 => {
                Box::pin(self.on_chain_asking(id, rounds - 1)).await
            }
            _ => Err(ChainError::NotQuestionOperator {
                id,
                operator: self.from,
            }),
        }
    }

    async fn check_question(&self, question: &NewQuestion, id: U256) -> Result<(), ChainError> {
        let stored = self.contract().getQuestion(id).view("getQuestion").await?;
        let actual = stored.questionHash;
        if actual != question.question_hash {
            return Err(ChainError::QuestionMismatch {
                id: question.question_id,
                expected: question.question_hash,
                actual,
            });
        }
        Ok(())
    }
}
