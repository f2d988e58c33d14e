//! Nonces and fees: one local counter under one lock held for allocate → sign → record →
//! broadcast, fee bumps for stuck or underpriced transactions, and the record of every signed
//! transaction written before it is broadcast (see the module docs of [`super`]).

use alloy::{
    consensus::TxEnvelope,
    eips::Encodable2718,
    network::{Ethereum, EthereumWallet, NetworkWallet, TransactionBuilder},
    primitives::{B256, Bytes, U256},
    providers::Provider,
    rpc::types::TransactionRequest,
    transports::TransportError,
};
use tracing::{info, warn};

use super::Poster;
use crate::chain::ChainError;
use crate::store::{SentTx, TxStatus};

/// Fee bump when replacing a stuck transaction: to 125% (25% more, above the 10% nodes require).
pub const FEE_BUMP_PERCENT: u128 = 125;
/// Fee bumps in a row after "replacement transaction underpriced" (1.25^8 ≈ 6× the fees).
const MAX_UNDERPRICED_BUMPS: u32 = 8;
/// Gas limit headroom over the estimate, in percent.
pub(super) const GAS_HEADROOM_PERCENT: u64 = 130;

impl Poster {
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
    pub(super) async fn sign_and_send(
        &self,
        questions: &[U256],
        request: TransactionRequest,
        reuse_nonce: Option<u64>,
        gas_limit: u64,
        max_fee_per_gas: u128,
        max_priority_fee_per_gas: u128,
    ) -> Result<SentTx, ChainError> {
        let mut next = self.nonce.lock().await;
        let nonce = self.pick_nonce(reuse_nonce, *next).await?;
        let mut fees = Fees {
            max_fee: max_fee_per_gas,
            priority: max_priority_fee_per_gas,
        };
        let mut bumps = 0;
        loop {
            let (sent, hash, raw) = self
                .sign_and_record(questions, request.clone(), nonce, gas_limit, fees)
                .await?;
            let attempt = Attempt {
                sent: &sent,
                hash,
                nonce,
                fees,
                bumps,
            };
            let how = match self.provider.send_raw_transaction(&raw).await {
                Ok(_) => "report transaction sent",
                Err(refused) => match self.after_refusal(refused, attempt).await? {
                    Refusal::NodeHasIt => "report transaction sent (answer lost, node has it)",
                    Refusal::Bump(bumped) => {
                        fees = bumped;
                        bumps += 1;
                        let Fees { max_fee, priority } = fees;
                        warn!(target: "veritas::post", questions = ?questions, nonce, max_fee, priority, bumps, "another transaction holds this nonce; bumping fees");
                        continue;
                    }
                    Refusal::Fail { err, reread_nonce } => {
                        if reread_nonce {
                            *next = None;
                        }
                        return Err(err);
                    }
                },
            };
            if reuse_nonce.is_none() {
                // A reused nonce was allocated earlier: the counter is already past it.
                *next = Some(nonce + 1);
            }
            info!(target: "veritas::post", questions = ?questions, tx = %sent.tx_hash, nonce, "{how}");
            return Ok(sent);
        }
    }

    /// Decide what a broadcast error means for the transaction of `attempt`; records it as
    /// dropped when the node refused it for good.
    async fn after_refusal(
        &self,
        refused: TransportError,
        attempt: Attempt<'_>,
    ) -> Result<Refusal, ChainError> {
        let definite = refused.is_error_resp();
        let err = ChainError::rpc("eth_sendRawTransaction", refused);
        if self.node_has_it(&err, attempt.hash).await {
            return Ok(Refusal::NodeHasIt);
        }
        if !definite {
            // No answer (timeout, connection lost): it may have been accepted. Keep it
            // pending so the next attempt looks for its receipt or rebroadcasts it, and
            // re-read the nonce from the chain rather than guess.
            return Ok(Refusal::Fail {
                err,
                reread_nonce: true,
            });
        }
        // The node refused it: it will never be mined.
        self.store
            .set_tx_status(attempt.sent.tx_hash, TxStatus::Dropped, None)?;
        if err.is_underpriced() && attempt.bumps < MAX_UNDERPRICED_BUMPS {
            return Ok(match self.outbid(attempt.nonce, attempt.fees).await {
                Some(bumped) => Refusal::Bump(bumped),
                // The nonce is spent after all: re-read it from the chain next time.
                None => Refusal::Fail {
                    err,
                    reread_nonce: true,
                },
            });
        }
        // A nonce error means our counter disagrees with the chain: read it again next time.
        let reread_nonce = err.is_nonce_error();
        Ok(Refusal::Fail { err, reread_nonce })
    }

