//! One planner per action on a question (`evidence`, `clarify`, `dispute`, `appeal`,
//! `finalize`), shared by the CLI's commands and the HTTP API's `GET /questions/{id}/check/…`
//! (which the web view's wallet asks before it signs anything).
//!
//! A planner reads what the contract's rule needs from the chain, every view at one block (the
//! latest, whose timestamp is the clock the rule compares with), runs the pure check of
//! [`super::roles`] and returns either the [`Plan`] (the call to make, typed; the wei it pays;
//! the lines a human reviews) or the contract's own [`Refusal`]. The rules live once, in Rust:
//! the page keeps no copy of them, so one rule changed in `roles` changes both tools.

use alloy::{
    eips::BlockId,
    primitives::{Address, Bytes, U256, utils::format_ether},
    sol_types::SolCall,
};
use serde::{Serialize, Serializer, ser::SerializeStruct};
use serde_json::{Value, json};

use super::{
    IVeritasOracle::{self, VerdictStatus},
    court::IVeritasCourt,
    has_verdict,
    roles::{
        self, AppealState, ClarifyState, DisputeCost, DisputeState, EvidenceLimits, EvidenceState,
        Refusal,
    },
};
use crate::chain::{self, ChainError, ChainProvider, ViewCall};

/// An action on one question, with what its form gave (decoded, typed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// `submitEvidence`: the item's url, title and snippet.
    Evidence {
        /// Where the evidence is.
        url: String,
        /// Its title.
        title: String,
        /// The relevant excerpt.
        snippet: String,
    },
    /// `clarify`: the asker's text.
    Clarify {
        /// The clarification.
        text: String,
    },
    /// `dispute`: the triple claimed right (1e18 scale), the bond (default the least) and who
    /// is credited (default the sender).
    Dispute {
        /// YES, NO, NULL.
        claim: [U256; 3],
        /// The bond; `None`: the question's dispute bond.
        bond: Option<U256>,
        /// Who is credited; `None`: the sender.
        beneficiary: Option<Address>,
    },
    /// `appeal`: fund the court's next round.
    Appeal,
    /// `finalize`: close the question after its report window.
    Finalize,
}

impl Action {
    /// The action's name, as the API's path and the page's forms name it.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Evidence { .. } => "evidence",
            Action::Clarify { .. } => "clarify",
            Action::Dispute { .. } => "dispute",
            Action::Appeal => "appeal",
            Action::Finalize => "finalize",
        }
    }
}

/// The oracle call a plan makes, with its typed arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// `submitEvidence(id, url, title, snippet)`.
    SubmitEvidence {
        /// The question.
        id: U256,
        /// Where the evidence is.
        url: String,
        /// Its title.
        title: String,
        /// The relevant excerpt.
        snippet: String,
    },
    /// `clarify(id, text)`.
    Clarify {
        /// The question.
        id: U256,
        /// The clarification.
        text: String,
    },
    /// `dispute(id, pYes, pNo, pNull, beneficiary)`.
    Dispute {
        /// The question.
        id: U256,
        /// The claimed triple.
        claim: [U256; 3],
        /// Who is credited.
        beneficiary: Address,
    },
    /// `appeal(id)`.
    Appeal {
        /// The question.
        id: U256,
    },
    /// `finalize(id)`.
    Finalize {
        /// The question.
        id: U256,
    },
}

