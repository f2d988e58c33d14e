//! What the contracts would refuse, checked before anything is sent (pure: no I/O).
//!
//! Each role's command (`veritas ask`, `evidence submit`, `dispute`, `appeal`, `finalize`,
//! `callback retry`, `court rule`, `court execute`) reads the question's state with views, then
//! asks one function here what the transaction must pay or why the contract would revert. A
//! refusal *is* the contract's own custom error, built with the arguments the contract would
//! give it, so the user reads the very sentence the contract's NatSpec gives it (see
//! [`super::explain`]) and a wrong local check shows up as a different sentence from the one the
//! simulation (`eth_call`) returns. The checks follow the contracts' order, so the first
//! refusal is the one the contract would raise.

use alloy::primitives::{Address, U256};

use super::{
    IVeritasOracle::{self, VerdictStatus},
    OracleError, WAD,
    court::{CourtError, IVeritasCourt},
    explain,
};

/// Why the contract would refuse: its custom error, as it would revert with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The oracle's error.
    #[error("the oracle would refuse: {}", explain::oracle_error(.0))]
    Oracle(Box<OracleError>),
    /// The reference court's error.
    #[error("the court would refuse: {}", explain::court_error(.0))]
    Court(Box<CourtError>),
}

impl Refusal {
    /// The error's name, arguments and sentence, as `POST /explain` gives them for revert data.
    pub fn explained(&self) -> explain::Explained {
        use alloy::sol_types::SolInterface;
        let (abi, data) = match self {
            Refusal::Oracle(e) => (explain::oracle_abi(), e.abi_encode()),
            Refusal::Court(e) => (explain::court_abi(), e.abi_encode()),
        };
        // Every error of the bindings is in its ABI: the fallback is unreachable.
        explain::explain(abi, &data).unwrap_or_else(|| explain::Explained {
            error: format!("{self:?}"),
            args: Vec::new(),
            sentence: self.to_string(),
        })
    }
}

impl From<OracleError> for Refusal {
    fn from(e: OracleError) -> Self {
        Refusal::Oracle(Box::new(e))
    }
}

impl From<CourtError> for Refusal {
    fn from(e: CourtError) -> Self {
        Refusal::Court(Box::new(e))
    }
}

/// Shorthand: `refuse!(VeritasX { field: value, .. })` is `Err(Refusal)` of that oracle error.
macro_rules! refuse {
    ($error:ident { $($field:ident: $value:expr),* $(,)? }) => {
        Err(Refusal::from(OracleError::$error(IVeritasOracle::$error { $($field: $value),* })))
    };
}

/// The oracle's constants that bound evidence (the `MAX_*` and `EVIDENCE_PRICE_STEP` views).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EvidenceLimits {
    /// `MAX_EVIDENCE_PER_QUESTION`.
    pub per_question: u64,
    /// `MAX_EVIDENCE_PER_SUBMITTER`.
    pub per_submitter: u64,
    /// `EVIDENCE_PRICE_STEP`.
    pub price_step: u64,
    /// `MAX_URL_LENGTH`, `MAX_TITLE_LENGTH`, `MAX_SNIPPET_LENGTH`.
    pub field_lengths: [u64; 3],
}

/// A question as `submitEvidence` sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceState {
    /// `verdictStatus(id)`.
    pub status: VerdictStatus,
    /// `deferral(id).reportsOpenAt`, the contract's `Tally.time`: while Asked, when reports
    /// open (the later of `resolveAfter` and the ask, or a deferral's reopening); evidence is
    /// taken before it. After a verdict, the time of the last status change.
    pub reports_open_at: u64,
    /// `evidenceCount(id)`.
    pub count: u64,
    /// Items the submitter already gave (`evidenceOf(id, submitter).items`).
    pub mine: u64,
    /// The question's `evidenceFee` (of its parameter set).
    pub evidence_fee: U256,
}

