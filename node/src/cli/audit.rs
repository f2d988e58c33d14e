//! `veritas audit`: rebuild a verdict from its report file and compare it with the chain.
//!
//! ```text
//! veritas audit veritas-data/reports/3.json
//! veritas audit report.json --rpc http://127.0.0.1:8545 --oracle 0x5FbD...
//! veritas audit --question 7 --rpc http://127.0.0.1:8545 --oracle 0x5FbD... --report a/7.json
//! ```
//!
//! With `--question`, the pooled verdict of every operator's report is audited instead
//! ([`super::audit_question`]).
//!
//! Exit status 0 when everything matches, 1 on any mismatch (each one is named). The report
//! is read bounded ([`audit::MAX_REPORT_BYTES`]); a file that is too large, not JSON, or not a
//! report object is an error naming it.
//!
//! The report's on-chain submissions are checked too: each hash-chain link offline, and with
//! `--rpc` every `EvidenceSubmitted` log of the question (read from `--from-block`) must be in
//! the report, unchanged, and their number must equal `evidenceCount(id)`.

use std::path::PathBuf;

use alloy::primitives::{Address, U256};
use anyhow::Context;
use clap::Args;

use serde_json::json;

use super::output::{FailedWith, Output};
use crate::{
    audit::{self, Mismatch},
    chain,
};

/// `veritas audit` arguments.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// The report file (JSON) written by the node (not with `--question`).
    #[arg(required_unless_present = "question", conflicts_with = "question")]
    pub report: Option<PathBuf>,
    /// Audit the pooled verdict of this question from every operator's report (needs `--rpc`).
    #[arg(long, requires = "rpc")]
    pub question: Option<U256>,
    /// With `--question`: an operator's report, a file or a node's API URL, optionally as
    /// `0xOPERATOR=SOURCE`; repeat for each operator. Reports not given are checked against
    /// their events only.
    #[arg(long = "report", value_name = "FILE_OR_URL", requires = "question")]
    pub reports: Vec<String>,
    /// JSON-RPC URL: also compare with the verdict on-chain.
    #[arg(long)]
    pub rpc: Option<String>,
    /// Oracle address (default: the report's `question.oracle`).
    #[arg(long)]
    pub oracle: Option<Address>,
    /// First block of the event scans: the question's `ReportSubmitted` logs with
    /// `--question`, its `EvidenceSubmitted` logs otherwise (the oracle's deployment block
    /// spares providers that cap `eth_getLogs` ranges).
    #[arg(long, default_value_t = 0)]
    pub from_block: u64,
}

/// Audit one report.
///
/// # Errors
/// Unreadable report, RPC failure, or any mismatch.
pub async fn run(args: AuditArgs) -> anyhow::Result<Output> {
    let (Some(path), None) = (&args.report, args.question) else {
        return super::audit_question::run(super::audit_question::QuestionAudit {
            id: args.question.context("a report file or --question")?,
            rpc: args.rpc.clone().context("--question needs --rpc")?,
            oracle: args.oracle,
            reports: args.reports.clone(),
            from_block: args.from_block,
        })
        .await;
    };
    // Read once, typed once: every check below reads the typed report. A key that does not
    // read is the one mismatch: nothing can be recomputed from it.
    let report = match audit::AuditReport::from_json(&audit::read_report(path)?) {
        Ok(report) => report,
        Err(malformed) => return verdict(Vec::new(), json!({}), vec![*malformed]),
    };
    let rec = audit::recompute(&report)?;
    let mut mismatches: Vec<Mismatch> = audit::compare_with_report(&rec, &report);
    mismatches.extend(audit::check_submissions(&report)?);
    let (mut human, mut value) = recomputed(&rec, &report);
    if let Some(rpc) = &args.rpc {
        let (id, oracle) = on_chain(&args, rpc, &report, &rec, &mut mismatches).await?;
        human.push(format!("chain       question {id} on {oracle} compared"));
        value["chain"] = json!({"question": id.to_string(), "oracle": oracle});
    }
    verdict(human, value, mismatches)
}

/// The audit's output: OK when nothing differs, else every mismatch and a failure.
fn verdict(
    mut human: Vec<String>,
    mut value: serde_json::Value,
    mismatches: Vec<Mismatch>,
) -> anyhow::Result<Output> {
    value["ok"] = json!(mismatches.is_empty());
    value["mismatches"] = json!(
        mismatches
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    );
    if mismatches.is_empty() {
        human.push("OK: every recomputed value matches".into());
        return Ok(Output::lines(value, &human));
    }
    human.extend(mismatches.iter().map(|m| format!("MISMATCH {m}")));
    Err(FailedWith::error(
        Output::lines(value, &human),
        format!("{} mismatch(es)", mismatches.len()),
    ))
}

/// What the audit rebuilt from the report alone, as text lines and as JSON.
fn recomputed(
    rec: &audit::Recomputed,
    report: &audit::AuditReport,
) -> (Vec<String>, serde_json::Value) {
    let submitted = report.submissions.as_ref().map_or(0, |s| s.items.len());
    let human = vec![
        format!("root        {}", rec.root),
        format!(
            "p (1e18)    YES {}  NO {}  NULL {}",
            rec.p_fixed[0], rec.p_fixed[1], rec.p_fixed[2]
        ),
        format!("kappa (1e18) {}", rec.kappa_fixed),
        format!(
            "routing     {} (recomputed from routing.policy{})",
            if rec.escalated { "escalate" } else { "resolve" },
            rec.routing
                .routing
                .reasons
                .first()
                .map(|r| format!(": {r}"))
                .unwrap_or_default()
        ),
        format!("submitted   {submitted} on-chain item(s), hash-chain links recomputed"),
    ];
    let value = json!({"root": rec.root,
        "p_fixed": rec.p_fixed.map(|p| p.to_string()),
        "kappa_fixed": rec.kappa_fixed.to_string(),
        "routing": if rec.escalated { "escalate" } else { "resolve" },
        "routing_reasons": &rec.routing.routing.reasons, "submitted": submitted});
    (human, value)
}

/// With `--rpc`: compare the verdict, the submitted evidence and the clarifications with the
/// chain, adding every difference to `mismatches`; the question and oracle compared.
async fn on_chain(
    args: &AuditArgs,
    rpc: &str,
    report: &audit::AuditReport,
    rec: &audit::Recomputed,
    mismatches: &mut Vec<Mismatch>,
) -> anyhow::Result<(U256, Address)> {
    let oracle = match args.oracle {
        Some(a) => a,
        None => report
            .question
            .oracle
            .context("no --oracle and no question.oracle in the report")?,
    };
    let id: U256 = rec
        .question_id
        .context("the report has no question.id: it was not resolved on-chain")?;
    let provider = chain::connect(rpc, std::time::Duration::from_secs(15))?;
    let at = audit::QuestionOnChain {
        provider: &provider,
        oracle,
        id,
    };
    mismatches.extend(audit::compare_with_chain(rec, at).await?);
    mismatches.extend(audit::compare_submissions_with_chain(report, at, args.from_block).await?);
    mismatches.extend(audit::compare_clarifications_with_chain(report, at, args.from_block).await?);
    Ok((id, oracle))
}
