//! `veritas appeal ID`: fund an appeal of the court's ruling on a question, within the ruling's
//! appeal period and the oracle's court deadline; the next judge then rules.
//!
//! ```text
//! veritas appeal 7 [--json]
//! ```
//!
//! It pays exactly what the court charges now (`courtCost`) and refuses what the oracle or the
//! court would refuse (not in court, no ruling to appeal yet, period over, no judge left).

use alloy::primitives::U256;
use serde_json::json;

use super::output::Output;
use super::session::{QuestionArgs, Session, refused, utc, view_error, wei, with_tx};
use crate::contract::{
    IVeritasOracle,
    court::IVeritasCourt,
    roles::{self, AppealState},
};

/// Pay the appeal and print the new court deadline.
///
/// # Errors
/// Configuration, key, RPC; the oracle's or the court's refusal.
pub async fn run(args: QuestionArgs) -> anyhow::Result<Output> {
    let session = Session::open(&args.common.config).await?;
    let oracle = session.view();
    let id = args.id;
    let status = session.status(id).await?;
    let case = oracle
        .getCase(id)
        .call()
        .await
        .map_err(view_error("getCase"))?;
    let mut state = AppealState {
        status,
        court_deadline: case.deadline,
        dispute_id: case.disputeId,
        court_status: IVeritasCourt::DisputeStatus::Waiting,
        appeal_ends: 0,
        cost: U256::ZERO,
    };
    if status == IVeritasOracle::VerdictStatus::Disputed {
        let court = IVeritasCourt::new(case.arbitrator, &session.provider);
        (state.court_status, state.appeal_ends) =
            super::court::standing(&court, case.disputeId).await?;
        state.cost = oracle
            .courtCost(id)
            .call()
            .await
            .map_err(view_error("courtCost"))?;
    }
    let now = session.now().await?;
    let cost = roles::appeal_cost(id, &state, now).map_err(refused)?;
    let call = oracle.appeal(id).value(cost).into_transaction_request();
    let sent = session.send("appeal", call).await?;
    let funded = sent.expect_event::<IVeritasOracle::AppealFunded>()?;
    let value = json!({"id": id.to_string(), "dispute_id": case.disputeId.to_string(),
        "arbitrator": case.arbitrator, "paid": funded.amount.to_string(),
        "court_deadline": funded.deadline});
    Ok(Output::lines(
        with_tx(value, &sent),
        &[
            format!(
                "appealed case {} of question {id}: paid {}",
                case.disputeId,
                wei(funded.amount)
            ),
            format!(
                "deadline {} (the court must rule by then)",
                utc(funded.deadline)
            ),
            sent.line(),
        ],
    ))
}
