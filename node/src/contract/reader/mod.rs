//! Read one question's whole on-chain state — views and events — as of one block, for
//! `veritas verdict` and `veritas audit --question`.
//!
//! Every view is called at the same block the event scan ends at, so the reports, the tally
//! and the verdict agree with each other even while new blocks arrive. Events come from
//! `eth_getLogs` filtered by the question id (an indexed topic) from `from_block` on; a range the
//! RPC refuses is split in halves until it is accepted.
//!
//! The types serialise for `veritas verdict --json`: keys in camelCase as the contract names
//! them (`pYes`, `isFinal`, `pendingFee`), every 1e18 integer and wei amount a decimal string.

use alloy::{
    eips::BlockId,
    primitives::{Address, B256, I256, U256},
    providers::Provider,
    rpc::types::{BlockNumberOrTag, Filter, Log},
    sol_types::SolEvent,
};

mod views;

pub use views::{DisputeView, ParametersView, PostedEvent, QuestionView, ReportEvent, VerdictView};

use super::IVeritasOracle;
use crate::chain::ViewCall;
use crate::chain::{ChainError, ChainProvider};
use crate::commitment::root::Root;

fn bad(op: &'static str, reason: impl Into<String>) -> ChainError {
    ChainError::Contract {
        op,
        reason: reason.into(),
    }
}

fn small<T: TryFrom<U256>>(op: &'static str, v: U256) -> Result<T, ChainError> {
    T::try_from(v).map_err(|_| bad(op, format!("value {v} out of range")))
}

fn signed(op: &'static str, v: I256) -> Result<i128, ChainError> {
    i128::try_from(v).map_err(|_| bad(op, format!("value {v} out of range")))
}

/// Fail with a clear error unless `oracle` holds code at `block` (a wrong address otherwise
/// surfaces as an undecodable empty answer).
///
/// # Errors
/// [`ChainError::Contract`] naming the address; [`ChainError::Rpc`].
pub async fn ensure_contract(
    provider: &ChainProvider,
    oracle: Address,
    block: BlockId,
) -> Result<(), ChainError> {
    let code = provider
        .get_code_at(oracle)
        .block_id(block)
        .await
        .map_err(|e| ChainError::rpc("eth_getCode", e))?;
    if code.is_empty() {
        return Err(bad(
            "eth_getCode",
            format!("no contract at {oracle}: wrong --oracle address or wrong chain?"),
        ));
    }
    Ok(())
}

/// Logs matching `filter` in blocks `from..=to`, without removed (reorged) ones, splitting any
/// range the RPC refuses.
async fn logs(
    provider: &ChainProvider,
    filter: &Filter,
    from: u64,
    to: u64,
) -> Result<Vec<Log>, ChainError> {
    let mut out = Vec::new();
    let mut start = from;
    let mut range = to.saturating_sub(from).saturating_add(1);
    while start <= to {
        let end = to.min(start.saturating_add(range - 1));
        let page = filter.clone().from_block(start).to_block(end);
        match provider.get_logs(&page).await {
            Ok(found) => {
                out.extend(found.into_iter().filter(|l| !l.removed));
                start = end + 1;
            }
            Err(e) => {
                let e = ChainError::rpc("eth_getLogs", e);
                if e.is_range_refusal() && range > 1 {
                    range /= 2;
                } else {
                    return Err(e);
                }
            }
        }
    }
    Ok(out)
}

fn question_filter(oracle: Address, signature: B256, id: U256) -> Filter {
    Filter::new()
        .address(oracle)
        .event_signature(signature)
        .topic1(B256::from(id))
}

