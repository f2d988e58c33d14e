//! `veritas doctor`: check a node's configuration against the real world before going live.
//!
//! ```text
//! veritas doctor                                  # ./veritas.toml, VERITAS__* env, defaults
//! veritas doctor --config /etc/veritas/veritas.toml --days 14 --reports-per-day 200
//! veritas doctor --json                           # one JSON object, for scripts
//! ```
//!
//! It reads the configuration, the key and the chain exactly as `veritas run` does (the same
//! loaders, the same RPC client, the same model and search clients) and prints one line per
//! check with a fix for each failure: the RPC answers on the configured chain, the oracle has
//! code, the key is an operator of the current epoch, its free stake backs the reports it will
//! have open at once, the balance pays for `--days` of reports at the current gas price, the keystore is readable, the data directory is writable with
//! `--min-free-mib` free, every juror and the planner answer one tiny structured request, the
//! search API accepts its key and the HTTP address is free. The exit status is 1 when any check
//! fails. It sends no transaction and writes nothing but a probe file it removes again.

use std::{net::SocketAddr, path::Path, time::Instant};

use alloy::{
    eips::BlockId,
    primitives::{Address, U256, utils::format_ether},
    providers::Provider,
};
use clap::Args;
use serde::Serialize;
use serde_json::json;

use super::run::RunArgs;
use crate::{
    chain::{self, ChainProvider, IVeritasOracle, reader},
    config::{self, Config, ResolverKind},
    evidence::collectors::{CollectorError, tavily::TavilyCollector},
    jury::pool::JurorKind,
    llm::{
        ChatModel, ChatRequest, JsonSchema,
        llama::{LocalModel, resolve_model_path},
        openai::{OpenAiChat, OpenAiConfig},
    },
};

/// `veritas doctor` arguments.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// The configuration, `--data-dir` and `--http-addr`, exactly as `veritas run` takes them.
    #[command(flatten)]
    node: RunArgs,
    /// Days of reports the operator's balance must pay for.
    #[arg(long, default_value_t = 7)]
    days: u64,
    /// Reports a day to budget for.
    #[arg(long, default_value_t = 50)]
    reports_per_day: u64,
    /// Gas of one report (a finalising `submitReport` costs about 70,000).
    #[arg(long, default_value_t = 70_000)]
    gas_per_report: u64,
    /// Free space the data directory needs, in MiB.
    #[arg(long, default_value_t = 1024)]
    min_free_mib: u64,
    /// Print one JSON object instead of the checklist.
    #[arg(long)]
    json: bool,
}

/// A check's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The check passed.
    Ok,
    /// The check failed: the node would not work as configured.
    Fail,
    /// Not applicable to this configuration, or not possible after an earlier failure.
    Skip,
}

/// One line of the checklist.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// The check's name (`rpc`, `chain_id`, `oracle`, `key`, `keystore`, `operator`, `stake`,
    /// `balance`, `data_dir`, `http_addr`, `juror[i]`, `planner`, `search`).
    pub check: String,
    /// Passed, failed or skipped.
    pub status: Status,
    /// What was found.
    pub detail: String,
    /// What to do about a failure.
    pub fix: Option<String>,
}

fn ok(check: &str, detail: impl Into<String>) -> Check {
    Check {
        check: check.to_owned(),
        status: Status::Ok,
        detail: detail.into(),
        fix: None,
    }
}

fn fail(check: &str, detail: impl Into<String>, fix: impl Into<String>) -> Check {
    Check {
        check: check.to_owned(),
        status: Status::Fail,
        detail: detail.into(),
        fix: Some(fix.into()),
    }
}

fn skip(check: &str, detail: impl Into<String>) -> Check {
    Check {
        check: check.to_owned(),
        status: Status::Skip,
        detail: detail.into(),
        fix: None,
    }
}

