//! The edge between the chain and the store: raw `eth_getLogs` entries decoded into checked
//! values, or refused.
//!
//! Everything here is hostile until checked. Two parties write these logs, and they are
//! refused differently:
//!
//! - **The RPC endpoint** answers the page. A log it could not honestly return (another
//!   address, a block outside the range asked for, no block or index, a number no chain
//!   reaches, a question whose text does not hash to its `questionHash`) makes the whole page
//!   a [`PageDefect`]: the watcher keeps its cursor and reads the range again, so a lying or
//!   broken provider stalls the scan loudly but never writes a forged question.
//! - **The asker** chooses the question's bytes (any 1..=2048, valid UTF-8 or not) and its
//!   `resolveAfter` (any `uint64`). Those are honest logs of strange questions: each is stored,
//!   and one that can never be resolved is stored as a failed job with its [`QuestionDefect`]
//!   as the reason. It fails that question only, never the scan.
//!
//! The store keeps integers in SQLite's signed 64 bits, so every number written from a log is
//! checked to fit here, at the edge, instead of failing the scan's transaction later.

use alloy::{
    primitives::{Address, B256, Bytes, I256, U256},
    rpc::types::Log,
    sol_types::{SolEvent, SolValue},
};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::commitment::root::Root;
use crate::contract::{
    IVeritasOracle,
    roles::{MAX_CLARIFICATION_LENGTH, MAX_CLARIFICATIONS, MAX_DEFERRALS},
};

/// A question as the watcher saw it in a confirmed `QuestionAsked` log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NewQuestion {
    /// Question id.
    #[serde(serialize_with = "crate::decimal::serialize")]
    pub question_id: U256,
    /// The full text from the event.
    pub question: String,
    /// The asker.
    pub asker: Address,
    /// sha256 of the text as the contract computed it.
    pub question_hash: B256,
    /// Block of the log.
    pub block_number: u64,
    /// Hash of that block.
    pub block_hash: B256,
    /// Transaction index in the block.
    pub tx_index: u64,
    /// Log index in the block.
    pub log_index: u64,
    /// Earliest unix time a verdict may be posted (0 = at once), as the contract stores it.
    pub resolve_after: u64,
    /// Why the question can never be resolved, found while decoding its log: the job is
    /// stored as failed with this reason.
    #[serde(skip)]
    pub defect: Option<String>,
}

/// One confirmed `QuestionClarified` log, as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredClarification {
    /// Question id.
    pub question_id: U256,
    /// The clarification's number, from 1 (the contract numbers them in order).
    pub index: u64,
    /// The text, as the event's bytes (hostile: not necessarily UTF-8).
    pub text: Bytes,
    /// Block of the log.
    pub block_number: u64,
    /// Position of the log in its block.
    pub log_index: u64,
}

/// One operator's `ReportSubmitted`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OperatorReport {
    /// Question id.
    #[serde(serialize_with = "crate::decimal::serialize")]
    pub question_id: U256,
    /// Who reported.
    pub operator: Address,
    /// The report's evidence root.
    pub merkle_root: Root,
    /// Valid YES, NO, NULL ballots.
    pub counts: [u64; 3],
    /// WAD-scaled kappa (decimal in JSON).
    #[serde(serialize_with = "signed_decimal")]
    pub kappa: I256,
    /// The operator's routing escalated.
    pub escalated: bool,
    /// Where the event is.
    pub block_number: u64,
    /// Its log index.
    pub log_index: u64,
    /// The transaction that carried it.
    pub tx_hash: B256,
}

fn signed_decimal<S: serde::Serializer>(value: &I256, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(value)
}