/// The `ReportSubmitted` events of `id` in blocks `from..=to` of its current report round, in
/// report order: a `QuestionDeferred` undoes every report before it (they are not pooled).
///
/// # Errors
/// [`ChainError`] from the RPC or an undecodable log.
pub async fn report_events(
    provider: &ChainProvider,
    oracle: Address,
    id: U256,
    from: u64,
    to: u64,
) -> Result<Vec<ReportEvent>, ChainError> {
    let filter = Filter::new()
        .address(oracle)
        .event_signature(vec![
            IVeritasOracle::ReportSubmitted::SIGNATURE_HASH,
            IVeritasOracle::ReportNotYet::SIGNATURE_HASH,
            IVeritasOracle::QuestionDeferred::SIGNATURE_HASH,
        ])
        .topic1(B256::from(id));
    let mut out: Vec<ReportEvent> = Vec::new();
    for log in logs(provider, &filter, from, to).await? {
        if log.topic0() == Some(&IVeritasOracle::QuestionDeferred::SIGNATURE_HASH) {
            out.clear();
            continue;
        }
        if log.topic0() == Some(&IVeritasOracle::ReportNotYet::SIGNATURE_HASH) {
            // Emitted right after its report's `ReportSubmitted`, in the same transaction.
            let decoded = log
                .log_decode::<IVeritasOracle::ReportNotYet>()
                .map_err(|e| bad("ReportNotYet", e.to_string()))?;
            let tx = log.transaction_hash.unwrap_or_default();
            if let Some(report) = out
                .iter_mut()
                .rev()
                .find(|r| r.tx == tx && r.operator == decoded.inner.data.operator)
            {
                report.not_yet = true;
            }
            continue;
        }
        let decoded = log
            .log_decode::<IVeritasOracle::ReportSubmitted>()
            .map_err(|e| bad("ReportSubmitted", e.to_string()))?;
        let e = &decoded.inner.data;
        out.push(ReportEvent {
            operator: e.operator,
            merkle_root: Root::from(e.merkleRoot),
            n_yes: small("ReportSubmitted.nYes", e.nYes)?,
            n_no: small("ReportSubmitted.nNo", e.nNo)?,
            n_null: small("ReportSubmitted.nNull", e.nNull)?,
            fleiss_kappa: signed("ReportSubmitted.fleissKappa", e.fleissKappa)?,
            escalated: e.escalated,
            not_yet: false,
            block: log.block_number.unwrap_or_default(),
            tx: log.transaction_hash.unwrap_or_default(),
        });
    }
    Ok(out)
}

/// The wei `account` may withdraw from `oracle` (`credits`).
///
/// # Errors
/// [`ChainError`] from the call.
pub async fn credits(
    provider: &ChainProvider,
    oracle: Address,
    account: Address,
) -> Result<U256, ChainError> {
    IVeritasOracle::new(oracle, provider)
        .credits(account)
        .view("credits")
        .await
}

/// An operator's stake on the oracle and what was taken from it: by the court (a verdict
/// overturned) and by `finalize` (a commit never revealed burns its bond).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StakeInfo {
    /// Wei staked (free and locked).
    pub staked: U256,
    /// Wei locked by unsettled reports (each locks its question's report bond).
    pub locked: U256,
    /// Reports whose questions have not settled yet.
    pub open_reports: U256,
    /// Wei slashed so far (`Slashed` and `CommitSlashed` events from `from_block`).
    pub slashed: U256,
    /// How many times it was slashed, both kinds.
    pub slashings: usize,
    /// Of those, commits not revealed in time (`CommitSlashed`).
    pub unrevealed_commits: usize,
}

/// The bond a report on a question with parameters `p` locks of the reporter's free stake:
/// `disputeBond` rounded down to whole `unit`s (`BOND_UNIT`), nothing without a challenge
/// window and without a reveal window (the contract's `_bondOf`: a commit-reveal set bonds its
/// reports so that a commit never revealed costs its bond).
pub fn report_bond(p: &IVeritasOracle::Parameters, unit: U256) -> U256 {
    if (p.challengeWindow == 0 && p.revealWindow == 0) || unit.is_zero() {
        return U256::ZERO;
    }
    U256::from(p.disputeBond) / unit * unit
}

/// The free stake of `account` (staked − locked, `operatorStake`) and the report bond of the
/// parameter set in force (`parameters`, `BOND_UNIT`): whether one more report can be backed.
///
/// # Errors
/// [`ChainError`] from the views.
pub async fn free_stake_and_bond(
    provider: &ChainProvider,
    oracle: Address,
    account: Address,
) -> Result<(U256, U256), ChainError> {
    let contract = IVeritasOracle::new(oracle, provider);
    let view = contract
        .operatorStake(account)
        .view("operatorStake")
        .await?;
    let params = contract.parameters().view("parameters").await?;
    let unit = contract.BOND_UNIT().view("BOND_UNIT").await?;
    Ok((
        view.staked.saturating_sub(view.locked),
        report_bond(&params, unit),
    ))
}