    /// The nonce to sign with: the one being reused, else our counter, else (after a restart
    /// or an error that made the counter untrustworthy) the chain's pending count.
    async fn pick_nonce(
        &self,
        reuse_nonce: Option<u64>,
        counter: Option<u64>,
    ) -> Result<u64, ChainError> {
        match (reuse_nonce, counter) {
            (Some(n), _) => Ok(n),
            (None, Some(n)) => Ok(n),
            (None, None) => self
                .provider
                .get_transaction_count(self.from)
                .pending()
                .await
                .map_err(|e| ChainError::rpc("eth_getTransactionCount", e)),
        }
    }

    /// Whether a refused broadcast is in fact a retry the node already holds: a first answer
    /// that was lost comes back "already known" or "nonce too low", so ask the node.
    async fn node_has_it(&self, err: &ChainError, hash: B256) -> bool {
        err.is_already_known()
            || matches!(
                self.provider.get_transaction_by_hash(hash).await,
                Ok(Some(_))
            )
    }

    /// Fees to outbid whatever holds `nonce` in the pool: [`FEE_BUMP_PERCENT`] over the higher
    /// of ours and the holder's. `None` when the nonce turns out to be mined already.
    async fn outbid(&self, nonce: u64, ours: Fees) -> Option<Fees> {
        let (mut max_fee, mut priority) = (ours.max_fee, ours.priority);
        match self.nonce_holder(nonce).await {
            NonceHolder::Mined => return None,
            NonceHolder::Pending {
                max_fee_per_gas,
                max_priority_fee_per_gas,
            } => {
                max_fee = max_fee.max(max_fee_per_gas);
                priority = priority.max(max_priority_fee_per_gas);
            }
            NonceHolder::Unknown => {}
        }
        let max_fee = bump_fee(max_fee);
        Some(Fees {
            max_fee,
            priority: bump_fee(priority).min(max_fee),
        })
    }

