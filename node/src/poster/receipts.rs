//! After the broadcast: polling for the receipt, settling what it says (ours, skipped as
//! stale, reverted), resuming a transaction recorded before a crash (receipt, rebroadcast of
//! the same bytes, or a fee-bumped replacement at the same nonce), and housekeeping calls.

use std::time::{Duration, Instant};

use alloy::{
    network::TransactionBuilder,
    primitives::{B256, Bytes, U256},
    providers::Provider,
    rpc::types::{TransactionReceipt, TransactionRequest},
};
use tracing::{debug, info};

use super::nonce::GAS_HEADROOM_PERCENT;
use super::{Posted, Poster, Verdict};
use crate::store::{SentTx, TxStatus};
use crate::{chain::ChainError, contract::IVeritasOracle};

impl Poster {
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
        self.send_call_paying(&[qid], what, calldata, U256::ZERO)
            .await
    }

    /// [`Self::send_call`] sending `value` wei along, recorded against `questions` (none: a
    /// call about no question, such as a stake top-up, is not resumed after a crash; the
    /// caller reads the chain again instead).
    pub(super) async fn send_call_paying(
        &self,
        questions: &[U256],
        what: &'static str,
        calldata: Bytes,
        value: U256,
    ) -> Result<Option<B256>, ChainError> {
        let qid = questions.first().copied().unwrap_or_default();
        let request = TransactionRequest::default()
            .with_from(self.from)
            .with_to(self.config.oracle)
            .with_input(calldata)
            .with_value(value)
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
                questions,
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

    /// The receipt of `hash` as the chain has it now (`None`: not mined, or reorged out); one
    /// look, no waiting (waiting is [`Self::receipt`]).
    pub(super) async fn receipt_now(
        &self,
        hash: B256,
    ) -> Result<Option<alloy::rpc::types::TransactionReceipt>, ChainError> {
        self.provider
            .get_transaction_receipt(hash)
            .await
            .map_err(|e| ChainError::rpc("eth_getTransactionReceipt", e))
    }

    /// The verdict is on-chain: settle our recorded transactions' statuses.
    pub(super) async fn reconcile_after_post(&self, qid: U256) -> Result<(), ChainError> {
        for tx in self.store.txs_for(qid)? {
            if tx.status != TxStatus::Pending {
                continue;
            }
            let receipt = self.receipt_now(tx.tx_hash).await?;
            let (status, block) = match receipt {
                Some(r) if r.status() => (TxStatus::Mined, r.block_number),
                Some(r) => (TxStatus::Reverted, r.block_number),
                None => (TxStatus::Dropped, None),
            };
            self.store.set_tx_status(tx.tx_hash, status, block)?;
        }
        Ok(())
    }

    /// The latest transaction about `qid` still recorded pending, if any.
    pub(super) fn pending_tx(&self, qid: U256) -> Result<Option<SentTx>, ChainError> {
        Ok(self
            .store
            .txs_for(qid)?
            .into_iter()
            .rev()
            .find(|t| t.status == TxStatus::Pending))
    }

    /// Pick up the pending report transaction of an earlier attempt (see [`Self::resume_tx`]).
    pub(super) async fn resume_pending(
        &self,
        qid: U256,
        verdict: &Verdict,
    ) -> Result<Option<Posted>, ChainError> {
        let Some(tx) = self.pending_tx(qid)? else {
            return Ok(None);
        };
        match self.resume_tx(qid, &tx, || self.request(verdict)).await? {
            Resumed::Landed(sent, receipt) => self.settle(qid, &sent, *receipt).await.map(Some),
            Resumed::Dropped => Ok(None),
        }
    }

    /// Resume `tx`, recorded pending by an earlier attempt or before a crash (a report, a
    /// commit, a reveal): its receipt if it was mined; dropped if its nonce went to another
    /// transaction; once stuck past `receipt_timeout`, a replacement (`replacement()`) at its
    /// nonce with bumped fees; else the same bytes broadcast again. Waits for the receipt.
    pub(super) async fn resume_tx(
        &self,
        qid: U256,
        tx: &SentTx,
        replacement: impl FnOnce() -> TransactionRequest,
    ) -> Result<Resumed, ChainError> {
        if let Some(receipt) = self.receipt_now(tx.tx_hash).await? {
            return Ok(Resumed::Landed(tx.clone(), Box::new(receipt)));
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
            return Ok(Resumed::Dropped);
        }
        let age =
            Duration::from_millis(u64::try_from(self.store.now_ms() - tx.sent_at).unwrap_or(0));
        let current = if age >= self.config.receipt_timeout {
            // Stuck: replace at the same nonce with bumped fees.
            self.replace_stuck(qid, tx, replacement()).await?
        } else {
            // Rebroadcast the same bytes (harmless if the node already has them).
            if let Err(e) = self.provider.send_raw_transaction(&tx.raw).await {
                debug!(target: "veritas::post", question = %qid, tx = %tx.tx_hash, error = %e, "rebroadcast refused");
            }
            tx.clone()
        };
        let receipt = self.receipt(qid, current.tx_hash).await?;
        Ok(Resumed::Landed(current, Box::new(receipt)))
    }

    pub(super) async fn wait(&self, qid: U256, tx: &SentTx) -> Result<Posted, ChainError> {
        let receipt = self.receipt(qid, tx.tx_hash).await?;
        self.settle(qid, tx, receipt).await
    }

    /// Poll for the receipt of `hash` every `receipt_poll` until `receipt_timeout`; transient
    /// RPC failures are polled through.
    pub(super) async fn receipt(
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

/// How a resumed transaction ended.
pub(super) enum Resumed {
    /// Mined (maybe reverted): the transaction that landed (the one recorded, or its
    /// replacement) and its receipt.
    Landed(SentTx, Box<TransactionReceipt>),
    /// Its nonce went to another transaction: recorded dropped.
    Dropped,
}
