//! The transactions of commit-reveal reporting (see [`super::commit_reveal`]): one call sent
//! alone (estimate, sign, record, broadcast), a recorded transaction resumed after a crash
//! (the poster's one resume, `receipts`, with the commit or the reveal as replacement), a
//! mined one reorged out, and receipts read for our `ReportCommitted` / `ReportSubmitted`.

use alloy::{
    network::TransactionBuilder,
    primitives::{Address, Bytes, U256},
    providers::Provider,
    rpc::types::{TransactionReceipt, TransactionRequest},
    sol_types::SolCall,
};
use tracing::{info, warn};

use super::facts::Facts;
use super::nonce::GAS_HEADROOM_PERCENT;
use super::receipts::Resumed;
use super::{Posted, Poster};
use crate::store::{SavedCommit, SentTx, TxStatus};
use crate::{chain::ChainError, contract::IVeritasOracle};

impl Poster {
    /// Estimate, sign, record and broadcast one call about `id` (never batched). A revert
    /// at estimation comes back as [`ChainError::Revert`], nothing sent.
    pub(super) async fn send(
        &self,
        id: U256,
        op: &'static str,
        calldata: Bytes,
    ) -> Result<SentTx, ChainError> {
        let request = self.call_request(calldata);
        let gas = self
            .provider
            .estimate_gas(request.clone())
            .await
            .map_err(|e| ChainError::rpc(op, e))?;
        let fees = self
            .provider
            .estimate_eip1559_fees()
            .await
            .map_err(|e| ChainError::rpc("eip1559 fees", e))?;
        self.sign_and_send(
            &[id],
            request,
            None,
            gas.saturating_mul(GAS_HEADROOM_PERCENT) / 100,
            fees.max_fee_per_gas,
            fees.max_priority_fee_per_gas,
        )
        .await
    }

    pub(super) fn call_request(&self, calldata: Bytes) -> TransactionRequest {
        TransactionRequest::default()
            .with_from(self.from)
            .with_to(self.config.oracle)
            .with_input(calldata)
            .with_chain_id(self.config.chain_id)
    }

    /// Settle a transaction recorded pending (before a crash, or an attempt whose receipt did
    /// not come), as [`Self::resume_tx`] does; a replacement sends the commit or the reveal,
    /// as the chain now needs.
    pub(super) async fn resume(
        &self,
        id: U256,
        tx: &SentTx,
        facts: &Facts,
        saved: &SavedCommit,
    ) -> Result<(), ChainError> {
        let replacement = || {
            self.call_request(if facts.on_chain == saved.commitment {
                reveal_calldata(saved)
            } else {
                IVeritasOracle::commitReportCall {
                    id,
                    commitment: saved.commitment,
                }
                .abi_encode()
                .into()
            })
        };
        if let Resumed::Landed(sent, receipt) = self.resume_tx(id, tx, replacement).await? {
            self.record_receipt(id, &sent, &receipt)?;
        }
        Ok(())
    }

    /// Transactions about `id` recorded mined whose receipt is gone (reorged out) are recorded
    /// pending again, for [`Self::resume`] to settle: the same bytes broadcast again, or once
    /// stuck a replacement at the nonce the reorg freed. Returns whether there was one.
    pub(super) async fn reorged_out(&self, id: U256) -> Result<bool, ChainError> {
        let mut found = false;
        for tx in self.store.txs_for(id)? {
            if tx.status != TxStatus::Mined {
                continue;
            }
            let receipt = self.receipt_now(tx.tx_hash).await?;
            if receipt.is_none() {
                warn!(target: "veritas::post", question = %id, tx = %tx.tx_hash, nonce = tx.nonce, block = ?tx.block_number, "a mined transaction was reorged out; sending it again");
                self.store
                    .set_tx_status(tx.tx_hash, TxStatus::Pending, None)?;
                found = true;
            }
        }
        Ok(found)
    }

    /// Record what a receipt says of `tx`; returns which of our events it holds.
    pub(super) fn record_receipt(
        &self,
        id: U256,
        tx: &SentTx,
        receipt: &TransactionReceipt,
    ) -> Result<Option<Logged>, ChainError> {
        if !receipt.status() {
            self.store
                .set_tx_status(tx.tx_hash, TxStatus::Reverted, receipt.block_number)?;
            warn!(target: "veritas::post", question = %id, tx = %tx.tx_hash, "commit-reveal transaction reverted; reading the chain again");
            return Ok(None);
        }
        self.store
            .set_tx_status(tx.tx_hash, TxStatus::Mined, receipt.block_number)?;
        let logged = logged(receipt, id, self.from);
        if logged == Some(Logged::Commit) {
            info!(target: "veritas::post", question = %id, tx = %tx.tx_hash, block = ?receipt.block_number, "commit mined");
            crate::crashpoint::hit("commit.mined");
        }
        Ok(logged)
    }

    /// Our reveal, found on-chain: its transaction (`Posted::Mined`), or `AlreadyOnChain` when
    /// the log cannot be found (a node whose RPC prunes logs).
    pub(super) async fn revealed(&self, id: U256, from_block: u64) -> Result<Posted, ChainError> {
        let Some((tx_hash, _)) = self.report_tx(id, from_block).await? else {
            return Ok(Posted::AlreadyOnChain);
        };
        Ok(match self.receipt_now(tx_hash).await? {
            Some(receipt) => mined(&receipt),
            None => Posted::AlreadyOnChain,
        })
    }
}

/// Which of our events a receipt holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Logged {
    /// `ReportCommitted`.
    Commit,
    /// `ReportSubmitted` (the reveal).
    Report,
}

fn logged(receipt: &TransactionReceipt, id: U256, me: Address) -> Option<Logged> {
    receipt.inner.logs().iter().find_map(|log| {
        if log
            .log_decode::<IVeritasOracle::ReportCommitted>()
            .is_ok_and(|e| e.inner.data.id == id && e.inner.data.operator == me)
        {
            return Some(Logged::Commit);
        }
        log.log_decode::<IVeritasOracle::ReportSubmitted>()
            .is_ok_and(|e| e.inner.data.id == id && e.inner.data.operator == me)
            .then_some(Logged::Report)
    })
}

pub(super) fn mined(receipt: &TransactionReceipt) -> Posted {
    Posted::Mined {
        tx_hash: receipt.transaction_hash,
        block: receipt.block_number.unwrap_or_default(),
        gas_used: receipt.gas_used,
    }
}

pub(super) fn reveal_calldata(saved: &SavedCommit) -> Bytes {
    IVeritasOracle::revealReportCall {
        id: saved.question_id,
        merkleRoot: saved.merkle_root.into(),
        nYes: saved.counts[0],
        nNo: saved.counts[1],
        nNull: saved.counts[2],
        fleissKappa: saved.kappa,
        escalated: saved.escalated,
        notYet: saved.not_yet,
        salt: saved.salt,
    }
    .abi_encode()
    .into()
}
