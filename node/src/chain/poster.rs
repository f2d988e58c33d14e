//! The verdict poster: `postVerdict` exactly once per question.
//!
//! Exactly once rests on four checks, each covering a crash window the others leave open:
//!
//! 1. `verdictStatus(id)` is read before anything is sent: a verdict already on-chain (ours
//!    from before a crash, or anyone's) ends the job as done.
//! 2. `getQuestion(id).questionHash` must equal the hash from the event the job came from, so
//!    a reorg that replaced the question under the same id never gets the old verdict.
//! 3. Each transaction is signed locally and recorded in the store (hash, nonce, fees, signed
//!    bytes) *before* it is broadcast. After a crash the poster finds it, looks up its receipt,
//!    rebroadcasts the very same bytes, or, when stuck past `receipt_timeout`, replaces it at
//!    the same nonce with fees bumped by [`FEE_BUMP_PERCENT`] (nodes demand at least 10%).
//! 4. The contract reverts a second verdict with `VeritasVerdictAlreadyPosted`; gas estimation
//!    surfaces that revert before anything is sent, and it counts as done.
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
use tokio::sync::Mutex;
use tracing::{debug, info, warn};

use super::{ChainError, ChainProvider, IVeritasOracle, OracleError};
use crate::store::{NewQuestion, PostIntent, SentTx, Store, TxStatus, now_ms};

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
}

/// The verdict as the contract takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// Question id.
    pub id: U256,
    /// Evidence Merkle root.
    pub merkle_root: B256,
    /// 1e18-scaled YES.
    pub p_yes: U256,
    /// 1e18-scaled NO.
    pub p_no: U256,
    /// 1e18-scaled NULL.
    pub p_null: U256,
    /// 1e18-scaled Fleiss' kappa.
    pub kappa: I256,
    /// Routing escalated it.
    pub escalated: bool,
}

impl Verdict {
    /// The verdict a saved intent holds (typed end to end: nothing to parse).
    pub fn from_intent(intent: &PostIntent) -> Self {
        Self {
            id: intent.question_id,
            merkle_root: intent.merkle_root,
            p_yes: intent.p_yes,
            p_no: intent.p_no,
            p_null: intent.p_null,
            kappa: intent.kappa,
            escalated: intent.escalated,
        }
    }

    fn calldata(&self) -> Bytes {
        IVeritasOracle::postVerdictCall {
            id: self.id,
            merkleRoot: self.merkle_root,
            pYes: self.p_yes,
            pNo: self.p_no,
            pNull: self.p_null,
            fleissKappa: self.kappa,
            escalated: self.escalated,
        }
        .abi_encode()
        .into()
    }
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
        &self,
        question: &NewQuestion,
        intent: &PostIntent,
    ) -> Result<Posted, ChainError> {
        let verdict = Verdict::from_intent(intent);
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

        let request = self.request(&verdict);
        let gas = match self.provider.estimate_gas(request.clone()).await {
            Ok(gas) => gas,
            Err(e) => {
                return match ChainError::rpc("estimateGas(postVerdict)", e) {
                    ChainError::Revert {
                        error: OracleError::VeritasVerdictAlreadyPosted(_),
                        ..
                    } => Ok(Posted::AlreadyOnChain),
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
        let sent = self
            .sign_and_send(
                qid,
                request,
                None,
                gas_limit,
                fees.max_fee_per_gas,
                fees.max_priority_fee_per_gas,
            )
            .await?;
        self.wait(qid, &sent).await
    }

    async fn on_chain(&self, id: U256) -> Result<bool, ChainError> {
        use IVeritasOracle::VerdictStatus as S;
        Ok(match self.status(id).await? {
            S::Resolved | S::Escalated | S::Arbitrated => true,
            S::Asked => false,
            S::None => return Err(ChainError::UnknownQuestion(id)),
            // Future statuses are verdicts by construction (the enum only grows after Asked).
            _ => true,
        })
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
        let age = Duration::from_millis(u64::try_from(now_ms() - tx.sent_at).unwrap_or(0));
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
                    qid,
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
        qid: U256,
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
                .sign_and_record(qid, request.clone(), nonce, gas_limit, max_fee, priority)
                .await?;
            let e = match self.provider.send_raw_transaction(&raw).await {
                Ok(_) => {
                    if reuse_nonce.is_none() {
                        *next = Some(nonce + 1);
                    }
                    info!(target: "veritas::post", question = %qid, tx = %sent.tx_hash, nonce, "verdict transaction sent");
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
                info!(target: "veritas::post", question = %qid, tx = %sent.tx_hash, nonce, "verdict transaction sent (answer lost, node has it)");
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
                warn!(target: "veritas::post", question = %qid, nonce, max_fee, priority, bumps, "another transaction holds this nonce; bumping fees");
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
        qid: U256,
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
            question_id: qid,
            nonce,
            gas_limit,
            max_fee_per_gas,
            max_priority_fee_per_gas,
            raw: Bytes::from(raw.clone()),
            status: TxStatus::Pending,
            block_number: None,
            sent_at: now_ms(),
        };
        self.store.record_tx(&sent)?;
        Ok((sent, *envelope.tx_hash(), raw))
    }

    async fn wait(&self, qid: U256, tx: &SentTx) -> Result<Posted, ChainError> {
        let hash = tx.tx_hash;
        let start = Instant::now();
        loop {
            match self.provider.get_transaction_receipt(hash).await {
                Ok(Some(receipt)) => return self.settle(qid, tx, receipt).await,
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
                    tx_hash: tx.tx_hash,
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
