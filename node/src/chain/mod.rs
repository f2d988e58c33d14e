//! Talking to a chain: the connection ([`connect`]), its bounded HTTP transport
//! ([`rpc_http`]), the chain's clock and id, and [`ChainError`], the one error of every chain
//! operation.
//!
//! What the node sends and reads *through* it sits by where it happens in the flow: the
//! question enters in [`crate::watcher`], the verdict leaves in [`crate::poster`], and what the
//! node knows of the contract (bindings, rules, views, error sentences, the court) is
//! [`crate::contract`].
//!
//! Every RPC failure becomes a [`ChainError`] that says whether retrying may help, so the
//! retry policy lives in one place (the daemon's scheduler) instead of in every call site.

pub mod rpc_http;
mod view;

pub use view::{ViewCall, Viewing};

use std::time::Duration;

use alloy::{
    primitives::{B256, U256},
    providers::{DynProvider, Provider, ProviderBuilder},
    transports::{RpcError, TransportErrorKind},
};

use crate::contract::{OracleError, court, explain};

/// The provider type the node uses everywhere (HTTP, no fillers: the poster sets nonce, gas
/// and fees itself so that it can record the signed transaction before sending it).
pub type ChainProvider = DynProvider;

/// Times one RPC request is retried on a transient failure before the caller sees it.
const RPC_RETRIES: u32 = 4;
/// Delay between those retries, in milliseconds.
const RPC_RETRY_DELAY_MS: u64 = 100;

/// Connect to an HTTP JSON-RPC endpoint with a per-request timeout.
///
/// Requests pass through alloy's retry layer: rate limits (429 and providers' rate-limit
/// codes), 502/503/504 and connection errors are retried [`RPC_RETRIES`] times after
/// [`RPC_RETRY_DELAY_MS`] ms, so one dropped answer does not fail a whole job attempt. What is
/// still failing after that reaches the caller as a [`ChainError`], and the job-level retry
/// with backoff (the daemon's scheduler) takes over. Answers are read by
/// [`rpc_http::BoundedHttp`]: at most [`rpc_http::MAX_RPC_BODY_BYTES`] each, within `timeout`.
///
/// # Errors
/// [`ChainError::Config`] for a bad URL or HTTP client setup.
pub fn connect(rpc_url: &str, timeout: Duration) -> Result<ChainProvider, ChainError> {
    use alloy::transports::{
        TransportError,
        layers::{RateLimitRetryPolicy, RetryBackoffLayer},
        utils::guess_local_url,
    };
    let url: reqwest::Url = rpc_url
        .parse()
        .map_err(|e| ChainError::Config(format!("rpc_url {rpc_url:?}: {e}")))?;
    let http = reqwest::Client::builder()
        .timeout(timeout)
        .build()
        .map_err(|e| ChainError::Config(format!("HTTP client: {e}")))?;
    let transient = |e: &TransportError| match e {
        RpcError::Transport(TransportErrorKind::HttpError(h)) => {
            matches!(h.status, 429 | 502 | 503 | 504)
        }
        // reqwest errors: connection refused or reset, timeouts.
        RpcError::Transport(TransportErrorKind::Custom(_)) => true,
        _ => false,
    };
    let policy = RateLimitRetryPolicy::default().or(transient);
    // The compute-unit budget is the provider's business; a high figure turns that wait off.
    let retry =
        RetryBackoffLayer::new_with_policy(RPC_RETRIES, RPC_RETRY_DELAY_MS, 1_000_000, policy);
    let is_local = guess_local_url(url.as_str());
    let transport = rpc_http::BoundedHttp::new(http, url, rpc_http::MAX_RPC_BODY_BYTES);
    let client = alloy::rpc::client::ClientBuilder::default()
        .layer(retry)
        .transport(transport, is_local);
    Ok(ProviderBuilder::new()
        .disable_recommended_fillers()
        .connect_client(client)
        .erased())
}

