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
use super::session::{Common, Session, refused, small, utc, view_error, wei, with_tx};
use crate::contract::{
    IVeritasOracle, evidence_chain,
    roles::{self, EvidenceLimits, EvidenceState},
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
    let oracle = session.view();
    let id = args.id;
    let status = session.status(id).await?;
    let limits = limits(&oracle).await?;
    let mut state = EvidenceState {
        status,
        reports_open_at: 0,
        count: 0,
        mine: 0,
        evidence_fee: U256::ZERO,
    };
    if status != IVeritasOracle::VerdictStatus::None {
        let q = oracle
            .getQuestion(id)
            .call()
            .await
            .map_err(view_error("getQuestion"))?;
        state.reports_open_at = q.resolveAfter.max(q.askedAt);
        state.count = small(
            oracle
                .evidenceCount(id)
                .call()
                .await
                .map_err(view_error("evidenceCount"))?,
        );
        state.mine = small(
            oracle
                .evidenceOf(id, session.address())
                .call()
                .await
                .map_err(view_error("evidenceOf"))?
                .items,
        );
        state.evidence_fee = U256::from(
            oracle
                .questionParameters(id)
                .call()
                .await
                .map_err(view_error("questionParameters"))?
                .evidenceFee,
        );
    }
    let now = session.now().await?;
    let lengths = [args.url.len(), args.title.len(), args.snippet.len()];
    let fee = roles::evidence_fee(id, session.address(), &state, &limits, now, lengths)
        .map_err(refused)?;
    let before = oracle
        .evidenceHead()
        .call()
        .await
        .map_err(view_error("evidenceHead"))?;
    let call = oracle
        .submitEvidence(
            id,
            args.url.clone(),
            args.title.clone(),
            args.snippet.clone(),
        )
        .value(fee)
        .into_transaction_request();
    let sent = session.send("submitEvidence", call).await?;
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
        "evidence_closes": state.reports_open_at});
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
            format!("closes   {}", utc(state.reports_open_at)),
            sent.line(),
        ],
    ))
}

/// The oracle's evidence constants.
async fn limits(
    oracle: &IVeritasOracle::IVeritasOracleInstance<&crate::chain::ChainProvider>,
) -> anyhow::Result<EvidenceLimits> {
    Ok(EvidenceLimits {
        per_question: small(
            oracle
                .MAX_EVIDENCE_PER_QUESTION()
                .call()
                .await
                .map_err(view_error("MAX_EVIDENCE_PER_QUESTION"))?,
        ),
        per_submitter: small(
            oracle
                .MAX_EVIDENCE_PER_SUBMITTER()
                .call()
                .await
                .map_err(view_error("MAX_EVIDENCE_PER_SUBMITTER"))?,
        ),
        price_step: small(
            oracle
                .EVIDENCE_PRICE_STEP()
                .call()
                .await
                .map_err(view_error("EVIDENCE_PRICE_STEP"))?,
        ),
        field_lengths: [
            small(
                oracle
                    .MAX_URL_LENGTH()
                    .call()
                    .await
                    .map_err(view_error("MAX_URL_LENGTH"))?,
            ),
            small(
                oracle
                    .MAX_TITLE_LENGTH()
                    .call()
                    .await
                    .map_err(view_error("MAX_TITLE_LENGTH"))?,
            ),
            small(
                oracle
                    .MAX_SNIPPET_LENGTH()
                    .call()
                    .await
                    .map_err(view_error("MAX_SNIPPET_LENGTH"))?,
            ),
        ],
    })
}
