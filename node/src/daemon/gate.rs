//! The evidence gate: a question's final run does not start before its on-chain submissions
//! are all known.
//!
//! **Why a gate.** `submitEvidence` is accepted while the chain's time is before
//! `resolveAfter`; the job becomes due when the node's clock reaches `resolveAfter`. Between
//! the two, a submission can still be mined (a block whose timestamp is just below
//! `resolveAfter`) or be mined but not yet confirmed and stored by the watcher. A final report
//! gathered then would miss it, and the audit would (rightly) fail. So before a final run the
//! node requires that:
//!
//! 1. the chain has a block at or after `resolveAfter` (no later block can take evidence), or
//!    `evidence_settle` has passed since `resolveAfter` with no block (a chain that mines only
//!    on demand, like anvil's automine: a submission sent now would be mined at a timestamp
//!    past `resolveAfter` and revert);
//! 2. the store holds as many submissions as `evidenceCount(id)` at the latest block, and as
//!    many of the asker's clarifications as `clarificationCount(id)` (a clarification missing
//!    from the bundle would change what the jurors read and the root).
//!
//! Questions with `resolveAfter = 0` never take evidence and skip the gate (no RPC call).

use std::time::Duration;

use alloy::primitives::{Address, U256};

use crate::chain::ViewCall;
use crate::{
    chain::{ChainError, ChainProvider},
    contract::IVeritasOracle,
    store::{Job, Store},
};

/// Whether a final run may start now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// Every submission the question can have is stored.
    Ready,
    /// Not yet: try again at `until_ms` (unix ms).
    Wait {
        /// When to look again.
        until_ms: i64,
        /// Why (logged).
        reason: String,
    },
}

/// Checks that a question's submissions are complete before its final run (module docs).
#[derive(Debug, Clone)]
pub struct EvidenceGate {
    provider: ChainProvider,
    oracle: Address,
    settle: Duration,
    recheck: Duration,
}

impl EvidenceGate {
    /// A gate reading `oracle` through `provider`; `settle` is `node.evidence_settle`,
    /// `recheck` how soon a waiting job looks again.
    pub fn new(
        provider: ChainProvider,
        oracle: Address,
        settle: Duration,
        recheck: Duration,
    ) -> Self {
        Self {
            provider,
            oracle,
            settle,
            recheck,
        }
    }

    /// Decide for `job`.
    ///
    /// # Errors
    /// [`ChainError`] when the head or `evidenceCount` cannot be read; [`StoreError`] inside
    /// it when the store fails.
    pub async fn check(&self, store: &Store, job: &Job) -> Result<Gate, ChainError> {
        let q = &job.question;
        if q.resolve_after == 0 {
            return Ok(Gate::Ready);
        }
        let wait = |reason: String| Gate::Wait {
            until_ms: store.now_ms() + i64::try_from(self.recheck.as_millis()).unwrap_or(1_000),
            reason,
        };
        let (latest, chain_time) = crate::chain::latest_block(&self.provider).await?;
        if chain_time < q.resolve_after {
            let settled_at = q.resolve_after.saturating_add(self.settle.as_secs());
            let now_secs = store.clock().now_secs();
            if now_secs < settled_at {
                return Ok(wait(format!(
                    "latest block time {chain_time} is before resolveAfter {}: evidence may still arrive",
                    q.resolve_after
                )));
            }
        }
        let contract = IVeritasOracle::new(self.oracle, &self.provider);
        let count = contract
            .evidenceCount(q.question_id)
            .view_at(latest.into(), "evidenceCount")
            .await?;
        let stored = store.submissions(q.question_id)?.len();
        if U256::from(stored) < count {
            return Ok(wait(format!(
                "{stored} of {count} submissions stored; waiting for the watcher"
            )));
        }
        let clarified = contract
            .clarificationCount(q.question_id)
            .view_at(latest.into(), "clarificationCount")
            .await?;
        let kept = store.clarifications(q.question_id)?.len();
        if U256::from(kept) < clarified {
            return Ok(wait(format!(
                "{kept} of {clarified} clarifications stored; waiting for the watcher"
            )));
        }
        Ok(Gate::Ready)
    }
}
