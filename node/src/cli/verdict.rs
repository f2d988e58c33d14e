//! `veritas verdict`: read a question's verdict from the chain.
//!
//! ```text
//! veritas verdict 3
//! veritas verdict 3 --json
//! ```

use alloy::primitives::U256;
use anyhow::Context;
use clap::Args;
use serde_json::json;

use super::run::ConfigArgs;
use crate::chain::{self, ChainError, IVeritasOracle};

/// `veritas verdict` arguments.
#[derive(Debug, Args)]
pub struct VerdictArgs {
    /// Question id.
    pub id: U256,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    config: ConfigArgs,
}

/// A 1e18 integer as a percentage with two decimals (display only).
fn percent(wad: U256) -> String {
    let bp = wad / U256::from(100_000_000_000_000u64); // 1e14 = 0.01%
    let bp: u64 = bp.try_into().unwrap_or(u64::MAX);
    format!("{}.{:02}%", bp / 100, bp % 100)
}

/// Print the status and, when posted, the verdict.
///
/// # Errors
/// Configuration and RPC errors.
pub async fn run(args: VerdictArgs) -> anyhow::Result<()> {
    let config = args.config.load(Vec::new())?;
    let provider = chain::connect(&config.chain.rpc_url, config.chain.rpc_timeout)?;
    let chain_id = chain::check_chain_id(&provider, config.chain.chain_id).await?;
    let oracle = config.oracle_address(chain_id)?;
    let contract = IVeritasOracle::new(oracle, &provider);
    let status = contract
        .verdictStatus(args.id)
        .call()
        .await
        .map_err(|e| ChainError::contract("verdictStatus", e))?;
    let posted = chain::has_verdict(&status);
    let verdict = if posted {
        Some(
            contract
                .getVerdict(args.id)
                .call()
                .await
                .map_err(|e| ChainError::contract("getVerdict", e))
                .context("getVerdict")?,
        )
    } else {
        None
    };
    if args.json {
        let v = verdict.as_ref().map(|v| {
            json!({
                "questionHash": v.questionHash.to_string(), "merkleRoot": v.merkleRoot.to_string(),
                "pYes": v.pYes.to_string(), "pNo": v.pNo.to_string(), "pNull": v.pNull.to_string(),
                "fleissKappa": v.fleissKappa.to_string(), "timestamp": v.timestamp.to_string(),
            })
        });
        println!(
            "{}",
            json!({"id": args.id.to_string(), "status": format!("{status:?}"), "verdict": v})
        );
        return Ok(());
    }
    println!("question {}: {status:?}", args.id);
    if let Some(v) = verdict {
        println!("  YES   {:>8}  ({})", percent(v.pYes), v.pYes);
        println!("  NO    {:>8}  ({})", percent(v.pNo), v.pNo);
        println!("  NULL  {:>8}  ({})", percent(v.pNull), v.pNull);
        println!("  kappa {}  (1e18 scale)", v.fleissKappa);
        println!("  evidence root {}", v.merkleRoot);
        println!("  question hash {}", v.questionHash);
        println!("  posted at {}", v.timestamp);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_formats() {
        assert_eq!(percent(U256::from(500_000_000_000_000_000u64)), "50.00%");
        assert_eq!(percent(U256::from(333_333_333_333_333_334u64)), "33.33%");
        assert_eq!(percent(U256::from(1u64)), "0.00%");
    }
}
