//! The on-chain checks: the RPC and its chain, the oracle's code, the key's place among the
//! operators, its stake against the reports it will have open, and its balance against the gas.

use alloy::{
    eips::BlockId,
    primitives::{Address, U256, utils::format_ether},
    providers::Provider,
};

use super::{Check, DoctorArgs, Status, fail, ok, skip};
use crate::{
    chain::{self, ChainProvider},
    config::Config,
    contract::{IVeritasOracle, reader},
};

/// The checks that read the chain: skipped, each by name, when the RPC is unusable.
const NEEDS_RPC: [&str; 6] = [
    "chain_id",
    "oracle",
    "deploy_block",
    "operator",
    "stake",
    "balance",
];
/// RPC, chain id, oracle code, operator, stake and balance, in order; each skipped when what it
/// needs failed.
pub(super) async fn checks(
    config: &Config,
    args: &DoctorArgs,
    operator: Option<Address>,
) -> Vec<Check> {
    let mut out = Vec::new();
    let url = &config.chain.rpc_url;
    let provider = match chain::connect(url, config.chain.rpc_timeout) {
        Ok(p) => p,
        Err(e) => {
            return rpc_unusable(fail(
                "rpc",
                e.to_string(),
                "set chain.rpc_url (or VERITAS__CHAIN__RPC_URL) to an HTTP JSON-RPC URL",
            ));
        }
    };
    // Reachability first (any chain), then whether it is the configured one.
    let actual = match chain::check_chain_id(&provider, None).await {
        Ok(id) => id,
        Err(e) => {
            return rpc_unusable(fail(
                "rpc",
                format!("{url}: {e}"),
                "start the chain node or check chain.rpc_url, the network and the provider's key",
            ));
        }
    };
    let head = provider.get_block_number().await.unwrap_or_default();
    out.push(ok(
        "rpc",
        format!("{url} answers: chain {actual}, block {head}"),
    ));
    let chain_id = chain_id_check(config, &provider, actual).await;
    let configured = chain_id.status == Status::Ok;
    out.push(chain_id);
    if !configured {
        for name in ["oracle", "deploy_block", "operator", "stake", "balance"] {
            out.push(skip(name, "needs the configured chain"));
        }
        return out;
    }
    out.extend(oracle_checks(config, args, &provider, actual, operator).await);
    out
}

/// The RPC's failure, then every check that reads the chain, skipped.
fn rpc_unusable(failure: Check) -> Vec<Check> {
    let mut out = vec![failure];
    for name in NEEDS_RPC {
        out.push(skip(name, "needs the RPC"));
    }
    out
}

/// Whether the RPC's chain (`actual`) is the configured `chain.chain_id` (any, when unset).
async fn chain_id_check(config: &Config, provider: &ChainProvider, actual: u64) -> Check {
    match chain::check_chain_id(provider, config.chain.chain_id).await {
        Ok(_) if config.chain.chain_id.is_none() => ok(
            "chain_id",
            format!("chain {actual} (chain.chain_id is not set: any chain is taken)"),
        ),
        Ok(_) => ok("chain_id", format!("chain {actual} as configured")),
        Err(e) => fail(
            "chain_id",
            e.to_string(),
            format!(
                "point chain.rpc_url at a node of chain {}, or set chain.chain_id = {actual} if this is the chain you mean",
                config.chain.chain_id.unwrap_or_default()
            ),
        ),
    }
}