/// A lifecycle event read from the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LifecycleEvent {
    /// `VerdictPosted`.
    Posted {
        /// Flagged for the arbiter.
        escalated: bool,
        /// The pooled (YES, NO, NULL) triple, 1e18 scale.
        p: [U256; 3],
    },
    /// `VerdictDisputed`.
    Disputed {
        /// Who disputed.
        disputer: Address,
        /// The bond, wei.
        bond: U256,
    },
    /// `ArbitrationRequested`: an escalated verdict taken to its court.
    CourtRequested,
    /// `VerdictArbitrated`.
    Arbitrated {
        /// The court's triple, 1e18 scale.
        p: [U256; 3],
    },
    /// `VerdictDefaulted`: final with the unresolvable triple (the event does not carry it; the
    /// decoder fills in the contract's constant).
    Defaulted {
        /// The unresolvable triple, 1e18 scale.
        p: [U256; 3],
    },
    /// `QuestionExpired`.
    Expired,
    /// `QuestionSettled`: the money is credited.
    Settled,
    /// `ReportSubmitted`.
    Report(OperatorReport),
    /// `QuestionDeferred`: a "not yet" majority (or the court's "too early") opened report
    /// round `count`; reports open again at `resolve_after`.
    Deferred {
        /// When reports open again (unix seconds).
        resolve_after: u64,
        /// Deferrals so far, from 1 (at most the contract's `MAX_DEFERRALS`).
        count: u32,
    },
}

/// An event and where it sits on the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventAt {
    /// The question it is about.
    pub question_id: U256,
    /// The event.
    pub event: LifecycleEvent,
    /// Its block.
    pub block: u64,
    /// Its log index.
    pub log_index: u64,
}

/// The contract's `MAX_QUESTION_LENGTH`: an honest `QuestionAsked` never carries more bytes.
pub const MAX_QUESTION_BYTES: usize = 2048;

/// The latest `resolveAfter` the contract stores (2^40 - 1, beyond the year 36,812); a larger
/// event value is saturated to it on-chain.
pub const MAX_RESOLVE_AFTER: u64 = (1 << 40) - 1;

/// Largest block number, log index or transaction index taken from a log: what SQLite's
/// INTEGER holds. No chain comes near it; a larger value is a lying provider.
const MAX_STORED_INT: u64 = i64::MAX as u64;

/// Largest juror count taken from a `ReportSubmitted` (committees are a few hundred ballots).
const MAX_BALLOT_COUNT: u64 = u32::MAX as u64;

/// Why a page of logs cannot be the honest answer to the range asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageDefect {
    /// A log from another contract.
    #[error("log from {found}, not the oracle")]
    WrongAddress {
        /// The log's address.
        found: Address,
    },
    /// A log without its block, index or transaction index (pending logs are never in a
    /// mined range).
    #[error("log without {0}")]
    Missing(&'static str),
    /// A log outside the range asked for.
    #[error("log in block {block}, outside {from}..={to}")]
    OutOfRange {
        /// The log's block.
        block: u64,
        /// First block asked for.
        from: u64,
        /// Last block asked for.
        to: u64,
    },
    /// An index no chain reaches.
    #[error("{field} {value} out of range")]
    Implausible {
        /// Which index.
        field: &'static str,
        /// Its value.
        value: u64,
    },
    /// A `QuestionAsked` that does not decode, or whose text is not what the contract hashed.
    #[error("QuestionAsked in block {block}: {reason}")]
    ForgedQuestion {
        /// The log's block.
        block: u64,
        /// What is wrong.
        reason: String,
    },
    /// A `QuestionClarified` that is not what the contract emits (it numbers clarifications
    /// 1..=`MAX_CLARIFICATIONS` and caps their length at `MAX_CLARIFICATION_LENGTH`).
    #[error("QuestionClarified in block {block}: {reason}")]
    ForgedClarification {
        /// The log's block.
        block: u64,
        /// What is wrong.
        reason: String,
    },
}

