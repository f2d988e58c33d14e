//! `veritas finalize ID`: close a question whose report window is over (anyone may): with
//! reports, the pooled verdict is posted escalated; with none, it expires and the asker's fee
//! is refunded.
//!
//! ```text
//! veritas finalize 7 [--json]
//! ```

use serde_json::json;

use super::output::Output;
use super::session::{QuestionArgs, Session, with_tx};
use crate::contract::plan::Action;

/// Close the question and print its new status.
///
/// # Errors
/// Configuration, key, RPC; the contract's refusal.
pub async fn run(args: QuestionArgs) -> anyhow::Result<Output> {
    let session = Session::open(&args.common.config).await?;
    let id = args.id;
    let plan = session.plan(id, &Action::Finalize).await?;
    let sent = session.send_plan(&plan).await?;
    let after = session.status(id).await?;
    let value = json!({"id": id.to_string(), "status": format!("{after:?}")});
    Ok(Output::lines(
        with_tx(value, &sent),
        &[format!("question {id} is now {after:?}"), sent.line()],
    ))
}
