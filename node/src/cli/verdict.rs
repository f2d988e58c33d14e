//! `veritas verdict`: read a question's status, verdict, money and every operator's report.
//!
//! ```text
//! veritas verdict 3
//! veritas verdict 3 --rpc http://127.0.0.1:8545 --oracle 0x5FbD...
//! veritas verdict 3 --json
//! ```
//!
//! Every value is read at one block (see [`crate::contract::reader`]); the time left in the
//! challenge window is `finalAt` minus that block's timestamp.

use std::time::Duration;

use alloy::primitives::{U256, utils::format_ether};
use anyhow::Context;
use clap::Args;

use super::{output::Output, run::ConfigArgs, session::utc};
use crate::{chain, config, contract::reader, stats};

/// `veritas verdict` arguments.
#[derive(Debug, Args)]
pub struct VerdictArgs {
    /// Question id.
    pub id: U256,
    /// First block to search for the question's events (default: the deployment's block when
    /// the oracle comes from the deployments file, else `chain.start_block`).
    #[arg(long)]
    pub from_block: Option<u64>,
    #[command(flatten)]
    config: ConfigArgs,
}

fn seconds(s: u64) -> String {
    humantime::format_duration(Duration::from_secs(s)).to_string()
}

/// Wei with its ether value.
fn wei(v: U256) -> String {
    // format_ether prints all 18 decimals; trailing zeros say nothing.
    let ether = format_ether(v);
    let ether = ether.trim_end_matches('0').trim_end_matches('.');
    format!("{v} wei ({ether} ETH)")
}

/// Print the question's state.
///
/// # Errors
/// Configuration errors, an unreachable RPC, no contract at the oracle address, an unknown id.
pub async fn run(args: VerdictArgs) -> anyhow::Result<Output> {
    let config = args.config.load(Vec::new())?;
    let provider = chain::connect(&config.chain.rpc_url, config.chain.rpc_timeout)?;
    let chain_id = chain::check_chain_id(&provider, config.chain.chain_id)
        .await
        .with_context(|| format!("cannot use the RPC at {}", config.chain.rpc_url))?;
    let oracle = config.oracle_address(chain_id)?;
    let from_block = args
        .from_block
        .unwrap_or_else(|| config::start_block(&config, chain_id));
    let view = reader::question_view(&provider, oracle, args.id, from_block)
        .await
        .with_context(|| format!("question {} on oracle {oracle}", args.id))?;
    // `--json`: the view itself (every integer as a decimal string).
    Ok(Output::text(serde_json::to_value(&view)?, render(&view)))
}

/// The text form of a question's state.
pub fn render(v: &reader::QuestionView) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "question {} on {} (chain {}, read at block {}, time {})",
        v.id, v.oracle, v.chain_id, v.block, v.block_timestamp
    );
    let finality = finality(v);
    let _ = writeln!(
        o,
        "  status        {} (isFinal {}): {finality}",
        v.status, v.is_final
    );
    if let Some(verdict) = &v.verdict {
        render_verdict(&mut o, verdict, v.arbitrated.is_some());
    }
    render_outcome(&mut o, v);
    render_asking(&mut o, v);
    render_terms(&mut o, v);
    render_reports(&mut o, v);
    o
}

/// The posted triple and any dispute: what stands between the verdict and final.
fn render_outcome(o: &mut String, v: &reader::QuestionView) {
    use std::fmt::Write as _;
    if let Some(posted) = &v.posted {
        let _ = writeln!(
            o,
            "  posted        block {} by {}, escalated {}",
            posted.block, posted.poster, posted.escalated
        );
        if v.arbitrated.is_some() {
            let _ = writeln!(
                o,
                "  pooled triple YES {}  NO {}  NULL {}",
                posted.p_fixed[0], posted.p_fixed[1], posted.p_fixed[2]
            );
        }
    }
    match &v.dispute {
        Some(d) => {
            let _ = writeln!(o, "  dispute       by {}, bond {}", d.disputer, wei(d.bond));
        }
        None => {
            let _ = writeln!(o, "  dispute       none");
        }
    }
}

