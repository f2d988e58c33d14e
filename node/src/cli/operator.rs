//! `veritas operator`: the operator's unpaid credits (fees and won bonds), its stake (locked by
//! unsettled reports, and what was slashed: by the court, or a commit never revealed), and the
//! withdrawal of its credits.
//!
//! ```text
//! veritas operator balance                  # credits on the oracle and the wallet balance
//! veritas operator withdraw                 # pull every credit; refuses when there is none
//! VERITAS_PRIVATE_KEY=0x... veritas operator balance --rpc http://127.0.0.1:8545 --oracle 0x5FbD...
//! ```
//!
//! The key comes from where `veritas run` takes it (`VERITAS_PRIVATE_KEY`, or `keys.keystore`),
//! so the account is the node's own operator address.

use alloy::{
    network::EthereumWallet,
    primitives::{Address, U256, utils::format_ether},
    providers::{Provider, ProviderBuilder},
};
use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use serde_json::json;

use super::run::ConfigArgs;
use crate::{
    chain::{self, ChainError, ChainProvider, IVeritasOracle, reader},
    config::{self, Config},
};

/// `veritas operator` arguments.
#[derive(Debug, Args)]
pub struct OperatorArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: Action,
}

/// The operator's money commands.
#[derive(Debug, Subcommand)]
pub enum Action {
    /// Show the unpaid credits on the oracle (wei and ETH), the stake (locked part, unsettled
    /// reports, slashed so far) and the wallet balance.
    Balance(Common),
    /// Withdraw every credit; exits non-zero without sending anything when there is none.
    Withdraw(Common),
}

/// Options of both actions.
#[derive(Debug, Args)]
pub struct Common {
    /// Print one JSON object (amounts as decimal wei strings) instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    config: ConfigArgs,
}

/// The account, its oracle and a read-only provider, from the node's configuration and key.
struct Account {
    config: Config,
    signer: alloy::signers::local::PrivateKeySigner,
    provider: ChainProvider,
    oracle: Address,
    from_block: u64,
}

impl Account {
    async fn open(common: &Common) -> anyhow::Result<Self> {
        let config = common.config.load(Vec::new())?;
        let signer = config::load_signer(&config.keys)?;
        let provider = chain::connect(&config.chain.rpc_url, config.chain.rpc_timeout)?;
        let chain_id = chain::check_chain_id(&provider, config.chain.chain_id)
            .await
            .with_context(|| format!("cannot use the RPC at {}", config.chain.rpc_url))?;
        let oracle = config.oracle_address(chain_id)?;
        reader::ensure_contract(&provider, oracle, alloy::eips::BlockId::latest()).await?;
        let from_block = config::start_block(&config, chain_id);
        Ok(Self {
            config,
            signer,
            provider,
            oracle,
            from_block,
        })
    }

    fn address(&self) -> Address {
        self.signer.address()
    }

    async fn credits(&self) -> Result<U256, ChainError> {
        reader::credits(&self.provider, self.oracle, self.address()).await
    }

    async fn wallet(&self) -> Result<U256, ChainError> {
        self.provider
            .get_balance(self.address())
            .await
            .map_err(|e| ChainError::rpc("eth_getBalance", e))
    }
}

fn wei(v: U256) -> String {
    // format_ether prints all 18 decimals; trailing zeros say nothing.
    let ether = format_ether(v);
    let ether = ether.trim_end_matches('0').trim_end_matches('.');
    format!("{v} wei ({ether} ETH)")
}

/// Run `veritas operator <action>`.
///
/// # Errors
/// Configuration, key, RPC and contract errors; `withdraw` with nothing to withdraw.
pub async fn run(args: OperatorArgs) -> anyhow::Result<()> {
    match args.action {
        Action::Balance(common) => balance(&common).await,
        Action::Withdraw(common) => withdraw(&common).await,
    }
}

async fn balance(common: &Common) -> anyhow::Result<()> {
    let account = Account::open(common).await?;
    let credits = account.credits().await?;
    let wallet = account.wallet().await?;
    let stake = reader::stake(
        &account.provider,
        account.oracle,
        account.address(),
        account.from_block,
    )
    .await?;
    if common.json {
        println!(
            "{}",
            json!({"operator": account.address(), "oracle": account.oracle,
                   "credits": credits.to_string(), "wallet": wallet.to_string(),
                   "stake": stake.staked.to_string(), "locked": stake.locked.to_string(),
                   "open_reports": stake.open_reports.to_string(),
                   "slashed": stake.slashed.to_string(), "slashings": stake.slashings,
                   "unrevealed_commits_slashed": stake.unrevealed_commits})
        );
        return Ok(());
    }
    println!("operator {}", account.address());
    println!("oracle   {}", account.oracle);
    println!("credits  {}", wei(credits));
    println!(
        "stake    {} ({} locked by {} unsettled reports)",
        wei(stake.staked),
        wei(stake.locked),
        stake.open_reports
    );
    let unrevealed = match stake.unrevealed_commits {
        0 => String::new(),
        n => format!("; {n} of them a commit not revealed in time"),
    };
    println!(
        "slashed  {} ({} times{unrevealed})",
        wei(stake.slashed),
        stake.slashings
    );
    println!("wallet   {}", wei(wallet));
    Ok(())
}

async fn withdraw(common: &Common) -> anyhow::Result<()> {
    let account = Account::open(common).await?;
    let credits = account.credits().await?;
    if credits.is_zero() {
        bail!(
            "nothing to withdraw: {} has no credits on oracle {} (no transaction sent)",
            account.address(),
            account.oracle
        );
    }
    let url: reqwest::Url = account
        .config
        .chain
        .rpc_url
        .parse()
        .context("chain.rpc_url")?;
    let sender = ProviderBuilder::new()
        .wallet(EthereumWallet::from(account.signer.clone()))
        .connect_http(url);
    let receipt = IVeritasOracle::new(account.oracle, &sender)
        .withdraw()
        .send()
        .await
        .map_err(|e| ChainError::contract("withdraw", e))?
        .get_receipt()
        .await
        .context("waiting for the withdraw receipt")?;
    let tx = receipt.transaction_hash;
    if !receipt.status() {
        bail!("withdraw transaction {tx} reverted");
    }
    let amount = receipt
        .inner
        .logs()
        .iter()
        .find_map(|log| log.log_decode::<IVeritasOracle::Withdrawn>().ok())
        .map(|log| log.inner.data.amount)
        .ok_or_else(|| anyhow::anyhow!("no Withdrawn event in {tx}"))?;
    let gas_fee = U256::from(receipt.gas_used) * U256::from(receipt.effective_gas_price);
    let wallet = account.wallet().await?;
    if common.json {
        println!(
            "{}",
            json!({"operator": account.address(), "oracle": account.oracle,
                   "withdrawn": amount.to_string(), "tx": tx,
                   "block": receipt.block_number, "gas_used": receipt.gas_used,
                   "gas_fee": gas_fee.to_string(), "wallet": wallet.to_string()})
        );
        return Ok(());
    }
    println!("withdrew {}", wei(amount));
    println!(
        "tx       {tx} (block {}, gas used {}, fee {})",
        receipt.block_number.unwrap_or_default(),
        receipt.gas_used,
        wei(gas_fee)
    );
    println!("wallet   {}", wei(wallet));
    Ok(())
}
