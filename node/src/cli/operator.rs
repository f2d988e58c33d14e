//! `veritas operator`: the operator's unpaid credits (fees and won bonds), its stake (locked by
//! unsettled reports, and what was slashed: by the court, or a commit never revealed), posting
//! and taking back the stake, and the withdrawal of its credits.
//!
//! ```text
//! veritas operator balance                  # credits, stake (free and locked) and wallet
//! veritas operator stake 0.05               # post 0.05 ETH of stake (each report locks a bond)
//! veritas operator unstake 0.02             # the free part back to credits (`all`: every free wei)
//! veritas operator withdraw                 # pull every credit; refuses when there is none
//! VERITAS_PRIVATE_KEY=0x... veritas operator balance --rpc http://127.0.0.1:8545 --oracle 0x5FbD...
//! ```
//!
//! The key comes from where `veritas run` takes it (`VERITAS_PRIVATE_KEY`, or `keys.keystore`),
//! so the account is the node's own operator address.

use alloy::primitives::{Address, U256};
use anyhow::bail;
use clap::{Args, Subcommand};
use serde_json::json;

use super::output::{Output, Refused};
use super::session::{Common, Session, refused, wei, with_tx};
use crate::chain::ViewCall;
use crate::{
    chain::ChainError,
    contract::{reader, roles},
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
    /// Add AMOUNT to the stake (`stake(operator)` with that value). Each report locks its
    /// question's report bond of the free stake until the question settles; a node without a
    /// free bond waits instead of reporting.
    ///
    /// Example: `veritas operator stake 0.05`
    Stake(StakeArgs),
    /// Take AMOUNT of the free (unlocked) stake back (`withdrawStake`): credited at once, sent
    /// by `veritas operator withdraw`. `all` takes every free wei.
    ///
    /// Example: `veritas operator unstake all && veritas operator withdraw`
    Unstake(UnstakeArgs),
}

/// `veritas operator stake` arguments.
#[derive(Debug, Args)]
pub struct StakeArgs {
    /// ETH to add (`0.05`), or exact wei with a `wei` suffix (`50000000000000000wei`).
    #[arg(value_parser = parse_amount)]
    pub amount: U256,
    /// The operator to fund (anyone may fund any operator; default: this key's address).
    #[arg(long = "for")]
    pub operator: Option<Address>,
    /// The options.
    #[command(flatten)]
    pub common: Common,
}

/// `veritas operator unstake` arguments.
#[derive(Debug, Args)]
pub struct UnstakeArgs {
    /// ETH to take back (`0.02`), exact wei with a `wei` suffix, or `all` (the whole free part).
    pub amount: String,
    /// The options.
    #[command(flatten)]
    pub common: Common,
}

/// An amount of ether: decimal ETH (`0.05`, `1`) or wei with a `wei` suffix.
///
/// # Errors
/// Not a number, more than 18 decimals, or negative.
pub fn parse_amount(s: &str) -> Result<U256, String> {
    let text = s.trim();
    if text.starts_with('-') {
        return Err(format!("{s:?} is negative: an amount is at least 0"));
    }
    let parsed = match text.strip_suffix("wei") {
        Some(wei) => wei.trim().parse::<U256>().map_err(|e| e.to_string()),
        None => alloy::primitives::utils::parse_ether(text.trim_end_matches("ETH").trim())
            .map_err(|e| e.to_string()),
    };
    parsed.map_err(|e| {
        format!("{s:?} is not an amount (ETH as 0.05, or wei as 50000000000000000wei): {e}")
    })
}

async fn credits(account: &Session) -> Result<U256, ChainError> {
    reader::credits(&account.provider, account.oracle, account.address()).await
}

/// Run `veritas operator <action>`.
///
/// # Errors
/// Configuration, key, RPC and contract errors; `withdraw` with nothing to withdraw.
pub async fn run(args: OperatorArgs) -> anyhow::Result<Output> {
    match args.action {
        Action::Balance(common) => balance(&common).await,
        Action::Withdraw(common) => withdraw(&common).await,
        Action::Stake(args) => stake(&args).await,
        Action::Unstake(args) => unstake(&args).await,
    }
}

async fn balance(common: &Common) -> anyhow::Result<Output> {
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
    let value = json!({"operator": account.address(), "oracle": account.oracle,
           "credits": credits.to_string(), "wallet": wallet.to_string(),
           "stake": stake.staked.to_string(), "locked": stake.locked.to_string(),
           "free": stake.staked.saturating_sub(stake.locked).to_string(),
           "open_reports": stake.open_reports.to_string(),
           "slashed": stake.slashed.to_string(), "slashings": stake.slashings,
           "unrevealed_commits_slashed": stake.unrevealed_commits});
    let unrevealed = match stake.unrevealed_commits {
        0 => String::new(),
        n => format!("; {n} of them a commit not revealed in time"),
    };
    Ok(Output::lines(
        value,
        &[
            format!("operator {}", account.address()),
            format!("oracle   {}", account.oracle),
            format!("credits  {}", wei(credits)),
            format!(
                "stake    {} ({} locked by {} unsettled reports; {} free)",
                wei(stake.staked),
                wei(stake.locked),
                stake.open_reports,
                wei(stake.staked.saturating_sub(stake.locked))
            ),
            format!(
                "slashed  {} ({} times{unrevealed})",
                wei(stake.slashed),
                stake.slashings
            ),
            format!("wallet   {}", wei(wallet)),
        ],
    ))
}

