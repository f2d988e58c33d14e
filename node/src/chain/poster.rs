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

use std::sync::Arc;
use std::time::{Duration, Instant};

use alloy::{
    consensus::TxEnvelope,
    eips::Encodable2718,
    network::{Ethereum, EthereumWallet, NetworkWallet, TransactionBuilder},
    primitives::{Address, B256, Bytes, I256, U256},
    providers::Provider,
    rpc::types::TransactionRequest,
    signers::local::PrivateKeySigner,
    sol_types::SolCall,
};
use tokio::sync::{Mutex, oneshot};
use tracing::{debug, info, warn};

use super::{ChainError, ChainProvider, IVeritasOracle, OracleError};
use crate::stats;
use crate::store::{NewQuestion, PostIntent, SentTx, Store, TxStatus};

/// Fee bump when replacing a stuck transaction (12.5%, above the 10% nodes require).
pub const FEE_BUMP_PERCENT: u128 = 125;
/// Fee bumps in a row after "replacement transaction underpriced" (1.125^8 ≈ 2.6× the fees).
const MAX_UNDERPRICED_BUMPS: u32 = 8;
/// Gas limit headroom over the estimate, in percent.
const GAS_HEADROOM_PERCENT: u64 = 130;

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
}

/// The operator's report as the contract (v2, `submitReport`) takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// Question id.
    pub id: U256,
    /// Evidence Merkle root.
    pub merkle_root: B256,
    /// Valid ballots (n_YES, n_NO, n_NULL): the contract pools them and computes the triple.
    pub counts: [u16; 3],
    /// 1e18-scaled Fleiss' kappa.
    pub kappa: I256,
    /// Routing escalated it.
    pub escalated: bool,
}

impl Verdict {
    /// The verdict a saved intent holds: its typed values, and the ballot counts the contract
    /// pools (the intent's, or for an intent saved before they were stored, its report's).
    ///
    /// # Errors
    /// [`ChainError::Contract`] when the counts cannot be read, exceed the contract's 16 bits,
    /// or do not give the stored triple (the contract computes the triple from the counts, so
    /// it must be the report's).
    pub fn from_intent(intent: &PostIntent) -> Result<Self, ChainError> {
        let counts = match intent.counts {
            Some(counts) => {
                let narrow = |n: u64| {
                    u16::try_from(n).map_err(|_| ChainError::Contract {
                        op: "intent",
                        reason: format!("count {n} of question {} above 65535", intent.question_id),
                    })
                };
                [narrow(counts[0])?, narrow(counts[1])?, narrow(counts[2])?]
            }
            None => report_counts(&intent.report_path)?,
        };
        // A triple that does not even fit 128 bits cannot match (to_wad's values are ≤ 1e18).
        let triple = [intent.p_yes, intent.p_no, intent.p_null].map(|p| u128::try_from(p).ok());
        if stats::to_wad(counts.map(u64::from)).map(Some) != triple {
            return Err(ChainError::Contract {
                op: "intent",
                reason: format!(
                    "counts {counts:?} of question {} do not give the stored triple",
                    intent.question_id
                ),
            });
        }
        Ok(Self {
            id: intent.question_id,
            merkle_root: intent.merkle_root,
            counts,
            kappa: intent.kappa,
            escalated: intent.escalated,
        })
    }

    fn calldata(&self) -> Bytes {
        IVeritasOracle::submitReportCall {
            id: self.id,
            merkleRoot: self.merkle_root,
            nYes: self.counts[0],
            nNo: self.counts[1],
            nNull: self.counts[2],
            fleissKappa: self.kappa,
            escalated: self.escalated,
        }
        .abi_encode()
        .into()
    }
}

