//! What every role's command shares: the account and the oracle from the node's configuration
//! and key (exactly as `veritas run` takes them), the chain's clock, and the one way a
//! transaction leaves: refused locally with the contract's sentence, simulated (`eth_call` of
//! the very transaction, a revert explained), then sent and its receipt summarised.

use alloy::{
    eips::BlockId,
    network::{EthereumWallet, TransactionBuilder},
    primitives::{Address, B256, U256},
    providers::{DynProvider, Provider, ProviderBuilder},
    rpc::types::{TransactionReceipt, TransactionRequest},
    sol_types::SolEvent,
};
use anyhow::{Context, bail};
use clap::Args;
use serde_json::{Value, json};

use super::{output::Refused, run::ConfigArgs};
use crate::chain::ViewCall;
use crate::{
    chain::{self, ChainError, ChainProvider},
    config::{self, Config},
    contract::{
        IVeritasOracle, explain,
        plan::{self, Action, Plan, PlanError},
        reader,
        roles::Refusal,
    },
};

pub use crate::contract::plan::{small, utc, wei};

/// The options every role's command takes (`--json` is global: [`super::Cli`]).
#[derive(Debug, Clone, Args)]
pub struct Common {
    #[command(flatten)]
    /// Where the configuration comes from.
    pub config: ConfigArgs,
}

/// The arguments of a command about one question: its id and the common options.
#[derive(Debug, Clone, Args)]
pub struct QuestionArgs {
    /// The question id.
    pub id: U256,
    /// The options.
    #[command(flatten)]
    pub common: Common,
}

/// The account, its oracle, a read-only provider and a signing one.
pub struct Session {
    /// The loaded configuration.
    pub config: Config,
    /// The key's account.
    pub signer: alloy::signers::local::PrivateKeySigner,
    /// Views and logs (bounded answers, retried transport errors).
    pub provider: ChainProvider,
    /// Signs, fills the nonce, gas and fees, and sends.
    pub sender: DynProvider,
    /// The oracle.
    pub oracle: Address,
    /// The block the node starts reading at (the deployment's).
    pub from_block: u64,
}

impl Session {
    /// Load the configuration and the key, check the chain id, and find the oracle.
    ///
    /// # Errors
    /// Configuration, key, RPC, wrong chain, no contract at the oracle address.
    pub async fn open(args: &ConfigArgs) -> anyhow::Result<Self> {
        let config = args.load(Vec::new())?;
        let signer = config::load_signer(&config.keys)?;
        let provider = chain::connect(&config.chain.rpc_url, config.chain.rpc_timeout)?;
        let chain_id = chain::check_chain_id(&provider, config.chain.chain_id)
            .await
            .with_context(|| format!("cannot use the RPC at {}", config.chain.rpc_url))?;
        let oracle = config.oracle_address(chain_id)?;
        reader::ensure_contract(&provider, oracle, BlockId::latest()).await?;
        let from_block = config::start_block(&config, chain_id);
        let url: reqwest::Url = config.chain.rpc_url.parse().context("chain.rpc_url")?;
        let sender = ProviderBuilder::new()
            .wallet(EthereumWallet::from(signer.clone()))
            .connect_http(url)
            .erased();
        Ok(Self {
            config,
            signer,
            provider,
            sender,
            oracle,
            from_block,
        })
    }

    /// The key's address.
    pub fn address(&self) -> Address {
        self.signer.address()
    }

    /// The oracle, for views.
    pub fn view(&self) -> IVeritasOracle::IVeritasOracleInstance<&ChainProvider> {
        IVeritasOracle::new(self.oracle, &self.provider)
    }

    /// `verdictStatus(id)` (never reverts: `None` for an unknown id).
    ///
    /// # Errors
    /// RPC.
    pub async fn status(&self, id: U256) -> Result<IVeritasOracle::VerdictStatus, ChainError> {
        self.view().verdictStatus(id).view("verdictStatus").await
    }

    /// The chain's clock: the latest block's timestamp (what the contract compares with).
    ///
    /// # Errors
    /// RPC.
    pub async fn now(&self) -> Result<u64, ChainError> {
        Ok(chain::latest_block(&self.provider).await?.1)
    }

    /// The account's balance.
    ///
    /// # Errors
    /// RPC.
    pub async fn wallet(&self) -> Result<U256, ChainError> {
        self.provider
            .get_balance(self.address())
            .await
            .map_err(|e| ChainError::rpc("eth_getBalance", e))
    }

    /// Plan `action` on question `id` from this account ([`plan::plan`]: the views at one
    /// block, then the contract's rule).
    ///
    /// # Errors
    /// The contract's refusal (exit 2, nothing sent), RPC.
    pub async fn plan(&self, id: U256, action: &Action) -> anyhow::Result<Plan> {
        match plan::plan(&self.provider, self.oracle, id, self.address(), action).await {
            Ok(plan) => Ok(plan),
            Err(PlanError::Refused(refusal)) => Err(refused(refusal)),
            Err(PlanError::Chain(e)) => Err(e.into()),
        }
    }

