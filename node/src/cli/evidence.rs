//! `veritas evidence submit ID`: give a question an evidence item before its `resolveAfter`.
//!
//! ```text
//! veritas evidence submit 7 --url https://example.org/report --title "The report" \
//!     --snippet "The lane was approved on 12 March." [--json]
//! ```
//!
//! It reads the question's fee and caps first and refuses what the contract would refuse
//! (evidence closed, too long a field, too many items), pays exactly `nextEvidenceFee`, and
//! prints the item's index and its link of the oracle's evidence hash chain (checked against
//! the head before the item).

use alloy::primitives::U256;
use clap::{Args, Subcommand};
use serde_json::json;

use super::output::Output;
use super::session::{Common, Session, utc, wei, with_tx};
use crate::chain::ViewCall;
use crate::contract::{
    IVeritasOracle, evidence_chain,
    plan::{self, Detail},
};

/// `veritas evidence` arguments.
#[derive(Debug, Args)]
pub struct EvidenceArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: Action,
}

/// Evidence commands.
#[derive(Debug, Subcommand)]
pub enum Action {
    /// Submit one item for question ID, paying its evidence fee.
    Submit(SubmitArgs),
}

/// `veritas evidence submit` arguments.
#[derive(Debug, Args)]
pub struct SubmitArgs {
    /// The question id.
    pub id: U256,
    /// Where the evidence is.
    #[arg(long)]
    pub url: String,
    /// Its title.
    #[arg(long, default_value = "")]
    pub title: String,
    /// The relevant excerpt.
    #[arg(long, default_value = "")]
    pub snippet: String,
    #[command(flatten)]
    common: Common,
}

/// Run `veritas evidence <action>`.
///
/// # Errors
/// Configuration, key, RPC; the contract's refusal (checked locally, then simulated).
pub async fn run(args: EvidenceArgs) -> anyhow::Result<Output> {
    match args.action {
        Action::Submit(args) => submit(args).await,
    }
}

async fn submit(args: SubmitArgs) -> anyhow::Result<Output> {
    let session = Session::open(&args.common.config).await?;
    let id = args.id;
    let action = plan::Action::Evidence {
        url: args.url.clone(),
        title: args.title.clone(),
        snippet: args.snippet.clone(),
    };
    let plan = session.plan(id, &action).await?;
    let closes = match plan.detail {
        Detail::Evidence { closes } => closes,
        _ => 0,
    };
    let fee = plan.value;
    let before = session.view().evidenceHead().view("evidenceHead").await?;
    let sent = session.send_plan(&plan).await?;
    let item = sent.expect_event::<IVeritasOracle::EvidenceSubmitted>()?;
    // Our link from the head read before sending; another submission mined first moves it.
    let link = evidence_chain::link(
        before,
        id,
        session.address(),
        args.url.as_bytes(),
        args.title.as_bytes(),
        args.snippet.as_bytes(),
    );
    let previous = (link == item.evidenceHead).then_some(before);
    let value = json!({"id": id.to_string(), "index": item.index.to_string(),
        "evidence_head": item.evidenceHead, "previous_head": previous,
        "fee": fee.to_string(), "submitter": session.address(),
        "evidence_closes": closes});
    let chain_line = match previous {
        Some(prev) => format!("chain    {} -> {}", prev, item.evidenceHead),
        None => format!(
            "chain    -> {} (another submission came first)",
            item.evidenceHead
        ),
    };
    Ok(Output::lines(
        with_tx(value, &sent),
        &[
            format!("item     {} of question {id}", item.index),
            format!("paid     {}", wei(fee)),
            chain_line,
            format!("closes   {}", utc(closes)),
            sent.line(),
        ],
    ))
}