/// The valid-ballot counts (`stats.counts`) of the report file at `path`: what the contract
/// pools (the intent stores only the triple they give).
fn report_counts(path: &str) -> Result<[u16; 3], ChainError> {
    let bad = |reason: String| ChainError::Contract {
        op: "report counts",
        reason: format!("{path}: {reason}"),
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let report: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let count = |outcome: &str| {
        report
            .pointer(&format!("/stats/counts/{outcome}"))
            .and_then(serde_json::Value::as_u64)
            .and_then(|n| u16::try_from(n).ok())
            .ok_or_else(|| bad(format!("no stats.counts.{outcome} below 65536")))
    };
    Ok([count("YES")?, count("NO")?, count("NULL")?])
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

    fn contract(&self) -> IVeritasOracle::IVeritasOracleInstance<&ChainProvider> {
        IVeritasOracle::new(self.config.oracle, &self.provider)
    }

    /// The on-chain status of a question.
    ///
    /// # Errors
    /// [`ChainError`] from the call.
    pub async fn status(&self, id: U256) -> Result<IVeritasOracle::VerdictStatus, ChainError> {
        self.contract()
            .verdictStatus(id)
            .call()
            .await
            .map_err(|e| ChainError::contract("verdictStatus", e))
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

    /// Send the queued reports: alone as `submitReport`, together as `submitReports` (stale
    /// ones are skipped by the contract, not reverted). Each report's sender gets the recorded
    /// transaction, or `None` when its question no longer takes reports. A batch the contract
    /// would revert as a whole (one report invalid for a reason other than staleness) is split
    /// and each report sent alone, so one bad report never holds the others back.
    async fn send_batch(&self, queued: Vec<Queued>) {
        let verdicts: Vec<Verdict> = queued.iter().map(|q| q.0).collect();
        let result = self.send_reports(&verdicts).await;
        match result {
            Err(e) if verdicts.len() > 1 && matches!(e, ChainError::Revert { .. }) => {
                warn!(target: "veritas::post", reports = verdicts.len(), error = %e, "batch refused; sending each report alone");
                for (verdict, reply) in queued {
                    let one = self.send_reports(&[verdict]).await;
                    let _ = reply.send(one);
                }
            }
            result => {
                for (_, reply) in queued {
                    let _ = reply.send(match &result {
                        Ok(sent) => Ok(sent.clone()),
                        Err(e) => Err(e.clone_for_batch()),
                    });
                }
            }
        }
    }

    /// Estimate, sign, record (one row per question) and broadcast the reports of `verdicts`.
    async fn send_reports(&self, verdicts: &[Verdict]) -> Result<Option<SentTx>, ChainError> {
        let request = match verdicts {
            [one] => self.request(one),
            many => self.batch_request(many),
        };
        let gas = match self.provider.estimate_gas(request.clone()).await {
            Ok(gas) => gas,
            Err(e) => {
                return match ChainError::rpc("estimateGas(submitReport)", e) {
                    ChainError::Revert {
                        error:
                            OracleError::VeritasAlreadyReported(_) | OracleError::VeritasNotOpen(_),
                        ..
                    } if verdicts.len() == 1 => Ok(None),
                    other => Err(other),
                };
            }
        };
        let gas_limit = gas.saturating_mul(GAS_HEADROOM_PERCENT) / 100;
        let fees = self
            .provider
            .estimate_eip1559_fees()
            .await
            .map_err(|e| ChainError::rpc("eip1559 fees", e))?;
        let questions: Vec<U256> = verdicts.iter().map(|v| v.id).collect();
        let sent = self
            .sign_and_send(
                &questions,
                request,
                None,
                gas_limit,
                fees.max_fee_per_gas,
                fees.max_priority_fee_per_gas,
            )
            .await?;
        Ok(Some(sent))
    }

    /// Send a housekeeping call about question `qid` (`finalize`, `settle`) through the same
    /// nonce counter as reports. Gas is estimated first, so a call the contract would refuse
    /// (another node got there first) costs nothing and returns `None`.
    ///
    /// # Errors
    /// [`ChainError`] from the RPC, or a mined transaction that reverted.
    pub async fn send_call(
        &self,
        qid: U256,
        what: &'static str,
        calldata: Bytes,
    ) -> Result<Option<B256>, ChainError> {
        let request = TransactionRequest::default()
            .with_from(self.from)
            .with_to(self.config.oracle)
            .with_input(calldata)
            .with_chain_id(self.config.chain_id);
        let gas = match self.provider.estimate_gas(request.clone()).await {
            Ok(gas) => gas,
            Err(e) => {
                let err = ChainError::rpc("estimateGas", e);
                if matches!(err, ChainError::Revert { .. }) {
                    debug!(target: "veritas::post", question = %qid, what, error = %err, "not needed");
                    return Ok(None);
                }
                return Err(err);
            }
        };
        let fees = self
            .provider
            .estimate_eip1559_fees()
            .await
            .map_err(|e| ChainError::rpc("eip1559 fees", e))?;
        let sent = self
            .sign_and_send(
                &[qid],
                request,
                None,
                gas.saturating_mul(GAS_HEADROOM_PERCENT) / 100,
                fees.max_fee_per_gas,
                fees.max_priority_fee_per_gas,
            )
            .await?;
        let receipt = self.receipt(qid, sent.tx_hash).await?;
        let status = if receipt.status() {
            TxStatus::Mined
        } else {
            TxStatus::Reverted
        };
        self.store
            .set_tx_status(sent.tx_hash, status, receipt.block_number)?;
        if !receipt.status() {
            return Err(ChainError::Reverted {
                tx_hash: sent.tx_hash,
            });
        }
        info!(target: "veritas::post", question = %qid, what, tx = %sent.tx_hash, "sent");
        Ok(Some(sent.tx_hash))
    }

    /// The transaction and block of our `ReportSubmitted` for `id`, searched from `from_block`
    /// (the question's block): `None` when we never reported on it.
    ///
    /// # Errors
    /// [`ChainError::Rpc`].
    pub async fn report_tx(
        &self,
        id: U256,
        from_block: u64,
    ) -> Result<Option<(B256, u64)>, ChainError> {
        use alloy::{rpc::types::Filter, sol_types::SolEvent};
        let filter = Filter::new()
            .address(self.config.oracle)
            .event_signature(IVeritasOracle::ReportSubmitted::SIGNATURE_HASH)
            .topic1(id)
            .topic2(self.from.into_word())
            .from_block(from_block);
        let logs = self
            .provider
            .get_logs(&filter)
            .await
            .map_err(|e| ChainError::rpc("eth_getLogs", e))?;
        Ok(logs
            .first()
            .and_then(|l| Some((l.transaction_hash?, l.block_number?))))
    }

    /// Whether there is nothing (more) to send for `id`: our report is on-chain, or the question
    /// no longer takes reports (verdict posted by the quorum, disputed, arbitrated, expired).
    ///
    /// # Errors
    /// [`ChainError`] from the calls; [`ChainError::UnknownQuestion`] for an id never asked.
    pub async fn on_chain(&self, id: U256) -> Result<bool, ChainError> {
        use IVeritasOracle::VerdictStatus as S;
        match self.status(id).await? {
            S::Asked => {
                let contract = self.contract();
                if contract
                    .hasReported(id, self.from)
                    .call()
                    .await
                    .map_err(|e| ChainError::contract("hasReported", e))?
                {
                    return Ok(true);
                }
                // Contract v3 binds a question to the operators of its ask's epoch: a key
                // added later (or removed) must not spend a committee on it.
                let can = contract
                    .canReport(id, self.from)
                    .call()
                    .await
                    .map_err(|e| ChainError::contract("canReport", e))?;
                if can {
                    Ok(false)
                } else {
                    Err(ChainError::NotQuestionOperator {
                        id,
                        operator: self.from,
                    })
                }
            }
            S::None => Err(ChainError::UnknownQuestion(id)),
            // Every later status is past the reports (the enum only grows after Asked).
            _ => Ok(true),
        }
    }

    async fn check_question(&self, question: &NewQuestion, id: U256) -> Result<(), ChainError> {
        let stored = self
            .contract()
            .getQuestion(id)
            .call()
            .await
            .map_err(|e| ChainError::contract("getQuestion", e))?;
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

    fn batch_request(&self, verdicts: &[Verdict]) -> TransactionRequest {
        let reports = verdicts
            .iter()
            .map(|v| IVeritasOracle::Report {
                id: v.id,
                merkleRoot: v.merkle_root,
                nYes: v.counts[0],
                nNo: v.counts[1],
                nNull: v.counts[2],
                fleissKappa: v.kappa,
                escalated: v.escalated,
            })
            .collect();
        TransactionRequest::default()
            .with_from(self.from)
            .with_to(self.config.oracle)
            .with_input(Bytes::from(
                IVeritasOracle::submitReportsCall { reports }.abi_encode(),
            ))
            .with_chain_id(self.config.chain_id)
    }

    fn request(&self, verdict: &Verdict) -> TransactionRequest {
        TransactionRequest::default()
            .with_from(self.from)
            .with_to(self.config.oracle)
            .with_input(verdict.calldata())
            .with_chain_id(self.config.chain_id)
    }

    /// The verdict is on-chain: settle our recorded transactions' statuses.
    async fn reconcile_after_post(&self, qid: U256) -> Result<(), ChainError> {
        for tx in self.store.txs_for(qid)? {
            if tx.status != TxStatus::Pending {
                continue;
            }
            let receipt = self
                .provider
                .get_transaction_receipt(tx.tx_hash)
                .await
                .map_err(|e| ChainError::rpc("eth_getTransactionReceipt", e))?;
            let (status, block) = match receipt {
                Some(r) if r.status() => (TxStatus::Mined, r.block_number),
                Some(r) => (TxStatus::Reverted, r.block_number),
                None => (TxStatus::Dropped, None),
            };
            self.store.set_tx_status(tx.tx_hash, status, block)?;
        }
        Ok(())
    }

    /// Pick up a pending transaction of an earlier attempt: its receipt, a rebroadcast of the
    /// same bytes, or a fee-bumped replacement at the same nonce once it is stuck.
    async fn resume_pending(
        &self,
        qid: U256,
        verdict: &Verdict,
    ) -> Result<Option<Posted>, ChainError> {
        let Some(tx) = self
            .store
            .txs_for(qid)?
            .into_iter()
            .rev()
            .find(|t| t.status == TxStatus::Pending)
        else {
            return Ok(None);
        };
        if let Some(receipt) = self
            .provider
            .get_transaction_receipt(tx.tx_hash)
            .await
            .map_err(|e| ChainError::rpc("eth_getTransactionReceipt", e))?
        {
            return self.settle(qid, &tx, receipt).await.map(Some);
        }
        let mined_nonce = self
            .provider
            .get_transaction_count(self.from)
            .latest()
            .await
            .map_err(|e| ChainError::rpc("eth_getTransactionCount", e))?;
        if mined_nonce > tx.nonce {
            // Its nonce went to another transaction; this one can never be mined.
            info!(target: "veritas::post", question = %qid, tx = %tx.tx_hash, nonce = tx.nonce, "recorded transaction dropped");
            self.store
                .set_tx_status(tx.tx_hash, TxStatus::Dropped, None)?;
            return Ok(None);
        }
        let age =
            Duration::from_millis(u64::try_from(self.store.now_ms() - tx.sent_at).unwrap_or(0));
        if age >= self.config.receipt_timeout {
            // Stuck: replace at the same nonce with bumped fees.

            let fees = self
                .provider
                .estimate_eip1559_fees()
                .await
                .map_err(|e| ChainError::rpc("eip1559 fees", e))?;
            let max_fee = bump_fee(tx.max_fee_per_gas).max(fees.max_fee_per_gas);
            let priority = bump_fee(tx.max_priority_fee_per_gas).max(fees.max_priority_fee_per_gas);
            warn!(target: "veritas::post", question = %qid, tx = %tx.tx_hash, nonce = tx.nonce, max_fee, "replacing stuck transaction");
            let replacement = self
                .sign_and_send(
                    &[qid],
                    self.request(verdict),
                    Some(tx.nonce),
                    tx.gas_limit,
                    max_fee,
                    priority,
                )
                .await?;
            self.store
                .set_tx_status(tx.tx_hash, TxStatus::Dropped, None)?;
            return self.wait(qid, &replacement).await.map(Some);
        }
        // Rebroadcast the same bytes (harmless if the node already has them).
        if let Err(e) = self.provider.send_raw_transaction(&tx.raw).await {
            debug!(target: "veritas::post", question = %qid, tx = %tx.tx_hash, error = %e, "rebroadcast refused");
        }
        self.wait(qid, &tx).await.map(Some)
    }

    /// Allocate (or reuse) a nonce, sign, record, broadcast. The nonce lock is held throughout
    /// so that nonces go out in order and a failed broadcast leaves no gap.
    ///
    /// "replacement transaction underpriced" means another transaction holds this nonce in the
    /// pool (ours from an attempt whose answer was lost, or one sent with the same key by
    /// another process) and ours does not pay the 10% more a replacement must. Sending again
    /// at the same fees would be refused forever, so the fees are bumped by
    /// [`FEE_BUMP_PERCENT`] over the higher of ours and the holder's (when the RPC can tell,
    /// see [`Self::nonce_holder`]) and the transaction re-signed, at most [`MAX_UNDERPRICED_BUMPS`]
    /// times in a row; past that the other transaction pays far more than the market and will
    /// be mined, after which "nonce too low" moves us to the next nonce.
    async fn sign_and_send(
        &self,
        questions: &[U256],
        request: TransactionRequest,
        reuse_nonce: Option<u64>,
        gas_limit: u64,
        max_fee_per_gas: u128,
        max_priority_fee_per_gas: u128,
    ) -> Result<SentTx, ChainError> {
        let mut next = self.nonce.lock().await;
        let nonce = match (reuse_nonce, *next) {
            (Some(n), _) => n,
            (None, Some(n)) => n,
            (None, None) => self
                .provider
                .get_transaction_count(self.from)
                .pending()
                .await
                .map_err(|e| ChainError::rpc("eth_getTransactionCount", e))?,
        };
        let (mut max_fee, mut priority) = (max_fee_per_gas, max_priority_fee_per_gas);
        let mut bumps = 0;
        loop {
            let (sent, hash, raw) = self
                .sign_and_record(
                    questions,
                    request.clone(),
                    nonce,
                    gas_limit,
                    max_fee,
                    priority,
                )
                .await?;
            let e = match self.provider.send_raw_transaction(&raw).await {
                Ok(_) => {
                    if reuse_nonce.is_none() {
                        *next = Some(nonce + 1);
                    }
                    info!(target: "veritas::post", questions = ?questions, tx = %sent.tx_hash, nonce, "report transaction sent");
                    return Ok(sent);
                }
                Err(e) => e,
            };
            let definite = e.is_error_resp();
            let err = ChainError::rpc("eth_sendRawTransaction", e);
            // A retried broadcast whose first answer was lost comes back "already known"
            // or "nonce too low": ask the node whether it has our transaction.
            if err.is_already_known()
                || matches!(
                    self.provider.get_transaction_by_hash(hash).await,
                    Ok(Some(_))
                )
            {
                if reuse_nonce.is_none() {
                    *next = Some(nonce + 1);
                }
                info!(target: "veritas::post", questions = ?questions, tx = %sent.tx_hash, nonce, "report transaction sent (answer lost, node has it)");
                return Ok(sent);
            }
            if !definite {
                // No answer (timeout, connection lost): it may have been accepted. Keep it
                // pending so the next attempt looks for its receipt or rebroadcasts it, and
                // re-read the nonce from the chain rather than guess.
                *next = None;
                return Err(err);
            }
            // The node refused it: it will never be mined.
            self.store
                .set_tx_status(sent.tx_hash, TxStatus::Dropped, None)?;
            if err.is_underpriced() && bumps < MAX_UNDERPRICED_BUMPS {
                match self.nonce_holder(nonce).await {
                    NonceHolder::Mined => {
                        // The nonce is spent after all: re-read it from the chain next time.
                        *next = None;
                        return Err(err);
                    }
                    NonceHolder::Pending {
                        max_fee_per_gas,
                        max_priority_fee_per_gas,
                    } => {
                        max_fee = max_fee.max(max_fee_per_gas);
                        priority = priority.max(max_priority_fee_per_gas);
                    }
                    NonceHolder::Unknown => {}
                }
                bumps += 1;
                max_fee = bump_fee(max_fee);
                priority = bump_fee(priority).min(max_fee);
                warn!(target: "veritas::post", questions = ?questions, nonce, max_fee, priority, bumps, "another transaction holds this nonce; bumping fees");
                continue;
            }
            if err.is_nonce_error() {
                // Our counter disagrees with the chain: read it again next time.
                *next = None;
            }
            return Err(err);
        }
    }

    /// What holds `nonce` of the operator, asked with `eth_getTransactionBySenderAndNonce`
    /// (anvil, reth, erigon). Nodes without it (geth) answer [`NonceHolder::Unknown`]; those
    /// enforce the 10% replacement rule themselves, so bumping our own fees until one is
    /// accepted still outbids the holder by 10%.
    async fn nonce_holder(&self, nonce: u64) -> NonceHolder {
        let answer: Result<Option<serde_json::Value>, _> = self
            .provider
            .raw_request(
                "eth_getTransactionBySenderAndNonce".into(),
                (self.from, alloy::primitives::U64::from(nonce)),
            )
            .await;
        let Ok(Some(tx)) = answer else {
            return NonceHolder::Unknown;
        };
        if !tx["blockNumber"].is_null() {
            return NonceHolder::Mined;
        }
        let fee = |key: &str| {
            tx[key]
                .as_str()
                .and_then(|v| u128::from_str_radix(v.trim_start_matches("0x"), 16).ok())
        };
        match (
            fee("maxFeePerGas").or_else(|| fee("gasPrice")),
            fee("maxPriorityFeePerGas").or_else(|| fee("gasPrice")),
        ) {
            (Some(max_fee_per_gas), Some(max_priority_fee_per_gas)) => NonceHolder::Pending {
                max_fee_per_gas,
                max_priority_fee_per_gas,
            },
            _ => NonceHolder::Unknown,
        }
    }

    /// Sign the request at `nonce` with these fees and record it (before any broadcast: a
    /// crash after the broadcast still leaves a trace). Returns the record, its hash and the
    /// raw bytes.
    async fn sign_and_record(
        &self,
        questions: &[U256],
        request: TransactionRequest,
        nonce: u64,
        gas_limit: u64,
        max_fee_per_gas: u128,
        max_priority_fee_per_gas: u128,
    ) -> Result<(SentTx, B256, Vec<u8>), ChainError> {
        let request = request
            .with_nonce(nonce)
            .with_gas_limit(gas_limit)
            .with_max_fee_per_gas(max_fee_per_gas)
            .with_max_priority_fee_per_gas(max_priority_fee_per_gas);
        let envelope: TxEnvelope =
            <EthereumWallet as NetworkWallet<Ethereum>>::sign_request(&self.wallet, request)
                .await
                .map_err(|e| ChainError::Signing(e.to_string()))?;
        let raw = envelope.encoded_2718();
        let sent = SentTx {
            tx_hash: *envelope.tx_hash(),
            question_id: questions.first().copied().unwrap_or_default(),
            nonce,
            gas_limit,
            max_fee_per_gas,
            max_priority_fee_per_gas,
            raw: Bytes::from(raw.clone()),
            status: TxStatus::Pending,
            block_number: None,
            sent_at: self.store.now_ms(),
        };
        self.store.record_batch_tx(&sent, questions)?;
        Ok((sent, *envelope.tx_hash(), raw))
    }

    async fn wait(&self, qid: U256, tx: &SentTx) -> Result<Posted, ChainError> {
        let receipt = self.receipt(qid, tx.tx_hash).await?;
        self.settle(qid, tx, receipt).await
    }

    /// Poll for the receipt of `hash` every `receipt_poll` until `receipt_timeout`; transient
    /// RPC failures are polled through.
    async fn receipt(
        &self,
        qid: U256,
        hash: B256,
    ) -> Result<alloy::rpc::types::TransactionReceipt, ChainError> {
        let start = Instant::now();
        loop {
            match self.provider.get_transaction_receipt(hash).await {
                Ok(Some(receipt)) => return Ok(receipt),
                Ok(None) => {}
                Err(e) => {
                    let err = ChainError::rpc("eth_getTransactionReceipt", e);
                    if !err.is_retryable() {
                        return Err(err);
                    }
                    debug!(target: "veritas::post", question = %qid, error = %err, "receipt poll failed");
                }
            }
            if start.elapsed() >= self.config.receipt_timeout {
                return Err(ChainError::ReceiptTimeout {
                    tx_hash: hash,
                    waited: start.elapsed(),
                });
            }
            tokio::time::sleep(self.config.receipt_poll).await;
        }
    }

    async fn settle(
        &self,
        qid: U256,
        tx: &SentTx,
        receipt: alloy::rpc::types::TransactionReceipt,
    ) -> Result<Posted, ChainError> {
        if receipt.status() {
            self.store
                .set_tx_status(tx.tx_hash, TxStatus::Mined, receipt.block_number)?;
            // In a batch, a stale report is skipped (`ReportSkipped`), not reverted: ours is
            // on-chain only if the receipt holds its `ReportSubmitted`.
            let ours = receipt.inner.logs().iter().any(|log| {
                log.log_decode::<IVeritasOracle::ReportSubmitted>()
                    .is_ok_and(|e| e.inner.data.id == qid && e.inner.data.operator == self.from)
            });
            if !ours {
                self.store.mark_skipped(tx.tx_hash, qid)?;
                info!(target: "veritas::post", question = %qid, tx = %tx.tx_hash, "report skipped as stale (the question stopped taking reports)");
                return Ok(Posted::AlreadyOnChain);
            }
            info!(target: "veritas::post", question = %qid, tx = %tx.tx_hash, block = ?receipt.block_number, gas = receipt.gas_used, "verdict posted");
            return Ok(Posted::Mined {
                tx_hash: receipt.transaction_hash,
                block: receipt.block_number.unwrap_or_default(),
                gas_used: receipt.gas_used,
            });
        }
        self.store
            .set_tx_status(tx.tx_hash, TxStatus::Reverted, receipt.block_number)?;
        // A revert is most likely "already posted" by an earlier transaction of ours.
        if self.on_chain(qid).await? {
            return Ok(Posted::AlreadyOnChain);
        }
        Err(ChainError::Reverted {
            tx_hash: tx.tx_hash,
        })
    }
}

/// The transaction holding one of the operator's nonces, as the RPC tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NonceHolder {
    /// Mined: the nonce is spent.
    Mined,
    /// Waiting in the pool with these fees.
    Pending {
        max_fee_per_gas: u128,
        max_priority_fee_per_gas: u128,
    },
    /// The RPC cannot tell.
    Unknown,
}

/// `fee` raised by [`FEE_BUMP_PERCENT`], rounded up (never by less than 1 wei).
fn bump_fee(fee: u128) -> u128 {
    fee.saturating_mul(FEE_BUMP_PERCENT)
        .div_ceil(100)
        .max(fee + 1)
}