/// Who asked what and when: the hash, the asker, deferrals and clarifications.
fn render_asking(o: &mut String, v: &reader::QuestionView) {
    use std::fmt::Write as _;
    let _ = writeln!(o, "  question hash {}", v.question_hash);
    let _ = writeln!(
        o,
        "  asked         by {} at {}, reports from {}",
        v.asker, v.asked_at, v.reports_open_at
    );
    if v.deferrals > 0 {
        let until = if v.status == "Asked" {
            format!("deferred until {}", utc(v.reports_open_at))
        } else {
            "deferred".to_owned()
        };
        let _ = writeln!(
            o,
            "  not yet       {until}, {} of {} deferrals",
            v.deferrals, v.max_deferrals
        );
    }
    for (i, text) in v.clarifications.iter().enumerate() {
        // Quoted: the asker's text, whatever it holds, stays on its line.
        let _ = writeln!(
            o,
            "  clarified {}.  {}",
            i + 1,
            serde_json::Value::from(text.as_str())
        );
    }
}

/// The question's parameters and fees, fixed when it was asked.
fn render_terms(o: &mut String, v: &reader::QuestionView) {
    use std::fmt::Write as _;
    let p = &v.parameters;
    let _ = writeln!(
        o,
        "  parameters    quorum {}, max {} ballots per report, report window {}, challenge window {}",
        p.quorum,
        p.max_ballots_per_report,
        seconds(u64::from(p.report_window)),
        seconds(u64::from(p.challenge_window)),
    );
    let _ = writeln!(
        o,
        "  fees          ask {}, dispute bond {}, evidence {}",
        wei(p.ask_fee),
        wei(p.dispute_bond),
        wei(p.evidence_fee)
    );
    let _ = writeln!(o, "  pending fee   {}", wei(v.pending_fee));
}

/// Every operator's report, numbered, with where it landed on chain.
fn render_reports(o: &mut String, v: &reader::QuestionView) {
    use std::fmt::Write as _;
    let _ = writeln!(
        o,
        "  reports       {} (quorum {})",
        v.reports.len(),
        v.parameters.quorum
    );
    for (i, r) in v.reports.iter().enumerate() {
        let _ = writeln!(o, "    {}. {}", i + 1, r.summary());
        let _ = writeln!(
            o,
            "       root {}  block {}  tx {}",
            r.merkle_root, r.block, r.tx
        );
    }
}

/// Where the question stands on its way to final, in words.
fn finality(v: &reader::QuestionView) -> String {
    match (v.status.as_str(), v.seconds_to_final) {
        (_, Some(0)) => "final".to_string(),
        ("Resolved", Some(left)) => format!(
            "challenge window open: {} left (final at {})",
            seconds(left),
            v.final_at
        ),
        ("Disputed", _) => "disputed: waiting for the arbiter".into(),
        ("Escalated", _) => "escalated: waiting for the arbiter".into(),
        ("Asked", _) => {
            let left = v.report_window_closes_at.saturating_sub(v.block_timestamp);
            format!(
                "open: {} of {} reports, report window closes at {} ({} left)",
                v.reports.len(),
                v.parameters.quorum,
                v.report_window_closes_at,
                seconds(left)
            )
        }
        _ => "not final".into(),
    }
}

/// The verdict's lines; `arbitrated` when the triple is the arbiter's ruling.
fn render_verdict(o: &mut String, verdict: &reader::VerdictView, arbitrated: bool) {
    use std::fmt::Write as _;
    let source = if arbitrated {
        " (the arbiter's ruling)"
    } else {
        ""
    };
    let _ = writeln!(o, "  verdict{source}");
    for (name, wad) in [
        ("YES", verdict.p_yes),
        ("NO", verdict.p_no),
        ("NULL", verdict.p_null),
    ] {
        let _ = writeln!(
            o,
            "    {name:<5} {:>8}  ({wad})",
            stats::format_percent(wad, 2)
        );
    }
    let _ = writeln!(
        o,
        "    kappa {}  ({})",
        stats::format_wad(verdict.fleiss_kappa, 4),
        verdict.fleiss_kappa
    );
    let _ = writeln!(o, "    root  {}", verdict.merkle_root);
    let _ = writeln!(o, "    time  {}", verdict.timestamp);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(seconds(3_661), "1h 1m 1s");
        assert_eq!(wei(U256::ZERO), "0 wei (0 ETH)");
        assert_eq!(
            wei(U256::from(10_500_000_000_000_000_000u128)),
            "10500000000000000000 wei (10.5 ETH)"
        );
    }
}