/// The stake of `account` (`operatorStake`) and its `Slashed` events since `from_block`.
///
/// # Errors
/// [`ChainError`] from the view or `eth_getLogs`.
pub async fn stake(
    provider: &ChainProvider,
    oracle: Address,
    account: Address,
    from_block: u64,
) -> Result<StakeInfo, ChainError> {
    // The stake and the slashings up to one block, so the two agree.
    let latest = provider
        .get_block_number()
        .await
        .map_err(|e| ChainError::rpc("eth_blockNumber", e))?;
    let view = IVeritasOracle::new(oracle, provider)
        .operatorStake(account)
        .view_at(latest.into(), "operatorStake")
        .await?;
    // Both events are (uint256 indexed id, address indexed operator, uint256 amount).
    let filter = Filter::new()
        .address(oracle)
        .event_signature(vec![
            IVeritasOracle::Slashed::SIGNATURE_HASH,
            IVeritasOracle::CommitSlashed::SIGNATURE_HASH,
        ])
        .topic2(account.into_word());
    let found = logs(provider, &filter, from_block, latest).await?;
    let (mut slashed, mut slashings, mut unrevealed_commits) = (U256::ZERO, 0, 0);
    for log in &found {
        if let Ok(decoded) = log.log_decode::<IVeritasOracle::Slashed>() {
            slashed += decoded.inner.data.amount;
            slashings += 1;
        } else if let Ok(decoded) = log.log_decode::<IVeritasOracle::CommitSlashed>() {
            slashed += decoded.inner.data.amount;
            slashings += 1;
            unrevealed_commits += 1;
        }
    }
    Ok(StakeInfo {
        staked: view.staked,
        locked: view.locked,
        open_reports: view.openReports,
        slashed,
        slashings,
        unrevealed_commits,
    })
}

/// The chain's clock for a report round of question `id`, as of the latest block: that block,
/// its time, the ask time, `maxHorizon()` and the deferrals so far (every view at that block,
/// so they agree). The "not yet" rule reads it; the report records it for the audit.
///
/// # Errors
/// [`ChainError::Rpc`]; [`ChainError::Contract`] for a value out of range.
pub async fn round_clock(
    provider: &ChainProvider,
    oracle: Address,
    id: U256,
) -> Result<crate::policy::not_yet::RoundClock, ChainError> {
    let (block, now) = crate::chain::latest_block(provider).await?;
    round_clock_at(provider, oracle, id, block, now).await
}

/// [`round_clock`] as of `block`, whose timestamp is `now` (the audit reads a report's block
/// back with it).
///
/// # Errors
/// [`ChainError::Rpc`]; [`ChainError::Contract`] for a value out of range.
pub async fn round_clock_at(
    provider: &ChainProvider,
    oracle: Address,
    id: U256,
    block: u64,
    now: u64,
) -> Result<crate::policy::not_yet::RoundClock, ChainError> {
    let at = BlockId::number(block);
    let c = IVeritasOracle::new(oracle, provider);
    let question = c.getQuestion(id).view_at(at, "getQuestion").await?;
    let horizon = c.maxHorizon().view_at(at, "maxHorizon").await?;
    Ok(crate::policy::not_yet::RoundClock {
        asked_at: question.askedAt,
        block,
        now,
        horizon: small("maxHorizon", horizon)?,
        round: round_at(provider, oracle, id, at).await?,
    })
}

/// The report round `id` is in at `at`: how many times it was deferred.
///
/// # Errors
/// [`ChainError::Rpc`]; [`ChainError::Contract`] for a count out of range.
pub async fn round_at(
    provider: &ChainProvider,
    oracle: Address,
    id: U256,
    at: BlockId,
) -> Result<u32, ChainError> {
    let c = IVeritasOracle::new(oracle, provider);
    let deferral = c.deferral(id).view_at(at, "deferral").await?;
    small("deferral", deferral.count)
}

