//! Stake for the next report. Contract v3 locks the question's report bond of the reporter's
//! free stake, and `canReport` says no when the free stake is short, exactly as it does for a
//! key outside the question's operator epoch. The poster tells the two apart, and tops the stake
//! up from the operator's balance when `chain.stake_top_up_limit` allows it: a shortfall is a
//! wait (settled questions free their bonds, anyone may stake for the operator), never a
//! question failed for good.

use alloy::{eips::BlockId, primitives::U256, providers::Provider, sol_types::SolCall};
use tracing::info;

use super::Poster;
use crate::chain::ViewCall;
use crate::{
    chain::{ChainError, StakeShortfall},
    contract::{IVeritasOracle, reader},
};

/// Why `canReport` said no, read again at a newer block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CannotReport {
    /// The key is not an operator of the question's epoch (the stake covers the bond).
    NotOperator,
    /// Something changed (our report landed, the question closed, the stake was topped up):
    /// ask the whole question again.
    AskAgain,
}

impl Poster {
    /// Why we cannot report on `id`; tops the stake up first when that is all that is missing,
    /// `may_top_up` and the limit allows it.
    ///
    /// # Errors
    /// [`ChainError::StakeShortfall`] when the stake stays short; [`ChainError`] from the reads.
    pub(super) async fn why_not(
        &self,
        id: U256,
        may_top_up: bool,
    ) -> Result<CannotReport, ChainError> {
        // One top-up at a time: two questions short of stake together must not both pay.
        let _one = self.top_up.lock().await;
        let facts = self.facts(id).await?;
        if facts.can_report || facts.reported || !facts.open {
            return Ok(CannotReport::AskAgain);
        }
        let (block, c) = (facts.block, self.contract());
        let stake = c
            .operatorStake(self.from)
            .view_at(block, "operatorStake")
            .await?;
        let params = c
            .questionParameters(id)
            .view_at(block, "questionParameters")
            .await?;
        let unit = c.BOND_UNIT().view("BOND_UNIT").await?;
        let bond = reader::report_bond(&params, unit);
        let free = stake.staked.saturating_sub(stake.locked);
        if free >= bond {
            return Ok(CannotReport::NotOperator);
        }
        let short = |why: String| {
            ChainError::StakeShortfall(Box::new(StakeShortfall {
                id,
                operator: self.from,
                staked: stake.staked,
                free,
                bond,
                why,
            }))
        };
        if !may_top_up {
            return Err(short(
                "still short after a top-up (another report of ours locked it)".into(),
            ));
        }
        match self.top_up(id, stake.staked, bond - free).await? {
            None => Ok(CannotReport::AskAgain),
            Some(why) => Err(short(why)),
        }
    }

    /// Stake `need` more wei (the stake is `staked` now) for a report on `id`, within
    /// `chain.stake_top_up_limit` and with no transaction of ours in flight. `Some`: why the
    /// stake was not topped up.
    async fn top_up(
        &self,
        id: U256,
        staked: U256,
        need: U256,
    ) -> Result<Option<String>, ChainError> {
        let limit = self.config.stake_top_up_limit;
        if staked.saturating_add(need) > limit {
            return Ok(Some(format!(
                "topping up {need} wei would take the stake above chain.stake_top_up_limit ({limit} wei); stake({}) with the difference",
                self.from
            )));
        }
        // A transaction of ours in flight may be a report about to lock more of the stake, or
        // a top-up not mined yet: paying now could pay twice.
        let count = |tag: BlockId| async move {
            self.provider
                .get_transaction_count(self.from)
                .block_id(tag)
                .await
                .map_err(|e| ChainError::rpc("eth_getTransactionCount", e))
        };
        let (pending, mined) = (
            count(BlockId::pending()).await?,
            count(BlockId::latest()).await?,
        );
        if pending > mined {
            return Ok(Some(format!(
                "{} transaction(s) of ours still in flight; the top-up waits for them",
                pending - mined
            )));
        }
        let call = IVeritasOracle::stakeCall {
            operator: self.from,
        }
        .abi_encode();
        Ok(
            match self.send_call_paying(&[], "stake", call.into(), need).await {
                Ok(Some(tx)) => {
                    info!(target: "veritas::post", question = %id, wei = %need, %tx, "stake topped up for the report bond");
                    None
                }
                Ok(None) => Some("the contract refused the top-up (estimateGas reverted)".into()),
                Err(e) => Some(format!("the top-up failed: {e}")),
            },
        )
    }
}