    /// Simulate and send what `plan` planned (its call to the oracle, its value).
    ///
    /// # Errors
    /// As [`Self::send`].
    pub async fn send_plan(&self, plan: &Plan) -> anyhow::Result<Sent> {
        let tx = TransactionRequest::default()
            .with_to(self.oracle)
            .with_input(plan.call.calldata())
            .with_value(plan.value);
        self.send(plan.call.function(), tx).await
    }

    /// Simulate `tx` from this account (`eth_call` on the latest block) and send it only when
    /// the simulation passes; waits for the receipt and refuses a reverted one.
    ///
    /// # Errors
    /// The contract's sentence when the simulation reverts (nothing is sent), RPC errors, a
    /// reverted receipt.
    pub async fn send(&self, op: &'static str, tx: TransactionRequest) -> anyhow::Result<Sent> {
        let tx = tx.with_from(self.address());
        if let Err(e) = self.sender.call(tx.clone()).await {
            let explained = e
                .as_error_resp()
                .and_then(alloy::rpc::json_rpc::ErrorPayload::as_revert_data)
                .and_then(|data| explain::explain_revert(&data));
            // A revert is the contract's rules refusing (exit 2); no revert data is a failure
            // to simulate at all (RPC, funds for gas: exit 1).
            let revert = e
                .as_error_resp()
                .and_then(alloy::rpc::json_rpc::ErrorPayload::as_revert_data);
            match (explained, revert) {
                (Some(why), _) => {
                    return Err(Refused(format!(
                        "{op} would revert: {why} (simulated; no transaction sent)"
                    ))
                    .into());
                }
                (None, Some(data)) => {
                    return Err(Refused(format!(
                        "{op} would revert with {data} (simulated; no transaction sent)"
                    ))
                    .into());
                }
                (None, None) => bail!("{op} would fail: {e} (simulated; no transaction sent)"),
            }
        }
        let receipt = self
            .sender
            .send_transaction(tx)
            .await
            .map_err(|e| ChainError::rpc("eth_sendTransaction", e))?
            .get_receipt()
            .await
            .with_context(|| format!("waiting for the {op} receipt"))?;
        if !receipt.status() {
            return Err(Refused(format!(
                "{op} transaction {} reverted",
                receipt.transaction_hash
            ))
            .into());
        }
        Ok(Sent { receipt })
    }
}

/// A mined transaction.
pub struct Sent {
    /// Its receipt.
    pub receipt: TransactionReceipt,
}

impl Sent {
    /// Its hash.
    pub fn tx(&self) -> B256 {
        self.receipt.transaction_hash
    }

    /// What its gas cost: gasUsed × effectiveGasPrice.
    pub fn gas_fee(&self) -> U256 {
        U256::from(self.receipt.gas_used) * U256::from(self.receipt.effective_gas_price)
    }

    /// The first event `E` of the receipt.
    pub fn event<E: SolEvent>(&self) -> Option<E> {
        self.receipt
            .inner
            .logs()
            .iter()
            .find_map(|log| log.log_decode::<E>().ok())
            .map(|log| log.inner.data)
    }

    /// The first event `E`, or an error naming it.
    ///
    /// # Errors
    /// When the receipt has none.
    pub fn expect_event<E: SolEvent>(&self) -> anyhow::Result<E> {
        self.event::<E>()
            .ok_or_else(|| anyhow::anyhow!("no {} event in {}", E::SIGNATURE, self.tx()))
    }

    /// The JSON fields every command prints about its transaction.
    pub fn json(&self) -> Value {
        json!({"tx": self.tx(), "block": self.receipt.block_number,
               "gas_used": self.receipt.gas_used, "gas_fee": self.gas_fee().to_string()})
    }

    /// The human line about its transaction.
    pub fn line(&self) -> String {
        format!(
            "tx       {} (block {}, gas used {}, fee {})",
            self.tx(),
            self.receipt.block_number.unwrap_or_default(),
            self.receipt.gas_used,
            wei(self.gas_fee())
        )
    }
}

/// A local refusal as the command's error (exit code 2): the contract's sentence, and that
/// nothing was sent.
pub fn refused(refusal: Refusal) -> anyhow::Error {
    Refused(format!(
        "{refusal} (checked before sending; no transaction sent)"
    ))
    .into()
}

/// `Value` with `sent`'s transaction fields merged in.
pub fn with_tx(mut value: Value, sent: &Sent) -> Value {
    if let (Some(map), Value::Object(tx)) = (value.as_object_mut(), sent.json()) {
        map.extend(tx);
    }
    value
}
