//! `veritas ask`: ask the oracle a question on-chain and print its id.
//!
//! ```text
//! VERITAS_PRIVATE_KEY=0x... veritas ask "Did the 2025 Ljubljana marathon start on time?"
//! veritas ask "Will it rain in Paris on 2026-12-01?" --resolve-after 10d
//! ```

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use alloy::{
    network::EthereumWallet,
    providers::{Provider, ProviderBuilder},
};
use anyhow::Context;
use clap::Args;

use super::run::ConfigArgs;
use crate::{
    chain::{self, ChainError, IVeritasOracle},
    config,
};

/// `veritas ask` arguments.
#[derive(Debug, Args)]
pub struct AskArgs {
    /// The question (UTF-8, at most the contract's MAX_QUESTION_LENGTH bytes).
    pub question: String,
    /// Earliest time a verdict may be posted, from now (e.g. `10m`, `3d`).
    #[arg(long, value_parser = humantime::parse_duration)]
    pub resolve_after: Option<Duration>,
    #[command(flatten)]
    config: ConfigArgs,
}

/// Send `askQuestion` with the key in `VERITAS_PRIVATE_KEY` (or the keystore) and print the id.
///
/// # Errors
/// Configuration, key, RPC and contract errors (reverts decoded).
pub async fn run(args: AskArgs) -> anyhow::Result<()> {
    let config = args.config.load(Vec::new())?;
    let signer = config::load_signer(&config.keys)?;
    let url: reqwest::Url = config.chain.rpc_url.parse().context("chain.rpc_url")?;
    let provider = ProviderBuilder::new()
        .wallet(EthereumWallet::from(signer))
        .connect_http(url);
    let chain_id = provider
        .get_chain_id()
        .await
        .map_err(|e| ChainError::rpc("eth_chainId", e))?;
    let oracle = config.oracle_address(chain_id)?;
    let resolve_after = match args.resolve_after {
        None => 0,
        Some(d) => SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs() + d.as_secs(),
    };
    let contract = IVeritasOracle::new(oracle, &provider);
    let rules = chain::current_rules(&contract).await?;
    let receipt = contract
        .askQuestion(args.question, resolve_after, rules)
        .send()
        .await
        .map_err(|e| ChainError::contract("askQuestion", e))?
        .get_receipt()
        .await
        .context("waiting for the askQuestion receipt")?;
    let id = chain::asked_id(&receipt)
        .ok_or_else(|| anyhow::anyhow!("no QuestionAsked event in {}", receipt.transaction_hash))?;
    println!("{id}");
    eprintln!(
        "asked in tx {} (block {})",
        receipt.transaction_hash,
        receipt.block_number.unwrap_or_default()
    );
    Ok(())
}