/// Decode checked `QuestionClarified` logs (see [`check_page`]) into clarifications to store,
/// the text kept as the event's bytes (a text that is not UTF-8 fails its question later, when
/// the bundle is built, not the page). Removed (reorged) logs are skipped.
///
/// # Errors
/// [`PageDefect::ForgedClarification`] for a log the contract cannot have emitted.
pub fn decode_clarifications(logs: &[Log]) -> Result<Vec<StoredClarification>, PageDefect> {
    let mut out = Vec::with_capacity(logs.len());
    for log in logs.iter().filter(|l| !l.removed) {
        let block_number = log
            .block_number
            .ok_or(PageDefect::Missing("block number"))?;
        let log_index = log.log_index.ok_or(PageDefect::Missing("log index"))?;
        let forged = |reason: String| PageDefect::ForgedClarification {
            block: block_number,
            reason,
        };
        let topics = log.topics();
        if topics.first() != Some(&IVeritasOracle::QuestionClarified::SIGNATURE_HASH) {
            return Err(forged("not a QuestionClarified log".into()));
        }
        let question_id = topics
            .get(1)
            .map(|t| U256::from_be_bytes(t.0))
            .ok_or_else(|| forged("no question id topic".into()))?;
        // `string` and `bytes` encode alike: decoding as bytes keeps a text that is not UTF-8.
        let (index, text) = <(U256, Bytes)>::abi_decode_params(&log.data().data)
            .map_err(|e| forged(format!("data: {e}")))?;
        let index = u64::try_from(index)
            .ok()
            .filter(|i| (1..=MAX_CLARIFICATIONS).contains(i))
            .ok_or_else(|| forged(format!("index {index}")))?;
        if text.is_empty() || text.len() > MAX_CLARIFICATION_LENGTH {
            return Err(forged(format!("{} bytes of text", text.len())));
        }
        out.push(StoredClarification {
            question_id,
            index,
            text,
            block_number,
            log_index,
        });
    }
    Ok(out)
}

/// Why an honestly logged question can never be resolved: stored as its job's failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuestionDefect {
    /// The text is not UTF-8, so no prompt or report can carry it byte for byte and no honest
    /// Merkle root (leaf 0 is the text) exists.
    #[error("question text is not valid UTF-8 (invalid byte at offset {offset})")]
    NotUtf8 {
        /// Offset of the first invalid byte.
        offset: usize,
    },
    /// `resolveAfter` is past the latest time the contract can represent: no report can ever
    /// be accepted for it.
    #[error(
        "resolveAfter {value} is past the contract's latest time {MAX_RESOLVE_AFTER} (year 36,812): it can never be reported"
    )]
    ResolveAfterBeyondHorizon {
        /// The value in the event.
        value: u64,
    },
}

/// Check every log of a page answered for `[from, to]` before any is decoded.
///
/// # Errors
/// The first [`PageDefect`] found; the page must then be read again, not partly trusted.
pub fn check_page(logs: &[Log], oracle: Address, from: u64, to: u64) -> Result<(), PageDefect> {
    for log in logs {
        if log.address() != oracle {
            return Err(PageDefect::WrongAddress {
                found: log.address(),
            });
        }
        let block = log
            .block_number
            .ok_or(PageDefect::Missing("block number"))?;
        log.block_hash.ok_or(PageDefect::Missing("block hash"))?;
        let log_index = log.log_index.ok_or(PageDefect::Missing("log index"))?;
        let tx_index = log
            .transaction_index
            .ok_or(PageDefect::Missing("transaction index"))?;
        if block < from || block > to {
            return Err(PageDefect::OutOfRange { block, from, to });
        }
        for (field, value) in [
            ("block number", block),
            ("log index", log_index),
            ("transaction index", tx_index),
        ] {
            if value > MAX_STORED_INT {
                return Err(PageDefect::Implausible { field, value });
            }
        }
    }
    Ok(())
}

