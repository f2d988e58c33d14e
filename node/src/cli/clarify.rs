//! `veritas clarify ID TEXT`: the asker says what its question means, before the first report.
//!
//! ```text
//! veritas clarify 7 "Resume means a scheduled crossing, not a test run." [--json]
//! ```
//!
//! It checks what the contract would refuse first (not the asker; a report, a commit or a
//! deferral already; empty or over 1,024 bytes; a fifth clarification) with the contract's own
//! sentence, then sends `clarify` and prints the clarification's number. Every juror of every
//! node reads it after the question, and the evidence root commits it right after the question.

use alloy::primitives::U256;
use clap::Args;
use serde_json::json;

use super::output::Output;
use super::session::{Common, Session, with_tx};
use crate::contract::{IVeritasOracle, plan::Action};

/// `veritas clarify` arguments.
#[derive(Debug, Args)]
pub struct ClarifyArgs {
    /// The question id.
    pub id: U256,
    /// The clarification (UTF-8, 1 to 1,024 bytes): the asker's words, shown to every juror.
    pub text: String,
    #[command(flatten)]
    common: Common,
}

/// Run `veritas clarify`.
///
/// # Errors
/// Configuration, key, RPC; the contract's refusal (checked locally, then simulated).
pub async fn run(args: ClarifyArgs) -> anyhow::Result<Output> {
    let session = Session::open(&args.common.config).await?;
    let id = args.id;
    let action = Action::Clarify {
        text: args.text.clone(),
    };
    let plan = session.plan(id, &action).await?;
    let sent = session.send_plan(&plan).await?;
    let event = sent.expect_event::<IVeritasOracle::QuestionClarified>()?;
    let value = json!({"id": id.to_string(), "index": event.index.to_string(),
        "bytes": args.text.len()});
    Ok(Output::lines(
        with_tx(value, &sent),
        &[
            format!("clarification {} of question {id}", event.index),
            format!("bytes         {}", args.text.len()),
            sent.line(),
        ],
    ))
}