async fn withdraw(common: &Common) -> anyhow::Result<Output> {
    let account = Session::open(&common.config).await?;
    let credits = credits(&account).await?;
    if credits.is_zero() {
        // The contract's rule (withdraw reverts with nothing to withdraw): a refusal.
        return Err(Refused(format!(
            "nothing to withdraw: {} has no credits on oracle {} (no transaction sent)",
            account.address(),
            account.oracle
        ))
        .into());
    }
    let call = account.view().withdraw().into_transaction_request();
    let sent = account.send("withdraw", call).await?;
    let amount = sent
        .expect_event::<crate::contract::IVeritasOracle::Withdrawn>()?
        .amount;
    let wallet = account.wallet().await?;
    let value = json!({"operator": account.address(), "oracle": account.oracle,
                       "withdrawn": amount.to_string(), "wallet": wallet.to_string()});
    Ok(Output::lines(
        with_tx(value, &sent),
        &[
            format!("withdrew {}", wei(amount)),
            sent.line(),
            format!("wallet   {}", wei(wallet)),
        ],
    ))
}

/// The stake view (`operatorStake`) of `operator`: (staked, locked).
async fn stake_of(account: &Session, operator: Address) -> anyhow::Result<(U256, U256)> {
    let view = account
        .view()
        .operatorStake(operator)
        .view("operatorStake")
        .await?;
    Ok((view.staked, view.locked))
}

async fn stake(args: &StakeArgs) -> anyhow::Result<Output> {
    let account = Session::open(&args.common.config).await?;
    let operator = args.operator.unwrap_or_else(|| account.address());
    let (staked, _) = stake_of(&account, operator).await?;
    roles::stake_total(operator, staked, args.amount).map_err(refused)?;
    let wallet = account.wallet().await?;
    if wallet < args.amount {
        bail!(
            "{} holds {}, less than the {} to stake (no transaction sent)",
            account.address(),
            wei(wallet),
            wei(args.amount)
        );
    }
    let call = account
        .view()
        .stake(operator)
        .value(args.amount)
        .into_transaction_request();
    let sent = account.send("stake", call).await?;
    let event = sent.expect_event::<crate::contract::IVeritasOracle::Staked>()?;
    let (staked, locked) = stake_of(&account, operator).await?;
    let value = json!({"operator": operator, "oracle": account.oracle,
                       "staked_now": event.amount.to_string(), "stake": staked.to_string(),
                       "locked": locked.to_string(),
                       "free": staked.saturating_sub(locked).to_string()});
    Ok(Output::lines(
        with_tx(value, &sent),
        &[
            format!("staked   {} for {operator}", wei(event.amount)),
            sent.line(),
            format!(
                "stake    {} ({} free)",
                wei(staked),
                wei(staked.saturating_sub(locked))
            ),
        ],
    ))
}

async fn unstake(args: &UnstakeArgs) -> anyhow::Result<Output> {
    let account = Session::open(&args.common.config).await?;
    let operator = account.address();
    let (staked, locked) = stake_of(&account, operator).await?;
    let free = staked.saturating_sub(locked);
    let amount = if args.amount.trim() == "all" {
        if free.is_zero() {
            return Err(Refused(format!(
                "nothing to unstake: {operator} has no free stake on oracle {} ({} staked, {} locked by unsettled reports; no transaction sent)",
                account.oracle,
                wei(staked),
                wei(locked)
            ))
            .into());
        }
        free
    } else {
        parse_amount(&args.amount).map_err(anyhow::Error::msg)?
    };
    roles::can_unstake(operator, staked, locked, amount).map_err(refused)?;
    let call = account
        .view()
        .withdrawStake(amount)
        .into_transaction_request();
    let sent = account.send("withdrawStake", call).await?;
    let event = sent.expect_event::<crate::contract::IVeritasOracle::StakeWithdrawn>()?;
    let credits = credits(&account).await?;
    let value = json!({"operator": operator, "oracle": account.oracle,
                       "unstaked": event.amount.to_string(), "stake": event.stake.to_string(),
                       "credits": credits.to_string()});
    Ok(Output::lines(
        with_tx(value, &sent),
        &[
            format!(
                "unstaked {} (credited; `veritas operator withdraw` sends it)",
                wei(event.amount)
            ),
            sent.line(),
            format!("stake    {}", wei(event.stake)),
            format!("credits  {}", wei(credits)),
        ],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_read_as_ether_or_wei() {
        let milli = U256::from(1_000_000_000_000_000u64);
        assert_eq!(parse_amount("0.001"), Ok(milli));
        assert_eq!(parse_amount("0.001 ETH"), Ok(milli));
        assert_eq!(parse_amount("1000000000000000wei"), Ok(milli));
        assert_eq!(parse_amount("1"), Ok(milli * U256::from(1000)));
        assert!(parse_amount("lots").is_err());
        assert!(parse_amount("-1").is_err());
    }
}
