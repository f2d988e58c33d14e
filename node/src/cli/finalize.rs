//! `veritas finalize ID`: close a question whose report window is over (anyone may): with
//! reports, the pooled verdict is posted escalated; with none, it expires and the asker's fee
//! is refunded.
//!
//! ```text
//! veritas finalize 7 [--json]
//! ```

use serde_json::json;

use super::output::Output;
use super::session::{QuestionArgs, Session, refused, view_error, with_tx};
use crate::contract::{IVeritasOracle, roles};

/// Close the question and print its new status.
///
/// # Errors
/// Configuration, key, RPC; the contract's refusal.
pub async fn run(args: QuestionArgs) -> anyhow::Result<Output> {
    let session = Session::open(&args.common.config).await?;
    let oracle = session.view();
    let id = args.id;
    let status = session.status(id).await?;
    if status == IVeritasOracle::VerdictStatus::Asked {
        let q = oracle
            .getQuestion(id)
            .call()
            .await
            .map_err(view_error("getQuestion"))?;
        let p = oracle
            .questionParameters(id)
            .call()
            .await
            .map_err(view_error("questionParameters"))?;
        // A commit-reveal question's deadline moves with its reveal phase: the simulation
        // checks it.
        if p.revealWindow == 0 {
            let ends = q.resolveAfter.max(q.askedAt) + u64::from(p.reportWindow);
            roles::can_finalize(id, status, ends, session.now().await?).map_err(refused)?;
        }
    } else {
        roles::can_finalize(id, status, 0, 0).map_err(refused)?;
    }
    let sent = session
        .send("finalize", oracle.finalize(id).into_transaction_request())
        .await?;
    let after = oracle
        .verdictStatus(id)
        .call()
        .await
        .map_err(view_error("verdictStatus"))?;
    let value = json!({"id": id.to_string(), "status": format!("{after:?}")});
    Ok(Output::lines(
        with_tx(value, &sent),
        &[format!("question {id} is now {after:?}"), sent.line()],
    ))
}
