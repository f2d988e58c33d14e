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

use alloy::primitives::U256;
use anyhow::bail;
use clap::{Args, Subcommand};
use serde_json::json;

use super::session::{Common, Session, print, wei, with_tx};
use crate::chain::{ChainError, reader};

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

async fn credits(account: &Session) -> Result<U256, ChainError> {
    reader::credits(&account.provider, account.oracle, account.address()).await
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
    let account = Session::open(&common.config).await?;
    let credits = credits(&account).await?;
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
    let account = Session::open(&common.config).await?;
    let credits = credits(&account).await?;
    if credits.is_zero() {
        bail!(
            "nothing to withdraw: {} has no credits on oracle {} (no transaction sent)",
            account.address(),
            account.oracle
        );
    }
    let call = account.view().withdraw().into_transaction_request();
    let sent = account.send("withdraw", call).await?;
    let amount = sent
        .expect_event::<crate::chain::IVeritasOracle::Withdrawn>()?
        .amount;
    let wallet = account.wallet().await?;
    let value = json!({"operator": account.address(), "oracle": account.oracle,
                       "withdrawn": amount.to_string(), "wallet": wallet.to_string()});
    print(
        common.json,
        &with_tx(value, &sent),
        &[
            format!("withdrew {}", wei(amount)),
            sent.line(),
            format!("wallet   {}", wei(wallet)),
        ],
    );
    Ok(())
}