/// Why a chain operation failed.
#[derive(Debug, thiserror::Error)]
pub enum ChainError {
    /// A JSON-RPC request failed (transport, HTTP status, or an error response).
    #[error("rpc {op}: {error}")]
    Rpc {
        /// The operation, e.g. `eth_getLogs`.
        op: &'static str,
        /// The underlying error.
        // Not a `#[source]`: the message already carries it, and error chains would repeat it.
        error: RpcError<TransportErrorKind>,
    },
    /// The contract reverted with one of its custom errors.
    #[error("contract {op} reverted: {}", explain::oracle_error(error))]
    Revert {
        /// The operation, e.g. `submitReport`.
        op: &'static str,
        /// The decoded error (boxed: the largest custom errors carry four words).
        error: Box<OracleError>,
    },
    /// The reference court reverted with one of its custom errors.
    #[error("court {op} reverted: {}", explain::court_error(error))]
    CourtRevert {
        /// The operation, e.g. `giveRuling`.
        op: &'static str,
        /// The decoded error.
        error: Box<court::CourtError>,
    },
    /// A contract call failed in another way (bad ABI data, empty return: wrong address?).
    #[error("contract {op}: {reason}")]
    Contract {
        /// The operation.
        op: &'static str,
        /// What went wrong.
        reason: String,
    },
    /// The RPC serves another chain than configured.
    #[error("wrong chain: configured {expected}, RPC reports {actual}")]
    WrongChain {
        /// `chain.chain_id`.
        expected: u64,
        /// What `eth_chainId` returned.
        actual: u64,
    },
    /// The question on-chain is not the one the job holds (a reorg replaced it).
    #[error("question {id} changed on-chain: expected hash {expected}, chain has {actual}")]
    QuestionMismatch {
        /// Question id.
        id: U256,
        /// Hash from the stored event.
        expected: B256,
        /// Hash in contract storage.
        actual: B256,
    },
    /// The question does not exist on-chain (yet, or any more).
    #[error("question {0} is unknown to the contract")]
    UnknownQuestion(U256),
    /// This operator may not report on the question: it was added after the ask (contract v3
    /// binds each question to the operator epoch of its ask), or it was removed.
    #[error(
        "{operator} cannot report on question {id}: not an operator of its epoch (added after the ask, or removed)"
    )]
    NotQuestionOperator {
        /// Question id.
        id: U256,
        /// This node's operator address.
        operator: alloy::primitives::Address,
    },
    /// The operator's free stake does not cover the question's report bond, and the node may
    /// not top it up now (over `chain.stake_top_up_limit`, or a transaction of ours is still
    /// in flight). Retryable: a settled question frees its bond, and anyone may stake for us.
    #[error("{0}")]
    StakeShortfall(Box<StakeShortfall>),
    /// An `eth_getLogs` page held fewer `QuestionAsked` logs than the contract counted in its
    /// range (a provider answering from a backend that lags behind); the range is read again.
    #[error(
        "eth_getLogs blocks {from}..={to}: {found} QuestionAsked logs, questionCount says {expected}"
    )]
    IncompleteLogs {
        /// First block of the range.
        from: u64,
        /// Last block of the range.
        to: u64,
        /// Logs in the page.
        found: u64,
        /// Questions the contract counted in the range.
        expected: u64,
    },
    /// An `eth_getLogs` page holds a log no honest provider returns for the range (another
    /// address, a block outside it, a forged question); read again.
    #[error("eth_getLogs blocks {from}..={to}: page refused: {reason}")]
    RejectedPage {
        /// First block of the range.
        from: u64,
        /// Last block of the range.
        to: u64,
        /// The first defect found.
        reason: String,
    },
    /// An `eth_getLogs` page's `EvidenceSubmitted` logs do not chain from the evidence head
    /// before the range to `evidenceHead()` at its end (a log is missing); read again.
    #[error("eth_getLogs blocks {from}..={to}: evidence chain broken: {reason}")]
    IncompleteEvidence {
        /// First block of the range.
        from: u64,
        /// Last block of the range.
        to: u64,
        /// Which link failed.
        reason: String,
    },
    /// No receipt arrived in time; the transaction may still be mined.
    #[error("no receipt for {tx_hash} after {waited:?}")]
    ReceiptTimeout {
        /// The transaction.
        tx_hash: B256,
        /// How long we waited.
        waited: Duration,
    },
    /// The verdict transaction was mined but reverted without a decodable reason.
    #[error("transaction {tx_hash} reverted")]
    Reverted {
        /// The transaction.
        tx_hash: B256,
    },
    /// Signing failed (the message never contains key material).
    #[error("signing: {0}")]
    Signing(String),
    /// The node's own state failed.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// Bad configuration (URL, address).
    #[error("chain configuration: {0}")]
    Config(String),
    /// A commit-reveal question waits for its next phase (our commitment is on-chain, the reveal
    /// phase not open yet): the job looks again after `retry_in`, without spending an attempt.
    #[error("question {id}: {what}; looking again in {retry_in:?}")]
    CommitRevealWait {
        /// Question id.
        id: U256,
        /// What it waits for.
        what: &'static str,
        /// When to look again.
        retry_in: Duration,
    },
    /// Our commitment on a commit-reveal question was not revealed before the reveal deadline:
    /// its report bond is lost (slashed and burned at `finalize`).
    #[error(
        "question {id}: our commitment was not revealed before the reveal deadline (unix {deadline}): the report bond is lost"
    )]
    RevealMissed {
        /// Question id.
        id: U256,
        /// The reveal deadline (unix seconds; 0 when the question is already closed).
        deadline: U256,
    },
    /// The chain holds a commitment of ours on the question that is not the one this node saved
    /// (a lost or replaced data directory): it cannot be revealed, and its bond will be lost.
    #[error(
        "question {id}: the chain holds our commitment {on_chain}, the store {saved}: it cannot be revealed; the report bond will be lost"
    )]
    ForeignCommitment {
        /// Question id.
        id: U256,
        /// `commitmentOf(id, operator)`.
        on_chain: B256,
        /// The commitment in the store.
        saved: B256,
    },
    /// The OS random number generator failed to give a salt.
    #[error("salt from the OS random number generator: {0}")]
    Salt(String),
    /// The `submitReports` batch a report rode in failed; every report of it gets this copy of
    /// the error (RPC errors cannot be cloned), keeping whether a retry may help.
    #[error("report batch: {reason}")]
    Batch {
        /// The batch's error, as text.
        reason: String,
        /// Whether the batch's error was transient.
        retryable: bool,
    },
}