/// The fee of the next evidence item of `id` from `submitter` at chain time `now`, with its
/// fields' byte lengths `lengths` (url, title, snippet), or the contract's refusal.
///
/// # Errors
/// The oracle's error for an item too long, an unknown question, evidence closed, too many
/// items on the question or from the submitter.
pub fn evidence_fee(
    id: U256,
    submitter: Address,
    state: &EvidenceState,
    limits: &EvidenceLimits,
    now: u64,
    lengths: [usize; 3],
) -> Result<U256, Refusal> {
    for (field, (length, max)) in lengths.iter().zip(limits.field_lengths).enumerate() {
        if *length as u64 > max {
            return refuse!(VeritasEvidenceTooLong {
                field: field as u8,
                length: U256::from(*length),
                maxLength: U256::from(max),
            });
        }
    }
    if state.status == VerdictStatus::None {
        return refuse!(VeritasUnknownQuestion { id: id });
    }
    if now >= gate_canary_shift(state.reports_open_at) {
        return refuse!(VeritasEvidenceClosed {
            id: id,
            resolveAfter: state.reports_open_at,
            nowTimestamp: U256::from(now),
        });
    }
    if state.count >= limits.per_question {
        return refuse!(VeritasTooMuchEvidence {
            id: id,
            maxItems: U256::from(limits.per_question),
        });
    }
    if state.mine >= limits.per_submitter {
        return refuse!(VeritasEvidenceLimit {
            id: id,
            account: submitter,
            limit: U256::from(limits.per_submitter),
        });
    }
    let doublings = state.count / limits.price_step.max(1);
    Ok(state.evidence_fee << usize::try_from(doublings).unwrap_or(usize::MAX))
}

/// The gates' self-test (`scripts/test-gates.sh`, "one rule, two tools") moves this one rule
/// (evidence closes a day late) with `VERITAS_GATE_CANARY=rules` in a debug build, and expects
/// both the CLI's test and the web view's browser test to go red: both tools run this code.
/// Unarmed, or in a release build, it is the contract's rule.
fn gate_canary_shift(reports_open_at: u64) -> u64 {
    let armed = cfg!(debug_assertions)
        && std::env::var_os("VERITAS_GATE_CANARY").is_some_and(|v| v == "rules");
    if armed {
        reports_open_at.saturating_add(86_400)
    } else {
        reports_open_at
    }
}

/// A question as `clarify` sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClarifyState {
    /// `verdictStatus(id)`.
    pub status: VerdictStatus,
    /// `getQuestion(id).asker`.
    pub asker: Address,
    /// Reports pooled in the current round (`tally(id).reports`).
    pub reports: u64,
    /// Commits of a commit-reveal question (`commitPhase(id).commits`).
    pub commits: u64,
    /// `deferral(id).count`.
    pub deferrals: u64,
    /// `clarificationCount(id)`.
    pub clarifications: u64,
}

/// The contract's `MAX_CLARIFICATIONS` (checked against the chain by
/// `tests/it/clarifications.rs`).
pub const MAX_CLARIFICATIONS: u64 = 4;
/// The contract's `MAX_CLARIFICATION_LENGTH`, in bytes.
pub const MAX_CLARIFICATION_LENGTH: usize = 1024;
/// The contract's `MAX_DEFERRALS`: a `QuestionDeferred` never counts past it (checked against
/// the chain by `tests/it/not_yet.rs`).
pub const MAX_DEFERRALS: u32 = 7;

/// Whether `caller` may post a clarification of `length` bytes on `id` now, or the contract's
/// refusal: only the asker, only while the question has no report, no commit and no deferral
/// (what jurors read must not change under them), 1 to 1,024 bytes, at most 4.
///
/// # Errors
/// The oracle's error, in the contract's order of checks.
pub fn clarify(
    id: U256,
    caller: Address,
    state: &ClarifyState,
    length: usize,
) -> Result<(), Refusal> {
    if state.status == VerdictStatus::None {
        return refuse!(VeritasUnknownQuestion { id: id });
    }
    if caller != state.asker {
        return refuse!(VeritasNotAsker {
            id: id,
            caller: caller
        });
    }
    if state.status != VerdictStatus::Asked
        || state.reports != 0
        || state.commits != 0
        || state.deferrals != 0
    {
        return refuse!(VeritasClarificationClosed { id: id });
    }
    if length == 0 || length > MAX_CLARIFICATION_LENGTH {
        return refuse!(VeritasClarificationLength {
            length: U256::from(length),
            maxLength: U256::from(MAX_CLARIFICATION_LENGTH),
        });
    }
    if state.clarifications >= MAX_CLARIFICATIONS {
        return refuse!(VeritasTooManyClarifications {
            id: id,
            maxClarifications: U256::from(MAX_CLARIFICATIONS),
        });
    }
    Ok(())
}

