//! `veritas callback retry ID`: call a question's consumer again after its callback failed
//! (`CallbackFailed`); anyone may.
//!
//! ```text
//! veritas callback retry 7 [--json]
//! ```

use anyhow::bail;
use clap::{Args, Subcommand};
use serde_json::json;

use super::output::Output;
use super::session::{QuestionArgs, Session, refused, with_tx};
use crate::chain::ViewCall;
use crate::contract::{IVeritasOracle, roles};

/// `veritas callback` arguments.
#[derive(Debug, Args)]
pub struct CallbackArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: Action,
}

/// Callback commands.
#[derive(Debug, Subcommand)]
pub enum Action {
    /// Deliver the owed callback of question ID.
    Retry(QuestionArgs),
}

/// Run `veritas callback <action>`.
///
/// # Errors
/// Configuration, key, RPC; nothing owed; the consumer failing again.
pub async fn run(args: CallbackArgs) -> anyhow::Result<Output> {
    let Action::Retry(args) = args.action;
    let session = Session::open(&args.common.config).await?;
    let oracle = session.view();
    let id = args.id;
    let owed = oracle.callbackOwed(id).view("callbackOwed").await?;
    roles::can_retry_callback(id, owed).map_err(refused)?;
    let sent = session
        .send(
            "retryCallback",
            oracle.retryCallback(id).into_transaction_request(),
        )
        .await?;
    if let Some(failed) = sent.event::<IVeritasOracle::CallbackFailed>() {
        bail!(
            "the consumer {} of question {id} failed again on {:?} (tx {}); the callback is still owed",
            failed.consumer,
            failed.status,
            sent.tx()
        );
    }
    let delivered = sent.expect_event::<IVeritasOracle::CallbackDelivered>()?;
    let value = json!({"id": id.to_string(), "consumer": delivered.consumer,
        "status": format!("{:?}", delivered.status)});
    Ok(Output::lines(
        with_tx(value, &sent),
        &[
            format!(
                "delivered {:?} of question {id} to {}",
                delivered.status, delivered.consumer
            ),
            sent.line(),
        ],
    ))
}
