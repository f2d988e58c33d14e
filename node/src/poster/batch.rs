//! Reports ready within `batch_window` of each other go out in one `submitReports`
//! transaction; a batch the contract would refuse as a whole is split, so one bad report never
//! holds the others back.

use alloy::{
    network::TransactionBuilder,
    primitives::{Bytes, U256},
    providers::Provider,
    rpc::types::TransactionRequest,
    sol_types::SolCall,
};
use tracing::warn;

use super::nonce::GAS_HEADROOM_PERCENT;
use super::{Poster, Queued, Verdict};
use crate::store::SentTx;
use crate::{
    chain::ChainError,
    contract::{IVeritasOracle, OracleError},
};

impl Poster {
    /// Send the queued reports: alone as `submitReport`, together as `submitReports` (stale
    /// ones are skipped by the contract, not reverted). Each report's sender gets the recorded
    /// transaction, or `None` when its question no longer takes reports. A batch the contract
    /// would revert as a whole (one report invalid for a reason other than staleness) is split
    /// and each report sent alone, so one bad report never holds the others back.
    pub(super) async fn send_batch(&self, queued: Vec<Queued>) {
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
                    ChainError::Revert { error, .. }
                        if verdicts.len() == 1
                            && matches!(
                                *error,
                                OracleError::VeritasAlreadyReported(_)
                                    | OracleError::VeritasNotOpen(_)
                            ) =>
                    {
                        Ok(None)
                    }
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

    fn batch_request(&self, verdicts: &[Verdict]) -> TransactionRequest {
        let reports = verdicts
            .iter()
            .map(|v| IVeritasOracle::Report {
                id: v.id,
                merkleRoot: v.merkle_root.into(),
                nYes: v.counts[0],
                nNo: v.counts[1],
                nNull: v.counts[2],
                fleissKappa: v.kappa,
                escalated: v.escalated,
                notYet: v.not_yet,
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

    pub(super) fn request(&self, verdict: &Verdict) -> TransactionRequest {
        TransactionRequest::default()
            .with_from(self.from)
            .with_to(self.config.oracle)
            .with_input(verdict.calldata())
            .with_chain_id(self.config.chain_id)
    }
}