    /// Replace `stuck` (no receipt after the receipt timeout) at its nonce with `request`,
    /// paying [`FEE_BUMP_PERCENT`] over its fees or the current estimate, whichever is higher;
    /// the stuck one is recorded dropped once the replacement is out.
    ///
    /// # Errors
    /// [`ChainError`] from the fee estimate, the send or the store.
    pub(super) async fn replace_stuck(
        &self,
        question: U256,
        stuck: &SentTx,
        request: TransactionRequest,
    ) -> Result<SentTx, ChainError> {
        let fees = self
            .provider
            .estimate_eip1559_fees()
            .await
            .map_err(|e| ChainError::rpc("eip1559 fees", e))?;
        let max_fee = bump_fee(stuck.max_fee_per_gas).max(fees.max_fee_per_gas);
        let priority = bump_fee(stuck.max_priority_fee_per_gas).max(fees.max_priority_fee_per_gas);
        warn!(target: "veritas::post", question = %question, tx = %stuck.tx_hash, nonce = stuck.nonce, max_fee, "replacing stuck transaction");
        let replacement = self
            .sign_and_send(
                &[question],
                request,
                Some(stuck.nonce),
                stuck.gas_limit,
                max_fee,
                priority,
            )
            .await?;
        self.store
            .set_tx_status(stuck.tx_hash, TxStatus::Dropped, None)?;
        Ok(replacement)
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
        NonceHolder::of(answer.ok().flatten().as_ref())
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
        fees: Fees,
    ) -> Result<(SentTx, B256, Vec<u8>), ChainError> {
        let Fees {
            max_fee: max_fee_per_gas,
            priority: max_priority_fee_per_gas,
        } = fees;
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

impl NonceHolder {
    /// Read `eth_getTransactionBySenderAndNonce`'s answer: a transaction with a block is
    /// mined; one without is pending with its fees (EIP-1559, or a legacy gas price for
    /// both); anything else (no answer, unreadable fees) is unknown.
    fn of(tx: Option<&serde_json::Value>) -> Self {
        let Some(tx) = tx else {
            return Self::Unknown;
        };
        if !tx["blockNumber"].is_null() {
            return Self::Mined;
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
            (Some(max_fee_per_gas), Some(max_priority_fee_per_gas)) => Self::Pending {
                max_fee_per_gas,
                max_priority_fee_per_gas,
            },
            _ => Self::Unknown,
        }
    }
}

/// One signed and recorded transaction whose broadcast the node did not accept.
struct Attempt<'a> {
    sent: &'a SentTx,
    hash: B256,
    nonce: u64,
    fees: Fees,
    /// Underpriced fee bumps so far, in a row.
    bumps: u32,
}

/// What a failed broadcast calls for.
enum Refusal {
    /// A retry the node already holds: as good as sent.
    NodeHasIt,
    /// Another transaction holds the nonce: sign again with these fees.
    Bump(Fees),
    /// Give up on this attempt; `reread_nonce` when our counter can no longer be trusted.
    Fail { err: ChainError, reread_nonce: bool },
}

/// The two EIP-1559 fee fields, moved together through a fee bump.
#[derive(Clone, Copy)]
struct Fees {
    max_fee: u128,
    priority: u128,
}

/// `fee` raised by [`FEE_BUMP_PERCENT`], rounded up (never by less than 1 wei).
pub(super) fn bump_fee(fee: u128) -> u128 {
    fee.saturating_mul(FEE_BUMP_PERCENT)
        .div_ceil(100)
        .max(fee.saturating_add(1))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    #[test]
    fn a_bump_is_a_quarter_rounded_up_and_never_zero() {
        assert_eq!(bump_fee(1_000_000_000), 1_250_000_000);
        assert_eq!(bump_fee(7), 9, "7 × 1.25 = 8.75, rounded up");
        assert_eq!(bump_fee(0), 1, "a zero fee still moves");
        assert_eq!(bump_fee(1), 2);
        // A hostile RPC's fee of 2^128 - 1 saturates instead of overflowing.
        assert_eq!(bump_fee(u128::MAX), u128::MAX);
        // Every bump clears the 10% nodes require of a replacement.
        for fee in [1u128, 9, 10, 11, 99, 100, 12_345, 30_000_000_000] {
            assert!(bump_fee(fee) * 10 >= fee * 11, "{fee}");
        }
    }

    #[test]
    fn the_nonce_holder_is_read_from_the_rpc_answer() {
        assert_eq!(NonceHolder::of(None), NonceHolder::Unknown);
        let mined = json!({"blockNumber": "0x10", "maxFeePerGas": "0x1"});
        assert_eq!(NonceHolder::of(Some(&mined)), NonceHolder::Mined);
        let pending =
            json!({"blockNumber": null, "maxFeePerGas": "0x64", "maxPriorityFeePerGas": "0xa"});
        assert_eq!(
            NonceHolder::of(Some(&pending)),
            NonceHolder::Pending {
                max_fee_per_gas: 100,
                max_priority_fee_per_gas: 10
            }
        );
        let legacy = json!({"gasPrice": "0x3b9aca00"});
        assert_eq!(
            NonceHolder::of(Some(&legacy)),
            NonceHolder::Pending {
                max_fee_per_gas: 1_000_000_000,
                max_priority_fee_per_gas: 1_000_000_000
            }
        );
        // Hostile or broken answers: not hex, a number instead of a string, no fees.
        for tx in [
            json!({"maxFeePerGas": "0xzz", "maxPriorityFeePerGas": "0x1"}),
            json!({"maxFeePerGas": 5, "maxPriorityFeePerGas": 5}),
            json!({}),
            json!("0x1"),
        ] {
            assert_eq!(NonceHolder::of(Some(&tx)), NonceHolder::Unknown, "{tx}");
        }
    }
}