/// A question as `dispute` sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisputeState {
    /// `verdictStatus(id)`.
    pub status: VerdictStatus,
    /// `finalAt(id)`: the end of the challenge window of a Resolved verdict.
    pub challenge_ends: u64,
    /// The question's arbitrator.
    pub arbitrator: Address,
    /// The posted triple (`getVerdict`).
    pub posted: [U256; 3],
    /// The question's `disputeBond`: the least bond.
    pub min_bond: U256,
    /// `courtCost(id)`: the court's `arbitrationCost`, paid on top of the bond.
    pub court_cost: U256,
}

/// What a dispute pays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DisputeCost {
    /// The bond (lost when the verdict stands, back with the fee when the disputer wins).
    pub bond: U256,
    /// The court's fee (never returned).
    pub court: U256,
    /// `msg.value`: bond + court.
    pub total: U256,
    /// Until when the dispute may be sent (exclusive).
    pub deadline: u64,
}

/// The cost of disputing `id` from `caller` for `beneficiary`, claiming `claim`, bonding `bond`
/// (default: the least bond), at chain time `now`; or the contract's refusal.
///
/// # Errors
/// The oracle's error, in the order `dispute` checks.
pub fn dispute_cost(
    id: U256,
    caller: Address,
    beneficiary: Address,
    state: &DisputeState,
    now: u64,
    claim: [U256; 3],
    bond: Option<U256>,
) -> Result<DisputeCost, Refusal> {
    if beneficiary == Address::ZERO {
        return refuse!(VeritasZeroAddress {});
    }
    if state.status != VerdictStatus::Resolved {
        return refuse!(VeritasNotDisputable {
            id: id,
            status: state.status,
        });
    }
    if now >= state.challenge_ends {
        return refuse!(VeritasChallengeWindowClosed {
            id: id,
            finalAt: U256::from(state.challenge_ends),
            nowTimestamp: U256::from(now),
        });
    }
    if caller == state.arbitrator {
        return refuse!(VeritasArbitratorCannotDispute {
            id: id,
            caller: caller
        });
    }
    check_triple(claim)?;
    if claim[0] == state.posted[0] && claim[1] == state.posted[1] {
        return refuse!(VeritasSameTriple { id: id });
    }
    let bond = bond.unwrap_or(state.min_bond);
    let total = bond.saturating_add(state.court_cost);
    let required = state.min_bond.saturating_add(state.court_cost);
    if bond < state.min_bond {
        return refuse!(VeritasInsufficientPayment {
            paid: total,
            required: required,
        });
    }
    Ok(DisputeCost {
        bond,
        court: state.court_cost,
        total,
        deadline: state.challenge_ends,
    })
}

/// `WadTriple.check`: each probability above zero and the three summing to exactly 1e18.
///
/// # Errors
/// `VeritasZeroProbability` or `VeritasProbabilitySum`.
pub fn check_triple(triple: [U256; 3]) -> Result<(), Refusal> {
    if let Some(outcome) = triple.iter().position(U256::is_zero) {
        return refuse!(VeritasZeroProbability {
            outcome: outcome as u8,
        });
    }
    let sum = triple
        .iter()
        .fold(U256::ZERO, |sum, p| sum.saturating_add(*p));
    if sum != U256::from(WAD) {
        return refuse!(VeritasProbabilitySum { sum: sum });
    }
    Ok(())
}

/// A case before the court as `appeal` sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppealState {
    /// `verdictStatus(id)`.
    pub status: VerdictStatus,
    /// `courtDeadline(id)`.
    pub court_deadline: u64,
    /// The case's dispute id at its court.
    pub dispute_id: U256,
    /// The court's `disputeStatus`.
    pub court_status: IVeritasCourt::DisputeStatus,
    /// The end of the ruling's appeal period (`appealPeriod`).
    pub appeal_ends: u64,
    /// `courtCost(id)` (the court's `appealCost`; `U256::MAX`: no judge left).
    pub cost: U256,
}

