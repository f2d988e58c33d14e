//! `veritas ask`: ask the oracle a question on-chain, with its rules pinned, and print its id.
//!
//! ```text
//! VERITAS_PRIVATE_KEY=0x... veritas ask "Did the 2025 Ljubljana marathon start on time?"
//! veritas ask "Will it rain in Paris on 2026-12-01?" --resolve-after 10d
//! veritas ask "Did it happen?" --callback 0xConsumer --callback-gas 200000 --parameters 3 --json
//! ```
//!
//! The ask pins the parameter set and operator epoch (read just before sending, or given with
//! `--parameters`/`--epoch`): a rule change mined in between makes the ask revert instead of
//! binding the question to rules its asker never saw. It pays the pinned set's ask fee (or
//! `--fee`, at least that).

use std::time::Duration;

use alloy::primitives::{Address, U256};
use clap::Args;
use serde_json::json;

use super::output::Output;
use super::session::{Common, Sent, Session, refused, utc, wei, with_tx};
use crate::chain::ViewCall;
use crate::{
    chain, contract,
    contract::{
        IVeritasOracle,
        roles::{self, AskState},
    },
};

/// `veritas ask` arguments.
#[derive(Debug, Args)]
pub struct AskArgs {
    /// The question (UTF-8, at most the contract's MAX_QUESTION_LENGTH bytes).
    pub question: String,
    /// Earliest time a verdict may be posted, from the chain's latest block (e.g. `10m`, `3d`);
    /// evidence is taken until then.
    #[arg(long, value_parser = humantime::parse_duration)]
    pub resolve_after: Option<Duration>,
    /// The parameter set the ask expects (default: the one in force).
    #[arg(long)]
    pub parameters: Option<u16>,
    /// The operator epoch the ask expects (default: the one in force).
    #[arg(long)]
    pub epoch: Option<u32>,
    /// A contract to call back on the question's outcome (`IVeritasConsumer`).
    #[arg(long, requires = "callback_gas")]
    pub callback: Option<Address>,
    /// Gas for the callback (1..MAX_CALLBACK_GAS).
    #[arg(long, requires = "callback")]
    pub callback_gas: Option<u32>,
    /// What to pay, as ETH (`0.001`) or wei (`1000000000000000wei`), like every amount flag
    /// (default: the pinned set's ask fee; more is kept for the operators). With `--callback`
    /// the command adds the callback's prepaid gas, and the contract takes everything above the
    /// ask fee as that deposit: it goes to whoever delivers the final status.
    #[arg(long, value_parser = super::operator::parse_amount)]
    pub fee: Option<U256>,
    #[command(flatten)]
    common: Common,
}

/// Ask, paying the fee, and print the id and the rules the question is bound to.
///
/// # Errors
/// Configuration, key, RPC; the contract's refusal (checked locally, then simulated).
pub async fn run(args: AskArgs) -> anyhow::Result<Output> {
    let session = Session::open(&args.common.config).await?;
    let oracle = session.view();
    let in_force = contract::reader::current_rules(&oracle).await?;
    let rules = IVeritasOracle::AskRules {
        parametersId: args.parameters.unwrap_or(in_force.parametersId),
        operatorEpoch: args.epoch.unwrap_or(in_force.operatorEpoch),
        consumer: args.callback.unwrap_or_default(),
        callbackGasLimit: args.callback_gas.unwrap_or_default(),
    };
    let parameters = oracle
        .parameterSet(rules.parametersId)
        .view("parameterSet")
        .await?;
    let now = session.now().await?;
    let horizon = oracle.maxHorizon().view("maxHorizon").await?;
    // What only a callback needs (its contract's code, the gas limits, the price its gas is
    // prepaid at: the node's suggestion), read only when the ask names one.
    let callback = match args.callback {
        None => None,
        Some(consumer) => Some(callback_reads(&session, consumer).await?),
    };
    let (consumer_has_code, gas_price, max_callback_gas, callback_gas_overhead) =
        callback.unwrap_or((false, 0, 0, 0));
    let max_question_length = oracle
        .MAX_QUESTION_LENGTH()
        .view("MAX_QUESTION_LENGTH")
        .await?;
    let state = AskState {
        max_question_length: capped(max_question_length),
        max_callback_gas,
        ask_fee: U256::from(parameters.askFee),
        consumer_has_code,
        latest_resolve_after: now.saturating_add(capped(horizon)),
        callback_gas_overhead,
        gas_price,
    };
    let resolve_after = args.resolve_after.map_or(0, |d| now + d.as_secs());
    let paid = roles::ask_payment(args.question.len(), resolve_after, &rules, &state, args.fee)
        .map_err(refused)?;
    let mut call = oracle
        .askQuestion(args.question, resolve_after, rules.clone())
        .value(paid)
        .into_transaction_request();
    if args.callback.is_some() {
        // The deposit is priced at `tx.gasprice`: a fee cap equal to the tip makes it exact.
        call = call
            .max_fee_per_gas(gas_price)
            .max_priority_fee_per_gas(gas_price);
    }
    let sent = session.send("askQuestion", call).await?;
    let asked = sent.expect_event::<IVeritasOracle::QuestionAsked>()?;
    // With a consumer, the contract keeps everything above the ask fee as the callback's deposit.
    let deposit = if asked.consumer == Address::ZERO {
        U256::ZERO
    } else {
        asked.paid.saturating_sub(U256::from(parameters.askFee))
    };
    Ok(printed(&asked, &parameters, deposit, &sent))
}