/// The oracle's address and code, the deploy block, the operator, its stake and the key's
/// balance, on chain `actual` (the configured one); each skipped when what it needs failed.
async fn oracle_checks(
    config: &Config,
    args: &DoctorArgs,
    provider: &ChainProvider,
    actual: u64,
    operator: Option<Address>,
) -> Vec<Check> {
    let mut out = Vec::new();
    let oracle = match config.oracle_address(actual) {
        Ok(a) => a,
        Err(e) => {
            out.push(fail(
                "oracle",
                e.to_string(),
                "set chain.oracle (or --oracle) to the VeritasOracle address",
            ));
            out.push(skip("deploy_block", "needs the oracle"));
            out.push(skip("operator", "needs the oracle"));
            out.push(skip("stake", "needs the oracle"));
            out.push(balance_check(provider, args, operator).await);
            return out;
        }
    };
    match reader::ensure_contract(provider, oracle, BlockId::latest()).await {
        Ok(()) => out.push(ok("oracle", format!("code at {oracle}"))),
        Err(e) => {
            out.push(fail(
                "oracle",
                e.to_string(),
                format!("set chain.oracle to the oracle deployed on chain {actual}"),
            ));
            out.push(skip("deploy_block", "needs the oracle"));
            out.push(skip("operator", "needs the oracle"));
            out.push(skip("stake", "needs the oracle"));
            out.push(balance_check(provider, args, operator).await);
            return out;
        }
    }
    out.push(deploy_block_check(config, actual));
    let operator_check = operator_check(provider, oracle, operator).await;
    let is_operator = operator_check.status == Status::Ok;
    out.push(operator_check);
    if is_operator {
        out.push(stake_check(provider, oracle, args, operator).await);
    } else {
        out.push(skip("stake", "needs an operator key"));
    }
    out.push(balance_check(provider, args, operator).await);
    out
}

/// Where the watcher starts: `chain.start_block`, or the deployment record's `deployBlock`.
/// Without either it scans from block 0, which on a public chain is millions of blocks of
/// `eth_getLogs` before the first question (and many providers cap the range). A bare
/// `forge script` writes the record without `deployBlock`; `script/record-deployment.js` adds
/// it from forge's broadcast receipts.
fn deploy_block_check(config: &Config, chain_id: u64) -> Check {
    if config.chain.start_block != 0 {
        return ok(
            "deploy_block",
            format!(
                "the watcher starts at block {} (chain.start_block)",
                config.chain.start_block
            ),
        );
    }
    if config.chain.oracle.is_some() {
        return fail(
            "deploy_block",
            "chain.oracle is set and chain.start_block is 0: the watcher would scan from block 0",
            "set chain.start_block to the oracle's deployment block (the deployBlock of its deployments/<chainId>.json)",
        );
    }
    let path = config
        .chain
        .deployments_dir
        .join(format!("{chain_id}.json"));
    let block = crate::config::start_block(config, chain_id);
    if block != 0 {
        return ok(
            "deploy_block",
            format!(
                "the watcher starts at block {block} (deployBlock of {})",
                path.display()
            ),
        );
    }
    fail(
        "deploy_block",
        format!(
            "{} has no deployBlock: the watcher would scan from block 0",
            path.display()
        ),
        format!(
            "run `node script/record-deployment.js {chain_id}` in the repository the deployment was made from (it reads broadcast/Deploy.s.sol/{chain_id}/run-latest.json), or set chain.start_block"
        ),
    )
}

async fn operator_check(
    provider: &ChainProvider,
    oracle: Address,
    operator: Option<Address>,
) -> Check {
    let Some(operator) = operator else {
        return skip("operator", "needs the key");
    };
    let contract = IVeritasOracle::new(oracle, provider);
    let epoch = contract.operatorEpoch().call().await;
    let active = contract.isOperator(operator).call().await;
    match (active, epoch) {
        (Ok(true), Ok(epoch)) => ok(
            "operator",
            format!("{operator} is an operator of epoch {epoch}"),
        ),
        (Ok(false), Ok(epoch)) => fail(
            "operator",
            format!("{operator} is not an operator of the current epoch ({epoch})"),
            format!(
                "the oracle's owner calls addOperator({operator}) (a new epoch: the key reports on questions asked from then on), or run with the key that was added"
            ),
        ),
        (Err(e), _) | (_, Err(e)) => fail(
            "operator",
            format!("isOperator/operatorEpoch: {e}"),
            "check that chain.oracle is a VeritasOracle v3",
        ),
    }
}