/// Read question `id` whole (views at the latest block, events from `from_block` to it).
///
/// # Errors
/// [`ChainError::UnknownQuestion`] for an id never asked; [`ChainError::Contract`] when no
/// contract is at `oracle`; [`ChainError::Rpc`] when the RPC fails.
pub async fn question_view(
    provider: &ChainProvider,
    oracle: Address,
    id: U256,
    from_block: u64,
) -> Result<QuestionView, ChainError> {
    let chain_id = crate::chain::check_chain_id(provider, None).await?;
    let (block, now) = head(provider).await?;
    let at = BlockId::number(block);
    ensure_contract(provider, oracle, at).await?;
    let c = IVeritasOracle::new(oracle, provider);
    let status = c.verdictStatus(id).view_at(at, "verdictStatus").await?;
    if matches!(status, IVeritasOracle::VerdictStatus::None) {
        return Err(ChainError::UnknownQuestion(id));
    }
    let question = c.getQuestion(id).view_at(at, "getQuestion").await?;
    let p = c
        .questionParameters(id)
        .view_at(at, "questionParameters")
        .await?;
    let (is_final, final_at) = finality(&c, id, at).await?;
    let pending_fee = c.pendingFee(id).view_at(at, "pendingFee").await?;
    let dispute = dispute_view(&c, id, at).await?;
    let verdict = match has_verdict(status) {
        true => Some(verdict_view(&c, id, at).await?),
        false => None,
    };
    let events = Events::read(provider, oracle, id, (from_block, block), status).await?;
    let as_asked = question.resolveAfter.max(question.askedAt);
    let round = report_round(&c, id, at, status, as_asked).await?;
    Ok(QuestionView {
        id,
        oracle,
        chain_id,
        block,
        block_timestamp: now,
        status: format!("{status:?}"),
        is_final,
        final_at,
        seconds_to_final: seconds_to_final(status, final_at, now),
        question_hash: question.questionHash,
        asker: question.asker,
        asked_at: question.askedAt,
        resolve_after: question.resolveAfter,
        reports_open_at: round.opens,
        deferrals: round.deferrals,
        max_deferrals: round.max_deferrals,
        clarifications: events.clarifications,
        asked_block_hash: events.asked_block_hash,
        report_window_closes_at: round.opens.saturating_add(u64::from(p.reportWindow)),
        parameters: ParametersView::from(&p),
        pending_fee,
        verdict,
        posted: events.posted,
        arbitrated: events.arbitrated,
        dispute,
        reports: events.reports,
    })
}

/// Where the question's report round stands: when reports open, and its deferrals.
struct Round {
    /// When reports open (the tally's time).
    opens: u64,
    /// Deferrals so far.
    deferrals: u64,
    /// `MAX_DEFERRALS`.
    max_deferrals: u64,
}

/// The report round at `at`. While Asked, the tally's time is when reports open (a deferral
/// moves it); after that it is the time of the last status change, and the time `as_asked`
/// (the asked `resolveAfter`, or the ask itself) is the one that counted.
async fn report_round(
    c: &IVeritasOracle::IVeritasOracleInstance<&ChainProvider>,
    id: U256,
    at: BlockId,
    status: IVeritasOracle::VerdictStatus,
    as_asked: u64,
) -> Result<Round, ChainError> {
    let deferral = c.deferral(id).view_at(at, "deferral").await?;
    let max_deferrals = c.MAX_DEFERRALS().view_at(at, "MAX_DEFERRALS").await?;
    let opens = if matches!(status, IVeritasOracle::VerdictStatus::Asked) {
        small("deferral", deferral.reportsOpenAt)?
    } else {
        as_asked
    };
    Ok(Round {
        opens,
        deferrals: small("deferral", deferral.count)?,
        max_deferrals: small("MAX_DEFERRALS", max_deferrals)?,
    })
}

/// Seconds until the verdict is final: none left once final, the challenge window's rest
/// while Resolved, unknown otherwise (Asked, Escalated, Disputed).
fn seconds_to_final(status: IVeritasOracle::VerdictStatus, final_at: u64, now: u64) -> Option<u64> {
    use IVeritasOracle::VerdictStatus as S;
    match status {
        S::Arbitrated | S::Expired | S::Defaulted => Some(0),
        S::Resolved => Some(final_at.saturating_sub(now)),
        _ => None,
    }
}

/// The events of one question that [`question_view`] shows.
struct Events {
    reports: Vec<ReportEvent>,
    asked_block_hash: Option<B256>,
    posted: Option<PostedEvent>,
    arbitrated: Option<[u128; 3]>,
    /// The clarifications' texts, in their order.
    clarifications: Vec<String>,
}