/// What only a callback needs, read when the ask names one: whether `consumer` has code, the
/// price its gas is prepaid at (the node's suggestion), `MAX_CALLBACK_GAS` and
/// `CALLBACK_GAS_OVERHEAD`.
async fn callback_reads(
    session: &Session,
    consumer: Address,
) -> anyhow::Result<(bool, u128, u64, u64)> {
    let oracle = session.view();
    let provider = &session.provider;
    let has_code = !alloy::providers::Provider::get_code_at(provider, consumer)
        .await
        .map_err(|e| chain::ChainError::rpc("eth_getCode", e))?
        .is_empty();
    let gas_price = alloy::providers::Provider::get_gas_price(provider)
        .await
        .map_err(|e| chain::ChainError::rpc("eth_gasPrice", e))?;
    let max_gas = oracle.MAX_CALLBACK_GAS().view("MAX_CALLBACK_GAS").await?;
    let overhead = oracle
        .CALLBACK_GAS_OVERHEAD()
        .view("CALLBACK_GAS_OVERHEAD")
        .await?;
    Ok((has_code, gas_price, capped(max_gas), capped(overhead)))
}

/// The ask's result: its JSON, the id alone on stdout (scripts read it), and what it is bound
/// to on stderr.
fn printed(
    asked: &IVeritasOracle::QuestionAsked,
    parameters: &IVeritasOracle::Parameters,
    deposit: U256,
    sent: &Sent,
) -> Output {
    let value = json!({"id": asked.id.to_string(), "asker": asked.asker,
        "question_hash": asked.questionHash, "resolve_after": asked.resolveAfter,
        "paid": asked.paid.to_string(), "parameters_id": asked.parametersId,
        "operator_epoch": asked.operatorEpoch, "arbitrator": parameters.arbitrator,
        "quorum": parameters.quorum, "challenge_window": parameters.challengeWindow,
        "dispute_bond": parameters.disputeBond.to_string(),
        "evidence_fee": parameters.evidenceFee.to_string(),
        "consumer": asked.consumer, "callback_gas": asked.callbackGasLimit,
        "callback_deposit": deposit.to_string()});
    let callback = if asked.consumer == Address::ZERO {
        "none".to_string()
    } else {
        format!(
            "{} with {} gas, {} prepaid for it",
            asked.consumer,
            asked.callbackGasLimit,
            wei(deposit)
        )
    };
    let notes = [
        format!("paid     {}", wei(asked.paid)),
        format!(
            "rules    parameter set {}, operator epoch {}, quorum {}, court {}",
            asked.parametersId, asked.operatorEpoch, parameters.quorum, parameters.arbitrator
        ),
        format!(
            "money    dispute bond {}, evidence fee {}, challenge window {} s",
            wei(U256::from(parameters.disputeBond)),
            wei(U256::from(parameters.evidenceFee)),
            parameters.challengeWindow
        ),
        format!(
            "reports  from {}",
            utc(asked.resolveAfter.max(asked.askedAt))
        ),
        format!("callback {callback}"),
        sent.line(),
    ];
    Output::lines(with_tx(value, sent), &[asked.id.to_string()]).with_notes(&notes)
}

/// A contract's uint256 bound as a u64; a value beyond u64 is no bound at all.
fn capped(value: U256) -> u64 {
    u64::try_from(value).unwrap_or(u64::MAX)
}