/// What an appeal of `id` pays at chain time `now`, or the refusal of the oracle or the court.
///
/// # Errors
/// The oracle's error (not in court, deadline passed), then the court's (no ruling to appeal,
/// appeal period over, no judge left).
pub fn appeal_cost(id: U256, state: &AppealState, now: u64) -> Result<U256, Refusal> {
    if state.status != VerdictStatus::Disputed {
        return refuse!(VeritasNotInCourt {
            id: id,
            status: state.status,
        });
    }
    if now >= state.court_deadline {
        return refuse!(VeritasCourtDeadlinePassed {
            id: id,
            deadline: U256::from(state.court_deadline),
            nowTimestamp: U256::from(now),
        });
    }
    let dispute = state.dispute_id;
    if state.court_status != IVeritasCourt::DisputeStatus::Appealable {
        return Err(
            CourtError::CourtWrongStatus(IVeritasCourt::CourtWrongStatus {
                disputeId: dispute,
                status: state.court_status,
            })
            .into(),
        );
    }
    if now >= state.appeal_ends {
        return Err(
            CourtError::CourtAppealPeriod(IVeritasCourt::CourtAppealPeriod {
                disputeId: dispute,
                end: U256::from(state.appeal_ends),
                nowTimestamp: U256::from(now),
            })
            .into(),
        );
    }
    if state.cost == U256::MAX {
        return Err(
            CourtError::CourtNoMoreAppeals(IVeritasCourt::CourtNoMoreAppeals {
                disputeId: dispute,
            })
            .into(),
        );
    }
    Ok(state.cost)
}

/// Whether `finalize(id)` can close the question now: it is `Asked` and its report window,
/// which ends at `window_ends`, is over at chain time `now`.
///
/// # Errors
/// `VeritasNotOpen` or `VeritasReportWindowOpen`.
pub fn can_finalize(
    id: U256,
    status: VerdictStatus,
    window_ends: u64,
    now: u64,
) -> Result<(), Refusal> {
    if status != VerdictStatus::Asked {
        return refuse!(VeritasNotOpen {
            id: id,
            status: status,
        });
    }
    if now < window_ends {
        return refuse!(VeritasReportWindowOpen {
            id: id,
            deadline: U256::from(window_ends),
            nowTimestamp: U256::from(now),
        });
    }
    Ok(())
}

/// Whether `retryCallback(id)` has anything to deliver (`callbackOwed(id)`).
///
/// # Errors
/// `VeritasNoCallbackOwed`.
pub fn can_retry_callback(id: U256, owed: bool) -> Result<(), Refusal> {
    if owed {
        Ok(())
    } else {
        refuse!(VeritasNoCallbackOwed { id: id })
    }
}

/// What an ask checks of its own arguments (the rules it pins are checked by the contract
/// against the chain at the moment it is mined).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AskState {
    /// `MAX_QUESTION_LENGTH`.
    pub max_question_length: u64,
    /// `MAX_CALLBACK_GAS`.
    pub max_callback_gas: u64,
    /// The `askFee` of the parameter set the ask pins.
    pub ask_fee: U256,
    /// Whether the callback consumer has code (`false` when there is none).
    pub consumer_has_code: bool,
    /// The farthest `resolveAfter` the ask may name: now + `maxHorizon`.
    pub latest_resolve_after: u64,
    /// `CALLBACK_GAS_OVERHEAD`: gas an ask with a callback prepays beyond its limit.
    pub callback_gas_overhead: u64,
    /// The ask transaction's gas price (`tx.gasprice`), at which a callback's gas is prepaid.
    pub gas_price: u128,
}

/// What an ask of `question_len` bytes, answerable after `resolve_after`, with `rules`, must
/// pay (`paying`: the user's choice of fee, at least the ask fee; default the ask fee). With a
/// callback, the contract takes everything above the ask fee as the callback's prepaid gas, at
/// least `(callbackGasLimit + CALLBACK_GAS_OVERHEAD) × gas price`: that is added.
///
/// # Errors
/// The oracle's error for an empty or long question, a bad callback, too small a payment, a
/// deposit above 2^64 - 1 wei or a `resolveAfter` too far ahead.
pub fn ask_payment(
    question_len: usize,
    resolve_after: u64,
    rules: &IVeritasOracle::AskRules,
    state: &AskState,
    paying: Option<U256>,
) -> Result<U256, Refusal> {
    if question_len == 0 {
        return refuse!(VeritasEmptyQuestion {});
    }
    if question_len as u64 > state.max_question_length {
        return refuse!(VeritasQuestionTooLong {
            length: U256::from(question_len),
            maxLength: U256::from(state.max_question_length),
        });
    }
    let gas = u64::from(rules.callbackGasLimit);
    let callback_ok = if rules.consumer == Address::ZERO {
        gas == 0
    } else {
        state.consumer_has_code && (1..=state.max_callback_gas).contains(&gas)
    };
    if !callback_ok {
        return refuse!(VeritasInvalidCallback {
            consumer: rules.consumer,
            gasLimit: U256::from(gas),
            maxGas: U256::from(state.max_callback_gas),
        });
    }
    if resolve_after > state.latest_resolve_after {
        return refuse!(VeritasTooFarAhead {
            resolveAfter: U256::from(resolve_after),
            latest: U256::from(state.latest_resolve_after),
        });
    }
    let paid = paying.unwrap_or(state.ask_fee);
    if paid < state.ask_fee {
        return refuse!(VeritasInsufficientPayment {
            paid: paid,
            required: state.ask_fee,
        });
    }
    if rules.consumer == Address::ZERO {
        return Ok(paid);
    }
    let deposit = U256::from(gas + state.callback_gas_overhead) * U256::from(state.gas_price);
    if deposit > U256::from(u64::MAX) {
        return refuse!(VeritasCallbackDepositTooLarge { deposit: deposit });
    }
    Ok(paid + deposit)
}