impl Call {
    /// The oracle function's name.
    pub fn function(&self) -> &'static str {
        match self {
            Call::SubmitEvidence { .. } => "submitEvidence",
            Call::Clarify { .. } => "clarify",
            Call::Dispute { .. } => "dispute",
            Call::Appeal { .. } => "appeal",
            Call::Finalize { .. } => "finalize",
        }
    }

    /// The calldata (selector and ABI-encoded arguments).
    pub fn calldata(&self) -> Bytes {
        use IVeritasOracle as O;
        let data = match self.clone() {
            Call::SubmitEvidence {
                id,
                url,
                title,
                snippet,
            } => O::submitEvidenceCall {
                id,
                url,
                title,
                snippet,
            }
            .abi_encode(),
            Call::Clarify { id, text } => O::clarifyCall { id, text }.abi_encode(),
            Call::Dispute {
                id,
                claim: [p_yes, p_no, p_null],
                beneficiary,
            } => O::disputeCall {
                id,
                pYes: p_yes,
                pNo: p_no,
                pNull: p_null,
                beneficiary,
            }
            .abi_encode(),
            Call::Appeal { id } => O::appealCall { id }.abi_encode(),
            Call::Finalize { id } => O::finalizeCall { id }.abi_encode(),
        };
        data.into()
    }

    /// The arguments in ABI order, as JSON: integers as decimal strings (`crate::decimal`'s
    /// form), addresses checksummed, strings as they are.
    pub fn args(&self) -> Vec<Value> {
        let n = |v: &U256| Value::String(v.to_string());
        match self {
            Call::SubmitEvidence {
                id,
                url,
                title,
                snippet,
            } => vec![n(id), json!(url), json!(title), json!(snippet)],
            Call::Clarify { id, text } => vec![n(id), json!(text)],
            Call::Dispute {
                id,
                claim,
                beneficiary,
            } => vec![
                n(id),
                n(&claim[0]),
                n(&claim[1]),
                n(&claim[2]),
                json!(beneficiary.to_checksum(None)),
            ],
            Call::Appeal { id } | Call::Finalize { id } => vec![n(id)],
        }
    }
}

impl Serialize for Call {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut call = s.serialize_struct("Call", 2)?;
        call.serialize_field("function", self.function())?;
        call.serialize_field("args", &self.args())?;
        call.end()
    }
}

/// What the CLI's output needs beyond the call (the page shows the lines only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detail {
    /// Evidence closes when reports open.
    Evidence {
        /// Unix time.
        closes: u64,
    },
    /// Nothing more.
    Clarify,
    /// What the dispute pays and the triple it challenges.
    Dispute {
        /// Bond, court fee, total, deadline.
        cost: DisputeCost,
        /// The posted triple.
        posted: [U256; 3],
    },
    /// The case the appeal funds.
    Appeal {
        /// The court's dispute id.
        dispute_id: U256,
        /// The court.
        arbitrator: Address,
    },
    /// Nothing more.
    Finalize,
}

/// What an action will do, checked against the contract's rules at one block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// The action's name.
    pub action: &'static str,
    /// The question.
    #[serde(with = "crate::decimal")]
    pub id: U256,
    /// Who acts (the rules that name the caller checked this account).
    pub from: Address,
    /// The call to make.
    pub call: Call,
    /// `msg.value`, wei.
    #[serde(with = "crate::decimal")]
    pub value: U256,
    /// `[label, text]` pairs a human reviews before signing.
    pub lines: Vec<(String, String)>,
    /// The block every view was read at.
    pub block: u64,
    /// Its timestamp: the clock the rules compared with.
    pub now: u64,
    /// For the CLI's output.
    #[serde(skip)]
    pub detail: Detail,
}

/// Why there is no plan.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The contract's rules refuse it (its sentence).
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// A view or the block could not be read.
    #[error(transparent)]
    Chain(#[from] ChainError),
}

/// The oracle's views, all at one block.
struct At<'a> {
    provider: &'a ChainProvider,
    oracle: IVeritasOracle::IVeritasOracleInstance<&'a ChainProvider>,
    block: BlockId,
}

/// `view!(at, name(args..))`: the oracle's view `name` at `at`'s block, its error named.
macro_rules! view {
    ($at:expr, $name:ident($($arg:expr),*)) => {
        $at.oracle
            .$name($($arg),*)
            .view_at($at.block, stringify!($name))
            .await
    };
}

