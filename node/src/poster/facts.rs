//! What the chain says of a question and of us: its standing read at one block ([`Facts`],
//! for the plain report and for commit-reveal alike) and our own events on it (`eth_getLogs`
//! filtered by the question and our address).

use alloy::{
    eips::BlockId,
    primitives::{B256, U256},
    providers::Provider,
    rpc::types::{Filter, Log},
    sol_types::SolEvent,
};

use super::Poster;
use crate::chain::{ChainError, ViewCall};
use crate::contract::IVeritasOracle;

/// A question's standing for us, read at one block: a report of ours mined between separate
/// reads (a batch sent before a crash, rebroadcast at restart) would read "not reported",
/// then "cannot report", and fail the question for good.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Facts {
    /// The block every view was read at.
    pub(super) block: BlockId,
    /// `verdictStatus` is `Asked`.
    pub(super) open: bool,
    /// `hasReported`: our report (the reveal) is pooled.
    pub(super) reported: bool,
    /// `canReport`: we may report (commit).
    pub(super) can_report: bool,
    /// `commitmentOf(id, us)`: zero when none, or once revealed or slashed.
    pub(super) on_chain: B256,
    /// `commitPhase`: 0 none (a plain question), 1 commit, 2 reveal, 3 over.
    pub(super) phase: u8,
    /// `commitPhase`'s deadline.
    pub(super) deadline: U256,
}

impl Poster {
    /// The question's [`Facts`] at the latest block.
    ///
    /// # Errors
    /// [`ChainError`] from the reads; [`ChainError::UnknownQuestion`] for an id never asked.
    pub(super) async fn facts(&self, id: U256) -> Result<Facts, ChainError> {
        let block = BlockId::number(
            self.provider
                .get_block_number()
                .await
                .map_err(|e| ChainError::rpc("eth_blockNumber", e))?,
        );
        let c = self.contract();
        let status = c.verdictStatus(id).view_at(block, "verdictStatus").await?;
        // First: the other views revert for an id the contract does not know (a question a
        // reorg took away), and that is this error, not theirs.
        if status == IVeritasOracle::VerdictStatus::None {
            return Err(ChainError::UnknownQuestion(id));
        }
        let reported = c
            .hasReported(id, self.from)
            .view_at(block, "hasReported")
            .await?;
        let can_report = c
            .canReport(id, self.from)
            .view_at(block, "canReport")
            .await?;
        let on_chain = c
            .commitmentOf(id, self.from)
            .view_at(block, "commitmentOf")
            .await?;
        let phase = c.commitPhase(id).view_at(block, "commitPhase").await?;
        Ok(Facts {
            block,
            open: status == IVeritasOracle::VerdictStatus::Asked,
            reported,
            can_report,
            on_chain,
            phase: phase.phase,
            deadline: phase.deadline,
        })
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
        let logs = self
            .own_logs(
                IVeritasOracle::ReportSubmitted::SIGNATURE_HASH,
                id,
                from_block,
            )
            .await?;
        Ok(logs
            .first()
            .and_then(|l| Some((l.transaction_hash?, l.block_number?))))
    }

    /// Whether we committed on `id` (a `ReportCommitted` of ours from `from_block`).
    pub(super) async fn committed(&self, id: U256, from_block: u64) -> Result<bool, ChainError> {
        let logs = self
            .own_logs(
                IVeritasOracle::ReportCommitted::SIGNATURE_HASH,
                id,
                from_block,
            )
            .await?;
        Ok(!logs.is_empty())
    }

    /// Our events with `signature` about `id` from `from_block` on (both events index the
    /// question first, the operator second).
    async fn own_logs(
        &self,
        signature: B256,
        id: U256,
        from_block: u64,
    ) -> Result<Vec<Log>, ChainError> {
        let filter = Filter::new()
            .address(self.config.oracle)
            .event_signature(signature)
            .topic1(id)
            .topic2(self.from.into_word())
            .from_block(from_block);
        self.provider
            .get_logs(&filter)
            .await
            .map_err(|e| ChainError::rpc("eth_getLogs", e))
    }
}