/// A dispute at the court as `giveRuling` sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulingState {
    /// The court's `disputeStatus`.
    pub status: IVeritasCourt::DisputeStatus,
    /// `judgeOf(dispute)`: the judge of its current round.
    pub judge: Address,
    /// The number of choices of the case (the oracle's rulings run 0..=6).
    pub choices: u64,
}

/// Whether `caller` may rule `ruling` on `dispute` now.
///
/// # Errors
/// The court's error: not waiting for a ruling, not the judge, ruling out of range.
pub fn can_rule(
    dispute: U256,
    caller: Address,
    ruling: u64,
    state: &RulingState,
) -> Result<(), Refusal> {
    if state.status != IVeritasCourt::DisputeStatus::Waiting {
        return Err(
            CourtError::CourtWrongStatus(IVeritasCourt::CourtWrongStatus {
                disputeId: dispute,
                status: state.status,
            })
            .into(),
        );
    }
    // The contract's order: the ruling's range before the judge.
    if ruling > state.choices {
        return Err(
            CourtError::CourtInvalidRuling(IVeritasCourt::CourtInvalidRuling {
                ruling: U256::from(ruling),
                choices: U256::from(state.choices),
            })
            .into(),
        );
    }
    if caller != state.judge {
        return Err(CourtError::CourtNotJudge(IVeritasCourt::CourtNotJudge {
            disputeId: dispute,
            caller,
        })
        .into());
    }
    Ok(())
}

/// Whether the ruling of `dispute` can be executed at chain time `now`.
///
/// # Errors
/// The court's error: no appealable ruling, or its appeal period still running.
pub fn can_execute(
    dispute: U256,
    status: IVeritasCourt::DisputeStatus,
    appeal_ends: u64,
    now: u64,
) -> Result<(), Refusal> {
    if status != IVeritasCourt::DisputeStatus::Appealable {
        return Err(
            CourtError::CourtWrongStatus(IVeritasCourt::CourtWrongStatus {
                disputeId: dispute,
                status,
            })
            .into(),
        );
    }
    if now < appeal_ends {
        return Err(
            CourtError::CourtAppealPeriod(IVeritasCourt::CourtAppealPeriod {
                disputeId: dispute,
                end: U256::from(appeal_ends),
                nowTimestamp: U256::from(now),
            })
            .into(),
        );
    }
    Ok(())
}

/// The stake `operator` holds after `stake(operator)` with `amount` wei on top of `staked`.
///
/// # Errors
/// `VeritasZeroAddress` for the zero address, `VeritasAmountTooLarge` when the total does not
/// fit the contract's 96-bit stake.
pub fn stake_total(operator: Address, staked: U256, amount: U256) -> Result<U256, Refusal> {
    if operator == Address::ZERO {
        return refuse!(VeritasZeroAddress {});
    }
    let total = staked.saturating_add(amount);
    if total > U256::from(alloy::primitives::aliases::U96::MAX) {
        return refuse!(VeritasAmountTooLarge { value: total });
    }
    Ok(total)
}

