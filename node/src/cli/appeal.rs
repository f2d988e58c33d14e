//! `veritas appeal ID`: fund an appeal of the court's ruling on a question, within the ruling's
//! appeal period and the oracle's court deadline; the next judge then rules.
//!
//! ```text
//! veritas appeal 7 [--json]
//! ```
//!
//! It pays exactly what the court charges now (`courtCost`) and refuses what the oracle or the
//! court would refuse (not in court, no ruling to appeal yet, period over, no judge left).

use alloy::primitives::{Address, U256};
use serde_json::json;

use super::output::Output;
use super::session::{QuestionArgs, Session, utc, wei, with_tx};
use crate::contract::{
    IVeritasOracle,
    plan::{Action, Detail},
};

/// Pay the appeal and print the new court deadline.
///
/// # Errors
/// Configuration, key, RPC; the oracle's or the court's refusal.
pub async fn run(args: QuestionArgs) -> anyhow::Result<Output> {
    let session = Session::open(&args.common.config).await?;
    let id = args.id;
    let plan = session.plan(id, &Action::Appeal).await?;
    let (dispute_id, arbitrator) = match plan.detail {
        Detail::Appeal {
            dispute_id,
            arbitrator,
        } => (dispute_id, arbitrator),
        _ => (U256::ZERO, Address::ZERO),
    };
    let sent = session.send_plan(&plan).await?;
    let funded = sent.expect_event::<IVeritasOracle::AppealFunded>()?;
    let value = json!({"id": id.to_string(), "dispute_id": dispute_id.to_string(),
        "arbitrator": arbitrator, "paid": funded.amount.to_string(),
        "court_deadline": funded.deadline});
    Ok(Output::lines(
        with_tx(value, &sent),
        &[
            format!(
                "appealed case {dispute_id} of question {id}: paid {}",
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