/// Plan `action` on question `id` from account `from`, against the oracle at `oracle`, at the
/// latest block.
///
/// # Errors
/// [`PlanError::Refused`] with the contract's error; [`PlanError::Chain`] when a read fails.
pub async fn plan(
    provider: &ChainProvider,
    oracle: Address,
    id: U256,
    from: Address,
    action: &Action,
) -> Result<Plan, PlanError> {
    let (number, now) = chain::latest_block(provider).await?;
    let at = At {
        provider,
        oracle: IVeritasOracle::new(oracle, provider),
        block: BlockId::number(number),
    };
    let (call, value, lines, detail) = match action {
        Action::Evidence {
            url,
            title,
            snippet,
        } => evidence(&at, id, from, now, [url, title, snippet]).await?,
        Action::Clarify { text } => clarify(&at, id, from, text).await?,
        Action::Dispute {
            claim,
            bond,
            beneficiary,
        } => dispute(&at, id, from, now, *claim, *bond, *beneficiary).await?,
        Action::Appeal => appeal(&at, id, now).await?,
        Action::Finalize => finalize(&at, id, now).await?,
    };
    Ok(Plan {
        action: action.name(),
        id,
        from,
        call,
        value,
        lines,
        block: number,
        now,
        detail,
    })
}

/// A planner's parts: the call, its value, its lines, the CLI's detail.
type Parts = (Call, U256, Vec<(String, String)>, Detail);

fn line(label: &str, text: String) -> (String, String) {
    (label.to_owned(), text)
}

async fn evidence(
    at: &At<'_>,
    id: U256,
    from: Address,
    now: u64,
    [url, title, snippet]: [&String; 3],
) -> Result<Parts, PlanError> {
    let limits = evidence_limits(at).await?;
    let status = view!(at, verdictStatus(id))?;
    let mut state = EvidenceState {
        status,
        reports_open_at: 0,
        count: 0,
        mine: 0,
        evidence_fee: U256::ZERO,
    };
    if status != VerdictStatus::None {
        // The contract's own clock of the question (`Tally.time`): when reports open while it
        // is Asked (a deferral moves it), the time of its last status change after.
        state.reports_open_at = small(view!(at, deferral(id))?.reportsOpenAt);
        state.count = small(view!(at, evidenceCount(id))?);
        state.mine = small(view!(at, evidenceOf(id, from))?.items);
        state.evidence_fee = U256::from(view!(at, questionParameters(id))?.evidenceFee);
    }
    let lengths = [url.len(), title.len(), snippet.len()];
    let fee = roles::evidence_fee(id, from, &state, &limits, now, lengths)?;
    let call = Call::SubmitEvidence {
        id,
        url: url.clone(),
        title: title.clone(),
        snippet: snippet.clone(),
    };
    let lines = vec![
        line("evidence fee", wei(fee)),
        line("open for evidence until", utc(state.reports_open_at)),
        line(
            "items so far",
            format!(
                "{} of {} (yours: {} of {})",
                state.count, limits.per_question, state.mine, limits.per_submitter
            ),
        ),
    ];
    let detail = Detail::Evidence {
        closes: state.reports_open_at,
    };
    Ok((call, fee, lines, detail))
}

/// The oracle's evidence constants.
async fn evidence_limits(at: &At<'_>) -> Result<EvidenceLimits, ChainError> {
    Ok(EvidenceLimits {
        per_question: small(view!(at, MAX_EVIDENCE_PER_QUESTION())?),
        per_submitter: small(view!(at, MAX_EVIDENCE_PER_SUBMITTER())?),
        price_step: small(view!(at, EVIDENCE_PRICE_STEP())?),
        field_lengths: [
            small(view!(at, MAX_URL_LENGTH())?),
            small(view!(at, MAX_TITLE_LENGTH())?),
            small(view!(at, MAX_SNIPPET_LENGTH())?),
        ],
    })
}