/// Decode checked `QuestionAsked` logs (see [`check_page`]) into questions to store. Removed
/// (reorged) logs are skipped; a question the asker made unresolvable carries its defect.
///
/// # Errors
/// [`PageDefect::ForgedQuestion`] for a log that is not what the contract emits.
pub fn decode_questions(logs: &[Log]) -> Result<Vec<NewQuestion>, PageDefect> {
    logs.iter()
        .filter(|l| !l.removed)
        .map(decode_question)
        .collect()
}

/// One `QuestionAsked` log: its topics, its data as the contract encodes it, and a text that
/// hashes to its `questionHash`.
fn decode_question(log: &Log) -> Result<NewQuestion, PageDefect> {
    let block_number = log
        .block_number
        .ok_or(PageDefect::Missing("block number"))?;
    let forged = |reason: String| PageDefect::ForgedQuestion {
        block: block_number,
        reason,
    };
    let topics = log.topics();
    if topics.first() != Some(&IVeritasOracle::QuestionAsked::SIGNATURE_HASH) {
        return Err(forged("not a QuestionAsked log".into()));
    }
    let (Some(id), Some(asker), 3) = (topics.get(1), topics.get(2), topics.len()) else {
        return Err(forged(format!("{} topics, expected 3", topics.len())));
    };
    // `string` is ABI-encoded as `bytes`: decoding it as bytes keeps what the asker sent,
    // where a `string` decoder would replace invalid UTF-8 and lose the hash preimage.
    // Contract v3's data: questionHash, resolveAfter, askedAt, parametersId, operatorEpoch,
    // paid, consumer, callbackGasLimit, question. The rules the question pinned are the
    // contract's to enforce (a report outside them reverts); the node needs the text.
    type Asked = (B256, u64, u64, u16, u32, U256, Address, u32, Bytes);
    let (question_hash, resolve_after, _, _, _, _, _, _, text) =
        <Asked>::abi_decode_params(&log.data().data)
            .map_err(|e| forged(format!("does not decode: {e}")))?;
    if text.is_empty() || text.len() > MAX_QUESTION_BYTES {
        return Err(forged(format!(
            "{} bytes of text, the contract takes 1..={MAX_QUESTION_BYTES}",
            text.len()
        )));
    }
    if B256::from_slice(&Sha256::digest(&text)) != question_hash {
        return Err(forged(format!(
            "text does not hash to questionHash {question_hash}"
        )));
    }
    let (question, defect) = text_and_defect(&text, resolve_after);
    Ok(NewQuestion {
        question_id: U256::from_be_bytes(id.0),
        question,
        asker: Address::from_word(*asker),
        question_hash,
        block_number,
        block_hash: log.block_hash.ok_or(PageDefect::Missing("block hash"))?,
        tx_index: log
            .transaction_index
            .ok_or(PageDefect::Missing("transaction index"))?,
        log_index: log.log_index.ok_or(PageDefect::Missing("log index"))?,
        resolve_after: resolve_after.min(MAX_RESOLVE_AFTER),
        defect: defect.map(|d| d.to_string()),
    })
}

/// The question text as stored, and what makes it unresolvable, if anything: bytes that are
/// not UTF-8 (kept, invalid ones replaced), or a `resolveAfter` beyond the horizon.
fn text_and_defect(text: &[u8], resolve_after: u64) -> (String, Option<QuestionDefect>) {
    match std::str::from_utf8(text) {
        Ok(s) if resolve_after > MAX_RESOLVE_AFTER => (
            s.to_owned(),
            Some(QuestionDefect::ResolveAfterBeyondHorizon {
                value: resolve_after,
            }),
        ),
        Ok(s) => (s.to_owned(), None),
        Err(e) => (
            String::from_utf8_lossy(text).into_owned(),
            Some(QuestionDefect::NotUtf8 {
                offset: e.valid_up_to(),
            }),
        ),
    }
}