/// Whether the free stake backs the reports the node will have open at once. Each report locks
/// the bond of the set in force (`disputeBond` in whole `BOND_UNIT`s, nothing when the set has no
/// challenge window) until its question settles, a challenge window later at the earliest; at
/// `--reports-per-day` that is `reports_per_day × challengeWindow / 1 day` reports open at a
/// time (Little's law), and never fewer than one. A report without a free bond reverts, and the
/// node skips the question (`canReport`) instead of running its committee.
async fn stake_check(
    provider: &ChainProvider,
    oracle: Address,
    args: &DoctorArgs,
    operator: Option<Address>,
) -> Check {
    let Some(operator) = operator else {
        return skip("stake", "needs the key");
    };
    let (params, unit, view) = match read_stake(provider, oracle, operator).await {
        Ok(read) => read,
        Err(e) => {
            return fail(
                "stake",
                format!("parameters/BOND_UNIT/operatorStake: {e}"),
                "check that chain.oracle is a VeritasOracle v3 with stakes",
            );
        }
    };
    let free = view.staked.saturating_sub(view.locked);
    let bond = crate::contract::reader::report_bond(&params, unit);
    if bond.is_zero() {
        return ok(
            "stake",
            format!(
                "{} ETH free; the set in force bonds nothing per report (no challenge window, or a dispute bond below BOND_UNIT)",
                ether(free)
            ),
        );
    }
    let open = open_at_once(args.reports_per_day, params.challengeWindow);
    let need = bond.saturating_mul(U256::from(open));
    let detail = format!(
        "{} ETH free ({} ETH locked by {} unsettled reports); {open} reports open at once x {} ETH bond = {} ETH",
        ether(free),
        ether(view.locked),
        view.openReports,
        ether(bond),
        ether(need)
    );
    if free >= need {
        ok("stake", detail)
    } else {
        fail(
            "stake",
            detail,
            format!(
                "run `veritas operator stake {}` with this configuration and key (anyone may fund the operator: add `--for {operator}` with another key); `veritas operator unstake` takes the free part back",
                ether(need - free)
            ),
        )
    }
}

/// The parameter set in force, its bond unit and the operator's stake, read together.
async fn read_stake(
    provider: &ChainProvider,
    oracle: Address,
    operator: Address,
) -> Result<
    (
        IVeritasOracle::Parameters,
        U256,
        IVeritasOracle::operatorStakeReturn,
    ),
    alloy::contract::Error,
> {
    let contract = IVeritasOracle::new(oracle, provider);
    let params = contract.parameters().call().await?;
    let unit = contract.BOND_UNIT().call().await?;
    let view = contract.operatorStake(operator).call().await?;
    Ok((params, unit, view))
}

/// Reports open at once at `reports_per_day`, each open for `challenge_window` seconds
/// (Little's law), and never fewer than one.
fn open_at_once(reports_per_day: u64, challenge_window: impl Into<u128>) -> u128 {
    (u128::from(reports_per_day) * challenge_window.into())
        .div_ceil(86_400)
        .max(1)
}

async fn balance_check(
    provider: &ChainProvider,
    args: &DoctorArgs,
    operator: Option<Address>,
) -> Check {
    let Some(operator) = operator else {
        return skip("balance", "needs the key");
    };
    let balance = match provider.get_balance(operator).await {
        Ok(b) => b,
        Err(e) => {
            return fail("balance", format!("eth_getBalance: {e}"), "check the RPC");
        }
    };
    let gas_price = match provider.get_gas_price().await {
        Ok(p) => p,
        Err(e) => return fail("balance", format!("eth_gasPrice: {e}"), "check the RPC"),
    };
    let reports = U256::from(args.days) * U256::from(args.reports_per_day);
    let need = reports * U256::from(args.gas_per_report) * U256::from(gas_price);
    let detail = format!(
        "{} ETH; {} days x {} reports x {} gas at {} gwei = {} ETH",
        ether(balance),
        args.days,
        args.reports_per_day,
        args.gas_per_report,
        ether(U256::from(gas_price) * U256::from(1_000_000_000u64)),
        ether(need)
    );
    if balance >= need {
        ok("balance", detail)
    } else {
        fail(
            "balance",
            detail,
            format!(
                "send at least {} ETH to {operator} (or lower --days / --reports-per-day to what you budget)",
                ether(need - balance)
            ),
        )
    }
}

/// Wei as ether without the trailing zeros of `format_ether`'s 18 decimals.
fn ether(wei: U256) -> String {
    let text = format_ether(wei);
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ether_drops_trailing_zeros() {
        assert_eq!(ether(U256::ZERO), "0");
        assert_eq!(ether(U256::from(1_500_000_000_000_000_000u128)), "1.5");
        assert_eq!(ether(U256::from(10u128.pow(19))), "10");
    }
}
