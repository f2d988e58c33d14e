//! `veritas dispute ID`: dispute a Resolved verdict within its challenge window, claiming the
//! triple the disputer holds right.
//!
//! ```text
//! veritas dispute 7 --claim 0.1 0.85 0.05             # shows what is at stake, asks y/N
//! veritas dispute 7 --claim 0.1 0.85 0.05 --yes --json
//! ```
//!
//! Before anything is sent it shows the bond (lost if the verdict stands), the court's fee
//! (never returned), the total and the challenge deadline, and refuses what the contract would
//! refuse (not Resolved, window over, the posted triple, a triple that is not one).

use std::io::BufRead;

use alloy::primitives::{Address, U256};
use anyhow::{Context, bail};
use clap::Args;
use serde_json::json;

use super::output::{Output, Usage};
use super::session::{Common, Session, with_tx};
use crate::contract::{
    IVeritasOracle,
    plan::{Action, Detail},
};

/// `veritas dispute` arguments.
#[derive(Debug, Args)]
pub struct DisputeArgs {
    /// The question id.
    pub id: U256,
    /// The triple claimed right: YES NO NULL, each a decimal probability (`0.85`) or WAD wei
    /// (`850000000000000000`); the three sum to exactly 1.
    #[arg(long, num_args = 3, value_names = ["P_YES", "P_NO", "P_NULL"], value_parser = parse_probability, required = true)]
    pub claim: Vec<U256>,
    /// Bond, as ETH (`0.01`) or wei (`10000000000000000wei`), like every amount flag (default:
    /// the question's dispute bond, the least it takes).
    #[arg(long, value_parser = super::operator::parse_amount)]
    pub bond: Option<U256>,
    /// Who is credited what the dispute wins (default: the sender).
    #[arg(long)]
    pub beneficiary: Option<Address>,
    /// Send without asking for confirmation (required with `--json`).
    #[arg(long)]
    pub yes: bool,
    #[command(flatten)]
    common: Common,
}

/// Show the stakes, confirm, dispute, and print the court's dispute id.
///
/// # Errors
/// Configuration, key, RPC; the contract's refusal; no confirmation.
pub async fn run(args: DisputeArgs, json: bool) -> anyhow::Result<Output> {
    if json && !args.yes {
        return Err(Usage(
            "--json needs --yes: a dispute is confirmed on the terminal otherwise".into(),
        )
        .into());
    }
    let claim: [U256; 3] = args
        .claim
        .clone()
        .try_into()
        .map_err(|_| anyhow::anyhow!("--claim takes three probabilities"))?;
    let session = Session::open(&args.common.config).await?;
    let id = args.id;
    let action = Action::Dispute {
        claim,
        bond: args.bond,
        beneficiary: args.beneficiary,
    };
    let plan = session.plan(id, &action).await?;
    let Detail::Dispute { cost, .. } = plan.detail else {
        bail!("the dispute's plan has no cost");
    };
    let beneficiary = args.beneficiary.unwrap_or(session.address());
    // The plan's lines, as `veritas dispute` has always printed them.
    let stakes: Vec<String> = plan
        .lines
        .iter()
        .map(|(label, text)| format!("{label:<8} {text}"))
        .collect();
    if !json {
        for line in &stakes {
            println!("{line}");
        }
    }
    if !args.yes && !confirm()? {
        bail!("not confirmed: no transaction sent");
    }
    let sent = session.send_plan(&plan).await?;
    let disputed = sent.expect_event::<IVeritasOracle::VerdictDisputed>()?;
    let value = json!({"id": id.to_string(), "dispute_id": disputed.disputeId.to_string(),
        "arbitrator": disputed.arbitrator, "bond": cost.bond.to_string(),
        "court_fee": cost.court.to_string(), "total": cost.total.to_string(),
        "deadline": cost.deadline, "beneficiary": beneficiary,
        "claim": claim.map(|p| p.to_string())});
    Ok(Output::lines(
        with_tx(value, &sent),
        &[
            format!(
                "disputed: case {} at court {}",
                disputed.disputeId, disputed.arbitrator
            ),
            sent.line(),
        ],
    ))
}

/// Ask `Send? [y/N]` on stderr and read the answer from stdin.
fn confirm() -> anyhow::Result<bool> {
    eprint!("Send the dispute? [y/N] ");
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .context("reading the confirmation")?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}

/// A probability: `0.85` (at most 18 decimals) or WAD wei `850000000000000000`.
fn parse_probability(s: &str) -> Result<U256, String> {
    let parsed = if s.contains('.') {
        alloy::primitives::utils::parse_ether(s).map_err(|e| e.to_string())
    } else {
        s.parse::<U256>().map_err(|e| e.to_string())
    };
    parsed.map_err(|e| format!("{s:?} is not a probability (0.85 or 850000000000000000): {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probabilities_read_as_decimals_or_wad() {
        let wad = |x: u64| U256::from(x) * U256::from(10_000_000_000_000_000u64);
        assert_eq!(parse_probability("0.85"), Ok(wad(85)));
        assert_eq!(parse_probability("850000000000000000"), Ok(wad(85)));
        assert_eq!(parse_probability("0.000000000000000001"), Ok(U256::from(1)));
        assert!(parse_probability("lots").is_err());
    }
}