async fn clarify(at: &At<'_>, id: U256, from: Address, text: &str) -> Result<Parts, PlanError> {
    let status = view!(at, verdictStatus(id))?;
    let mut state = ClarifyState {
        status,
        asker: Address::ZERO,
        reports: 0,
        commits: 0,
        deferrals: 0,
        clarifications: 0,
    };
    if status != VerdictStatus::None {
        state.asker = view!(at, getQuestion(id))?.asker;
        state.reports = small(view!(at, tally(id))?.reports);
        state.commits = small(view!(at, commitPhase(id))?.commits);
        state.deferrals = small(view!(at, deferral(id))?.count);
        state.clarifications = small(view!(at, clarificationCount(id))?);
    }
    roles::clarify(id, from, &state, text.len())?;
    let lines = vec![
        line(
            "clarification",
            format!(
                "{} bytes, number {} of {}",
                text.len(),
                state.clarifications + 1,
                roles::MAX_CLARIFICATIONS
            ),
        ),
        line(
            "shown to every juror",
            "after the question, as the asker's words".into(),
        ),
    ];
    let call = Call::Clarify {
        id,
        text: text.to_owned(),
    };
    Ok((call, U256::ZERO, lines, Detail::Clarify))
}

async fn dispute(
    at: &At<'_>,
    id: U256,
    from: Address,
    now: u64,
    claim: [U256; 3],
    bond: Option<U256>,
    beneficiary: Option<Address>,
) -> Result<Parts, PlanError> {
    let state = dispute_state(at, id).await?;
    let beneficiary = beneficiary.unwrap_or(from);
    let cost = roles::dispute_cost(id, from, beneficiary, &state, now, claim, bond)?;
    // The lines `veritas dispute` prints before it asks to confirm: `{label:<8} {text}`.
    let lines = vec![
        line("question", format!("{id}: posted {}", triple(state.posted))),
        line("claim", triple(claim)),
        line(
            "bond",
            format!("{} (lost if the verdict stands)", wei(cost.bond)),
        ),
        line(
            "court",
            format!("{} (the court's fee, never returned)", wei(cost.court)),
        ),
        line("total", wei(cost.total)),
        line(
            "deadline",
            format!("{} (end of the challenge window)", utc(cost.deadline)),
        ),
    ];
    let call = Call::Dispute {
        id,
        claim,
        beneficiary,
    };
    let detail = Detail::Dispute {
        cost,
        posted: state.posted,
    };
    Ok((call, cost.total, lines, detail))
}

/// What the contract's dispute rules read of question `id`: its status and, once it has a
/// verdict, the posted triple, its court, bond, challenge deadline and the court's cost.
async fn dispute_state(at: &At<'_>, id: U256) -> Result<DisputeState, ChainError> {
    let status = view!(at, verdictStatus(id))?;
    let mut state = DisputeState {
        status,
        challenge_ends: 0,
        arbitrator: Address::ZERO,
        posted: [U256::ZERO; 3],
        min_bond: U256::ZERO,
        court_cost: U256::ZERO,
    };
    if has_verdict(&status) {
        let v = view!(at, getVerdict(id))?;
        let p = view!(at, questionParameters(id))?;
        state.posted = [v.pYes, v.pNo, v.pNull];
        state.arbitrator = p.arbitrator;
        state.min_bond = U256::from(p.disputeBond);
        state.challenge_ends = small(view!(at, finalAt(id))?);
        if p.arbitrator != Address::ZERO {
            state.court_cost = view!(at, courtCost(id))?;
        }
    }
    Ok(state)
}

async fn appeal(at: &At<'_>, id: U256, now: u64) -> Result<Parts, PlanError> {
    let status = view!(at, verdictStatus(id))?;
    let case = view!(at, getCase(id))?;
    let mut state = AppealState {
        status,
        court_deadline: case.deadline,
        dispute_id: case.disputeId,
        court_status: IVeritasCourt::DisputeStatus::Waiting,
        appeal_ends: 0,
        cost: U256::ZERO,
    };
    if status == VerdictStatus::Disputed {
        let court = IVeritasCourt::new(case.arbitrator, at.provider);
        state.court_status = court
            .disputeStatus(case.disputeId)
            .view_at(at.block, "disputeStatus")
            .await?;
        state.appeal_ends = small(
            court
                .appealPeriod(case.disputeId)
                .view_at(at.block, "appealPeriod")
                .await?
                .end,
        );
        state.cost = view!(at, courtCost(id))?;
    }
    let cost = roles::appeal_cost(id, &state, now)?;
    let lines = vec![
        line("appeal cost", wei(cost)),
        line("court deadline now", utc(state.court_deadline)),
        line("appeal period ends", utc(state.appeal_ends)),
    ];
    let detail = Detail::Appeal {
        dispute_id: case.disputeId,
        arbitrator: case.arbitrator,
    };
    Ok((Call::Appeal { id }, cost, lines, detail))
}