/// Why a report would revert for want of stake (see [`ChainError::StakeShortfall`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{operator} cannot report on question {id} yet: its free stake {free} wei is below the report bond {bond} wei ({staked} wei staked); {why}"
)]
pub struct StakeShortfall {
    /// Question id.
    pub id: U256,
    /// This node's operator address.
    pub operator: alloy::primitives::Address,
    /// Wei staked in all (free and locked).
    pub staked: U256,
    /// Wei of the stake no unsettled report locks.
    pub free: U256,
    /// The question's report bond in wei.
    pub bond: U256,
    /// Why the node did not top the stake up itself.
    pub why: String,
}

impl ChainError {
    /// Wrap an RPC error with the operation that failed, decoding a contract revert when the
    /// error response carries one.
    pub fn rpc(op: &'static str, source: RpcError<TransportErrorKind>) -> Self {
        if let Some(error) = source
            .as_error_resp()
            .and_then(|p| p.as_decoded_interface_error::<OracleError>())
        {
            return ChainError::Revert {
                op,
                error: Box::new(error),
            };
        }
        ChainError::Rpc { op, error: source }
    }

    /// The oracle's custom error from view (or call) `op`. An id the contract does not know
    /// is [`ChainError::UnknownQuestion`] whichever view said so: a reorg can take a stored
    /// question away (and bring it back) between any two reads of its job, and that must
    /// stay retryable. (An estimate's revert stays a revert: the senders read it as "not
    /// needed" or split a batch on it.)
    fn revert(op: &'static str, error: OracleError) -> Self {
        match error {
            OracleError::VeritasUnknownQuestion(e) => ChainError::UnknownQuestion(e.id),
            error => ChainError::Revert {
                op,
                error: Box::new(error),
            },
        }
    }

    /// Wrap a contract-call error, decoding the oracle's custom error when there is one (a
    /// view's call maps through it in [`ViewCall`]; a sent call's error maps here).
    pub fn contract(op: &'static str, source: alloy::contract::Error) -> Self {
        if let Some(error) = source.as_decoded_interface_error::<OracleError>() {
            return ChainError::revert(op, error);
        }
        match source {
            alloy::contract::Error::TransportError(source) => ChainError::rpc(op, source),
            other => ChainError::Contract {
                op,
                reason: other.to_string(),
            },
        }
    }

    /// Wrap an error of a call to the reference court: the court's custom error when there is
    /// one (else the oracle's, which the court's `executeRuling` passes on from `rule`).
    pub fn court(op: &'static str, source: alloy::contract::Error) -> Self {
        if let Some(error) = source.as_decoded_interface_error::<court::CourtError>() {
            return ChainError::CourtRevert {
                op,
                error: Box::new(error),
            };
        }
        ChainError::contract(op, source)
    }

    /// Whether retrying the same operation later may succeed.
    ///
    /// Transport failures, HTTP 429/5xx, rate-limit responses, timeouts and a missing receipt
    /// are transient; a revert, a wrong chain, a signing failure or a changed question are not
    /// (except `VeritasTooEarly`, which passes with time).
    pub fn is_retryable(&self) -> bool {
        match self {
            ChainError::Rpc { error, .. } => rpc_is_retryable(error),
            ChainError::Revert { error, .. } => matches!(**error, OracleError::VeritasTooEarly(_)),
            ChainError::ReceiptTimeout { .. }
            | ChainError::IncompleteLogs { .. }
            | ChainError::RejectedPage { .. }
            | ChainError::IncompleteEvidence { .. }
            | ChainError::UnknownQuestion(_)
            | ChainError::StakeShortfall(_)
            | ChainError::CommitRevealWait { .. }
            | ChainError::Salt(_)
            | ChainError::Reverted { .. } => true,
            ChainError::Store(e) => e.is_retryable(),
            ChainError::Batch { retryable, .. } => *retryable,
            ChainError::Contract { .. }
            | ChainError::CourtRevert { .. }
            | ChainError::WrongChain { .. }
            | ChainError::QuestionMismatch { .. }
            | ChainError::NotQuestionOperator { .. }
            | ChainError::RevealMissed { .. }
            | ChainError::ForeignCommitment { .. }
            | ChainError::Signing(_)
            | ChainError::Config(_) => false,
        }
    }