/// One lifecycle log as (question id, event); `None` for a topic the watcher does not follow.
fn decode_one(
    log: &Log,
    block: u64,
    log_index: u64,
) -> Option<Result<(U256, LifecycleEvent), alloy::sol_types::Error>> {
    use IVeritasOracle as O;
    let decoded = match log.topic0() {
        Some(&O::ReportSubmitted::SIGNATURE_HASH) => decode_report(log, block, log_index),
        Some(&O::VerdictPosted::SIGNATURE_HASH) => decode_as(log, |e: O::VerdictPosted| {
            let p = [e.pYes, e.pNo, e.pNull];
            let escalated = e.escalated;
            (e.id, LifecycleEvent::Posted { escalated, p })
        }),
        Some(&O::VerdictDisputed::SIGNATURE_HASH) => decode_as(log, |e: O::VerdictDisputed| {
            let (disputer, bond) = (e.disputer, e.bond);
            (e.id, LifecycleEvent::Disputed { disputer, bond })
        }),
        Some(&O::VerdictArbitrated::SIGNATURE_HASH) => decode_as(log, |e: O::VerdictArbitrated| {
            let p = [e.pYes, e.pNo, e.pNull];
            (e.id, LifecycleEvent::Arbitrated { p })
        }),
        Some(&O::ArbitrationRequested::SIGNATURE_HASH) => {
            decode_as(log, |e: O::ArbitrationRequested| {
                (e.id, LifecycleEvent::CourtRequested)
            })
        }
        Some(&O::VerdictDefaulted::SIGNATURE_HASH) => decode_as(log, |e: O::VerdictDefaulted| {
            let p = crate::contract::UNRESOLVABLE_TRIPLE;
            (e.id, LifecycleEvent::Defaulted { p })
        }),
        Some(&O::QuestionExpired::SIGNATURE_HASH) => {
            decode_as(log, |e: O::QuestionExpired| (e.id, LifecycleEvent::Expired))
        }
        Some(&O::QuestionSettled::SIGNATURE_HASH) => {
            decode_as(log, |e: O::QuestionSettled| (e.id, LifecycleEvent::Settled))
        }
        Some(&O::QuestionDeferred::SIGNATURE_HASH) => decode_deferral(log),
        _ => return None,
    };
    Some(decoded)
}

/// A log whose topic says it is an `E`, decoded and mapped to its question and event.
fn decode_as<E: SolEvent>(
    log: &Log,
    to_event: impl FnOnce(E) -> (U256, LifecycleEvent),
) -> Result<(U256, LifecycleEvent), alloy::sol_types::Error> {
    log.log_decode::<E>().map(|d| to_event(d.inner.data))
}

/// A `QuestionDeferred` log; a count or time no deferral can have is an error.
fn decode_deferral(log: &Log) -> Result<(U256, LifecycleEvent), alloy::sol_types::Error> {
    let e = log
        .log_decode::<IVeritasOracle::QuestionDeferred>()?
        .inner
        .data;
    let count = u32::try_from(e.count)
        .ok()
        .filter(|c| (1..=MAX_DEFERRALS).contains(c))
        .ok_or_else(|| alloy::sol_types::Error::custom(format!("deferral count {}", e.count)))?;
    let resolve_after = u64::try_from(e.resolveAfter)
        .ok()
        .filter(|t| *t <= MAX_RESOLVE_AFTER)
        .ok_or_else(|| {
            alloy::sol_types::Error::custom(format!("deferral resolveAfter {}", e.resolveAfter))
        })?;
    Ok((
        e.id,
        LifecycleEvent::Deferred {
            resolve_after,
            count,
        },
    ))
}