/// Whether `withdrawStake(amount)` by `operator` can go through: only the free part
/// (`staked - locked`) leaves; what unsettled reports lock stays until their questions settle.
///
/// # Errors
/// `VeritasInsufficientStake` with the free part and the amount asked, as the contract says it.
pub fn can_unstake(
    operator: Address,
    staked: U256,
    locked: U256,
    amount: U256,
) -> Result<(), Refusal> {
    let free = staked.saturating_sub(locked);
    if amount > free {
        return refuse!(VeritasInsufficientStake {
            operator: operator,
            free: free,
            required: amount,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use IVeritasCourt::DisputeStatus as D;

    const ID: U256 = U256::from_limbs([7, 0, 0, 0]);

    fn who(byte: u8) -> Address {
        Address::repeat_byte(byte)
    }

    fn sentence(r: Result<impl std::fmt::Debug, Refusal>) -> String {
        r.expect_err("refused").to_string()
    }

    #[test]
    fn clarify_follows_the_contracts_order_of_checks() {
        let asker = Address::repeat_byte(2);
        let open = ClarifyState {
            status: VerdictStatus::Asked,
            asker,
            reports: 0,
            commits: 0,
            deferrals: 0,
            clarifications: 0,
        };
        let id = U256::from(3);
        assert!(clarify(id, asker, &open, 10).is_ok());
        let unknown = ClarifyState {
            status: VerdictStatus::None,
            ..open.clone()
        };
        assert!(sentence(clarify(id, asker, &unknown, 10)).contains("VeritasUnknownQuestion"));
        assert!(
            sentence(clarify(id, Address::repeat_byte(9), &open, 10)).contains("VeritasNotAsker")
        );
        for closed in [
            ClarifyState {
                reports: 1,
                ..open.clone()
            },
            ClarifyState {
                commits: 1,
                ..open.clone()
            },
            ClarifyState {
                deferrals: 1,
                ..open.clone()
            },
            ClarifyState {
                status: VerdictStatus::Resolved,
                ..open.clone()
            },
        ] {
            assert!(
                sentence(clarify(id, asker, &closed, 10)).contains("VeritasClarificationClosed")
            );
        }
        for length in [0, 1025] {
            assert!(
                sentence(clarify(id, asker, &open, length)).contains("VeritasClarificationLength")
            );
        }
        assert!(clarify(id, asker, &open, 1024).is_ok());
        let full = ClarifyState {
            clarifications: 4,
            ..open
        };
        assert!(sentence(clarify(id, asker, &full, 10)).contains("VeritasTooManyClarifications"));
    }

    fn limits() -> EvidenceLimits {
        EvidenceLimits {
            per_question: 64,
            per_submitter: 8,
            price_step: 8,
            field_lengths: [2048, 256, 2048],
        }
    }

    fn evidence(count: u64, mine: u64) -> EvidenceState {
        EvidenceState {
            status: VerdictStatus::Asked,
            reports_open_at: 1_000,
            count,
            mine,
            evidence_fee: U256::from(100),
        }
    }

    #[test]
    fn evidence_fee_doubles_every_step_and_refusals_follow_the_contract() {
        let fee = |count| evidence_fee(ID, who(1), &evidence(count, 0), &limits(), 999, [1, 1, 1]);
        assert_eq!(fee(0), Ok(U256::from(100)));
        assert_eq!(fee(7), Ok(U256::from(100)));
        assert_eq!(fee(8), Ok(U256::from(200)));
        assert_eq!(fee(17), Ok(U256::from(400)));
        assert!(sentence(fee(64)).contains("already holds the maximum number of evidence items"));
        let closed = evidence_fee(ID, who(1), &evidence(0, 0), &limits(), 1_000, [1, 1, 1]);
        assert!(
            sentence(closed).contains("Evidence for 7 is accepted only before its 1000"),
            "the contract's sentence with the arguments filled"
        );
        let long = evidence_fee(ID, who(1), &evidence(0, 0), &limits(), 0, [1, 257, 1]);
        assert!(sentence(long).contains("field (0 = url, 1 = title, 2 = snippet) is 257 bytes"));
        let mine = evidence_fee(ID, who(1), &evidence(3, 8), &limits(), 0, [1, 1, 1]);
        assert!(sentence(mine).contains("already submitted 8 evidence items on 7"));
        let mut unknown = evidence(0, 0);
        unknown.status = VerdictStatus::None;
        let unknown = evidence_fee(ID, who(1), &unknown, &limits(), 0, [1, 1, 1]);
        assert!(sentence(unknown).contains("No question with this id"));
    }

    fn resolved() -> DisputeState {
        let wad = |p: u64| U256::from(p) * U256::from(10_000_000_000_000_000u64);
        DisputeState {
            status: VerdictStatus::Resolved,
            challenge_ends: 5_000,
            arbitrator: who(9),
            posted: [wad(80), wad(15), wad(5)],
            min_bond: U256::from(1_000),
            court_cost: U256::from(30),
        }
    }

    fn wad3(a: u64, b: u64, c: u64) -> [U256; 3] {
        [a, b, c].map(|p| U256::from(p) * U256::from(10_000_000_000_000_000u64))
    }

    #[test]
    fn a_dispute_pays_bond_and_court_and_is_refused_as_the_contract_would() {
        let state = resolved();
        let ok = dispute_cost(ID, who(1), who(1), &state, 4_999, wad3(10, 85, 5), None);
        assert_eq!(
            ok,
            Ok(DisputeCost {
                bond: U256::from(1_000),
                court: U256::from(30),
                total: U256::from(1_030),
                deadline: 5_000
            })
        );
        let more = dispute_cost(
            ID,
            who(1),
            who(2),
            &state,
            0,
            wad3(10, 85, 5),
            Some(U256::from(5_000)),
        );
        assert_eq!(more.map(|c| c.total), Ok(U256::from(5_030)));
        let same = dispute_cost(ID, who(1), who(1), &state, 0, wad3(80, 15, 5), None);
        assert!(sentence(same).contains("other than the posted one"));
        let late = dispute_cost(ID, who(1), who(1), &state, 5_000, wad3(10, 85, 5), None);
        assert!(sentence(late).contains("The challenge window of 7 ended at 5000"));
        let judge = dispute_cost(ID, who(9), who(9), &state, 0, wad3(10, 85, 5), None);
        assert!(sentence(judge).contains("is the question's arbitrator"));
        let zero = dispute_cost(
            ID,
            who(1),
            who(1),
            &state,
            0,
            [U256::ZERO, U256::from(WAD), U256::ZERO],
            None,
        );
        assert!(sentence(zero).contains("outcome 0 (0 = YES"));
        let sum = dispute_cost(ID, who(1), who(1), &state, 0, wad3(10, 10, 10), None);
        assert!(sentence(sum).contains("sum to 300000000000000000 instead of exactly 1e18"));
        let low = dispute_cost(
            ID,
            who(1),
            who(1),
            &state,
            0,
            wad3(10, 85, 5),
            Some(U256::from(999)),
        );
        assert!(sentence(low).contains("1029 wei sent where 1030 wei are needed"));
        let mut escalated = resolved();
        escalated.status = VerdictStatus::Escalated;
        let escalated = dispute_cost(ID, who(1), who(1), &escalated, 0, wad3(10, 85, 5), None);
        assert!(sentence(escalated).contains("7 is in Escalated"));
        let nobody = dispute_cost(ID, who(1), Address::ZERO, &state, 0, wad3(10, 85, 5), None);
        assert!(sentence(nobody).contains("zero address"));
    }

    fn in_court() -> AppealState {
        AppealState {
            status: VerdictStatus::Disputed,
            court_deadline: 10_000,
            dispute_id: U256::from(2),
            court_status: D::Appealable,
            appeal_ends: 6_000,
            cost: U256::from(77),
        }
    }

    #[test]
    fn an_appeal_pays_the_courts_cost_within_both_periods() {
        assert_eq!(appeal_cost(ID, &in_court(), 5_999), Ok(U256::from(77)));
        assert!(
            sentence(appeal_cost(ID, &in_court(), 6_000))
                .contains("The appeal period ends at 6000")
        );
        assert!(
            sentence(appeal_cost(ID, &in_court(), 10_000)).contains("court deadline of 7 passed")
        );
        let mut waiting = in_court();
        waiting.court_status = D::Waiting;
        assert!(sentence(appeal_cost(ID, &waiting, 0)).contains("The dispute is in"));
        let mut last = in_court();
        last.cost = U256::MAX;
        assert!(sentence(appeal_cost(ID, &last, 0)).contains("No judge is left"));
        let mut resolved = in_court();
        resolved.status = VerdictStatus::Arbitrated;
        assert!(
            sentence(appeal_cost(ID, &resolved, 0))
                .contains("is not before its court (Arbitrated)")
        );
    }

    #[test]
    fn finalize_and_retry_refuse_as_the_contract_would() {
        assert_eq!(can_finalize(ID, VerdictStatus::Asked, 100, 100), Ok(()));
        assert!(
            sentence(can_finalize(ID, VerdictStatus::Asked, 100, 99))
                .contains("before the report window closes at 100")
        );
        assert!(
            sentence(can_finalize(ID, VerdictStatus::Resolved, 100, 200))
                .contains("it is in Resolved")
        );
        assert_eq!(can_retry_callback(ID, true), Ok(()));
        assert!(sentence(can_retry_callback(ID, false)).contains("7 has no callback owed"));
    }

    fn ask_state() -> AskState {
        AskState {
            max_question_length: 10,
            max_callback_gas: 500_000,
            ask_fee: U256::from(50),
            consumer_has_code: true,
            latest_resolve_after: 2_000,
            callback_gas_overhead: 25_000,
            gas_price: 3,
        }
    }

    fn rules(consumer: Address, gas: u32) -> IVeritasOracle::AskRules {
        IVeritasOracle::AskRules {
            parametersId: 1,
            operatorEpoch: 1,
            consumer,
            callbackGasLimit: gas,
        }
    }

    #[test]
    fn an_ask_pays_at_least_the_fee_with_a_valid_callback() {
        let s = ask_state();
        // A callback prepays its limit and the oracle's part at the transaction's gas price.
        assert_eq!(
            ask_payment(5, 0, &rules(who(3), 100_000), &s, None),
            Ok(U256::from(50 + 125_000 * 3))
        );
        let mut dear = ask_state();
        dear.gas_price = u128::from(u64::MAX);
        assert!(
            sentence(ask_payment(5, 0, &rules(who(3), 100_000), &dear, None))
                .contains("prepaid gas")
        );
        assert_eq!(
            ask_payment(5, 0, &rules(Address::ZERO, 0), &s, Some(U256::from(60))),
            Ok(U256::from(60))
        );
        assert!(sentence(ask_payment(0, 0, &rules(Address::ZERO, 0), &s, None)).contains("empty"));
        assert!(
            sentence(ask_payment(11, 0, &rules(Address::ZERO, 0), &s, None))
                .contains("11 bytes, above the maximum 10")
        );
        assert!(
            sentence(ask_payment(5, 0, &rules(Address::ZERO, 5), &s, None))
                .contains("A callback needs")
        );
        assert!(
            sentence(ask_payment(5, 0, &rules(who(3), 0), &s, None)).contains("A callback needs")
        );
        assert!(
            sentence(ask_payment(5, 0, &rules(who(3), 500_001), &s, None)).contains("1..500000")
        );
        let mut no_code = ask_state();
        no_code.consumer_has_code = false;
        assert!(
            sentence(ask_payment(5, 0, &rules(who(3), 1), &no_code, None))
                .contains("A callback needs")
        );
        assert!(
            sentence(ask_payment(5, 2_001, &rules(Address::ZERO, 0), &s, None))
                .contains("is beyond 2000")
        );
        assert!(
            sentence(ask_payment(
                5,
                0,
                &rules(Address::ZERO, 0),
                &s,
                Some(U256::from(49))
            ))
            .contains("49 wei sent where 50")
        );
    }

    #[test]
    fn the_court_refuses_the_wrong_judge_ruling_or_time() {
        let state = RulingState {
            status: D::Waiting,
            judge: who(6),
            choices: 5,
        };
        let d = U256::from(4);
        assert_eq!(can_rule(d, who(6), 5, &state), Ok(()));
        assert!(
            sentence(can_rule(d, who(7), 1, &state))
                .contains("is not the judge of the dispute's current round")
        );
        assert!(sentence(can_rule(d, who(6), 6, &state)).contains("6 is above the dispute's 5"));
        let ruled = RulingState {
            status: D::Appealable,
            ..state
        };
        assert!(sentence(can_rule(d, who(6), 1, &ruled)).contains("The dispute is in"));
        assert_eq!(can_execute(d, D::Appealable, 100, 100), Ok(()));
        assert!(
            sentence(can_execute(d, D::Appealable, 100, 99))
                .contains("The appeal period ends at 100")
        );
        assert!(sentence(can_execute(d, D::Solved, 100, 200)).contains("The dispute is in"));
    }

    #[test]
    fn stake_and_unstake_refuse_as_the_contract_would() {
        let max = U256::from(alloy::primitives::aliases::U96::MAX);
        assert_eq!(
            stake_total(who(1), U256::from(5), U256::from(7)),
            Ok(U256::from(12))
        );
        assert!(
            sentence(stake_total(who(1), max, U256::from(1))).contains("does not fit the 96-bit")
        );
        assert!(
            sentence(stake_total(Address::ZERO, U256::ZERO, U256::from(1)))
                .contains("zero address")
        );
        assert_eq!(
            can_unstake(who(1), U256::from(10), U256::from(4), U256::from(6)),
            Ok(())
        );
        let locked = can_unstake(who(1), U256::from(10), U256::from(4), U256::from(7));
        assert!(
            sentence(locked).contains("has 6 wei of unlocked stake where its report needs 7"),
            "the contract's sentence with the arguments filled"
        );
    }
}