/// Run `veritas doctor`.
///
/// # Errors
/// When any check fails (after printing the checklist), so the exit status is non-zero.
pub async fn run(args: DoctorArgs) -> anyhow::Result<()> {
    let checks = match args.node.load_config() {
        Ok(config) => checks(&config, &args).await,
        Err(e) => vec![fail(
            "config",
            format!("{e:#}"),
            "fix the key the error names (every key is commented in veritas.example.toml)",
        )],
    };
    let failed = checks.iter().filter(|c| c.status == Status::Fail).count();
    if args.json {
        println!(
            "{}",
            json!({"ok": failed == 0, "failed": failed, "checks": checks})
        );
    } else {
        print!("{}", render(&checks));
    }
    if failed > 0 {
        anyhow::bail!(
            "{failed} of {} checks failed: {}",
            checks.len(),
            checks
                .iter()
                .filter(|c| c.status == Status::Fail)
                .map(|c| c.check.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}

/// The checklist as text: one line per check, the fix indented under a failure.
pub fn render(checks: &[Check]) -> String {
    let width = checks.iter().map(|c| c.check.len()).max().unwrap_or(0);
    let mut out = String::new();
    for c in checks {
        let mark = match c.status {
            Status::Ok => "ok  ",
            Status::Fail => "FAIL",
            Status::Skip => "skip",
        };
        out.push_str(&format!("{mark}  {:width$}  {}\n", c.check, c.detail));
        if let Some(fix) = &c.fix {
            out.push_str(&format!("      {:width$}  fix: {fix}\n", ""));
        }
    }
    let failed = checks.iter().filter(|c| c.status == Status::Fail).count();
    out.push_str(&format!(
        "{} checks: {} ok, {failed} failed, {} skipped\n",
        checks.len(),
        checks.iter().filter(|c| c.status == Status::Ok).count(),
        checks.iter().filter(|c| c.status == Status::Skip).count()
    ));
    out
}

/// Every check, in order; later chain checks are skipped when what they need failed.
async fn checks(config: &Config, args: &DoctorArgs) -> Vec<Check> {
    let mut out = Vec::new();
    // The key first: the chain checks need its address.
    out.push(keystore_check(config));
    let signer = match config::load_signer(&config.keys) {
        Ok(s) => {
            out.push(ok("key", format!("operator address {}", s.address())));
            Some(s)
        }
        Err(e) => {
            out.push(fail(
                "key",
                e.to_string(),
                format!(
                    "set {} (e.g. in the service's EnvironmentFile), or keys.keystore with {} or keys.keystore_password_file",
                    config::ENV_PRIVATE_KEY,
                    config::ENV_KEYSTORE_PASSWORD
                ),
            ));
            None
        }
    };
    let address = signer.as_ref().map(|s| s.address());
    out.extend(chain_checks(config, args, address).await);
    out.push(data_dir_check(&config.node.data_dir, args.min_free_mib));
    out.push(http_addr_check(config.node.http_addr));
    out.extend(model_checks(config).await);
    out.push(search_check(config).await);
    out
}

fn keystore_check(config: &Config) -> Check {
    let Some(path) = &config.keys.keystore else {
        return skip(
            "keystore",
            format!(
                "no keys.keystore configured (the key comes from {})",
                config::ENV_PRIVATE_KEY
            ),
        );
    };
    match std::fs::read(path) {
        Ok(bytes) if serde_json::from_slice::<serde_json::Value>(&bytes).is_ok() => {
            let note = if std::env::var_os(config::ENV_PRIVATE_KEY).is_some() {
                format!(" (unused: {} is set and wins)", config::ENV_PRIVATE_KEY)
            } else {
                String::new()
            };
            ok(
                "keystore",
                format!("{} is readable JSON{note}", path.display()),
            )
        }
        Ok(_) => fail(
            "keystore",
            format!("{} is not a JSON keystore", path.display()),
            "point keys.keystore at a Web3 Secret Storage file (cast wallet import writes one)",
        ),
        Err(e) => fail(
            "keystore",
            format!("{}: {e}", path.display()),
            "make the file readable by the service user (and only by it), or fix keys.keystore",
        ),
    }
}

async fn chain_checks(config: &Config, args: &DoctorArgs, operator: Option<Address>) -> Vec<Check> {
    let mut out = Vec::new();
    let url = &config.chain.rpc_url;
    let provider = match chain::connect(url, config.chain.rpc_timeout) {
        Ok(p) => p,
        Err(e) => {
            out.push(fail(
                "rpc",
                e.to_string(),
                "set chain.rpc_url (or VERITAS__CHAIN__RPC_URL) to an HTTP JSON-RPC URL",
            ));
            for name in ["chain_id", "oracle", "operator", "stake", "balance"] {
                out.push(skip(name, "needs the RPC"));
            }
            return out;
        }
    };
    // Reachability first (any chain), then whether it is the configured one.
    let actual = match chain::check_chain_id(&provider, None).await {
        Ok(id) => id,
        Err(e) => {
            out.push(fail(
                "rpc",
                format!("{url}: {e}"),
                "start the chain node or check chain.rpc_url, the network and the provider's key",
            ));
            for name in ["chain_id", "oracle", "operator", "stake", "balance"] {
                out.push(skip(name, "needs the RPC"));
            }
            return out;
        }
    };
    let head = provider.get_block_number().await.unwrap_or_default();
    out.push(ok(
        "rpc",
        format!("{url} answers: chain {actual}, block {head}"),
    ));
    match chain::check_chain_id(&provider, config.chain.chain_id).await {
        Ok(_) if config.chain.chain_id.is_none() => out.push(ok(
            "chain_id",
            format!("chain {actual} (chain.chain_id is not set: any chain is taken)"),
        )),
        Ok(_) => out.push(ok("chain_id", format!("chain {actual} as configured"))),
        Err(e) => {
            out.push(fail(
                "chain_id",
                e.to_string(),
                format!(
                    "point chain.rpc_url at a node of chain {}, or set chain.chain_id = {actual} if this is the chain you mean",
                    config.chain.chain_id.unwrap_or_default()
                ),
            ));
            for name in ["oracle", "operator", "stake", "balance"] {
                out.push(skip(name, "needs the configured chain"));
            }
            return out;
        }
    }
    let oracle = match config.oracle_address(actual) {
        Ok(a) => a,
        Err(e) => {
            out.push(fail(
                "oracle",
                e.to_string(),
                "set chain.oracle (or --oracle) to the VeritasOracle address",
            ));
            out.push(skip("operator", "needs the oracle"));
            out.push(skip("stake", "needs the oracle"));
            out.push(balance_check(&provider, args, operator).await);
            return out;
        }
    };
    match reader::ensure_contract(&provider, oracle, BlockId::latest()).await {
        Ok(()) => out.push(ok("oracle", format!("code at {oracle}"))),
        Err(e) => {
            out.push(fail(
                "oracle",
                e.to_string(),
                format!("set chain.oracle to the oracle deployed on chain {actual}"),
            ));
            out.push(skip("operator", "needs the oracle"));
            out.push(skip("stake", "needs the oracle"));
            out.push(balance_check(&provider, args, operator).await);
            return out;
        }
    }
    let operator_check = operator_check(&provider, oracle, operator).await;
    let is_operator = operator_check.status == Status::Ok;
    out.push(operator_check);
    if is_operator {
        out.push(stake_check(&provider, oracle, args, operator).await);
    } else {
        out.push(skip("stake", "needs an operator key"));
    }
    out.push(balance_check(&provider, args, operator).await);
    out
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
    let contract = IVeritasOracle::new(oracle, provider);
    let read = async {
        let params = contract.parameters().call().await?;
        let unit = contract.BOND_UNIT().call().await?;
        let view = contract.operatorStake(operator).call().await?;
        Ok::<_, alloy::contract::Error>((params, unit, view))
    };
    let (params, unit, view) = match read.await {
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
    let bond = crate::chain::reader::report_bond(&params, unit);
    if bond.is_zero() {
        return ok(
            "stake",
            format!(
                "{} ETH free; the set in force bonds nothing per report (no challenge window, or a dispute bond below BOND_UNIT)",
                ether(free)
            ),
        );
    }
    let open = (u128::from(args.reports_per_day) * u128::from(params.challengeWindow))
        .div_ceil(86_400)
        .max(1);
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
                "stake at least {} ETH more for {operator}: anyone may call stake({operator}) on {oracle} with that value; the operator withdraws the free part with withdrawStake",
                ether(need - free)
            ),
        )
    }
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

fn data_dir_check(dir: &Path, min_free_mib: u64) -> Check {
    // The node creates the folder at start; until then its nearest existing parent must let it.
    let existing = dir
        .ancestors()
        .find(|p| p.as_os_str().is_empty() || p.is_dir())
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .unwrap_or(Path::new("."));
    let probe = existing.join(format!(".veritas-doctor-{}", std::process::id()));
    if let Err(e) = std::fs::write(&probe, b"probe") {
        return fail(
            "data_dir",
            format!("{} is not writable: {e}", existing.display()),
            format!(
                "give the service user write access to {} (systemd: StateDirectory=), or set node.data_dir",
                dir.display()
            ),
        );
    }
    let _ = std::fs::remove_file(&probe);
    let free_mib = match free_bytes(existing) {
        Some(b) => b / (1024 * 1024),
        None => {
            return ok(
                "data_dir",
                format!("{} is writable (free space unknown)", dir.display()),
            );
        }
    };
    let what = if dir.is_dir() {
        "is writable"
    } else {
        "can be created"
    };
    if free_mib < min_free_mib {
        return fail(
            "data_dir",
            format!(
                "{} {what}, but only {free_mib} MiB free (at least {min_free_mib} MiB wanted)",
                dir.display()
            ),
            "free space on that filesystem, or move node.data_dir to a larger one",
        );
    }
    ok(
        "data_dir",
        format!("{} {what}, {free_mib} MiB free", dir.display()),
    )
}

/// Free bytes for an unprivileged user on the filesystem holding `path`.
fn free_bytes(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c_path` is a NUL-terminated string that outlives the call, and `stat` points
    // to writable memory of the struct's size; statvfs fills it completely on success.
    let rc = unsafe { libc::statvfs(c_path.as_ptr(), stat.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: statvfs returned 0, so it initialised the struct.
    let stat = unsafe { stat.assume_init() };
    #[allow(clippy::unnecessary_cast)] // the field types differ between platforms
    let free = (stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64);
    Some(free)
}

fn http_addr_check(addr: SocketAddr) -> Check {
    match std::net::TcpListener::bind(addr) {
        Ok(listener) => {
            drop(listener);
            ok("http_addr", format!("{addr} is free"))
        }
        Err(e) => fail(
            "http_addr",
            format!("cannot listen on {addr}: {e}"),
            "stop what listens there (another veritas?), or set node.http_addr / --http-addr",
        ),
    }
}

/// The smallest structured request: one boolean, under a JSON Schema.
fn tiny_request() -> ChatRequest {
    ChatRequest {
        system: "You answer with one JSON object and nothing else.".to_owned(),
        user: "Reply with {\"ok\": true}.".to_owned(),
        json_schema: Some(JsonSchema {
            name: "doctor".to_owned(),
            schema: json!({
                "type": "object",
                "properties": {"ok": {"type": "boolean"}},
                "required": ["ok"],
                "additionalProperties": false
            }),
        }),
        temperature: 0.0,
        max_tokens: 32,
        seed: Some(1),
        cache_key: None,
    }
}

async fn ask_model(name: &str, config: &OpenAiConfig) -> Check {
    // One attempt: a doctor reports what is wrong now instead of waiting out the backoff.
    let config = OpenAiConfig {
        max_retries: 0,
        ..config.clone()
    };
    let fix_server = format!(
        "start the model server at {} or fix base_url, model and api_key_env",
        config.base_url
    );
    let client = match OpenAiChat::new(config.clone()) {
        Ok(c) => c,
        Err(e) => return fail(name, e.to_string(), fix_server),
    };
    let started = Instant::now();
    match client.chat(&tiny_request()).await {
        Ok(answer) => {
            let value = serde_json::from_str::<serde_json::Value>(&answer.content).ok();
            let parsed = value
                .as_ref()
                .and_then(|v| v.get("ok").and_then(serde_json::Value::as_bool));
            let mode = format!("{:?}", client.output_mode());
            match parsed {
                Some(_) => ok(
                    name,
                    format!(
                        "{} ({}) answered {} in {:.1} s; structured output: {mode}",
                        config.model,
                        config.base_url,
                        value.map(|v| v.to_string()).unwrap_or_default(),
                        started.elapsed().as_secs_f64()
                    ),
                ),
                None => fail(
                    name,
                    format!(
                        "{} answered {:?}, not the JSON object asked for (structured output: {mode})",
                        config.model, answer.content
                    ),
                    "use a model or server that follows a JSON schema (json_schema or json_object response_format)",
                ),
            }
        }
        Err(e) => fail(name, format!("{}: {e}", config.base_url), fix_server),
    }
}

async fn model_checks(config: &Config) -> Vec<Check> {
    let mut out = Vec::new();
    if config.node.resolver == ResolverKind::Replay {
        out.push(skip(
            "jurors",
            "node.resolver = \"replay\": no juror is called (tests and load runs only)",
        ));
    } else {
        for (i, juror) in config.jury.jurors.iter().enumerate() {
            let name = format!("juror[{i}]");
            out.push(match &juror.kind {
                JurorKind::Openai(c) => ask_model(&name, c).await,
                JurorKind::Local(c) => {
                    let mut model = c.model.clone();
                    model.path = resolve_model_path(&model.path);
                    let started = Instant::now();
                    match LocalModel::load(&model) {
                        Ok(_) => ok(
                            &name,
                            format!(
                                "embedded model {} loads ({:.1} s)",
                                model.path.display(),
                                started.elapsed().as_secs_f64()
                            ),
                        ),
                        Err(e) => fail(
                            &name,
                            e.to_string(),
                            "install the model (make setup-demo) or fix the juror's path",
                        ),
                    }
                }
                JurorKind::Replay(_) => skip(&name, "a replay juror (tests only) calls no model"),
            });
        }
    }
    match &config.planner_model {
        Some(c) => out.push(ask_model("planner", c).await),
        None => out.push(skip(
            "planner",
            "no [planner_model]: the fallback plan is used",
        )),
    }
    out
}

async fn search_check(config: &Config) -> Check {
    let tavily = &config.evidence.collectors.tavily;
    if !tavily.enabled {
        return skip(
            "search",
            "web search is off (evidence.collectors.tavily.enabled = false)",
        );
    }
    let one_try = crate::evidence::collectors::tavily::TavilyConfig {
        max_attempts: 1,
        max_results: 1,
        ..tavily.clone()
    };
    let client = match TavilyCollector::from_env(one_try) {
        Ok(c) => c,
        Err(e) => {
            return fail(
                "search",
                e.to_string(),
                format!("put the search API key in {}", tavily.api_key_env),
            );
        }
    };
    match client.search("veritas doctor", None).await {
        Ok(hits) => ok(
            "search",
            format!(
                "{} accepted the key ({} result(s))",
                tavily.endpoint,
                hits.len()
            ),
        ),
        Err(e @ CollectorError::Unauthorized { .. }) => fail(
            "search",
            e.to_string(),
            format!(
                "put a valid key in {} (the provider's dashboard shows it)",
                tavily.api_key_env
            ),
        ),
        Err(e) => fail(
            "search",
            format!("{}: {e}", tavily.endpoint),
            "check evidence.collectors.tavily.endpoint and the network",
        ),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_bound_address_fails_and_a_free_one_passes() {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = taken.local_addr().unwrap();
        let check = http_addr_check(addr);
        assert_eq!(check.status, Status::Fail, "{check:?}");
        assert!(check.fix.is_some());
        drop(taken);
        assert_eq!(http_addr_check(addr).status, Status::Ok);
    }

    #[test]
    fn the_data_dir_is_checked_where_the_node_will_create_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("a/b");
        let check = data_dir_check(&missing, 0);
        assert_eq!(check.status, Status::Ok, "{check:?}");
        assert!(check.detail.contains("can be created"), "{check:?}");
        assert!(!missing.exists(), "the doctor created the folder");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "probe left behind"
        );
        let full = data_dir_check(dir.path(), u64::MAX);
        assert_eq!(full.status, Status::Fail, "{full:?}");
        assert!(full.detail.contains("MiB free"), "{full:?}");
    }

    #[test]
    fn the_checklist_shows_a_fix_under_each_failure() {
        let text = render(&[
            ok("rpc", "answers"),
            fail("chain_id", "wrong chain", "point it elsewhere"),
            skip("oracle", "needs the configured chain"),
        ]);
        assert_eq!(
            text,
            "ok    rpc       answers\n\
             FAIL  chain_id  wrong chain\n\
             \x20               fix: point it elsewhere\n\
             skip  oracle    needs the configured chain\n\
             3 checks: 1 ok, 1 failed, 1 skipped\n"
        );
    }

    #[test]
    fn ether_drops_trailing_zeros() {
        assert_eq!(ether(U256::ZERO), "0");
        assert_eq!(ether(U256::from(1_500_000_000_000_000_000u128)), "1.5");
        assert_eq!(ether(U256::from(10u128.pow(19))), "10");
    }
}