/// A `ReportSubmitted` log as the operator's report; a ballot count no committee has is an error.
fn decode_report(
    log: &Log,
    block: u64,
    log_index: u64,
) -> Result<(U256, LifecycleEvent), alloy::sol_types::Error> {
    use IVeritasOracle as O;
    log.log_decode::<O::ReportSubmitted>().and_then(|d| {
        let e = d.inner.data;
        let count = |n: U256| {
            u64::try_from(n)
                .ok()
                .filter(|n| *n <= MAX_BALLOT_COUNT)
                .ok_or_else(|| alloy::sol_types::Error::custom(format!("ballot count {n}")))
        };
        Ok((
            e.id,
            LifecycleEvent::Report(OperatorReport {
                question_id: e.id,
                operator: e.operator,
                merkle_root: Root::from(e.merkleRoot),
                counts: [count(e.nYes)?, count(e.nNo)?, count(e.nNull)?],
                kappa: e.fleissKappa,
                escalated: e.escalated,
                block_number: block,
                log_index,
                tx_hash: log.transaction_hash.unwrap_or_default(),
            }),
        ))
    })
}

/// Turn checked lifecycle logs into events, in chain order. Removed logs are skipped; a log
/// that does not decode, or carries a count no committee has, is skipped and counted in
/// `undecodable` (the follower reads the question's state from the contract as well).
pub fn decode_lifecycle(logs: &[Log], undecodable: &mut u64) -> Vec<EventAt> {
    let mut out = Vec::with_capacity(logs.len());
    for log in logs {
        let (false, Some(block), Some(log_index)) = (log.removed, log.block_number, log.log_index)
        else {
            continue;
        };
        let Some(decoded) = decode_one(log, block, log_index) else {
            continue;
        };
        match decoded {
            Ok((question_id, event)) => out.push(EventAt {
                question_id,
                event,
                block,
                log_index,
            }),
            Err(e) => {
                *undecodable += 1;
                tracing::warn!(target: "veritas::watcher", error = %e, block, "undecodable lifecycle log skipped");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use alloy::primitives::{LogData, address};
    use proptest::prelude::*;

    use super::*;

    const ORACLE: Address = address!("5FbDB2315678afecb367f032d93F642f64180aa3");

    fn asked(id: u64, text: &[u8], resolve_after: u64) -> Log {
        let hash = B256::from_slice(&Sha256::digest(text));
        raw_asked(id, hash, resolve_after, text)
    }

    fn raw_asked(id: u64, hash: B256, resolve_after: u64, text: &[u8]) -> Log {
        // QuestionAsked's data: questionHash, resolveAfter, askedAt, parametersId, operatorEpoch,
        // paid, consumer, callbackGasLimit, question (as bytes, so tests can send non-UTF-8).
        let data = (
            hash,
            resolve_after,
            1_700_000_000u64,
            0u64,
            1u64,
            U256::ZERO,
            Address::ZERO,
            0u64,
            Bytes::copy_from_slice(text),
        )
            .abi_encode_params();
        let topics = vec![
            IVeritasOracle::QuestionAsked::SIGNATURE_HASH,
            B256::from(U256::from(id)),
            address!("3C44CdDdB6a900fa2b585dd299e03d12FA4293BC").into_word(),
        ];
        Log {
            inner: alloy::primitives::Log {
                address: ORACLE,
                data: LogData::new_unchecked(topics, data.into()),
            },
            block_hash: Some(B256::repeat_byte(7)),
            block_number: Some(10),
            block_timestamp: None,
            transaction_hash: Some(B256::repeat_byte(9)),
            transaction_index: Some(0),
            log_index: Some(0),
            removed: false,
        }
    }

    #[test]
    fn plain_question_decodes_as_asked() {
        let q = decode_questions(&[asked(3, b"Will it rain?", 1_700_000_000)]).unwrap();
        assert_eq!(q.len(), 1);
        assert_eq!(q[0].question_id, U256::from(3));
        assert_eq!(q[0].question, "Will it rain?");
        assert_eq!(q[0].resolve_after, 1_700_000_000);
        assert_eq!(q[0].defect, None);
    }

    #[test]
    fn resolve_after_past_the_contracts_horizon_fails_that_question_only() {
        for raw in [1u64 << 63, u64::MAX, MAX_RESOLVE_AFTER + 1] {
            let q =
                decode_questions(&[asked(1, b"Far away?", raw), asked(2, b"Plain?", 0)]).unwrap();
            assert_eq!(
                q[0].resolve_after, MAX_RESOLVE_AFTER,
                "stored as the contract does"
            );
            let defect = q[0].defect.as_deref().unwrap();
            assert!(defect.contains(&raw.to_string()), "{defect}");
            assert_eq!(q[1].defect, None);
        }
        // The contract's own maximum is a (very late) valid time.
        let q = decode_questions(&[asked(1, b"Late?", MAX_RESOLVE_AFTER)]).unwrap();
        assert_eq!(q[0].defect, None);
    }

    #[test]
    fn invalid_utf8_is_kept_as_the_hash_preimage_and_fails_that_question() {
        let text = b"Is \xff\xfe valid?";
        let q = decode_questions(&[asked(1, text, 0)]).unwrap();
        assert!(q[0].defect.as_deref().unwrap().contains("offset 3"));
    }

    #[test]
    fn a_text_that_does_not_hash_to_its_question_hash_is_a_forged_page() {
        let log = raw_asked(1, B256::repeat_byte(1), 0, b"Swapped text?");
        let err = decode_questions(&[log]).unwrap_err();
        assert!(err.to_string().contains("does not hash"), "{err}");
        let long = vec![b'x'; MAX_QUESTION_BYTES + 1];
        let err = decode_questions(&[asked(1, &long, 0)]).unwrap_err();
        assert!(err.to_string().contains("2049 bytes"), "{err}");
    }

    #[test]
    fn page_checks_refuse_what_no_honest_provider_returns() {
        let ok = asked(1, b"Fine?", 0);
        assert_eq!(
            check_page(std::slice::from_ref(&ok), ORACLE, 10, 10),
            Ok(())
        );
        let mut other = ok.clone();
        other.inner.address = Address::repeat_byte(1);
        let mut early = ok.clone();
        early.block_number = Some(9);
        let mut huge = ok.clone();
        huge.log_index = Some(u64::MAX);
        let mut pending = ok.clone();
        pending.block_hash = None;
        for (log, want) in [
            (other, "not the oracle"),
            (early, "outside 10..=20"),
            (huge, "log index 18446744073709551615"),
            (pending, "without block hash"),
        ] {
            let err = check_page(&[ok.clone(), log], ORACLE, 10, 20).unwrap_err();
            assert!(err.to_string().contains(want), "{err} lacks {want}");
        }
    }

    #[test]
    fn report_counts_no_committee_has_are_skipped_and_counted() {
        let data = IVeritasOracle::ReportSubmitted {
            id: U256::from(1),
            operator: Address::repeat_byte(2),
            merkleRoot: B256::ZERO,
            nYes: U256::from(1u64 << 63),
            nNo: U256::ZERO,
            nNull: U256::ZERO,
            fleissKappa: Default::default(),
            escalated: false,
        }
        .encode_log_data();
        let mut log = asked(1, b"x", 0);
        log.inner.data = data;
        let mut undecodable = 0;
        assert!(decode_lifecycle(&[log], &mut undecodable).is_empty());
        assert_eq!(undecodable, 1);
    }

    proptest! {
        /// Whatever an asker sends, decoding a page never panics and never yields a value the
        /// store cannot hold.
        #[test]
        fn any_honest_ask_decodes_to_storable_values(
            text in proptest::collection::vec(any::<u8>(), 1..=MAX_QUESTION_BYTES),
            resolve_after in any::<u64>(),
        ) {
            let q = decode_questions(&[asked(1, &text, resolve_after)]).unwrap();
            prop_assert!(q[0].resolve_after <= MAX_RESOLVE_AFTER);
            prop_assert_eq!(
                q[0].defect.is_none(),
                std::str::from_utf8(&text).is_ok() && resolve_after <= MAX_RESOLVE_AFTER
            );
        }
    }
}