impl Events {
    /// The events of `id` in blocks `from..=to` (a `VerdictPosted` once `status` has a
    /// verdict, a `VerdictArbitrated` once arbitrated).
    async fn read(
        provider: &ChainProvider,
        oracle: Address,
        id: U256,
        (from, to): (u64, u64),
        status: IVeritasOracle::VerdictStatus,
    ) -> Result<Self, ChainError> {
        use IVeritasOracle::VerdictStatus as S;
        let reports = report_events(provider, oracle, id, from, to).await?;
        let asked = question_filter(oracle, IVeritasOracle::QuestionAsked::SIGNATURE_HASH, id);
        let asked_block_hash = logs(provider, &asked, from, to)
            .await?
            .first()
            .and_then(|l| l.block_hash);
        let posted = match has_verdict(status) {
            true => posted_event(provider, oracle, id, from, to).await?,
            false => None,
        };
        let arbitrated = match status {
            S::Arbitrated => arbitrated_event(provider, oracle, id, from, to).await?,
            _ => None,
        };
        let clarified = question_filter(
            oracle,
            IVeritasOracle::QuestionClarified::SIGNATURE_HASH,
            id,
        );
        let mut clarifications = crate::watcher::events::decode_clarifications(
            &logs(provider, &clarified, from, to).await?,
        )
        .map_err(|e| bad("QuestionClarified", e.to_string()))?;
        clarifications.sort_by_key(|c| c.index);
        Ok(Self {
            reports,
            asked_block_hash,
            posted,
            arbitrated,
            clarifications: clarifications
                .iter()
                .map(|c| String::from_utf8_lossy(&c.text).into_owned())
                .collect(),
        })
    }
}

/// Whether a question in `status` has a verdict (`getVerdict`, a `VerdictPosted`).
fn has_verdict(status: IVeritasOracle::VerdictStatus) -> bool {
    use IVeritasOracle::VerdictStatus as S;
    matches!(
        status,
        S::Resolved | S::Escalated | S::Arbitrated | S::Disputed | S::Defaulted
    )
}

/// The latest block and its timestamp.
async fn head(provider: &ChainProvider) -> Result<(u64, u64), ChainError> {
    let block = provider
        .get_block_number()
        .await
        .map_err(|e| ChainError::rpc("eth_blockNumber", e))?;
    let header = provider
        .get_block_by_number(BlockNumberOrTag::Number(block))
        .await
        .map_err(|e| ChainError::rpc("eth_getBlockByNumber", e))?
        .ok_or_else(|| bad("eth_getBlockByNumber", format!("no block {block}")))?;
    Ok((block, header.header.timestamp))
}

/// `isFinal(id)` and `finalAt(id)` at block `at`.
async fn finality(
    c: &IVeritasOracle::IVeritasOracleInstance<&ChainProvider>,
    id: U256,
    at: BlockId,
) -> Result<(bool, u64), ChainError> {
    let is_final = c.isFinal(id).view_at(at, "isFinal").await?;
    let final_at: u64 = small("finalAt", c.finalAt(id).view_at(at, "finalAt").await?)?;
    Ok((is_final, final_at))
}

/// The dispute of `id` at block `at`, if a disputer opened one (an escalation taken to the
/// court has none).
async fn dispute_view(
    c: &IVeritasOracle::IVeritasOracleInstance<&ChainProvider>,
    id: U256,
    at: BlockId,
) -> Result<Option<DisputeView>, ChainError> {
    let d = c.getCase(id).view_at(at, "getCase").await?;
    Ok((d.disputer != Address::ZERO).then_some(DisputeView {
        disputer: d.disputer,
        bond: d.bond,
    }))
}

/// The verdict of `id` as `getVerdict` gives it at block `at`.
async fn verdict_view(
    c: &IVeritasOracle::IVeritasOracleInstance<&ChainProvider>,
    id: U256,
    at: BlockId,
) -> Result<VerdictView, ChainError> {
    let v = c.getVerdict(id).view_at(at, "getVerdict").await?;
    Ok(VerdictView {
        question_hash: v.questionHash,
        merkle_root: Root::from(v.merkleRoot),
        p_yes: small("getVerdict.pYes", v.pYes)?,
        p_no: small("getVerdict.pNo", v.pNo)?,
        p_null: small("getVerdict.pNull", v.pNull)?,
        fleiss_kappa: signed("getVerdict.fleissKappa", v.fleissKappa)?,
        timestamp: small("getVerdict.timestamp", v.timestamp)?,
    })
}

/// The last event `E` of question `id` in blocks `from_block..=to_block`, decoded, with its
/// block number.
async fn last_event<E: SolEvent>(
    provider: &ChainProvider,
    oracle: Address,
    id: U256,
    from_block: u64,
    to_block: u64,
) -> Result<Option<(E, u64)>, ChainError> {
    let filter = question_filter(oracle, E::SIGNATURE_HASH, id);
    let Some(log) = logs(provider, &filter, from_block, to_block).await?.pop() else {
        return Ok(None);
    };
    let decoded = log
        .log_decode::<E>()
        // Named as before the helper: the event's name, not its whole signature.
        .map_err(|e| {
            bad(
                E::SIGNATURE.split('(').next().unwrap_or(E::SIGNATURE),
                e.to_string(),
            )
        })?;
    Ok(Some((
        decoded.inner.data,
        log.block_number.unwrap_or_default(),
    )))
}