    /// A copy for every report of a batch that failed with `self`.
    pub fn clone_for_batch(&self) -> Self {
        ChainError::Batch {
            reason: self.to_string(),
            retryable: self.is_retryable(),
        }
    }

    /// The node's error message for a refused request, lowercased; `None` for other errors.
    /// Transaction-pool refusals have no standard code, so the classifiers below match the
    /// messages geth, reth, anvil and erigon use, in this one place.
    fn refusal_message(&self) -> Option<String> {
        match self {
            ChainError::Rpc {
                error: RpcError::ErrorResp(payload),
                ..
            } => Some(payload.message.to_lowercase()),
            _ => None,
        }
    }

    /// The node already has this very transaction (a retried broadcast whose first answer
    /// was lost).
    pub fn is_already_known(&self) -> bool {
        self.refusal_message()
            .is_some_and(|m| m.contains("already known") || m.contains("known transaction"))
    }

    /// Another transaction holds this nonce in the pool and ours does not pay the 10% more a
    /// replacement must.
    pub fn is_underpriced(&self) -> bool {
        self.refusal_message()
            .is_some_and(|m| m.contains("replacement transaction underpriced"))
    }

    /// The nonce was already used by a mined transaction.
    pub fn is_nonce_too_low(&self) -> bool {
        self.refusal_message()
            .is_some_and(|m| m.contains("nonce too low"))
    }

    /// Any refusal about the nonce (too low, too high, gapped): the local counter disagrees
    /// with the chain and must be read again.
    pub fn is_nonce_error(&self) -> bool {
        self.refusal_message().is_some_and(|m| m.contains("nonce"))
    }

    /// Whether the RPC refused an `eth_getLogs` request itself (range too large, too many
    /// results), as opposed to being unreachable: the watcher shrinks its range then.
    pub fn is_range_refusal(&self) -> bool {
        match self {
            ChainError::Rpc { error, .. } => match error {
                RpcError::ErrorResp(payload) => !payload.is_retry_err(),
                RpcError::Transport(TransportErrorKind::HttpError(e)) => {
                    // Some providers answer an oversized range with HTTP 413 or a 400 body.
                    e.status == 413 || (e.status == 400 && e.body.contains("range"))
                }
                _ => false,
            },
            _ => false,
        }
    }
}

/// The latest block's number and timestamp (the contract's clock as of the head).
///
/// # Errors
/// [`ChainError::Rpc`], or [`ChainError::Contract`] when the RPC has no latest block.
pub async fn latest_block(provider: &ChainProvider) -> Result<(u64, u64), ChainError> {
    use alloy::providers::Provider as _;
    provider
        .get_block_by_number(alloy::eips::BlockNumberOrTag::Latest)
        .await
        .map_err(|e| ChainError::rpc("eth_getBlockByNumber", e))?
        .map(|b| (b.header.number, b.header.timestamp))
        .ok_or_else(|| ChainError::Contract {
            op: "eth_getBlockByNumber",
            reason: "no latest block".into(),
        })
}

/// Classify an RPC error for a daemon that must keep going: anything that is not a definite
/// answer from the server about the request itself is worth retrying.
fn rpc_is_retryable(error: &RpcError<TransportErrorKind>) -> bool {
    match error {
        RpcError::Transport(kind) => !matches!(kind, TransportErrorKind::NonRetryable(_)),
        RpcError::ErrorResp(payload) => {
            let message = payload.message.to_lowercase();
            payload.is_retry_err()
                || message.contains("timeout")
                || message.contains("nonce too low")
                || message.contains("replacement transaction underpriced")
        }
        RpcError::NullResp | RpcError::DeserError { .. } => true,
        _ => false,
    }
}

/// Check the RPC's chain id against the configured one and return it.
///
/// # Errors
/// [`ChainError::WrongChain`] on a mismatch, [`ChainError::Rpc`] when unreachable.
pub async fn check_chain_id(
    provider: &ChainProvider,
    expected: Option<u64>,
) -> Result<u64, ChainError> {
    let actual = provider
        .get_chain_id()
        .await
        .map_err(|e| ChainError::rpc("eth_chainId", e))?;
    match expected {
        Some(expected) if expected != actual => Err(ChainError::WrongChain { expected, actual }),
        _ => Ok(actual),
    }
}