async fn finalize(at: &At<'_>, id: U256, now: u64) -> Result<Parts, PlanError> {
    let status = view!(at, verdictStatus(id))?;
    let mut lines = Vec::new();
    if status == VerdictStatus::Asked {
        let p = view!(at, questionParameters(id))?;
        // A commit-reveal question's deadline moves with its reveal phase: the simulation
        // checks it.
        if p.revealWindow == 0 {
            // The window runs from the contract's own clock of the question (`Tally.time`),
            // which a deferral moves: not from the asked `resolveAfter`.
            let opens = small(view!(at, deferral(id))?.reportsOpenAt);
            let ends = opens.saturating_add(u64::from(p.reportWindow));
            roles::can_finalize(id, status, ends, now)?;
            lines.push(line("report window closed", utc(ends)));
        } else {
            lines.push(line(
                "report window",
                "commit-reveal: the simulation checks its deadline".into(),
            ));
        }
    } else {
        roles::can_finalize(id, status, 0, 0)?;
    }
    Ok((Call::Finalize { id }, U256::ZERO, lines, Detail::Finalize))
}

/// A count or time the contract bounds far below `u64::MAX` (saturates).
pub fn small(v: U256) -> u64 {
    u64::try_from(v).unwrap_or(u64::MAX)
}

/// `v` wei, and in ETH without trailing zeros.
pub fn wei(v: U256) -> String {
    let ether = format_ether(v);
    let ether = ether.trim_end_matches('0').trim_end_matches('.');
    format!("{v} wei ({ether} ETH)")
}

/// A unix time as the UTC date it is.
pub fn utc(secs: u64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
    format!("{secs} ({})", humantime::format_rfc3339_seconds(at))
}

/// A triple as decimal probabilities.
pub fn triple(t: [U256; 3]) -> String {
    let p = |v: U256| format_ether(v);
    format!("YES {}, NO {}, NULL {}", p(t[0]), p(t[1]), p(t[2]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_encodes_as_the_binding_and_lists_its_args_as_json() {
        let id = U256::from(7);
        let call = Call::Dispute {
            id,
            claim: [U256::from(1), U256::from(2), U256::from(3)],
            beneficiary: Address::repeat_byte(0xab),
        };
        assert_eq!(
            &call.calldata()[..4],
            IVeritasOracle::disputeCall::SELECTOR.as_slice()
        );
        let value = serde_json::to_value(&call).unwrap();
        assert_eq!(value["function"], "dispute");
        assert_eq!(value["args"][0], "7");
        assert_eq!(value["args"][3], "3");
        assert_eq!(
            value["args"][4],
            Address::repeat_byte(0xab).to_checksum(None)
        );
        let evidence = Call::SubmitEvidence {
            id,
            url: "u".into(),
            title: String::new(),
            snippet: "s".into(),
        };
        assert_eq!(
            serde_json::to_value(&evidence).unwrap()["args"],
            json!(["7", "u", "", "s"])
        );
    }

    #[test]
    fn amounts_and_times_read_as_the_cli_prints_them() {
        assert_eq!(
            wei(U256::from(1_500_000_000_000_000_000u128)),
            "1500000000000000000 wei (1.5 ETH)"
        );
        assert_eq!(wei(U256::ZERO), "0 wei (0 ETH)");
        assert_eq!(utc(0), "0 (1970-01-01T00:00:00Z)");
    }
}