/// The last `VerdictPosted` of `id` in blocks `from_block..=to_block`, if any.
async fn posted_event(
    provider: &ChainProvider,
    oracle: Address,
    id: U256,
    from_block: u64,
    to_block: u64,
) -> Result<Option<PostedEvent>, ChainError> {
    let last =
        last_event::<IVeritasOracle::VerdictPosted>(provider, oracle, id, from_block, to_block);
    let Some((e, block)) = last.await? else {
        return Ok(None);
    };
    Ok(Some(PostedEvent {
        merkle_root: Root::from(e.merkleRoot),
        p_fixed: [
            small("VerdictPosted.pYes", e.pYes)?,
            small("VerdictPosted.pNo", e.pNo)?,
            small("VerdictPosted.pNull", e.pNull)?,
        ],
        fleiss_kappa: signed("VerdictPosted.fleissKappa", e.fleissKappa)?,
        escalated: e.escalated,
        poster: e.operator,
        block,
    }))
}

/// The triple of the last `VerdictArbitrated` of `id` in blocks `from_block..=to_block`, if any.
async fn arbitrated_event(
    provider: &ChainProvider,
    oracle: Address,
    id: U256,
    from_block: u64,
    to_block: u64,
) -> Result<Option<[u128; 3]>, ChainError> {
    let last =
        last_event::<IVeritasOracle::VerdictArbitrated>(provider, oracle, id, from_block, to_block);
    let Some((e, _)) = last.await? else {
        return Ok(None);
    };
    Ok(Some([
        small("VerdictArbitrated.pYes", e.pYes)?,
        small("VerdictArbitrated.pNo", e.pNo)?,
        small("VerdictArbitrated.pNull", e.pNull)?,
    ]))
}

/// The rules an ask pins (contract v3): the parameter set and operator epoch in force now, read
/// just before asking, so a rule change mined before the ask makes it revert instead of silently
/// binding the question to rules its asker never saw. No callback.
///
/// # Errors
/// [`ChainError::Contract`] when a view fails.
pub async fn current_rules<P: alloy::providers::Provider>(
    oracle: &IVeritasOracle::IVeritasOracleInstance<P>,
) -> Result<IVeritasOracle::AskRules, ChainError> {
    let parameters_id = oracle.parametersId().view("parametersId").await?;
    let operator_epoch = oracle.operatorEpoch().view("operatorEpoch").await?;
    Ok(IVeritasOracle::AskRules {
        parametersId: parameters_id,
        operatorEpoch: operator_epoch,
        consumer: alloy::primitives::Address::ZERO,
        callbackGasLimit: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy::primitives::aliases::U96;

    fn params(challenge: u32, reveal: u32, bond: u64) -> IVeritasOracle::Parameters {
        IVeritasOracle::Parameters {
            quorum: 2,
            maxBallotsPerReport: 30,
            reportWindow: 3600,
            challengeWindow: challenge,
            arbitrationWindow: 3600,
            askFee: U96::ZERO,
            disputeBond: U96::from(bond),
            evidenceFee: U96::ZERO,
            arbitrator: Address::ZERO,
            arbitratorExtraData: Default::default(),
            revealWindow: reveal,
        }
    }

    /// The contract's `_bondOf`: whole units, and nothing only when the set has neither a
    /// challenge window nor a reveal window.
    #[test]
    fn report_bond_follows_the_contract() {
        let unit = U256::from(1_000_000_000_000u64);
        let bond = 2_500_000_000_000u64; // 2.5 units
        assert_eq!(report_bond(&params(0, 0, bond), unit), U256::ZERO);
        assert_eq!(
            report_bond(&params(7200, 0, bond), unit),
            U256::from(2) * unit
        );
        assert_eq!(
            report_bond(&params(0, 30, bond), unit),
            U256::from(2) * unit
        );
        assert_eq!(report_bond(&params(7200, 30, 999), unit), U256::ZERO);
        assert_eq!(report_bond(&params(7200, 0, bond), U256::ZERO), U256::ZERO);
    }
}
